"""Orthogonal iteration and su2022's Algorithm 3 (federated orthogonal iteration, FOI), batched.

Target: the top-k left singular subspace of Y = (1 / sum_i n_i) sum_i sum_j a_ij b_ij^T (d x d,
possibly asymmetric) without forming Y (Appendix A.1, Algorithm 3). With T even, half-step t

* even: Q_{t+1} = sum_i w_i (1/n_i) sum_j b_ij a_ij^T Q_t = Y^T Q_t        (not orthonormalised)
* odd:  Q_{t+1} R_{t+1} = sum_i w_i (1/n_i) sum_j a_ij b_ij^T Q_t = Y Q_t   (thin QR)

with w_i = n_i / sum n_i, so two half-steps are one orthogonal iteration on Y Y^T:
Q_{t+2} = orth(Y Y^T Q_t). Every QR here is sign-normalised (diag R >= 0), which makes the
orthonormal factor unique: FOI then equals the centralised iteration column for column, not only
up to signs (check su2022.c04).
"""
from __future__ import annotations

import torch

from analytic.errors import require
from verify.normal_draws import randn


def orth(A: torch.Tensor) -> torch.Tensor:
    """Orthonormal factor of the thin QR of ``A [..., d, k]`` with diag(R) >= 0 (unique when A has full rank)."""
    Q, Rm = torch.linalg.qr(A)
    sign = torch.sign(torch.diagonal(Rm, dim1=-2, dim2=-1))
    return Q * torch.where(sign == 0, torch.ones_like(sign), sign)[..., None, :]


def random_orthonormal(shape: tuple, d: int, k: int, generator: torch.Generator, dtype=torch.float64) -> torch.Tensor:
    """Haar-distributed ``[*shape, d, k]`` with orthonormal columns (QR of a Gaussian, sign-normalised)."""
    return orth(randn(*shape, d, k, generator=generator, dtype=dtype, device=generator.device))


def orthogonal_iteration(Y: torch.Tensor, Q0: torch.Tensor, iterations: int) -> torch.Tensor:
    """``iterations`` steps of Q <- orth(Y Y^T Q) on explicit ``Y [..., d, d]`` from ``Q0 [..., d, k]``:
    the centralised reference of Algorithm 3 (T half-steps = T/2 iterations)."""
    require(iterations >= 0, "iterations", f"must be >= 0, got {iterations}")
    Q = Q0
    for _ in range(iterations):
        Q = orth(Y @ (Y.transpose(-1, -2) @ Q))
    return Q


def federated_orthogonal_iteration(a: torch.Tensor, b: torch.Tensor, seg: torch.Tensor, Q0: torch.Tensor,
                                   T: int) -> torch.Tensor:
    """Algorithm 3 literally: clients hold pairs ``a, b [R, P, d]`` (point p belongs to client
    ``seg[p]``); each half-step every client sends its local product (1/n_i) sum_j b_ij a_ij^T Q_t
    (or a b^T Q_t), computed for all clients at once with one segment sum, and the PS averages them
    with weights n_i / sum n_i. ``Q0 [R, d, k]``; ``T`` must be even. Returns Q_T."""
    require(T >= 0 and T % 2 == 0, "T", f"Algorithm 3 needs an even number of half-steps, got {T}")
    R, P, d = a.shape
    M = int(seg.max()) + 1
    n = torch.zeros(M, dtype=a.dtype, device=a.device).index_add_(0, seg, torch.ones(P, dtype=a.dtype, device=a.device))
    w = n / n.sum()
    Q = Q0
    for t in range(T):
        left, right = (b, a) if t % 2 == 0 else (a, b)  # even: b a^T Q ; odd: a b^T Q
        proj = right @ Q  # [R, P, k] = <right_ij, Q columns>
        local = torch.zeros(R, M, d, Q.shape[-1], dtype=a.dtype, device=a.device)
        local.index_add_(1, seg, left[..., :, None] * proj[..., None, :])
        local = local / n[None, :, None, None]  # each client's message (1/n_i) sum_j ...
        Q = (w[None, :, None, None] * local).sum(1)
        if t % 2 == 1:
            Q = orth(Q)
    return Q


def subspace_distance(Q: torch.Tensor, U: torch.Tensor) -> torch.Tensor:
    """||Q Q^T - U U^T||_2 for orthonormal ``Q, U [..., d, k]`` (the sine of the largest principal angle)."""
    D = Q @ Q.transpose(-1, -2) - U @ U.transpose(-1, -2)
    return torch.linalg.matrix_norm(D, ord=2)
