"""allouah2025: searchable forms of Proposition 4.1, Appendix B and the Rényi accountant (``fedverify search``).

**c11, Proposition 4.1.** For 0 <= f < n/2, any x_1..x_n in R^d and S of size n - f:
||CAF(x) - xbar_S||^2 <= kappa lambda_max(Cov_S), kappa = 6f/(n-f) (1 + f/(n-2f))^2. Space: n = 7, f = 2, d = 2, every
input in [-1, 1]^2 (the ratio is invariant to translation and scale, so the box loses no generality up to the
inputs' aspect), S = the first n - f rows (the honest set; the last f rows are the Byzantine inputs the attacker
chooses, and the search also chooses the honest ones, as the proposition quantifies over all inputs).
Objective: ||CAF - xbar_S||^2 / (kappa lambda_max(Cov_S)) with the exact-eigen CAF (verify/aggregators/caf.py).
The check's own suite of 13 attack families reached about 0.21.

**c12, Appendix B.** sigma*^2 (the smallest top eigenvalue over CAF's iterations) <= 2n(n-f)/(n-2f)^2
lambda_max(Cov_S), on the same space.

**c10, the accountant against dp-accounting.** Our Rényi accountant (eq. (2) closed form of Lemma A.4, T-fold
composition, Balle et al.'s conversion at order alpha) against Google's dp-accounting (the Gaussian mechanism at the
noise multiplier of the matrix form of Lemma A.4, composed T times by its RdpAccountant, converted at the same
order): the relative gap of the RDP and of epsilon over sigma (sigma_cor = sigma_ind), T, q (colluding workers,
n = 10, f = 3) and alpha, divided by 1e-9 (> 1: the two accountants disagree beyond rounding). dp-accounting is a
test-only dependency: this objective raises a clear error when it is missing.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from analytic import privacy as P
from analytic.errors import InputError
from verify.aggregators.caf import caf_filter
from verify.checks.allouah2025.inputs import spread
from verify.search import Objective

N, F, D = 7, 2, 2
CAF_SPACE = {"x": (-1.0, 1.0, {"shape": (N, D)})}
_K = 6 * F / (N - F) * (1 + F / (N - 2 * F)) ** 2
_SIGMA_FACTOR = 2 * N * (N - F) / (N - 2 * F) ** 2


def _caf_parts(x):
    X = torch.as_tensor(np.asarray(x, dtype=float))
    with torch.no_grad():
        est, trace = caf_filter(X, F)
        mu, lam, _ = spread(X[:, : N - F])
    return est, trace, mu, lam


def _c11_batch(ctx, inst):
    est, _, mu, lam = _caf_parts(inst["x"])
    err = ((est - mu) ** 2).sum(-1)
    return torch.where(lam > 0, err / (_K * lam), torch.where(err > 0, torch.inf, 0.0)).numpy()


def _c12_batch(ctx, inst):
    _, trace, _, lam = _caf_parts(inst["x"])
    s2 = trace.sigma_star2
    return torch.where(lam > 0, s2 / (_SIGMA_FACTOR * lam), torch.where(s2 > 0, torch.inf, 0.0)).numpy()


def _planted_caf(ctx) -> dict:
    """A far-cluster attack: honest inputs at standard Gaussian points scaled into the box, f Byzantine at a corner."""
    g = ctx.numpy_rng("search/planted")
    honest = np.clip(0.3 * g.standard_normal((N - F, D)), -1, 1)
    return {"x": np.vstack([honest, np.full((F, D), 1.0)])}


C11_OBJECTIVE = Objective(batch=_c11_batch, planted=_planted_caf, budget=3000,
                          observed="||CAF - xbar_S||^2", bound="kappa lambda_max(Cov_S) (Proposition 4.1)")
C12_OBJECTIVE = Objective(batch=_c12_batch, planted=_planted_caf, budget=3000,
                          observed="sigma*^2 (smallest top eigenvalue over CAF's loop)",
                          bound="2n(n-f)/(n-2f)^2 lambda_max(Cov_S) (Appendix B)")


# -- c10: our accountant against dp-accounting ---------------------------------------------------------------------
ACC_N, ACC_F, ACC_C, ACC_DELTA, GAP_TOLERANCE = 10, 3, 1.0, 1e-5, 1e-9
C10_SPACE = {"sigma": (0.1, 100.0, {"log": True}), "T": range(1, 10_001), "q": range(0, ACC_F + 1),
             "alpha": (1.01, 256.0, {"log": True})}


def _dp_accounting():
    try:
        import dp_accounting
        from dp_accounting.rdp import RdpAccountant
    except ImportError:
        raise InputError("ID", "allouah2025.c10's search compares with dp-accounting, a test-only dependency: "
                               "pip install 'fedverify[test]' (or dp-accounting)") from None
    return dp_accounting, RdpAccountant


def accountant_gap(sigma: float, T: int, q: int, alpha: float) -> dict:
    """Relative gaps |ours/theirs - 1| of the T-step RDP at ``alpha`` and of epsilon at delta (see the module)."""
    dp_accounting, RdpAccountant = _dp_accounting()
    s2 = float(sigma) ** 2
    eps_step = P.secldp_rdp_step(ACC_N, ACC_F, int(q), s2, s2, ACC_C)  # eq. (2), closed form
    rdp_ours = float(P.compose(float(alpha) * eps_step, int(T)))
    eps_ours = P.epsilon_balle_grid([float(alpha)], [rdp_ours], ACC_DELTA).epsilon
    Sigma = P.server_view_covariance(ACC_N, ACC_F, int(q), s2, s2)  # Lemma A.4's matrix form
    sigma_eff2 = 1.0 / float(np.diag(np.linalg.solve(Sigma, np.eye(Sigma.shape[0]))).max())
    acc = RdpAccountant(orders=[float(alpha)])
    acc.compose(dp_accounting.GaussianDpEvent(math.sqrt(sigma_eff2) / (2 * ACC_C)), int(T))
    rdp_theirs = float(np.asarray(acc._rdp).ravel()[0])
    eps_theirs = float(acc.get_epsilon(ACC_DELTA))
    return {"rdp": abs(rdp_ours / rdp_theirs - 1), "epsilon": abs(eps_ours / eps_theirs - 1)}


def _c10_score(ctx, sigma, T, q, alpha) -> float:
    gaps = accountant_gap(sigma, T, q, alpha)
    return max(gaps.values()) / GAP_TOLERANCE


C10_OBJECTIVE = Objective(score=_c10_score, planted={"sigma": 2.0, "T": 1000, "q": ACC_F, "alpha": 8.0}, budget=400,
                          observed="max relative gap of RDP and epsilon, ours vs dp-accounting",
                          bound=f"{GAP_TOLERANCE:g} (rounding)")


# -- x01: the last step of Proposition 4.1's proof, for every 0 < f < n/2 --------------------------------------------
X01_SPACE = {"n": range(3, 100_001), "f": range(1, 50_000)}


def _x01_batch(ctx, x):
    """(3f/(n-f))(1 + n(n-f)/(n-2f)^2) / kappa: the constant the proof's Jensen step gives over Proposition 4.1's."""
    n, f = np.asarray(x["n"], dtype=float), np.asarray(x["f"], dtype=float)
    constant = 3 * f / (n - f) * (1 + n * (n - f) / (n - 2 * f) ** 2)
    return constant / (6 * f / (n - f) * (1 + f / (n - 2 * f)) ** 2)


X01_OBJECTIVE = Objective(batch=_x01_batch, constraint=lambda inst: 2 * int(inst["f"]) < int(inst["n"]),
                          planted={"n": 10, "f": 3}, budget=2000,
                          observed="(3f/(n-f))(1 + n(n-f)/(n-2f)^2) (the proof's last step, weights 1/3, 2/3)",
                          bound="kappa = 6f/(n-f) (1 + f/(n-2f))^2 (Proposition 4.1)")
