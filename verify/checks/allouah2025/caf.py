"""allouah2025 checks c11-c16 and x01: CAF, the Covariance-bound Agnostic Filter (Algorithm 2, Proposition 4.1).

Our reading: docs/papers/allouah2025.md §2.4, 4.1-4.2, 6 (C11-C16), 7 (items 6, 7, 8, 9). CAF is
verify/aggregators/caf.py (exact eigenpairs by default; the power-method variant with an explicit
generator; the loop's max over positive-weight points, or the printed max over all points under an
iteration cap). The adversarial inputs are verify/checks/allouah2025/inputs.py: honest vectors of
several laws (Gaussian, heavy-tailed, clustered, softmax-regression gradients) and Byzantine vectors
of every attack family our reading (docs/papers/allouah2025.md) lists (far cluster, ALIE mu +- tau s, a point along the top honest
eigenvector, FOE, SF, mixtures, label flipping).

Proposition 4.1 is deterministic (for *any* inputs), so its checks compare exact numbers instance by
instance (``deterministic_verdict``, relative slack 1e-9 for rounding), for S = the honest set and,
when n <= 12, for every subset S of size n - f.
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.errors import require
from analytic.papers import allouah2025 as A
from verify import figspec
from verify.aggregators import AGGREGATORS
from verify.aggregators.caf import CafIterationCapWarning, caf, caf_filter
from verify.attacks.classic import alie
from verify.checks.allouah2025 import search as S
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bound_verdict,
    combine,
    controlled,
    deterministic_verdict,
    exact_zero_verdict,
    power_law,
    rate_verdict,
)
from verify.checks.allouah2025.inputs import (
    InputBatch,
    attacked_batch,
    prop41_suite,
    spread,
    subsets_spread,
)
from verify.normal_draws import randn
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.strength import aside

register_paper(A.PAPER)

SUBSET_LIMIT = 12  # enumerate every size-(n-f) subset when n <= this (Claim 11)


def kappa(n, f):
    """kappa of Proposition 4.1 at (n, f), arrays allowed."""
    n, f = np.asarray(n, dtype=float), np.asarray(f, dtype=float)
    return 6 * f / (n - f) * (1 + f / (n - 2 * f)) ** 2


def _prop41_claim(theory: Bound) -> Claim:
    return Claim(theory.statement, A.PROP_4_1_LATEX, theory.source, theory.typst)


def _suite(ctx: Context, name: str, count: int | None) -> list[InputBatch]:
    """Claim 11's suite (docs/papers/allouah2025.md §6) for one check: ``count`` batches (default 40, full 160) of random (n in [3, 60],
    f < n/2, d in [1, 200]) with every honest law and attack family; a quarter of the batches have n <= 12
    (all subsets S are then checked too)."""
    count = count or ctx.pick(40, 160)
    return prop41_suite(ctx.numpy_rng(f"{name}/configs"), ctx.generator(f"{name}/inputs"), ctx.reps(10, 40), count,
                        small=count // 4, dtype=ctx.dtype, device=ctx.torch_device)


def _against_subsets(batch: InputBatch, estimate: torch.Tensor | None):
    """Per replicate and honest set S: (lambda_max(Cov_S) [R, M], ||estimate - xbar_S||^2 [R, M] or None),
    S = the honest rows (M = 1) or, when n <= SUBSET_LIMIT, every subset of size n - f."""
    if batch.n <= SUBSET_LIMIT:
        mu, lam = subsets_spread(batch.X, batch.n - batch.f)
    else:
        mu, lam, _ = spread(batch.honest)
        mu, lam = mu[:, None], lam[:, None]
    err = None if estimate is None else ((estimate[:, None] - mu) ** 2).sum(-1)
    return lam, err


def _flat(rows: list[dict]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([np.asarray(r[k]).ravel() for r in rows]) for k in rows[0]}


def _family_worst(families: np.ndarray, ratio: np.ndarray) -> tuple[list[str], list[float]]:
    names = sorted(set(families.tolist()))
    return names, [float(ratio[families == f].max()) for f in names]


def _ratio_panel(title: str, curves: dict[str, np.ndarray], bound_label: str, reference: float | None = None,
                 ref_label: str = "") -> dict:
    """Sorted ratios observed / bound against the fraction of instances (1 = the bound)."""
    series = []
    curves = {label: r for label, r in curves.items() if r.size}
    for label, r in curves.items():
        r = np.sort(r)
        pick = np.unique(np.linspace(0, r.size - 1, min(r.size, 150)).astype(int))
        series.append(figspec.line(label, (pick + 1) / r.size, r[pick], "observed"))
    series.append(figspec.line(bound_label, [1 / max(r.size for r in curves.values()), 1.0], 1.0, "bound"))
    if reference is not None:
        series.append(figspec.line(ref_label, [1 / max(r.size for r in curves.values()), 1.0], reference, "reference"))
    return figspec.panel(title, "fraction of instances (sorted)", "observed / bound", series, "linear", "log")


# =====================================================================================================
# C11: Proposition 4.1 on adversarial inputs
# =====================================================================================================
def _ascent_ratio(X: torch.Tensor, f: int) -> torch.Tensor:
    """||CAF(X) - xbar_S||^2 / (kappa lambda_max(Cov_S)) per replicate of ``X [K, n, d]``, S = the first n - f rows."""
    n = X.shape[1]
    mu, lam, _ = spread(X[:, : n - f])
    with torch.no_grad():
        return ((caf(X, f) - mu) ** 2).sum(-1) / (float(kappa(n, f)) * lam)


def optimised_inputs(configs, generator: torch.Generator, *, population: int, steps: int, dtype=torch.float64,
                     device="cpu") -> list[InputBatch]:
    """The worst inputs a (1, K) random-search ascent finds, per (n, f, d) in ``configs``: every one of the n points
    (Proposition 4.1 quantifies over *all* inputs x_1..x_n and every S, so the honest rows are free too) moves by
    Gaussian steps; of ``population`` candidates the one with the largest ratio ||CAF - xbar_S||^2 / (kappa
    lambda_max(Cov_S)) (S = the first n - f rows) replaces the incumbent when it beats it (the step grows by 1.1 on a
    success and shrinks by 0.85 on a failure). The start is the best of ``population`` random Gaussian inputs and of
    the f Byzantine points placed together at xbar_S + k sqrt(lambda_max) v along the top eigenvector v, k in
    [-8, 8]. CAF is piecewise smooth in its inputs with jumps where the filter's choices change, so no gradient
    is taken; the search only ever evaluates CAF itself, so the ratio it reports is a real instance."""
    out = []
    for n, f, d in configs:
        X0 = randn(population, n, d, generator=generator, dtype=dtype, device=device)
        H = X0[:1, : n - f]
        mu, _, _ = spread(H)
        w = torch.linalg.eigh((H[0] - mu[0]).T @ (H[0] - mu[0]) / (n - f))
        v, s = w.eigenvectors[:, -1], float(w.eigenvalues[-1].clamp_min(0.0).sqrt())
        ks = torch.linspace(-8.0, 8.0, population, dtype=dtype, device=device)
        Z = mu[0] + ks[:, None, None] * s * v * torch.ones(1, f, 1, dtype=dtype, device=device)
        X1 = torch.cat([H.expand(population, -1, -1), Z], 1)
        cand = torch.cat([X0, X1], 0)
        r = _ascent_ratio(cand, f)
        i = int(r.argmax())
        best, Xb, scale = float(r[i]), cand[i], 0.3 * float(_rms_spread(cand[i]))
        for _ in range(steps):
            X = Xb + scale * randn(population, n, d, generator=generator, dtype=dtype, device=device)
            r = _ascent_ratio(X, f)
            i = int(r.argmax())
            if float(r[i]) > best:
                best, Xb, scale = float(r[i]), X[i], scale * 1.1
            else:
                scale *= 0.85
        out.append(InputBatch(Xb[None].clone(), f, "optimised (random-search ascent)", "free"))
    return out


def _rms_spread(X: torch.Tensor) -> torch.Tensor:
    """The inputs' spread: the root mean squared distance of the points to their mean (the search's step unit)."""
    return ((X - X.mean(0)) ** 2).sum(-1).mean().sqrt()


#: (n, f, d) of the searched instances: where a first exploration found the largest ratios (about 0.35).
ASCENT_CONFIGS = ((12, 2, 2), (9, 2, 3), (10, 2, 2), (12, 3, 3), (16, 4, 2), (12, 3, 2), (8, 2, 2), (5, 1, 2))


@check("allouah2025.c11", "Proposition 4.1: ||CAF - xbar_S||^2 <= kappa lambda_max(Cov_S) on adversarial inputs",
       "bound", "holds", space=S.CAF_SPACE, objective=S.C11_OBJECTIVE, statements=("Proposition 4.1",))
def c11_prop41(ctx: Context, *, theory: Bound = A.PROP_4_1, rtol: float = 1e-9, count: int | None = None,
               ascent: int | None = None, ascent_steps: int | None = None, control: str = "mean") -> Result:
    """Claim 11: exact-eigen CAF on the C11 suite; the bound at S = honest set for every instance and at every
    size-(n-f) subset when n <= 12, each within relative slack ``rtol`` (rounding).

    Beyond our reading (docs/papers/allouah2025.md) attack families (their worst ratio, about 0.2, left a bound cut to 0.25 kappa
    unrefuted), ``ascent`` instances (default 2, full 8) are the worst inputs a random-search ascent on the ratio
    finds (:func:`optimised_inputs`, ``ascent_steps`` steps, default 120, full 400): the margin is then as tight as
    an honest search makes it.

    Control: the same instances aggregated by the unprotected ``control`` rule (the plain mean)
    must violate the bound, else the attacks are toothless and the verdict is inconclusive (verify.fit.controlled)."""
    rows, ctrl_err, ctrl_bound = [], [], []
    suite = _suite(ctx, "c11", count) + optimised_inputs(
        ASCENT_CONFIGS[: ascent if ascent is not None else ctx.pick(2, 8)], ctx.generator("c11/ascent"),
        population=64, steps=ascent_steps or ctx.pick(120, 400), dtype=ctx.dtype, device=ctx.torch_device)
    for batch in suite:
        est = caf(batch.X, batch.f)
        mu_h, lam_h, _ = spread(batch.honest)
        ctrl_err.append(((AGGREGATORS[control](batch.X, batch.f) - mu_h) ** 2).sum(-1).cpu().numpy())
        ctrl_bound.append(np.asarray(theory(n=batch.n, f=batch.f, lambda_max=lam_h.cpu().numpy()), dtype=float))
        lam, err = _against_subsets(batch, est)
        R, M = lam.shape
        rows.append({"n": np.full((R, M), batch.n), "f": np.full((R, M), batch.f), "d": np.full((R, M), batch.X.shape[2]),
                     "family": np.full((R, M), batch.family, dtype=object), "honest_set": np.tile(np.arange(M) == 0, (R, 1))
                     if batch.n <= SUBSET_LIMIT else np.ones((R, 1), bool), "err": err.cpu().numpy(),
                     "lam": lam.cpu().numpy()})
    x = _flat(rows)
    # the first subset of itertools.combinations is {0..n-f-1}: the honest set
    bound = np.asarray(theory(n=x["n"], f=x["f"], lambda_max=x["lam"]), dtype=float)
    H = x["honest_set"].astype(bool)
    # one claim, 'for every S': one verdict atom over the honest sets and every subset (its margin is the worst S)
    verdict_claim, i_all = deterministic_verdict(x["err"], bound, rtol=rtol)
    with aside():  # the same comparison split by S = honest set / other subsets, for the record
        v_h, i_h = deterministic_verdict(x["err"][H], bound[H], rtol=rtol)
        v_s, i_s = deterministic_verdict(x["err"][~H], bound[~H], rtol=rtol) if (~H).any() else (v_h, {
            "count": 0, "violations": 0})
    with aside():  # the control is not the claim: its atoms do not speak for the verdict's strength
        v_control, i_control = deterministic_verdict(np.concatenate(ctrl_err), np.concatenate(ctrl_bound), rtol=rtol)
    verdict = controlled(verdict_claim, v_control)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bound > 0, x["err"] / bound, 0.0)
        ctrl_ratio = np.concatenate(ctrl_err) / np.concatenate(ctrl_bound)
    fams, worst_f = _family_worst(x["family"][H], ratio[H])
    spec = A.SPEC_SIM_WORST_RATIO
    n_inst = int(H.sum())
    opt = x["family"][H] == "optimised (random-search ascent)"
    control_field = {
        "what": f"the plain mean ({control}) in place of CAF on the same {ctrl_ratio.size} instances (S = honest set)",
        "verdict": v_control.value,
        "detail": (f"the mean's squared error reached {np.nanmax(ctrl_ratio):.3g} kappa lambda_max(Cov_H) and exceeded the "
                   f"bound on {i_control['violations']} of {ctrl_ratio.size} instances"),
    }
    return result_for(
        ctx, _prop41_claim(theory), verdict,
        observed={"instances": n_inst, "subset_checks": int((~H).sum()), "worst_ratio_honest_set": float(ratio[H].max()),
                  "worst_ratio_all_subsets": float(ratio[~H].max()) if (~H).any() else None,
                  "worst_ratio_by_family": dict(zip(fams, worst_f)),
                  "n_range": [int(x["n"].min()), int(x["n"].max())], "d_range": [int(x["d"].min()), int(x["d"].max())],
                  "violations": i_h["violations"] + i_s["violations"],
                  "worst_ratio_optimised": float(ratio[H][opt].max()) if opt.any() else None,
                  "worst_ratio_listed_families": float(ratio[H][~opt].max()),
                  "control_worst_ratio": float(np.nanmax(ctrl_ratio))},
        predicted={"bound": theory.name, "rtol": rtol, "earlier_simulation_worst_ratio": {"honest set": spec["exact"],
                                                                                       "all subsets": spec["all_subsets"]}},
        fit={"every_S": i_all, "honest_set": i_h, "all_subsets": i_s, "claim_verdict": verdict_claim.value, "control": i_control},
        control=control_field,
        explanation=(f"Over {n_inst} adversarial instances (n from {int(x['n'].min())} to {int(x['n'].max())}, d up to "
                     f"{int(x['d'].max())}, {len(fams)} attack families) the exact-eigen CAF's squared error to the honest "
                     f"mean reached at most {ratio[H].max():.3f} times kappa lambda_max(Cov_H)"
                     + (f", and {ratio[~H].max():.3f} times the bound over all {int((~H).sum())} subset checks with "
                        f"n <= {SUBSET_LIMIT}" if (~H).any() else "")
                     + (". The bound held on every instance." if verdict_claim.passed else
                        f". The bound failed on {i_h['violations'] + i_s['violations']} instance(s).")
                     + f" An earlier independent simulation found a worst ratio of {spec['exact']}; its attack families reach "
                     f"{ratio[H][~opt].max():.3f} here"
                     + (f", and a random-search ascent over all n inputs ({int(opt.sum())} instances) "
                        f"{ratio[H][opt].max():.3f}" if opt.any() else "")
                     + f". Control: {control_field['detail']}"
                     + ("" if verdict.passed or not verdict_claim.passed else
                        "; the control did not fail, so the inputs did no harm even without the filter: inconclusive.")
                     + ("." if verdict.passed or not verdict_claim.passed else "")),
        assumptions=[Assumption("f < n/2 in every instance", bool(np.all(2 * x["f"] < x["n"])), None, "exact")],
        figure=figspec.figure(
            _ratio_panel("CAF error / (kappa lambda_max(Cov_S))",
                         {"S = honest set": ratio[H], "every subset S (n <= 12)": ratio[~H]},
                         "Proposition 4.1 (ratio 1)", spec["exact"], "earlier simulation, worst 0.18"),
            figspec.panel("Worst ratio per attack family (order of observed.worst_ratio_by_family)", "family",
                          "max error / bound", [figspec.line("exact-eigen CAF", range(1, len(fams) + 1), worst_f, "observed"),
                                                figspec.line("Proposition 4.1", [1, len(fams)], 1.0, "bound")],
                          "linear", "linear")),
        arrays={"ratio": ratio[H]},
    )


# =====================================================================================================
# C12: the intermediate step of Appendix B
# =====================================================================================================
@check("allouah2025.c12", "Appendix B: CAF's smallest top eigenvalue sigma*^2 <= 2n(n-f)/(n-2f)^2 lambda_max(Cov_S)",
       "bound", "holds", no_control=(
           "a step of Proposition 4.1's proof about CAF's own loop variable sigma*^2 (the smallest weighted top eigenvalue "
           "it sees): no aggregator without the filter has one; the filter's robustness is controlled in c11 and c16"), space=S.CAF_SPACE, objective=S.C12_OBJECTIVE,
       statements=("Proposition 4.1",))
def c12_sigma_star(ctx: Context, *, theory: Bound = A.APP_B_SIGMA_STAR, rtol: float = 1e-9,
                   count: int | None = None) -> Result:
    """Claim 12 on the C11 suite: sigma*^2 (the smallest top eigenvalue over CAF's iterations) against
    2n(n-f)/(n-2f)^2 lambda_max(Cov_S), S the honest set and, for n <= 12, every subset of size n - f."""
    rows = []
    for batch in _suite(ctx, "c12", count):
        _, trace = caf_filter(batch.X, batch.f)
        lam, _ = _against_subsets(batch, None)
        R, M = lam.shape
        rows.append({"n": np.full((R, M), batch.n), "f": np.full((R, M), batch.f),
                     "honest_set": np.tile(np.arange(M) == 0, (R, 1)), "lam": lam.cpu().numpy(),
                     "s2": np.repeat(trace.sigma_star2.cpu().numpy()[:, None], M, 1),
                     "iters": np.repeat(trace.iterations.cpu().numpy()[:, None], M, 1)})
    x = _flat(rows)
    bound = np.asarray(theory(n=x["n"], f=x["f"], lambda_max=x["lam"]), dtype=float)
    H = x["honest_set"].astype(bool)
    v_h, i_h = deterministic_verdict(x["s2"][H], bound[H], rtol=rtol)
    v_s, i_s = deterministic_verdict(x["s2"][~H], bound[~H], rtol=rtol) if (~H).any() else (v_h, {"count": 0})
    verdict = combine([v_h, v_s])
    ratio = x["s2"] / bound
    assumptions = [Assumption("the loop ran at least once (f >= 1)", bool(np.all(x["iters"] >= 1)),
                              float(x["iters"].min()), "exact", "fewest iterations of any instance")]
    return result_for(
        ctx, Claim(theory.statement, r"\sigma_\star^2=\min_c\hat\sigma_c^2\leq\frac{2n(n-f)}{(n-2f)^2}\lambda_{\max}(\mathrm{Cov}_S)",
                   theory.source, theory.typst),
        apply_assumptions(verdict, assumptions),
        observed={"instances": int(H.sum()), "subset_checks": int((~H).sum()),
                  "worst_ratio_honest_set": float(ratio[H].max()),
                  "worst_ratio_all_subsets": float(ratio[~H].max()) if (~H).any() else None},
        predicted={"bound": theory.name, "earlier_simulation_worst_ratio": A.SPEC_SIM_WORST_RATIO["sigma_star_ratio"]},
        fit={"honest_set": i_h, "all_subsets": i_s},
        explanation=(f"On {int(H.sum())} adversarial instances the smallest top eigenvalue CAF saw was at most "
                     f"{ratio[H].max():.3f} times 2n(n-f)/(n-2f)^2 lambda_max(Cov_H)"
                     + (f" ({ratio[~H].max():.3f} over every subset S when n <= {SUBSET_LIMIT})" if (~H).any() else "")
                     + (", so the key step of the proof held everywhere" if verdict.passed else ", so the step failed")
                     + f". An earlier independent simulation reported a worst ratio of {A.SPEC_SIM_WORST_RATIO['sigma_star_ratio']}."),
        assumptions=assumptions,
        figure=figspec.figure(_ratio_panel("sigma*^2 / (2n(n-f)/(n-2f)^2 lambda_max(Cov_S))",
                                           {"S = honest set": ratio[H], "every subset S (n <= 12)": ratio[~H]},
                                           "Appendix B bound (ratio 1)", A.SPEC_SIM_WORST_RATIO["sigma_star_ratio"],
                                           "earlier simulation, worst 0.50")),
        arrays={"ratio": ratio[H]},
    )


# =====================================================================================================
# C13: termination (erratum: the printed loop can stall)
# =====================================================================================================
TERMINATION_SETTINGS = ((10, 3, 3), (7, 2, 2), (20, 6, 5), (30, 10, 10))


def _termination_inputs(ctx: Context, R: int) -> list[tuple[str, InputBatch]]:
    """Far outliers at scale 100 (our reading (docs/papers/allouah2025.md) stalling example), pure Gaussian inputs, and ALIE, per setting."""
    gen, out = ctx.generator("c13/inputs"), []
    for n, f, d in TERMINATION_SETTINGS:
        h = n - f
        honest = randn(R, h, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        far = 100.0 * randn(R, f, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        pure = randn(R, f, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        for name, X in (("outliers at scale 100", torch.cat([honest, far], 1)),
                        ("all Gaussian", torch.cat([honest, pure], 1)),
                        ("ALIE tau=1.5", attacked_batch(honest, f, "alie", {"tau": 1.5}, gen))):
            out.append((f"n={n}, f={f}, d={d}: {name}", InputBatch(X, f, name, "gaussian")))
    return out


def caf_weight_sums_1d(xs, f: int, iterations: int, max_over: str = "all", number=None) -> list:
    """Algorithm 2's loop on scalar inputs ``xs`` (d = 1: the top eigenvector is +-1 and tau_i = (x_i - mu_c)^2, so
    every quantity is rational): the weight sums sum_i c_i after each iteration (at most ``iterations``; the loop
    stops once sum c <= n - 2f), with tau_max over all j (line 10 as printed) or over the points of positive weight
    (``max_over="positive"``, the repair). ``number`` is the arithmetic: ``Fraction`` (exact, the default) or
    ``float`` (float64, as an implementation runs it)."""
    from fractions import Fraction

    number = number or Fraction
    x = [number(v) for v in xs]
    c = [number(1)] * len(x)
    floor = len(x) - 2 * f
    sums = []
    for _ in range(iterations):
        if sum(c) <= floor:
            break
        s = sum(c)
        mu = sum(ci * xi for ci, xi in zip(c, x)) / s
        tau = [(xi - mu) ** 2 for xi in x]
        tmax = max(t for t, ci in zip(tau, c) if max_over == "all" or ci > 0)
        if tmax == 0:
            break
        c = [max(number(0), ci * (1 - t / tmax)) for ci, t in zip(c, tau)]
        sums.append(sum(c))
    return sums


def _c13_exact_witness(xs=(0, 1, 100), f: int = 1, exact_iterations: int = 6) -> dict:
    """The smallest instance (n = 3, f = 1, d = 1: honest 0 and 1, one outlier at 100) in exact arithmetic: the
    printed loop's weight sums for ``exact_iterations`` iterations, the repaired loop's, a rigorous lower bound on
    the printed loop's iteration count, and the float64 count of the same scalar loop."""
    import math
    from fractions import Fraction

    printed = caf_weight_sums_1d(xs, f, exact_iterations, "all")
    repaired = caf_weight_sums_1d(xs, f, 2 * f + 1, "positive")
    floor = len(xs) - 2 * f
    # after iteration 1 the outlier has weight 0 and the honest weights' mean mu lies in [0, 1]: tau_i <= 1 for the
    # honest points while tau_max >= (100 - 1)^2 (the outlier), so every later iteration keeps at least the factor
    # 1 - 1/99^2 of each honest weight: the sum stays above n - 2f for j more iterations while S_1 (1 - 1/99^2)^j > 1
    shrink = Fraction(1, 99**2)
    s1 = printed[0]
    more = math.floor(math.log(float(s1) / floor) / -math.log1p(-float(shrink)))
    count = len(caf_weight_sums_1d(xs, f, 10**6, "all", number=float))
    return {"inputs": list(xs), "f": f, "n_minus_2f": floor,
            "printed_sums_exact": [str(v) if len(str(v)) < 60 else f"{float(v):.15f} (exact fraction, "
                                   f"{len(str(v.denominator))}-digit denominator)" for v in printed],
            "printed_sums": [float(v) for v in printed], "printed_all_above_floor": all(v > floor for v in printed),
            "repaired_sums": [float(v) for v in repaired], "repaired_iterations": len(repaired),
            "printed_iterations_lower_bound": 1 + more, "printed_iterations_float64": count}


@check("allouah2025.c13", "Algorithm 2 as printed (max over all j) terminates within 2f iterations", "erratum", "violated",
       statements=("Algorithm 2",))
def c13_termination(ctx: Context, *, printed: dict | None = None, cap: int | None = None) -> Result:
    """Claim 13 and 7.6: the printed loop (tau_max over all j, ``printed`` options, default
    {"max_over": "all"}) against the claimed 2f iterations, under an iteration cap; the repaired loop (max
    over positive weights) must stop within 2f on the same inputs (else our implementation is in doubt and
    the verdict is inconclusive)."""
    printed = {"max_over": "all"} if printed is None else dict(printed)
    cap = cap or ctx.pick(200, 2000)
    R = ctx.reps(50, 200)
    lit_iters, fix_iters, two_f, labels, rows = [], [], [], [], []
    example = None
    n_warn = 0
    for label, batch in _termination_inputs(ctx, R):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CafIterationCapWarning)
            _, lit = caf_filter(batch.X, batch.f, max_iter=cap, **printed)
        n_warn += sum(issubclass(w.category, CafIterationCapWarning) for w in caught)
        _, fix = caf_filter(batch.X, batch.f)
        li, fi = lit.iterations.cpu().numpy(), fix.iterations.cpu().numpy()
        lit_iters.append(li)
        fix_iters.append(fi)
        two_f.append(np.full(R, 2 * batch.f))
        rows.append({"inputs": label, "printed_median_iterations": float(np.median(li)),
                     "printed_share_over_2f": float(np.mean(li > 2 * batch.f)),
                     "printed_share_capped": float(lit.capped.float().mean()), "repaired_max_iterations": int(fi.max())})
        if example is None:
            example = (label, lit.weight_sum[0].cpu().numpy(), fix.weight_sum[0].cpu().numpy(), batch.n - 2 * batch.f)
    lit_iters, fix_iters, two_f = map(np.concatenate, (lit_iters, fix_iters, two_f))
    verdict, info = deterministic_verdict(lit_iters, two_f)
    fixed_ok = bool(np.all(fix_iters <= two_f))
    assumptions = [Assumption("the repaired loop (max over positive-weight points) stops within 2f iterations on "
                              "every input", fixed_ok, float(np.max(fix_iters - two_f)), "exact",
                              "largest excess over 2f (<= 0 when it held)")]
    verdict = apply_assumptions(verdict, assumptions)
    over = int(np.sum(lit_iters > two_f))
    label, w_lit, w_fix, floor = example
    k_lit = np.arange(np.sum(np.isfinite(w_lit)))
    k_fix = np.arange(np.sum(np.isfinite(w_fix)))
    shown = k_lit[: min(k_lit.size, 300)]
    wit = _c13_exact_witness()
    finding = erratum(
        f"Algorithm 2 as printed (tau_max over all j in [n]) does not terminate within 2f iterations: it ran past 2f on "
        f"{over} of {lit_iters.size} inputs; the repaired loop (max over positive weights) never did.",
        paper_says=("Algorithm 2, line 10 (paper line 125): 'Update weight c_i <- c_i (1 - tau_i / max_{j in [n]} tau_j)'; "
                    "Appendix B, proof of Proposition 4.1 (paper line 459): 'Algorithm 2 terminates after at most 2f "
                    "iterations. Indeed, at each iteration, at least one weight c_i, i in [n], becomes zero - this is true "
                    "for any i in argmax_{j in [n]} <v_c, x_j - mu_c>^2'."),
        correction=("Take tau_max over the points of positive weight, max_{j : c_j > 0} tau_j: then each iteration zeroes "
                    "the weight of a point still in play and the loop stops within 2f iterations, as the proof argues. "
                    "With the printed max, a point already at weight 0 (a far outlier) keeps tau_max large and the other "
                    "weights barely shrink."),
        witness=(f"Smallest instance n = 3, f = 1, d = 1, x = (0, 1, 100): the printed loop's weight sums after iterations "
                 f"1..{len(wit['printed_sums'])} are {', '.join(f'{v:.6f}' for v in wit['printed_sums'])}, all above "
                 f"n - 2f = 1, so it runs past 2f = 2 iterations (float64: {wit['printed_iterations_float64']} iterations); "
                 f"the repaired loop stops after {wit['repaired_iterations']} (sums "
                 f"{', '.join(f'{v:.6f}' for v in wit['repaired_sums'])}). In the suite: past 2f on {over} of "
                 f"{lit_iters.size} inputs, {int(np.sum(lit_iters >= cap))} still running at the cap of {cap} "
                 f"(CafIterationCapWarning {n_warn} times); the repaired loop at most {int(fix_iters.max())}. "
                 "ByzFL 0.0.11's CAF uses the printed max and has no cap."),
        second_argument=(f"Exact rational arithmetic on the witness (d = 1, so the eigenvector is +-1 and every tau_i is "
                         f"rational): the printed loop's sums are exactly {'; '.join(wit['printed_sums_exact'][:2])}; ... > 1 "
                         f"for the {len(wit['printed_sums'])} iterations computed. Closed-form bound: after iteration 1 the "
                         "outlier has weight 0 and the weighted mean lies in [0, 1], so tau_i <= 1 for the honest points "
                         "while tau_max >= 99^2; each later iteration keeps at least the factor 1 - 1/99^2 of every honest "
                         f"weight, hence the printed loop runs at least {wit['printed_iterations_lower_bound']} iterations "
                         "(S_1 (1 - 1/99^2)^j > 1), against the 2f = 2 the proof claims."),
    ) if not verdict.passed else ""
    return result_for(
        ctx, Claim("Algorithm 2 (CAF) as printed, with tau_max = max_{j in [n]} tau_j, terminates: each iteration zeroes "
                   "at least one weight, so the while-loop runs at most 2f times.",
                   r"\#\{\text{iterations of Alg. 2}\}\leq 2f,\quad c_i\leftarrow c_i\left(1-\frac{\tau_i}{\max_{j\in[n]}\tau_j}\right)",
                   "allouah2025, Algorithm 2 (line 10) and Appendix B (termination)",
                   '\\# "iterations" <= 2 f, quad c_i <- c_i (1 - tau_i / max_(j in [n]) tau_j)'),
        verdict,
        observed={"inputs": rows, "printed_iterations_max": int(lit_iters.max()), "printed_over_2f": over,
                  "printed_at_cap": int(np.sum(lit_iters >= cap)), "cap": cap, "cap_warnings": n_warn,
                  "repaired_iterations_max": int(fix_iters.max()), "replicates_per_input": R,
                  "example": {"inputs": label, "printed_weight_sum": w_lit[np.isfinite(w_lit)][:50],
                              "repaired_weight_sum": w_fix[np.isfinite(w_fix)]}},
        predicted={"iterations_at_most": "2f", "printed": printed, "exact_witness": wit},
        fit={"printed_vs_2f": info},
        explanation=((f"The printed loop ran past 2f iterations on {over} of {lit_iters.size} inputs (up to "
                      f"{int(lit_iters.max())}, cap {cap}), so its termination claim fails as printed; with far outliers the "
                      f"weight sum crept down and stayed above n - 2f. The repaired loop stopped within 2f iterations "
                      f"everywhere (at most {int(fix_iters.max())}).") if not verdict.passed else
                     (f"The loop as configured ({printed}) stopped within 2f iterations on all {lit_iters.size} inputs "
                      f"(at most {int(lit_iters.max())} iterations), so the termination claim held for it.")),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            f"Weight sum per iteration ({label}, first replicate)", "iteration", "sum of weights c_i",
            [figspec.line("printed loop (max over all j)", shown, w_lit[shown], "observed"),
             figspec.line("repaired loop (max over positive weights)", k_fix, w_fix[k_fix], "observed"),
             figspec.line("stopping level n - 2f", [0, max(int(shown[-1]), 1)], floor, "bound")], "linear", "linear")),
        finding=finding,
        arrays={"printed_iterations": lit_iters, "repaired_iterations": fix_iters},
    )


# =====================================================================================================
# C14: exactness, f = 0, permutation invariance
# =====================================================================================================
def _exactness_inputs(ctx: Context, R: int, count: int):
    """(n, f, X) with all honest rows equal to one vector h and Byzantine rows far away and spread out."""
    gen, rng = ctx.generator("c14/inputs"), ctx.numpy_rng("c14/configs")
    for _ in range(count):
        n = int(rng.integers(3, 41))
        f = int(rng.integers(1, (n - 1) // 2 + 1))
        d = int(rng.integers(1, 60))
        h = 10.0 * randn(R, 1, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        scale = float(10 ** rng.uniform(-1, 3))
        byz = h + scale * randn(R, f, d, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        yield n, f, torch.cat([h.expand(-1, n - f, -1), byz], 1)


@check("allouah2025.c14", "CAF returns h exactly when the honest inputs all equal h; f = 0 gives the mean; "
       "permutation invariant", "identity", "holds", statements=("Proposition 4.1", "Algorithm 2"))
def c14_exactness(ctx: Context, *, caf_fn: Callable[..., torch.Tensor] = caf, tol: float = 1e-12,
                  count: int | None = None) -> Result:
    """Claim 14: honest inputs identical (lambda_max = 0 in Proposition 4.1): ||CAF - h|| <= tol (||h|| + max
    Byzantine distance) for any f < n/2 Byzantine inputs; with f = 0, CAF equals the mean; and the exact-eigen
    output is invariant under permutations of the inputs (to tol relative)."""
    R = ctx.reps(10, 40)
    gen = ctx.generator("c14/permutations")
    exact_err, perm_err, mean_err, ns = [], [], [], []
    for n, f, X in _exactness_inputs(ctx, R, count or ctx.pick(24, 96)):
        scale = torch.linalg.vector_norm(X, dim=-1).amax(1)
        est = caf_fn(X, f)
        exact_err.append((torch.linalg.vector_norm(est - X[:, 0], dim=-1) / scale).cpu().numpy())
        noisy = X + randn(X.shape, generator=gen, dtype=X.dtype, device=X.device)
        perm = torch.randperm(n, generator=gen, device=X.device)
        s_noisy = torch.linalg.vector_norm(noisy, dim=-1).amax(1)
        perm_err.append((torch.linalg.vector_norm(caf_fn(noisy[:, perm], f) - caf_fn(noisy, f), dim=-1) / s_noisy)
                        .cpu().numpy())
        mean_err.append((torch.linalg.vector_norm(caf_fn(noisy, 0) - noisy.mean(1), dim=-1) / s_noisy).cpu().numpy())
        ns.append(np.full(R, n))
    exact_err, perm_err, mean_err, ns = map(np.concatenate, (exact_err, perm_err, mean_err, ns))
    v_exact, i_exact = exact_zero_verdict(float(exact_err.max()), tol)
    v_mean, i_mean = exact_zero_verdict(float(mean_err.max()), tol)
    v_perm, i_perm = exact_zero_verdict(float(perm_err.max()), 1e3 * tol)
    verdict = combine([v_exact, v_mean, v_perm])
    by_n = sorted(set(ns.tolist()))
    worst = [max(float(exact_err[ns == k].max()), 1e-19) for k in by_n]
    return result_for(
        ctx, Claim("If every honest input equals h, CAF returns h for any f < n/2 Byzantine inputs (Proposition 4.1 with "
                   "lambda_max = 0); with f = 0 the loop never runs and CAF is the mean; CAF does not depend on the order "
                   "of its inputs.", r"x_i=h\ \forall i\in S\ \Rightarrow\ \mathrm{CAF}(x_1,\dots,x_n)=h",
                   "allouah2025, Proposition 4.1 (lambda_max = 0) and Algorithm 2",
                   'x_i = h quad forall i in S quad => quad "CAF"(x_1, ..., x_n) = h'),
        verdict,
        observed={"instances": int(exact_err.size), "max_rel_error_identical_honest": float(exact_err.max()),
                  "max_rel_error_f0_vs_mean": float(mean_err.max()), "max_rel_change_under_permutation": float(perm_err.max())},
        predicted={"error": 0.0, "tolerance": tol, "permutation_tolerance": 1e3 * tol},
        fit={"identical_honest": i_exact, "f0_mean": i_mean, "permutation": i_perm},
        explanation=(f"With every honest input equal to h and {exact_err.size} sets of far, spread Byzantine inputs, "
                     f"CAF's output differed from h by at most {exact_err.max():.1e} of the inputs' scale; with f = 0 it "
                     f"matched the mean to {mean_err.max():.1e}, and permuting noisy inputs moved it by at most "
                     f"{perm_err.max():.1e}. "
                     + ("These are rounding errors: the filter isolates the honest point exactly." if verdict.passed else
                        "At least one of these exceeds its tolerance, so the exactness claim failed for this aggregator.")),
        assumptions=[],
        figure=figspec.figure(figspec.panel(
            "Identical honest inputs: relative error of CAF (exact zeros drawn at 1e-19)", "n (inputs)",
            "max ||CAF - h|| / scale", [figspec.line("exact-eigen CAF", by_n, worst, "observed"),
                                        figspec.line(f"tolerance {tol:g}", by_n, tol, "bound")], "linear", "log")),
    )


# =====================================================================================================
# C15: lambda_max versus trace: CAF against the trimmed mean and the median as d grows
# =====================================================================================================
@check("allouah2025.c15", "CAF meets the lambda_max criterion as d grows; trimmed mean and median only the trace one",
       "bound", "holds", statements=("Section 4.2",))
def c15_lambda_vs_trace(ctx: Context, *, theory: Bound = A.PROP_4_1, dims=(1, 4, 16, 64, 128), n: int = 200,
                        f: int = 40, tau: float = 1.0, trace_tol: float = 0.15) -> Result:
    """Claim 15 / section 4.2: n = 200, f = 40, honest N(0, I_d), Byzantines at mu_H + tau s_H (ALIE-like, tau = 1),
    d in {1, 4, 16, 64, 128}: (i) CAF's error <= kappa lambda_max on every instance; (ii) CWTM's and CWMED's
    error / lambda_max exceeds kappa/2 at d >= 64 (it was ~0.1 at d = 1); (iii) their error / trace shows no
    growth in d (log-log slope <= ``trace_tol``): they meet the trace criterion, so relative to lambda_max
    they lose the factor Tr/lambda_max, up to d."""
    R = ctx.reps(8, 32)
    dims = np.asarray(dims)
    require(dims.size >= 2 and bool(np.any(dims >= 64)), "dims",
            f"need two dimensions or more, one of them >= 64 (our reading (docs/papers/allouah2025.md) comparison point), got {dims.tolist()}")
    gen = ctx.generator("c15/inputs")
    k = float(kappa(n, f))
    ratio = {name: np.zeros((R, dims.size)) for name in ("caf", "cwtm", "cwmed")}
    over_trace = {name: np.zeros((R, dims.size)) for name in ("caf", "cwtm", "cwmed")}
    err_caf, bound_caf, tr_over_lam = np.zeros((R, dims.size)), np.zeros((R, dims.size)), np.zeros((R, dims.size))
    for j, d in enumerate(dims):
        honest = randn(R, n - f, int(d), generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
        X = torch.cat([honest, alie(honest, f, tau=tau)], 1)
        mu, lam, tr = spread(honest)
        lam_np, tr_np = lam.cpu().numpy(), tr.cpu().numpy()
        tr_over_lam[:, j] = tr_np / lam_np
        for name, est in (("caf", caf(X, f)), ("cwtm", AGGREGATORS["cwtm"](X, f)), ("cwmed", AGGREGATORS["cwmed"](X, f))):
            e = ((est - mu) ** 2).sum(-1).cpu().numpy()
            ratio[name][:, j] = e / lam_np
            over_trace[name][:, j] = e / tr_np
            if name == "caf":
                err_caf[:, j] = e
                bound_caf[:, j] = np.asarray(theory(n=n, f=f, lambda_max=lam_np), dtype=float)
    rng = ctx.numpy_rng("bootstrap")
    v_caf, i_caf = deterministic_verdict(err_caf.ravel(), bound_caf.ravel(), rtol=1e-9)
    big = dims >= 64
    parts, info = [v_caf], {"caf": i_caf}
    for name in ("cwtm", "cwmed"):
        v, info[f"{name}_exceeds_half_kappa"] = bound_verdict(ratio[name][:, big], k / 2, side="lower", rng=rng)
        parts.append(v)
        v, info[f"{name}_over_trace_slope"] = rate_verdict(dims, over_trace[name], power_law("d", 0.0, "upper",
                                                           "no growth in d"), param="d", tol=trace_tol, rng=rng)
        parts.append(v)
    verdict_claim = combine(parts)
    with aside():  # control: CWTM and CWMED in place of CAF must miss kappa/2 lambda_max at d >= 64
        ctrl = {name: bound_verdict(ratio[name][:, big], k / 2, side="upper", rng=ctx.numpy_rng(f"control/{name}"))[0]
                for name in ("cwtm", "cwmed")}
    v_ctrl = combine(ctrl.values())
    verdict = controlled(verdict_claim, v_ctrl)
    control_field = {"what": "CWTM and CWMED in place of CAF on the same inputs: error <= (kappa/2) lambda_max(Cov_H) at "
                             "d >= 64",
                     "verdict": v_ctrl.value,
                     "detail": "; ".join(f"{name}: mean error/lambda_max {ratio[name][:, big].mean():.3g} against "
                                         f"kappa/2 = {k / 2:.3g} ({v.value})" for name, v in ctrl.items())}
    means = {name: ratio[name].mean(0) for name in ratio}
    monotone = {name: bool(np.all(np.diff(means[name]) > 0)) for name in ("cwtm", "cwmed")}
    fig_rng = ctx.numpy_rng("figure")
    return result_for(
        ctx, Claim("CAF satisfies Proposition 4.1 (error <= kappa lambda_max(Cov_S)) whatever d, while the trimmed mean and "
                   "the median satisfy only the trace version (error <= kappa' Tr(Cov_S)), i.e. Proposition 4.1 with kappa "
                   "multiplied by up to d.",
                   r"\|\mathrm{CAF}-\bar x_S\|^2\leq\kappa\lambda_{\max},\quad \|\mathrm{CWTM}-\bar x_S\|^2\leq\kappa'\,"
                   r"\mathrm{Tr}(\mathrm{Cov}_S)\leq\kappa' d\,\lambda_{\max}",
                   "allouah2025, discussion after Proposition 4.1 (section 4.2, citing Allouah et al. 2023b)",
                   'norm("CAF" - macron(x)_S)^2 <= kappa lambda_max, quad norm("CWTM" - macron(x)_S)^2 <= kappa prime "Tr"("Cov"_S) <= kappa prime d lambda_max'),
        verdict,
        observed={"d": dims, "error_over_lambda_max": means, "error_over_trace": {nm: over_trace[nm].mean(0) for nm in over_trace},
                  "trace_over_lambda_max": tr_over_lam.mean(0), "monotone_in_d": monotone, "replicates": R,
                  "worst_caf_ratio_to_bound": i_caf["worst_ratio"]},
        predicted={"kappa": k, "half_kappa": k / 2, "trace_slope_at_most": trace_tol, "n": n, "f": f, "tau": tau},
        fit={**info, "claim_verdict": verdict_claim.value},
        control=control_field,
        explanation=(f"With n = {n}, f = {f} and ALIE-like Byzantines, CAF's error stayed at most "
                     f"{i_caf['worst_ratio']:.3f} times kappa lambda_max for every d (kappa = {k:.3f}), while the trimmed "
                     f"mean's error / lambda_max grew from {means['cwtm'][0]:.3f} at d = 1 to {means['cwtm'][-1]:.3f} at "
                     f"d = {dims[-1]} and the median's from {means['cwmed'][0]:.3f} to {means['cwmed'][-1]:.3f}, tracking "
                     f"Tr/lambda_max (up to {tr_over_lam.mean(0)[-1]:.1f}). "
                     + ("Relative to the trace their error did not grow: they meet only the trace criterion."
                        if verdict_claim.passed else "At least one part of the comparison failed (see fit).")),
        assumptions=[],
        figure=figspec.figure(
            figspec.panel("Error / lambda_max(Cov_H) as d grows (n = 200, f = 40, ALIE tau = 1)", "d", "error / lambda_max",
                          [figspec.observed("CAF", dims, ratio["caf"], rng=fig_rng),
                           figspec.observed("trimmed mean (CWTM)", dims, ratio["cwtm"], rng=fig_rng),
                           figspec.observed("median (CWMED)", dims, ratio["cwmed"], rng=fig_rng),
                           figspec.line("kappa (Proposition 4.1)", dims, k, "bound"),
                           figspec.line("kappa / 2", dims, k / 2, "reference")]),
            figspec.panel("Error / Tr(Cov_H)", "d", "error / trace",
                          [figspec.observed("trimmed mean (CWTM)", dims, over_trace["cwtm"], rng=fig_rng),
                           figspec.observed("median (CWMED)", dims, over_trace["cwmed"], rng=fig_rng),
                           figspec.observed("CAF", dims, over_trace["caf"], rng=fig_rng)])),
        arrays={"cwtm_over_lambda": ratio["cwtm"], "caf_over_lambda": ratio["caf"]},
    )


# =====================================================================================================
# C16: the power-method variant
# =====================================================================================================
@check("allouah2025.c16", "Power-method CAF (3 and 10 power steps) meets Proposition 4.1 up to constants", "bound", "holds",
       statements=("Section 4.1",))
def c16_power_method(ctx: Context, *, theory: Bound = A.PROP_4_1, constant: float = 1.0, steps=(1, 3, 10),
                     min_steps: int = 3, count: int | None = None, control: str = "mean") -> Result:
    """Claim 16: the C11 suite (honest set S) with the power-method CAF at 1, 3 and 10 power steps from a Gaussian
    start (explicit generator). The paper claims Proposition 4.1 "up to constants" for the power method of its
    complexity count O(f n d log d), i.e. about log d steps, without proof or constant. Checked: every
    instance of the variants with at least ``min_steps`` steps (3 and 10 bracket log2 d on this suite) within
    ``constant`` x the bound (default 1: the exact variant's constant). The single step of ByzFL is reported
    beside them, with a finding when it exceeds the bound; our reading (docs/papers/allouah2025.md) simulation gave 0.34, 0.24, 0.18."""
    gen = ctx.generator("c16/power")
    ratios = {k: [] for k in steps}
    exact, ctrl = [], []
    for batch in _suite(ctx, "c16", count):
        mu, lam, _ = spread(batch.honest)
        bound = np.asarray(theory(n=batch.n, f=batch.f, lambda_max=lam.cpu().numpy()), dtype=float)
        exact.append(((caf(batch.X, batch.f) - mu) ** 2).sum(-1).cpu().numpy() / bound)
        ctrl.append(((AGGREGATORS[control](batch.X, batch.f) - mu) ** 2).sum(-1).cpu().numpy() / bound)
        for k in steps:
            est = caf(batch.X, batch.f, eigen="power", power_iters=int(k), generator=gen)
            ratios[k].append(((est - mu) ** 2).sum(-1).cpu().numpy() / bound)
    ratios = {k: np.concatenate(v) for k, v in ratios.items()}
    exact = np.concatenate(exact)
    checked = [k for k in steps if k >= min_steps]
    require(bool(checked), "min_steps", f"no variant in steps={tuple(steps)} has at least {min_steps} power steps")
    verdict_claim, info = deterministic_verdict(np.concatenate([ratios[k] for k in checked]), constant)
    ctrl = np.concatenate(ctrl)
    with aside():  # control: the plain mean on the same inputs must break the same bound
        v_ctrl, i_ctrl = deterministic_verdict(ctrl, constant)
    verdict = controlled(verdict_claim, v_ctrl)
    control_field = {"what": f"the plain mean ({control}) in place of the power-method CAF on the same {ctrl.size} inputs",
                     "verdict": v_ctrl.value,
                     "detail": (f"the mean's error reached {np.nanmax(ctrl):.3g} x kappa lambda_max and exceeded "
                                f"{constant:g} x the bound on {i_ctrl['violations']} of {ctrl.size} inputs")}
    worst = {k: float(r.max()) for k, r in ratios.items()}
    reported = [k for k in steps if k < min_steps]
    over = {k: int(np.sum(ratios[k] > constant)) for k in reported}
    finding = "; ".join(f"with {k} power step{'s' if k > 1 else ''} (ByzFL's CAF uses one) the error exceeded {constant:g} x "
                        f"kappa lambda_max on {over[k]} of {ratios[k].size} inputs (worst {worst[k]:.2f} x): the bound of "
                        "Proposition 4.1 does not carry over to a single power step with the same constant"
                        for k in reported if over[k]) if verdict_claim.passed else ""
    spec = {1: A.SPEC_SIM_WORST_RATIO["power_1"], 3: A.SPEC_SIM_WORST_RATIO["power_3"],
            10: A.SPEC_SIM_WORST_RATIO["power_10"]}
    return result_for(
        ctx, Claim("The power-method version of CAF (used in the experiments; O(f n d log d), i.e. about log d power steps) "
                   "satisfies Proposition 4.1 up to constants: ||CAF_power - xbar_S||^2 <= c kappa lambda_max(Cov_S) "
                   "for an absolute constant c.",
                   r"\|\mathrm{CAF}_{\mathrm{power}}-\bar x_S\|^2\leq c\,\kappa\,\lambda_{\max}(\mathrm{Cov}_S)",
                   "allouah2025, section 4.1 (complexity paragraph: the power method 'can be easily shown' to satisfy "
                   "Proposition 4.1 up to constants; the number of power steps is not given)",
                   'norm("CAF"_"power" - macron(x)_S)^2 <= c kappa lambda_max ("Cov"_S)'),
        verdict,
        observed={"instances": int(exact.size), "worst_ratio_by_power_steps": worst, "worst_ratio_exact": float(exact.max()),
                  "median_ratio_by_power_steps": {k: float(np.median(r)) for k, r in ratios.items()},
                  "checked_steps": checked, "reported_steps_over_constant": over},
        predicted={"constant": constant, "bound": theory.name, "earlier_simulation_worst_ratio": spec},
        fit={**info, "claim_verdict": verdict_claim.value, "control": i_ctrl},
        control=control_field,
        explanation=(f"Control: {control_field['detail']}. "
                     + ("" if verdict.passed or not verdict_claim.passed else
                        "The control did not fail, so the inputs did no harm even without the filter: inconclusive. ")
                     + f"On {exact.size} adversarial instances the power-method CAF's error reached at most "
                     + ", ".join(f"{worst[k]:.3f} ({k} step{'s' if k > 1 else ''})" for k in steps)
                     + f" times kappa lambda_max, against {exact.max():.3f} for exact eigenpairs (an earlier simulation: "
                     + ", ".join(f"{spec.get(k, float('nan'))}" for k in steps) + "). "
                     + (f"With {min_steps} steps or more every instance stayed within {constant:g} times the bound, so "
                        f"the 'up to constants' claim held with constant {constant:g}"
                        + (f"; a single step did not ({over[reported[0]]} instances above it)." if reported and over[reported[0]]
                           else ".") if verdict_claim.passed else
                        f"With {min_steps} steps or more some instance exceeded {constant:g} times the bound.")),
        assumptions=[],
        figure=figspec.figure(_ratio_panel(
            "Power-method CAF: error / (kappa lambda_max(Cov_H))",
            {**{f"{k} power step{'s' if k > 1 else ''}": r for k, r in ratios.items()}, "exact eigenpairs": exact},
            f"{constant:g} x Proposition 4.1")),
        finding=finding,
        arrays={f"ratio_power_{k}": r for k, r in ratios.items()},
    )


# =====================================================================================================
# x01: the last step of Proposition 4.1's proof ("taking squares and using Jensen's inequality")
# =====================================================================================================
def _integer_fraction(expr):
    """``expr``(n, f) at lambda_max = 1 as (numerator, denominator) polynomials with integer coefficients, or
    None when it is not a rational function of n and f (a square root, another symbol)."""
    e = sp.cancel(sp.together(sp.sympify(expr).subs(A.lam, 1)))
    if e.free_symbols - {A.n, A.f}:
        return None
    num, den = sp.fraction(e)
    try:
        pn, pd = sp.Poly(num, A.n, A.f), sp.Poly(den, A.n, A.f)
    except sp.PolynomialError:
        return None
    if not all(p.domain.is_ZZ or p.domain.is_QQ for p in (pn, pd)):
        return None
    cn, pn = pn.clear_denoms()
    cd, pd = pd.clear_denoms()
    # expr = (pn / cn) / (pd / cd) = (pn * cd) / (pd * cn)
    return pn * sp.Integer(cd), pd * sp.Integer(cn)


def _eval_int(poly, nn: np.ndarray, ff: np.ndarray) -> np.ndarray:
    """An integer polynomial at integer points, in Python integers (no rounding, no overflow)."""
    out = np.zeros(nn.shape, dtype=object)
    for (i, j), c in poly.terms():
        out = out + int(c) * nn**i * ff**j
    return out


def _exact_compare(expr, nn: np.ndarray, ff: np.ndarray, kappa_expr=A.KAPPA) -> tuple[np.ndarray, np.ndarray, str]:
    """sign(expr - kappa) at every (n, f) (exactly: integer arithmetic when ``expr`` is rational in n, f; else
    50-digit mpmath) and expr / kappa (float, correctly rounded from the exact values in the rational case);
    ``kappa_expr`` rational in n, f (default Proposition 4.1's kappa)."""
    ni, fi = nn.astype(np.int64).astype(object), ff.astype(np.int64).astype(object)
    kappa_expr = sp.sympify(kappa_expr).subs(A.lam, 1)
    kfrac = _integer_fraction(kappa_expr)
    frac = _integer_fraction(expr)
    if frac is not None and kfrac is not None:
        k_num, k_den = _eval_int(kfrac[0], ni, fi), _eval_int(kfrac[1], ni, fi)
        e_num, e_den = _eval_int(frac[0], ni, fi), _eval_int(frac[1], ni, fi)
        diff_num, diff_den = e_num * k_den - k_num * e_den, e_den * k_den
        sign = np.array([(1 if a > 0 else -1 if a < 0 else 0) * (1 if b > 0 else -1) for a, b in zip(diff_num, diff_den)],
                        dtype=float)
        ratio = np.array([a * d / (b * c) for a, b, c, d in zip(e_num, e_den, k_num, k_den)], dtype=float)
        return sign, ratio, "exact (integer arithmetic)"
    import mpmath

    fn = sp.lambdify((A.n, A.f), sp.sympify(expr).subs(A.lam, 1), "mpmath")
    fk = sp.lambdify((A.n, A.f), kappa_expr, "mpmath")
    with mpmath.workdps(50):
        vals = [(fn(mpmath.mpf(int(a)), mpmath.mpf(int(b))), fk(mpmath.mpf(int(a)), mpmath.mpf(int(b))))
                for a, b in zip(ni, fi)]
        sign = np.array([float(mpmath.sign(v - k)) for v, k in vals], dtype=float)
        ratio = np.array([float(v / k) for v, k in vals], dtype=float)
    return sign, ratio, "50-digit arithmetic (mpmath; an expression is not rational in n, f)"


X01_JENSEN_LATEX = A.PROP_4_1_JENSEN_LATEX
#: The forms of the proof's last step x01 can test: the paper's Jensen step (weights 1/3, 2/3), the equal-weight form
#: (a+b)^2 <= 2a^2 + 2b^2 and the exact square of eq. (14).
X01_STEPS = {"jensen": A.PROP_4_1_JENSEN, "equal": A.PROP_4_1_PROOF_LINE, "exact": A.PROP_4_1_EXACT_SQUARE}


@check("allouah2025.x01", "Proposition 4.1's last proof step ('taking squares and using Jensen's inequality', weights "
       "1/3, 2/3) yields at most kappa", "bound", "holds",
       no_control="an inequality between two constants of the proof (exact arithmetic), not a property of an algorithm", space=S.X01_SPACE, objective=S.X01_OBJECTIVE,
       statements=("Proposition 4.1",))
def x01_proof_last_step(ctx: Context, *, theory: Bound = A.PROP_4_1, step: str | Bound = "jensen",
                        n_max: int = 400) -> Result:
    """Appendix B, last line of the proof of Proposition 4.1 (paper line 475): "We conclude by taking squares and
    using Jensen's inequality" on eq. (14), ||mu* - xbar_S|| <= sqrt(f/(n-f)) (a + b) sigma_S with a = 1,
    b = sqrt(2n(n-f))/(n-2f). Jensen with weights (1/3, 2/3) gives (a+b)^2 <= 3a^2 + (3/2) b^2 (the gap is
    2(a - b/2)^2 >= 0), hence the constant (3f/(n-f))(1 + n(n-f)/(n-2f)^2) (``theory`` at lambda_max = 1), which
    must not exceed kappa = 6f/(n-f) (1 + f/(n-2f))^2.

    The verdict: sign(constant - kappa) at every (n, f) with 3 <= n <= ``n_max``, 1 <= f < n/2, in exact integer
    arithmetic (the constant and kappa are rational in n, f). Beside it, sympy's closed form of kappa - constant
    with n = 2f + m (f, m > 0), which proves the step for every f < n/2 when it is nonnegative, and the exact
    square of eq. (14) and the equal-weight form (a+b)^2 <= 2a^2 + 2b^2 (not the paper's; it would overshoot)."""
    # ``theory``: Proposition 4.1's kappa lambda_max, the constant the step must reach; ``step`` (a key of X01_STEPS
    # or a Bound): the constant the proof's last step yields, the measured side of the comparison
    bound, theory = theory, X01_STEPS[step] if isinstance(step, str) else step
    pairs = np.array([(n, f) for n in range(3, n_max + 1) for f in range(1, (n - 1) // 2 + 1)], dtype=float)
    nn, ff = pairs[:, 0], pairs[:, 1]
    sign, ratio, arithmetic = _exact_compare(theory.expr, nn, ff, bound.expr)
    with aside():  # the exact sign decides (a constant above kappa by less than one rounding is still caught) ...
        v_exact, info = deterministic_verdict(sign, 0.0)
    v_ratio, i_ratio = deterministic_verdict(ratio, 1.0)  # ... the ratio (rounded once) gives margin and power
    verdict = combine([v_exact, v_ratio])
    info = {**info, "worst_ratio": i_ratio["worst_ratio"]}
    # the symbolic argument: the Jensen step itself, and kappa - constant for all 0 < f < n/2
    a_, b_ = sp.symbols("a b", real=True)
    jensen_gap = sp.expand(3 * a_**2 + sp.Rational(3, 2) * b_**2 - (a_ + b_) ** 2 - 2 * (a_ - b_ / 2) ** 2)
    m_ = sp.Symbol("m", positive=True)
    f_pos = sp.Symbol("f_pos", positive=True)
    kappa_b = sp.sympify(bound.expr).subs(A.lam, 1)
    gap = sp.factor(sp.cancel((kappa_b - theory.expr.subs(A.lam, 1)).subs(A.n, 2 * f_pos + m_).subs(A.f, f_pos)))
    gap_nf = sp.factor(sp.cancel(kappa_b - theory.expr.subs(A.lam, 1)))
    proved = gap.is_nonnegative
    # references: the exact square of eq. (14) and the equal-weight form
    k = np.asarray(bound(n=nn, f=ff, lambda_max=1.0), dtype=float)
    exact = np.asarray(A.PROP_4_1_EXACT_SQUARE(n=nn, f=ff, lambda_max=1.0), dtype=float) / k
    equal = np.asarray(A.PROP_4_1_PROOF_LINE(n=nn, f=ff, lambda_max=1.0), dtype=float) / k
    i10 = int(np.where((nn == 10) & (ff == 3))[0][0])
    worst = int(np.argmax(ratio))
    order = np.argsort(ff / nn)
    pick = order[np.unique(np.linspace(0, order.size - 1, 150).astype(int))]
    held = verdict.passed
    return result_for(
        ctx, Claim(theory.statement, X01_JENSEN_LATEX, theory.source, theory.typst),
        verdict,
        observed={"pairs": int(nn.size), "arithmetic": arithmetic, "violations": info["violations"],
                  "max_constant_over_kappa": float(ratio.max()),
                  "argmax": {"n": int(nn[worst]), "f": int(ff[worst])},
                  "constant_over_kappa_at_n10_f3": float(ratio[i10]),
                  "max_exact_square_over_kappa": float(exact.max()),
                  "max_equal_weight_over_kappa": float(equal.max()), "equal_weight_at_n10_f3": float(equal[i10])},
        predicted={"kappa": "6f/(n-f)(1+f/(n-2f))^2", "kappa_minus_constant": str(gap_nf),
                   "kappa_minus_constant_at_n_eq_2f_plus_m": str(gap),
                   "nonnegative_for_all_f_below_n_over_2": bool(proved) if proved is not None else None,
                   "jensen_gap_3a2_plus_1.5b2_minus_(a+b)2_minus_2(a-b/2)2": str(jensen_gap)},
        fit=info,
        explanation=((f"At all {nn.size} pairs (n, f) with n <= {n_max} the constant of the last step is at most kappa "
                      f"({arithmetic}): at most {ratio.max():.5f} kappa (n = {int(nn[worst])}, f = {int(ff[worst])}), "
                      f"{ratio[i10]:.4f} kappa at n = 10, f = 3. Sympy gives kappa minus the constant = {gap_nf}"
                      + (", nonnegative for every 0 < f < n/2, so the step is valid as printed." if proved else ".")) if held
                     else (f"The constant {theory.name} exceeds kappa at {info['violations']} of {nn.size} pairs (n, f) "
                           f"({arithmetic}; up to {ratio.max():.4f} kappa at n = {int(nn[worst])}, f = {int(ff[worst])}); "
                           f"sympy: kappa minus it = {gap_nf}.")),
        assumptions=[],
        figure=figspec.figure(figspec.panel(
            "Constants of the last step of the proof of Proposition 4.1, relative to kappa", "f / n", "constant / kappa",
            [figspec.line("Jensen, weights (1/3, 2/3) (the paper's step)" if theory is A.PROP_4_1_JENSEN else theory.name,
                          (ff / nn)[pick], ratio[pick], "observed"),
             figspec.line("exact square of eq. (14)", (ff / nn)[pick], exact[pick], "reference"),
             figspec.line("equal weights (a+b)^2 <= 2a^2 + 2b^2 (not the paper's)", (ff / nn)[pick], equal[pick],
                          "reference"),
             figspec.line("kappa", [float((ff / nn).min()), float((ff / nn).max())], 1.0, "bound")], "linear", "linear")),
        finding=remark(
            "Proposition 4.1's last step is valid as printed: Jensen's inequality with weights (1/3, 2/3), "
            "(a+b)^2 <= 3a^2 + (3/2)b^2, turns eq. (14) into (3f/(n-f))(1 + n(n-f)/(n-2f)^2) = kappa (1 - f(n-2f)/"
            f"(2(n-f)^2)) <= kappa (at most {ratio.max():.5f} kappa for n <= {n_max}); this weighting is where kappa's "
            "factor 6 comes from. The equal-weight form (a+b)^2 <= 2a^2 + 2b^2, which an earlier reading of ours took "
            f"for the paper's step, would give kappa (1 + f^2/(3(n-f)^2)) ({equal[i10] - 1:.1%} above kappa at n = 10, "
            f"f = 3): that was our error, not the paper's. The exact square of eq. (14) is at most {exact.max():.4f} kappa."
            if held else
            f"The planted constant {theory.name} exceeds kappa (up to {ratio.max():.4f} kappa)."),
    )
