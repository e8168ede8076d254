"""dutta2023: Theorem 1 against an adaptive attacker, searchable (``fedverify search``, verify/search/).

Theorem 1 with exact gradients (sigma = 0) says e_k <= (1 - alpha mu T/36)^k e_0 under *every* attack, for a
constant step alpha <= mu/(72 L^2 T) (eq. (8)) with f/(N-f) <= mu/(3L) (eq. (9)) and 2f-redundancy. Its k = 1
case is a claim about one round from any start x_0: e_1 <= rho e_0, rho = 1 - alpha mu T/36. The search plays an
adaptive attacker inside the threat model: it sees x_0 and x*_H and chooses the f Byzantine vectors
x_0 + alpha T L ||x_0 - x*_H|| v_j (v_j in [-3, 3]^d; any vector is admissible; the box is three times the
largest distance an honest agent's local steps can move, so the attacker can hide among the kept vectors), together with the start direction x_0 - x*_H in [-1, 1]^d (the round is positively
homogeneous in it, so its scale is free). The honest agents of the check's LS-in-regime instance (N = 50, f = 5,
d = 5, exact L and mu) run T = 1 exact local step at the largest step of eq. (8); the server keeps the N - f
vectors closest to x_0 (comparative elimination) and averages them.

Objective: (1 - rho) / (1 - e_1/e_0), promised contraction over achieved (+inf when the round does not contract):
> 1 is a violation of the theorem at k = 1.
"""
from __future__ import annotations

import functools

import numpy as np
import torch

from verify.aggregators.ce import comparative_elimination
from verify.search import Objective

F, T_LOCAL, BOX = 5, 1, 3.0


@functools.lru_cache(maxsize=4)
def _instance(seed: int, check_id: str):
    from verify.checks.dutta2023.common import ls_instance
    from verify.engine import Context

    inst = ls_instance(Context(seed=seed).for_check(check_id), n_byz=F)
    alpha = inst.mu / (72 * inst.L ** 2 * T_LOCAL)
    rho = 1 - alpha * inst.mu * T_LOCAL / 36
    return inst, alpha, rho, inst.problem.select(slice(F, None)), inst.problem.honest_average(F)


def _c10_batch(ctx, x):
    inst, alpha, rho, local, objective = _instance(ctx.seed, ctx.check_id)
    dt = torch.float64
    delta = torch.as_tensor(np.asarray(x["direction"], dtype=float), dtype=dt)  # [B, d]
    v = torch.as_tensor(np.asarray(x["byzantine"], dtype=float), dtype=dt)  # [B, F, d]
    B, d = delta.shape
    x_star = objective.x_star.expand(B, -1).to(dt)
    x0 = x_star + delta
    with torch.no_grad():
        X = x0[:, None, :].expand(B, local.n_clients, d)
        for _ in range(T_LOCAL):
            X = X - alpha * local.grad(X)
        byz = x0[:, None, :] + (alpha * T_LOCAL * inst.L) * delta.norm(dim=-1)[:, None, None] * v
        x1 = comparative_elimination(torch.cat([byz, X], dim=1), F, reference=x0)
        e0, e1 = objective.gap(x0), objective.gap(x1)
    q = (e1 / e0).numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((q < 1) & (e0.numpy() > 0), (1 - rho) / (1 - q), np.inf)


C10_SPACE = {"direction": (-1.0, 1.0, {"shape": 5}), "byzantine": (-BOX, BOX, {"shape": (F, 5)})}
C10_OBJECTIVE = Objective(
    batch=_c10_batch, budget=2000,
    constraint=lambda inst: float(np.sum(np.asarray(inst["direction"]) ** 2)) > 1e-12,
    planted={"direction": np.ones(5) / np.sqrt(5), "byzantine": np.tile(-np.ones(5) / np.sqrt(5), (F, 1))},
    observed="1 - rho (the contraction Theorem 1 promises in one round, rho = 1 - alpha mu T/36)",
    bound="1 - e_1/e_0 (the contraction achieved under the attack)")
