"""The interface every client problem implements, and the batching convention.

A point tensor ``X`` has shape ``[..., N, d]``; the second-to-last axis indexes the clients, and
client j is evaluated at ``X[..., j, :]``. Hence

* ``X [R, N, d]``     -- every client at its own model (Myopic-Clustering, local steps, CFL);
* ``X [R, N, N, d]``  -- all pairs, ``X[r, i, j] = x_i``: client j's gradient at client i's model
  (Federated-Clustering, Algorithm 2);
* ``X [R, K, N, d]``  -- every client at every cluster model (IFCA, HypCluster).

Parameters that vary over replicates are tensors of shape ``[R]`` and broadcast over axis 0 of
``X`` (:func:`per_replicate`). ``loss`` returns ``[..., N]``, ``grad`` and ``stochastic_grad``
return ``[..., N, d]``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import torch

from analytic.errors import InputError


class ClientProblem(ABC):
    """N clients with losses f_j and gradient oracles g_j (E g_j = grad f_j, Assumption 6 (20))."""

    name: str = "problem"
    n_clients: int
    dim: int
    true_labels: tuple[int, ...]  # cluster of each client, 0-based

    @abstractmethod
    def loss(self, X: torch.Tensor) -> torch.Tensor:
        """f_j at X[..., j, :], shape ``[..., N]``."""

    @abstractmethod
    def grad(self, X: torch.Tensor) -> torch.Tensor:
        """Exact gradient of f_j at X[..., j, :], shape ``[..., N, d]``."""

    def stochastic_grad(self, X: torch.Tensor, generator: torch.Generator | None = None, batch_size=1) -> torch.Tensor:
        """Unbiased oracle averaged over a batch (one fresh batch per evaluation point);
        deterministic problems return the exact gradient."""
        return self.grad(X)

    def loss_and_grad(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Both at once (problems override this when the two share work)."""
        return self.loss(X), self.grad(X)

    @abstractmethod
    def optima(self) -> torch.Tensor:
        """Each client's global minimiser, ``[N, d]`` (or ``[R, N, d]``)."""

    @property
    def stochastic(self) -> bool:
        return False

    @property
    def n_clusters(self) -> int:
        return len(set(self.true_labels))

    def check_run(self, x0: torch.Tensor, T: int, generator: torch.Generator | None = None) -> None:
        """What every algorithm run on this problem needs: per-client models ``x0 [R, N, d]``, ``T >= 1``
        rounds, and an explicit generator when the gradients are stochastic."""
        if x0.dim() != 3 or x0.shape[1] != self.n_clients:
            raise InputError("x0", f"expected [R, {self.n_clients}, d], got {tuple(x0.shape)}")
        if T < 1:
            raise InputError("T", f"must be >= 1, got {T}")
        if self.stochastic and generator is None:
            raise InputError("generator", "stochastic gradients need an explicit torch.Generator")

    def _check(self, X: torch.Tensor) -> None:
        if X.dim() < 2 or X.shape[-2] != self.n_clients or X.shape[-1] != self.dim:
            raise InputError("X", f"expected shape [..., {self.n_clients}, {self.dim}], got {tuple(X.shape)}")


def per_replicate(param, like: torch.Tensor) -> torch.Tensor | float:
    """A scalar, or a ``[R]`` tensor reshaped to broadcast against ``like`` (replicates on axis 0)."""
    if isinstance(param, torch.Tensor) and param.dim() > 0:
        if like.dim() == 0 or param.shape[0] != like.shape[0]:
            raise InputError("per-replicate parameter", f"{param.shape[0]} values for {tuple(like.shape)} points")
        return param.to(like).reshape(-1, *([1] * (like.dim() - 1)))
    return float(param)


def all_pairs(X: torch.Tensor) -> torch.Tensor:
    """``[R, N, d] -> [R, N, N, d]`` with ``P[r, i, j] = x_i`` (every client at client i's model)."""
    R, N, d = X.shape
    return X[:, :, None, :].expand(R, N, N, d)


def at_cluster_models(Theta: torch.Tensor, n_clients: int) -> torch.Tensor:
    """``[R, K, d] -> [R, K, N, d]``: every client at every cluster model."""
    R, K, d = Theta.shape
    return Theta[:, :, None, :].expand(R, K, n_clients, d)
