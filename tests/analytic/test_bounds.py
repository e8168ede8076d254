import numpy as np
import pytest
import sympy as sp

from analytic.asymptotics import dominant_term, grid_slope, slope_range, term_exponent
from analytic.bounds import Bound
from analytic.errors import InputError
from analytic.papers import werner2023 as W


def test_local_slope_changes_with_regime():
    # sigma^2/n + sigma^3/Delta: slope -1 while sigma^2/n dominates, -> 0 when the floor dominates
    s = W.THM_3_1.local_slope("n", sigma=1.0, n=np.array([1.0, 1e6]), Delta=1e6, beta=0.0)
    assert s[0] == pytest.approx(-1.0, abs=1e-5) and s[1] == pytest.approx(-0.5)
    lo, hi = slope_range(W.THM_3_1, "n", [4, 16, 64, 256], sigma=1.0, Delta=64.0, beta=0.0)
    assert lo < -0.9 and hi > -0.3
    assert grid_slope(W.ORACLE, "n", [4, 16, 64], sigma=2.0) == pytest.approx(-1.0)


def test_exponents_and_terms():
    assert W.THM_3_2.exponent("Delta", at=0) == -2
    assert W.THM_3_2.exponent("n", at=0) == -1 and W.THM_3_2.exponent("n") == 0  # sigma^2/n dominates as n -> 0
    t = dominant_term(W.THM_3_1.expr, {"sigma": 1, "n": 4, "Delta": 64, "beta": 0})
    assert term_exponent(t, "n") == -1.0


def test_bound_evaluation_and_kinds():
    assert W.THM_3_1(sigma=1.0, n=4, Delta=64.0, beta=0.0) == pytest.approx(0.25 + 1 / 64)
    with pytest.raises(InputError) as info:
        W.THM_3_1(sigma=1.0)
    assert info.value.param == "values" and "Delta" in info.value.message
    with pytest.raises(ValueError):
        Bound("x", sp.Symbol("x"), kind="sideways")
    assert W.ORACLE.scaled(2.0)(sigma=1.0, n=2.0) == pytest.approx(1.0)


@pytest.mark.parametrize("Delta", [1.5, 2.0, 4.0, 8.0, 16.0])
def test_lower_bound_construction(Delta):
    c = W.construction(1.0, Delta)
    assert c["a"] * (1 - c["p"]) - c["a"] * c["p"] == pytest.approx(Delta, rel=1e-12)
    assert c["a"] ** 2 * c["p"] * (1 - c["p"]) == pytest.approx(1.0, rel=1e-12)
    assert c["error"] == pytest.approx(c["closed_form"], rel=1e-12)
    if Delta**2 >= 2:
        assert c["error"] >= 1.0 / (9 * Delta**2)


def test_paper_constant_fails_at_delta_2():
    c = W.construction(1.0, 2.0)
    assert c["error"] == pytest.approx(0.0428932, rel=1e-6) and c["error"] < 1 / 16
    assert sp.simplify(W.CONSTRUCTION_ERROR - W.CONSTRUCTION_ERROR_CLOSED) == 0
