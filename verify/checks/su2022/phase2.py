"""su2022 checks c20-c27: Phase 2 (FedX+clustering), Theorem 2 and Lemmas 2, 7, 8, 10, 11, eq. (32), (36).

docs/papers/su2022.md §6 C (C20-C27). Phase 2 runs on federations drawn from the planted mixture, started near
theta* (the situation Theorem 2 assumes after Phase 1). FedAvg with s = 5 local steps and
eta = 0.5/(s max_i ||phi_i||^2/n_i) (gamma = 0.5/s) unless a check sweeps them. Constants hidden by
<~ are fitted on a calibration part of the grid and held fixed on the rest.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.papers import su2022 as S
from verify import figspec
from verify.algorithms.moment_descent import permutation_distance
from verify.algorithms.two_phase import (
    Phase2Round,
    cluster_matrices,
    contraction_matrices,
    fedx_clustering,
    kappa,
    preconditioners,
    success,
    weighted_least_squares,
)
from verify.checks.su2022.common import (
    DELTA,
    claim,
    exponent_verdict,
    federation,
    fitted_rates,
    model,
    numpy,
    perturbed_centres,
    proportion_band,
    unit_constant_verdict,
    verdict_words,
)
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bracket_verdict,
    bootstrap_ci,
    combine,
    deterministic_verdict,
    family_z,
    geometric_rate_verdict,
    held_out_constant_verdict,
    mc_identity_verdict,
    power_law,
    proportion_ci,
    proportion_verdict,
    rate_verdict,
    unanimous,
)
from verify.normal_draws import randn
from verify.problems.mixed_regression import effective_clients, pareto_sizes
from verify.checks.su2022 import search as SEARCH
from verify.registry import check, result_for
from verify.strength import aside

from verify.result import Assumption, Claim, Result

S_LOCAL = 5


def _kappa_of(fed, eta, s=S_LOCAL) -> np.ndarray:
    return kappa(numpy(fed.gamma(eta)), s)


def _sharp_rate(fed, eta, s=S_LOCAL) -> np.ndarray:
    """max_j ||I - eta K_j||_2 on the true clusters, per replicate: the exact contraction of (12)."""
    K = contraction_matrices(fed, eta, "fedavg", s)
    ev = torch.linalg.eigvalsh(torch.as_tensor(eta, dtype=K.dtype, device=K.device).reshape(-1, 1, 1, 1) * K)
    return numpy(torch.maximum((1 - ev[..., 0]).abs(), (1 - ev[..., -1]).abs()).amax(-1))


@check("su2022.c20", "Theorem 2 (9): Phase 2 contracts linearly, 1 - r >~ s eta rho / kappa", "rate", "holds",
       no_control="the claim is Theorem 2's contraction factor; the sharp rate of the same iteration (from its spectrum) is reported beside it",
       statements=("Theorem 2",))
def c20_linear_rate(ctx: Context, *, theory: Bound = S.THM_2_RATE, eps0s=(0.05, 0.1, 0.2, 0.3), eta_factors=(0.25, 0.5, 1.0),
                    p1s=(0.1, 0.2, 0.35, 0.5), clients: int = 150, n: int = 40, rounds: int = 80,
                    tol: float = 0.2, slack: float = 0.01) -> Result:
    """Claim 20: starts at d(theta_T, theta*) = eps0 Delta (random directions). The per-round factor r (from
    the decay of the steps, labels frozen) must satisfy r <= max_j ||I - eta K_j|| + 0.01 (the exact rate of
    (12), a check of the measurement, reported); and 1 - r >~ s eta rho/kappa is tested on its exponents in the two
    variables it names that the grid sweeps: eta (the step, eta factors; kappa moves with it) and rho (skewed p,
    k = 2, p = (p1, 1 - p1)). The claim's asymptotics lie at small steps and small rho, where 1 - r must not fall
    faster than the bound: exponent <= the bound's + tol (a lower bound read toward 0; tol = 0.2 as our reading (docs/papers/su2022.md)
    windows). The fitted exponents are below the bound's (in rho about 0.65 against 1): kappa only describes the
    steepest client and lambda_min(Phi_j^T Phi_j)/N_j shrinks with N_j, so the bound is loose there."""
    reps = max(2, ctx.reps(2, 8, minimum=2))
    combos = [(e, f) for e in eps0s for f in eta_factors for _ in range(reps)]
    R = len(combos)
    fed = federation(ctx, "eta-sweep", R, torch.full((clients,), n, dtype=torch.long))
    eta0 = fed.eta_for_gamma(0.5 / S_LOCAL)
    eta = eta0 * torch.tensor([f for _, f in combos], dtype=ctx.dtype, device=ctx.torch_device)
    start = perturbed_centres(ctx, "starts", fed.model.theta, [e for e, _ in combos])
    tr = fedx_clustering(fed, start, eta, rounds, s=S_LOCAL)
    r_hat = fitted_rates(tr.change)
    sharp = _sharp_rate(fed, eta)
    x_a = np.asarray(theory(s=S_LOCAL, eta=numpy(eta), rho=numpy(fed.rho), kappa=_kappa_of(fed, eta)), dtype=float)
    # skewed proportions, one federation with a p per replicate
    rb = max(2, ctx.reps(4, 16, minimum=2))
    p_rows = torch.tensor([[p, 1 - p] for p in p1s for _ in range(rb)], dtype=ctx.dtype)
    fed_b = federation(ctx, "rho-sweep", p_rows.shape[0], torch.full((clients,), n, dtype=torch.long), k=2, p=p_rows)
    eta_b = fed_b.eta_for_gamma(0.5 / S_LOCAL)
    tr_b = fedx_clustering(fed_b, perturbed_centres(ctx, "starts-b", fed_b.model.theta, 0.2), eta_b, rounds, s=S_LOCAL)
    r_b, sharp_b = fitted_rates(tr_b.change), _sharp_rate(fed_b, eta_b)
    x_b = np.asarray(theory(s=S_LOCAL, eta=numpy(eta_b), rho=numpy(fed_b.rho), kappa=_kappa_of(fed_b, eta_b)), dtype=float)
    labels_ok = bool((tr.wrong_data[-1] == 0).all()) and bool((tr_b.wrong_data[-1] == 0).all())
    finite = bool(np.isfinite(r_hat).all() and np.isfinite(r_b).all())
    with aside():  # a check of the measurement (no rate beats the iteration's spectrum), not the claim
        v_sharp, info_sharp = deterministic_verdict(np.concatenate([r_hat, r_b]), np.concatenate([sharp, sharp_b]) + slack)
    x_all = np.concatenate([x_a, x_b])
    # one slope over every configuration: columns are (eta factor) x (p1) cells, rows their replicates
    cells_a = (1 - r_hat).reshape(len(eps0s), len(eta_factors), reps).transpose(1, 0, 2).reshape(len(eta_factors), -1)
    cells_b = (1 - r_b).reshape(len(p1s), rb)
    xa = x_a.reshape(len(eps0s), len(eta_factors), reps).transpose(1, 0, 2).reshape(len(eta_factors), -1).mean(1)
    xb = x_b.reshape(len(p1s), rb).mean(1)
    rows = min(cells_a.shape[1], rb)
    X = np.concatenate([xa, xb])
    Y = np.concatenate([cells_a[:, :rows], cells_b[:, :rows]], 0).T
    order = np.argsort(X)
    Ge = cells_a.T
    Gr = cells_b.T
    rho_x = numpy(fed_b.rho).reshape(len(p1s), rb).mean(1)
    eta_mean = float(numpy(eta0).mean())
    kap_a = _kappa_of(fed, eta).reshape(len(eps0s), len(eta_factors), reps).transpose(1, 0, 2).reshape(len(eta_factors), -1).mean(1)
    kap_b = _kappa_of(fed_b, eta_b).reshape(len(p1s), rb).mean(1)
    v_eta, fit_eta = exponent_verdict(ctx, eta_mean * np.asarray(eta_factors, dtype=float), Ge, theory, param="eta",
                                      values={"s": S_LOCAL, "rho": float(numpy(fed.rho).mean()), "kappa": kap_a}, tol=tol,
                                      tight=False, toward_zero=True)
    v_rho, fit_rho = exponent_verdict(ctx, rho_x, Gr, theory, param="rho",
                                      values={"s": S_LOCAL, "eta": float(numpy(eta_b).mean()), "kappa": kap_b}, tol=tol,
                                      tight=False, toward_zero=True)
    fit_x = {"slope": fit_rho["slope"]}
    slope_eta = float(np.polyfit(np.log(eta_factors), np.log(Ge.mean(0)), 1)[0])
    slope_rho = float(np.polyfit(np.log(rho_x), np.log(Gr.mean(0)), 1)[0])
    assumptions = [Assumption("labels correct at the end (the rate is that of the true partition)", labels_ok, None, "exact", ""),
                   Assumption("every run contracted measurably", finite, None, "exact", f"{rounds} rounds")]
    verdict = apply_assumptions(combine([v_sharp, v_eta, v_rho]), assumptions)
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(theory, r"d(\theta_t,\theta^*)\le(1-C_1s\eta\rho/\kappa)\,d(\theta_{t-1},\theta^*)+C_2s\eta\sigma\nu\log\frac{e}{\nu}"),
        verdict,
        observed={"rate_eta_sweep": r_hat, "sharp_rate_eta_sweep": sharp, "rate_rho_sweep": r_b, "rho": numpy(fed_b.rho),
                  "eta_factors": list(eta_factors), "one_minus_rate_by_eta": Ge.mean(0), "rho_grid": rho_x,
                  "one_minus_rate_by_rho": Gr.mean(0), "slope_eta": slope_eta, "slope_rho": slope_rho,
                  "clients": clients, "n": n, "s": S_LOCAL},
        predicted={"s_eta_rho_over_kappa": x_all, "exponent_eta": fit_eta["predicted_exponent"],
                   "exponent_rho": fit_rho["predicted_exponent"], "exponent_tolerance": tol, "slack": slack},
        fit={"sharp": info_sharp, "eta": fit_eta, "rho": fit_rho, "slope_eta": slope_eta, "slope_rho": slope_rho},
        explanation=verdict_words(
            verdict,
            f"Every run contracts at most at the exact rate max_j ||I - eta K_j|| (+{slack}); 1 - r falls no faster than "
            f"s eta rho/kappa as the step and rho shrink: exponent in eta {fit_eta['slope']:.2f} (CI {fit_eta['slope_ci'][0]:.2f} "
            f"to {fit_eta['slope_ci'][1]:.2f}) against {fit_eta['predicted_exponent']:.2f}, in rho {fit_rho['slope']:.2f} (CI "
            f"{fit_rho['slope_ci'][0]:.2f} to {fit_rho['slope_ci'][1]:.2f}) against {fit_rho['predicted_exponent']:.2f} (kappa only "
            "describes the steepest client and small clusters have worse-conditioned designs, so the bound is loose in rho): "
            "linear convergence at least as fast as Theorem 2 states.",
            f"Some part fails: measured rates exceed the exact rate (worst ratio {info_sharp['worst_ratio']:.3f}), or 1 - r "
            f"falls faster than s eta rho/kappa (exponent in eta {fit_eta['slope']:.2f}, in rho {fit_rho['slope']:.2f}).",
            f"The exponents in eta ({fit_eta['slope']:.2f}) and rho ({fit_rho['slope']:.2f}) are not resolved, or an assumption failed."),
        assumptions=assumptions,
        figure=figspec.figure(
            figspec.panel(r"$1-\hat r$ vs $s\eta\rho/\kappa$ (step and $\rho$ sweeps)", r"$s\eta\rho/\kappa$", r"$1-\hat r$",
                          [figspec.observed("measured", X[order], Y[:, order], rng=fig),
                           figspec.line(r"$c\,s\eta\rho/\kappa$, c = min (1 - r)/shape", X[order],
                                        float(np.min(Y.mean(0) / X)) * X[order], "bound")])),
        arrays={"rate_eta_sweep": r_hat, "rate_rho_sweep": r_b},
    )


@check("su2022.c21", "Theorem 2's basin: from any start within (sqrt(alpha/beta)/3) Delta Phase 2 succeeds", "bound", "holds",
       no_control="the basin radius of Phase 2 is what is tested against the lemma's radius; starts beyond the radius "
                  "(where success must fail for the test to have power) are on the grid", space=SEARCH.C21_SPACE, objective=SEARCH.C21_OBJECTIVE,
       statements=("Theorem 2", "Lemma 10"))
def c21_basin(ctx: Context, *, theory: Bound = S.BASIN_RADIUS, radii=(0.2, 1 / 3, 0.6, 1.0, 1.5), deltas=(1.0, 25.0),
              clients: int = 100, tail: float = 2.0, rounds: int = 200, stop: float = 1e-5,
              threshold: float = 0.85) -> Result:
    """Claim 21: at each separation Delta in ``deltas`` (sigma = 0.1 fixed, so Delta moves both the radius and the
    signal-to-noise ratio), starts theta*_j + r Delta u_j (random directions) for r in radii; Phase 2 runs until
    every replicate's step is below ``stop`` Delta (at most ``rounds`` rounds: Theorem 2 promises convergence after
    T' rounds, not after a fixed count). At every radius within the Lemma-10 radius sqrt(alpha/beta) Delta/3 the
    success share must reach 85% (Clopper-Pearson lower end; our reading (docs/papers/su2022.md) "100% of seeds"
    cannot be shown by finitely many, and the rare failures sit at the radius itself).
    Per Delta the empirical basin radius (in the units of theta) is bracketed between the largest radius whose
    starts (all radii <= it pooled) are certified and the smallest radius refuted alone (share CI below 85%); the
    lemma's radius, evaluated at each Delta, is a lower bound on it: two exact atoms on the Bound with Delta per
    point, 'refuted radius >= lemma radius' (fails: violated) and 'certified radius >= lemma radius' (holds:
    holds; else inconclusive). The grid reaches far enough out (1.5 Delta, beyond the midpoint between two centres)
    to refute a radius: a stated radius that grows faster than Delta is violated (a Delta^1.5 plant asks 5/3 Delta at
    Delta = 25, where Delta itself is refuted; the power in Delta is an exponent about 0.5). Random directions only
    probe the ball, so this is evidence for the uniform claim, not a proof of it.

    Stability across root seeds (quick, 20 starts per radius and Delta), measured over seeds 0-11: 12 of 12
    ``holds`` (bracket [0.6, 1.0] Delta at 11 seeds, [1/3, 0.6] Delta at seed 9). With a fixed 60 rounds seed 9 was
    ``inconclusive``: its Pareto sizes put 500 of 1010 points on one client, Phase 2 contracts slowly there, and
    starts at Delta/3 had not yet reached Delta/4 (4 of 20 successes
    after 60 rounds, 20 of 20 after 200); running to convergence removes that artefact of the round count."""
    per = ctx.reps(20, 100)
    radii = np.asarray(radii, dtype=float)
    deltas = np.asarray(deltas, dtype=float)
    R = per * radii.size
    sizes = pareto_sizes(clients, tail, ctx.generator("sizes"))
    r_rep = torch.tensor(radii, dtype=ctx.dtype).repeat_interleave(per)
    oks, alphas, betas, used = [], [], [], []
    for D in deltas:
        tag = "" if D == DELTA else f"/Delta={D:g}"
        fed = federation(ctx, "federation" + tag, R, sizes, Delta=float(D))
        start = perturbed_centres(ctx, "starts" + tag, fed.model.theta, r_rep * float(D))
        tr = fedx_clustering(fed, start, fed.eta_for_gamma(0.5 / S_LOCAL), rounds, s=S_LOCAL, checkpoints=[rounds],
                             tol=stop * float(D))
        oks.append(numpy(success(fed, tr, fed.model.Delta)).reshape(radii.size, per))
        alphas.append(float(numpy(fed.model.alpha).min()))
        betas.append(float(numpy(fed.model.beta).max()))
        used.append(int(tr.rounds[-1]))
    at = {"alpha": np.asarray(alphas), "beta": np.asarray(betas), "Delta": deltas}
    basin = np.asarray(theory(**at), dtype=float) * np.ones(deltas.size)
    r_ok, r_bad, info = [], [], {"per_radius": [], "certified_share": []}
    with aside():  # the starts up to each radius pooled: certified (CI lower end >= threshold); each radius alone:
        # refuted (its share certified at or below the threshold)
        for ok, D, b in zip(oks, deltas, basin):
            pooled = [proportion_verdict(int(ok[: i + 1].sum()), per * (i + 1), threshold)[0] for i in range(radii.size)]
            refuted = [r for i, r in enumerate(radii) if proportion_verdict(int(ok[i].sum()), per, threshold,
                                                                              side="upper")[0].passed]
            r_ok.append(D * max([r for i, r in enumerate(radii) if pooled[i].passed], default=0.0))
            r_bad.append(D * min(refuted, default=float("inf")))
            inside = radii * D <= b * (1 + 1e-12)
            info["per_radius"].append([v.value for v in pooled])
            info["certified_share"].append(proportion_verdict(int(ok[inside].sum()), int(ok[inside].size), threshold)[1])
    r_ok, r_bad = np.asarray(r_ok), np.asarray(r_bad)
    # the empirical basin radius lies in [r_ok, r_bad]; the lemma's radius must not exceed it
    finite = np.isfinite(r_bad)
    v_ok, info_ok = deterministic_verdict(r_ok, theory, rtol=1e-12, at=at)  # certified radius >= lemma radius
    if finite.any():  # refuted radius >= lemma radius (a Delta with nothing refuted cannot refute)
        v_bad, info_bad = deterministic_verdict(r_bad[finite], theory, rtol=1e-12,
                                                at={n: v[finite] for n, v in at.items()})
        # the bracket rule: holds when the certified ends clear the lemma's radius, violated when a refuted end lies
        # below it (then the certified end does too), else undecided
        verdict = unanimous([v_ok, v_bad])
    else:
        info_bad = {"reason": "no radius refuted on the grid"}
        verdict = apply_assumptions(v_ok, [Assumption("a radius is refuted on the grid, or the certified radius covers "
                                                      "the lemma's", v_ok.passed, None, "exact", "")])
    info.update({"basin_bracket": [[float(a), float(b)] for a, b in zip(r_ok, r_bad)], "lemma10_radius": basin,
                 "refuted_radius_atom": info_bad, "certified_radius_atom": info_ok, "rounds_run": used})
    bands = [proportion_band(ok.sum(1), [per] * radii.size) for ok in oks]
    rate = np.stack([b[0] for b in bands])
    below = [[float(r) for r, v in zip(radii, row) if v < 0.9] for row in rate]
    ins = [int(ok[radii * D <= b * (1 + 1e-12)].sum()) for ok, D, b in zip(oks, deltas, basin)]
    tot = [int(ok[radii * D <= b * (1 + 1e-12)].size) for ok, D, b in zip(oks, deltas, basin)]
    edge = ", ".join(f"Delta = {D:g}: {min(bl):.2f} Delta" if bl else f"Delta = {D:g}: beyond {radii[-1]:.2f} Delta"
                     for D, bl in zip(deltas, below))
    fig = figspec.figure(*[figspec.panel(
        f"Phase-2 success vs start radius (Delta = {D:g})", r"$d(\theta_T,\theta^*)/\Delta$", "success share",
        [figspec.interval("success", radii, bd[0], bd[1], bd[2], "95% Clopper-Pearson"),
         figspec.line("Lemma 10 radius", [b / D, b / D], [0, 1], "reference")], xscale="linear", yscale="linear")
        for D, bd, b in zip(deltas, bands, basin)])
    return result_for(
        ctx,
        Claim("Theorem 2 holds for all theta_T with d(theta_T, theta*) <= eps Delta; Lemma 10's radius is "
              "(sqrt(alpha/beta)/3) Delta: from any start in that ball Phase 2 converges.",
              r"d(\theta_T,\theta^*)\le\tfrac{1}{3}\sqrt{\alpha/\beta}\,\Delta\ \Rightarrow\ \text{convergence}",
              "su2022, Theorem 2 and Lemma 10 (Appendix B.2)", "d(theta_T, theta^*) <= 1/3 sqrt(alpha / beta) Delta"),
        verdict,
        observed={"radius_over_Delta": radii.tolist(), "Delta": deltas.tolist(), "success_share": rate,
                  "runs_per_radius": per, "empirical_basin_below_90pct_over_Delta": [min(b) if b else None for b in below],
                  "basin_bracket": info["basin_bracket"], "rounds_run": used, "clients": clients, "pareto_tail": tail},
        predicted={"lemma10_radius": basin, "threshold_share": threshold},
        fit=info,
        explanation=verdict_words(
            verdict,
            f"At every Delta ({', '.join(f'{D:g}' for D in deltas)}) the starts within the Lemma-10 radius "
            f"sqrt(alpha/beta) Delta/3 are certified to succeed ({', '.join(f'{a} of {b}' for a, b in zip(ins, tot))}); "
            f"success first falls below 90% at {edge}: the empirical basin scales with Delta and contains the "
            "theorem's radius.",
            f"At some Delta a radius within the stated basin is refuted: brackets {info['basin_bracket']} against the "
            f"stated radii {np.round(basin, 3).tolist()}.",
            f"The starts within the radius cannot be certified at {threshold:.0%} at every Delta (brackets "
            f"{info['basin_bracket']} against {np.round(basin, 3).tolist()})."),
        figure=fig,
        arrays={"success": np.stack(oks)},
    )


def _rounds_to_floor(ctx: Context, fed, stream: str, cap: int, factor: float = 1.2, start: float = 0.2, settle: int = 60):
    """Rounds until d(theta_t, theta*) <= factor d_inf per replicate, d_inf the error of Phase 2's limit: the
    P-weighted least squares (docs/papers/su2022.md §2.5) on the labels of round ``settle``, where they have settled. The run
    stops once every replicate arrived (``cap`` rounds at most). Also kappa/(s eta rho) per replicate."""
    eta = fed.eta_for_gamma(0.5 / S_LOCAL)
    theta0 = perturbed_centres(ctx, stream, fed.model.theta, start)
    first = fedx_clustering(fed, theta0, eta, settle, s=S_LOCAL, checkpoints=[settle])
    limit, _ = permutation_distance(weighted_least_squares(fed, first.labels, eta, "fedavg", S_LOCAL), fed.model.theta)
    rest = fedx_clustering(fed, first.final, eta, cap - settle, s=S_LOCAL, checkpoints=[cap - settle], until=factor * limit)
    error = numpy(torch.cat([first.error, rest.error[1:]]))
    hit = error <= factor * numpy(limit)[None]
    rounds = np.where(hit.any(0), np.argmax(hit, axis=0), cap + 1).astype(float)
    return rounds, _kappa_of(fed, eta) / numpy(S_LOCAL * eta * fed.rho)


@check("su2022.c22", "Theorem 3: Phase 2 needs T' = Theta((kappa/(s eta rho)) log(Delta/nu)) rounds", "rate", "holds",
       no_control="the claim is the scaling of Phase 2's round count with kappa/(s eta rho); no method without the property is compared in the paper",
       statements=("Theorem 3",))
def c22_rounds(ctx: Context, *, theory: Bound = power_law("x", 1.0, "upper", "T' <~ kappa/(s eta rho)"),
               p1s=(0.15, 0.3, 0.5), ds=(2, 4, 8), clients: int = 100, tiny_share: float = 0.1, cap: int = 4000,
               tol: float = 0.4) -> Result:
    """Claim 22: rounds to reach 1.2 d_inf (our reading (docs/papers/su2022.md) 1.1, widened: the limit on settled labels is itself
    estimated) against x = kappa/(s eta rho): skewed p (k = 2, balanced n = 40) and
    the tiny-client cost (10% of the clients with n_i = 1, eta set by gamma = 0.5/s, so eta ~ 1/d and T' grows
    with d; k = 2). Theorem 3 prescribes T' rounds and proves they suffice, so the verdict tests that the rounds
    needed grow no faster than kappa/(s eta rho): slope <= 1 + 0.4 over all configurations (our reading (docs/papers/su2022.md) window
    [0.7, 1.3] is reported). Clients with n_i = 20 d are reported for comparison (T' flat in d)."""
    reps = max(2, ctx.reps(5, 12, minimum=2))
    configs, flat_rounds = [], []
    p_rows = torch.tensor([[p, 1 - p] for p in p1s for _ in range(reps)], dtype=ctx.dtype)
    fed = federation(ctx, "rho", p_rows.shape[0], torch.full((clients,), 40, dtype=torch.long), k=2, p=p_rows)
    T_, x = _rounds_to_floor(ctx, fed, "rho/start", cap)
    configs += [(f"p1={p}", x.reshape(len(p1s), reps)[i], T_.reshape(len(p1s), reps)[i]) for i, p in enumerate(p1s)]
    gen = ctx.generator("sizes")
    for d in ds:
        n_tiny = int(round(tiny_share * clients))
        sizes = torch.cat([torch.ones(n_tiny, dtype=torch.long), pareto_sizes(clients - n_tiny, 2.0, gen)])
        T_d, x_d = _rounds_to_floor(ctx, federation(ctx, f"tiny/d={d}", reps, sizes, k=2, d=int(d)), f"tiny/d={d}/start", cap)
        configs.append((f"tiny clients, d={d}", x_d, T_d))
        T_l, _ = _rounds_to_floor(ctx, federation(ctx, f"large/d={d}", reps, torch.full((clients // 4,), 20 * int(d),
                                                                                         dtype=torch.long), k=2, d=int(d)),
                                  f"large/d={d}/start", cap)
        flat_rounds.append(float(T_l.mean()))
    order = np.argsort([c[1].mean() for c in configs])
    X = np.array([configs[i][1].mean() for i in order])
    Y = np.maximum(np.stack([configs[i][2] for i in order], axis=1), 1.0)
    censored = float(np.mean(Y > cap))
    verdict, fit = rate_verdict(X, Y, theory, param="x", tol=tol, rng=ctx.numpy_rng("bootstrap"))
    assumptions = [Assumption("every run reached 1.2 d_inf within the cap", censored == 0.0, censored, "exact", f"cap {cap} rounds")]
    verdict = apply_assumptions(verdict, assumptions)
    names = [configs[i][0] for i in order]
    return result_for(
        ctx,
        claim(S.ROUNDS, r"T'=\Theta\Big(\frac{\kappa}{s\eta\rho}\log\frac{\Delta}{\nu}\Big)"),
        verdict,
        observed={"configurations": names, "kappa_over_s_eta_rho": X, "rounds_mean": Y.mean(0),
                  "large_clients_rounds_by_d": dict(zip([int(d) for d in ds], flat_rounds)), "replicates": reps},
        predicted={"exponent": 1.0, "tolerance": tol},
        fit=fit,
        explanation=verdict_words(
            verdict,
            f"The rounds to reach 1.2 d_inf grow with slope {fit['slope']:.2f} (CI {fit['slope_ci'][0]:.2f} to "
            f"{fit['slope_ci'][1]:.2f}) in kappa/(s eta rho), across skewed p and the tiny-client cost: with 10% of clients "
            f"holding one point, gamma forces eta ~ 1/d and the rounds grow with d, while clients with n_i = 20 d need "
            f"{min(flat_rounds):.0f} to {max(flat_rounds):.0f} rounds at every d.",
            f"The rounds grow with slope {fit['slope']:.2f} in kappa/(s eta rho), faster than Theorem 3 allows.",
            f"The slope {fit['slope']:.2f} is not resolved against 1, or some run did not arrive."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "Rounds to reach $1.2\\,d_\\infty$", r"$\kappa/(s\eta\rho)$", "rounds",
            [figspec.observed("measured", X, Y, rng=ctx.numpy_rng("figure")),
             figspec.line(r"$\propto\kappa/(s\eta\rho)$", X, Y.mean(0)[0] * X / X[0], "bound")])),
        arrays={"rounds": Y},
    )


def exact_miss_log_probability(n: int, Delta: float, sigma: float) -> float:
    """log P[a client of n points at theta = theta* prefers a wrong model at distance Delta] (Sigma = I, Gaussian noise):
    the loss difference sum_i (u_i^2 - 2 eps_i u_i), u_i = x_i^T(theta*_z - theta_j), is N(||u||^2, 4 sigma^2 ||u||^2) given
    u, and ||u||^2 = Delta^2 chi^2_n, so P = E[Phi(-Delta sqrt(chi^2_n)/(2 sigma))], a one-dimensional integral (computed
    in log space by Simpson's rule; exact to quadrature accuracy, far below 1e-20 where Monte Carlo sees nothing)."""
    from scipy import integrate, stats

    c = Delta / (2.0 * sigma)
    x = np.linspace(1e-12, n + 40.0 * math.sqrt(2.0 * n) + 50.0, 4001)
    v = stats.chi2.logpdf(x, n) + stats.norm.logcdf(-c * np.sqrt(x))
    top = float(v.max())
    return top + float(np.log(integrate.simpson(np.exp(v - top), x=x)))


@check("su2022.c23", "Lemma 10: a client's misclustering probability falls as exp(-c n_i) (exponent 1 in n_i), under the Chernoff curve",
       "bound", "holds",
       no_control="a property of the nearest-model assignment on the mixture (Lemma 10), not of an iterative algorithm",
       statements=("Lemma 10", "Theorem 2"))
def c23_misclustering(ctx: Context, *, theory: Bound = S.MISCLUSTER_EXPONENT, chernoff: Bound = S.CHERNOFF,
                      ns=(1, 2, 4, 8, 16, 32, 64), sigma: float = 0.5, radius: float = 0.25, d: int = 10, k: int = 3,
                      margin: float = 2.0, exact_ns=(8, 16, 32, 64, 128), snr_sigmas=(0.5, 1.0, 2.0, 4.0), snr_n: int = 64,
                      tol: float = 0.1) -> Result:
    """Claim 23 (expectation part): per-client misclustering frequency at theta = theta* and at theta* perturbed
    by Delta/4 (inside Lemma 10's radius Delta/3), for n_i in ns at sigma = 0.5 Delta. Three parts: at r = 0 the
    derived Chernoff curve (k-1)(1 + Delta^2/(4 sigma^2))^(-n/2) holds wherever it exceeds 10/draws (smaller
    probabilities cannot be confirmed by this many draws); log P falls linearly in n (semilog slope
    CI below 0); Lemma 10's 4k exp(-c n alpha^2 (1 ^ Delta^2/sigma^2)^2) holds with c fitted at r = 0 and held
    fixed at r = Delta/4 (these two are reported: the decisive test of the rate is the next part).

    The exponent of n_i in Lemma 10's rate, tested as matched from both sides: the rate is attained (the loss
    difference is a sum of n_i i.i.d. terms, so by Cramer/Bahadur-Rao P(n) ~ A n^-1/2 exp(-I n)), so exp(-c n_i) is
    the order of P. The statistic D(n) = log(P(n)/P(2n)) - (1/2) log 2 = I n (1 + o(1)) cancels the prefactors (an
    n_i^g rate gives D ~ (2^g - 1) I n^g, exponent g). Monte Carlo cannot reach the n where the o(1) is small (at
    n = 2..8 D's slope is about 1.1), so D is computed from the exact misclustering probability of the planted
    instance at theta* (one wrong model at distance Delta, :func:`exact_miss_log_probability`) for n in exact_ns,
    which the simulated frequencies confirm where they resolve (n <= 16), and its log-log slope is compared with
    the exponent of n in Lemma 10's rate (deterministic, tol 0.1): a planted exponent error of 0.25 is violated.

    The SNR factor (1 ^ Delta^2/sigma^2)^2 is saturated at sigma = 0.5 Delta (it equals 1 for every sigma <= Delta), so
    it is tested on its own: D(n) at n = ``snr_n`` (exact, as above) for sigma/Delta in ``snr_sigmas`` (0.5 to 4, where
    the factor falls as sigma^-4), against Lemma 10's rate with sigma per point. The rate is an upper bound on P, so
    the exponent D it implies is a lower bound: as sigma grows D must not fall faster than (1 ^ Delta^2/sigma^2)^2,
    slope in sigma >= the bound's least-squares slope on the grid minus tol (deterministic). D falls as sigma^-2 at low
    SNR (the Gaussian exponent Delta^2/(8 sigma^2)), so Lemma 10's square is loose there; a factor with the square
    root, (1 ^ Delta^2/sigma^2)^(1/2) (a sigma^-1 fall), claims more than the exact probability gives and is violated."""
    draws = ctx.pick(2000, 10000)
    R = 4
    mod = model(ctx, "model", R, k=k, d=d, sigma=sigma)
    gen = ctx.generator("clients")
    rows = {}
    for r in (0.0, radius):
        theta = perturbed_centres(ctx, f"theta/{r}", mod.theta, r) if r > 0 else mod.theta
        freq = []
        for n in ns:
            z = mod.labels(draws, gen)
            X, y, _ = mod.points(z, int(n), gen)  # [R, B, n, d]
            pred = (X.reshape(R, -1, d) @ theta.transpose(1, 2)).reshape(R, draws, int(n), k)
            loss = ((y[..., None] - pred) ** 2).sum(2)  # [R, B, k]
            wrong = (loss.argmin(-1) != z)
            freq.append(numpy(wrong).reshape(-1))
        rows[r] = np.stack(freq, 1)  # [R*B, P] Bernoulli draws
    ns_ = np.asarray(ns, dtype=float)
    parts, info = [], {}
    p0 = rows[0.0]
    ch = np.asarray(chernoff(k=k, Delta=DELTA, sigma=sigma, n=ns_), dtype=float)
    resolvable = ch >= 10.0 / p0.shape[0]  # a bound below ~10/draws cannot be confirmed by this many draws
    for j, n in enumerate(ns):
        if resolvable[j]:
            parts.append(proportion_verdict(int(p0[:, j].sum()), p0.shape[0], min(float(ch[j]), 1.0), side="upper")[0])
    # the exponent: q(n) = -log(P/(4k)) / (n alpha^2 (1 ^ Delta^2/sigma^2)^2) >= c
    shape = np.asarray(theory(n=ns_, alpha=float(mod.alpha.min()), Delta=DELTA, sigma=sigma), dtype=float)
    q = {}
    for r, Y in rows.items():
        ci = np.array([proportion_ci(int(Y[:, j].sum()), Y.shape[0]) for j in range(len(ns))])
        informative = ci[:, 0] > 0  # a frequency of 0 says nothing about the exponent's constant
        with np.errstate(divide="ignore"):
            q_lo = -np.log(ci[:, 2] / (4 * k)) / shape
            q_hi = -np.log(np.maximum(ci[:, 1], 1e-300) / (4 * k)) / shape
        q[r] = (q_lo[informative], q_hi[informative], ci)
    informative = p0.mean(0) > 1e-3
    groups = p0.reshape(40, -1, p0.shape[1]).mean(1)  # 40 independent batches of draws: frequencies [40, P]
    with aside():  # reported beside the exponent test: the constant held at Delta/4 and the semilog decay
        v_c, info_c = held_out_constant_verdict(q[0.0][0], q[0.0][1], np.ones_like(q[0.0][0]), q[radius][0], q[radius][1],
                                                np.ones_like(q[radius][0]), side="lower", margin=margin)
        v_slope, info_s = geometric_rate_verdict(ns_[informative], groups[:, informative], 1.0, rng=ctx.numpy_rng("bootstrap"))
    en = np.asarray(exact_ns, dtype=float)
    logP = np.array([exact_miss_log_probability(int(v), DELTA, sigma) for v in exact_ns])
    D = logP[:-1] - logP[1:] - 0.5 * math.log(2.0)
    v_exp, info_exp = exponent_verdict(ctx, en[:-1], D[None], theory, param="n",
                                       values={"alpha": 1.0, "Delta": DELTA, "sigma": sigma}, tol=tol, tight=True,
                                       deterministic=True)
    snr_s = np.asarray(snr_sigmas, dtype=float)
    D_snr = np.array([exact_miss_log_probability(int(snr_n), DELTA, float(sg))
                      - exact_miss_log_probability(2 * int(snr_n), DELTA, float(sg)) - 0.5 * math.log(2.0) for sg in snr_s])
    v_snr, info_snr = exponent_verdict(ctx, snr_s, D_snr[None], theory, param="sigma",
                                       values={"alpha": 1.0, "Delta": DELTA, "n": float(snr_n)}, tol=tol, tight=False,
                                       deterministic=True)
    logp = np.log(p0.mean(0)[informative])
    r2 = float(np.corrcoef(ns_[informative], logp)[0, 1] ** 2) if informative.sum() >= 3 else float("nan")
    verdict = combine(parts + [v_c, v_slope, v_exp, v_snr])
    ci0 = q[0.0][2]
    return result_for(
        ctx,
        claim(theory, r"\sup_{d(\theta,\theta^*)\le\frac13\sqrt{\alpha/\beta}\Delta}\mathbb{P}[i\in S_j(\theta)]\le4k\,e^{-cn_i\alpha^2(1\wedge\Delta^2/\sigma^2)^2}"),
        verdict,
        observed={"n": ns_, "misclustering_at_theta_star": p0.mean(0), "misclustering_at_radius": rows[radius].mean(0),
                  "radius": radius, "sigma": sigma, "draws_per_point": p0.shape[0], "loglinear_r2": r2},
        predicted={"chernoff": ch, "chernoff_compared_at_n": ns_[resolvable], "constant_c": info_c["constant"], "margin": margin,
                   "exponent_of_n": info_exp["predicted_exponent"], "exponent_tolerance": tol,
                   "exact_miss_probability": {int(v): float(np.exp(lp)) for v, lp in zip(exact_ns, logP)}},
        fit={"exponent_constant": info_c, "semilog": info_s, "exponent_of_n": info_exp, "snr_factor": info_snr,
             "snr_sigmas": snr_s, "D_at_snr_n": D_snr},
        explanation=verdict_words(
            verdict,
            f"At theta = theta* the misclustering frequency stays under the Chernoff curve at every n and falls "
            f"log-linearly in n (factor {info_s['rate']:.2f} per point, R^2 = {r2:.3f}); the exponent constant c = "
            f"{info_c['constant']:.3g} fitted there still bounds the frequencies at distance Delta/4 (worst "
            f"{info_c['worst_test_ratio_to_constant']:.2f} of it): O(1)-point clients are misclustered with probability of "
            f"order one, large clients almost never. The rate's exponent of n_i, from the exact misclustering probability "
            f"(n = {exact_ns[0]} to {exact_ns[-1]}), is {info_exp['slope']:.3f} against Lemma 10's "
            f"{info_exp['predicted_exponent']:.3f}: exp(-c n_i) is the order of the misclustering probability. Past the "
            f"saturation of (1 ^ Delta^2/sigma^2)^2 (sigma = {snr_s.min():g} to {snr_s.max():g} Delta, n = {snr_n}) the exact "
            f"exponent falls with slope {info_snr['slope']:.2f} in sigma, no faster than the factor's "
            f"{info_snr['predicted_exponent']:.2f}: the square in Lemma 10 is loose at low SNR.",
            f"Some part fails: the Chernoff curve, the log-linear decay, the constant held at distance Delta/4, the rate's "
            f"exponent of n_i ({info_exp['slope']:.3f} against {info_exp['predicted_exponent']:.3f}), or its SNR factor "
            f"(slope {info_snr['slope']:.2f} in sigma against {info_snr['predicted_exponent']:.2f}).",
            "The frequencies are too noisy to decide."),
        figure=figspec.figure(figspec.panel(
            rf"Misclustering probability vs $n_i$ ($\sigma={sigma}\Delta$)", r"$n_i$", "P(misclustered)",
            [figspec.interval(r"at $\theta^*$", ns_, ci0[:, 0], np.maximum(ci0[:, 1], 1e-6), np.maximum(ci0[:, 2], 1e-6),
                              "95% Clopper-Pearson"),
             figspec.interval(rf"at distance {radius}$\Delta$", ns_, q[radius][2][:, 0], np.maximum(q[radius][2][:, 1], 1e-6),
                              np.maximum(q[radius][2][:, 2], 1e-6), "95% Clopper-Pearson", role="reference"),
             figspec.line("Chernoff (derived)", ns_, np.minimum(ch, 1), "bound")], xscale="log", yscale="log")),
    )


@check("su2022.c24", "Eq. (32): sup_theta |G_j - E G_j| / N falls as sqrt(d k log k / M_eff)", "rate", "holds",
       no_control="a uniform concentration property of the data (eq. (32)), not of an algorithm",
       statements=("eq. (32)",))
def c24_uniform_deviation(ctx: Context, *, theory: Bound = S.UNIFORM_DEVIATION, clients=(50, 100, 200, 400, 800), n: int = 10,
                          tails=(1.1, 2.0), thetas: int = 8, climbs: int = 2, resamples: int = 6, sigma: float = 0.5,
                          tol: float = 0.2) -> Result:
    """Claim 24: the sup over the ball of radius Delta/3 around theta* of |G_j(theta) - E G_j(theta)|/N, with
    E G_j from ``resamples`` fresh datasets of the same sizes (its Monte Carlo error, a factor sqrt(1 + 1/resamples),
    is divided out). G_j is piecewise constant in theta (an assignment), so there is no gradient to follow; the sup
    is searched by a projected random hill climb per replicate: ``thetas`` models drawn in the ball, then ``climbs``
    rounds in which the best quarter each spawns perturbed copies (step Delta/6, halved each round; every centre
    projected back into its Delta/3 ball), the best ``thetas`` kept. The result is still a lower bound on the sup
    (reported beside the random-draw maximum it improves on). The verdict sweeps M_eff = M with balanced sizes
    n_i = 10, so that every client's misclustering probability stays the same: slope -1/2 +- 0.2. Pareto sizes
    are reported beside it: there the big clients, which dominate sum n_i^2, are almost never misclustered,
    so (32) is loose and the deviation does not follow M_eff.

    Stability across root seeds (quick), measured over seeds 0-11. The hill climb's sup is a lower bound whose gap
    to the true sup varies from replicate to replicate (the climb multiplies the random draws' maximum by 1.3 to
    2.4), so the replicate mean at each M is noisy. With R = 8 the fitted slope scattered from -0.57 to -0.32 and
    at seeds 9 and 10 (slopes -0.33 and -0.32, CI upper ends -0.17 and -0.10) the CI crossed -0.3: 2 of 12
    ``inconclusive``. A longer climb does not help (4 climbs: 4 of 12 inconclusive; it raises the sup most where
    it starts lowest, unevenly across M); averaging more replicates does: R = 20 gives slopes -0.60 to -0.43 with
    CI upper ends at most -0.35, 12 of 12 ``holds`` (cost 2.0 s -> 3.8 s)."""
    R = ctx.reps(20, 40)
    gen = ctx.generator("sizes")

    def deviation(sizes, stream: str) -> np.ndarray:
        fed0 = federation(ctx, stream, R, sizes, sigma=sigma)
        mod = fed0.model
        feds = [fed0] + [mod.federation(sizes, ctx.generator(f"{stream}/resample/{b}")) for b in range(resamples)]
        steps = [Phase2Round(f, 1.0, backend="points") for f in feds]
        truth = [torch.nn.functional.one_hot(f.z, mod.k).bool()[None] for f in feds]
        weight = [f.sizes.to(ctx.dtype)[None, None, :, None] for f in feds]

        def dev(th):  # th [T, R, k, d] -> max_j |G_j - E G_j| / N per model and replicate, [T, R]
            G = []
            for st, t_oh, w in zip(steps, truth, weight):
                est = st.losses_many(th).argmin(-1)  # [T, R, M]
                G.append(((t_oh ^ torch.nn.functional.one_hot(est, mod.k).bool()).to(ctx.dtype) * w).sum(2))  # [T, R, k]
            return (G[0] - torch.stack(G[1:]).mean(0)).abs().amax(-1) / fed0.N / math.sqrt(1 + 1 / resamples)

        def project(th):  # every centre back into its ball of radius Delta/3 around theta*_j
            off = th - mod.theta[None]
            norm = torch.linalg.vector_norm(off, dim=-1, keepdim=True)
            return mod.theta[None] + off * torch.clamp(DELTA / 3 / torch.clamp(norm, min=1e-300), max=1.0)

        radius = torch.rand(thetas, generator=gen, dtype=ctx.dtype, device=gen.device) * DELTA / 3
        th = torch.stack([perturbed_centres(ctx, f"{stream}/theta/{t}", mod.theta, float(r)) for t, r in enumerate(radius)])
        D = dev(th)  # [T, R]
        first = D.amax(0)
        keep = max(1, thetas // 4)
        for c in range(climbs):
            best = torch.argsort(D, dim=0, descending=True)[:keep]  # [keep, R]
            parents = torch.gather(th, 0, best[..., None, None].expand(keep, R, mod.k, mod.d))
            noise = randn((thetas // keep, keep, R, mod.k, mod.d), generator=gen, dtype=ctx.dtype, device=gen.device)
            noise = noise / torch.linalg.vector_norm(noise, dim=-1, keepdim=True) * (DELTA / 6) / 2 ** c
            kids = project((parents[None] + noise).reshape(-1, R, mod.k, mod.d))
            th, D = torch.cat([th, kids]), torch.cat([D, dev(kids)])
            top = torch.argsort(D, dim=0, descending=True)[:thetas]
            th = torch.gather(th, 0, top[..., None, None].expand(-1, R, mod.k, mod.d))
            D = torch.gather(D, 0, top)
        gains.append(float((D.amax(0) / first).mean()))
        return numpy(D.amax(0))

    x = np.asarray(clients, dtype=float)
    gains = []  # the climb's sup over the random draws' maximum, per call
    Y = np.stack([deviation(torch.full((int(M),), n, dtype=torch.long), f"M={M}") for M in clients], 1)
    heavy = {}
    for a in tails:
        sizes = pareto_sizes(int(np.median(clients)), a, gen)
        heavy[f"Pareto a={a:g}"] = {"M_eff": effective_clients(sizes), "deviation": float(deviation(sizes, f"a={a}").mean())}
    verdict, fit = rate_verdict(x, Y, theory, param="M_eff", values={"d": 10, "k": 3}, tol=tol, rng=ctx.numpy_rng("bootstrap"))
    bound = np.asarray(theory(d=10, k=3, M_eff=x), dtype=float)
    return result_for(
        ctx,
        claim(theory, r"\sup_\theta|G_j(\theta)-\mathbb{E}G_j(\theta)|/N\lesssim\sqrt{dk\log k/M_{\mathrm{eff}}}"),
        verdict,
        observed={"M_eff": x, "sup_deviation_over_N": Y.mean(0), "heavy_tailed": heavy, "thetas": thetas,
                  "resamples": resamples, "replicates": R, "climbs": climbs,
                  "climb_gain_over_random_draws": gains[:len(clients)],
                  "note": "max over a projected random hill climb in the ball: a lower bound on the sup"},
        predicted={"shape": bound, "fitted_constant": float((Y.mean(0) / bound).max())},
        fit=fit,
        explanation=verdict_words(
            verdict,
            f"With balanced sizes the largest deviation of the misclustered data from its expectation falls with slope "
            f"{fit['slope']:.2f} in M_eff (CI {fit['slope_ci'][0]:.2f} to {fit['slope_ci'][1]:.2f}), as (32) predicts. With "
            "Pareto sizes it is smaller than M_eff suggests: the large clients that make M_eff small are almost never "
            "misclustered, so (32) is loose for heavy tails.",
            f"The deviation falls with slope {fit['slope']:.2f} in M_eff, not -1/2.",
            f"The slope {fit['slope']:.2f} is not resolved."),
        figure=figspec.figure(figspec.panel(
            r"$\sup_\theta|G_j-\mathbb{E}G_j|/N$ vs $M_\mathrm{eff}$ (balanced $n_i=10$)", r"$M_\mathrm{eff}$", "deviation",
            [figspec.observed("max over sampled theta", x, Y, rng=ctx.numpy_rng("figure")),
             figspec.line(r"$\propto\sqrt{dk\log k/M_\mathrm{eff}}$", x, bound * float((Y.mean(0) / bound).max()), "bound")])),
        arrays={"deviation": Y},
    )


@check("su2022.c25", "Lemmas 2 and 11: the clustering-error terms are <~ nu log(e/nu) along Phase-2 runs", "bound", "holds",
       no_control="a property of the misclustered sets along Phase-2 runs against the lemmas' shapes, not a comparison of algorithms",
       statements=("Lemma 2", "Lemma 11"))
def c25_clustering_terms(ctx: Context, *, lemma2: Bound = S.LEMMA_2, features: Bound = S.LEMMA_11_FEATURES,
                         noise: Bound = S.LEMMA_11_NOISE, clients: int = 300, tail: float = 1.5, sigmas=(0.3, 0.6),
                         rounds: int = 20, start: float = 0.3, margin: float = 2.0) -> Result:
    """Claim 25: each round and cluster, ||B E_{j,t}(phi theta_{j,t-1} - y)|| <= C s (d(theta_{t-1}, theta*) + sigma)
    nu_hat log(e/nu_hat), ||phi(x_S)||^2/N <= C nu_hat log(e/nu_hat) and ||zeta_S||^2/N <= C sigma^2 nu_hat log(e/nu_hat)
    for S = S_{j,t}, nu_hat = N_S/N. Each C is fitted at sigma = 0.3 (the largest ratio over rounds, per replicate:
    the upper CI of their mean) and held fixed (x margin) at sigma = 0.6, where far more data is misclustered."""
    R = ctx.reps(4, 16, minimum=2)
    gen = ctx.generator("sizes")
    sizes = pareto_sizes(clients, tail, gen)
    sup = {name: [] for name in ("Lemma 2", "Lemma 11 (features)", "Lemma 11 (noise)")}
    nu_seen = []
    for sigma in sigmas:
        fed = federation(ctx, f"sigma={sigma}", R, sizes, sigma=sigma)
        eta = fed.eta_for_gamma(0.5 / S_LOCAL)
        step = Phase2Round(fed, eta, s=S_LOCAL)
        theta = perturbed_centres(ctx, f"sigma={sigma}/start", fed.model.theta, start)
        G, _, _ = fed.gram
        n = fed.sizes.to(ctx.dtype)
        zeta2 = fed.client_sum(fed.zeta[..., None] ** 2)[..., 0]  # ||zeta_i||^2 [R, M]
        ratios = {name: [] for name in sup}
        for _ in range(rounds):
            dist, match = permutation_distance(theta, fed.model.theta)
            new, z_hat = step(theta)
            th_true = torch.gather(theta, 1, match[..., None].expand(-1, -1, fed.d))  # theta_{j,t-1} in true order
            as_true = torch.gather(torch.argsort(match, dim=-1), 1, z_hat)
            for j in range(fed.k):
                v0 = th_true[:, j:j + 1].expand(R, fed.M, fed.d)
                g = -(n[None, :, None] / eta[:, None, None]) * (step.local_update(v0) - v0)  # phi_i^T P_i (phi_i theta_j - y_i)
                e = (as_true == j).to(ctx.dtype) - (fed.z == j).to(ctx.dtype)  # E_{j,t}: +1 wrongly in, -1 wrongly out
                in_s = (e != 0).to(ctx.dtype)
                nu = numpy((in_s * n).sum(1) / fed.N)
                has = nu > 0
                nu_seen.append(nu)
                obs = {"Lemma 2": numpy(torch.linalg.vector_norm((e[..., None] * g).sum(1), dim=-1) / fed.N),
                       "Lemma 11 (features)": numpy(torch.linalg.eigvalsh((in_s[..., None, None] * G).sum(1))[..., -1] / fed.N),
                       "Lemma 11 (noise)": numpy((in_s * zeta2).sum(1) / fed.N)}
                nu_safe = np.where(has, nu, 1.0)
                shape = {"Lemma 2": np.asarray(lemma2(s=S_LOCAL, dist=numpy(dist), sigma=sigma, nu=nu_safe), dtype=float),
                         "Lemma 11 (features)": np.asarray(features(nu=nu_safe), dtype=float) * np.ones_like(nu),
                         "Lemma 11 (noise)": np.asarray(noise(sigma=sigma, nu=nu_safe), dtype=float) * np.ones_like(nu)}
                for name in sup:
                    ratios[name].append(np.where(has, obs[name] / shape[name], 0.0))  # nu = 0: 0 <= 0, nothing to fit
            theta = new
        for name in sup:
            sup[name].append(np.stack(ratios[name], 1).max(1))  # [R]: the largest ratio over rounds and clusters
    parts, infos = [], {}
    rng = ctx.numpy_rng("bootstrap")
    bounds = {"Lemma 2": lemma2, "Lemma 11 (features)": features, "Lemma 11 (noise)": noise}
    for name, (cal, test) in sup.items():
        v_u, info_u = unit_constant_verdict(ctx, np.stack([cal, test], 1), bounds[name], stream=f"bootstrap/{name}")
        with aside():  # one constant fitted at the first sigma, held at the second: the shape, reported
            _, _, hi_c = bootstrap_ci(cal[:, None], rng=rng)
            _, lo_t, hi_t = bootstrap_ci(test[:, None], rng=rng)
            v, info = held_out_constant_verdict(hi_c, hi_c, [1.0], lo_t, hi_t, [1.0], margin=margin)
        parts += [v] + ([v_u] if v_u is not None else [])
        infos.update({name: {**info, "unit_constant": info_u}})
    misclustered = float(np.mean(np.concatenate(nu_seen) > 0))
    assumptions = [Assumption("some rounds misclustered data (nu_hat > 0)", misclustered > 0, misclustered, "exact",
                              "share of (round, cluster, replicate) entries with nu_hat > 0")]
    verdict = apply_assumptions(combine(parts), assumptions)
    names = list(sup)
    x = np.arange(1, len(names) + 1)
    worst = [infos[nm]["worst_test_ratio_to_constant"] for nm in names]
    return result_for(
        ctx,
        Claim("Lemma 2 (with (15)) and Lemma 11: along Phase 2, for S = S_{j,t} with nu = N_S/N, "
              "||B E_{j,t}(phi theta - y)|| <~ s (d(theta_{t-1}, theta*) + sigma) nu log(e/nu), ||phi(x_S)||^2/N <~ nu log(e/nu), "
              "||zeta_S||^2/N <~ sigma^2 nu log(e/nu).",
              r"\|B\mathcal E_{j,t}(\phi\theta_{j,t-1}-y)\|\lesssim s(d_{t-1}+\sigma)\nu\log\tfrac{e}{\nu},\ "
              r"\tfrac{\|\phi(x_S)\|^2}{N}\lesssim\nu\log\tfrac{e}{\nu},\ \tfrac{\|\zeta_S\|^2}{N}\lesssim\sigma^2\nu\log\tfrac{e}{\nu}",
              "su2022, Lemma 2 (eq. (13), (15)) and Lemma 11 (Appendix B.2)", S.LEMMA_2.typst),
        verdict,
        observed={"terms": names, "worst_held_out_ratio_to_constant": worst, "rounds": rounds, "replicates": R,
                  "sigmas": list(sigmas), "share_misclustered_entries": misclustered, "pareto_tail": tail},
        predicted={"constants": [infos[nm]["constant"] for nm in names], "margin": margin},
        fit=infos,
        explanation=verdict_words(
            verdict,
            "All three terms stay under their bounds even with the hidden constants set to 1 (worst ratios "
            + ", ".join(f"{infos[nm]['unit_constant']['worst_ratio']:.3g}" for nm in names) + "). "
            f"For all three terms, the constant fitted at sigma = {sigmas[0]} bounds every round at sigma = {sigmas[1]} (worst "
            f"{max(worst):.2f} of it), where much more data is misclustered: the clustering error enters Phase 2 only "
            "through the misclustered data share nu, as Lemmas 2 and 11 state.",
            f"At sigma = {sigmas[1]} a term exceeds its fitted constant (worst {max(worst):.2f} of it): the nu log(e/nu) shape "
            "does not hold.",
            "No round misclustered any data, or the intervals do not decide."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "Held-out sup ratio / fitted constant", "term #", "ratio",
            [figspec.observed("held-out sup / constant", x, np.asarray(worst)[None]), figspec.line("1", x, 1.0, "bound")],
            xscale="linear", yscale="linear")),
    )


@check("su2022.c26", "Lemma 7: lambda(K_j) lies in [c alpha s N_j/(kappa N), C beta s N_j/N]: both ends of order N_j/N",
       "bound", "holds", no_control="a property of the cluster matrix K_j of the data, not of an algorithm's behaviour",
       statements=("Lemma 7",))
def c26_lemma7(ctx: Context, *, lower: Bound = S.LEMMA_7_LOWER, upper: Bound = S.LEMMA_7_UPPER,
               multiples=(100, 300, 1000, 3000), others=(10, 100, 1000), d: int = 10, n: int = 5,
               settings=((1, 0.5), (5, 0.1), (5, 0.5)), gammas=(0.05, 0.2, 0.5, 0.9), tol: float = 0.1) -> Result:
    """Claim 26, tested on its exponents. Lemma 7 brackets both ends of the spectrum of K_j between bounds of the
    same order, c alpha s N_j/(kappa N) <= lambda_min(K_j) <= lambda_max(K_j) <= C beta s N_j/N: the lemma itself
    says lambda(K_j) = Theta(N_j/N), so each end is tested as matched from both sides (kind tight) in each sample
    size it names: N_j (cluster 1 of N_j = c d points, c in ``multiples`` >= 100 so that "N_j >~ d" holds with room:
    lambda_min(Phi_j^T Phi_j) ~ alpha (sqrt(N_j) - sqrt(d))^2 (Bai-Yin) has local exponent 1 + sqrt(d/N_j)/(1 - sqrt(d/N_j)) in
    N_j, 1.22 at N_j = 30 d and 1.11 at 100 d, so a grid from 30 d sat at +0.085 of the tolerance's 0.1 and was undecided at
    2 of 6 seeds, from 100 d it sits at +0.045; cluster 2 of 100 d, N moving with it) and N (N_j = 100 d, cluster 2 of c d points, c in ``others``), for FedAvg
    (s, gamma) in ``settings``. The predicted exponent is the Bound's own log-log slope on the grid with alpha,
    beta, kappa and N at their measured values; tol = 0.1, so an exponent error of 0.25 in N_j or N is outside
    the interval (the reported power says by how much). kappa is swept on its own: at N_j = the smallest multiple
    of d and s = 5, gamma in ``gammas`` moves kappa = gamma s/(1 - (1 - gamma)^s) from 1.1 to 4.5 (s, alpha, N_j, N
    fixed), and the lower end must not fall faster than 1/kappa (exponent >= -1 - tol as kappa grows: a lower
    bound, not matched from below, since the lemma claims no kappa-order for lambda_min); measured about -0.39 (the
    bound is loose in kappa: 1/kappa describes the steepest client), so a lower end with no kappa (kappa^0) is
    violated. alpha, beta and s are instance constants here, not swept. The random-matrix ingredient
    sigma_min^2(phi_{I_j}) >= alpha N_j - C sqrt(d N_j) is reported (its
    exponent in N_j, upper side) as a diagnostic."""
    R = ctx.reps(8, 32)
    ev = {}  # (sweep, c, s, gamma) -> (lambda_min [R], lambda_max [R], values)
    rmt = {}
    points = [("N_j", c, c, 100) for c in multiples] + [("N", c, 100, c) for c in others]
    kap_sweep = {}  # gamma -> (lambda_min [R], kappa, values) at N_j = multiples[0] d, s = 5
    for sweep, c, c1, c2 in points:
        M1, M2 = c1 * d // n, c2 * d // n
        z = torch.cat([torch.zeros(M1, dtype=torch.long), torch.ones(M2, dtype=torch.long)])[None].expand(R, -1)
        mod = model(ctx, f"N1={c1}d,N2={c2}d", R, k=2, d=d)
        fed = mod.federation(torch.full((M1 + M2,), n, dtype=torch.long), ctx.generator(f"N1={c1}d,N2={c2}d/data"),
                             z=z.to(ctx.torch_device))
        N1 = float(c1 * d)
        if sweep == "N_j":
            G, _, _ = fed.gram
            sv = torch.linalg.eigvalsh(cluster_matrices(fed, fed.z, G))[:, 0]  # Phi_1^T Phi_1 of cluster 0
            rmt[c] = numpy(mod.alpha * N1 - sv[:, 0])
        for s, gamma in settings:
            eta = fed.eta_for_gamma(gamma)
            kap = _kappa_of(fed, eta, s)
            e = torch.linalg.eigvalsh(contraction_matrices(fed, eta, "fedavg", s)[:, 0])
            ev[(sweep, c, s, gamma)] = (numpy(e[:, 0]), numpy(e[:, -1]),
                                        {"alpha": float(numpy(mod.alpha).mean()), "beta": float(numpy(mod.beta).mean()),
                                         "kappa": float(np.mean(kap)), "s": s, "N_j": N1, "N": float(fed.N)})
        if sweep == "N_j" and c == multiples[0]:
            for gamma in gammas:
                eta = fed.eta_for_gamma(gamma)
                e = torch.linalg.eigvalsh(contraction_matrices(fed, eta, "fedavg", S_LOCAL)[:, 0])
                kap_sweep[gamma] = (numpy(e[:, 0]), float(np.mean(_kappa_of(fed, eta, S_LOCAL))),
                                    {"alpha": float(numpy(mod.alpha).mean()), "s": S_LOCAL, "N_j": N1, "N": float(fed.N)})
    parts, fits = [], {}
    for sweep, grid in (("N_j", multiples), ("N", others)):
        x = np.asarray(grid, dtype=float) * d if sweep == "N_j" else np.array([ev[("N", c) + settings[0]][2]["N"]
                                                                                for c in grid])
        for s, gamma in settings:
            rows = [ev[(sweep, c, s, gamma)] for c in grid]
            vals = {key: np.array([r[2][key] for r in rows], dtype=float) for key in ("alpha", "beta", "kappa", "s", "N_j", "N")}
            vals.pop(sweep)
            for end, bound, j in (("lambda_min", lower, 0), ("lambda_max", upper, 1)):
                Y = np.stack([r[j] for r in rows], 1)  # [R, P]
                v, f = exponent_verdict(ctx, x, Y, bound, param=sweep, values=vals, tol=tol, tight=True)
                parts.append(v)
                fits[f"{end} in {sweep} (s={s}, gamma={gamma})"] = f
    kap_x = np.array([kap_sweep[g][1] for g in gammas])
    v_kap, f_kap = exponent_verdict(ctx, kap_x, np.stack([kap_sweep[g][0] for g in gammas], 1), lower, param="kappa",
                                    values=kap_sweep[gammas[0]][2], tol=tol, tight=False)
    parts.append(v_kap)
    fits[f"lambda_min in kappa (s={S_LOCAL}, gamma in {tuple(gammas)})"] = f_kap
    with aside():  # the random-matrix ingredient: a diagnostic of the proof's step, not Lemma 7's statement
        xr = np.asarray(multiples, dtype=float) * d
        v_rmt, f_rmt = rate_verdict(xr, np.stack([np.maximum(rmt[c], 1e-12) for c in multiples], 1),
                                    power_law("N_j", 0.5, "upper", "C sqrt(d N_j)"), param="N_j", tol=tol,
                                    rng=ctx.numpy_rng("bootstrap/rmt"))
    verdict = combine(parts)
    table = {k: {"slope": f["slope"], "ci": f["slope_ci"], "predicted": f["predicted_exponent"]} for k, f in fits.items()}
    off = [k for k, f in fits.items() if f["tight"] and not (f["slope_ci"][0] >= f["predicted_exponent"] - tol
                                                             and f["slope_ci"][1] <= f["predicted_exponent"] + tol)]
    off += [] if v_kap.passed else [f"lambda_min in kappa (slope {f_kap['slope']:.2f}, allowed >= {-1 - tol:g})"]
    xm = np.asarray(multiples, dtype=float)
    lo_curve = np.stack([ev[("N_j", c, 5, 0.5)][0] for c in multiples], 1)
    return result_for(
        ctx,
        claim(lower, r"c\alpha sN_j/(\kappa N)\le\lambda_{\min}(K_j)\le\lambda_{\max}(K_j)\le C\beta sN_j/N",
              text="Lemma 7: w.p. 1 - 2k e^-d, c alpha s N_j/(kappa N) <= lambda_min(K_j) <= lambda_max(K_j) <= C beta s N_j/N "
                   "(both ends of the same order N_j/N, so lambda(K_j) = Theta(N_j/N)); tested by the exponents of N_j and N, "
                   "each matched from both sides within 0.1."),
        verdict,
        observed={"N_j_over_d": xm, "N_over_d_in_N_sweep": [ev[("N", c) + settings[0]][2]["N"] / d for c in others],
                  "exponents": table, "replicates": R,
                  "rmt_exponent_in_N_j": {"slope": f_rmt["slope"], "ci": f_rmt["slope_ci"], "bound": 0.5,
                                          "verdict": v_rmt.value}},
        predicted={"exponent_tolerance": tol, "exponents": {k: f["predicted_exponent"] for k, f in fits.items()}},
        fit={**fits, "rmt": f_rmt},
        explanation=verdict_words(
            verdict,
            f"Both ends of the spectrum of K_j follow the lemma's order N_j/N: the fitted exponents in N_j (N_j = 30 d to "
            f"1000 d) and in N (1100 d to 11000 d) match the bounds' within {tol:g} for all three (s, gamma) settings "
            f"(lambda_min in N_j, s=5, gamma=0.5: {fits['lambda_min in N_j (s=5, gamma=0.5)']['slope']:.3f} against "
            f"{fits['lambda_min in N_j (s=5, gamma=0.5)']['predicted_exponent']:.3f}; lambda_max "
            f"{fits['lambda_max in N_j (s=5, gamma=0.5)']['slope']:.3f}); the random-matrix step's deficit alpha N_j - "
            f"sigma_min^2 grows with exponent {f_rmt['slope']:.2f} in N_j (the proof's sqrt(d N_j): 0.5). In kappa "
            f"(1.1 to 4.5) lambda_min falls with exponent {f_kap['slope']:.2f}, no faster than the lower end's 1/kappa.",
            f"An end of the spectrum does not follow N_j/N: {', '.join(off)}.",
            f"The exponent intervals do not decide ({', '.join(off)})."),
        figure=figspec.figure(figspec.panel(
            r"$\lambda_{\min}(K_j)$ vs $N_j$ ($s=5$, $\gamma=0.5$)", r"$N_j/d$", r"$\lambda_{\min}(K_j)$",
            [figspec.observed("measured", xm, lo_curve, rng=ctx.numpy_rng("figure")),
             figspec.line("alpha s N_j/(kappa N)", xm, np.array([lower(**ev[("N_j", c, 5, 0.5)][2]) for c in multiples],
                                                                 dtype=float), "bound")])),
    )


@check("su2022.c27", "Lemma 8: E||B Lambda_j zeta||^2 <= sigma^2 s d ||K_j||/N, and w.h.p. within a constant", "bound", "holds",
       no_control="a property of the noise term's distribution (Lemma 8), not of an algorithm", statements=("Lemma 8",))
def c27_lemma8(ctx: Context, *, theory: Bound = S.LEMMA_8_MEAN, quantile_theory: Bound = S.LEMMA_8, clients: int = 60,
               n_range=(1, 30), d: int = 10,
               settings=((1, 0.5), (5, 0.1), (5, 0.5)), noise_draws: int = 2000, margin: float = 2.0) -> Result:
    """Claim 27: features fixed, Monte Carlo over zeta. The exact expectation sigma^2 Tr(B Lambda_j B^T) is <= the
    bound (exact inequality); the Monte Carlo mean matches it (z = 3 SE); the 1 - e^-d quantile is <= (C + 1) times
    the bound with C fitted on the first setting and held fixed on the others."""
    R = 2
    gen = ctx.generator("sizes")
    fed = federation(ctx, "federation", R, torch.randint(n_range[0], n_range[1] + 1, (clients,), generator=gen, device=gen.device))
    sigma = fed.model.sigma
    parts, rows, q_ratio = [], [], []
    zgen = ctx.generator("noise")
    for s, gamma in settings:
        eta = fed.eta_for_gamma(gamma)
        P, Phi, _, mask = preconditioners(fed, eta, "fedavg", s)
        W = Phi.transpose(-1, -2) @ P  # phi_i^T P_i  [R, M, d, n_max]
        member = (fed.z == 0).to(ctx.dtype)[..., None, None]
        Bj = (member * W) / fed.N  # columns of B Lambda_0
        exact = sigma**2 * (Bj**2 * mask.to(ctx.dtype)[None, :, None, :]).sum(dim=(1, 2, 3))
        zeta = sigma * randn(noise_draws, R, fed.M, Phi.shape[2], generator=zgen, dtype=ctx.dtype, device=ctx.torch_device)
        zeta = zeta * mask.to(ctx.dtype)
        v = torch.einsum("rmdn,brmn->brd", Bj, zeta)
        sq = (v**2).sum(-1)  # [B, R]
        K = contraction_matrices(fed, eta, "fedavg", s)[:, 0]
        bound = np.asarray(theory(sigma=sigma, s=s, d=d, K_norm=numpy(torch.linalg.matrix_norm(K, ord=2)), N=fed.N), dtype=float)
        v_ex, _ = deterministic_verdict(numpy(exact), bound)
        mean, se = numpy(sq.mean(0)), numpy(sq.std(0) / math.sqrt(noise_draws))
        v_mc, _ = mc_identity_verdict(mean, se, numpy(exact), z=family_z(len(settings) * R))
        qv = np.quantile(numpy(sq), 1 - math.exp(-d), axis=0)
        parts += [v_ex, v_mc]
        q_ratio.append(qv / np.asarray(quantile_theory(sigma=sigma, s=s, d=d, K_norm=numpy(torch.linalg.matrix_norm(K, ord=2)),
                                                       N=fed.N), dtype=float))
        rows.append({"s": s, "gamma": gamma, "exact_expectation": numpy(exact).tolist(), "bound": bound.tolist(),
                     "mc_mean": mean.tolist(), "quantile_1_minus_e^-d": qv.tolist()})
    q_ratio = np.asarray(q_ratio)  # [settings, R]
    v_q, info_q = held_out_constant_verdict(q_ratio[0], q_ratio[0], np.ones(R), q_ratio[1:].ravel(), q_ratio[1:].ravel(),
                                            np.ones(q_ratio[1:].size), margin=margin)
    verdict = combine(parts + [v_q])
    x = np.arange(1, len(settings) + 1)
    ex = np.array([np.mean(r["exact_expectation"]) / np.mean(r["bound"]) for r in rows])
    return result_for(
        ctx,
        claim(theory, r"\mathbb{E}\|B\Lambda_j\zeta\|^2\le\sigma^2\,\mathrm{Tr}(B\Lambda_j^2B^\top)\le\sigma^2sd\|K_j\|/N"),
        verdict,
        observed={"settings": rows, "expectation_over_bound": ex, "noise_draws": noise_draws},
        predicted={"quantile_constant": info_q["constant"], "margin": margin},
        fit={"quantile": info_q},
        explanation=verdict_words(
            verdict,
            f"The exact E||B Lambda_j zeta||^2 is {ex.min():.2f} to {ex.max():.2f} of sigma^2 s d ||K_j||/N (the inequality "
            "holds with room: Tr(K_j) <= d ||K_j|| is loose for anisotropic K_j), the Monte Carlo mean matches it, and the "
            f"1 - e^-d quantile is covered by one constant across (s, gamma) (worst {info_q['worst_test_ratio_to_constant']:.2f}).",
            "The expectation exceeds the bound, the Monte Carlo disagrees with the exact trace, or the quantile constant does not hold.",
            "The Monte Carlo check has no power at this number of draws."),
        figure=figspec.figure(figspec.panel(
            r"$\mathbb{E}\|B\Lambda_j\zeta\|^2$ / $(\sigma^2sd\|K_j\|/N)$", "setting #", "ratio",
            [figspec.observed("exact expectation / bound", x, ex[None]), figspec.line("1", x, 1.0, "bound")],
            xscale="linear", yscale="linear")),
    )
