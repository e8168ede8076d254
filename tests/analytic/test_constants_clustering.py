"""analytic.constants.clustering: exact A^2 and Delta^2(D^2) of clustered quadratics against brute force,
Lemma 1 as a property of every planted instance, one-sided labels of the sampled estimators, bad input."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.constants.clustering import (
    a2_lower_bound,
    a2_quadratics,
    delta2_quadratics,
    delta2_upper_bound,
    gradient_at_optima,
    intra_ratio,
    least_squares,
    pair_minima,
    quadratic_constants,
    smoothness,
    strong_convexity,
    validate_quadratics,
)
from analytic.errors import InputError
from verify.testing import planted_quadratic


def _instance(seed: int, K: int = 3, n: int = 3, d: int = 4, mu: float = 1.0, L: float = 5.0, spread: float = 0.0):
    g = torch.Generator().manual_seed(seed)
    H = np.stack([planted_quadratic(d, mu, L, g)[0].numpy() for _ in range(K * n)])
    labels = np.repeat(np.arange(K), n)
    W = torch.randn(K, d, generator=g, dtype=torch.float64).numpy() * 5
    xs = W[labels] + spread * torch.randn(K * n, d, generator=g, dtype=torch.float64).numpy()
    return H, xs, labels


def _grads(H, xs, X):
    """Every client's gradient at the points X [P, d]: [P, N, d]."""
    return np.einsum("nab,pnb->pna", H, X[:, None, :] - xs[None])


@given(st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_exact_a2_is_attained_and_never_exceeded(seed):
    H, xs, labels = _instance(seed)
    a2 = a2_quadratics(H, xs, labels)
    assert a2.label == "exact" and math.isfinite(a2.value)
    X = np.random.default_rng(seed).normal(size=(2000, xs.shape[1])) * 5
    assert a2_lower_bound(_grads(H, xs, X), labels).value <= a2.value * (1 + 1e-9)
    # the supremum is attained along u = Hbar^{-1} w, w the top right-singular vector of (H_i - Hbar) Hbar^{-1}
    best = 0.0
    for k in np.unique(labels):
        idx = labels == k
        Hbar = H[idx].mean(0)
        for Hi in H[idx]:
            M = (Hi - Hbar) @ np.linalg.inv(Hbar)
            w = np.linalg.svd(M)[2][0]
            x = xs[idx][0] + np.linalg.solve(Hbar, w)
            best = max(best, float(np.nanmax(intra_ratio(_grads(H, xs, x[None]), labels)[0][idx])))
    assert np.isclose(best, a2.value, rtol=1e-8)


@given(st.integers(0, 10_000), st.floats(0.0, 50.0))
@settings(max_examples=25, deadline=None)
def test_lemma1_holds_on_every_planted_instance(seed, D2_extra):
    """Lemma 1 (18) and the pairwise form of (19) are theorems: exact A^2 <= (2L/mu)^2 and
    min_x q_ij >= 1/2 ||grad f_j(x*_i)||^2 with D^2 = 2(1 + (L/mu)^2) (and any larger D^2)."""
    mu, L = 1.0, 6.0
    H, xs, labels = _instance(seed, mu=mu, L=L)
    assert a2_quadratics(H, xs, labels).value <= (2 * L / mu) ** 2
    vals, pairs, _ = pair_minima(H, xs, labels, 2 * (1 + (L / mu) ** 2) + D2_extra)
    g2 = gradient_at_optima(H, xs, labels)[pairs[:, 0], pairs[:, 1]]
    assert np.all(vals >= 0.5 * g2 * (1 - 1e-9))


@given(st.integers(0, 10_000), st.floats(0.0, 10.0))
@settings(max_examples=20, deadline=None)
def test_exact_delta2_matches_cvxpy_and_bounds_sampling(seed, D2):
    H, xs, labels = _instance(seed, K=2, n=2, d=3)
    c = delta2_quadratics(H, xs, labels, D2)
    qp = float(c.how.rsplit(": ", 1)[1])
    assert c.label == "exact" and np.isclose(c.value, qp, rtol=1e-5, atol=1e-7)
    X = np.random.default_rng(seed).normal(size=(500, 3)) * 10
    assert delta2_upper_bound(_grads(H, xs, X), labels, D2).value >= c.value - 1e-9 * max(1.0, c.value)


def test_least_squares_rank_deficient_and_full_rank_agree_with_lstsq():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 6, 3))
    A[0, :, 2] = A[0, :, 1]  # rank deficient
    c = rng.normal(size=(5, 6))
    x = least_squares(A, c)
    for a, b, xi in zip(A, c, x):
        ref = np.linalg.lstsq(a, b, rcond=None)[0]
        assert np.isclose(np.linalg.norm(a @ xi - b), np.linalg.norm(a @ ref - b), rtol=1e-10)


def test_identity_hessians_delta2_is_the_separation():
    """H_i = I, optima Delta apart, D^2 = 0: ||grad f_i - grad f_j|| = ||x*_i - x*_j|| for every x."""
    xs = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 4.0], [3.0, 4.0]])
    H = np.broadcast_to(np.eye(2), (4, 2, 2)).copy()
    c = delta2_quadratics(H, xs, np.array([0, 0, 1, 1]), 0.0)
    assert c.value == pytest.approx(25.0) and a2_quadratics(H, xs, np.array([0, 0, 1, 1])).value == 0.0


def test_a2_is_infinite_when_a_cluster_does_not_share_an_optimum():
    H, xs, labels = _instance(1, spread=0.1)
    c = a2_quadratics(H, xs, labels)
    assert math.isinf(c.value) and "no finite A^2" in c.how and c.as_dict()["value"] == "inf"


def test_l_and_mu_exact_for_planted_spectra():
    H, _, _ = _instance(2, mu=0.5, L=7.0)
    assert np.isclose(smoothness(H).value, 7.0) and np.isclose(strong_convexity(H).value, 0.5)


def test_sampled_estimators_carry_one_sided_labels():
    H, xs, labels = _instance(3)
    G = _grads(H, xs, np.random.default_rng(0).normal(size=(50, 4)))
    assert a2_lower_bound(G, labels).label == "lower bound"
    assert delta2_upper_bound(G, labels, 1.0).label == "upper bound"


@pytest.mark.parametrize("mutate, param, text", [
    (lambda H, x, l: (H[:, :2], x, l), "H", "square"),
    (lambda H, x, l: (H, x[:, :2], l), "x_star", "shape"),
    (lambda H, x, l: (H, x, l[:2]), "labels", "shape"),
    (lambda H, x, l: (np.where(np.arange(H.size).reshape(H.shape) == 5, np.nan, H), x, l), "H", "NaN"),
    (lambda H, x, l: (H + np.triu(np.ones(H.shape[1:]), 1), x, l), "H", "symmetric"),
    (lambda H, x, l: (H * np.where(np.arange(H.shape[0]) == 1, -1.0, 1.0)[:, None, None], x, l), "H", "positive definite"),
    (lambda H, x, l: (H, x, np.zeros_like(l)), "labels", "two clusters"),
    (lambda H, x, l: (H, x, l + 0.5), "labels", "integers"),
])
def test_bad_input_names_the_array(mutate, param, text):
    H, xs, labels = _instance(4)
    with pytest.raises(InputError) as e:
        validate_quadratics(*mutate(H, xs, labels.astype(float)))
    assert e.value.param == param and text in e.value.message


def test_negative_d2_is_rejected():
    H, xs, labels = _instance(5)
    with pytest.raises(InputError) as e:
        quadratic_constants(H, xs, labels, -1.0)
    assert e.value.param == "D2"
