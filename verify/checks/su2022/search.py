"""su2022: Theorem 2's basin of attraction, searchable (``fedverify search su2022.c21``, verify/search/).

Theorem 2 with Lemma 10 (Appendix B.2): Phase 2 converges from *every* start theta with d(theta, theta*) <=
(sqrt(alpha/beta)/3) Delta. c21 probes the ball along random directions; the search plays the adversary and
looks for the start at which Phase 2 alone fails. Space: one federation of the check's family (k = 3 clusters in
R^10, 100 clients with Pareto sizes, tail 2, Delta = 1, sigma = 0.1, FedAvg with s = 5 local steps at the check's
step, 60 rounds) and the start theta_j = theta*_j + rho_j r v_j/||v_j||, with r the Lemma 10 radius of the instance,
rho_j in [0, 1] and v_j in [-1, 1]^10: every point of the space lies in the ball (per centre, so d(theta, theta*) <= r
under every matching of the centres).

Objective: the check's failure score, max(d(theta_60, theta*)/(Delta/4), misassigned data share/0.1): success
(docs/papers/su2022.md §6) is both parts <= 1, so a ratio > 1 is a start in the basin where Phase 2 fails.
"""
from __future__ import annotations

import functools

import numpy as np
import torch

from analytic.papers import su2022 as S
from verify.search import Objective

K, D, CLIENTS, TAIL, ROUNDS, S_LOCAL = 3, 10, 100, 2.0, 60, 5


@functools.lru_cache(maxsize=2)
def _federation(seed: int, check_id: str):
    from verify.checks.su2022.common import DELTA, federation
    from verify.engine import Context
    from verify.problems.mixed_regression import pareto_sizes

    ctx = Context(seed=seed).for_check(check_id)
    fed = federation(ctx, "search/federation", 1, pareto_sizes(CLIENTS, TAIL, ctx.generator("search/sizes")), k=K, d=D)
    radius = float(S.BASIN_RADIUS(alpha=float(fed.model.alpha[0]), beta=float(fed.model.beta[0]), Delta=DELTA))
    return fed, radius, fed.eta_for_gamma(0.5 / S_LOCAL), DELTA


def _repeat(fed, B: int):
    """The one-replicate federation ``fed`` as B identical replicates (every tensor with a replicate axis)."""
    from dataclasses import replace

    rep = lambda t: t.expand(B, *t.shape[1:]).contiguous()  # noqa: E731
    model = replace(fed.model, theta=rep(fed.model.theta), cov=rep(fed.model.cov), p=rep(fed.model.p))
    return replace(fed, model=model, z=rep(fed.z), X=rep(fed.X), y=rep(fed.y), zeta=rep(fed.zeta), _cache={})


def _c21_batch(ctx, x):
    from verify.algorithms.two_phase import fedx_clustering

    fed1, radius, eta, delta = _federation(ctx.seed, ctx.check_id)
    rho = torch.as_tensor(np.asarray(x["rho"], dtype=float))  # [B, K]
    v = torch.as_tensor(np.asarray(x["v"], dtype=float))  # [B, K, D]
    B = rho.shape[0]
    fed = _repeat(fed1, B)
    u = v / torch.linalg.vector_norm(v, dim=-1, keepdim=True).clamp_min(1e-300)
    theta0 = fed.model.theta + (radius * rho)[..., None] * u
    tr = fedx_clustering(fed, theta0, eta.expand(B), ROUNDS, s=S_LOCAL, checkpoints=[ROUNDS])
    err = (tr.error[-1] / (delta / 4)).cpu().numpy()
    wrong = (tr.wrong_data[-1] / 0.1).cpu().numpy()
    return np.maximum(err, wrong)


C21_SPACE = {"rho": (0.0, 1.0, {"shape": K}), "v": (-1.0, 1.0, {"shape": (K, D)})}
C21_OBJECTIVE = Objective(
    batch=_c21_batch, budget=300,
    constraint=lambda inst: bool(np.all(np.linalg.norm(np.asarray(inst["v"]), axis=-1) > 1e-9)),
    planted={"rho": np.ones(K), "v": np.tile(np.eye(D)[0], (K, 1))},
    observed="max(d(theta_60, theta*)/(Delta/4), misassigned data share/0.1) (failure score; success <= 1)",
    bound="1 (Phase 2 succeeds from every start within the Lemma 10 radius)")
