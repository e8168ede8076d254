"""Pieces shared by the buttaci2024 check modules (no checks here): the three methods at the theorems'
step sizes, runs on the quadratic suites with the measurements the lemmas name, and the measured G^2."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from analytic.papers import buttaci2024 as B
from verify.algorithms.local_methods import MethodSpec, Trajectory, run_local_rounds
from verify.engine import Context
from verify.problems.buttaci2024_quadratic import QuadraticClients


#: buttaci2024's checks compute in float64 whatever the float32 option says: their identities hold to 1e-9..1e-12.
F64 = torch.float64


def f64(ctx: Context, x) -> torch.Tensor:
    """``x`` as a float64 tensor on the run's device."""
    return torch.as_tensor(x, dtype=F64, device=ctx.torch_device)


def says(ok: bool, held: str, failed: str) -> str:
    """The clause that matches the verdict (an explanation follows the verdict, not the expectation)."""
    return held if ok else failed


def theorem_method(kind: str, L: float, E: int, *, alpha: float = 0.0, beta: float = 1.0) -> MethodSpec:
    """FedAvg, FedProx or the perturbed method at the step of Theorem 1 (1/(2E(L+alpha))) or 3 (1/(2LE))."""
    return MethodSpec(kind, B.theorem_step(kind, L, E, alpha), alpha=alpha, beta=beta)


def lemma_values(m: MethodSpec, E: int, mu: float, L: float) -> dict:
    """The symbol values a method's factors and additive terms are evaluated at."""
    return {"mu": mu, "L": L, "gamma": m.gamma, "gamma_prev": m.gamma, "E": E, "alpha": m.alpha, "beta": m.beta}


@dataclass
class QuadraticRun:
    """A run on quadratic clients with what the lemmas name: D_t [T+1, K, R], the optimality gap
    f(wbar_t) - f_* [T+1, K, R], and G^2 (the largest replicate mean of ||g_i||^2 over the gradient points),
    global and per round (rounds t and t-1)."""

    traj: Trajectory
    D: np.ndarray
    gap: np.ndarray
    G2_global: np.ndarray  # [K]
    G2_round: np.ndarray  # [T, K]: max over rounds t and t-1


def run_quadratic(ctx: Context, prob: QuadraticClients, methods, w0, *, T: int, E: int, R: int, stream: str,
                  keep_local: bool = False) -> QuadraticRun:
    """Run ``methods`` on ``prob`` (noise from the named stream, shared by the methods) and measure."""
    w0 = f64(ctx, w0)
    with torch.inference_mode():  # many small steps: no autograd dispatch per op (the trajectory is only read after)
        traj = run_local_rounds(prob.oracle(ctx.generator(stream)), methods, prob.weights, w0, T=T, E=E, R=R,
                                record_grad_sq=True, keep_local=keep_local)
        w_star = f64(ctx, prob.w_star())
        D = ((traj.wbar - w_star) ** 2).sum(-1).cpu().numpy()
        gap = (prob.global_loss(traj.wbar) - float(np.max(prob.f_star()))).cpu().numpy()
    per_step = traj.grad_sq.cpu().numpy().max(axis=(1, 3))  # [T, K]: max over steps and clients
    G2_round = np.maximum(per_step, np.concatenate([per_step[:1], per_step[:-1]]))
    return QuadraticRun(traj, D, gap, per_step.max(0), G2_round)


def to_numpy(x: torch.Tensor) -> np.ndarray:
    return x.detach().cpu().numpy()
