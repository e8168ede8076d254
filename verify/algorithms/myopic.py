"""Myopic-Clustering (werner2023, Algorithm 1), batched over replicates and clients.

Round t = 1..T:
    every client sends g_i(x_{i,t-1}), its gradient at ITS OWN model;
    the server clusters {g_i(x_{i,t-1})}_i into K clusters with centers v_{k,t} (cluster means);
    client i steps  x_{i,t} = x_{i,t-1} - eta v_{k_i,t}.

The paper leaves the clustering method open (docs/papers/werner2023.md A11). Toolkit default (docs/papers/werner2023.md §2.2):
exact K-means for small problems (all partitions of N <= 10 points into K non-empty blocks are
enumerated; the optimal partition minimises the within-cluster sum of squares; ties go to the
first partition in restricted-growth order), otherwise Lloyd's algorithm from a k-means++ seed.
Labels are canonical: client 1's cluster is 0, the next new cluster 1, and so on.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch

from verify.algorithms.threshold_clustering import distances
from analytic.errors import InputError
from verify.problems.base import ClientProblem, per_replicate

EXACT_MAX_POINTS = 10


@lru_cache(maxsize=64)
def _set_partitions(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Restricted-growth strings of length n with exactly k blocks (each partition once)."""
    out: list[tuple[int, ...]] = []

    def grow(prefix: list[int], used: int) -> None:
        if len(prefix) == n:
            if used == k:
                out.append(tuple(prefix))
            return
        if used + (n - len(prefix)) < k:
            return
        for lab in range(min(used + 1, k)):
            grow(prefix + [lab], max(used, lab + 1))

    grow([], 0)
    return tuple(out)


def set_partitions(n: int, k: int, device=None) -> torch.Tensor:
    """All partitions of n points into exactly k non-empty blocks, as labels ``[P, n]``."""
    if not 1 <= k <= n:
        raise InputError("K", f"need 1 <= K <= N, got K={k}, N={n}")
    return torch.tensor(_set_partitions(n, k), dtype=torch.long, device=device)


def canonical_labels(labels: torch.Tensor, K: int) -> torch.Tensor:
    """Relabel ``[R, N]`` so that clusters are numbered in order of their first client."""
    R, N = labels.shape
    idx = torch.arange(N, device=labels.device).expand(R, N)
    first = torch.full((R, K), N, dtype=torch.long, device=labels.device)
    first = first.scatter_reduce(1, labels, idx, reduce="amin")
    rank = torch.argsort(torch.argsort(first, dim=1), dim=1)
    return rank.gather(1, labels)


def cluster_means(Z: torch.Tensor, labels: torch.Tensor, K: int, fallback: torch.Tensor | None = None) -> torch.Tensor:
    """Mean of each cluster ``[R, K, d]``; an empty cluster keeps ``fallback`` (or 0)."""
    onehot = torch.nn.functional.one_hot(labels, K).to(Z.dtype)  # [R, N, K]
    sums = onehot.transpose(1, 2) @ Z
    counts = onehot.sum(1)[..., None]
    means = sums / counts.clamp(min=1)
    if fallback is not None:
        means = torch.where(counts > 0, means, fallback)
    return means


def exact_kmeans(Z: torch.Tensor, K: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Optimal K-means partition of each replicate's points ``Z [R, N, d]`` by enumeration.

    Returns canonical labels ``[R, N]`` and centers (cluster means) ``[R, K, d]``.
    """
    R, N, _ = Z.shape
    if N > EXACT_MAX_POINTS:
        raise InputError("N", f"exact K-means enumerates partitions of at most {EXACT_MAX_POINTS} points, got {N}")
    parts = set_partitions(N, K, Z.device)  # [P, N]
    onehot = torch.nn.functional.one_hot(parts, K).to(Z.dtype)  # [P, N, K]
    counts = onehot.sum(1)  # [P, K]
    means = torch.einsum("pnk,rnd->rpkd", onehot, Z) / counts[None, :, :, None]
    per_point = torch.einsum("pnk,rpkd->rpnd", onehot, means)  # center of each point's block
    cost = ((Z[:, None] - per_point) ** 2).sum((-1, -2))  # [R, P]
    best = cost.argmin(1)  # first minimum: ties to the earliest partition
    labels = parts[best]
    return labels, means[torch.arange(R, device=Z.device), best]


def lloyd_kmeans(Z: torch.Tensor, K: int, generator: torch.Generator | None, iters: int = 100) -> tuple[torch.Tensor, torch.Tensor]:
    """Lloyd's algorithm from a k-means++ seed, for every replicate at once (canonical labels)."""
    R, N, _ = Z.shape
    if not 1 <= K <= N:
        raise InputError("K", f"need 1 <= K <= N, got K={K}, N={N}")
    if generator is None:
        raise InputError("generator", "k-means++ seeding needs an explicit torch.Generator (no global RNG)")
    rows = torch.arange(R, device=Z.device)
    first = torch.randint(N, (R,), generator=generator, device=Z.device)
    C = [Z[rows, first]]
    for _ in range(1, K):
        d2 = distances(Z, torch.stack(C, 1)).pow(2).min(-1).values  # [R, N]
        w = torch.where(d2.sum(1, keepdim=True) > 0, d2, torch.ones_like(d2))
        nxt = torch.multinomial(w, 1, generator=generator).squeeze(1)
        C.append(Z[rows, nxt])
    centers = torch.stack(C, 1)
    labels = distances(Z, centers).argmin(-1)
    for _ in range(iters):
        centers = cluster_means(Z, labels, K, fallback=centers)
        new = distances(Z, centers).argmin(-1)
        if torch.equal(new, labels):
            break
        labels = new
    canon = canonical_labels(labels, K)
    return canon, cluster_means(Z, canon, K)


@dataclass
class MyopicTrace:
    """Per-round record. Round t (1-based) is stored at index t-1 of the round arrays.

    x [T+1, R, N, d] models (x[0] = x_0); grads [T, R, N, d] the g_i(x_{i,t-1}) sent;
    labels [T, R, N] clusters k_i; centers [T, R, K, d]; losses [T+1, R, N] f_i(x_{i,t}).
    """

    x: torch.Tensor
    grads: torch.Tensor
    labels: torch.Tensor
    centers: torch.Tensor
    losses: torch.Tensor


def myopic_clustering(
    problem: ClientProblem,
    x0: torch.Tensor,
    eta,
    K: int,
    T: int,
    *,
    clustering: str = "auto",
    generator: torch.Generator | None = None,
    batch_size=1,
) -> MyopicTrace:
    """Run Algorithm 1 for T rounds from ``x0 [R, N, d]``; ``eta`` is a float or a ``[R]`` tensor.

    ``clustering``: ``exact`` (enumeration), ``lloyd`` (k-means++ then Lloyd) or ``auto``
    (exact when N <= 10 and d == 1 as in docs/papers/werner2023.md §2.2, else Lloyd).
    """
    if x0.dim() != 3:
        raise InputError("x0", f"expected [R, N, d], got {tuple(x0.shape)}")
    if T < 1:
        raise InputError("T", f"must be >= 1, got {T}")
    R, N, d = x0.shape
    if clustering == "auto":
        clustering = "exact" if (N <= EXACT_MAX_POINTS and d == 1) else "lloyd"
    if clustering not in ("exact", "lloyd"):
        raise InputError("clustering", f"expected exact, lloyd or auto, got {clustering!r}")
    if (clustering == "lloyd" or problem.stochastic) and generator is None:
        raise InputError("generator", "k-means++ seeding and stochastic gradients need an explicit torch.Generator")
    step = per_replicate(eta, x0)
    x = x0.clone()
    xs, gs, ls, cs, fs = [x.clone()], [], [], [], [problem.loss(x)]
    for _ in range(T):
        g = problem.stochastic_grad(x, generator, batch_size) if problem.stochastic else problem.grad(x)
        if clustering == "exact":
            labels, centers = exact_kmeans(g, K)
        else:
            labels, centers = lloyd_kmeans(g, K, generator)
        v = centers.gather(1, labels[..., None].expand(R, N, d))  # v_{k_i,t}
        x = x - step * v
        xs.append(x.clone()), gs.append(g), ls.append(labels), cs.append(centers), fs.append(problem.loss(x))
    return MyopicTrace(torch.stack(xs), torch.stack(gs), torch.stack(ls), torch.stack(cs), torch.stack(fs))


def partition_text(labels) -> str:
    """Labels of one replicate (0-based clusters) as 1-based client sets: ``{1}, {2, 3}``."""
    labs = [int(v) for v in labels]
    groups: dict[int, list[int]] = {}
    for i, lab in enumerate(labs):
        groups.setdefault(lab, []).append(i + 1)
    blocks = sorted(groups.values(), key=lambda g: g[0])
    return ", ".join("{" + ", ".join(map(str, g)) + "}" for g in blocks)
