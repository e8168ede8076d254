"""Quadratic clients with planted constants: buttaci2024's suites SC-Q1 and SC-Q2 (docs/papers/buttaci2024.md §6.0).

Client i holds f_i(w) = 1/2 (w - c_i)^T H_i (w - c_i), so (all exact)

* L = max_i lambda_max(H_i) and mu = min_i lambda_min(H_i) (Assumptions 4, 5, per client);
* w*^i = c_i, w* = (sum p_i H_i)^{-1} sum p_i H_i c_i, f_* = sum_i p_i f_i(w*), and since f_i(c_i) = 0,
  Gamma = f_* - sum_i p_i f_i(w*^i) = f_* (Definition 3); scaling the c_i by h scales Gamma by h^2;
* gradient noise xi ~ N(0, (sigma^2/d) I) per client and step, so E||g - grad f_i||^2 = sigma^2 exactly.

SC-Q1: identical clients (H_i = H with spectrum linspace(mu, L, d), c_i = c), Gamma = 0.
SC-Q2: H_i = Q_i diag(mu, L, U(mu, L), ...) Q_i^T with Haar Q_i (both ends attained by every client),
c_i = h z_i with z_i ~ N(0, I). The weights come from a random symmetric adjacency (entries U(0.5, 3)).

The centres ``c`` may carry leading axes that broadcast against the state's ``[K, R]`` axes (one row
per method configuration, e.g. several heterogeneity levels h run side by side).
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
import torch

from analytic.constants import Constant
from analytic import validate
from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.problems.similarity_graph import SimilarityWeights, random_adjacency, similarity_weights
from verify.problems.constants_registry import constants_problem
from verify.problems.base import ClientProblem


@dataclass(frozen=True)
class QuadraticClients(ClientProblem):
    H: torch.Tensor  # [C, d, d]
    c: torch.Tensor  # [..., C, d]
    weights: SimilarityWeights
    noise_var: float = 0.0  # sigma^2
    name: str = "buttaci2024 quadratic clients"

    @property
    def n_clients(self) -> int:
        return self.H.shape[0]

    @property
    def dim(self) -> int:
        return self.H.shape[-1]

    @property
    def true_labels(self) -> tuple[int, ...]:
        return (0,) * self.n_clients

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        """H_i (x_i - c_i) at ``X [..., C, d]``."""
        self._check(X)
        Y = X - self.c
        C, d = self.n_clients, self.dim
        out = Y.reshape(-1, C, d).transpose(0, 1) @ self.H  # one batched product per client (H_i symmetric)
        return out.transpose(0, 1).reshape(Y.shape)

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        return 0.5 * ((X - self.c) * self.grad(X)).sum(-1)

    def global_loss(self, w: torch.Tensor) -> torch.Tensor:
        """f(w) = sum_i p_i f_i(w) at ``w [..., d]``."""
        X = w[..., None, :].expand(*w.shape[:-1], self.n_clients, self.dim)
        return (self.loss(X) * self.weights.p).sum(-1)

    def global_grad(self, w: torch.Tensor) -> torch.Tensor:
        X = w[..., None, :].expand(*w.shape[:-1], self.n_clients, self.dim)
        return self.weights.p @ self.grad(X)

    def optima(self) -> torch.Tensor:
        return self.c

    def oracle(self, generator: torch.Generator | None):
        """g_i(x) = H_i(x - c_i) + xi, xi ~ N(0, sigma^2/d I), one draw per ``[R, C, d]`` shared by the
        leading (method) axes; exact when sigma^2 = 0."""
        scale = (self.noise_var / self.dim) ** 0.5

        def g(x: torch.Tensor, t: int, k: int) -> torch.Tensor:
            out = self.grad(x)
            if scale == 0:
                return out
            noise = randn(x.shape[-3:], generator=generator, dtype=x.dtype, device=x.device)
            return out + scale * noise

        return g

    # -- exact constants (docs/papers/buttaci2024.md §6.0) ------------------------------------------------------------------
    def numpy(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (self.H.detach().cpu().numpy(), self.c.detach().cpu().numpy(),
                self.weights.P.detach().cpu().numpy())

    def w_star(self) -> np.ndarray:
        """w* [..., d] for every leading index of c."""
        H, c, P = self.numpy()
        p = P.sum(1)
        Hbar = np.einsum("i,ijk->jk", p, H)
        return np.linalg.solve(Hbar, np.einsum("i,ijk,...ik->...j", p, H, c)[..., None])[..., 0]

    def f_star(self) -> np.ndarray:
        H, c, P = self.numpy()
        diff = self.w_star()[..., None, :] - c
        return 0.5 * np.einsum("i,...ij,ijk,...ik->...", P.sum(1), diff, H, diff)

    def constants(self) -> dict[str, Constant]:
        H, c, P = self.numpy()
        eig = np.linalg.eigvalsh(H)
        p = P.sum(1)
        gam = self.f_star()
        scalar = lambda a: float(np.max(a))  # noqa: E731 - one number per constant (the largest over leading axes)
        return {
            "L": Constant("L", float(eig[:, -1].max()), "exact", "max_i lambda_max(H_i)"),
            "mu": Constant("mu", float(eig[:, 0].min()), "exact", "min_i lambda_min(H_i)"),
            "Gamma": Constant("Gamma", scalar(gam), "exact",
                              "f_* - sum_i p_i f_i(c_i) = sum_i p_i (w*-c_i)^T H_i (w*-c_i)/2 (largest over leading axes)"),
            "S": Constant("S", float((p**2).sum()), "exact", "sum_i p_i^2 of the degree weights"),
            "sigma2": Constant("sigma2", float(self.noise_var), "exact", "planted: xi ~ N(0, sigma^2/d I)"),
        }

    def with_centres(self, c: torch.Tensor) -> "QuadraticClients":
        return QuadraticClients(self.H, c, self.weights, self.noise_var, self.name)


def _haar(d: int, generator: torch.Generator, dtype, device) -> torch.Tensor:
    A = randn(d, d, generator=generator, dtype=dtype, device=device)
    Q, Rm = torch.linalg.qr(A)
    return Q * torch.sign(torch.diagonal(Rm))[None, :]


def _finite_settings(*, d, C, noise_var, **reals) -> None:
    """Sizes are integers and every setting a finite number (a NaN h gave Gamma = nan)."""
    validate.integer(d, "d")
    validate.integer(C, "C")
    validate.real(noise_var, "noise_var", minimum=0.0)
    for name, value in reals.items():
        validate.real(value, name)


def sc_q1(generator: torch.Generator, *, d: int = 5, C: int = 4, mu: float = 0.5, L: float = 2.0,
          noise_var: float = 0.0, dtype=torch.float64, device=None) -> QuadraticClients:
    """SC-Q1: C identical clients, H with spectrum linspace(mu, L, d), a common random centre (Gamma = 0)."""
    device = generator.device if device is None else device  # on the generator's device by default
    _finite_settings(d=d, C=C, mu=mu, L=L, noise_var=noise_var)
    require(0 < mu <= L and d >= 2 and C >= 2, "mu, L, d, C", "need 0 < mu <= L, d >= 2 and C >= 2")
    Q = _haar(d, generator, dtype, device)
    H = (Q * torch.linspace(mu, L, d, dtype=dtype, device=device)[None, :]) @ Q.T
    centre = randn(d, generator=generator, dtype=dtype, device=device)
    weights = similarity_weights(random_adjacency(C, generator, dtype=dtype, device=device))
    return QuadraticClients(H.expand(C, d, d).clone(), centre.expand(C, d).clone(), weights, noise_var, "SC-Q1")


def sc_q2(generator: torch.Generator, *, d: int = 4, C: int = 5, mu: float = 0.5, L: float = 2.0, h: float = 1.0,
          noise_var: float = 0.0, dtype=torch.float64, device=None) -> QuadraticClients:
    """SC-Q2: heterogeneous H_i (spectrum mu, L and U(mu, L) inside, Haar eigenvectors) and centres
    c_i = h z_i; :meth:`QuadraticClients.with_centres` rescales them (Gamma scales as h^2)."""
    device = generator.device if device is None else device  # on the generator's device by default
    _finite_settings(d=d, C=C, mu=mu, L=L, noise_var=noise_var, h=h)
    require(0 < mu <= L and d >= 2 and C >= 2, "mu, L, d, C", "need 0 < mu <= L, d >= 2 and C >= 2")
    if h < 0:
        raise InputError("h", f"must be >= 0, got {h}")
    Hs = []
    for _ in range(C):  # setup: C planted spectra
        lam = torch.cat([torch.tensor([mu, L], dtype=dtype, device=device),
                         torch.rand(d - 2, generator=generator, dtype=dtype, device=device) * (L - mu) + mu])
        Q = _haar(d, generator, dtype, device)
        Hs.append((Q * lam[None, :]) @ Q.T)
    z = randn(C, d, generator=generator, dtype=dtype, device=device)
    weights = similarity_weights(random_adjacency(C, generator, dtype=dtype, device=device))
    return QuadraticClients(torch.stack(Hs), h * z, weights, noise_var, "SC-Q2")


def _add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", choices=("q1", "q2"), default="q2", help="SC-Q1 (identical) or SC-Q2 (heterogeneous)")
    from verify.cli_args import int_type, number_type

    p.add_argument("--h", type=number_type("--h", 0.0), default=1.0, help="heterogeneity scale of SC-Q2's centres (default 1)")
    p.add_argument("--sigma2", type=number_type("--sigma2", 0.0), default=0.09, help="gradient noise variance sigma^2 (default 0.09)")
    p.add_argument("--seed", type=int_type("--seed", 0), default=0, help="seed of the random instance (default 0)")


@constants_problem("buttaci2024-quadratic", "buttaci2024's quadratic suites SC-Q1/SC-Q2: exact L, mu, Gamma, S, sigma^2",
                   _add_args)
def _constants(args) -> list[Constant]:
    if args.sigma2 < 0:
        raise InputError("sigma2", f"must be >= 0, got {args.sigma2}")
    g = torch.Generator().manual_seed(int(args.seed))
    prob = sc_q1(g, noise_var=args.sigma2) if args.suite == "q1" else sc_q2(g, h=args.h, noise_var=args.sigma2)
    return list(prob.constants().values())
