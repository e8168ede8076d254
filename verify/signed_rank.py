"""One-sided p-values of the Wilcoxon signed-rank test, exact by counting when the sample is small.

For paired differences d_1..d_n, zeros dropped (Wilcoxon's convention), let r_i be the average rank of |d_i| among
the non-zero |d_j| and W+ = sum_{d_i > 0} r_i. Under the null hypothesis each sign is + or - with probability 1/2,
independently, so over the 2^n sign vectors (a zero keeps its value under both signs, doubling every count)

    P(W+ <= w) = #{s in {0, 1}^n : sum_i s_i r_i <= w} / 2^n,

and symmetrically P(W+ >= w). Average ranks are multiples of 1/2, so 2 r_i are integers and the counts follow from
the generating polynomial prod_i (1 + x^{2 r_i}) (times 2 per zero): O(n sum_i r_i) integer work.

scipy's ``stats.wilcoxon`` computes the same p-values when the sample has ties or zeros and n <= 13 by enumerating
all 2^n sign vectors through ``permutation_test`` (about 0.5 s a call); this module counts them instead (tens of
microseconds) and returns the same floats, count / 2^n, bitwise (tests/verify/test_signed_rank.py compares the two
on random samples with ties and zeros). Every other case (no ties and no zeros: scipy's exact distribution; n > 13
with ties or zeros: the normal approximation with continuity correction) is scipy's own call.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

#: Largest sample scipy's ``wilcoxon(method="auto")`` treats by enumerating sign vectors (2^13 < its 9999 resamples).
ENUMERATED_UP_TO = 13


def _counts_at_most_and_at_least(doubled: np.ndarray, zeros: int, observed2: int) -> tuple[int, int]:
    """(#sign vectors with 2W+ <= observed2, #with 2W+ >= observed2) for the integer doubled ranks ``doubled``."""
    total = int(doubled.sum())
    ways = np.zeros(total + 1, dtype=np.int64)  # exact: at most 2^ENUMERATED_UP_TO sign vectors
    ways[0] = 1
    for r in doubled.tolist():
        ways[r:] = ways[r:] + ways[: total + 1 - r]
    ways = ways * (2**zeros)
    return int(ways[: observed2 + 1].sum()), int(ways[observed2:].sum())


def one_sided_pvalues(diff) -> tuple[float, float]:
    """(p of 'median of d < 0', p of 'median of d > 0') for the differences ``diff`` (1-D, finite, not all zero),
    as ``stats.wilcoxon(diff, alternative="less" / "greater").pvalue``."""
    d = np.asarray(diff, dtype=float).ravel()
    nonzero = d[d != 0]
    zeros = d.size - nonzero.size
    magnitudes = np.abs(nonzero)
    ties = np.unique(magnitudes).size < magnitudes.size
    if d.size > ENUMERATED_UP_TO or not (ties or zeros):
        return (float(stats.wilcoxon(d, alternative="less").pvalue),
                float(stats.wilcoxon(d, alternative="greater").pvalue))
    doubled = np.rint(2 * stats.rankdata(magnitudes)).astype(np.int64)
    observed2 = int(doubled[nonzero > 0].sum())
    at_most, at_least = _counts_at_most_and_at_least(doubled, zeros, observed2)
    return at_most / 2**d.size, at_least / 2**d.size
