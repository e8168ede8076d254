"""CAF (allouah2025 Algorithm 2): against a textbook per-replicate reference, the properties every robust
aggregator owes (hypothesis), Proposition 4.1 on random inputs, termination, the literal variant's cap and
warning, the kernel and power-method paths, dtype and generator discipline."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.aggregators import AGGREGATORS
from verify.aggregators.caf import CafIterationCapWarning, caf, caf_filter, top_eigenpair

ATOL = 1e-9


def reference_caf(x: np.ndarray, f: int, max_over: str = "positive", cap: int = 10_000) -> tuple[np.ndarray, int]:
    """Algorithm 2 for one replicate, written from the pseudo-code with numpy's eigh on the d x d covariance."""
    n = x.shape[0]
    c = np.ones(n)
    mu_star, s_star = x.mean(0), np.inf
    it = 0
    while c.sum() > n - 2 * f and it < cap:
        it += 1
        mu = (c[:, None] * x).sum(0) / c.sum()
        D = x - mu
        cov = (c[:, None, None] * D[:, :, None] * D[:, None, :]).sum(0) / c.sum()
        lam, vec = np.linalg.eigh(cov)
        if lam[-1] <= s_star:
            mu_star, s_star = mu, lam[-1]
        tau = (D @ vec[:, -1]) ** 2
        tau_max = tau[c > 0].max() if max_over == "positive" else tau.max()
        if tau_max <= 0:
            break
        c = np.maximum(c * (1 - tau / tau_max), 0.0)
    return mu_star, it


def kappa(n: int, f: int) -> float:
    return 6 * f / (n - f) * (1 + f / (n - 2 * f)) ** 2


@st.composite
def batches(draw, max_n: int = 14, max_d: int = 6):
    R, n, d = draw(st.integers(1, 3)), draw(st.integers(3, max_n)), draw(st.integers(1, max_d))
    f = draw(st.integers(0, (n - 1) // 2))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    X = torch.randn(R, n, d, generator=g, dtype=torch.float64) * draw(st.floats(0.1, 10.0))
    if f and draw(st.booleans()):  # far Byzantine rows
        X[:, n - f:] += draw(st.floats(5.0, 1e3)) * torch.randn(R, 1, d, generator=g, dtype=torch.float64)
    return X, f, g


@settings(max_examples=40, deadline=None)
@given(b=batches(max_d=20))
def test_matches_the_textbook_reference_in_both_eigen_paths(b):
    """d <= n runs on the d x d covariance, d > n on the n x n kernel: both must equal the reference."""
    X, f, _ = b
    out, trace = caf_filter(X, f)
    for r in range(X.shape[0]):
        ref, it = reference_caf(X[r].numpy(), f)
        scale = float(X[r].abs().max()) + 1.0
        assert np.allclose(out[r].numpy(), ref, atol=1e-9 * scale)
        assert int(trace.iterations[r]) == it


@settings(max_examples=30, deadline=None)
@given(b=batches())
def test_permutation_invariant_and_translation_equivariant(b):
    X, f, g = b
    out = caf(X, f)
    perm = torch.randperm(X.shape[1], generator=g)
    assert torch.allclose(caf(X[:, perm], f), out, atol=ATOL * (1 + float(X.abs().max())))
    shift = torch.randn(X.shape[0], 1, X.shape[2], generator=g, dtype=X.dtype) * 100
    assert torch.allclose(caf(X + shift, f), out + shift[:, 0], atol=1e-7 * (1 + float(X.abs().max())))
    assert out.dtype == X.dtype and out.shape == (X.shape[0], X.shape[2])


@settings(max_examples=30, deadline=None)
@given(b=batches(max_d=30))
def test_exact_when_honest_inputs_coincide(b):
    X, f, _ = b
    h = X.shape[1] - f
    X[:, :h] = X[:, :1]
    scale = float(X.abs().max()) + 1.0
    assert torch.allclose(caf(X, f), X[:, 0], atol=1e-12 * scale)


@settings(max_examples=40, deadline=None)
@given(b=batches(max_n=20, max_d=25))
def test_proposition_41_and_termination_within_2f(b):
    X, f, _ = b
    n = X.shape[1]
    out, trace = caf_filter(X, f)
    assert int(trace.iterations.max()) <= 2 * f and not bool(trace.capped.any())
    if f == 0:
        assert torch.allclose(out, X.mean(1), atol=0.0)
        return
    H = X[:, : n - f]
    mu = H.mean(1)
    lam = torch.linalg.eigvalsh(torch.einsum("rni,rnj->rij", H - mu[:, None], H - mu[:, None]) / (n - f))[:, -1]
    err = ((out - mu) ** 2).sum(-1)
    assert torch.all(err <= kappa(n, f) * lam * (1 + 1e-9) + 1e-12)
    sigma_bound = 2 * n * (n - f) / (n - 2 * f) ** 2 * lam
    assert torch.all(trace.sigma_star2 <= sigma_bound * (1 + 1e-9) + 1e-12)


def test_literal_variant_stalls_is_capped_and_warns():
    """The spec's example: n = 10, f = 3, d = 3, outliers at scale 100 (spec 2.4)."""
    g = torch.Generator().manual_seed(0)
    X = torch.cat([torch.randn(20, 7, 3, generator=g, dtype=torch.float64),
                   100 * torch.randn(20, 3, 3, generator=g, dtype=torch.float64)], 1)
    with pytest.warns(CafIterationCapWarning):
        _, lit = caf_filter(X, 3, max_over="all", max_iter=60)
    assert bool(lit.capped.any()) and int(lit.iterations.max()) == 60
    w = lit.weight_sum[lit.capped][0]
    assert float(w[-1]) > 4.0 and float(w[0]) == 10.0  # still above n - 2f = 4 after 60 iterations
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, fix = caf_filter(X, 3)
    assert int(fix.iterations.max()) <= 6 and not bool(fix.capped.any())
    for r in range(X.shape[0]):  # the literal loop matches the reference, iteration for iteration
        ref, it = reference_caf(X[r].numpy(), 3, max_over="all", cap=60)
        assert int(lit.iterations[r]) == it


def test_zero_spread_stops_early_and_returns_the_common_point():
    X = torch.ones(2, 9, 4, dtype=torch.float64) * 3.0
    out, trace = caf_filter(X, 4)
    assert torch.equal(out, X[:, 0]) and bool(trace.zero_spread.all()) and int(trace.iterations.max()) == 1


def test_kernel_path_survives_two_coinciding_clusters():
    """d > n, honest rows all 0 and f identical Byzantine rows (CafCor's first LF round, n = 19, f = 9): the
    kernel's rounding must not turn a zero spread into 0/0."""
    g = torch.Generator().manual_seed(9)
    X = torch.zeros(3, 19, 50, dtype=torch.float64)
    X[:, 10:] = torch.randn(3, 1, 50, generator=g, dtype=torch.float64)
    out, trace = caf_filter(X, 9)
    assert torch.isfinite(out).all() and float(out.abs().max()) < 1e-12
    assert int(trace.iterations.max()) <= 18


def test_power_method_needs_a_generator_and_converges_to_the_exact_eigenpair():
    g = torch.Generator().manual_seed(1)
    D = torch.randn(4, 15, 6, generator=g, dtype=torch.float64)
    D = D - D.mean(1, keepdim=True)
    w = torch.full((4, 15), 1 / 15, dtype=torch.float64)
    with pytest.raises(InputError) as info:
        top_eigenpair(D, w, "power")
    assert info.value.param == "generator"
    lam, v = top_eigenpair(D, w)
    lam_p, v_p = top_eigenpair(D, w, "power", power_iters=500, generator=g)
    assert torch.allclose(lam_p, lam, rtol=1e-8)
    assert torch.allclose((v_p * v).sum(-1).abs(), torch.ones(4, dtype=torch.float64), atol=1e-6)
    X = torch.randn(3, 12, 5, generator=g, dtype=torch.float64)
    a = caf(X, 3, eigen="power", power_iters=300, generator=torch.Generator().manual_seed(5))
    assert torch.allclose(a, caf(X, 3), atol=1e-8)
    same = [caf(X, 3, eigen="power", generator=torch.Generator().manual_seed(7)) for _ in range(2)]
    assert torch.equal(*same)


def test_gram_and_covariance_eigenpairs_agree():
    g = torch.Generator().manual_seed(2)
    D = torch.randn(3, 5, 40, generator=g, dtype=torch.float64)
    w = torch.softmax(torch.randn(3, 5, generator=g, dtype=torch.float64), -1)
    lam, v = top_eigenpair(D, w)  # d > n: Gram path
    cov = torch.einsum("rn,rni,rnj->rij", w, D, D)
    ev, evec = torch.linalg.eigh(cov)
    assert torch.allclose(lam, ev[:, -1], rtol=1e-10)
    assert torch.allclose((v * evec[:, :, -1]).sum(-1).abs(), torch.ones(3, dtype=torch.float64), atol=1e-8)


def test_dtype_device_and_registration():
    g = torch.Generator().manual_seed(3)
    X = torch.randn(2, 11, 4, generator=g)
    out = caf(X, 2)
    assert out.dtype == torch.float32
    assert torch.allclose(out.double(), caf(X.double(), 2), atol=1e-4)
    assert AGGREGATORS["caf"] is caf
    with pytest.raises(InputError) as info:
        caf(X, 6)
    assert info.value.param == "f"
    with pytest.raises(InputError):
        caf(X, 1, eigen="svd")
    with pytest.raises(InputError):
        caf(X, 1, max_over="some")


def test_no_global_random_state_is_touched():
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    X = torch.randn(2, 9, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    caf(X, 2)
    caf(X, 2, eigen="power", generator=torch.Generator().manual_seed(2))
    assert torch.equal(torch.rand(3), before)


def test_f0_aggregator_call_is_the_mean_the_traced_loop_returns():
    """f = 0: the aggregator call returns the mean without setting up the loop, the traced call's bits."""
    from verify.aggregators.caf import caf, caf_filter
    X = torch.randn(5, 7, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    traced, trace = caf_filter(X, 0, record=True)
    assert torch.equal(caf(X, 0), traced) and torch.equal(traced, X.mean(1))
    assert int(trace.iterations.max()) == 0
    with pytest.raises(InputError):
        caf(X, 0, max_iter=-1)


def _previous_loop(X, f, cap):
    """caf_filter's loop before sum c was shared between the weights and the stopping test (exact eigenpairs, max over
    positive weights, d <= n): the estimate, sigma_c^2 per iteration and sum c after each."""
    from verify.aggregators.caf import _projections
    R, n, _ = X.shape
    c = torch.ones(R, n, dtype=X.dtype)
    w_star, s2_star = c / n, torch.full((R,), float("inf"), dtype=X.dtype)
    active = torch.full((R,), f > 0, dtype=torch.bool)
    sigma2, wsum, its = [], [c.sum(1)], torch.zeros(R, dtype=torch.long)
    for k in range(cap):
        if not bool(active.any()):
            break
        w = c / c.sum(1, keepdim=True)
        lam, tau = _projections(X, w, "exact", 1, None, None, False)
        better = active & (lam <= s2_star)
        w_star, s2_star = torch.where(better[:, None], w, w_star), torch.where(better, lam, s2_star)
        tau_max = (tau * (c > 0)).amax(1, keepdim=True)
        flat = tau_max[:, 0] <= 0
        step = active & ~flat
        c = torch.where(step[:, None], (c * (1.0 - tau / torch.where(flat[:, None], 1.0, tau_max))).clamp_min(0.0), c)
        its += active.long()
        sigma2.append(torch.where(active, lam, torch.nan))
        wsum.append(torch.where(its == k + 1, c.sum(1), torch.nan))
        active = step & (c.sum(1) > n - 2 * f)
    return (w_star[:, None, :] @ X)[:, 0], torch.stack(sigma2, 1), torch.stack(wsum, 1)


@pytest.mark.parametrize("R, n, d, f, cap", [(6, 12, 3, 2, None), (3, 9, 2, 4, None), (4, 7, 3, 3, 1), (5, 8, 2, 2, 2)])
def test_loop_with_one_weight_sum_per_iteration_is_the_previous_loop(R, n, d, f, cap):
    """The loop's estimate (traced and lean), its sigma_c^2 and sum c per iteration are the previous loop's bits, with
    bitwise-equal Byzantine points (exact ties in tau), an all-equal replicate (tau_max = 0) and a capped run."""
    X = torch.randn(R, n, d, generator=torch.Generator().manual_seed(R + n), dtype=torch.float64)
    X[:, n - f:] = X[:, n - f:n - f + 1].clone()
    X[0] = 1.5
    want, s2, ws = _previous_loop(X, f, 2 * f if cap is None else cap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CafIterationCapWarning)
        got, trace = caf_filter(X, f, max_iter=cap)
        lean = caf(X, f, max_iter=cap)
    assert torch.equal(got, want) and torch.equal(lean, want)
    assert torch.equal(trace.sigma2.isnan(), s2.isnan()) and torch.equal(trace.sigma2.nan_to_num(), s2.nan_to_num())
    assert torch.equal(trace.weight_sum.nan_to_num(), ws.nan_to_num())


def _top_pair_inputs(R: int, n: int, d: int, f: int, seed: int) -> torch.Tensor:
    """Honest N(0, I) inputs, the last f spread 4x wider."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(R, n, d, generator=g, dtype=torch.float64)
    X[:, n - f:] *= 4.0
    return X


@pytest.mark.parametrize("R, n, d, f, max_over, cap, atol", [
    (1, 100, 64, 20, "positive", None, 1e-11), (2, 64, 200, 12, "positive", 5, 1e-12),
    (2, 100, 64, 10, "positive", None, 1e-11), (1, 70, 300, 14, "positive", None, 1e-11),
    (2, 120, 80, 30, "positive", None, 1e-10), (2, 90, 64, 20, "all", 25, 1e-10), (1, 64, 130, 25, "all", 40, 1e-7)])
def test_top_pair_loop_is_the_full_eigh_loop_to_rounding(R, n, d, f, max_over, cap, atol):
    """From TOP_PAIR_MIN_DIM on, the numpy loop with dsyevr top pairs (covariance path d <= n, kernel path d > n)
    gives the batched full-eigh loop's iterations, stops and caps exactly, and its estimate, final weights,
    sigma_c^2 and means to ``atol`` (sums of weights to n atol); the lean aggregator call is the traced estimate,
    and each replicate's numbers do not depend on the batch it came in.

    The tolerance grows with the iterations (5: 1e-12; 8-14: 1e-11, measured 4.5e-13 to 3.0e-12; 21: 1e-10; the
    literal loop's 30: 1e-7, measured 1.2e-8) because rounding errors in the weights compound: each iteration
    multiplies c_i by 1 - tau_i / tau_max and the next eigenvector is computed from the perturbed weights. The
    full-eigh loop is no steadier: at (2, 120, 80, 30) it moves by 1.5e-12 when replicate 1 runs alone instead of in
    the batch, and a textbook numpy-eigh loop differs from it by 2.1e-11, where this path differs by 9.1e-12. On the
    benchmark's inputs (test_exact_benchmark_cell_...) both agree within 1e-12."""
    from verify.aggregators.caf import TOP_PAIR_MIN_DIM, _fast_exact
    X = _top_pair_inputs(R, n, d, f, seed=n + d)
    assert min(n, d) >= TOP_PAIR_MIN_DIM and _fast_exact(X) and not _fast_exact(X, full_eigh=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CafIterationCapWarning)
        got, t = caf_filter(X, f, max_over=max_over, max_iter=cap, record_means=True)
        want, t0 = caf_filter(X, f, max_over=max_over, max_iter=cap, record_means=True, full_eigh=True)
        lean = caf(X, f, max_over=max_over, max_iter=cap)
        alone, t_alone = caf_filter(X[-1:].clone(), f, max_over=max_over, max_iter=cap)
    assert torch.equal(lean, got) and torch.equal(alone[0], got[-1]) and torch.equal(t_alone.weights[0], t.weights[-1])
    for name in ("iterations", "capped", "zero_spread"):
        assert torch.equal(getattr(t, name), getattr(t0, name)), name
    assert int(t.iterations.min()) >= 5
    torch.testing.assert_close(got, want, rtol=0, atol=atol)
    torch.testing.assert_close(t.weights, t0.weights, rtol=0, atol=atol)
    for name, tol in (("sigma_star2", atol), ("sigma2", atol), ("means", atol), ("weight_sum", n * atol)):
        a, b = getattr(t, name), getattr(t0, name)
        assert a.shape == b.shape and torch.equal(a.isnan(), b.isnan()), name
        torch.testing.assert_close(a.nan_to_num(), b.nan_to_num(), rtol=tol, atol=tol)


@pytest.mark.parametrize("n, d", [(80, 64), (64, 100)])
def test_top_pair_loop_stops_on_zero_spread_and_warns_at_its_cap(n, d):
    """An all-equal replicate stops after one iteration on tau = 0 with the common point itself as the estimate
    (covariance and kernel paths), and a capped run warns. The full-eigh loop's weighted mean w @ X with
    w = c / sum c rounds: at n = 80 it misses 1.5, sigma_c^2 is then 3e-28 instead of 0, and that loop zeroes every
    weight at once instead of stopping on zero spread (an estimate 2e-15 off the common point, another trace)."""
    X = _top_pair_inputs(2, n, d, 10, seed=1)
    X[0] = 1.5
    got, t = caf_filter(X, 10)
    assert t.zero_spread.tolist() == [True, False] and int(t.iterations[0]) == 1
    assert float(t.sigma2[0, 0]) == 0.0 and bool((got[0] == 1.5).all()) and bool((t.weights[0] == 1.0).all())
    with pytest.warns(CafIterationCapWarning, match="cap of 1 iterations"):
        _, capped = caf_filter(X, 10, max_iter=1)
    assert capped.capped.tolist() == [False, True]
    with pytest.raises(InputError, match="full_eigh"):
        caf_filter(X, 10, full_eigh="no")


def test_top_symmetric_pair_reads_the_lower_triangle_and_answers_nan_as_eigh_does():
    """The dsyevr path reads M's lower triangle as torch.linalg.eigh does (garbage above the diagonal is ignored),
    returns the top pair, not another one, and hands a non-finite matrix to eigh (NaN)."""
    from verify.aggregators.caf import top_symmetric_pair
    g = torch.Generator().manual_seed(5)
    A = torch.randn(3, 70, 90, generator=g, dtype=torch.float64)
    M = A @ A.transpose(1, 2)
    lam_e, V_e = torch.linalg.eigh(M)
    garbage = M + torch.triu(torch.randn(3, 70, 70, generator=g, dtype=torch.float64), diagonal=1) * 100
    lam, vec = top_symmetric_pair(garbage)
    torch.testing.assert_close(lam, lam_e[:, -1], rtol=1e-13, atol=0)
    cos = (vec * V_e[:, :, -1]).sum(-1).abs()
    torch.testing.assert_close(cos, torch.ones(3, dtype=torch.float64), rtol=0, atol=1e-12)
    M[1, 3, 2] = float("nan")
    lam, _ = top_symmetric_pair(M)
    assert torch.isnan(lam[1]) and torch.isfinite(lam[[0, 2]]).all()


def test_exact_benchmark_cell_times_the_same_filter_both_ways():
    """benchmarks/bench_aggregators.py's exact-CAF row: the two sides agree to 1e-12 (else no ratio is reported)
    and the record names its instance."""
    bench = pytest.importorskip("benchmarks.bench_aggregators")
    rec = bench.bench_caf_exact(100, 64, runs=1)
    assert rec["name"] == "caf_exact_vs_full_eigh_N100_d64" and rec["max_abs_difference"] <= 1e-12
    assert rec["size"]["iterations"] >= 5 and rec["baseline"] == "full-eigh" and rec["ratio"] > 0
