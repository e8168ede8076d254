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
Running and reading from Python (what ``fedverify run`` and a results directory hold)
    :func:`run` (``run(ids, seeds=..., results=...)``), :func:`load_results` (a DataFrame with pandas, else a list
    of dicts).
"""
from __future__ import annotations

from analytic.bounds import Bound
from analytic.statements import Hypothesis, Statement, statement_table
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
    "Bound", "Paper", "power_law", "Statement", "Hypothesis", "statement_table",
    "check", "register_paper", "result_for", "Context", "Claim", "Assumption", "Result", "erratum", "remark",
    "figspec",
    "rate_verdict", "bound_verdict", "identity_verdict", "deterministic_verdict", "exact_zero_verdict",
    "mc_identity_verdict", "mc_bound_verdict", "geometric_rate_verdict", "proportion_verdict", "bracket_verdict",
    "ratio_of_means_verdict", "paired_comparison_verdict", "rank_trend_verdict", "median_verdict",
    "counterexample_verdict", "combine", "unanimous", "controlled", "apply_assumptions", "family_z", "aside",
    "Objective",
    "CheckContract", "assert_verdict", "planted_at_power", "run_quick", "planted_quadratic", "planted_quadratics",
    "run", "load_results",
]


def run(ids, *, seeds=(0,), results="results", fidelity: str = "quick", replicates: int | None = None,
        device: str = "auto", force: bool = False, **overrides) -> list[Result]:
    """Run checks as ``fedverify run`` does, in this process, and store each Result in ``results`` (None: store
    nothing): one Result per (check, root seed), checks in the order given, then seeds. A Result already stored
    under the same rerun key is read back instead (``force`` reruns). Keyword ``overrides`` go to every check
    (as ``run --set``) and such Results are stored as sweep points, beside the defaults' Result. A crash in a
    check raises."""
    from verify.registry import select
    from verify.store import ResultStore
    from verify.sweep import parse_seeds, point_key

    ids = [ids] if isinstance(ids, str) else list(ids)
    specs = select(ids)
    if overrides:
        from verify.sweep import check_grid_names

        check_grid_names(specs, {k: [v] for k, v in overrides.items()}, "overrides")
    seeds = parse_seeds(seeds, "seeds") if isinstance(seeds, str) else ([seeds] if isinstance(seeds, int) else list(seeds))
    store = ResultStore(results) if results is not None else None
    out = []
    for spec in specs:
        for seed in seeds:
            ctx = Context(fidelity=fidelity, replicates=replicates, seed=seed, device=device)
            key = point_key(spec, ctx, overrides)
            where = {"seed": seed, "grid": overrides} if (overrides or seed) else {}
            if store is not None and not force and store.is_done(spec.id, key, **where):
                out.append(store.load(spec.id, **where))
                continue
            res = spec.run(ctx, **overrides)
            if store is not None:
                store.save(res, key, **where)
            out.append(res)
    return out


def load_results(results="results"):
    """Every Result stored in directory ``results`` (``fedverify run`` and ``fedverify sweep``), one row each:
    ``id, paper, seed, grid, verdict, expected, as_expected, tightness, margin, power, kind, fidelity,
    wall_time_s, file``; a pandas DataFrame when pandas is installed, else a list of dicts. Unreadable files are
    left out (``fedverify list --results`` names them)."""
    from verify.store import ResultStore

    store = ResultStore(results)
    rows = []

    def row(r, seed, grid, path):
        rows.append({"id": r.id, "paper": r.paper, "seed": seed, "grid": grid, "verdict": r.verdict.value,
                     "expected": r.expected.value, "as_expected": r.as_expected, "tightness": r.tightness,
                     "margin": r.margin.get("text", ""), "power": r.power.get("text", ""), "kind": r.kind,
                     "fidelity": r.env.get("fidelity"), "wall_time_s": r.env.get("wall_time_s"), "file": str(path)})

    for cid in store.ids():
        try:
            r = store.load(cid)
        except Exception:  # noqa: BLE001 - a damaged file must not cost the others
            continue
        row(r, int(r.env.get("seed", 0) or 0), {}, store.json_path(cid))
    for cid in store.swept_ids():
        points, _ = store.load_points(cid)
        for seed, grid, r in points:
            if not grid and (seed == 0 or not store.json_path(cid, seed, grid).exists()):
                continue  # the top-level file, listed above
            row(r, seed, grid, store.json_path(cid, seed, grid))
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows, columns=None if rows else ["id", "paper", "seed", "grid", "verdict", "expected",
                                                         "as_expected", "tightness", "margin", "power", "kind",
                                                         "fidelity", "wall_time_s", "file"])
