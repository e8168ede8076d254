"""allouah2025.c17-c23 and x02 (noise concentration, sampling, convergence, privacy-utility): the check
contract with a planted wrong theory each (reduced grids where a full run is slow), and the numbers the spec
predicts. The default runs are shared with tests/test_all_checks.py through run_quick."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from analytic.bounds import Bound
from analytic.papers import allouah2025 as A
from verify.checks.allouah2025 import utility as K
from verify.fit import power_law
from verify.testing import CheckContract, run_quick

#: With-replacement sampling (sigma^2 / b): a wrong "exact" variance for Lemma C.5.
WITH_REPLACEMENT = Bound("with replacement", A.s_pop2 / A.b_batch + 0 * A.m_pts, "exact",
                         statement="sigma^2/b", source="planted")


class TestC17(CheckContract):
    check = K.c17_gaussian_concentration
    planted = {"theory": A.LEMMA_C6.scaled(1 / 36)}  # sigma^2 (1 + d/n) misses the 2 sqrt(d/n) of the Wishart edge


class TestC18(CheckContract):
    check = K.c18_honest_noise
    planted = {"theory": A.LEMMA_C1_NOISE.scaled(1 / 108)}


class TestC19(CheckContract):
    check = K.c19_sampling
    planted = {"theory": WITH_REPLACEMENT}


class TestC20(CheckContract):
    check = K.c20_theorem42
    planted = {"theory": A.THM_4_2_SC.scaled(1e-9), "T": 100}
    determinism_overrides = {"T": 40}


class TestC21(CheckContract):
    check = K.c21_rates
    planted = {"theory": power_law("T", -2.0, "upper", "O(1/T^2)"), "T": 800, "t_min": 150}
    determinism_overrides = {"T": 200, "t_min": 50}


class TestC22(CheckContract):
    check = K.c22_privacy_utility
    planted = {"theory": power_law("n", -3.0, "upper", "O(n^-3)"), "ns": (20, 40), "d": 500}
    determinism_replicates = 4
    determinism_overrides = {"ns": (20, 40), "d": 500}


class TestC23(CheckContract):
    check = K.c23_dp_term_plateau
    planted = {"theory": power_law("T", -1.0, "upper", "the DP error vanishes like 1/T"), "Ts": (100, 200, 400)}
    determinism_overrides = {"Ts": (20, 40)}


class TestX02(CheckContract):
    check = K.x02_lemma_c2_printed
    # with the factor 2 of sigma_b^2 (what the proof and Theorem 4.2 use) the lemma holds
    planted = {"theory": A.LEMMA_C5}
    planted_verdict = "holds"


class TestX03(CheckContract):
    check = K.x03_theorem42_nonconvex
    planted = {"theory": A.THM_4_2_NC.scaled(1e-5)}
    determinism_overrides = {"Ts": (20, 40)}


def test_c18_reproduces_the_spec_monte_carlo():
    r = run_quick(K.c18_honest_noise)
    mean = np.asarray(r.observed["mean_lambda_max"])
    assert np.all(np.abs(mean / np.array([139.3, 101.9, 21.8]) - 1) < 0.1)
    assert np.all(np.asarray(r.observed["ratio_to_lemma"]) < 0.02)


def test_c19_exact_and_printed_terms():
    r = run_quick(K.c19_sampling)
    rows = r.observed["rows"]
    exact = np.asarray(r.predicted["exact"])
    printed = np.asarray(r.predicted["printed_lemma_c2_term"])
    strict = np.array([row["b"] < row["m"] for row in rows])
    assert np.all(exact[strict] > printed[strict])  # the printed term undercuts the exact variance when b < m
    assert r.observed["max_rel_error_enumerated"] < 1e-12


def test_c21_and_c23_stay_in_the_analysed_regime():
    for check in (K.c20_theorem42, K.c21_rates, K.c23_dp_term_plateau, K.x03_theorem42_nonconvex):
        r = run_quick(check)
        assert r.observed["clipped_fraction"] == 0.0, check.id


def test_c22_matches_the_spec_simulation():
    r = run_quick(K.c22_privacy_utility)
    assert -2.2 < r.observed["slope_secldp"] < -1.9 and -1.15 < r.observed["slope_ldp"] < -0.9
    assert np.all(np.asarray(r.observed["cwtm_over_caf"]) > 1.5)


def test_x02_finding_names_the_missing_factor():
    r = run_quick(K.x02_lemma_c2_printed)
    assert "factor" not in r.finding or "2(1 - b/m)" in r.finding
    assert r.predicted["printed_bound"] < r.observed["deviation_mean"] < r.predicted["corrected_bound_factor_2"]
    assert r.finding.kind == "erratum" and not r.finding.missing()
    wit = r.predicted["exact_witness"]
    assert wit["enumerated_b1"] == "2/3" and wit["printed_b1"] == "4/9"
    assert wit["printed_below_exact_in"] == wit["enumerated_cases"] == 15
    assert wit["exact_fraction"] == "109/1000" and wit["printed_fraction"] == "227/3000"


def test_sigma_bar2_formula():
    # spec 4.3: sigma_bar^2 = (s_b^2 + d(f s_cor^2 + s_ind^2))/(n-f) + 4 kappa (s_b^2 + 108 (n s_cor^2 + s_ind^2)(1 + d/(n-f)))
    n, f, d, s2, m, b, c2, i2 = 12, 2, 3, 1.5, 10, 2, 0.09, 0.04
    sb2 = 2 * (1 - b / m) * s2 / b
    k = 6 * f / (n - f) * (1 + f / (n - 2 * f)) ** 2
    expected = (sb2 + d * (f * c2 + i2)) / (n - f) + 4 * k * (sb2 + 108 * (n * c2 + i2) * (1 + d / (n - f)))
    assert K.sigma_bar2(n, f, d, s2, m, b, c2, i2) == pytest.approx(expected, rel=1e-12)
    assert sp.diff(A.COR_4_1_DP_TERM.expr, A.T) == 0


# -- issue 17: how hard each claim is tested ----------------------------------------------------------
def test_c21_tells_t_minus_1_from_t_minus_1_25():
    """The rate test refutes T^-1.25 as the stated rate (the power it reports is below 0.25 at seed 0)."""
    from verify.engine import Context

    r = run_quick(K.c21_rates)
    assert r.verdict.value == "holds" and r.observed["rate_power_exponent_shift"] < 0.25
    T = A.THM_4_2_SC_RATE.symbol("T")
    steeper = Bound("T^-1.25", A.THM_4_2_SC_RATE.expr * T ** sp.Rational(-1, 4), "upper", "planted", "planted")
    assert K.c21_rates(Context(), theory=steeper).verdict.value == "violated"


def test_c20_and_x03_run_where_the_iterates_move_and_say_the_bound_is_vacuous():
    r = run_quick(K.c20_theorem42)
    assert r.control["verdict"] == "violated" and r.tightness == "vacuous"
    assert r.observed["excess_loss"][0] > 100 * r.observed["excess_loss"][-1]  # from L_0 = 600 down to its floor
    assert r.finding.kind == "remark" and "10^" in r.finding.summary
    x = run_quick(K.x03_theorem42_nonconvex)
    assert x.observed["last_iterate_squared_gradient"][-1] < 0.1 * x.observed["initial_squared_gradient"]
    assert x.tightness == "vacuous" and "10^" in x.finding.summary
