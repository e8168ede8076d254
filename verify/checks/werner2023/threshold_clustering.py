"""werner2023 checks c09-c16: Threshold-Clustering (Theorem 3.1) and its lower bound (Theorem 3.2).

Our reading: docs/papers/werner2023.md §3.1-3.2, 6.2-6.3, 7 (A2). Default set-up of 6.2:
K Gaussian clusters in R^d with means exactly Delta apart, total variance sigma^2, n points per
cluster; Threshold-Clustering run for every cluster's center at once (each center evolves
independently, so this is K independent K=1 runs), initialised at one of the cluster's own
points (c_1^2 = sigma^2, the proof's hidden assumption (v)), tau = sqrt(delta sigma Delta), M steps.
Error of a replicate = mean over clusters of ||v_k - mu_k||^2.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.papers import werner2023 as W
from verify import figspec
from verify.algorithms.threshold_clustering import Radius, edge_of_ball_attack, threshold_clustering
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bound_verdict,
    combine,
    controlled,
    deterministic_verdict,
    geometric_rate_verdict,
    identity_verdict,
    rate_verdict,
    slope_fit,
)
from verify.problems.points import clustered_points, planted_means, random_unit
from verify.checks.werner2023 import search as SEARCH
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

register_paper(W.PAPER)

D_DIM, K_CLUSTERS, SIGMA = 10, 4, 1.0
DELTA_FRAC = 1.0 / K_CLUSTERS


def _tc_errors(ctx: Context, *, n: int, Delta: float, R: int, steps: int, stream: str, sigma: float = SIGMA,
               init_offset: torch.Tensor | None = None, attack=None, radius: Radius | None = None, init_rule: str = "first"):
    """Per-replicate error [R] of Threshold-Clustering on fresh clustered points, plus the data."""
    data = clustered_points(R, K_CLUSTERS, n, D_DIM, sigma, Delta, ctx.generator(stream), ctx.dtype)
    V0 = data.own_point_init(init_rule) if init_offset is None else data.means[None] + init_offset
    radius = radius or Radius.theory(DELTA_FRAC, sigma, Delta)
    V, _ = threshold_clustering(data.Z, V0, radius, steps, attack=attack)
    err = ((V - data.means[None]) ** 2).sum(-1).mean(-1)
    return err.cpu().numpy(), data


#: The control of Threshold-Clustering's claims: the same update with no threshold (tau = infinity), i.e. the
#: plain mean of all points, which every center reaches in one step; it must fail the claim.
NO_THRESHOLD = Radius.fixed(float("inf"))


def _no_threshold_errors(ctx: Context, *, n: int, Delta: float, R: int, stream: str) -> np.ndarray:
    """Per-replicate error [R] of the control (no threshold: the plain mean of every cluster's points), 2 steps."""
    return _tc_errors(ctx, n=n, Delta=Delta, R=R, steps=2, stream=f"control {stream}", radius=NO_THRESHOLD)[0]


def _thm31_assumptions(Delta: float, n: int, steps: int, beta: float = 0.0) -> list[Assumption]:
    need_l = W.tc_steps_required(SIGMA, Delta, DELTA_FRAC)
    return [
        Assumption("separation Delta >= 2 sigma/delta", Delta >= 2 * SIGMA / DELTA_FRAC, Delta, "exact",
                   f"planted; sigma/delta = {SIGMA / DELTA_FRAC:g} (the constant 2 is our reading of >~)"),
        Assumption("steps l >= log(sigma/Delta)/log(1-delta/2), eq. (13)", steps >= need_l, steps, "exact",
                   f"required {need_l:.1f}"),
        Assumption("initial error c_1^2 <= sigma^2 (proof step (v))", True, SIGMA**2, "exact",
                   "centers start at one of the cluster's own points"),
        Assumption("beta <= delta", beta <= DELTA_FRAC, beta, "exact", ""),
    ]


THM31_CLAIM = Claim(
    text=W.THM_3_1.statement, latex=r"\mathbb{E}\|v_{k_i,l}-\mathbb{E}z_i\|^2 \lesssim \frac{\sigma^2}{n_i}+\frac{\sigma^3}{\Delta}+\beta_i\sigma\Delta",
    source=W.THM_3_1.source, typst=W.THM_3_1.typst,
)


@check("werner2023.c09", "Threshold-Clustering reaches the oracle error sigma^2/n (slope -1 in n)", "rate", "holds",
       statements=("Theorem 3.1",))
def c09_oracle_scaling(ctx: Context, *, theory: Bound = W.ORACLE, ns=(4, 16, 64, 256), Delta: float = 64.0,
                       steps: int = 100, band=(0.8, 1.25), tol: float = 0.1) -> Result:
    """docs/papers/werner2023.md §6.2 claim 9: d=10, K=4, sigma=1, Delta=64, n in {4,16,64,256}; slope in [-1.1,-0.9] and
    error/(sigma^2/n) in [0.8, 1.25].

    Control: clustering without the threshold (tau = infinity: every center goes to the mean of all points)
    must fail the slope (its error is the squared distance between the mean of all clusters and the own one, ~Delta^2,
    whatever n) (verify.fit.controlled)."""
    R = ctx.reps(300, 1000)
    ns = np.asarray(ns)
    Y = np.stack([_tc_errors(ctx, n=int(n), Delta=Delta, R=R, steps=steps, stream=f"n={n}")[0] for n in ns], axis=1)
    rng = ctx.numpy_rng("bootstrap")
    oracle = theory(sigma=SIGMA, n=ns)
    v_rate, fit = rate_verdict(ns, Y, theory, param="n", values={"sigma": SIGMA}, tol=tol, rng=rng)
    v_lo, ratio_lo = bound_verdict(Y / oracle, band[0], side="lower", rng=rng)
    v_hi, ratio_hi = bound_verdict(Y / oracle, band[1], side="upper", rng=rng)
    Yc = np.stack([_no_threshold_errors(ctx, n=int(n), Delta=Delta, R=min(R, 50), stream=f"n={n}") for n in ns], axis=1)
    with aside():  # the control is not the claim
        v_ctrl, f_ctrl = rate_verdict(ns, Yc, theory, param="n", values={"sigma": SIGMA}, tol=tol, rng=rng)
    control = {"what": "clustering without the threshold (tau = infinity: the plain mean of all points)",
               "verdict": v_ctrl.value, "detail": f"error {Yc.mean():.3g} (slope {f_ctrl['slope']:.3f} in n against -1)"}
    assumptions = _thm31_assumptions(Delta, int(ns.min()), steps)
    verdict = apply_assumptions(controlled(combine([v_rate, v_lo, v_hi]), v_ctrl), assumptions)
    bound = W.THM_3_1(sigma=SIGMA, n=ns, Delta=Delta, beta=0.0)
    return result_for(
        ctx,
        Claim("With well-separated clusters the error of Threshold-Clustering falls as sigma^2/n_i: the first term "
              "of eq. (14) is attained (tight), slope -1 in n_i.", r"\mathbb{E}\|v-\mu\|^2 \approx \sigma^2/n_i",
              "werner2023, Theorem 3.1, eq. (14)", "EE norm(v - mu)^2 approx sigma^2 / n_i"),
        verdict,
        observed={"n": ns, "error_mean": ratio_hi["mean"] * oracle, "error_over_oracle": ratio_hi["mean"],
                  "ratio_ci_lo": ratio_lo["ci_lo"], "ratio_ci_hi": ratio_hi["ci_hi"], "replicates": R},
        predicted={"oracle_sigma2_over_n": oracle, "bound_terms_sum": bound, "exponent": fit["predicted_exponent"],
                   "bound_local_slope": W.THM_3_1.local_slope("n", sigma=SIGMA, n=ns, Delta=Delta, beta=0.0),
                   "ratio_band": list(band)},
        fit={**fit, "control": f_ctrl},
        control=control,
        explanation=(f"The fitted slope of the error against n is {fit['slope']:.3f} (95% CI {fit['slope_ci'][0]:.3f} to "
                     f"{fit['slope_ci'][1]:.3f}); the oracle predicts exactly {fit['predicted_exponent']:g}. The error divided by sigma^2/n stays "
                     f"between {ratio_hi['mean'].min():.2f} and {ratio_hi['mean'].max():.2f}: with Delta = 64 sigma the balls "
                     "capture exactly the own cluster, so the center converges to the cluster's sample mean. Control: "
                     f"without the threshold the {control['detail']} ({v_ctrl.value})."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            r"Error vs cluster size $n$ ($\Delta=64$, $\sigma=1$)", "n (points per cluster)", r"$\mathbb{E}\|v-\mu\|^2$",
            [figspec.observed("Threshold-Clustering", ns, Y, rng=ctx.numpy_rng("figure")),
             figspec.line(r"bound $\sigma^2/n+\sigma^3/\Delta$", ns, bound, "bound"),
             figspec.line(r"oracle $\sigma^2/n$", ns, oracle, "reference")])),
        arrays={"errors": Y},
    )


@check("werner2023.c10", "Bound (14) holds with one constant over an (n, Delta) grid", "bound", "holds",
       statements=("Theorem 3.1",))
def c10_bound_one_constant(ctx: Context, *, theory: Bound = W.THM_3_1, C: float = 2.0, ns=(4, 16, 64, 256),
                           Deltas=(8.0, 16.0, 32.0, 64.0), steps: int = 100) -> Result:
    """docs/papers/werner2023.md §6.2 claim 10: n in {4,16,64,256} x Delta in {8,16,32,64}, beta = 0;
    max over the grid of error/(sigma^2/n + sigma^3/Delta) <= 2.

    Control: clustering without the threshold (tau = infinity) on the same grid must violate the bound."""
    R = ctx.reps(100, 400)
    ns, Deltas = np.asarray(ns), np.asarray(Deltas, dtype=float)
    P = len(ns)
    Y = np.stack([_tc_errors(ctx, n=int(n), Delta=float(D), R=R, steps=steps, stream=f"n={n},D={D}")[0]
                  for D in Deltas for n in ns], axis=1)  # [R, 16], Delta-major
    nn, DD = np.meshgrid(ns, Deltas)
    at = {"sigma": SIGMA, "n": nn.ravel(), "Delta": DD.ravel(), "beta": 0.0}
    g = theory(**at)
    rng = ctx.numpy_rng("bootstrap")
    v, b = bound_verdict(Y, theory.scaled(C), values=at, rng=rng)
    ratio = b["mean"] / g
    Yc = np.stack([_no_threshold_errors(ctx, n=int(n), Delta=float(D), R=min(R, 20), stream=f"n={n},D={D}")
                   for D in Deltas for n in ns], axis=1)
    with aside():  # the control is not the claim
        v_ctrl, b_ctrl = bound_verdict(Yc, theory.scaled(C), values=at, rng=rng)
    control = {"what": "clustering without the threshold (tau = infinity: the plain mean of all points), same grid",
               "verdict": v_ctrl.value, "detail": f"worst error / bound {b_ctrl['worst_ratio']:.3g}"}
    # each assumption at its own worst grid point: separation at the smallest Delta, the step count
    # of eq. (13) at the largest
    hardest_sep = _thm31_assumptions(float(Deltas.min()), int(ns.min()), steps)
    hardest_steps = _thm31_assumptions(float(Deltas.max()), int(ns.min()), steps)
    assumptions = [hardest_sep[0], hardest_steps[1], *hardest_sep[2:]]
    verdict = apply_assumptions(controlled(v, v_ctrl), assumptions)
    fig_rng = ctx.numpy_rng("figure")
    panels = [figspec.panel(rf"$\Delta={D:g}$", "n", r"$\mathbb{E}\|v-\mu\|^2$",
                            [figspec.observed("Threshold-Clustering", ns, Y[:, i * P:(i + 1) * P], rng=fig_rng),
                             figspec.line(rf"${C:g}\,(\sigma^2/n+\sigma^3/\Delta)$", ns, C * g[i * P:(i + 1) * P], "bound")])
              for i, D in enumerate(Deltas)]
    return result_for(
        ctx, THM31_CLAIM, verdict,
        observed={"n": nn.ravel(), "Delta": DD.ravel(), "error_mean": b["mean"], "error_ci_hi": b["ci_hi"],
                  "ratio_to_bound": ratio, "max_ratio": float(ratio.max()), "min_ratio": float(ratio.min()), "replicates": R},
        predicted={"bound": g, "constant": C},
        fit={"fitted_constant": float(ratio.max()), "constant_allowed": C, "control_worst_ratio": b_ctrl["worst_ratio"]},
        control=control,
        explanation=(f"Over all {Y.shape[1]} grid points the measured error never exceeds {C:g} x (sigma^2/n + sigma^3/Delta): the worst "
                     f"ratio is {ratio.max():.3f}, the best {ratio.min():.3f}. The small ratios at large Delta show that the "
                     "sigma^3/Delta term is loose for light-tailed (Gaussian) clusters. Control: without the threshold the "
                     f"{control['detail']} ({v_ctrl.value})."),
        assumptions=assumptions,
        figure=figspec.figure(*panels),
        arrays={"errors": Y},
    )


@check("werner2023.c11", "The separation condition Delta >~ sigma/delta matters", "assumption", "holds",
       statements=("Theorem 3.1",))
def c11_separation_matters(ctx: Context, *, n: int = 256, Deltas=(2.0, 4.0, 8.0, 16.0), steps: int = 100,
                           far_above: float = 10.0, near: float = 1.25) -> Result:
    """docs/papers/werner2023.md §6.2 claim 11: n = 256, Delta in {2,4,8,16}: error at Delta = sigma/delta = 4 is >= 10x
    the oracle; for Delta >= 8 it is within 1.25x.

    The verdict uses our reading (docs/papers/werner2023.md) initialisation (the cluster's first point, E c_1^2 = sigma^2). The
    same grid is rerun with every start within sigma of the mean, which shows how much of the
    damage at small Delta comes from outlying starts rather than from the separation itself.

    The error at Delta = 8 is heavy-tailed: in 20,000 runs (seeds 1-5, 4,000 each) 7 were 220 to 283 x the oracle (a
    center frozen at an outlying start) and the mean was 1.147 x, under the 1.25 x tested. With 100 runs a sample holds
    such a run with probability about 3 %, and then the mean's interval crosses 1.25: the verdict is inconclusive (seen
    at 1 of 12 CPU seeds and 1 of 8 CUDA streams), never violated. More runs would not help below about 10^4.

    Verdict stability (measured at quick fidelity, seeds 0-9): 10 of 10 runs reached `holds`; the heavy tail at
    Delta = 8 is kept as measured (no trimming: the claim is about the mean error), so a rare `inconclusive` remains
    possible and is not hidden.
    """
    R = ctx.reps(100, 400)
    Deltas = np.asarray(Deltas, dtype=float)
    Y = np.stack([_tc_errors(ctx, n=n, Delta=float(D), R=R, steps=steps, stream=f"D={D}")[0] for D in Deltas], axis=1)
    Y_near = np.stack([_tc_errors(ctx, n=n, Delta=float(D), R=R, steps=steps, stream=f"D={D}", init_rule="within_sigma")[0]
                       for D in Deltas], axis=1)  # the same points, better starts
    oracle = SIGMA**2 / n
    rng = ctx.numpy_rng("bootstrap")
    ratio = Y / oracle
    v_small, b_small = bound_verdict(ratio[:, 1], far_above, side="lower", rng=rng)
    v_large, b_large = bound_verdict(ratio[:, 2:], near, side="upper", rng=rng)
    mean_ratio, near_ratio = ratio.mean(0), (Y_near / oracle).mean(0)
    outliers = (ratio[:, 2:] > 10).sum(0)
    return result_for(
        ctx,
        Claim("Theorem 3.1 needs Delta >~ sigma/delta_i. At Delta = sigma/delta the error is far above the oracle "
              "sigma^2/n; from Delta = 2 sigma/delta on it is at the oracle.", r"\Delta \gtrsim \sigma/\delta_i",
              "werner2023, Theorem 3.1 (hypothesis)", "Delta gt.tilde sigma / delta_i"),
        combine([v_small, v_large]),
        observed={"Delta": Deltas, "error_over_oracle": mean_ratio, "ratio_at_sigma_over_delta_ci": [b_small["ci_lo"][0], b_small["ci_hi"][0]],
                  "runs_over_10x_oracle_at_Delta_8_16": outliers, "error_over_oracle_starts_within_sigma": near_ratio,
                  "replicates": R},
        predicted={"oracle": oracle, "sigma_over_delta": SIGMA / DELTA_FRAC, "threshold_small": far_above, "threshold_large": near},
        explanation=(f"At Delta = sigma/delta = 4 the error is {mean_ratio[1]:.1f} x the oracle sigma^2/n (at Delta = 2: "
                     f"{mean_ratio[0]:.0f} x): other clusters' points fall inside the ball and bias the center. At Delta = 8 and 16 "
                     f"the ratio is {mean_ratio[2]:.2f} and {mean_ratio[3]:.2f}: the separation hypothesis is what makes the oracle rate "
                     f"possible. The mean at Delta = 8 is heavy-tailed ({outliers[0]} of {R} runs above 10 x, a center frozen at an "
                     "outlying start), so a rare run can make this verdict inconclusive."),
        assumptions=[Assumption("separation Delta >= 2 sigma/delta", True, 8.0, "exact",
                                "deliberately violated at Delta = 2, 4 (the point of this check); held at Delta = 8, 16")],
        finding=(f"Much of the damage at Delta = sigma/delta comes from the start, not the separation: with every center "
                 f"started within sigma of its mean (c_1^2 <= sigma^2 in every run rather than on average) the error at "
                 f"Delta = 4 is {near_ratio[1]:.1f} x the oracle instead of {mean_ratio[1]:.1f} x (Delta = 2: {near_ratio[0]:.0f} x "
                 f"instead of {mean_ratio[0]:.0f} x)."),
        figure=figspec.figure(figspec.panel(r"Error vs separation ($n=256$)", r"$\Delta$", r"$\mathbb{E}\|v-\mu\|^2$",
                                            [figspec.observed("first own point as start", Deltas, Y, rng=ctx.numpy_rng("figure")),
                                             figspec.observed(r"start within $\sigma$ of the mean", Deltas, Y_near, rng=ctx.numpy_rng("figure")),
                                             figspec.line(r"oracle $\sigma^2/n$", Deltas, oracle, "reference"),
                                             figspec.line(r"$10\,\sigma^2/n$", Deltas, 10 * oracle, "bound")])),
        arrays={"errors": Y, "errors_start_within_sigma": Y_near},
    )


@check("werner2023.c12", "Threshold-Clustering converges geometrically, at rate <= 1 - delta/2 per step", "rate", "holds",
       statements=("Theorem 3.1", "eq. (41)"))
def c12_geometric_convergence(ctx: Context, *, contraction_bound: Bound = W.TC_CONTRACTION,
                              steps_bound: Bound = W.TC_STEPS_TO_FLOOR, tol: float = 0.02, n: int = 64, Delta: float = 64.0,
                              L: int = 60) -> Result:
    """docs/papers/werner2023.md §6.2 claim 12: init at distance sigma from mu, Delta = 64, n = 64, l = 1..60; pre-floor
    contraction <= (1 - delta/2) + 0.02 (``contraction_bound``); error <= 2x final within ceil((2/delta) ln n) + 5 steps
    (``steps_bound``).

    Control: clustering without the threshold (tau = infinity) from the same start must fail the
    contraction: its center jumps to the mean of all clusters, so the error to the own mean grows instead of
    contracting (verify.fit.controlled)."""
    R = ctx.reps(200, 800)
    gen = ctx.generator("init-direction")
    data = clustered_points(R, K_CLUSTERS, n, D_DIM, SIGMA, Delta, ctx.generator("points"), ctx.dtype)
    u = random_unit(R * K_CLUSTERS, D_DIM, gen, ctx.dtype).reshape(R, K_CLUSTERS, D_DIM)
    V0 = data.means[None] + SIGMA * u
    _, hist = threshold_clustering(data.Z, V0, Radius.theory(DELTA_FRAC, SIGMA, Delta), L, record=True)
    err = ((hist - data.means[None, None]) ** 2).sum(-1).mean(-1).T.cpu().numpy()  # [R, L+1]
    steps = np.arange(L + 1)
    mean = err.mean(0)
    final = mean[-1]
    pre = np.nonzero(mean >= 10 * final)[0]
    pre = pre[pre >= 1] if pre.size > 1 else pre
    if pre.size < 2:  # converged almost at once: fit the first two steps
        pre = np.array([0, 1])
    rng = ctx.numpy_rng("bootstrap")
    limit = float(contraction_bound(delta=DELTA_FRAC)) + tol
    v_rate, g = geometric_rate_verdict(steps[pre], err[:, pre], limit, rng=rng)
    l_star = int(np.argmax(mean <= 2 * final))
    l_allowed = math.ceil(float(steps_bound(delta=DELTA_FRAC, n=n)))
    v_steps, _ = deterministic_verdict(l_star, l_allowed)
    Rc = min(R, 50)
    _, hc = threshold_clustering(data.Z[:Rc], V0[:Rc], NO_THRESHOLD, 5, record=True)
    err_c = ((hc - data.means[None, None]) ** 2).sum(-1).mean(-1).T.cpu().numpy()  # [Rc, 6]
    with aside():  # the control is not the claim
        v_ctrl, g_ctrl = geometric_rate_verdict(np.arange(6), err_c, limit, rng=rng)
    control = {"what": "clustering without the threshold (tau = infinity), the same start, 5 steps", "verdict": v_ctrl.value,
               "detail": f"error {err_c.mean(0)[0]:.3g} -> {err_c.mean(0)[-1]:.3g}: factor {g_ctrl['rate']:.3g} per step "
                         f"against {limit:.3g}"}
    contraction_value = limit - tol
    return result_for(
        ctx,
        Claim("The proof's recursion c_{l+1}^2 <~ (1 - delta_i/2) c_l^2 + (sigma^2/n_i + sigma^3/Delta + beta_i sigma Delta): "
              "the squared error contracts at least by 1 - delta_i/2 per step until it reaches the floor.",
              r"c_{l+1}^2 \lesssim (1-\delta_i/2)\,c_l^2 + \mathcal{E}", "werner2023, proof of Theorem 3.1, eq. (41)",
              "c_(l+1)^2 lt.tilde (1 - delta_i / 2) c_l^2 + cal(E)"),
        controlled(combine([v_rate, v_steps]), v_ctrl),
        observed={"contraction_per_step": g["rate"], "contraction_ci": g["rate_ci"], "pre_floor_steps": [int(pre.min()), int(pre.max())],
                  "steps_to_2x_final": l_star, "final_error": final, "replicates": R},
        predicted={"contraction_bound": contraction_value, "tolerance": tol, "steps_allowed": l_allowed,
                   "in_ball_fraction_rate_squared": (1 - DELTA_FRAC) ** 2},
        fit={"rate": g["rate"], "rate_ci": g["rate_ci"], "predicted_rate_bound": contraction_value, "tolerance": tol,
             "control": g_ctrl},
        control=control,
        explanation=(f"Before the floor, the squared error shrinks by a factor {g['rate']:.3f} per step (CI {g['rate_ci'][0]:.3f} to "
                     f"{g['rate_ci'][1]:.3f}), against the proof's 1 - delta/2 = {contraction_value:.3f}; with the whole cluster in the ball "
                     f"the exact factor is (1 - delta)^2 = {(1 - DELTA_FRAC) ** 2:.4f}. The error is within 2x its final value after "
                     f"{l_star} steps (allowed: {l_allowed}). Control: without the threshold the {control['detail']} "
                     f"({v_ctrl.value})."),
        assumptions=[Assumption("initial error c_1^2 <= sigma^2", True, SIGMA**2, "exact", "init at mu + sigma u")],
        figure=figspec.figure(figspec.panel(r"Error vs Threshold-Clustering step ($\Delta=64$, $n=64$)", "step l", r"$\mathbb{E}\|v_l-\mu\|^2$",
                                            [figspec.observed("Threshold-Clustering", steps, err, rng=ctx.numpy_rng("figure")),
                                             figspec.line(r"$(1-\delta/2)^l\,\sigma^2$", steps, SIGMA**2 * contraction_value ** steps, "bound"),
                                             figspec.line(r"oracle $\sigma^2/n$", steps, SIGMA**2 / n, "reference")],
                                            xscale="linear")),
        arrays={"errors": err},
    )


@check("werner2023.c13", "Byzantine robustness (Definition 1): excess error <= beta sigma Delta", "bound", "holds",
       space=SEARCH.C13_SPACE, objective=SEARCH.C13_OBJECTIVE, statements=("Theorem 3.1", "Definition 1"))
def c13_byzantine_robustness(ctx: Context, *, theory: Bound = W.BYZANTINE_TERM, fixed_point=W.edge_attack_excess,
                             bs=(0, 4, 8, 16, 32), breakdown_bs=(40, 48, 56, 64), n: int = 64, Delta: float = 64.0,
                             steps: int = 100, control_c_tau: float = 4.0) -> Result:
    """docs/papers/werner2023.md §6.2 claim 13: n = 64, K = 4, Delta = 64; b edge-of-ball attackers at v + tau(1-1e-9)u each step.
    excess(beta) <= beta sigma Delta; the derived fixed point predicts excess = (b/n)^2 tau^2 within 20%.

    Control: the robustness comes from the small threshold tau = sqrt(delta sigma Delta). The same harness with
    the threshold loosened to ``control_c_tau`` (4) x tau, which still clusters correctly at beta = 0 (4 tau = Delta/4),
    lets the edge-of-ball attackers pull (b/n)^2 (4 tau)^2 = 16 x as far: at the largest b it must violate
    excess <= beta sigma Delta (verify.fit.controlled)."""
    R = ctx.reps(100, 400)
    bs, breakdown_bs = np.asarray(bs), np.asarray(breakdown_bs)
    tau = W.theory_radius(DELTA_FRAC, SIGMA, Delta)
    u = random_unit(R, D_DIM, ctx.generator("attack-direction"), ctx.dtype)
    errs = []
    for b in np.concatenate([bs, breakdown_bs]):
        # the same points for every b (common random numbers): excess is a paired difference
        e, _ = _tc_errors(ctx, n=n, Delta=Delta, R=R, steps=steps, stream="points",
                          attack=edge_of_ball_attack(u, int(b)) if b > 0 else None)
        errs.append(e)
    E = np.stack(errs, axis=1)
    betas = bs / (K_CLUSTERS * n + bs)
    excess = E[:, 1:len(bs)] - E[:, [0]]
    rng = ctx.numpy_rng("bootstrap")
    at = {"beta": betas[1:], "sigma": SIGMA, "Delta": Delta}
    byz_bound = theory(**at)
    v_bound, bb = bound_verdict(excess, theory, values=at, rng=rng)
    loose = Radius.theory(DELTA_FRAC, SIGMA, Delta, c_tau=control_c_tau)
    Rc, b_c = min(R, 50), int(bs.max())
    e_c = [_tc_errors(ctx, n=n, Delta=Delta, R=Rc, steps=steps, stream="points", radius=loose,
                      attack=edge_of_ball_attack(u[:Rc], b) if b > 0 else None)[0] for b in (0, b_c)]
    beta_c = b_c / (K_CLUSTERS * n + b_c)
    with aside():  # the control is not the claim
        v_ctrl, b_ctrl = bound_verdict((e_c[1] - e_c[0])[:, None], theory, values={"beta": beta_c, "sigma": SIGMA,
                                                                                   "Delta": Delta}, rng=rng)
    control = {"what": f"Threshold-Clustering with the threshold loosened to {control_c_tau:g} x sqrt(delta sigma Delta), "
                       f"b = {b_c} edge-of-ball attackers", "verdict": v_ctrl.value,
               "detail": f"excess {b_ctrl['mean'][0]:.3g} against beta sigma Delta = {b_ctrl['bound'][0]:.3g}"}
    predicted = np.array([fixed_point(int(b), n, tau) for b in bs[1:]])
    # the fixed point is our derivation, not the paper's: it is reported next to the verdict, never in it
    _, pred_fit = identity_verdict(bb["mean"], predicted, rtol=0.2)
    sf = slope_fit(betas[1:], excess, rng=rng) if np.all(bb["mean"] > 0) else None
    breakdown_err = E[:, len(bs):].mean(0)
    broken = breakdown_bs[breakdown_err > 100 * SIGMA**2]
    assumptions = [Assumption("beta <= delta/2 on the tested grid", bool(betas.max() <= DELTA_FRAC / 2), float(betas.max()), "exact", "")]
    return result_for(
        ctx,
        Claim("Definition 1 and eq. (14): Byzantine points add at most a constant times beta_i sigma Delta to the error, "
              "even when placed at the edge of the ball, the paper's worst case.", r"\mathrm{err}(\beta)-\mathrm{err}(0) \le \beta\sigma\Delta",
              "werner2023, Definition 1, Theorem 3.1 (third term of eq. (14))",
              "op(\"err\")(beta) - op(\"err\")(0) <= beta sigma Delta"),
        apply_assumptions(controlled(v_bound, v_ctrl), assumptions),
        observed={"b": bs[1:], "beta": betas[1:], "excess_mean": bb["mean"], "excess_ci_hi": bb["ci_hi"],
                  "error_beta0": float(E[:, 0].mean()), "breakdown_b": breakdown_bs, "breakdown_error": breakdown_err,
                  "first_breakdown_b_over_n": float(broken.min() / n) if broken.size else None, "replicates": R},
        predicted={"bound_beta_sigma_Delta": byz_bound, "fixed_point_excess": predicted, "tau": tau},
        fit={"slope": sf.slope if sf else None, "slope_ci": [sf.lo, sf.hi] if sf else None, "derived_exponent": 2.0, "bound_exponent": 1.0,
             "prediction_max_rel_error": pred_fit["max_rel_error"], "control_worst_ratio": b_ctrl["worst_ratio"]},
        control=control,
        explanation=({"holds": "The excess error over beta = 0 stays below beta sigma Delta at every beta",
                      "violated": "The excess error over beta = 0 is NOT below beta sigma Delta at every beta",
                      "inconclusive": "The evidence cannot place the excess error on either side of beta sigma Delta"}[v_bound.value]
                     + f" (worst ratio {bb['worst_ratio']:.3f}). "
                     + (f"It grows with slope {sf.slope:.2f} in beta: " if sf else "")
                     + f"the fixed point (b/n)^2 tau^2 of our derivation predicts it within {pred_fit['max_rel_error']:.1%}, "
                     "so excess/beta -> 0 as Definition 1 requires. "
                     + (f"Breakdown (error > 100 sigma^2) starts at b/n = {broken.min() / n:.2f} (beta/delta, with delta = n/N "
                        "counting the Byzantine points)." if broken.size else "No breakdown up to b = n.")),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel("Excess error vs Byzantine fraction (edge-of-ball attack)", r"$\beta$", r"$\mathrm{err}(\beta)-\mathrm{err}(0)$",
                                            [figspec.observed("Threshold-Clustering", betas[1:], excess, rng=ctx.numpy_rng("figure")),
                                             figspec.line(r"bound $\beta\sigma\Delta$", betas[1:], byz_bound, "bound"),
                                             figspec.line(r"fixed point $(b/n)^2\tau^2$", betas[1:], predicted, "reference")])),
        arrays={"errors": E},
    )


@check("werner2023.c14", "Initialisation within sigma is needed (hidden assumption c_1^2 <= sigma^2)", "assumption", "holds",
       statements=("Theorem 3.1",))
def c14_initialisation(ctx: Context, *, n: int = 64, Delta: float = 64.0, steps: int = 100, near: float = 1.25,
                       failure_threshold: float = 100 * SIGMA**2) -> Result:
    """docs/papers/werner2023.md §6.2 claim 14: init at mu_k + r u, r in {sigma, Delta/2, 0.9 Delta, Delta}, u towards another
    cluster's mean. Expect the oracle at r = sigma and failure (frozen center, or the other
    cluster) once r >~ Delta - tau."""
    R = ctx.reps(50, 200)
    tau = W.theory_radius(DELTA_FRAC, SIGMA, Delta)
    radii = np.array([SIGMA, 0.5 * Delta, 0.9 * Delta, Delta])
    data_means = planted_means(K_CLUSTERS, D_DIM, Delta, ctx.dtype, ctx.torch_device)
    towards = (torch.roll(data_means, -1, dims=0) - data_means) / Delta  # unit vector to the next cluster's mean
    Y = np.stack([_tc_errors(ctx, n=n, Delta=Delta, R=R, steps=steps, stream="points",
                             init_offset=(r * towards)[None].expand(R, -1, -1))[0] for r in radii], axis=1)
    rng = ctx.numpy_rng("bootstrap")
    oracle = SIGMA**2 / n
    v_ok, b_ok = bound_verdict(Y[:, :1] / oracle, near, side="upper", rng=rng)
    v_fail, b_fail = bound_verdict(Y[:, 1:], failure_threshold, side="lower", rng=rng)
    return result_for(
        ctx,
        Claim("Theorem 3.1's proof assumes the initial center is within sigma of the true mean (step (v)); the statement "
              "does not list it. Started far away, Threshold-Clustering freezes (no point in the ball) or converges to "
              "another cluster.", r"c_1^2 = \mathbb{E}\|v_{k_i,0}-\mathbb{E}z_i\|^2 \le \sigma^2",
              "werner2023, proof of Theorem 3.1, step (v) (a condition on the start the proof uses and the statement omits)",
              "c_1^2 = EE norm(v_(k_i,0) - EE z_i)^2 <= sigma^2"),
        combine([v_ok, v_fail]),
        observed={"r": radii, "final_error": Y.mean(0), "final_error_ci_lo_far": b_fail["ci_lo"],
                  "replicates": R},
        predicted={"oracle": oracle, "failure_threshold": failure_threshold, "Delta_minus_tau": Delta - tau,
                   "frozen_error_r2": radii**2},
        explanation=(f"Started at distance sigma the center reaches {Y[:, 0].mean() / oracle:.2f} x the oracle. Started at "
                     f"Delta/2, 0.9 Delta or Delta (beyond Delta - tau = {Delta - tau:.0f}) the final errors are "
                     f"{', '.join(f'{v:.0f}' for v in Y[:, 1:].mean(0))}: the center either has no point within tau and never moves "
                     "(error r^2), or locks onto the neighbouring cluster (error Delta^2)."),
        assumptions=[Assumption("c_1^2 <= sigma^2", True, SIGMA**2, "exact", "held only at r = sigma; violated on purpose elsewhere")],
        figure=figspec.figure(figspec.panel(r"Final error vs initial distance $r$", r"$r$", r"$\mathbb{E}\|v-\mu\|^2$",
                                            [figspec.observed("Threshold-Clustering", radii, Y, rng=ctx.numpy_rng("figure")),
                                             figspec.line(r"frozen center $r^2$", radii, radii**2, "reference"),
                                             figspec.line(r"oracle $\sigma^2/n$", radii, oracle, "reference")])),
        arrays={"errors": Y},
    )


def _c15_erratum(measured_at_2: float, claimed_at_2: float):
    """The five fields of eq. (95)'s erratum; the second argument is exact arithmetic (sympy) at sigma = 1, Delta = 2
    and a symbolic identity for every sigma, Delta."""
    sg, D = sp.symbols("sigma Delta", positive=True)
    S = sp.sqrt(4 * sg**2 + D**2)
    p = sp.Rational(1, 2) - D / (2 * S)  # eq. (93)
    odds = sp.simplify(p / (1 - p) - (S - D) / (S + D))  # 0: the correct ratio
    paper_odds = sp.simplify(p / (1 - p) - (S - D) / D)  # not 0: the ratio (95) uses
    exact = sp.nsimplify(sp.simplify((sg**2 * p / (4 * (1 - p))).subs({sg: 1, D: 2})))  # (94) at sigma = 1, Delta = 2
    closed = sp.radsimp(1 / (sp.sqrt(8) + 2) ** 2)
    # certificate: (3 - 2 sqrt 2)/4 < 1/16  <=>  11 < 8 sqrt 2  <=>  121 < 128 (both sides positive)
    return erratum(
        "Theorem 3.2's proof, eq. (95): the lower bound sigma^4/(4 Delta^2) on the construction's error a^2p^2/4 is false; "
        "the error is exactly sigma^4/(S + Delta)^2 with S = sqrt(4 sigma^2 + Delta^2), at least sigma^4/(9 Delta^2) when "
        "Delta^2 >= 2 sigma^2, so the Omega(sigma^4/Delta^2) conclusion survives with constant 1/9.",
        paper_says=("Appendix A.2 (proof of Theorem 3.2), eq. (95): \"Plugging the expression for p from (93) into (94), we "
                    "can see that delta^2 p^2/4 = sigma^2/4 (sqrt(4 sigma^2 + Delta^2) - Delta)/Delta = sigma^2/4 (sqrt(1 + "
                    "4 sigma^2/Delta^2) - 1) >= sigma^2/4 (2 sigma^2/Delta^2 - 2 sigma^4/Delta^4)\", and then "
                    "\"E||mu_hat_1 - mu_1||^2 >= delta^2 p^2/4 >= sigma^4/(4 Delta^2)\" (paper lines ~700-704)."),
        correction=("(The paper names the atom delta; it is our a.) With p from (93), p/(1 - p) = (S - Delta)/(S + Delta), not (S - Delta)/Delta; so (94) gives "
                    "a^2p^2/4 = sigma^2 (S - Delta)/(4 (S + Delta)) = sigma^4/(S + Delta)^2. For Delta^2 >= 2 sigma^2, "
                    "S <= sqrt(3) Delta, hence a^2p^2/4 >= sigma^4/((1 + sqrt 3)^2 Delta^2) >= sigma^4/(9 Delta^2)."),
        witness=(f"sigma = 1, Delta = 2 (inside the regime Delta^2 >= 2 sigma^2): a^2p^2/4 = {sp.sstr(exact)} = "
                 f"{float(exact):.6f} (the construction's numbers give {measured_at_2:.6f}) < sigma^4/(4 Delta^2) = 1/16 = "
                 f"{claimed_at_2:.6f}."),
        second_argument=(f"Exact, by sympy: p/(1 - p) - (S - Delta)/(S + Delta) simplifies to {sp.sstr(odds)} for all sigma, "
                         f"Delta > 0, while p/(1 - p) - (S - Delta)/Delta simplifies to {sp.sstr(paper_odds)} (not 0). At sigma = 1, "
                         f"Delta = 2 the closed form 1/(sqrt 8 + 2)^2 = {sp.sstr(closed)}; and (3 - 2 sqrt 2)/4 < 1/16 <=> "
                         "11 < 8 sqrt 2 <=> 121 < 128, an integer certificate."))


@check("werner2023.c15", "Theorem 3.2's construction: eq. (95) algebra error, corrected constant 1/9", "erratum", "violated",
       statements=("eq. (95)",))
def c15_lower_bound_constant(ctx: Context, *, claimed: Bound = W.PAPER_CLAIMED, corrected: Bound = W.CORRECTED,
                             construction=W.construction, Deltas=(1.5, 2.0, 4.0, 8.0, 16.0)) -> Result:
    """docs/papers/werner2023.md §6.3 claim 15 and 7 (A2). For sigma = 1, Delta in {1.5, 2, 4, 8, 16}: the construction is valid
    (mean gap Delta, variance sigma^2), a^2p^2/4 = sigma^4/(S+Delta)^2 exactly, >= sigma^4/(9 Delta^2)
    when Delta^2 >= 2 sigma^2 -- but the paper's printed sigma^4/(4 Delta^2) fails (Delta = 2: 0.0429 < 0.0625)."""
    Deltas = np.asarray(Deltas, dtype=float)
    c = [construction(SIGMA, float(D)) for D in Deltas]
    p, a = np.array([x["p"] for x in c]), np.array([x["a"] for x in c])
    err = np.array([x["error"] for x in c])
    v_gap, f_gap = identity_verdict(a * (1 - p) - a * p, Deltas, rtol=1e-12)
    v_var, f_var = identity_verdict(a**2 * p * (1 - p), SIGMA**2, rtol=1e-12)
    v_closed, f_closed = identity_verdict(err, [x["closed_form"] for x in c], rtol=1e-12)
    symbolic_zero = sp.simplify(W.CONSTRUCTION_ERROR - W.CONSTRUCTION_ERROR_CLOSED) == 0
    regime = Deltas**2 >= 2 * SIGMA**2
    at = {"sigma": SIGMA, "Delta": Deltas[regime]}
    corrected_v = corrected(sigma=SIGMA, Delta=Deltas)
    claimed_v = claimed(sigma=SIGMA, Delta=Deltas)
    v_corrected, _ = deterministic_verdict(err[regime], corrected, at=at)
    v_paper, _ = deterministic_verdict(err[regime], claimed, at=at)
    # The paper's inequality is the claim under test; our construction must be right for the verdict to count.
    construction_ok = all(v.passed for v in (v_gap, v_var, v_closed, v_corrected)) and symbolic_zero
    assumptions = [
        Assumption("Delta^2 >= 2 sigma^2 (where (95) is claimed)", True, 2.0, "exact", "only grid points in this regime are compared"),
        Assumption("our construction is right: gap Delta, variance sigma^2, closed form, corrected 1/9 bound", construction_ok,
                   max(f_gap["max_rel_error"], f_var["max_rel_error"], f_closed["max_rel_error"]), "exact",
                   "largest relative error of the construction's identities; the closed form is also checked symbolically"),
    ]
    verdict = apply_assumptions(v_paper, assumptions)
    i2 = int(np.argmin(np.abs(Deltas - 2.0)))
    return result_for(
        ctx,
        Claim(claimed.statement + " (the last step of the Theorem 3.2 proof).", r"\frac{a^2p^2}{4} \ge \frac{\sigma^4}{4\Delta^2}",
              claimed.source, claimed.typst),
        verdict,
        observed={"Delta": Deltas, "p": p, "a": a, "a2p2_over_4": err, "mean_gap_rel_error": f_gap["max_rel_error"],
                  "variance_rel_error": f_var["max_rel_error"], "closed_form_rel_error": f_closed["max_rel_error"],
                  "symbolic_identity": bool(symbolic_zero)},
        predicted={"paper_sigma4_over_4Delta2": claimed_v, "corrected_sigma4_over_9Delta2": corrected_v,
                   "exact_sigma4_over_(S+Delta)^2": [x["closed_form"] for x in c]},
        explanation=(f"The construction is valid (gap and variance exact to {max(f_gap['max_rel_error'], f_var['max_rel_error']):.1e}) and its "
                     f"error is exactly sigma^4/(S+Delta)^2, verified symbolically. At Delta = 2 it equals {err[i2]:.4f}, below the paper's "
                     f"sigma^4/(4 Delta^2) = {claimed_v[i2]:.4f}: eq. (95) used p/(1-p) = (S-Delta)/Delta instead of (S-Delta)/(S+Delta). "
                     "The Omega(sigma^4/Delta^2) conclusion survives with constant 1/9."),
        assumptions=assumptions,
        finding=_c15_erratum(err[i2], claimed_v[i2]) if not verdict.passed else remark("eq. (95)'s bound held on this grid"),
        figure=figspec.figure(figspec.panel(r"Theorem 3.2 construction ($\sigma=1$)", r"$\Delta$", r"$a^2p^2/4$",
                                            [figspec.observed(r"exact $a^2p^2/4$", Deltas, err[None]),
                                             figspec.line(r"paper: $\sigma^4/(4\Delta^2)$", Deltas, claimed_v, "bound"),
                                             figspec.line(r"corrected: $\sigma^4/(9\Delta^2)$", Deltas, corrected_v, "reference")])),
    )


@check("werner2023.c16", "Theorem 3.2: no estimator beats a^2p^2/4 on the indistinguishable mixtures", "bound", "holds",
       no_control="a lower bound over every estimator (two worlds with one law): an information-theoretic fact, no algorithm "
                  "whose property could be absent; the estimators run are instances of it", statements=("Theorem 3.2",))
def c16_indistinguishability(ctx: Context, *, theory: Bound = W.THM_3_2_FLOOR, construction=W.construction, n: int = 64,
                             Delta: float = 2.0) -> Result:
    """docs/papers/werner2023.md §6.3 claim 16. Samples from M = Bernoulli(1/2) * a are equally likely under (D1, D2) and under
    (point mass 0, point mass a), where mu_1 is a p resp. 0; any estimate mu_hat has worst-case error
    max{(mu_hat - a p)^2, mu_hat^2} >= (a p / 2)^2 = a^2 p^2 / 4."""
    R = ctx.reps(200, 1000)
    c = construction(SIGMA, Delta)
    a, p = c["a"], c["p"]
    gen = ctx.generator("mixture")
    Z = (torch.rand(R, n, 1, generator=gen, dtype=ctx.dtype, device=gen.device) < 0.5).to(ctx.dtype) * a
    lo_pt, hi_pt = Z.min(1, keepdim=True).values, Z.max(1, keepdim=True).values
    V, _ = threshold_clustering(Z, torch.cat([lo_pt, hi_pt], 1), Radius.fixed(a / 2), 20)
    estimators = {
        "Threshold-Clustering (K=2), lower center": V[:, 0, 0],
        "sample mean": Z.mean((1, 2)),
        "a p / 2 with a = largest sample (minimax)": hi_pt[:, 0, 0] * p / 2,
        "smallest sample": lo_pt[:, 0, 0],
    }
    worst = {k: torch.maximum((e - a * p) ** 2, e**2).cpu().numpy() for k, e in estimators.items()}
    floor = float(theory(a=a, p=p))
    mins = {k: float(v.min()) for k, v in worst.items()}
    verdict, _ = deterministic_verdict(list(mins.values()), floor - 1e-12, side="lower")
    names = list(worst)
    return result_for(
        ctx,
        Claim("Mixtures 1/2 D1 + 1/2 D2 and 1/2 delta_0 + 1/2 delta_a have the same law, but mu_1 = a p in one and 0 in the "
              "other; so every estimator has worst-case squared error at least a^2 p^2/4.",
              r"\max\{(\hat\mu_1-ap)^2,\hat\mu_1^2\}\ge a^2p^2/4", "werner2023, Theorem 3.2 proof (Appendix A.2)",
              "max{(hat(mu)_1 - a p)^2, hat(mu)_1^2} >= a^2 p^2 / 4"),
        verdict,
        observed={"estimators": names, "min_worst_case_error": [mins[k] for k in names],
                  "mean_worst_case_error": [float(worst[k].mean()) for k in names], "replicates": R, "n": n},
        predicted={"a2p2_over_4": floor, "construction_error": c["error"], "a": a, "p": p, "Delta": Delta, "sigma": SIGMA},
        explanation=(f"For each of {len(names)} estimators and {R} samples of size {n}, the worst-case error over the two "
                     f"indistinguishable worlds is at least a^2p^2/4 = {floor:.4f}; the smallest seen is {min(mins.values()):.4f}. "
                     "No algorithm can do better, which is why Theorem 3.1's sigma^3/Delta term cannot drop below sigma^4/Delta^2."),
        figure=figspec.figure(figspec.panel(r"Worst-case error by estimator ($\Delta=2$, $\sigma=1$)", "estimator #", "max error over the two worlds",
                                            [figspec.observed("worst-case error", np.arange(1, len(names) + 1),
                                                              np.stack([worst[k] for k in names], 1), rng=ctx.numpy_rng("figure")),
                                             figspec.line(r"$a^2p^2/4$", np.arange(1, len(names) + 1), floor, "bound")],
                                            xscale="linear", yscale="linear")),
    )
