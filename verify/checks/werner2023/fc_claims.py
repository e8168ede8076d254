"""werner2023 check x09: one of Federated-Clustering's own claims that was only a side note of other checks.
(The former x08, Example 1 at the figure's eta = 0.5, is now part of check c03.)

- x09: contribution list (line ~62): the algorithms "are not sensitive to the model's initial weights (Section 4)".
  Federated-Clustering from four very different starts (zero, a far common point, far per-client points, each client at
  the other cluster's optimum) on clustered quadratics with A > 0 reaches every client's own optimum; the control, IFCA
  (loss-value clustering, Example 2's mechanism) from the same starts, loses a cluster in some of them. x01 covers one
  random start family at scale 3 on regression; this varies the start itself.

Our reading: docs/papers/werner2023.md §4.1 (A12), 1.8.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.constants.clustering import a2_quadratics
from analytic.papers import werner2023 as W
from verify import figspec
from verify.algorithms.federated_clustering import federated_clustering_run
from verify.algorithms.ifca import ifca
from verify.engine import Context
from verify.fit import apply_assumptions, controlled, deterministic_verdict
from verify.normal_draws import randn
from verify.problems.clustered_quadratics import clustered_quadratics
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result
from verify.strength import aside

register_paper(W.PAPER)


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


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
    common = far * randn(R, 1, d, generator=g, dtype=ctx.dtype, device=g.device).to(opt)
    return [torch.zeros_like(opt), common.expand(R, N, d).clone(),
            far * randn(R, N, d, generator=g, dtype=ctx.dtype, device=g.device).to(opt), other.clone()]


@check("werner2023.x09", "Federated-Clustering is not sensitive to the initial weights: four very different starts, every client "
       "at its own optimum; IFCA from the same starts is", "bound", "holds", statements=("Section 1.2",))
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
