"""L2-regularised binary logistic regression on clients with finite data: buttaci2024's SC-LR suite
(docs/papers/buttaci2024.md §6.0), used where mini-batches matter (the two readings of E, Claim 18).

Client i holds N_i samples (x_n, y_n), y_n in {-1, +1}, padded to N = max_i N_i, and
f_i(w) = (1/N_i) sum_n log(1 + exp(-y_n x_n^T w)) + (lambda/2)||w||^2. Constants (docs/papers/buttaci2024.md §6.0):

* mu = lambda: every f_i is lambda-strongly convex (a lower bound of its best constant);
* L_i = lambda_max(X_i^T X_i / N_i)/4 + lambda (the logistic curvature is at most 1/4): an upper bound;
* w*^i and w* by Newton's method to ||grad|| <= 1e-10, and Gamma = f(w*) - sum_i p_i f_i(w*^i)
  (Definition 3) from them, exact to about 1e-19 (f - f_min <= ||grad||^2/(2 mu)).

Features of client i are N(h s_i, I) with a random unit direction s_i (the heterogeneity h), labels
Bernoulli(sigmoid(x^T theta)) for one random theta shared by every client.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from analytic.constants import Constant
from analytic import validate
from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.problems.similarity_graph import SimilarityWeights, random_adjacency, similarity_weights
from verify.problems.constants_registry import constants_problem

NEWTON_TOL = 1e-10


@dataclass(frozen=True)
class LogisticClients:
    X: torch.Tensor  # [C, N, d] padded features
    y: torch.Tensor  # [C, N] labels in {-1, +1} (0 on padding)
    sizes: torch.Tensor  # [C]
    lam: float
    weights: SimilarityWeights
    name: str = "SC-LR"

    @property
    def n_clients(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.X.shape[-1]

    @property
    def mask(self) -> torch.Tensor:
        return torch.arange(self.X.shape[1], device=self.X.device)[None, :] < self.sizes[:, None]

    def batch_grad(self, w: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        """sum_n batch_n grad loss_n(w_i) + lambda w_i at ``w [..., C, d]`` with sample weights
        ``batch [..., C, N]`` (rows summing to 1: a mini-batch average; zero on padding)."""
        margin = self.y * torch.einsum("cnd,...cd->...cn", self.X, w)
        coef = -self.y * torch.sigmoid(-margin) * batch
        return torch.einsum("...cn,cnd->...cd", coef, self.X) + self.lam * w

    def full_weights(self) -> torch.Tensor:
        return self.mask.to(self.X) / self.sizes[:, None].to(self.X)

    def grad(self, w: torch.Tensor) -> torch.Tensor:
        """The exact gradient of f_i at ``w [..., C, d]`` (full batch)."""
        return self.batch_grad(w, self.full_weights())

    def loss(self, w: torch.Tensor) -> torch.Tensor:
        margin = self.y * torch.einsum("cnd,...cd->...cn", self.X, w)
        data = (torch.nn.functional.softplus(-margin) * self.full_weights()).sum(-1)
        return data + 0.5 * self.lam * (w**2).sum(-1)

    def _hessians(self, w: torch.Tensor) -> torch.Tensor:
        """Hessians of f_i at ``w [C, d]``: [C, d, d]."""
        margin = self.y * torch.einsum("cnd,cd->cn", self.X, w)
        s = torch.sigmoid(margin) * torch.sigmoid(-margin) * self.full_weights()
        eye = torch.eye(self.dim, dtype=w.dtype, device=w.device)
        return torch.einsum("cn,cnd,cne->cde", s, self.X, self.X) + self.lam * eye

    def local_optima(self, iters: int = 50) -> torch.Tensor:
        """w*^i of every client by Newton's method, ``[C, d]``."""
        w = torch.zeros(self.n_clients, self.dim, dtype=self.X.dtype, device=self.X.device)
        for _ in range(iters):
            g = self.grad(w)
            if g.norm(dim=-1).max() <= NEWTON_TOL:
                break
            w = w - torch.linalg.solve(self._hessians(w), g[..., None])[..., 0]
        return w

    def global_optimum(self, iters: int = 50) -> torch.Tensor:
        """w* of f = sum_i p_i f_i by Newton's method, ``[d]``."""
        p = self.weights.p
        w = torch.zeros(self.dim, dtype=self.X.dtype, device=self.X.device)
        for _ in range(iters):
            W = w.expand(self.n_clients, self.dim)
            g = (p[:, None] * self.grad(W)).sum(0)
            if g.norm() <= NEWTON_TOL:
                break
            w = w - torch.linalg.solve((p[:, None, None] * self._hessians(W)).sum(0), g)
        return w

    def constants(self) -> dict[str, Constant]:
        p = self.weights.p
        Xm = self.X * self.mask[..., None].to(self.X)
        L_i = torch.linalg.eigvalsh(Xm.transpose(-1, -2) @ Xm / self.sizes[:, None, None].to(self.X))[:, -1] / 4 + self.lam
        w_star, w_loc = self.global_optimum(), self.local_optima()
        f_star = (p * self.loss(w_star.expand(self.n_clients, self.dim))).sum()
        gamma = f_star - (p * self.loss(w_loc)).sum()
        return {
            "mu": Constant("mu", self.lam, "lower bound", "lambda: the L2 term alone is lambda-strongly convex"),
            "L": Constant("L", float(L_i.max()), "upper bound", "max_i lambda_max(X_i^T X_i/N_i)/4 + lambda"),
            "Gamma": Constant("Gamma", float(gamma), "exact",
                              f"Definition 3 with w* and every w*^i from Newton's method (||grad|| <= {NEWTON_TOL:g})"),
            "S": Constant("S", float((p**2).sum()), "exact", "sum_i p_i^2 of the degree weights"),
        }


def sc_lr(generator: torch.Generator, *, sizes=(30, 45, 60, 24, 36, 50, 40, 28, 33, 55), d: int = 10,
          lam: float = 0.1, h: float = 1.0, dtype=torch.float64, device=None) -> LogisticClients:
    """SC-LR: C = len(sizes) clients, d features, lambda = 0.1 (docs/papers/buttaci2024.md §6.0), feature means shifted by h."""
    device = generator.device if device is None else device  # on the generator's device by default
    validate.real(lam, "lam")  # NaN or inf would reach eigh as a LinAlgError
    validate.real(h, "h")
    validate.integer(d, "d", minimum=1)
    sizes_t = torch.as_tensor(sizes, dtype=torch.int64, device=device)
    C, N = sizes_t.numel(), int(sizes_t.max())
    require(C >= 2 and bool((sizes_t >= 1).all()) and lam > 0 and h >= 0, "sizes, lam, h",
            "need at least two clients with samples, lambda > 0 and h >= 0")
    shift = randn(C, d, generator=generator, dtype=dtype, device=device)
    shift = h * shift / shift.norm(dim=-1, keepdim=True)
    X = randn(C, N, d, generator=generator, dtype=dtype, device=device) + shift[:, None, :]
    theta = randn(d, generator=generator, dtype=dtype, device=device)
    prob = torch.sigmoid(X @ theta)
    y = torch.where(torch.rand(C, N, generator=generator, dtype=dtype, device=device) < prob, 1.0, -1.0).to(dtype)
    mask = torch.arange(N, device=device)[None, :] < sizes_t[:, None]
    X, y = X * mask[..., None].to(dtype), y * mask.to(dtype)
    weights = similarity_weights(random_adjacency(C, generator, dtype=dtype, device=device))
    return LogisticClients(X, y, sizes_t, lam, weights)


def _add_args(p) -> None:
    from verify.cli_args import int_type, number_type

    p.add_argument("--h", type=number_type("--h", 0.0), default=1.0, help="shift of the clients' feature means (default 1)")
    p.add_argument("--lam", type=number_type("--lam", 0.0, strict=True), default=0.1, help="L2 weight lambda (default 0.1)")
    p.add_argument("--seed", type=int_type("--seed", 0), default=0, help="seed of the random instance (default 0)")


@constants_problem("buttaci2024-logistic", "buttaci2024's SC-LR suite (L2 logistic regression): mu, L, Gamma, S", _add_args)
def _constants(args) -> list[Constant]:
    if args.lam <= 0 or args.h < 0:
        raise InputError("lam" if args.lam <= 0 else "h", "lambda must be > 0 and h >= 0")
    return list(sc_lr(torch.Generator().manual_seed(int(args.seed)), lam=args.lam, h=args.h).constants().values())
