"""A real image dataset for buttaci2024's graph statistics (Appendix C.6, Figs. 6-7), with the paper's partitions.

The paper builds its similarity graphs on CIFAR10, CIFAR100 and FEMNIST, which cannot be downloaded here. The
substitute is scikit-learn's bundled handwritten digits (UCI optdigits test set: 1797 images of 8 x 8 pixels with
values 0..16, 10 classes), which ships inside the scikit-learn package. A user with the paper's data passes
``data=PATH`` to the check: an ``.npz`` file with ``X`` (samples x features) and ``y`` (integer labels).

:func:`partition_indices` splits the samples over C clients with Appendix C.1's generator
(verify/problems/buttaci2024_partition.py: class proportions Dir((1/a) 1_K), log-normal sizes with log-sd b):
the generator's class counts are the clients' demands, and each class's samples are shared among the clients in
proportion to their demand for it (largest remainder), so the partition is disjoint and uses every sample
[toolkit: the paper's "leftover samples are spread to approximately keep the requested imbalance"].
"""
from __future__ import annotations

import os

import numpy as np

from analytic.errors import InputError, require
from verify.data.datasets import digits_raw
from verify.problems import buttaci2024_partition as part


def load_digits_bundled() -> tuple[np.ndarray, np.ndarray, str]:
    """(X [1797, 64] raw pixel values 0..16, y [1797], source): scikit-learn's bundled digits (verify/data)."""
    x, y = digits_raw()
    return np.array(x), np.array(y), "scikit-learn bundled digits (digits.csv.gz)"


def load_dataset(data: str | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    """The bundled digits, or the user's ``.npz`` (arrays X [n, features], y [n] integer labels 0..K-1)."""
    if data is None:
        return load_digits_bundled()
    if not os.path.isfile(data):
        raise InputError("data", f"no such file: {data}")
    try:
        with np.load(data) as z:
            X, y = np.asarray(z["X"], dtype=float), np.asarray(z["y"]).astype(np.int64)
    except (OSError, KeyError, ValueError) as exc:
        raise InputError("data", f"{data}: expected an .npz with arrays X and y ({exc})") from exc
    X = X.reshape(len(X), -1)
    require(len(X) == len(y) and len(y) > 0, "data", "X and y must have the same, positive, number of rows")
    require(bool(np.all(np.isfinite(X))), "data", "X must be finite")
    require(int(y.min()) >= 0, "data", "labels must be integers 0..K-1")
    return X, y, f"user data {data}"


def partition_indices(y: np.ndarray, C: int, a: float, b: float, rng: np.random.Generator) -> list[np.ndarray]:
    """The sample indices of each of C clients: demands from Appendix C.1's generator (classes Dir((1/a) 1_K), sizes
    log-normal with log-sd b), then every class's samples shared among the clients in proportion to their demand."""
    K = int(y.max()) + 1
    N = len(y)
    require(N >= C >= 2, "C", f"need 2 <= C <= {N} (the number of samples), got {C}")
    demand = part.partition(N, C, K, a, b, rng, 1)[0].astype(float)  # [C, K]
    owner = np.empty(N, dtype=np.int64)
    for k in range(K):  # K classes: setup, not a hot path
        pool = rng.permutation(np.flatnonzero(y == k))
        col = demand[:, k]
        share = col / col.sum() if col.sum() > 0 else np.full(C, 1.0 / C)
        n = part.largest_remainder(share * len(pool), np.array(len(pool)))
        owner[pool] = np.repeat(np.arange(C), n)
    counts = np.bincount(owner, minlength=C)
    for i in np.flatnonzero(counts == 0):  # every client keeps at least one sample (taken from the largest)
        donor = int(np.argmax(counts))
        owner[np.flatnonzero(owner == donor)[0]] = i
        counts[donor] -= 1
        counts[i] += 1
    order = np.argsort(owner, kind="stable")
    return np.split(order, np.cumsum(np.bincount(owner, minlength=C))[:-1])
