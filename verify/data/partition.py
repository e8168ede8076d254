"""The papers' partition schemes, as pure functions of explicit numpy generators, batched over replicates.

Every function returns index arrays into a dataset's train (or test) part, shaped ``[R, N, n]`` (replicates,
clients, samples per client; equal sizes) or ``[R, N, n_max]`` with a boolean mask (unequal sizes), so that
``x[idx]`` is a client-batched ``[R, N, n, d]`` array. The schemes:

* **werner2023 §4.2 (Table 1)**: data "randomly shuffled and split into K clusters", n_i clients each; the
  rotation task rotates every image of cluster k by k·90° (:func:`rotate`), the private-label task maps the
  labels of cluster k by T_k(y) = (y + k) mod 10 (:func:`private_labels`); [code] k = 0..K-1, cluster 0 unchanged.
  :func:`iid_shards` gives the equal shards, :func:`cluster_of` the cluster of each client.
* **allouah2025 §5 (Figs. 1-2, D.1-D.2)**: "Dirichlet(α) label split across honest workers (Hsu et al. 2019)",
  α ∈ {0.1, 1}: each client's class proportions q_i ~ Dir(α 1_K), its n samples drawn class by class
  (:func:`dirichlet_label_split`); "extreme": data sorted by label and split evenly (:func:`extreme_split`).
* **buttaci2024 Appendix C.1 (Table 1)**: class proportions Dir((1/a) 1_K), sizes log-normal with log-std b
  (:mod:`verify.problems.buttaci2024_partition` draws the counts), realised on a dataset by
  :func:`indices_from_counts` (padded, with a mask).

Samples of one class go to clients from one random permutation of that class's pool, disjoint across clients
while the pool lasts; a scheme that asks for more samples of a class than the pool holds reuses the permutation
cyclically and says how many draws were reused (``reused``), never silently.
"""
from __future__ import annotations

import numpy as np

from analytic.errors import require


def largest_remainder(x: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Nonnegative integers n [..., m] with n.sum(-1) == total and |n - x| < 1, for x >= 0 whose rows sum
    to ``total`` (Hamilton's method: floor, then one more to the largest fractional parts)."""
    x = np.asarray(x, dtype=float)
    base = np.floor(x).astype(np.int64)
    short = np.asarray(total, dtype=np.int64) - base.sum(-1)
    order = np.argsort(-(x - base), axis=-1, kind="stable")
    ranks = np.argsort(order, axis=-1, kind="stable")
    return base + (ranks < short[..., None]).astype(np.int64)


def iid_shards(n_samples: int, N: int, n: int, rng: np.random.Generator, R: int = 1) -> np.ndarray:
    """Equal random shards ``[R, N, n]`` of ``range(n_samples)``: each replicate one permutation, cut into N
    consecutive blocks of n (disjoint; needs N n <= n_samples)."""
    require(N >= 1 and n >= 1, "N, n", f"need N, n >= 1, got {N}, {n}")
    require(N * n <= n_samples, "n", f"{N} clients x {n} samples exceed the {n_samples} available")
    perm = rng.permuted(np.broadcast_to(np.arange(n_samples), (R, n_samples)), axis=1)
    return perm[:, :N * n].reshape(R, N, n)


def cluster_of(N: int, K: int) -> np.ndarray:
    """Cluster index of each of N = K n_i clients: client i is in cluster i // n_i (the shards are random, so the
    order carries no information)."""
    require(K >= 1 and N % K == 0, "K", f"N = {N} clients do not split into K = {K} equal clusters")
    return np.repeat(np.arange(K), N // K)


def rotate(x: np.ndarray, image_shape: tuple, quarter_turns: np.ndarray) -> np.ndarray:
    """Images ``x [..., N, n, h*w]`` with client i's images rotated by ``quarter_turns[i]``·90° (counter-clockwise,
    numpy's/torch's rot90 on the last two axes: [code] torch.rot90(k)). Needs square images."""
    h, w = image_shape
    require(h == w, "image_shape", f"rotation by 90 degrees needs square images, got {h}x{w}")
    img = x.reshape(*x.shape[:-1], h, w).copy()
    q = np.asarray(quarter_turns) % 4
    for k in range(1, 4):  # one pass per turn count (at most three), not per client
        sel = q == k
        if sel.any():
            img[..., sel, :, :, :] = np.rot90(img[..., sel, :, :, :], k, axes=(-2, -1))
    return img.reshape(x.shape)


def private_labels(y: np.ndarray, shift: np.ndarray, classes: int = 10) -> np.ndarray:
    """Labels ``y [..., N, n]`` of client i mapped by T(y) = (y + shift[i]) mod classes (werner2023 §4.2)."""
    return (y + np.asarray(shift)[:, None]) % classes


def indices_from_counts(y: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> tuple:
    """Realise class counts ``[R, N, K]`` on labels ``y``: indices ``[R, N, n_max]`` (-1 past a client's size),
    the mask of real entries, and the number of draws that reused a sample already given to another client of
    the same replicate. Class k's samples come from one permutation of its pool per replicate, in client order."""
    counts = np.asarray(counts, dtype=np.int64)
    R, N, K = counts.shape
    sizes = counts.sum(-1)
    n_max = int(sizes.max())
    idx = np.full((R, N, n_max), -1, dtype=np.int64)
    pools = [np.flatnonzero(y == k) for k in range(K)]
    require(all(len(p) > 0 for k, p in enumerate(pools) if counts[..., k].any()), "counts",
            "a class with no sample in the data is asked for")
    # position of each client's block of class k within the client's row: classes in order
    start_in_row = np.concatenate([np.zeros((R, N, 1), np.int64), np.cumsum(counts, -1)[..., :-1]], -1)
    reused = 0
    for r in range(R):
        for k in range(K):  # one vectorised draw per (replicate, class): not per client
            c = counts[r, :, k]
            total = int(c.sum())
            if total == 0:
                continue
            pool = rng.permutation(pools[k])
            take = pool[np.arange(total) % len(pool)]
            reused += max(0, total - len(pool))
            client = np.repeat(np.arange(N), c)
            within = np.arange(total) - np.repeat(np.cumsum(c) - c, c)
            idx[r, client, start_in_row[r, client, k] + within] = take
    mask = np.arange(n_max)[None, None, :] < sizes[..., None]
    return idx, mask, reused


def dirichlet_label_split(y: np.ndarray, N: int, n: int, alpha: float, rng: np.random.Generator, R: int = 1,
                          classes: int | None = None) -> tuple:
    """Hsu et al. (2019) as allouah2025 §5 uses it: client i's class proportions q_i ~ Dir(alpha 1_K); its n
    samples hold round(n q_i) of each class (largest remainder, summing to n). Returns (indices [R, N, n],
    proportions [R, N, K], reused draws)."""
    require(alpha > 0 and np.isfinite(alpha), "alpha", f"must be positive and finite, got {alpha}")
    K = int(classes or (y.max() + 1))
    q = rng.dirichlet(np.full(K, float(alpha)), size=(R, N))
    counts = largest_remainder(n * q, np.full((R, N), n))
    idx, _, reused = indices_from_counts(y, counts, rng)
    return idx, q, reused


def extreme_split(y: np.ndarray, N: int, n: int, rng: np.random.Generator, R: int = 1) -> np.ndarray:
    """allouah2025's "extreme" heterogeneity: the data sorted by label and split evenly among the N clients
    (ties within a label in random order). Returns indices [R, N, n] (the first N n samples of the sorted order)."""
    require(N * n <= len(y), "n", f"{N} clients x {n} samples exceed the {len(y)} available")
    out = np.empty((R, N * n), dtype=np.int64)
    for r in range(R):
        order = rng.permutation(len(y))
        keep = np.sort(order[:N * n])  # which samples take part: a random subset of size N n
        out[r] = keep[np.argsort(y[keep], kind="stable")]
    return out.reshape(R, N, n)


def gather(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``x[idx]`` with padded entries (-1) mapped to zeros: ``[..., n, d]`` client batches."""
    out = x[np.maximum(idx, 0)]
    if (idx < 0).any():
        out = np.where((idx >= 0)[..., None] if out.ndim > idx.ndim else idx >= 0, out, 0)
    return out
