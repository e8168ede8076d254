"""mine2025.c01: Theorem 1 on random quadratics with their spectrum planted in [mu, L] (both ends attained).

The check is also *searchable* (``fedverify search mine2025.c01``): its ``@check`` line gives the claim's
instance space and the ratio observed/bound, and fedverify hunts for the instance that breaks the bound
(CMA-ES, gradient ascent through the torch form, and uniform random sampling as the baseline):

* ``space`` maps each instance parameter to its admissible range, exactly the theorem's assumptions:
  ``(low, high)``, ``(low, high, {"log": True})`` for a scale parameter, ``range(a, b)`` for an integer,
  ``{"shape": k}`` for an array, a plain value for a fixed setting;
* ``objective`` is ``fn(ctx, **instance) -> float`` (observed/bound, > 1 a violation) or a
  ``verify.search.Objective`` with a batched form (``batch(ctx, instances) -> array``, each name an array
  ``[B, *shape]``), a differentiable torch form, a ``constraint`` (instances failing it are never scored), the
  ``planted`` instance and a default ``budget``.

Here: the spectrum h in [mu, L]^d of a diagonal quadratic and the start x_0 - x* in [-1, 1]^d, the ratio
(||x_k - x*||^2 / ||x_0 - x*||^2) / (1 - mu/L)^(2k) after k = 5 steps: the search drives it to 1 (the start along
the eigenvector of mu attains the bound) and never above.
"""
from __future__ import annotations

import numpy as np
import torch

from mine2025.theory import PAPER, STATEMENTS, THEOREM_1
from verify.api import (Assumption, Bound, Claim, Context, Objective, Result, apply_assumptions, bound_verdict, check,
                        figspec, planted_quadratic, register_paper, result_for)

register_paper(PAPER, STATEMENTS)

SEARCH_MU, SEARCH_L, SEARCH_D, SEARCH_K = 1.0, 10.0, 8, 5


def _search_ratio(h, x0):
    """(||x_k - x*||^2/||x_0 - x*||^2) / (1 - mu/L)^(2k) for diagonal quadratics (numpy or torch arrays [B, d])."""
    e = x0
    for _ in range(SEARCH_K):
        e = e - h * e / SEARCH_L
    return (e ** 2).sum(-1) / (x0 ** 2).sum(-1) / (1 - SEARCH_MU / SEARCH_L) ** (2 * SEARCH_K)


SEARCH_SPACE = {"h": (SEARCH_MU, SEARCH_L, {"shape": SEARCH_D}), "x0": (-1.0, 1.0, {"shape": SEARCH_D})}
SEARCH_OBJECTIVE = Objective(
    batch=lambda ctx, x: _search_ratio(np.asarray(x["h"]), np.asarray(x["x0"])),
    torch=lambda ctx, x: _search_ratio(x["h"], x["x0"]),
    constraint=lambda inst: float(np.sum(np.asarray(inst["x0"]) ** 2)) > 0,  # x_0 = x* has no ratio
    planted={"h": np.linspace(SEARCH_MU, SEARCH_L, SEARCH_D), "x0": np.ones(SEARCH_D)}, budget=2000,
    observed="||x_k - x*||^2 / ||x_0 - x*||^2 after 5 steps", bound="(1 - mu/L)^(2k) (Theorem 1)")


@check("mine2025.c01", "Gradient descent with step 1/L contracts ||x_k - x*||^2 by (1 - mu/L)^2 per step", "bound",
       "holds", no_control="a bound with explicit constants on one method's iterates: no weaker method is compared; "
                           "the theory planted just past the reported power is its falsifier",
       space=SEARCH_SPACE, objective=SEARCH_OBJECTIVE, statements=("Theorem 1",))
def c01_gd_contraction(ctx: Context, *, theory: Bound = THEOREM_1, mu: float = 1.0, L: float = 10.0, d: int = 8,
                       steps: int = 30) -> Result:
    """R random quadratics f(x) = 1/2 (x - x*)^T H (x - x*), spec(H) in [mu, L] with both ends attained;
    GD x_{k+1} = x_k - (1/L) H (x_k - x*) from a random start; the ratio ||x_k - x*||^2 / ||x_0 - x*||^2
    against the theorem at every k (the worst case is the direction of the eigenvalue mu)."""
    R = ctx.reps(quick=64, full=256)
    gen = ctx.generator("quadratics")
    H = torch.stack([planted_quadratic(d, mu, L, gen, ctx.dtype)[0] for _ in range(R)]).to(ctx.torch_device)
    e = torch.randn(R, d, generator=ctx.generator("start"), dtype=ctx.dtype, device=ctx.torch_device)  # x_0 - x*
    errs = [e]
    for _ in range(steps):  # loop over steps only; all R problems at once
        e = e - (H @ e[..., None])[..., 0] / L
        errs.append(e)
    E = torch.stack(errs, 1)  # [R, steps+1, d]
    ratio = ((E**2).sum(-1) / (E[:, :1] ** 2).sum(-1)).cpu().numpy()  # [R, steps+1]
    ks = np.arange(steps + 1)
    at = {"k": ks, "mu": mu, "L": L}
    # the ratio is exact arithmetic per quadratic: its worst case over the R draws is what the theorem bounds
    v, b = bound_verdict(ratio.max(0, keepdims=True), theory, values=at, deterministic=True)
    spec = torch.linalg.eigvalsh(H)
    assumptions = [Assumption("mu-strong convexity: smallest eigenvalue of H", bool(spec.min() >= mu * (1 - 1e-12)),
                              float(spec.min()), "exact", "planted spectrum"),
                   Assumption("L-smoothness: largest eigenvalue of H", bool(spec.max() <= L * (1 + 1e-12)),
                              float(spec.max()), "exact", "planted spectrum")]
    bound = theory(**at)
    return result_for(
        ctx, Claim(theory.statement, r"\|x_k-x^*\|^2 \le (1-\mu/L)^{2k}\|x_0-x^*\|^2", theory.source, theory.typst),
        apply_assumptions(v, assumptions),
        observed={"k": ks, "worst_ratio_over_quadratics": ratio.max(0), "mean_ratio": ratio.mean(0), "quadratics": R},
        predicted={"bound": bound},
        fit={"worst_ratio_to_bound": b["worst_ratio"]},
        explanation=(f"Over {R} quadratics with spectrum in [{mu:g}, {L:g}] the largest ratio ||x_k - x*||^2/||x_0 - x*||^2 "
                     f"stays at or below (1 - mu/L)^(2k) at every step k <= {steps} (worst ratio to the bound "
                     f"{b['worst_ratio']:.3f}); the bound is attained only by a start along the eigenvector of mu."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "Gradient descent on strongly convex quadratics", "step k", r"$\|x_k-x^*\|^2/\|x_0-x^*\|^2$",
            [figspec.observed("mean over quadratics", ks, ratio, rng=ctx.numpy_rng("figure")),
             figspec.line("worst quadratic", ks, ratio.max(0), "observed"),
             figspec.line(r"Theorem 1: $(1-\mu/L)^{2k}$", ks, bound, "bound")], xscale="linear")),
        arrays={"ratio": ratio},
    )
