"""Shared set-up of the su2022 checks: our reading (docs/papers/su2022.md) default instances, claims and small conversions.

Our reading: docs/papers/su2022.md §6 (common defaults: d = 10, k = 3, p uniform, Delta = 1,
Sigma_j = I, sigma = 0.1, eps = 0.1; Phase 2 FedAvg with s = 5 and eta = 0.5/(s max_i ||phi_i||^2/n_i)).
Success of a run (docs/papers/su2022.md §6): d(theta_hat, theta*) <= Delta/4 and >= 90% of the data correctly labelled.

Quick fidelity runs Phase 1 end to end at k = 2, d = 5 (m = 10^4 fresh clients per iteration), full
fidelity at our reading (docs/papers/su2022.md) k = 3, d = 10 (m = 8 10^4): Phase 1's sample need hides an eps^-4 factor
(E11), and at our reading (docs/papers/su2022.md) defaults one run costs seconds. Every Result records the instance it used.
"""
from __future__ import annotations

import numpy as np
import torch

from analytic.bounds import Bound
from analytic.papers import su2022 as S
from verify.algorithms.moment_descent import FedMDConfig
from verify.engine import Context
from verify.fit import proportion_ci
from verify.normal_draws import randn
from verify.problems.mixed_regression import MixtureModel, planted_model
from verify.registry import register_paper
from verify.result import Claim

register_paper(S.PAPER)

DELTA, SIGMA, EPS = 1.0, 0.1, 0.1


def claim(bound: Bound, latex: str, text: str | None = None, source: str | None = None) -> Claim:
    """The Claim of a check from the paper's Bound (words, LaTeX, source, typst)."""
    return Claim(text=text or bound.statement, latex=latex, source=source or bound.source, typst=bound.typst)


def model(ctx: Context, stream: str, R: int, *, k: int = 3, d: int = 10, sigma: float = SIGMA, Delta: float = DELTA,
          **kw) -> MixtureModel:
    """A planted mixture for R replicates from the context's named stream (docs/papers/su2022.md §1.6 defaults;
    ``Delta`` the centres' separation, 1 unless a check sweeps it)."""
    return planted_model(R, k, d, ctx.generator(stream), Delta=Delta, sigma=sigma, dtype=ctx.dtype,
                         device=ctx.torch_device, **kw)


def phase1_setting(ctx: Context) -> dict:
    """Phase 1's end-to-end instance by fidelity (module docstring): k, d, m, centres."""
    return ctx.pick({"k": 2, "d": 5, "m": 10_000, "centres": "random"},
                    {"k": 3, "d": 10, "m": 80_000, "centres": "random"})


def phase1_config(ctx: Context, **kw) -> FedMDConfig:
    return FedMDConfig(m=kw.pop("m", phase1_setting(ctx)["m"]), eps=EPS, **kw)


def numpy(x) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def proportion_band(successes, trials) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rates with Clopper-Pearson 95% intervals for arrays of counts."""
    out = np.array([proportion_ci(int(k), int(n)) for k, n in zip(np.ravel(successes), np.ravel(trials))])
    return out[:, 0], out[:, 1], out[:, 2]


def verdict_words(verdict, holds: str, violated: str, inconclusive: str) -> str:
    """The sentence that matches the verdict (explanations follow the verdict, not the expectation)."""
    return {"holds": holds, "reproduced": holds, "violated": violated, "not_reproduced": violated}.get(
        verdict.value, inconclusive)


def federation(ctx: Context, stream: str, R: int, sizes, *, k: int = 3, d: int = 10, sigma: float = SIGMA, **kw):
    """A federation of clients with the given sizes drawn from a planted mixture (named streams)."""
    mod = model(ctx, stream + "/model", R, k=k, d=d, sigma=sigma, **kw)
    return mod.federation(sizes, ctx.generator(stream + "/data"))


def perturbed_centres(ctx: Context, stream: str, theta: torch.Tensor, radius) -> torch.Tensor:
    """theta*_j + radius u_j with independent random unit u_j (radius a float or one per replicate)."""
    g = ctx.generator(stream)
    u = randn(theta.shape, generator=g, dtype=theta.dtype, device=theta.device)
    r = torch.as_tensor(radius, dtype=theta.dtype, device=theta.device).reshape(-1, 1, 1)
    return theta + r * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)


def fitted_rates(change: torch.Tensor, floor: float = 1e-12, drop: int = 3) -> np.ndarray:
    """Per-replicate contraction factor of a run from its step lengths ``change [T, R]``
    (max_j ||theta_{j,t} - theta_{j,t-1}||, which decays exactly like the distance to the limit once the
    labels freeze): the semilog slope over the rounds after the first ``drop`` with steps above ``floor``."""
    e = numpy(change)
    t = np.arange(e.shape[0], dtype=float)
    out = []
    for col in e.T:
        keep = (col > floor) & (t >= drop)
        out.append(np.exp(np.polyfit(t[keep], np.log(col[keep]), 1)[0]) if keep.sum() >= 3 else np.nan)
    return np.asarray(out)


def as_kind(bound: Bound, kind: str) -> Bound:
    """The same expression read with another kind: ``tight`` where the paper's order is attained (matched from
    both sides), ``lower`` for an upper bound whose variable is swept toward 0 (see :func:`exponent_verdict`)."""
    if bound.kind == kind:
        return bound
    return Bound(bound.name, bound.expr, kind, bound.statement, bound.source, bound.hidden_constant, bound.typst)  # type: ignore[arg-type]


def exponent_verdict(ctx: Context, x, Y, theory: Bound, *, param: str, values: dict, tol: float, tight: bool,
                     toward_zero: bool = False, deterministic: bool = False):
    """A hidden-constant bound tested on its exponent in one named variable ``param`` (the others held at
    ``values``, arrays that may move with x): :func:`verify.fit.rate_verdict` on the sweep x [P] with
    replicates Y [R, P]. The predicted exponent is the Bound's own least-squares log-log slope on the grid.

    ``tight``: the paper's order is attained in this variable, so the exponent must be matched from both sides
    (a planted exponent error of either sign is violated). Otherwise the side is the bound's: an upper bound
    ``q <~ g`` swept toward infinity asks 'q's slope <= g's slope + tol'; swept toward 0 (``toward_zero``: nu,
    xi_1, p_min, where the claim's asymptotics lie) the same bound asks 'q's slope >= g's slope - tol'
    (q/g must not grow as x -> 0), so its kind is read as lower there (and a lower bound as upper)."""
    from verify.fit import rate_verdict

    if tight:
        b = as_kind(theory, "tight")
    elif toward_zero:
        b = as_kind(theory, {"upper": "lower", "lower": "upper"}.get(theory.kind, theory.kind))
    else:
        b = theory
    return rate_verdict(np.asarray(x, dtype=float), np.atleast_2d(np.asarray(Y, dtype=float)), b, param=param,
                        values=values, tol=tol, rng=ctx.numpy_rng(f"bootstrap/{param}"), deterministic=deterministic)


def quantile_verdict(ratios, q: float, level: float = 0.95):
    """'X <= B with probability at least q' read as 'the q-quantile of X/B is <= 1', so that the theory B drives the
    verdict (a bound scaled by c scales every ratio by 1/c). The q-quantile of the pooled ratios [n] gets the
    distribution-free order-statistic interval [r_(l), r_(u)] (l, u the binomial(n, q) quantiles at (1 -+ level)/2;
    an end beyond the sample is infinite), judged by :func:`verify.fit.bracket_verdict` against 1: holds when the
    upper end is <= 1 (the same as the share of X <= B having a lower confidence limit >= q, up to discreteness),
    violated when the lower end is > 1."""
    from scipy import stats

    from verify.fit import bracket_verdict

    x = np.sort(np.asarray(ratios, dtype=float).ravel())
    n = x.size
    a = (1.0 - level) / 2
    lo_i, hi_i = int(stats.binom.ppf(a, n, q)), int(stats.binom.ppf(1 - a, n, q)) + 1  # 1-based order statistics
    lo = x[lo_i - 1] if lo_i >= 1 else -np.inf
    hi = x[hi_i - 1] if hi_i <= n else np.inf
    v, info = bracket_verdict([lo], [hi], [1.0], "upper")
    return v, {**info, "quantile": q, "estimate": float(np.quantile(x, q)), "ci": [float(lo), float(hi)], "n": int(n),
               "level": level}


def unit_constant_verdict(ctx: Context, ratios, theory: Bound, stream: str = "bootstrap/unit-constant"):
    """'q <= 1 x g' (or >= for a lower bound) from replicate ratios q/g [R, P]: the Bound with its hidden constant set
    to 1. For a Bound with a hidden constant only a holding comparison speaks (the paper's 'for some C' is then
    supported with C = 1 at these points; a failure with C = 1 refutes nothing), so it is recorded and returned
    only when it holds; a Bound with an explicit constant (a stated or planted one) is always judged. Returns
    (verdict or None, info)."""
    from verify.fit import bound_verdict, side_of
    from verify.strength import aside

    side = side_of(theory)[0]
    with aside():
        v, info = bound_verdict(ratios, 1.0, side=side, rng=ctx.numpy_rng(stream))
    if v.passed or not theory.hidden_constant:
        v, info = bound_verdict(ratios, 1.0, side=side, rng=ctx.numpy_rng(stream))
        return v, info
    return None, info
