"""A non-convex harness for Theorem 4.2 (2) (allouah2025 Claim 21): honest workers holding points, with
the Cauchy (Lorentzian) loss

    l(theta; x) = s sum_j rho((theta_j - x_j)/s),      rho(u) = log(1 + u^2),

whose per-coordinate derivative rho'(u) = 2u/(1+u^2) lies in [-1, 1] and second derivative
rho''(u) = 2(1-u^2)/(1+u^2)^2 in [-1/4, 2] (negative for |u| > 1: non-convex). Hence, exactly,

* Assumption 2.3: ||grad l(theta; x)|| <= sqrt(d) for every theta (the only bounded-gradient assumption
  that a loss on R^d can meet; the clip C = sqrt(d) never binds);
* L-smoothness of every l, hence of L_H: L = 2/s;
* Assumption 2.2: sigma^2 <= d (an upper bound: the variance of a vector in [-1, 1]^d).

L_* = inf L_H has no closed form; :meth:`CauchyWorkers.loss_floor` estimates it by gradient descent (an upper
bound on L_*, so L_0 = L_H(theta_0) - L_* is estimated from below).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.problems.allouah2025_quadratic import PointsShape, sample_without_replacement


@dataclass(frozen=True)
class CauchyWorkers(PointsShape):
    """``points [R, h, m, d]``: m points per honest worker; Cauchy loss of scale ``s``."""

    points: torch.Tensor
    s: float = 1.0
    name: str = "honest workers' points, Cauchy loss (allouah2025, non-convex)"

    def __post_init__(self) -> None:
        if self.points.dim() != 4:
            raise InputError("points", f"expected [R, h, m, d], got shape {tuple(self.points.shape)}")
        require(self.s > 0, "s", f"the loss scale must be > 0, got {self.s}")

    @property
    def smoothness(self) -> float:
        """L = 2/s (exact: sup rho'' / s)."""
        return 2.0 / self.s

    @property
    def gradient_bound(self) -> float:
        """C = sqrt(d) (exact: sup ||grad l||)."""
        return math.sqrt(self.dim)

    @property
    def variance_bound(self) -> float:
        """sigma^2 <= d (an upper bound on Assumption 2.2's constant)."""
        return float(self.dim)

    def _grad_points(self, theta: torch.Tensor, pts: torch.Tensor) -> torch.Tensor:
        u = (theta[:, None, None, :] - pts) / self.s
        return 2 * u / (1 + u * u)

    def loss(self, theta: torch.Tensor) -> torch.Tensor:
        """L_H(theta) ``[R]`` for ``theta [R, d]``."""
        u = (theta[:, None, None, :] - self.points) / self.s
        return self.s * torch.log1p(u * u).sum(-1).mean((1, 2))

    def honest_gradient(self, theta: torch.Tensor) -> torch.Tensor:
        """grad L_H(theta) ``[R, d]``."""
        return self._grad_points(theta, self.points).mean((1, 2))

    def sample_batch(self, generator: torch.Generator, batch_size: int) -> torch.Tensor:
        """Indices ``[R, h, b]`` of a fresh minibatch per worker, without replacement."""
        return sample_without_replacement(generator, (self.replicates, self.n_clients), self.samples_per_worker,
                                          batch_size, self.points.device)

    def batch_grad(self, theta: torch.Tensor, idx: torch.Tensor | None, flip_labels: bool = False) -> torch.Tensor:
        """Each worker's minibatch-mean gradient ``[R, h, d]`` at ``theta [R, d]`` (``idx = None``: full batch)."""
        require(not flip_labels, "flip_labels", "the Cauchy problem has no labels to flip")
        pts = self.points if idx is None else torch.gather(self.points, 2, idx[..., None].expand(-1, -1, -1, self.dim))
        return self._grad_points(theta, pts).mean(2)

    def loss_floor(self, start: torch.Tensor, steps: int = 2000) -> torch.Tensor:
        """An upper bound on L_* = inf L_H ``[R]``: full-batch gradient descent with step 1/L from ``start``."""
        theta = start.clone()
        for _ in range(steps):
            theta = theta - self.honest_gradient(theta) / self.smoothness
        return self.loss(theta)


def cauchy_workers(R: int, h: int, m: int, d: int, *, spread: float, generator: torch.Generator, s: float = 1.0,
                   identical: bool = True, dtype=torch.float64, device="cpu") -> CauchyWorkers:
    """m points per worker, x = spread * z (z ~ N(0, I_d)); ``identical``: every worker holds the same points
    (G_cov = 0 exactly)."""
    for name, v in (("R", R), ("h", h), ("m", m), ("d", d)):
        require(isinstance(v, int) and v >= 1, name, f"must be an integer >= 1, got {v!r}")
    z = randn(R, 1 if identical else h, m, d, generator=generator, dtype=dtype, device=device)
    return CauchyWorkers((spread * z).expand(R, h, m, d).contiguous(), s)
