"""The toy problems of werner2023 (section 2.1, Figure 1): Examples 1, 2 and 3, exact and batched.

Each is a :class:`verify.problems.base.ClientProblem` (batching convention there); Example 1's eta
varies over replicates as an ``[R]`` tensor.

Wrappers for metamorphic tests: :func:`permute_clients`, :func:`scale_losses`,
:func:`translate_gradients`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from analytic.errors import InputError
from verify.problems.base import ClientProblem, per_replicate


# -- Example 1 -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example1(ClientProblem):
    """Example 1 (Fig. 1(a)), N = 3, K = 2, d = 1, with the algorithm's learning rate eta:

    f_1(x) = x^2 / (6 eta)                                              (2)
    f_2(x) = 4(x-1)^3 + 3(x-1)^4 + 1   for x < 1;  (x-1)^2/(2 eta) + 1 for x >= 1   (3)
    f_3(x) = (x-2)^2 / (2 eta)                                          (4)

    Gradients: x/(3 eta); 12 (x-1)^2 x for x < 1 and (x-1)/eta for x >= 1; (x-2)/eta.
    f_2 has its global minimum at 0 (f_2 = 0) and a flat inflection point at x = 1 (f_2 = 1,
    f_2' = 0 from both sides); f_2'' = 12(x-1)(3x-1) on x < 1, so f_2 is not globally smooth.
    True clusters {1, 2} (minimum 0) and {3} (minimum 2). ``eta`` may be a ``[R]`` tensor.
    """

    eta: float | torch.Tensor = 0.5
    name: str = "werner2023 Example 1"
    n_clients: int = 3
    dim: int = 1
    true_labels: tuple[int, ...] = (0, 0, 1)

    def __post_init__(self) -> None:
        e = torch.as_tensor(self.eta)
        if not bool(torch.all(e > 0)):
            raise InputError("eta", f"must be > 0, got {self.eta!r}")

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        x1, x2, x3 = X[..., 0, 0], X[..., 1, 0], X[..., 2, 0]
        eta = per_replicate(self.eta, x1)
        f1 = x1**2 / (6 * eta)
        u = x2 - 1
        f2 = torch.where(x2 < 1, 4 * u**3 + 3 * u**4 + 1, u**2 / (2 * eta) + 1)
        f3 = (x3 - 2) ** 2 / (2 * eta)
        return torch.stack([f1, f2, f3], -1)

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        x1, x2, x3 = X[..., 0, :], X[..., 1, :], X[..., 2, :]
        eta = per_replicate(self.eta, x1)
        g1 = x1 / (3 * eta)
        g2 = torch.where(x2 < 1, 12 * (x2 - 1) ** 2 * x2, (x2 - 1) / eta)
        g3 = (x3 - 2) / eta
        return torch.stack([g1, g2, g3], -2)

    def optima(self) -> torch.Tensor:
        return torch.tensor([[0.0], [0.0], [2.0]], dtype=torch.float64)


# -- Example 2 -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example2(ClientProblem):
    """Example 2 (Fig. 1(b)), N = 2, K = 2, d = 1: f_1(x) = (x + 0.5)^2 (5), f_2(x) = (x - 0.5)^2 (6).

    grad f_j(x) = 2 (x - c_j) with c = (-0.5, 0.5), so ||grad f_1(x) - grad f_2(x)|| = 2 for every x:
    Assumption 5 (17) holds with Delta = 2 and D = 0. True clusters {1} and {2}.
    """

    name: str = "werner2023 Example 2"
    n_clients: int = 2
    dim: int = 1
    true_labels: tuple[int, ...] = (0, 1)
    centers: tuple[float, ...] = (-0.5, 0.5)

    def _c(self, X: torch.Tensor) -> torch.Tensor:
        return torch.tensor(self.centers, dtype=X.dtype, device=X.device)[:, None]  # [N, 1]

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        return ((X - self._c(X)) ** 2).sum(-1)

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        return 2 * (X - self._c(X))

    def optima(self) -> torch.Tensor:
        return torch.tensor(self.centers, dtype=torch.float64)[:, None]


# -- Example 3 -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example3(ClientProblem):
    """Example 3 (Fig. 1(c)), N = 3, K = 2, d = 1, defined through its gradient oracles:

    g_1(x) = x   (7);   g_2(x) = x - 1/2   (8);   g_3(x) = x - xi, xi ~ Bernoulli(1/2)   (9)

    so E g_3 = x - 1/2 and Var g_3 = 1/4 (sigma = 1/2). Losses with these gradients:
    f_1 = x^2/2, f_2 = (x - 1/2)^2/2, f_3 = E (x - xi)^2/2 = (x - 1/2)^2/2 + 1/8.
    True clusters {1} and {2, 3}. A batch of size B averages B independent draws of xi, i.e.
    g_3 = x - Binomial(B, 1/2)/B (variance 1/(4B), Lemma 7). ``batch_size`` may be a ``[R]`` tensor.
    The FedAvg optimum of (1) solves x + 2(x - 1/2) = 0: x* = 1/3 (the paper says 1/4, docs/papers/werner2023.md A13).
    """

    name: str = "werner2023 Example 3"
    n_clients: int = 3
    dim: int = 1
    true_labels: tuple[int, ...] = (0, 1, 1)
    shifts: tuple[float, ...] = field(default=(0.0, 0.5, 0.5))  # E xi_j

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        c = torch.tensor(self.shifts, dtype=X.dtype, device=X.device)
        extra = torch.tensor([0.0, 0.0, 0.125], dtype=X.dtype, device=X.device)
        return 0.5 * (X[..., 0] - c) ** 2 + extra

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        self._check(X)
        return X - torch.tensor(self.shifts, dtype=X.dtype, device=X.device)[:, None]

    def stochastic_grad(self, X: torch.Tensor, generator: torch.Generator | None = None, batch_size=1) -> torch.Tensor:
        self._check(X)
        if generator is None:
            raise InputError("generator", "Example 3's stochastic oracle needs an explicit torch.Generator (no global RNG)")
        x3 = X[..., 2, :]
        if isinstance(batch_size, torch.Tensor) and batch_size.dim() > 0:
            count = per_replicate(batch_size.to(X.dtype), x3).expand_as(x3).contiguous()
        else:
            if int(batch_size) < 1:
                raise InputError("batch_size", f"must be >= 1, got {batch_size!r}")
            count = torch.full_like(x3, float(batch_size))
        if bool(torch.any(count < 1)):
            raise InputError("batch_size", "must be >= 1")
        xi_bar = torch.binomial(count, torch.full_like(count, 0.5), generator=generator) / count
        G = self.grad(X).clone()
        G[..., 2, :] = x3 - xi_bar
        return G

    @property
    def stochastic(self) -> bool:
        return True

    def optima(self) -> torch.Tensor:
        return torch.tensor(self.shifts, dtype=torch.float64)[:, None]

    def fedavg_optimum(self) -> float:
        """Solve sum_j E g_j(x) = 0 exactly: the sum is affine in x, a x + b with a = N."""
        b = -sum(self.shifts)
        return -b / self.n_clients


# -- metamorphic wrappers --------------------------------------------------------------------
@dataclass(frozen=True)
class PermutedClients(ClientProblem):
    """Client i of the new problem is client ``perm[i]`` of ``base``."""

    base: ClientProblem
    perm: tuple[int, ...]

    def __post_init__(self) -> None:
        if sorted(self.perm) != list(range(self.base.n_clients)):
            raise InputError("perm", f"not a permutation of {self.base.n_clients} clients: {self.perm}")

    @property
    def name(self) -> str:
        return f"{self.base.name} (clients permuted {self.perm})"

    @property
    def n_clients(self) -> int:
        return self.base.n_clients

    @property
    def dim(self) -> int:
        return self.base.dim

    @property
    def true_labels(self) -> tuple[int, ...]:
        return tuple(self.base.true_labels[p] for p in self.perm)

    @property
    def stochastic(self) -> bool:
        return self.base.stochastic

    def _inv(self, X: torch.Tensor) -> torch.Tensor:
        inv = [0] * len(self.perm)
        for i, p in enumerate(self.perm):
            inv[p] = i
        return torch.as_tensor(inv, device=X.device)

    def _fwd(self, X: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(self.perm, device=X.device)

    def loss(self, X):
        return self.base.loss(X.index_select(-2, self._inv(X))).index_select(-1, self._fwd(X))

    def grad(self, X):
        return self.base.grad(X.index_select(-2, self._inv(X))).index_select(-2, self._fwd(X))

    def stochastic_grad(self, X, generator=None, batch_size=1):
        return self.base.stochastic_grad(X.index_select(-2, self._inv(X)), generator, batch_size).index_select(-2, self._fwd(X))

    def optima(self):
        return self.base.optima()[..., list(self.perm), :]


@dataclass(frozen=True)
class ScaledLosses(ClientProblem):
    """All losses multiplied by ``c > 0`` (gradients too); pairs with step size eta / c."""

    base: ClientProblem
    c: float

    def __post_init__(self) -> None:
        if not self.c > 0:
            raise InputError("c", f"loss scale must be > 0, got {self.c!r}")

    name = property(lambda self: f"{self.base.name} (losses x {self.c:g})")
    n_clients = property(lambda self: self.base.n_clients)
    dim = property(lambda self: self.base.dim)
    true_labels = property(lambda self: self.base.true_labels)
    stochastic = property(lambda self: self.base.stochastic)

    def loss(self, X):
        return self.c * self.base.loss(X)

    def grad(self, X):
        return self.c * self.base.grad(X)

    def stochastic_grad(self, X, generator=None, batch_size=1):
        return self.c * self.base.stochastic_grad(X, generator, batch_size)

    def optima(self):
        return self.base.optima()


@dataclass(frozen=True)
class TranslatedGradients(ClientProblem):
    """Every gradient shifted by the same vector ``a`` (losses gain the linear term a.x)."""

    base: ClientProblem
    a: tuple[float, ...]

    name = property(lambda self: f"{self.base.name} (gradients + {self.a})")
    n_clients = property(lambda self: self.base.n_clients)
    dim = property(lambda self: self.base.dim)
    true_labels = property(lambda self: self.base.true_labels)
    stochastic = property(lambda self: self.base.stochastic)

    def _a(self, X):
        return torch.tensor(self.a, dtype=X.dtype, device=X.device)

    def loss(self, X):
        return self.base.loss(X) + (X * self._a(X)).sum(-1)

    def grad(self, X):
        return self.base.grad(X) + self._a(X)

    def stochastic_grad(self, X, generator=None, batch_size=1):
        return self.base.stochastic_grad(X, generator, batch_size) + self._a(X)

    def optima(self):
        raise ValueError("optima: a problem with translated gradients has no planted optima (the shift moves them)")


def permute_clients(problem: ClientProblem, perm) -> PermutedClients:
    return PermutedClients(problem, tuple(int(p) for p in perm))


def scale_losses(problem: ClientProblem, c: float) -> ScaledLosses:
    return ScaledLosses(problem, float(c))


def translate_gradients(problem: ClientProblem, a) -> TranslatedGradients:
    return TranslatedGradients(problem, tuple(float(v) for v in a))
