"""werner2023 algorithms at scale: Federated-Clustering's batched runner against the trace version and under
permutations, Momentum-Clustering's pieces, the baselines, the attacks and the planted problems."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.algorithms.clustering_baselines import baseline
from verify.algorithms.federated_clustering import (
    ShrunkQuantileRadius,
    StrictQuantileRadius,
    fc_clustering_step,
    federated_clustering,
    federated_clustering_run,
)
from verify.algorithms.momentum_clustering import (
    assignment_accuracy,
    cluster_mean_separation,
    farthest_point_centers,
    momentum_clustering,
    momentum_update,
)
from verify.attacks import ATTACKS
from verify.attacks.werner2023_attacks import EDGE_OF_BALL, Byzantine, bit_flip, large_gaussian
from verify.problems.clustered_quadratics import ClusteredQuadratics, clustered_quadratics
from verify.problems.clustered_regression import paper_synthetic_regression


def _problem(seed=0, R=2, K=3, n=3, d=4, Delta=10.0, **kw):
    return clustered_quadratics(torch.Generator().manual_seed(seed), R, K, n, d, Delta, **kw)


@pytest.mark.parametrize("make", [
    lambda: _problem(hessian="planted", mu=1.0, L=3.0),
    lambda: paper_synthetic_regression(torch.Generator().manual_seed(10), 2, 3, 3, 4, 3, scale=3.0),
])
def test_run_matches_the_trace_version_and_ignores_row_blocks(make):
    """The at-scale runner asks the problem for all-pairs gradients in one product (other rounding than the
    trace version's oracle on expanded points): same models to 1e-12, same balls, for any block of rows."""
    prob = make()
    x0 = prob.optima() + torch.randn(2, 9, prob.dim, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    eta = 0.3 / float(prob.smoothness().max())
    trace = federated_clustering(prob, x0, eta, 15, 4.0)
    truth = torch.tensor(prob.true_labels)
    for block in (None, 1, 4):
        run = federated_clustering_run(prob, x0, eta, 15, 4.0, row_block=block)
        assert torch.allclose(run.x, trace.x[-1], atol=1e-12, rtol=0)
        assert torch.equal(run.ball_ok[-1], (trace.ball[-1] == (truth[:, None] == truth[None])).all(-1))


@pytest.mark.parametrize("make", [
    lambda: _problem(hessian="planted", mu=1.0, L=3.0),
    lambda: _problem(),
    lambda: paper_synthetic_regression(torch.Generator().manual_seed(11), 2, 3, 3, 4, 3),
])
def test_gradients_at_models_is_the_oracle_on_expanded_points(make):
    prob = make()
    m = torch.randn(2, 5, prob.dim, generator=torch.Generator().manual_seed(12), dtype=torch.float64)
    expected = prob.grad(m[:, :, None, :].expand(2, 5, prob.n_clients, prob.dim))
    assert torch.allclose(prob.gradients_at_models(m), expected, atol=1e-12, rtol=1e-12)


def test_fc_step_with_explicit_own_gradients_equals_the_square_form():
    G = torch.randn(2, 5, 5, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    own = torch.diagonal(G, dim1=1, dim2=2).permute(0, 2, 1)
    a, b = fc_clustering_step(G, 1.5, 7), fc_clustering_step(G, 1.5, 7, own=own)
    assert torch.equal(a.v, b.v) and torch.equal(a.ball, b.ball)


@given(st.permutations(list(range(6))))
@settings(max_examples=15, deadline=None)
def test_fc_is_permutation_equivariant(perm):
    """Relabelling the clients relabels Federated-Clustering's models (deterministic gradients, fixed tau)."""
    prob = _problem(R=1, K=2, n=3, d=3, hessian="planted", mu=1.0, L=2.0)
    p = torch.tensor(perm)
    permuted = ClusteredQuadratics(prob.x_star[:, p], tuple(prob.true_labels[i] for i in perm), prob.H[:, p], 1.0, 0.0)
    x0 = torch.randn(1, 6, 3, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    a = federated_clustering_run(prob, x0, 0.4, 8, 5.0).x
    b = federated_clustering_run(permuted, x0[:, p], 0.4, 8, 5.0).x
    assert torch.allclose(a[:, p], b, atol=1e-12)


def test_fc_communication_and_byzantine_columns():
    prob = _problem(sigma=0.5)
    x0 = torch.zeros(2, 9, 4, dtype=torch.float64)
    run = federated_clustering_run(prob, x0, 0.5, 3, 5.0, generator=torch.Generator().manual_seed(0),
                                   byzantine=Byzantine("large_gaussian", 2, {"mean": 1e6, "std": 1.0}))
    assert run.communication["gradient_evaluations"] == [81] * 3 and run.communication["model_messages"] == [72] * 3
    assert run.grad_sq[-1].max() < 50  # the far vectors never enter a ball


def test_shrunk_quantile_keeps_the_int_nq_nearest():
    dists = torch.arange(16, dtype=torch.float64).reshape(1, 1, 16)
    tau = ShrunkQuantileRadius(0.25).value(dists)
    assert int((dists <= tau[..., None]).sum()) == 4
    with pytest.raises(InputError):
        ShrunkQuantileRadius(1.5)


def test_strict_quantile_is_the_synthetic_codes_rule_and_the_literal_reading_admits_one_more():
    """PRFL's synthetic code keeps ||z - v|| < sorted(d)[int(N q)] (here the 4 nearest of 16: the own cluster at
    q = n_i/N = 1/4); Algorithm 3 read literally (<= that distance) also admits the point at index int(N q)."""
    dists = torch.arange(16, dtype=torch.float64).reshape(1, 1, 16)
    strict = StrictQuantileRadius(0.25).value(dists)
    literal = ShrunkQuantileRadius(0.25, shrink=1.0).value(dists)
    assert int((dists <= strict[..., None]).sum()) == 4 and int((dists < 4.0).sum()) == 4
    assert int((dists <= literal[..., None]).sum()) == 5
    with pytest.raises(InputError):
        StrictQuantileRadius(0.0)


def test_farthest_point_centers_are_data_points_and_deterministic():
    Z = torch.randn(3, 20, 4, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    V = farthest_point_centers(Z, 4)
    assert torch.equal(V, farthest_point_centers(Z, 4))
    assert all(any(torch.equal(v, z) for z in Z[r]) for r in range(3) for v in V[r])


@given(st.permutations(list(range(4))), st.integers(0, 1000))
@settings(max_examples=25, deadline=None)
def test_assignment_accuracy_ignores_center_names(perm, seed):
    truth = torch.arange(4).repeat_interleave(3)
    assign = torch.randint(4, (12,), generator=torch.Generator().manual_seed(seed))
    renamed = torch.tensor(perm)[assign]
    assert float(assignment_accuracy(assign, truth, 4)) == float(assignment_accuracy(renamed, truth, 4))
    assert float(assignment_accuracy(torch.tensor(perm)[truth], truth, 4)) == 1.0


def test_momentum_update_and_separation():
    m, g = torch.ones(2, 3, 2, dtype=torch.float64), torch.zeros(2, 3, 2, dtype=torch.float64)
    assert torch.allclose(momentum_update(m, g, torch.tensor([0.25, 1.0])), torch.tensor([0.75, 0.0], dtype=torch.float64)[:, None, None].expand(2, 3, 2))
    pts = torch.tensor([[[0.0, 0.0], [0.0, 0.0], [3.0, 4.0], [3.0, 4.0]]], dtype=torch.float64)
    assert float(cluster_mean_separation(pts, (0, 0, 1, 1))) == pytest.approx(25.0)


def test_momentum_clustering_counts_and_validation():
    prob = _problem(sigma=0.3)
    run = momentum_clustering(prob, torch.zeros(2, 9, 4, dtype=torch.float64), 0.5, 0.5, 3, 4, 3.0,
                              generator=torch.Generator().manual_seed(0))
    assert run.communication["uplink"] == [9] * 4 and run.accuracy.shape == (4, 2)
    with pytest.raises(InputError):
        momentum_clustering(prob, torch.zeros(2, 9, 4, dtype=torch.float64), 0.5, 1.5, 3, 4, 3.0,
                            generator=torch.Generator())


def test_baselines_share_models_as_defined():
    prob = _problem()
    x0 = torch.randn(2, 9, 4, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    fa = baseline("fedavg", prob, x0, 0.5, 5, record_models=True)
    assert torch.allclose(fa.x, fa.x[:, :1].expand_as(fa.x))
    gt = baseline("ground_truth", prob, x0, 1.0, 1)  # identity Hessians, eta = 1: one step to the optimum
    assert torch.allclose(gt.x, prob.optima(), atol=1e-12)
    loc = baseline("local", prob, x0, 0.5, 3)
    assert torch.allclose(loc.x, prob.optima() + 0.125 * (x0 - prob.optima()))
    with pytest.raises(InputError):
        baseline("ground_truth", prob, x0, 0.5, 3, byzantine=Byzantine("bit_flip", 1))


def test_attacks_registered_and_exact():
    assert {"large_gaussian", "bit_flip"} <= set(ATTACKS)
    honest = torch.randn(3, 5, 4, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    assert torch.equal(bit_flip(honest, 2, reference=1), (-honest[:, 1])[:, None].expand(3, 2, 4))
    big = large_gaussian(honest, 500, mean=1e6, std=200.0, generator=torch.Generator().manual_seed(7))
    assert abs(float(big.mean()) - 1e6) < 50 and abs(float(big.std()) - 200) < 10
    with pytest.raises(InputError):
        Byzantine("nonsense", 1)
    with pytest.raises(InputError):
        Byzantine(EDGE_OF_BALL, 1)


def test_clustered_quadratics_planted_constants():
    prob = _problem(R=3, K=3, n=2, d=5, Delta=7.0, hessian="planted", mu=0.5, L=4.0, sigma=2.0)
    opt = prob.x_star[:, ::2]
    dist = torch.cdist(opt, opt)
    off = ~torch.eye(3, dtype=torch.bool)
    assert torch.allclose(dist[:, off], torch.tensor(7.0, dtype=torch.float64))
    lam = torch.linalg.eigvalsh(prob.H)
    assert torch.allclose(lam[..., 0], torch.tensor(0.5, dtype=torch.float64)) and torch.allclose(lam[..., -1], torch.tensor(4.0, dtype=torch.float64))
    X = torch.randn(3, 6, 5, dtype=torch.float64, requires_grad=True)
    prob.loss(X).sum().backward()
    assert torch.allclose(X.grad, prob.grad(X.detach()))
    xi = prob.noise((3, 20000, 6, 5), torch.Generator().manual_seed(8), torch.tensor([1.0, 4.0, 16.0]))
    var = (xi**2).sum(-1).mean((1, 2))
    assert torch.allclose(var, torch.tensor([4.0, 1.0, 0.25], dtype=torch.float64), rtol=0.03)


def test_paper_regression_is_underdetermined_per_client_and_noise_free():
    prob = paper_synthetic_regression(torch.Generator().manual_seed(9), 1, 4, 3, 10, 9)
    assert int(torch.linalg.matrix_rank(prob.H[0, 0])) == 9
    assert torch.allclose(prob.grad(prob.optima()), torch.zeros(1, 12, 10, dtype=torch.float64), atol=1e-9)
    assert set(prob.W.flatten().tolist()) <= {0.0, 100.0}
    with pytest.raises(InputError):
        paper_synthetic_regression(torch.Generator(), 1, 0, 3, 10, 9)
