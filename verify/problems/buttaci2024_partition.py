"""The partition generator of buttaci2024's experiments (Appendix C.1, after Hsu et al. 2019; Claim 20).

* **Data imbalance b**: client sizes are log-normal. [toolkit, docs/papers/buttaci2024.md §7 item 15] The paper writes
  lnN(floor(N/C), b), which read literally would give sizes near e^{N/C}; we read it as
  log-size ~ N(ln(N/C), b^2), i.e. log-standard deviation b, then scale the sizes to sum to N exactly
  (largest remainder, every client keeping at least one sample; the scaling moves the median to about
  (N/C) e^{-b^2/2}). b = 0 gives equal sizes (N/C, the leftover N mod C spread one sample each).
* **Class imbalance a**: each client's class proportions are Dir((1/a) 1_K). The Dirichlet is degenerate
  at a = 0, which is implemented as the limit a -> 0: equal proportions 1/K. Counts are the sizes times
  the proportions, rounded by largest remainder so that each client's counts sum to its size.
* **Synthetic features** [toolkit]: samples of class k are m_k + s z with z ~ N(0, I) and class means m_k
  in [0, 1]^dx; the similarity graph only needs each client's second-moment matrix X_i^T X_i.

Arrays carry a leading replicate axis R. Randomness comes from an explicit numpy Generator (the
Dirichlet and log-normal draws) and an explicit torch Generator (the features).
"""
from __future__ import annotations

import numpy as np
import torch

from analytic.errors import require
from verify.data.partition import largest_remainder  # noqa: F401 (also this module's name for it)
from verify.normal_draws import randn


def client_sizes(N: int, C: int, b: float, rng: np.random.Generator, R: int = 1) -> np.ndarray:
    """Sizes [R, C] summing to N, each at least one sample: one sample each plus the other N - C shared in
    proportion to log-normal draws (log-size ~ N(ln(N/C), b^2)); b = 0: equal shares."""
    require(N >= C >= 1, "N, C", f"need N >= C >= 1, got N={N}, C={C}")
    require(b >= 0, "b", f"must be >= 0, got {b}")
    raw = np.full((R, C), N / C) if b == 0 else np.exp(rng.normal(np.log(N / C), b, size=(R, C)))
    return 1 + largest_remainder((N - C) * raw / raw.sum(-1, keepdims=True), np.full(R, N - C))


def class_proportions(C: int, K: int, a: float, rng: np.random.Generator, R: int = 1) -> np.ndarray:
    """Proportions [R, C, K]: Dir((1/a) 1_K) per client; a = 0: exactly 1/K (the limit a -> 0). Below
    a = 1e-12 the draw is the limit too: the Dirichlet is then within about sqrt(a) of it, and its concentration
    1/a overflows numpy's sampler."""
    require(C >= 1 and K >= 1, "C, K", f"need C, K >= 1, got {C}, {K}")
    require(a >= 0 and np.isfinite(a), "a", f"must be finite and >= 0, got {a}")
    if a < 1e-12:
        return np.full((R, C, K), 1.0 / K)
    return rng.dirichlet(np.full(K, 1.0 / a), size=(R, C))


def class_counts(sizes: np.ndarray, proportions: np.ndarray) -> np.ndarray:
    """Counts [R, C, K]: size times proportion, each client's counts summing to its size."""
    return largest_remainder(sizes[..., None] * proportions, sizes)


def partition(N: int, C: int, K: int, a: float, b: float, rng: np.random.Generator, R: int = 1) -> np.ndarray:
    """Class counts [R, C, K] of a partition of N samples of K classes over C clients (imbalances a, b)."""
    return class_counts(client_sizes(N, C, b, rng, R), class_proportions(C, K, a, rng, R))


def class_means(K: int, dx: int, generator: torch.Generator, dtype=torch.float64, device=None) -> torch.Tensor:
    """Class means m_k ~ U[0, 1]^dx, ``[K, dx]``."""
    device = generator.device if device is None else device  # on the generator's device by default
    return torch.rand(K, dx, generator=generator, dtype=dtype, device=device)


def client_second_moments(counts: np.ndarray, means: torch.Tensor, noise: float,
                          generator: torch.Generator) -> torch.Tensor:
    """X_i^T X_i [R, C, dx, dx] of synthetic features (class k: m_k + noise z) for class counts [R, C, K]."""
    R, C, K = counts.shape
    dx = means.shape[1]
    flat = torch.as_tensor(counts.reshape(-1), device=means.device)
    cls = torch.arange(K, device=means.device).repeat(R * C).repeat_interleave(flat)
    group = torch.arange(R * C, device=means.device).repeat_interleave(flat.reshape(R * C, K).sum(-1))
    x = means[cls] + noise * randn(cls.numel(), dx, generator=generator, dtype=means.dtype, device=means.device)
    out = torch.zeros(R * C, dx * dx, dtype=means.dtype, device=means.device)
    out.index_add_(0, group, (x[:, :, None] * x[:, None, :]).reshape(-1, dx * dx))
    return out.reshape(R, C, dx, dx)
