"""Everything a check needs, from one module: ``from verify.api import ...``.

A check outside fedverify (a plugin, examples/plugin/) or a new paper's module imports its public names
from here, so that the seven internal modules behind them can be rearranged without breaking it.
The reference for each name is its own docstring; docs/api.md walks through them in the order a check
uses them.

Theory
    :class:`Bound` (a theorem's right-hand side: sympy expression, kind upper / lower / tight / exact),
    :class:`Paper`, :func:`power_law`.
Registration and the Result
    :func:`check` (``@check(id, title, kind, expected, no_control=..., space=..., objective=...)``),
    :func:`register_paper`, :func:`result_for`, :class:`Context`, :class:`Claim`, :class:`Assumption`,
    :class:`Result`, :func:`erratum`, :func:`remark`, ``figspec`` (plot specs).
Verdicts (the only place a measurement becomes a verdict; each records its margin, power and tightness)
    :func:`rate_verdict`, :func:`bound_verdict`, :func:`identity_verdict`, :func:`deterministic_verdict`,
    :func:`exact_zero_verdict`, :func:`mc_identity_verdict`, :func:`mc_bound_verdict`,
    :func:`geometric_rate_verdict`, :func:`proportion_verdict`, :func:`bracket_verdict`,
    :func:`ratio_of_means_verdict`, :func:`paired_comparison_verdict`, :func:`rank_trend_verdict`,
    :func:`median_verdict`, :func:`counterexample_verdict`, and the combinators :func:`combine`,
    :func:`unanimous`, :func:`controlled`, :func:`apply_assumptions`; :func:`family_z` for simultaneous tests;
    :func:`aside` for atoms that are not the claim.
Search
    :class:`Objective` (with ``space=`` on ``@check``: ``fedverify search ID``).
Tests
    :class:`CheckContract`, :func:`assert_verdict`, :func:`planted_at_power`, :func:`run_quick`,
    :func:`planted_quadratic`, :func:`planted_quadratics`.
"""
from __future__ import annotations

from analytic.bounds import Bound
from analytic.papers import Paper
from verify import figspec
from verify.engine import Context
from verify.fit import (
    apply_assumptions,
    bound_verdict,
    bracket_verdict,
    combine,
    controlled,
    counterexample_verdict,
    deterministic_verdict,
    exact_zero_verdict,
    family_z,
    geometric_rate_verdict,
    identity_verdict,
    mc_bound_verdict,
    mc_identity_verdict,
    median_verdict,
    paired_comparison_verdict,
    power_law,
    proportion_verdict,
    rank_trend_verdict,
    rate_verdict,
    ratio_of_means_verdict,
    unanimous,
)
from verify.registry import check, register_paper, result_for
from verify.result import Assumption, Claim, Result, erratum, remark
from verify.search import Objective
from verify.strength import aside
from verify.testing import (
    CheckContract,
    assert_verdict,
    planted_at_power,
    planted_quadratic,
    planted_quadratics,
    run_quick,
)

__all__ = [
    "Bound", "Paper", "power_law",
    "check", "register_paper", "result_for", "Context", "Claim", "Assumption", "Result", "erratum", "remark",
    "figspec",
    "rate_verdict", "bound_verdict", "identity_verdict", "deterministic_verdict", "exact_zero_verdict",
    "mc_identity_verdict", "mc_bound_verdict", "geometric_rate_verdict", "proportion_verdict", "bracket_verdict",
    "ratio_of_means_verdict", "paired_comparison_verdict", "rank_trend_verdict", "median_verdict",
    "counterexample_verdict", "combine", "unanimous", "controlled", "apply_assumptions", "family_z", "aside",
    "Objective",
    "CheckContract", "assert_verdict", "planted_at_power", "run_quick", "planted_quadratic", "planted_quadratics",
]
