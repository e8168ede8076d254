"""The verdict rules dutta2023 added to verify/fit.py: a ratio of two means, a paired comparison (Wilcoxon
signed-rank) and a rank trend (Spearman). Each must say holds, violated and inconclusive where it should."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from verify.fit import paired_comparison_verdict, rank_trend_verdict, ratio_of_means_verdict, unanimous
from verify.result import Verdict


def test_ratio_of_means_holds_violates_and_abstains():
    rng = np.random.default_rng(0)
    x = rng.normal(10.0, 1.0, 40)
    y = rng.normal(5.0, 0.5, 40)  # E x / E y = 2
    assert ratio_of_means_verdict(x, y, 2.5, "upper", rng=1)[0] == Verdict.HOLDS
    assert ratio_of_means_verdict(x, y, 1.5, "upper", rng=1)[0] == Verdict.VIOLATED
    assert ratio_of_means_verdict(x, y, 1.5, "lower", rng=1)[0] == Verdict.HOLDS
    estimate = float(x.mean() / y.mean())
    v, info = ratio_of_means_verdict(x, y, estimate, "upper", rng=1)
    assert v == Verdict.INCONCLUSIVE and info["ratio_ci"][0] < estimate < info["ratio_ci"][1]
    assert ratio_of_means_verdict(x[:1], y, 2.0)[0] == Verdict.INCONCLUSIVE


def test_ratio_of_means_interval_covers_about_95_percent():
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(120):
        x, y = rng.exponential(2.0, 30), rng.exponential(1.0, 30)
        _, info = ratio_of_means_verdict(x, y, 1.0, rng=rng, n_boot=400)
        hits += info["ratio_ci"][0] <= 2.0 <= info["ratio_ci"][1]
    assert 0.87 <= hits / 120 <= 1.0


def test_paired_comparison_three_outcomes():
    rng = np.random.default_rng(2)
    b = rng.normal(0.0, 1.0, 20)
    assert paired_comparison_verdict(b - 1.0, b)[0] == Verdict.HOLDS
    assert paired_comparison_verdict(b + 1.0, b)[0] == Verdict.VIOLATED
    assert paired_comparison_verdict(b + rng.normal(0, 1e-3, 20), b)[0] == Verdict.INCONCLUSIVE
    v, info = paired_comparison_verdict(b, b)
    assert v == Verdict.INCONCLUSIVE and info["p_less"] == 1.0
    with pytest.raises(ValueError):
        paired_comparison_verdict(b, b[:5])


def test_paired_comparison_false_positive_rate_is_at_most_alpha():
    rng = np.random.default_rng(3)
    wrong = sum(paired_comparison_verdict(rng.normal(0, 1, 25), rng.normal(0, 1, 25))[0] != Verdict.INCONCLUSIVE
                for _ in range(200))
    assert wrong / 200 <= 0.05 * 2 + 0.04  # two one-sided tests at 0.05 each


def test_rank_trend_holds_violates_and_abstains():
    rng = np.random.default_rng(4)
    x = np.array([0.0, 2, 5, 8, 10])
    up = x[None] + rng.normal(0, 0.1, (20, 5))
    assert rank_trend_verdict(x, up, 0.9, rng=1)[0] == Verdict.HOLDS
    assert rank_trend_verdict(x, -up, 0.9, rng=1)[0] == Verdict.VIOLATED
    flat = rng.normal(0, 1, (20, 5))
    v, info = rank_trend_verdict(x, flat, 0.9, rng=1)
    assert v != Verdict.HOLDS
    assert info["rho"] == pytest.approx(stats.spearmanr(x, flat.mean(0)).statistic)
    assert rank_trend_verdict(x, up[:1], 0.9)[0] == Verdict.INCONCLUSIVE


def test_unanimous_decides_only_where_every_member_agrees():
    H, V, I = Verdict.HOLDS, Verdict.VIOLATED, Verdict.INCONCLUSIVE
    assert unanimous([H, H]) == H and unanimous([V, V]) == V
    assert unanimous([H, V]) == I and unanimous([H, I]) == I and unanimous([V, I]) == I and unanimous([]) == I


def test_controlled_holds_only_when_the_unprotected_baseline_fails():
    from verify.fit import controlled

    H, V, I = Verdict.HOLDS, Verdict.VIOLATED, Verdict.INCONCLUSIVE
    assert controlled(H, V) == H  # the filter holds where the mean fails: a tested claim
    assert controlled(H, H) == I  # no harm even without the filter: a toothless attack
    assert controlled(H, I) == I
    assert controlled(V, V) == V and controlled(V, H) == V  # a failed claim stays failed
    assert controlled(I, V) == I
    assert controlled("holds", "violated") == H  # verdict values as stored in a Result's control
