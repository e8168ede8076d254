"""Honest workers holding points, with the quadratic loss l(theta; x) = 1/2 ||theta - x||^2 (allouah2025
Claim 20): every constant of Theorem 4.2 is exact.

Worker i (of h honest workers) holds m points x_{i,1..m} in R^d. Then

    L_i(theta) = 1/2 ||theta - xbar_i||^2 + 1/2 v_i,      v_i = (1/m) sum_x ||x - xbar_i||^2
    L_H(theta) = 1/2 ||theta - xbar||^2 + const,          xbar = (1/h) sum_i xbar_i = theta*

so L_H is L-smooth and mu-strongly convex with L = mu = 1, and because grad l(theta; x) - grad L_i(theta)
= xbar_i - x and grad L_i - grad L_H = xbar - xbar_i do not depend on theta:

* Assumption 2.2: sigma^2 = max_i v_i exactly (the population variance of a worker's points);
* Assumption 2.1: G_cov^2 = lambda_max((1/h) sum_i (xbar_i - xbar)(xbar_i - xbar)^T) exactly, and the
  trace version G^2 = (1/h) sum_i ||xbar_i - xbar||^2;
* the excess loss is L_H(theta) - L_* = 1/2 ||theta - xbar||^2.

Assumption 2.3 (||grad l|| <= C for all theta) cannot hold on R^d (docs/papers/allouah2025.md §7.4); what a run can check is
that the clipping never binds along its trajectory (:meth:`WorkerPoints.max_grad_norm`).

Minibatches are b points sampled uniformly without replacement (Algorithm 1, line 4), one batch
per worker and replicate, batched as ``[R, h, b]`` indices.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import torch

from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.problems.base import ClientProblem


def sample_without_replacement(generator: torch.Generator, shape: tuple[int, ...], m: int, b: int,
                               device="cpu") -> torch.Tensor:
    """Indices ``[*shape, b]`` of b distinct items out of m, uniformly (the first b of a random permutation)."""
    require(1 <= b <= m, "batch_size", f"must lie in [1, m = {m}], got {b}")
    keys = torch.rand(*shape, m, generator=generator, device=device)
    return keys.argsort(-1)[..., :b]


class PointsShape:
    """The sizes of honest workers' points ``points [R, h, m, d]``: replicates, workers, points each, dimension."""

    points: torch.Tensor

    @property
    def replicates(self) -> int:
        return self.points.shape[0]

    @property
    def n_clients(self) -> int:
        return self.points.shape[1]

    @property
    def samples_per_worker(self) -> int:
        return self.points.shape[2]

    @property
    def dim(self) -> int:
        return self.points.shape[3]


@dataclass(frozen=True)
class WorkerPoints(PointsShape, ClientProblem):
    """``points [R, h, m, d]``: m points per honest worker, loss 1/2 ||theta - x||^2."""

    points: torch.Tensor
    name: str = "honest workers' points, quadratic loss (allouah2025)"

    def __post_init__(self) -> None:
        if self.points.dim() != 4:
            raise InputError("points", f"expected [R, h, m, d], got shape {tuple(self.points.shape)}")

    # -- shape ------------------------------------------------------------------------------------
    @property
    def true_labels(self) -> tuple[int, ...]:
        return (0,) * self.n_clients

    # -- exact quantities -------------------------------------------------------------------------
    @cached_property
    def local_means(self) -> torch.Tensor:
        """xbar_i ``[R, h, d]``: each worker's minimiser."""
        return self.points.mean(2)

    @cached_property
    def optimum(self) -> torch.Tensor:
        """theta* = xbar ``[R, d]``: the minimiser of L_H."""
        return self.local_means.mean(1)

    def optima(self) -> torch.Tensor:
        return self.local_means

    def sigma2(self) -> torch.Tensor:
        """Assumption 2.2's sigma^2 ``[R]``, exact: max_i (1/m) sum_x ||x - xbar_i||^2."""
        return ((self.points - self.local_means[:, :, None]) ** 2).sum(-1).mean(2).amax(1)

    def heterogeneity(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(G_cov^2, G^2) ``[R]`` each, exact: top eigenvalue and trace of the covariance of the xbar_i."""
        D = self.local_means - self.optimum[:, None]
        cov = torch.einsum("rhi,rhj->rij", D, D) / self.n_clients
        return torch.linalg.eigvalsh(cov)[:, -1].clamp_min(0.0), (D**2).sum(-1).mean(1)

    def honest_gradient(self, theta: torch.Tensor) -> torch.Tensor:
        """grad L_H(theta) = theta - xbar for ``theta [R, d]``."""
        return theta - self.optimum

    def excess_loss(self, theta: torch.Tensor) -> torch.Tensor:
        """L_H(theta) - L_* = 1/2 ||theta - xbar||^2 for ``theta [..., R, d]`` (replicates second to last)."""
        return 0.5 * ((theta - self.optimum) ** 2).sum(-1)

    def max_grad_norm(self, theta: torch.Tensor) -> torch.Tensor:
        """max over workers and points of ||grad l(theta; x)|| = ||theta - x||, ``[R]``, for ``theta [R, d]``."""
        return torch.linalg.vector_norm(theta[:, None, None, :] - self.points, dim=-1).amax((1, 2))

    # -- the oracles of ClientProblem -------------------------------------------------------------
    def loss(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        spread = ((self.points - self.local_means[:, :, None]) ** 2).sum(-1).mean(2)
        return 0.5 * ((X - self.local_means) ** 2).sum(-1) + 0.5 * spread

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        return X - self.local_means

    @property
    def stochastic(self) -> bool:
        return True

    def stochastic_grad(self, X: torch.Tensor, generator: torch.Generator | None = None, batch_size=1) -> torch.Tensor:
        require(generator is not None, "generator", "minibatch sampling needs an explicit torch.Generator")
        return self.batch_grad(X, self.sample_batch(generator, int(batch_size)))

    # -- minibatches (what CafCor calls) ----------------------------------------------------------
    def sample_batch(self, generator: torch.Generator, batch_size: int) -> torch.Tensor:
        """Indices ``[R, h, b]`` of a fresh minibatch per worker, without replacement."""
        return sample_without_replacement(generator, (self.replicates, self.n_clients), self.samples_per_worker,
                                          batch_size, self.points.device)

    def batch_grad(self, theta: torch.Tensor, idx: torch.Tensor | None, flip_labels: bool = False) -> torch.Tensor:
        """(1/b) sum_{x in batch} grad l(theta_i; x) = theta_i - mean(batch), ``[R, h, d]``, with ``theta``
        ``[R, d]`` (one model for all workers) or ``[R, h, d]``; ``idx = None`` is the full batch."""
        require(not flip_labels, "flip_labels", "the quadratic problem has no labels to flip")
        X = theta[:, None, :].expand(-1, self.n_clients, -1) if theta.dim() == 2 else theta
        if idx is None:
            return X - self.local_means
        batch = torch.gather(self.points, 2, idx[..., None].expand(-1, -1, -1, self.dim))
        return X - batch.mean(2)


def worker_points(R: int, h: int, m: int, d: int, *, spread: float, heterogeneity: float,
                  generator: torch.Generator, center=None, dtype=torch.float64, device="cpu") -> WorkerPoints:
    """m points per worker: x = center + heterogeneity * u_i + spread * z, with u_i, z i.i.d. N(0, I_d)
    (u_i per worker, z per point; ``heterogeneity = 0`` gives every worker the same distribution, but
    not the same points). ``center`` is ``[d]`` or ``[R, d]`` (default 0)."""
    for name, v in (("R", R), ("h", h), ("m", m), ("d", d)):
        require(isinstance(v, int) and v >= 1, name, f"must be an integer >= 1, got {v!r}")
    require(spread >= 0 and heterogeneity >= 0, "spread", "spread and heterogeneity must be >= 0")
    u = randn(R, h, 1, d, generator=generator, dtype=dtype, device=device)
    z = randn(R, h, m, d, generator=generator, dtype=dtype, device=device)
    c = torch.zeros(R, 1, 1, d, dtype=dtype, device=device)
    if center is not None:
        c = c + torch.as_tensor(center, dtype=dtype, device=device).reshape(-1, 1, 1, d)
    return WorkerPoints(c + heterogeneity * u + spread * z)


def identical_workers(R: int, h: int, m: int, d: int, *, spread: float, generator: torch.Generator,
                      center=None, dtype=torch.float64, device="cpu") -> WorkerPoints:
    """Every honest worker holds the same m points (G_cov = 0 exactly)."""
    one = worker_points(R, 1, m, d, spread=spread, heterogeneity=0.0, generator=generator, center=center,
                        dtype=dtype, device=device)
    return WorkerPoints(one.points.expand(-1, h, -1, -1).contiguous())
