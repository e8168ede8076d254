"""Agents with regression costs q^i(x) = phi(||A^i x - b^i||), batched; least squares with exact
constants; ``fedverify constants least-squares [FILE.npz]``.

**Sufficient statistics.** For agent i let z_i be a least-squares solution of A^i z = b^i and
s_i = ||b^i - A^i z_i||^2 its residual. Since b^i - A^i z_i is orthogonal to the range of A^i,

    ||A^i x - b^i||^2 = (x - z_i)^T G_i (x - z_i) + s_i,      G_i = A^{iT} A^i      (Pythagoras),

so (G_i, z_i, s_i) determine q^i = psi(r^2) (psi(s) = phi(sqrt s)), its gradient 2 psi'(r^2) G_i (x - z_i)
and its Hessian 2 psi'(r^2) G_i + 4 psi''(r^2) G_i (x - z_i)(x - z_i)^T G_i, whatever the number l of
rows. Realizable labels (b^i = A^i x°) give z_i = x° and s_i = 0, and the residual near x° is then
computed without cancellation, so optimality gaps down to 1e-30 e_0 are meaningful in float64.

**Batching.** ``G [B', N, d, d]``, ``z [B', N, d]``, ``s [B', N]`` with B' = 1 (one instance shared by all
replicates) or B' = B (per-row data, e.g. label noise of several sizes in one run). A point tensor
``X [B, N, d]`` puts agent i at ``X[:, i]`` (the convention of :mod:`verify.problems.base`).

**Convention** (the one Assumptions 1-2 of dutta2023 are read in): least squares is q^i(x) = ||A^i x - b^i||^2,
with no factor 1/2 and no 1/l; then L = max_i lambda_max(grad^2 q^i) = 2 max_i ||A^i||_2^2 and the PL and
quadratic-growth constants of q^H = (1/|H|) sum_H q^i are 2 lambda_min^+(sum_H G_i)/|H| and 2 lambda_min(sum_H G_i)/|H|.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable

import numpy as np
import torch

from analytic.constants import Constant
from analytic.constants.smoothness import least_squares_constants
from analytic import validate
from analytic.errors import InputError, require
from analytic.papers.dutta2023 import f_max_condition_9
from analytic.redundancy import quadratic_redundancy
from verify.normal_draws import randn
from verify.problems.constants_registry import constants_problem
from verify.problems.base import ClientProblem


@dataclass(frozen=True)
class Link:
    """phi of q = phi(||A x - b||), written in the squared residual s = r^2: psi(s) = phi(sqrt s).

    ``excess(s)`` is psi(s) - psi(0) computed without cancellation (the optimality gap of a realizable
    problem); ``curvature`` is sup_r max(|phi''(r)|, phi'(r)/r), so that every agent is L-smooth with
    L = curvature * max_i ||A^i||_2^2 (None: phi'' is unbounded near r = 0, the cost is not smooth).
    """

    name: str
    psi: Callable[[torch.Tensor], torch.Tensor]
    dpsi: Callable[[torch.Tensor], torch.Tensor]
    d2psi: Callable[[torch.Tensor], torch.Tensor]
    excess: Callable[[torch.Tensor], torch.Tensor]
    curvature: float | None
    phi_text: str = ""

    @property
    def is_square(self) -> bool:
        return self.name == "square"


SQUARE = Link("square", psi=lambda s: s, dpsi=torch.ones_like, d2psi=torch.zeros_like, excess=lambda s: s,
              curvature=2.0, phi_text="phi(r) = r^2")


@dataclass(frozen=True)
class RegressionAgents(ClientProblem):
    """N agents with q^i(x) = phi(||A^i x - b^i||) from their sufficient statistics (module docstring)."""

    G: torch.Tensor  # [B', N, d, d]
    z: torch.Tensor  # [B', N, d]
    s: torch.Tensor  # [B', N]
    link: Link = SQUARE
    name: str = "regression agents"
    true_labels: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        require(self.G.dim() == 4 and self.G.shape[-1] == self.G.shape[-2], "G", f"expected [B, N, d, d], got {tuple(self.G.shape)}")
        B, N, d, _ = self.G.shape
        require(self.z.shape[-2:] == (N, d) and self.z.dim() == 3, "z", f"expected [B, {N}, {d}], got {tuple(self.z.shape)}")
        require(self.s.dim() == 2 and self.s.shape[-1] == N, "s", f"expected [B, {N}], got {tuple(self.s.shape)}")
        if not self.true_labels:
            object.__setattr__(self, "true_labels", (0,) * N)

    # -- shapes -----------------------------------------------------------------------------------
    @property
    def n_clients(self) -> int:
        return self.G.shape[1]

    @property
    def dim(self) -> int:
        return self.G.shape[-1]

    @property
    def rows(self) -> int:
        """B': 1 when one instance serves every replicate."""
        return max(self.G.shape[0], self.z.shape[0], self.s.shape[0])

    def optima(self) -> torch.Tensor:
        """Each agent's minimiser z_i (phi is non-decreasing, so a least-squares solution minimises q^i)."""
        return self.z

    def select(self, agents) -> "RegressionAgents":
        """The problem restricted to some agents (a slice or an index list), in the given order."""
        return replace(self, G=self.G[:, agents], z=self.z[:, agents], s=self.s[:, agents], true_labels=())

    # -- the costs -------------------------------------------------------------------------------
    def _gram_times(self, D: torch.Tensor) -> torch.Tensor:
        """G_i D_i for D [B, N, d]; one bmm over the agents when the instance is shared (B' = 1)."""
        if self.G.shape[0] == 1:
            B, N, d = D.shape
            return torch.bmm(self.G[0], D.permute(1, 2, 0)).permute(2, 0, 1)
        return (self.G @ D[..., None])[..., 0]

    @cached_property
    def _common_center(self) -> bool:
        """One instance whose agents all share z (realizable labels): then D = x - z is one vector per point."""
        return self.rows == 1 and bool(torch.all(self.z == self.z[:, :1]))

    def _parts(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(GD [B, N, d], r^2 [B, N]) with D = X - z."""
        self._check(X)
        if X.dim() == 3 and X.stride(1) == 0 and self._common_center:  # every agent at the same point: one GEMM
            M, N, d = X.shape
            D = X[:, 0] - self.z[0, 0]
            GD = (D @ self.G[0].reshape(N * d, d).T).reshape(M, N, d)  # G_n symmetric
            return GD, ((GD * D[:, None]).sum(-1) + self.s).clamp_min(0.0)
        D = X - self.z
        GD = self._gram_times(D)
        return GD, ((GD * D).sum(-1) + self.s).clamp_min(0.0)

    def sq_residual(self, X: torch.Tensor) -> torch.Tensor:
        return self._parts(X)[1]

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        return self.link.psi(self.sq_residual(X))

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        if self.link.is_square:  # psi' = 1: the residual is not needed
            self._check(X)
            return 2.0 * self._gram_times(X - self.z)
        GD, r2 = self._parts(X)
        return 2.0 * self.link.dpsi(r2)[..., None] * GD

    def loss_and_grad(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        GD, r2 = self._parts(X)
        return self.link.psi(r2), 2.0 * self.link.dpsi(r2)[..., None] * GD

    def hessian(self, X: torch.Tensor) -> torch.Tensor:
        """grad^2 q^i at X[:, i]: 2 psi'(r^2) G_i + 4 psi''(r^2) (G_i D_i)(G_i D_i)^T, ``[B, N, d, d]``."""
        GD, r2 = self._parts(X)
        G = self.G.expand(X.shape[0], -1, -1, -1)
        return (2.0 * self.link.dpsi(r2)[..., None, None] * G
                + 4.0 * self.link.d2psi(r2)[..., None, None] * GD[..., :, None] * GD[..., None, :])

    # -- the honest average and its constants ---------------------------------------------------------
    def realizable(self, agents=slice(None)) -> bool:
        """Every selected agent's labels are fitted exactly by one common model (z_i equal, s_i = 0)."""
        z, s = self.z[:, agents], self.s[:, agents]
        return bool(torch.all(z == z[:, :1]) and torch.all(s == 0))

    def honest_average(self, first_honest: int = 0) -> "HonestAverage":
        """q^H for the honest agents first_honest..N-1 (Byzantine agents are 0..first_honest-1, docs/papers/dutta2023.md §5.5)."""
        require(0 <= first_honest < self.n_clients, "first_honest", f"must lie in [0, {self.n_clients}), got {first_honest}")
        return HonestAverage(self, first_honest)

    def numpy_oracle(self, agents=slice(None), row: int = 0) -> "AgentOracle":
        """Values, gradients and Hessians of the selected agents at points X [M, d], in numpy (for the
        estimators of :mod:`analytic.constants.smoothness` and :mod:`analytic.redundancy`)."""
        return AgentOracle(self.select(agents).row(row))

    def row(self, r: int) -> "RegressionAgents":
        """The instance of row r (B' = 1)."""
        pick = lambda t: t[min(r, t.shape[0] - 1)][None]  # noqa: E731
        return replace(self, G=pick(self.G), z=pick(self.z), s=pick(self.s), true_labels=())

    def gram_numpy(self, agents=slice(None), row: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(G [n, d, d], z [n, d], s [n]) of the selected agents of one row, as float64 numpy arrays."""
        p = self.select(agents).row(row)
        return (p.G[0].double().cpu().numpy(), p.z[0].double().cpu().numpy(), p.s[0].double().cpu().numpy())

    def flip_labels(self, agent_mask: torch.Tensor) -> "RegressionAgents":
        """Label flip b^i <- -b^i for the agents where ``agent_mask [B, N]`` is true (dutta2023 attack A5,
        data poisoning): z_i <- -z_i, s_i unchanged (-b = A(-z) - (b - Az), the residual keeps its norm)."""
        require(agent_mask.dim() == 2 and agent_mask.shape[1] == self.n_clients, "agent_mask",
                f"expected [B, {self.n_clients}], got {tuple(agent_mask.shape)}")
        z = torch.where(agent_mask[..., None].to(self.z.device), -self.z, self.z)
        return replace(self, z=z, true_labels=())

    def constants(self, first_honest: int = 0) -> dict[str, Constant]:
        """Exact L and PL / quadratic-growth constants of least squares (row 0)."""
        require(self.link.is_square, "problem", f"exact constants are for least squares, not {self.link.name}")
        G, _, _ = self.gram_numpy(slice(first_honest, None))
        return least_squares_constants(G)


@dataclass(frozen=True)
class HonestAverage:
    """q^H = (1/|H|) sum_{i in H} q^i over the honest agents H = {first_honest, ..., N-1}, with its
    minimiser x*_H and the optimality gap e(x) = q^H(x) - q^H(x*_H) (docs/papers/dutta2023.md §1.1).

    Least squares: x*_H solves (sum_H G_i) x = sum_H G_i z_i and e(x) = (x - x*)^T Gbar (x - x*) exactly,
    Gbar = (1/|H|) sum_H G_i. Other costs need realizable honest labels: x*_H = x°, e(x) = mean_H psi(r_i^2) - psi(0).
    """

    problem: RegressionAgents
    first_honest: int

    def __post_init__(self) -> None:
        p = self.problem
        H = p.select(slice(self.first_honest, None))
        object.__setattr__(self, "honest", H)
        if p.link.is_square:
            Gsum = H.G.sum(1)  # [B', d, d]
            Gbar = Gsum / H.n_clients
            rhs = (H.G @ H.z.expand(H.rows, -1, -1)[..., None])[..., 0].sum(1)
            xs = torch.linalg.solve(Gsum.expand(H.rows, -1, -1), rhs)
            object.__setattr__(self, "Gbar", Gbar)
            object.__setattr__(self, "x_star", xs)
        else:
            if not H.realizable():
                raise InputError("problem", f"the honest minimiser of {p.link.name} agents with noisy labels has no closed form; "
                                            "find it with analytic.redundancy.minimise_sum")
            object.__setattr__(self, "x_star", H.z[:, 0])

    @property
    def n_honest(self) -> int:
        return self.honest.n_clients

    def _at(self, x: torch.Tensor) -> torch.Tensor:
        return x[:, None, :].expand(-1, self.n_honest, -1)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.honest.loss(self._at(x)).mean(1)

    def grad(self, x: torch.Tensor) -> torch.Tensor:
        return self.honest.grad(self._at(x)).mean(1)

    def gap(self, x: torch.Tensor) -> torch.Tensor:
        """e(x) [B] for x [B, d], exact (no subtraction of two large numbers)."""
        if self.problem.link.is_square:
            D = x - self.x_star
            return ((self.Gbar @ D[..., None])[..., 0] * D).sum(-1)
        return self.problem.link.excess(self.honest.sq_residual(self._at(x))).mean(1)

    def gap_and_grad(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(e(x) [B], grad q^H(x) [B, d]) from one evaluation of the residuals."""
        if self.problem.link.is_square:
            return self.gap(x), self.grad(x)
        GD, r2 = self.honest._parts(self._at(x))
        link = self.problem.link
        return link.excess(r2).mean(1), (2.0 * link.dpsi(r2)[..., None] * GD).mean(1)

    def agent_grad_sq(self, x: torch.Tensor) -> torch.Tensor:
        """(1/|H|) sum_H ||grad q^i(x)||^2, the metric of the paper's problem (12) (docs/papers/dutta2023.md §5.3)."""
        return self.honest.grad(self._at(x)).pow(2).sum(-1).mean(1)


@dataclass(frozen=True)
class AgentOracle:
    """Numpy view of some agents of one instance (an :class:`analytic.redundancy.AgentFunctions`): each function
    takes points X [M, d] (all agents at one point) or [M, n, d] (agent i at X[:, i])."""

    problem: RegressionAgents

    @property
    def n(self) -> int:
        return self.problem.n_clients

    @property
    def dim(self) -> int:
        return self.problem.dim

    def _X(self, X) -> torch.Tensor:
        """Points [M, d] (every agent there) or [M, n, d] (agent i at X[:, i]) as the problem's tensor [M, n, d]."""
        X = torch.tensor(np.asarray(X, dtype=np.float64), dtype=self.problem.G.dtype, device=self.problem.G.device)
        return X[:, None, :].expand(-1, self.n, -1) if X.dim() == 2 else X

    def values(self, X) -> np.ndarray:
        return self.problem.loss(self._X(X)).cpu().numpy()

    def grads(self, X) -> np.ndarray:
        return self.problem.grad(self._X(X)).cpu().numpy()

    def hessians(self, X) -> np.ndarray:
        return self.problem.hessian(self._X(X)).cpu().numpy()

    def excess(self, X) -> np.ndarray:
        """psi(r_i^2) - psi(0) per agent [M, n], without cancellation."""
        return self.problem.link.excess(self.problem.sq_residual(self._X(X))).cpu().numpy()

    def mean_grad(self, X) -> np.ndarray:
        return self.grads(X).mean(1)


# -- building instances ---------------------------------------------------------------------------------
def from_arrays(A, b, link: Link = SQUARE, dtype=torch.float64, device="cpu") -> RegressionAgents:
    """Agents from their data A [N, l, d], b [N, l] (numpy or torch): G = A^T A, z = least-squares solution
    (the minimum-norm one when A^i has rank < d), s = the residual. Bad shapes or values raise InputError."""
    A = np.asarray(A.cpu().numpy() if isinstance(A, torch.Tensor) else A)
    b = np.asarray(b.cpu().numpy() if isinstance(b, torch.Tensor) else b)
    require(A.ndim == 3, "A", f"expected shape [N, l, d], got {A.shape}")
    require(b.ndim == 2, "b", f"expected shape [N, l], got {b.shape}")
    require(A.shape[:2] == b.shape, "b", f"shape {b.shape} does not match A {A.shape} (need b [N, l] for A [N, l, d])")
    require(min(A.shape) >= 1, "A", f"every dimension must be >= 1, got {A.shape}")
    require(np.issubdtype(A.dtype, np.number) and np.issubdtype(b.dtype, np.number), "A", "A and b must be numeric")
    A, b = A.astype(np.float64), b.astype(np.float64)
    require(bool(np.all(np.isfinite(A))), "A", "contains NaN or infinite values")
    require(bool(np.all(np.isfinite(b))), "b", "contains NaN or infinite values")
    At, bt = torch.as_tensor(A, dtype=dtype, device=device), torch.as_tensor(b, dtype=dtype, device=device)
    z = (torch.linalg.pinv(At) @ bt[..., None])[..., 0]
    s = (At @ z[..., None])[..., 0].sub(bt).pow(2).sum(-1)
    return RegressionAgents((At.transpose(-1, -2) @ At)[None], z[None], s[None], link)


def gaussian_agents(N: int, rows: int, dim: int, generator: torch.Generator, *, link: Link = SQUARE,
                    label_noise: float = 0.0, isotropic: bool = False, dtype=torch.float64, device="cpu",
                    noise_generator: torch.Generator | None = None) -> tuple[RegressionAgents, torch.Tensor]:
    """One instance (B' = 1) of N agents with A^i [rows x dim] of i.i.d. N(0, 1) entries (docs/papers/dutta2023.md §5.5), or with
    orthonormal columns (``isotropic``: A^{iT} A^i = I exactly), x° ~ N(0, I) and b^i = A^i x° + eps^i with
    eps^i ~ N(0, label_noise^2 I). Returns (agents, x°)."""
    N, rows, dim = (validate.integer(v, name, minimum=1) for name, v in (("N", N), ("rows", rows), ("dim", dim)))
    validate.real(label_noise, "label_noise", minimum=0.0)
    x0 = randn(dim, generator=generator, dtype=dtype, device=device)
    if isotropic:
        require(rows >= dim, "rows", f"orthonormal columns need rows >= dim, got {rows} < {dim}")
        G = torch.eye(dim, dtype=dtype, device=device).expand(N, dim, dim).clone()
        z = x0.expand(N, dim).clone()
        s = torch.zeros(N, dtype=dtype, device=device)
        if label_noise > 0:  # for orthonormal columns z = x° + A^T eps, s = ||eps||^2 - ||A^T eps||^2
            gen = noise_generator or generator
            w = randn(N, dim, generator=gen, dtype=dtype, device=device) * label_noise
            perp = randn(N, max(rows - dim, 0), generator=gen, dtype=dtype, device=device) * label_noise
            z, s = z + w, perp.pow(2).sum(-1)
        return RegressionAgents(G[None], z[None], s[None], link), x0
    A = randn(N, rows, dim, generator=generator, dtype=dtype, device=device)
    G = A.transpose(-1, -2) @ A
    z = x0.expand(N, dim).clone()
    s = torch.zeros(N, dtype=dtype, device=device)
    if label_noise > 0:
        eps = randn(N, rows, generator=noise_generator or generator, dtype=dtype, device=device) * label_noise
        w = (torch.linalg.pinv(A) @ eps[..., None])[..., 0]
        z = z + w
        s = (A @ w[..., None])[..., 0].sub(eps).pow(2).sum(-1)
    return RegressionAgents(G[None], z[None], s[None], link), x0


def stack_rows(problems: list[RegressionAgents]) -> RegressionAgents:
    """Per-row data (B' = len(problems)) from instances with B' = 1 and the same link."""
    require(len({p.link.name for p in problems}) == 1, "problems", "all rows must share one link")
    return RegressionAgents(torch.cat([p.G for p in problems]), torch.cat([p.z for p in problems]),
                            torch.cat([p.s for p in problems]), problems[0].link)


# -- fedverify constants least-squares ---------------------------------------------------------------------
def _load_npz(path: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ("A", "b") if k not in data.files]
            if missing:
                raise InputError("FILE", f"{path!r} lacks the array(s) {', '.join(missing)} (need A [N, l, d] and b [N, l])")
            return data["A"], data["b"]
    except FileNotFoundError:
        raise InputError("FILE", f"no such file {path!r}") from None
    except (OSError, ValueError) as exc:
        raise InputError("FILE", f"cannot read {path!r} as .npz ({exc})") from None


def _add_ls_arguments(p: argparse.ArgumentParser) -> None:
    from verify.cli_args import int_type

    p.add_argument("file", nargs="?", metavar="FILE", help="a .npz with A [N, l, d] and b [N, l] for the agents "
                   "q^i(x) = ||A^i x - b^i||^2 (all honest); without it, the built-in LS-in-regime instance "
                   "(N = 50, l = 2000, d = 5, Gaussian A, realizable labels)")
    p.add_argument("--f", type=int_type("--f", 0), default=2, help="number of Byzantine agents tolerated (default 2)")
    p.add_argument("--n-total", type=int_type("--n-total", 1), default=None,
                   help="N, all agents including the Byzantine ones (default: the file's agents + f, i.e. "
                        "|H| = N - f as the proof assumes; built-in: 50)")
    p.add_argument("--seed", type=int_type("--seed", 0), default=0, help="seed of the built-in instance and of the subset sample")
    p.add_argument("--label-noise", type=float, default=0.0, help="built-in instance: label noise std (breaks 2f-redundancy)")


def _redundancy_constants(rep, how_prefix: str = "") -> list[Constant]:
    exact = rep.method == "exact enumeration"
    verdict = "true" if rep.holds else "false"
    where = (f"{rep.checked} of {rep.total_subsets} subsets of size {rep.subset_size} ({rep.method}"
             + ("" if exact else f": {rep.sampled} uniform + {rep.adversarial} adversarial") + ")")
    label = "exact" if (exact or not rep.holds) else "estimate"
    gap_all = exact and rep.gap_subsets == rep.total_subsets
    return [
        Constant("redundancy_2f", bool(rep.holds), label,
                 f"{how_prefix}{verdict}: Definition I.1 checked on {where}; {rep.reason}"),
        Constant("redundancy_2f_gap", rep.gap, "exact" if gap_all else "lower bound",
                 f"max over {rep.gap_subsets} subsets S of ||argmin_S - x*_H||; worst subset: the honest agents "
                 f"(0-based) except {list(rep.dropped)}"),
        Constant("redundancy_2f_stationarity", rep.stationarity, "exact",
                 "max_i ||grad q^i(x*_H)|| / max_i ||grad q^i(0)|| (0 under 2f-redundancy, Definition I.1)"),
        Constant("redundancy_2f_min_eig", rep.min_eig, "exact" if exact else "upper bound",
                 "min over checked subsets of lambda_min(sum_S A^T A)/|S| / max_i lambda_max(A^{iT} A^i) (> 0: unique minimisers)"),
    ]


def least_squares_report(G: np.ndarray, z: np.ndarray, s: np.ndarray, f: int, n_total: int, rng,
                         how: str) -> list[Constant]:
    """Exact L, mu_PL, the f allowed by condition (9) and the 2f-redundancy of honest least-squares agents."""
    n = G.shape[0]
    require(n_total >= n, "n_total", f"N = {n_total} is smaller than the {n} agents in the data")
    require(n_total - 2 * f >= 1, "f", f"Definition I.1 needs N - 2f >= 1; got N = {n_total}, f = {f}")
    require(n >= n_total - f, "f", f"{n} honest agents, but |H| >= N - f = {n_total - f} is required")
    consts = least_squares_constants(G)
    L, mu = consts["L"].value, consts["mu"].value
    require(L > 0, "A", "every A^i is zero: L = 0 (the agents are constant), so mu/L and condition (9) are undefined")
    out = [Constant(c.name, c.value, c.label, c.how) for c in consts.values()]
    out.append(Constant("mu_over_L", mu / L, "exact", "mu / L (condition (9) needs f/(N-f) <= mu/(3L))"))
    if mu > 0:
        fmax = f_max_condition_9(n_total, mu, L)
        out.append(Constant("f_max_condition_9", fmax, "exact",
                            f"largest f with f/(N-f) <= mu/(3L) at N = {n_total}: floor(N r/(1+r)), r = mu/(3L); "
                            f"f = {f} is {'inside' if f <= fmax else 'OUTSIDE'} Theorem 1's condition (9)"))
    c = np.einsum("nij,ni,nj->n", G, z, z) + s  # ||b^i||^2
    h = np.einsum("nij,nj->ni", G, z)
    rep = quadratic_redundancy(G, h, c, f=f, n_total=n_total, rng=rng)
    out += _redundancy_constants(rep, how)
    return out


@constants_problem("least-squares", "agents q^i(x) = ||A^i x - b^i||^2 (dutta2023 convention): exact L and mu_PL, "
                   "the f allowed by condition (9), and 2f-redundancy (Definition I.1)", _add_ls_arguments)
def least_squares_cli(args) -> list[Constant]:
    rng = np.random.default_rng(args.seed)
    if args.file:
        A, b = _load_npz(args.file)
        try:
            prob = from_arrays(A, b)
        except InputError as exc:  # the arrays are the file's content: report them under FILE
            raise InputError("FILE", f"{args.file!r}: array {exc.param}: {exc.message}") from None
        G, z, s = prob.gram_numpy()
        n_total = args.n_total if args.n_total is not None else G.shape[0] + args.f
        try:
            return least_squares_report(G, z, s, args.f, n_total, rng,
                                        f"{args.file}: {G.shape[0]} honest agents, N = {n_total}; ")
        except InputError as exc:
            if exc.param != "A":
                raise
            raise InputError("FILE", f"{args.file!r}: array A: {exc.message}") from None
    n_total = args.n_total if args.n_total is not None else 50
    require(args.label_noise >= 0 and math.isfinite(args.label_noise), "label_noise", f"must be finite and >= 0, got {args.label_noise}")
    require(0 <= args.f < n_total, "f", f"need 0 <= f < N = {n_total}")
    prob, _ = gaussian_agents(n_total, 2000, 5, torch.Generator().manual_seed(args.seed), label_noise=args.label_noise)
    G, z, s = prob.gram_numpy(slice(args.f, None))
    return least_squares_report(G, z, s, args.f, n_total, rng,
                                f"built-in LS-in-regime (N = {n_total}, l = 2000, d = 5, seed {args.seed}, "
                                f"label noise {args.label_noise:g}; honest agents f..N-1); ")
