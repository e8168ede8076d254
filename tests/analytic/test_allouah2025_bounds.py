"""allouah2025's robustness and utility statements as Bounds: the spec's constant tables (4.1), the algebra
behind the erratum of Proposition 4.1's last proof step, and Corollary 4.1's T-free DP term."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from analytic.papers import allouah2025 as A

#: spec 4.1 constant table: (n, f, kappa, 2n(n-f)/(n-2f)^2), as printed
KAPPA_TABLE = ((100, 5, "0.351852", "2.345679"), (100, 10, "0.843750", "2.812500"), (11, 1, "0.740741", "2.716049"),
               (13, 3, "3.673469", "5.306122"), (15, 5, "12.000000", "12.000000"), (10, 3, "7.875000", "8.750000"),
               (20, 4, "2.666667", "4.444444"), (200, 40, "2.666667", "4.444444"))


@pytest.mark.parametrize("n, f, k, s", KAPPA_TABLE)
def test_constant_table_of_the_spec(n, f, k, s):
    assert float(A.PROP_4_1(n=n, f=f, lambda_max=1.0)) == pytest.approx(float(k), abs=A.printed_tolerance(k))
    assert float(A.APP_B_SIGMA_STAR(n=n, f=f, lambda_max=1.0)) == pytest.approx(float(s), abs=A.printed_tolerance(s))


def test_kappa_closed_forms():
    assert sp.simplify(A.KAPPA - 6 * A.f * (A.n - A.f) / (A.n - 2 * A.f) ** 2) == 0
    excess = sp.simplify(A.PROP_4_1_PROOF_LINE.expr / A.PROP_4_1.expr - (1 + A.f**2 / (3 * (A.n - A.f) ** 2)))
    assert excess == 0  # the equal-weight reading (not the paper's) is kappa (1 + f^2 / (3 (n-f)^2))
    # the paper's step, Jensen with weights (1/3, 2/3): kappa - it = 3 f^2 / ((n-f)(n-2f)) >= 0
    gap = sp.simplify(A.KAPPA - A.PROP_4_1_JENSEN.expr / A.lam - 3 * A.f**2 / ((A.n - A.f) * (A.n - 2 * A.f)))
    assert gap == 0
    a, b = sp.symbols("a b", real=True)
    assert sp.expand(3 * a**2 + sp.Rational(3, 2) * b**2 - (a + b) ** 2) == sp.expand(2 * (a - b / 2) ** 2)


def test_exact_square_stays_below_kappa():
    pairs = np.array([(n, f) for n in range(3, 401) for f in range(1, (n - 1) // 2 + 1)], dtype=float)
    ratio = (np.asarray(A.PROP_4_1_EXACT_SQUARE(n=pairs[:, 0], f=pairs[:, 1], lambda_max=1.0))
             / np.asarray(A.PROP_4_1(n=pairs[:, 0], f=pairs[:, 1], lambda_max=1.0)))
    assert ratio.max() <= 0.9714 and ratio.max() < (1 + math.sqrt(2)) ** 2 / 6  # the supremum as f/n -> 0


def test_corollary_dp_term_is_free_of_T_and_the_rate_bounds_evaluate():
    assert A.T not in A.COR_4_1_DP_TERM.expr.free_symbols
    v = A.THM_4_2_SC(n=12, f=2, G_cov2=0.0, mu=1.0, L=1.0, sigma_bar2=10.0, L_0=0.0, T=np.array([100.0, 200.0]))
    assert np.allclose(v, 115200 * 10.0 / np.array([100.0, 200.0]))
    assert A.COR_4_1_UTILITY.exponent("n") == -1  # the f/(n eps^2) term wins as n -> oo; on d >> n grids it is -2
    assert A.LDP_UTILITY.exponent("n") == -1
    assert float(A.LEMMA_C5_EXACT(m=10, b=10, sigma2=1.0)) == 0.0
    assert float(A.LEMMA_C5(m=10, b=3, sigma2=1.0)) == pytest.approx(2 * 0.7 / 3)
