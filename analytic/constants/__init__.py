"""Estimators of the constants the papers' assumptions name (A^2, D^2, Delta^2, L, mu, mu_PL, sigma^2,
G^2, Gamma, ...), one module per family of assumptions.

Every estimate is a :class:`Constant`: its value *and what the value is*. A number computed from the
problem's definition is ``exact``; a supremum estimated from sampled points is a ``lower bound`` of
the true supremum; an infimum so estimated an ``upper bound``; anything else an ``estimate``. A
constant that does not exist (A^2 when clients of one cluster do not share an optimum) has value
``math.inf`` and says why in ``how``.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

LABELS = ("exact", "lower bound", "upper bound", "estimate")


@dataclass(frozen=True)
class Constant:
    name: str
    value: float
    label: str
    how: str  # how the number was obtained, in one sentence (method, grid, sample size)

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"label: expected one of {LABELS}, got {self.label!r}")

    @property
    def finite(self) -> bool:
        return math.isfinite(self.value)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["value"] = self.value if self.finite else ("inf" if self.value > 0 else "-inf" if self.value < 0 else "nan")
        return d
