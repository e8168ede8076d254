"""su2022 checks c12-c17, x02, x03: Phase 1 (federated moment descent), Theorem 1 and Proposition 2 (21).

docs/papers/su2022.md §6 B (C12-C17), errors E1, E5-E7, E9, E11. The printed statements come first: c13 tests
Theorem 1 (4)'s eps Delta with Phase 1 run as the listing prints it (re-test every iteration), c14 tests
(5)'s 1 - O(N^-9); the repaired statements are x02 (2 eps Delta/alpha) and x03 (k groups, union bound).
Elsewhere Phase 1 runs as the proof needs it (fresh clients S_t every iteration, Algorithm 3 for the
subspace, fresh anchor points, the stop test), with the sign of beta_hat fixed by the first moment (E1;
c17 ablates it) and anchors frozen once they stop (E6). Quick fidelity uses k = 2, d = 5, m = 10^4; full
fidelity k = 3, d = 10 (verify.checks.su2022.common).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.papers import su2022 as S
from verify import figspec
from verify.algorithms.moment_descent import FedMDConfig, anchor_update, expected_moment, fedmd, nested_residual_moments
from verify.algorithms.orthogonal_iteration import orthogonal_iteration, random_orthonormal
from verify.checks.su2022.common import (DELTA, EPS, claim, exponent_verdict, model, numpy, phase1_config, phase1_setting,
                                         proportion_band, quantile_verdict, verdict_words)
from verify.checks.su2022.subspace import _around
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    combine,
    counterexample_verdict,
    deterministic_verdict,
    power_law,
    proportion_verdict,
    rate_verdict,
)
from verify.normal_draws import randn
from verify.registry import check, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

INIT_FAMILIES = ("zero", "uniform in the R-ball", "theta*_1", "midpoint of theta*_1, theta*_2", "-R theta*_1/||theta*_1||",
                 "random on the R-sphere")


def initial_points(mod, family: str, generator: torch.Generator) -> torch.Tensor:
    """theta_0 ``[R, d]`` of one initialisation family of Claim 13 (R = max_j ||theta*_j||)."""
    R, d = mod.R, mod.d
    radius = mod.radius[:, None]
    u = randn(R, d, generator=generator, dtype=mod.theta.dtype, device=mod.theta.device)
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    if family == "zero":
        return torch.zeros(R, d, dtype=mod.theta.dtype, device=mod.theta.device)
    if family == "uniform in the R-ball":
        r = torch.rand(R, 1, generator=generator, dtype=u.dtype, device=u.device) ** (1.0 / d)
        return u * r * radius
    if family == "theta*_1":
        return mod.theta[:, 0].clone()
    if family == "midpoint of theta*_1, theta*_2":
        return (mod.theta[:, 0] + mod.theta[:, 1]) / 2
    if family == "-R theta*_1/||theta*_1||":
        t1 = mod.theta[:, 0]
        return -radius * t1 / torch.linalg.vector_norm(t1, dim=-1, keepdim=True)
    return u * radius


def _coverage(p: list, n_H: int):
    """P(n_H i.i.d. Cat(p) labels hit every cluster) by inclusion-exclusion over the missed clusters, in the
    arithmetic of p's entries (floats, or Fractions for an exact value)."""
    import itertools

    return sum((-1) ** size * (1 - sum(p[j] for j in missed)) ** n_H
               for size in range(len(p) + 1) for missed in itertools.combinations(range(len(p)), size))


def coverage_probability(p, n_H: int) -> float:
    """P(n_H i.i.d. Cat(p) labels hit every cluster), exactly up to float rounding (:func:`_coverage`)."""
    return float(_coverage([float(v) for v in np.asarray(p, dtype=float)], n_H))


def _phase1_success(tr, alpha: torch.Tensor, eps: float) -> torch.Tensor:
    """Theorem 1 (5) as the proof gives it: k groups and d(theta_hat, theta*) <= 2 eps Delta / alpha, ``[R]``."""
    return torch.isfinite(tr.distance) & (tr.distance <= 2 * eps * DELTA / alpha)


@check("su2022.c12", "Proposition 2 (21): one Phase-1 step contracts ||Sigma(theta* - theta)||^2 by 1 - alpha^2/(8 beta^2)",
       "bound", "holds", no_control="the contraction factor (21) of one step is what is tested against the paper's constant; "
                                     "a step without the property is not a baseline the paper compares with",
       statements=("Proposition 2",))
def c12_contraction(ctx: Context, *, theory: Bound = S.PROP_2_21, threshold: float = 0.99, anchors: int = 36,
                    g_range=(0.3, 1.5)) -> Result:
    """Claim 12: for anchors with g_t = ||Sigma_z(theta*_z - theta_t)|| >= 3 eps Delta (the proxy for (20)),
    g_{t+1}^2 / g_t^2 <= 1 - alpha^2/(8 beta^2) in >= 99% of steps; Sigma_j = I and heterogeneous Sigma_j
    (alpha = 0.5, beta = 1.5). One Phase-1 iteration from anchors spread over g in g_range."""
    R = ctx.reps(12, 48)
    setting = phase1_setting(ctx)
    rows, ok_total, n_total, ratios_all, over = [], 0, 0, {}, []
    for cov in ("identity", "heterogeneous"):
        mod = model(ctx, f"model/{cov}", R, k=setting["k"], d=setting["d"], covariance=cov, centres=setting["centres"])
        gen = ctx.generator(f"run/{cov}")
        labels = mod.labels(anchors, gen)
        dist = torch.linspace(g_range[0], g_range[1], anchors, dtype=ctx.dtype)
        theta = _around(mod, labels, dist, gen)
        tr = fedmd(mod, theta, labels, phase1_config(ctx, T=1), gen)
        g0, g1 = tr.residual[0], tr.residual[1]
        valid = g0 >= 3 * EPS * DELTA
        ratio = (g1 / g0) ** 2
        limit = torch.as_tensor(np.broadcast_to(theory(alpha=numpy(mod.alpha), beta=numpy(mod.beta)), (R,)).copy(),
                                dtype=ctx.dtype, device=ctx.torch_device)
        ok = (ratio <= limit[:, None]) & valid
        ok_total, n_total = ok_total + int(ok.sum()), n_total + int(valid.sum())
        r = numpy(ratio[valid])
        ratios_all[cov] = r
        over.append(numpy((ratio / limit[:, None])[valid]))
        lam = numpy(mod.cov)
        ideal = float(np.max((1 - numpy(mod.alpha)[:, None, None] * lam / (2 * numpy(mod.beta)[:, None, None] ** 2)) ** 2))
        rows.append({"covariance": cov, "alpha": float(mod.alpha.min()), "beta": float(mod.beta.max()), "steps": int(valid.sum()),
                     "within": int(ok.sum()), "median_ratio": float(np.median(r)), "max_ratio": float(r.max()),
                     "bound": float(limit.max()), "idealised_max": ideal})
    with aside():  # the same claim as a share, reported; the verdict reads the quantile, which the theory drives
        _, info = proportion_verdict(ok_total, n_total, threshold)
    verdict, qinfo = quantile_verdict(np.concatenate(over), threshold)
    info["quantile_of_ratio_over_bound"] = qinfo
    panels = [figspec.panel(f"Sigma = {row['covariance']}", "step # (sorted)", r"$g_{t+1}^2/g_t^2$",
                            [figspec.observed("measured ratio", np.arange(1, len(ratios_all[row['covariance']]) + 1),
                                              np.sort(ratios_all[row['covariance']])[None]),
                             figspec.line(r"$1-\alpha^2/(8\beta^2)$", np.arange(1, len(ratios_all[row['covariance']]) + 1),
                                          row["bound"], "bound")], xscale="linear", yscale="linear") for row in rows]
    return result_for(
        ctx,
        claim(theory, r"\|\Sigma_z(\theta^*_z-\theta_{t+1})\|^2\le\Big(1-\frac{\alpha^2}{8\beta^2}\Big)\|\Sigma_z(\theta^*_z-\theta_t)\|^2"),
        verdict,
        observed={"rows": rows, "within": ok_total, "steps": n_total, "instance": setting},
        predicted={"threshold_share": threshold},
        fit=info,
        explanation=verdict_words(
            verdict,
            f"{ok_total} of {n_total} steps from g_t >= 3 eps Delta contract by at least 1 - alpha^2/(8 beta^2) (share CI "
            f"{info['ci'][0]:.3f} to {info['ci'][1]:.3f}; the 99% quantile of the ratio over the bound is "
            f"{qinfo['estimate']:.3f}, CI {qinfo['ci'][0]:.3f} to {qinfo['ci'][1]:.3f}). The median ratio is {rows[0]['median_ratio']:.2f} for Sigma = I "
            f"(idealised 0.25) and {rows[1]['median_ratio']:.2f} for heterogeneous Sigma: the proof's factor is far from tight.",
            f"Only {ok_total} of {n_total} steps contract as (21) states.",
            f"{ok_total} of {n_total} steps contract; the share cannot be placed against 99% at this sample size."),
        figure=figspec.figure(*panels),
        arrays={f"ratio_{k}": v for k, v in ratios_all.items()},
    )


def idealised_stop_witness(eps=Fraction(1, 10), a=Fraction(1, 2), b=Fraction(3, 2)) -> dict:
    """Exact (rational) Phase 1 without sampling noise on the smallest alpha < 1 instance: k = 2, d = 2, theta*_1 = (1/2, 0),
    theta*_2 = (-1/2, 0) (Delta = 1, R = 1/2), Sigma_1 = diag(a, b) (alpha = a, beta = b), an anchor of cluster 1 started at
    theta_0 = theta*_2 (||theta_0|| = R), so e_0 = theta*_1 - theta_0 = (1, 0). With the exact moments (m, ell -> infinity)
    sigma_hat = ||Sigma e|| and r = Sigma e / ||Sigma e||, so the step alpha sigma_hat/(2 beta^2) r gives
    e_{t+1} = (I - alpha Sigma/(2 beta^2)) e_t = (1 - a^2/(2 b^2))^t (1, 0). The anchor stops at the first t with
    ||Sigma e_t|| = a q^t <= eps Delta and stays there (the printed re-test sees the same sigma_hat)."""
    q = 1 - a * a / (2 * b * b)
    t, e = 0, Fraction(1)
    while a * e > eps:
        t, e = t + 1, e * q
    return {"q": q, "t_stop": t, "error": e, "sigma_e": a * e, "eps_Delta": eps, "proof_radius": 2 * eps / a,
            "printed_violated": e > eps, "proof_holds": e <= 2 * eps / a}


@check("su2022.c13", "Theorem 1 (4) as printed: from any start in the R-ball, every anchor ends within eps Delta", "erratum",
       "violated", statements=("Theorem 1",))
def c13_anchor_error(ctx: Context, *, theory: Bound = S.THM_1_LITERAL, proof: Bound = S.THM_1_PROOF, families=INIT_FAMILIES,
                     covariances=("identity", "heterogeneous"), iterations=(8, 36), m_factors=(2.0, 0.75), sign_rule: str = "oracle",
                     freeze: bool = False) -> Result:
    """Theorem 1 (4) as printed (paper lines ~125-127): w.p. 1 - O(N^-9), for all theta_0 with ||theta_0|| <= R,
    sup_{i in H} ||theta_{i,T} - theta*_{z_i}|| <= eps Delta. Run as the listing prints it: every anchor re-tests
    sigma_hat > eps Delta each iteration (``freeze=False``, E6); the sign of beta_hat is the one the proof assumes
    (``sign_rule="oracle"``: <r, Sigma e> > 0), so that E1 plays no part. The six start families of Claim 13, one anchor per
    cluster and family, Sigma_j = I (alpha = beta = 1) and heterogeneous diagonal Sigma_j (alpha = 0.5, beta = 1.5, docs/papers/su2022.md §1.6).
    A run succeeds when every anchor ends within eps Delta; the claim needs a share >= 0.9 in each covariance setting
    (proportion test). Expected violated: the stop test bounds ||Sigma e||, not ||e||, so for alpha < 1 an anchor may stop
    at ||e|| up to eps Delta/alpha; the exact noise-free dynamics (``idealised_stop_witness``) stop at ||e|| > eps Delta.
    The share within the proof's 2 eps Delta/alpha is reported; the repaired statement is su2022.x02.

    ``iterations``: T per covariance setting. For alpha = 0.5, beta = 1.5 the slowest direction contracts by only
    1 - alpha^2/(2 beta^2) = 17/18 per iteration, so T = 36 (quick: 4 replicates; ``m_factors``: m per setting as a
    multiple of the instance's m) lets the anchors
    reach their stop test; the proof's T = (16 beta^2/alpha^2) log(beta R/(eps Delta)) (about 290 here) is out of reach at
    quick fidelity. In the noise-free limit an anchor that has stopped never moves again, so T does not matter there
    (``idealised_stop_witness``); with finite m a noisy re-test can still move a stopped anchor inward, which only helps
    the printed radius. The share of anchors whose last re-test said stop is recorded."""
    R0 = ctx.reps(8, 30)
    threshold = ctx.pick(0.9, 0.98)
    s = phase1_setting(ctx)
    F = len(families)
    parts, rows, errs = [], [], {}
    for cov, T, mf in zip(covariances, iterations, m_factors):
        slow = T > 8
        R = max(2, R0 // 2) if slow else R0
        cfg = phase1_config(ctx, m=int(mf * s["m"]), T=int(T), sign_rule=sign_rule, freeze=freeze)
        mod = model(ctx, f"model/{cov}", R, k=s["k"], d=s["d"], centres=s["centres"], covariance=cov)
        gen = ctx.generator(f"run/{cov}")
        k = mod.k
        theta0 = torch.stack([initial_points(mod, f, gen) for f in families], 1)
        theta0 = theta0[:, :, None, :].expand(R, F, k, mod.d).reshape(R, F * k, mod.d)
        labels = torch.arange(k, device=ctx.torch_device).repeat(F)[None].expand(R, F * k).contiguous()
        tr = fedmd(mod, theta0, labels, cfg, gen)
        err = numpy(tr.anchor_error.reshape(R, F, k))
        stopped = float(numpy(~tr.moved[-1]).mean())  # anchors whose last re-test said stop
        bound = np.broadcast_to(np.asarray(theory(eps=EPS, Delta=DELTA, alpha=numpy(mod.alpha)), dtype=float), (R,))
        proof_r = np.broadcast_to(np.asarray(proof(eps=EPS, Delta=DELTA, alpha=numpy(mod.alpha)), dtype=float), (R,))
        ok = (err <= bound[:, None, None]).all(-1)
        ok_proof = (err <= proof_r[:, None, None]).all(-1)
        v, info = proportion_verdict(int(ok.sum()), ok.size, threshold)
        parts.append(v)
        errs[cov] = err
        rows.append({"covariance": cov, "alpha": float(mod.alpha.min()), "beta": float(mod.beta.max()), "runs": int(ok.size),
                     "T": cfg.T, "m": cfg.m, "replicates": R, "stopped_share": stopped,
                     "within_bound": int(ok.sum()), "share_within_bound": float(ok.mean()), "ci": info["ci"],
                     "bound": float(bound.max()), "within_proof_radius": int(ok_proof.sum()), "proof_radius": float(proof_r.max()),
                     "max_anchor_error_median": float(np.median(err.max(-1))),
                     "worst_anchor_over_eps_Delta": float(err.max() / (EPS * DELTA))})
    verdict = combine(parts)
    w = idealised_stop_witness()
    printed = theory is S.THM_1_LITERAL
    words = "; ".join(f"Sigma {r['covariance']} (alpha = {r['alpha']:.2f}): {r['within_bound']}/{r['runs']} runs within "
                      f"{theory.name if not printed else 'eps Delta'}, {r['within_proof_radius']}/{r['runs']} within 2 eps Delta/alpha"
                      for r in rows)
    finding = None
    if not verdict.passed and printed:
        het = next((r for r in rows if r["covariance"] == "heterogeneous"), rows[-1])
        finding = erratum(
            "Theorem 1 (4) as printed (every anchor within eps Delta) fails: the stop test sigma_hat <= eps Delta bounds "
            "||Sigma e||, so anchors stop up to eps Delta/alpha from their centre; the proof's radius 2 eps Delta/alpha holds "
            "(su2022.x02).",
            paper_says="Theorem 1 (paper lines ~125-127): \"With probability at least 1 - O(N^-9), for all initialization theta_0 "
                       "with ||theta_0||_2 <= R, sup_{i in H} ||theta_{i,T} - theta*_{z_i}||_2 <= eps Delta. (4)\"",
            correction="sup_{i in H} ||theta_{i,T} - theta*_{z_i}|| <= eps' Delta with eps' = 2 eps/alpha, which is what the proof of "
                       "Theorem 1 (Appendix A.3, after (25)) derives; the grouping at Delta/2 then needs eps < alpha/8, not eps < 1/4, "
                       "and (5) inherits the same radius.",
            witness=f"Heterogeneous Sigma_j (alpha = {het['alpha']:.2f}, beta = {het['beta']:.2f}), d = {s['d']}, k = {s['k']}, "
                    f"m = {het['m']}, T = {het['T']}, the listing as printed (re-test every iteration, the proof's sign): {het['within_bound']} of "
                    f"{het['runs']} runs have every anchor within eps Delta = {EPS * DELTA:g}, {het['within_proof_radius']} of "
                    f"{het['runs']} within 2 eps Delta/alpha; the worst anchor ends at {het['worst_anchor_over_eps_Delta']:.2f} eps Delta. "
                    f"Exact: d = 2, Sigma_1 = diag(1/2, 3/2), theta*_1,2 = (+-1/2, 0), theta_0 = theta*_2: the noise-free anchor "
                    f"stops after {w['t_stop']} iterations at ||e|| = (17/18)^{w['t_stop']} = {float(w['error']):.4f} > eps Delta = 0.1.",
            second_argument="Exact rational arithmetic (fractions) on the noise-free dynamics, independent of the simulation: with "
                            "exact moments sigma_hat = ||Sigma e|| and r = Sigma e/||Sigma e||, so e_{t+1} = (I - alpha Sigma/(2 beta^2)) e_t. "
                            f"For e_0 = (1, 0) along Sigma's eigenvalue alpha = 1/2 (beta = 3/2) this is e_t = (17/18)^t (1, 0); the stop "
                            f"test ||Sigma e_t|| = (1/2)(17/18)^t <= 1/10 first holds at t = {w['t_stop']} (< the theorem's T), where "
                            f"||e_t|| = (17/18)^{w['t_stop']} = {float(w['error']):.4f} > 17/90 > 1/10 = eps Delta, and re-testing changes nothing. As m, ell -> infinity "
                            "the algorithm's iterates converge to these (no tie at the stop test), so the probability of (4) tends "
                            "to 0 on this instance, not to 1. In general the stop test only gives ||e|| <= ||Sigma e||/alpha.")
    elif not verdict.passed:
        finding = remark(f"The planted bound {theory.name} fails: {words}.")
    x = np.arange(1, len(rows) + 1)
    rate, lo, hi = proportion_band([r["within_bound"] for r in rows], [r["runs"] for r in rows])
    rate_p, lo_p, hi_p = proportion_band([r["within_proof_radius"] for r in rows], [r["runs"] for r in rows])
    return result_for(
        ctx,
        claim(theory, r"\sup_{i\in H}\|\theta_{i,T}-\theta^*_{z_i}\|_2\le\epsilon\Delta\ \ \text{w.p. }1-O(N^{-9}),\ \forall\|\theta_0\|\le R",
              text="Theorem 1 (4) as printed: with probability at least 1 - O(N^-9), for all theta_0 with ||theta_0|| <= R, every "
                   "anchor ends within eps Delta of its centre (run as the listing prints it: re-test each iteration)."),
        verdict,
        observed={"rows": rows, "families": list(families), "freeze": freeze, "sign_rule": sign_rule, "instance": s,
                  "idealised_witness": {k_: (float(v_) if isinstance(v_, Fraction) else v_) for k_, v_ in w.items()}},
        predicted={"bound": EPS * DELTA, "threshold_share": threshold},
        fit={r["covariance"]: {"share": r["share_within_bound"], "ci": r["ci"]} for r in rows},
        explanation=verdict_words(
            verdict,
            f"Every covariance setting keeps every anchor within the bound in at least {threshold:.0%} of runs: {words}.",
            f"The printed radius fails where alpha < 1: {words}. The stop test measures ||Sigma e||, so an anchor stops up to "
            "eps Delta/alpha from its centre; the proof's 2 eps Delta/alpha covers it (x02).",
            f"The shares do not decide the {threshold:.0%} claim: {words}."),
        finding=finding,
        figure=figspec.figure(figspec.panel(
            "Runs with every anchor within the radius", "setting: " + ", ".join(f"{i + 1} = Sigma {r['covariance']}"
                                                                                 for i, r in enumerate(rows)), "share of runs",
            [figspec.interval(r"$\epsilon\Delta$ (as printed)" if printed else theory.name, x, rate, lo, hi, "95% Clopper-Pearson"),
             figspec.interval(r"$2\epsilon\Delta/\alpha$ (proof)", x, rate_p, lo_p, hi_p, "95% Clopper-Pearson", role="reference"),
             figspec.line(f"{threshold:.0%}", x, threshold, "bound")], xscale="linear", yscale="linear")),
        arrays={f"anchor_error_{c}": e for c, e in errs.items()},
    )


@check("su2022.x02", "Theorem 1 (4) repaired: from any start in the R-ball, every anchor ends within 2 eps Delta/alpha (its proof)", "bound",
       "holds", no_control="the radius of (4) reached by Phase 1 is what is tested; the printed radius eps Delta is the "
                           "comparison that fails (c13)", statements=("Theorem 1",))
def x02_anchor_error_proof_radius(ctx: Context, *, theory: Bound = S.THM_1_PROOF, literal: Bound = S.THM_1_LITERAL,
                     families=INIT_FAMILIES) -> Result:
    """Claim 13 with E5's repair (the printed eps Delta is su2022.c13): the six initialisation families, one anchor per cluster and family, all anchors of a
    replicate sharing the fresh clients S_t. A run succeeds when every anchor ends within the proof's
    radius 2 eps Delta/alpha (E5), read as the share's quantile of max anchor error / radius against 1 (so that the
    radius drives the verdict); required share 0.9 at quick fidelity (96 runs: a test that detects failure
    rates above 10%), 0.98 at full (300 runs). The share within the literal eps Delta of (4) is reported (finding)."""
    R = ctx.reps(16, 50)
    threshold = ctx.pick(0.9, 0.98)
    s = phase1_setting(ctx)
    mod = model(ctx, "model", R, k=s["k"], d=s["d"], centres=s["centres"])
    gen = ctx.generator("run")
    F, k = len(families), mod.k
    theta0 = torch.stack([initial_points(mod, f, gen) for f in families], 1)  # [R, F, d]
    theta0 = theta0[:, :, None, :].expand(R, F, k, mod.d).reshape(R, F * k, mod.d)
    labels = torch.arange(k, device=ctx.torch_device).repeat(F)[None].expand(R, F * k).contiguous()
    cfg = phase1_config(ctx, m=2 * phase1_setting(ctx)["m"])  # two fresh-client budgets: the claim needs m >= m_req
    tr = fedmd(mod, theta0, labels, cfg, gen)
    err = tr.anchor_error.reshape(R, F, k)
    proof_r = torch.as_tensor(np.broadcast_to(np.asarray(theory(eps=EPS, Delta=DELTA, alpha=numpy(mod.alpha)), dtype=float), (R,)).copy(),
                              dtype=ctx.dtype, device=ctx.torch_device)  # a Bound without alpha (e.g. the printed eps Delta) is a scalar
    ok = (err <= proof_r[:, None, None]).all(-1)  # [R, F]
    lit = (err <= float(literal(eps=EPS, Delta=DELTA))).all(-1)
    with aside():  # the same claim as a share, reported; the verdict reads the quantile, which the theory drives
        _, info = proportion_verdict(int(ok.sum()), ok.numel(), threshold)
    verdict, qinfo = quantile_verdict(numpy((err / proof_r[:, None, None]).amax(-1)), threshold)
    info["quantile_of_worst_anchor_over_radius"] = qinfo
    per_family = numpy(ok.float().mean(0))
    lit_share = float(lit.float().mean())
    worst = numpy(err.amax(-1))  # [R, F]
    x = np.arange(1, F + 1)
    rate, lo, hi = proportion_band(numpy(ok.sum(0)), [R] * F)
    rate_l, lo_l, hi_l = proportion_band(numpy(lit.sum(0)), [R] * F)
    return result_for(
        ctx,
        claim(theory, r"\sup_{i\in H}\|\theta_{i,T}-\theta^*_{z_i}\|_2\le\epsilon'\Delta,\ \epsilon'=2\epsilon/\alpha",
              text="Theorem 1 (4): for every start theta_0 with ||theta_0|| <= R, every anchor ends near its centre; the "
                   "statement says within eps Delta, the proof (Appendix A.3) gives eps' Delta with eps' = 2 eps/alpha."),
        verdict,
        observed={"families": list(families), "success_share_per_family": per_family, "runs": int(ok.numel()),
                  "successes": int(ok.sum()), "share_within_literal_eps_Delta": lit_share,
                  "max_anchor_error_mean": float(worst.mean()), "instance": s, "m": cfg.m},
        predicted={"proof_radius": float(proof_r.max()), "literal_radius": EPS * DELTA, "threshold_share": threshold},
        fit=info,
        explanation=verdict_words(
            verdict,
            f"{int(ok.sum())} of {ok.numel()} runs (six start families, {R} seeds) end with every anchor within "
            f"{theory.name} = {float(proof_r.max()):.2f} of its centre (CI {info['ci'][0]:.3f} to {info['ci'][1]:.3f}; the "
            f"{threshold:.0%} quantile of the worst anchor's error over the radius is {qinfo['estimate']:.2f}, CI "
            f"{qinfo['ci'][0]:.2f} to {qinfo['ci'][1]:.2f}); "
            f"only {lit_share:.0%} of runs have every anchor within the printed eps Delta: the stop test sigma_hat <= eps Delta "
            "fires on an estimate of ||Sigma e|| that the projection shortens, so the literal radius needs far more clients.",
            f"Only {int(ok.sum())} of {ok.numel()} runs bring every anchor within {theory.name} = {float(proof_r.max()):.2f}.",
            f"{int(ok.sum())} of {ok.numel()} runs succeed; the interval {info['ci'][0]:.3f} to {info['ci'][1]:.3f} does not "
            f"decide the {threshold:.0%} claim."),
        finding=remark(f"With anchor freezing (as the proof of Theorem 1 assumes) and the first-moment sign of beta_hat (su2022.c17), {lit_share:.0%} of runs have every anchor within "
                       f"the printed eps Delta and {float(ok.float().mean()):.0%} within {theory.name}; the printed radius is "
                       "checked without freezing, including alpha < 1, in su2022.c13."),
        figure=figspec.figure(figspec.panel(
            "Phase-1 success by start family", "start family #", "share of runs",
            [figspec.interval(f"all anchors within {theory.name}", x, rate, lo, hi, "95% Clopper-Pearson"),
             figspec.interval(r"all anchors within $\epsilon\Delta$ (as printed)", x, rate_l, lo_l, hi_l, "95% Clopper-Pearson",
                              role="reference"),
             figspec.line(f"{threshold:.0%}", x, threshold, "bound")], xscale="linear", yscale="linear")),
        arrays={"anchor_error": numpy(err)},
    )


def miss_probability_exact(p, n_H: int) -> Fraction:
    """1 - P(n_H i.i.d. Cat(p) labels hit every cluster), in exact rational arithmetic (inclusion-exclusion; p as Fractions)."""
    return 1 - _coverage([Fraction(v).limit_denominator(10**6) for v in p], n_H)


@check("su2022.c14", "Theorem 1 (5) as printed: with n_H >= log N/p_min anchors, (5) fails with probability O(N^-9)", "erratum",
       "violated", statements=("Theorem 1",))
def c14_failure_probability(ctx: Context, *, theory: Bound = S.THM_1_5_FAILURE, p=(0.6, 0.3, 0.1), Ns=(30, 100, 300, 1000),
                            batches: int = 20, draws: int = 20000, tol: float = 0.5) -> Result:
    """Theorem 1 (5) as printed (paper lines ~129-131): "when n_H >= log N/p_min, with probability at least 1 - O(N^-9),
    d(theta_hat, theta*) <= eps Delta". (5) needs every cluster to have an anchor: if cluster j has none, every anchor that
    satisfies (4) sits within eps Delta < Delta/4 of another centre, so no estimate is near theta*_j and
    P[(5) fails] >= P[miss] - P[(4) fails] = P[miss] - O(N^-9). The anchors' labels are i.i.d. Cat(p) (line 3, A1), so
    P[miss] depends only on p and n_H = ceil(log N / p_min). Measured: the miss frequency of n_H simulated anchor labels,
    ``batches`` x ``draws`` draws per N (the batches are the replicates), against N; the rate test asks the log-log slope
    to be <= -9 + tol. Expected violated: P[miss] >= (1 - p_min)^{n_H} >= (1 - p_min) N^{log(1 - p_min)/p_min}, a slope of
    about -1.05 at p_min = 0.1, and never below -2 log 2 for any p_min <= 1/2. The repaired union bound and Phase 1's
    estimates are su2022.x03; the printed radius eps Delta of (5) is the one of (4) (su2022.c13)."""
    rng = ctx.numpy_rng("labels")
    p = np.asarray(p, dtype=float) / np.sum(p)
    p_min = float(p.min())
    Ns = np.asarray(Ns, dtype=float)
    n_Hs = [math.ceil(math.log(N) / p_min) for N in Ns]
    Y = np.empty((batches, len(Ns)))
    for j, nh in enumerate(n_Hs):
        counts = rng.multinomial(nh, p, size=(batches, draws))
        Y[:, j] = (counts == 0).any(-1).mean(-1)
    exact = [float(miss_probability_exact(p, nh)) for nh in n_Hs]
    lower = [(1 - p_min) * N ** (math.log(1 - p_min) / p_min) for N in Ns]
    assumptions = [Assumption("every batch saw a miss (the log-log slope is defined)", bool((Y > 0).all()), float((Y > 0).mean()),
                              "exact", f"{batches} batches of {draws} draws per N")]
    verdict, fit = rate_verdict(Ns, np.maximum(Y, 1e-300), theory, param="N", tol=tol, rng=ctx.numpy_rng("bootstrap"))
    verdict = apply_assumptions(verdict, assumptions)
    # the paper-scale witness: k = 2, uniform p, N = 2 m T points of Phase 1's quick instance
    N_w = 2 * phase1_setting(ctx)["m"] * phase1_config(ctx).T
    nh_w = math.ceil(math.log(N_w) / 0.5)
    miss_w = miss_probability_exact((Fraction(1, 2), Fraction(1, 2)), nh_w)
    finding = None
    if not verdict.passed and theory is S.THM_1_5_FAILURE:
        finding = erratum(
            f"With n_H = log N/p_min anchors, some cluster has no anchor with probability about k/N (slope "
            f"{fit['slope']:.2f} in N here), not O(N^-9); (5) then fails. O(N^-9) needs n_H >= (9 log N + log "
            "k)/p_min. "
            "Theorem 3's success probability 1 - N^-9 - c k e^-d (line ~285) rests on (5) and inherits the same k/N.",
            paper_says="Theorem 1 (paper lines ~129-131): \"Furthermore, when n_H >= log N/p_min, with probability at least "
                       "1 - O(N^-9), d(theta_hat, theta*) <= eps Delta, (5)\"",
            correction="With n_H >= log N/p_min the coverage step fails with probability up to k(1 - p_min)^{n_H} <= k/N, so (5) "
                       "holds w.p. 1 - O(k/N) (given (4)); the printed 1 - O(N^-9) needs n_H >= (9 log N + log "
                       "k)/p_min. "
                       "Theorem 3 (line ~285: \"Then with probability 1 - N^-9 - c k e^-d\") starts Phase 2 from Phase "
                       "1's "
                       "output and so holds w.p. 1 - O(k/N) - c k e^-d at n_H = log N/p_min: the miss event of this "
                       "witness "
                       "leaves a cluster without an estimate, and no Phase-2 round creates one.",
            witness=f"k = 2, p = (1/2, 1/2), N = {N_w} (Phase 1's quick instance), n_H = ceil(log N/p_min) = {nh_w}: the exact miss "
                    f"probability is {miss_w} = {float(miss_w):.3e}, against N^-9 = {N_w ** -9.0:.1e}. Simulated, p = "
                    f"({', '.join(f'{v:.2f}' for v in p)}): miss frequency {Y[:, -1].mean():.2e} at N = {int(Ns[-1])} (n_H = {n_Hs[-1]}), exact "
                    f"{exact[-1]:.2e}; log-log slope {fit['slope']:.2f} (CI {fit['slope_ci'][0]:.2f} to {fit['slope_ci'][1]:.2f}) "
                    "against -9.",
            second_argument="Closed form, independent of the simulation: P[miss] >= P[cluster argmin p has no anchor] = "
                            "(1 - p_min)^{n_H} >= (1 - p_min)^{log N/p_min + 1} = (1 - p_min) N^{log(1 - p_min)/p_min}; "
                            "log(1 - p)/p is decreasing, so for every p_min <= 1/2 (any k >= 2) this is >= (1/2) N^{-2 log 2} = "
                            "(1/2) N^{-1.386}, and N^9 P[miss] >= N^{7.6}/2 -> infinity: no constant C gives P[miss] <= C N^-9. "
                            f"Exact rational inclusion-exclusion gives the witness {miss_w} and, on the simulated grid, "
                            + ", ".join(f"{e:.2e}" for e in exact) + f" (closed-form lower bounds "
                            + ", ".join(f"{v:.2e}" for v in lower) + ").")
    elif not verdict.passed:
        finding = remark(f"The planted rate {theory.name} fails: measured slope {fit['slope']:.2f}.")
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(theory, r"\mathbb{P}\big[d(\hat\theta,\theta^*)>\epsilon\Delta\big]=O(N^{-9})\ \text{when }n_H\ge\log N/p_{\min}",
              text="Theorem 1 (5) as printed: when n_H >= log N / p_min, with probability at least 1 - O(N^-9), "
                   "d(theta_hat, theta*) <= eps Delta; its failure probability is at least the probability that some cluster has "
                   "no anchor."),
        verdict,
        observed={"N": Ns, "n_H": n_Hs, "p": p, "miss_frequency_mean": Y.mean(0), "miss_exact": exact,
                  "miss_closed_form_lower": lower, "draws_per_N": batches * draws,
                  "paper_scale_witness": {"N": N_w, "n_H": nh_w, "miss_exact": float(miss_w), "N^-9": N_w ** -9.0}},
        predicted={"exponent": -9.0, "tolerance": tol},
        fit=fit,
        explanation=verdict_words(
            verdict,
            f"The miss probability falls with slope {fit['slope']:.2f} in N, as fast as O(N^-9).",
            f"The probability that some cluster has no anchor falls only as N^{fit['slope']:.2f} (CI {fit['slope_ci'][0]:.2f} "
            f"to {fit['slope_ci'][1]:.2f}; exact {exact[-1]:.1e} at N = {int(Ns[-1])}), not as N^-9: with n_H = log N/p_min the "
            "coverage step fails with probability about k/N.",
            "The miss frequencies do not decide the slope (a batch without a miss)."),
        finding=finding,
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "P(some cluster has no anchor), n_H = ceil(log N / p_min)", "N", "probability",
            [figspec.observed(f"simulated ({batches} x {draws} draws)", Ns, Y, rng=fig),
             figspec.line("exact (inclusion-exclusion)", Ns, exact, "reference"),
             figspec.line(r"$N^{-9}$ (printed rate)", Ns, Ns ** -9.0, "bound")])),
        arrays={"miss_frequency": Y},
    )


@check("su2022.x03", "Theorem 1 (5) repaired: k groups and d(theta_hat, theta*) <= 2 eps Delta/alpha; coverage >= 1 - k(1 - p_min)^n_H",
       "bound", "holds",
       no_control="Phase 1's own estimates and coverage against the repaired statement; the printed statement is c14",
       statements=("Theorem 1",))
def x03_estimates_and_coverage(ctx: Context, *, coverage: Bound = S.COUPON, n_anchors=(3, 5, 10, 20, 40),
                               proportions=((1 / 3, 1 / 3, 1 / 3), (0.6, 0.3, 0.1)), draws: int = 20000) -> Result:
    """Claim 14 and E7: Phase 1 with n_H = ceil(log N / p_min) anchors of random labels returns k groups with
    d(theta_hat, theta*) <= 2 eps Delta/alpha with the paper's probability: given (4), (5) fails only when some
    cluster has no anchor, so P(failure) <= k(1 - p_min)^{n_H} + O(N^-9) (the coverage bound of the ``coverage``
    Bound at n_H, plus (4)'s O(N^-9), taken as N^-9). At N = 2 m T that is about 1e-4: a single failed run among
    R refutes it (the failure share's interval lies above it), while R successes are consistent with it but certify
    only a share of about 1 - 3.7/R; the run part can therefore turn the verdict to violated, never certify it.
    The coverage P(every cluster has an anchor), computed exactly by inclusion-exclusion (and by Monte Carlo for the
    figure), is >= 1 - k(1 - p_min)^{n_H} for n_H in n_anchors and both p. The coverage failure at
    n_H = log N/p_min is about k/N, not O(N^-9) (E7): the printed O(N^-9) is su2022.c14."""
    R = ctx.reps(16, 60)
    s = phase1_setting(ctx)
    cfg = phase1_config(ctx)
    mod = model(ctx, "model", R, k=s["k"], d=s["d"], centres=s["centres"])
    gen = ctx.generator("run")
    N_points = 2 * cfg.m * cfg.T
    n_H = math.ceil(math.log(N_points) / float(mod.p_min.min()))
    labels = mod.labels(n_H, gen)
    tr = fedmd(mod, initial_points(mod, "uniform in the R-ball", gen), labels, cfg, gen)
    ok = _phase1_success(tr, mod.alpha, EPS)
    fails = R - int(ok.sum())
    p_run = numpy(mod.p[0])
    fail_bound = float(1.0 - coverage(k=len(p_run), p=float(p_run.min()), n_H=n_H)) + N_points ** -9.0
    with aside():  # the run part can only refute: a failure share certified above the paper's failure probability
        refuted = proportion_verdict(fails, R, fail_bound, side="lower")[0].passed
        _, info_run = proportion_verdict(fails, R, fail_bound, side="upper")
    rng = ctx.numpy_rng("coverage")
    parts, cov_rows = [], []
    if refuted:
        parts.append(proportion_verdict(fails, R, fail_bound, side="upper")[0])
    for p in proportions:
        p = np.asarray(p) / np.sum(p)
        for nh in n_anchors:
            exact = coverage_probability(p, nh)
            z = rng.choice(len(p), size=(draws, nh), p=p)
            covered = int(np.all(np.stack([(z == j).any(1) for j in range(len(p))]), axis=0).sum())
            b = float(coverage(k=len(p), p=p.min(), n_H=nh))
            parts.append(deterministic_verdict(exact, b, side="lower", rtol=1e-12)[0])
            cov_rows.append({"p": p.round(3).tolist(), "n_H": nh, "coverage_exact": exact, "coverage_mc": covered / draws,
                             "bound": b})
    verdict = combine(parts)
    miss_exact = 1.0 - coverage_probability(numpy(mod.p[0]), n_H)
    dist = numpy(tr.distance)
    x = np.asarray(n_anchors)
    panels = []
    for p in proportions:
        rows = [r for r in cov_rows if np.allclose(r["p"], np.round(np.asarray(p) / np.sum(p), 3))]
        panels.append(figspec.panel(f"Coverage, p = {tuple(round(v, 2) for v in p)}", r"$n_H$", "P(all clusters have an anchor)",
                                    [figspec.line("exact (inclusion-exclusion)", x, [r["coverage_exact"] for r in rows], "observed"),
                                     figspec.line(f"Monte Carlo, {draws} draws", x, [r["coverage_mc"] for r in rows], "reference"),
                                     figspec.line(r"$1-k(1-p_{\min})^{n_H}$", x, np.maximum([r["bound"] for r in rows], 1e-3), "bound")],
                                    yscale="linear"))
    return result_for(
        ctx,
        Claim("Theorem 1 (5): with n_H >= log N / p_min anchors, Phase 1 returns k groups and d(theta_hat, theta*) <= eps' Delta "
              "(the proof's eps' = 2 eps/alpha); its coverage step is the coupon-collector bound "
              "P(every cluster has an anchor) >= 1 - k(1 - p_min)^{n_H}.",
              r"d(\hat\theta,\theta^*)\le\epsilon'\Delta;\ \ \mathbb{P}(\text{all clusters in }H)\ge1-k(1-p_{\min})^{n_H}",
              "su2022, Theorem 1, eq. (5) and its proof (Appendix A.3)",
              "d(hat(theta), theta^*) <= epsilon' Delta; PP(\"all clusters in\" H) >= 1 - k (1 - p_min)^(n_H)"),
        verdict,
        observed={"n_H": n_H, "runs": R, "successes": int(ok.sum()), "distance_median": float(np.median(dist[np.isfinite(dist)]))
                  if np.isfinite(dist).any() else None, "groups": numpy(tr.n_groups), "coverage": cov_rows, "instance": s},
        predicted={"radius": 2 * EPS * DELTA, "failure_probability_bound": fail_bound, "coverage_failure_exact_at_n_H": miss_exact,
                   "N": N_points, "N^-9": N_points ** -9.0},
        fit={"runs": info_run},
        explanation=verdict_words(
            verdict,
            f"With n_H = {n_H} anchors, {int(ok.sum())} of {R} runs return k groups within 2 eps Delta/alpha of the centres "
            f"(median d = {np.median(dist[np.isfinite(dist)]):.3f}; the paper's failure probability {fail_bound:.1e} predicts "
            f"{R * fail_bound:.1e} failures, and no failure refutes it, though {R} runs certify only a success share of "
            f"{1 - info_run['ci'][1]:.2f}), and the exact coverage stays above "
            "1 - k(1 - p_min)^{n_H} at every n_H and both p (the union bound is nearly tight for uniform p).",
            f"Phase 1's estimates or the anchors' coverage fall short of the stated bound ({fails} of {R} runs failed against "
            f"a failure probability of {fail_bound:.1e}).",
            "The coverage comparison does not decide."),
        finding=remark(f"The coverage step gives failure probability k(1 - p_min)^{{n_H}} ~ k/N, not O(N^-9): at N = {N_points} and "
                 f"n_H = ceil(log N/p_min) = {n_H} the exact miss probability is {miss_exact:.1e} vs N^-9 = {N_points ** -9.0:.1e} "
                 "(n_H >= (9 log N + log k)/p_min would be needed; su2022.c14)."),
        figure=figspec.figure(*panels),
        arrays={"distance": dist},
    )


def _strand_share(ctx: Context, stream: str, R: int, H: int, *, k: int, d: int, ms, p=None, ell: int = 150,
                  start_factor: float = 1.0, eps: float = EPS):
    """One Phase-1 iteration from anchors at own error 2 eps Delta/alpha (x start_factor), for every m in
    ``ms`` on nested pools of fresh clients and the same anchor points: per m, the share of anchors that
    are *not* stranded (they do not stop, sigma_hat > eps Delta) ``[len(ms)]`` and the trial outcomes."""
    mod = model(ctx, stream, R, k=k, d=d, p=p)
    gen = ctx.generator(stream + "/run")
    labels = mod.labels(H, gen)
    if p is not None:
        labels = torch.argmin(mod.p, dim=-1)[:, None].expand(R, H).contiguous()  # anchors of the smallest cluster
    radius = 2 * eps * DELTA / float(mod.alpha.min()) * start_factor
    theta = _around(mod, labels, [radius] * H, gen)
    X, y, _ = mod.points(mod.labels(int(ms[-1]), gen), 2, gen)
    Ys = nested_residual_moments(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta, ms)
    Q0 = random_orthonormal((R, H), d, k, gen, ctx.dtype)
    fresh = mod.points(labels, 2 * ell, gen)[:2]
    cfg = FedMDConfig(ell=ell, eps=eps)
    outcome = []
    for Y in Ys:
        U = orthogonal_iteration(Y, Q0, cfg.T1 // 2)
        _, s_hat = anchor_update(mod, theta, labels, U, cfg, gen, fresh=fresh)
        outcome.append(numpy(s_hat > eps * DELTA).reshape(-1))
    return np.stack(outcome)  # [len(ms), R*H]


def _first_success(outcome: np.ndarray, ms) -> np.ndarray:
    """Per trial, the smallest grid m from which the trial succeeds at every larger m (censored at 2 m_max)."""
    ms = np.asarray(ms, dtype=float)
    ok_after = np.flip(np.cumprod(np.flip(outcome, 0), 0), 0).astype(bool)  # succeeds at this m and all larger
    first = np.where(ok_after.any(0), ms[np.argmax(ok_after, 0)], 2 * ms[-1])
    return first


@check("su2022.c15", "Phase 1's sample need: m_req grows as d and as p_min^-2; ell_req as k", "rate", "holds",
       no_control="the claim is Phase 1's own sample need and its scaling in d, p_min and k; the paper compares no method without the property",
       statements=("Theorem 1",))
def c15_sample_complexity(ctx: Context, *, theory_d: Bound = S.PHASE1_CLIENTS, theory_eps: Bound = S.PHASE1_CLIENTS_EPS,
                          theory_k: Bound = S.PHASE1_ANCHOR_POINTS, ds=None, p_mins=(0.5, 0.3, 0.15), epss=(0.1, 0.2),
                          ks=(2, 3, 5, 8), tol: float = 0.35, tol_p: float = 0.6,
                          m_grid=(125, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000),
                          ell_grid=(5, 10, 20, 40, 80, 160, 320)) -> Result:
    """Claim 15 through the step that decides Phase 1's success. With the first-moment sign a step never
    lengthens the error, so an anchor fails exactly when it stops (sigma_hat <= eps Delta) while its error
    still exceeds 2 eps Delta/alpha. A trial starts an anchor at that radius and finds the smallest m (on
    nested pools of fresh clients) from which it does not stop; m_req is the 95% quantile over trials (reported).
    Eq. (3) is a sufficient condition, so each atom tests that the required m grows no faster than it says.

    * p_min (k = 2, d = 4, the anchor in the smallest cluster), on the Bound d p^-2 of (3) with p per point: the
      need is heavy-tailed (a few trials need 10x the median, some are censored at 2 m_max), so the statistic is the
      typical need, the geometric mean over each replicate's 8 anchors (its exponent is that of every quantile when
      the need scales as a whole); bootstrap over replicates. As p_min -> 0, where (3)'s order lies, the slope in
      p_min must be >= -2 - 0.6. Measured over seeds 0-11 with 192 trials (24 replicates of 8 anchors): slopes -1.10
      to -1.94, CI lower ends -1.45 to -2.48 (12 of 12 ``holds``), CI upper ends -0.53 to -1.36, so a bound that
      ignores p_min (p^0, allowed slope >= -0.6) is violated at 10 of 12 seeds (seed 0 among them) and one growing
      with p_min (p^+1) at every seed. With 96 trials the CI was too wide: seeds 8 and 9 were ``inconclusive``.
      The censored share (trials needing more than m_max) reached 0.049 at seed 5 against the 5% assumption. The
      earlier test on the arithmetic mean needed a tolerance of 1.0 (its slope moved by +-0.5 from seed to seed) and
      could not be failed by any p-dependence of the usual kind.
    * eps (k = 2, d = 4, p uniform, eps in {0.1, 0.2}), on d p^-2 eps^-4 (eq. (3) with the eps^-4 of its proof,
      E11) with eps per point, the same statistic: slope in eps >= -4 - tol as eps -> 0. Measured about -2.1 to
      -2.6 (typical need; the arithmetic mean, dominated by the hardest trials, falls as eps^-4.0 to eps^-4.6): the
      printed (3) has no eps, and a bound without it (eps^0) is violated; the slope is reported as
      ``fit["eps"]``.
    * k: ell_req (exact subspace, the arithmetic mean over trials) <= 1 + tol in k.
    * d (full fidelity only): m_req <= 1 + tol in d at p = 1/2. The d sweep needs d >> k: a random k-dimensional
      subspace already holds a share k/d of the residual, so at small d an anchor escapes stopping by chance and the
      measured need is too small there (it grows as d^1.9 on d in {4, 8, 16}, and as d^1.4 to d^1.8 on {8, 16, 32} at
      eps = 0.2), while d in {16, 32, 64} at eps = 0.1 needs m up to 64000 with a fifth of the trials censored at
      quick cost. Full fidelity sweeps d in {16, 32, 64}; quick fidelity (``ds=None``) leaves d fixed at 4 (the
      statement card reports d as fixed there).

    Our reading's windows (docs/papers/su2022.md) ([0.8, 1.5] in d and k, [-2.5, -1.5] in p_min) are reported
    beside the slopes."""
    H = 8
    Rp = max(2, ctx.reps(192, 320) // H)  # the p_min sweep: its slope decides the p_min atom
    R = max(1, ctx.reps(48, 160) // H)
    ds = ctx.pick((), (16, 32, 64)) if ds is None else tuple(ds)
    rng = ctx.numpy_rng("bootstrap")

    def typical(need: np.ndarray) -> np.ndarray:  # [R*H, P] trials -> [R, P] geometric means over each replicate's H
        return np.exp(np.log(need).reshape(-1, H, need.shape[1]).mean(1))

    need_p = np.stack([_first_success(_strand_share(ctx, f"p={p}", Rp, H, k=2, d=4, ms=m_grid, p=[p, 1 - p]), m_grid)
                       for p in p_mins], 1)
    need_e = np.stack([_first_success(_strand_share(ctx, f"eps={e:g}", R, H, k=2, d=4, ms=m_grid, eps=float(e)), m_grid)
                       for e in epss], 1)
    need_k = np.stack([_ell_need(ctx, f"k={k}", R, H, k=int(k), ell_grid=ell_grid) for k in ks], 1)
    ps_, es_, ks_ = (np.asarray(v, dtype=float) for v in (p_mins, epss, ks))
    # m_req <~ d / p_min^2 is an upper order as p_min -> 0 (and eps -> 0): q's slope >= the bound's - tol there
    v_p, fit_p = exponent_verdict(ctx, ps_, typical(need_p), theory_d, param="p", values={"d": 4.0}, tol=tol_p,
                                  tight=False, toward_zero=True)
    v_e, fit_e = exponent_verdict(ctx, es_, typical(need_e), theory_eps, param="eps", values={"d": 4.0, "p": 0.5},
                                  tol=tol, tight=False, toward_zero=True)
    v_k, fit_k = rate_verdict(ks_, need_k, theory_k, param="k", tol=tol, rng=rng)
    parts, needs = [v_p, v_e, v_k], [need_p, need_e, need_k]
    fit_d, need_d = {"slope": float("nan"), "slope_ci": [float("nan")] * 2, "tested": False}, np.zeros((1, 0))
    if ds:
        need_d = np.stack([_first_success(_strand_share(ctx, f"d={d}", R, H, k=2, d=int(d), ms=m_grid), m_grid) for d in ds], 1)
        v_d, fit_d = rate_verdict(np.asarray(ds, float), need_d, theory_d, param="d", values={"p": 0.5}, tol=tol, rng=rng)
        parts.append(v_d), needs.append(need_d)
    censored = float(np.mean(np.concatenate([need_d.ravel() > m_grid[-1], need_p.ravel() > m_grid[-1],
                                             need_e.ravel() > m_grid[-1], need_k.ravel() > ell_grid[-1]])))
    ds_ = np.asarray(ds, dtype=float)
    assumptions = [Assumption("trials resolved within the grids (censored share <= 5%)", censored <= 0.05, censored, "exact",
                              f"m up to {m_grid[-1]}, ell up to {ell_grid[-1]}")]
    verdict = apply_assumptions(combine(parts), assumptions)
    d_text = (f"slope {fit_d['slope']:.2f} in d (CI {fit_d['slope_ci'][0]:.2f} to {fit_d['slope_ci'][1]:.2f}), "
              if ds else "(d is swept at full fidelity only, see the docstring), ")
    q95 = lambda a: np.quantile(a, 0.95, axis=0)  # noqa: E731 - m_req itself: 95% of trials succeed
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        Claim("Theorem 1, eq. (3): Phase 1 succeeds with m >= p_min^-2 Omega~(d) fresh two-point clients per iteration and "
              "ell = Omega~(k) anchor pairs: the required m grows linearly in d and as p_min^-2, the required ell linearly in k.",
              r"m\ge p_{\min}^{-2}\tilde\Omega(d),\quad \ell=\tilde\Omega(k)", "su2022, Theorem 1, eq. (3)",
              "m >= p_min^(-2) tilde(Omega)(d), ell = tilde(Omega)(k)"),
        verdict,
        observed={"d": ds_, "m_req_95_d": q95(need_d) if ds else [], "mean_need_d": need_d.mean(0) if ds else [],
                  "p_min": ps_, "m_req_95_p": q95(need_p), "mean_need_p": need_p.mean(0),
                  "typical_need_p": typical(need_p).mean(0), "eps": es_, "m_req_95_eps": q95(need_e),
                  "mean_need_eps": need_e.mean(0), "typical_need_eps": typical(need_e).mean(0),
                  "k": ks_, "ell_req_95_k": q95(need_k), "trials_per_point": {"p_min": need_p.shape[0], "eps": need_e.shape[0],
                                                                              "d": need_d.shape[0]},
                  "censored_share": censored},
        predicted={"exponent_d": 1.0, "exponent_p_min": -2.0, "exponent_eps": -4.0, "exponent_k": 1.0, "tolerance": tol,
                   "tolerance_p_min": tol_p, "expected_windows": {"d": [0.8, 1.5], "p_min": [-2.5, -1.5], "k": [0.8, 1.5]}},
        fit={"d": fit_d, "p_min": fit_p, "eps": fit_e, "k": fit_k},
        explanation=verdict_words(
            verdict,
            f"The clients an anchor needs not to stop short grow with {d_text}slope {fit_p['slope']:.2f} in p_min (CI "
            f"{fit_p['slope_ci'][0]:.2f} to {fit_p['slope_ci'][1]:.2f}, allowed >= {-2 - tol_p:.2f}), slope "
            f"{fit_e['slope']:.2f} in eps (CI {fit_e['slope_ci'][0]:.2f} to {fit_e['slope_ci'][1]:.2f}: the printed (3) "
            f"has no eps, the proof's constant eps^-4 covers it), and the anchor pairs with slope {fit_k['slope']:.2f} in k: "
            f"no faster than eq. (3) allows. m_req (95% of trials) reaches {q95(need_p)[-1]:.0f} at p_min = "
            f"{p_mins[-1]} and d = 4 for eps = {EPS}: the eps^-4 constant that eq. (3) hides.",
            f"The need grows faster than eq. (3) allows: {d_text}slope {fit_p['slope']:.2f} in p_min, {fit_e['slope']:.2f} "
            f"in eps, {fit_k['slope']:.2f} in k.",
            f"The slopes ({d_text}{fit_p['slope']:.2f} in p_min, {fit_e['slope']:.2f} in eps, {fit_k['slope']:.2f} in k) "
            "are not resolved against the exponents, or too many trials were censored."),
        assumptions=assumptions,
        figure=figspec.figure(*([figspec.panel("Required clients vs d", "d", "m (mean over trials)",
                                               [figspec.observed("trial-wise need", ds_, need_d, rng=fig),
                                                figspec.line(r"$\propto d$", ds_, need_d.mean(0)[0] * ds_ / ds_[0], "bound")])]
                                if ds else []),
                              figspec.panel(r"Required clients vs $p_{\min}$ (k = 2, d = 4)", r"$p_{\min}$", "m",
                                            [figspec.observed("trial-wise need", ps_, need_p, rng=fig),
                                             figspec.line(r"$\propto p_{\min}^{-2}$", ps_, need_p.mean(0)[0] * (ps_[0] / ps_) ** 2, "bound")]),
                              figspec.panel(r"Required clients vs $\epsilon$ (k = 2, d = 4)", r"$\epsilon$",
                                            "m (geometric mean per replicate)",
                                            [figspec.observed("typical need", es_, typical(need_e), rng=fig),
                                             figspec.line(r"$\propto\epsilon^{-4}$", es_,
                                                          typical(need_e).mean(0)[0] * (es_[0] / es_) ** 4, "bound")]),
                              figspec.panel("Required anchor pairs vs k", "k", r"$\ell$",
                                            [figspec.observed("trial-wise need", ks_, need_k, rng=fig),
                                             figspec.line(r"$\propto k$", ks_, need_k.mean(0)[0] * ks_ / ks_[0], "bound")])),
        arrays={"need_d": need_d, "need_p": need_p, "need_eps": need_e, "need_k": need_k},
    )


def _ell_need(ctx: Context, stream: str, R: int, H: int, *, k: int, ell_grid, d: int = 10) -> np.ndarray:
    """Per trial, the smallest ell (nested fresh anchor pairs) from which one step from the success radius
    decreases the error and does not stop, with the exact residual subspace (m = infinity isolates ell)."""
    mod = model(ctx, stream, R, k=k, d=d)
    gen = ctx.generator(stream + "/run")
    labels = mod.labels(H, gen)
    radius = 2 * EPS * DELTA / float(mod.alpha.min())
    theta = _around(mod, labels, [radius] * H, gen)
    U = torch.linalg.eigh(expected_moment(mod, theta)).eigenvectors[..., -k:]
    Xa, ya, _ = mod.points(labels, 2 * int(ell_grid[-1]), gen)
    own = torch.gather(mod.theta, 1, labels[..., None].expand(R, H, d))
    outcome = []
    for ell in ell_grid:
        half = int(ell_grid[-1])
        fresh = (torch.cat([Xa[:, :, :ell], Xa[:, :, half:half + ell]], 2), torch.cat([ya[:, :, :ell], ya[:, :, half:half + ell]], 2))
        direction, s_hat = anchor_update(mod, theta, labels, U, FedMDConfig(ell=int(ell), eps=EPS), gen, fresh=fresh)
        step = (mod.alpha[:, None] * s_hat / (2 * mod.beta[:, None] ** 2))[..., None] * direction
        closer = torch.linalg.vector_norm(theta + step - own, dim=-1) < radius
        outcome.append(numpy((s_hat > EPS * DELTA) & closer).reshape(-1))
    return _first_success(np.stack(outcome), ell_grid)


@check("su2022.c16", "Phase 1 stops in O(1) iterations, independent of d and N", "rate", "holds",
       no_control="the claim is the proof's iteration count T (a number) and its independence of d and N; no method "
                  "without the property is compared in the paper", statements=("Theorem 1",))
def c16_iterations(ctx: Context, *, theory: Bound = S.THM_1_ITERATIONS, ds=(2, 4, 8), ms=(4000, 16000),
                   starts=(0.5, 1.0, 2.0, 4.0), T_cap: int = 20, tol: float = 0.25) -> Result:
    """Claim 16: T_stop (iterations until every anchor stopped) <= ceil((16 beta^2/alpha^2) log(2 beta R/(eps Delta)))
    (with E9's 2 beta R); T_stop does not grow with d (m grown with d) nor with N (m at fixed d): slope
    <= 0.25 (our reading (docs/papers/su2022.md) |slope| < 0.1, widened because stopping iterations are integers and the grids span a
    factor 4: half an iteration over the range is a slope of 0.1; the slopes are reported); growth in
    ln(||theta_0 - theta*||/(eps Delta)) reported against the idealised 1/ln 2 per e-fold."""
    R = ctx.reps(12, 24)
    s = phase1_setting(ctx)
    base_m = phase1_config(ctx).m

    def stops(stream: str, d: int, m: int, distances=(None,)) -> tuple[np.ndarray, np.ndarray, int]:
        """Per (replicate, start): T_stop (iterations until the last anchor stopped) and the mean stopping
        iteration of its 4k anchors (the low-noise statistic of the slope tests); the theorem's T."""
        mod = model(ctx, stream, R, k=s["k"], d=d, centres=s["centres"])
        gen = ctx.generator(stream + "/run")
        per = 3 * mod.k
        labels = (torch.arange(per, device=ctx.torch_device) % mod.k).repeat(len(distances))[None].expand(R, per * len(distances)).contiguous()
        if distances == (None,):
            theta0 = initial_points(mod, "uniform in the R-ball", gen)[:, None, :].expand(R, per, d)
        else:
            u = randn(R, len(distances), d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
            u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
            far = mod.theta[:, :1] + torch.as_tensor(distances, dtype=ctx.dtype, device=ctx.torch_device)[None, :, None] * u
            theta0 = far[:, :, None, :].expand(R, len(distances), per, d).reshape(R, -1, d)
        tr = fedmd(mod, theta0.contiguous(), labels, phase1_config(ctx, m=m, T=T_cap), gen)
        t_stop = numpy(tr.t_stop).reshape(R, len(distances), per) + 1  # iterations run until each anchor stopped
        radius = max(float(mod.radius.max()), float(torch.linalg.vector_norm(theta0, dim=-1).max()))
        T_theory = float(theory(alpha=float(mod.alpha.min()), beta=float(mod.beta.max()), radius=radius, eps=EPS,
                                Delta=DELTA))  # an integer T_stop <= T exactly when T_stop <= this real value
        return t_stop.max(-1), t_stop.mean(-1), T_theory

    by_d = [stops(f"d={d}", int(d), int(base_m * d / s["d"])) for d in ds]
    middle = by_d[len(ds) // 2]  # the middle d of the d sweep also serves as the middle m of the m sweep
    d_m, m_mid = int(ds[len(ds) // 2]), int(base_m * ds[len(ds) // 2] / s["d"])
    by_m = [stops(f"m={m}", d_m, int(m)) for m in ms]
    by_m.insert(1, middle)
    ms = (ms[0], m_mid, ms[1])
    far, far_mean, far_bound = stops("starts", d_m, m_mid, distances=tuple(starts))
    Yd = np.concatenate([t for _, t, _ in by_d], 1)
    Ym = np.concatenate([t for _, t, _ in by_m], 1)
    Ys = far_mean
    bounds = [b for _, _, b in by_d + by_m] + [far_bound]
    allT = np.concatenate([np.ravel(t) for t, _, _ in by_d + by_m] + [far.ravel()]).astype(float)
    censored = float(np.mean(allT > T_cap))
    v_bound, info_b = deterministic_verdict(allT.max(), min(bounds), side="upper")
    rng = ctx.numpy_rng("bootstrap")
    flat = power_law("x", 0.0, "upper", "O(1): does not grow")
    v_d, fit_d = rate_verdict(np.asarray(ds, float), Yd, flat, param="x", tol=tol, rng=rng)
    v_m, fit_m = rate_verdict(np.asarray(ms, float), Ym, flat, param="x", tol=tol, rng=rng)
    lx = np.log(np.asarray(starts) / (EPS * DELTA))
    coef = float(np.polyfit(lx, Ys.mean(0), 1)[0]) if len(starts) > 1 else float("nan")
    assumptions = [Assumption("every anchor stopped within the cap", censored == 0.0, censored, "exact", f"cap {T_cap} iterations")]
    verdict = apply_assumptions(combine([v_bound, v_d, v_m]), assumptions)
    fig = ctx.numpy_rng("figure")
    return result_for(
        ctx,
        claim(theory, r"T_{\mathrm{stop}}\le\frac{16\beta^2}{\alpha^2}\log\frac{2\beta R}{\epsilon\Delta}=\Theta(1)",
              text="Phase 1 needs T = Theta(1) iterations: the proof stops within (16 beta^2/alpha^2) log(2 beta R/(eps Delta)) "
                   "iterations (the proof's beta R corrected to 2 beta R for a general start), independently of d and N."),
        verdict,
        observed={"d": list(ds), "anchor_stop_mean_d": Yd.mean(0), "m": list(ms), "anchor_stop_mean_m": Ym.mean(0),
                  "start_distance": list(starts), "anchor_stop_mean_start": Ys.mean(0), "slope_per_e_fold": coef,
                  "max_T_stop": float(allT.max()), "censored_share": censored, "instance": s},
        predicted={"theorem_T": min(bounds), "idealised_slope_per_e_fold": 1 / math.log(2)},
        fit={"d": fit_d, "m": fit_m, "bound": info_b},
        explanation=verdict_words(
            verdict,
            f"Every run stopped within {allT.max():.0f} iterations, far below the proof's T = {min(bounds):.1f}; an anchor's "
            f"stopping iteration does not grow with d (slope {fit_d['slope']:.3f}) nor with m (slope {fit_m['slope']:.3f}), "
            f"and grows by {coef:.2f} iterations per e-fold of the start distance (idealised halving: {1 / math.log(2):.2f}).",
            f"T_stop exceeds the proof's T or depends on d or N (slopes {fit_d['slope']:.3f}, {fit_m['slope']:.3f}).",
            f"The flatness in d ({fit_d['slope']:.3f}) or N ({fit_m['slope']:.3f}) is not resolved, or some anchor never stopped."),
        assumptions=assumptions,
        figure=figspec.figure(
            figspec.panel("Mean stopping iteration of an anchor", "d (m grown with d)", "iterations",
                          [figspec.observed("measured", ds, Yd, rng=fig), figspec.line("theorem's T", ds, min(bounds), "bound")],
                          yscale="linear"),
            figspec.panel("vs m (d fixed)", "m", r"$T_\mathrm{stop}$",
                          [figspec.observed("measured", ms, Ym, rng=fig)], yscale="linear"),
            figspec.panel("vs start distance", r"$\|\theta_0-\theta^*\|/\Delta$", r"$T_\mathrm{stop}$",
                          [figspec.observed("measured", starts, Ys, rng=fig),
                           figspec.line(r"idealised $\log_2(\|\theta_0-\theta^*\|/\epsilon\Delta)$", starts,
                                        np.log2(np.asarray(starts) / (EPS * DELTA)) + 1, "reference")], yscale="linear")),
        arrays={"T_stop_d": Yd, "T_stop_m": Ym, "T_stop_start": Ys},
    )


def sign_flip_witness(steps: int = 4) -> dict:
    """Exact noise-free Phase-1 steps (Sigma = I, alpha = beta = 1, Delta = 1) from e_0 = theta* - theta_0 = (1, 0).

    With exact moments E[A] = U^T Sigma e e^T Sigma U (eq. (2)), sigma_hat = ||Sigma e|| and beta_hat = +-U^T Sigma
    e/||Sigma e||; the step of line 15 is theta_{t+1} = theta_t + (alpha sigma_hat/(2 beta^2)) r, so e_{t+1} = e_t -
    (||e_t||/2) r_t. With r = +e/||e|| (the sign the proof of Proposition 2 assumes) ||e_t|| = (1/2)^t; with r =
    -e/||e|| (the other singular vector of the same A) ||e_t|| = (3/2)^t. E[A] is a quadratic form in e, identical
    for e and -e."""
    e = Fraction(1)
    good, bad = [e], [e]
    for _ in range(steps):
        good.append(good[-1] - good[-1] / 2)
        bad.append(bad[-1] + bad[-1] / 2)
    return {"right_sign": good, "wrong_sign": bad, "steps": steps}


def _c17_erratum(fails: int, wins: int, R: int, rates: dict, w: dict):
    """The five fields of c17's erratum (E1): the listing's beta_hat has no sign, the proof assumes one."""
    bad = ", ".join(str(v) for v in w["wrong_sign"])
    good = ", ".join(str(v) for v in w["right_sign"])
    return erratum(
        "Phase 1 as printed does not determine the direction of its step: beta_hat (line 13) is a singular vector, "
        "defined "
        "only up to sign, and the proof of Proposition 2 assumes <r_t, Sigma_j(theta*_j - theta_t)> > 0 without a "
        "rule. "
        f"Without one Phase 1 failed in {fails}/{R} runs; orienting beta_hat by the anchor's first moment restores it "
        f"({wins}/{R}).",
        paper_says="Phase 1 line 13 (paper line ~93): \"Each anchor client i calls power-iteration(A_{i,t} A_{i,t}^T, "
                   "T_2) to "
                   "output (beta_hat_{i,t}, sigma_hat^2_{i,t})\"; text (line ~115): beta_hat approximates \"the "
                   "leading left "
                   "singular vector\" of A_{i,t}; line 15 moves theta_{i,t+1} = theta_{i,t} + eta_{i,t} r_{i,t}, r = "
                   "U_hat beta_hat. "
                   "The proof of Proposition 2 (lines ~624-637) derives <r_t, Sigma_j e_t>^2 >= (1 - alpha^2/(64 "
                   "beta^2)) "
                   "||Sigma_j e_t||^2 from (27) and then uses a_t = <r_t, Sigma_j e_t> >= sqrt(1 - alpha^2/(64 "
                   "beta^2)) "
                   "||Sigma_j e_t|| (\"a_t alpha - |b_t| beta >= ...\"), i.e. a positive sign.",
        correction="Proposition 2 (21) and Theorem 1 hold only for a sign rule that makes <r_t, Sigma_j e_t> > 0 on "
                   "the good "
                   "event; one that works with the paper's sample sizes: flip beta_hat when beta_hat^T U_hat^T m_bar < "
                   "0, where "
                   "m_bar is the mean of the residual vectors eps(x, y, theta_{i,t}) over the anchor's 2 ell fresh "
                   "points "
                   "(E[m_bar] = Sigma_{z_i}(theta*_{z_i} - theta_{i,t}); Omega~(k) points suffice after projecting on "
                   "U_hat).",
        witness=f"Measured (same data, same starts, half at the midpoint of two centres): no rule {fails}/{R} "
                "failures, "
                f"first-moment rule {wins}/{R}, oracle sign {rates.get('oracle', 0):.0%}. Exact (noise-free, "
                f"Sigma = I, alpha = beta = 1, e_0 = (1, 0)): with the proof's sign ||e_t|| = {good} for t = "
                f"0..{w['steps']}; "
                f"with the other sign of the same singular vector ||e_t|| = {bad}: the anchor moves away by 3/2 per "
                "iteration and the stop test sigma_hat <= eps Delta never fires.",
        second_argument="Exact symmetry, independent of the runs: E[A_{i,t} | U_hat, theta] = U_hat^T Sigma e e^T "
                        "Sigma U_hat "
                        "(eq. (2) with independent pairs) is quadratic in e = theta*_{z_i} - theta_{i,t}, hence "
                        "identical for e "
                        "and -e; Lemma 6 bounds A - E[A] only in operator norm, by (||e||^2 + sigma^2) xi_2, also even "
                        "in e. "
                        "Every quantity the proof controls (|beta_hat^T U_hat^T Sigma e| in (27), sigma_hat in (28)) "
                        "is even in "
                        "e, while the step needed is odd in e (e_{t+1} = e_t - eta r_t must shrink e). So no "
                        "function of A's expectation, and no statement of Propositions 1-2 as proved, orients "
                        "beta_hat: the printed "
                        "procedure has the required sign only by chance, and with the wrong one e_{t+1} = (3/2) e_t "
                        "exactly "
                        "(isotropic case).")


@check("su2022.c17", "Sign of beta_hat (Phase 1 line 13): without a rule Phase 1 fails; the first-moment rule repairs it", "counterexample",
       "reproduced", statements=("Section 4.1", "Proposition 2"))
def c17_sign_ablation(ctx: Context, *, literal_sign: str = "none", repaired_sign: str = "first_moment",
                      fail_share: float = 0.25, success_share: float = 0.6) -> Result:
    """Claim 17, E1 and 4.2(1): the same instances (symmetric midpoint start and uniform starts in the R-ball)
    run with sign_rule in {none, first_moment, oracle}. Reproduced when the literal rule fails in a clear
    share of runs (Clopper-Pearson lower end >= 25%) and the repaired rule succeeds (lower end >= 60%);
    the oracle sign is reported beside them."""
    R = ctx.reps(16, 64)  # 16: no failure in 16 runs puts the failure share below 0.25 (Clopper-Pearson upper end 0.21)
    s = phase1_setting(ctx)
    mod = model(ctx, "model", R, k=s["k"], d=s["d"], centres=s["centres"])
    half = R // 2
    g0 = ctx.generator("starts")
    theta0 = torch.cat([initial_points(mod, "midpoint of theta*_1, theta*_2", g0)[:half],
                        initial_points(mod, "uniform in the R-ball", g0)[half:]])
    labels = torch.arange(mod.k, device=ctx.torch_device).repeat(2)[None].expand(R, 2 * mod.k).contiguous()
    rules = [literal_sign, repaired_sign, "oracle"]
    res = {}
    for rule in dict.fromkeys(rules):
        tr = fedmd(mod, theta0, labels, phase1_config(ctx, sign_rule=rule), ctx.generator("run"))  # same stream: same data
        res[rule] = (numpy(_phase1_success(tr, mod.alpha, EPS)), numpy(tr.anchor_error.amax(-1)), numpy(tr.residual.amax(-1)))
    fails = int((~res[literal_sign][0]).sum())
    wins = int(res[repaired_sign][0].sum())
    v_fail, i_fail = proportion_verdict(fails, R, fail_share, side="lower")
    v_win, i_win = proportion_verdict(wins, R, success_share, side="lower")
    verdict = counterexample_verdict(v_fail, v_win)
    rates = {r: float(v[0].mean()) for r, v in res.items()}
    w = sign_flip_witness()
    x = np.arange(1, len(res) + 1)
    rate, lo, hi = proportion_band([int(v[0].sum()) for v in res.values()], [R] * len(res))
    return result_for(
        ctx,
        Claim("Phase 1 moves each anchor along r = U beta_hat, but beta_hat from power iteration on A A^T is defined only up "
              "to sign and E[A] is sign-blind; the proof of Proposition 2 assumes <r, Sigma e> > 0 without a rule. Without one the anchors "
              "move the wrong way about half the time; orienting beta_hat by the first moment of the anchor's residuals repairs it.",
              r"\langle r_{i,t},\Sigma_{z_i}(\theta^*_{z_i}-\theta_{i,t})\rangle>0\ \text{(assumed, not enforced)}",
              "su2022, Phase 1 line 13 and the proof of Proposition 2",
              "chevron.l r_(i,t), Sigma_(z_i)(theta_(z_i)^* - theta_(i,t)) chevron.r > 0"),
        verdict,
        observed={"success_share": rates, "runs": R, "literal_failures": fails, "repaired_successes": wins,
                  "max_anchor_error_median": {r: float(np.median(v[1])) for r, v in res.items()},
                  "largest_residual_median": {r: float(np.median(v[2])) for r, v in res.items()}, "instance": s,
                  "starts": "half symmetric midpoint, half uniform in the R-ball"},
        predicted={"literal_failure_share_at_least": fail_share, "repaired_success_share_at_least": success_share},
        fit={"literal_failures": i_fail, "repaired_successes": i_win},
        explanation=verdict_words(
            verdict,
            f"Without a sign rule Phase 1 fails in {fails} of {R} runs (median largest anchor error "
            f"{np.median(res[literal_sign][1]):.2f} Delta: the anchors drift away), while the first-moment rule succeeds in "
            f"{wins} of {R} on the same data, as often as the oracle sign ({rates['oracle']:.0%}).",
            f"The ablation does not separate the rules: {fails} failures without a rule, {wins} successes with "
            f"{repaired_sign}.",
            "Too few runs to separate the rules."),
        finding=_c17_erratum(fails, wins, R, rates, w) if verdict.passed else None,
        figure=figspec.figure(figspec.panel(
            "Phase-1 success by sign rule", "rule: " + ", ".join(f"{i + 1} = {r}" for i, r in enumerate(res)), "share of runs",
            [figspec.interval("success", x, rate, lo, hi, "95% Clopper-Pearson")], xscale="linear", yscale="linear")),
        arrays={f"anchor_error_{r}": v[1] for r, v in res.items()},
    )
