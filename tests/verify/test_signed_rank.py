"""The counted signed-rank p-values are scipy's, bitwise, and much cheaper where scipy enumerates sign vectors."""
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from verify.fit import Verdict, paired_comparison_verdict
from verify.signed_rank import ENUMERATED_UP_TO, one_sided_pvalues


def scipy_pvalues(d):
    return (float(stats.wilcoxon(d, alternative="less").pvalue), float(stats.wilcoxon(d, alternative="greater").pvalue))


@settings(max_examples=40, deadline=None)  # n up to 8 here (each scipy call enumerates 2^n); n = 13 below
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=8), st.sampled_from([1.0, 0.5, 1e-3]))
def test_bitwise_scipy_with_ties_and_zeros(values, scale):
    d = np.array(values, dtype=float) * scale
    if not np.any(d != 0):
        return
    assert one_sided_pvalues(d) == scipy_pvalues(d)


def test_hand_counted_small_case():
    # d = (1, 1, -2, 0): ranks of |d| among non-zeros 1.5, 1.5, 3; W+ = 3; 16 sign vectors (the zero doubles 8)
    # W+ over the 8 sign patterns of the non-zeros: 0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6 -> P(W+ <= 3) = 5/8, P(W+ >= 3) = 5/8
    assert one_sided_pvalues([1.0, 1.0, -2.0, 0.0]) == (0.625, 0.625)


def test_without_ties_it_is_scipys_exact_distribution():
    d = np.array([0.3, -1.2, 2.5, 0.7, -0.1, 1.9])
    assert one_sided_pvalues(d) == scipy_pvalues(d)


def test_counting_is_much_faster_than_enumeration():
    d = np.array([1, 1, 2, -2, 3, 0, 1, -1, 2, 2, 3, -3, 1], dtype=float)
    assert d.size == ENUMERATED_UP_TO
    t0 = time.perf_counter()
    ours = one_sided_pvalues(d)
    t1 = time.perf_counter()
    theirs = float(stats.wilcoxon(d, alternative="less").pvalue)
    t2 = time.perf_counter()
    assert ours[0] == theirs
    assert (t2 - t1) > 20 * (t1 - t0)


@pytest.mark.parametrize("shift, verdict", [(-1.0, Verdict.HOLDS), (1.0, Verdict.VIOLATED), (0.0, Verdict.INCONCLUSIVE)])
def test_paired_verdict_with_tied_differences(shift, verdict):
    b = np.zeros(12)
    a = np.array([0, 1, 1, 2, 2, 1, 0, 1, 2, 1, 1, 2], dtype=float) * (1 if shift >= 0 else -1)
    if shift == 0.0:
        a = np.array([1, -1, 2, -2, 1, -1, 0, 1, -1, 2, -2, 0], dtype=float)
    assert paired_comparison_verdict(a, b)[0] == verdict
