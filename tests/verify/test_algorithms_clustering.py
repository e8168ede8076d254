"""Clustering algorithms of werner2023 section 2 and their toy/planted problems: oracle tests
against brute force, closed forms and scipy."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from verify.algorithms.cfl import (
    agglomerative_bipartition,
    clustered_fl,
    cosine_similarity,
    first_split,
    optimal_bipartition,
)
from verify.algorithms.federated_clustering import (
    ball_equals,
    fc_clustering_step,
    federated_clustering,
)
from verify.algorithms.ifca import hypcluster, ifca, partition_matches
from verify.algorithms.myopic import (
    canonical_labels,
    exact_kmeans,
    lloyd_kmeans,
    myopic_clustering,
    partition_text,
    set_partitions,
)
from verify.algorithms.threshold_clustering import Radius, threshold_clustering
from analytic.errors import InputError
from verify.problems.clustered_regression import planted_clustered_regression
from verify.problems.base import all_pairs, at_cluster_models
from verify.problems.toys import (
    Example1,
    Example2,
    Example3,
    permute_clients,
)

DT = torch.float64


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# -- toy problems ----------------------------------------------------------------------------
def finite_difference(problem, X, h=1e-6):
    d = X.shape[-1]
    G = torch.zeros_like(X)
    for k in range(d):  # test-only loop over coordinates
        E = torch.zeros_like(X)
        E[..., k] = h
        G[..., k] = (problem.loss(X + E) - problem.loss(X - E)) / (2 * h)
    return G


@pytest.mark.parametrize("problem", [Example1(0.5), Example1(0.1), Example2(), Example3()], ids=lambda p: p.name)
def test_toy_gradients_match_losses(problem):
    xs = torch.tensor([-0.7, -0.2, 0.13, 0.6, 0.97, 1.03, 1.5, 2.4], dtype=DT)
    X = xs[:, None, None].expand(-1, problem.n_clients, 1).contiguous()
    assert torch.allclose(problem.grad(X), finite_difference(problem, X), atol=1e-6)


def test_example1_closed_forms():
    p = Example1(0.5)
    X = torch.tensor([[[1.5], [1.5], [1.5]], [[1.0], [1.0], [2.0]], [[0.0], [0.0], [2.0]]], dtype=DT)
    assert p.grad(X)[..., 0].tolist() == [[1.0, 1.0, -1.0], [2 / 3, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert p.loss(X)[1].tolist() == [1 / 3, 1.0, 0.0]  # f_2(1) = 1 at the saddle; f_2(0) = 0
    assert p.loss(X)[2, 1] == 0.0
    # per-replicate eta broadcasts over the all-pairs tensor
    e = Example1(torch.tensor([0.5, 0.1], dtype=DT))
    P = all_pairs(torch.full((2, 3, 1), 1.5, dtype=DT))
    assert torch.allclose(e.grad(P)[:, 0, :, 0], torch.tensor([[1.0, 1.0, -1.0], [5.0, 5.0, -5.0]], dtype=DT))


def test_example3_noise_is_bernoulli_with_batch_variance():
    p = Example3()
    n = 40000
    X = torch.full((n, 3, 1), 1 / 3, dtype=DT)
    for B in (1, 16):
        G = p.stochastic_grad(X, gen(B), batch_size=B)[:, :, 0]
        assert torch.equal(G[:, :2], p.grad(X)[:, :2, 0])
        m, v = float(G[:, 2].mean()), float(G[:, 2].var())
        assert abs(m - (1 / 3 - 0.5)) < 5 * math.sqrt(0.25 / B / n)
        assert abs(v - 0.25 / B) < 0.05 * 0.25 / B
    g1 = p.stochastic_grad(X[:50], gen(3))[:, 2, 0]
    assert set(torch.round((1 / 3 - g1) * 2).tolist()) <= {0.0, 2.0}  # xi in {0, 1}
    assert p.fedavg_optimum() == pytest.approx(1 / 3, abs=1e-15)
    with pytest.raises(InputError, match="batch_size"):
        p.stochastic_grad(X[:2], gen(), batch_size=0)


def test_permuted_problem_relabels_clients():
    p = Example1(0.5)
    q = permute_clients(p, (2, 0, 1))
    X = torch.tensor([[[0.3], [1.2], [-0.4]]], dtype=DT)
    # client i of q is client perm[i] of p: evaluate p at the un-permuted positions
    Xp = torch.empty_like(X)
    Xp[:, [2, 0, 1]] = X
    assert torch.allclose(q.grad(X), p.grad(Xp)[:, [2, 0, 1]])
    assert q.true_labels == (1, 0, 0)
    with pytest.raises(InputError):
        permute_clients(p, (0, 0, 1))


def test_clustered_regression_gradients_optima_and_pairs():
    P = planted_clustered_regression(gen(1), R=2, n_per_cluster=3, K=2, d=5, m=12, separation=4.0)
    x = torch.randn(2, 6, 5, generator=gen(2), dtype=DT)
    assert torch.allclose(P.grad(x), finite_difference(P, x), atol=1e-5)
    assert torch.allclose(P.grad(P.optima()), torch.zeros(2, 6, 5, dtype=DT), atol=1e-10)  # noise-free: shared optima
    W = P.W
    assert torch.allclose(torch.linalg.vector_norm(W[:, 0] - W[:, 1], dim=-1), torch.full((2,), 4.0, dtype=DT))
    Gp = P.grad(all_pairs(x))  # [R, N, N, d]
    assert torch.allclose(torch.diagonal(Gp, dim1=1, dim2=2).permute(0, 2, 1), P.grad(x))
    L, G = P.loss_and_grad(at_cluster_models(W, 6))
    assert torch.allclose(G, P.grad(at_cluster_models(W, 6)))
    assert torch.all(L[:, 0, :3] < 1e-12) and torch.all(L[:, 0, 3:] > 0.1)  # cluster-0 clients are optimal at w_0
    with pytest.raises(InputError, match="K"):
        planted_clustered_regression(gen(), 1, 2, K=6, d=5, m=3, separation=1.0)


# -- Myopic-Clustering ------------------------------------------------------------------------
def stirling2(n, k):
    return sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) // math.factorial(k)


@pytest.mark.parametrize("n,k", [(3, 2), (5, 2), (6, 3), (7, 4)])
def test_set_partitions_counts_and_uniqueness(n, k):
    P = set_partitions(n, k)
    assert P.shape == (stirling2(n, k), n)
    assert torch.equal(canonical_labels(P, k), P)  # already canonical, hence distinct partitions
    assert len({tuple(r) for r in P.tolist()}) == P.shape[0]


def test_exact_kmeans_matches_brute_force():
    Z = torch.randn(20, 6, 2, generator=gen(4), dtype=DT)
    for K in (2, 3):
        labels, centers = exact_kmeans(Z, K)
        for r in range(Z.shape[0]):  # brute force over all labelings (test only)
            best = min(
                sum(float(((Z[r, [i for i in range(6) if lab[i] == c]] - Z[r, [i for i in range(6) if lab[i] == c]].mean(0)) ** 2).sum())
                    for c in set(lab))
                for lab in itertools.product(range(K), repeat=6) if len(set(lab)) == K)
            got = float(((Z[r] - centers[r, labels[r]]) ** 2).sum())
            assert got == pytest.approx(best, rel=1e-12, abs=1e-12)


def test_lloyd_recovers_separated_clusters_and_rejects_bad_k():
    means = torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]], dtype=DT)
    truth = torch.tensor([0, 0, 1, 1, 1, 2, 2, 0, 2, 1])
    Z = means[truth][None].repeat(8, 1, 1) + 0.1 * torch.randn(8, 10, 2, generator=gen(5), dtype=DT)
    labels, _ = lloyd_kmeans(Z, 3, gen(6))
    assert bool(partition_matches(labels, truth.tolist()).all())
    with pytest.raises(InputError, match="K"):
        lloyd_kmeans(Z, 11, gen())


def test_myopic_example1_trajectory_and_partition_text():
    tr = myopic_clustering(Example1(0.5), torch.full((1, 3, 1), 1.5, dtype=DT), 0.5, 2, 6)
    assert tr.x[1, 0, :, 0].tolist() == [1.0, 1.0, 2.0]
    assert [partition_text(l) for l in tr.labels[:, 0]] == ["{1, 2}, {3}"] + ["{1}, {2, 3}"] * 5
    assert tr.x[-1, 0, 0, 0] == pytest.approx((2 / 3) ** 5, rel=1e-12)
    # the Lloyd path gives the same run here (well separated at every round)
    tl = myopic_clustering(Example1(0.5), torch.full((1, 3, 1), 1.5, dtype=DT), 0.5, 2, 6, clustering="lloyd", generator=gen())
    assert torch.allclose(tl.x, tr.x)


# -- IFCA / HypCluster -----------------------------------------------------------------------
def test_ifca_options_coincide_with_one_local_step():
    theta0 = torch.randn(5, 2, 1, generator=gen(7), dtype=DT)
    a = ifca(Example2(), theta0, 0.2, 15, option="I", normalize="members")  # member-normalised: Option II's average
    b = ifca(Example2(), theta0, 0.2, 15, option="II", local_steps=1)
    c = hypcluster(Example2(), theta0, 0.2, 15, local_steps=1)
    assert torch.allclose(a.theta, b.theta, atol=1e-14) and torch.allclose(a.theta, c.theta, atol=1e-14)
    assert torch.equal(a.assign, b.assign)


def test_ifca_separates_from_a_good_init_and_keeps_empty_cluster():
    tr = ifca(Example2(), torch.tensor([[[-1.0], [1.0]]], dtype=DT), 0.25, 60, option="I")
    assert torch.allclose(tr.theta[-1, 0, :, 0], torch.tensor([-0.5, 0.5], dtype=DT))
    assert tr.assign[-1, 0].tolist() == [0, 1]
    far = ifca(Example2(), torch.tensor([[[0.2], [50.0]]], dtype=DT), 0.25, 10, option="II", local_steps=3)
    assert far.theta[-1, 0, 1, 0] == 50.0  # no member: unchanged
    with pytest.raises(InputError, match="option"):
        ifca(Example2(), torch.zeros(1, 2, 1, dtype=DT), 0.1, 3, option="III")


def test_partition_matches_is_label_invariant():
    labels = torch.tensor([[1, 1, 0], [0, 0, 1], [0, 1, 1], [2, 2, 2]])
    assert partition_matches(labels, (0, 0, 1)).tolist() == [True, True, False, False]


# -- Federated-Clustering ---------------------------------------------------------------------
def test_fc_step_equals_per_client_threshold_clustering():
    G = torch.randn(3, 5, 5, 2, generator=gen(8), dtype=DT)
    out = fc_clustering_step(G, 1.2, steps=4)
    for r in range(3):  # reference: one Threshold-Clustering call per client (test only)
        for i in range(5):
            V, hist = threshold_clustering(G[r, i][None], G[r, i, i][None, None], Radius.fixed(1.2), 4, record=True)
            assert torch.allclose(out.v[r, i], V[0, 0])
            ball = torch.linalg.vector_norm(G[r, i] - hist[3, 0, 0], dim=-1) <= 1.2
            assert torch.equal(out.ball[r, i], ball)


def test_fc_per_replicate_radius_equals_separate_runs():
    x0 = torch.tensor([[[0.0], [0.0]], [[-1.5], [0.0]]], dtype=DT)
    taus = torch.tensor([1.0, 2.5], dtype=DT)
    both = federated_clustering(Example2(), x0, 0.25, 30, taus)
    for r in range(2):
        one = federated_clustering(Example2(), x0[r:r + 1], 0.25, 30, Radius.fixed(float(taus[r])))
        assert torch.allclose(both.x[:, r], one.x[:, 0])
    assert torch.allclose(both.x[-1, 0, :, 0], torch.tensor([-0.5, 0.5], dtype=DT), atol=1e-8)
    assert bool(ball_equals(both.ball[-1, :1], (0, 1)).all())
    assert torch.allclose(both.x[-1, 1, :, 0], torch.zeros(2, dtype=DT), atol=1e-8)  # tau >= 2 collapses


def test_fc_recovers_planted_regression_clusters():
    P = planted_clustered_regression(gen(9), R=3, n_per_cluster=4, K=2, d=8, m=40, separation=10.0)
    x0 = torch.randn(3, 8, 8, generator=gen(10), dtype=DT)
    tr = federated_clustering(P, x0, 0.4, 40, 5.0)
    assert bool(ball_equals(tr.ball[-1], P.true_labels).all())
    assert float(torch.linalg.vector_norm(tr.x[-1] - P.optima(), dim=-1).max()) < 1e-4


# -- CFL -------------------------------------------------------------------------------------
def brute_bipartition_cost(S, members):
    idx = [i for i in range(len(members)) if members[i]]
    best = math.inf
    for k in range(1, len(idx)):
        for A in itertools.combinations(idx, k):
            B = [j for j in idx if j not in A]
            best = min(best, max(S[i][j] for i in A for j in B))
    return best


def test_optimal_bipartition_matches_brute_force():
    G = torch.randn(40, 6, 3, generator=gen(11), dtype=DT)
    S = cosine_similarity(G)
    members = torch.rand(40, 6, generator=gen(12)) < 0.8
    members[:, :2] = True
    side = optimal_bipartition(S, members)
    for b in range(40):
        A = [i for i in range(6) if members[b, i] and not side[b, i]]
        B = [i for i in range(6) if side[b, i]]
        assert A and B and not (side[b] & ~members[b]).any()
        got = max(float(S[b, i, j]) for i in A for j in B)
        assert got == pytest.approx(brute_bipartition_cost(S[b].tolist(), members[b].tolist()), abs=1e-12)
        assert not side[b, A[0]]  # oriented: the lowest member is on the False side


def test_agglomerative_bipartition_matches_scipy_complete_linkage():
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    G = torch.randn(30, 7, 4, generator=gen(13), dtype=DT)
    S = cosine_similarity(G)
    side = agglomerative_bipartition(S, torch.ones(30, 7, dtype=torch.bool))
    for b in range(30):
        D = 1.0 - S[b].numpy()  # -S shifted: complete linkage depends only on the order of distances
        np.fill_diagonal(D, 0.0)
        lab = fcluster(linkage(squareform(D, checks=False), method="complete"), 2, criterion="maxclust")
        assert bool(partition_matches(side[b:b + 1].long(), lab.tolist()).all())


def test_cfl_example3_first_split_and_example2_recursion():
    G = Example3().stochastic_grad(torch.full((2000, 3, 1), 1 / 3, dtype=DT), gen(14))
    side = optimal_bipartition(cosine_similarity(G), torch.ones(2000, 3, dtype=torch.bool))
    sep = side[:, 1] != side[:, 2]
    assert 0.44 < float(sep.double().mean()) < 0.56
    assert torch.equal(side[sep], torch.tensor([[False, True, False]]).expand(int(sep.sum()), 3))
    tr = clustered_fl(Example2(), torch.zeros(2, 1, dtype=DT), 0.25, 60, eps1=0.5, eps2=0.5, warmup=5)
    assert torch.allclose(tr.x[-1, :, :, 0], torch.tensor([[-0.5, 0.5]] * 2, dtype=DT), atol=1e-8)
    assert tr.split.sum(0).tolist() == [1, 1]
    rounds, first = first_split(tr)
    assert rounds.tolist() == [6, 6] and first.tolist() == [[False, True]] * 2
    with pytest.raises(InputError, match="bipartition"):
        clustered_fl(Example2(), torch.zeros(1, 1, dtype=DT), 0.1, 3, rule="spectral")


# -- IFCA against the authors' reference code ------------------------------------------------------
# Produced by running the IFCA authors' code (github.com/jichan3751/ifca, commit 61e44b8, synthetic/:
# generate_synthetic_dataset.DatasetGenerate and train_cluster.TrainCluster, unmodified) from a driver in /tmp
# with config m = 6 clients, p = 2 clusters, n = 8 samples, d = 4, r = 1.0, noise_scale = 0.001, lr = 0.1,
# score "set", data_seed = 1, train_seed = 0, 12 epochs (one IFCA round each); the driver wrapped the
# reference's gradient_update to read the 0/1 scores it was given (the assignments) and read each model's
# weight after every round. The reference computes in float32. Our side rebuilds the same data from the
# same seeds (the reference draws cluster parameters r * Bernoulli(1/2)^d with numpy's legacy generator,
# then per client X ~ torch.randn(n, d) and noise 0.001 * torch.randn(n); its initial models are
# Bernoulli(1/2)^d from numpy's legacy generator seeded with train_seed after one dummy normal draw) and
# feeds them to our float64 IFCA; the loss is the reference's MSELoss, (1/n) ||X w - y||^2.
REF_W0 = [[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]
REF_PARAMS = [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
REF_X_SUM, REF_Y_SUM = 4.407497632550076, -0.12499705237405578
REF_ASSIGN = ["101100"] * 4 + ["111100"] * 8  # client i's model index in rounds 1..12 (client 2 moves in round 5)
REF_THETA = {  # round -> the two models after that round (6 significant digits)
    1: [[0.934292, 0.924514, -0.0467613, 0.902658], [-0.0151448, 0.95685, 0.92265, -0.0236627]],
    6: [[0.689449, 0.65426, -0.14405, 0.611307], [-0.0313972, 0.788052, 0.546712, -0.0978291]],
    12: [[0.521594, 0.455278, -0.170632, 0.451038], [-0.0303422, 0.688981, 0.270292, -0.0921724]],
}


def _reference_instance():
    m, p, n, d = 6, 2, 8, 4
    np.random.seed(1)
    torch.manual_seed(1)
    params = [torch.tensor(np.random.binomial(1, 0.5, size=d).astype(np.float32)) * 1.0 for _ in range(p)]
    X, Y = [], []
    for i in range(m):
        x = torch.randn(n, d)
        X.append(x), Y.append(x @ params[i // (m // p)] + torch.randn(n) * 0.001)
    X, Y = torch.stack(X).double(), torch.stack(Y).double()
    H = 2 * X.transpose(1, 2) @ X / n  # MSELoss: (1/n)||Xw - y||^2 = 1/2 w^T H w - b^T w + c
    b = 2 * (X.transpose(1, 2) @ Y[..., None])[..., 0] / n
    from verify.problems.clustered_regression import ClusteredRegression
    P = ClusteredRegression(H[None], b[None], (Y ** 2).sum(1)[None] / n, torch.stack(params).double()[None], (0, 0, 0, 1, 1, 1))
    return P, X, Y, params


def test_ifca_matches_the_authors_reference_code_round_by_round():
    P, X, Y, params = _reference_instance()
    assert torch.stack(params).tolist() == REF_PARAMS  # same data as the reference run
    assert float(X.sum()) == pytest.approx(REF_X_SUM, abs=1e-5) and float(Y.sum()) == pytest.approx(REF_Y_SUM, abs=1e-5)
    tr = ifca(P, torch.tensor([REF_W0], dtype=DT), 0.1, 12, option="I", record_grads=False)  # default: divide by m
    assert ["".join(map(str, a)) for a in tr.assign[:, 0].tolist()] == REF_ASSIGN
    for t, theta in REF_THETA.items():
        assert torch.allclose(tr.theta[t, 0], torch.tensor(theta, dtype=DT), rtol=0, atol=2e-6), t


def test_ifca_member_normalisation_departs_from_the_reference():
    """The option ``normalize="members"`` (divide by the cluster size) is not the reference's rule: on the same
    instance client 2 moves in round 3 instead of round 5, and client 3 moves in round 10."""
    P, *_ = _reference_instance()
    tr = ifca(P, torch.tensor([REF_W0], dtype=DT), 0.1, 12, option="I", normalize="members", record_grads=False)
    assert ["".join(map(str, a)) for a in tr.assign[:, 0].tolist()] != REF_ASSIGN
    assert not torch.allclose(tr.theta[12, 0], torch.tensor(REF_THETA[12], dtype=DT), atol=1e-2)


@pytest.mark.parametrize("normalize", ["all", "members"])
def test_ifca_member_sums_path_is_the_general_path(normalize, monkeypatch):
    """IFCA Option I on samples (RawClusteredRegression.losses_and_member_sums: every loss, each client's gradient
    only at its assigned model, summed per cluster) returns the trace of the general path (all K gradients per
    client, then the members' mean) within 1e-12: the same assignments, models and losses; also on the authors'
    reference instance (its samples), the reference's assignments."""
    from verify.problems.clustered_regression import RawClusteredRegression, planted_clustered_regression

    g = torch.Generator().manual_seed(33)
    prob = planted_clustered_regression(g, 3, 6, 3, 20, 7, separation=3.0, noise=0.1, representation="raw")
    theta0 = torch.randn(3, 3, 20, generator=g, dtype=DT)
    fast = ifca(prob, theta0, 0.3, 8, option="I", normalize=normalize, record_grads=False)
    monkeypatch.delattr(RawClusteredRegression, "ifca_pass")
    slow = ifca(prob, theta0, 0.3, 8, option="I", normalize=normalize, record_grads=False)
    monkeypatch.undo()
    assert fast.grads is None and torch.equal(fast.assign, slow.assign)
    assert fast.assign.unique(dim=-1).numel() > 1  # more than one cluster in use
    for name in ("theta", "losses", "client_loss"):
        a, b = getattr(fast, name), getattr(slow, name)
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12 * float(b.abs().max()))
    P, X, Y, _ = _reference_instance()  # the MSE (1/n)||Xw - y||^2 is our ||A w - y||^2 / (2n) with A = sqrt(2) X
    raw = RawClusteredRegression((2 ** 0.5 * X)[None], (2 ** 0.5 * Y)[None], P.W, P.true_labels)
    tr = ifca(raw, torch.tensor([REF_W0], dtype=DT), 0.1, 12, option="I", record_grads=False)
    assert ["".join(map(str, a)) for a in tr.assign[:, 0].tolist()] == REF_ASSIGN
    for t, theta in REF_THETA.items():
        assert torch.allclose(tr.theta[t, 0], torch.tensor(theta, dtype=DT), rtol=0, atol=2e-6), t
