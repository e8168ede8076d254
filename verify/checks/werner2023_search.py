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
"""
from __future__ import annotations

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
