"""CafCor (allouah2025, Algorithm 1), batched over replicates: local momentum on clipped minibatch gradients
plus pairwise correlated and independent Gaussian noise, aggregated by CAF.

    for t = 0 .. T-1:
        every honest i:  g_t^i  = Clip((1/b) sum_{x in S_t^i} grad l(theta_t; x); C)       S_t^i: b points, no replacement
                         gt_t^i = g_t^i + vbar_t^i + sum_{j != i} v_t^(ij)                     (docs/papers/allouah2025.md §2.2)
                         m_t^i  = beta_{t-1} m_{t-1}^i + (1 - beta_{t-1}) gt_t^i   if t >= 1,  m_0^i = 0
        the f Byzantine workers send attack(m_t^H)                                              (omniscient: they see
                                                                                                 the noisy honest m_t)
        R_t = CAF(m_t^1 .. m_t^n);   theta_{t+1} = theta_t - gamma_t R_t

Clip(g; C) = g min(1, C/||g||) with Clip(0; C) = 0 (eq. 1). At t = 0 every honest worker sends 0, so CAF
returns 0 and theta_1 = theta_0 whatever the Byzantines send (docs/papers/allouah2025.md §2.3); g_0 is never released.

The noise of all n workers is drawn every round, either from the shared-seed protocol
(:func:`verify.correlated_noise.correlated_noise`, pass ``seeds``; loops over the n(n-1)/2 pairs) or, by
default, from its exact joint law in O(n d) (:func:`verify.correlated_noise.protocol_noise_in_law`); only
the honest rows are used, since the Byzantine workers send what they like. Their pairwise terms with
honest workers stay in the honest messages, as in the protocol.

The problem supplies ``n_clients`` (= h honest workers), ``dim``, ``sample_batch(generator, b)`` and
``batch_grad(theta, idx, flip_labels=False)`` (see :mod:`verify.problems.allouah2025_quadratic`); the
label-flipping attack also reads the honest workers' flipped-label gradients on the same batches.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from analytic.errors import require
from verify.aggregators import AGGREGATORS
from verify.aggregators.caf import top_eigenpair
from verify.attacks import ATTACKS
from verify.correlated_noise import NoiseInLaw, SharedSeeds, correlated_noise, independent_noise

Schedule = Callable[[int], float | torch.Tensor] | float | torch.Tensor


@dataclass
class CafCorRun:
    """``checkpoints [P]`` rounds t at which theta_t was recorded (t = T: after the last update);
    ``theta [P, R, d]``; at the checkpoint rounds t < T (NaN at t = T): ``aggregation_error [P, R]``
    ||R_t - mbar_t||^2 (epsilon_t), ``drift [P, R]`` Delta_t = lambda_max of the honest momentums' covariance,
    and ``deviation [P, R]`` ||mbar_t - grad L_H(theta_t)||^2 (delta_t of Lemma C.2; NaN when the problem
    has no ``honest_gradient``); ``grad_norm2_sum [P, R]`` sum_{s < t} ||grad L_H(theta_s)||^2 (only with
    ``record_gradient_norms``, else NaN: divided by t it is the left-hand side of Theorem 4.2 (2));
    ``clipped_fraction [R]`` share of honest minibatch gradients the clip changed (rounds 1..T-1);
    ``max_grad_norm [R]`` the largest honest minibatch-gradient norm seen before clipping."""

    checkpoints: np.ndarray
    theta: torch.Tensor
    aggregation_error: torch.Tensor
    drift: torch.Tensor
    deviation: torch.Tensor
    grad_norm2_sum: torch.Tensor
    clipped_fraction: torch.Tensor
    max_grad_norm: torch.Tensor


def strongly_convex_schedule(L: float, mu: float) -> tuple[Callable[[int], float], Callable[[int], float]]:
    """Theorem 4.2 (1): gamma_t = 10 / (mu (t + 240 L/mu)) and beta_t = 1 - 24 L gamma_t (so beta_0 = 0)."""
    require(0 < mu <= L, "mu", f"need 0 < mu <= L, got mu = {mu}, L = {L}")
    gamma = lambda t: 10.0 / (mu * (t + 240.0 * L / mu))  # noqa: E731
    return gamma, (lambda t: 1.0 - 24.0 * L * gamma(t))


def clip(g: torch.Tensor, C: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Clip(g; C) = g min(1, C/||g||) over the last axis (Clip(0) = 0), and the norms before clipping.

    When no norm exceeds C every scale is 1 and g comes back as it is (g 1 = g exactly)."""
    norm = torch.linalg.vector_norm(g, dim=-1, keepdim=True)
    over = norm > C
    if not bool(over.any()):
        return g, norm[..., 0]
    scale = torch.where(over, C / torch.where(norm > 0, norm, 1.0), torch.ones_like(norm))
    return g * scale, norm[..., 0]


def _at(schedule, t: int, like: torch.Tensor):
    """A schedule's value at t: a number, or one value per replicate (``[R]``) shaped to broadcast
    against ``like`` (replicates on axis 0)."""
    v = schedule(t) if callable(schedule) else schedule
    if isinstance(v, torch.Tensor) and v.dim() > 0:
        R = like.shape[0]
        require(v.shape == (R,), "schedule", f"per-replicate values must have shape ({R},), got {tuple(v.shape)}")
        return v.to(like).reshape(R, *([1] * (like.dim() - 1)))
    return float(v)


def honest_drift(M: torch.Tensor) -> torch.Tensor:
    """Delta = lambda_max((1/h) sum_i (m_i - mbar)(m_i - mbar)^T) of ``M [R, h, d]``, ``[R]``."""
    w = torch.full(M.shape[:2], 1.0 / M.shape[1], dtype=M.dtype, device=M.device)
    return top_eigenpair(M - M.mean(1, keepdim=True), w)[0]


def cafcor(problem, theta0: torch.Tensor, *, f: int, T: int, gamma: Schedule, beta: Schedule, C: float,
           sigma_cor, sigma_ind, batch_size: int, generator: torch.Generator, attack: str = "alie",
           attack_options: dict | None = None, aggregator: str = "caf", aggregator_options: dict | None = None,
           seeds: SharedSeeds | None = None, checkpoints: Sequence[int] | None = None,
           record_gradient_norms: bool = False) -> CafCorRun:
    """Run Algorithm 1 for T rounds on ``problem`` (h honest workers) with f Byzantine workers.

    ``theta0`` is ``[R, d]``; ``gamma``/``beta`` are numbers or functions of t, or give one value per
    replicate ``[R]`` (a sweep over step sizes in one run); ``sigma_cor``/``sigma_ind``
    are standard deviations, numbers or one per replicate ``[R]`` (a per-replicate value needs the
    in-law noise, not ``seeds``); ``attack``/``aggregator`` name registered ones. ``checkpoints``: rounds
    in [0, T] at which theta_t is recorded (default: 0 and T).
    """
    h, d = problem.n_clients, problem.dim
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    n = h + f
    require(isinstance(T, int) and T >= 1, "T", f"must be an integer >= 1, got {T!r}")
    require(C > 0 and math.isfinite(C), "C", f"the clipping threshold must be > 0, got {C}")
    require(theta0.dim() == 2 and theta0.shape[1] == d, "theta0", f"expected [R, {d}], got {tuple(theta0.shape)}")
    require(attack in ATTACKS, "attack", f"unknown attack {attack!r}; known: {sorted(ATTACKS)}")
    require(aggregator in AGGREGATORS, "aggregator", f"unknown aggregator {aggregator!r}; known: {sorted(AGGREGATORS)}")
    R, dt, dev = theta0.shape[0], theta0.dtype, theta0.device
    if seeds is not None:
        require(seeds.n == n, "seeds", f"the shared seeds are for {seeds.n} workers, the run has n = {n}")
        require(not isinstance(sigma_cor, torch.Tensor) or sigma_cor.dim() == 0, "sigma_cor",
                "the shared-seed protocol takes one sigma_cor; per-replicate values need the in-law noise")
    cps = np.unique(np.asarray([0, T] if checkpoints is None else checkpoints, dtype=int))
    require(cps.size > 0 and cps.min() >= 0 and cps.max() <= T, "checkpoints", f"must lie in [0, {T}]")
    want = set(int(c) for c in cps)
    m = problem.samples_per_worker
    require(isinstance(batch_size, int) and 1 <= batch_size <= m, "batch_size", f"must lie in [1, m = {m}], got {batch_size!r}")
    full_batch = batch_size == m  # S_t^(i) = D_i: no sampling needed
    attack_fn, agg_fn = ATTACKS[attack], AGGREGATORS[aggregator]
    a_opts, g_opts = dict(attack_options or {}), dict(aggregator_options or {})
    noise = NoiseInLaw.build(R, n, d, 0.0 if seeds is not None else sigma_cor, sigma_ind, dt, dev)
    nan = torch.full((R,), float("nan"), dtype=dt, device=dev)

    theta = theta0.clone()
    M = torch.zeros(R, h, d, dtype=dt, device=dev)
    thetas, agg_err, drift, dev_t, gsum_t = [], [], [], [], []
    has_grad = hasattr(problem, "honest_gradient")
    require(has_grad or not record_gradient_norms, "record_gradient_norms", "the problem has no honest_gradient")
    gsum = torch.zeros(R, dtype=dt, device=dev)
    clipped = torch.zeros(R, dtype=dt, device=dev)
    max_norm = torch.zeros(R, dtype=dt, device=dev)
    for t in range(T + 1):
        if t in want:
            thetas.append(theta.clone())
            gsum_t.append(gsum.clone() if record_gradient_norms else nan)
        if t == T:
            if t in want:
                agg_err.append(nan)
                drift.append(nan)
                dev_t.append(nan)
            break
        context = {}
        idx = None if full_batch or (t == 0 and attack != "lf") else problem.sample_batch(generator, batch_size)
        if attack == "lf":  # the Byzantines' data-level attack: flipped-label gradients on the honest batches
            context["flipped_gradients"] = problem.batch_grad(theta, idx, flip_labels=True)
        if t >= 1:
            g, norms = clip(problem.batch_grad(theta, idx), C)
            over = norms > C
            if bool(over.any()):  # else the round adds exact zeros
                clipped += over.to(dt).mean(1)
            max_norm = torch.maximum(max_norm, norms.amax(1))
            if seeds is None:
                xi = noise.draw(generator)[:, :h]
            else:
                xi = (correlated_noise(seeds, t, R, d, float(sigma_cor), dt, dev)[:, :h]
                      + noise.sigma_ind * independent_noise(generator, R, h, d, 1.0, dt, dev))
            b_prev = _at(beta, t - 1, M)
            M = b_prev * M + (1.0 - b_prev) * (g + xi)
        byz = attack_fn(M, f, generator=generator, **context, **a_opts)  # called at f = 0 too: some attacks draw
        X = M if f == 0 else torch.cat([M, byz], 1)  # f = 0: the aggregator reads the honest messages themselves
        agg = agg_fn(X, f, **g_opts)
        grad_h = problem.honest_gradient(theta) if (t in want and has_grad) or record_gradient_norms else None
        if t in want:
            m_bar = M.mean(1)
            agg_err.append(((agg - m_bar) ** 2).sum(-1))
            drift.append(honest_drift(M))
            dev_t.append(((m_bar - grad_h) ** 2).sum(-1) if has_grad else nan)
        if record_gradient_norms:
            gsum = gsum + (grad_h ** 2).sum(-1)
        theta = theta - _at(gamma, t, theta) * agg
    rounds_with_grads = max(T - 1, 1)
    return CafCorRun(checkpoints=cps, theta=torch.stack(thetas), aggregation_error=torch.stack(agg_err),
                     drift=torch.stack(drift), deviation=torch.stack(dev_t),
                     grad_norm2_sum=torch.stack(gsum_t), clipped_fraction=clipped / rounds_with_grads,
                     max_grad_norm=max_norm)
