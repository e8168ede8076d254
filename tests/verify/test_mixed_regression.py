"""The mixed-regression generator (su2022 eq. (1)): planted constants are exact, streams are explicit."""
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.problems.mixed_regression import (
    effective_clients,
    pairwise_separation,
    pareto_sizes,
    planted_centres,
    planted_covariances,
    planted_model,
    tiny_client_sizes,
)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 6), d=st.integers(2, 12), Delta=st.floats(0.1, 10.0), seed=st.integers(0, 2**31 - 1),
       rule=st.sampled_from(["random", "orthogonal"]))
def test_centres_have_exactly_the_planted_separation(k, d, Delta, seed, rule):
    if rule == "orthogonal" and k > d:
        return
    theta = planted_centres(3, k, d, Delta, gen(seed), rule=rule)
    assert torch.allclose(pairwise_separation(theta), torch.full((3,), Delta, dtype=torch.float64), rtol=1e-12)


def test_heterogeneous_covariances_attain_alpha_and_beta_in_every_cluster():
    cov = planted_covariances(4, 3, 6, gen(), rule="heterogeneous", alpha=0.5, beta=1.5)
    assert torch.all(cov.amin(-1) == 0.5) and torch.all(cov.amax(-1) == 1.5)


def test_federation_is_client_major_and_noise_is_the_only_residual():
    mod = planted_model(2, 3, 5, gen(), sigma=0.3)
    sizes = torch.tensor([1, 4, 2, 7])
    fed = mod.federation(sizes, gen(1))
    assert fed.N == 14 and fed.seg.tolist() == [0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3]
    theta_pt = mod.theta[torch.arange(2)[:, None], fed.z[:, fed.seg]]
    assert torch.allclose(fed.y - (fed.X * theta_pt).sum(-1), fed.zeta, atol=1e-14)
    assert torch.allclose(fed.client_sum(torch.ones(2, fed.N, 1, dtype=torch.float64))[..., 0], sizes.to(torch.float64).expand(2, 4))
    assert torch.allclose(fed.cluster_sizes.sum(-1), torch.full((2,), 14.0, dtype=torch.float64))


def test_gram_statistics_and_curvature_match_their_definitions():
    mod = planted_model(2, 2, 4, gen())
    fed = mod.federation(torch.tensor([3, 1, 5]), gen(2))
    G, b, c = fed.gram
    Xi = fed.X[:, fed.seg == 2]
    assert torch.allclose(G[:, 2], Xi.transpose(1, 2) @ Xi, atol=1e-13)
    assert torch.allclose(fed.client_curvature[:, 2], torch.linalg.matrix_norm(Xi, ord=2) ** 2 / 5, rtol=1e-12)
    assert torch.allclose(fed.gamma(fed.eta_for_gamma(0.3)), torch.full((2,), 0.3, dtype=torch.float64))


@pytest.mark.parametrize("sizes", [[3, 1, 5, 2], [30, 1, 45, 8]])
def test_curvature_is_the_spectral_norm_whether_from_kernels_or_gram(sizes):
    """Small clients (sum n_i^2 < M d^2) take the kernels, large ones the Gram matrices; both give ||phi_i||_2^2/n_i."""
    fed = planted_model(2, 2, 4, gen()).federation(torch.tensor(sizes), gen(3))
    assert (fed.pair_count < fed.M * fed.d**2) == (max(sizes) < 10)
    expected = torch.stack([torch.linalg.matrix_norm(fed.X[:, fed.seg == i], ord=2) ** 2 / n for i, n in enumerate(sizes)], 1)
    assert torch.allclose(fed.client_curvature, expected, rtol=1e-12)


def test_second_moment_is_sigma_j_and_noise_variance_is_sigma_squared():
    mod = planted_model(1, 2, 3, gen(), sigma=0.5, covariance="heterogeneous", alpha=0.5, beta=1.5)
    z = torch.zeros(1, 1, dtype=torch.long)
    X, y, zeta = mod.points(z, 200000, gen(3))
    assert torch.allclose((X[0, 0] ** 2).mean(0), mod.cov[0, 0], rtol=0.02)
    assert abs(float(zeta.var()) - 0.25) < 0.01


def test_labels_follow_p_and_sizes_follow_the_spec_law():
    mod = planted_model(1, 2, 3, gen(), p=[0.8, 0.2])
    assert abs(float(mod.labels(100000, gen(4)).float().mean()) - 0.2) < 0.01
    n = pareto_sizes(10000, 2.0, gen(5))
    assert int(n.min()) == 2 and int(n.max()) <= 500
    sizes = tiny_client_sizes(5000, 0.4, 2.0, gen(6))
    assert abs(float(sizes[sizes <= 2].sum()) / float(sizes.sum()) - 0.4) < 0.1
    assert effective_clients(torch.full((50,), 7)) == pytest.approx(50.0)


def test_rademacher_features_are_signs():
    mod = planted_model(1, 2, 4, gen(), features="rademacher")
    X, _, _ = mod.points(torch.zeros(1, 2, dtype=torch.long), 10, gen(7))
    assert set(X.abs().unique().tolist()) == {1.0}


@pytest.mark.parametrize("kw, param", [({"k": 1}, "k"), ({"sigma": -1.0}, "sigma"), ({"p": [0.5, 0.6]}, "p"),
                                       ({"features": "laplace"}, "features")])
def test_bad_input_names_the_parameter(kw, param):
    args = {"R": 1, "k": 2, "d": 3, "generator": gen()}
    args.update({k: v for k, v in kw.items() if k == "k"})
    with pytest.raises(InputError) as e:
        planted_model(args["R"], args["k"], args["d"], args["generator"], **{k: v for k, v in kw.items() if k != "k"})
    assert e.value.param == param


def test_bad_sizes_are_rejected():
    mod = planted_model(1, 2, 3, gen())
    with pytest.raises(InputError):
        mod.federation(torch.tensor([2, 0]), gen())
    with pytest.raises(InputError):
        pareto_sizes(10, -1.0, gen())
    assert math.isfinite(float(mod.Delta[0]))
