"""The user's paper and theorem, stated once for the checks and the report."""
from __future__ import annotations

import sympy as sp

from verify.api import Bound, Hypothesis, Paper, Statement, statement_table

PAPER = Paper(
    key="mine2025",
    title="Gradient descent contracts on strongly convex quadratics (a fedverify plugin example)",
    authors="A. Author",
    venue="examples/plugin", year=2025,
    summary=("A user's own theorem, checked through fedverify's plugin entry point: gradient descent with step 1/L "
             "on a mu-strongly convex, L-smooth quadratic contracts ||x_k - x*||^2 by (1 - mu/L)^2 per step."),
)

k, mu, L = sp.symbols("k mu L", positive=True)

#: Theorem 1: ||x_k - x*||^2 / ||x_0 - x*||^2 <= (1 - mu/L)^(2k) for step 1/L.
THEOREM_1 = Bound(
    name="Theorem 1 (GD contraction)",
    expr=(1 - mu / L) ** (2 * k),
    kind="upper",
    statement=("Gradient descent with step 1/L on a mu-strongly convex, L-smooth quadratic satisfies "
               "||x_k - x*||^2 <= (1 - mu/L)^(2k) ||x_0 - x*||^2."),
    source="mine2025, Theorem 1",
    hidden_constant=False,
    typst="norm(x_k - x^*)^2 / norm(x_0 - x^*)^2 <= (1 - mu / L)^(2 k)",
)

#: The paper's numbered statements, which its checks name (@check(..., statements=("Theorem 1",))): each gets a card
#: in `fedverify statements` (what its checks varied, held fixed and exercised) and in the report.
STATEMENTS = statement_table(
    "mine2025",
    Statement("mine2025", "Theorem 1", THEOREM_1.statement, 1, bounds=(THEOREM_1,),
              hypotheses=(Hypothesis("mu-strongly convex and L-smooth quadratic", r"spectrum|quadratic"),), main=True),
)
