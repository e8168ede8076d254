"""The Result every check returns, and its Verdict.

A Result is plain data: it serialises to JSON (``to_json``/``from_json``), with any large
numeric arrays (traces, per-replicate samples) kept in ``arrays`` and stored beside the JSON
as ``.npz`` by :mod:`verify.store`. Tests, the command line and the report all read this one
object.
"""
from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import numpy as np

KINDS = ("rate", "bound", "identity", "counterexample", "assumption", "privacy", "erratum")


def check_sort_key(check_id: str):
    """Order of checks everywhere (list, store, report): paper, numbered claims (c..) before extras
    (x..), then the number; ids of another shape go last, alphabetically."""
    paper, _, num = check_id.partition(".")
    if len(num) >= 2 and num[0].isalpha() and num[1:].isdigit():
        return (0, paper, num[0] != "c", int(num[1:]), "")
    return (1, "", False, 0, check_id)


class Verdict(str, enum.Enum):
    HOLDS = "holds"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"
    REPRODUCED = "reproduced"
    NOT_REPRODUCED = "not_reproduced"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value

    @property
    def passed(self) -> bool:
        """The claim held, or the counterexample was reproduced: what a predicate built from a verdict reads."""
        return self in (Verdict.HOLDS, Verdict.REPRODUCED)


@dataclass
class Claim:
    """The statement checked: words, LaTeX (or typst math), and where it comes from."""

    text: str
    latex: str = ""
    source: str = ""  # e.g. "Theorem 3.1, eq. (14)"
    typst: str = ""  # the formula in typst math syntax, for the report


@dataclass
class Assumption:
    """One assumption of the claim, with the constant measured in this run.

    ``label`` says what the number is: ``exact``, ``lower bound``, ``upper bound`` or ``estimate``.
    """

    name: str
    held: bool
    value: float | None = None
    label: str = "exact"
    detail: str = ""


#: What a Finding can be. ``erratum``: the paper's printed statement is wrong, confirmed by a
#: measurement *and* an independent argument (all of :data:`ERRATUM_FIELDS` filled). ``remark``: a
#: fact worth a reader's attention that is not an error of the paper (a vacuous bound, a condition
#: the experiments leave, a literal reading that fails). ``discrepancy``: a violated verdict that
#: rests on the measurement alone (a planted theory, an unconfirmed failure); filled in by the
#: registry when a check reports ``violated`` without an erratum.
FINDING_KINDS = ("erratum", "remark", "discrepancy")
#: The fields an erratum must carry (issue: "findings a reviewer can sign").
ERRATUM_FIELDS = ("paper_says", "correction", "witness", "second_argument", "reproduce")


@dataclass
class Finding:
    """What a check found beyond its verdict.

    * ``summary``: one or two sentences a reader of the paper can act on;
    * ``paper_says``: the printed statement, quoted, with the paper's own theorem/equation/line;
    * ``correction``: what is true instead;
    * ``witness``: the smallest instance or the exact numbers that show it;
    * ``second_argument``: the independent derivation (closed form, exact arithmetic, certificate)
      that supports the measurement, so that no erratum rests on one numerical run;
    * ``reproduce``: one command that reproduces it (filled in by the registry when empty).

    ``str(finding)`` is the summary; ``"text" in finding`` searches every field.
    """

    summary: str = ""
    kind: str = "remark"
    paper_says: str = ""
    correction: str = ""
    witness: str = ""
    second_argument: str = ""
    reproduce: str = ""

    def __post_init__(self) -> None:
        if self.kind not in FINDING_KINDS:
            raise ValueError(f"finding kind: expected one of {FINDING_KINDS}, got {self.kind!r}")

    def __bool__(self) -> bool:
        return bool(self.summary or self.paper_says)

    def __str__(self) -> str:
        return self.summary

    def __contains__(self, text: str) -> bool:
        return any(text in getattr(self, f) for f in ("summary", *ERRATUM_FIELDS))

    def missing(self) -> list[str]:
        """The erratum fields still empty (all of them matter only for ``kind == "erratum"``)."""
        return [f for f in ERRATUM_FIELDS if not str(getattr(self, f)).strip()]

    @classmethod
    def coerce(cls, value: "Finding | str | dict | None") -> "Finding":
        """A Finding from what a check or a stored Result holds: a Finding, a dict, or plain text
        (a remark, the form every finding had before errata carried fields)."""
        if isinstance(value, Finding):
            return value
        if isinstance(value, dict):
            return cls(**value)
        return cls(summary=str(value or ""))


def erratum(summary: str, *, paper_says: str, correction: str, witness: str, second_argument: str,
            reproduce: str = "") -> Finding:
    """An erratum with every field a reviewer needs (``reproduce`` is filled in by the registry)."""
    return Finding(summary=summary, kind="erratum", paper_says=paper_says, correction=correction,
                   witness=witness, second_argument=second_argument, reproduce=reproduce)


def remark(summary: str) -> Finding:
    """A fact worth reporting that is not an error of the paper."""
    return Finding(summary=summary, kind="remark")


@dataclass
class Result:
    id: str
    paper: str
    title: str
    claim: Claim
    kind: str
    verdict: Verdict
    expected: Verdict
    observed: dict = field(default_factory=dict)
    predicted: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)
    explanation: str = ""
    assumptions: list[Assumption] = field(default_factory=list)
    env: dict = field(default_factory=dict)
    figure: dict = field(default_factory=dict)  # plot spec read by reports.figures (see there)
    finding: Finding = field(default_factory=Finding)  # an erratum, remark or discrepancy (plain text is a remark)
    paper_info: dict = field(default_factory=dict)  # title, authors, venue, year, url, summary (registry)
    #: for a claim about an algorithm's property: the same harness run with the unprotected baseline,
    #: which must fail for the claim's ``holds`` to mean anything: {"what": ..., "verdict": ..., "detail": ...}
    control: dict = field(default_factory=dict)
    #: how hard the verdict was tested (verify/strength.py; filled by the registry from the binding
    #: verdict atom, the one closest to failing, unless the check sets them): ``margin`` {atom, measure, value, ci, text}, ``power``
    #: {value, text, plant}, and for a verdict that holds ``tightness``: tight | loose | vacuous
    margin: dict = field(default_factory=dict)
    power: dict = field(default_factory=dict)
    tightness: str = ""
    #: every verdict atom the check called (verify/strength.py), the binding one first: its rule, verdict, margin,
    #: power, tightness, slack and evidence (the symbols of its Bound varied or fixed, its terms exercised or not)
    atoms: list = field(default_factory=list)
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: expected one of {KINDS}, got {self.kind!r}")
        self.verdict = Verdict(self.verdict)
        self.expected = Verdict(self.expected)
        self.finding = Finding.coerce(self.finding)

    @property
    def as_expected(self) -> bool:
        return self.verdict == self.expected

    def to_dict(self) -> dict:
        # the fields but the arrays, uncopied (dataclasses.asdict deep-copied every array only for it to be dropped)
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "arrays"}
        d["verdict"] = self.verdict.value
        d["expected"] = self.expected.value
        d["array_names"] = sorted(self.arrays)
        return _jsonable(d)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), allow_nan=True, **kw)

    @classmethod
    def from_dict(cls, d: dict, arrays: dict | None = None) -> "Result":
        d = dict(d)
        d.pop("array_names", None)
        d["claim"] = Claim(**d["claim"])
        d["assumptions"] = [Assumption(**a) for a in d.get("assumptions", [])]
        return cls(**d, arrays=dict(arrays or {}))


def _jsonable(x: Any) -> Any:
    """numpy/torch scalars and arrays to plain Python, dataclasses to dicts of their fields (in order, as
    ``dataclasses.asdict``); non-finite floats kept as floats."""
    if is_dataclass(x) and not isinstance(x, type):
        return {f.name: _jsonable(getattr(x, f.name)) for f in fields(x)}
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, enum.Enum):
        return x.value
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "biuf":  # tolist gives plain bools, ints and floats: nothing left to convert
            return x.tolist()
        return _jsonable(x.tolist())
    if hasattr(x, "detach"):  # torch tensor
        return _jsonable(x.detach().cpu().numpy())
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, float) and not math.isfinite(x):
        return x
    return x
