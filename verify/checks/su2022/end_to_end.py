"""su2022 checks c28-c33: the two-phase method end to end (Theorem 3) and its comparisons.

docs/papers/su2022.md §6 D (C28-C33), 4.2 (failure modes), E19-E21. c28 is the paper's headline: global
convergence from any start, beside IFCA run as its authors run it (Phase 2's update from k random starts
in the R-ball, 10 restarts, the lowest training loss kept, 600 rounds, the same Phase-2 clients) and the
one-start baselines, and beside the two-phase method with Phase 1 as printed. Phase 2 runs on a
federation of heavy-tailed clients drawn from the same mixture as Phase 1's anchors and fresh clients
(which do not join Phase 2: that only makes Phase 2 harder).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.papers import su2022 as S
from verify import figspec
from verify.algorithms.moment_descent import FedMDConfig, permutation_distance
from verify.algorithms.two_phase import (
    Phase2Round,
    ball_starts,
    clustering_errors,
    fedx_clustering,
    frozen_centre_count,
    gram_rows,
    kappa,
    oracle_ols,
    quadratic_coefficients,
    success,
    two_phase,
    weighted_least_squares,
)
from verify.checks.su2022.common import (
    DELTA,
    EPS,
    SIGMA,
    claim,
    exponent_verdict,
    federation,
    model,
    numpy,
    perturbed_centres,
    proportion_band,
    unit_constant_verdict,
    verdict_words,
)
from verify.checks.su2022.phase1 import INIT_FAMILIES, initial_points
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bootstrap_ci,
    bound_verdict,
    combine,
    held_out_constant_verdict,
    identity_verdict,
    paired_comparison_verdict,
    proportion_verdict,
    side_of,
)
from verify.problems.mixed_regression import MixedRegression, MixtureModel, pareto_sizes, tiny_client_sizes
from verify.registry import check, result_for
from verify.result import Assumption, Claim, Result, remark
from verify.strength import aside

S_LOCAL = 5


def _starts_by_family(mod, generator: torch.Generator) -> tuple[torch.Tensor, list[str]]:
    """theta_0 [R, d], cycling through the six start families of Claim 13 over the replicates."""
    names = [INIT_FAMILIES[r % len(INIT_FAMILIES)] for r in range(mod.R)]
    all_starts = torch.stack([initial_points(mod, f, generator) for f in INIT_FAMILIES])  # [F, R, d]
    idx = torch.tensor([INIT_FAMILIES.index(n) for n in names], device=mod.theta.device)
    return all_starts[idx, torch.arange(mod.R, device=mod.theta.device)], names


def _tiled(fed, times: int):
    """The federation repeated ``times`` times along the replicate axis (row r * times + i: replicate r, restart i):
    the restarts of a baseline run on exactly the same clients and data."""
    mod = fed.model
    rep = lambda x: x.repeat_interleave(times, 0)  # noqa: E731
    tiled = MixtureModel(rep(mod.theta), rep(mod.cov), mod.sigma, rep(mod.p), mod.features)
    return MixedRegression(tiled, fed.sizes, rep(fed.z), rep(fed.X), rep(fed.y), rep(fed.zeta), fed.seg)


def affine_local_maps(fed, eta, s: int = S_LOCAL) -> tuple[torch.Tensor, torch.Tensor]:
    """FedAvg's s local GD steps on client i are affine in the start v: v_s = M_i v + w_i with M_i = (I - c_i G_i)^s and
    w_i = sum_{l<s} (I - c_i G_i)^l c_i b_i (c_i = eta/n_i, G_i = phi_i^T phi_i, b_i = phi_i^T y_i): ``[R, M, d, d]``,
    ``[R, M, d]``. One round of Phase 2 (eq. (11)) is then theta_j <- theta_j + sum_{i: z_i = j} (n_i/N)((M_i - I) theta_j + w_i)."""
    G, b, _ = fed.gram
    c = (torch.as_tensor(eta, dtype=G.dtype, device=G.device)[:, None] / fed.sizes.to(G.dtype)[None, :])[..., None, None]
    step = torch.eye(fed.d, dtype=G.dtype, device=G.device) - c * G
    M, w = torch.eye(fed.d, dtype=G.dtype, device=G.device).expand_as(G).clone(), torch.zeros_like(b)
    for _ in range(s):
        w = (step @ w[..., None])[..., 0] + c[..., 0] * b
        M = step @ M
    return M, w


def _first_replicates(fed, R: int):
    """The federation restricted to its first R replicates (same clients, same data)."""
    if R == fed.R:
        return fed
    mod = fed.model
    sub = MixtureModel(mod.theta[:R], mod.cov[:R], mod.sigma, mod.p[:R], mod.features)
    return MixedRegression(sub, fed.sizes, fed.z[:R], fed.X[:R], fed.y[:R], fed.zeta[:R], fed.seg)


def ifca_restarts(fed, eta, rounds: int, restarts: int, generator: torch.Generator, *, s: int = S_LOCAL,
                  early: int = 60, tol: float = 1e-12) -> dict:
    """IFCA as its authors run it on random starts (GCYR20: "random initialization with multiple restarts"): ``restarts``
    independent runs per replicate of Phase 2's update (eq. (8) labels, FedAvg s local steps, every block averaged with
    weights n_i/N: IFCA Option II with the reference's normalisation by all clients) from k points uniform in the R-ball,
    on the same federation; the run kept is the one with the lowest training loss (1/(2N)) sum_i min_j
    ||y_i - phi_i theta_j||^2 after ``rounds`` rounds. The rounds use the exact affine form of the local steps
    (``affine_local_maps``; su2022.c01 checks the round against Lemma 1) and stop early only once every run is at its
    fixed point (labels unchanged and max change < ``tol``), where further rounds change nothing. Returns per replicate:
    success of the selected run, of restart 0 after ``early`` and after ``rounds`` rounds (the one-start baselines), of
    any restart (oracle selection), and the selected run's error."""
    R, k, d = fed.R, fed.k, fed.d
    early = min(early, rounds)
    big = _tiled(fed, restarts)
    eta_b = torch.as_tensor(eta).repeat_interleave(restarts)
    M, w = affine_local_maps(big, eta_b, s)
    weight = (fed.sizes.to(M.dtype) / fed.N)[None, :, None]
    Mw, ww = (M - torch.eye(d, dtype=M.dtype, device=M.device)) * weight[..., None], w * weight
    G, b, cy = big.gram
    theta = ball_starts(R * restarts, k, d, fed.model.radius.repeat_interleave(restarts), generator)

    Rb, Mc = G.shape[:2]
    Mw2 = torch.cat([Mw.reshape(Rb, Mc, d * d), ww], -1)  # one product gives A_j and c_j
    stats = gram_rows(G, b, cy)

    def labels_and_loss(th):  # ||y_i - phi_i theta_j||^2 for every client and block: one product
        loss = stats @ quadratic_coefficients(th).transpose(1, 2)
        return loss.argmin(-1), loss.amin(-1).sum(-1) / (2 * fed.N)

    at_early, z_prev = theta, None
    eye_k = torch.eye(k, dtype=M.dtype, device=M.device)
    for t in range(1, rounds + 1):
        z, _ = labels_and_loss(theta)
        Ac = eye_k[z].transpose(1, 2) @ Mw2  # [Rb, k, d*d + d]: sum over each block's clients
        A, cvec = Ac[..., :d * d].reshape(Rb, k, d, d), Ac[..., d * d:]
        new = theta + (A @ theta[..., None])[..., 0] + cvec
        done = z_prev is not None and bool((z == z_prev).all()) and float((new - theta).abs().max()) < tol
        theta, z_prev = new, z
        if t == early:
            at_early = theta
        if done and t >= early:
            break

    def ok_of(th) -> torch.Tensor:
        err, match = permutation_distance(th, big.model.theta)
        z_th, _ = labels_and_loss(th)
        _, wrong = clustering_errors(big, z_th, match)
        return ((err <= big.model.Delta / 4) & (wrong <= 0.1)).reshape(R, restarts), err.reshape(R, restarts)

    ok, err = ok_of(theta)
    ok_early, _ = ok_of(at_early)
    _, loss = labels_and_loss(theta)
    pick = loss.reshape(R, restarts).argmin(-1)
    rows = torch.arange(R, device=pick.device)
    return {"selected": numpy(ok[rows, pick]), "one_start": numpy(ok[:, 0]), "one_start_early": numpy(ok_early[:, 0]),
            "any": numpy(ok.any(-1)), "selected_error": numpy(err[rows, pick]), "rounds_run": t}


#: Theorem 3's success guarantee as c28 tests it: a success share of at least the fidelity's threshold (the theorem's
#: 1 - N^-9 - c k e^-d cannot be resolved by finitely many runs). A Bound, so that a planted guarantee reaches the verdict.
GLOBAL_SUCCESS = Bound("Theorem 3: success share", sp.Symbol("threshold", positive=True), "lower",
                       statement="W.p. 1 - N^-9 - c k e^-d the two-phase method succeeds from any start; tested as a success "
                                 "share of at least the threshold (85% quick, 95% full).",
                       source="su2022, Theorem 3", hidden_constant=False, typst="PP[\"success\"] >= 1 - N^(-9) - c k e^(-d)")


@check("su2022.c28", "Theorem 3: the two-phase method converges from any start; IFCA compared fairly (restarts, loss selection)",
       "bound", "holds",
       no_control="the comparison with IFCA run fairly (restarts, loss selection) is the baseline, reported beside the claim",
       statements=("Theorem 3",))
def c28_global_convergence(ctx: Context, *, grid=None, clients: int = 200, tail: float = 2.0, rounds: int = 60,
                           theory: Bound = GLOBAL_SUCCESS, threshold: float | None = None, m_base: int = 5000,
                           sign_rule: str = "first_moment",
                           freeze: bool = True, restarts: int = 10, ifca_rounds: int = 600, ifca_seeds: int | None = None,
                           printed: bool = True) -> Result:
    """Claim 28: for each (d, k) in ``grid`` (quick: (5, 2), (5, 3); full: d in {5, 10, 20} x k in {2, 3, 5}),
    seeds cycle through the six start families of C13; Phase 1 with m = m_base (d/5) (p_min/0.5)^-2 fresh
    clients per iteration (its need, eq. (3)) and n_H anchors covering every cluster w.p. 0.99; then Phase 2
    (FedAvg s = 5, gamma = 0.5/s, T' rounds) on clients with Pareto sizes. Success (docs/papers/su2022.md §6): d(theta_hat, theta*)
    <= Delta/4 and >= 90% of the data correctly labelled. The verdict: the pooled two-phase success share
    reaches 85% at quick fidelity (a test that detects failure rates above 15%), 95% at full. ``sign_rule`` and
    ``freeze`` are Phase 1's repairs (E1, E6); the verdict is for the repaired method.

    Beside it, reported and labelled (the paper's comparison, line ~25: "[GCYR20's] numerical results suggested that
    sufficiently many random initializations would lead to at least one good realization ... However, the necessary
    number of random initializations scales exponentially in both the input dimension and the number of clusters.
    Besides, in practice, it is hard to recognize which initialization is good"):
    * IFCA run fairly (``ifca_restarts``): ``restarts`` random starts per seed, ``ifca_rounds`` rounds, the run with
      the lowest training loss kept, on the same Phase-2 federation as the two-phase method's Phase 2, on the first
      ``ifca_seeds`` seeds of each grid point (quick: 6 of 18, for time; full: all) and compared with the two-phase
      method on those same seeds (paired signed-rank test, 5%: the comparison's own verdict, reported);
    * the one-start baselines (60 and ``ifca_rounds`` rounds) and oracle selection (any restart succeeds);
    * the two-phase method with Phase 1 as printed (``printed``: no sign rule, re-test every iteration), on the IFCA
      seeds.

    Where the paper's "exponentially many initializations" shows: at k = 5 (d = 5), quick settings otherwise, seed 0,
    the two-phase method succeeded in 18 of 18 runs while fair IFCA (10 restarts, lowest loss) succeeded in 3 of 6
    seeds, a good restart existing in the same 3 (one start: 1 of 6; Phase 1 as printed: 0 of 6). That point costs
    about as much as the whole quick grid (m = 31250 fresh clients per Phase-1 iteration), so it runs at full
    fidelity, whose grid has k = 5 at d = 5, 10, 20 with IFCA on every seed; each grid point gets its own paired
    comparison (``fit["comparison_by_point"]``), since 6 seeds cannot make 3 of 6 against 6 of 6 significant (one-sided
    signed-rank p = 0.125)."""
    grid = ctx.pick(((5, 2), (5, 3)), tuple((d, k) for d in (5, 10, 20) for k in (2, 3, 5))) if grid is None else grid
    threshold = float(theory(threshold=ctx.pick(0.85, 0.95) if threshold is None else threshold))
    R = ctx.reps(18, 50)
    R_ifca = min(R, ctx.pick(6, R) if ifca_seeds is None else int(ifca_seeds))
    rows, ok_total, n_total, ifca_all, two_all, printed_all, paired_two, one_all = [], 0, 0, [], [], [], [], []
    for d, k in grid:
        stream = f"d={d},k={k}"
        mod = model(ctx, stream, R, k=k, d=d)
        gen = ctx.generator(stream + "/run")
        p_min = float(mod.p_min.min())
        m = int(m_base * d / 5 * (0.5 / p_min) ** 2)
        n_H = math.ceil(math.log(100 * k) / -math.log(1 - p_min))
        fed = mod.federation(pareto_sizes(clients, tail, gen), gen)
        eta = fed.eta_for_gamma(0.5 / S_LOCAL)
        theta0, families = _starts_by_family(mod, gen)
        anchors = mod.labels(n_H, gen)
        phase1_seed = int(torch.randint(0, 2**62, (1,), generator=gen, device=gen.device))
        g1 = torch.Generator(device=gen.device).manual_seed(phase1_seed)
        cfg = FedMDConfig(m=m, eps=EPS, sign_rule=sign_rule, freeze=freeze)
        res = two_phase(mod, fed, theta0, anchors, cfg, eta, rounds, g1, s=S_LOCAL)
        ok_two = numpy(success(fed, res.phase2, mod.Delta))
        sub = _first_replicates(fed, R_ifca)
        ifca = ifca_restarts(sub, eta[:R_ifca], ifca_rounds, restarts, ctx.generator(stream + "/ifca"))
        paired_two.append(ok_two[:R_ifca])
        row = {"d": d, "k": k, "m": m, "n_H": n_H, "two_phase_success": float(ok_two.mean()),
               "ifca_fair_success": float(ifca["selected"].mean()), "ifca_any_restart_success": float(ifca["any"].mean()),
               "ifca_one_start_success": float(ifca["one_start"].mean()),
               "ifca_one_start_60_rounds_success": float(ifca["one_start_early"].mean()),
               "phase1_k_groups": float(numpy(res.phase1_ok).mean()),
               "two_phase_final_error_median": float(np.median(numpy(res.phase2.error[-1]))),
               "ifca_fair_final_error_median": float(np.median(ifca["selected_error"])),
               "failed_families": sorted({f for f, ok in zip(families, ok_two) if not ok}),
               "points_phase2": int(fed.N), "points_phase1": int(2 * m * cfg.T + 2 * cfg.ell * cfg.T * n_H)}
        if printed:  # the same instances (the IFCA seeds), Phase 1 as the listing prints it
            g2 = torch.Generator(device=gen.device).manual_seed(phase1_seed)
            res_p = two_phase(sub.model, sub, theta0[:R_ifca], anchors[:R_ifca],
                              FedMDConfig(m=m, eps=EPS, sign_rule="none", freeze=False), eta[:R_ifca], rounds, g2, s=S_LOCAL)
            ok_p = numpy(success(sub, res_p.phase2, sub.model.Delta))
            printed_all.append(ok_p)
            row["two_phase_printed_success"] = float(ok_p.mean())
        ok_total, n_total = ok_total + int(ok_two.sum()), n_total + R
        two_all.append(ok_two), ifca_all.append(ifca["selected"]), one_all.append(ifca["one_start"])
        rows.append(row)
    verdict, info = proportion_verdict(ok_total, n_total, threshold)
    ifca_fair = np.concatenate(ifca_all)
    two_flat = np.concatenate(paired_two)
    v_cmp, info_cmp = paired_comparison_verdict(ifca_fair, two_flat)  # same seeds, same instances: IFCA below two-phase?
    with aside():  # each grid point on its own (reported: where IFCA falls behind)
        by_point = {f"d={d},k={k}": paired_comparison_verdict(a, b) for (d, k), a, b in zip(grid, ifca_all, paired_two)}
    comparison_by_point = {key: {"verdict": v.value, **info} for key, (v, info) in by_point.items()}
    any_ok = sum(int(round(r["ifca_any_restart_success"] * R_ifca)) for r in rows)
    picked = float(ifca_fair.sum() / any_ok) if any_ok else float("nan")
    # docs/papers/su2022.md §4.2(2): dead centres far away are never selected and never move
    d0, k0 = grid[-1]
    mod = model(ctx, "dead-centres", R, k=k0, d=d0)
    gen = ctx.generator("dead-centres/run")
    fed = mod.federation(pareto_sizes(clients, tail, gen), gen)
    start = ball_starts(R, k0, d0, mod.radius, gen)
    start[:, 1:] = start[:, 1:] / torch.linalg.vector_norm(start[:, 1:], dim=-1, keepdim=True) * 100 * mod.radius[:, None, None]
    tr_dead = fedx_clustering(fed, start, fed.eta_for_gamma(0.5 / S_LOCAL), rounds, s=S_LOCAL, checkpoints=[rounds])
    frozen = numpy(frozen_centre_count(tr_dead, start))
    dead_fail = float((numpy(tr_dead.error[-1]) >= DELTA / 2).mean())
    x = np.arange(1, len(grid) + 1)
    n_of = lambda key: R if key == "two_phase_success" else R_ifca  # noqa: E731
    band = lambda key: proportion_band([round(r[key] * n_of(key)) for r in rows], [n_of(key)] * len(rows))  # noqa: E731
    labels = ", ".join(f"{i + 1} = (d={d}, k={k})" for i, (d, k) in enumerate(grid))
    series = [figspec.interval("two-phase (Phase 1 repaired + Phase 2)", x, *band("two_phase_success"), "95% Clopper-Pearson"),
              figspec.interval(f"IFCA, fair: {restarts} restarts, lowest training loss, {ifca_rounds} rounds", x,
                               *band("ifca_fair_success"), "95% Clopper-Pearson"),
              figspec.interval(f"IFCA, one start, {ifca_rounds} rounds", x, *band("ifca_one_start_success"), "95% Clopper-Pearson",
                               role="reference"),
              figspec.interval("IFCA, one start, 60 rounds", x, *band("ifca_one_start_60_rounds_success"), "95% Clopper-Pearson",
                               role="reference")]
    if printed:
        series.append(figspec.interval("two-phase, Phase 1 as printed (no sign rule, re-test)", x,
                                       *band("two_phase_printed_success"), "95% Clopper-Pearson", role="reference"))
    series.append(figspec.line(f"{threshold:.0%}", x, threshold, "bound"))
    by = lambda key: ", ".join(f"{r[key]:.0%}" for r in rows)  # noqa: E731
    cmp_words = {"holds": "significantly fewer successes than the two-phase method on the same seeds (paired signed-rank, 5%)",
                 "violated": "significantly more successes than the two-phase method on the same seeds",
                 "inconclusive": "a success share that a paired test on the same seeds does not separate from the two-phase "
                 "method's"}[v_cmp.value]
    text_ifca = (f"IFCA run as its authors run it ({restarts} random restarts per seed, the lowest training loss kept, "
                 f"{ifca_rounds} rounds, the same Phase-2 clients, {R_ifca} seeds per grid point) succeeds in "
                 f"{by('ifca_fair_success')} by grid point, "
                 f"{cmp_words} (comparison: {v_cmp.value}); a good restart exists in {by('ifca_any_restart_success')} and the "
                 f"lowest training loss picks a successful one in {picked:.0%} of those seeds. "
                 f"One start succeeds in {by('ifca_one_start_success')} after {ifca_rounds} rounds and "
                 f"{by('ifca_one_start_60_rounds_success')} after 60 (the former, unfair baseline).")
    text_printed = (f" With Phase 1 as printed (no sign rule, re-test every iteration) the two-phase method succeeds in "
                    f"{by('two_phase_printed_success')} of the same {R_ifca} seeds: the sign rule (su2022.c17) is what makes it work." if printed else "")
    return result_for(
        ctx,
        claim(S.THM_3, r"d(\hat\theta,\theta^*)\lesssim\frac{\sigma\kappa}{\rho}\nu\log\frac{e}{\nu}\ \text{from any }\|\theta_0\|\le R",
              text="Theorem 3: Phase 1 (T = Theta(1) iterations) from any theta_0 with ||theta_0|| <= R, then Phase 2, "
                   "converges globally: d(theta_hat, theta*) <~ (sigma kappa/rho) nu log(e/nu) w.p. 1 - N^-9 - c k e^-d. "
                   "Compared (line ~25) with IFCA, whose random initializations the paper says must grow exponentially in d "
                   "and k and whose good initialization is hard to recognize."),
        verdict,
        observed={"grid": rows, "two_phase_successes": ok_total, "runs": n_total, "seeds_per_point": R,
                  "ifca_fair_successes": int(ifca_fair.sum()), "ifca_restarts": restarts, "ifca_rounds": ifca_rounds,
                  "ifca_seeds_per_point": R_ifca,
                  "ifca_selection": "lowest training loss (1/2N) sum_i min_j ||y_i - phi_i theta_j||^2",
                  "ifca_data": "the same Phase-2 federation as the two-phase method (Phase 1's fresh clients and anchors "
                               "are used by the two-phase method only)",
                  "dead_centres_never_moved_mean": float(frozen.mean()), "dead_centre_runs_failing": dead_fail,
                  "phase2_clients": clients, "pareto_tail": tail, "rounds": rounds, "phase1": {"sign_rule": sign_rule,
                                                                                              "freeze": freeze}},
        predicted={"threshold_share": threshold},
        fit={"two_phase": info, "comparison_verdict": v_cmp.value, "ifca_fair_vs_two_phase": info_cmp,
             "comparison_by_point": comparison_by_point,
             "ifca_selection_accuracy": picked},
        explanation=verdict_words(
            verdict,
            f"The two-phase method succeeds in {ok_total} of {n_total} runs over six start families and every (d, k) "
            f"(CI {info['ci'][0]:.3f} to {info['ci'][1]:.3f}). " + text_ifca + text_printed
            + f" Started with k - 1 centres at 100 R, those centres never moved in {frozen.mean():.1f} of {k0 - 1} cases "
            f"on average and {dead_fail:.0%} of the runs stayed at d >= Delta/2.",
            f"The two-phase method succeeds in only {ok_total} of {n_total} runs: global convergence fails at these sizes. "
            + text_ifca + text_printed,
            f"{ok_total} of {n_total} two-phase runs succeed: the share cannot be placed against {threshold:.0%}. " + text_ifca),
        finding=remark("Fair comparison: " + text_ifca + text_printed + (
            " By grid point (IFCA fair against the two-phase method on the same seeds, paired signed-rank): "
            + "; ".join(f"{key}: {r['ifca_fair_success']:.0%} against {r['two_phase_success']:.0%} "
                        f"({comparison_by_point[key]['verdict']})" for key, r in zip(comparison_by_point, rows)) + "."
            if max(k for _, k in grid) >= 5 else
            f" At these sizes (k <= {max(k for _, k in grid)}) the paper's \"exponentially many initializations\" and "
            "\"hard to recognize\" are not visible; at k = 5 (d = 5) fair IFCA succeeded in 3 of 6 seeds against the "
            "two-phase method's 18 of 18 (seed 0), which the full grid (k = 5 at d = 5, 10, 20, IFCA on every seed) "
            "tests point by point.")),
        figure=figspec.figure(figspec.panel("Success over seeds: two-phase vs IFCA", "grid point: " + labels, "success share",
                                            series, xscale="linear", yscale="linear")),
        arrays={"two_phase_success": np.stack(two_all), "ifca_fair_success": np.stack(ifca_all),
                "ifca_one_start_success": np.stack(one_all),
                **({"two_phase_printed_success": np.stack(printed_all)} if printed else {})},
    )


def _final_error(ctx: Context, fed, stream: str, rounds: int, start: float = 0.1, gamma: float = 0.5 / S_LOCAL):
    """Phase 2 from theta* + start (random directions) for ``rounds`` rounds, then its limit: once the labels have
    settled, Phase 2 converges to the P-weighted least squares on them (docs/papers/su2022.md §2.5, check c05), computed here in
    closed form. Returns the limit's d(theta, theta*), nu_hat, kappa/rho per replicate, the trace, and the share
    of data whose label at the limit equals the last round's (1: the labels had settled)."""
    eta = fed.eta_for_gamma(gamma)
    tr = fedx_clustering(fed, perturbed_centres(ctx, stream, fed.model.theta, start), eta, rounds, s=S_LOCAL,
                         checkpoints=[rounds])
    limit = weighted_least_squares(fed, tr.labels, eta, "fedavg", S_LOCAL)
    err, _ = permutation_distance(limit, fed.model.theta)
    same = (Phase2Round(fed, eta, s=S_LOCAL).assign(limit) == tr.labels).to(fed.X.dtype)
    settled = float(((same * fed.sizes.to(fed.X.dtype)).sum(-1) / fed.N).min())
    kap = kappa(numpy(fed.gamma(eta)), S_LOCAL)
    return numpy(err), numpy(tr.misclustered[-1]), kap / numpy(fed.rho), tr, settled


def _bound18(theory: Bound, sigma: float, kap_over_rho, nu_hat, d: int, k: int, m_eff: float) -> np.ndarray:
    """Theorem 3's shape, e.g. (sigma kappa / rho) nu log(e/nu), with nu = nu_hat (the measured first term of (10)) +
    sqrt(dk log k/M_eff) (C = 1), capped at 1 (where nu log(e/nu) peaks)."""
    nu = np.minimum(np.asarray(nu_hat) + S.nu_second_term(d, k, m_eff), 1.0)
    return np.asarray(theory(sigma=sigma, kappa=np.asarray(kap_over_rho), rho=1.0, nu=nu), dtype=float) * np.ones_like(nu)


def _settled_assumption(settled: float, rounds: int, share: float = 0.99) -> Assumption:
    return Assumption(f"labels settled (>= {share:.0%} of the data keeps its label at the closed-form limit)",
                      settled >= share, settled, "exact", f"after {rounds} rounds; the limit is the P-weighted least squares")


@check("su2022.c29", "Theorem 3 (18): the final error is <~ (sigma kappa/rho) nu log(e/nu): its exponents in sigma and nu",
       "bound", "holds", no_control="the bound (18) is tested on its exponents in sigma and nu; a control (no clustering) "
                                    "does not reach the least squares at all and says nothing about (18)'s shape",
       statements=("Theorem 3",))
def c29_final_error(ctx: Context, *, theory: Bound = S.THM_3, sigmas=(0.0125, 0.025, 0.05, 0.1, 0.2, 0.4), Ms=(100, 200, 400, 800),
                    gammas=(0.1, 0.4, 0.9), n: int = 20, d: int = 10, rounds: int = 30, tol: float = 0.1) -> Result:
    """Claim 29, tested on the exponents of the variables (18) names. Phase 2's limit (from 0.1 Delta off theta*,
    labels settled after 30 rounds) on balanced clients (n_i = 20, d = 10, k = 3), with nu = nu_hat + sqrt(dk log k/
    M_eff) (C = 1) and kappa/rho measured per point:

    * sigma (M = 200, sigma from 0.025 to 0.4): (18) is linear in sigma, and so is the error it bounds (the noise
      enters the least squares linearly while the labels stay exact), so the exponent is tested as matched from
      both sides (tight): an exponent error of 0.25 either way is violated.
    * nu (sigma = 0.1, M from 100 to 800, nu from 0.57 to 0.20): the claim's asymptotics lie at nu -> 0, where
      'error <~ g(nu)' asks the error to fall at least as fast as g: the error's exponent in nu must be >= the
      bound's minus tol (upper bound read toward 0). The error follows the oracle sigma sqrt(d/N) ~ nu^1 while
      nu log(e/nu) has local exponent 1 - 1/log(e/nu) (0.36 to 0.62 here): (18) is loose in nu by its log
      factor, so a larger stated exponent in nu (up to the error's own ~0.9) stays a true bound on this grid
      and cannot be refuted by it; a smaller one can.

    * kappa (sigma = 0.1, M = 200, s = 5, gamma = eta max_i ||phi_i||^2/n_i in ``gammas``, so kappa = gamma s/(1 -
      (1 - gamma)^s) from 1.2 to 4.5; kappa/rho measured per point, nu held at the sweep's mean): (18) grows linearly
      in kappa, an upper bound as kappa grows, so the error's exponent in kappa/rho must be <= 1 + tol. The error
      barely moves with the step (Phase 2's limit is a least squares whose weights P_i change little with eta on
      balanced clients), so (18) is loose in kappa; a bound that falls with kappa (kappa^-1 in place of kappa) is
      violated.

    d enters only through nu's second term and is not a symbol of (18)."""
    R = ctx.reps(12, 24, minimum=2)
    points = ([("sigma", v, {"sigma": v, "M": 200}) for v in sigmas] + [("nu", v, {"sigma": SIGMA, "M": v}) for v in Ms]
              + [("kappa", g, {"sigma": SIGMA, "M": 200, "gamma": g}) for g in gammas])
    obs, tags, settled, kr_, nu_ = [], [], [], [], []
    for name, value, cfg in points:
        tag = {"sigma": f"sigma={value}", "nu": f"M={value}", "kappa": f"gamma={value}"}[name]
        fed = federation(ctx, tag, R, torch.full((int(cfg["M"]),), n, dtype=torch.long), d=d, sigma=cfg["sigma"])
        err, nu_hat, kr, _, st = _final_error(ctx, fed, f"{tag}/start", rounds, gamma=cfg.get("gamma", 0.5 / S_LOCAL))
        settled.append(st)
        obs.append(err)
        kr_.append(float(np.mean(kr)))
        nu_.append(float(np.minimum(np.mean(nu_hat) + S.nu_second_term(d, 3, fed.M_eff), 1.0)))
        tags.append((name, value, cfg))
    obs = np.stack(obs, 1)  # [R, P]
    kr_, nu_ = np.asarray(kr_), np.asarray(nu_)
    fits, parts = {}, []
    for name in ("sigma", "nu", "kappa"):
        idx = [i for i, t in enumerate(tags) if t[0] == name]
        if not idx:
            continue
        if name == "sigma":
            # the exponent in sigma is (18)'s partial one: kappa/rho and nu (set by eta, s and M, not by sigma) held at
            # their sweep means, so their sampling noise does not move the stated exponent off 1
            x, vals = (np.array([tags[i][1] for i in idx], dtype=float),
                       {"kappa": float(kr_[idx].mean()), "rho": 1.0, "nu": float(nu_[idx].mean())})
        elif name == "nu":
            x, vals = nu_[idx], {"kappa": kr_[idx], "rho": 1.0, "sigma": SIGMA}
        else:  # kappa/rho per point (rho = 1 in the Bound), nu held at the sweep's mean
            x, vals = kr_[idx], {"rho": 1.0, "sigma": SIGMA, "nu": float(nu_[idx].mean())}
        v, f = exponent_verdict(ctx, x, obs[:, idx], theory, param=name, values=vals, tol=tol, tight=name == "sigma",
                                toward_zero=name == "nu")
        parts.append(v)
        fits[name] = f
    assumptions = [_settled_assumption(min(settled), rounds)]
    v = apply_assumptions(combine(parts), assumptions)
    fs, fn, fk = fits["sigma"], fits["nu"], fits.get("kappa")
    k_text = (f" In kappa/rho ({kr_[[i for i, t in enumerate(tags) if t[0] == 'kappa']].min():.2f} to "
              f"{kr_[[i for i, t in enumerate(tags) if t[0] == 'kappa']].max():.2f}, the step swept) its exponent is "
              f"{fk['slope']:.3f} (CI {fk['slope_ci'][0]:.3f} to {fk['slope_ci'][1]:.3f}) against (18)'s "
              f"{fk['predicted_exponent']:.3f}: (18) is loose in kappa." if fk else "")
    nu_loose = fn["slope_ci"][0] > fn["predicted_exponent"] + tol
    shape = np.array([float(theory(sigma=t[2]["sigma"], kappa=kr_[i], rho=1.0, nu=nu_[i])) for i, t in enumerate(tags)])
    panels = []
    fig = ctx.numpy_rng("figure")
    for name, label in (("sigma", r"$\sigma/\Delta$"), ("nu", r"$\nu$ (M from 100 to 800)")):
        idx = [i for i, t in enumerate(tags) if t[0] == name]
        xs = np.array([tags[i][1] for i in idx], dtype=float) if name == "sigma" else nu_[idx]
        c = float(np.max(obs[:, idx].mean(0) / shape[idx]))
        panels.append(figspec.panel(f"Final error vs {name}", label, r"$d(\hat\theta,\theta^*)$",
                                    [figspec.observed("Phase 2", xs, obs[:, idx], rng=fig),
                                     figspec.line("(18), scaled to touch the data", xs, c * shape[idx], "bound")]))
    return result_for(
        ctx,
        claim(theory, r"d(\hat\theta,\theta^*)\lesssim\frac{\sigma\kappa}{\rho}\nu\log\frac{e}{\nu}",
              text="Theorem 3 (18): w.p. 1 - N^-9 - c k e^-d, d(theta_hat, theta*) <~ (sigma kappa/rho) nu log(e/nu). "
                   "Tested by its exponents: in sigma matched from both sides (the error is linear in sigma, as (18) is), "
                   "in nu as an upper bound toward nu -> 0."),
        v,
        observed={"grid": [f"{a}={b}" for a, b, _ in tags], "final_error_mean": obs.mean(0), "nu": nu_,
                  "kappa_over_rho": kr_, "replicates": R,
                  "exponents": {k: {"slope": f["slope"], "ci": f["slope_ci"], "predicted": f["predicted_exponent"]}
                                for k, f in fits.items()}},
        predicted={"exponent_tolerance": tol, "sigma_exponent": fs["predicted_exponent"], "nu_exponent": fn["predicted_exponent"]},
        fit=fits,
        explanation=verdict_words(
            v,
            f"The final error's exponent in sigma is {fs['slope']:.3f} (CI {fs['slope_ci'][0]:.3f} to {fs['slope_ci'][1]:.3f}) "
            f"against (18)'s {fs['predicted_exponent']:.3f}: matched within {tol:g}. In nu (M from 100 to 800) it is "
            f"{fn['slope']:.3f} (CI {fn['slope_ci'][0]:.3f} to {fn['slope_ci'][1]:.3f}) against {fn['predicted_exponent']:.3f}: "
            "the error falls at least as fast as (18) as nu -> 0"
            + (", faster: (18) is loose in nu (its log(e/nu) factor; the error follows the oracle sigma sqrt(d/N) ~ nu)."
               if nu_loose else ".") + k_text,
            f"An exponent of (18) does not follow the final error: sigma {fs['slope']:.3f} against {fs['predicted_exponent']:.3f}, "
            f"nu {fn['slope']:.3f} against {fn['predicted_exponent']:.3f}"
            + (f", kappa/rho {fk['slope']:.3f} against {fk['predicted_exponent']:.3f}." if fk else "."),
            "The exponent intervals do not decide, or the labels had not settled."),
        finding=remark(f"(18) is loose in nu: the final error's exponent in nu is {fn['slope']:.2f} against (18)'s "
                       f"{fn['predicted_exponent']:.2f} on nu in [{nu_.min():.2f}, {nu_.max():.2f}] (the log(e/nu) factor; the "
                       "error follows the oracle sigma sqrt(d/N)), so an exponent in nu raised by up to "
                       f"{fn['slope'] - fn['predicted_exponent']:.2f} would still bound it here.") if nu_loose else "",
        assumptions=assumptions,
        figure=figspec.figure(*panels),
        arrays={"final_error": obs, "shape": shape},
    )


#: C30's threshold: Phase 2's final error within 10% of the oracle least squares' (Claim 30 of docs/papers/su2022.md; the paper's oracle
#: sigma sqrt(d/N_j), Section 4.2). A Bound, so that a planted threshold reaches the verdict.
ORACLE_RATIO = Bound("Phase 2 error / oracle error", sp.Rational(11, 10), "upper",
                     statement="Once misclustering vanishes Phase 2 reaches the oracle least squares: its final error is "
                               "within 10% of the oracle's.",
                     source="su2022, Section 4.2 (oracle remark after Theorem 2)", hidden_constant=False,
                     typst="d(hat(theta), theta^*) <= 1.1 d(hat(theta)_\"oracle\", theta^*)")


@check("su2022.c30", "The final error reaches the oracle sigma sqrt(d/N_j) and falls as n^-1/2 where (18) is flat", "bound",
       "holds",
       no_control="the oracle least squares with the clusters known is the reference the claim compares with",
       statements=("Section 4.2",))
def c30_oracle(ctx: Context, *, oracle=oracle_ols, ns=(4, 16, 64, 256), clients: int = 200, sigma: float = 0.3,
               rounds: int = 30, ratio_limit: Bound = ORACLE_RATIO, large_n: int = 64) -> Result:
    """Claim 30 and E20: M fixed, balanced n in ns. For n >= 64 the Phase-2 error is within 10% of the oracle least
    squares on the true clusters (per replicate); the slope of the error in n (about -1/2) is reported against
    (18), whose nu does not shrink with n (its second term depends on M only): the bound is loose in n."""
    R = ctx.reps(6, 24, minimum=2)
    errs, orc, shape, settled = [], [], [], []
    for n in ns:
        fed = federation(ctx, f"n={n}", R, torch.full((clients,), int(n), dtype=torch.long), sigma=sigma)
        err, nu_hat, kr, tr, st = _final_error(ctx, fed, f"n={n}/start", rounds)
        settled.append(st)
        o, _ = permutation_distance(oracle(fed), fed.model.theta)
        errs.append(err), orc.append(numpy(o)), shape.append(_bound18(S.THM_3, sigma, kr, nu_hat, fed.d, fed.k, fed.M_eff))
    E, O, B = (np.stack(v, 1) for v in (errs, orc, shape))
    ns_ = np.asarray(ns, dtype=float)
    big = ns_ >= large_n
    limit = float(ratio_limit())
    verdict, info = bound_verdict(E[:, big] / O[:, big], limit, side=side_of(ratio_limit)[0], rng=ctx.numpy_rng("bootstrap"))
    assumptions = [_settled_assumption(min(settled), rounds, share=0.95)]
    verdict = apply_assumptions(verdict, assumptions)
    slope = float(np.polyfit(np.log(ns_), np.log(E.mean(0)), 1)[0])
    slope_bound = float(np.polyfit(np.log(ns_), np.log(B.mean(0)), 1)[0])
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(S.ORACLE, r"d(\hat\theta,\theta^*)\approx\sigma\sqrt{d/N_j}\ \ (n\to\infty),\ \text{while (18) stays flat in }n",
              text="With the cluster structure known the error is sigma sqrt(d/N_j); the paper says this is dominated by its "
                   "bound (18). Phase 2 reaches the oracle once misclustering vanishes, so its error keeps falling as n^-1/2 "
                   "while (18), whose nu depends on M only, plateaus: the bound is loose in n."),
        verdict,
        observed={"n": ns_, "final_error": E.mean(0), "oracle_error": O.mean(0), "ratio_to_oracle": (E / O).mean(0),
                  "slope_error_in_n": slope, "slope_bound_in_n": slope_bound, "clients": clients, "sigma": sigma},
        predicted={"ratio_limit": limit, "bound_shape": B.mean(0)},
        fit=info,
        explanation=verdict_words(
            verdict,
            f"For n >= {large_n} the final error is at most {info['worst_ratio']:.3f} times the oracle least squares' error. The error "
            f"falls with slope {slope:.2f} in n while (18) has slope {slope_bound:.2f}: the bound plateaus where the method "
            "keeps improving.",
            f"For n >= {large_n} the final error exceeds {limit:g} times the oracle (worst {info['worst_ratio']:.3f}).",
            f"The ratio to the oracle cannot be placed against {limit:g}, or the labels had not settled."),
        assumptions=assumptions,
        finding=(f"Theorem 3's bound (18) is loose in n: at fixed M the error falls as n^{slope:.2f} and reaches the oracle "
                 f"sigma sqrt(d/N_j), while (sigma kappa/rho) nu log(e/nu) changes with slope {slope_bound:.2f}."
                 if slope < -0.3 and slope_bound > -0.2 else ""),
        figure=figspec.figure(figspec.panel(
            rf"Final error vs local size $n$ ($M={clients}$, $\sigma={sigma}\Delta$)", "n", "error",
            [figspec.observed("Phase 2", ns_, E, rng=fig), figspec.observed("oracle least squares", ns_, O, rng=fig),
             figspec.line("(18) with C = 1", ns_, B.mean(0), "bound")])),
        arrays={"final_error": E, "oracle": O},
    )


@check("su2022.c31", "Heavy tails: (18) holds with one constant while the data on O(1)-point clients stays small", "bound",
       "holds",
       no_control="the claim is that (18) keeps holding under heavy-tailed sizes; no method without the property is compared",
       statements=("Theorem 3",))
def c31_heavy_tails(ctx: Context, *, theory: Bound = S.THM_3, tails=(1.1, 1.5, 2.0, 3.0), tiny_shares=(0.2, 0.5, 0.8),
                    points: int = 2000, sigma: float = 0.3, rounds: int = 40, margin: float = 1.5) -> Result:
    """Claim 31, E21: about ``points`` data points, Pareto tails (f = 0) and a share f of the data on clients with 1-2
    points (a = 2). Recorded: chi^2(n), M_eff, nu_hat, final error. The constant of (18) (nu = nu_hat + the
    uniform term) is fitted at a = 3, f = 0 and held fixed over the grid. Where the data share on tiny clients
    exceeds rho/kappa, the success criterion fails (E21: "works with O(1)-point clients" needs their share small)."""
    R = ctx.reps(4, 16, minimum=2)
    gen = ctx.generator("sizes")
    configs = [(f"a={a}", tiny_client_sizes(points, 0.0, a, gen)) for a in tails] + \
              [(f"f={f}", tiny_client_sizes(points, f, 2.0, gen)) for f in tiny_shares if f > 0]
    rows, obs, shape, ok_rates, settled = [], [], [], [], []
    for name, sizes in configs:
        fed = federation(ctx, name, R, sizes, sigma=sigma)
        err, nu_hat, kr, tr, st = _final_error(ctx, fed, f"{name}/start", rounds)
        settled.append(st)
        ok = numpy(success(fed, tr, fed.model.Delta))
        tiny = float(sizes[sizes <= 2].sum() / sizes.sum())
        obs.append(err), shape.append(_bound18(theory, sigma, kr, nu_hat, fed.d, fed.k, fed.M_eff)), ok_rates.append(ok.mean())
        rows.append({"config": name, "M": fed.M, "chi2": fed.chi2, "M_eff": fed.M_eff, "tiny_data_share": tiny,
                     "nu_hat": float(nu_hat.mean()), "final_error": float(err.mean()), "success": float(ok.mean()),
                     "rho_over_kappa": float(np.mean(1 / kr))})
    obs, shape = np.stack(obs, 1), np.stack(shape, 1)
    v_unit, info_unit = unit_constant_verdict(ctx, obs / shape, theory)
    with aside():  # one constant fitted at a = 3, f = 0 and held over the grid: the shape, reported (nu stays in
        # [0.3, 1] here, away from the nu -> 0 asymptotics where an exponent of (18) could be read)
        mean, lo, hi = bootstrap_ci(obs / shape, rng=ctx.numpy_rng("bootstrap"))
        cal = np.array([n == f"a={tails[-1]}" for n, _ in configs])
        v, info = held_out_constant_verdict(lo[cal], hi[cal], np.ones(1), lo[~cal], hi[~cal], np.ones((~cal).sum()),
                                            margin=margin)
    info["unit_constant"] = info_unit
    v = combine([v] + ([v_unit] if v_unit is not None else []))
    assumptions = [_settled_assumption(min(settled), rounds, share=0.9)]  # 1-2 point clients keep switching clusters
    v = apply_assumptions(v, assumptions)
    failing = [r["config"] for r in rows if r["success"] < 0.5]
    x = np.arange(1, len(rows) + 1)
    return result_for(
        ctx,
        claim(theory, r"d(\hat\theta,\theta^*)\lesssim\frac{\sigma\kappa}{\rho}\nu\log\frac{e}{\nu},\ \nu\ge\frac1N\sum_in_ip_e(n_i)",
              text="Theorems 2-3 allow heavy-tailed sizes and O(1)-point clients: the error bound (18) holds with nu of (10), "
                   "whose first term (1/N) sum_i n_i p_e(n_i) charges the data on small clients and whose second term grows "
                   "with chi^2(n)."),
        v,
        observed={"configurations": rows, "replicates": R, "sigma": sigma},
        predicted={"constant": info["constant"], "margin": margin},
        fit=info,
        explanation=verdict_words(
            v,
            f"(18) holds even with its hidden constant set to 1 (worst error/bound {info_unit['worst_ratio']:.3g}). "
            f"Across Pareto tails and up to {max(tiny_shares):.0%} of the data on 1-2 point clients, the final error stays "
            f"under the constant fitted at a = {tails[-1]} (worst {info['worst_test_ratio_to_constant']:.2f} of it): the "
            f"error floor rises with the misclustered share nu_hat (from {min(r['nu_hat'] for r in rows):.3f} to "
            f"{max(r['nu_hat'] for r in rows):.3f}), as (10) charges it."
            + (f" Runs fail the success criterion at {', '.join(failing)}, where the tiny clients' data share exceeds rho/kappa."
               if failing else ""),
            f"A heavy-tailed configuration exceeds the fitted constant (worst {info['worst_test_ratio_to_constant']:.2f}).",
            "The intervals do not decide, or the labels had not settled."),
        assumptions=assumptions,
        finding=(f"With a share f of the data on 1-2 point clients the misclustered share nu_hat reaches "
                 f"{max(r['nu_hat'] for r in rows):.2f} and runs fail at {', '.join(failing)}: clients with O(1) points "
                 "(abstract, Section 1) are served only while their data share stays below about rho/kappa." if failing else ""),
        figure=figspec.figure(figspec.panel(
            "Final error and the shape of (18)", "configuration #: " + ", ".join(f"{i + 1} = {r['config']}" for i, r in enumerate(rows)),
            "error", [figspec.observed("final error", x, obs, rng=ctx.numpy_rng("figure")),
                      figspec.line("held-fixed C x (18)", x, info["constant"] * shape.mean(0), "bound")], xscale="linear")),
        arrays={"final_error": obs, "shape": shape},
    )


@check("su2022.c32", "FedAvg vs FedProx: both reach the P-weighted least squares; rounds = Theta(kappa/(s eta)): exponent in s",
       "bound", "holds", no_control="the claim is the scaling of the rounds with s; FedProx (no local steps) is run beside it",
       statements=("Theorem 3",))
def c32_fedavg_fedprox(ctx: Context, *, theory: Bound = S.ROUNDS_PER_EFOLD, steps=(1, 2, 5, 10), gamma: float = 0.1,
                       clients: int = 100, n: int = 40, cap: int = 2000, tol: float = 0.1) -> Result:
    """Claim 32: at one step eta (gamma = 0.1), FedAvg with s in steps and FedProx run until d(theta_t, theta*) <=
    1.1 d_inf, d_inf the error of each solver's own limit (its P-weighted least squares on the true partition;
    c05 checks that the limit is that fixed point). The paper states Theta(kappa/(s eta rho)) rounds per e-fold
    (Theorems 2-3). The rounds' exponent in s (kappa moving with s, eta and rho fixed; s in steps, FedAvg) is tested
    on the upper side, rounds <~ kappa/(s eta rho) as s grows (exponent <= the bound's + tol, tol = 0.1): the rounds
    fall faster in s than kappa/s (fitted minus stated about -0.12 at gamma = 0.1), so the Theta is not matched
    from below and the bound is reported loose in s. FedProx (s = 1, kappa = 1 + gamma), local computation
    (rounds x s) against communication (rounds) and the distance between the solvers' limits are reported."""
    R = ctx.reps(4, 16, minimum=2)
    fed = federation(ctx, "federation", R, torch.full((clients,), n, dtype=torch.long))
    eta = fed.eta_for_gamma(gamma)
    start = perturbed_centres(ctx, "start", fed.model.theta, 0.2)
    rows, rounds_needed, x, kaps = [], [], [], []
    for local, s in [("fedavg", v) for v in steps] + [("fedprox", 1)]:
        limit_theta = weighted_least_squares(fed, fed.z, eta, local, s)
        limit, _ = permutation_distance(limit_theta, fed.model.theta)
        tr = fedx_clustering(fed, start, eta, cap, local=local, s=s, checkpoints=[cap], until=1.1 * limit)
        hit = numpy(tr.error) <= 1.1 * numpy(limit)[None]
        need = np.where(hit.any(0), np.argmax(hit, 0), cap + 1).astype(float)
        rel = float((limit_theta - weighted_least_squares(fed, fed.z, eta, "fedavg", 1)).abs().amax())
        kap = float(np.mean(kappa(numpy(fed.gamma(eta)), s, local)))
        x.append(float(np.mean(theory(kappa=kap, s=s, eta=numpy(eta), rho=numpy(fed.rho)))))
        kaps.append(kap)
        rounds_needed.append(need)
        rows.append({"solver": f"FedAvg s={s}" if local == "fedavg" else "FedProx", "kappa": kap, "rounds": float(need.mean()),
                     "local_steps_total": float(need.mean() * s), "limit_distance_to_ols": rel})
    Y = np.stack(rounds_needed, 1)
    P = len(steps)
    v_c, info = exponent_verdict(ctx, np.asarray(steps, dtype=float), Y[:, :P], theory, param="s",
                                 values={"kappa": np.asarray(kaps[:P]), "eta": float(numpy(eta).mean()),
                                         "rho": float(numpy(fed.rho).mean())}, tol=tol, tight=False)
    censored = bool((Y > cap).any())
    assumptions = [Assumption("every run reached 1.1 d_inf within the cap", not censored, float((Y > cap).mean()), "exact", "")]
    verdict = apply_assumptions(v_c, assumptions)
    xs = np.asarray(x)
    return result_for(
        ctx,
        claim(S.ROUNDS, r"T'\lesssim\frac{\kappa}{s\eta\rho}\log\frac{\Delta}{\nu};\ \text{limit}=\text{P-weighted LS}",
              text="FedAvg (s local steps) and FedProx both converge to the P-weighted least squares of their partition, "
                   "and the rounds needed scale as kappa/(s eta): larger s saves communication until s ~ 1/gamma."),
        verdict,
        observed={"solvers": rows, "replicates": R, "gamma": gamma},
        predicted={"kappa_over_s_eta": xs, "exponent_in_s": info["predicted_exponent"], "exponent_tolerance": tol},
        fit=info,
        explanation=verdict_words(
            verdict,
            "The rounds each solver needs to reach its own limit (its P-weighted least squares) fall at least as fast in s "
            f"as kappa/(s eta) (faster: the bound is loose in s): exponent in s {info['slope']:.3f} (CI {info['slope_ci'][0]:.3f} to {info['slope_ci'][1]:.3f}) against "
            f"{info['predicted_exponent']:.3f}; rounds fall from "
            f"{rows[0]['rounds']:.0f} (s = 1) to {rows[len(steps) - 1]['rounds']:.0f} (s = {steps[-1]}) while the local work "
            f"grows from {rows[0]['local_steps_total']:.0f} to {rows[len(steps) - 1]['local_steps_total']:.0f} steps; FedProx needs "
            f"{rows[-1]['rounds']:.0f}.",
            f"The rounds do not scale as kappa/(s eta) in s: exponent {info['slope']:.3f} against {info['predicted_exponent']:.3f}.",
            "Some run did not converge within the cap, or the exponent interval does not decide."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            r"Rounds to $1.1\,d_\infty$ vs $\kappa/(s\eta\rho)$", r"$\kappa/(s\eta\rho)$", "rounds",
            [figspec.observed("FedAvg (s = " + ", ".join(map(str, steps)) + ") and FedProx", xs, Y, rng=ctx.numpy_rng("figure")),
             figspec.line("C x kappa/(s eta rho), C = max rounds/shape", xs, float(np.max(Y.mean(0) / xs)) * xs, "bound")])),
        arrays={"rounds": Y},
    )


@check("su2022.c33", "N_j >~ d is necessary: below d, Phase 2 cannot contract in null(phi_{I_j})", "assumption", "holds",
       statements=("Theorem 2", "Lemma 7"))
def c33_cluster_data_need(ctx: Context, *, converges_from: float = 10.0, multiples=(0.5, 1.0, 2.0, 10.0), d: int = 10,
                          others: int = 400, rounds: int = 400, rtol: float = 1e-10, shrink_limit: float = 0.5) -> Result:
    """Claim 33 and A9: cluster 1 holds N_1 = c d points (clients of 5 points), cluster 2 many; Phase 2 with the
    true labels (to isolate the data need) from 0.3 Delta off theta*. For N_1 < d the error component in the null
    space of phi(x_{I_1}) never changes (identity, rtol 1e-10); from N_1 = converges_from d (the reading of "N_j >~ d")
    the error of cluster 1 shrinks at least by half in the same rounds (at N_1 = 2 d the design is so
    ill-conditioned that it barely moves: reported)."""
    R = ctx.reps(4, 16, minimum=2)
    rows, parts = [], []
    for c in multiples:
        N1 = int(round(c * d))
        own = [5] * (N1 // 5) + ([N1 % 5] if N1 % 5 else [])
        sizes = torch.tensor(own + [10] * (others // 10), dtype=torch.long)
        z = torch.cat([torch.zeros(len(own), dtype=torch.long), torch.ones(others // 10, dtype=torch.long)])[None].expand(R, -1)
        mod = model(ctx, f"N1={c}d", R, k=2, d=d)
        fed = mod.federation(sizes, ctx.generator(f"N1={c}d/data"), z=z.to(ctx.torch_device))
        start = perturbed_centres(ctx, f"N1={c}d/start", mod.theta, 0.3)
        tr = fedx_clustering(fed, start, fed.eta_for_gamma(0.5 / S_LOCAL), rounds, s=S_LOCAL, labels="oracle",
                             checkpoints=[rounds])
        X1 = fed.X[:, :N1]  # the points of cluster 1 (its clients come first)
        _, sv, Vh = torch.linalg.svd(X1, full_matrices=True)
        rank = int((sv > 1e-10 * sv[:, :1]).sum(-1).min())
        null = Vh[:, rank:].transpose(1, 2)  # [R, d, d - rank]
        e0 = start[:, 0] - mod.theta[:, 0]
        eT = tr.final[:, 0] - mod.theta[:, 0]
        n0 = numpy(torch.linalg.vector_norm((null.transpose(1, 2) @ e0[..., None])[..., 0], dim=-1))
        nT = numpy(torch.linalg.vector_norm((null.transpose(1, 2) @ eT[..., None])[..., 0], dim=-1))
        shrink = numpy(torch.linalg.vector_norm(eT, dim=-1) / torch.linalg.vector_norm(e0, dim=-1))
        if c >= converges_from:  # where convergence is claimed, the error must shrink
            parts.append(bound_verdict(shrink[:, None], shrink_limit, side="upper", rng=ctx.numpy_rng("bootstrap"))[0])
        elif N1 < d:  # below d, the null-space part of the error must stay exactly where it started
            parts.append(identity_verdict(nT, n0, rtol=rtol)[0])
        rows.append({"N_1_over_d": c, "rank": rank, "null_component_start": float(n0.mean()),
                     "null_component_end": float(nT.mean()), "error_shrink_factor": float(shrink.mean())})
    verdict = combine(parts)
    x = np.asarray(multiples, dtype=float)
    return result_for(
        ctx,
        Claim("Theorem 2 assumes N_j >~ d: with fewer points than dimensions, K_j is singular and the recursion (12) "
              "leaves the error in null(phi(x_{I_j})) untouched, so Phase 2 cannot converge for that cluster.",
              r"N_j<d\Rightarrow\Pi_{\mathrm{null}(\phi(x_{I_j}))}(\theta_{j,t}-\theta^*_j)=\Pi_{\mathrm{null}}(\theta_{j,T}-\theta^*_j)",
              "su2022, Theorem 2 (assumption N_j >~ d) and Lemma 7", "N_j < d => Pi_(\"null\")(theta_(j,t) - theta_j^*) \"constant\""),
        verdict,
        observed={"rows": rows, "replicates": R},
        predicted={"null_component_constant_below_d": True, "shrink_factor_at_most": shrink_limit},
        explanation=verdict_words(
            verdict,
            "Below N_1 = d the error component in the null space of cluster 1's design is exactly preserved (to 1e-10) "
            f"round after round (it stays at {rows[0]['null_component_end']:.3f}), while at N_1 = 10 d the error of "
            f"cluster 1 shrinks to {rows[-1]['error_shrink_factor']:.2f} of its start: N_j >~ d is necessary, not a proof "
            "artefact.",
            "The null-space component moved below N_1 = d, or the error did not contract above it.",
            "The contraction could not be resolved."),
        assumptions=[Assumption("N_j >= d wherever convergence is claimed (N_1 >= 2 d)", True, float(min(multiples) * d), "exact",
                                "deliberately violated for N_1 < d (the point of this check)")],
        figure=figspec.figure(figspec.panel(
            "Cluster 1's error after Phase 2", r"$N_1/d$", r"$\|\theta_1-\theta^*_1\|$ / start",
            [figspec.observed("shrink factor", x, np.array([[r["error_shrink_factor"] for r in rows]])),
             figspec.line("null-space share at the start", x, [r["null_component_start"] / 0.3 for r in rows], "reference")])),
    )
