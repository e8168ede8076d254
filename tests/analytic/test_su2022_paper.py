"""analytic/papers/su2022.py: the paper's bounds evaluate to the formulas they state."""
import math

import numpy as np
import pytest

from analytic.papers import su2022 as S


def test_kappa_formulas_and_the_spectrum_of_P():
    g = np.array([0.1, 0.5, 0.9])
    for s in (1, 2, 5, 20):
        kap = S.KAPPA_FEDAVG(gamma=g, s=s)
        assert np.all(kap >= 1 - 1e-15)
        # s/kappa is the sum of the geometric series sum_{l<s} (1 - gamma)^l
        assert np.allclose(S.P_SPECTRUM_LOWER(s=s, kappa=kap), [sum((1 - x) ** l for l in range(s)) for x in g])
    assert float(S.KAPPA_FEDPROX(gamma=0.5)) == 1.5


def test_phase1_constants():
    assert float(S.PROP_2_21(alpha=1, beta=1)) == pytest.approx(7 / 8)
    assert float(S.THM_1_PROOF(eps=0.1, Delta=1, alpha=0.5)) == pytest.approx(0.4)
    assert float(S.THM_1_ITERATIONS(alpha=1, beta=1, radius=0.72, eps=0.1, Delta=1)) == pytest.approx(16 * math.log(14.4))
    assert float(S.COUPON(k=3, p=1 / 3, n_H=10)) == pytest.approx(1 - 3 * (2 / 3) ** 10)
    assert float(S.LEMMA_5(eps_op=1e-4)) == pytest.approx(0.03)


def test_xi_terms_and_the_chernoff_reference():
    x = float(S.PROP_1(delta=1, sigma=0, d=10, m=1000, N=math.e, p=0.5))
    assert x == pytest.approx((math.sqrt(10 / 1000) + 10 / 1000) / 0.5)
    assert float(S.CHERNOFF(k=3, Delta=1, sigma=0.5, n=2)) == pytest.approx(2 * 2 ** -1)
    assert S.nu_second_term(10, 3, 30.0) == pytest.approx(math.sqrt(30 * math.log(3) / 30))


def test_theorem3_shape_and_oracle():
    assert float(S.THM_3(sigma=0.1, kappa=1.0, rho=0.5, nu=1.0)) == pytest.approx(0.2)
    assert float(S.ORACLE(sigma=0.1, d=10, N_j=1000)) == pytest.approx(0.01)
    assert float(S.BASIN_RADIUS(alpha=1, beta=1, Delta=3)) == pytest.approx(1.0)


def test_paper_metadata():
    assert S.PAPER.key == "su2022" and "Mixed Regression" in S.PAPER.title and S.PAPER.summary


def test_printed_and_repaired_lemma4_and_theorem1():
    g = np.array([0.3, 1.0, 1.5])
    assert np.allclose(S.LEMMA_4_PRINTED(gamma_angle=g, ratio=0.5, t=2), np.tanh(g) / 4)
    assert np.allclose(S.LEMMA_4(gamma_angle=g, ratio=0.5, t=2), np.tan(g) / 4)
    assert float(S.THM_1_LITERAL(eps=0.1, Delta=1)) == pytest.approx(0.1)
    assert float(S.THM_1_5_FAILURE(N=10.0)) == pytest.approx(1e-9)


def test_every_spec_error_has_a_check_or_a_reason():
    ids = [e for e, _, _ in S.SPEC_ERRORS]
    assert ids == [f"E{i}" for i in range(1, 26)]
    for e, what, status in S.SPEC_ERRORS:
        assert what.strip() and status.strip(), e
        names_a_check = any(f"{c}{n:02d}" in status for c in "cx" for n in range(1, 40))
        assert names_a_check or status.startswith("not "), f"{e}: neither a check nor a reason"
        assert e + ":" in S.PAPER.summary
