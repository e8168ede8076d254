"""What the dutta2023 check modules share: the docs/papers/dutta2023.md §5.5 instances with their exact constants, the attack
library A1-A6 (docs/papers/dutta2023.md §2.5), runs of Algorithm 1 laid out as row configurations, floors and fit windows.

Conventions (docs/papers/dutta2023.md §5.5): N = 50 agents, Byzantine agents are 0..n_byz-1, x_0 = 0, LS-in-regime is least
squares with l = 2000, d = 5 (mu/L ~ 0.88, so condition (9) allows f <= 11), P1-Gauss is problem (11)
with l = 100, d = 10. One instance per check (its data from the stream ``data``); replicates are runs of
the gradient noise and of the random attack on that instance, as Theorem 1's expectation is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from analytic.constants import Constant
from analytic.papers import dutta2023 as D
from verify.algorithms.local_sgd_ce import RowGroup, Trajectory, local_sgd_ce
from verify.engine import Context, log_checkpoints
from verify.problems import dutta2023_problems as P
from verify.problems.least_squares import RegressionAgents

N_AGENTS = 50

#: The attack library of docs/papers/dutta2023.md §2.5: name -> (registered attack or None for data poisoning, its parameters).
ATTACK_LIBRARY: dict[str, tuple[str | None, dict]] = {
    "A1": ("reference_random", {"scale": 100.0}),
    "A2": ("reference_sign_flip", {"kappa": 1.0}),
    "A3": ("ce_evasion", {"q": 0.5}),
    "A4": ("alie", {"tau": -1.5}),
    "A5": (None, {}),  # label flip: the Byzantine agents run the protocol on b <- -b
    "A6": ("large", {"value": 1e3}),
}
ATTACK_NAMES = {"A1": "random (far)", "A2": "sign flip", "A3": "CE evasion", "A4": "ALIE", "A5": "label flip",
                "A6": "large value", None: "none"}


@dataclass(frozen=True)
class Instance:
    """A least-squares instance and the exact constants of its honest agents (Assumptions 1-2)."""

    problem: RegressionAgents
    x_opt: torch.Tensor  # x°, the planted model
    L: float
    mu: float
    constants: dict


def ls_instance(ctx: Context, *, n_byz: int = 0, rows: int = 2000, dim: int = 5, label_noise: float = 0.0,
                stream: str = "data") -> Instance:
    """LS-in-regime (or another least-squares instance) with its exact L and mu over the honest agents."""
    prob, x_opt = P.build("ls", ctx.generator(stream), N=N_AGENTS, rows=rows, dim=dim, label_noise=label_noise,
                          dtype=ctx.dtype, device=ctx.torch_device)
    consts = prob.constants(n_byz)
    return Instance(prob, x_opt, consts["L"].value, consts["mu"].value, consts)


def composite_instance(ctx: Context, kind: str, *, rows: int = 100, dim: int = 10, isotropic: bool = False,
                       label_noise: float = 0.0, stream: str = "data") -> tuple[RegressionAgents, torch.Tensor, Constant]:
    """P1 / P1-nc / P2 instance (all agents honest) with its exact L (or infinite L for P2)."""
    prob, x_opt = P.build(kind, ctx.generator(stream), N=N_AGENTS, rows=rows, dim=dim, isotropic=isotropic,
                          label_noise=label_noise, dtype=ctx.dtype, device=ctx.torch_device)
    return prob, x_opt, P.exact_smoothness(prob)


def average_functions(problem: RegressionAgents, first_honest: int = 0):
    """(gap, grad, x*) of q^H as numpy callables of points [M, d] (exact gaps, no cancellation)."""
    avg = problem.row(0).honest_average(first_honest)
    dev, dt = problem.G.device, problem.G.dtype
    last: dict = {}

    def both(X):  # the estimators ask for the gap and the gradient at the same points: compute them once
        if last.get("X") is not X:
            x = torch.tensor(np.asarray(X, dtype=float), dtype=dt, device=dev)
            gap, grad = avg.gap_and_grad(x)
            last.update(X=X, gap=gap.cpu().numpy(), grad=grad.cpu().numpy())
        return last

    return (lambda X: both(X)["gap"]), (lambda X: both(X)["grad"]), avg.x_star[0].cpu().numpy()


# -- runs laid out as row configurations ------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One configuration of a run: ``reps`` rows with one attack (A1-A6 or None), aggregation rule, step size
    (or decaying-schedule constant ``c``), local steps and per-coordinate noise std."""

    attack: str | None = None
    aggregator: str = "ce"
    alpha: float = 0.0
    T: int = 1
    std: float = 0.0
    reps: int = 1
    c: float = 0.0  # decaying schedule alpha_k = min(alpha, c/(k + k0)) when the run has k0
    label: str = ""


def record_rounds(K: int, tail: float = 0.2, dense: bool = False, stride: int = 1) -> np.ndarray:
    """Log-spaced checkpoints with round 0, plus every ``stride``-th round of the last ``tail`` fraction (floors),
    or all rounds (``dense``)."""
    if dense:
        return np.arange(K + 1)
    return np.union1d(log_checkpoints(K, num=40, include_zero=True),
                      np.arange(K, int(math.floor((1 - tail) * K)) - 1, -stride))


def simulate(ctx: Context, problem: RegressionAgents, configs: list[Config], *, f: int, n_byz: int, rounds: int,
             stream: str, record=None, k0: float | None = None, agent_grad_sq: bool = False,
             keep_iterates: bool = False, x0: torch.Tensor | None = None,
             noise_rows=None) -> tuple[Trajectory, list[slice]]:
    """Run Algorithm 1 with one row group per configuration (consecutive rows) and return the trajectory and
    each configuration's rows. A5 rows run on label-flipped Byzantine data. ``noise_rows``: common random numbers
    (rows with one index share their gradient noise, :func:`local_sgd_ce`)."""
    slices, groups, start = [], [], 0
    for cf in configs:  # consecutive configurations with one attack and rule share a row group (one call per round)
        name, kw = ATTACK_LIBRARY[cf.attack] if cf.attack else (None, {})
        if groups and (groups[-1].attack, groups[-1].aggregator, groups[-1].attack_kwargs) == (name, cf.aggregator, kw):
            groups[-1] = replace(groups[-1], rows=groups[-1].rows + cf.reps)
        else:
            groups.append(RowGroup(cf.reps, name, kw, cf.aggregator, {}, ATTACK_NAMES[cf.attack]))
        slices.append(slice(start, start + cf.reps))
        start += cf.reps
    rep = lambda attr: torch.tensor(np.repeat([getattr(c, attr) for c in configs], [c.reps for c in configs]),  # noqa: E731
                                    device=ctx.torch_device)
    alpha, T, std, c = rep("alpha").to(ctx.dtype), rep("T").long(), rep("std").to(ctx.dtype), rep("c").to(ctx.dtype)
    flip = torch.tensor(np.repeat([cf.attack == "A5" for cf in configs], [cf.reps for cf in configs]), device=ctx.torch_device)
    if bool(flip.any()) and n_byz > 0:
        problem = P.label_flip(problem, n_byz, flip)
    step = alpha if k0 is None else (lambda k: torch.minimum(alpha, c / (k + k0)))
    tr = local_sgd_ce(problem, n_byz=n_byz, f=f, groups=groups, rounds=rounds, step=step, generator=ctx.generator(stream),
                      local_steps=T, noise_std=std, record=record, agent_grad_sq=agent_grad_sq,
                      keep_iterates=keep_iterates, x0=x0, noise_rows=noise_rows)
    return tr, slices


def tail_mean(tr: Trajectory, rows: slice, tail: float = 0.2, values: np.ndarray | None = None) -> np.ndarray:
    """Per-row mean of the gap (or ``values``) over the recorded rounds in the last ``tail`` of the run: the
    empirical floor of each replicate (docs/papers/dutta2023.md §4.6 fitting protocol), ``[reps]``."""
    K = tr.rounds[-1]
    sel = tr.rounds >= (1 - tail) * K
    v = tr.gap if values is None else values
    return v[rows][:, sel].mean(1)


def semilog_window(rounds: np.ndarray, curve: np.ndarray, e0: float, *, upper: float = 0.1, lower: float = 1e-25,
                   start_frac: float = 0.0) -> np.ndarray:
    """Indices of the rounds where lower e_0 < curve < upper e_0 and round >= start_frac K (the linear phase of a
    deterministic run, docs/papers/dutta2023.md §4.6); at least the first two rounds after the start when that set is too small."""
    K = rounds[-1]
    idx = np.flatnonzero((curve < upper * e0) & (curve > lower * e0) & (rounds >= start_frac * K))
    if idx.size < 2:
        idx = np.flatnonzero(rounds >= start_frac * K)[:2]
    return idx


def condition9_assumption(f: int, N: int, mu: float, L: float, label: str = "exact"):
    from verify.result import Assumption

    fmax = D.f_max_condition_9(N, mu, L)
    return Assumption("condition (9): f/(N-f) <= mu/(3L)", D.condition_9(f, N, mu, L), mu / (3 * L), label,
                      f"f = {f}, N = {N}: allowed up to f = {fmax} (mu/L = {mu / L:.4f})")
