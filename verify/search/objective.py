"""What a searchable claim scores: observed/bound on one instance (> 1 is a violation).

``@check(..., space=..., objective=fn)`` takes a plain function ``fn(ctx, **instance) -> float``, or an
:class:`Objective` bundling the faster and richer forms:

* ``score(ctx, **instance) -> float``: one instance (the reference form; a re-scored witness uses it);
* ``batch(ctx, instances) -> array [B]``: ``instances`` maps each name to an array ``[B, *shape]`` (fixed
  settings as they are); the methods call it on whole populations;
* ``torch(ctx, instances) -> tensor [B]``: the same on torch tensors, differentiable in the real
  coordinates (``--method gradient`` runs Adam through it);
* ``constraint(instance) -> bool``: an instance failing it lies outside the claim's assumptions and is never
  scored (prefer a parametrisation that makes every point admissible);
* ``planted``: the check's own (default) instance, a dict or ``planted(ctx) -> dict``;
* ``certified(ctx) -> float``: the exact worst ratio where a certificate exists (PEPit), else None;
* ``budget``: the default number of evaluations of ``fedverify search``;
* ``observed`` / ``bound``: what the ratio's numerator and denominator are, in words.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

DEFAULT_BUDGET = 2000


@dataclass
class Objective:
    score: Callable | None = None
    batch: Callable | None = None
    torch: Callable | None = None
    constraint: Callable | None = None
    planted: dict | Callable | None = None
    certified: Callable | None = None
    budget: int = DEFAULT_BUDGET
    observed: str = "observed"
    bound: str = "bound"

    @classmethod
    def of(cls, obj, where: str = "objective") -> "Objective":
        if isinstance(obj, Objective):
            out = obj
        elif callable(obj):
            out = cls(score=obj)
        else:
            raise ValueError(f"{where}: objective must be a function or verify.search.Objective, got {obj!r}")
        if out.score is None and out.batch is None and out.torch is None:
            raise ValueError(f"{where}: the objective needs score, batch or torch")
        if int(out.budget) < 1:
            raise ValueError(f"{where}: the default budget must be >= 1, got {out.budget}")
        return out

    @property
    def differentiable(self) -> bool:
        return self.torch is not None

    def planted_instance(self, ctx) -> dict | None:
        return self.planted(ctx) if callable(self.planted) else (dict(self.planted) if self.planted else None)

    def score_batch(self, ctx, space, batch: dict) -> np.ndarray:
        """Ratios ``[B]`` of a decoded batch, through the fastest form the objective has."""
        B = len(next(iter(batch[d.name] for d in space.dims)))
        if self.batch is not None:
            return np.asarray(self.batch(ctx, batch), dtype=float).reshape(B)
        if self.score is not None:
            return np.array([float(self.score(ctx, **space.row(batch, i))) for i in range(B)])
        import torch

        t = {k: (torch.as_tensor(v, dtype=torch.float64) if k in space.names else v) for k, v in batch.items()}
        with torch.no_grad():
            return self.torch(ctx, t).detach().cpu().numpy().astype(float).reshape(B)

    def score_one(self, ctx, space, instance: dict) -> float:
        """The ratio of one instance through the reference form (``score``; else a batch of one)."""
        if self.score is not None:
            return float(self.score(ctx, **instance))
        batch = {k: (np.asarray(instance[k])[None] if k in space.names else v) for k, v in instance.items()}
        return float(self.score_batch(ctx, space, batch)[0])
