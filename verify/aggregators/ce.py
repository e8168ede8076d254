"""Comparative elimination (CE; Gupta, Doan and Vaidya 2023; dutta2023 Algorithm 1 lines 9-11).

The server sorts the received models y^i by their distance to its *current model* x_k (the model it
broadcast this round), keeps the N - f closest and averages them (docs/papers/dutta2023.md §2.2):

    d_i = ||x_k - y^i||,   F_k = the N - f indices with the smallest d_i,   x_{k+1} = mean_{i in F_k} y^i.

Ties are broken by agent index (a stable sort), so the rule is deterministic; without ties the result
does not depend on the tie rule. ``reference="mean"`` measures distances to the mean of the received
vectors instead (the paper's text says "from its average"; docs/papers/dutta2023.md §2.2 keeps it as an ablation only).
IBM-FL's ComparativeEliminationFusionHandler implements the same rule (squared distances to the
current global model, keep n - f, average; f < n/2).
"""
from __future__ import annotations

import torch

from analytic.errors import require
from verify.aggregators import aggregator


def _reference(X: torch.Tensor, reference) -> torch.Tensor:
    if isinstance(reference, torch.Tensor) and reference.shape == (X.shape[0], X.shape[2]) and reference.dtype == X.dtype:
        return reference
    if isinstance(reference, str):
        require(reference == "mean", "reference", f"expected the server model [R, d] or 'mean', got {reference!r}")
        return X.mean(1)
    require(reference is not None, "reference", "CE measures distances to the server's current model: pass it as "
                                                "reference [R, d] (or reference='mean' for the ablation)")
    ref = torch.as_tensor(reference, dtype=X.dtype, device=X.device)
    ref = ref.expand(X.shape[0], -1) if ref.dim() == 1 else ref
    require(ref.shape == (X.shape[0], X.shape[2]), "reference", f"expected [{X.shape[0]}, {X.shape[2]}], got {tuple(ref.shape)}")
    return ref


def _kept(X: torch.Tensor, f: int, reference) -> torch.Tensor:
    """Indices [R, N - f] of the inputs CE keeps: the closest to ``reference`` (squared distances, which order the
    same way), ties broken by agent index."""
    require(X.dim() == 3, "X", f"expected [R, N, d], got shape {tuple(X.shape)}")
    N = X.shape[1]
    require(isinstance(f, int) and 0 <= f and 2 * f < N, "f", f"CE needs an integer 0 <= f < N/2, got f={f!r}, N={N}")
    dist2 = (X - _reference(X, reference)[:, None]).pow(2).sum(-1)
    return dist2.argsort(dim=1, stable=True)[:, :N - f]


def ce_keep(X: torch.Tensor, f: int, reference) -> torch.Tensor:
    """Boolean mask [R, N] of the N - f inputs CE keeps."""
    keep = torch.zeros(X.shape[:2], dtype=torch.bool, device=X.device)
    return keep.scatter_(1, _kept(X, f, reference), True)


@aggregator("ce")
def comparative_elimination(X: torch.Tensor, f: int, reference=None) -> torch.Tensor:
    """Mean of the N - f inputs closest to ``reference`` (the server's current model, [R, d] or [d])."""
    idx = _kept(X, f, reference)
    return torch.gather(X, 1, idx[..., None].expand(-1, -1, X.shape[2])).mean(1)
