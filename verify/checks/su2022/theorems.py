"""su2022 checks x05-x: the statements of Theorems 1-3 that a reader comes for and no earlier check covers.

* x05: the per-client guarantees of Theorems 2 and 3 (paper lines ~205-209 and ~289), with both readings of the client's
  estimate (E12) and the data-dependent theta_t that the per-client probability is applied at (E18).
* x06: the per-round inequality (9) (line ~199) during the transient, with its additive floor.
* x07: the two-phase method end to end with heterogeneous Sigma_j (alpha < beta): Phase 1's proof radius 2 eps Delta/alpha
  = 0.4 Delta against Lemma 10's basin (sqrt(alpha/beta)/3) Delta = 0.19 Delta.
* x08: the SNR exponent (1 ^ Delta^2/sigma^2)^2 of p_e (line ~205) against the exact large-deviation rate.
* x09: T' = Theta((kappa/(s eta rho)) log(Delta/nu)) (Theorem 3, line ~285) under a change of units (E19).

Instances are small (d = 5, k = 2) so that every check runs in about a second at quick fidelity.
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
from verify.algorithms.two_phase import Phase2Round, contraction_matrices, fedx_clustering, kappa, success, two_phase
from verify.checks.su2022.common import DELTA, EPS, claim, exponent_verdict, federation, model, numpy, perturbed_centres, verdict_words
from verify.checks.su2022.phase1 import initial_points
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    combine,
    controlled,
    deterministic_verdict,
    proportion_ci,
    proportion_verdict,
)
from verify.normal_draws import randn
from verify.problems.mixed_regression import pareto_sizes
from verify.registry import check, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

S_LOCAL = 5


# -- the nearest-model rule's Chernoff factor ------------------------------------------------------------------------------
def chernoff_factors(theta: torch.Tensor, truth: torch.Tensor, cov: torch.Tensor, sigma: float,
                     match: torch.Tensor) -> torch.Tensor:
    """Per-point Chernoff factor chi[r, c, j] = inf_{lambda > 0} E exp(lambda D) of the loss difference
    D = (y - x^T theta_{b(c)})^2 - (y - x^T theta_j)^2 of one fresh point of cluster c (x ~ N(0, diag cov_c), noise
    N(0, sigma^2)), b(c) = match[c] the block matched to cluster c; a client of n points is assigned to block j rather than
    b(c) with probability at most chi^n (Chernoff), so it is misclustered w.p. <= sum_{j != b(c)} chi[c, j]^n.

    Closed form: with a = theta*_c - theta_{b(c)}, b = theta*_c - theta_j, D = w1 w2 for the jointly Gaussian
    w1 = x^T (a - b), w2 = x^T (a + b) + 2 zeta, whose variances s1, s2 and covariance c12 give
    E exp(lambda w1 w2) = ((1 - lambda c12)^2 - lambda^2 s1 s2)^(-1/2); for c12 < 0 its minimum over lambda > 0 is at
    lambda* = -c12/(s1 s2 - c12^2), where it equals (1 - c12^2/(s1 s2))^(1/2); for c12 >= 0 the factor is 1 (no bound).
    At theta = theta* (a = 0) this is (1 + ||b||^2/(4 sigma^2))^(-1/2) (docs/papers/su2022.md §3.3). Returns [R, k, k] (the
    matched block's own entry is 0)."""
    R, k, d = truth.shape
    own = torch.gather(theta, 1, match[..., None].expand(R, k, d))  # [R, c, d] block matched to cluster c
    a = truth - own  # [R, c, d]
    b = truth[:, :, None, :] - theta[:, None, :, :]  # [R, c, j, d]
    u, v = a[:, :, None, :] - b, a[:, :, None, :] + b
    w = cov[:, :, None, :]
    s1, s2 = (u * w * u).sum(-1), (v * w * v).sum(-1) + 4 * sigma**2
    c12 = (u * w * v).sum(-1)
    chi = torch.where(c12 < 0, (1 - c12**2 / (s1 * s2)).clamp(min=0).sqrt(), torch.ones_like(c12))
    return chi.masked_fill(torch.nn.functional.one_hot(match, k).bool(), 0.0)


def client_failure(fed, theta_prev: torch.Tensor, theta_new: torch.Tensor, z: torch.Tensor, step: Phase2Round):
    """One round's per-client outcome: the client's own estimate's error under the proof's reading (the global block
    theta_{z_{i,t}, t}) and the text's (the client's local update of that block, E12), and the per-client Chernoff
    bound at the theta_{t-1} its label came from. Returns (error_global, error_local, bound_factor [R, M, k])."""
    mod = fed.model
    R, M, d = fed.R, fed.M, fed.d
    truth_i = torch.gather(mod.theta, 1, fed.z[..., None].expand(R, M, d))
    est = torch.gather(theta_new, 1, z[..., None].expand(R, M, d))
    local = step.local_update(torch.gather(theta_prev, 1, z[..., None].expand(R, M, d)))
    _, match = permutation_distance(theta_prev, mod.theta)
    chi = chernoff_factors(theta_prev, mod.theta, mod.cov, mod.sigma, match)  # [R, c, j]
    chi_i = torch.gather(chi, 1, fed.z[..., None].expand(R, M, mod.k))  # [R, M, j]
    return (torch.linalg.vector_norm(est - truth_i, dim=-1), torch.linalg.vector_norm(local - truth_i, dim=-1), chi_i)


@check("su2022.x05", "Theorems 2-3 per client: each client's estimate is within the bound w.p. 1 - p_e(n_i), along the runs",
       "bound", "holds",
       no_control="the claim is the failure probability of the nearest-model assignment along the method's own runs; no "
                  "method without the property is compared, and the fresh-data (fixed theta) probability is its reference",
       statements=("Theorem 2", "Theorem 3"))
def x05_per_client(ctx: Context, *, theory: Bound = S.CLIENT_FAILURE, ns=(1, 2, 4, 8, 16), per_size: int = 150,
                   sigma: float = 0.5, start: float = 0.2, rounds: int = 60, d: int = 5, k: int = 2,
                   resolvable: float = 10.0) -> Result:
    """Theorem 2 (paper lines ~205-209): for t >= T + 1 and each client i, w.p. 1 - p_e(n_i),
    ||theta_hat_{i,t} - theta*_{z_i}|| <~ Delta exp(-C1 s eta rho (t - T)/kappa) + (sigma kappa/rho) nu log(e/nu), with
    p_e(n_i) = 4k exp(-c n_i (1 ^ Delta^2/sigma^2)^2); Theorem 3 (line ~289) the same at t = T + T'.

    Phase 2 (FedAvg, s = 5, gamma = 0.5/s) from d(theta_T, theta*) = 0.2 Delta (inside Lemma 10's Delta/3), sigma = 0.5
    Delta so that small clients fail often enough to measure, ``per_size`` clients of each size in ``ns`` (k = 2,
    d = 5). Both rounds checked keep d(theta_t, theta*) <= Delta/4 (an assumption, recorded), so a client's error under
    the proof's reading theta_hat_{i,t} = theta_{z_{i,t}, t} is <= d(theta_t, theta*) when its label is right and
    >= Delta - d(theta_t, theta*) when not: above Delta/2 exactly when misclustered, and Delta/2 is above the bound's
    right side at the last round for any constant that the right side at t = T' stays below Delta/2 with. So the
    per-client claim is the failure probability, tested per size n against p_e read in the explicit exponential form
    (k - 1) chi^n (``theory``), chi the exact per-point Chernoff factor of the nearest-model rule at the realised
    theta_{t-1} (:func:`chernoff_factors`) averaged over the clients of that size: a Clopper-Pearson test per n where
    the bound exceeds ``resolvable``/draws.

    At t = T + 1 theta_T does not depend on the clients' data, so the bound is a theorem (Lemma 10's situation); at
    t = T + T' theta_{T'-1} was computed from every client's own data, which Lemma 10 (a fixed theta) does not cover
    (E18): the same test there is the measurement of that gap. The text's reading of theta_hat_{i,t} (the client's local
    update, E12) is reported beside the proof's; c in p_e implied by chi is reported."""
    R = ctx.reps(8, 24)
    sizes = torch.tensor([n for n in ns for _ in range(per_size)], dtype=torch.long)
    fed = federation(ctx, "clients", R, sizes, k=k, d=d, sigma=sigma)
    eta = fed.eta_for_gamma(0.5 / S_LOCAL)
    theta0 = perturbed_centres(ctx, "start", fed.model.theta, start * DELTA)
    step = Phase2Round(fed, eta, s=S_LOCAL)
    tr = fedx_clustering(fed, theta0, eta, rounds, s=S_LOCAL, checkpoints=[1, rounds - 1, rounds])
    z1 = step.assign(theta0)
    cases = {"t = T + 1": (theta0, tr.theta[1], z1), "t = T + T'": (tr.theta[-2], tr.theta[-1], tr.labels)}
    size_of = numpy(sizes)
    rows, parts, Y = {}, [], {}
    for name, (prev, new, z) in cases.items():
        eg, el, chi_i = client_failure(fed, prev, new, z, step)
        bound_i = np.asarray(theory(k=k, chi=np.maximum(numpy(chi_i).max(-1), 1e-300), n=size_of[None, :]), dtype=float)
        fail_g, fail_l = numpy(eg) > DELTA / 2, numpy(el) > DELTA / 2
        row = {"n": list(ns), "failure_share": [], "failure_share_local_reading": [], "bound": [], "ci": [], "compared": [],
               "implied_c": []}
        for n in ns:
            sel = size_of == n
            f, cnt = int(fail_g[:, sel].sum()), int(fail_g[:, sel].size)
            b = float(bound_i[:, sel].mean())
            row["failure_share"].append(f / cnt)
            row["failure_share_local_reading"].append(float(fail_l[:, sel].mean()))
            row["bound"].append(b)
            row["ci"].append(proportion_ci(f, cnt)[1:])
            chi_mean = float(np.exp(np.mean(np.log(np.maximum(numpy(chi_i).max(-1)[:, sel], 1e-300)))))
            row["implied_c"].append(-math.log(chi_mean) / min(1.0, DELTA**2 / sigma**2) ** 2)
            if b >= resolvable / cnt:
                with aside():  # per size: part of the verdict; the pooled test below carries its strength
                    v, _ = proportion_verdict(f, cnt, min(b, 1.0), side="upper")
                parts.append(v)
                row["compared"].append(n)
        # pooled over every client: the mean failure indicator against the mean of the per-client bounds
        v_all, info_all = proportion_verdict(int(fail_g.sum()), int(fail_g.size), float(np.minimum(bound_i, 1.0).mean()),
                                             side="upper")
        parts.append(v_all)
        row["pooled"] = info_all
        row["distance"] = float(numpy(permutation_distance(new, fed.model.theta)[0]).max())
        rows[name] = row
        Y[name] = fail_g
    d_max = max(r["distance"] for r in rows.values())
    assumptions = [Assumption("d(theta_t, theta*) <= Delta/4 at both rounds (error > Delta/2 iff misclustered)", d_max <= DELTA / 4,
                              d_max, "exact", f"start {start} Delta, {rounds} rounds")]
    verdict = apply_assumptions(combine(parts), assumptions)
    early, late = rows["t = T + 1"], rows["t = T + T'"]
    ratio = lambda r: max(f / b for f, b, n in zip(r["failure_share"], r["bound"], r["n"]) if n in r["compared"])  # noqa: E731
    same_reading = all(abs(a - b) <= 1.0 / (R * per_size) + 1e-12 for r in rows.values()
                       for a, b in zip(r["failure_share"], r["failure_share_local_reading"]))
    ns_ = np.asarray(ns, dtype=float)
    series = []
    for name in ("t = T + 1", "t = T + T'"):
        r = rows[name]
        ci = np.asarray(r["ci"])
        series.append(figspec.interval(f"failure share, {name}", ns_, np.asarray(r["failure_share"]), np.maximum(ci[:, 0], 1e-5),
                                       np.maximum(ci[:, 1], 1e-5), "95% Clopper-Pearson"))
        series.append(figspec.line(f"Chernoff form of p_e at the realised theta, {name}", ns_, np.maximum(r["bound"], 1e-5), "bound"))
    return result_for(
        ctx,
        Claim("Theorems 2-3, per client (paper lines ~205-209, ~289): for t >= T + 1 and each client i, w.p. 1 - p_e(n_i), "
              "p_e(n_i) = 4k exp(-c n_i (1 ^ Delta^2/sigma^2)^2), ||theta_hat_{i,t} - theta*_{z_i}|| <~ Delta exp(-C_1 s eta rho "
              "(t - T)/kappa) + (sigma kappa/rho) nu log(e/nu); tested as the share of clients of size n whose error exceeds "
              "Delta/2 (misclustered) against p_e in its exponential (Chernoff) form at the realised theta, at t = T + 1 and at "
              "t = T + T' (data-dependent theta).",
              r"\mathbb{P}\big[\|\hat\theta_{i,t}-\theta^*_{z_i}\|_2\gtrsim\Delta e^{-C_1s\eta\rho(t-T)/\kappa}+\tfrac{\sigma\kappa}{\rho}\nu\log\tfrac{e}{\nu}\big]\le p_e(n_i)",
              "su2022, Theorem 2 (lines ~205-209) and Theorem 3 (line ~289)",
              "PP[norm(hat(theta)_(i,t) - theta_(z_i)^*) gt.tilde Delta e^(-C_1 s eta rho (t - T) / kappa) + (sigma kappa) / rho nu log(e / nu)] <= p_e (n_i)"),
        verdict,
        observed={"rows": rows, "replicates": R, "clients_per_size": per_size, "sigma": sigma, "start_radius": start,
                  "rounds": rounds, "readings_agree": same_reading},
        predicted={"bound_form": "(k - 1) chi^n, chi the Chernoff factor at the realised theta_{t-1}", "resolvable_draws": resolvable},
        fit={"worst_ratio_T_plus_1": ratio(early), "worst_ratio_final": ratio(late), "pooled_T_plus_1": early["pooled"],
             "pooled_final": late["pooled"]},
        explanation=verdict_words(
            verdict,
            f"Clients of size {ns[0]} to {ns[-1]} fail (error above Delta/2) in {', '.join(f'{v:.3f}' for v in late['failure_share'])} "
            f"of the cases at t = T + T' against the Chernoff form of p_e at the realised theta "
            f"{', '.join(f'{v:.3f}' for v in late['bound'])} (worst ratio {ratio(late):.2f}; at t = T + 1, where theta does not "
            f"depend on the data, {ratio(early):.2f}): the per-client probability holds also at the data-dependent theta the "
            f"proof applies Lemma 10 at, and falls exponentially in n_i (c implied by chi about {late['implied_c'][0]:.2f}). "
            f"The text's reading of theta_hat_{{i,t}} (the local update) fails for the same clients"
            + (" in every case." if same_reading else " up to a few cases."),
            f"Some client size fails more often than p_e allows: worst ratio {ratio(late):.2f} at t = T + T', {ratio(early):.2f} at "
            "t = T + 1.",
            "The failure shares cannot be placed against the bound, or d(theta_t, theta*) exceeded Delta/4."),
        finding=remark(f"At t = T + T' theta depends on every client's data, which Lemma 10 (fixed theta) does not cover; "
                       f"measured, the failure shares there ({', '.join(f'{v:.3f}' for v in late['failure_share'])}) stay under the "
                       f"fixed-theta Chernoff bound at the same theta (worst ratio {ratio(late):.2f}), as at t = T + 1 "
                       f"({ratio(early):.2f}): the gap is one of proof, not of the statement. The text's local-update reading "
                       + ("gives the same failures." if same_reading else "differs in a few cases.")),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(rf"Per-client failure vs $n_i$ ($\sigma={sigma}\Delta$)", r"$n_i$",
                                            r"P(error $>\Delta/2$)", series, xscale="log", yscale="log")),
        arrays={"failures_final": Y["t = T + T'"], "failures_first": Y["t = T + 1"]},
    )


# -- x06: (9) per round, with its additive floor -----------------------------------------------------------------------------
def noise_scaled(fed, sigmas):
    """The federation repeated once per noise level (row r * P + p: replicate r, level sigmas[p]) with the same features,
    labels and standard noise, the noise scaled to sigmas[p]: y = phi theta*_z + sigma_p zeta / sigma (paired runs)."""
    from verify.problems.mixed_regression import MixedRegression, MixtureModel

    P = len(sigmas)
    mod = fed.model
    rep = lambda x: x.repeat_interleave(P, 0)  # noqa: E731
    scale = torch.as_tensor(sigmas, dtype=fed.X.dtype, device=fed.X.device).repeat(fed.R)[:, None] / mod.sigma
    zeta = rep(fed.zeta) * scale
    tiled = MixtureModel(rep(mod.theta), rep(mod.cov), float(max(sigmas)), rep(mod.p), mod.features)
    return MixedRegression(tiled, fed.sizes, rep(fed.z), rep(fed.X), rep(fed.y - fed.zeta) + zeta, zeta, fed.seg)


def sharp_rate(fed, eta, s: int = S_LOCAL) -> torch.Tensor:
    """max_j ||I - eta K_j||_2 on the true clusters, per replicate: the exact contraction of recursion (12)."""
    K = contraction_matrices(fed, eta, "fedavg", s)
    ev = torch.linalg.eigvalsh(torch.as_tensor(eta, dtype=K.dtype, device=K.device).reshape(-1, 1, 1, 1) * K)
    return torch.maximum((1 - ev[..., 0]).abs(), (1 - ev[..., -1]).abs()).amax(-1)


@check("su2022.x06", "Theorem 2 (9) per round: d_t <= (1 - C_1 s eta rho/kappa) d_{t-1} + C_2 s eta sigma nu log(e/nu), floor linear in sigma",
       "bound", "holds", statements=("Theorem 2",))
def x06_per_round(ctx: Context, *, theory: Bound = S.FLOOR_9, sigmas=(0.025, 0.05, 0.1, 0.2), clients: int = 100, n: int = 20,
                  start: float = 0.2, rounds: int = 150, d: int = 5, k: int = 2, tol: float = 0.1,
                  client_counts=(50, 100, 200, 400), nu_tol: float = 0.25) -> Result:
    """Theorem 2, eq. (9) (paper line ~199): for all t >= T + 1, d(theta_t, theta*) <= (1 - C1 s eta rho/kappa)
    d(theta_{t-1}, theta*) + C2 s eta sigma nu log(e/nu), every round, the transient included.

    Phase 2 (FedAvg, s = 5, gamma = 0.5/s) from d(theta_T, theta*) = 0.2 Delta on balanced clients (n_i = 20, k = 2, d = 5),
    the same features, labels and standard noise at every sigma (``noise_scaled``: paired runs). The contraction factor is
    made explicit as the exact rate of recursion (12), r = max_j ||I - eta K_j|| (C1 = (1 - r) kappa/(s eta rho), reported;
    its order in s eta rho/kappa is c20's claim), and the additive term each run needs is F = max_t (d_t - r d_{t-1}) over
    every round. (9) says F <~ s eta sigma nu log(e/nu), with nu free of sigma for sigma <= Delta (eq. (10)): F must be
    linear in sigma. It is, to leading order: with the labels right the recursion is affine in the noise, d_t - r d_{t-1} <=
    eta max_j ||B Lambda_j zeta|| (exactly linear in sigma), and the plateau attains the order; so the exponent of F in sigma
    is tested as matched from both sides (tol 0.1; a planted exponent error of 0.25 either way is violated).

    nu is swept on its own: at sigma = 0.1, M in ``client_counts`` (n_i = 20) moves nu = nu_hat + sqrt(d k log k/M)
    (eq. (10), C = 1) from about 0.37 to 0.13, with eta and nu per point in the Bound. The claim's asymptotics lie at
    nu -> 0, where 'F <~ s eta sigma nu log(e/nu)' asks F to fall at least as fast as the floor: F's exponent in nu must
    be >= the floor's local exponent (1 - 1/log(e/nu), about 0.67 to 0.77 here) minus ``nu_tol`` = 0.25. F follows the least squares' error
    sigma sqrt(d/N) ~ nu^1, so (9) is loose in nu by its log factor; a floor with nu^2 in place of nu (exponent about
    1.75) is violated. With 8 replicates the slopes at seeds 0-9 were 0.75 to 1.17 with CI lower ends 0.39 to 0.92: seeds
    5 and 9 (0.42, 0.39 against about 0.45) were ``inconclusive``; the nu sweep now runs 16 replicates (``nu_tol`` = 0.25
    for nu; 0.1 for sigma, whose exponent is exact to 0.005).

    Control: the same runs against (9) without its floor (C2 = 0): d_t <= r d_{t-1} at every round must fail (the floor is
    needed), or the run says nothing about the floor."""
    R = ctx.reps(8, 24)
    base = federation(ctx, "clients", R, torch.full((clients,), n, dtype=torch.long), k=k, d=d, sigma=1.0)
    fed = noise_scaled(base, sigmas)
    P = len(sigmas)
    eta = fed.eta_for_gamma(0.5 / S_LOCAL)
    theta0 = perturbed_centres(ctx, "start", base.model.theta, start * DELTA).repeat_interleave(P, 0)
    tr = fedx_clustering(fed, theta0, eta, rounds, s=S_LOCAL, checkpoints=[rounds])
    r = numpy(sharp_rate(fed, eta))
    dist = numpy(tr.error)  # [T + 1, R P]
    excess = dist[1:] - r[None] * dist[:-1]
    F = excess.max(0).reshape(R, P)
    kap = kappa(numpy(fed.gamma(eta)), S_LOCAL)
    rho = numpy(fed.rho)
    c1 = ((1 - r) * kap / (S_LOCAL * numpy(eta) * rho)).reshape(R, P)
    nu_hat = numpy(tr.misclustered).max(0).reshape(R, P).mean(0)
    nu = np.minimum(nu_hat + S.nu_second_term(d, k, float(clients)), 1.0)
    eta_m = float(numpy(eta).mean())
    positive = bool((F > 0).all())
    v, fit = exponent_verdict(ctx, np.asarray(sigmas, dtype=float), np.maximum(F, 1e-300), theory, param="sigma",
                              values={"s": S_LOCAL, "eta": eta_m, "nu": nu}, tol=tol, tight=True)
    v_ctl, info_ctl = deterministic_verdict(dist[1:], r[None] * dist[:-1], side="upper")
    F_nu, nu_grid, eta_grid, wrong_nu = [], [], [], []
    R_nu = ctx.reps(16, 48)  # the nu slope's CI at 8 replicates reached below the tolerance at 2 of 10 seeds (5, 9)
    for M in client_counts:  # the nu sweep: clients M at sigma = 0.1
        fed_m = federation(ctx, f"clients/M={M}", R_nu, torch.full((int(M),), n, dtype=torch.long), k=k, d=d, sigma=0.1)
        eta_m_ = fed_m.eta_for_gamma(0.5 / S_LOCAL)
        tr_m = fedx_clustering(fed_m, perturbed_centres(ctx, f"start/M={M}", fed_m.model.theta, start * DELTA), eta_m_,
                               rounds, s=S_LOCAL, checkpoints=[rounds])
        d_m = numpy(tr_m.error)
        F_nu.append((d_m[1:] - numpy(sharp_rate(fed_m, eta_m_))[None] * d_m[:-1]).max(0))
        nu_grid.append(float(min(numpy(tr_m.misclustered).max(0).mean() + S.nu_second_term(d, k, float(M)), 1.0)))
        eta_grid.append(float(numpy(eta_m_).mean()))
        wrong_nu.append(float(numpy(tr_m.wrong_data[-1]).max()))
    F_nu = np.stack(F_nu, 1)  # [R, len(client_counts)]
    nu_grid, eta_grid = np.asarray(nu_grid), np.asarray(eta_grid)
    v_nu, fit_nu = exponent_verdict(ctx, nu_grid, np.maximum(F_nu, 1e-300), theory, param="nu",
                                    values={"s": S_LOCAL, "eta": eta_grid, "sigma": 0.1}, tol=nu_tol, tight=False,
                                    toward_zero=True)
    wrong = numpy(tr.wrong_data).max(0)
    transient = dist[1:] > 2 * dist[-1][None]  # rounds still far above the plateau
    assumptions = [Assumption("every run needs a positive additive term (it reached its plateau)", positive, float(F.min()), "exact",
                              f"{rounds} rounds"),
                   Assumption("labels right at the end (the plateau is the least squares on the true partition)",
                              bool((numpy(tr.wrong_data[-1]) == 0).all()) and max(wrong_nu, default=0.0) == 0.0,
                              float(max(wrong.max(), max(wrong_nu, default=0.0))), "exact", "")]
    verdict = apply_assumptions(controlled(combine([v, v_nu]), v_ctl), assumptions)
    floor = np.asarray(theory(s=S_LOCAL, eta=eta_m, sigma=np.asarray(sigmas, dtype=float), nu=nu), dtype=float)
    C2 = (F / floor[None]).max(0)
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(theory, r"d(\theta_t,\theta^*)\le(1-C_1s\eta\rho/\kappa)\,d(\theta_{t-1},\theta^*)+C_2s\eta\sigma\nu\log\frac{e}{\nu}",
              text="Theorem 2, eq. (9) (line ~199): for all t >= T + 1 and every theta_T with d(theta_T, theta*) <= eps Delta, "
                   "d(theta_t, theta*) <= (1 - C_1 s eta rho/kappa) d(theta_{t-1}, theta*) + C_2 s eta sigma nu log(e/nu); tested with "
                   "the exact contraction r = max_j ||I - eta K_j|| as (1 - C_1 s eta rho/kappa): the additive term every round "
                   "needs, F = max_t (d_t - r d_{t-1}), is linear in sigma as the floor is."),
        verdict,
        observed={"sigma": list(sigmas), "additive_term_needed": F.mean(0), "additive_term_per_run": F, "sharp_rate": r.reshape(R, P).mean(0),
                  "implied_C_1": c1.mean(0), "implied_C_2_max": C2, "nu": nu, "nu_hat": nu_hat,
                  "rounds_with_positive_excess_share": float((excess > 0).mean()),
                  "transient_rounds_with_positive_excess_share": float((excess[transient] > 0).mean()) if transient.any() else 0.0,
                  "rounds": rounds, "clients": clients, "n": n},
        predicted={"floor_shape": floor, "exponent": fit["predicted_exponent"], "tolerance": tol,
                   "exponent_nu": fit_nu["predicted_exponent"]},
        fit={**fit, "nu": fit_nu, "nu_grid": nu_grid, "additive_term_by_nu": F_nu.mean(0),
             "client_counts": list(client_counts)},
        control={"what": "(9) without its additive floor (C_2 = 0): d_t <= r d_{t-1} every round", "verdict": v_ctl.value,
                 "detail": f"{info_ctl['violations']} of {info_ctl['count']} rounds exceed r d_(t-1) (worst ratio "
                           f"{info_ctl['worst_ratio']:.4f})"},
        explanation=verdict_words(
            verdict,
            f"With the exact contraction r = max_j ||I - eta K_j|| (mean {r.mean():.4f}; C_1 = (1 - r) kappa/(s eta rho) about "
            f"{c1.mean():.2f}), the additive term the runs need every round grows with sigma with exponent {fit['slope']:.3f} "
            f"(CI {fit['slope_ci'][0]:.3f} to {fit['slope_ci'][1]:.3f}) against (9)'s {fit['predicted_exponent']:.3f}: "
            f"(9) holds round by round with C_2 up to {C2.max():.3g} (nu with C = 1). In nu ({nu_grid.min():.2f} to "
            f"{nu_grid.max():.2f}, M swept) the needed term falls with exponent {fit_nu['slope']:.2f} (CI "
            f"{fit_nu['slope_ci'][0]:.2f} to {fit_nu['slope_ci'][1]:.2f}), at least as fast as the floor's "
            f"{fit_nu['predicted_exponent']:.2f} as nu -> 0. Without the floor (C_2 = 0) the inequality "
            f"fails in {info_ctl['violations']} of {info_ctl['count']} rounds (the plateau): the floor is needed; during the "
            f"transient the distance contracts at least at r (positive excess in "
            f"{float((excess[transient] > 0).mean()) if transient.any() else 0.0:.0%} of those rounds).",
            f"The needed additive term does not follow (9)'s floor: exponent {fit['slope']:.3f} in sigma against "
            f"{fit['predicted_exponent']:.3f}, {fit_nu['slope']:.3f} in nu against {fit_nu['predicted_exponent']:.3f} "
            "(falling no slower is required).",
            "The exponent is not resolved, a run had not reached its plateau, or the control did not fail."),
        figure=figspec.figure(figspec.panel(
            r"Additive term needed by (9) vs $\sigma$", r"$\sigma/\Delta$", r"$\max_t\,(d_t-r\,d_{t-1})$",
            [figspec.observed("measured", np.asarray(sigmas), F, rng=fig),
             figspec.line(r"$C_2 s\eta\sigma\nu\log(e/\nu)$, $C_2$ = max needed", np.asarray(sigmas), C2.max() * floor, "bound")])),
        arrays={"additive_term": F, "distance": dist},
    )


# -- x07: heterogeneous Sigma end to end -------------------------------------------------------------------------------------
#: Theorem 3's success share (as c28's): a Bound so that a planted threshold reaches the verdict.
END_TO_END = Bound("Theorem 3 with alpha < beta: success share", sp.Symbol("threshold", positive=True), "lower",
                   statement="W.p. 1 - N^-9 - c k e^-d the two-phase method succeeds from any start with ||theta_0|| <= R, for "
                             "any Sigma_j with alpha I <= Sigma_j <= beta I; tested as a success share of at least the threshold.",
                   source="su2022, Theorem 3 (paper lines ~283-289) under the covariate assumption alpha I <= Sigma_j <= beta I",
                   hidden_constant=False, typst="PP[\"success\"] >= 1 - N^(-9) - c k e^(-d)")


def radii_exact(eps=sp.Rational(1, 10), alpha=sp.Rational(1, 2), beta=sp.Rational(3, 2)) -> dict:
    """Phase 1's proof radius 2 eps/alpha (in units of Delta, E5) against Lemma 10's basin sqrt(alpha/beta)/3, exactly
    (sympy), and the largest eps for which Phase 1's guarantee lands inside the basin: eps* = (alpha/2) sqrt(alpha/beta)/3."""
    phase1 = 2 * eps / alpha
    basin = sp.sqrt(alpha / beta) / 3
    eps_star = sp.nsimplify(alpha / 2 * basin)
    return {"phase1_radius": phase1, "basin_radius": sp.nsimplify(basin), "phase1_exceeds_basin": bool(phase1**2 > basin**2),
            "eps_star": eps_star, "phase1_radius_float": float(phase1), "basin_radius_float": float(basin),
            "eps_star_float": float(eps_star)}


FAMILIES = ("zero", "uniform in the R-ball", "theta*_1", "midpoint of theta*_1, theta*_2", "-R theta*_1/||theta*_1||",
            "random on the R-sphere")


def end_to_end(ctx: Context, R: int, *, k: int, d: int, m: int, T: int, clients: int, tail: float, rounds: int, **planted):
    """Theorem 3's method on R replicates of a planted mixture (``planted``: covariance, alpha, beta, features): starts
    cycling through the six families of Claim 13, three anchors per cluster, Phase 1 with freezing and the first-moment sign
    (m fresh clients per iteration, T iterations), Phase 2 (FedAvg s = 5, gamma = 0.5/s) on Pareto(tail) clients for
    ``rounds`` rounds. Returns (model, federation, eta, theta_0, TwoPhaseResult, success [R], families)."""
    mod = model(ctx, "model", R, k=k, d=d, **planted)
    gen = ctx.generator("run")
    fed = mod.federation(pareto_sizes(clients, tail, gen), gen)
    eta = fed.eta_for_gamma(0.5 / S_LOCAL)
    starts = torch.stack([initial_points(mod, f, gen) for f in FAMILIES])  # [F, R, d]
    theta0 = starts[torch.arange(R) % len(FAMILIES), torch.arange(R)]
    anchors = torch.arange(k, device=ctx.torch_device).repeat(3)[None].expand(R, 3 * k).contiguous()
    res = two_phase(mod, fed, theta0, anchors, FedMDConfig(m=m, eps=EPS, T=T), eta, rounds, gen, s=S_LOCAL)
    return mod, fed, eta, theta0, res, numpy(success(fed, res.phase2, mod.Delta)), list(FAMILIES)


@check("su2022.x07", "Theorem 3 with heterogeneous Sigma (alpha < beta): end to end, Phase 1's 0.4 Delta against Lemma 10's 0.19 Delta basin",
       "bound", "holds",
       no_control="the claim is the method's own end-to-end convergence (Theorem 3); Phase 2 alone from the same starts is "
                  "not a method without the property at k = 2 (it succeeds from some starts), so it is reported, not judged",
       statements=("Theorem 3", "Theorem 1"))
def x07_heterogeneous(ctx: Context, *, theory: Bound = END_TO_END, threshold: float | None = None, m: int = 2500, T: int = 20,
                      clients: int = 150, tail: float = 2.0, rounds: int = 150, side_rounds: int = 60, d: int = 5, k: int = 2,
                      alpha: float = 0.5, beta: float = 1.5) -> Result:
    """Theorem 3 (paper lines ~283-289) under alpha I <= Sigma_j <= beta I with alpha < beta: Phase 1 (T = Theta(1)) from any
    theta_0 in the R-ball, then Phase 2, converges. Sigma_j diagonal with entries in [alpha, beta] = [0.5, 1.5], both attained
    in every cluster (docs/papers/su2022.md §1.6), k = 2, d = 5; Phase 1 with the proof's freezing (E6) and the first-moment sign (E1), m =
    2500 fresh clients per iteration, T = 20 (the slowest direction contracts by 1 - alpha^2/(2 beta^2) = 17/18 per
    iteration), three anchors per cluster; Phase 2 FedAvg (s = 5, gamma = 0.5/s) on 150 Pareto(2) clients for 150
    rounds. Starts cycle through the six families of Claim 13. Success (docs/papers/su2022.md §6): d(theta_hat, theta*) <= Delta/4 and
    >= 90% of the data correctly labelled; the share must reach ``threshold`` (0.6 quick over 12 runs: a test that
    detects failure rates above 40%; 0.9 full over 50).

    Theorem 3 composes Theorem 1 and Theorem 2, but their radii do not meet here: the proof of Theorem 1 places the anchors
    within 2 eps Delta/alpha = 0.4 Delta (eps = 0.1, E5), Lemma 10 (Theorem 2) needs d(theta_T, theta*) <= (sqrt(alpha/
    beta)/3) Delta = 0.19 Delta (exact: :func:`radii_exact`; the composition needs eps <= 0.048). Measured and reported:
    the share of Phase 1 outputs outside the basin, and Phase 2's success from random starts at exactly 0.4 Delta.

    Reported beside it (``side_rounds`` = 60 rounds each): Phase 2 without Phase 1 (every block at theta_0) from the same
    starts, and Phase 2 from random starts at exactly 0.4 Delta."""
    R = ctx.reps(12, 50)
    threshold = float(theory(threshold=ctx.pick(0.6, 0.9) if threshold is None else threshold))
    mod, fed, eta, theta0, res, ok, families = end_to_end(ctx, R, k=k, d=d, m=m, T=T, clients=clients, tail=tail, rounds=rounds,
                                                          covariance="heterogeneous", alpha=alpha, beta=beta)
    v, info = proportion_verdict(int(ok.sum()), R, threshold)
    # control: Phase 2 alone, every block at theta_0
    bare = theta0[:, None, :].expand(R, k, d).contiguous()
    tr_bare = fedx_clustering(fed, bare, eta, side_rounds, s=S_LOCAL, checkpoints=[side_rounds])
    ok_bare = numpy(success(fed, tr_bare, mod.Delta))
    verdict = v
    ex = radii_exact(sp.nsimplify(EPS), sp.nsimplify(alpha), sp.nsimplify(beta))
    dist1 = numpy(res.phase1.distance)
    outside_basin = float((dist1 > ex["basin_radius_float"] * DELTA).mean())
    outside_proof = float((dist1 > ex["phase1_radius_float"] * DELTA).mean())
    # Phase 2 from random starts at exactly Phase 1's proof radius
    with aside():
        far = perturbed_centres(ctx, "at-proof-radius", mod.theta, ex["phase1_radius_float"] * DELTA)
        tr_far = fedx_clustering(fed, far, eta, side_rounds, s=S_LOCAL, checkpoints=[side_rounds])
        ok_far = float(numpy(success(fed, tr_far, mod.Delta)).mean())
    final = numpy(res.phase2.error[-1])
    text_gap = (f"Phase 1's output lay outside Lemma 10's basin ({ex['basin_radius_float']:.3f} Delta) in {outside_basin:.0%} of the "
                f"runs and outside Theorem 1's proof radius ({ex['phase1_radius_float']:.1f} Delta) in {outside_proof:.0%} (median "
                f"{np.median(dist1):.2f} Delta); Phase 2 from random starts at 0.4 Delta succeeded in {ok_far:.0%}")
    return result_for(
        ctx,
        Claim("Theorem 3 (lines ~283-289) with heterogeneous Sigma_j (alpha = 0.5 < beta = 1.5): Phase 1 then Phase 2 converges "
              "from any start in the R-ball, although Theorem 1's proof radius 2 eps Delta/alpha = 0.4 Delta exceeds the radius "
              "(sqrt(alpha/beta)/3) Delta = 0.19 Delta that Lemma 10 gives Theorem 2.",
              r"\alpha I\preceq\Sigma_j\preceq\beta I:\ d(\hat\theta,\theta^*)\lesssim\frac{\sigma\kappa}{\rho}\nu\log\frac{e}{\nu}\ \text{from any }\|\theta_0\|\le R",
              "su2022, Theorem 3 (lines ~283-289); Theorem 1 (4) with the radius its proof gives; Lemma 10",
              "alpha I prec.eq Sigma_j prec.eq beta I: d(hat(theta), theta^*) lt.tilde (sigma kappa) / rho nu log(e / nu)"),
        verdict,
        observed={"successes": int(ok.sum()), "runs": R, "phase1_distance": dist1, "phase1_outside_basin_share": outside_basin,
                  "phase1_outside_proof_radius_share": outside_proof, "final_error_median": float(np.median(final)),
                  "phase2_success_from_proof_radius": ok_far, "phase2_alone_successes": int(ok_bare.sum()), "phase1_k_groups": float(numpy(res.phase1_ok).mean()),
                  "alpha": alpha, "beta": beta, "m": m, "T": T, "families": families},
        predicted={"threshold_share": threshold, "phase1_radius": ex["phase1_radius_float"], "basin_radius": ex["basin_radius_float"],
                   "eps_for_composition": ex["eps_star_float"],
                   "exact": {key: str(val) for key, val in ex.items() if not key.endswith("_float")}},
        fit=info,
        explanation=verdict_words(
            verdict,
            f"With alpha = {alpha} < beta = {beta} the two-phase method succeeds in {int(ok.sum())} of {R} runs over six start "
            f"families (CI {info['ci'][0]:.2f} to {info['ci'][1]:.2f}; median final error {np.median(final):.3f} Delta), Phase 2 "
            f"alone in {int(ok_bare.sum())}. " + text_gap + ": Phase 2's real basin is wider than Lemma 10's, which is what "
            "carries Theorem 3 here, not its proof.",
            f"The two-phase method succeeds in only {int(ok.sum())} of {R} runs with alpha < beta. " + text_gap + ".",
            f"{int(ok.sum())} of {R} runs succeed (Phase 2 alone: {int(ok_bare.sum())}): not decided. " + text_gap + "."),
        finding=remark(f"Theorem 3's proof composes Theorem 1 (anchors within 2 eps Delta/alpha = {ex['phase1_radius']} Delta at eps = "
                       f"{EPS}) with Theorem 2 (Lemma 10: d(theta_T, theta*) <= sqrt(alpha/beta) Delta/3 = {ex['basin_radius']} Delta "
                       f"= {ex['basin_radius_float']:.3f} Delta), which needs eps <= (alpha/2) sqrt(alpha/beta)/3 = "
                       f"{ex['eps_star_float']:.4f}, not the eps < 1/4 Theorem 1 allows (exact, sympy). " + text_gap
                       + ": the conclusion holds here, the proof does not reach these runs."),
        figure=figspec.figure(figspec.panel(
            r"Phase 1 output and Phase 2 result, $\alpha=0.5<\beta=1.5$", "run", r"distance / $\Delta$",
            [figspec.line(r"Phase 1 $d(\hat\theta,\theta^*)$", np.arange(1, R + 1), dist1, "observed"),
             figspec.line("final error (two-phase)", np.arange(1, R + 1), final, "observed"),
             figspec.line(r"Lemma 10 basin $\sqrt{\alpha/\beta}\Delta/3$", np.arange(1, R + 1), ex["basin_radius_float"], "bound"),
             figspec.line(r"Theorem 1 proof radius $2\epsilon\Delta/\alpha$", np.arange(1, R + 1), ex["phase1_radius_float"], "reference")],
            xscale="linear", yscale="linear")),
        arrays={"success": ok, "phase1_distance": dist1, "final_error": final},
    )


# -- x08: the SNR exponent of p_e ------------------------------------------------------------------------------------------
def miss_rate_exact(snr):
    """The large-deviation rate I(s) = -lim (1/n) log P[a client of n points at theta = theta* prefers a wrong model at
    distance Delta] (Sigma = I, Gaussian features and noise), s = Delta/sigma: the per-point Chernoff factor is
    (1 + s^2/4)^(-1/2) (:func:`chernoff_factors` at a = 0), and for i.i.d. terms Chernoff's exponent is Cramer's exact
    rate, so I(s) = (1/2) log(1 + s^2/4) (~ s^2/8 as s -> 0)."""
    s = np.asarray(snr, dtype=float)
    return 0.5 * np.log1p(s**2 / 4)


@check("su2022.x08", "p_e's SNR exponent: the misclustering rate per point is >~ (1 ^ Delta^2/sigma^2)^2 (exact rate ~ (Delta/sigma)^2)",
       "rate", "holds",
       no_control="an exact property of the nearest-model rule on the mixture (its large-deviation rate), not of an algorithm",
       statements=("Theorem 2", "Lemma 10"))
def x08_snr_exponent(ctx: Context, *, theory: Bound = S.PE_EXPONENT, snrs=(0.05, 0.1, 0.2, 0.4, 0.8), high=(2.0, 4.0, 8.0, 16.0),
                     check_n: int = 400, tol: float = 0.1) -> Result:
    """Theorem 2 (paper line ~205): p_e(n_i) = 4k exp(-c n_i (1 ^ Delta^2/sigma^2)^2), i.e. a client's misclustering
    probability has exponent per point at least c (1 ^ s^2)^2 in the SNR s = Delta/sigma (Lemma 10 adds alpha^2).

    The exact exponent of the rule at theta* (one wrong model at distance Delta, Sigma = I, Gaussian) is
    I(s) = (1/2) log(1 + s^2/4) (:func:`miss_rate_exact`), confirmed independently by the exact misclustering probability
    (one-dimensional quadrature, :func:`verify.checks.su2022.phase2.exact_miss_log_probability`): (log P(n) - log P(2n) -
    (1/2) log 2)/n at n = ``check_n`` (the n^-1/2 prefactor cancelled) matches I(s) within 2% (an identity atom). The claim's asymptotics lie at low SNR (s -> 0): there
    'I >~ g' asks I/g not to vanish, i.e. I's exponent in s at most g's + tol (a lower bound read toward 0). I ~ s^2/8 has
    exponent 2 against p_e's 4: p_e holds, loose by a full square at low SNR (E20: the Chernoff exponent is (Delta/sigma)^2,
    p_e's (Delta/sigma)^4). At high SNR (s >= 2) p_e's exponent is the constant c and I grows like log s: reported."""
    from verify.checks.su2022.phase2 import exact_miss_log_probability
    from verify.fit import identity_verdict

    s_lo = np.asarray(snrs, dtype=float)
    I_lo = miss_rate_exact(s_lo)
    v, fit = exponent_verdict(ctx, s_lo, I_lo[None], theory, param="snr", values={}, tol=tol, tight=False, toward_zero=True,
                              deterministic=True)
    probe = np.asarray([snrs[-2], snrs[-1], high[0]], dtype=float)
    # D(n) = log(P(n)/P(2n)) - (1/2) log 2 = I n (1 + o(1)): the n^-1/2 prefactor of P(n) cancels (Bahadur-Rao)
    quad = np.array([(exact_miss_log_probability(check_n, DELTA, DELTA / x) - exact_miss_log_probability(2 * check_n, DELTA, DELTA / x)
                      - 0.5 * math.log(2.0)) / check_n for x in probe])
    with aside():  # the closed form's independent confirmation; the claim's atom is the exponent
        v_id, info_id = identity_verdict(quad, miss_rate_exact(probe), rtol=0.02)
    s_hi = np.asarray(high, dtype=float)
    I_hi = miss_rate_exact(s_hi)
    g_hi = np.asarray(theory(snr=s_hi), dtype=float)
    verdict = combine([v, v_id])
    g_lo = np.asarray(theory(snr=s_lo), dtype=float)
    return result_for(
        ctx,
        Claim("Theorem 2 (line ~205): p_e(n_i) = 4k exp(-c n_i (1 ^ Delta^2/sigma^2)^2): the per-point exponent of a client's "
              "misclustering probability is at least c (1 ^ Delta^2/sigma^2)^2; tested against the exact large-deviation rate "
              "I(Delta/sigma) = (1/2) log(1 + Delta^2/(4 sigma^2)) of the nearest-model rule, by its exponent at low SNR.",
              r"p_e(n_i)=4k\,e^{-cn_i(1\wedge\Delta^2/\sigma^2)^2}\ \Leftrightarrow\ I(\Delta/\sigma)\gtrsim(1\wedge\Delta^2/\sigma^2)^2",
              "su2022, Theorem 2 (line ~205); Lemma 10", "I(Delta / sigma) gt.tilde (1 and Delta^2 / sigma^2)^2"),
        verdict,
        observed={"snr": s_lo, "exact_rate": I_lo, "quadrature_check": {"snr": probe, "rate_from_quadrature": quad,
                                                                         "closed_form": miss_rate_exact(probe), "n": check_n},
                  "high_snr": s_hi, "exact_rate_high": I_hi},
        predicted={"pe_exponent_shape": g_lo, "pe_exponent_high": g_hi, "exponent": fit["predicted_exponent"], "tolerance": tol},
        fit={"exponent": fit, "identity": info_id},
        explanation=verdict_words(
            verdict,
            f"The exact per-point misclustering rate falls as s^{fit['slope']:.2f} as the SNR s = Delta/sigma goes to 0 (closed "
            f"form, confirmed by quadrature within {info_id.get('max_rel_error', 0):.1e}), against p_e's s^"
            f"{fit['predicted_exponent']:.0f}: p_e's exponent holds, loose by a full square at low SNR (the rate is "
            f"(Delta/sigma)^2/8, p_e's (Delta/sigma)^4), and at high SNR the rate grows like log(Delta/sigma) "
            f"({I_hi[0]:.2f} to {I_hi[-1]:.2f}) where p_e's exponent stays at c.",
            f"The exact rate falls faster than p_e allows: exponent {fit['slope']:.2f} against {fit['predicted_exponent']:.2f}.",
            "The exponent or the quadrature check is not decided."),
        finding=remark("p_e's SNR dependence (1 ^ Delta^2/sigma^2)^2 is loose at low SNR: the exact large-deviation rate of the "
                       "nearest-model rule is (1/2) log(1 + Delta^2/(4 sigma^2)) ~ (Delta/sigma)^2/8."),
        figure=figspec.figure(figspec.panel(
            r"Per-point misclustering rate vs SNR", r"$\Delta/\sigma$", "rate per point",
            [figspec.line(r"exact $\frac{1}{2}\log(1+\Delta^2/(4\sigma^2))$", np.concatenate([s_lo, s_hi]), np.concatenate([I_lo, I_hi]), "observed"),
             figspec.line(r"$p_e$ shape $(1\wedge\Delta^2/\sigma^2)^2$, scaled to touch", np.concatenate([s_lo, s_hi]),
                          float(np.min(np.concatenate([I_lo / g_lo, I_hi / g_hi]))) * np.concatenate([g_lo, g_hi]), "bound")])),
    )


# -- x09: T' and its log(Delta/nu) under a change of units -----------------------------------------------------------------
def scaled_federation(fed, c: float):
    """The same federation in other units: theta*, sigma, y and zeta multiplied by c, features unchanged."""
    from verify.problems.mixed_regression import MixedRegression, MixtureModel

    mod = fed.model
    scaled = MixtureModel(mod.theta * c, mod.cov, mod.sigma * c, mod.p, mod.features)
    return MixedRegression(scaled, fed.sizes, fed.z, fed.X, fed.y * c, fed.zeta * c, fed.seg)


def rounds_units_exact() -> dict:
    """The printed T'(Delta) = (kappa/(s eta rho)) log(Delta/nu) under Delta -> c Delta (nu is a share, free of units):
    T'(c Delta) - T'(Delta) = (kappa/(s eta rho)) log c, unbounded in c and negative for c < nu/Delta (sympy); the unit-free
    repair log(rho Delta/(kappa sigma nu log(e/nu))) is invariant (Delta, sigma -> c Delta, c sigma)."""
    c, Dl, sg, nu_, K = sp.symbols("c Delta sigma nu K", positive=True)
    printed = K * sp.log(Dl / nu_)
    shift = sp.simplify(sp.expand_log(printed.subs(Dl, c * Dl) - printed, force=True))
    repaired = K * sp.log(S.rho * Dl / (S.kappa_s * sg * nu_ * sp.log(sp.E / nu_)))
    invariant = sp.simplify(sp.expand_log(repaired.subs({Dl: c * Dl, sg: c * sg}) - repaired, force=True))
    return {"printed_shift": str(shift), "repaired_shift": str(invariant), "negative_below": "c < nu/Delta"}


def renoised_federation(fed, sigma: float):
    """The same federation (features, labels z, centres) with the noise rescaled to level sigma: y = phi theta*_z +
    zeta."""
    from verify.problems.mixed_regression import MixedRegression, MixtureModel

    mod = fed.model
    f = float(sigma) / float(mod.sigma)
    renoised = MixtureModel(mod.theta, mod.cov, mod.sigma * f, mod.p, mod.features)
    return MixedRegression(renoised, fed.sizes, fed.z, fed.X,
                           fed.y - fed.zeta + fed.zeta * f, fed.zeta * f, fed.seg)


def _rounds_to_floor(fed, theta0, eta, rounds: int, factor: float):
    """Rounds until d(theta_t, theta*) <= factor x its value at ``rounds``, per replicate, and the final labels/nu."""
    tr = fedx_clustering(fed, theta0, eta, rounds, s=S_LOCAL, checkpoints=[rounds])
    err = numpy(tr.error)
    return np.argmax(err <= factor * err[-1][None], axis=0).astype(float), tr


@check("su2022.x09", "Theorem 3's T' = Theta((kappa/(s eta rho)) log(Delta/nu)) as printed: not invariant under a "
       "change of units, "
       "and flat in sigma/Delta where the rounds grow as log(Delta/sigma)",
       "erratum", "violated", statements=("Theorem 3",))
def x09_rounds_units(ctx: Context, *, theory: Bound = S.ROUNDS, scales=(1e-4, 1e-2, 1.0, 1e2), clients: int = 100, n: int = 20,
                     start: float = 0.2, rounds: int = 120, factor: float = 1.2, d: int = 5, k: int = 2,
                     sigma_ratios=(1e-1, 1e-2, 1e-3, 1e-4), sigma_rounds: int = 200) -> Result:
    """Theorem 3 (paper line ~285): Phase 2 runs T' = Theta((kappa/(s eta rho)) log(Delta/nu)) rounds. nu (eq. (10)) is a
    data share, free of units, and Delta is a distance, so log(Delta/nu) depends on the unit of length while Phase 2 does
    not: with theta*, sigma, the start and y multiplied by c (features unchanged) every round's labels (8) are the same and
    the update (11) is linear, so theta_t(c) = c theta_t and the rounds needed are the same at every c. The printed count
    moves by (kappa/(s eta rho)) log c and is negative for c < nu/Delta (:func:`rounds_units_exact`).

    Measured: the same federation (k = 2, d = 5, 100 clients of 20 points, sigma = 0.1 Delta, FedAvg s = 5, gamma = 0.5/s)
    in four units c; the rounds until d(theta_t, theta*) <= 1.2 x its last value, per replicate; the printed count with nu =
    nu_hat + sqrt(dk log k/M_eff) (C = 1) and its constant set by the unit c = 1 (needed/printed = 1 there). The claim
    'T'_needed <= C T'_printed' is violated wherever the printed count is negative.

    Unit-free witness (no change of units): Delta = 1 fixed and sigma/Delta in ``sigma_ratios`` (1e-1 down to 1e-4,
    allowed by the paper's sigma/Delta = O(1), line ~55), the same features, labels and start, ``sigma_rounds``
    rounds. The floor of (9) is proportional to sigma, so the rounds needed grow like (kappa/(s eta rho))
    log(Delta/sigma), while nu (eq. (10)) does not depend on sigma once no client is misclustered and the printed
    log(Delta/nu) stays constant. The constant of Theta is set at the largest sigma; 'T'_needed <= C T'_printed' at
    the smaller ones is the second part of the verdict."""
    R = ctx.reps(6, 20)
    base = federation(ctx, "clients", R, torch.full((clients,), n, dtype=torch.long), k=k, d=d)
    theta0 = perturbed_centres(ctx, "start", base.model.theta, start * DELTA)
    eta = base.eta_for_gamma(0.5 / S_LOCAL)
    needed, printed, labels = [], [], []
    kap = kappa(numpy(base.gamma(eta)), S_LOCAL)
    for c in scales:
        fed = scaled_federation(base, float(c))
        tr = fedx_clustering(fed, theta0 * c, eta, rounds, s=S_LOCAL, checkpoints=[rounds])
        err = numpy(tr.error) / c
        hit = err <= factor * err[-1][None]
        needed.append(np.argmax(hit, axis=0).astype(float))
        labels.append(numpy(tr.labels))
        nu = np.minimum(numpy(tr.misclustered).max(0) + S.nu_second_term(d, k, float(clients)), 1.0)
        printed.append(np.asarray(theory(kappa=kap, s=S_LOCAL, eta=numpy(eta), rho=numpy(base.rho), Delta=c * DELTA, nu=nu,
                                          sigma=c * base.model.sigma), dtype=float))
    needed, printed = np.stack(needed, 1), np.stack(printed, 1)  # [R, P]
    need_s, printed_s = [], []
    for ratio in sigma_ratios:  # Delta = 1 fixed, sigma/Delta swept: no change of units
        got, tr = _rounds_to_floor(renoised_federation(base, ratio * DELTA), theta0, eta, sigma_rounds, factor)
        need_s.append(got)
        nu = np.minimum(numpy(tr.misclustered).max(0) + S.nu_second_term(d, k, float(clients)), 1.0)
        t_p = theory(kappa=kap, s=S_LOCAL, eta=numpy(eta), rho=numpy(base.rho), Delta=DELTA, nu=nu, sigma=ratio * DELTA)
        printed_s.append(np.asarray(t_p, dtype=float) * np.ones(R))
    need_s, printed_s = np.stack(need_s, 1), np.stack(printed_s, 1)  # [R, len(sigma_ratios)]
    C_s = need_s[:, 0] / printed_s[:, 0]  # the constant of Theta set at the largest sigma/Delta, per replicate
    v_s, info_s = deterministic_verdict(need_s.mean(0)[1:], (C_s[:, None] * printed_s).mean(0)[1:], side="upper")
    per_decade = float(np.polyfit(np.log10(1.0 / np.asarray(sigma_ratios, dtype=float)), need_s.mean(0), 1)[0])
    same_labels = all(np.array_equal(labels[0], lab) for lab in labels[1:])
    spread = float(np.abs(needed - needed[:, [list(scales).index(1.0)]]).max())
    i1 = list(scales).index(1.0)
    C = needed[:, i1] / printed[:, i1]  # the constant of Theta set at c = 1, per replicate
    v_u, info_u = deterministic_verdict(needed.mean(0), (C[:, None] * printed).mean(0), side="upper")
    v, info = combine([v_u, v_s]), {"units": info_u, "sigma_over_Delta": info_s}
    ex = rounds_units_exact()
    neg = [float(c) for c, p in zip(scales, printed.mean(0)) if p < 0]
    return result_for(
        ctx,
        Claim("Theorem 3 (line ~285): Phase 2 with T' = Theta((kappa/(s eta rho)) log(Delta/nu)) rounds reaches (18); tested under "
              "a change of the unit of length (theta*, sigma, y scaled by c), which leaves Phase 2's rounds unchanged and moves "
              "the printed count by (kappa/(s eta rho)) log c.",
              r"T'=\Theta\Big(\frac{\kappa}{s\eta\rho}\log\frac{\Delta}{\nu}\Big)", "su2022, Theorem 3 (line ~285)",
              "T' = Theta(kappa / (s eta rho) log(Delta / nu))"),
        v,
        observed={"scales": list(scales), "rounds_needed_mean": needed.mean(0), "rounds_needed": needed,
                  "labels_identical_across_units": same_labels, "max_rounds_difference_across_units": spread,
                  "sigma_over_Delta": list(sigma_ratios), "rounds_needed_sigma_mean": need_s.mean(0),
                  "rounds_needed_per_decade_of_Delta_over_sigma": per_decade},
        predicted={"printed_T_prime_mean": printed.mean(0), "constant_at_unit_1": C, "printed_negative_at": neg,
                   "exact": ex,
                   "printed_T_prime_sigma_mean": printed_s.mean(0), "constant_at_largest_sigma": C_s},
        fit=info,
        explanation=verdict_words(
            v,
            "The printed count follows the rounds in every unit.",
            f"Phase 2 needs the same rounds in every unit ({needed.mean(0)[i1]:.1f} on average; labels identical across units: "
            f"{same_labels}, largest difference {spread:g} rounds), while the printed T' = (kappa/(s eta rho)) log(Delta/nu) "
            f"goes from {printed.mean(0)[0]:.0f} to {printed.mean(0)[-1]:.0f} and is negative at c = {neg}: no constant makes "
            "it a round count in every unit (log(Delta/nu) takes the logarithm of a length). Without any change of "
            "units, at "
            f"Delta = 1 and sigma/Delta = {', '.join(f'{r:g}' for r in sigma_ratios)} the rounds needed are "
            f"{', '.join(f'{x:.0f}' for x in need_s.mean(0))} ({per_decade:.0f} per decade of Delta/sigma) while the "
            "printed "
            f"count stays at {', '.join(f'{x:.1f}' for x in printed_s.mean(0))}.",
            "Not decided."),
        finding=erratum(
            "Theorem 3's T' = Theta((kappa/(s eta rho)) log(Delta/nu)) takes the logarithm of a length (nu is a share): it is "
            "negative when Delta < nu in the chosen unit, while Phase 2's rounds do not depend on the unit.",
            paper_says="Theorem 3 (line ~285): \"followed by Phase 2 with T' = Theta((kappa/(s eta rho)) log(Delta/nu)) iterations\"",
            correction="T' = Theta((kappa/(s eta rho)) log(rho Delta/(kappa sigma nu log(e/nu)))): the start radius (<= eps Delta) over "
                       "the floor (C_2/C_1)(sigma kappa/rho) nu log(e/nu) that unrolling (9) gives, a ratio of lengths.",
            witness=f"k = 2, d = 5, 100 clients of 20 points, sigma = 0.1 Delta, FedAvg s = 5: rounds needed {needed.mean(0)[i1]:.1f} "
                    f"in units c = {list(scales)} alike; printed count (C = 1 in nu) "
                    f"{', '.join(f'{p:.0f}' for p in printed.mean(0))}. "
                    f"Unit-free: Delta = 1, sigma/Delta = {', '.join(f'{r:g}' for r in sigma_ratios)} (line ~55 allows "
                    "any "
                    "sigma/Delta = O(1)), same clients and start: rounds needed "
                    f"{', '.join(f'{x:.0f}' for x in need_s.mean(0))} "
                    f"(+{per_decade:.0f} per decade of Delta/sigma), printed T' "
                    f"{', '.join(f'{x:.1f}' for x in printed_s.mean(0))} "
                    "(nu does not move with sigma once no client is misclustered): no constant fits both ends.",
            second_argument=f"Exact (sympy): T'(c Delta) - T'(Delta) = {ex['printed_shift']} with K = kappa/(s eta rho), negative "
                            f"total for {ex['negative_below']}; the repaired count shifts by {ex['repaired_shift']}. Phase 2 is "
                            "equivariant: labels (8) argmin_j ||c y_i - phi_i c theta_j|| are unit-free and the round (11) is linear "
                            "in (theta, y), so theta_t(c) = c theta_t and the rounds to any relative accuracy are the "
                            "same for every c. "
                            "Without units: unrolling (9), d(theta_t) <= r^t d(theta_0) + C_2 s eta sigma nu "
                            "log(e/nu)/(1 - r) "
                            "with 1 - r = C_1 s eta rho/kappa, so reaching a constant multiple of the floor from "
                            "d(theta_0) ~ Delta "
                            "takes (kappa/(C_1 s eta rho)) log(rho Delta/(kappa sigma nu log(e/nu))) rounds, which "
                            "grows without "
                            "bound as sigma/Delta -> 0 at fixed nu, Delta; log(Delta/nu) does not."),
        figure=figspec.figure(figspec.panel(
            "Rounds needed vs the printed T' across units", "unit scale c", "rounds",
            [figspec.observed("rounds needed", np.asarray(scales, dtype=float), needed, rng=ctx.numpy_rng("figure")),
             figspec.line(r"printed $C\,\frac{\kappa}{s\eta\rho}\log(\Delta/\nu)$", np.asarray(scales, dtype=float),
                          (C[:, None] * printed).mean(0), "bound")], xscale="log", yscale="linear")),
        arrays={"rounds_needed": needed, "printed": printed},
    )


# -- x10: Rademacher features ----------------------------------------------------------------------------------------------
@check("su2022.x10", "Theorems 1 and 3 with Rademacher features (sub-Gaussian, not Gaussian): anchors within 2 eps Delta/alpha, then convergence",
       "bound", "holds",
       no_control="the claim is the method's own convergence under a non-Gaussian sub-Gaussian feature law; the Gaussian runs "
                  "of x02, c28 are its reference, not a method without the property",
       statements=("Remark 1", "Theorem 1"))
def x10_rademacher(ctx: Context, *, theory: Bound = END_TO_END, threshold: float | None = None, m: int = 2500, T: int = 10,
                   clients: int = 150, tail: float = 2.0, rounds: int = 100, d: int = 5, k: int = 2) -> Result:
    """Theorems 1-3 assume only independent sub-Gaussian features with alpha I <= E[phi phi^T] <= beta I (Section 3); the
    paper's contrast with [LL18] (Remark 1, line ~145) is that its method of moments "only works under the Gaussian
    features", while this one uses only second moments and two points per client. Features with i.i.d. Rademacher entries
    (Sigma_j = I, alpha = beta = 1; docs/papers/su2022.md §1.6's non-Gaussian variant), k = 2, d = 5: Theorem 3's two-phase method from the
    six start families (Phase 1 with freezing and the first-moment sign, m = 2500, T = 10; Phase 2 FedAvg s = 5 on 150
    Pareto(2) clients, 100 rounds) must succeed in a share >= ``threshold`` (0.6 quick over 12 runs, 0.9 full over 50);
    Theorem 1 (4)'s proof radius 2 eps Delta/alpha (x02's repair) is reported for every anchor."""
    R = ctx.reps(12, 50)
    threshold = float(theory(threshold=ctx.pick(0.6, 0.9) if threshold is None else threshold))
    mod, fed, eta, theta0, res, ok, families = end_to_end(ctx, R, k=k, d=d, m=m, T=T, clients=clients, tail=tail, rounds=rounds,
                                                          features="rademacher")
    v, info = proportion_verdict(int(ok.sum()), R, threshold)
    radius = float(S.THM_1_PROOF(eps=EPS, Delta=DELTA, alpha=1.0))
    anchor_err = numpy(res.phase1.anchor_error)
    within = float((anchor_err.max(-1) <= radius).mean())
    final = numpy(res.phase2.error[-1])
    binary = bool(torch.all(fed.X.abs() == 1))
    assumptions = [Assumption("features are Rademacher (every entry +-1)", binary, None, "exact", "a non-Gaussian variant of the paper's Gaussian features")]
    verdict = apply_assumptions(v, assumptions)
    return result_for(
        ctx,
        Claim("Theorems 1 and 3 under sub-Gaussian, non-Gaussian features (i.i.d. Rademacher entries, Sigma_j = I): every anchor "
              "ends within 2 eps Delta/alpha (Theorem 1 (4) with the radius its proof gives) and the two-phase method converges from any start "
              "(Theorem 3); the paper contrasts this with [LL18]'s method of moments, which needs Gaussian features (line ~145).",
              r"\phi(x)\in\{\pm1\}^d:\ d(\hat\theta,\theta^*)\lesssim\frac{\sigma\kappa}{\rho}\nu\log\frac{e}{\nu}\ \text{from any }\|\theta_0\|\le R",
              "su2022, Theorems 1 and 3; Section 3 (sub-Gaussian features); Remark 1 (line ~145)",
              "phi(x) in {plus.minus 1}^d: d(hat(theta), theta^*) lt.tilde (sigma kappa) / rho nu log(e / nu)"),
        verdict,
        observed={"successes": int(ok.sum()), "runs": R, "anchors_within_proof_radius_share": within,
                  "phase1_distance": numpy(res.phase1.distance), "final_error_median": float(np.median(final)),
                  "phase1_k_groups": float(numpy(res.phase1_ok).mean()), "m": m, "T": T, "families": families},
        predicted={"threshold_share": threshold, "proof_radius": radius},
        fit=info,
        assumptions=assumptions,
        explanation=verdict_words(
            verdict,
            f"With Rademacher features the two-phase method succeeds in {int(ok.sum())} of {R} runs over six start families (CI "
            f"{info['ci'][0]:.2f} to {info['ci'][1]:.2f}; median final error {np.median(final):.3f} Delta), and every anchor ends "
            f"within 2 eps Delta/alpha = {radius:.1f} Delta in {within:.0%} of the runs: only second moments and two points per "
            "client enter, as the paper says.",
            f"With Rademacher features the two-phase method succeeds in only {int(ok.sum())} of {R} runs.",
            f"{int(ok.sum())} of {R} runs succeed: not decided."),
        figure=figspec.figure(figspec.panel(
            "Rademacher features: Phase 1 output and final error", "run", r"distance / $\Delta$",
            [figspec.line(r"Phase 1 $d(\hat\theta,\theta^*)$", np.arange(1, R + 1), numpy(res.phase1.distance), "observed"),
             figspec.line("final error (two-phase)", np.arange(1, R + 1), final, "observed"),
             figspec.line(r"$2\epsilon\Delta/\alpha$", np.arange(1, R + 1), radius, "bound")], xscale="linear", yscale="linear")),
        arrays={"success": ok, "anchor_error": anchor_err, "final_error": final},
    )


# -- x11: the literal sigma_hat of line 13 (E3) ------------------------------------------------------------------------------
def literal_stop_witness(eps=sp.Rational(1, 10)) -> dict:
    """Noise-free Phase 1 with Sigma = I (alpha = beta = 1) under the literal reading sigma_hat^2 = lambda_1(A A^T) =
    ||e||^4: sigma_hat = ||e||^2, the step alpha sigma_hat/(2 beta^2) = ||e||^2/2 along e, so x -> x - x^2/2 (x = ||e||/Delta,
    Delta = 1), and the anchor stops at the first x with x^2 <= eps. x - x^2/2 increases on (0, 1), so an anchor that moves
    stops at x >= sqrt(eps) - eps/2 (exact, sympy), above the proof's radius 2 eps/alpha = 2 eps for eps = 1/10."""
    stop_low = sp.sqrt(eps) - eps / 2
    return {"stop_at_least": stop_low, "stop_at_least_float": float(stop_low), "stop_at_most": sp.sqrt(eps),
            "proof_radius": 2 * eps, "literal_stops_outside_radius": bool(stop_low > 2 * eps)}


@check("su2022.x11", "Ambiguity of line 13 (not an erratum): sigma_hat^2 read as lambda_1(A A^T) would stop "
       "anchors outside "
       "2 eps Delta/alpha; the reading of the text and proof does not",
       "counterexample", "reproduced",
       no_control="the counterexample is itself the comparison: the literal reading against the proof's on the same data",
       statements=("Section 4.1",))
def x11_literal_sigma_hat(ctx: Context, *, literal: str = "eigen", repaired: str = "rayleigh", m: int = 5000, T: int = 8,
                          share: float = 0.75, d: int = 5, k: int = 2) -> Result:
    """Phase 1, line 13 (paper line ~93): "Each anchor client i calls power-iteration(A_{i,t} A_{i,t}^T, T2) to output
    (beta_hat_{i,t}, sigma_hat^2_{i,t})", and the text (line ~115) calls them "approximations of the leading left singular
    vector and singular value of A_{i,t}". Power iteration on A A^T naturally returns its leading eigenvalue, sigma_1(A)^2 ~
    ||Sigma e||^4 (``literal = "eigen"``); the proof needs sigma_hat ~ ||Sigma e|| (``repaired = "rayleigh"``: max(beta^T A
    beta, 0), docs/papers/su2022.md E3). Same instances and data for both (k = 2, d = 5, Sigma = I, the six start families, one anchor per
    cluster and family, freezing and the first-moment sign, m = 5000, T = 8). A run succeeds when every anchor ends within
    Theorem 1's proof radius 2 eps Delta/alpha (x02).

    The text and the proof exclude the literal reading: line ~115 calls sigma_hat^2 an approximation of "the leading
    singular value of A_{i,t}", and the proof of Proposition 2 (line ~598) sets sigma_hat^2 = beta_hat^T U_hat^T A U_hat
    beta_hat, a Rayleigh quotient of A. So this is a remark on the listing's ambiguity, not an error of the paper: the
    counterexample it reproduces is against a reading of the listing that the paper rules out elsewhere.

    Reproduced when the literal reading fails in a share >= 1 - ``share`` of the runs (Clopper-Pearson) and the repaired one
    succeeds in a share >= ``share``. Exact: without noise the literal reading stops a moving anchor at ||e|| >= (sqrt(eps) -
    eps/2) Delta = 0.266 Delta > 0.2 Delta (:func:`literal_stop_witness`)."""
    from verify.algorithms.moment_descent import fedmd
    from verify.fit import counterexample_verdict

    R = ctx.reps(16, 40)
    mod = model(ctx, "model", R, k=k, d=d)
    gen = ctx.generator("run")
    F = len(FAMILIES)
    theta0 = torch.stack([initial_points(mod, f, gen) for f in FAMILIES], 1)
    theta0 = theta0[:, :, None, :].expand(R, F, k, d).reshape(R, F * k, d).contiguous()
    labels = torch.arange(k, device=ctx.torch_device).repeat(F)[None].expand(R, F * k).contiguous()
    seed = int(torch.randint(0, 2**62, (1,), generator=gen, device=gen.device))
    radius = float(S.THM_1_PROOF(eps=EPS, Delta=DELTA, alpha=1.0))
    out = {}
    for rule in (literal, repaired):
        g = torch.Generator(device=gen.device).manual_seed(seed)  # the same fresh clients and anchor points for both readings
        tr = fedmd(mod, theta0, labels, FedMDConfig(m=m, eps=EPS, T=T, sigma_rule=rule), g)
        err = numpy(tr.anchor_error).reshape(R, F, k)
        out[rule] = {"ok": (err <= radius).all(-1), "error": err}
    n = R * F
    k_lit, k_rep = int(out[literal]["ok"].sum()), int(out[repaired]["ok"].sum())
    v_fail, info_fail = proportion_verdict(n - k_lit, n, 1 - share)  # the literal reading fails often
    v_rep, info_rep = proportion_verdict(k_rep, n, share)  # the proof's reading succeeds
    verdict = counterexample_verdict(v_fail, v_rep)
    ex = literal_stop_witness(sp.nsimplify(EPS))
    med = {rule: float(np.median(o["error"])) for rule, o in out.items()}
    return result_for(
        ctx,
        Claim("Phase 1, line 13 (paper line ~93): power-iteration(A A^T, T2) outputs (beta_hat, sigma_hat^2), sigma_hat^2 'the "
              "leading singular value of A' (line ~115); an ambiguity of the listing, not an error: read as the "
              "leading "
              "eigenvalue of A A^T (sigma_1(A)^2 ~ ||Sigma e||^4) the anchors stop outside Theorem 1's radius 2 eps "
              "Delta/alpha, read as the proof uses it "
              "(sigma_hat ~ ||Sigma e||) they do not.",
              r"\hat\sigma^2=\lambda_1(AA^\top)\approx\|\Sigma e\|^4\ \text{vs}\ \hat\sigma^2=\hat\beta^\top A\hat\beta\approx\|\Sigma e\|^2",
              "su2022, Phase 1 line 13 (paper line ~93) and line ~115; proof of Proposition 2",
              "hat(sigma)^2 = lambda_1(A A^T) approx norm(Sigma e)^4 \"vs\" hat(beta)^T A hat(beta) approx norm(Sigma e)^2"),
        verdict,
        observed={"runs": n, "literal_successes": k_lit, "repaired_successes": k_rep, "median_anchor_error": med,
                  "literal_rule": literal, "repaired_rule": repaired, "m": m, "T": T},
        predicted={"proof_radius": radius, "share": share, "literal_stop_exact": {key: str(v) for key, v in ex.items()}},
        fit={"literal_failure": info_fail, "repaired_success": info_rep},
        explanation=verdict_words(
            verdict,
            f"Read literally (sigma_hat^2 = lambda_1(A A^T)), every anchor ends within 2 eps Delta/alpha = {radius:.1f} Delta in only "
            f"{k_lit} of {n} runs (median anchor error {med[literal]:.3f} Delta: the stop test sigma_hat = ||Sigma e||^2 <= eps Delta "
            f"fires at ||e|| about sqrt(eps Delta), and noise-free at >= {ex['stop_at_least_float']:.3f} Delta, exact); read as the "
            f"proof uses it, in {k_rep} of {n} (median {med[repaired]:.3f} Delta) on the same data.",
            f"The literal reading fails in {n - k_lit} of {n} runs and the proof's reading succeeds in {k_rep}: the difference "
            "is not reproduced.",
            "Not decided."),
        finding=remark("Not an erratum: an ambiguity of the listing. Line 13's 'power-iteration(A A^T)' naturally "
                       "returns "
                       "the leading eigenvalue of A A^T, the square of what the proof needs; so read, Phase 1 would "
                       "stop "
                       f"anchors at ||e|| ~ sqrt(eps Delta) ({k_lit} of {n} runs within 2 eps Delta/alpha, against "
                       f"{k_rep} "
                       "with sigma_hat^2 = beta^T A beta on the same data). The text (line ~115: 'the leading singular "
                       "value "
                       "of A') and the proof of Proposition 2 (line ~598: sigma_hat^2 = beta_hat^T U_hat^T A U_hat "
                       "beta_hat) "
                       "exclude that reading; fedverify runs theirs.") if verdict.passed else None,
        figure=figspec.figure(figspec.panel(
            "Anchor errors: literal vs proof reading of sigma_hat", "run (replicate x start family)", r"max anchor error / $\Delta$",
            [figspec.line(r"literal $\lambda_1(AA^\top)$", np.arange(1, n + 1), out[literal]["error"].max(-1).reshape(-1), "observed"),
             figspec.line(r"proof $\hat\beta^\top A\hat\beta$", np.arange(1, n + 1), out[repaired]["error"].max(-1).reshape(-1), "observed"),
             figspec.line(r"$2\epsilon\Delta/\alpha$", np.arange(1, n + 1), radius, "bound")], xscale="linear", yscale="linear")),
        arrays={"literal_error": out[literal]["error"], "repaired_error": out[repaired]["error"]},
    )


# -- x12: ell (and T2) free of d -------------------------------------------------------------------------------------------
def power_steps_needed(A: torch.Tensor, v0: torch.Tensor, tol: float = 1e-6, cap: int = 200) -> np.ndarray:
    """Per matrix, the power-iteration steps on A A^T (line 13) until the iterate is within angle ``tol`` of A's leading left
    singular vector (``cap + 1`` if never): the T2 that the anchor's k x k problem needs."""
    U = torch.linalg.svd(A).U[..., 0]
    v = v0 / torch.linalg.vector_norm(v0, dim=-1, keepdim=True)
    AAt = A @ A.transpose(-1, -2)
    need = torch.full(v.shape[:-1], cap + 1, dtype=torch.long, device=v.device)
    for t in range(1, cap + 1):
        v = (AAt @ v[..., None])[..., 0]
        v = v / torch.linalg.vector_norm(v, dim=-1, keepdim=True)
        sin = (1 - (v * U).sum(-1) ** 2).clamp(min=0).sqrt()
        need = torch.where((sin <= tol) & (need > cap), torch.full_like(need, t), need)
    return numpy(need)


@check("su2022.x12", "Theorem 1 (3): the anchor's ell = Omega~(k) does not grow with d (nor does the T2 its k x k power iteration needs)",
       "rate", "holds",
       no_control="the claim is Phase 1's own requirement and its independence of d; no method without the projection is "
                  "compared in the paper", statements=("Theorem 1", "Section 4.1"))
def x12_ell_free_of_d(ctx: Context, *, theory: Bound = S.ELL_FREE_OF_D, ds=(5, 10, 20, 40), k: int = 2, anchors: int = 8,
                      ell_grid=(4, 8, 16, 32, 64, 128), ell_T2: int = 100, tol: float = 0.25) -> Result:
    """Theorem 1 (3) (paper line ~123): ell = Omega~(k) (polylog factors in N only), and Section 4.1 (line ~111): projecting
    the anchor's residuals onto U_hat "reduces the estimation from d-dimension to k-dimension and hence Omega~(k) local data
    points suffice". c15 measures ell_req against k; here against d (5 to 40) at k = 2, with the exact residual subspace
    (m = infinity isolates ell; c15's trial: an anchor at the success radius 2 eps Delta/alpha whose step must not stop and
    must bring it closer). Rate test: ell_req's slope in d at most the claim's 0 + tol (0.25).

    Beside it, T2 = Omega(log(Nd)) (line ~123): the power-iteration steps on A A^T (k x k) that reach A's leading singular
    vector within angle 1e-6 (``power_steps_needed``), at ell = 100, reported with their slope in d: A's law does not depend
    on d (Gaussian features: U^T eps is a k-dimensional statistic), so neither does T2's need."""
    from verify.algorithms.moment_descent import expected_moment
    from verify.checks.su2022.phase1 import _around, _ell_need
    from verify.fit import rate_verdict, slope_fit

    R = max(1, ctx.reps(192, 640) // anchors)
    need = np.stack([_ell_need(ctx, f"d={d}", R, anchors, k=k, ell_grid=ell_grid, d=int(d)) for d in ds], 1)  # [T, P]
    ds_ = np.asarray(ds, dtype=float)
    v, fit = rate_verdict(ds_, need, theory, param="d", values={"k": k}, tol=tol, rng=ctx.numpy_rng("bootstrap"))
    censored = float((need > ell_grid[-1]).mean())
    T2 = []
    for d in ds:
        mod = model(ctx, f"T2/d={d}", R, k=k, d=int(d))
        gen = ctx.generator(f"T2/d={d}/run")
        labels = mod.labels(anchors, gen)
        theta = _around(mod, labels, [2 * EPS * DELTA] * anchors, gen)
        U = torch.linalg.eigh(expected_moment(mod, theta)).eigenvectors[..., -k:]
        X, y, _ = mod.points(labels, 2 * ell_T2, gen)
        pe = ((y - (X @ theta[..., None])[..., 0])[..., None] * X) @ U
        A = pe[:, :, :ell_T2].transpose(-1, -2) @ pe[:, :, ell_T2:] / ell_T2
        T2.append(power_steps_needed(A, randn(R, anchors, k, generator=gen, dtype=A.dtype, device=gen.device)).reshape(-1))
    T2 = np.stack(T2, 1).astype(float)
    with aside():
        f2 = slope_fit(ds_, T2, rng=ctx.numpy_rng("bootstrap/T2"))
    assumptions = [Assumption("trials resolved within the ell grid (censored share <= 5%)", censored <= 0.05, censored, "exact",
                              f"ell up to {ell_grid[-1]}")]
    verdict = apply_assumptions(v, assumptions)
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        Claim("Theorem 1, eq. (3) (line ~123): ell = Omega~(k) fresh anchor pairs per iteration, with no d: the projection onto "
              "U_hat reduces the anchor's problem from d to k dimensions (line ~111); and T2 = Omega(log(Nd)) power iterations.",
              r"\ell=\tilde\Omega(k)\ \text{(free of }d),\quad T_2=\Omega(\log(Nd))", "su2022, Theorem 1, eq. (3); Section 4.1",
              "ell = tilde(Omega)(k) \"(free of d)\", T_2 = Omega(log(N d))"),
        verdict,
        observed={"d": ds_, "mean_ell_need": need.mean(0), "ell_req_95": np.quantile(need, 0.95, axis=0),
                  "T2_need_mean": T2.mean(0), "T2_need_max": T2.max(0), "T2_slope_in_d": f2.slope, "T2_slope_ci": [f2.lo, f2.hi],
                  "trials_per_point": need.shape[0], "censored_share": censored, "k": k},
        predicted={"exponent_d": fit["predicted_exponent"], "tolerance": tol, "log_Nd_at_N_1e5": np.log(1e5 * ds_)},
        fit={"ell": fit},
        assumptions=assumptions,
        explanation=verdict_words(
            verdict,
            f"The anchor pairs needed do not grow with d: slope {fit['slope']:.2f} (CI {fit['slope_ci'][0]:.2f} to "
            f"{fit['slope_ci'][1]:.2f}) for d from {ds[0]} to {ds[-1]} (mean need {need.mean(0).round(1).tolist()}), and the "
            f"power iteration needs {T2.mean(0).round(1).tolist()} steps on average (slope {f2.slope:.2f} in d), below "
            f"log(Nd) ~ {np.log(1e5 * ds_[0]):.0f}-{np.log(1e5 * ds_[-1]):.0f} at N = 10^5: the anchor's problem is k-dimensional.",
            f"ell_req grows with d: slope {fit['slope']:.2f} (CI {fit['slope_ci'][0]:.2f} to {fit['slope_ci'][1]:.2f}).",
            f"The slope in d ({fit['slope']:.2f}) is not resolved, or too many trials were censored."),
        figure=figspec.figure(figspec.panel("Anchor pairs needed vs d (exact subspace, k = 2)", "d", r"$\ell_{\mathrm{req}}$",
                                            [figspec.observed("trial-wise need", ds_, need, rng=fig),
                                             figspec.line("free of d", ds_, need.mean(0)[0], "bound")])),
        arrays={"ell_need": need, "T2_need": T2},
    )
