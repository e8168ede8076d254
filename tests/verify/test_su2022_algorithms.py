"""su2022 algorithms: Phase 2's three backends and the closed forms agree; FOI is orthogonal iteration; the
permutation-invariant distance and the anchor grouping behave as defined; Phase 1 contracts with the sign rule."""
import itertools

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.algorithms.moment_descent import (
    FedMDConfig,
    expected_moment,
    fedmd,
    group_anchors,
    nested_residual_moments,
    permutation_distance,
    power_iteration,
    residual_moment,
)
from verify.algorithms.orthogonal_iteration import federated_orthogonal_iteration, orth, orthogonal_iteration, random_orthonormal
from verify.algorithms.two_phase import (
    Phase2Round,
    fedx_clustering,
    kappa,
    lemma1_update,
    oracle_ols,
    weighted_least_squares,
)
from verify.problems.mixed_regression import planted_model


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def small_federation(seed=0, R=2, k=3, d=4, M=12, sigma=0.2):
    g = gen(seed)
    mod = planted_model(R, k, d, g, sigma=sigma)
    return mod.federation(torch.randint(1, 9, (M,), generator=g), g)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), s=st.integers(1, 6), gamma=st.floats(0.05, 0.95))
def test_points_gram_and_kernel_backends_and_lemma1_agree(seed, s, gamma):
    fed = small_federation(seed)
    theta = fed.model.theta + 0.3 * torch.randn(fed.model.theta.shape, generator=gen(seed + 1), dtype=torch.float64)
    eta = fed.eta_for_gamma(gamma)
    a, za = Phase2Round(fed, eta, s=s, backend="points")(theta)
    for backend in ("gram", "kernel"):
        b, zb = Phase2Round(fed, eta, s=s, backend=backend)(theta)
        assert torch.equal(za, zb)
        assert torch.allclose(a, b, atol=1e-12)
    assert torch.allclose(a, lemma1_update(fed, theta, za, eta, "fedavg", s), atol=1e-12)


@pytest.mark.parametrize("labels", ["estimated", "oracle"])
def test_kernel_backend_local_update_and_forced_labels_match_points(labels):
    fed = small_federation(3, M=20)
    theta = fed.model.theta + 0.3 * torch.randn(fed.model.theta.shape, generator=gen(4), dtype=torch.float64)
    eta = fed.eta_for_gamma(0.2)
    pts, ker = (Phase2Round(fed, eta, s=3, labels=labels, backend=b) for b in ("points", "kernel"))
    v = torch.randn(fed.R, fed.M, fed.d, generator=gen(5), dtype=torch.float64)
    assert torch.allclose(pts.local_update(v), ker.local_update(v), atol=1e-12)
    assert torch.allclose(pts.losses(theta), ker.losses(theta), atol=1e-12)
    z = torch.randint(0, fed.k, (fed.R, fed.M), generator=gen(6))
    assert torch.allclose(pts(theta, z)[0], ker(theta, z)[0], atol=1e-12)
    assert torch.equal(pts(theta)[1], ker(theta)[1])


def test_point_pairs_are_the_client_kernels():
    fed = small_federation(7)
    p, q, K = fed.point_pairs
    assert p.numel() == fed.pair_count == int((fed.sizes**2).sum())
    assert bool((fed.seg[p] == fed.seg[q]).all())
    first = int(fed.sizes[0])
    X0 = fed.X[:, :first]
    assert torch.allclose(K[:, :first * first].reshape(fed.R, first, first), X0 @ X0.transpose(1, 2), atol=1e-13)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_round_is_equivariant_under_relabelling_the_blocks(seed):
    """Permuting the k blocks of theta permutes the output blocks (labels are argmin, no index is special)."""
    fed = small_federation(seed)
    theta = fed.model.theta + 0.3 * torch.randn(fed.model.theta.shape, generator=gen(seed + 1), dtype=torch.float64)
    perm = torch.tensor([2, 0, 1])
    step = Phase2Round(fed, 0.05, s=2)
    a, _ = step(theta)
    b, _ = step(theta[:, perm])
    assert torch.allclose(a[:, perm], b, atol=1e-13)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(2, 5))
def test_permutation_distance_is_invariant_and_exact(seed, k):
    g = gen(seed)
    truth = torch.randn(3, k, 4, generator=g, dtype=torch.float64)
    est = truth + 0.01 * torch.randn(3, k, 4, generator=g, dtype=torch.float64)
    perm = torch.randperm(k, generator=g)
    d1, _ = permutation_distance(est, truth)
    d2, match = permutation_distance(est[:, perm], truth)
    assert torch.allclose(d1, d2)
    brute = min(max(float(torch.linalg.vector_norm(est[0, p[j]] - truth[0, j])) for j in range(k))
                for p in itertools.permutations(range(k)))
    assert d1[0].item() == pytest.approx(brute)
    assert torch.equal(perm[match], torch.arange(k).expand(3, k))


def test_foi_equals_orthogonal_iteration_and_needs_even_T():
    g = gen(3)
    a, b = torch.randn(2, 40, 6, generator=g, dtype=torch.float64), torch.randn(2, 40, 6, generator=g, dtype=torch.float64)
    seg = torch.arange(40) // 3
    Q0 = random_orthonormal((2,), 6, 2, g)
    Y = a.transpose(1, 2) @ b / 40
    assert torch.allclose(federated_orthogonal_iteration(a, b, seg, Q0, 8), orthogonal_iteration(Y, Q0, 4), atol=1e-12)
    with pytest.raises(InputError):
        federated_orthogonal_iteration(a, b, seg, Q0, 3)


def test_orth_is_the_unique_sign_normalised_factor():
    A = torch.randn(5, 7, 3, generator=gen(4), dtype=torch.float64)
    Q = orth(A)
    R = Q.transpose(1, 2) @ A
    assert torch.allclose(Q.transpose(1, 2) @ Q, torch.eye(3, dtype=torch.float64).expand(5, 3, 3), atol=1e-13)
    assert torch.all(torch.diagonal(R, dim1=1, dim2=2) > 0) and torch.allclose(torch.tril(R, -1), torch.zeros_like(R), atol=1e-12)


def test_residual_moment_matches_its_definition_and_nested_pools():
    g = gen(5)
    mod = planted_model(2, 3, 4, g)
    X, y, _ = mod.points(mod.labels(300, g), 2, g)
    theta = torch.randn(2, 5, 4, generator=g, dtype=torch.float64)
    Y = residual_moment(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta)
    eps1 = (y[:, :, None, 0] - torch.einsum("rmd,rhd->rmh", X[:, :, 0], theta))[..., None] * X[:, :, None, 0]
    eps2 = (y[:, :, None, 1] - torch.einsum("rmd,rhd->rmh", X[:, :, 1], theta))[..., None] * X[:, :, None, 1]
    ref = torch.einsum("rmhd,rmhe->rhde", eps1, eps2) / 300
    assert torch.allclose(Y, ref, atol=1e-12)
    nested = nested_residual_moments(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta, [100, 300])
    assert torch.allclose(nested[-1], Y, atol=1e-12)
    assert torch.linalg.matrix_rank(expected_moment(mod, theta)).max() <= 3


def test_power_iteration_finds_the_leading_singular_pair():
    A = torch.tensor([[[3.0, 0.0], [0.0, 1.0]]], dtype=torch.float64)
    v, s2 = power_iteration(A, torch.tensor([[1.0, 1.0]], dtype=torch.float64), 60)
    assert abs(abs(float(v[0, 0])) - 1) < 1e-12 and float(s2[0]) == pytest.approx(3.0)


def test_grouping_is_connected_components():
    theta = torch.tensor([[[0.0], [0.3], [0.6], [5.0]]], dtype=torch.float64)  # chain 0-0.3-0.6 under Delta/2 = 0.35
    comp, n = group_anchors(theta, torch.tensor([0.7], dtype=torch.float64))
    assert comp.tolist() == [[0, 0, 0, 3]] and n.tolist() == [2]


def test_phase1_with_the_sign_rule_reaches_the_centres():
    g = gen(6)
    mod = planted_model(3, 2, 4, g, sigma=0.1)
    labels = torch.tensor([[0, 1, 0, 1]]).expand(3, 4).contiguous()
    tr = fedmd(mod, torch.zeros(3, 4, dtype=torch.float64), labels, FedMDConfig(m=8000), g)
    assert torch.all(tr.n_groups == 2) and torch.all(tr.distance < 0.25)
    assert torch.all(tr.residual[-1] < tr.residual[0])
    with pytest.raises(InputError):
        FedMDConfig(T1=5)
    with pytest.raises(InputError):
        FedMDConfig(sign_rule="random")


def test_fixed_points_and_oracle():
    fed = small_federation(7, M=40, sigma=0.05)
    eta = fed.eta_for_gamma(0.9)
    tr = fedx_clustering(fed, fed.model.theta.clone(), eta, 3000, tol=1e-13, checkpoints=[3000])
    assert torch.allclose(tr.final, weighted_least_squares(fed, tr.labels, eta), atol=1e-10)
    ols = oracle_ols(fed)
    d, _ = permutation_distance(ols, fed.model.theta)
    assert torch.all(d < 0.2)
    assert float(kappa(0.5, 5)) == pytest.approx(2.5 / (1 - 0.5**5)) and float(kappa(0.5, 1, "fedprox")) == 1.5
    with pytest.raises(InputError):
        Phase2Round(fed, 0.1, local="sgd")
    with pytest.raises(InputError):
        Phase2Round(fed, -0.1)
