"""Metamorphic properties of the toy failures (hypothesis):

* the failures are invariant under permuting the clients and under rescaling the losses together
  with the step size;
* Federated-Clustering's choice (which gradients each client averages) is invariant under
  translating all gradients by the same vector;
* IFCA Options I and II agree on Example 2 for any step size.
"""
from __future__ import annotations

import itertools

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.algorithms.cfl import cosine_similarity, optimal_bipartition
from verify.algorithms.federated_clustering import (
    fc_clustering_step,
    federated_clustering,
)
from verify.algorithms.ifca import ifca, partition_matches
from verify.algorithms.myopic import myopic_clustering
from verify.problems.base import all_pairs
from verify.problems.toys import (
    Example1,
    Example2,
    Example3,
    permute_clients,
    scale_losses,
    translate_gradients,
)

DT = torch.float64
PERMS3 = list(itertools.permutations(range(3)))
PERMS2 = list(itertools.permutations(range(2)))
SETTINGS = settings(max_examples=25, deadline=None)


def same_partition(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(((a[..., :, None] == a[..., None, :]) == (b[..., :, None] == b[..., None, :])).all())


@SETTINGS
@given(perm=st.sampled_from(PERMS3), eta=st.floats(0.05, 2.0))
def test_myopic_failure_is_invariant_under_client_permutation(perm, eta):
    base = myopic_clustering(Example1(eta), torch.full((1, 3, 1), 1.5, dtype=DT), eta, 2, 12)
    permuted = myopic_clustering(permute_clients(Example1(eta), perm), torch.full((1, 3, 1), 1.5, dtype=DT), eta, 2, 12)
    p = list(perm)
    assert torch.allclose(permuted.x, base.x[:, :, p], rtol=0, atol=1e-12)
    assert same_partition(permuted.labels, base.labels[..., p])
    stuck = p.index(1)  # where the original client 2 sits now
    assert abs(float(permuted.x[-1, 0, stuck, 0]) - 1.0) < 1e-12
    assert bool((permuted.labels[1:, 0, stuck] == permuted.labels[1:, 0, p.index(2)]).all())  # still grouped with old client 3


@SETTINGS
@given(eta=st.floats(0.05, 2.0), c=st.floats(0.1, 10.0))
def test_myopic_failure_is_invariant_under_loss_and_step_rescaling(eta, c):
    """Example 1 is built with the step size (f_1, f_3 and f_2's right branch scale as 1/eta), so the same
    trajectory must come out for every eta; and multiplying all losses by c with step eta/c changes nothing."""
    x0 = torch.full((1, 3, 1), 1.5, dtype=DT)
    ref = myopic_clustering(Example1(0.5), x0, 0.5, 2, 12)
    run = myopic_clustering(Example1(eta), x0, eta, 2, 12)
    assert torch.allclose(run.x, ref.x, rtol=1e-12, atol=1e-14) and torch.equal(run.labels, ref.labels)
    scaled = myopic_clustering(scale_losses(Example1(eta), c), x0, eta / c, 2, 12)
    assert torch.allclose(scaled.x, run.x, rtol=1e-12, atol=1e-14) and torch.equal(scaled.labels, run.labels)
    assert abs(float(scaled.x[-1, 0, 1, 0]) - 1.0) < 1e-12  # trapped (exactly 1 up to the rounding of eta * 1/(2 eta))


@SETTINGS
@given(perm=st.sampled_from(PERMS2), gamma=st.floats(0.001, 0.45), c=st.floats(0.1, 10.0), option=st.sampled_from(["I", "II", "hypcluster"]))
def test_ifca_failure_is_invariant_under_permutation_and_rescaling(perm, gamma, c, option):
    theta0 = torch.tensor([[[-1.5], [0.0]]], dtype=DT)
    base = ifca(Example2(), theta0, gamma, 20, option=option, local_steps=3)
    permuted = ifca(permute_clients(Example2(), perm), theta0, gamma, 20, option=option, local_steps=3)
    scaled = ifca(scale_losses(Example2(), c), theta0, gamma / c, 20, option=option, local_steps=3)
    for tr in (base, permuted, scaled):
        assert bool((tr.assign == 1).all())  # both clients in cluster 2, every round
        assert torch.allclose(tr.theta, theta0.expand_as(tr.theta), rtol=0, atol=1e-12)


@SETTINGS
@given(perm=st.sampled_from(PERMS3), c=st.floats(0.1, 10.0), x=st.floats(0.01, 0.49), seed=st.integers(0, 2**31 - 1))
def test_cfl_split_is_invariant_under_permutation_and_rescaling(perm, c, x, seed):
    """Same draws of client 3's noise: the permuted/rescaled problem yields the same partition of the same clients."""
    X = torch.full((64, 3, 1), x, dtype=DT)
    ones = torch.ones(64, 3, dtype=torch.bool)
    G = Example3().stochastic_grad(X, torch.Generator().manual_seed(seed))
    side = optimal_bipartition(cosine_similarity(G), ones)
    Gp = permute_clients(Example3(), perm).stochastic_grad(X, torch.Generator().manual_seed(seed))
    side_p = optimal_bipartition(cosine_similarity(Gp), ones)
    inv = [list(perm).index(j) for j in range(3)]
    assert same_partition(side_p[:, inv].long(), side.long())
    Gs = scale_losses(Example3(), c).stochastic_grad(X, torch.Generator().manual_seed(seed))
    assert torch.equal(optimal_bipartition(cosine_similarity(Gs), ones), side)
    sep = side[:, 1] != side[:, 2]
    assert bool(((side == torch.tensor([False, True, False])).all(-1) | (side == torch.tensor([False, True, True])).all(-1)).all())
    assert 0 < int(sep.sum()) < 64  # both outcomes occur (probability 2^-63 otherwise)


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), shift=st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3),
       tau=st.floats(3.0, 7.0), steps=st.integers(1, 12))
def test_fc_choice_is_invariant_under_translating_all_gradients(seed, shift, tau, steps):
    """Clusters of gradients 10 apart with spread < 1 (so no gradient sits near the ball's edge): adding the
    same vector a to every gradient leaves every ball unchanged and moves every center by a."""
    g = torch.Generator().manual_seed(seed)
    R, N, d = 4, 6, 3
    centers = 10.0 * torch.eye(3, dtype=DT)[torch.randint(0, 3, (R, N, N), generator=g)]
    G = centers + 0.3 * torch.rand(R, N, N, d, generator=g, dtype=DT)
    a = torch.tensor(shift, dtype=DT)
    out, moved = fc_clustering_step(G, tau, steps), fc_clustering_step(G + a, tau, steps)
    assert torch.equal(out.ball, moved.ball)
    assert torch.allclose(moved.v - a, out.v, atol=1e-9 * (1 + float(a.abs().max())))


@SETTINGS
@given(a=st.floats(-50.0, 50.0))
def test_fc_first_round_choice_on_translated_example2(a):
    x0 = torch.tensor([[[-1.5], [0.0]], [[0.3], [0.2]]], dtype=DT)
    base = federated_clustering(Example2(), x0, 0.25, 1, 1.0)
    moved = federated_clustering(translate_gradients(Example2(), [a]), x0, 0.25, 1, 1.0)
    assert torch.equal(base.ball, moved.ball)
    G = Example2().grad(all_pairs(x0))
    assert torch.allclose(fc_clustering_step(G + a, 1.0, 10).v - a, fc_clustering_step(G, 1.0, 10).v, atol=1e-10)


@SETTINGS
@given(gamma=st.floats(1e-4, 0.95), local_steps=st.integers(1, 30), T=st.integers(1, 40))
def test_ifca_options_agree_on_example2_for_any_step_size(gamma, local_steps, T):
    theta0 = torch.tensor([[[-1.5], [0.0]]], dtype=DT)
    one = ifca(Example2(), theta0, gamma, T, option="I")
    two = ifca(Example2(), theta0, gamma, T, option="II", local_steps=local_steps)
    assert torch.equal(one.assign, two.assign)
    assert torch.allclose(one.theta, two.theta, rtol=0, atol=1e-12)
    assert bool(partition_matches(one.assign[-1], (0, 0)).all())  # the wrong clustering {1, 2}


@SETTINGS
@given(gamma=st.floats(1e-3, 0.95), seed=st.integers(0, 2**31 - 1))
def test_ifca_options_agree_with_one_local_step_from_any_init(gamma, seed):
    theta0 = 3 * torch.randn(3, 2, 1, generator=torch.Generator().manual_seed(seed), dtype=DT)
    one = ifca(Example2(), theta0, gamma, 10, option="I", normalize="members")  # Option II averages over the members
    two = ifca(Example2(), theta0, gamma, 10, option="II", local_steps=1)
    assert torch.equal(one.assign, two.assign)
    assert torch.allclose(one.theta, two.theta, rtol=1e-12, atol=1e-12)
