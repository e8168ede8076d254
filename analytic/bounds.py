"""A Bound: a theorem's right-hand side as a sympy expression, with what kind of bound it is.

``kind`` is one of

* ``upper``  -- the quantity is at most the expression (possibly up to an absolute constant),
* ``lower``  -- the quantity is at least the expression (possibly up to a constant),
* ``tight``  -- an upper bound whose order is also attained,
* ``exact``  -- an identity.

``hidden_constant`` is True for statements written with ≲ / Ω(·): only the *shape* of the
expression (its slopes) is checkable, not its level, unless a constant is fitted.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import sympy as sp

from analytic.errors import InputError

BoundKind = Literal["upper", "lower", "tight", "exact"]


@dataclass(frozen=True)
class Bound:
    name: str
    expr: sp.Expr
    kind: BoundKind
    statement: str = ""
    source: str = ""
    hidden_constant: bool = True
    typst: str = ""  # typst math for the report; empty: derived from expr (analytic/typst_math.py), written once
    notes: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ("upper", "lower", "tight", "exact"):
            raise ValueError(f"kind: expected upper, lower, tight or exact, got {self.kind!r}")
        if not self.typst:
            from analytic.typst_math import typst_math

            object.__setattr__(self, "typst", typst_math(self.expr))

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(sorted(self.expr.free_symbols, key=lambda s: s.name))

    def symbol(self, name: str) -> sp.Symbol:
        for s in self.symbols:
            if s.name == name:
                return s
        raise KeyError(f"{self.name}: no symbol {name!r}; symbols are {[s.name for s in self.symbols]}")

    def _values(self, values: dict) -> list:
        missing = [s.name for s in self.symbols if s.name not in values]
        if missing:
            raise InputError("values", f"{self.name} needs values for {missing}")
        return [np.asarray(values[s.name], dtype=float) for s in self.symbols]

    def __call__(self, **values) -> np.ndarray | float:
        """Evaluate numerically; array arguments broadcast; values of symbols the bound does not use are
        ignored. The expression is compiled once per Bound (a Bound is immutable, so it cannot go stale)."""
        if not self.symbols:
            return float(self.expr)
        return np.asarray(_compiled(self)(*self._values(values)), dtype=float)

    def local_slope(self, param: str, **values) -> np.ndarray:
        """d log(bound) / d log(param), evaluated (not guessed) at the given values.

        A sum such as sigma^2/n + sigma^3/Delta changes slope with the regime; this is the
        slope the bound actually has on the grid, which a measured slope is compared with.
        """
        x = self.symbol(param)
        elasticity = sp.simplify(x * sp.diff(self.expr, x) / self.expr)
        f = sp.lambdify(self.symbols, elasticity, "numpy")
        return np.asarray(f(*self._values(values)), dtype=float)

    def exponent(self, param: str, at=sp.oo) -> sp.Expr:
        """The asymptotic exponent lim x f'(x)/f(x) as param -> ``at`` (oo or 0)."""
        x = self.symbol(param)
        return sp.limit(x * sp.diff(self.expr, x) / self.expr, x, at)

    def latex(self) -> str:
        return sp.latex(self.expr)

    def scaled(self, c: float, name: str | None = None) -> "Bound":
        """The same bound with an explicit constant c in front (for fitted or stated constants)."""
        return Bound(name or f"{c:g}·{self.name}", c * self.expr, self.kind, self.statement, self.source, False, self.typst)


@functools.lru_cache(maxsize=None)
def _compiled(bound: Bound):
    """The numpy function of a Bound's expression (sympy's lambdify costs milliseconds per call)."""
    return sp.lambdify(bound.symbols, bound.expr, "numpy")
