"""Federated-Clustering on werner2023's Example 1 (losses (2)-(4), Fig. 1(a)): the run that both the
counterexample (counterexamples/example1_myopic.py) and Federated-Clustering's own claims
(:mod:`verify.checks.werner2023.fc_claims`) make.

All clients start at x_0 = 1.5; Algorithm 2 runs M = 10 Threshold-Clustering steps with radius tau = s/eta. The
eta-scaled gradients at x = 1 are (1/3, 0, -1) and at x = 2 are (2/3, 1, 0), hence the working window s in
[1/3, 2/3) (docs/papers/werner2023.md, Example 1). Client 2 counts as converged when every client ends within
``CONV_TOL`` of its own optimum (0, 0, 2).
"""
from __future__ import annotations

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
