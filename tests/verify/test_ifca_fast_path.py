"""IFCA Option I on samples by RawClusteredRegression's one pass a round (IFCAPass: every loss, each client's
gradient only at its assigned model, in blocks of clients) against the general path (every client's gradient at
every model, then the members' mean) and against the definition, for every blocking of the clients."""
from __future__ import annotations

import pytest
import torch

from analytic.errors import InputError
from verify.algorithms.ifca import ifca
from verify.problems.base import at_cluster_models
from verify.problems.clustered_regression import RawClusteredRegression, planted_clustered_regression

DT = torch.float64
# samples of one client: 7 * 20 * 8 = 1120 bytes, of one replicate 18 clients: 20160 bytes. The block sizes give one
# client a block, two clients a block (a short last block), two replicates a block (a short last one), everything.
BLOCKS = [1, 2500, 45000, RawClusteredRegression.IFCA_BLOCK_BYTES]


def instance(R=3, noise=0.1):
    g = torch.Generator().manual_seed(33)
    prob = planted_clustered_regression(g, R, 6, 3, 20, 7, separation=3.0, noise=noise, representation="raw")
    return prob, torch.randn(R, 3, 20, generator=g, dtype=DT)


def close(a, b, rel=1e-12):
    torch.testing.assert_close(a, b, rtol=rel, atol=rel * float(b.abs().max()))


@pytest.mark.parametrize("block", BLOCKS)
def test_losses_and_member_sums_is_the_definition(block, monkeypatch):
    """f_ik = ||A_i theta_k - y_i||^2 / (2m) for every (k, i); S_k = sum over i with j_i = argmin_k f_ik of the
    gradient at theta_k, from the problem's own loss_and_grad at every model."""
    monkeypatch.setattr(RawClusteredRegression, "IFCA_BLOCK_BYTES", block)
    prob, theta = instance()
    f, S = prob.losses_and_member_sums(theta)
    L, G = prob.loss_and_grad(at_cluster_models(theta, prob.n_clients))  # [R, K, N], [R, K, N, d]
    members = torch.nn.functional.one_hot(L.argmin(1), 3).transpose(1, 2).to(DT)  # [R, K, N]
    close(f, L)
    close(S, (members[..., None] * G).sum(2))
    assert members.sum(2).min() < members.sum(2).max()  # clusters of different sizes
    f_only, none = prob.losses_and_member_sums(theta, sums=False)
    assert none is None and torch.equal(f_only, f)
    with pytest.raises(InputError, match="theta"):
        prob.losses_and_member_sums(theta[:, :, :5])
    with pytest.raises(InputError, match="theta"):  # the fast path checks the replicates as the general path does
        ifca(prob, theta[:2], 0.1, 3, option="I", record_grads=False)


@pytest.mark.parametrize("normalize", ["all", "members"])
@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("tensor_step", [False, True])
def test_fast_path_is_the_general_path(normalize, block, tensor_step, monkeypatch):
    """The same assignments, and models, losses, final losses within 1e-12, for both normalisations, a scalar or a
    per-replicate step, and every blocking."""
    prob, theta0 = instance()
    gamma = torch.tensor([0.3, 0.2, 0.25], dtype=DT) if tensor_step else 0.3
    monkeypatch.setattr(RawClusteredRegression, "IFCA_BLOCK_BYTES", block)
    fast = ifca(prob, theta0, gamma, 8, option="I", normalize=normalize, record_grads=False)
    monkeypatch.delattr(RawClusteredRegression, "ifca_pass")
    slow = ifca(prob, theta0, gamma, 8, option="I", normalize=normalize, record_grads=False)
    monkeypatch.undo()
    assert fast.grads is None and torch.equal(fast.assign, slow.assign)
    assert fast.assign.unique(dim=-1).numel() > 1
    for name in ("theta", "losses", "client_loss"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.shape == b.shape, name
        close(a, b)


def test_empty_cluster_keeps_its_model_bitwise():
    """A model no client picks (started far away) is never moved: its rows of theta are bitwise theta0's."""
    prob, theta0 = instance(noise=0.0)
    theta0[:, 2] = 1e3
    tr = ifca(prob, theta0, 0.3, 6, option="I", record_grads=False)
    assert not (tr.assign == 2).any()
    assert torch.equal(tr.theta[:, :, 2], theta0[None, :, 2].expand(7, -1, -1))
    assert not torch.equal(tr.theta[-1, :, 0], theta0[:, 0])


@pytest.mark.parametrize("K, T", [(1, 1), (1, 3), (3, 1)])
def test_one_model_or_one_round(K, T, monkeypatch):
    """The edge shapes (one model; one round: the final losses right after the first assignment) as the general path."""
    prob, theta0 = instance()
    fast = ifca(prob, theta0[:, :K], 0.3, T, option="I", record_grads=False)
    monkeypatch.delattr(RawClusteredRegression, "ifca_pass")
    slow = ifca(prob, theta0[:, :K], 0.3, T, option="I", record_grads=False)
    assert torch.equal(fast.assign, slow.assign)
    for name in ("theta", "losses", "client_loss"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.shape == b.shape, name
        close(a, b)
