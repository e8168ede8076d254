"""werner2023 checks x08-x09: two of Federated-Clustering's own claims that were only assumptions or side
notes of other checks.

- x08: Section 3.1.3 on Example 1 (Fig. 1(a), drawn at eta = 0.5): Federated-Clustering "correctly clusters {1,2}
  together ... and client {2}'s parameters update beyond the saddle-point and converge to the global minimum at x = 0".
  At the figure's eta = 0.5 they do not, for any radius: near 0 the clustered update has multiplier 1 - eta v'(0) with
  |.| > 1 for every ball client 2 can see (exact, fractions). c03 used this only as an assumption of its control.
- x09: contribution list (line ~62): the algorithms "are not sensitive to the model's initial weights (Section 4)".
  Federated-Clustering from four very different starts (zero, a far common point, far per-client points, each client at
  the other cluster's optimum) on clustered quadratics with A > 0 reaches every client's own optimum; the control, IFCA
  (loss-value clustering, Example 2's mechanism) from the same starts, loses a cluster in some of them. x01 covers one
  random start family at scale 3 on regression; this varies the start itself.

Our reading: docs/papers/werner2023.md §4.1 (A12), 1.8.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.constants.clustering import a2_quadratics
from analytic.papers import werner2023 as W
from verify.checks.werner2023.example1 import CONV_TOL, M_STEPS, run_fc
from verify import figspec
from verify.algorithms.federated_clustering import federated_clustering_run
from verify.algorithms.ifca import ifca
from verify.engine import Context
from verify.fit import apply_assumptions, controlled, deterministic_verdict, unanimous
from verify.problems.clustered_quadratics import clustered_quadratics
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

register_paper(W.PAPER)


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


# -- x08: Example 1 at the figure's eta = 0.5 ------------------------------------------------------------------
def example1_multipliers(eta: Fraction = Fraction(1, 2), M: int = M_STEPS) -> dict:
    """Exact derivative at x = 0 of client 2's clustered update x -> x - eta v(x), for each ball client 2 can see near 0.

    Near 0 (eta-independent shapes): g_1 = x/(3 eta), g_2 = 12 (x-1)^2 x (so g_2'(0) = 12), g_3 = (x-2)/eta (-2/eta at 0).
    Threshold-Clustering (N = 3) from v_0 = g_2 with a ball S fixed over its M steps: v_M = m_S + (1 - |S|/3)^M (g_2 - m_S).
    Ball {2}: v = g_2; ball {1, 2}: v' = m' + (1/3)^M (g_2' - m'), m' = (g_1' + g_2')/2; a ball containing 3 has v(0) != 0,
    so x = 0 is not even a fixed point. Returns the multipliers and v(0) exactly."""
    g1p, g2p, g3_0 = 1 / (3 * eta), Fraction(12), -2 / eta
    m12 = (g1p + g2p) / 2
    v12p = m12 + Fraction(1, 3) ** M * (g2p - m12)
    v123_0 = g3_0 / 3  # p = 1: one step lands on the mean (0 + 0 + g_3(0))/3
    v23_0 = (g3_0 / 2) * (1 - Fraction(1, 3) ** M)  # from v_0 = g_2(0) = 0 towards m = g_3(0)/2
    return {"ball {2}": 1 - eta * g2p, "ball {1,2}": 1 - eta * v12p, "v(0), ball {1,2,3}": v123_0, "v(0), ball {2,3}": v23_0,
            "stable_eta_limit_ball_12": Fraction(11, 36)}


CONVERGES = Bound(name="|x_2,t| over the last rounds", expr=sp.Symbol("tol", positive=True), kind="upper",
                  hidden_constant=False,
                  statement=("Section 3.1.3 (Example 1, Fig. 1(a) at eta = 0.5): with Federated-Clustering 'client {2}'s "
                             "parameters update beyond the saddle-point and converge to the global minimum at x = 0'."),
                  source="werner2023, Section 3.1.3 'Example 1: Fig. 0(a)' and Fig. 1(a)'s caption (eta = 0.5)",
                  typst="lim_(t -> oo) x_(2,t) = 0")


@check("werner2023.x08", "Example 1 at the figure's eta = 0.5: Federated-Clustering does not bring client 2 to 0 for any radius",
       "erratum", "violated")
def x08_example1_eta_half(ctx: Context, *, theory: Bound = CONVERGES, eta: float = 0.5,
                          taus=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.9, 2.5, 3.0, 3.5, 5.0), tail: int = 100,
                          tol: float = CONV_TOL) -> Result:
    """Run Algorithm 2 (M = 10, all clients from 1.5) on Example 1 with the figure's eta = 0.5 for every tau in ``taus``;
    'converges to 0' is read as max |x_2,t| over the last ``tail`` rounds <= tol (the bound). The paper names no tau, so the
    verdict is unanimous over the grid: violated only when it fails for every tau. Sanity control of the harness: at
    eta = 0.25, tau eta = 0.5 (inside c03's window) client 2 does reach 0."""
    T = ctx.pick(400, 5000)
    grid = list(taus)
    tr = run_fc(ctx, [eta] * len(grid) + [0.25], [t * eta for t in grid] + [0.5], T)
    x = tr.x[..., 0]  # [T+1, R, 3]
    tail_max = _np(x[-tail:, :, 1].abs().amax(0))
    bound = float(theory(tol=tol))
    parts = [deterministic_verdict([tail_max[r]], bound, side="upper")[0] for r in range(len(grid))]
    verdict_paper = unanimous(parts)
    sane = bool(tail_max[-1] <= tol)
    ex = example1_multipliers(Fraction(eta).limit_denominator(1000))
    exact_ok = all(abs(ex[k]) > 1 for k in ("ball {2}", "ball {1,2}")) and ex["v(0), ball {1,2,3}"] != 0 and ex["v(0), ball {2,3}"] != 0
    assumptions = [
        Assumption("harness sanity: at eta = 0.25, tau eta = 0.5 client 2 reaches 0", sane, float(tail_max[-1]), "exact",
                   "c03's working window"),
        Assumption("exact argument computed (fractions)", exact_ok, float(abs(ex["ball {1,2}"])), "exact",
                   "|multiplier| of ball {1,2} at x = 0"),
    ]
    verdict = apply_assumptions(verdict_paper, assumptions)
    finals = _np(x[-1, :len(grid), 1])
    finding = erratum(
        "Example 1 at the figure's eta = 0.5: Federated-Clustering does not bring client 2 to its minimum x = 0, for any "
        "radius. f_2 is not (1/eta)-smooth there (f_2''(0) = 12 > 1/eta = 2): near 0 every ball client 2 can form makes 0 "
        "either repelling (|multiplier| > 1) or not a fixed point. The paper's description holds for eta < 11/36 with "
        "tau eta in [1/3, 2/3) (c03).",
        paper_says=("Section 3.1.3, 'Example 1: Fig. 0(a)': Federated-Clustering computes the gradients at client 1's parameters "
                    "'g_1(1) = 1/(3 eta), g_2(1) = 0, and g_3(1) = -1/eta. Therefore it correctly clusters {1,2} together at this "
                    "point, and client {2}'s parameters update beyond the saddle-point and converge to the global minimum at "
                    "x = 0' (line ~221); Fig. 1(a)'s caption: 'Myopic-Clustering (eta = 0.5)' (the figure's instance of Example 1, eqs. "
                    "(2)-(4), whose losses are built with the learning rate eta)."),
        correction=("With the learning rate the losses are built with, client 2 converges to 0 only if eta < 11/36 (then the "
                    "ball {1,2} update contracts near 0: multiplier 1 - (1/3 + 12 eta)/2 in (-1, 1)) and tau eta in [1/3, 2/3); "
                    "at eta = 0.5 a smaller step on the same losses, or Fig. 1(a) drawn at eta <= 0.25, would make the "
                    "sentence true."),
        witness=(f"Measured: eta = 0.5, M = 10, x_0 = 1.5, T = {T}: max |x_2,t| over the last {tail} rounds is "
                 f"{tail_max[:len(grid)].min():.3g} at best over tau in {grid} (final x_2: "
                 f"{', '.join(f'{v:.3g}' for v in finals)}); at eta = 0.25, tau = 2 it is {tail_max[-1]:.2g}."),
        second_argument=(f"Exact (fractions), eta = 1/2, M = 10: ball {{2}} gives multiplier {ex['ball {2}']}; ball {{1,2}} gives "
                         f"1 - eta (m' + 3^-10 (12 - m')) with m' = 19/3, i.e. {ex['ball {1,2}']} = "
                         f"{float(ex['ball {1,2}']):.6f}; both have |.| > 1, so 0 repels. Balls containing client 3 give "
                         f"v(0) = {ex['v(0), ball {1,2,3}']} (ball {{1,2,3}}) or {float(ex['v(0), ball {2,3}']):.6f} (ball {{2,3}}), "
                         "not 0, so 0 is not a fixed point. Hence no radius makes x = 0 an attracting fixed point of client 2's "
                         "update; convergence could only be an exact landing."))
    return result_for(
        ctx,
        Claim(theory.statement, r"x_{2,t}\to 0\ \text{at}\ \eta=0.5", theory.source, theory.typst),
        verdict,
        observed={"tau": grid, "tail_max_abs_x2": tail_max[:len(grid)], "final_x2": finals, "T": T,
                  "sanity_eta_0.25_tail_max": float(tail_max[-1])},
        predicted={"tol": bound, "multiplier_ball_2": str(ex["ball {2}"]), "multiplier_ball_12": str(ex["ball {1,2}"]),
                   "stable_eta_below": str(ex["stable_eta_limit_ball_12"])},
        explanation=(f"At eta = 0.5 client 2 never settles at 0: over the last {tail} rounds |x_2| reaches at least "
                     f"{tail_max[:len(grid)].min():.3g} for every one of {len(grid)} radii, while the same harness at eta = 0.25 "
                     f"converges ({tail_max[-1]:.1e}). Exactly: near 0 the update's multiplier is {float(ex['ball {1,2}']):.3f} "
                     "with ball {1,2} and -5 with ball {2}, and a ball with client 3 moves 0."),
        assumptions=assumptions,
        finding=finding if not verdict.passed else remark("client 2 converged at eta = 0.5 for some tau"),
        figure=figspec.figure(figspec.panel(r"Example 1, $\eta=0.5$: client 2's last rounds", r"$\tau$",
                                            r"$\max|x_{2,t}|$ (last rounds)",
                                            [figspec.line("Federated-Clustering", grid, tail_max[:len(grid)], "observed"),
                                             figspec.line("tolerance", grid, bound, "bound")], xscale="linear")),
    )


# -- x09: not sensitive to the initial weights -----------------------------------------------------------------
INIT_NAMES = ("zero", "far common point", "far per-client points", "other cluster's optimum")

INIT_ERROR = Bound(name="max_i ||x_i,T - x*_i||^2 / Delta^2", expr=sp.Symbol("eps", positive=True), kind="upper",
                   hidden_constant=False,
                   statement=("Contributions (Section 1): the algorithms 'are not sensitive to the model's initial weights "
                              "(Section 4)': from every start, every client ends at its own cluster's optimum."),
                   source="werner2023, Section 1, contributions (line ~62)", typst="max_i norm(x_(i,T) - x_i^*)^2 / Delta^2 <= epsilon")


def _starts(ctx: Context, prob, R: int, far: float) -> list[torch.Tensor]:
    N, d = prob.n_clients, prob.optima().shape[-1]
    g = ctx.generator("starts")
    opt = prob.optima()
    labels = torch.as_tensor(prob.true_labels, device=opt.device)
    other = torch.stack([opt[:, (labels != labels[i]).nonzero()[0, 0]] for i in range(N)], 1)
    common = far * torch.randn(R, 1, d, generator=g, dtype=ctx.dtype, device=g.device).to(opt)
    return [torch.zeros_like(opt), common.expand(R, N, d).clone(),
            far * torch.randn(R, N, d, generator=g, dtype=ctx.dtype, device=g.device).to(opt), other.clone()]


@check("werner2023.x09", "Federated-Clustering is not sensitive to the initial weights: four very different starts, every client "
       "at its own optimum; IFCA from the same starts is", "bound", "holds")
def x09_init_insensitive(ctx: Context, *, theory: Bound = INIT_ERROR, eps: float = 1e-8, kappa: float = 2.0, K: int = 2,
                         n: int = 4, dim: int = 10, Delta: float = 20.0, far: float = 100.0, T: int = 60) -> Result:
    """Clustered quadratics (K = 2, n = 4, d = 10, Hessian spectra in [1, kappa]: A^2 > 0), optima Delta apart, full
    gradients. Federated-Clustering (eta = 1/L, tau = Delta/2, M = 10) from each start; statistic max_i ||x_i,T -
    x*_i||^2/Delta^2 per (start, replicate), bounded by eps. Control: IFCA Option I (eta = 1/L) with its K models started
    at the first client of each cluster's start (the zero and common starts give both models the same point; Example 2's
    mechanism then keeps one model empty); its statistic for each client's assigned model must exceed eps somewhere."""
    R = ctx.reps(4, 16)
    prob = clustered_quadratics(ctx.generator("problem"), R, K, n, dim, Delta, hessian="planted", mu=1.0, L=kappa,
                                dtype=ctx.dtype, device=ctx.torch_device)
    opt = prob.optima()
    starts = _starts(ctx, prob, R, far * Delta)
    Y, Yc = [], []
    first = [int(np.where(np.asarray(prob.true_labels) == k)[0][0]) for k in range(K)]
    for x0 in starts:
        run = federated_clustering_run(prob, x0, 1.0 / kappa, T, Delta / 2, steps=10)
        Y.append(_np(((run.x - opt) ** 2).sum(-1).amax(-1)) / Delta**2)
        it = ifca(prob, x0[:, first].clone(), 1.0 / kappa, T, option="I", record_grads=False)
        theta = it.theta[-1]  # [R, K, d]
        assigned = torch.gather(theta, 1, it.assign[-1][..., None].expand(-1, -1, theta.shape[-1]))
        Yc.append(_np(((assigned - opt) ** 2).sum(-1).amax(-1)) / Delta**2)
    Y, Yc = np.stack(Y, 1), np.stack(Yc, 1)  # [R, starts]
    bound = float(theory(eps=eps))
    v, info = deterministic_verdict(Y.max(0), bound, side="upper")
    with aside():
        v_ctrl, _ = deterministic_verdict(Yc.max(0).max(keepdims=True), bound, side="upper")
    verdict = controlled(v, v_ctrl)
    a2 = float(a2_quadratics(_np(prob.hessians()[0]), _np(prob.x_star[0]), np.asarray(prob.true_labels)).value)
    assumptions = [Assumption("A^2 > 0 (clients of a cluster share the optimum, Hessians differ)", a2 > 0, a2, "exact", "replicate 0"),
                   Assumption("eta <= 1/L", True, 1.0 / kappa, "exact", "")]
    verdict = apply_assumptions(verdict, assumptions)
    return result_for(
        ctx,
        Claim(theory.statement, r"\max_i\|x_{i,T}-x_i^*\|^2/\Delta^2\le\epsilon\ \text{from every start}", theory.source, theory.typst),
        verdict,
        observed={"starts": list(INIT_NAMES), "fc_worst_over_replicates": Y.max(0), "ifca_worst_over_replicates": Yc.max(0),
                  "ifca_failing_replicates": (Yc > bound).sum(0), "replicates": R, "T": T, "far_scale": far * Delta},
        predicted={"eps": bound},
        control={"what": "IFCA Option I (loss-value clustering) from the same starts", "verdict": v_ctrl.value,
                 "detail": f"worst ||theta_assigned - x*||^2/Delta^2 per start: {', '.join(f'{v:.3g}' for v in Yc.max(0))}"},
        explanation=(f"From every start (zero, a common point and per-client points at scale {far:g} Delta, each client at the "
                     f"other cluster's optimum) Federated-Clustering's worst final ||x_i - x*_i||^2/Delta^2 is "
                     f"{Y.max():.1e} (bound {bound:g}). IFCA from the same starts ends with "
                     f"{', '.join(f'{v:.3g}' for v in Yc.max(0))}: it loses a cluster from "
                     f"{int((Yc.max(0) > bound).sum())} of the {len(INIT_NAMES)} starts (one model collects every client). FC's insensitivity here comes from per-client models and gradient clustering at each model: a "
                     "client alone in its ball still descends its own loss."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel("Final error by start", "start #", r"$\max_i\|x_{i,T}-x_i^*\|^2/\Delta^2$",
                                            [figspec.line("Federated-Clustering", np.arange(1, 5), np.maximum(Y.max(0), 1e-300), "observed"),
                                             figspec.line("IFCA (control)", np.arange(1, 5), np.maximum(Yc.max(0), 1e-300), "reference"),
                                             figspec.line(r"$\epsilon$", np.arange(1, 5), bound, "bound")], xscale="linear")),
    )
