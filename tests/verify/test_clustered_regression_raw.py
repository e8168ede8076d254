"""Clustered least squares on raw samples (RawClusteredRegression) against the moments form
(ClusteredRegression) on the same draws: losses, gradients (general and shared-model inputs), the
all-pairs gradients, smoothness, IFCA runs; the cost rule of ``representation="auto"``."""
from __future__ import annotations

import pytest
import torch

from analytic.errors import InputError
from verify.algorithms.ifca import ifca
from verify.problems.base import at_cluster_models
from verify.problems.clustered_regression import (ClusteredRegression, RawClusteredRegression, paper_synthetic_regression,
                                                  planted_clustered_regression, raw_is_cheaper)


def pair(R=3, n=4, K=2, d=12, m=5, noise=0.1):
    mk = lambda rep: planted_clustered_regression(torch.Generator().manual_seed(7), R, n, K, d, m, 3.0, noise=noise,
                                                   representation=rep)
    return mk("raw"), mk("moments")


def close(a, b, rel=1e-11):
    return torch.allclose(a, b, rtol=rel, atol=rel * float(b.abs().max().clamp_min(1.0)))


def test_auto_picks_by_cost():
    assert raw_is_cheaper(100, 1000) and not raw_is_cheaper(9, 10) and not raw_is_cheaper(50, 100)
    g = lambda: torch.Generator().manual_seed(0)
    assert isinstance(planted_clustered_regression(g(), 1, 2, 2, 20, 4, 1.0), RawClusteredRegression)
    assert isinstance(planted_clustered_regression(g(), 1, 2, 2, 8, 4, 1.0), ClusteredRegression)
    assert isinstance(paper_synthetic_regression(g(), 1, 2, 3), ClusteredRegression)  # the paper's m = 9, d = 10
    assert isinstance(paper_synthetic_regression(g(), 1, 2, 3, d=30, m=9), RawClusteredRegression)
    with pytest.raises(InputError):
        planted_clustered_regression(g(), 1, 2, 2, 8, 4, 1.0, representation="sparse")


def test_same_draws_same_moments():
    raw, mom = pair()
    assert torch.equal(raw.W, mom.W) and raw.true_labels == mom.true_labels
    assert close(raw.H, mom.H) and close(raw.b, mom.b) and close(raw.c, mom.c)
    assert isinstance(raw.moments(), ClusteredRegression)


@pytest.mark.parametrize("shape", [(3, 8, 12), (3, 2, 8, 12), (3, 2, 5, 8, 12)])
def test_losses_and_gradients_agree(shape):
    raw, mom = pair()
    X = torch.randn(shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    (f1, g1), (f2, g2) = raw.loss_and_grad(X), mom.loss_and_grad(X)
    assert f1.shape == f2.shape == shape[:-1] and g1.shape == g2.shape == shape
    assert close(f1, f2) and close(g1, g2)


def test_shared_models_take_the_single_product_and_agree():
    raw, mom = pair()
    theta = torch.randn(3, 2, 12, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    X = at_cluster_models(theta, raw.n_clients)
    assert X.stride(2) == 0
    (f1, g1), (f2, g2) = raw.loss_and_grad(X), mom.loss_and_grad(X)
    assert close(f1, f2) and close(g1, g2)
    (f3, g3) = raw.loss_and_grad(X.contiguous())  # the general path on the same numbers
    assert close(f1, f3) and close(g1, g3)
    assert close(raw.gradients_at_models(theta), mom.gradients_at_models(theta))


def test_smoothness_and_optima_and_repeated():
    raw, mom = pair()
    assert close(raw.smoothness(), mom.smoothness(), 1e-9)
    assert torch.equal(raw.optima(), mom.optima())
    big = raw.repeated(2, interleave=True)
    assert big.replicates == 6 and torch.equal(big.A[1], raw.A[0]) and torch.equal(big.y[3], raw.y[1])
    grads = raw.grad(raw.optima())  # noise: not zero, but the same as the moments form
    assert close(grads, mom.grad(mom.optima()))


def test_ifca_on_raw_data_follows_the_moments_run():
    raw, mom = pair(R=2, n=5, K=3, d=16, m=6, noise=0.0)
    theta0 = raw.W + 0.3 * torch.randn(raw.W.shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    gamma = 0.5 / float(mom.smoothness().max())
    a = ifca(raw, theta0, gamma, 15)
    b = ifca(mom, theta0, gamma, 15)
    assert torch.equal(a.assign, b.assign)
    assert close(a.theta, b.theta, 1e-9) and close(a.client_loss, b.client_loss, 1e-9)
