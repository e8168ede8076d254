"""A paper's numbered statements as a reader looks them up: Theorem 3.1, Lemma C.2, Corollary 4.1, eq. (14), Fig. 2.

A :class:`Statement` is what the paper prints under one number: the quoted text and its line in the paper's text,
the Bound(s) it states (``analytic/papers/<key>.py``), the hypotheses it rests on, and whether it is one of the
paper's main results. Checks name the statements they exercise (``@check(..., statements=("Theorem 1",))``); a
statement no check exercises carries the reason (``not_checked``). The statement card (verify/statement_cards.py)
answers, from the Results of its checks, how hard the statement was tested: each symbol of its bounds varied or
fixed, each term exercised or not, each hypothesis measured or assumed.

A :class:`Hypothesis` is matched to the Assumptions a check measured (``Result.assumptions``) by the regular
expression ``measured_as`` on their names, so that the card says which hypothesis a run measured and with what value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from analytic.bounds import Bound

#: a statement's label: a numbered object of the paper, as the paper numbers it
LABEL = re.compile(r"^(Theorem|Lemma|Corollary|Proposition|Definition|Assumption|Remark|Example|Algorithm|Claim|"
                   r"Fig\.|Table|eq\.|Section|Appendix)\s+\S.*$")


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a statement; ``measured_as``: a regular expression (case-insensitive) that the name of an
    Assumption a check measured matches when that Assumption is this hypothesis."""

    name: str
    measured_as: str = ""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ValueError("a Hypothesis needs a name")
        if self.measured_as:
            re.compile(self.measured_as)

    def matches(self, assumption_name: str) -> bool:
        return bool(self.measured_as) and re.search(self.measured_as, assumption_name, re.IGNORECASE) is not None


@dataclass(frozen=True)
class Statement:
    """One numbered statement of a paper.

    ``label`` as the paper numbers it ("Theorem 3.1", "Lemma C.2", "eq. (14)", "Fig. 2"); ``quote`` the printed words
    (formulas as the text conversion gives them); ``line`` its line in the paper's text; ``bounds`` the Bounds that
    state it; ``main``: one of the paper's headline results; ``not_checked``: why no check exercises it (empty when a
    check does). ``errata``: the check ids whose erratum is about this statement (the card lists errata first)."""

    paper: str
    label: str
    quote: str
    line: int | None = None
    bounds: tuple[Bound, ...] = ()
    hypotheses: tuple[Hypothesis, ...] = ()
    main: bool = False
    not_checked: str = ""
    notes: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not LABEL.match(self.label):
            raise ValueError(f"{self.paper}: statement label {self.label!r} is not a numbered object of the paper "
                             "('Theorem 3.1', 'Lemma C.2', 'eq. (14)', 'Fig. 2', ...)")
        if not self.quote.strip():
            raise ValueError(f"{self.paper} {self.label}: a Statement quotes what the paper prints")
        if self.line is not None and (not isinstance(self.line, int) or self.line < 1):
            raise ValueError(f"{self.paper} {self.label}: line must be a positive integer, got {self.line!r}")

    @property
    def symbols(self) -> tuple[str, ...]:
        """The names of the symbols of its bounds, sorted."""
        return tuple(sorted({s.name for b in self.bounds for s in b.symbols}))


def statement_table(paper: str, *statements: Statement) -> dict[str, Statement]:
    """The statements of one paper by label, in the paper's order; a label given twice or a statement of another
    paper is refused."""
    out: dict[str, Statement] = {}
    for s in statements:
        if s.paper != paper:
            raise ValueError(f"statement {s.label!r} belongs to {s.paper}, not {paper}")
        if s.label in out:
            raise ValueError(f"{paper}: statement {s.label!r} given twice")
        out[s.label] = s
    return out
