"""bracket_verdict (verify/fit.py): a quantity known only to lie in a certified bracket [lower, upper]."""
import numpy as np
import pytest

from verify.fit import bracket_verdict
from verify.result import Verdict


def test_bracket_below_the_bound_holds():
    v, info = bracket_verdict([0.1, 0.2], [0.11, 0.21], [0.5, 0.3])
    assert v == Verdict.HOLDS and info["violations"] == 0 and info["worst_ratio"] == pytest.approx(0.7)


def test_one_bracket_wholly_above_the_bound_is_violated():
    v, info = bracket_verdict([0.1, 0.9], [0.11, 0.91], [0.5, 0.5])
    assert v == Verdict.VIOLATED and info["violations"] == 1


def test_a_bracket_straddling_the_bound_is_inconclusive():
    v, info = bracket_verdict([0.1, 0.49], [0.11, 0.51], 0.5)
    assert v == Verdict.INCONCLUSIVE and info["undecided"] == 1


def test_violation_wins_over_undecided():
    v, _ = bracket_verdict([0.49, 0.9], [0.51, 0.91], 0.5)
    assert v == Verdict.VIOLATED


def test_lower_side_mirrors():
    assert bracket_verdict(2.0, 2.1, 1.0, side="lower")[0] == Verdict.HOLDS
    assert bracket_verdict(0.2, 0.3, 1.0, side="lower")[0] == Verdict.VIOLATED
    assert bracket_verdict(0.9, 1.1, 1.0, side="lower")[0] == Verdict.INCONCLUSIVE


def test_a_negative_bound_below_a_positive_bracket_is_violated():
    """kappa_B3 < 0 (Lemma B3 at large steps) against a certified worst case > 0."""
    assert bracket_verdict(1.59, 1.60, -0.45)[0] == Verdict.VIOLATED


def test_nan_is_inconclusive_and_reversed_bracket_is_an_error():
    assert bracket_verdict(np.nan, 1.0, 2.0)[0] == Verdict.INCONCLUSIVE
    with pytest.raises(ValueError):
        bracket_verdict(1.0, 0.5, 2.0)
