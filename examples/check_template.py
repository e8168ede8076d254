"""The check template: one claim, written the one way fedverify writes checks. Copy it to start.

    PYTHONPATH=. fedverify --import examples.check_template run template2025.c01 --strict
    PYTHONPATH=. fedverify --import examples.check_template show template2025.c01

The claim here is a textbook one (the error of a sample mean), so that the file shows the
convention and nothing else. The convention (DESIGN.md, "One convention for a check"):

1. The paper is a :class:`Paper` and each theorem a :class:`Bound` (in ``analytic/papers/<key>.py``
   for a real paper): a sympy expression with its kind (upper / lower / tight / exact), statement,
   source and typst math.
2. ``@check(id, title, kind, expected, statements=("Theorem 1",))`` states the check's identity once, with the
   paper's numbered statements it exercises (each a :class:`Statement` registered with the paper: its card in
   ``fedverify statements`` says which symbols the runs varied and which terms they needed). The function takes the
   :class:`Context` and then *keyword arguments only*: the theory with the paper's default
   (``theory=MEAN_ERROR``) and the grid with the paper's defaults. A test plants a wrong bound by
   passing it, never by monkeypatching; a direct call ``c01(ctx)`` is exactly ``fedverify run``.
3. Randomness comes from named streams of the context: ``ctx.generator("samples")`` for data,
   ``ctx.numpy_rng("bootstrap")`` for the verdict's bootstrap, ``ctx.numpy_rng("figure")`` for the
   figure's bands (so drawing a figure never moves a verdict's numbers).
4. Every verdict comes from ``verify/fit.py`` (rate and bound verdicts read the Bound's kind), and
   a failed assumption makes it ``inconclusive`` (``apply_assumptions``).
5. The Result is built by ``result_for(ctx, claim, verdict, ...)``: observed and predicted numbers,
   the fit, assumptions with their measured constants labelled exact / lower bound / upper bound /
   estimate, two or three sentences of explanation, and a figure from ``verify/figspec.py``.
6. Tests: ``tests/test_check_template.py`` shows the contract every check inherits
   (``verify.testing.CheckContract``) with a planted wrong theory that must be ``violated``.
7. How hard it was tested: every verdict atom records its margin, power and tightness and the
   registry reports the binding one, closest to failing (``verify/strength.py``); the contract plants the theory just past the
   reported power and requires ``violated``. A claim about an algorithm's property runs a control that
   must fail (``result_for(..., control={...})`` with ``fit.controlled``); otherwise ``@check`` says
   why none applies (``no_control=...``).
8. A claim "for every instance, observed <= bound" can also be made *searchable*: ``@check(..., space={...},
   objective=...)`` gives the admissible instances and observed/bound, and ``fedverify search ID`` hunts for an
   instance that breaks it (verify/search/; the worked example is ``examples/plugin/src/mine2025/checks.py``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp
import torch

from verify.api import (Assumption, Bound, Claim, Context, Paper, Result, Statement, apply_assumptions, bound_verdict,
                        check, combine, figspec, rate_verdict, register_paper, result_for, statement_table)

sigma, n, d = sp.symbols("sigma n d", positive=True)

#: E||xbar_n - mu||^2 = d sigma^2 / n for n i.i.d. N(mu, sigma^2 I_d) samples.
MEAN_ERROR = Bound(
    name="error of the sample mean", expr=d * sigma**2 / n, kind="exact",
    statement="The mean of n i.i.d. N(mu, sigma^2 I_d) vectors has expected squared error d sigma^2 / n.",
    source="textbook (variance of a mean)", hidden_constant=False, typst="EE norm(macron(x)_n - mu)^2 = d sigma^2 / n")

PAPER = register_paper(Paper(
    key="template2025", title="Check template: the error of a sample mean", authors="fedverify",
    summary="A textbook identity written as a fedverify check, to be copied when adding a claim."),
    statement_table("template2025", Statement("template2025", "Theorem 1", MEAN_ERROR.statement, bounds=(MEAN_ERROR,),
                                              main=True)))


@check("template2025.c01", "The sample mean's squared error is d sigma^2 / n", "rate", "holds", statements=("Theorem 1",),
       no_control="a property of the sample mean's distribution, not of an algorithm that could lack it")
def c01_sample_mean(ctx: Context, *, theory: Bound = MEAN_ERROR, ns=(4, 16, 64, 256), dim: int = 5,
                    noise: float = 2.0, tol: float = 0.05, band: float = 0.1) -> Result:
    """Error of the mean of n samples, R replicates per n: the log-log slope in n must be the
    theory's exponent (exact Bound: matched from both sides) and error/theory within 1 +- band."""
    R = ctx.reps(quick=400, full=2000)
    ns = np.asarray(ns)
    gen = ctx.generator("samples")
    Y = np.stack([(torch.randn(R, int(k), dim, generator=gen, dtype=ctx.dtype, device=ctx.torch_device) * noise)
                  .mean(1).pow(2).sum(-1).cpu().numpy() for k in ns], axis=1)  # [R, P]: mu = 0
    at = {"sigma": noise, "d": dim}
    g = theory(n=ns, **at)
    rng = ctx.numpy_rng("bootstrap")
    v_rate, fit = rate_verdict(ns, Y, theory, param="n", values=at, tol=tol, rng=rng)
    v_lo, lo = bound_verdict(Y / g, 1 - band, side="lower", rng=rng)
    v_hi, hi = bound_verdict(Y / g, 1 + band, side="upper", rng=rng)
    assumptions = [Assumption("samples i.i.d. N(mu, sigma^2 I_d)", True, noise**2, "exact", "planted")]
    verdict = apply_assumptions(combine([v_rate, v_lo, v_hi]), assumptions)
    return result_for(
        ctx,
        Claim(theory.statement, r"\mathbb{E}\|\bar x_n-\mu\|^2 = d\sigma^2/n", theory.source, theory.typst),
        verdict,
        observed={"n": ns, "error_mean": lo["mean"] * g, "error_over_theory": lo["mean"],
                  "ratio_ci": [lo["ci_lo"], hi["ci_hi"]], "replicates": R},
        predicted={"error": g, "exponent": fit["predicted_exponent"], "ratio_band": [1 - band, 1 + band]},
        fit=fit,
        explanation=(f"The fitted slope in n is {fit['slope']:.3f} (95% CI {fit['slope_ci'][0]:.3f} to "
                     f"{fit['slope_ci'][1]:.3f}) against {fit['predicted_exponent']:g}; the error divided by "
                     f"d sigma^2/n lies between {lo['mean'].min():.3f} and {lo['mean'].max():.3f}."),
        assumptions=assumptions,
        figure=figspec.figure(figspec.panel(
            "Error of the sample mean", "n (samples)", r"$\mathbb{E}\|\bar x_n-\mu\|^2$",
            [figspec.observed("sample mean", ns, Y, rng=ctx.numpy_rng("figure")),
             figspec.line(r"$d\sigma^2/n$", ns, g, "bound")])),
        arrays={"errors": Y},
    )
