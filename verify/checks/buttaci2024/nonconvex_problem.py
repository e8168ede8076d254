"""A small smooth nonconvex problem for buttaci2024's Theorems 2 and 4 (Claim 15).

Client i holds f_i(w) = sum_j log(1 + (w_j - c_ij)^2) + (lambda/2)||w||^2. With phi(x) = log(1 + x^2),
phi'(x) = 2x/(1 + x^2) and phi''(x) = 2(1 - x^2)/(1 + x^2)^2 in [-1/4, 2], so (exact)

* every f_i is L-smooth with L = 2 + lambda (phi'' attains 2 at x = 0) and nonconvex when lambda < 1/4;
* f_i >= 0, so f_inf = 0 is a valid lower bound of inf f (Assumption 6);
* ||grad phi|| is at most 1 per coordinate, so the gradients are bounded on bounded sets.

The centres c_i = h z_i (z_i ~ N(0, I)) set the heterogeneity.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from analytic.constants import Constant
from analytic.errors import require
from verify.normal_draws import randn
from verify.problems.similarity_graph import SimilarityWeights, random_adjacency, similarity_weights


@dataclass(frozen=True)
class LogCauchyClients:
    c: torch.Tensor  # [C, d]
    lam: float
    weights: SimilarityWeights
    name: str = "buttaci2024 nonconvex (log-Cauchy) clients"

    @property
    def n_clients(self) -> int:
        return self.c.shape[0]

    @property
    def dim(self) -> int:
        return self.c.shape[1]

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        """f_i at ``X [..., C, d]``."""
        return torch.log1p((X - self.c) ** 2).sum(-1) + 0.5 * self.lam * (X**2).sum(-1)

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        """grad f_i at ``X [..., C, d]``."""
        r = X - self.c
        return (2 * r).div_(r.square().add_(1)).add_(X, alpha=self.lam)

    def global_loss(self, w: torch.Tensor) -> torch.Tensor:
        X = w[..., None, :].expand(*w.shape[:-1], self.n_clients, self.dim)
        return (self.loss(X) * self.weights.p).sum(-1)

    def global_grad(self, w: torch.Tensor) -> torch.Tensor:
        X = w[..., None, :].expand(*w.shape[:-1], self.n_clients, self.dim)
        return self.weights.p @ self.grad(X)

    def oracle(self):
        """Deterministic gradients (sigma^2 = 0)."""
        return lambda x, t, k: self.grad(x)

    def constants(self) -> dict[str, Constant]:
        p = self.weights.p
        return {
            "L": Constant("L", 2.0 + self.lam, "exact", "sup phi'' = 2 (at 0) plus lambda"),
            "f_inf": Constant("f_inf", 0.0, "lower bound", "every f_i >= 0"),
            "S": Constant("S", float((p**2).sum()), "exact", "sum_i p_i^2 of the degree weights"),
            "sigma2": Constant("sigma2", 0.0, "exact", "deterministic gradients"),
        }


def log_cauchy(generator: torch.Generator, *, d: int = 5, C: int = 4, h: float = 2.0, lam: float = 0.05,
               dtype=torch.float64, device=None) -> LogCauchyClients:
    device = generator.device if device is None else device  # on the generator's device by default
    require(d >= 1 and C >= 2 and h >= 0 and 0 <= lam < 0.25, "d, C, h, lam",
            f"need d >= 1, C >= 2, h >= 0 and 0 <= lam < 1/4 (nonconvex), got {d}, {C}, {h}, {lam}")
    c = h * randn(C, d, generator=generator, dtype=dtype, device=device)
    weights = similarity_weights(random_adjacency(C, generator, dtype=dtype, device=device))
    return LogCauchyClients(c, lam, weights)
