"""Smoothness, PL / quadratic-growth / error-bound constants and the convexity probe, on functions whose
constants are known exactly (planted quadratics, Karimi et al.'s x^2 + 3 sin^2 x)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.constants.smoothness import (
    central_difference_hvp,
    convexity_probe,
    growth_constants,
    growth_violations,
    hessian_norm_power,
    least_squares_constants,
    refine_infimum,
    smoothness_estimate,
    trajectory_constant,
)
from analytic.errors import InputError


def _quadratic(seed, d=4, lo=0.5, hi=3.0):
    """q(x) = (x - c)^T H (x - c) with spectrum of H in [lo, hi]: mu_PL = mu_QG = 2 lo, mu_EB = 2 lo, L = 2 hi."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([[lo, hi], rng.uniform(lo, hi, d - 2)])
    H = (Q * lam) @ Q.T
    c = rng.standard_normal(d)
    gap = lambda X: np.einsum("mi,ij,mj->m", X - c, H, X - c)  # noqa: E731
    grad = lambda X: 2 * (X - c) @ H  # noqa: E731
    return gap, grad, c, H, lo, hi


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(2, 6))
def test_least_squares_constants_are_exact(seed, d):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((5, 7, d))
    G = np.einsum("nli,nlj->nij", A, A)
    c = least_squares_constants(G)
    assert c["L"].value == pytest.approx(2 * max(np.linalg.norm(a, 2) ** 2 for a in A))
    lam = np.linalg.eigvalsh(G.mean(0))
    assert c["mu"].value == pytest.approx(2 * lam[0]) and c["mu_PL"].label == "exact"


def test_least_squares_with_a_singular_sum_is_pl_but_has_no_quadratic_growth():
    A = np.zeros((2, 3, 3))
    A[:, :, :2] = np.random.default_rng(0).standard_normal((2, 3, 2))  # the third coordinate is never seen
    c = least_squares_constants(np.einsum("nli,nlj->nij", A, A))
    assert c["mu_QG"].value == 0.0 and c["mu_PL"].value > 0 and c["mu"].value == 0.0
    with pytest.raises(InputError):
        least_squares_constants(np.zeros((3, 2)))


def test_growth_constants_of_a_planted_quadratic_are_found_and_labelled_upper_bounds():
    gap, grad, c, H, lo, hi = _quadratic(1)
    est = growth_constants(gap, grad, c, np.random.default_rng(0), directions=40, refine=8)
    for name in ("mu_PL", "mu_QG", "mu_EB"):
        assert est[name].label == "upper bound"
        assert est[name].value == pytest.approx(2 * lo, rel=1e-4)
        assert est[name].value >= 2 * lo * (1 - 1e-12)  # a sampled infimum never undercuts the true one


def test_growth_constants_of_karimis_function():
    f = lambda X: X[:, 0] ** 2 + 3 * np.sin(X[:, 0]) ** 2  # noqa: E731
    g = lambda X: 2 * X + 3 * np.sin(2 * X)  # noqa: E731
    est = growth_constants(f, g, np.zeros(1), np.random.default_rng(0), radii=np.logspace(-3, 2, 80), directions=2)
    assert est["mu_PL"].value == pytest.approx(0.17553, rel=1e-4)  # min (2x + 3 sin 2x)^2 / (2 (x^2 + 3 sin^2 x))
    assert est["mu_PL"].value >= 1 / 32


def test_refine_infimum_reaches_the_minimum_and_returns_attained_values():
    fn = lambda X: ((X - 3.0) ** 2).sum(1) + 1.0  # noqa: E731
    vals, pts = refine_infimum(fn, np.zeros((3, 2)), np.random.default_rng(0), iters=200, step=1.0, shrink_to=1e-8)
    assert np.allclose(vals, 1.0, atol=1e-10) and np.allclose(fn(pts), vals)


def test_smoothness_estimates_are_lower_bounds_that_reach_l():
    gap, grad, c, H, lo, hi = _quadratic(2)
    grads_at = lambda P: 2 * np.einsum("ij,mnj->mni", H, P - c)  # noqa: E731 (one "agent")
    est = smoothness_estimate(grads_at, np.vstack([c, np.zeros_like(c)]), 1, np.random.default_rng(0))
    assert est["L_hat"].label == "lower bound"
    assert est["L_hat"].value <= 2 * hi * (1 + 1e-6)
    assert 2 * hi * (1 - 1e-3) <= est["L_power"].value <= 2 * hi * (1 + 1e-9)  # 30 power iterations: close, from below
    norms = hessian_norm_power(central_difference_hvp(grads_at), c[None], 1, np.random.default_rng(1))
    assert norms.shape == (1, 1)


def test_growth_violations_count_planted_failures():
    gap, grad, c, H, lo, hi = _quadratic(3)
    X = c + np.random.default_rng(0).standard_normal((500, 4))
    assert growth_violations(gap, grad, X, c, 2 * lo) == {"qg_violations": 0, "eb_violations": 0, "points": 500}
    bad = growth_violations(gap, grad, X, c, 2 * hi)  # the largest curvature as "mu": fails almost everywhere
    assert bad["qg_violations"] > 400 and bad["eb_violations"] > 400


def test_trajectory_constant_is_the_minimum_over_iterates():
    gap, grad, c, H, lo, hi = _quadratic(4)
    X = c + np.random.default_rng(0).standard_normal((20, 4))
    t = trajectory_constant(gap, grad, X, c)
    r = (grad(X) ** 2).sum(1) / (2 * gap(X))
    assert t.value == pytest.approx(r.min()) and t.label == "exact"


def test_convexity_probe_separates_convex_from_non_convex():
    # one agent in 1-D: x^2 + kappa sin^2 x; convex iff kappa <= 1
    for kappa, convex in ((1.0, True), (3.0, False)):
        values = lambda P, k=kappa: P[..., 0] ** 2 + k * np.sin(P[..., 0]) ** 2  # noqa: E731
        hess = lambda P, k=kappa: (2 + 2 * k * np.cos(2 * P[..., 0]))[..., None, None]  # noqa: E731
        rng = np.random.default_rng(0)
        X = rng.uniform(-4, 4, (2000, 1, 1))
        res = convexity_probe(values, hess, X, X + 0.3, rng.uniform(-4, 4, (500, 1)), 1, scale=1.0)
        assert (res.midpoint_violations == 0 and res.min_eigenvalue >= 0) is convex
