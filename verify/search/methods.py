"""Search methods over the unit cube of a claim's space: maximise observed/bound within a budget.

* ``random``: uniform points of the cube (the baseline every method is compared with at the same budget);
* ``cma``: CMA-ES (pycma), restarted with a doubled population (IPOP) until the budget is spent; each
  generation is scored as one batch. The check's planted instance, when it has one, is scored first (so a search
  never reports less than the planted ratio); each run starts at a random point (starting at the planted instance
  cost allouah2025.c11 0.313 -> 0.276 at its default budget);
* ``gradient``: Adam ascent through the objective's torch form, from a batch of starts in logit coordinates
  (u = sigmoid(z), so every iterate stays in the cube): the planted instance, then random points; integer
  coordinates stay at their start. Needs ``Objective(torch=...)``.
  (u = sigmoid(z) stretched slightly past [0, 1] and clamped, so that the faces are reached.)

An :class:`Evaluator` scores points, counts evaluations, leaves out points outside the claim's constraint
(never scored) and keeps the best point seen; every method returns it.
"""
from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from analytic.errors import InputError

METHODS = ("cma", "gradient", "random")
CHUNK = 128  # points per batch call of the random method
#: gradient ascent maps z to u = clamp((1 + 2 e) sigmoid(z) - e, 0, 1): the faces of the cube (where worst cases of
#: box-constrained claims often sit) are reached at a finite z instead of only in the limit
OVERSHOOT = 0.05


class Evaluator:
    """Scores points of the cube for one claim; remembers the best (largest ratio) point."""

    def __init__(self, ctx, space, objective, budget: int, progress: Callable[[int], None] | None = None,
                 start: np.ndarray | None = None) -> None:
        self.ctx, self.space, self.objective, self.budget = ctx, space, objective, int(budget)
        self.start = None if start is None else np.clip(np.asarray(start, dtype=float), 0.0, 1.0)  # a method's first start
        self.progress = progress
        self.evaluations = 0
        self.rejected = 0
        self.best_ratio, self.best_u = -math.inf, None

    @property
    def left(self) -> int:
        return self.budget - self.evaluations

    def _admissible(self, batch: dict, B: int) -> np.ndarray:
        c = self.objective.constraint
        if c is None:
            return np.ones(B, bool)
        return np.array([bool(c(self.space.row(batch, i))) for i in range(B)])

    def __call__(self, U: np.ndarray) -> np.ndarray:
        """Ratios of the points ``U [B, size]`` (at most the budget left; -inf for a point not scored)."""
        U = np.clip(np.atleast_2d(U), 0.0, 1.0)[: max(self.left, 0)]
        out = np.full(len(U), -np.inf)
        if not len(U):
            return out
        batch = self.space.decode(U)
        ok = self._admissible(batch, len(U))
        if ok.any():
            sub = {k: (v[ok] if k in self.space.names else v) for k, v in batch.items()}
            r = self.objective.score_batch(self.ctx, self.space, sub)
            r = np.where(np.isfinite(r) | (r == np.inf), r, -np.inf)  # a nan ratio is never the worst case
            out[ok] = r
        self.rejected += int((~ok).sum())
        self.record(U, out)
        return out

    def record(self, U: np.ndarray, ratios: np.ndarray) -> None:
        """Count ``len(U)`` evaluations and keep the best point (also used by the gradient method)."""
        self.evaluations += len(U)
        if len(ratios):
            i = int(np.argmax(ratios))
            if ratios[i] > self.best_ratio:
                self.best_ratio, self.best_u = float(ratios[i]), np.array(U[i], dtype=float)
        if self.progress:
            self.progress(len(U))


def random_search(ev: Evaluator, rng: np.random.Generator) -> Evaluator:
    while ev.left > 0:
        ev(rng.random((min(CHUNK, ev.left), ev.space.size)))
    return ev


def cma_search(ev: Evaluator, rng: np.random.Generator, sigma0: float = 0.3) -> Evaluator:
    from verify.extras import require

    cma = require("cma")
    n = ev.space.size
    popsize = 4 + int(3 * math.log(max(n, 1)))
    if ev.start is not None:
        ev(ev.start[None])  # the planted instance is scored as it is (not a start: a poor one slowed CMA down)
    while ev.left > 0:
        x0 = rng.random(n) if n > 1 else np.array([rng.random()])
        opts = {"bounds": [0.0, 1.0], "popsize": popsize, "seed": int(rng.integers(1, 2**31 - 1)), "verbose": -9,
                "maxfevals": ev.left, "tolfun": 1e-13, "tolx": 1e-12, "tolflatfitness": 3}
        if n == 1:  # pycma needs two coordinates: a dummy one, ignored
            x0, opts["bounds"] = np.array([x0[0], 0.5]), [0.0, 1.0]
        es = cma.CMAEvolutionStrategy(list(x0), sigma0, opts)
        while not es.stop() and ev.left > 0:
            X = np.asarray(es.ask(), dtype=float)
            r = ev(X[:, :n])
            if len(r) < len(X):  # the budget ran out inside a generation
                break
            finite = np.isfinite(r)
            worst = np.min(r[finite]) if finite.any() else 0.0
            r = np.where(r == np.inf, 1e300, np.where(finite, r, worst - 1.0))  # unscored points last
            es.tell(list(X), list(-r))  # CMA minimises
        popsize *= 2
    return ev


def gradient_search(ev: Evaluator, rng: np.random.Generator, starts: int = 16, lr: float = 0.1) -> Evaluator:
    import torch

    if not ev.objective.differentiable:
        raise InputError("method", "gradient ascent needs a differentiable objective (Objective(torch=...)); "
                                   "this claim has none: use --method cma or random")
    space, ctx = ev.space, ev.ctx
    starts = max(1, min(starts, ev.budget))
    while ev.left > 0:
        K = min(starts, ev.left)
        u0 = rng.random((K, space.size))
        if ev.start is not None and ev.evaluations == 0:
            u0[0] = ev.start
        u0 = np.clip(u0, 1e-3, 1 - 1e-3)
        s0 = (u0 + OVERSHOOT) / (1 + 2 * OVERSHOOT)
        z = torch.tensor(np.log(s0 / (1 - s0)), dtype=torch.float64, requires_grad=True)
        opt = torch.optim.Adam([z], lr=lr)
        steps = max(1, min(400, ev.left // K))
        for _ in range(steps):
            if ev.left < K:
                break
            U = ((1 + 2 * OVERSHOOT) * torch.sigmoid(z) - OVERSHOOT).clamp(0.0, 1.0)
            inst = space.decode_torch(U)
            r = ev.objective.torch(ctx, inst)
            Ud = U.detach().numpy()
            rd = r.detach().numpy().astype(float)
            ok = np.ones(K, bool)
            if ev.objective.constraint is not None:
                ok = ev._admissible(space.decode(Ud), K)
                rd = np.where(ok, rd, -np.inf)
            rd = np.where(np.isnan(rd), -np.inf, rd)
            ev.record(Ud, rd)
            opt.zero_grad()
            use = torch.isfinite(r) & torch.as_tensor(ok)  # an instance outside the constraint pulls nowhere
            loss = -torch.where(use, r, torch.zeros_like(r)).sum()
            loss.backward()
            opt.step()
    return ev


def run_method(method: str, ev: Evaluator, seed_sequence) -> Evaluator:
    """Run ``method`` on ``ev`` with a numpy generator from ``seed_sequence``; returns ``ev``."""
    if method not in METHODS:
        raise InputError("method", f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    rng = np.random.default_rng(seed_sequence)
    t0 = time.perf_counter()
    {"random": random_search, "cma": cma_search, "gradient": gradient_search}[method](ev, rng)
    ev.wall_time_s = time.perf_counter() - t0
    return ev
