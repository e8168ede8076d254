"""werner2023: searchable forms of Lemma 1 (``fedverify search``, verify/search/).

**c18, Lemma 1 eq. (19) as printed (the max-form).** For clients i !~ j in different clusters and all x:
||grad f_i(x) - grad f_j(x)||^2 >= 1/2 max_{j' !~ i} ||grad f_j'(x_i^*)||^2 - D^2 ||grad f_i(x)||^2, D^2 = 2(1 + (L/mu)^2).
Space: d = 1, three singleton clusters f_i(x) = h_i (x - c_i)^2 / 2 with curvature h_i in [mu, L] (mu = 1, L/mu in
[1, 10]: h_i = 1 + t_i (L/mu - 1), t in [0, 1]^3) and optima c in [-10, 10]^3, distinct clusters at least 1 apart
(the constraint). For quadratics the exact minimum over x of the left side plus D^2 ||grad f_i||^2 is a closed form:
min_x (a x - b)^2 + D^2 h_i^2 (x - c_i)^2 = D^2 h_i^2 h_j^2 (c_j - c_i)^2 / ((h_i - h_j)^2 + D^2 h_i^2), a = h_i - h_j,
b = h_i c_i - h_j c_j. Objective: the largest (printed right side + D^2 ||grad f_i||^2 part moved left) ratio
1/2 max_{j'} h_j'^2 (c_i - c_j')^2 / min_x(...) over ordered pairs: > 1 is the erratum the check reports.

**c17, Lemma 1 eq. (18).** A^2 <= (2L/mu)^2 for clients of one cluster sharing its optimum: A^2 = max_i
sup_x ||grad f_i - grad fbar||^2 / ||grad fbar||^2 = max_i ||(H_i - Hbar) Hbar^{-1}||_2^2 (exact, y = Hbar (x - c)).
Space: one cluster of 3 clients in R^2, H_i = R(theta_i) diag(h_i) R(theta_i)^T with eigenvalues in [mu, L] = [1, L/mu],
L/mu in [1, 10] (log). Objective: A^2 / (2L/mu)^2.

**c13, Theorem 3.1's Byzantine term (Definition 1).** b Byzantine points per center add at most beta sigma Delta to
Threshold-Clustering's error. The check places them at the edge of the ball (the paper's worst case); the search lets
the attacker choose, per center, where inside the ball they sit (v_k + tau s_k u_k, s_k in [0, 1], u_k any direction,
recomputed from the current center every step), on the check's setting (K = 4, n = 64, d = 10, sigma = 1,
Delta = 64, b = 8, 40 steps >= eq. (13)'s requirement), 8 replicates of fixed points (common random numbers: the
excess over the clean run is a paired difference). Objective: mean excess / (beta sigma Delta).
"""
from __future__ import annotations

import functools

import numpy as np
import torch

from verify.search import Objective

C18_SPACE = {"L_over_mu": (1.0, 10.0), "t": (0.0, 1.0, {"shape": 3}), "c": (-10.0, 10.0, {"shape": 3})}
MIN_SEPARATION = 1.0


def _c18_torch(ctx, x):
    kappa = torch.as_tensor(x["L_over_mu"], dtype=torch.float64)
    t, c = torch.as_tensor(x["t"], dtype=torch.float64), torch.as_tensor(x["c"], dtype=torch.float64)
    h = 1.0 + t * (kappa[:, None] - 1.0)  # [B, 3], in [mu, L] with mu = 1
    D2 = 2.0 * (1.0 + kappa ** 2)[:, None, None]
    hi, hj = h[:, :, None], h[:, None, :]
    ci, cj = c[:, :, None], c[:, None, :]
    exact = D2 * hi ** 2 * hj ** 2 * (cj - ci) ** 2 / ((hi - hj) ** 2 + D2 * hi ** 2)  # [B, i, j]
    g2 = hj ** 2 * (ci - cj) ** 2  # ||grad f_j(x_i^*)||^2
    off = ~torch.eye(3, dtype=torch.bool)
    g2max = torch.where(off, g2, torch.zeros_like(g2)).amax(-1, keepdim=True)  # max over j' != i
    ratio = (g2max / 2) / exact
    return torch.where(off, ratio, torch.full_like(ratio, -torch.inf)).flatten(1).amax(-1)


def _c18_batch(ctx, x):
    with torch.no_grad():
        return _c18_torch(ctx, {k: torch.as_tensor(np.asarray(v, dtype=float)) for k, v in x.items()}).numpy()


def _separated(inst) -> bool:
    c = np.asarray(inst["c"], dtype=float)
    return bool(np.min(np.abs(c[:, None] - c[None, :])[~np.eye(3, dtype=bool)]) >= MIN_SEPARATION)


C18_OBJECTIVE = Objective(
    batch=_c18_batch, torch=_c18_torch, constraint=_separated, budget=1000,
    planted={"L_over_mu": 1.0, "t": [0.0, 0.0, 0.0], "c": [0.0, 5.0, -5.0]},
    observed="1/2 max_{j' !~ i} ||grad f_j'(x_i^*)||^2 (eq. (19) as printed)",
    bound="min_x ||grad f_i - grad f_j||^2 + D^2 ||grad f_i||^2 (exact, worst ordered pair)")


C17_SPACE = {"L_over_mu": (1.0, 10.0, {"log": True}), "t": (0.0, 1.0, {"shape": (3, 2)}),
             "theta": (0.0, float(np.pi), {"shape": 3})}


def _c17_torch(ctx, x):
    kappa = torch.as_tensor(x["L_over_mu"], dtype=torch.float64)
    t, th = torch.as_tensor(x["t"], dtype=torch.float64), torch.as_tensor(x["theta"], dtype=torch.float64)
    lam = 1.0 + t * (kappa[:, None, None] - 1.0)  # [B, 3, 2] eigenvalues in [1, L/mu]
    cos, sin = torch.cos(th), torch.sin(th)
    Rm = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)  # [B, 3, 2, 2]
    H = Rm @ torch.diag_embed(lam) @ Rm.transpose(-1, -2)
    Hbar = H.mean(1, keepdim=True)
    M = (H - Hbar) @ torch.linalg.inv(Hbar)
    A2 = torch.linalg.matrix_norm(M, ord=2).amax(-1) ** 2
    return A2 / (2.0 * kappa) ** 2


def _c17_batch(ctx, x):
    with torch.no_grad():
        return _c17_torch(ctx, {k: torch.as_tensor(np.asarray(v, dtype=float)) for k, v in x.items()}).numpy()


C17_OBJECTIVE = Objective(
    batch=_c17_batch, torch=_c17_torch, budget=1500,
    planted={"L_over_mu": 10.0, "t": [[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]], "theta": [0.0, 0.0, 0.0]},
    observed="A^2 = max_i ||(H_i - Hbar) Hbar^{-1}||^2 (exact)", bound="(2L/mu)^2 (Lemma 1, eq. (18))")


# -- c13: Theorem 3.1's Byzantine term against an attacker that chooses where, within the ball, to sit -------------
C13_N, C13_DELTA, C13_B, C13_STEPS, C13_R, C13_K, C13_D, C13_SIGMA = 64, 64.0, 8, 40, 8, 4, 10, 1.0
C13_SPACE = {"s": (0.0, 1.0, {"shape": C13_K}), "u": (-1.0, 1.0, {"shape": (C13_K, C13_D)})}


@functools.lru_cache(maxsize=2)
def _c13_data(seed: int, check_id: str):
    from analytic.papers import werner2023 as W
    from verify.algorithms.threshold_clustering import Radius, threshold_clustering
    from verify.engine import Context
    from verify.problems.points import clustered_points

    ctx = Context(seed=seed).for_check(check_id)
    data = clustered_points(C13_R, C13_K, C13_N, C13_D, C13_SIGMA, C13_DELTA, ctx.generator("search/points"), ctx.dtype)
    radius = Radius.theory(1.0 / C13_K, C13_SIGMA, C13_DELTA)
    V0 = data.own_point_init("first")
    V, _ = threshold_clustering(data.Z, V0, radius, C13_STEPS)
    clean = float(((V - data.means[None]) ** 2).sum(-1).mean(-1).mean())
    beta = C13_B / (C13_K * C13_N + C13_B)
    bound = float(W.BYZANTINE_TERM(beta=beta, sigma=C13_SIGMA, Delta=C13_DELTA))
    return data, radius, V0, clean, bound


def _c13_batch(ctx, x):
    """Mean excess error over the clean run (same points, common random numbers) / (beta sigma Delta)."""
    from verify.algorithms.threshold_clustering import threshold_clustering

    data, radius, V0, clean, bound = _c13_data(ctx.seed, ctx.check_id)
    s = torch.as_tensor(np.asarray(x["s"], dtype=float))  # [B, K]
    u = torch.as_tensor(np.asarray(x["u"], dtype=float))  # [B, K, d]
    B = s.shape[0]
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True).clamp_min(1e-300)
    s_rep, u_rep = s.repeat_interleave(C13_R, 0), u.repeat_interleave(C13_R, 0)  # [B R, K], [B R, K, d]

    def attack(V, tau, step):  # b points per center at v_k + tau s_k u_k (s_k <= 1: inside the ball)
        pt = V + (tau * (1.0 - 1e-9) * s_rep)[..., None] * u_rep
        return pt[:, :, None, :].expand(-1, -1, C13_B, -1)

    Z, V0b = data.Z.repeat(B, 1, 1), V0.repeat(B, 1, 1)
    with torch.no_grad():
        V, _ = threshold_clustering(Z, V0b, radius, C13_STEPS, attack=attack)
    err = ((V - data.means[None]) ** 2).sum(-1).mean(-1).reshape(B, C13_R).mean(1)
    return ((err - clean) / bound).numpy()


C13_OBJECTIVE = Objective(
    batch=_c13_batch, budget=160,
    constraint=lambda inst: bool(np.all(np.linalg.norm(np.asarray(inst["u"]), axis=-1) > 1e-9)),
    planted={"s": np.ones(C13_K), "u": np.tile(np.eye(C13_D)[0], (C13_K, 1))},  # the edge-of-ball attack, one direction
    observed="excess error of Threshold-Clustering under b = 8 attackers per center (n = 64, Delta = 64)",
    bound="beta sigma Delta (Theorem 3.1, third term of eq. (14))")
