"""StepCache keeps per run what every step recomputed (the rounding factor c, its tau term, tau itself for the radius
it was made with): the stale rows and the steps are bitwise those of the former per-step formulas."""
import torch

from verify.aggregators.classic import gram_error_factor
from verify.algorithms.threshold_clustering import (RowRadius, StepCache, edge_of_ball_attack, step_cache,
                                                    threshold_step)


def _points(R=6, N=30, d=5, K=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    Z = torch.randn(R, N, d, generator=g, dtype=torch.float64)
    return Z, Z[:, :K].clone(), g


def _former_stale_rows(cache: StepCache, V):
    c = gram_error_factor(V.shape[-1])
    moved = torch.linalg.vector_norm(V[:, None] - cache.anchor, dim=-1)
    safe = moved * (1.0 + c) + c * cache.tau[:, None] < cache.slack * (1.0 - c)
    return (~safe.any(1).all(-1)).nonzero()[:, 0]


def test_stale_rows_match_former_formula():
    Z, V, g = _points()
    tau = torch.full((6, 2), 1.5, dtype=torch.float64)
    cache = StepCache(Z, 2, tau)
    cache.anchor.copy_(V[:, None] + 0.01 * torch.randn(cache.anchor.shape, generator=g, dtype=torch.float64))
    for slack in (0.0, 0.02, 5.0):  # edge cases: every row stale (slack 0), some, none
        cache.slack.fill_(slack)
        cache.slack[::2] = 0.0 if slack else cache.slack[::2]
        assert torch.equal(cache.stale_rows(V), _former_stale_rows(cache, V))


def test_steps_with_the_cache_radius_match_an_equal_radius():
    Z, V, g = _points(seed=1)
    u = torch.randn(6, 5, generator=g, dtype=torch.float64)
    attack = edge_of_ball_attack(u / u.norm(dim=-1, keepdim=True), 2)
    rad = RowRadius(torch.full((6, 2), 1.2, dtype=torch.float64))
    twin = RowRadius(rad.tau.clone())  # equal values, another object: tau recomputed and compared each step
    ca, cb = step_cache(Z, V, rad), step_cache(Z, V, rad)
    va, vb = V.clone(), V.clone()
    for step in range(1, 8):
        va, ia = threshold_step(Z, va, rad, attack=attack, step=step, want_inside=True, cache=ca)
        vb, ib = threshold_step(Z, vb, twin, attack=attack, step=step, want_inside=True, cache=cb)
        assert torch.equal(va, vb) and torch.equal(ia, ib)
