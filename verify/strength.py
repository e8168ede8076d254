"""How hard a verdict was tested: the margin, power and tightness of each verdict atom.

Every verdict atom of :mod:`verify.fit` describes, beside its verdict, how far the measurement
was from the stated theory and how small a change of the theory the run would have detected:

* ``margin``: where the measurement sits against the theory. For a bound (``measure`` ratio):
  the worst observed/bound ratio with its CI (upper bounds: <= 1 holds; lower: >= 1). For a rate
  (``exponent``): the fitted minus the stated exponent, with its CI. For an identity
  (``relative_error``, ``absolute_error``, ``z``): the error against the tolerance.
* ``power``: the smallest change of the stated theory this run would have called ``violated``.
  Ratio: the factor the bound may be multiplied by before the verdict flips (upper: a bound
  scaled below ``power`` is violated; lower: scaled above it). Exponent: the shift of the stated
  exponent that flips it. Identity: the tolerance.
* ``tightness`` (only for an atom that holds): ``tight``, ``loose`` or ``vacuous``, by the rule
  :func:`verify.fit.tightness_of` (the thresholds live in fit.py).

``plant`` says how to plant a wrong theory at this power (``{"scale": c}`` multiplies the Bound by
c; ``{"exponent_shift": s, "param": x}`` multiplies it by x**s): the contract test plants it and
requires ``violated``, so that the power a Result claims is the power it shows.

While a check runs, the registry collects every atom's Strength (:func:`recording`): the binding atom
(:func:`weakest`, the one closest to failing) gives the Result's ``margin``, ``power`` and ``tightness``, and
every atom stays listed in the Result's ``atoms`` with its evidence (verify/evidence.py: the symbols of its
Bound varied or fixed, its terms exercised or not). A computation that
is not the claim (a control that must fail) runs inside :func:`aside` so it is not collected. An
``inconclusive`` Result names the atoms that were undecided (:func:`undecided`) in its explanation.
"""
from __future__ import annotations

import contextlib
import math
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field

TIGHTNESS_ORDER = {"vacuous": 3, "loose": 2, "tight": 1, None: 0, "": 0}


@dataclass
class Strength:
    atom: str  # the verdict rule that measured it: bound, rate, identity, proportion, ...
    verdict: str
    measure: str  # ratio | difference | exponent | relative_error | absolute_error | z | p_value
    margin: float
    margin_ci: list | None
    power: float | None
    power_text: str
    margin_text: str
    tightness: str | None = None
    #: >= 1 when it holds: the factor by which the measurement could move towards the theory before the atom stops
    #: holding (bound/observed for an upper bound, tolerance/error for an identity, (x_max/x_min)**headroom for an
    #: exponent). The atom with the smallest slack binds: it speaks for the Result (:func:`weakest`).
    slack: float = 1.0
    plant: dict = field(default_factory=dict)
    #: what the atom's data touched of its Bound (verify/evidence.py): bound, source, symbols, terms
    evidence: dict = field(default_factory=dict)

    def margin_dict(self) -> dict:
        return {"atom": self.atom, "measure": self.measure, "value": _num(self.margin),
                "ci": None if self.margin_ci is None else [_num(v) for v in self.margin_ci], "text": self.margin_text}

    def power_dict(self) -> dict:
        return {"value": _num(self.power), "text": self.power_text, "plant": dict(self.plant)}

    def as_dict(self) -> dict:
        return asdict(self)


def _num(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else (None if math.isnan(x) else x)


_RECORD: ContextVar[list | None] = ContextVar("fedverify_strength_record", default=None)


def record(strength: Strength) -> Strength:
    """Keep ``strength`` for the check now running (no-op outside a check)."""
    atoms = _RECORD.get()
    if atoms is not None:
        atoms.append(strength)
    return strength


@contextlib.contextmanager
def recording():
    """Collect the Strength of every atom called inside the block (the registry wraps each check)."""
    atoms: list[Strength] = []
    token = _RECORD.set(atoms)
    try:
        yield atoms
    finally:
        _RECORD.reset(token)


@contextlib.contextmanager
def aside():
    """Atoms called inside are not part of the claim (a control that must fail, a diagnostic)."""
    token = _RECORD.set(None)
    try:
        yield
    finally:
        _RECORD.reset(token)


def undecided(atoms: list[Strength], verdict: str) -> str:
    """For an ``inconclusive`` verdict, the sentence that names what was undecided: each atom that reached
    ``inconclusive`` (its rule and its margin), or, when every atom decided, that the check itself set the
    verdict (an assumption that failed, a control that did not fail, too few replicates). Empty otherwise."""
    if verdict != "inconclusive":
        return ""
    open_ = [a for a in atoms if a.verdict == "inconclusive"]
    if not open_:
        decided = ", ".join(f"{a.atom} {a.verdict}" for a in atoms[:4]) + (" ..." if len(atoms) > 4 else "")
        return ("Undecided: no verdict atom" + (f" (every atom decided: {decided})" if atoms else "")
                + "; the check set the verdict (an assumption, a control or the replicate count).")
    shown = "; ".join(f"{a.atom} ({a.margin_text})" for a in open_[:3])
    more = f"; and {len(open_) - 3} more" if len(open_) > 3 else ""
    return f"Undecided: {len(open_)} of {len(atoms)} verdict atoms: {shown}{more}."


def weakest(atoms: list[Strength], verdict: str) -> Strength | None:
    """The binding atom, which speaks for the whole verdict: among the atoms that reached ``verdict`` (all
    of them when none did, e.g. a verdict set by a control or an assumption), for a verdict that holds the one
    closest to failing (smallest slack; ties: the worse tightness, then the first); for another verdict the
    first such atom. The others stay listed in the Result's ``atoms``."""
    if not atoms:
        return None
    same = [a for a in atoms if a.verdict == verdict] or list(atoms)
    if verdict != "holds":
        return same[0]
    return min(same, key=lambda a: (a.slack if a.slack == a.slack else math.inf,
                                    -TIGHTNESS_ORDER.get(a.tightness, 0)))
