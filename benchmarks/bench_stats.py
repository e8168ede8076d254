"""The exact one-sided Wilcoxon signed-rank p-values of ``verify.fit.paired_comparison_verdict`` against scipy's.

With ties or zeros and n <= 13, ``scipy.stats.wilcoxon`` enumerates all 2^n sign vectors through
``permutation_test``; ``verify.signed_rank`` counts them by the generating polynomial of the doubled ranks and
returns the same floats (checked here before timing). Inputs: paired differences of n = 13 replicates with ties and
a zero, as the quick suite's paired comparisons have them (integer-valued success counts, for example).
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from benchmarks.bench_aggregators import interleaved, pair_record
from verify.signed_rank import one_sided_pvalues


def bench_signed_rank(n: int, runs: int) -> dict:
    d = np.random.default_rng(0).integers(-3, 4, size=n).astype(float)
    d[0] = 0.0  # a zero: scipy's enumerated path
    scipy_both = lambda: [stats.wilcoxon(d, alternative=a).pvalue for a in ("less", "greater")]  # noqa: E731
    timing = interleaved(scipy_both, lambda: list(one_sided_pvalues(d)), runs)
    return pair_record(f"signed_rank_exact_n{n}_vs_scipy", {"n": n}, "scipy",
                       "scipy.stats.wilcoxon's two one-sided p-values (sign vectors enumerated by permutation_test)",
                       timing, atol=0.0)


BENCHMARKS = {f"signed_rank_exact_n{n}_vs_scipy": (lambda device, repeat, n=n: bench_signed_rank(n, max(3, repeat)))
              for n in (8, 13)}
