"""allouah2025.x13 (Theorem 4.2 (2)'s 1/sqrt(T) where the noise term leads): the check contract with a planted 1/T
theory that must come out violated, the regime it runs in, and its verdict at seeds 0 and 1."""
from __future__ import annotations

import numpy as np
import pytest

from verify.checks.allouah2025 import rate as K
from verify.engine import Context
from verify.fit import power_law
from verify.testing import CheckContract, run_quick


class TestX13(CheckContract):
    check = K.x13_nonconvex_rate
    planted = {"theory": power_law("T", -1.0, "upper", "planted: O(1/T)")}
    determinism_replicates = 4
    determinism_overrides = {"Ts": (100, 200)}


def test_runs_where_the_sqrt_term_leads_and_the_slope_is_one_half():
    r = run_quick(K.x13_nonconvex_rate)
    assert np.all(np.asarray(r.predicted["sqrt_term"]) > 10 * np.asarray(r.predicted["one_over_T_term"]))
    assert np.all(np.asarray(r.observed["gamma"]) < 1 / 24)
    assert -0.6 < r.observed["slope"] < -0.4 and r.fit["one_over_T_verdict"] == "violated"


def test_a_capped_step_is_outside_the_regime():
    # sigma_ind small: gamma_T hits 1/(24L), the 1/T term leads (x03's regime), and the check says so
    r = K.x13_nonconvex_rate(Context(), s_ind=0.02, Ts=(100, 200))
    assert r.verdict.value == "inconclusive"


@pytest.mark.parametrize("seed", [0, 1])
def test_expected_at_seeds_0_and_1(seed):
    r = K.x13_nonconvex_rate(Context(seed=seed))
    assert r.verdict == r.expected
