"""A Bound's formula written once: typst math derived from its sympy expression, for every Bound of every paper."""
import importlib
import pkgutil

import pytest
import sympy as sp

import analytic.papers as papers
from analytic.bounds import Bound
from analytic.typst_math import typst_math


def every_bound():
    for m in pkgutil.iter_modules(papers.__path__):
        mod = importlib.import_module(f"analytic.papers.{m.name}")
        yield from (v for v in vars(mod).values() if isinstance(v, Bound))


@pytest.mark.parametrize("expr, shown", [
    ("sigma**2/n + sigma**3/Delta", "sigma^(3)/Delta + sigma^(2)/n"),
    ("sqrt(sigma_DP2)", 'sqrt(sigma_("DP2"))'),
    ("Max(1, A**4)*Max(1, D**2)*sigma/delta_i", "sigma max(1, A^(4)) max(1, D^(2))/delta_(i)"),
    ("tol", '"tol"'),
])
def test_expressions_in_typst_math(expr, shown):
    assert typst_math(sp.sympify(expr, locals={n: sp.Symbol(n) for n in ("sigma_DP2", "delta_i", "tol", "D", "A")})) \
        == shown


def test_a_bound_without_typst_gets_it_from_its_expression():
    n = sp.Symbol("n", positive=True)
    assert Bound("oracle", 1 / n, "upper").typst == "1/n"
    assert Bound("oracle", 1 / n, "upper", typst="sigma^2/n").typst == "sigma^2/n"  # a hand-written one is kept


def test_every_papers_bound_expression_typesets(tmp_path):
    """The typst derived from every Bound's sympy expression compiles (so any Bound may leave typst out)."""
    typst = pytest.importorskip("typst")
    exprs = {typst_math(b.expr) for b in every_bound()}
    assert len(exprs) > 100
    src = tmp_path / "derived.typ"
    src.write_text("#set page(width: auto, height: auto)\n" + "\n\n".join(f"$ {e} $" for e in sorted(exprs)),
                   encoding="utf-8")
    assert len(typst.compile(str(src))) > 1000
