"""Federated local SGD with a robust aggregation rule (dutta2023 Algorithm 1, docs/papers/dutta2023.md §2.1), batched.

Round k, for every row b of the batch (a replicate of one configuration):

    every agent starts from the server model x_k and takes T_b local steps
        x^i_{k,t+1} = x^i_{k,t} - alpha_k,b (grad q^i(x^i_{k,t}) + noise),          (line 6)
    honest agents send y^i = x^i_{k,T}; the Byzantine agents 0..n_byz-1 send what their attack says
    (or, with no attack, their own local result: the label-flip attack A5 runs on flipped data);
    the server aggregates: x_{k+1} = aggregate(y, f, reference = x_k)              (lines 9-11, CE).

The batch is ``B`` rows split into consecutive :class:`RowGroup` s, each with its own attack and
aggregation rule; the step size alpha, the local steps T and the noise level may differ per row (rows
with fewer local steps stop early within the round). The Byzantine count ``n_byz`` (the actual number)
and the filter parameter ``f`` are shared by the run, so every aggregation sees the same N and f.
Loops run over rounds, local steps and row groups only.

Gradient noise is N(0, std_b^2 I) per coordinate (noise models N1/N2, :mod:`verify.problems.dutta2023_problems`),
drawn in float32 and widened to the run's dtype: torch draws float32 normals five times faster on a CPU, and
the law differs from the Gaussian only by float32 rounding (relative 6e-8), far below every Monte Carlo error.

The optimality gap e_k = q^H(x_k) - q^H(x*_H) of the honest average (and optionally the mean local squared
gradient norm, the metric of the paper's problem (12), and the iterates) is recorded at the rounds of
``record`` (default: log-spaced checkpoints with round 0), so a sweep over K costs one run.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import torch

from analytic.errors import require
from verify.aggregators import AGGREGATORS
from verify.attacks import ATTACKS
from verify.engine import log_checkpoints
from verify.normal_draws import randn
from verify.problems.least_squares import RegressionAgents


@dataclass(frozen=True)
class RowGroup:
    """Consecutive rows sharing an attack and an aggregation rule.

    ``attack``: a name in :data:`verify.attacks.ATTACKS`, a callable with that interface, or None (the
    Byzantine agents follow the protocol on their own data). ``aggregator``: a name in
    :data:`verify.aggregators.AGGREGATORS` or a callable ``(Y [r, N, d], f, **kw) -> [r, d]``; a rule with a
    ``reference`` parameter (CE) receives the server model.
    """

    rows: int
    attack: str | Callable | None = None
    attack_kwargs: dict = field(default_factory=dict)
    aggregator: str | Callable = "ce"
    aggregator_kwargs: dict = field(default_factory=dict)
    label: str = ""


@dataclass
class Trajectory:
    """What a run recorded: ``rounds [P]`` and per row ``gap [B, P]`` (plus optional metrics), and the row groups run."""

    rounds: np.ndarray
    gap: np.ndarray
    groups: list[RowGroup]
    agent_grad_sq: np.ndarray | None = None
    iterates: np.ndarray | None = None  # [B, P, d]



def _resolve(table: dict, thing, kind: str) -> Callable:
    if callable(thing):
        return thing
    require(thing in table, kind, f"unknown {kind} {thing!r}; known: {', '.join(sorted(table))}")
    return table[thing]


def _per_row(value, B: int, dtype, device, name: str) -> torch.Tensor:
    t = torch.as_tensor(value, dtype=dtype, device=device)
    require(t.dim() == 0 or tuple(t.shape) == (B,), name, f"expected a number or [B] = [{B}], got shape {tuple(t.shape)}")
    return t.expand(B) if t.dim() == 0 else t


def _normal(shape, generator: torch.Generator, device) -> torch.Tensor:
    """Standard normals in float32; the product with the float64 std widens them exactly (float32 -> float64 is exact),
    so ``std * _normal(...)`` equals ``std * _normal(...).to(float64)`` bitwise without the separate copy."""
    return randn(shape, generator=generator, dtype=torch.float32, device=device)


def _step_coefficients(alpha: torch.Tensor, active: list[torch.Tensor]) -> list[torch.Tensor]:
    """alpha_k,b 1[T_b > t] as [B, 1, 1] for each local step t (line 6's step size; rows past their T_b stand still)."""
    return [(alpha * a)[:, None, None] for a in active]


def _aggregate(plans, Y: torch.Tensor, xbar: torch.Tensor, x_star: torch.Tensor, n_byz: int, f: int,
               generator: torch.Generator) -> torch.Tensor:
    """Lines 9-11 for every row group: the Byzantine models from the group's attack (written into Y in place), then the
    group's rule; one group returns the rule's output itself (no copy into a new [B, d])."""
    if len(plans) == 1:
        sl, atk, akw, agg, takes_ref, gkw = plans[0]
        if atk is not None:
            Y[:, :n_byz] = atk(Y[:, n_byz:], n_byz, reference=xbar, x_star=x_star, generator=generator, **akw)
        out = agg(Y, f, reference=xbar, **gkw) if takes_ref else agg(Y, f, **gkw)
        return out if out.shape == xbar.shape and out.dtype == xbar.dtype else torch.empty_like(xbar).copy_(out)
    new = torch.empty_like(xbar)
    for sl, atk, akw, agg, takes_ref, gkw in plans:
        if atk is not None:
            Y[sl, :n_byz] = atk(Y[sl, n_byz:], n_byz, reference=xbar[sl], x_star=x_star[sl], generator=generator, **akw)
        new[sl] = agg(Y[sl], f, reference=xbar[sl], **gkw) if takes_ref else agg(Y[sl], f, **gkw)
    return new


def local_sgd_ce(problem: RegressionAgents, *, n_byz: int, f: int, groups: Sequence[RowGroup], rounds: int,
                 step: float | torch.Tensor | Callable[[int], float | torch.Tensor], generator: torch.Generator,
                 local_steps: int | torch.Tensor = 1, noise_std: float | torch.Tensor = 0.0,
                 x0: torch.Tensor | None = None, record: Sequence[int] | None = None, agent_grad_sq: bool = False,
                 keep_iterates: bool = False, noise_rows: Sequence[int] | None = None) -> Trajectory:
    """Run Algorithm 1 for ``rounds`` rounds on ``problem`` (agents 0..n_byz-1 Byzantine) and record e_k.

    ``step``: alpha (a number or [B]) or a schedule k -> alpha_k (number or [B]); ``local_steps``: T (int or [B]);
    ``noise_std``: the per-coordinate gradient-noise standard deviation (number or [B]); ``x0``: the initial
    server model ([d] or [B, d]; default 0, docs/papers/dutta2023.md §5.5). The problem's data may be shared (B' = 1) or per row.
    ``noise_rows`` ([B] integers, optional): common random numbers. Rows with the same index draw the same
    standard-normal gradient noise (scaled by their own std), so that configurations compared pairwise (one
    filter against another) differ only in what they are compared on; default: every row its own noise.
    """
    N, d = problem.n_clients, problem.dim
    B = sum(g.rows for g in groups)
    require(B >= 1 and all(g.rows >= 1 for g in groups), "groups", "need at least one group, each with rows >= 1")
    require(problem.rows in (1, B), "problem", f"the data has {problem.rows} rows, the run {B}")
    require(isinstance(n_byz, int) and 0 <= n_byz < N, "n_byz", f"must be an integer in [0, {N}), got {n_byz!r}")
    require(isinstance(rounds, int) and rounds >= 1, "rounds", f"must be an integer >= 1, got {rounds!r}")
    dtype, device = problem.G.dtype, problem.G.device
    T = _per_row(local_steps, B, torch.long, device, "local_steps")
    require(bool((T >= 1).all()), "local_steps", "every row needs T >= 1")
    std = _per_row(noise_std, B, dtype, device, "noise_std")
    require(bool((std >= 0).all()), "noise_std", "must be >= 0")
    noisy = bool((std > 0).any())
    if noise_rows is not None:
        noise_rows = torch.as_tensor(np.asarray(noise_rows), dtype=torch.long, device=device)
        require(tuple(noise_rows.shape) == (B,) and bool((noise_rows >= 0).all()), "noise_rows",
                f"expected [B] = [{B}] non-negative integers, got shape {tuple(noise_rows.shape)}")
        n_streams = int(noise_rows.max()) + 1
    schedule = step if callable(step) else (lambda k, a=_per_row(step, B, dtype, device, "step"): a)
    record = log_checkpoints(rounds, include_zero=True) if record is None else np.unique(np.asarray(record, dtype=int))
    require(record.min() >= 0 and record.max() <= rounds, "record", f"rounds to record must lie in [0, {rounds}]")

    objective = problem.honest_average(n_byz)
    x_star = objective.x_star.expand(B, -1)
    own_data = n_byz > 0 and any(g.attack is None for g in groups)
    local = problem if own_data else problem.select(slice(n_byz, None))
    plans = []
    start = 0
    for g in groups:
        agg = _resolve(AGGREGATORS, g.aggregator, "aggregator")
        takes_ref = "reference" in inspect.signature(agg).parameters
        atk = None if (g.attack is None or n_byz == 0) else _resolve(ATTACKS, g.attack, "attack")
        plans.append((slice(start, start + g.rows), atk, g.attack_kwargs, agg, takes_ref, g.aggregator_kwargs))
        start += g.rows

    xbar = (torch.zeros(B, d, dtype=dtype, device=device) if x0 is None
            else torch.as_tensor(x0, dtype=dtype, device=device).expand(B, d).clone())
    P = len(record)
    gaps = np.empty((B, P))
    grads = np.empty((B, P)) if agent_grad_sq else None
    its = np.empty((B, P, d)) if keep_iterates else None
    t_max = int(T.max())
    active = [(T > t).to(dtype) for t in range(t_max)]
    slot = {int(r): i for i, r in enumerate(record)}

    def observe(k: int) -> None:
        i = slot[k]
        gaps[:, i] = objective.gap(xbar).cpu().numpy()
        if grads is not None:
            grads[:, i] = objective.agent_grad_sq(xbar).cpu().numpy()
        if its is not None:
            its[:, i] = xbar.cpu().numpy()

    if 0 in slot:
        observe(0)
    n_local = local.n_clients
    std3 = std[:, None, None]
    noise_shape = (B, n_local, d) if noise_rows is None else (n_streams, n_local, d)
    fixed = None if callable(step) else _step_coefficients(_per_row(schedule(0), B, dtype, device, "step"), active)
    with torch.inference_mode():  # no autograd bookkeeping per op (every tensor here is a plain value): ~1.2x
        for k in range(rounds):
            coef = fixed or _step_coefficients(_per_row(schedule(k), B, dtype, device, "step"), active)
            X = xbar[:, None, :].expand(B, n_local, d)
            for t in range(t_max):
                g = local.grad(X)
                if noisy:
                    Z = _normal(noise_shape, generator, device)
                    g = g + std3 * (Z if noise_rows is None else Z[noise_rows])
                X = X - coef[t] * g
            Y = X if own_data else torch.cat([X.new_empty(B, n_byz, d), X], dim=1)
            xbar = _aggregate(plans, Y, xbar, x_star, n_byz, f, generator)
            if k + 1 in slot:
                observe(k + 1)
    return Trajectory(np.asarray(record), gaps, list(groups), grads, its)
