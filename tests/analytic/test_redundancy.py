"""2f-redundancy (Definition I.1) numerically: exact enumeration, sampling plus adversarial subsets, the three
entry points, and the negative controls (label noise must fail, a rank-deficient subset must fail)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from analytic.errors import InputError
from analytic.redundancy import (
    enumerate_or_sample,
    general_redundancy,
    minimise_sum,
    quadratic_redundancy,
    realizable_redundancy,
)


def _ls(seed=0, n=10, l=6, d=3, noise=0.0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, l, d))
    b = A @ rng.standard_normal(d) + noise * rng.standard_normal((n, l))
    G = np.einsum("nli,nlj->nij", A, A)
    return G, np.einsum("nli,nl->ni", A, b), (b**2).sum(1), A, b


class Quadratics:
    """q^i(x) = x^T G_i x - 2 h_i^T x + c_i as an AgentFunctions (for the general procedure)."""

    def __init__(self, G, h, c):
        self.G, self.h, self.c = G, h, c

    def values(self, X):
        return np.einsum("mi,nij,mj->mn", X, self.G, X) - 2 * X @ self.h.T + self.c

    def grads(self, X):
        return 2 * (np.einsum("nij,mj->mni", self.G, X) - self.h[None])

    def hessians(self, X):
        return np.broadcast_to(2 * self.G, (len(X),) + self.G.shape)


def test_enumeration_covers_every_subset_once():
    W, method, total = enumerate_or_sample(6, 4, np.random.default_rng(0))
    assert method == "exact enumeration" and total == math.comb(6, 4) == len(W)
    assert np.all(W.sum(1) == 4) and len({tuple(r) for r in W}) == total
    W, method, total = enumerate_or_sample(30, 15, np.random.default_rng(0), n_sample=50)
    assert method == "sampled + adversarial" and len(W) == 50 and np.all(W.sum(1) == 15)


def test_realizable_least_squares_has_2f_redundancy_and_label_noise_breaks_it():
    G, h, c, _, _ = _ls()
    rep = quadratic_redundancy(G, h, c, f=2, n_total=12, rng=np.random.default_rng(0))
    assert rep.holds and rep.method == "exact enumeration" and rep.stationarity < 1e-12 and rep.gap < 1e-10
    G, h, c, _, _ = _ls(noise=0.1)
    rep = quadratic_redundancy(G, h, c, f=2, n_total=12, rng=np.random.default_rng(0))
    assert not rep.holds and rep.gap > 1e-3 and rep.stationarity > 1e-3  # the negative control of spec 1.4


def test_a_subset_that_loses_rank_fails_and_is_named():
    G, h, c, A, b = _ls(n=10, l=1, d=6)  # rank-one agents: 6 of them are needed for rank 6
    rep = quadratic_redundancy(G, h, c, f=3, n_total=11, rng=np.random.default_rng(0))  # subsets of size 5 < 6
    assert not rep.holds and "rank" in rep.reason and rep.min_eig < 1e-10
    rep = realizable_redundancy(G, f=3, n_total=11, rng=np.random.default_rng(0))
    assert not rep.holds and len(rep.worst_subset) == 5
    assert realizable_redundancy(G, f=1, n_total=11, rng=np.random.default_rng(0)).holds  # size 9 >= 6


def test_adversarial_subsets_find_what_uniform_sampling_misses():
    """Only 3 of 40 agents see the last coordinate: a uniform size-37 subset almost always keeps one of them,
    the greedy curvature attack drops all three."""
    rng = np.random.default_rng(1)
    A = rng.standard_normal((40, 4, 3))
    A[3:, :, 2] = 0.0
    G = np.einsum("nli,nlj->nij", A, A)
    rep = realizable_redundancy(G, f=3, n_total=43, rng=rng, max_enumerate=10, n_sample=20)
    assert not rep.holds and rep.adversarial > 0 and not set(rep.worst_subset) & {0, 1, 2}


def test_general_procedure_agrees_with_the_exact_one_on_quadratics():
    for noise, holds in ((0.0, True), (0.1, False)):
        G, h, c, _, _ = _ls(seed=3, noise=noise)
        exact = quadratic_redundancy(G, h, c, f=2, n_total=12, rng=np.random.default_rng(0))
        general = general_redundancy(Quadratics(G, h, c), f=2, n_total=12, rng=np.random.default_rng(0),
                                     x0=np.zeros(3), n_minimise=16)
        assert exact.holds is holds and general.holds is holds
        assert np.allclose(general.x_star, exact.x_star, atol=1e-8)
        if not holds:
            assert general.gap == pytest.approx(exact.gap, rel=0.3)  # a subset of the subsets is minimised


def test_minimise_sum_solves_every_row():
    G, h, c, _, _ = _ls(seed=4, noise=0.2)
    W = np.random.default_rng(0).integers(0, 2, (6, 10)).astype(float)
    W[:, 0] = 1.0
    X, F, ok = minimise_sum(Quadratics(G, h, c), W, np.zeros(3))
    exact = np.linalg.solve(np.einsum("mn,nij->mij", W, G), (W @ h)[..., None])[..., 0]
    assert ok.all() and np.allclose(X, exact, atol=1e-9)


def test_bad_f_is_refused():
    G, h, c, _, _ = _ls()
    with pytest.raises(InputError) as info:
        quadratic_redundancy(G, h, c, f=6, n_total=12, rng=np.random.default_rng(0))
    assert info.value.param == "f"
    with pytest.raises(InputError):
        quadratic_redundancy(G, h, c, f=1, n_total=20, rng=np.random.default_rng(0))  # |H| < N - f
