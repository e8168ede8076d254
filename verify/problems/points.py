"""Point-clustering data with planted constants (werner2023 Assumptions 1-3, docs/papers/werner2023.md §6.2).

K cluster means at pairwise distance exactly Delta: mu_k = (Delta/sqrt 2) e_k (needs d >= K).
Points z = mu_k + xi with xi ~ N(0, (sigma^2/d) I), so E||xi||^2 = sigma^2 exactly (total variance,
eq. (12)). n points per cluster, N = K n, delta = 1/K. Everything is batched over R replicates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from analytic import validate
from analytic.errors import InputError
from verify.normal_draws import randn


@dataclass
class ClusteredPoints:
    Z: torch.Tensor  # [R, K*n, d] points, cluster-major order
    labels: torch.Tensor  # [K*n] true cluster of each point
    means: torch.Tensor  # [K, d] planted means
    sigma: float
    Delta: float
    n: int

    @property
    def K(self) -> int:
        return self.means.shape[0]

    @property
    def delta(self) -> float:
        return 1.0 / self.K

    def own_point_init(self, rule: str = "first") -> torch.Tensor:
        """Centers ``[R, K, d]``, each started at one of its cluster's own points.

        ``first``: the cluster's first point, so E c_1^2 = E||v_0 - mu||^2 = sigma^2 exactly (the
        proof's assumption (v) of Theorem 3.1, which is a statement in expectation).
        ``within_sigma``: the first point within sigma of the mean (the nearest if none is), so that
        c_1^2 <= sigma^2 holds in (almost) every run, not only on average.
        """
        if rule == "first":
            return self.Z[:, :: self.n, :].clone()
        if rule != "within_sigma":
            raise InputError("rule", f"expected first or within_sigma, got {rule!r}")
        R, K, n, d = self.Z.shape[0], self.K, self.n, self.Z.shape[-1]
        pts = self.Z.reshape(R, K, n, d)
        dist = torch.linalg.vector_norm(pts - self.means[None, :, None, :], dim=-1)  # [R, K, n]
        within = dist <= self.sigma
        pick = torch.where(within.any(-1), torch.argmax(within.to(torch.uint8), dim=-1), dist.argmin(-1))
        return torch.gather(pts, 2, pick[..., None, None].expand(R, K, 1, d))[:, :, 0, :].clone()

    def initial_error(self, V0: torch.Tensor) -> torch.Tensor:
        """c_1^2 = ||v_0 - mu_k||^2 per run and cluster, ``[R, K]``."""
        return ((V0 - self.means[None]) ** 2).sum(-1)


def planted_means(K: int, d: int, Delta: float, dtype=torch.float64, device="cpu") -> torch.Tensor:
    """K means at pairwise distance exactly Delta (scaled standard basis vectors)."""
    K, d = validate.integer(K, "K", minimum=1), validate.integer(d, "d", minimum=1)
    Delta = validate.real(Delta, "Delta", minimum=0.0)
    if d < K:
        raise InputError("d", f"need d >= K for exactly separated means, got d={d}, K={K}")
    return torch.eye(K, d, dtype=dtype, device=device) * (Delta / math.sqrt(2.0))


def clustered_points(
    R: int, K: int, n: int, d: int, sigma: float, Delta: float, gen: torch.Generator, dtype=torch.float64
) -> ClusteredPoints:
    """Gaussian clusters with total variance sigma^2 and separation Delta, batched over R replicates."""
    R, K, n, d = (validate.integer(v, name, minimum=1) for name, v in (("R", R), ("K", K), ("n", n), ("d", d)))
    sigma = validate.real(sigma, "sigma", minimum=0.0)
    Delta = validate.real(Delta, "Delta", minimum=0.0)
    validate.memory("R", R * K * n * d, torch.empty((), dtype=dtype).element_size(),
                    f"the points [R={R}, K*n={K * n}, d={d}]")
    device = gen.device
    means = planted_means(K, d, Delta, dtype, device)
    labels = torch.arange(K, device=device).repeat_interleave(n)
    noise = randn(R, K * n, d, generator=gen, dtype=dtype, device=device) * (sigma / math.sqrt(d))
    return ClusteredPoints(means[labels][None] + noise, labels, means, sigma, Delta, n)


def random_unit(R: int, d: int, gen: torch.Generator, dtype=torch.float64) -> torch.Tensor:
    """R independent uniformly random unit vectors in R^d."""
    u = randn(R, d, generator=gen, dtype=dtype, device=gen.device)
    return u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
