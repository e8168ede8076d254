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
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

KINDS = ("rate", "bound", "identity", "counterexample", "assumption", "privacy", "erratum")


def check_sort_key(check_id: str):
    """Order of checks everywhere (list, store, report): paper, spec claims (c..) before extras
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
    finding: str = ""  # an erratum or discrepancy the run confirmed, in one or two sentences
    paper_info: dict = field(default_factory=dict)  # title, authors, venue, year, url, summary (registry)
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: expected one of {KINDS}, got {self.kind!r}")
        self.verdict = Verdict(self.verdict)
        self.expected = Verdict(self.expected)

    @property
    def as_expected(self) -> bool:
        return self.verdict == self.expected

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("arrays")
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
    """numpy/torch scalars and arrays to plain Python; non-finite floats kept as floats."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, enum.Enum):
        return x.value
    if isinstance(x, np.ndarray):
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
