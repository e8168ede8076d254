"""The mutual-similarity graph of buttaci2024 (Definitions 1-2, Algorithm 1 setup), batched.

* **Messages** (Definition 1): m_i is the first principal component of client i's data matrix X_i by
  *uncentered, unscaled* PCA, i.e. the top eigenvector of the second-moment matrix X_i^T X_i, unit norm.
  An eigenvector is defined only up to sign, and flipping m_i maps mis(i, n) to 1 - mis(i, n), which
  changes the graph completely (docs/papers/buttaci2024.md §7 item 12). [toolkit] Convention: sum_j m_j >= 0 (ties: the first
  nonzero coordinate positive); for nonnegative data the top eigenvector of X^T X is a Perron vector, and
  the convention picks its nonnegative version.
* **Misalignment** (Definition 1): mis(i, n) = (1 - m_i^T m_n)/2 = ||m_i - m_n||^2/4 in [0, 1].
* **Adjacency** (Definition 2): A_in = -ln mis(i, n) for i != n, A_ii = 0. Identical messages give
  mis = 0 and A = +inf (docs/papers/buttaci2024.md §7 item 13): [toolkit] mis is clipped to [eps, 1] (eps = 1e-12) and the
  number of clipped pairs is reported.
* **Weights** (Algorithm 1): p_in = A_in / 1^T A 1 (sum over all pairs 1, p_in = p_ni), degree weights
  p_i = sum_n p_in (sum 1), the row-stochastic neighbour matrix p_in / p_i used in u_t^i, and the graph
  Laplacian diag(A 1) - A (Appendix C.6).

Tensors carry any leading batch axes: messages ``[..., C, dx]``, matrices ``[..., C, C]``.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from analytic.errors import InputError

MIS_FLOOR = 1e-12


def second_moments(X: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """X_i^T X_i of padded client data ``X [..., C, N, dx]`` (rows where ``mask`` is False ignored)."""
    if mask is not None:
        X = X * mask[..., None].to(X.dtype)
    return X.transpose(-1, -2) @ X


def principal_messages(moments: torch.Tensor) -> torch.Tensor:
    """Unit top eigenvectors of the second-moment matrices ``[..., C, dx, dx]`` with the sign convention
    sum_j m_j >= 0 (ties broken by the first nonzero coordinate): ``[..., C, dx]``."""
    _, vecs = torch.linalg.eigh(moments)
    return canonical_sign(vecs[..., -1])


def canonical_sign(m: torch.Tensor) -> torch.Tensor:
    """Flip each vector ``m [..., dx]`` so that its coordinate sum is >= 0 (first nonzero coordinate > 0
    when the sum is exactly zero); the result does not depend on the sign an eigensolver returned."""
    total = m.sum(-1)
    first = torch.gather(m, -1, (m != 0).to(torch.int64).argmax(-1, keepdim=True)).squeeze(-1)
    sign = torch.where(total != 0, torch.sign(total), torch.sign(first))
    return m * torch.where(sign == 0, torch.ones_like(sign), sign)[..., None]


def misalignment(m: torch.Tensor) -> torch.Tensor:
    """mis(i, n) = (1 - m_i^T m_n)/2 for unit messages ``m [..., C, dx]``: ``[..., C, C]`` in [0, 1]."""
    norms = m.norm(dim=-1)
    if not torch.allclose(norms, torch.ones_like(norms), atol=1e-10):
        raise InputError("m", "messages must have unit norm (Definition 1)")
    return ((1 - m @ m.transpose(-1, -2)) / 2).clamp(0.0, 1.0)


@dataclass(frozen=True)
class Adjacency:
    """A [..., C, C] (Definition 2) and how many off-diagonal pairs had mis clipped up to the floor."""

    A: torch.Tensor
    clipped_pairs: int
    floor: float


def adjacency(mis: torch.Tensor, floor: float = MIS_FLOOR) -> Adjacency:
    """A_in = -ln(max(mis(i, n), floor)) for i != n and A_ii = 0 (Definition 2, natural log)."""
    if not 0 < floor < 1:
        raise InputError("floor", f"must lie in (0, 1), got {floor}")
    C = mis.shape[-1]
    off = ~torch.eye(C, dtype=torch.bool, device=mis.device)
    clipped = int(((mis < floor) & off).sum().item()) // 2
    A = -torch.log(mis.clamp(min=floor)) * off.to(mis.dtype)
    return Adjacency(A, clipped, floor)


@dataclass(frozen=True)
class SimilarityWeights:
    """p_in [..., C, C] (symmetric, sum 1) and the degree weights p_i [..., C] (sum 1)."""

    P: torch.Tensor
    p: torch.Tensor

    @property
    def neighbour(self) -> torch.Tensor:
        """The row-stochastic matrix p_in / p_i: u_t^i = sum_n (p_in/p_i) w^n_{t-1,E}."""
        return self.P / self.p[..., :, None]

    @property
    def S(self) -> torch.Tensor:
        """S = sum_i p_i^2."""
        return (self.p**2).sum(-1)


def similarity_weights(A: torch.Tensor) -> SimilarityWeights:
    """p_in = A_in / (1^T A 1), p_i = sum_n p_in (Algorithm 1); every client needs a positive degree."""
    if (A < 0).any() or not torch.isfinite(A).all():
        raise InputError("A", "the adjacency must be finite and nonnegative (clip mis first)")
    total = A.sum((-1, -2), keepdim=True)
    if not bool((total > 0).all()):
        raise InputError("A", "the adjacency has no positive weight")
    P = A / total
    p = P.sum(-1)
    if (p <= 0).any():
        raise InputError("A", "every client needs a positive degree (a row of A is zero)")
    return SimilarityWeights(P, p)


def laplacian(A: torch.Tensor) -> torch.Tensor:
    """The graph Laplacian diag(A 1) - A (Appendix C.6)."""
    return torch.diag_embed(A.sum(-1)) - A


def random_adjacency(C: int, generator: torch.Generator, low: float = 0.5, high: float = 3.0,
                     dtype=torch.float64, device=None) -> torch.Tensor:
    """[toolkit] A random symmetric adjacency with off-diagonal entries U(low, high) and a zero diagonal
    (docs/papers/buttaci2024.md §6.0, the quadratic suites' graph)."""
    device = generator.device if device is None else device  # on the generator's device by default
    if C < 2 or not 0 <= low <= high:
        raise InputError("C, low, high", f"need C >= 2 and 0 <= low <= high, got {C}, {low}, {high}")
    U = torch.rand(C, C, generator=generator, dtype=dtype, device=device) * (high - low) + low
    A = torch.triu(U, diagonal=1)
    return A + A.T


def weights_from_data(X: torch.Tensor, mask: torch.Tensor | None = None, floor: float = MIS_FLOOR):
    """Messages, misalignment, adjacency and weights of client data ``X [..., C, N, dx]`` (Algorithm 1 setup)."""
    m = principal_messages(second_moments(X, mask))
    mis = misalignment(m)
    adj = adjacency(mis, floor)
    return m, mis, adj, similarity_weights(adj.A)
