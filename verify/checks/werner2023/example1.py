"""Federated-Clustering on werner2023's Example 1 (losses (2)-(4), Fig. 1(a)): the run that both the
counterexample (counterexamples/example1_myopic.py) and Federated-Clustering's own claims
(:mod:`verify.checks.werner2023.fc_claims`) make.

All clients start at x_0 = 1.5; Algorithm 2 runs M = 10 Threshold-Clustering steps with radius tau = s/eta. The
eta-scaled gradients at x = 1 are (1/3, 0, -1) and at x = 2 are (2/3, 1, 0), hence the working window s in
[1/3, 2/3) (docs/papers/werner2023.md, Example 1). Client 2 counts as converged when every client ends within
``CONV_TOL`` of its own optimum (0, 0, 2).
"""
from __future__ import annotations

from fractions import Fraction

import torch

from verify.algorithms.federated_clustering import federated_clustering
from verify.engine import Context
from verify.problems.toys import Example1

X0, K, M_STEPS = 1.5, 2, 10
CONV_TOL = 1e-3


def run_fc(ctx: Context, etas, s, T: int, fc=federated_clustering, record_pairs: bool = False, x0: float = X0):
    """Algorithm 2 on Example 1 for each (eta, s) pair (one replicate each), tau = s / eta, every client from ``x0``."""
    eta, s = ctx.tensor(list(etas)), ctx.tensor(list(s))
    x0 = torch.full((len(etas), 3, 1), float(x0), dtype=ctx.dtype, device=ctx.torch_device)
    return fc(Example1(eta), x0, eta, T, s / eta, steps=M_STEPS, record_pairs=record_pairs)


def fc_converged(x_T: torch.Tensor, tol: float = CONV_TOL) -> torch.Tensor:
    """``[R, 3]`` final models -> bool ``[R]``: |x_1|, |x_2| < tol and |x_3 - 2| < tol."""
    target = torch.tensor([0.0, 0.0, 2.0], dtype=x_T.dtype, device=x_T.device)
    return ((x_T - target).abs() < tol).all(-1)


def example1_multipliers(eta: Fraction = Fraction(1, 2), M: int = M_STEPS) -> dict:
    """Exact derivative at x = 0 of client 2's clustered update x -> x - eta v(x), for each ball client 2 can see near 0.

    Near 0 (eta-independent shapes): g_1 = x/(3 eta), g_2 = 12 (x-1)^2 x (so g_2'(0) = 12), g_3 = (x-2)/eta (-2/eta at 0).
    Threshold-Clustering (N = 3) from v_0 = g_2 with a ball S fixed over its M steps: v_M = m_S + (1 - |S|/3)^M (g_2 - m_S).
    Ball {2}: v = g_2; ball {1, 2}: v' = m' + (1/3)^M (g_2' - m'), m' = (g_1' + g_2')/2; a ball containing 3 has v(0) != 0,
    so x = 0 is not even a fixed point. Returns the multipliers and v(0) exactly."""
    g1p, g2p, g3_0 = 1 / (3 * eta), Fraction(12), -2 / eta
    m12 = (g1p + g2p) / 2
    v12p = m12 + Fraction(1, 3) ** M * (g2p - m12)
    v123_0 = g3_0 / 3  # p = 1: one step lands on the mean (0 + 0 + g_3(0))/3
    v23_0 = (g3_0 / 2) * (1 - Fraction(1, 3) ** M)  # from v_0 = g_2(0) = 0 towards m = g_3(0)/2
    return {"ball {2}": 1 - eta * g2p, "ball {1,2}": 1 - eta * v12p, "v(0), ball {1,2,3}": v123_0, "v(0), ball {2,3}": v23_0,
            "stable_eta_limit_ball_12": Fraction(11, 36)}

