"""Algorithm 1 (federated local SGD with a robust filter), batched: against a plain loop, per-row settings
against separate runs, the label-flip rows, the decaying schedule, determinism and bad input."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from analytic.errors import InputError
from verify.aggregators.ce import comparative_elimination
from verify.algorithms.local_sgd_ce import RowGroup, local_sgd_ce
from verify.problems import dutta2023_problems as P
from verify.problems.least_squares import gaussian_agents


def _problem(seed=0, N=7, l=6, d=3):
    return gaussian_agents(N, l, d, torch.Generator().manual_seed(seed))


def test_matches_a_plain_loop_of_local_gd_and_ce():
    prob, _ = _problem()
    alpha, T, f, n_byz, K = 0.01, 3, 2, 2, 6
    tr = local_sgd_ce(prob, n_byz=n_byz, f=f, groups=[RowGroup(1, "large", {"value": 5.0})], rounds=K, step=alpha,
                      local_steps=T, generator=torch.Generator().manual_seed(0), record=range(K + 1), keep_iterates=True)
    G, z = prob.G[0], prob.z[0]
    x = torch.zeros(3, dtype=torch.float64)
    avg = prob.honest_average(n_byz)
    for k in range(K):
        assert np.allclose(tr.iterates[0, k], x.numpy(), atol=1e-12)
        assert tr.gap[0, k] == pytest.approx(float(avg.gap(x[None])[0]), rel=1e-12)
        Y = []
        for i in range(prob.n_clients):
            y = x.clone()
            for _ in range(T):
                y = y - alpha * 2 * G[i] @ (y - z[i])
            Y.append(y if i >= n_byz else torch.full((3,), 5.0, dtype=torch.float64))
        x = comparative_elimination(torch.stack(Y)[None], f, reference=x[None])[0]
    assert np.allclose(tr.iterates[0, K], x.numpy(), atol=1e-12)


def test_rows_with_different_settings_equal_separate_runs():
    prob, _ = _problem(1)
    kw = dict(n_byz=1, f=1, rounds=5, generator=None)
    both = local_sgd_ce(prob, groups=[RowGroup(2, "ce_evasion", {"q": 0.5})], step=torch.tensor([0.01, 0.02], dtype=torch.float64),
                        local_steps=torch.tensor([1, 3]), **{**kw, "generator": torch.Generator().manual_seed(0)})
    for row, (a, T) in enumerate([(0.01, 1), (0.02, 3)]):
        one = local_sgd_ce(prob, groups=[RowGroup(1, "ce_evasion", {"q": 0.5})], step=a, local_steps=T,
                           **{**kw, "generator": torch.Generator().manual_seed(0)})
        assert np.allclose(both.gap[row], one.gap[0], rtol=1e-12)


def test_label_flip_rows_run_the_protocol_on_flipped_data():
    prob, _ = _problem(2)
    flipped = P.label_flip(prob.row(0), 2, torch.tensor([True]))
    kw = dict(n_byz=2, f=2, rounds=4, step=0.01, local_steps=2, record=range(5), keep_iterates=True)
    a = local_sgd_ce(flipped, groups=[RowGroup(1, None)], generator=torch.Generator(), **kw)
    b = local_sgd_ce(prob, groups=[RowGroup(1, None)], generator=torch.Generator(), **kw)
    assert not np.allclose(a.iterates, b.iterates)  # the Byzantine agents pull towards -x°
    assert np.allclose(a.iterates[0, 0], b.iterates[0, 0])


def test_noise_is_reproducible_and_has_the_planted_variance():
    prob, x_opt = _problem(3, N=5, d=4)
    kw = dict(n_byz=0, f=0, groups=[RowGroup(2000, None, {}, "mean")], rounds=1, step=0.1, local_steps=1,
              noise_std=0.5, record=[0, 1], keep_iterates=True, x0=x_opt)
    a = local_sgd_ce(prob, generator=torch.Generator().manual_seed(4), **kw)
    b = local_sgd_ce(prob, generator=torch.Generator().manual_seed(4), **kw)
    assert np.array_equal(a.gap, b.gap)
    step = a.iterates[:, 1] - x_opt.numpy()  # started at the optimum: only noise moves it, -alpha * mean of 5 draws
    assert np.mean(np.sum(step**2, 1)) == pytest.approx(0.1**2 * 0.5**2 * 4 / 5, rel=0.05)


def test_decaying_schedule_is_called_each_round():
    prob, _ = _problem(4)
    seen = []

    def schedule(k):
        seen.append(k)
        return 0.01 / (k + 1)

    local_sgd_ce(prob, n_byz=0, f=0, groups=[RowGroup(1, None, {}, "mean")], rounds=4, step=schedule,
                 generator=torch.Generator())
    assert seen == [0, 1, 2, 3]


def test_exact_gradients_converge_under_every_attack_of_the_library():
    prob, _ = gaussian_agents(20, 30, 3, torch.Generator().manual_seed(5))
    L = prob.constants(3)["L"].value
    groups = [RowGroup(1, a, kw) for a, kw in (("reference_random", {}), ("reference_sign_flip", {}),
                                               ("ce_evasion", {"q": 0.5}), ("alie", {"tau": -1.5}), ("large", {}))]
    tr = local_sgd_ce(prob, n_byz=3, f=3, groups=groups, rounds=150, step=0.5 / L, local_steps=3,
                      generator=torch.Generator().manual_seed(0))
    assert np.all(tr.gap[:, -1] <= 1e-20 * tr.gap[:, 0])


def test_bad_input_names_the_parameter():
    prob, _ = _problem(6)
    base = dict(n_byz=1, f=1, groups=[RowGroup(1, None)], rounds=2, step=0.1, generator=torch.Generator())
    for kw, name in [({"rounds": 0}, "rounds"), ({"n_byz": 7}, "n_byz"), ({"local_steps": 0}, "local_steps"),
                     ({"noise_std": -1.0}, "noise_std"), ({"groups": [RowGroup(1, "nope")]}, "attack"),
                     ({"groups": [RowGroup(1, None, {}, "nope")]}, "aggregator"), ({"step": torch.ones(3)}, "step"),
                     ({"record": [0, 5]}, "record")]:
        with pytest.raises(InputError) as info:
            local_sgd_ce(prob, **{**base, **kw})
        assert info.value.param == name


def test_common_random_numbers_share_the_noise_across_rows():
    """noise_rows: rows with one index see the same standard-normal draws (scaled by their own std), so two rows with
    the same rule and std are identical, and a row's noise does not depend on the other rows' rules."""
    prob, _ = _problem()
    groups = [RowGroup(2, "large", {"value": 5.0}, "ce"), RowGroup(2, "large", {"value": 5.0}, "ce")]
    kw = dict(n_byz=2, f=2, rounds=5, step=0.01, local_steps=2, noise_std=0.3, record=range(6))
    tr = local_sgd_ce(prob, groups=groups, generator=torch.Generator().manual_seed(1), noise_rows=[0, 1, 0, 1], **kw)
    assert np.array_equal(tr.gap[0], tr.gap[2]) and np.array_equal(tr.gap[1], tr.gap[3])
    assert not np.array_equal(tr.gap[0], tr.gap[1])
    with pytest.raises(InputError):
        local_sgd_ce(prob, groups=groups, generator=torch.Generator().manual_seed(1), noise_rows=[0, 1], **kw)


def _previous_round_loop(prob, *, n_byz, f, groups, rounds, step, generator, local_steps, noise_std, noise_rows=None):
    """The round loop as it was written before (the reference of the bitwise test): per local
    step alpha_k 1[T > t] and the noise widened with .to(float64), the received models by torch.cat, every row group
    copied into a new [B, d]. Returns the iterates of every round, ``[rounds + 1, B, d]``."""
    from verify.aggregators import AGGREGATORS
    from verify.attacks import ATTACKS

    B, d = sum(g.rows for g in groups), prob.dim
    T = torch.as_tensor(local_steps).expand(B)
    std = torch.as_tensor(noise_std, dtype=torch.float64).expand(B)
    x_star = prob.honest_average(n_byz).x_star.expand(B, -1)
    own = n_byz > 0 and any(g.attack is None for g in groups)
    local = prob if own else prob.select(slice(n_byz, None))
    n = local.n_clients
    xbar, out = torch.zeros(B, d, dtype=torch.float64), []
    for k in range(rounds):
        out.append(xbar)
        alpha = torch.as_tensor(step(k) if callable(step) else step, dtype=torch.float64).expand(B)
        X = xbar[:, None, :].expand(B, n, d)
        for t in range(int(T.max())):
            g = local.grad(X)
            shape = (B, n, d) if noise_rows is None else (int(max(noise_rows)) + 1, n, d)
            Z = torch.randn(shape, generator=generator, dtype=torch.float32).to(torch.float64)
            g = g + std[:, None, None] * (Z if noise_rows is None else Z[torch.as_tensor(noise_rows)])
            X = X - (alpha * (T > t).to(torch.float64))[:, None, None] * g
        Y = X if own else torch.cat([X.new_empty(B, n_byz, d), X], dim=1)
        new, start = torch.empty_like(xbar), 0
        for g in groups:
            sl = slice(start, start + g.rows)
            start += g.rows
            if g.attack is not None and n_byz:
                Y[sl, :n_byz] = ATTACKS[g.attack](Y[sl, n_byz:], n_byz, reference=xbar[sl], x_star=x_star[sl],
                                                  generator=generator, **g.attack_kwargs)
            agg = AGGREGATORS[g.aggregator]
            new[sl] = agg(Y[sl], f, reference=xbar[sl]) if g.aggregator == "ce" else agg(Y[sl], f)
        xbar = new
    out.append(xbar)
    return torch.stack(out).numpy()


@pytest.mark.parametrize("case", ["groups", "one_group", "schedule_and_shared_noise", "own_data_T1"])
def test_round_loop_gives_the_previous_iterates_bitwise(case):
    prob, _ = _problem(seed=3, N=9, l=8, d=4)
    G = RowGroup
    kw = {
        "groups": dict(n_byz=2, f=2, groups=[G(3, "ce_evasion", {"q": 0.5}), G(2, "reference_random", {"scale": 100.0}),
                                             G(2, "large", {"value": 1e3}, "mean")],
                       rounds=12, step=0.02, local_steps=torch.tensor([1, 3, 2, 3, 1, 3, 3]), noise_std=0.3),
        "one_group": dict(n_byz=3, f=3, groups=[G(5, "alie", {"tau": -1.5})], rounds=10, step=0.02, local_steps=2,
                          noise_std=torch.tensor([0.0, 0.1, 0.2, 0.0, 1.0])),
        "schedule_and_shared_noise": dict(n_byz=2, f=2, groups=[G(4, "reference_sign_flip", {"kappa": 1.0})], rounds=10,
                                          step=lambda k: 0.05 / (k + 1), local_steps=3, noise_std=0.5,
                                          noise_rows=[0, 1, 0, 1]),
        "own_data_T1": dict(n_byz=2, f=2, groups=[G(2, None), G(2, "large", {"value": 1e3})], rounds=8, step=0.02,
                            local_steps=1, noise_std=0.2),
    }[case]
    new = local_sgd_ce(prob, generator=torch.Generator().manual_seed(5), record=range(kw["rounds"] + 1),
                       keep_iterates=True, **kw)
    ref = _previous_round_loop(prob, generator=torch.Generator().manual_seed(5), **kw)
    assert np.array_equal(new.iterates, ref.transpose(1, 0, 2))
