"""buttaci2024's similarity graph, local methods, problems and partitions: invariances (hypothesis), reductions,
and agreement of the batched simulation with the exact round map."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from analytic.papers import buttaci2024 as B
from verify.problems import similarity_graph as G
from verify.algorithms.local_methods import (
    MethodSpec,
    Participation,
    batch_schedule,
    fedavg,
    fedprox,
    perturbed,
    perturbed_point,
    run_local_rounds,
)
from verify.problems import buttaci2024_partition as part
from verify.problems.buttaci2024_logistic import sc_lr
from verify.checks.buttaci2024.nonconvex_problem import log_cauchy
from verify.problems.buttaci2024_quadratic import sc_q1, sc_q2
from verify.testing import seeds

F64 = torch.float64


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# -- the similarity graph ------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=seeds, C=st.integers(2, 7), dx=st.integers(2, 6))
def test_graph_is_sign_and_permutation_invariant(seed, C, dx):
    """The adjacency does not depend on the signs an eigensolver returns, and relabelling clients relabels it."""
    X = torch.rand(C, 12, dx, generator=gen(seed), dtype=F64) ** 2
    m = G.principal_messages(G.second_moments(X))
    flips = torch.where(torch.rand(C, generator=gen(seed + 1), dtype=F64) < 0.5, -1.0, 1.0).to(F64)
    A = G.adjacency(G.misalignment(m)).A
    assert torch.allclose(G.adjacency(G.misalignment(G.canonical_sign(m * flips[:, None]))).A, A, atol=1e-12)
    perm = torch.randperm(C, generator=gen(seed + 2))
    mp = G.principal_messages(G.second_moments(X[perm]))
    assert torch.allclose(G.adjacency(G.misalignment(mp)).A, A[perm][:, perm], atol=1e-9)
    w = G.similarity_weights(A + 1e-3 * (1 - torch.eye(C, dtype=F64)))
    assert torch.allclose(w.P, w.P.T) and abs(float(w.p.sum()) - 1) < 1e-12
    assert torch.allclose(w.neighbour.sum(-1), torch.ones(C, dtype=F64))


def test_graph_fixtures_and_laplacian():
    e = torch.eye(3, dtype=F64)
    adj = G.adjacency(G.misalignment(torch.stack([e[0], e[0], e[1]])))
    assert adj.clipped_pairs == 1 and adj.A[0, 1] == pytest.approx(-np.log(1e-12)) and adj.A[0, 2] == pytest.approx(np.log(2))
    Lap = G.laplacian(adj.A)
    assert torch.allclose(Lap.sum(-1), torch.zeros(3, dtype=F64)) and torch.linalg.eigvalsh(Lap).min() > -1e-12
    with pytest.raises(InputError, match="m"):
        G.misalignment(2 * e)
    with pytest.raises(InputError, match="A"):
        G.similarity_weights(torch.zeros(3, 3, dtype=F64))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, beta=st.floats(0.01, 1.0))
def test_perturbed_point_is_the_minimiser_and_exact_at_beta_one(seed, beta):
    g = gen(seed)
    w, u = torch.randn(4, 3, generator=g, dtype=F64), torch.randn(4, 3, generator=g, dtype=F64)
    x = perturbed_point(w, u, torch.tensor(beta, dtype=F64))
    assert torch.allclose(beta * (x - w) + (1 - beta) * (x - u), torch.zeros_like(x), atol=1e-12)
    assert torch.equal(perturbed_point(w, u, torch.tensor(1.0, dtype=F64)), w)


# -- the local methods --------------------------------------------------------------------------------
def test_reductions_are_bit_for_bit():
    prob = sc_q2(gen(0), noise_var=0.09)
    w0 = torch.full((4,), 2.0, dtype=F64)
    runs = [run_local_rounds(prob.oracle(gen(5)), [m], prob.weights, w0, T=4, E=3, R=6).wbar
            for m in (fedavg(0.05), perturbed(0.05, 1.0), fedprox(0.05, 0.0))]
    assert torch.equal(runs[0], runs[1]) and torch.equal(runs[0], runs[2])


def test_batched_methods_equal_separate_runs():
    prob = sc_q2(gen(1), noise_var=0.09)
    w0 = torch.full((4,), 1.0, dtype=F64)
    ms = [fedavg(0.05), fedprox(0.04, 1.0), perturbed(0.05, 0.3)]
    together = run_local_rounds(prob.oracle(gen(7)), ms, prob.weights, w0, T=3, E=4, R=5).wbar
    for j, m in enumerate(ms):
        alone = run_local_rounds(prob.oracle(gen(7)), [m], prob.weights, w0, T=3, E=4, R=5).wbar
        assert torch.allclose(together[:, j], alone[:, 0], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("m", [fedavg(0.05), fedprox(1 / 30, 1.0), perturbed(0.05, 0.2)])
def test_simulation_matches_the_exact_round_map(m):
    prob = sc_q2(gen(2), h=1.0)
    H, c, P = prob.numpy()
    rmap = B.QuadraticRoundMap.build(H, c, P, gamma=m.gamma, E=5, alpha=m.alpha, beta=m.beta)
    mean, _ = rmap.moments(np.full(4, 3.0), 10)
    tr = run_local_rounds(prob.oracle(None), [m], prob.weights, torch.full((4,), 3.0, dtype=F64), T=10, E=5, R=1)
    assert np.abs(tr.wbar[:, 0, 0].numpy() - mean).max() < 1e-12


@settings(max_examples=15, deadline=None)
@given(seed=seeds, beta=st.floats(0.1, 1.0))
def test_relabelling_clients_does_not_change_the_global_model(seed, beta):
    prob = sc_q2(gen(seed), h=1.0)
    perm = torch.randperm(prob.n_clients, generator=gen(seed + 1))
    P = prob.weights.P[perm][:, perm]
    permuted = type(prob)(prob.H[perm], prob.c[perm], G.SimilarityWeights(P, P.sum(-1)))
    w0 = torch.full((4,), -1.0, dtype=F64)
    m = [perturbed(0.04, beta)]
    a = run_local_rounds(prob.oracle(None), m, prob.weights, w0, T=5, E=3, R=1).wbar
    b = run_local_rounds(permuted.oracle(None), m, permuted.weights, w0, T=5, E=3, R=1).wbar
    assert torch.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_partial_participation_with_everyone_is_full_participation():
    prob = sc_q2(gen(3), noise_var=0.09)
    w0 = torch.zeros(4, dtype=F64)
    full = run_local_rounds(prob.oracle(gen(4)), [perturbed(0.05, 0.5)], prob.weights, w0, T=4, E=3, R=3).wbar
    every = run_local_rounds(prob.oracle(gen(4)), [perturbed(0.05, 0.5)], prob.weights, w0, T=4, E=3, R=3,
                             participation=Participation(prob.n_clients), generator=gen(9))
    assert torch.allclose(every.wbar, full, atol=1e-13) and bool(every.participants.all())
    some = run_local_rounds(prob.oracle(gen(4)), [perturbed(0.05, 0.5)], prob.weights, w0, T=2, E=3, R=3,
                            participation=Participation(2, "global"), generator=gen(9))
    assert some.participants.sum(-1).eq(2).all()


def test_method_specs_reject_bad_input():
    for kw in ({"kind": "fedavg", "gamma": 0.1, "alpha": 1.0}, {"kind": "fedprox", "gamma": 0.1, "beta": 0.5},
               {"kind": "perturbed", "gamma": 0.1, "beta": 0.0}, {"kind": "sgd", "gamma": 0.1},
               {"kind": "fedavg", "gamma": -1.0}):
        with pytest.raises(InputError):
            MethodSpec(**kw)
    prob = sc_q1(gen(0))
    with pytest.raises(InputError, match="T, E, R"):
        run_local_rounds(prob.oracle(None), [fedavg(0.1)], prob.weights, torch.zeros(5, dtype=F64), T=0, E=1, R=1)
    with pytest.raises(InputError, match="generator"):
        run_local_rounds(prob.oracle(None), [fedavg(0.1)], prob.weights, torch.zeros(5, dtype=F64), T=1, E=1, R=1,
                         participation=Participation(2))


# -- the two readings of E ----------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(seed=seeds, sizes=st.lists(st.integers(5, 40), min_size=2, max_size=6), E=st.integers(1, 5),
       B_=st.integers(1, 12))
def test_batch_schedules_use_every_sample_as_their_reading_says(seed, sizes, E, B_):
    s = torch.tensor(sizes)
    valid = torch.arange(max(sizes))[None, :] < s[:, None]
    a = batch_schedule(s, E, "steps", gen(seed), 3)
    assert torch.equal(a.uses[:, valid], torch.ones_like(a.uses[:, valid])) and a.uses[:, ~valid].sum() == 0
    assert torch.equal(a.active.sum(1), torch.full((3, len(sizes)), E))
    b = batch_schedule(s, E, "epochs", gen(seed), 3, batch_size=B_)
    assert torch.equal(b.uses[:, valid], torch.full_like(b.uses[:, valid], E))
    assert torch.equal(b.active.sum(1)[0], E * ((s + B_ - 1) // B_))
    assert torch.allclose(b.weights.sum(-1), b.active.to(F64))


def test_schedules_reject_bad_input():
    with pytest.raises(InputError, match="E"):
        batch_schedule(torch.tensor([3, 10]), 5, "steps", gen(0), 1)
    with pytest.raises(InputError, match="batch_size"):
        batch_schedule(torch.tensor([3, 10]), 2, "epochs", gen(0), 1)
    with pytest.raises(InputError, match="reading"):
        batch_schedule(torch.tensor([3, 10]), 2, "passes", gen(0), 1)


# -- problems and partitions ----------------------------------------------------------------------------
def test_quadratic_constants_are_exact():
    prob = sc_q2(gen(0), h=2.0, noise_var=0.09)
    cst = prob.constants()
    assert cst["L"].value == pytest.approx(2.0) and cst["mu"].value == pytest.approx(0.5)
    half = prob.with_centres(prob.c / 2).constants()["Gamma"].value
    assert cst["Gamma"].value == pytest.approx(4 * half, rel=1e-12)  # Gamma scales as h^2
    w = torch.tensor(prob.w_star())
    assert prob.global_grad(w).abs().max() < 1e-12
    assert sc_q1(gen(0)).constants()["Gamma"].value == pytest.approx(0.0, abs=1e-12)


def test_logistic_constants_and_gradients():
    prob = sc_lr(gen(0))
    cst = prob.constants()
    assert cst["mu"].value == 0.1 and cst["mu"].label == "lower bound" and cst["L"].label == "upper bound"
    assert cst["Gamma"].value > 0
    w = torch.randn(prob.n_clients, prob.dim, generator=gen(1), dtype=F64).requires_grad_(True)
    auto, = torch.autograd.grad(prob.loss(w).sum(), w)
    assert torch.allclose(auto, prob.grad(w.detach()), atol=1e-12)


def test_nonconvex_gradient_and_smoothness():
    prob = log_cauchy(gen(0))
    w = torch.randn(prob.n_clients, prob.dim, generator=gen(1), dtype=F64).requires_grad_(True)
    auto, = torch.autograd.grad(prob.loss(w).sum(), w)
    assert torch.allclose(auto, prob.grad(w.detach()), atol=1e-12)
    x = torch.linspace(-3, 3, 601, dtype=F64)
    second = 2 * (1 - x**2) / (1 + x**2) ** 2
    assert float(second.max()) + prob.lam == pytest.approx(prob.constants()["L"].value)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, N=st.integers(20, 400), C=st.integers(2, 10), K=st.integers(2, 6), a=st.floats(0, 50),
       b=st.floats(0, 2))
def test_partitions_keep_their_totals(seed, N, C, K, a, b):
    rng = np.random.default_rng(seed)
    counts = part.partition(N, C, K, a, b, rng, R=2)
    assert counts.min() >= 0 and np.all(counts.sum((1, 2)) == N) and np.all(counts.sum(-1) >= 1)
    eq = part.partition(C * K * 3, C, K, 0.0, 0.0, rng, R=1)
    assert np.all(eq == 3)
