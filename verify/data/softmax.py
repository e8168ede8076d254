"""Multinomial logistic regression (softmax), batched over any leading axes: the convex model of the
reproductions (buttaci2024's "convex" model, Appendix C; the linear stand-in for werner2023's and
allouah2025's networks on 8x8 digits).

Parameters ``W [..., p, c]`` act on features with a bias column, ``X [..., m, p]`` (:func:`with_bias`); labels are
integer ``y [..., m]``; an optional mask ``[..., m]`` marks real samples (padded clients). Leading axes broadcast
as in ``torch.matmul``, so all-pairs gradients (every client's data at every client's model) are one call with
``W[:, :, None]`` against ``X[:, None]``.

f(W) = (1/m) sum_s -log softmax(x_s W)_{y_s} + (lam/2)||W||^2,  grad = X^T (P - onehot(y)) / m + lam W.
"""
from __future__ import annotations

import torch


def with_bias(x: torch.Tensor) -> torch.Tensor:
    """Features with a trailing constant 1 (the bias), ``[..., m, d] -> [..., m, d+1]``."""
    return torch.cat([x, torch.ones(*x.shape[:-1], 1, dtype=x.dtype, device=x.device)], -1)


def softmax_rows(z: torch.Tensor) -> torch.Tensor:
    """softmax over the last (short: classes) axis, written out: torch's kernel is slow on rows of ten."""
    e = (z - z.amax(-1, keepdim=True)).exp_()
    return e.div_(e.sum(-1, keepdim=True))


def log_softmax_rows(z: torch.Tensor) -> torch.Tensor:
    s = z - z.amax(-1, keepdim=True)
    return s - s.exp().sum(-1, keepdim=True).log_()


def _onehot(y: torch.Tensor, c: int, dtype) -> torch.Tensor:
    return torch.nn.functional.one_hot(y.long(), c).to(dtype)


def loss_and_grad(W: torch.Tensor, X: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None,
                  lam: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean cross-entropy (plus lam/2 ||W||^2) and its gradient, ``[...]`` and ``[..., p, c]``."""
    logits = X @ W
    logp = log_softmax_rows(logits)
    Y = _onehot(y, W.shape[-1], W.dtype).expand(logp.shape)
    if mask is None:
        m = torch.full(logp.shape[:-2], float(logp.shape[-2]), dtype=W.dtype, device=W.device)
        E = logp.exp() - Y
        nll = -(logp * Y).sum((-1, -2))
    else:
        mk = mask.to(W.dtype).expand(logp.shape[:-1])
        m = mk.sum(-1).clamp_min(1.0)
        E = (logp.exp() - Y) * mk[..., None]
        nll = -(logp * Y).sum(-1).mul(mk).sum(-1)
    grad = X.transpose(-1, -2) @ E / m[..., None, None]
    loss = nll / m
    if lam:
        grad = grad + lam * W
        loss = loss + 0.5 * lam * (W * W).sum((-1, -2))
    return loss, grad


def accuracy(W: torch.Tensor, X: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Share of correctly classified samples, ``[...]`` (over the masked samples when a mask is given)."""
    hit = ((X @ W).argmax(-1) == y).to(W.dtype)
    if mask is None:
        return hit.mean(-1)
    mk = mask.to(W.dtype).expand(hit.shape)
    return (hit * mk).sum(-1) / mk.sum(-1).clamp_min(1.0)


def correct_and_count(W: torch.Tensor, X: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None):
    """Correct predictions and sample counts, ``[...]`` each (a sample-weighted accuracy sums both over clients)."""
    hit = ((X @ W).argmax(-1) == y).to(W.dtype)
    if mask is None:
        return hit.sum(-1), torch.full(hit.shape[:-1], float(hit.shape[-1]), dtype=W.dtype, device=W.device)
    mk = mask.to(W.dtype).expand(hit.shape)
    return (hit * mk).sum(-1), mk.sum(-1)


def pair_grads(W: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """All-pairs gradients ``G [R, N, N', p, c]``: G[r, i, j] = grad of client j's mean cross-entropy at client i's
    model, for models ``W [R, N, p, c]`` and equal-size client data ``X [R, N', m, p]``, ``y [R, N', m]`` (what
    Federated-Clustering needs each round). Two batched matrix products: logits of every sample under every model
    ``[R, N' m, N c]``, then X_j^T E_j per data client."""
    R, N, p, c = W.shape
    _, Nd, m, _ = X.shape
    logits = (X.reshape(R, Nd * m, p) @ W.permute(0, 2, 1, 3).reshape(R, p, N * c)).reshape(R, Nd, m, N, c)
    P = softmax_rows(logits)
    P = P - torch.nn.functional.one_hot(y.long(), c).to(W.dtype)[:, :, :, None, :]
    G = X.transpose(-1, -2) @ P.reshape(R, Nd, m, N * c)  # [R, N', p, N c]
    return (G.reshape(R, Nd, p, N, c) / m).permute(0, 3, 1, 2, 4)
