"""The literal power-method CAF (tau_max over all j, allouah2025 Algorithm 2 as printed) of an aggregator call on
CPU float64, which runs in numpy one replicate at a time: against the traced torch loop (same start vectors, same
estimate to rounding, same generator state afterwards), its cap warning and generator requirement, and against
ByzFL 0.0.11's CAF on inputs where both rank the iterates alike."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.aggregators.caf import LITERAL_NUMPY_MAX_R, CafIterationCapWarning, caf, caf_filter
from tests.verify.test_caf import batches


def _both(X, f, iters, seed=5, max_iter=60):
    """(lean estimate, traced estimate, next draw after each): the numpy path and the traced torch loop."""
    g_lean, g_traced = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CafIterationCapWarning)
        lean = caf(X, f, eigen="power", power_iters=iters, generator=g_lean, max_over="all", max_iter=max_iter)
        traced, trace = caf_filter(X, f, eigen="power", power_iters=iters, generator=g_traced, max_over="all",
                                   max_iter=max_iter, record=True)
    return lean, traced, trace, torch.rand(3, generator=g_lean), torch.rand(3, generator=g_traced)


@settings(max_examples=60, deadline=None)
@given(b=batches(max_n=30, max_d=20), iters=st.integers(1, 3), offset=st.floats(-1e3, 1e3))
def test_numpy_loop_is_the_traced_torch_loop_to_rounding(b, iters, offset):
    X, f, _ = b
    X = X + offset
    lean, traced, trace, next_lean, next_traced = _both(X, f, iters)
    assert lean.dtype == torch.float64 and lean.shape == traced.shape
    assert torch.allclose(lean, traced, rtol=1e-12, atol=1e-12 * (1 + float(X.abs().max())))
    # the same number of draws: the caller's generator continues identically
    assert torch.equal(next_lean, next_traced)


@pytest.mark.parametrize("n,d", [(20, 100), (40, 7), (9, 300)])
def test_numpy_loop_on_larger_problems(n, d):
    g = torch.Generator().manual_seed(n * d)
    X = torch.randn(4, n, d, generator=g, dtype=torch.float64)
    X[:, n - n // 5:] += 3.0 * torch.randn(4, n // 5, d, generator=g, dtype=torch.float64)
    lean, traced, trace, next_lean, next_traced = _both(X, n // 5, 1, max_iter=1000)
    assert int(trace.iterations.max()) >= 2  # several filter iterations, not only the first
    assert (lean - traced).abs().max() <= 1e-12 * (1 + float(X.abs().max()))
    assert torch.equal(next_lean, next_traced)


def test_large_batches_keep_the_torch_loop_bitwise():
    g = torch.Generator().manual_seed(3)
    X = torch.randn(LITERAL_NUMPY_MAX_R + 1, 12, 5, generator=g, dtype=torch.float64)
    lean, traced, *_ = _both(X, 3, 2)
    assert torch.equal(lean, traced)


def test_repaired_variant_keeps_the_torch_loop_bitwise():
    """max over positive weights (the default, which the checks use with the power method) is not rerouted."""
    X = torch.randn(2, 15, 4, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    a = caf(X, 4, eigen="power", generator=torch.Generator().manual_seed(1))
    b, _ = caf_filter(X, 4, eigen="power", generator=torch.Generator().manual_seed(1))
    assert torch.equal(a, b)


def test_numpy_loop_warns_at_its_cap_and_needs_a_generator():
    X = torch.randn(2, 9, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    X[:, 6:] += 1e4  # far points at weight 0 keep tau_max large: the literal variant stalls
    with pytest.warns(CafIterationCapWarning):
        caf(X, 3, eigen="power", generator=torch.Generator().manual_seed(0), max_over="all", max_iter=3)
    with pytest.raises(InputError, match="generator"):
        caf(X, 3, eigen="power", max_over="all")


def test_identical_points_stop_at_zero_spread():
    """All points at 0: D = 0 exactly, tau_max = 0 stops the loop after one iteration (one draw), the mean returned."""
    X = torch.zeros(2, 7, 3, dtype=torch.float64)
    lean, traced, trace, next_lean, next_traced = _both(X, 2, 1)
    assert torch.equal(lean, X[:, 0]) and torch.equal(traced, X[:, 0])
    assert trace.iterations.tolist() == [1, 1] and torch.equal(next_lean, next_traced)


def test_equals_byzfl_on_the_benchmark_inputs():
    """ByzFL 0.0.11's CAF with our start vectors: the same estimate to 1e-12 where both rank the iterates alike
    (benchmarks/bench_aggregators.py, CAF_CELLS)."""
    bench = pytest.importorskip("benchmarks.bench_aggregators")
    agg = bench.byzfl_aggregators()
    if agg is None:
        pytest.skip("byzfl is not installed")
    for n, d, seed in [(20, 100, 0), (100, 100, 0), (500, 100, 1)]:
        f = n // 5
        X = bench._caf_inputs(n, d, f, seed)
        saved = np.random.randn
        np.random.randn = bench._SeededStarts(1)
        try:
            theirs = agg.CAF(f)(X[0].numpy())
        finally:
            np.random.randn = saved
        ours = caf(X, f, eigen="power", max_over="all", generator=torch.Generator().manual_seed(1))[0].numpy()
        assert np.abs(ours - theirs).max() <= 1e-12
