"""CafCor (Algorithm 1), its noise drawn in law, its problems and attacks: structure of the algorithm, the law
of the noise against the shared-seed protocol, exact constants of the quadratic harness, the minibatch
sampler, softmax gradients against autograd, and the attacks' definitions."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from verify.algorithms.cafcor import cafcor, clip, strongly_convex_schedule
from verify.attacks import ATTACKS
from verify.attacks.allouah2025_attacks import far_cluster, honest_top_direction, label_flipping, mixture, top_eigen
from verify.correlated_noise import NoiseInLaw, SharedSeeds, protocol_noise, protocol_noise_in_law
from verify.problems.allouah2025_classification import flipped, softmax_workers
from verify.checks.allouah2025.inputs import prop41_suite, subsets_spread
from verify.checks.allouah2025.nonconvex_problem import cauchy_workers
from verify.problems.allouah2025_quadratic import identical_workers, sample_without_replacement, worker_points

F64 = torch.float64


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# -- the noise in law ---------------------------------------------------------------------------------
def test_noise_in_law_has_the_protocols_covariance_and_cancels():
    n, d, N, c2, i2 = 6, 4, 40_000, 0.7, 0.3
    law = protocol_noise_in_law(_gen(0), N, n, d, math.sqrt(c2), math.sqrt(i2))
    seeds = SharedSeeds(11, n)
    proto = protocol_noise(seeds, 0, N, d, math.sqrt(c2), math.sqrt(i2), _gen(1))
    expected = (n * c2 + i2) * np.eye(n) - c2 * np.ones((n, n))
    for xi in (law, proto):
        X = xi.permute(0, 2, 1).reshape(-1, n).numpy()
        cov = X.T @ X / X.shape[0]
        se = math.sqrt(2 / X.shape[0]) * (n * c2 + i2)  # crude entrywise standard error
        assert np.abs(cov - expected).max() < 5 * se
    pair = NoiseInLaw.build(3, n, d, math.sqrt(c2), 0.0).correlated(_gen(2))
    assert pair.sum(1).abs().max() < 1e-12 * math.sqrt(n * c2)


def test_noise_in_law_per_replicate_scale_and_bad_input():
    s = torch.tensor([0.0, 1.0, 3.0], dtype=F64)
    xi = protocol_noise_in_law(_gen(3), 3, 5, 200, s, 0.0)
    assert float(xi[0].abs().max()) == 0.0
    ratio = float(xi[2].std() / xi[1].std())
    assert abs(ratio - 3.0) < 0.3
    with pytest.raises(InputError) as info:
        NoiseInLaw.build(3, 5, 2, torch.tensor([1.0, -1.0, 1.0]), 0.0)
    assert info.value.param == "sigma_cor"
    with pytest.raises(InputError):
        NoiseInLaw.build(3, 0, 2, 1.0, 1.0)


# -- the quadratic harness ----------------------------------------------------------------------------
def test_worker_points_constants_are_exact():
    prob = worker_points(2, 5, 7, 3, spread=0.8, heterogeneity=1.3, generator=_gen(4))
    P = prob.points.numpy()
    for r in range(2):
        means = P[r].mean(1)
        var = ((P[r] - means[:, None]) ** 2).sum(-1).mean(1)
        assert prob.sigma2()[r].item() == pytest.approx(var.max(), rel=1e-12)
        cov = np.cov((means - means.mean(0)).T, bias=True)
        assert prob.heterogeneity()[0][r].item() == pytest.approx(np.linalg.eigvalsh(cov)[-1], rel=1e-10)
        assert prob.heterogeneity()[1][r].item() == pytest.approx(np.trace(cov), rel=1e-10)
    theta = torch.randn(2, 3, generator=_gen(5), dtype=F64)
    X = theta[:, None].expand(-1, 5, -1)
    loss_gap = prob.loss(X).mean(1) - prob.loss(prob.optimum[:, None].expand(-1, 5, -1)).mean(1)
    assert torch.allclose(prob.excess_loss(theta), loss_gap, rtol=1e-10)
    assert torch.allclose(prob.honest_gradient(theta), prob.grad(X).mean(1))
    assert torch.allclose(prob.batch_grad(theta, None), prob.grad(X))
    assert identical_workers(2, 4, 6, 3, spread=1.0, generator=_gen(6)).heterogeneity()[0].abs().max() == 0


def test_sampler_draws_distinct_items_uniformly():
    idx = sample_without_replacement(_gen(7), (20_000,), 6, 3)
    assert idx.shape == (20_000, 3)
    assert torch.all(idx.sort(-1).values.diff(dim=-1) > 0)  # distinct
    freq = torch.bincount(idx.reshape(-1), minlength=6).double() / idx.shape[0]
    assert torch.allclose(freq, torch.full((6,), 0.5, dtype=F64), atol=0.02)  # inclusion probability b/m
    with pytest.raises(InputError):
        sample_without_replacement(_gen(7), (2,), 4, 5)


# -- the algorithm ------------------------------------------------------------------------------------
def _run(prob, **kw):
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    base = dict(f=2, T=30, gamma=gamma, beta=beta, C=100.0, sigma_cor=0.2, sigma_ind=0.2, batch_size=2,
                generator=_gen(8), checkpoints=[0, 1, 2, 30])
    base.update(kw)
    return cafcor(prob, prob.optimum + 1.0, **base)


def test_first_round_ignores_the_byzantines_and_the_run_is_deterministic():
    prob = worker_points(3, 8, 6, 4, spread=1.0, heterogeneity=0.5, generator=_gen(9))
    for attack, opts in (("large", {"value": 1e9}), ("alie", {"tau": 50.0}), ("foe", {})):
        run = _run(prob, attack=attack, attack_options=opts)
        assert torch.equal(run.theta[1], run.theta[0])  # m_0 = 0 for every honest worker, so CAF returns 0
    a, b = _run(prob), _run(prob)
    assert torch.equal(a.theta, b.theta) and torch.equal(a.deviation[:-1], b.deviation[:-1])


def test_without_noise_or_byzantines_cafcor_is_momentum_sgd_on_the_honest_loss():
    prob = identical_workers(2, 6, 5, 3, spread=1.0, generator=_gen(10))
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    run = cafcor(prob, prob.optimum + 2.0, f=0, T=25, gamma=gamma, beta=beta, C=1e6, sigma_cor=0.0, sigma_ind=0.0,
                 batch_size=5, generator=_gen(11), checkpoints=[25])
    theta = prob.optimum + 2.0
    m = torch.zeros_like(theta)
    for t in range(25):
        if t >= 1:
            m = beta(t - 1) * m + (1 - beta(t - 1)) * (theta - prob.optimum)
        theta = theta - gamma(t) * m
    assert torch.allclose(run.theta[-1], theta, atol=1e-12)


def test_shared_seed_noise_path_and_input_checks():
    prob = worker_points(2, 5, 4, 3, spread=1.0, heterogeneity=0.5, generator=_gen(12))
    run = _run(prob, f=1, seeds=SharedSeeds(5, 6))
    assert torch.isfinite(run.theta).all()
    with pytest.raises(InputError) as info:
        _run(prob, f=1, seeds=SharedSeeds(5, 7))
    assert info.value.param == "seeds"
    for kw, param in ((dict(attack="nope"), "attack"), (dict(aggregator="nope"), "aggregator"), (dict(C=0.0), "C"),
                      (dict(batch_size=9), "batch_size"), (dict(T=0), "T")):
        with pytest.raises(InputError) as info:
            _run(prob, **kw)
        assert info.value.param == param


def test_clip_and_clipping_statistics():
    g = torch.tensor([[3.0, 4.0], [0.0, 0.0], [0.3, 0.4]], dtype=F64)
    out, norms = clip(g, 1.0)
    assert torch.allclose(out, torch.tensor([[0.6, 0.8], [0.0, 0.0], [0.3, 0.4]], dtype=F64))
    assert torch.allclose(norms, torch.tensor([5.0, 0.0, 0.5], dtype=F64))
    prob = worker_points(2, 5, 4, 3, spread=1.0, heterogeneity=0.5, generator=_gen(13))
    assert float(_run(prob, C=1e-3).clipped_fraction.min()) == 1.0
    assert float(_run(prob, C=1e6).clipped_fraction.max()) == 0.0


def test_label_flipping_poisons_the_mean_and_caf_resists():
    prob = softmax_workers(4, 10, 40, 5, 10, separation=4.0, skew=0.0, generator=_gen(14))
    theta0 = torch.zeros(4, prob.dim, dtype=F64)
    common = dict(f=9, T=60, gamma=0.5, beta=0.5, C=1e3, sigma_cor=0.0, sigma_ind=0.0, batch_size=10,
                  generator=_gen(15), attack="lf", checkpoints=[60])
    acc = {}
    for agg in ("caf", "mean"):
        run = cafcor(prob, theta0, aggregator=agg, **common)
        acc[agg] = float(prob.accuracy(run.theta[-1]).mean())
    clean = cafcor(prob, theta0, **{**common, "f": 0, "attack": "alie"})
    acc["clean"] = float(prob.accuracy(clean.theta[-1]).mean())
    assert acc["caf"] > acc["mean"] + 0.2 and acc["caf"] > acc["clean"] - 0.05


# -- the classification problem and the attacks ---------------------------------------------------------
def test_softmax_gradient_matches_autograd_and_labels_flip():
    prob = softmax_workers(2, 3, 8, 4, 5, skew=1.0, generator=_gen(16))
    theta = (0.3 * torch.randn(2, prob.dim, generator=_gen(17), dtype=F64)).requires_grad_()
    for flip in (False, True):
        y = flipped(prob.labels, 5) if flip else prob.labels
        W = theta.reshape(2, 1, 5, 4)
        logp = torch.log_softmax(torch.einsum("rhkp,rhmp->rhmk", W.expand(-1, 3, -1, -1), prob.features), -1)
        nll = -torch.gather(logp, -1, y[..., None]).mean((2, 3)).sum()
        (grad,) = torch.autograd.grad(nll, theta)
        assert torch.allclose(prob.full_grad(theta.detach(), flip_labels=flip).sum(1), grad, atol=1e-12)
    assert torch.equal(flipped(flipped(prob.labels, 5), 5), prob.labels)
    assert torch.equal(prob.batch_grad(theta.detach(), None), prob.full_grad(theta.detach()))


def test_allouah2025_attacks_follow_their_definitions():
    H = torch.randn(2, 12, 5, generator=_gen(18), dtype=F64) * torch.tensor([3.0, 1.0, 0.5, 0.2, 0.1], dtype=F64)
    mu, sigma, v = honest_top_direction(H)
    cov = torch.einsum("rni,rnj->rij", H - mu[:, None], H - mu[:, None]) / 12
    assert torch.allclose(sigma**2, torch.linalg.eigvalsh(cov)[:, -1])
    out = top_eigen(H, 3, k=2.0)
    assert torch.allclose(out, (mu + 2 * sigma[:, None] * v)[:, None].expand(-1, 3, -1))
    far = far_cluster(H, 4, distance=20.0, spread=0.0, generator=_gen(19))
    assert torch.allclose(torch.linalg.vector_norm(far - mu[:, None], dim=-1), 20 * sigma[:, None].expand(-1, 4))
    mix = mixture(H, 5, generator=_gen(20))
    assert mix.shape == (2, 5, 5) and torch.isfinite(mix).all()
    with pytest.raises(InputError) as info:
        label_flipping(H, 2)
    assert info.value.param == "flipped_gradients"
    with pytest.raises(InputError):
        far_cluster(H, 2)
    assert {"lf", "top_eigen", "far_cluster", "mixture"} <= set(ATTACKS)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_prop41_suite_shapes_and_honest_rows_first(seed):
    batches = prop41_suite(np.random.default_rng(seed), _gen(seed), 3, 6, small=2)
    assert len(batches) == 6
    for b in batches:
        assert b.X.shape[0] == 3 and 2 * b.f < b.n and torch.isfinite(b.X).all()
    small = batches[0]
    mu, lam = subsets_spread(small.X, small.n - small.f)
    assert torch.allclose(mu[:, 0], small.honest.mean(1))  # the first subset is the honest set
    assert math.comb(small.n, small.n - small.f) == lam.shape[1]


def test_per_replicate_schedules_equal_separate_runs():
    """One batched run with a step size and momentum per replicate gives each replicate the run it would
    have alone (the noise streams differ, so compare without noise and with full batches)."""
    prob = worker_points(1, 6, 4, 2, spread=1.0, heterogeneity=0.5, generator=_gen(21))
    both = worker_points(2, 6, 4, 2, spread=1.0, heterogeneity=0.5, generator=_gen(21))
    both = type(both)(prob.points.expand(2, -1, -1, -1).contiguous())
    common = dict(f=0, T=15, C=1e6, sigma_cor=0.0, sigma_ind=0.0, batch_size=4, generator=_gen(22), checkpoints=[15])
    gam = torch.tensor([0.05, 0.2], dtype=F64)
    run = cafcor(both, both.optimum + 1.0, gamma=gam, beta=1 - gam, **common)
    for r in range(2):
        alone = cafcor(prob, prob.optimum + 1.0, gamma=float(gam[r]), beta=1 - float(gam[r]), **common)
        assert torch.allclose(run.theta[-1, r], alone.theta[-1, 0], atol=1e-14)
    with pytest.raises(InputError) as info:
        cafcor(both, both.optimum, gamma=torch.ones(3, dtype=F64), beta=0.0, **common)
    assert info.value.param == "schedule"


def test_cauchy_problem_constants_and_gradients():
    prob = cauchy_workers(2, 3, 5, 4, spread=2.0, generator=_gen(23), s=0.7, identical=False)
    theta = torch.randn(2, 4, generator=_gen(24), dtype=F64).requires_grad_()
    (grad,) = torch.autograd.grad(prob.loss(theta).sum(), theta)
    assert torch.allclose(prob.honest_gradient(theta.detach()), grad, atol=1e-12)
    far = 100 * torch.randn(2, 4, generator=_gen(25), dtype=F64)
    for t in (theta.detach(), far):
        g = prob.batch_grad(t, None)
        assert float(torch.linalg.vector_norm(g, dim=-1).max()) <= prob.gradient_bound
    assert prob.smoothness == pytest.approx(2 / 0.7)
    floor = prob.loss_floor(torch.zeros(2, 4, dtype=F64), steps=500)
    assert torch.all(floor <= prob.loss(torch.zeros(2, 4, dtype=F64)))


def _previous_clip(g, C):
    """Clip before the no-clip shortcut: every row scaled, by 1 where ||g|| <= C."""
    norm = torch.linalg.vector_norm(g, dim=-1, keepdim=True)
    scale = torch.where(norm > C, C / torch.where(norm > 0, norm, 1.0), torch.ones_like(norm))
    return g * scale, norm[..., 0]


@pytest.mark.parametrize("C", [0.5, 3.0, 1e6])
def test_clip_is_the_previous_formula_bit_for_bit(C):
    """Some rows clipped, none clipped (C = 1e6: g comes back as it is), zero rows and a row at exactly ||g|| = C."""
    g = torch.randn(4, 5, 3, generator=_gen(3), dtype=torch.float64)
    g[0, 0] = 0.0
    g[1, 2] = torch.tensor([0.6, 0.0, 0.8], dtype=torch.float64) * 3.0  # norm 3 (= C for C = 3)
    g[2, 1] = -0.0
    got, norms = clip(g, C)
    want, want_norms = _previous_clip(g, C)
    assert torch.equal(got, want) and torch.equal(norms, want_norms)
    assert torch.equal(torch.signbit(got), torch.signbit(want))


def _previous_round_loop(prob, theta0, *, f, T, gamma, beta, C, sigma_cor, sigma_ind, b, generator, attack):
    """Algorithm 1 as the loop ran before: every round concatenates the Byzantine rows (none at f = 0), clips every
    gradient, counts clipped rows every round and computes grad L_H once per use. Returns the final theta and the
    sum of ||grad L_H||^2."""
    from verify.aggregators import AGGREGATORS
    from verify.correlated_noise import NoiseInLaw as _Noise
    R, h, d = theta0.shape[0], prob.n_clients, prob.dim
    noise = _Noise.build(R, h + f, d, sigma_cor, sigma_ind)
    theta, M = theta0.clone(), torch.zeros(R, h, d, dtype=torch.float64)
    clipped, gsum = torch.zeros(R, dtype=torch.float64), torch.zeros(R, dtype=torch.float64)
    for t in range(T):
        idx = None if b == prob.samples_per_worker or t == 0 else prob.sample_batch(generator, b)
        if t >= 1:
            g, norms = _previous_clip(prob.batch_grad(theta, idx), C)
            clipped += (norms > C).to(torch.float64).mean(1)
            M = beta(t - 1) * M + (1.0 - beta(t - 1)) * (g + noise.draw(generator)[:, :h])
        byz = ATTACKS[attack](M, f, generator=generator)
        agg = AGGREGATORS["caf"](torch.cat([M, byz], 1), f)
        gsum = gsum + (prob.honest_gradient(theta) ** 2).sum(-1)
        theta = theta - gamma(t) * agg
    return theta, gsum, clipped / max(T - 1, 1)


@pytest.mark.parametrize("f, b, C", [(0, 4, 1e6), (2, 2, 1.5), (1, 1, 0.7)])
def test_cafcor_round_is_the_previous_loop_bit_for_bit(f, b, C):
    """f = 0 (the aggregator reads the honest rows without a concatenation), clipping that binds or never binds,
    the gradient of L_H computed once per round: the final iterate, sum ||grad L_H||^2 and the clipped share are
    the previous loop's bits."""
    prob = worker_points(3, 6, 4, 2, spread=1.0, heterogeneity=0.5, generator=_gen(11))
    theta0 = prob.optimum + 2.0
    gamma, beta = strongly_convex_schedule(1.0, 1.0)
    kw = dict(f=f, T=12, gamma=gamma, beta=beta, C=C, sigma_cor=0.3, sigma_ind=0.2)
    run = cafcor(prob, theta0, **kw, batch_size=b, generator=_gen(5), attack="alie", record_gradient_norms=True)
    theta, gsum, clipped = _previous_round_loop(prob, theta0, **kw, b=b, generator=_gen(5), attack="alie")
    assert torch.equal(run.theta[-1], theta)
    assert torch.equal(run.grad_norm2_sum[-1], gsum)
    assert torch.equal(run.clipped_fraction, clipped)
    if C == 1e6:
        assert float(run.clipped_fraction.max()) == 0.0


def test_noise_in_law_draws_are_the_previous_formula_bit_for_bit():
    """With sigma_cor sqrt(n) kept between draws, each draw is still vbar = sigma_ind N(0, I) followed by
    (sigma_cor sqrt(n)) (Z - Zbar), per-replicate scales (one of them 0) included."""
    R, n, d = 3, 5, 2
    s = torch.tensor([0.3, 0.0, 1.7], dtype=torch.float64)
    noise = NoiseInLaw.build(R, n, d, s, 0.2)
    g, g_ref = _gen(4), _gen(4)
    for _ in range(3):
        ind = torch.randn(R, n, d, generator=g_ref, dtype=torch.float64)
        Z = torch.randn(R, n, d, generator=g_ref, dtype=torch.float64)
        want = (s.reshape(R, 1, 1) * math.sqrt(n)) * (Z - Z.mean(1, keepdim=True)) + noise.sigma_ind * ind
        assert torch.equal(noise.draw(g), want)
