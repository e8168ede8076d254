"""allouah2025 checks c17-c23, x02 and x03: noise concentration, minibatch sampling, convergence and the
privacy-utility trade-off of CafCor (Theorem 4.2, Corollary 4.1 and their lemmas).

Our reading: docs/papers/allouah2025.md §2.3, 4.3-4.5, 6 (C17-C23), 7 (items 4, 5, 10, 11). CafCor is
verify/algorithms/cafcor.py (Algorithm 1, batched; noise of all n workers drawn from its exact joint law,
verify/correlated_noise.py :class:`NoiseInLaw`); the strongly convex harness is
verify/problems/allouah2025_quadratic.py, l(theta; x) = 1/2 ||theta - x||^2, whose L = mu = 1, sigma^2,
G_cov^2 and L_0 are exact. Byzantine workers run ALIE (tau = 1.5) on the noisy honest momentums (what
an omniscient attacker sees on the wire; docs/papers/allouah2025.md §2.6).

Theorem 4.2 assumes ||grad l|| <= C everywhere, which no strongly convex loss on R^d satisfies
(docs/papers/allouah2025.md §7.4): the runs log the largest honest minibatch gradient norm and the share of clipped gradients, and
a run in which clipping was ever active is inconclusive (outside the analysed regime).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from analytic import privacy as P
from analytic.bounds import Bound
from analytic.papers import allouah2025 as A
from verify import figspec
from verify.aggregators import AGGREGATORS
from verify.aggregators.caf import caf
from verify.algorithms.cafcor import cafcor, strongly_convex_schedule
from verify.attacks.classic import alie
from verify.correlated_noise import NoiseInLaw
from verify.engine import Context, log_checkpoints
from verify.fit import (
    apply_assumptions,
    bound_verdict,
    combine,
    controlled,
    deterministic_verdict,
    family_z,
    identity_verdict,
    mc_bound_verdict,
    mc_identity_verdict,
    power_law,
    rate_verdict,
    SWEEP_SEEDS,
)
from verify.checks.allouah2025.nonconvex_problem import CauchyWorkers, cauchy_workers
from verify.normal_draws import randn
from verify.problems.allouah2025_quadratic import WorkerPoints, identical_workers, sample_without_replacement, worker_points
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

register_paper(A.PAPER)

ALIE_TAU = 1.5  # ByzFL's default


def kappa(n: int, f: int) -> float:
    return 6 * f / (n - f) * (1 + f / (n - 2 * f)) ** 2


def _claim(bound: Bound, latex: str, source_extra: str = "") -> Claim:
    return Claim(bound.statement, latex, bound.source + source_extra, bound.typst)


def _top_eig_gram(X: torch.Tensor) -> torch.Tensor:
    """lambda_max((1/k) sum_i x_i x_i^T) of ``X [R, k, d]`` (uncentred) from the k x k Gram matrix, ``[R]``."""
    return torch.linalg.eigvalsh(X @ X.transpose(1, 2) / X.shape[1])[:, -1]


def _clipping_assumption(run, C: float) -> Assumption:
    frac = float(run.clipped_fraction.max())
    return Assumption("clipping never active along the run (Assumption 2.3 on the trajectory; it cannot hold on R^d)",
                      frac == 0.0, float(run.max_grad_norm.max()), "exact",
                      f"largest honest minibatch-gradient norm seen (C = {C:g}); share of clipped gradients {frac:g}")


# =====================================================================================================
# C17: Lemma C.6
# =====================================================================================================
@check("allouah2025.c17", "Lemma C.6: E lambda_max((1/n) sum xi xi^T) <= 36 sigma^2 (1 + d/n) for Gaussian noise",
       "bound", "holds", no_control="a concentration bound for Gaussian vectors (a property of the noise law), not of an "
                                    "algorithm", statements=("Lemma C.6",))
def c17_gaussian_concentration(ctx: Context, *, theory: Bound = A.LEMMA_C6, ns=(5, 50), dims=(1, 10, 500),
                               sigma2: float = 2.0) -> Result:
    """Claim 17: xi^(1..n) i.i.d. N(0, sigma^2 I_d), n in {5, 50}, d in {1, 10, 500}: the mean top eigenvalue
    (upper bootstrap CI) under the lemma at every (n, d); its ratio to the Wishart edge (1 + sqrt(d/n))^2
    sigma^2 and to the proof's intermediate bound are reported."""
    R = ctx.reps(200, 1000)
    gen = ctx.generator("c17/noise")
    grid = [(int(n), int(d)) for n in ns for d in dims]
    Y = np.stack([_top_eig_gram(math.sqrt(sigma2) * randn(R, n, d, generator=gen, dtype=ctx.dtype,
                                                                 device=ctx.torch_device)).cpu().numpy()
                  for n, d in grid], 1)
    nn, dd = np.array([g[0] for g in grid], float), np.array([g[1] for g in grid], float)
    at = {"sigma_DP2": sigma2, "n": nn, "d": dd}
    verdict, info = bound_verdict(Y, theory, values=at, rng=ctx.numpy_rng("bootstrap"))
    edge = np.asarray(A.WISHART_EDGE(**at), dtype=float)
    proof = np.asarray(A.LEMMA_C6_PROOF(**at), dtype=float)
    mean = Y.mean(0)
    labels = [f"n={n}, d={d}" for n, d in grid]
    x = np.arange(1, len(grid) + 1)
    return result_for(
        ctx, _claim(theory, r"\mathbb{E}\,\lambda_{\max}\left(\frac{1}{n}\sum_{i=1}^n\xi^{(i)}\xi^{(i)\top}\right)\leq 36\,"
                            r"\sigma_{\mathrm{DP}}^2\left(1+\frac{d}{n}\right)"),
        verdict,
        observed={"grid": labels, "mean_lambda_max": mean, "ci": [info["ci_lo"], info["ci_hi"]],
                  "ratio_to_wishart_edge": mean / edge, "ratio_to_lemma": mean / info["bound"], "replicates": R},
        predicted={"lemma": info["bound"], "proof_intermediate": proof, "wishart_edge": edge, "sigma2": sigma2},
        fit=info,
        explanation=(f"Over {R} draws per (n, d) the top eigenvalue of the empirical second-moment matrix averaged "
                     f"between {(mean / edge).min():.2f} and {(mean / edge).max():.2f} times the Wishart edge "
                     f"(1 + sqrt(d/n))^2 sigma^2 and at most {(mean / info['bound']).max():.3f} times Lemma C.6's "
                     f"36 sigma^2 (1 + d/n). "
                     + ("The lemma held at every grid point, with a large margin." if verdict.passed else
                        "The lemma's bound was not met at every grid point.")),
        assumptions=[],
        figure=figspec.figure(figspec.panel(
            f"Top eigenvalue of Gaussian noise covariance (sigma^2 = {sigma2:g}; grid order in observed.grid)",
            "grid point (n, d)", "E lambda_max", [
                figspec.observed("simulated", x, Y, rng=ctx.numpy_rng("figure")),
                figspec.line("Lemma C.6: 36 sigma^2 (1 + d/n)", x, info["bound"], "bound"),
                figspec.line("proof: 16 sigma^2/n (d ln 9 + n ln 2)", x, proof, "reference"),
                figspec.line("Wishart edge (1 + sqrt(d/n))^2 sigma^2", x, edge, "reference")], "linear", "log")),
        arrays={"lambda_max": Y},
    )


# =====================================================================================================
# C18: Lemma C.1, noise part
# =====================================================================================================
C18_SETTINGS = ((20, 4, 50, 1.0, 0.5), (50, 10, 200, 0.2, 0.2), (10, 3, 5, 1.0, 0.0))


@check("allouah2025.c18", "Lemma C.1: E lambda_max of the honest DP noise covariance <= 108 (n s_cor^2 + s_ind^2)(1 + d/(n-f))",
       "bound", "holds", no_control="a concentration bound for the honest workers' correlated Gaussian noise (a property "
                                    "of the noise law), not of an algorithm", statements=("Lemma C.1",))
def c18_honest_noise(ctx: Context, *, theory: Bound = A.LEMMA_C1_NOISE, settings=C18_SETTINGS) -> Result:
    """Claim 18 / 4.4 table: (n, f, d, sigma_cor^2, sigma_ind^2) in our reading (docs/papers/allouah2025.md) three settings; the honest workers'
    noise of the protocol (all n workers' pairwise terms, drawn from its exact joint law) and the mean of
    lambda_max((1/|H|) sum_{i in H} xi xi^T) (uncentred) against the lemma (and eq. (58) before simplification)."""
    R = ctx.reps(100, 400)
    gen = ctx.generator("c18/noise")
    cols = []
    for n, f, d, c2, i2 in settings:
        xi = NoiseInLaw.build(R, n, d, math.sqrt(c2), math.sqrt(i2), ctx.dtype, ctx.torch_device).draw(gen)[:, : n - f]
        cols.append(_top_eig_gram(xi).cpu().numpy())
    Y = np.stack(cols, 1)
    st = np.array(settings, dtype=float)
    at = {"n": st[:, 0], "f": st[:, 1], "d": st[:, 2], "sigma_cor2": st[:, 3], "sigma_ind2": st[:, 4]}
    verdict, info = bound_verdict(Y, theory, values=at, rng=ctx.numpy_rng("bootstrap"))
    eq58 = np.asarray(A.LEMMA_C1_EQ58(**at), dtype=float)
    ref = (st[:, 0] * st[:, 3] + st[:, 4]) * (1 + np.sqrt(st[:, 2] / (st[:, 0] - st[:, 1]))) ** 2
    mean = Y.mean(0)
    x = np.arange(1, len(settings) + 1)
    return result_for(
        ctx, _claim(theory, r"\mathbb{E}\,\lambda_{\max}\left(\frac{1}{|\mathcal{H}|}\sum_{i\in\mathcal{H}}\xi^{(i)}"
                            r"\xi^{(i)\top}\right)\leq 108\,(n\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2)\left(1+\frac{d}{n-f}\right)"),
        verdict,
        observed={"settings": [dict(zip(("n", "f", "d", "sigma_cor2", "sigma_ind2"), s)) for s in settings],
                  "mean_lambda_max": mean, "ci": [info["ci_lo"], info["ci_hi"]], "ratio_to_lemma": mean / info["bound"],
                  "earlier_monte_carlo": [139.3, 101.9, 21.8], "replicates": R},
        predicted={"lemma": info["bound"], "eq58": eq58, "reference_(n s_cor^2 + s_ind^2)(1 + sqrt(d/(n-f)))^2": ref},
        fit=info,
        explanation=(f"The honest workers' noise had mean top eigenvalue {', '.join(f'{m:.1f}' for m in mean)} in the "
                     f"three settings (an earlier Monte Carlo: 139.3, 101.9, 21.8), against the lemma's "
                     f"{', '.join(f'{b:.0f}' for b in info['bound'])}: at most {(mean / info['bound']).max():.3f} of "
                     "it. " + ("The bound held everywhere; it is loose by about two orders of magnitude, so the proof's "
                               "questionable cross-term step (proof of Lemma C.1, 'the second term above is non-positive') does not endanger the statement here."
                               if verdict.passed else "The bound failed in at least one setting.")),
        assumptions=[],
        figure=figspec.figure(figspec.panel(
            "Honest DP noise: top eigenvalue of (1/|H|) sum xi xi^T (settings in observed.settings)", "setting",
            "E lambda_max", [figspec.observed("simulated protocol noise", x, Y, rng=ctx.numpy_rng("figure")),
                             figspec.line("Lemma C.1: 108 (n s_cor^2 + s_ind^2)(1 + d/(n-f))", x, info["bound"], "bound"),
                             figspec.line("eq. (58)", x, eq58, "reference"),
                             figspec.line("(n s_cor^2 + s_ind^2)(1 + sqrt(d/(n-f)))^2", x, ref, "reference")],
            "linear", "log")),
        arrays={"lambda_max": Y},
    )


# =====================================================================================================
# C19: Lemma C.5, sampling without replacement
# =====================================================================================================
def _indicator_variance(y: np.ndarray, b: int) -> float:
    """E||mean of a uniform b-subset - mean||^2 of the rows of ``y [m, k]``, from the inclusion probabilities
    p = b/m and p_ij = b(b-1)/(m(m-1)) of sampling without replacement (no variance formula assumed)."""
    m = y.shape[0]
    c = y - y.mean(0)
    G = c @ c.T
    p = b / m
    pij = b * (b - 1) / (m * (m - 1))
    cov = np.full((m, m), pij - p * p)
    np.fill_diagonal(cov, p * (1 - p))
    return float((cov * G).sum() / b**2)


def _enumerated_variance(y: np.ndarray, b: int) -> float:
    """The same by averaging over all C(m, b) subsets."""
    idx = np.array(list(itertools.combinations(range(y.shape[0]), b)))
    return float(((y[idx].mean(1) - y.mean(0)) ** 2).sum(-1).mean())


C19_GRID = {2: (1, 2), 10: (1, 2, 3, 5, 7, 9, 10), 100: (1, 2, 5, 10, 25, 50, 99, 100)}


@check("allouah2025.c19", "Lemma C.5: the minibatch mean's variance is ((m-b)/(m-1)) sigma^2/b <= 2 (1-b/m) sigma^2/b",
       "identity", "holds", statements=("Lemma C.5",))
def c19_sampling(ctx: Context, *, theory: Bound = A.LEMMA_C5_EXACT, bound: Bound = A.LEMMA_C5, dim: int = 3) -> Result:
    """Claim 19: random finite datasets of m in {2, 10, 100} points in R^3, b in [1, m]. The exact variance of
    the mean of b points drawn without replacement, computed from the inclusion probabilities (and by
    enumerating every subset when m <= 10), equals ``theory`` (rtol 1e-10) and is <= ``bound``; our sampler
    (the one CafCor uses) agrees with it by Monte Carlo (z SE, family-wise over the 17 (m, b) pairs: 3.78).
    The identity is exact, so its Monte Carlo side convicts only beyond family_z(17, seeds=1000) = 5.24 SE:
    one seed of four (the 2026-11 review) put it at 4.03 SE, a chance the 3.78 threshold leaves at every
    seed of a sweep; a deviation between the two is ``inconclusive``."""
    rng = ctx.numpy_rng("c19/data")
    gen = ctx.generator("c19/sampler")
    N = ctx.reps(4000, 20000)
    rows = []
    for m, bs in C19_GRID.items():
        y = rng.normal(size=(m, dim)) * rng.uniform(0.5, 3.0, size=dim)
        s2 = float(((y - y.mean(0)) ** 2).sum(-1).mean())  # the population variance: Assumption 2.2 tight
        yt = torch.as_tensor(y, dtype=ctx.dtype, device=ctx.torch_device)
        for b in bs:
            idx = sample_without_replacement(gen, (N,), m, b, ctx.torch_device)
            sq = ((yt[idx].mean(1) - yt.mean(0)) ** 2).sum(-1).cpu().numpy()
            rows.append({"m": m, "b": b, "sigma2": s2, "indicator": _indicator_variance(y, b),
                         "enumerated": _enumerated_variance(y, b) if m <= 10 else np.nan,
                         "mc": float(sq.mean()), "mc_se": float(sq.std(ddof=1) / math.sqrt(N))})
    col = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
    at = {"m": col["m"], "b": col["b"], "sigma2": col["sigma2"]}
    pred = np.asarray(theory(**at), dtype=float)
    up = np.asarray(bound(**at), dtype=float)
    v_ind, i_ind = identity_verdict(col["indicator"], pred, rtol=1e-10, atol=1e-14 * col["sigma2"])
    enum = np.isfinite(col["enumerated"])
    v_enum, i_enum = identity_verdict(col["enumerated"][enum], pred[enum], rtol=1e-10, atol=1e-14 * col["sigma2"][enum])
    v_up, i_up = deterministic_verdict(col["indicator"], up, rtol=1e-12)
    z = family_z(len(rows))
    nz = pred > 0
    # m = 2, b = 1 makes ||mean - mean_all||^2 the same for every draw: its standard error is 0 up to rounding,
    # so the error bar also carries the arithmetic's resolution (64 u |value|)
    se = np.hypot(col["mc_se"], 64 * np.finfo(float).eps * np.abs(pred))
    # the identity is exact (the two computations above match it to rounding): the sampler's Monte Carlo side
    # may say it holds at z, but convicts only beyond a threshold for every point at every seed of a sweep
    v_mc, i_mc = mc_identity_verdict(col["mc"][nz], se[nz], pred[nz], z,
                                     convict_z=family_z(len(rows), seeds=SWEEP_SEEDS))
    verdict = combine([v_ind, v_enum, v_up, v_mc])
    printed = np.asarray(A.LEMMA_C2_PRINTED_SAMPLING(**at), dtype=float)
    return result_for(
        ctx, Claim(f"{theory.statement} Hence {bound.statement}",
                   r"\mathbb{E}\|g-\nabla\mathcal{L}_i\|^2=\frac{m-b}{m-1}\frac{\sigma^2}{b}\leq 2\left(1-\frac{b}{m}\right)\frac{\sigma^2}{b}",
                   f"{theory.source}; {bound.source}", f"{theory.typst} <= 2 (1 - b/m) sigma^2 / b"),
        verdict,
        observed={"rows": rows, "max_rel_error_indicator": i_ind["max_rel_error"],
                  "max_rel_error_enumerated": i_enum["max_rel_error"], "monte_carlo_max_abs_z": i_mc["max_abs_z"],
                  "max_ratio_to_lemma": i_up["worst_ratio"], "samples_per_point": N},
        predicted={"exact": pred, "lemma_c5": up, "printed_lemma_c2_term": printed},
        fit={"indicator": i_ind, "enumerated": i_enum, "lemma_c5": i_up, "monte_carlo": i_mc},
        explanation=(f"For {len(rows)} (m, b) pairs the exact variance of the minibatch mean, from the inclusion "
                     f"probabilities and (m <= 10) from all subsets, matched ((m-b)/(m-1)) sigma^2/b to "
                     f"{max(i_ind['max_rel_error'], i_enum['max_rel_error']):.1e} and stayed under Lemma C.5's "
                     f"2(1-b/m) sigma^2/b (at most {i_up['worst_ratio']:.3f} of it); the sampler CafCor uses agreed within "
                     f"{i_mc['max_abs_z']:.2f} standard errors. "
                     + ("Without the factor 2 (Lemma C.2 as printed) the bound would fail for every b < m: see x02."
                        if verdict.passed else "At least one part failed (see fit).")),
        assumptions=[Assumption("sigma^2 is each dataset's population variance (Assumption 2.2 tight)", True, None, "exact")],
        figure=figspec.figure(*[figspec.panel(
            f"Minibatch-mean variance, m = {m}", "b (batch size)", "E||mean - mean_all||^2", [
                figspec.interval("our sampler (Monte Carlo)", col["b"][col["m"] == m], col["mc"][col["m"] == m],
                                 (col["mc"] - z * se)[col["m"] == m], (col["mc"] + z * se)[col["m"] == m],
                                 f"+-{z:.2f} SE (family-wise)"),
                figspec.line("((m-b)/(m-1)) sigma^2/b", col["b"][col["m"] == m], pred[col["m"] == m], "bound"),
                figspec.line("Lemma C.5: 2(1-b/m) sigma^2/b", col["b"][col["m"] == m], up[col["m"] == m], "reference"),
                figspec.line("Lemma C.2 as printed: (1-b/m) sigma^2/b", col["b"][col["m"] == m], printed[col["m"] == m],
                             "reference")], "linear", "linear") for m in (10, 100)]),
    )


# =====================================================================================================
# Strongly convex harness (C20, C21, C23, x02)
# =====================================================================================================
def sigma_bar2(n: int, f: int, d: int, sigma2: float, m: int, b: int, s_cor2: float, s_ind2: float) -> float:
    """Theorem 4.2's sigma_bar^2 with sigma_b^2 = 2 (1 - b/m) sigma^2 / b."""
    s_b2 = 2 * (1 - b / m) * sigma2 / b
    return float(A.SIGMA_BAR2.subs({A.s_b2: s_b2, A.n: n, A.f: f, A.d: d, A.s_cor2: s_cor2, A.s_ind2: s_ind2}))


def _fixed_instance(points: WorkerPoints, R: int) -> WorkerPoints:
    """One problem instance shared by R replicates (the theorem's expectation is over the algorithm's randomness)."""
    return WorkerPoints(points.points.expand(R, -1, -1, -1).contiguous())


# =====================================================================================================
# C20: Theorem 4.2's strongly convex bound (sanity)
# =====================================================================================================
@check("allouah2025.c20", "Theorem 4.2 (strongly convex): E[L_H(theta_T) - L_*] under its explicit bound", "bound", "holds",
       statements=("Theorem 4.2",))
def c20_theorem42(ctx: Context, *, theory: Bound = A.THM_4_2_SC, n: int = 12, f: int = 2, d: int = 3, m: int = 10,
                  b: int = 2, s_cor: float = 0.3, s_ind: float = 0.3, C: float = 60.0, T: int | None = None,
                  start: float = 20.0, large: float = 1e3, control: str = "mean") -> Result:
    """Claim 20: quadratic honest losses (mu = L = 1), one heterogeneous instance, gamma_t and beta_t of Theorem
    4.2, ALIE on the noisy momentums, exact-eigen CAF. E[L_H(theta_T) - L_*] at log-spaced T (one run records
    them all; the schedule does not depend on T) against 960 kappa G^2/mu + 115200 L sigma_bar^2/(mu^2 T) +
    115200 L^2 L_0/(mu^2 T^2), with sigma^2, G_cov^2, L_0 exact and sigma_bar^2 from its formula. Also
    checked along the run: ||R_t - mbar_t||^2 <= kappa Delta_t (Proposition 4.1 as the proof uses it).

    Regime: theta_0 = theta_* + ``start`` 1 (start = 20: L_0 = 600 and the honest gradients reach about
    35 of the clipping threshold C = 60), so the iterates travel about 35 before the noise floor; from theta_* + 1 the
    run began almost at its floor. A second attack, ``large`` 1 from each Byzantine worker (a constant that does not
    vanish at the optimum), joins ALIE in the claim.

    Control: CafCor's robustness is the property; the same run under the large-value attack with
    the unprotected ``control`` rule (the plain mean) in place of CAF must violate the bound, else the attack is
    toothless and the verdict is inconclusive (verify.fit.controlled)."""
    R = ctx.reps(12, 48)
    T = T or ctx.pick(600, 4000)
    h = n - f
    prob = _fixed_instance(worker_points(1, h, m, d, spread=1.0, heterogeneity=0.5, generator=ctx.generator("c20/data"),
                                         dtype=ctx.dtype, device=ctx.torch_device), R)
    theta0 = prob.optimum + start
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    cps = log_checkpoints(T, 20)
    common = dict(f=f, T=T, gamma=gamma, beta=beta, C=C, sigma_cor=s_cor, sigma_ind=s_ind, batch_size=b, checkpoints=cps)
    run = cafcor(prob, theta0, **common, generator=ctx.generator("c20/run"), attack="alie",
                 attack_options={"tau": ALIE_TAU})
    run_large = cafcor(prob, theta0, **common, generator=ctx.generator("c20/run-large"), attack="large",
                       attack_options={"value": large})
    run_ctrl = cafcor(prob, theta0, **common, generator=ctx.generator("c20/run-large"), attack="large",
                      attack_options={"value": large}, aggregator=control)
    Y = prob.excess_loss(run.theta).cpu().numpy().T  # [R, P]
    Y_large = prob.excess_loss(run_large.theta).cpu().numpy().T
    Y_ctrl = prob.excess_loss(run_ctrl.theta).cpu().numpy().T
    G2 = float(prob.heterogeneity()[0][0])
    sigma2 = float(prob.sigma2()[0])
    L0 = float(prob.excess_loss(theta0)[0])
    sb2 = sigma_bar2(n, f, d, sigma2, m, b, s_cor**2, s_ind**2)
    at = {"n": n, "f": f, "G_cov2": G2, "mu": 1.0, "L": 1.0, "sigma_bar2": sb2, "L_0": L0, "T": cps.astype(float)}
    v_bound, i_bound = bound_verdict(np.concatenate([Y, Y_large], 1), theory, values={**at, "T": np.tile(at["T"], 2)},
                                     rng=ctx.numpy_rng("bootstrap"))
    P = cps.size
    with aside():  # the control is not the claim
        v_ctrl, i_ctrl = bound_verdict(Y_ctrl, theory, values=at, rng=ctx.numpy_rng("bootstrap/control"))
    k = kappa(n, f)
    inner = np.isfinite(run.drift.cpu().numpy())
    with aside():  # Proposition 4.1 along the run: an ingredient of the proof (checked in c11), not this bound
        v_agg, i_agg = deterministic_verdict(run.aggregation_error.cpu().numpy()[inner],
                                             k * run.drift.cpu().numpy()[inner], rtol=1e-9)
    control_field = {"what": f"the plain mean ({control}) in place of CAF under the large-value attack ({large:g} 1), "
                             "same instance, schedule and horizon",
                     "verdict": v_ctrl.value,
                     "detail": (f"the mean's excess loss reached {np.nanmax(i_ctrl['mean']):.3g} against the bound's "
                                f"{i_bound['bound'][P - 1]:.3g} at T = {T}")}
    assumptions = [_clipping_assumption(run, C), _clipping_assumption(run_large, C),
                   Assumption("L-smooth and mu-strongly convex honest loss", True, 1.0, "exact", "L = mu = 1"),
                   Assumption("bounded heterogeneity G_cov^2 (Assumption 2.1)", True, G2, "exact", "lambda_max of the "
                              "covariance of the workers' minimisers"),
                   Assumption("bounded variance sigma^2 (Assumption 2.2)", True, sigma2, "exact", "largest population "
                              "variance of a worker's points")]
    verdict_claim = apply_assumptions(combine([v_bound, v_agg]), assumptions)
    verdict = controlled(verdict_claim, v_ctrl)
    mean = i_bound["mean"][:P]
    mean_large = i_bound["mean"][P:]
    looseness = float(np.min(i_bound["bound"] / i_bound["mean"]))
    return result_for(
        ctx, _claim(theory, r"\mathbb{E}[\mathcal{L}_{\mathcal{H}}(\theta_T)-\mathcal{L}_\star]\leq\frac{960\kappa G_{\mathrm{cov}}^2}"
                            r"{\mu}+\frac{115200L\bar\sigma^2}{\mu^2T}+\frac{115200L^2\mathcal{L}_0}{\mu^2T^2}"),
        verdict,
        observed={"T": cps, "excess_loss": mean, "excess_loss_large_value": mean_large,
                  "excess_loss_control": i_ctrl["mean"], "ci": [i_bound["ci_lo"][:P], i_bound["ci_hi"][:P]],
                  "looseness_bound_over_observed": i_bound["bound"][:P] / mean, "looseness_min": looseness,
                  "aggregation_error_over_kappa_drift_max": i_agg["worst_ratio"], "replicates": R,
                  "clipped_fraction": float(run.clipped_fraction.max())},
        predicted={"bound": i_bound["bound"][:P], "sigma_bar2": sb2, "G_cov2": G2, "sigma2": sigma2, "L_0": L0, "kappa": k,
                   "setting": {"n": n, "f": f, "d": d, "m": m, "b": b, "sigma_cor": s_cor, "sigma_ind": s_ind, "C": C}},
        fit={"bound": i_bound, "aggregation_vs_kappa_drift": i_agg, "control": i_ctrl,
             "claim_verdict": verdict_claim.value},
        control=control_field,
        explanation=(f"From L_0 = {L0:.0f} (theta_0 = theta_* + {start:g} 1), with {f} ALIE workers among {n}, CafCor's "
                     f"excess loss fell to {mean[-1]:.2e} at T = {T} ({mean_large[-1]:.2e} under the large-value attack); "
                     f"Theorem 4.2's explicit bound was {i_bound['bound'][P - 1]:.2e} there, at least {looseness:.1e} "
                     f"times the observed loss along the run (sigma_bar^2 = {sb2:.1f} is dominated by 4 kappa 108 "
                     f"(n s_cor^2 + s_ind^2)(1 + d/(n-f))). Control: {control_field['detail']}. "
                     + ("The bound held everywhere and the aggregation error stayed under kappa Delta_t at every "
                        "recorded round, but the bound is vacuous: it is a sanity check only."
                        if verdict.passed else "The verdict is not 'holds': see the assumptions, fit and control.")),
        finding=(remark(f"Theorem 4.2 (1)'s bound exceeds the observed excess loss by 10^{math.log10(looseness):.1f} at "
                        f"best (constants 960 and 115200 of the proof; sigma_bar^2 = {sb2:.0f}): it holds vacuously.")
                 if verdict.passed and looseness > 100 else None),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"CafCor, strongly convex (n = {n}, f = {f}, ALIE): excess loss vs T", "T (rounds)",
            "E[L_H(theta_T) - L_*]", [figspec.observed("CafCor (CAF, exact eigen)", cps, Y, rng=ctx.numpy_rng("figure")),
                                      figspec.observed("CafCor, large-value attack", cps, Y_large,
                                                       rng=ctx.numpy_rng("figure")),
                                      figspec.observed(f"control: {control} in place of CAF, large-value attack", cps,
                                                       Y_ctrl, rng=ctx.numpy_rng("figure")),
                                      figspec.line("Theorem 4.2 (1), explicit constants", cps, i_bound["bound"][:P],
                                                   "bound")])),
        arrays={"excess_loss": Y},
    )


# =====================================================================================================
# C21: rates (strongly convex O(1/T); a heterogeneity floor)
# =====================================================================================================
@check("allouah2025.c21", "CafCor's excess loss decays as O(1/T) without heterogeneity; a floor remains with it",
       "rate", "holds", no_control=(
           "O(1/T) without heterogeneity is the rate of any stochastic-gradient method on this schedule whose "
           "aggregate the attack does not bias (the plain mean under ALIE included: on this harness it shows slope "
           "-1.09 in T in [700, 2500], as CAF does), so a mean control could not fail here; CafCor's robustness, the property a control must expose, is controlled in allouah2025.c20 (the mean "
           "under a large-value attack breaks Theorem 4.2's bound) and c11"), statements=("Theorem 4.2",))
def c21_rates(ctx: Context, *, theory: Bound = A.THM_4_2_SC_RATE, floor_theory: Bound = A.THM_4_2_SC_FLOOR, n: int = 12,
              f: int = 2, d: int = 3, m: int = 10, b: int = 2, s_cor: float = 0.3, s_ind: float = 0.3, C: float = 60.0,
              heterogeneity: float = 3.0, t_min: int | None = None, tol: float = 0.05, floor_tol: float = 0.1,
              T: int | None = None) -> Result:
    """Claim 21 (strongly convex part): the C20 harness with identical honest datasets (G_cov = 0) and with
    heterogeneous ones, in one batched run. (a) G_cov = 0: log-log slope of E[L_H(theta_T) - L_*] in
    t_hat = T + 240 L/mu (the proof's time variable; gamma_t = 10/(mu t_hat)) over T >= ``t_min`` at most the
    bound's exponent + ``tol``; (b) G_cov > 0: over T >= t_min the loss stops decaying (slope >= -``floor_tol``)
    and its floor stays under ``floor_theory``, 960 kappa G_cov^2/mu. The non-convex part of Claim 21 is x03.

    Separating T^-1 from T^-1.25: over T in [250, 1500] the slope is about -1.2 (beta_t = 1 - 240/t_hat
    is still far from 1: a transient), so T^-1.25 could not be refuted there. The window is now T in [700, 2500]
    (full: [2000, 12000]), past most of the transient, with 64 replicates (full 200) of the homogeneous half and the
    loss recorded at 250 rounds of the window (neighbouring rounds average the per-round noise): the slope's CI is
    about +-0.05 and with ``tol`` = 0.05 (was 0.15) the rate's power, the exponent shift it would detect, is about
    0.2 (full fidelity: about 0.1)."""
    R = ctx.reps(64, 200)
    R_het = ctx.reps(48, 60)  # 48 and the whole window: over T in [1400, 2500] with 24 the floor's slope CI reached +-0.17
    T = T or ctx.pick(2500, 12000)
    t_min = t_min or ctx.pick(700, 2000)
    h = n - f
    hom = identical_workers(1, h, m, d, spread=1.0, generator=ctx.generator("c21/data-hom"), dtype=ctx.dtype,
                            device=ctx.torch_device).points.expand(R, -1, -1, -1)
    het = worker_points(1, h, m, d, spread=1.0, heterogeneity=heterogeneity, generator=ctx.generator("c21/data-het"),
                        dtype=ctx.dtype, device=ctx.torch_device).points.expand(R_het, -1, -1, -1)
    prob = WorkerPoints(torch.cat([hom, het], 0).contiguous())
    theta0 = prob.optimum + 0.5
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    cps = np.union1d(log_checkpoints(T, 30), np.unique(np.linspace(t_min, T, min(250, T - t_min + 1)).astype(int)))
    run = cafcor(prob, theta0, f=f, T=T, gamma=gamma, beta=beta, C=C, sigma_cor=s_cor, sigma_ind=s_ind, batch_size=b,
                 generator=ctx.generator("c21/run"), attack="alie", attack_options={"tau": ALIE_TAU}, checkpoints=cps)
    loss = prob.excess_loss(run.theta).cpu().numpy().T  # [R + R_het, P]
    Y_hom, Y_het = loss[:R], loss[R:]
    G2_het = float(prob.heterogeneity()[0][R])
    sb2 = sigma_bar2(n, f, d, float(prob.sigma2()[0]), m, b, s_cor**2, s_ind**2)
    L0 = float(prob.excess_loss(theta0)[0])
    rng = ctx.numpy_rng("bootstrap")
    sel = cps >= t_min
    t_hat = cps[sel] + 240.0
    v_rate, i_rate = rate_verdict(t_hat, Y_hom[:, sel], theory, param="T", tol=tol, rng=rng,
                                  values={"L": 1.0, "mu": 1.0, "sigma_bar2": sb2, "L_0": L0})
    tail = cps >= t_min
    v_floor, i_floor = rate_verdict(cps[tail], Y_het[:, tail], power_law("T", 0.0, "lower", "a floor: Omega(T^0)"),
                                    param="T", tol=floor_tol, rng=rng)
    floor_bound = float(floor_theory(n=n, f=f, G_cov2=G2_het, mu=1.0))
    v_level, i_level = bound_verdict(Y_het[:, -1], floor_theory, values={"n": n, "f": f, "G_cov2": G2_het, "mu": 1.0},
                                     rng=rng)
    assumptions = [_clipping_assumption(run, C),
                   Assumption("G_cov = 0 in the homogeneous half (identical datasets)",
                              float(prob.heterogeneity()[0][:R].max()) == 0.0, float(prob.heterogeneity()[0][:R].max()),
                              "exact"),
                   Assumption("G_cov^2 > 0 in the heterogeneous half", G2_het > 0, G2_het, "exact")]
    verdict = apply_assumptions(combine([v_rate, v_floor, v_level]), assumptions)
    fig_rng = ctx.numpy_rng("figure")
    k = kappa(n, f)
    # the smallest lowering of the stated exponent the rate atom would call violated (verify.fit._rate_strength)
    rate_power = float(i_rate["predicted_exponent"] + tol - i_rate["slope_ci"][0])
    floor_loose = float(floor_bound / Y_het[:, -1].mean())
    return result_for(
        ctx, Claim("Theorem 4.2 (1): without heterogeneity (G_cov = 0) the excess loss of CafCor decays as O(1/T) "
                   "(L sigma_bar^2/(mu^2 T) + L^2 L_0/(mu^2 T^2)); with heterogeneity a floor of order kappa G_cov^2/mu "
                   "remains, which the paper says is unavoidable (Karimireddy et al. 2022).",
                   r"\mathbb{E}[\mathcal{L}_{\mathcal{H}}(\theta_T)-\mathcal{L}_\star]\lesssim\frac{\kappa G_{\mathrm{cov}}^2}{\mu}"
                   r"+\frac{L\bar\sigma^2}{\mu^2T}+\frac{L^2\mathcal{L}_0}{\mu^2T^2}",
                   "allouah2025, Theorem 4.2 (1) and the discussion after it",
                   'EE[cal(L)_cal(H)(theta_T) - cal(L)_star] lt.tilde (kappa G_"cov"^2)/mu + (L overline(sigma)^2)/(mu^2 T) + (L^2 cal(L)_0)/(mu^2 T^2)'),
        verdict,
        observed={"T": cps, "excess_loss_homogeneous": Y_hom.mean(0), "excess_loss_heterogeneous": Y_het.mean(0),
                  "slope_in_t_hat": i_rate["slope"], "slope_ci": i_rate["slope_ci"],
                  "heterogeneous_tail_slope": i_floor["slope"], "heterogeneous_tail_slope_ci": i_floor["slope_ci"],
                  "floor": float(Y_het[:, -1].mean()), "floor_over_kappa_G2": float(Y_het[:, -1].mean() / (k * G2_het)),
                  "replicates_homogeneous": R, "replicates_heterogeneous": R_het, "window": [int(t_min), int(T)],
                  "rate_power_exponent_shift": rate_power, "floor_bound_over_floor": floor_loose,
                  "clipped_fraction": float(run.clipped_fraction.max())},
        predicted={"exponent": i_rate["predicted_exponent"], "tolerance": tol, "t_hat_offset": 240.0,
                   "floor_bound_960_kappa_G2": floor_bound, "G_cov2": G2_het, "kappa": k, "sigma_bar2": sb2},
        fit={"rate": i_rate, "floor_slope": i_floor, "floor_level": i_level},
        explanation=(f"Without heterogeneity the excess loss fell with log-log slope {i_rate['slope']:.3f} (95% CI "
                     f"{i_rate['slope_ci'][0]:.3f} to {i_rate['slope_ci'][1]:.3f}) in t_hat = T + 240 over T >= {t_min}, "
                     f"against the bound's {i_rate['predicted_exponent']:.3f} (tolerance {tol}). With heterogeneity "
                     f"(G_cov^2 = {G2_het:.2f}) it levelled off at {Y_het[:, -1].mean():.3f} = "
                     f"{Y_het[:, -1].mean() / (k * G2_het):.3f} kappa G_cov^2 (tail slope {i_floor['slope']:.3f}). "
                     + f"The rate test would have refuted any exponent lowered by more than {rate_power:.2f} "
                     f"(T^-1 against T^-{1 + rate_power:.2f}). The floor bound 960 kappa G_cov^2/mu is {floor_loose:.1e} "
                     "times the observed floor. "
                     + ("Both behaviours are as the theorem describes." if verdict.passed else
                        "At least one part was not confirmed (see fit and assumptions).")),
        finding=(remark(f"Theorem 4.2 (1)'s heterogeneity floor 960 kappa G_cov^2/mu exceeds the observed floor by "
                        f"10^{math.log10(floor_loose):.1f} (the constant 960 of the proof): it holds vacuously; the "
                        f"O(1/T) rate itself is matched (slope {i_rate['slope']:.2f}).")
                 if verdict.passed and floor_loose > 100 else None),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"CafCor excess loss vs T (n = {n}, f = {f}, ALIE)", "T (rounds)", "E[L_H(theta_T) - L_*]",
            [figspec.observed("G_cov = 0", cps, Y_hom, rng=fig_rng),
             figspec.observed(f"G_cov^2 = {G2_het:.1f}", cps, Y_het, rng=fig_rng),
             figspec.line("slope -1 in t_hat through the last point", cps,
                          Y_hom.mean(0)[-1] * (cps[-1] + 240.0) / (cps + 240.0), "reference"),
             figspec.line("kappa G_cov^2 / mu", cps, k * G2_het, "reference")])),
        arrays={"excess_loss": loss},
    )


# =====================================================================================================
# C22: privacy-utility scaling in n (mean estimation)
# =====================================================================================================
def _one_round_errors(ctx: Context, ns, f: int, d: int, eps: float, delta: float, C: float, R: int, mechanism: str,
                      stream: str, with_cwtm: bool):
    """||CAF(messages) - xbar_H||^2 [R, P] (and CWTM's on the same messages) for one noisy round: honest
    x_i on the sphere of radius C, noise calibrated by Theorem 4.1 (q = f; SecLDP: equal noise, LDP:
    sigma_cor = 0), f ALIE messages on the noisy honest ones."""
    gen = ctx.generator(stream)
    err, err_tm, noise = [], [], []
    for n in ns:
        h = n - f
        if mechanism == "secldp":
            s2 = P.theorem41_min_equal_noise(n, f, f, eps, 1, delta, C)
            c2, i2 = s2, s2
        else:
            c2, i2 = 0.0, P.theorem41_min_ldp_noise(eps, 1, delta, C)
        x = randn(R, h, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        x = C * x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
        M = x + NoiseInLaw.build(R, n, d, math.sqrt(c2), math.sqrt(i2), ctx.dtype, ctx.torch_device).draw(gen)[:, :h]
        X = torch.cat([M, alie(M, f, tau=ALIE_TAU)], 1)
        target = x.mean(1)
        err.append(((caf(X, f) - target) ** 2).sum(-1).cpu().numpy())
        if with_cwtm:
            err_tm.append(((AGGREGATORS["cwtm"](X, f) - target) ** 2).sum(-1).cpu().numpy())
        noise.append((c2, i2, P.account(mechanism, n, f, f, c2, i2, C, 1, delta).mironov.epsilon))
    return np.stack(err, 1), (np.stack(err_tm, 1) if with_cwtm else None), noise


@check("allouah2025.c22", "Privacy-utility in n at fixed eps: SecLDP error slope about -2, LDP about -1 (d >> n)",
       "rate", "holds", statements=("Corollary 4.1",))
def c22_privacy_utility(ctx: Context, *, theory: Bound = A.COR_4_1_UTILITY, ldp_theory: Bound = A.LDP_UTILITY,
                        ns=(20, 40, 80, 160), f: int = 2, eps: float = 5.0, delta: float = 1e-5, C: float = 1.0,
                        tol: float = 0.15, d: int | None = None) -> Result:
    """Claim 22: one-round CafCor on mean estimation (honest ||x_i|| = C, f = 2 ALIE messages, exact-eigen CAF
    on the n x n kernel), noise from Theorem 4.1 at (eps, delta) = (5, 1e-5) with q = f, d >> n (d = 2000 quick,
    20000 full). Slopes of the error in n: SecLDP (sigma_cor = sigma_ind) at most Corollary 4.1's exponent
    + tol; LDP (sigma_cor = 0) within tol of -1 (tight, the LDP rate); LDP/SecLDP grows like n/(f+1) (slope
    1 +- tol); CWTM instead of CAF raises the SecLDP error at every n (ordering only)."""
    R = ctx.reps(8, 24)
    d = d or ctx.pick(2000, 20000)
    ns = np.asarray(ns)
    Y_sec, Y_tm, noise_sec = _one_round_errors(ctx, ns, f, d, eps, delta, C, R, "secldp", "c22/secldp", True)
    Y_ldp, _, noise_ldp = _one_round_errors(ctx, ns, f, d, eps, delta, C, R, "ldp", "c22/ldp", False)
    rng = ctx.numpy_rng("bootstrap")
    at = {"f": f, "C": C, "d": d, "delta": delta, "epsilon": eps}
    v_sec, i_sec = rate_verdict(ns, Y_sec, theory, param="n", values=at, tol=tol, rng=rng)
    v_ldp, i_ldp = rate_verdict(ns, Y_ldp, ldp_theory, param="n", values=at, tol=tol, rng=rng)
    ratio = Y_ldp / Y_sec
    with aside():  # consequences of the two rates (their ratio, CWTM's ordering): verdicts, not the claim's strength
        v_ratio, i_ratio = rate_verdict(ns, ratio, power_law("n", 1.0, "tight", "n/(f+1)"), param="n", tol=tol, rng=rng)
        v_tm, i_tm = bound_verdict(Y_tm / Y_sec, 1.0, side="lower", rng=rng)
        # control: the mechanism without correlated noise (LDP) must miss the SecLDP exponent
        v_ctrl, i_ctrl = rate_verdict(ns, Y_ldp, theory, param="n", values=at, tol=tol, rng=ctx.numpy_rng("control"))
    control_field = {"what": "LDP noise (sigma_cor = 0, the mechanism without SecLDP's correlated noise) against "
                             "Corollary 4.1's SecLDP exponent, same harness",
                     "verdict": v_ctrl.value,
                     "detail": (f"LDP slope {i_ctrl['slope']:.2f} (CI {i_ctrl['slope_ci'][0]:.2f} to "
                                f"{i_ctrl['slope_ci'][1]:.2f}) against {i_ctrl['predicted_exponent']:.2f} + {tol}")}
    achieved = np.array([e for *_, e in noise_sec] + [e for *_, e in noise_ldp])
    assumptions = [Assumption("eps < log(1/delta) (Theorem 4.1's range)", eps < P.log_inv_delta(delta), eps, "exact"),
                   Assumption("the calibrated noise achieves eps (Mironov, q = f)", bool(np.all(achieved <= eps * (1 + 1e-9))),
                              float(achieved.max()), "exact", "largest eps of the calibrated mechanisms"),
                   Assumption("d >> n", d >= 10 * int(ns.max()), d, "exact", f"d / max n = {d / ns.max():.1f}")]
    verdict_claim = apply_assumptions(combine([v_sec, v_ldp, v_ratio, v_tm]), assumptions)
    verdict = controlled(verdict_claim, v_ctrl)
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx, Claim(f"{theory.statement} {ldp_theory.statement}",
                   r"\varrho_{\mathrm{SecLDP}}=\tilde O\left(\frac{(f+1)d}{n^2\varepsilon^2}\right)\ \text{vs}\ "
                   r"\varrho_{\mathrm{LDP}}=\tilde\Theta\left(\frac{d}{n\varepsilon^2}\right)",
                   f"{theory.source}", theory.typst),
        verdict,
        observed={"n": ns, "error_secldp": Y_sec.mean(0), "error_ldp": Y_ldp.mean(0), "error_secldp_cwtm": Y_tm.mean(0),
                  "slope_secldp": i_sec["slope"], "slope_secldp_ci": i_sec["slope_ci"], "slope_ldp": i_ldp["slope"],
                  "slope_ldp_ci": i_ldp["slope_ci"], "ratio_ldp_over_secldp": ratio.mean(0), "slope_ratio": i_ratio["slope"],
                  "cwtm_over_caf": (Y_tm / Y_sec).mean(0), "d": d, "replicates": R,
                  "noise": {"secldp_s2": [c for c, *_ in noise_sec], "ldp_sigma_ind2": [i for _, i, _ in noise_ldp]},
                  "earlier_simulation": {"d": 4000, "secldp": [515, 121, 28.8, 7.03], "ldp": [1650, 778, 379, 186]}},
        predicted={"exponent_secldp": i_sec["predicted_exponent"], "exponent_ldp": i_ldp["predicted_exponent"],
                   "exponent_ratio": 1.0, "tolerance": tol, "setting": {"f": f, "eps": eps, "delta": delta, "C": C}},
        fit={"secldp": i_sec, "ldp": i_ldp, "ratio": i_ratio, "cwtm_vs_caf": i_tm, "control": i_ctrl,
             "claim_verdict": verdict_claim.value},
        control=control_field,
        explanation=(f"At fixed (eps, delta) = ({eps:g}, {delta:g}) and d = {d}, CafCor's error fell with slope "
                     f"{i_sec['slope']:.2f} (CI {i_sec['slope_ci'][0]:.2f} to {i_sec['slope_ci'][1]:.2f}) in n under "
                     f"SecLDP and {i_ldp['slope']:.2f} (CI {i_ldp['slope_ci'][0]:.2f} to {i_ldp['slope_ci'][1]:.2f}) under "
                     f"LDP; the LDP/SecLDP ratio grew from {ratio.mean(0)[0]:.1f} to {ratio.mean(0)[-1]:.1f} (slope "
                     f"{i_ratio['slope']:.2f}), and the trimmed mean had {(Y_tm / Y_sec).mean(0).min():.1f} to "
                     f"{(Y_tm / Y_sec).mean(0).max():.1f} times CAF's error. "
                     + ("The n-fold gain of correlated noise shows in the utility, as Corollary 4.1 says."
                        if verdict_claim.passed else "At least one slope or ordering was not confirmed (see fit).")
                     + f" Control: {control_field['detail']}."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"One-round CafCor: error vs n (d = {d}, f = {f}, eps = {eps:g}, ALIE)", "n (workers)", "||R - xbar_H||^2",
            [figspec.observed("SecLDP (q = f, sigma_cor = sigma_ind), CAF", ns, Y_sec, rng=fig_rng),
             figspec.observed("LDP (sigma_cor = 0), CAF", ns, Y_ldp, rng=fig_rng),
             figspec.observed("SecLDP, trimmed mean", ns, Y_tm, rng=fig_rng),
             figspec.line("slope -2 through the SecLDP start", ns, Y_sec.mean(0)[0] * (ns / ns[0]) ** -2.0, "reference"),
             figspec.line("slope -1 through the LDP start", ns, Y_ldp.mean(0)[0] * (ns / ns[0]) ** -1.0, "reference")])),
        arrays={"error_secldp": Y_sec, "error_ldp": Y_ldp, "error_cwtm": Y_tm},
    )


# =====================================================================================================
# C23: the DP error term does not decrease with T (Corollary 4.1 calibration)
# =====================================================================================================
@check("allouah2025.c23", "With Corollary 4.1's noise (sigma^2 proportional to T) the DP error does not decrease in T",
       "rate", "holds", no_control=(
           "a property of Corollary 4.1's noise calibration (a variance proportional to T cancels the bound's 1/T), not "
           "one an algorithm could lack; that the harness resolves a decrease is shown by planting a 1/T theory "
           "(tests/verify/test_allouah2025_utility_checks.py)"), statements=("Corollary 4.1", "Theorem 4.2"))
def c23_dp_term_plateau(ctx: Context, *, theory: Bound = A.COR_4_1_DP_TERM_T, Ts=(100, 200, 400, 800), n: int = 151,
                        f: int = 1, d: int = 2, eps: float = 25.0, delta: float = 1e-12, C: float = 1.0,
                        tol: float = 0.1) -> Result:
    """Claim 23: the strongly convex harness with only DP noise left (identical honest datasets: G_cov = 0; full
    batches: sigma_b = 0; theta_0 = theta*: L_0 = 0), f ALIE workers, and sigma_cor^2 = sigma_ind^2 =
    32 C^2 T log(1/delta)/(eps^2 (n-f)) for each horizon T (one batched run: the schedule does not depend on T).
    The final excess loss against T: log-log slope >= -tol (no decrease; the theory's exponent is 0)."""
    R = ctx.reps(8, 32)
    Ts = np.asarray(Ts)
    G = Ts.size
    h, m = n - f, 4
    data = identical_workers(1, h, m, d, spread=0.05 * C, generator=ctx.generator("c23/data"), dtype=ctx.dtype,
                             device=ctx.torch_device)
    prob = _fixed_instance(data, G * R)
    s2 = np.array([P.corollary41_noise(n, f, eps, int(T), delta, C) for T in Ts])
    sig = torch.as_tensor(np.repeat(np.sqrt(s2), R), dtype=ctx.dtype, device=ctx.torch_device)
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    run = cafcor(prob, prob.optimum.clone(), f=f, T=int(Ts.max()), gamma=gamma, beta=beta, C=C, sigma_cor=sig,
                 sigma_ind=sig, batch_size=m, generator=ctx.generator("c23/run"), attack="alie",
                 attack_options={"tau": ALIE_TAU}, checkpoints=Ts)
    loss = prob.excess_loss(run.theta).cpu().numpy()  # [G, G R]: row g is theta at T_g
    Y = np.stack([loss[g, g * R:(g + 1) * R] for g in range(G)], 1)  # each horizon's own replicates
    at = {"C": C, "L": 1.0, "d": d, "delta": delta, "epsilon": eps, "f": f, "mu": 1.0, "n": n, "sigma_cor2": s2,
          "sigma_ind2": s2}  # the noise of each horizon (Corollary 4.1: proportional to T)
    verdict, info = rate_verdict(Ts, Y, theory, param="T", values=at, tol=tol, rng=ctx.numpy_rng("bootstrap"))
    achieved = [P.account("secldp", n, f, f, float(v), float(v), C, int(T), delta).mironov.epsilon for v, T in zip(s2, Ts)]
    assumptions = [_clipping_assumption(run, C),
                   Assumption("eps < log(1/delta) (Corollary 4.1's range)", eps < P.log_inv_delta(delta), eps, "exact"),
                   Assumption("only DP noise: G_cov = 0, sigma_b = 0 (b = m), L_0 = 0", True, 0.0, "exact", "planted")]
    verdict = apply_assumptions(verdict, assumptions)
    mean = Y.mean(0)
    shape = Ts / (Ts + 240.0)
    return result_for(
        ctx, _claim(theory, r"\frac{L\bar\sigma_{\mathrm{DP}}^2}{\mu^2T}\propto T^0\quad\text{when }\sigma_{\mathrm{cor}}^2="
                            r"\sigma_{\mathrm{ind}}^2=\frac{32C^2T\log(1/\delta)}{\varepsilon^2(n-f)}"),
        verdict,
        observed={"T": Ts, "excess_loss": mean, "slope": info["slope"], "slope_ci": info["slope_ci"],
                  "loss_over_T_over_T_plus_240": mean / shape, "achieved_eps_mironov": achieved, "replicates": R,
                  "clipped_fraction": float(run.clipped_fraction.max())},
        predicted={"exponent": info["predicted_exponent"], "tolerance": tol, "sigma2": s2,
                   "setting": {"n": n, "f": f, "d": d, "eps": eps, "delta": delta, "C": C}},
        fit=info,
        explanation=(f"With the noise of Corollary 4.1 growing like T (sigma^2 from {s2[0]:.3f} to {s2[-1]:.3f}) and "
                     f"every other error source removed, the final excess loss went from {mean[0]:.3g} at T = {Ts[0]} to "
                     f"{mean[-1]:.3g} at T = {Ts[-1]} (log-log slope {info['slope']:.3f}, CI {info['slope_ci'][0]:.3f} "
                     f"to {info['slope_ci'][1]:.3f}); it rises like T/(T + 240) toward a plateau while the step size "
                     "leaves its initial phase. "
                     + ("More iterations do not buy utility under a fixed privacy budget, as the corollary's proof says."
                        if verdict.passed else "The DP error decreased with T, contrary to the claim, or the run left "
                                               "the analysed regime (see the assumptions).")),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"DP error vs horizon T at fixed (eps, delta) = ({eps:g}, {delta:g}), n = {n}, f = {f}", "T (horizon)",
            "E[L_H(theta_T) - L_*]", [
                figspec.observed("CafCor, Corollary 4.1 noise", Ts, Y, rng=ctx.numpy_rng("figure")),
                figspec.line("T/(T + 240) shape (through the last point)", Ts, mean[-1] * shape / shape[-1], "reference"),
                figspec.line("a 1/T decay (through the first point)", Ts, mean[0] * Ts[0] / Ts, "reference")])),
        arrays={"excess_loss": Y},
    )


# =====================================================================================================
# x02: Lemma C.2 as printed (erratum: the factor 2 of sigma_b^2 is missing)
# =====================================================================================================
def _x02_exact_witness(n: int, f: int, d: int, s_cor: float, s_ind: float, sigma: float = 1.0) -> dict:
    """Lemma C.2's sampling term against the exact without-replacement variance, in exact rational arithmetic: every
    subset of b of m scalar points for 1 <= b < m <= 6 (points 0, 1, 3, 7, ... so that the variance is not
    special), the smallest case (-1, 0, 1) with b = 1, and E||delta_1||^2 at t = 0 of the check's setting
    (m = 3, b = 1, noise from the Lemma C.2 proof's residual d(f s_cor^2 + s_ind^2)/(n - f))."""
    from fractions import Fraction
    from itertools import combinations

    def enumerate_var(points, b):
        mean = sum(points) / len(points)
        subsets = list(combinations(points, b))
        return sum((sum(S) / b - mean) ** 2 for S in subsets) / len(subsets)

    cases, exceed = 0, 0
    for m in range(2, 7):
        pts = [Fraction(k * k + k, 2) for k in range(m)]
        mean = sum(pts) / m
        pop = sum((x - mean) ** 2 for x in pts) / m
        for b in range(1, m):
            got = enumerate_var(pts, b)
            if got != Fraction(m - b, m - 1) * pop / b:
                raise AssertionError(f"enumeration disagrees with ((m-b)/(m-1)) sigma^2/b at m={m}, b={b}")
            cases += 1
            exceed += got > (1 - Fraction(b, m)) * pop / b
    three = [Fraction(-1), Fraction(0), Fraction(1)]
    noise = d * (f * Fraction(s_cor).limit_denominator(10**6) ** 2 + Fraction(s_ind).limit_denominator(10**6) ** 2)
    s2 = Fraction(sigma).limit_denominator(10**6) ** 2
    exact = (s2 + noise) / (n - f)
    printed = (Fraction(2, 3) * s2 + noise) / (n - f)
    return {"enumerated_b1": str(enumerate_var(three, 1)), "printed_b1": str((1 - Fraction(1, 3)) * Fraction(2, 3)),
            "enumerated_cases": cases, "printed_below_exact_in": exceed, "exact_fraction": str(exact),
            "printed_fraction": str(printed), "ratio": str(exact / printed)}


@check("allouah2025.x02", "Lemma C.2 as printed bounds the first momentum's deviation with (1 - b/m) sigma^2/b",
       "erratum", "violated", statements=("Lemma C.2",))
def x02_lemma_c2_printed(ctx: Context, *, theory: Bound = A.LEMMA_C2_PRINTED_SAMPLING, n: int = 12, f: int = 2,
                         d: int = 3, s_cor: float = 0.1, s_ind: float = 0.1, sigma: float = 1.0) -> Result:
    """docs/papers/allouah2025.md §7.11: one round of CafCor with Theorem 4.2's schedule (beta_0 = 0, so m_1 = gt_1 and every other
    term of Lemma C.2 vanishes): E||mbar_1 - grad L_H(theta_1)||^2 against the printed right-hand side
    ((1 - b/m) sigma^2/b + d f s_cor^2 + d s_ind^2)/(n - f). Each worker holds m = 3 points c_i and c_i +-
    sqrt(3/2) sigma u_i (population variance exactly sigma^2), b = 1, so the sampling term is ((m-b)/(m-1))
    sigma^2/b = sigma^2, 3/2 times the printed (1 - b/m) sigma^2/b; with the factor 2 of sigma_b^2 (as Theorem
    4.2 uses) it holds."""
    N = ctx.reps(4000, 20000)
    h, m, b = n - f, 3, 1
    gen = ctx.generator("x02/data")
    c = randn(1, h, 1, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    u = randn(1, h, 1, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    u = math.sqrt(1.5) * sigma * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    prob = _fixed_instance(WorkerPoints(torch.cat([c + u, c, c - u], 2)), N)
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    run = cafcor(prob, prob.optimum.clone(), f=f, T=2, gamma=gamma, beta=beta, C=1e6, sigma_cor=s_cor, sigma_ind=s_ind,
                 batch_size=b, generator=ctx.generator("x02/run"), attack="alie", attack_options={"tau": ALIE_TAU},
                 checkpoints=[1])
    dev = run.deviation[0].cpu().numpy()
    est, se = float(dev.mean()), float(dev.std(ddof=1) / math.sqrt(N))
    sigma2 = float(prob.sigma2()[0])
    noise = d * (f * s_cor**2 + s_ind**2)
    printed = (float(theory(m=m, b=b, sigma2=sigma2)) + noise) / h
    corrected = (float(A.LEMMA_C5(m=m, b=b, sigma2=sigma2)) + noise) / h
    exact = (float(A.LEMMA_C5_EXACT(m=m, b=b, sigma2=sigma2)) + noise) / h
    z = family_z(2)
    verdict, info = mc_bound_verdict(est, se, printed, z, side="upper")
    v_corr, i_corr = mc_bound_verdict(est, se, corrected, z, side="upper")
    v_exact, i_exact = mc_identity_verdict(est, se, exact, z)
    assumptions = [Assumption("beta_0 = 0 (Theorem 4.2's schedule), so Lemma C.2 at t = 0 reduces to its noise term",
                              abs(beta(0)) <= 1e-12, beta(0), "exact", "rounding of 1 - 24 L gamma_0 allowed"),
                   Assumption("the simulation reproduces the exact deviation ((m-b)/(m-1) sigma^2/b + d(f s_cor^2 + "
                              "s_ind^2))/(n-f) and meets the corrected bound (factor 2)", v_exact.passed and v_corr.passed,
                              est, "estimate", f"Monte Carlo over {N} runs"),
                   _clipping_assumption(run, 1e6)]
    verdict = apply_assumptions(verdict, assumptions)
    wit = _x02_exact_witness(n, f, d, s_cor, s_ind, sigma)
    finding = erratum(
        f"Lemma C.2 as printed is violated at t = 0: one round gives E||mbar_1 - grad L_H||^2 = {est:.4f} +- {se:.4f}, "
        f"above the printed bound {printed:.4f}; with sigma_b^2 = 2(1 - b/m) sigma^2/b (Theorem 4.2, Lemma C.5) it is "
        f"{corrected:.4f} and holds.",
        paper_says=("Lemma C.2 (paper lines 549-556): 'For all t in {0, ..., T-1}, E[||delta_{t+1}||^2] <= beta_t^2 (1 + "
                    "gamma_t L)(1 + 4 gamma_t L) E[||delta_t||^2] + ... + (1 - beta_t)^2 sigma_DP_bar^2/(n - f) + ..., where "
                    "sigma_DP_bar^2 := (1 - b/m) sigma^2/b + d f sigma_cor^2 + d sigma_ind^2'."),
        correction=("The sampling term must be sigma_b^2 = 2(1 - b/m) sigma^2/b, as Theorem 4.2 (paper line 174) and Lemma "
                    "C.5 (line 942) have it: sampling b of m points without replacement has variance exactly "
                    "((m-b)/(m-1)) sigma^2/b, which exceeds (1 - b/m) sigma^2/b by the factor m/(m-1) for every b < m and "
                    "is at most 2(1 - b/m) sigma^2/b."),
        witness=(f"t = 0 with Theorem 4.2's schedule (beta_0 = 0, so every other term vanishes): n = {n}, f = {f}, d = {d}, "
                 f"sigma_cor = {s_cor:g}, sigma_ind = {s_ind:g}, each worker with m = {m} points at population variance "
                 f"sigma^2 = {sigma2:.6g}, b = {b}: printed bound {printed:.6f}, exact value {exact:.6f}, simulated "
                 f"{est:.6f} +- {se:.6f} over {N} rounds (ALIE attackers)."),
        second_argument=(f"Exact rational arithmetic: for scalar points (-1, 0, 1) (m = 3, population variance 2/3) "
                         f"enumerating all b = 1 draws gives E(x - xbar)^2 = {wit['enumerated_b1']} = sigma^2, while the "
                         f"printed term is (1 - 1/3)(2/3) = {wit['printed_b1']}; enumerating every subset for all "
                         f"1 <= b < m <= 6 matches ((m-b)/(m-1)) sigma^2/b exactly ({wit['enumerated_cases']} cases) and "
                         f"exceeds the printed (1 - b/m) sigma^2/b in {wit['printed_below_exact_in']} of them. At the witness setting the exact "
                         f"E||delta_1||^2 = (sigma^2 + d(f sigma_cor^2 + sigma_ind^2))/(n - f) = {wit['exact_fraction']} "
                         f"against the printed {wit['printed_fraction']} (ratio {wit['ratio']})."),
    ) if not verdict.passed and all(a.held for a in assumptions) else ""
    return result_for(
        ctx, Claim(f"{theory.statement} At t = 0 with beta_0 = 0 the lemma reads E||mbar_1 - grad L_H(theta_1)||^2 <= "
                   "sigma_DP_bar^2/(n - f).",
                   r"\mathbb{E}\|\delta_1\|^2\leq\frac{\bar\sigma_{\mathrm{DP}}^2}{n-f},\ \bar\sigma_{\mathrm{DP}}^2="
                   r"\left(1-\frac{b}{m}\right)\frac{\sigma^2}{b}+df\sigma_{\mathrm{cor}}^2+d\sigma_{\mathrm{ind}}^2",
                   theory.source, theory.typst),
        verdict,
        observed={"deviation_mean": est, "deviation_se": se, "runs": N, "sigma2": sigma2, "m": m, "b": b},
        predicted={"printed_bound": printed, "corrected_bound_factor_2": corrected, "exact": exact,
                   "exact_witness": _x02_exact_witness(n, f, d, s_cor, s_ind, sigma),
                   "setting": {"n": n, "f": f, "d": d, "sigma_cor": s_cor, "sigma_ind": s_ind}},
        fit={"printed": info, "corrected": i_corr, "exact": i_exact},
        explanation=(f"One round of CafCor (beta_0 = 0) gave E||mbar_1 - grad L_H||^2 = {est:.4f} +- {se:.4f}, matching "
                     f"the exact {exact:.4f}. "
                     + (f"Lemma C.2 as printed allows only {printed:.4f}, which the simulation does not respect; with the "
                        f"factor 2 of sigma_b^2 the bound is {corrected:.4f} and holds." if finding else
                        f"The bound {theory.name} ({printed:.4f}) was not contradicted.")),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "First-round momentum deviation (m = 3 points per worker, b = 1)", "quantity", "E||mbar_1 - grad L_H||^2",
            [figspec.interval("one simulated round", [1], [est], [est - z * se], [est + z * se], f"+-{z:.2f} SE"),
             figspec.line("exact value", [0.8, 1.2], exact, "reference"),
             figspec.line("Lemma C.2 as printed", [0.8, 1.2], printed, "bound"),
             figspec.line("with the factor 2 (sigma_b^2)", [0.8, 1.2], corrected, "reference")], "linear", "linear")),
        finding=finding,
        arrays={"deviation": dev},
    )


# =====================================================================================================
# x03: Theorem 4.2 (2), non-convex (sanity), and what its step size does
# =====================================================================================================
@check("allouah2025.x03", "Theorem 4.2 (non-convex): the average squared gradient under its explicit bound", "bound",
       "holds", no_control=(
           "no run could fail this bound: at every horizon it exceeds the initial squared gradient, so even a method "
           "that never moves (the plain mean under a mean-cancelling attack) stays under it; the check records how "
           "far the bound sits from the observed gradients instead (tightness, remark)"), statements=("Theorem 4.2",))
def x03_theorem42_nonconvex(ctx: Context, *, theory: Bound = A.THM_4_2_NC, Ts=(100, 200, 400, 800), n: int = 12,
                            f: int = 2, d: int = 2, m: int = 8, b: int = 7, s_cor: float = 0.0, s_ind: float = 0.0,
                            start: float = 3.0) -> Result:
    """Claim 21's non-convex part: Cauchy-loss workers (verify/checks/allouah2025/nonconvex_problem.py: L = 2, C = sqrt(d)
    and sigma^2 = d valid exactly, identical datasets so G_cov = 0), theta_0 = ``start`` 1, ALIE, exact-eigen CAF;
    for each horizon T the theorem's constant step gamma_T = min{1/(24L), sqrt(3 L_0)/(16 sigma_bar sqrt(L T))} and
    beta_T = 1 - 24 L gamma_T (one batched run, one step size per replicate group). Checked: the average of
    ||grad L_H(theta_t)||^2 over t < T under the explicit bound at every T (L_0 from L_* estimated by gradient
    descent, i.e. from below). The log-log slope in T is reported: our reading (docs/papers/allouah2025.md) expects about -1/2.

    The regime: the step is the theorem's, and it scales as 1/sigma_bar; with our reading (docs/papers/allouah2025.md) DP noise
    (sigma_cor = sigma_ind = 0.1, b = 2) sigma_bar^2 = 138 made gamma ~ 1e-3 and nothing moved in 400 rounds (the
    squared gradient went 0.903 -> 0.913). Here the noise is what the theorem allows at its smallest: no DP noise
    (the theorem holds for any sigma_cor, sigma_ind >= 0) and minibatches of b = 7 of m = 8 points (the sampling
    noise that ALIE feeds on remains), so sigma_bar^2 = 0.54, gamma_T reaches the cap 1/(24L) at T = 100 and the
    iterates travel; horizons up to 800."""
    R = ctx.reps(6, 24)
    Ts = np.asarray(Ts)
    G = Ts.size
    one = cauchy_workers(1, n - f, m, d, spread=1.0, generator=ctx.generator("x03/data"), dtype=ctx.dtype,
                         device=ctx.torch_device)
    prob = CauchyWorkers(one.points.expand(G * R, -1, -1, -1).contiguous(), one.s)
    L, C, sigma2 = prob.smoothness, prob.gradient_bound, prob.variance_bound
    theta0 = torch.full((1, d), start, dtype=ctx.dtype, device=ctx.torch_device)
    L_star = float(one.loss_floor(torch.zeros_like(theta0))[0])
    L0 = float(one.loss(theta0)[0]) - L_star
    sb2 = sigma_bar2(n, f, d, sigma2, m, b, s_cor**2, s_ind**2)
    gam = np.minimum(1 / (24 * L), np.sqrt(3 * L0) / (16 * math.sqrt(sb2) * np.sqrt(L * Ts)))
    g_t = torch.as_tensor(np.repeat(gam, R), dtype=ctx.dtype, device=ctx.torch_device)
    run = cafcor(prob, theta0.expand(G * R, -1).clone(), f=f, T=int(Ts.max()), gamma=g_t, beta=1 - 24 * L * g_t, C=C,
                 sigma_cor=s_cor, sigma_ind=s_ind, batch_size=b, generator=ctx.generator("x03/run"), attack="alie",
                 attack_options={"tau": ALIE_TAU}, checkpoints=Ts, record_gradient_norms=True)
    sums = run.grad_norm2_sum.cpu().numpy()  # [G, G R]: row g at round T_g
    Y = np.stack([sums[g, g * R:(g + 1) * R] / Ts[g] for g in range(G)], 1)
    at = {"n": n, "f": f, "G_cov2": 0.0, "sigma_bar2": sb2, "L": L, "L_0": L0, "T": Ts.astype(float)}
    verdict, info = bound_verdict(Y, theory, values=at, rng=ctx.numpy_rng("bootstrap"))
    slope = float(np.polyfit(np.log(Ts), np.log(Y.mean(0)), 1)[0])
    th = run.theta  # [G, G R, d]: the iterates at the checkpoints Ts
    last = torch.stack([th[g, g * R:(g + 1) * R] for g in range(G)])  # [G, R, d]: theta_T of each horizon's group
    last_grad2 = np.stack([(one.honest_gradient(last[g]) ** 2).sum(-1).cpu().numpy() for g in range(G)]).mean(1)
    travel = np.linalg.norm((last - theta0).cpu().numpy(), axis=-1).mean(1)
    grad0 = float((one.honest_gradient(theta0) ** 2).sum())
    looseness = float(np.min(info["bound"] / Y.mean(0)))
    assumptions = [_clipping_assumption(run, C),
                   Assumption("L-smooth honest loss", True, L, "exact", "L = 2/s for the Cauchy loss"),
                   Assumption("bounded variance (Assumption 2.2)", True, sigma2, "upper bound", "sigma^2 = d is valid"),
                   Assumption("L_0 = L_H(theta_0) - L_*", L0 > 0, L0, "lower bound", "L_* estimated by gradient descent"),
                   Assumption("G_cov = 0 (identical datasets)", True, 0.0, "exact")]
    verdict = apply_assumptions(verdict, assumptions)
    mean = Y.mean(0)
    return result_for(
        ctx, _claim(theory, r"\frac{1}{T}\sum_{t<T}\mathbb{E}\|\nabla\mathcal{L}_{\mathcal{H}}(\theta_t)\|^2\leq"
                            r"480\kappa G_{\mathrm{cov}}^2+\sqrt{5760\cdot270}\,\bar\sigma\sqrt{\frac{L\mathcal{L}_0}{T}}"
                            r"+\frac{270L\mathcal{L}_0}{T}"),
        verdict,
        observed={"T": Ts, "mean_squared_gradient": mean, "ci": [info["ci_lo"], info["ci_hi"]], "slope_in_T": slope,
                  "initial_squared_gradient": grad0, "last_iterate_squared_gradient": last_grad2,
                  "distance_travelled": travel, "bound_over_observed_min": looseness, "replicates": R,
                  "clipped_fraction": float(run.clipped_fraction.max())},
        predicted={"bound": info["bound"], "gamma": gam, "gamma_cap_1_over_24L": 1 / (24 * L), "sigma_bar2": sb2,
                   "L_0": L0, "L_star_estimate": L_star, "expected_slope": -0.5},
        fit=info,
        explanation=(f"With the theorem's step size (gamma from {gam[0]:.1e} to {gam[-1]:.1e}, sigma_bar^2 = {sb2:.2f}) "
                     f"the iterates travelled {travel[0]:.2f} to {travel[-1]:.2f} from theta_0 and the squared gradient "
                     f"at theta_T fell from {grad0:.3f} to {last_grad2[-1]:.3f} (T = {Ts[-1]}); the average over t < T "
                     f"went {mean[0]:.3f} to {mean[-1]:.3f} (log-log slope {slope:.3f} in T; the bound's own slope is "
                     f"{np.polyfit(np.log(Ts), np.log(info['bound']), 1)[0]:.3f}). The explicit bound "
                     f"({info['bound'][-1]:.1f} at T = {Ts[-1]}) exceeds the observed average by at least "
                     f"{looseness:.0f}x (10^{math.log10(looseness):.1f})"
                     + (" and exceeds even the initial squared gradient, so no method, moving or not, could violate it "
                        "at these horizons." if np.min(info["bound"]) > grad0 else ".")
                     if verdict.passed else "The verdict is not 'holds': see the assumptions and fit."),
        finding=(remark(f"Theorem 4.2 (2)'s bound exceeds the observed average squared gradient by 10^"
                        f"{math.log10(looseness):.1f} at best (constants sqrt(5760 * 270) and 270 of the proof, even with "
                        f"no DP noise and sigma_bar^2 = {sb2:.2f}): it holds vacuously.")
                 if verdict.passed and looseness > 100 else None),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"CafCor, non-convex Cauchy loss (n = {n}, f = {f}, ALIE), theorem's step size", "T (horizon)",
            "(1/T) sum E||grad L_H(theta_t)||^2",
            [figspec.observed("CafCor", Ts, Y, rng=ctx.numpy_rng("figure")),
             figspec.line("Theorem 4.2 (2), explicit constants", Ts, info["bound"], "bound"),
             figspec.line("slope -1/2 through the first point", Ts, mean[0] * np.sqrt(Ts[0] / Ts), "reference")])),
        arrays={"mean_squared_gradient": Y},
    )
