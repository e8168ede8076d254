"""Inputs for CAF's robustness checks (allouah2025 Proposition 4.1; claims 11-16 of docs/papers/allouah2025.md §6): honest vectors of
several laws plus Byzantine vectors from several attack families, batched ``[R, n, d]`` with the n - f
honest rows first, and the exact statistics of every honest subset.

Honest laws (each replicate draws its own): ``gaussian`` N(m, diag(s^2)) with a random mean and
log-normal scales s_j (anisotropic, so lambda_max and the trace differ); ``heavy`` the same with
Student-t(3) coordinates; ``clustered`` two Gaussian clusters (heterogeneous honest workers);
``gradients`` the workers' gradients of a softmax regression at a random model (the LF family's
honest side, :mod:`verify.problems.allouah2025_classification`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import torch

from analytic.errors import require
from verify.aggregators.caf import top_eigenpair
from verify.attacks import ATTACKS
from verify.normal_draws import randn
from verify.problems.allouah2025_classification import softmax_workers

HONEST_LAWS = ("gaussian", "heavy", "clustered")
#: (family name, attack name, options): our reading (docs/papers/allouah2025.md) C11 list (far cluster, ALIE mu +- tau s with
#: tau in {0.5, 1, 1.5, 3}, a point along the top honest eigenvector at k sigma_S, FOE -tau mu, mixtures) and SF.
ATTACK_FAMILIES: tuple[tuple[str, str, dict], ...] = (
    ("far cluster", "far_cluster", {"distance": 20.0}),
    ("ALIE tau=0.5", "alie", {"tau": 0.5}), ("ALIE tau=-0.5", "alie", {"tau": -0.5}),
    ("ALIE tau=1", "alie", {"tau": 1.0}), ("ALIE tau=-1", "alie", {"tau": -1.0}),
    ("ALIE tau=1.5", "alie", {"tau": 1.5}), ("ALIE tau=-1.5", "alie", {"tau": -1.5}),
    ("ALIE tau=3", "alie", {"tau": 3.0}), ("ALIE tau=-3", "alie", {"tau": -3.0}),
    ("top eigenvector k=1", "top_eigen", {"k": 1.0}), ("top eigenvector k=2", "top_eigen", {"k": 2.0}),
    ("top eigenvector k=4", "top_eigen", {"k": 4.0}), ("FOE tau=2", "foe", {"tau": 2.0}), ("SF", "sf", {}),
    ("mixture", "mixture", {}),
)
#: Softmax-regression gradients: K classes, p features (d = K p).
LF_CLASSES, LF_FEATURES = 10, 5


@dataclass(frozen=True)
class InputBatch:
    """``X [R, n, d]`` with the honest rows ``0..n-f-1`` first; ``family`` and ``law`` say how it was made."""

    X: torch.Tensor
    f: int
    family: str
    law: str

    @property
    def n(self) -> int:
        return self.X.shape[1]

    @property
    def honest(self) -> torch.Tensor:
        return self.X[:, : self.n - self.f]


def honest_vectors(law: str, R: int, h: int, d: int, generator: torch.Generator, dtype=torch.float64,
                   device="cpu") -> torch.Tensor:
    """h honest vectors per replicate ``[R, h, d]`` of the given law (see the module docstring)."""
    require(law in HONEST_LAWS, "law", f"expected one of {HONEST_LAWS}, got {law!r}")
    kw = dict(generator=generator, dtype=dtype, device=device)
    mean = 3.0 * randn(R, 1, d, **kw)
    scale = torch.exp(randn(R, 1, d, **kw))
    z = randn(R, h, d, **kw)
    if law == "heavy":  # Student-t with 3 degrees of freedom: z / sqrt(chi2_3 / 3)
        chi2 = (randn(R, h, d, 3, **kw) ** 2).sum(-1)
        z = z / torch.sqrt(chi2 / 3.0)
    if law == "clustered":
        side = (torch.rand(R, h, 1, generator=generator, device=device) < 0.5).to(dtype)
        z = z + 4.0 * (2.0 * side - 1.0) * randn(R, 1, d, **kw) / math.sqrt(d)
    return mean + scale * z


def attacked_batch(honest: torch.Tensor, f: int, attack: str, options: dict, generator: torch.Generator) -> torch.Tensor:
    """``[R, h + f, d]``: the honest rows followed by the attack's f vectors."""
    byz = ATTACKS[attack](honest, f, generator=generator, **options)
    return torch.cat([honest, byz], 1)


def lf_batch(R: int, h: int, f: int, generator: torch.Generator, dtype=torch.float64, device="cpu") -> InputBatch:
    """Honest softmax-regression gradients at a random model, and f label-flipping vectors (d = 50)."""
    prob = softmax_workers(R, h, 30, LF_FEATURES, LF_CLASSES, separation=3.0, skew=1.0, generator=generator,
                           dtype=dtype, device=device)
    theta = 0.3 * randn(R, prob.dim, generator=generator, dtype=dtype, device=device)
    honest = prob.full_grad(theta)
    byz = ATTACKS["lf"](honest, f, flipped_gradients=prob.full_grad(theta, flip_labels=True))
    return InputBatch(torch.cat([honest, byz], 1), f, "LF", "gradients")


def random_configs(rng: np.random.Generator, count: int, n_range=(3, 60), d_range=(1, 200),
                   small: int = 0) -> list[tuple[int, int, int]]:
    """``count`` (n, f, d) with f in [1, (n-1)/2], d log-uniform; the first ``small`` have n <= 12
    (where every subset S of size n - f is enumerated)."""
    out = []
    for k in range(count):
        n = int(rng.integers(3, 13)) if k < small else int(rng.integers(n_range[0], n_range[1] + 1))
        f = int(rng.integers(1, (n - 1) // 2 + 1))
        d = int(np.clip(np.round(np.exp(rng.uniform(math.log(d_range[0]), math.log(d_range[1])))), *d_range))
        out.append((n, f, d))
    return out


def prop41_suite(rng: np.random.Generator, generator: torch.Generator, R: int, count: int, small: int,
                 dtype=torch.float64, device="cpu") -> list[InputBatch]:
    """``count`` batches of R replicates: random (n, f, d), honest laws and attack families taken in turn
    (every fifth batch is the label-flipping family on softmax gradients instead)."""
    batches = []
    for k, (n, f, d) in enumerate(random_configs(rng, count, small=small)):
        if k % 5 == 4:
            batches.append(lf_batch(R, n - f, f, generator, dtype, device))
            continue
        law = HONEST_LAWS[k % len(HONEST_LAWS)]
        name, attack, opts = ATTACK_FAMILIES[k % len(ATTACK_FAMILIES)]
        honest = honest_vectors(law, R, n - f, d, generator, dtype, device)
        batches.append(InputBatch(attacked_batch(honest, f, attack, opts, generator), f, name, law))
    return batches


def spread(X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(mean [..., d], lambda_max [...], trace [...]) of the empirical covariance of ``X [..., k, d]``
    (normalised by k), lambda_max by an exact eigensolver (Gram matrix when d > k)."""
    lead = X.shape[:-2]
    Xf = X.reshape(-1, *X.shape[-2:])
    mu = Xf.mean(1)
    D = Xf - mu[:, None]
    w = torch.full(Xf.shape[:2], 1.0 / Xf.shape[1], dtype=X.dtype, device=X.device)
    lam, _ = top_eigenpair(D, w)
    tr = (D**2).sum(-1).mean(1)
    return mu.reshape(*lead, -1), lam.reshape(lead), tr.reshape(lead)


def subsets_spread(X: torch.Tensor, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean ``[R, M, d]`` and lambda_max ``[R, M]`` of the covariance of every subset of ``size`` rows
    (M = C(n, size); keep n small)."""
    n = X.shape[1]
    idx = torch.tensor(list(itertools.combinations(range(n), size)), device=X.device)  # [M, size]
    sub = X[:, idx]  # [R, M, size, d]
    mu, lam, _ = spread(sub)
    return mu, lam
