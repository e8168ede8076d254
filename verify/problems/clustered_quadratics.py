"""Clustered quadratics with planted constants (docs/papers/werner2023.md §6.5), batched over replicates.

Client j of cluster k(j) has f_j(x) = 1/2 (x - x*_k)^T H_j (x - x*_k) with

* optima x*_k = (Delta / sqrt 2) u_k, u_k orthonormal (a fresh random set per replicate), so every two
  cluster optima are exactly Delta apart (needs K <= d);
* H_j = c I (``hessian="identity"``, L = mu = c, A = 0) or H_j = Q_j diag(lambda_j) Q_j^T with Q_j
  Haar-random and lambda_j in [mu, L], both ends attained (``hessian="planted"``): L and mu exact;
* the stochastic oracle g_j(x) = grad f_j(x) + xi, xi ~ N(0, sigma^2 / (d |B|) I) for a batch of
  size |B| (one fresh batch per evaluation point): E ||g_j - grad f_j||^2 = sigma^2 / |B| exactly
  (Assumption 6 (20) with Lemma 7's batch variance).

Clients of a cluster share its optimum, so A^2 is finite (Lemma 1); its exact value, and Delta^2 for a
given D^2, come from analytic.constants.clustering. This module also registers
``fedverify constants clustered-quadratics`` (a built-in instance) and
``fedverify constants quadratics FILE.npz`` (a user's own H, x_star, labels).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch

from analytic.constants import Constant
from analytic.constants.clustering import quadratic_constants
from analytic import validate
from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.problems.constants_registry import constants_problem
from verify.problems.base import ClientProblem, per_replicate

HESSIANS = ("identity", "planted")


@dataclass(frozen=True)
class ClusteredQuadratics(ClientProblem):
    x_star: torch.Tensor  # [R, N, d] each client's optimum (its cluster's)
    true_labels: tuple[int, ...]
    H: torch.Tensor | None = None  # [R, N, d, d]; None: H_j = curvature * I
    curvature: float = 1.0
    sigma: float = 0.0  # sqrt of the per-sample gradient-noise variance (total over coordinates)
    name: str = "clustered quadratics"

    @property
    def n_clients(self) -> int:
        return self.x_star.shape[1]

    @property
    def dim(self) -> int:
        return self.x_star.shape[-1]

    @property
    def replicates(self) -> int:
        return self.x_star.shape[0]

    @property
    def stochastic(self) -> bool:
        return self.sigma > 0

    def _diff(self, X: torch.Tensor) -> torch.Tensor:
        """x - x*_j as ``[R, M, N, d]`` (M = product of the middle axes of X)."""
        self._check(X)
        require(X.shape[0] == self.replicates, "X", f"expected {self.replicates} replicates on axis 0, got {X.shape[0]}")
        return X.reshape(X.shape[0], -1, self.n_clients, self.dim) - self.x_star[:, None]

    def _apply_h(self, U: torch.Tensor) -> torch.Tensor:
        """H_j u for ``U [R, M, N, d]``: one batched matmul over (replicate, client)."""
        if self.H is None:
            return self.curvature * U
        R, M, N, d = U.shape
        HU = self.H.reshape(R * N, d, d) @ U.permute(0, 2, 3, 1).reshape(R * N, d, M)
        return HU.reshape(R, N, d, M).permute(0, 3, 1, 2)

    def loss_and_grad(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        U = self._diff(X)
        HU = self._apply_h(U)
        return (0.5 * (U * HU).sum(-1)).reshape(X.shape[:-1]), HU.reshape(X.shape)

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        return self.loss_and_grad(X)[0]

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        return self._apply_h(self._diff(X)).reshape(X.shape)

    def gradients_at_models(self, models: torch.Tensor) -> torch.Tensor:
        """Every client's exact gradient at each of B models, ``models [R, B, d] -> [R, B, N, d]``:
        G[r, b, j] = H_j (m_b - x*_j), as one matrix product per replicate written straight into the
        ``[B, N d]`` layout (the all-pairs step of Federated-Clustering without copies of the models)."""
        R, Bm, d = models.shape
        require(R == self.replicates and d == self.dim, "models", f"expected [{self.replicates}, B, {self.dim}], got {tuple(models.shape)}")
        if self.H is None:
            return self.curvature * (models[:, :, None, :] - self.x_star[:, None, :, :])
        H_rows, c = self._stacked_hessians
        G = torch.bmm(models, H_rows).reshape(R, Bm, self.n_clients, d)  # m_b^T H_j = (H_j m_b)^T: H_j is symmetric
        return G.sub_(c[:, None])

    @cached_property
    def _stacked_hessians(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(H laid out as [R, d, N d] with [r, a, (j, c)] = H_j[a, c], and H_j x*_j [R, N, d]), computed once."""
        R, N, d = self.x_star.shape
        return self.H.permute(0, 2, 1, 3).reshape(R, d, N * d), (self.H @ self.x_star[..., None])[..., 0]

    def noise(self, shape, generator: torch.Generator | None, batch_size=1, like: torch.Tensor | None = None) -> torch.Tensor:
        """xi with E ||xi||^2 = sigma^2 / |B| per evaluation, ``shape [R, ..., d]``; ``batch_size`` an int or ``[R]``."""
        require(generator is not None, "generator", "stochastic gradients need an explicit torch.Generator")
        ref = self.x_star if like is None else like
        xi = randn(shape, generator=generator, dtype=ref.dtype, device=ref.device)
        B = per_replicate(batch_size, xi)
        return xi.mul_(self.sigma / math.sqrt(self.dim)).div_(torch.sqrt(B) if isinstance(B, torch.Tensor) else math.sqrt(B))

    def stochastic_grad(self, X: torch.Tensor, generator: torch.Generator | None = None, batch_size=1) -> torch.Tensor:
        g = self.grad(X)
        return g + self.noise(g.shape, generator, batch_size) if self.stochastic else g

    def optima(self) -> torch.Tensor:
        return self.x_star

    def smoothness(self) -> torch.Tensor:
        """L_j = lambda_max(H_j) per replicate and client ``[R, N]``."""
        if self.H is None:
            return torch.full(self.x_star.shape[:2], self.curvature, dtype=self.x_star.dtype, device=self.x_star.device)
        return torch.linalg.eigvalsh(self.H)[..., -1]

    def hessians(self) -> torch.Tensor:
        """H_j as ``[R, N, d, d]`` (materialised for the identity case)."""
        if self.H is not None:
            return self.H
        eye = torch.eye(self.dim, dtype=self.x_star.dtype, device=self.x_star.device)
        return (self.curvature * eye).expand(self.replicates, self.n_clients, self.dim, self.dim)

    def with_noise(self, sigma: float) -> "ClusteredQuadratics":
        """The same instance with another gradient-noise level."""
        require(sigma >= 0, "sigma", f"must be >= 0, got {sigma}")
        return ClusteredQuadratics(self.x_star, self.true_labels, self.H, self.curvature, float(sigma), self.name)


def separated_optima(generator: torch.Generator, R: int, K: int, d: int, Delta: float, dtype, device) -> torch.Tensor:
    """``[R, K, d]``: K points at pairwise distance exactly Delta, (Delta/sqrt 2) times a random orthonormal set."""
    require(K <= d, "K", f"K optima at equal pairwise distance need K <= d, got K={K}, d={d}")
    Q, _ = torch.linalg.qr(randn(R, d, K, generator=generator, dtype=dtype, device=device))
    return (Delta / math.sqrt(2.0)) * Q.transpose(1, 2)


def planted_hessians(generator: torch.Generator, shape: tuple[int, ...], d: int, mu: float, L: float, dtype, device):
    """``[*shape, d, d]`` symmetric matrices with spectrum in [mu, L], both ends attained (d >= 2):
    Q diag(lambda) Q^T, Q Haar-random (sign-fixed QR), the other d - 2 eigenvalues uniform in [mu, L]."""
    inner = torch.rand(*shape, max(d - 2, 0), generator=generator, dtype=dtype, device=device) * (L - mu) + mu
    ends = torch.tensor([mu, L][: min(d, 2)], dtype=dtype, device=device).expand(*shape, min(d, 2))
    lam = torch.cat([ends, inner], -1)
    Q, Rm = torch.linalg.qr(randn(*shape, d, d, generator=generator, dtype=dtype, device=device))
    Q = Q * torch.sign(torch.diagonal(Rm, dim1=-2, dim2=-1))[..., None, :]
    return (Q * lam[..., None, :]) @ Q.transpose(-1, -2)


def clustered_quadratics(
    generator: torch.Generator,
    R: int,
    K: int,
    n_per_cluster: int,
    d: int,
    Delta: float,
    *,
    sigma: float = 0.0,
    hessian: str = "identity",
    mu: float = 1.0,
    L: float = 1.0,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> ClusteredQuadratics:
    """R independent instances of K clusters of ``n_per_cluster`` clients in R^d (cluster-major order)."""
    R, K, n_per_cluster, d = (validate.integer(v, name, minimum=1)
                              for name, v in (("R", R), ("K", K), ("n_per_cluster", n_per_cluster), ("d", d)))
    require(K >= 2, "K", f"clustering needs at least two clusters, got {K}")
    require(Delta >= 0 and sigma >= 0, "Delta, sigma", f"must be >= 0, got Delta={Delta}, sigma={sigma}")
    require(hessian in HESSIANS, "hessian", f"expected one of {HESSIANS}, got {hessian!r}")
    require(0 < mu <= L, "mu, L", f"need 0 < mu <= L, got mu={mu}, L={L}")
    device = generator.device if device is None else device
    labels = torch.arange(K, device=device).repeat_interleave(n_per_cluster)
    x_star = separated_optima(generator, R, K, d, Delta, dtype, device)[:, labels]
    lab = tuple(int(v) for v in labels)
    if hessian == "identity":
        require(mu == L, "mu, L", f"identity Hessians have mu = L, got mu={mu}, L={L}")
        return ClusteredQuadratics(x_star, lab, None, float(L), float(sigma))
    H = planted_hessians(generator, (R, K * n_per_cluster), d, mu, L, dtype, device)
    return ClusteredQuadratics(x_star, lab, H, 1.0, float(sigma))


def problem_constants(problem: ClusteredQuadratics, D2: float, replicate: int = 0) -> list[Constant]:
    """L, mu, A^2, Delta^2(D^2) (exact) and sigma^2 (planted) of one replicate of the instance."""
    H = problem.hessians()[replicate].cpu().numpy()
    x_star = problem.x_star[replicate].cpu().numpy()
    out = quadratic_constants(H, x_star, np.asarray(problem.true_labels), D2)
    return out + [Constant("sigma2", problem.sigma**2, "exact",
                           "planted: per-sample gradient noise N(0, sigma^2/d I), E||xi||^2 = sigma^2 (Assumption 6)")]


# -- fedverify constants ---------------------------------------------------------------------------
def _builtin_arguments(p) -> None:
    from verify.cli_args import int_type

    p.add_argument("--K", type=int_type("--K", 2), default=3, help="number of clusters (default 3)")
    p.add_argument("--n", type=int_type("--n", 1), default=4, help="clients per cluster (default 4)")
    p.add_argument("--d", type=int_type("--d", 1), default=5, help="dimension (default 5, >= K)")
    p.add_argument("--Delta", type=float, default=20.0, help="distance between cluster optima (default 20)")
    p.add_argument("--mu", type=float, default=1.0, help="smallest Hessian eigenvalue (default 1)")
    p.add_argument("--L", type=float, default=10.0, help="largest Hessian eigenvalue (default 10)")
    p.add_argument("--sigma", type=float, default=1.0, help="per-sample gradient noise, total std (default 1)")
    p.add_argument("--D2", type=float, default=None, help="D^2 of Assumption 5 (default: Lemma 1's 2(1 + (L/mu)^2))")
    p.add_argument("--seed", type=int_type("--seed", 0), default=0, help="instance seed (default 0)")


def _flag_error(exc: InputError) -> InputError:
    """An error about a library parameter (``K``, ``Delta``) under its command-line flag (``--K``)."""
    names = [n.strip() for n in exc.param.split(",")]
    return InputError(", ".join(n if n.startswith("-") else f"--{n}" for n in names), exc.message)


@constants_problem("clustered-quadratics", "werner2023's clustered quadratics: K clusters of n clients, optima Delta "
                   "apart, Hessian spectra in [mu, L] (exact A^2, Delta^2, L, mu)", _builtin_arguments,
                   size=lambda a: ("--n", a.K * a.n * a.d * a.d))  # the K n Hessians, d x d each
def builtin_constants(args) -> list[Constant]:
    try:
        for name in ("Delta", "mu", "L", "sigma"):
            v = getattr(args, name)
            require(math.isfinite(v), name, f"expected a finite number, got {v}")
        require(0 < args.mu <= args.L, "mu, L", f"need 0 < mu <= L, got mu={args.mu}, L={args.L}")
        D2 = 2 * (1 + (args.L / args.mu) ** 2) if args.D2 is None else args.D2
        require(math.isfinite(D2) and D2 >= 0, "D2", f"must be a finite number >= 0, got {D2}")
        gen = torch.Generator().manual_seed(args.seed)
        hessian = "identity" if args.mu == args.L else "planted"
        prob = clustered_quadratics(gen, 1, args.K, args.n, args.d, args.Delta, sigma=args.sigma, hessian=hessian,
                                    mu=args.mu, L=args.L)
        return problem_constants(prob, D2)
    except InputError as exc:
        raise _flag_error(exc) from None


def _file_arguments(p) -> None:
    p.add_argument("file", metavar="FILE", help="an .npz file with H [N, d, d] (symmetric positive definite), "
                                                "x_star [N, d] and labels [N]")
    p.add_argument("--D2", type=float, default=0.0, help="D^2 of Assumption 5 (default 0)")


def load_quadratics(path: str):
    """(H, x_star, labels) from an .npz file; an InputError naming FILE if it cannot be read."""
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in ("H", "x_star", "labels") if k not in f.files]
            if missing:
                raise InputError("FILE", f"{path!r} lacks the array(s) {', '.join(missing)} (needs H, x_star, labels)")
            return f["H"], f["x_star"], f["labels"]
    except InputError:
        raise
    except (OSError, ValueError) as exc:
        raise InputError("FILE", f"cannot read {path!r} as an .npz file ({exc})") from None


@constants_problem("quadratics", "your own clustered quadratics f_i(x) = 1/2 (x - x*_i)^T H_i (x - x*_i) from an .npz "
                   "file: exact L, mu, A^2 (Assumption 4) and Delta^2 for --D2 (Assumption 5)", _file_arguments)
def file_constants(args) -> list[Constant]:
    require(math.isfinite(args.D2) and args.D2 >= 0, "--D2", f"must be a finite number >= 0, got {args.D2}")
    H, x_star, labels = load_quadratics(args.file)
    try:
        return quadratic_constants(H, x_star, labels, args.D2)
    except InputError as exc:  # name the array inside FILE, the user's only handle on it
        raise InputError("FILE", f"{exc.param}: {exc.message}") from None
