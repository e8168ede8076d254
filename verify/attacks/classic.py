"""Attacks built from the honest vectors' statistics (omniscient attacker), batched over replicates.

Each returns the f Byzantine vectors ``[R, f, d]`` from the honest ones ``[R, h, d]`` (all f send the
same vector unless stated). Definitions as in docs/papers/allouah2025.md §2.6 and docs/papers/dutta2023.md §2.5:

* ALIE (Baruch et al. 2019): mu_H + tau s_H, coordinate-wise mean and standard deviation of the
  honest vectors (ByzFL default tau = 1.5; the original z_max = Phi^{-1}((n - s)/n), s = floor(n/2 + 1) - f).
* FOE (Fall of Empires, inner-product manipulation, Xie et al. 2020): -tau mu_H (ByzFL default tau = 2).
* SF (sign flipping, Allen-Zhu et al. 2020): -mu_H.
* large value: a constant vector c 1 (dutta2023 A6: c = 1e3).
* Gaussian: mu_H + scale xi, xi ~ N(0, I) per Byzantine vector (needs a generator).
"""
from __future__ import annotations

import math

import torch
from scipy import stats

from analytic.errors import require
from verify.attacks import attack
from verify.normal_draws import randn


def _stack(v: torch.Tensor, f: int) -> torch.Tensor:
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    return v[:, None, :].expand(-1, f, -1).clone()


def alie_z_max(n: int, f: int) -> float:
    """Baruch et al.'s factor z_max = Phi^{-1}((n - s)/n), s = floor(n/2 + 1) - f."""
    s = math.floor(n / 2 + 1) - f
    return float(stats.norm.ppf((n - s) / n))


@attack("alie")
def alie(honest: torch.Tensor, f: int, *, tau: float = 1.5, **_) -> torch.Tensor:
    """A little is enough: mu_H + tau s_H (s_H the coordinate-wise standard deviation, ddof = 1 as in ByzFL)."""
    s = honest.std(dim=1, unbiased=honest.shape[1] > 1)
    return _stack(honest.mean(1) + tau * s, f)


@attack("foe")
def fall_of_empires(honest: torch.Tensor, f: int, *, tau: float = 2.0, **_) -> torch.Tensor:
    """Inner-product manipulation: -tau mu_H."""
    return _stack(-tau * honest.mean(1), f)


@attack("sf")
def sign_flip(honest: torch.Tensor, f: int, **_) -> torch.Tensor:
    """Sign flipping: -mu_H."""
    return _stack(-honest.mean(1), f)


@attack("large")
def large_value(honest: torch.Tensor, f: int, *, value: float = 1e3, **_) -> torch.Tensor:
    """A constant vector value * 1 (dutta2023 attack A6)."""
    return _stack(torch.full_like(honest[:, 0], value), f)


@attack("gaussian")
def gaussian(honest: torch.Tensor, f: int, *, scale: float = 1.0, generator: torch.Generator | None = None,
             **_) -> torch.Tensor:
    """mu_H + scale xi with xi ~ N(0, I) drawn independently for each Byzantine vector."""
    require(generator is not None, "generator", "a random attack needs an explicit torch.Generator")
    R, _, d = honest.shape
    xi = randn(R, f, d, generator=generator, dtype=honest.dtype, device=honest.device)
    return honest.mean(1)[:, None, :] + scale * xi
