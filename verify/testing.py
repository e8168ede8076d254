"""Test helpers for authors' own suites (and fedverify's): hypothesis strategies for the instances
the toolkit generates, a verdict assertion, and a contract any check can inherit.

    from verify.testing import CheckContract, assert_verdict, planted_quadratics, worker_counts

    class TestMyBound(CheckContract):            # pytest collects it: five contract tests
        check = c01_my_bound                     # a registered check (@check)
        planted = {"theory": MY_BOUND.scaled(0.1)}   # a wrong theory the check must call violated

    def test_my_bound_over_seeds():
        assert_verdict(c01_my_bound, "holds", seeds=range(5))

Strategies return plain numbers or tensors built with explicit generators; nothing here seeds a
global random state.
"""
from __future__ import annotations

import functools
import json
import re

import numpy as np
import torch
from hypothesis import strategies as st

from verify.engine import Context
from verify.normal_draws import randn
from verify.registry import CheckSpec, get
from verify.result import Result, Verdict

__all__ = ["worker_counts", "planted_quadratics", "clustered_points", "seeds", "assert_verdict", "run_quick",
           "assert_cites_the_paper", "reader_facing_texts", "CheckContract"]

seeds = st.integers(0, 2**31 - 1)


@st.composite
def worker_counts(draw, max_n: int = 200, min_n: int = 1):
    """(n, f, q) with 0 <= q <= f < n/2: workers, malicious workers, colluders (allouah2025, dutta2023)."""
    n = draw(st.integers(min_n, max_n))
    f = draw(st.integers(0, (n - 1) // 2))
    q = draw(st.integers(0, f))
    return n, f, q


def planted_quadratic(d: int, mu: float, L: float, generator: torch.Generator, dtype=torch.float64):
    """A symmetric H [d, d] with spectrum exactly in [mu, L], both ends attained (d >= 2), as
    Q diag(lambda) Q^T with Q a Haar-random orthogonal matrix; returns (H, eigenvalues)."""
    if not 0 < mu <= L or d < 1:
        raise ValueError(f"need 0 < mu <= L and d >= 1, got mu={mu}, L={L}, d={d}")
    inner = torch.rand(max(d - 2, 0), generator=generator, dtype=dtype) * (L - mu) + mu
    lam = torch.cat([torch.tensor([mu, L][: min(d, 2)], dtype=dtype), inner]).sort().values
    A = randn(d, d, generator=generator, dtype=dtype)
    Q, Rm = torch.linalg.qr(A)
    Q = Q * torch.sign(torch.diagonal(Rm))[None, :]  # the sign fix makes Q Haar-distributed
    return (Q * lam[None, :]) @ Q.T, lam


@st.composite
def planted_quadratics(draw, max_d: int = 8, max_condition: float = 1e3):
    """(H, x_star, mu, L): f(x) = 1/2 (x - x*)^T H (x - x*) with the spectrum of H in [mu, L] exactly,
    so f is mu-strongly convex and L-smooth with exact constants."""
    d = draw(st.integers(1, max_d))
    mu = draw(st.floats(1e-2, 10.0))
    L = mu * draw(st.floats(1.0, max_condition)) if d > 1 else mu  # both ends attained
    g = torch.Generator().manual_seed(draw(seeds))
    H, _ = planted_quadratic(d, mu, L, g)
    x_star = randn(d, generator=g, dtype=torch.float64) * draw(st.floats(0.0, 10.0))
    return H, x_star, mu, L


@st.composite
def clustered_points(draw, max_R: int = 3, max_K: int = 4, max_n: int = 16):
    """A :class:`verify.problems.points.ClusteredPoints` instance: K Gaussian clusters in R^d with
    means exactly Delta apart and total variance sigma^2 (werner2023 Assumptions 1-3)."""
    from verify.problems.points import clustered_points as build

    R, K, n = draw(st.integers(1, max_R)), draw(st.integers(1, max_K)), draw(st.integers(1, max_n))
    d = draw(st.integers(K, K + 4))
    sigma, Delta = draw(st.floats(0.1, 5.0)), draw(st.floats(0.0, 100.0))
    return build(R, K, n, d, sigma, Delta, torch.Generator().manual_seed(draw(seeds)), torch.float64)


def _spec(check) -> CheckSpec:
    return check if isinstance(check, CheckSpec) else get(str(check))


#: A folder shared by the processes of one test session (pytest-xdist workers): a check's Result computed by
#: one process is read by the others instead of being computed again. tests/conftest.py sets it.
SHARED_CACHE_ENV = "FEDVERIFY_TEST_CACHE"


def _shared(key: str, compute):
    """``compute()`` once per test session: under ``$FEDVERIFY_TEST_CACHE`` the first process to ask computes
    it under a file lock and pickles it; the others wait for the lock and unpickle. Without the variable,
    ``compute()``."""
    import fcntl
    import hashlib
    import os
    import pickle
    from pathlib import Path

    folder = os.environ.get(SHARED_CACHE_ENV)
    if not folder:
        return compute()
    stem = Path(folder) / hashlib.sha1(key.encode()).hexdigest()
    path = stem.with_suffix(".pkl")
    with open(stem.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            with open(path, "rb") as fh:
                return pickle.load(fh)
        value = compute()
        tmp = stem.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            pickle.dump(value, fh)
        os.replace(tmp, path)
        return value


@functools.lru_cache(maxsize=None)
def _run_cached(check_id: str, seed: int, fidelity: str) -> Result:
    return _shared(f"run {check_id} {seed} {fidelity}",
                   lambda: get(check_id)(Context(fidelity=fidelity, seed=seed)))


def run_quick(check, seed: int = 0, fidelity: str = "quick") -> Result:
    """The check's Result at default settings, computed once per process (tests share it: treat it as
    read-only)."""
    return _run_cached(_spec(check).id, seed, fidelity)


def assert_verdict(check, expected, seeds=(0,), fidelity: str = "quick", **overrides) -> list[Result]:
    """Run ``check`` (a CheckSpec or an id) at each root seed, with keyword ``overrides`` (a planted
    theory, a smaller grid), and assert its verdict is ``expected`` every time; return the Results."""
    spec, want = _spec(check), Verdict(expected)
    out = []
    for s in seeds:
        r = spec(Context(fidelity=fidelity, seed=int(s)), **overrides)
        assert r.verdict == want, (f"{spec.id} at seed {s}{' with ' + ', '.join(overrides) if overrides else ''}: "
                                   f"verdict {r.verdict.value}, expected {want.value}. {r.explanation}")
        out.append(r)
    return out


def plantable_atom(result: Result, keyword_bounds: list[str]) -> dict:
    """The atom whose power a plant through the check's Bound keywords can show: the binding atom when it evaluated
    one of those Bounds (or one derived from it, e.g. ``2·Theorem 3.1``), else the atom closest to failing among the
    ones that did; the Result's own ``power`` when no atom evaluated a keyword Bound (a check whose atoms compare
    numbers it computed from the keyword)."""
    def driven(atom: dict) -> bool:
        name = (atom.get("evidence") or {}).get("bound") or ""
        return bool(atom.get("plant")) and any(k and k in name for k in keyword_bounds)

    mine = [a for a in result.atoms if a.get("verdict") == result.verdict.value and driven(a)]
    if mine:
        return min(mine, key=lambda a: a["slack"] if isinstance(a.get("slack"), (int, float)) else float("inf"))
    return result.power or {}


def _keyword_bounds(spec) -> dict:
    import inspect

    from analytic.bounds import Bound

    return {k: p.default for k, p in inspect.signature(spec.func).parameters.items() if isinstance(p.default, Bound)}


def plant_candidates(check, result: Result) -> list[dict]:
    """The plants :func:`assert_power_shown` tries, in order: that of :func:`plantable_atom` (the binding atom, or the
    closest atom its Bound keywords drive); then, for a check whose atoms compare numbers it computes from its
    keywords (no atom evaluated a keyword Bound, so a scale of the keyword is not a scale of the compared curve), the
    plant of its loosest holding atom, which moves every comparison at once."""
    spec = _spec(check)
    first = plantable_atom(result, [b.name for b in _keyword_bounds(spec).values()]).get("plant") or {}
    out = [first] if first else []
    holding = [a for a in result.atoms if a.get("verdict") == result.verdict.value and a.get("plant")]
    if holding:
        loosest = max(holding, key=lambda a: a["slack"] if isinstance(a.get("slack"), (int, float)) else float("inf"))
        if loosest["plant"] != first:
            out.append(loosest["plant"])
    return out


def planted_at_power(check, result: Result, plant: dict | None = None) -> dict:
    """Keyword overrides that plant a wrong theory just past a power ``result`` reports (``plant``; default the first of
    :func:`plant_candidates`): every Bound-valued keyword of the check scaled by ``plant["scale"]``, or multiplied by
    ``param**exponent_shift`` (verify/strength.py). Empty when there is no plant or the check takes no Bound keyword."""
    import sympy as sp

    from analytic.bounds import Bound

    spec = _spec(check)
    bounds = _keyword_bounds(spec)
    if plant is None:
        plant = (plant_candidates(spec, result) or [{}])[0]
    out = {}
    for name, b in bounds.items():
        if "scale" in plant:
            out[name] = b.scaled(plant["scale"], name=f"{b.name} x {plant['scale']:.3g}")
        elif "exponent_shift" in plant and plant["param"] in {str(s) for s in b.expr.free_symbols}:
            x, e = b.symbol(plant["param"]), sp.Float(plant["exponent_shift"])
            out[name] = Bound(f"{b.name} x {plant['param']}^{plant['exponent_shift']:+.3g}", b.expr * x**e, b.kind,
                              b.statement, b.source, b.hidden_constant, b.typst)
    return out


def symbol_plants(check, result: Result) -> list[tuple[str, float, dict]]:
    """For each symbol a holding Result reports ``varied`` with an exponent power (``Result.atoms``' evidence,
    verify/evidence.py), the plant just past it: ``(symbol, s, overrides)`` with every Bound keyword of the check that
    contains the symbol multiplied by ``symbol**s``, ``|s|`` the smallest power an atom reports divided by
    PLANT_FACTOR. A symbol no Bound keyword contains is left out (the check cannot be planted there)."""
    import inspect

    import sympy as sp

    from analytic.bounds import Bound
    from verify.fit import PLANT_FACTOR

    spec = _spec(check)
    bounds = {k: p.default for k, p in inspect.signature(spec.func).parameters.items() if isinstance(p.default, Bound)}
    best: dict[str, float] = {}
    for atom in result.atoms:
        ev = atom.get("evidence") or {}
        for name, rec in (ev.get("symbols") or {}).items():
            if rec.get("status") != "varied" or name == ev.get("param"):
                continue
            for way, sign in (("up", 1.0), ("down", -1.0)):
                p = (rec.get("power") or {}).get(way)
                if p is not None and (name not in best or p < abs(best[name])):
                    best[name] = sign * p
    out = []
    for name, s in sorted(best.items()):
        shift = s / PLANT_FACTOR
        over = {k: Bound(f"{b.name} x {name}^{shift:+.3g}", b.expr * b.symbol(name) ** sp.Float(shift), b.kind,
                         b.statement, b.source, b.hidden_constant, b.typst)
                for k, b in bounds.items() if name in {str(x) for x in b.expr.free_symbols}}
        if over:
            out.append((name, shift, over))
    return out


def assert_claims_typeset(results, paper: str, folder) -> None:
    """Every Result's claim LaTeX goes through matplotlib's mathtext, its typst math compiles (the report needs both),
    and its source starts with the paper key. ``folder``: a scratch directory (pytest's ``tmp_path``)."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import typst
    from matplotlib import mathtext

    folder = Path(folder)
    for r in results:
        mathtext.math_to_image(f"${r.claim.latex}$", str(folder / f"{r.id}.png"), format="png")
        assert r.claim.source.startswith(paper), r.id
    src = folder / "claims.typ"
    src.write_text("#set page(width: auto, height: auto)\n" + "\n\n".join(f"$ {r.claim.typst} $" for r in results),
                   encoding="utf-8")
    assert len(typst.compile(str(src))) > 1000


STRENGTH_KINDS = ("rate", "bound", "identity")
_PLANTED: dict[tuple, Result] = {}


def assert_says_how_hard_it_was_tested(check, result: Result) -> None:
    """A rate, bound or identity Result carries its margin and power, and when it holds its tightness; a rate or
    bound check runs a control that must fail, or its ``@check(no_control=...)`` says why none applies."""
    spec = _spec(check)
    if result.kind in STRENGTH_KINDS:
        assert result.margin.get("text") and result.power.get("text"), f"{spec.id}: no margin or power"
        if result.verdict == Verdict.HOLDS:
            assert result.tightness in ("tight", "loose", "vacuous"), f"{spec.id}: holds without a tightness"
    assert result.control or spec.no_control, f"{spec.id}: neither a control nor the reason none applies"
    if result.control:
        assert result.control.get("what") and result.control.get("verdict"), f"{spec.id}: control {result.control}"


def assert_power_shown(check, result: Result, fidelity: str = "quick") -> None:
    """A holding rate or bound, with its theory moved just past the power it reports, is violated: the plant of its
    binding atom (or of the closest atom its Bound keywords drive), else that of its loosest holding atom
    (:func:`plant_candidates`); one of them must flip the verdict."""
    spec = _spec(check)
    if result.kind not in ("rate", "bound") or result.verdict != Verdict.HOLDS:
        return
    tried = []
    for plant in plant_candidates(spec, result) or [{}]:
        overrides = planted_at_power(spec, result, plant)
        if not overrides:
            tried.append(f"{plant}: no Bound keyword contains its variable")
            continue
        key = (spec.id, fidelity, result.env.get("seed", 0) or 0, json.dumps(plant, sort_keys=True))
        if key not in _PLANTED:  # several contract classes may ask for the same plant: run it once per process
            _PLANTED[key] = _shared("plant " + json.dumps(key),
                                    lambda: spec(Context(fidelity=fidelity, seed=key[2]), **overrides))
        planted = _PLANTED[key]
        if planted.verdict == Verdict.VIOLATED:
            return
        tried.append(f"{plant} -> {planted.verdict.value}")
    assert any("->" in t for t in tried), f"{spec.id}: reports power {result.power} but has no Bound keyword to " \
                                          f"plant it in ({tried})"
    raise AssertionError(f"{spec.id}: planted at its reported power ({result.power.get('text')}) it still holds; "
                         f"tried {tried}: {planted.explanation}")


#: A reference to our private reading of a paper (the spec), which a reader holding only the paper cannot resolve:
#: the word "spec" itself, an erratum label "(E5)", or a bare label of the spec's lists -- claims C1-C33, errata
#: E1-E25, figure claims F1-F2, ambiguities A1-A20, derived results R1-R3.
_SPEC_WORD = re.compile(r"\bspec(?:'s)?\b", re.IGNORECASE)
_SPEC_LABEL = re.compile(r"\(E\d+\)|\b(?:[ACEF]\d{1,2}|R\d)\b")
#: Bare labels that are the paper's own: buttaci2024 numbers Appendix A's and B's lemmas "Lemma A3", "B3";
#: werner2023's constant A^2 (Assumption 4, Lemma 1) is written A2 in table keys ("A2_exact").
PAPER_LABELS = {"buttaci2024": re.compile(r"^[AB]\d{1,2}$"), "werner2023": re.compile(r"^A2$")}


def reader_facing_texts(result: Result, extra: dict | None = None) -> list[tuple[str, str]]:
    """``(field, text)`` for every text of a Result a report reader sees: title, claim (text, source, LaTeX, typst),
    explanation, the finding's five fields, assumptions (name, detail), control, margin and power, figure titles,
    axis and series labels, and the keys of the observed and predicted tables (underscores read as spaces).
    ``extra`` adds texts kept outside the Result (e.g. the check's ``no_control`` reason)."""
    out = [("title", result.title)]
    out += [(f"claim.{k}", getattr(result.claim, k, "")) for k in ("text", "source", "latex", "typst")]
    out.append(("explanation", result.explanation))
    out += [(f"finding.{k}", getattr(result.finding, k, "")) for k in
            ("summary", "paper_says", "correction", "witness", "second_argument")]
    for i, a in enumerate(result.assumptions):
        out += [(f"assumptions[{i}].name", a.name), (f"assumptions[{i}].detail", a.detail)]

    def strings(prefix: str, x, keys_only: bool = False):
        if isinstance(x, dict):
            for k, v in x.items():
                yield f"{prefix}.{k} (key)", str(k).replace("_", " ")
                yield from strings(f"{prefix}.{k}", v, keys_only)
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                yield from strings(f"{prefix}[{i}]", v, keys_only)
        elif isinstance(x, str) and not keys_only:
            yield prefix, x

    out += list(strings("control", result.control))
    out += [(f"{k}.text", (getattr(result, k) or {}).get("text", "")) for k in ("margin", "power")]
    for i, panel in enumerate((result.figure or {}).get("panels") or []):  # the texts reports.figures draws
        out += [(f"figure.panels[{i}].{k}", panel.get(k)) for k in ("title", "xlabel", "ylabel")]
        for j, series in enumerate(panel.get("series") or []):
            out += [(f"figure.panels[{i}].series[{j}].{k}", series.get(k)) for k in ("label", "band_label")]
    out += list(strings("observed", result.observed, keys_only=True))
    out += list(strings("predicted", result.predicted, keys_only=True))
    out += [(k, v) for k, v in (extra or {}).items()]
    return [(f, str(t)) for f, t in out if t]


def assert_cites_the_paper(result: Result, extra: dict | None = None) -> None:
    """No reader-facing text of ``result`` (:func:`reader_facing_texts`) cites our private spec: a reader holding the
    paper must be able to resolve every reference, so a Result cites the paper's theorem, lemma, equation, figure,
    section or line. Labels that are the paper's own (:data:`PAPER_LABELS`) are allowed."""
    own = PAPER_LABELS.get(result.paper)
    hits = []
    for field_name, text in reader_facing_texts(result, extra):
        for m in list(_SPEC_WORD.finditer(text)) + list(_SPEC_LABEL.finditer(text)):
            if own is not None and own.match(m.group(0)):
                continue
            hits.append(f"{field_name}: {m.group(0)!r} in ...{text[max(0, m.start() - 50): m.end() + 30]}...")
    assert not hits, f"{result.id}: reader-facing text cites our spec, not the paper:\n  " + "\n  ".join(hits)


#: A text that presents itself as an erratum: "Erratum ...", "an erratum", "errata confirmed" ("not an erratum" and
#: "no erratum" are a remark saying what it is not).
_CALLS_ITSELF_ERRATUM = re.compile(r"(?<!not an )(?<!not )(?<!no )\berrat(?:um|a)\b", re.IGNORECASE)


def assert_label_matches_finding(result: Result) -> None:
    """One label per finding, and it is right (DESIGN.md, "The Result"): an erratum (the printed statement is false)
    has all five fields (:data:`verify.result.ERRATUM_FIELDS`); a remark or a discrepancy is not an error of the paper,
    so none of its reader-facing texts (title, explanation, the finding's fields) presents itself as an erratum."""
    f = result.finding
    if f.kind == "erratum":
        assert not f.missing(), f"{result.id}: an erratum without {f.missing()}"
        return
    texts = [("title", result.title), ("explanation", result.explanation), ("finding.summary", f.summary)]
    texts += [(f"finding.{name}", getattr(f, name)) for name in ("paper_says", "correction", "witness",
                                                                 "second_argument")]
    hits = [f"{where}: ...{text[max(0, m.start() - 40): m.end() + 40]}..." for where, text in texts if text
            for m in _CALLS_ITSELF_ERRATUM.finditer(str(text))]
    assert not hits, f"{result.id}: a {f.kind} whose text calls itself an erratum:\n  " + "\n  ".join(hits)


def _numbers(r: Result) -> str:
    """The measured and fitted numbers of a Result, as canonical JSON (NaN compares equal to NaN)."""
    d = r.to_dict()
    return json.dumps({k: d[k] for k in ("verdict", "observed", "predicted", "fit")}, sort_keys=True, default=str)


class CheckContract:
    """What every check owes its users; inherit it in a ``Test*`` class and set ``check``.

    * ``planted``: keyword overrides that plant a wrong theory; the check must then say
      ``planted_verdict`` (``violated`` by default). ``None`` skips that test (say why in a comment).
    * ``determinism_replicates`` and ``determinism_overrides``: the replicate count and keyword
      overrides (a smaller grid) of the same-seed-same-numbers test, which runs the check twice;
      ``None`` / ``{}`` run it at the check's own defaults.
    """

    check: CheckSpec | str | None = None
    planted: dict | None = None
    planted_verdict: str = "violated"
    determinism_replicates: int | None = 10
    determinism_overrides: dict = {}
    fidelity: str = "quick"

    def _result(self) -> Result:
        return run_quick(self.check, fidelity=self.fidelity)

    def test_reaches_its_expected_verdict(self):
        r = self._result()
        assert r.verdict == r.expected, f"{r.id}: {r.verdict.value} != {r.expected.value}. {r.explanation}"

    def test_serialises_and_round_trips(self):
        r = self._result()
        back = Result.from_dict(json.loads(r.to_json()), r.arrays)
        assert _numbers(back) == _numbers(r) and back.claim == r.claim
        for name, a in r.arrays.items():
            assert isinstance(a, np.ndarray), name

    def test_states_claim_source_and_explanation(self):
        r = self._result()
        assert r.claim.text.strip() and r.claim.source.strip(), "a claim needs its words and its source"
        assert r.explanation.strip() and r.observed, "a Result needs its evidence and an explanation"
        for a in r.assumptions:
            assert a.label in ("exact", "lower bound", "upper bound", "estimate"), f"{a.name}: label {a.label!r}"

    def test_same_seed_same_numbers(self):
        spec = _spec(self.check)
        ctx = Context(fidelity=self.fidelity, seed=7, replicates=self.determinism_replicates)
        kw = dict(self.determinism_overrides)
        assert _numbers(spec(ctx, **kw)) == _numbers(spec(ctx, **kw))

    def test_says_how_hard_it_was_tested(self):
        assert_says_how_hard_it_was_tested(self.check, self._result())

    def test_power_claimed_is_power_shown(self):
        assert_power_shown(self.check, self._result(), self.fidelity)

    def test_planted_wrong_theory(self):
        if self.planted is None:
            return
        r = _spec(self.check)(Context(fidelity=self.fidelity), **self.planted)
        assert r.verdict == Verdict(self.planted_verdict), (
            f"{r.id} with planted {sorted(self.planted)}: {r.verdict.value}, expected {self.planted_verdict}. "
            f"{r.explanation}")

