"""``fedverify search``: hunt for the instance that breaks a stated bound.

A ``holds`` verdict says the claim held on the instances a check planted. A claim "for every instance in
the class C, observed <= bound" is searchable when its ``@check`` line also gives the class and the ratio:

.. code-block:: python

    from verify.search import Objective

    @check("mypaper2024.c03", "Lemma 2: the step contracts by (1 - mu/L)", "bound", "holds",
           space={"mu": (0.01, 1.0, {"log": True}), "L": 1.0, "x0": (-1.0, 1.0, {"shape": 3})},
           objective=Objective(batch=my_ratio_batch, planted={"mu": 0.1, "x0": [1.0, 0.0, 0.0]}))
    def c03(ctx, ...): ...

``space`` (verify/search/space.py) states the assumptions exactly: every point of its unit cube decodes to
an admissible instance. ``objective`` returns observed/bound (> 1 is a violation): a plain function
``fn(ctx, **instance) -> float`` or an :class:`Objective` with a batched, a torch (for gradient ascent), a
constraint, the planted instance, a certified worst case and a default budget.

:func:`search` runs the chosen method (CMA-ES by default) and uniform random sampling at the same budget,
scores the planted instance, saves the worst instance as a witness (``<results>/search/<id>.npz``, re-scored
on load) and returns a :class:`SearchReport`: its JSON (``worst_ratio``, ``random_ratio``, ``planted_ratio``,
``certified_ratio``, ``instance_file``, ``evaluations``, ``method``) and a Result. A ratio > 1 gives
``violated`` with the instance as the finding's witness (a discrepancy: a measurement, not an erratum);
otherwise the Result is ``inconclusive``: "no violation found in N evaluations; worst ratio r" (a search never
proves ``holds``: the worst ratio is a lower bound of the supremum, whose upper end stays open).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analytic.errors import InputError
from verify.search.methods import METHODS, Evaluator, run_method
from verify.search.objective import DEFAULT_BUDGET, Objective
from verify.search.space import Space
from verify.search.witness import instance_text, rescore, save

__all__ = ["Objective", "Space", "search", "SearchReport", "METHODS", "DEFAULT_BUDGET", "witness_path",
           "searchable_checks"]

SUBDIR = "search"
#: a ratio counts as a violation only beyond 1 + this (rounding of the objective's float64 arithmetic: several
#: claims attain ratio 1 exactly, e.g. buttaci2024.c07's factors coincide at E = 1)
RATIO_RTOL = 1e-9
#: two ratios that must agree (a re-scored witness, the gradient method's torch ratio against the reference)
RESCORE_RTOL = 1e-9


def witness_path(results, check_id: str) -> Path:
    return Path(results) / SUBDIR / f"{check_id}.npz"


def json_path(results, check_id: str) -> Path:
    return Path(results) / SUBDIR / f"{check_id}.json"


def searchable_checks() -> dict:
    from verify.registry import load_all

    return {k: s for k, s in load_all().items() if s.searchable}


@dataclass
class SearchReport:
    check_id: str
    method: str
    budget: int
    seed: int
    worst_ratio: float
    random_ratio: float
    planted_ratio: float | None
    certified_ratio: float | None
    instance: dict
    instance_file: str | None
    evaluations: dict
    wall_time_s: dict
    rejected: dict
    rescored_ratio: float | None = None
    result: object = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"id": self.check_id, "method": self.method, "budget": self.budget, "seed": self.seed,
                "worst_ratio": self.worst_ratio, "random_ratio": self.random_ratio,
                "planted_ratio": self.planted_ratio, "certified_ratio": self.certified_ratio,
                "reached_of_certified": (self.worst_ratio / self.certified_ratio
                                         if self.certified_ratio else None),
                "instance": {k: (np.asarray(v).tolist()) for k, v in self.instance.items()},
                "instance_file": self.instance_file, "rescored_ratio": self.rescored_ratio,
                "evaluations": self.evaluations, "wall_time_s": self.wall_time_s, "rejected": self.rejected,
                "verdict": self.result.verdict.value if self.result is not None else None,
                "explanation": self.result.explanation if self.result is not None else None,
                "result": self.result.to_dict() if self.result is not None else None}


def _validate(spec, method: str, budget) -> int:
    if not spec.searchable:
        raise InputError("ID", f"{spec.id} is not searchable (its @check line gives no space= and objective=; "
                               "'fedverify list --json' marks the searchable checks)")
    if method not in METHODS:
        raise InputError("method", f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "gradient" and not spec.objective.differentiable:
        raise InputError("method", f"{spec.id} has no differentiable objective (Objective(torch=...)); "
                                   "use --method cma or random")
    if budget is None:
        return int(spec.objective.budget)
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise InputError("budget", f"must be an integer >= 1, got {budget!r}")
    return int(budget)


def search(spec, ctx=None, *, method: str = "cma", budget: int | None = None, results=None,
           progress=None) -> SearchReport:
    """Search ``spec``'s space for the largest observed/bound with ``method`` and with random sampling at the
    same budget (``budget`` evaluations each; default: the objective's). ``progress(k)`` is called after
    every k evaluations. With ``results``, the witness is saved as ``<results>/search/<id>.npz`` and re-scored
    from the file."""
    from verify.engine import Context

    budget = _validate(spec, method, budget)
    ctx = (ctx or Context()).for_check(spec.id)
    space, obj = spec.space, spec.objective
    planted = obj.planted_instance(ctx)
    start = space.encode(planted) if planted else None  # the planted instance must lie in the claim's own space
    runs = {}
    for name in ([method, "random"] if method != "random" else ["random"]):
        ev = Evaluator(ctx, space, obj, budget, progress, start=start if name != "random" else None)
        runs[name] = run_method(name, ev, ctx.seed_sequence(f"search/{name}"))
    main = runs[method]
    if main.best_u is None:
        raise InputError("ID", f"{spec.id}: no instance of the space satisfied the claim's constraint in "
                               f"{budget} evaluations")
    best = space.row(space.decode(main.best_u[None]), 0)
    worst = obj.score_one(ctx, space, best)  # the reference form decides the reported number
    if method == "gradient" and not math.isclose(worst, main.best_ratio, rel_tol=1e-6, abs_tol=1e-12):
        raise RuntimeError(f"{spec.id}: the torch objective ({main.best_ratio!r}) and the reference objective "
                           f"({worst!r}) disagree at the same instance")
    planted_ratio = obj.score_one(ctx, space, {**planted, **space.fixed}) if planted else None
    certified = float(obj.certified(ctx)) if obj.certified is not None else None
    rnd = runs["random"]
    report = SearchReport(
        check_id=spec.id, method=method, budget=budget, seed=ctx.seed, worst_ratio=float(worst),
        random_ratio=float(rnd.best_ratio), planted_ratio=planted_ratio, certified_ratio=certified,
        instance=best, instance_file=None,
        evaluations={k: r.evaluations for k, r in runs.items()},
        wall_time_s={k: round(r.wall_time_s, 4) for k, r in runs.items()},
        rejected={k: r.rejected for k, r in runs.items()},
        extra={"best": {k: space.row(space.decode(r.best_u[None]), 0) for k, r in runs.items() if r.best_u is not None}})
    if results is not None:
        path = save(witness_path(results, spec.id), spec.id, best, space,
                    {"ratio": worst, "method": method, "seed": ctx.seed, "budget": budget})
        again, _, _ = rescore(spec, ctx, path)
        if not math.isclose(again, worst, rel_tol=RESCORE_RTOL, abs_tol=1e-15):
            raise RuntimeError(f"{spec.id}: the saved witness re-scores to {again!r}, not {worst!r}")
        report.instance_file, report.rescored_ratio = str(path), float(again)
    report.result = _result(spec, ctx, report)
    return report


def _result(spec, ctx, rep: SearchReport):
    """The search's Result: violated with the witness when a ratio > 1 was found, else inconclusive."""
    from verify.engine import environment
    from verify.fit import interval_verdict
    from verify.registry import reproduce_command, result_for
    from verify.result import Claim, Finding

    obj = spec.objective
    # the supremum over the class lies in [worst found, +inf): only a violation is decided by a search
    verdict = interval_verdict(rep.worst_ratio, math.inf, 1.0 + RATIO_RTOL)
    found = verdict.value == "violated"
    total = sum(rep.evaluations.values())
    where = "; ".join(spec.space.describe())
    claim = Claim(f"{spec.title}. Searched as: {obj.observed} <= {obj.bound} for every instance with {where}.",
                  r"\sup_{x\in C}\ \mathrm{observed}(x)/\mathrm{bound}(x) \le 1",
                  f"{spec.id} (its @check space and objective)")
    cert = (f"; the certified worst ratio is {rep.certified_ratio:.6g}, of which the search reached "
            f"{rep.worst_ratio / rep.certified_ratio:.4f}" if rep.certified_ratio else "")
    planted = f"; at the check's planted instance {rep.planted_ratio:.6g}" if rep.planted_ratio is not None else ""
    if found:
        text = (f"{rep.method} found an instance with {obj.observed} / {obj.bound} = {rep.worst_ratio:.6g} > 1 "
                f"(random sampling at the same budget: {rep.random_ratio:.6g}{planted}{cert}).")
    else:
        text = (f"no violation found in {total} evaluations; worst ratio {rep.worst_ratio:.6g} ({rep.method}; random "
                f"sampling at the same budget {rep.random_ratio:.6g}{planted}{cert}). A search never proves the claim"
                + (": the certificate, not the search, bounds the supremum." if rep.certified_ratio else
                   ": the supremum may lie higher."))
    command = (f"fedverify search {spec.id} --method {rep.method} --budget {rep.budget} --seed {rep.seed}")
    finding = ""
    if found:
        wit = instance_text(rep.instance) + (f" (saved as {rep.instance_file}, re-scored to {rep.rescored_ratio:.9g})"
                                             if rep.instance_file else "")
        finding = Finding(
            summary=f"Search found an instance of the claim's space where {obj.observed} exceeds {obj.bound} "
                    f"{rep.worst_ratio:.6g} times.",
            kind="discrepancy", paper_says=claim.text,
            correction="not established: only the measurement at the witness contradicts the statement",
            witness=wit,
            second_argument="none recorded: a search measurement alone is a discrepancy, not a confirmed erratum",
            reproduce=command)
    res = result_for(ctx, claim, verdict,
                     observed={"worst_ratio": rep.worst_ratio, "random_ratio": rep.random_ratio,
                               "planted_ratio": rep.planted_ratio, "certified_ratio": rep.certified_ratio,
                               "evaluations": rep.evaluations, "rejected": rep.rejected,
                               "instance": {k: np.asarray(v).tolist() for k, v in rep.instance.items()}},
                     predicted={"bound_ratio": 1.0, "space": spec.space.describe()},
                     fit={"rule": "violated when a ratio > 1 is found; otherwise inconclusive (a search is a lower "
                                  "bound of the supremum)", "method": rep.method, "budget": rep.budget},
                     explanation=text, finding=finding,
                     env={**environment(ctx), "search": {"method": rep.method, "budget": rep.budget, "seed": rep.seed,
                                     "wall_time_s": rep.wall_time_s}, "reproduce": command})
    if res.finding and not res.finding.reproduce:
        res.finding.reproduce = reproduce_command(spec.id, ctx)
    return res
