"""The sort-free / Gram kernels of the classic aggregators against the torch-sort, exact-difference
versions they replaced (kept here as oracles): bitwise equal in float64, ties and duplicate inputs
included (hypothesis draws integer-valued inputs, which tie often), edge sizes, and the torch fallback
(float32, autograd) agreeing with the numpy path."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.aggregators import classic
from verify.aggregators.classic import (argsort_clients, coordinate_median, geometric_median, krum_scores,
                                        krum_scores_exact, meamed, multi_krum, sort_clients, trimmed_mean)


# ---- the previous implementations (torch's sort, exact-difference distances): the oracles ----
def old_cwmed(X):
    s = X.sort(dim=1).values
    N = X.shape[1]
    return 0.5 * (s[:, (N - 1) // 2] + s[:, N // 2])


def old_cwtm(X, f):
    return X.sort(dim=1).values[:, f:X.shape[1] - f].mean(1)


def old_multikrum(X, f, m=None, k=None):
    N = X.shape[1]
    m = N - f if m is None else m
    k = N - f - 2 if k is None else k
    D = torch.cdist(X, X, compute_mode="donot_use_mm_for_euclid_dist") ** 2
    score = D.sort(dim=-1).values[:, :, 1:k + 1].sum(-1)
    keep = score.argsort(dim=1, stable=True)[:, :m]
    return torch.gather(X, 1, keep[..., None].expand(-1, -1, X.shape[-1])).mean(1)


def old_gm(X, iters=200, eps=1e-12):
    z = old_cwmed(X)
    for _ in range(iters):
        w = 1.0 / torch.linalg.vector_norm(X - z[:, None], dim=-1).clamp_min(eps)
        z = (w[..., None] * X).sum(1) / w.sum(1, keepdim=True)
    return z


def old_meamed(X, f):
    N = X.shape[1]
    med = old_cwmed(X)
    keep = (X - med[:, None]).abs().argsort(dim=1, stable=True)[:, :N - f]
    return torch.gather(X, 1, keep).mean(1)


@st.composite
def batches(draw, tied=False):
    R, N, d = draw(st.integers(1, 3)), draw(st.integers(4, 14)), draw(st.integers(1, 6))
    f = draw(st.integers(0, (N - 3) // 2))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    if tied:  # few distinct values, duplicated clients: exact ties everywhere
        X = torch.randint(-2, 3, (R, N, d), generator=g).double()
        dup = torch.randint(0, N, (N,), generator=g)
        X = torch.where(torch.rand(1, N, 1, generator=g) < 0.3, X[:, dup], X)
    else:
        X = torch.randn(R, N, d, generator=g, dtype=torch.float64) * draw(st.floats(1e-3, 1e3))
        X = X + draw(st.floats(-1e4, 1e4))  # an offset: the Gram identity cancels, the recheck must catch it
    return X, f


@contextlib.contextmanager
def gram_always():
    """Krum's Gram path even on the small inputs hypothesis draws (it is skipped below a size threshold)."""
    saved = classic.KRUM_GRAM_MIN_TERMS
    classic.KRUM_GRAM_MIN_TERMS = 0
    try:
        yield
    finally:
        classic.KRUM_GRAM_MIN_TERMS = saved


def meamed_oracle(X, f):
    """Per coordinate, drop the f values farthest from the median one at a time (the farther end of the sorted
    remaining values; on a tie the larger value), average the rest: Python floats."""
    R, N, d = X.shape
    out = np.zeros((R, d))
    for r in range(R):
        for j in range(d):
            v = sorted(float(x) for x in X[r, :, j])
            med = 0.5 * (v[(N - 1) // 2] + v[N // 2])
            lo, hi = 0, N - 1
            for _ in range(f):
                if med - v[lo] > v[hi] - med:
                    lo += 1
                else:
                    hi -= 1
            out[r, j] = sum(v[lo:hi + 1]) / (N - f)
    return torch.from_numpy(out)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


@settings(max_examples=60, deadline=None)
@given(b=st.one_of(batches(), batches(tied=True)))
def test_coordinatewise_are_bitwise_the_torch_sort_versions(b):
    X, f = b
    assert same(coordinate_median(X), old_cwmed(X))
    assert same(trimmed_mean(X, f), old_cwtm(X, f))
    m = meamed(X, f)
    assert torch.allclose(m, meamed_oracle(X, f), rtol=1e-12, atol=1e-12 * float(X.abs().max()))


@settings(max_examples=40, deadline=None)
@given(b=batches())
def test_meamed_is_the_old_argsort_version_without_ties(b):
    X, f = b
    assert torch.allclose(meamed(X, f), old_meamed(X, f), rtol=1e-12, atol=1e-12 * float(X.abs().max()))


def test_blocked_sorts_cover_every_block_and_edge():
    saved = classic.BLOCK_BYTES
    X = torch.randn(5, 9, 23, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    try:
        for block in (8, 9 * 8 * 3, 9 * 23 * 8, 9 * 23 * 8 * 2 + 8):  # one column, 3 columns, one replicate, 2 replicates
            classic.BLOCK_BYTES = block
            assert same(coordinate_median(X), old_cwmed(X))
            assert same(trimmed_mean(X, 3), old_cwtm(X, 3))
            assert torch.allclose(meamed(X, 3), meamed_oracle(X, 3), rtol=1e-12, atol=1e-12)
    finally:
        classic.BLOCK_BYTES = saved


@settings(max_examples=80, deadline=None)
@given(b=st.one_of(batches(), batches(tied=True)), m=st.integers(1, 4))
def test_multikrum_is_bitwise_the_exact_difference_version(b, m):
    X, f = b
    N = X.shape[1]
    if N <= 2 * f + 2:
        f = 0
    m = min(m, N)
    with gram_always():
        assert same(multi_krum(X, f, m=m), old_multikrum(X, f, m=m))
        assert same(multi_krum(X, f), old_multikrum(X, f))
        assert same(multi_krum(X, f, neighbors=N - f - 1), old_multikrum(X, f, k=N - f - 1))
    with gram_always(), grouping_always():
        assert same(multi_krum(X, f, m=m), old_multikrum(X, f, m=m))
        assert same(multi_krum(X, f, neighbors=N - f - 1), old_multikrum(X, f, k=N - f - 1))
    assert same(multi_krum(X, f, m=m), old_multikrum(X, f, m=m))
    assert same(multi_krum(X, f), old_multikrum(X, f))
    assert same(multi_krum(X, f, neighbors=N - f - 1), old_multikrum(X, f, k=N - f - 1))


@settings(max_examples=60, deadline=None)
@given(b=st.one_of(batches(), batches(tied=True)))
def test_krum_scores_rank_exactly_and_rechecked_rows_are_the_exact_scores(b):
    X, f = b
    k = X.shape[1] - f - 2 if X.shape[1] > f + 2 else 1
    ref = krum_scores_exact(X, k)
    for grouping in (contextlib.nullcontext(), grouping_always()):
        with gram_always(), grouping:
            score, exact = krum_scores(X, k)
        assert torch.equal(score.argsort(dim=1, stable=True), ref.argsort(dim=1, stable=True))
        assert torch.equal(score[exact], ref[exact])


@pytest.mark.parametrize("scale", [1e-15, 1e-13, 1e-11, 1e-9])
def test_near_duplicates_and_near_ties_rank_exactly(scale):
    """Near-duplicates (x + a perturbation of relative size ``scale``, not bitwise equal) next to exact duplicates, and
    a mirror-image pair (equal exact scores by symmetry, different inputs): the fast path must not trust the Gram
    ranking there, and the grouping must not merge inputs that differ."""
    g = torch.Generator().manual_seed(11)
    X = torch.randn(3, 24, 16, generator=g, dtype=torch.float64)
    X[:, 18:21] = X[:, 17:18]  # exact duplicates
    X[:, 21:23] = X[:, 17:18] * (1 + scale * torch.randn(3, 2, 16, generator=g, dtype=torch.float64))
    X[:, 23] = -X[:, 0]  # symmetric: a near tie of scores, not a duplicate
    for m in (1, 5, 24 - 4):
        for grouping in (contextlib.nullcontext(), grouping_always()):
            with gram_always(), grouping:
                assert same(multi_krum(X, 4, m=m), old_multikrum(X, 4, m=m))
                score, exact = krum_scores(X, 18)
            ref = krum_scores_exact(X, 18)
            assert torch.equal(score.argsort(dim=1, stable=True), ref.argsort(dim=1, stable=True))
            assert torch.equal(score[exact], ref[exact])


def test_fast_path_skips_the_recheck_when_no_interval_meets():
    X = torch.randn(4, 40, 30, generator=torch.Generator().manual_seed(12), dtype=torch.float64)
    with gram_always():
        score, exact = krum_scores(X, 30)
    assert not exact.any()
    assert torch.equal(score.argsort(dim=1, stable=True), krum_scores_exact(X, 30).argsort(dim=1, stable=True))
    assert torch.allclose(score, krum_scores_exact(X, 30), rtol=1e-12)


@contextlib.contextmanager
def grouping_always():
    """Krum's duplicate grouping even where every flagged row would be rechecked directly (small problems)."""
    saved = classic.KRUM_DIRECT_TERMS
    classic.KRUM_DIRECT_TERMS = -1
    try:
        yield
    finally:
        classic.KRUM_DIRECT_TERMS = saved


def test_duplicated_byzantine_inputs_are_rechecked_and_ranked_by_index():
    g = torch.Generator().manual_seed(3)
    X = torch.randn(4, 30, 50, generator=g, dtype=torch.float64)
    X[:, 22:] = X[:, :1] + 0.5  # eight identical inputs: exact score ties
    with gram_always(), grouping_always():
        score, exact = krum_scores(X, 30 - 8 - 2)
        assert not exact[:, 23:].any()  # duplicates copy their representative's score, no recheck
        assert torch.equal(score[:, 22:], score[:, 22:23].expand(-1, 8))
        assert same(multi_krum(X, 8), old_multikrum(X, 8))
        assert same(multi_krum(X, 8, m=1), old_multikrum(X, 8, m=1))
    with gram_always():  # directly: every flagged row (the eight duplicates) rechecked, none grouped
        score, exact = krum_scores(X, 30 - 8 - 2)
        assert exact[:, 22:].all() and not exact[:, :22].any()
        assert torch.equal(score[:, 22:], score[:, 22:23].expand(-1, 8))
        assert same(multi_krum(X, 8), old_multikrum(X, 8))


def test_far_from_origin_inputs_fall_back_to_exact_and_stay_equal():
    g = torch.Generator().manual_seed(4)
    X = torch.randn(2, 25, 40, generator=g, dtype=torch.float64) * 1e-6 + 1e6  # Gram identity loses every digit
    with gram_always():
        score, exact = krum_scores(X, 20)
        assert exact.all()
        assert same(multi_krum(X, 3), old_multikrum(X, 3))


@pytest.mark.parametrize("N,d", [(1, 1), (2, 1), (3, 7), (5, 1), (64, 3), (7, 1000)])
def test_edge_sizes(N, d):
    X = torch.randn(2, N, d, generator=torch.Generator().manual_seed(N * d), dtype=torch.float64)
    assert same(coordinate_median(X), old_cwmed(X))
    assert same(trimmed_mean(X, 0), old_cwtm(X, 0))
    assert torch.allclose(meamed(X, 0), old_meamed(X, 0), rtol=1e-12, atol=1e-12)
    if N > 2:
        with gram_always():
            assert same(multi_krum(X, 0), old_multikrum(X, 0))
    assert torch.allclose(geometric_median(X, iters=50), old_gm(X, iters=50), rtol=1e-12, atol=1e-12)


def test_geometric_median_matches_the_materialised_iteration():
    g = torch.Generator().manual_seed(5)
    X = torch.randn(3, 17, 9, generator=g, dtype=torch.float64) * 3
    assert torch.allclose(geometric_median(X), old_gm(X), rtol=1e-12, atol=1e-12)
    z = torch.zeros(3, 9, dtype=torch.float64)
    for _ in range(3):  # ByzFL's GeometricMedian(nu, T=3): from 0, distances floored at nu
        w = 1.0 / torch.linalg.vector_norm(X - z[:, None], dim=-1).clamp_min(0.1)
        z = (w[..., None] * X).sum(1) / w.sum(1, keepdim=True)
    assert torch.allclose(geometric_median(X, iters=3, eps=0.1, start="zero"), z, rtol=1e-12, atol=1e-12)


def test_torch_fallback_agrees_with_the_numpy_path():
    X = torch.randn(2, 11, 5, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    assert torch.equal(sort_clients(X), X.sort(dim=1).values)
    assert torch.equal(sort_clients(X.float()), X.float().sort(dim=1).values)
    assert torch.equal(argsort_clients(X.abs()), X.abs().argsort(dim=1, stable=True))
    Xg = X.clone().requires_grad_(True)  # autograd: torch's own sort, gradients flow
    trimmed_mean(Xg, 2).sum().backward()
    assert Xg.grad is not None and torch.equal(trimmed_mean(X, 2), trimmed_mean(Xg, 2).detach())
    Xi = X.to(torch.float16)  # a dtype numpy's path does not take
    assert torch.equal(sort_clients(Xi), Xi.sort(dim=1).values)


def test_sorting_network_is_numpys_sort(monkeypatch):
    """The plain-C sorting network (verify/aggregators/sort_columns.c, N <= SORT_NETWORK_MAX_N) gives numpy's sorted
    values, ties, infinities and every N up to the limit included; a block with a NaN goes to numpy's sort."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.sort_columns() is None:
        pytest.skip("no C compiler")
    net = tc_c.sort_columns()
    rng = np.random.default_rng(5)
    for N in range(1, classic.SORT_NETWORK_MAX_N + 1):
        x = rng.integers(-3, 4, size=(3, N, 37)).astype(float)
        x[0, 0, :5] = [np.inf, -np.inf, 0.0, -0.0, 1e308]
        x[1] = rng.standard_normal((N, 37))
        assert np.array_equal(classic._sort_by_network(x[:, :, 2:35], net), np.sort(x[:, :, 2:35], axis=1))
    y = rng.standard_normal((2, 9, 5))
    y[1, 3, 2] = np.nan
    assert np.array_equal(classic._sort_by_network(y, net), np.sort(y, axis=1), equal_nan=True)
    X = torch.from_numpy(rng.standard_normal((4, 20, 300)))
    monkeypatch.setenv("FEDVERIFY_TC_C", "0")
    ref = (trimmed_mean(X, 4), coordinate_median(X), meamed(X, 4))
    monkeypatch.setenv("FEDVERIFY_TC_C", "1")
    assert all(same(a, b) for a, b in zip(ref, (trimmed_mean(X, 4), coordinate_median(X), meamed(X, 4))))


def test_trimmed_mean_by_selection_is_the_sorted_mean():
    """The C selection (verify/aggregators/trimmed_columns.c, N >= CWTM_SELECT_MIN_N; here every N) sums the same
    values s[f:N-f] as the sort, in another order: within 1e-13 relative, ties at the boundaries (integer values, a
    block of equal Byzantine inputs), infinities and f = 0 included; a NaN goes to the sort."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.trimmed_mean_columns() is None:
        pytest.skip("no C compiler")
    rng = np.random.default_rng(9)
    saved = classic.CWTM_SELECT_MIN_N
    try:
        classic.CWTM_SELECT_MIN_N = 1
        for trial in range(120):
            N, d = int(rng.integers(1, 300)), int(rng.integers(1, 21))
            f = int(rng.integers(0, (N - 1) // 2 + 1))
            kind = trial % 4
            if kind == 0:
                x = rng.standard_normal((3, N, d))
            elif kind == 1:
                x = rng.integers(-3, 4, size=(3, N, d)).astype(float)
            elif kind == 2:
                x = rng.standard_normal((3, N, d))
                x[:, N - N // 3:] = 3.0 + rng.standard_normal((3, 1, d))
            else:
                x = np.round(rng.standard_normal((3, N, d)), 1) * 1e3
                x[0, 0, 0], x[1, -1, -1] = np.inf, -np.inf
            X = torch.from_numpy(x)
            got, ref = classic._trimmed_mean_c(X, f), old_cwtm(X, f)
            assert got is not None and torch.equal(torch.isfinite(got), torch.isfinite(ref))
            fin = torch.isfinite(ref)
            assert torch.equal(got[~fin], ref[~fin])
            assert torch.allclose(got[fin], ref[fin], rtol=1e-13, atol=1e-13 * max(1.0, float(ref[fin].abs().max())) if bool(fin.any()) else 0.0)
        y = torch.from_numpy(rng.standard_normal((2, 40, 9)))
        y[1, 3, 2] = float("nan")
        assert classic._trimmed_mean_c(y, 4) is None
        assert same(trimmed_mean(y, 4), old_cwtm(y, 4))
    finally:
        classic.CWTM_SELECT_MIN_N = saved
    X = torch.from_numpy(rng.standard_normal((2, 300, 5)))  # the default threshold takes this one
    assert classic._trimmed_mean_c(X, 60) is not None
    assert torch.allclose(trimmed_mean(X, 60), old_cwtm(X, 60), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("k_of", [lambda N: N - 5, lambda N: N - 1, lambda N: 3])
def test_krum_scores_without_meeting_intervals_skip_the_tie_machinery(k_of):
    """Spread inputs (no two Krum scores within their rounding intervals): the scores are the Gram ones, none
    rechecked, the ranking exactly the exact-difference one, Multi-Krum bitwise the old version; k up to N - 1
    (the partial selection's edges)."""
    g = torch.Generator().manual_seed(34)
    scale = torch.linspace(0.5, 3.0, 40, dtype=torch.float64)[:, None]
    X = torch.randn(3, 40, 30, generator=g, dtype=torch.float64) * scale
    k = k_of(40)
    with gram_always():
        score, exact = krum_scores(X, k)
        assert not exact.any()
        assert same(multi_krum(X, 5, neighbors=k), old_multikrum(X, 5, k=k))
    ref = krum_scores_exact(X, k)
    if k > 0:
        assert torch.equal(score.argsort(dim=1, stable=True), ref.argsort(dim=1, stable=True))
    torch.testing.assert_close(score, ref, rtol=1e-12, atol=1e-12 * float(ref.abs().max()))


@pytest.mark.skipif(classic._krum_kernel() is None, reason="the C kernels are not built")
@pytest.mark.parametrize("seed", range(6))
def test_krum_c_kernel_and_numpy_path_rank_the_same(seed, monkeypatch):
    """verify/aggregators/krum_scores.c (N <= KRUM_C_MAX_N) and the numpy path: the same stable order on their fast
    path, the same exact ranking and bitwise the same Multi-Krum outputs, duplicates and near ties included."""
    g = torch.Generator().manual_seed(seed)
    N = 24
    X = torch.randn(5, N, 12, generator=g, dtype=torch.float64)
    X[:, 18:] = X[:, 17:18] + (seed % 2) * 1e-14  # duplicates (even seeds) or near-duplicates (odd)
    k = N - 4 - 2
    runs = {}
    for name, cap in (("c", classic.KRUM_C_MAX_N), ("numpy", 0)):
        monkeypatch.setattr(classic, "KRUM_C_MAX_N", cap)
        score, _, order = classic._krum_scores(X, k, None)
        runs[name] = (score.argsort(dim=1, stable=True), order, [multi_krum(X, 4, m=m) for m in (1, 5, N - 4)])
    assert torch.equal(runs["c"][0], runs["numpy"][0])
    assert torch.equal(runs["c"][0], krum_scores_exact(X, k).argsort(dim=1, stable=True))
    if runs["c"][1] is not None and runs["numpy"][1] is not None:
        assert np.array_equal(runs["c"][1], runs["numpy"][1])
    assert all(torch.equal(a, b) for a, b in zip(runs["c"][2], runs["numpy"][2]))


@pytest.mark.parametrize("seed", range(8))
def test_krum_first_rank_without_a_sort_flags_what_the_sorted_rule_flags(seed):
    """classic._meeting_of_the_first (lead = 1, no sort) flags the same rows as the sorted prefix/suffix rule
    (classic._meeting_sorted) restricted to the first rank, and returns the stable order's first column; exact ties,
    equal minima and zero-width intervals included."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        R, N = int(rng.integers(1, 5)), int(rng.integers(2, 12))
        key = rng.integers(0, 6, size=(R, N)).astype(float)
        err = rng.choice([0.0, 0.2, 0.5, 1.0], size=(R, N))
        flagged, first = classic._meeting_of_the_first(key, err)
        want, order = classic._meeting_sorted(key, err, 1)
        none = np.zeros((R, N), dtype=bool)
        assert np.array_equal(first[:, 0], order[:, 0])
        assert np.array_equal(none if flagged is None else flagged, none if want is None else want)


def test_krum_distances_in_c_are_numpys_bitwise(monkeypatch):
    """verify/aggregators/krum_scores.c's krum_gram_distances gives bitwise the numpy path's distances and norms
    (FEDVERIFY_TC_C=0), and None for non-finite norms on both paths."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.krum_gram_distances() is None:
        pytest.skip("no C compiler")
    rng = np.random.default_rng(5)
    for R, N, d in ((1, 2, 3), (3, 40, 7), (2, 100, 50)):
        X = rng.standard_normal((R, N, d)) * 10.0 ** rng.integers(-3, 3, size=(R, N, 1))
        X[:, -1] = X[:, 0]  # a duplicate: a distance that rounds to 0 or below
        G = X @ X.transpose(0, 2, 1)
        Dc, Dn = G.copy(), G.copy()
        nc = classic._gram_to_distances(Dc)
        monkeypatch.setenv("FEDVERIFY_TC_C", "0")
        nn = classic._gram_to_distances(Dn)
        monkeypatch.delenv("FEDVERIFY_TC_C")
        assert np.array_equal(nc, nn) and np.array_equal(Dc, Dn) and np.array_equal(np.signbit(Dc), np.signbit(Dn))
    G[0, 3, 3] = np.inf
    assert classic._gram_to_distances(G.copy()) is None
    monkeypatch.setenv("FEDVERIFY_TC_C", "0")
    assert classic._gram_to_distances(G.copy()) is None
