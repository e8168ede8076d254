"""The classic robust aggregators, batched over replicates: mean, coordinate-wise median and trimmed
mean, Multi-Krum, geometric median, Meamed.

All take ``X [R, N, d]`` and the number ``f`` of Byzantine inputs to tolerate and return ``[R, d]``.
Definitions as in allouah2025 spec 2.5 and dutta2023 spec 2.6 (the standard ones):

* CWTM (Yin et al. 2018): per coordinate, drop the f largest and f smallest values, average the N-2f left.
* CWMED: per coordinate, the median (the mean of the two middle values when N is even).
* Multi-Krum (Blanchard et al. 2017): score_i = sum of the squared distances from x_i to its N-f-2
  nearest other inputs; average the m lowest-scoring inputs (default m = N - f, ByzFL's convention).
* GM (geometric median): argmin_z sum_i ||x_i - z||, by Weiszfeld's iterations (smoothed at 0).
* Meamed (Xie et al. 2018): per coordinate, average the N-f values closest to the median.
"""
from __future__ import annotations

import torch

from analytic.errors import require
from verify.aggregators import aggregator


def _check(X: torch.Tensor, f: int, need: int = 0) -> tuple[int, int, int]:
    require(X.dim() == 3, "X", f"expected [R, N, d], got shape {tuple(X.shape)}")
    R, N, d = X.shape
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    require(N > need, "f", f"{N} inputs cannot tolerate f = {f} (this aggregator needs N > {need})")
    return R, N, d


@aggregator("mean")
def mean(X: torch.Tensor, f: int = 0) -> torch.Tensor:
    """The average: no robustness (FedAvg's aggregation)."""
    _check(X, f)
    return X.mean(1)


@aggregator("cwmed")
def coordinate_median(X: torch.Tensor, f: int = 0) -> torch.Tensor:
    """Coordinate-wise median; for even N the mean of the two middle values (so it is symmetric)."""
    _, N, _ = _check(X, f, 2 * f)
    s = X.sort(dim=1).values
    lo, hi = (N - 1) // 2, N // 2
    return 0.5 * (s[:, lo] + s[:, hi])


@aggregator("cwtm")
def trimmed_mean(X: torch.Tensor, f: int) -> torch.Tensor:
    """Coordinate-wise trimmed mean: drop the f largest and f smallest per coordinate (needs N > 2f)."""
    _, N, _ = _check(X, f, 2 * f)
    return X.sort(dim=1).values[:, f:N - f].mean(1)


def pairwise_sq_distances(X: torch.Tensor) -> torch.Tensor:
    """||x_i - x_j||^2 for all pairs, ``[R, N, N]``, from exact differences (never the matrix-product shortcut)."""
    return torch.cdist(X, X, compute_mode="donot_use_mm_for_euclid_dist") ** 2


@aggregator("multikrum")
def multi_krum(X: torch.Tensor, f: int, m: int | None = None) -> torch.Tensor:
    """Average of the m inputs with the lowest Krum scores (default m = N - f; needs N > 2f + 2)."""
    _, N, _ = _check(X, f, 2 * f + 2)
    m = N - f if m is None else m
    require(1 <= m <= N, "m", f"must lie in [1, {N}], got {m}")
    D = pairwise_sq_distances(X)
    # the N-f-2 nearest *other* inputs: sort each row, skip the zero distance to itself
    score = D.sort(dim=-1).values[:, :, 1:N - f - 1].sum(-1)  # [R, N]
    keep = score.argsort(dim=1, stable=True)[:, :m]  # ties broken by index: deterministic
    return torch.gather(X, 1, keep[..., None].expand(-1, -1, X.shape[-1])).mean(1)


@aggregator("gm")
def geometric_median(X: torch.Tensor, f: int = 0, iters: int = 200, eps: float = 1e-12) -> torch.Tensor:
    """Geometric median by Weiszfeld's iterations from the coordinate-wise median, with the distance
    floored at ``eps`` (the smoothed variant, which converges from any start)."""
    _check(X, f)
    z = coordinate_median(X, 0)
    for _ in range(iters):
        w = 1.0 / torch.linalg.vector_norm(X - z[:, None], dim=-1).clamp_min(eps)  # [R, N]
        z = (w[..., None] * X).sum(1) / w.sum(1, keepdim=True)
    return z


@aggregator("meamed")
def meamed(X: torch.Tensor, f: int) -> torch.Tensor:
    """Mean around the median: per coordinate, average the N-f values closest to the coordinate-wise median."""
    _, N, _ = _check(X, f, 2 * f)
    med = coordinate_median(X, 0)
    dist = (X - med[:, None]).abs()
    keep = dist.argsort(dim=1, stable=True)[:, :N - f]  # [R, N-f, d]
    return torch.gather(X, 1, keep).mean(1)

