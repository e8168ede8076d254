"""allouah2025.x14 (Lemma C.2's recursion at every round along CafCor runs): the check contract with a planted
half-size bound, the printed statement's term failing on the same runs, and the verdict at seeds 0 and 1."""
from __future__ import annotations

import numpy as np
import pytest

from analytic.papers import allouah2025 as A
from verify.checks.allouah2025 import deviation as K
from verify.engine import Context
from verify.testing import CheckContract, run_quick


class TestX14(CheckContract):
    check = K.x14_lemma_c2_rounds
    planted = {"theory": A.LEMMA_C2.scaled(0.5)}  # the increments sit at about 0.76 of the bound
    determinism_replicates = 8
    determinism_overrides = {"T": 6}


def test_increments_track_the_exact_variance_and_the_printed_term_fails():
    r = run_quick(K.x14_lemma_c2_rounds)
    ratio = np.asarray(r.observed["increment"]) / np.asarray(r.predicted["exact_noise_term"])
    assert 0.8 < float(np.mean(ratio)) < 1.1  # Young's inequality adds a little slack below the exact variance
    assert r.fit["printed_verdict"] == "violated"
    assert np.all(np.asarray(r.observed["t"]) >= 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_expected_at_seeds_0_and_1(seed):
    r = K.x14_lemma_c2_rounds(Context(seed=seed))
    assert r.verdict == r.expected
