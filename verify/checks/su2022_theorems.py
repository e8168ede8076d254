"""su2022 checks x05-x: the statements of Theorems 1-3 that a reader comes for and no earlier check covers (issue 18).

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
from verify.checks.su2022_common import DELTA, EPS, claim, exponent_verdict, federation, model, numpy, perturbed_centres, verdict_words
from verify.checks.su2022_phase1 import initial_points
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    combine,
    controlled,
    deterministic_verdict,
    proportion_ci,
    proportion_verdict,
)
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
    At theta = theta* (a = 0) this is (1 + ||b||^2/(4 sigma^2))^(-1/2) (spec section 3.3). Returns [R, k, k] (the
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


@check("su2022.x05", "Theorems 2-3 per client: each client's estimate is within the bound w.p. 1 - p_e(n_i), along the runs (E12, E18)",
       "bound", "holds",
       no_control="the claim is the failure probability of the nearest-model assignment along the method's own runs; no "
                  "method without the property is compared, and the fresh-data (fixed theta) probability is its reference")
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
              "p_e(n_i) = 4k exp(-c n_i (1 ^ Delta^2/sigma^2)^2), ||theta_hat_{i,t} - theta*_{z_i}|| <~ Delta exp(-C1 s eta rho "
              "(t - T)/kappa) + (sigma kappa/rho) nu log(e/nu); tested as the share of clients of size n whose error exceeds "
              "Delta/2 (misclustered) against p_e in its exponential (Chernoff) form at the realised theta, at t = T + 1 and at "
              "t = T + T' (data-dependent theta, E18).",
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
            f"proof applies Lemma 10 at (E18), and falls exponentially in n_i (c implied by chi about {late['implied_c'][0]:.2f}). "
            f"The text's reading of theta_hat_{{i,t}} (the local update, E12) fails for the same clients"
            + (" in every case." if same_reading else " up to a few cases."),
            f"Some client size fails more often than p_e allows: worst ratio {ratio(late):.2f} at t = T + T', {ratio(early):.2f} at "
            "t = T + 1.",
            "The failure shares cannot be placed against the bound, or d(theta_t, theta*) exceeded Delta/4."),
        finding=remark(f"E18: at t = T + T' theta depends on every client's data, which Lemma 10 (fixed theta) does not cover; "
                       f"measured, the failure shares there ({', '.join(f'{v:.3f}' for v in late['failure_share'])}) stay under the "
                       f"fixed-theta Chernoff bound at the same theta (worst ratio {ratio(late):.2f}), as at t = T + 1 "
                       f"({ratio(early):.2f}): the gap is one of proof, not of the statement. E12: the local-update reading "
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


@check("su2022.x06", "Theorem 2 (9) per round: d_t <= (1 - C1 s eta rho/kappa) d_{t-1} + C2 s eta sigma nu log(e/nu), floor linear in sigma",
       "bound", "holds")
def x06_per_round(ctx: Context, *, theory: Bound = S.FLOOR_9, sigmas=(0.025, 0.05, 0.1, 0.2), clients: int = 100, n: int = 20,
                  start: float = 0.2, rounds: int = 150, d: int = 5, k: int = 2, tol: float = 0.1) -> Result:
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
    wrong = numpy(tr.wrong_data).max(0)
    transient = dist[1:] > 2 * dist[-1][None]  # rounds still far above the plateau
    assumptions = [Assumption("every run needs a positive additive term (it reached its plateau)", positive, float(F.min()), "exact",
                              f"{rounds} rounds"),
                   Assumption("labels right at the end (the plateau is the least squares on the true partition)",
                              bool((numpy(tr.wrong_data[-1]) == 0).all()), float(wrong.max()), "exact", "")]
    verdict = apply_assumptions(controlled(v, v_ctl), assumptions)
    floor = np.asarray(theory(s=S_LOCAL, eta=eta_m, sigma=np.asarray(sigmas, dtype=float), nu=nu), dtype=float)
    C2 = (F / floor[None]).max(0)
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(theory, r"d(\theta_t,\theta^*)\le(1-C_1s\eta\rho/\kappa)\,d(\theta_{t-1},\theta^*)+C_2s\eta\sigma\nu\log\frac{e}{\nu}",
              text="Theorem 2, eq. (9) (line ~199): for all t >= T + 1 and every theta_T with d(theta_T, theta*) <= eps Delta, "
                   "d(theta_t, theta*) <= (1 - C1 s eta rho/kappa) d(theta_{t-1}, theta*) + C2 s eta sigma nu log(e/nu); tested with "
                   "the exact contraction r = max_j ||I - eta K_j|| as (1 - C1 s eta rho/kappa): the additive term every round "
                   "needs, F = max_t (d_t - r d_{t-1}), is linear in sigma as the floor is."),
        verdict,
        observed={"sigma": list(sigmas), "additive_term_needed": F.mean(0), "additive_term_per_run": F, "sharp_rate": r.reshape(R, P).mean(0),
                  "implied_C1": c1.mean(0), "implied_C2_max": C2, "nu": nu, "nu_hat": nu_hat,
                  "rounds_with_positive_excess_share": float((excess > 0).mean()),
                  "transient_rounds_with_positive_excess_share": float((excess[transient] > 0).mean()) if transient.any() else 0.0,
                  "rounds": rounds, "clients": clients, "n": n},
        predicted={"floor_shape": floor, "exponent": fit["predicted_exponent"], "tolerance": tol},
        fit=fit,
        control={"what": "(9) without its additive floor (C2 = 0): d_t <= r d_{t-1} every round", "verdict": v_ctl.value,
                 "detail": f"{info_ctl['violations']} of {info_ctl['count']} rounds exceed r d_(t-1) (worst ratio "
                           f"{info_ctl['worst_ratio']:.4f})"},
        explanation=verdict_words(
            verdict,
            f"With the exact contraction r = max_j ||I - eta K_j|| (mean {r.mean():.4f}; C1 = (1 - r) kappa/(s eta rho) about "
            f"{c1.mean():.2f}), the additive term the runs need every round grows with sigma with exponent {fit['slope']:.3f} "
            f"(CI {fit['slope_ci'][0]:.3f} to {fit['slope_ci'][1]:.3f}) against (9)'s {fit['predicted_exponent']:.3f}: "
            f"(9) holds round by round with C2 up to {C2.max():.3g} (nu with C = 1). Without the floor (C2 = 0) the inequality "
            f"fails in {info_ctl['violations']} of {info_ctl['count']} rounds (the plateau): the floor is needed; during the "
            f"transient the distance contracts at least at r (positive excess in "
            f"{float((excess[transient] > 0).mean()) if transient.any() else 0.0:.0%} of those rounds).",
            f"The needed additive term does not follow (9)'s floor: exponent {fit['slope']:.3f} in sigma against "
            f"{fit['predicted_exponent']:.3f}.",
            "The exponent is not resolved, a run had not reached its plateau, or the control did not fail."),
        figure=figspec.figure(figspec.panel(
            r"Additive term needed by (9) vs $\sigma$", r"$\sigma/\Delta$", r"$\max_t\,(d_t-r\,d_{t-1})$",
            [figspec.observed("measured", np.asarray(sigmas), F, rng=fig),
             figspec.line(r"$C_2 s\eta\sigma\nu\log(e/\nu)$, $C_2$ = max needed", np.asarray(sigmas), C2.max() * floor, "bound")])),
        arrays={"additive_term": F, "distance": dist},
    )
