"""fit.median_verdict (added for werner2023.c23): a distribution-free verdict on a median, robust to outliers."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.fit import bound_verdict, median_verdict


def test_planted_violation_and_holding_claim():
    rng = np.random.default_rng(0)
    x = 1.0 + 0.1 * rng.normal(size=32)
    assert median_verdict(x, 0.0, "upper")[0].value == "violated"  # median ~1 is not <= 0
    assert median_verdict(x, 2.0, "upper")[0].value == "holds"
    assert median_verdict(x, 2.0, "lower")[0].value == "violated"
    assert median_verdict(x, 0.0, "lower")[0].value == "holds"


def test_a_few_outliers_do_not_move_it_but_move_the_mean():
    x = np.concatenate([np.full(29, 1.0) + np.linspace(-0.01, 0.01, 29), [-100.0, -80.0, -60.0]])
    v, info = median_verdict(x, 0.5, "lower")
    assert v.value == "holds" and info["ci"][0] > 0.9
    assert bound_verdict(x[:, None], 0.5, side="lower", rng=0)[0].value != "holds"


def test_too_few_replicates_or_nan_is_inconclusive():
    assert median_verdict([1.0, 2.0, 3.0, 4.0, 5.0], 10.0)[0].value == "inconclusive"
    assert median_verdict([1.0, np.nan] * 10, 10.0)[0].value == "inconclusive"
    v, info = median_verdict(np.arange(6.0), 10.0)
    assert v.value == "holds" and info["coverage"] >= 0.95 and info["ci"] == [0.0, 5.0]


@given(st.integers(6, 60), st.integers(0, 10_000))
@settings(max_examples=40, deadline=None)
def test_interval_covers_the_order_statistics_it_claims(n, seed):
    x = np.random.default_rng(seed).standard_cauchy(n)
    _, info = median_verdict(x, 0.0)
    xs = np.sort(x)
    assert info["ci"] == [xs[info["k"] - 1], xs[n - info["k"]]] and info["coverage"] >= 0.95


def test_false_violation_rate_at_the_boundary_is_small():
    """True median exactly at the threshold: 'violated' needs the whole interval above it, probability <= 2.5%."""
    rng = np.random.default_rng(1)
    hits = sum(median_verdict(rng.standard_cauchy(32), 0.0, "upper")[0].value == "violated" for _ in range(1000))
    assert hits / 1000 <= 0.025 + 3 * np.sqrt(0.025 * 0.975 / 1000)


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_side_mirrors(side):
    x = np.linspace(0, 1, 21)
    v1, _ = median_verdict(x, -1.0, side)
    v2, _ = median_verdict(-x, 1.0, "lower" if side == "upper" else "upper")
    assert v1 == v2
