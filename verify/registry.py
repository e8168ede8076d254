"""The registry of checks: one function per checkable claim, registered under its id.

**Ids.** A check id is ``<paper key>.<claim>``: the paper key is the first author's surname in
lowercase ASCII letters, the year and an optional disambiguating letter (``werner2023``,
``smith2024b``); the claim is ``c`` plus the number of the claim in the paper's list of checkable claims (docs/papers/<key>.md §6) (``c09``,
``c112``), or ``x`` plus a number for a check beyond our reading (docs/papers/werner2023.md) list (``werner2023.x01``).
Registration is loud: an id registered twice by different functions raises.

**Where checks come from.** :func:`load_all` imports every module named by

* the entry-point group ``fedverify.checks`` of any installed distribution (fedverify's own
  check packages register this way too, see pyproject.toml; a package value imports all its
  submodules);
* the environment variable ``FEDVERIFY_CHECKS=mod1,mod2``;
* ``fedverify --import MODULE`` (or :func:`import_modules`).

so ``verify`` names no package above it, and a researcher's own theorem runs through the real
command line without editing fedverify.

**Calling a check.** ``@check`` turns the function into a :class:`CheckSpec`. Calling it,
``c09(ctx, **overrides)``, binds the context to the check's id (which seeds its random
streams), runs it, and fills the Result's ``env``; ``fedverify run`` makes exactly this call, so a
direct call gives the same numbers bit for bit. Keyword overrides (a planted wrong bound, a smaller
grid) are recorded in ``env["overrides"]``.
"""
from __future__ import annotations

import functools
import importlib
import os
import re
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable

from analytic.errors import InputError
from analytic.papers import Paper
from verify.codehash import CORE_PACKAGES, closure_hash, module_closure  # noqa: F401  (re-exported)
from verify.engine import Context, environment, library_versions
from verify.fit import apply_minimum_replicates
from verify.named import import_submodules
from verify.result import KINDS, Claim, Finding, Result, Verdict, check_sort_key
from verify.strength import recording, undecided, weakest

ID_PATTERN = re.compile(r"^[a-z]+\d{4}[a-z]?\.[cx]\d{2,3}$")
ENTRY_POINT_GROUP = "fedverify.checks"
ENV_VAR = "FEDVERIFY_CHECKS"


class CheckSpec:
    """A registered check. Calling it runs the check (see the module docstring)."""

    def __init__(self, id: str, title: str, kind: str, expected: Verdict, func: Callable[..., Result],
                 no_control: str = "", space=None, objective=None, statements: tuple[str, ...] = ()) -> None:
        self.id, self.title, self.kind, self.expected, self.func = id, title, kind, expected, func
        #: the paper's numbered statements this check exercises (analytic/statements.py), as the paper numbers them
        self.statements = tuple(statements)
        self.no_control = no_control or CONTROL_NOT_APPLICABLE.get(kind, "")
        self.space, self.objective = space, objective  # verify/search: the claim's instance space and ratio
        self.module = func.__module__
        functools.update_wrapper(self, func)

    @property
    def searchable(self) -> bool:
        """Whether ``fedverify search`` can hunt for an instance that breaks the claim (``@check(..., space=,
        objective=)``; verify/search/)."""
        return self.space is not None

    @property
    def paper(self) -> str:
        return self.id.split(".")[0]

    def __repr__(self) -> str:
        return f"<check {self.id} ({self.kind}, expects {self.expected.value})>"

    def __call__(self, ctx: Context | None = None, **overrides) -> Result:
        """Run the check with ``ctx`` bound to its id; fill ``env`` (versions, wall time, overrides)."""
        c = (ctx or Context()).for_check(self.id)
        t0 = time.perf_counter()
        with recording() as atoms:
            res = self.func(c, **overrides)
        wall = time.perf_counter() - t0
        if not isinstance(res, Result) or res.id != self.id:
            raise RuntimeError(f"check {self.id} must return its Result built by result_for(ctx, ...)")
        res.env = {**environment(c), **res.env, "wall_time_s": round(wall, 4)}
        if overrides:
            res.env["overrides"] = {k: _short_repr(v) for k, v in sorted(overrides.items())}
        if c.short_replicates:
            used, needed = min(c.short_replicates)
            res.verdict = apply_minimum_replicates(res.verdict, used, needed)
            res.explanation += (f" [Run with {used} replicates, fewer than the {needed} this check needs: "
                                "the verdict is reported as inconclusive.]")
        fill_strength(res, atoms)
        res.finding = complete_finding(res, c, overrides)
        return res

    def run(self, ctx: Context | None = None, **overrides) -> Result:
        """The same as calling the check."""
        return self(ctx, **overrides)

    @property
    def code_hash(self) -> str:
        """Fingerprint of every source file the check's module can reach through imports (see
        :func:`module_closure`): a stored Result of other code is never reused."""
        return closure_hash(self.module)

    def rerun_key(self, ctx: Context) -> dict:
        """Everything that decides a stored Result's numbers; a rerun reuses a Result only when all match."""
        return {"fidelity": ctx.fidelity, "replicates": ctx.replicates, "seed": ctx.seed,
                "device": ctx.torch_device.type, "dtype": str(ctx.dtype).replace("torch.", ""),
                "code": self.code_hash, "libraries": library_versions(),
                **({"data": ctx.data, "data_files": _data_fingerprint(ctx.data)} if ctx.data is not None else {})}


def _data_fingerprint(path: str) -> str:
    from verify.data.datasets import fingerprint  # lazy: only runs given --data read it

    return fingerprint(path)


def fill_strength(res: Result, atoms: list) -> None:
    """The Result's margin, power and tightness from the binding verdict atom the check called (the one closest to
    failing, verify/strength.py), unless the check set them itself; every atom listed in ``atoms``, the binding one
    first. Tightness belongs to a verdict that holds."""
    w = weakest(atoms, res.verdict.value)
    if atoms and not res.atoms:
        res.atoms = [a.as_dict() for a in ([w] + [a for a in atoms if a is not w])]
    if w is not None:
        res.margin = res.margin or w.margin_dict()
        res.power = res.power or w.power_dict()
        if res.verdict == Verdict.HOLDS and not res.tightness:
            # a rule without a tightness (a paired test) binds: the closest holding atom that has one speaks for it
            rated = [a for a in sorted(atoms, key=lambda a: a.slack if a.slack == a.slack else float("inf"))
                     if a.verdict == "holds" and a.tightness]
            res.tightness = w.tightness or (rated[0].tightness if rated else "")
    if res.verdict != Verdict.HOLDS:
        res.tightness = ""
    note = undecided(atoms, res.verdict.value)
    if note and note not in res.explanation:
        res.explanation = f"{res.explanation} [{note}]".lstrip()


def reproduce_command(check_id: str, ctx: Context, overrides: dict | None = None) -> str:
    """The one command that reproduces a Result (keyword overrides have no flag: say how to pass them)."""
    cmd = f"fedverify run {check_id} --seed {ctx.seed} --fidelity {ctx.fidelity}"
    if ctx.replicates is not None:
        cmd += f" --replicates {ctx.replicates}"
    if ctx.data is not None:
        cmd += f" --data {ctx.data}"
    if overrides:
        args = ", ".join(f"{k}={_short_repr(v, 60)}" for k, v in sorted(overrides.items()))
        cmd += f"  (in Python, with the keyword overrides: {check_id.split('.')[0]} check called as check(ctx, {args}))"
    return cmd


def complete_finding(res: Result, ctx: Context, overrides: dict | None = None) -> Finding:
    """Fill in what a finding needs and the check cannot know, in one place:

    * every finding gets the ``reproduce`` command of this run when the check gave none;
    * a ``violated`` verdict that carries no erratum becomes a ``discrepancy``: the statement
      checked, the evidence, and the plain words that no second argument supports it. An erratum
      is claimed only by a check that supplies its independent argument (the five fields).
    """
    f = Finding.coerce(res.finding)
    if res.verdict == Verdict.VIOLATED and f.kind != "erratum":
        source = f" ({res.claim.source})" if res.claim.source else ""
        f = Finding(
            summary=f.summary or f"The run contradicts the statement checked{source}.",
            kind="discrepancy",
            paper_says=f.paper_says or f"{res.claim.text}{source}",
            correction=f.correction or "not established: only the measurement below contradicts the statement",
            witness=f.witness or (res.explanation or "see the observed numbers"),
            second_argument=f.second_argument or "none recorded: a measurement alone is a discrepancy, "
                                                 "not a confirmed erratum",
            reproduce=f.reproduce,
        )
    if f and not f.reproduce:
        f.reproduce = reproduce_command(res.id, ctx, overrides)
    return f


def _short_repr(v, limit: int = 120) -> str:
    text = getattr(v, "name", None) if hasattr(v, "expr") else None  # a Bound: its name says what was planted
    text = text or repr(v)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_REGISTRY: dict[str, CheckSpec] = {}
_PAPERS: dict[str, Paper] = {}
_STATEMENTS: dict[str, dict] = {}


#: Kinds whose claim is not a property an algorithm could lack, so no control run applies (a rate or
#: bound check states its control in the Result or its reason in ``@check(..., no_control=...)``).
CONTROL_NOT_APPLICABLE = {
    "identity": "an identity of the paper's formulas: no algorithm whose property could be absent",
    "assumption": "a constant of the problem, not a property of an algorithm",
    "privacy": "an accountant's arithmetic, cross-checked against an independent accountant",
    "erratum": "the printed statement fails: a failing claim needs no control",
    "counterexample": "the repaired algorithm on the same instance is the control (counterexample_verdict)",
}


def check(id: str, title: str, kind: str, expected: str | Verdict, *, statements=(), no_control: str = "", space: dict | None = None, objective=None):
    """Decorator registering ``func(ctx, **settings) -> Result`` under ``id`` and returning its CheckSpec.

    ``statements``: the labels of the paper's numbered statements the check exercises, as the paper numbers them
    (``("Theorem 3.1", "eq. (41)")``; each must be a Statement the paper registers, analytic/statements.py: a
    construction names the Algorithm, Definition or Example it builds). A check that names none is refused: every
    Result answers a question a reader of the paper asks about one of its numbered statements.

    ``no_control``: for a rate or bound claim that runs no control (the same harness without the property,
    which must fail; Result.control), the reason none applies, e.g. "a property of the loss, not of an
    algorithm". The contract test requires one or the other.

    ``space`` and ``objective`` make the claim searchable by ``fedverify search`` (verify/search/): ``space``
    maps each instance parameter to its admissible range, ``objective(ctx, **instance)`` returns observed/bound
    (> 1 is a violation) or is a :class:`verify.search.Objective` with a batched or torch form."""
    if not ID_PATTERN.match(id):
        raise ValueError(f"check id {id!r} does not follow the id rule ('paper2023.c09'; see verify/registry.py)")
    if kind not in KINDS:
        raise ValueError(f"{id}: kind must be one of {KINDS}, got {kind!r}")

    if isinstance(statements, str):
        statements = (statements,)
    statements = tuple(statements)
    if not statements:
        raise ValueError(f"{id}: name the paper's numbered statements it exercises (statements=('Theorem 1',))")
    if not all(isinstance(x, str) and x.strip() for x in statements):
        raise ValueError(f"{id}: statements are labels such as 'Theorem 3.1', got {statements!r}")
    if (space is None) != (objective is None):
        raise ValueError(f"{id}: a searchable check needs both space= and objective=")
    if space is not None:
        from verify.search.space import Space  # validates the space now: a bad one fails at import, loudly
        from verify.search.objective import Objective

        space, objective = Space.of(space, where=id), Objective.of(objective, where=id)

    def deco(func) -> CheckSpec:
        old = _REGISTRY.get(id)
        if old is not None and (old.func.__module__, old.func.__qualname__) != (func.__module__, func.__qualname__):
            raise ValueError(f"check id {id} registered twice ({old.module} and {func.__module__})")
        spec = CheckSpec(id, title, kind, Verdict(expected), func, no_control, space, objective, statements)
        _REGISTRY[id] = spec
        return spec

    return deco


def register_paper(paper: Paper, statements: dict | None = None) -> Paper:
    """Declare a paper's title, authors and summary, and its numbered statements (``analytic.statements.
    statement_table``); its checks' Results, statement cards and report chapter carry them."""
    old = _PAPERS.get(paper.key)
    if old is not None and old != paper:
        raise ValueError(f"paper {paper.key} registered twice with different data")
    _PAPERS[paper.key] = paper
    if statements is not None:
        known = _STATEMENTS.get(paper.key)
        if known is not None and known != statements:
            raise ValueError(f"paper {paper.key}: statements registered twice with different data")
        _STATEMENTS[paper.key] = dict(statements)
    return paper


def papers() -> dict[str, Paper]:
    return dict(_PAPERS)


def statements(paper: str | None = None) -> dict:
    """The registered statements: of one paper (label -> Statement, in the paper's order), or of all papers
    (paper -> that)."""
    if paper is not None:
        return dict(_STATEMENTS.get(paper, {}))
    return {k: dict(v) for k, v in _STATEMENTS.items()}


def unknown_statements(reg: dict[str, "CheckSpec"] | None = None) -> list[str]:
    """Checks that name a statement their paper did not register, one line each (load_all refuses them)."""
    reg = _REGISTRY if reg is None else reg
    bad = []
    for spec in reg.values():
        table = _STATEMENTS.get(spec.paper, {})
        missing = [x for x in spec.statements if x not in table]
        if missing:
            bad.append(f"{spec.id} names {missing}, which {spec.paper} does not register "
                       f"(register_paper(PAPER, STATEMENTS); known: {', '.join(list(table)[:8]) or 'none'})")
    return bad


def result_for(ctx: Context, claim: Claim, verdict, **fields) -> Result:
    """The Result of the check ``ctx`` is bound to: id, paper, title, kind and expected verdict come
    from its ``@check`` line and the paper's registration, so a check states them once."""
    spec = _REGISTRY.get(ctx.check_id)
    if spec is None:
        raise RuntimeError("result_for: the context is not bound to a registered check; call the check "
                           "itself (c09(ctx)), not its undecorated function")
    paper = _PAPERS.get(spec.paper)
    return Result(id=spec.id, paper=spec.paper, title=spec.title, kind=spec.kind, expected=spec.expected,
                  claim=claim, verdict=verdict, paper_info=paper.as_dict() if paper else {}, **fields)


# -- where the checks come from ------------------------------------------------------------------
_plugin_errors: dict[str, str] = {}
_user_imports: list[str] = []


def imported_by_user() -> list[str]:
    """The modules named by ``--import`` and ``$FEDVERIFY_CHECKS`` so far (files as absolute paths),
    which worker processes of a sweep import too."""
    return list(_user_imports)


def _import_with_submodules(name: str) -> None:
    import_submodules(name)


def _import_file(path: Path) -> None:
    """Import a ``.py`` file as the module named by its stem (its folder joins the path, as ``python FILE`` does)."""
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    importlib.import_module(path.stem)


def import_modules(names, source: str = "--import") -> None:
    """Import check modules named by the user: a module name (found on the path, the current directory
    first, as ``python -m`` does) or a ``.py`` file. A module that cannot be imported is bad input."""
    names = [n.strip() for n in names if n and n.strip()]
    if names and "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in names:
        try:
            if name.endswith(".py"):
                if not Path(name).is_file():
                    raise FileNotFoundError(f"no such file {name!r}")
                _import_file(Path(name))
            else:
                _import_with_submodules(name)
        except Exception as exc:  # noqa: BLE001 - the user's module: report what went wrong, in one line
            raise InputError(source, f"cannot import check module {name!r} ({type(exc).__name__}: {exc})") from None
        remembered = str(Path(name).resolve()) if name.endswith(".py") else name
        if remembered not in _user_imports:  # for worker processes (fedverify sweep); only what imported
            _user_imports.append(remembered)


def load_all() -> dict[str, CheckSpec]:
    """Import the check modules of every entry point and of ``$FEDVERIFY_CHECKS``; return the registry
    in check order. An installed plugin that fails to import is remembered (:func:`plugin_errors`)
    and skipped, so one broken plugin does not hide the other checks."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.value in _plugin_errors:
            continue
        try:
            _import_with_submodules(ep.value)
        except Exception as exc:  # noqa: BLE001
            _plugin_errors[ep.value] = f"{type(exc).__name__}: {exc}"
    import_modules(os.environ.get(ENV_VAR, "").split(","), source=ENV_VAR)
    return dict(sorted(_REGISTRY.items(), key=lambda kv: check_sort_key(kv[0])))


def plugin_errors() -> dict[str, str]:
    """Installed check modules that could not be imported, with the error."""
    return dict(_plugin_errors)


def _unknown(check_id: str, param: str) -> InputError:
    hint = ""
    if _plugin_errors:
        hint = "; these check modules failed to import: " + "; ".join(f"{k} ({v})" for k, v in _plugin_errors.items())
    return InputError(param, f"unknown check id {check_id!r} (see 'fedverify list'{hint})")


def get(check_id: str) -> CheckSpec:
    reg = load_all()
    if check_id not in reg:
        raise _unknown(check_id, "ID")
    return reg[check_id]


def _import_only(ids) -> list[CheckSpec] | None:
    """The checks named by ``ids``, importing only the modules that define them (verify/catalog.py reads that from
    the source): ``fedverify run ID`` then pays for its own checks, not for every paper's. ``None`` when the source
    cannot say for certain or a module does not register what it was said to; the caller then imports everything."""
    from verify.catalog import check_modules

    where = check_modules()
    if not ids or where is None or any(i not in where for i in ids):
        return None
    try:
        for module in dict.fromkeys(where[i] for i in ids):
            importlib.import_module(module)
    except Exception:  # noqa: BLE001 - load_all reports import errors its own way
        return None
    if any(i not in _REGISTRY for i in ids):
        return None
    return [_REGISTRY[i] for i in dict.fromkeys(ids)]


def select(ids=(), paper: str | None = None, all_: bool = False) -> list[CheckSpec]:
    """Checks chosen by explicit ids, by paper, or all; unknown names are an InputError. Explicit ids alone import
    only the modules that define them (:func:`_import_only`)."""
    if ids and paper is None and not all_:
        only = _import_only(list(ids))
        if only is not None:
            return only
    reg = load_all()
    known = sorted({s.paper for s in reg.values()})
    if paper is not None and paper not in known:
        raise InputError("paper", f"unknown paper {paper!r}; known: {', '.join(known)}")
    chosen = [reg[cid] if cid in reg else _raise(_unknown(cid, "ID")) for cid in ids]
    if paper is not None:
        chosen += [s for s in reg.values() if s.paper == paper]
    if all_ or (not ids and paper is None):
        chosen = list(reg.values())
    return list({s.id: s for s in chosen}.values())


def _raise(exc: Exception):
    raise exc


