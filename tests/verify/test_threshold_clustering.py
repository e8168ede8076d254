"""Threshold-Clustering: eq. (24) against a per-point reference loop, radius modes, and the
properties of issue 2 (hypothesis)."""

import contextlib
import os

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.algorithms.threshold_clustering import (
    Radius,
    assign_nearest,
    edge_of_ball_attack,
    threshold_clustering,
    threshold_clustering_loop,
)
from analytic.errors import InputError
from verify.algorithms import tc_native
from verify.algorithms import threshold_clustering as tc_module
from verify.algorithms.federated_clustering import ReplicateRadius, fc_clustering_step


def test_matches_reference_loop():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(3, 30, 4)) + np.repeat(np.eye(2, 4) * 6, 15, axis=0)
    V0 = Z[:, [0, 15]]
    V, hist = threshold_clustering(torch.tensor(Z), torch.tensor(V0), Radius.fixed(2.5), 7, record=True)
    for r in range(3):
        np.testing.assert_allclose(V[r].numpy(), threshold_clustering_loop(Z[r], V0[r], 2.5, 7), rtol=1e-12, atol=1e-12)
    assert hist.shape == (8, 3, 2, 4)


def points(draw_shape=st.tuples(st.integers(1, 3), st.integers(2, 12), st.integers(1, 4))):
    return draw_shape.flatmap(
        lambda s: st.tuples(
            st.just(s),
            st.lists(st.floats(-10, 10, allow_nan=False), min_size=s[0] * s[1] * s[2], max_size=s[0] * s[1] * s[2]),
            st.integers(0, 2**31 - 1),
        )
    )


def _setup(data):
    (R, N, d), flat, seed = data
    Z = torch.tensor(flat, dtype=torch.float64).reshape(R, N, d)
    V0 = Z[:, :2].clone() + 0.1
    return Z, V0, seed


@settings(max_examples=40, deadline=None)
@given(points(), st.floats(0.5, 20))
def test_permuting_points_changes_nothing(data, tau):
    Z, V0, seed = _setup(data)
    perm = torch.randperm(Z.shape[1], generator=torch.Generator().manual_seed(seed))
    a, _ = threshold_clustering(Z, V0, Radius.fixed(tau), 5)
    b, _ = threshold_clustering(Z[:, perm], V0, Radius.fixed(tau), 5)
    torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(points(), st.floats(0.5, 20), st.floats(-50, 50))
def test_translating_points_and_centers_translates_output(data, tau, shift):
    Z, V0, _ = _setup(data)
    t = torch.full((Z.shape[-1],), shift, dtype=Z.dtype)
    a, _ = threshold_clustering(Z, V0, Radius.fixed(tau), 5)
    b, _ = threshold_clustering(Z + t, V0 + t, Radius.fixed(tau), 5)
    # distances can sit exactly on the ball boundary; compare only where no point is within 1e-9 of it
    d = torch.cdist(V0, Z)
    if torch.all((d - tau).abs() > 1e-6):
        torch.testing.assert_close(a + t, b, rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(points(), st.floats(0.01, 5))
def test_center_with_no_point_in_ball_does_not_move(data, tau):
    Z, _, _ = _setup(data)
    far = Z.abs().amax(dim=(1, 2), keepdim=True) * 3 + 10 * tau + 1.0  # outside every ball
    V0 = far.expand(-1, 1, Z.shape[-1]).clone()
    V, _ = threshold_clustering(Z, V0, Radius.fixed(tau), 4)
    assert torch.equal(V, V0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=5), st.integers(1, 10), st.floats(0.0, 5))
def test_identical_points_are_a_fixed_point(coords, N, tau):
    z = torch.tensor(coords, dtype=torch.float64)
    Z = z.expand(1, N, -1).clone()
    V, _ = threshold_clustering(Z, z.view(1, 1, -1).clone(), Radius.fixed(tau), 6)
    torch.testing.assert_close(V[0, 0], z, rtol=1e-14, atol=1e-14)


def test_radius_modes():
    d = torch.tensor([[[0.5, 3.0, 1.0, 2.0, 4.0]]], dtype=torch.float64)
    assert Radius.fixed(2.0).value(d).item() == 2.0
    assert Radius.theory(0.25, 1.0, 64.0).value(d).item() == pytest.approx(4.0)
    # reference-code rule: sorted(d)[int(N q)] = sorted(d)[int(5*0.4)] = sorted(d)[2] = 2.0
    assert Radius.quantile(0.4).value(d).item() == 2.0
    for bad in (lambda: Radius.fixed(-1.0), lambda: Radius.quantile(1.5), lambda: Radius(mode="weird"),
                lambda: Radius.theory(0.25, -1.0, 4.0)):
        with pytest.raises(InputError):
            bad()


def test_inclusive_boundary_matters():
    Z = torch.tensor([[[0.0], [2.0]]], dtype=torch.float64)
    V0 = torch.tensor([[[0.0]]], dtype=torch.float64)
    inc, _ = threshold_clustering(Z, V0, Radius.fixed(2.0), 1, inclusive=True)
    exc, _ = threshold_clustering(Z, V0, Radius.fixed(2.0), 1, inclusive=False)
    assert inc.item() == 1.0 and exc.item() == 0.0


def test_edge_of_ball_fixed_point():
    """With all n own points in the ball and b attackers at the edge, v - mean -> (b/n) tau u."""
    n, b, tau = 20, 4, 3.0
    Z = torch.zeros(1, n, 2, dtype=torch.float64)
    u = torch.tensor([1.0, 0.0], dtype=torch.float64)
    V, _ = threshold_clustering(Z, torch.zeros(1, 1, 2, dtype=torch.float64), Radius.fixed(tau), 400,
                                attack=edge_of_ball_attack(u, b, shrink=0.0))
    assert V[0, 0, 0].item() == pytest.approx(b / n * tau, rel=1e-9)


def test_assign_nearest_and_shape_errors():
    Z = torch.tensor([[[0.0], [1.0], [9.0]]], dtype=torch.float64)
    V = torch.tensor([[[0.0], [10.0]]], dtype=torch.float64)
    assert assign_nearest(Z, V).tolist() == [[0, 0, 1]]
    with pytest.raises(InputError):
        threshold_clustering(Z[0], V, Radius.fixed(1.0), 1)


# ---- the cache-blocked step (step_sums) against the one-block step: bitwise ----
@contextlib.contextmanager
def _tc_blocks(nbytes, native="0"):
    """The torch step in blocks of ``nbytes`` (the fused kernel off unless ``native="1"``)."""
    saved, saved_env = tc_module.TC_BLOCK_BYTES, os.environ.get("FEDVERIFY_TC_NATIVE")
    tc_module.TC_BLOCK_BYTES = nbytes
    os.environ["FEDVERIFY_TC_NATIVE"] = native
    try:
        yield
    finally:
        tc_module.TC_BLOCK_BYTES = saved
        if saved_env is None:
            del os.environ["FEDVERIFY_TC_NATIVE"]
        else:
            os.environ["FEDVERIFY_TC_NATIVE"] = saved_env


def _native_or_skip():
    with _tc_blocks(10**12, native="1"):
        k = tc_native.kernel()
    if k is None:
        pytest.skip("the fused Threshold-Clustering kernel is not built (python -m verify.algorithms.tc_native)")
    return k


@pytest.mark.parametrize("inclusive", [True, False])
def test_fused_kernel_matches_the_torch_step(inclusive):
    _native_or_skip()
    g = torch.Generator().manual_seed(13)
    cases = [(torch.randint(-3, 4, (10, 7, 2), generator=g).double(), torch.randint(-2, 3, (10, 3, 2), generator=g).double(), 2.0),
             (torch.randn(6, 50, 33, generator=g, dtype=torch.float64), None, 7.5)]
    for Z, V, tau in cases:
        V = Z[:, :3].clone() + 0.25 if V is None else V
        radius = tc_module.Radius.fixed(tau)
        with _tc_blocks(10**12, native="0"):
            s1, c1, t1, b1 = tc_module.step_sums(Z, V, radius, inclusive=inclusive, want_inside=True)
        with _tc_blocks(10**12, native="1"):
            s2, c2, t2, b2 = tc_module.step_sums(Z, V, radius, inclusive=inclusive, want_inside=True)
        assert torch.equal(b1, b2) and torch.equal(c1, c2) and torch.equal(t1, t2)  # same balls (exact differences)
        assert torch.allclose(s1, s2, rtol=1e-13, atol=1e-13 * float(Z.abs().max()))
        if tau == 2.0:  # integer points: every sum is exact, bitwise equal; points lie on the boundary
            assert torch.equal(s1, s2) and bool(b1.any()) and not bool(b1.all())


def test_fused_kernel_is_off_when_disabled_or_not_applicable():
    with _tc_blocks(10**12, native="0"):
        assert tc_native.kernel() is None
    Z = torch.randn(2, 5, 3, dtype=torch.float64)
    assert tc_module._native(Z, Z[:, :1], None) is None  # a quantile radius: the distances decide tau
    assert tc_module._native(Z.float(), Z[:, :1].float(), torch.ones(2, 1)) is None


@pytest.mark.parametrize("inclusive", [True, False])
@pytest.mark.parametrize("block", [1, 3 * 7 * 2 * 8, 10**9])  # one row, three rows, everything
def test_blocked_step_is_bitwise_the_one_block_step(inclusive, block):
    g = torch.Generator().manual_seed(11)
    Z = torch.randint(-3, 4, (10, 7, 2), generator=g).double()  # integer points: many exactly on the boundary
    V = torch.randint(-2, 3, (10, 3, 2), generator=g).double()
    radius = tc_module.Radius.fixed(2.0)  # tau = 2: (0, 2), (2, 0) lie exactly on it
    attack = tc_module.edge_of_ball_attack(torch.tensor([1.0, 0.0], dtype=torch.float64), 2)
    with _tc_blocks(10**12):
        ref = [tc_module.threshold_step(Z, V, radius, inclusive=inclusive, attack=a, want_inside=True) for a in (None, attack)]
    with _tc_blocks(block):
        new = [tc_module.threshold_step(Z, V, radius, inclusive=inclusive, attack=a, want_inside=True) for a in (None, attack)]
    for (v1, b1), (v2, b2) in zip(ref, new):
        assert torch.equal(v1, v2) and torch.equal(b1, b2)
    assert bool(ref[0][1].any()) and not bool(ref[0][1].all())


def test_blocked_fc_step_with_per_replicate_radii_is_bitwise():
    g = torch.Generator().manual_seed(12)
    G = torch.randn(3, 5, 5, 4, generator=g, dtype=torch.float64)
    tau = torch.tensor([0.5, 2.0, 3.0], dtype=torch.float64)
    assert not ReplicateRadius(tau, 5).depends_on_distances and tc_module.Radius.quantile(0.3).depends_on_distances
    with _tc_blocks(10**12):
        a = fc_clustering_step(G, tau, 4)
    with _tc_blocks(8):
        b = fc_clustering_step(G, tau, 4)
    assert torch.equal(a.v, b.v) and torch.equal(a.ball, b.ball)
    with _tc_blocks(8):  # a radius that needs the distances takes the one-block path, same numbers
        q1 = fc_clustering_step(G, tc_module.Radius.quantile(0.4), 3)
    with _tc_blocks(10**12):
        q2 = fc_clustering_step(G, tc_module.Radius.quantile(0.4), 3)
    assert torch.equal(q1.v, q2.v) and torch.equal(q1.ball, q2.ball)


@contextlib.contextmanager
def _exact_only():
    """The exact-difference step (no Gram identity, hence no step cache): the step before the 2026-11-27 C kernels."""
    saved = tc_module.gram_applies
    tc_module.gram_applies = lambda Z, V, tau: False
    try:
        yield
    finally:
        tc_module.gram_applies = saved


def _tc_cases(g):
    """Integer points with many exactly at tau = 2, clustered points (the cache skips most steps), points far from
    the origin, and a spread cloud."""
    lattice = torch.randint(-3, 4, (9, 40, 3), generator=g).double()
    centers = 10.0 * torch.randn(6, 3, 8, generator=g, dtype=torch.float64)
    clustered = centers[:, torch.randint(0, 3, (90,), generator=g)] + torch.randn(6, 90, 8, generator=g, dtype=torch.float64)
    far = 1e6 + torch.randn(4, 30, 5, generator=g, dtype=torch.float64)
    cloud = 3.0 * torch.randn(5, 60, 33, generator=g, dtype=torch.float64)
    return [(lattice, lattice[:, :4].clone(), 2.0), (clustered, clustered[:, :3] + 0.5, 12.0),
            (far, far[:, :2].clone(), 4.0), (cloud, cloud[:, :2].clone(), 3.0 * 33 ** 0.5)]


@pytest.mark.parametrize("inclusive", [True, False])
@pytest.mark.parametrize("block", [1, 2 * 40 * 3 * 8, 10**9])
def test_gram_balls_and_step_cache_are_bitwise_the_exact_step(inclusive, block):
    """Issue 22: the balls by the Gram identity (with the exact recheck of the pairs near tau) are the exact-difference
    test's, and a clustering whose steps skip unchanged balls gives bitwise the exact step's history (the torch path;
    the C path sums the balls in another order: test_c_path_sums_are_the_torch_sums)."""
    g = torch.Generator().manual_seed(22)
    with _tc_c("0"):
        _gram_balls_and_step_cache_cases(g, inclusive, block)


@contextlib.contextmanager
def _tc_c(flag):
    saved = os.environ.get("FEDVERIFY_TC_C")
    os.environ["FEDVERIFY_TC_C"] = flag
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("FEDVERIFY_TC_C", None)
        else:
            os.environ["FEDVERIFY_TC_C"] = saved


@pytest.mark.parametrize("inclusive", [True, False])
def test_c_path_sums_are_the_torch_sums(inclusive):
    """The step cache's C path (tc_balls.c: tc_dot_anchor's in-ball sums, tc_masked_sums after the recheck) decides the
    same balls at every step as the torch path (FEDVERIFY_TC_C=0, bmm sums) and its centers agree to ~1e-12 relative
    (the sums, in the points' order, differ from bmm's by rounding only); integer points sum exactly: bitwise."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.library() is None:
        pytest.skip("no C compiler")
    g = torch.Generator().manual_seed(26)
    cases = list(_tc_cases(g))
    wide = (4.0 * torch.randn(3, 1, 4, 40, generator=g, dtype=torch.float64)
            + 0.2 * torch.randn(3, 41, 4, 40, generator=g, dtype=torch.float64)).reshape(3, 164, 40)
    cases.append((wide, wide[:, :4].clone() + 0.1, 1.6))  # d = 40: a block of 32 coordinates and a tail
    for n_case, (Z, V0, tau) in enumerate(cases):
        Z = Z.contiguous()
        radius = tc_module.Radius.fixed(tau)
        out = {}
        for flag in ("0", "1"):
            with _tc_c(flag):
                cache = tc_module.step_cache(Z, V0, radius)
                V, hist, balls = V0, [], []
                for _ in range(8):
                    V, b = tc_module.threshold_step(Z, V, radius, inclusive=inclusive, want_inside=True, cache=cache)
                    hist.append(V)
                    balls.append(b)
                out[flag] = torch.stack(hist), torch.stack(balls)
        (h0, b0), (h1, b1) = out["0"], out["1"]
        assert torch.equal(b0, b1)
        if n_case == 0:  # the lattice: exact sums
            assert torch.equal(h0, h1)
        torch.testing.assert_close(h1, h0, rtol=1e-12, atol=1e-12 * float(h0.abs().max()))


def _gram_balls_and_step_cache_cases(g, inclusive, block):
    for Z, V0, tau in _tc_cases(g):
        radius = tc_module.Radius.fixed(tau)
        exact, _ = tc_module.ball_membership(Z, V0, radius, inclusive=inclusive)
        got = tc_module.gram_balls(Z, V0, torch.full((Z.shape[0], V0.shape[1], 1), tau, dtype=Z.dtype),
                                   (Z * Z).sum(-1), inclusive)
        assert torch.equal(got, exact)
        with _tc_blocks(block):
            with _exact_only():
                _, h1 = threshold_clustering(Z, V0, radius, 9, inclusive=inclusive, record=True)
                s1 = tc_module.threshold_step(Z, h1[-1], radius, inclusive=inclusive, want_inside=True)
            _, h2 = threshold_clustering(Z, V0, radius, 9, inclusive=inclusive, record=True)
            cache = tc_module.step_cache(Z, V0, radius)
            s2 = None
            V = V0
            for _ in range(10):  # the FC pattern: steps sharing one cache, the last one asked for its balls
                V, b = tc_module.threshold_step(Z, V, radius, inclusive=inclusive, want_inside=True, cache=cache)
                s2 = (V, b)
        assert torch.equal(h1, h2)
        assert torch.equal(s1[0], s2[0]) and torch.equal(s1[1], s2[1])


def test_step_cache_skips_and_falls_back():
    g = torch.Generator().manual_seed(23)
    _, (Z, V0, tau), _, _ = _tc_cases(g)
    radius = tc_module.Radius.fixed(tau)
    cache = tc_module.step_cache(Z, V0, radius)
    V = V0
    stale = []
    for _ in range(8):
        if not cache.fresh:
            stale.append(int(cache.stale_rows(V).numel()))
        V = tc_module.threshold_step(Z, V, radius, cache=cache)
    assert stale[-1] == 0  # converged balls are not recomputed
    # not applicable: quantile radii, float32, infinite tau; non-finite points take the exact test
    assert tc_module.step_cache(Z, V0, Radius.quantile(0.3)) is None
    assert tc_module.step_cache(Z.float(), V0.float(), radius) is None
    assert tc_module.step_cache(Z, V0, Radius.fixed(float("inf"))) is None
    Zinf = Z.clone()
    Zinf[0, 5, 0] = float("inf")
    with _exact_only():
        ref, _ = threshold_clustering(Zinf, V0, radius, 4)
    got = threshold_clustering(Zinf, V0, radius, 4)[0]
    # the replicate with the infinite point runs step by step (the exact test): bitwise; the others by the whole-run
    # C call when it is built (tc_run: the same balls, in-ball sums in the points' order): within rounding
    torch.testing.assert_close(got[0], ref[0], rtol=0, atol=0, equal_nan=True)
    torch.testing.assert_close(got, ref, rtol=0, atol=1e-12 * float(Z.abs().max()), equal_nan=True)


def test_c_balls_are_the_torch_balls():
    """The plain-C passes (verify/algorithms/tc_balls.c, built by make setup) decide the same balls as the torch ops,
    their slacks agree to the rounding bound, and the clusterings with and without them agree to ~1e-12."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.kernel() is None:
        pytest.skip("no C compiler")
    g = torch.Generator().manual_seed(24)
    for Z, V0, tau in _tc_cases(g):
        t = torch.full((Z.shape[0], V0.shape[1], 1), tau, dtype=Z.dtype)
        out = {}
        for flag in ("0", "1"):
            with _tc_c(flag):
                out[flag] = (tc_module.gram_balls(Z, V0, t, (Z * Z).sum(-1), want_slack=True),
                             threshold_clustering(Z, V0, tc_module.Radius.fixed(tau), 6)[0])
        (b0, s0), v0 = out["0"]
        (b1, s1), v1 = out["1"]
        assert torch.equal(b0, b1)  # the centers: the C path's sums are in another order (rounding only)
        torch.testing.assert_close(v1, v0, rtol=1e-12, atol=1e-12 * float(v0.abs().max()))
        # the C pass sums the dot products in another order than bmm: the gaps (squared units) may differ by
        # the rounding bound of each side, no more
        from verify.aggregators.classic import _EPS64, gram_error_factor

        z_max = (Z * Z).sum(-1).amax(-1)[:, None]
        bound = gram_error_factor(Z.shape[-1]) * ((V0 * V0).sum(-1) + z_max) + 4 * _EPS64 * tau * tau
        g0, g1 = (s0 + tau) ** 2 - tau * tau, (s1 + tau) ** 2 - tau * tau
        both = (s0 > 0) & (s1 > 0)
        assert bool(((g0 - g1).abs()[both] <= 2.5 * bound[both] + 1e-9 * g0[both]).all())


def test_c_anchor_slacks_are_lower_bounds():
    """The C pass's anchors (tc_balls.c, tc_dot_anchor; pruned by the triangle inequality): where an anchor's slack h
    is > 0, its ball is the ball at the center and every point's exact distance to it is more than h away from tau
    (what lets a later step skip the ball); the balls at the centers are the exact-difference balls."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.library() is None:
        pytest.skip("no C compiler")
    g = torch.Generator().manual_seed(25)
    cases = list(_tc_cases(g))
    blobs = 4.0 * torch.randn(6, 1, 3, 16, generator=g, dtype=torch.float64)
    pts = (blobs + 0.3 * torch.randn(6, 50, 3, 16, generator=g, dtype=torch.float64)).reshape(6, 150, 16)
    cases.append((pts, pts[:, ::50].clone() + 0.05, 1.2))
    cases.append((1e3 * pts, 1e3 * pts[:, ::50].clone(), 1.2e3))
    wide = (4.0 * torch.randn(3, 1, 4, 32, generator=g, dtype=torch.float64)
            + 0.2 * torch.randn(3, 41, 4, 32, generator=g, dtype=torch.float64)).reshape(3, 164, 32)
    cases.append((wide, wide[:, :4].clone(), 1.6))
    checked = 0
    for Z, V0, tau in cases:
        Z = Z.contiguous()
        radius = tc_module.Radius.fixed(tau)
        cache = tc_module.step_cache(Z, V0, radius)
        V = V0
        for _ in range(4):
            V = tc_module.threshold_step(Z, V, radius, cache=cache)
            assert torch.equal(tc_module.distances(cache.anchor[:, 0], Z) <= tau, cache.inside)
            for j in range(cache.anchor.shape[1]):
                a = cache.anchor[:, j]  # [R, K, d]
                h = cache.slack[:, j]
                dist = tc_module.distances(a, Z)  # [R, K, N]
                ok = h > 0
                if not bool(ok.any()):
                    continue
                far = ((dist - tau).abs().amin(-1) > h) | ~ok
                same = ((dist <= tau) == cache.inside).all(-1) | ~ok
                assert bool(far.all()) and bool(same.all())
                checked += int(ok.sum())
    assert checked > 0


@pytest.mark.parametrize("inclusive", [True, False])
def test_whole_run_is_the_step_by_step_run(inclusive):
    """tc_run (one C call a clustering, tc_balls.c) gives the balls of the last step bitwise and the centers within
    1e-12 relative of the step-by-step path (threshold_step with its cache, FEDVERIFY_TC_C=0); a replicate with a pair
    too near its sphere for the Gram identity (the lattice's points exactly at tau = 2) is run step by step instead,
    so its centers are bitwise the step-by-step ones; K = 1 (an FC round's shape) and K > 1, per-row radii."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.library() is None:
        pytest.skip("no C compiler")
    g = torch.Generator().manual_seed(33)
    cases = list(_tc_cases(g))
    fc = 3.0 * torch.randn(5, 1, 1, 16, generator=g, dtype=torch.float64) + torch.randn(5, 1, 70, 16, generator=g,
                                                                                          dtype=torch.float64)
    fc = fc.reshape(5, 70, 16)
    cases.append((fc, fc[:, :1].clone(), ReplicateRadius(torch.linspace(3.0, 5.0, 5, dtype=torch.float64), 1)))
    cases.append((fc, fc[:, 3:4].clone(), 4.2))  # K = 1 at the bulk of the cloud: balls change for several steps
    for n_case, (Z, V0, tau) in enumerate(cases):
        radius = tau if hasattr(tau, "value") else tc_module.Radius.fixed(tau)
        for steps in (1, 2, 7):
            with _tc_c("0"):
                assert tc_module.whole_run(Z, V0, radius, steps) is None  # the library off: not applicable
                cache = tc_module.step_cache(Z, V0, radius)
                V = V0
                for _ in range(steps):
                    V, ball = tc_module.threshold_step(Z, V, radius, inclusive=inclusive, want_inside=True, cache=cache)
            got = tc_module.whole_run(Z, V0, radius, steps, inclusive=inclusive)
            assert got is not None
            assert torch.equal(got[1], ball)
            if n_case == 0:  # the lattice: points exactly at tau, run step by step (and integer sums): bitwise
                assert torch.equal(got[0], V)
            torch.testing.assert_close(got[0], V, rtol=1e-12, atol=1e-12 * float(Z.abs().max()))
            V_tc, _ = threshold_clustering(Z, V0, radius, steps, inclusive=inclusive)
            assert torch.equal(V_tc, got[0])  # threshold_clustering takes the whole-run call
    # not applicable: a quantile radius, float32, no step
    Z, V0, _ = cases[1]
    assert tc_module.whole_run(Z, V0, Radius.quantile(0.3), 3) is None
    assert tc_module.whole_run(Z.float(), V0.float(), Radius.fixed(12.0), 3) is None
    assert tc_module.whole_run(Z, V0, Radius.fixed(12.0), 0) is None
