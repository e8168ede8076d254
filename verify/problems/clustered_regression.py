"""Planted clustered linear regression (werner2023 section 4.1 style), batched over replicates.

Client j of cluster k(j) holds m samples (a, y) with a ~ N(0, I_d) and y = <a, w_k> + noise, and the
least-squares loss  f_j(x) = (1/2m) ||A_j x - y_j||^2  = 1/2 x^T H_j x - b_j^T x + c_j,
with H_j = A_j^T A_j / m, b_j = A_j^T y_j / m, c_j = ||y_j||^2 / (2m); gradient H_j x - b_j.
Without label noise every client of cluster k has the minimiser w_k (the shared-optimum
condition of Lemma 1), so Assumption 4 holds with A = 2L/mu (18).

The cluster optima are planted at pairwise distance exactly ``separation``:
w_k = (separation / sqrt 2) u_k with orthonormal u_k (docs/papers/werner2023.md §6.2 generator), a fresh random
orthonormal set per replicate. The gradient oracle is the exact full-batch gradient (deterministic).

Two representations of the same problem, chosen by cost (``representation="auto"``, as su2022's Phase-2
backends are): :class:`ClusteredRegression` stores the moments (H, b, c) ([R, N, d, d]; a gradient costs
2 d^2 flops), :class:`RawClusteredRegression` the samples (A_j, y_j) ([R, N, m, d]; a gradient
A_j^T (A_j x - y_j) / m costs 4 m d flops). Raw data wins when 2m < d (IFCA's synthetic configuration
m = 100 samples in d = 1000 stores 8 MB per replicate instead of 800 MB); the two agree to rounding
(tests/verify/test_clustered_regression_raw.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import torch

from analytic import validate
from analytic.errors import InputError
from verify.normal_draws import randn
from verify.problems.base import ClientProblem

REPRESENTATIONS = ("auto", "moments", "raw")


def raw_is_cheaper(m: int, d: int) -> bool:
    """Samples (4 m d flops a gradient, m d numbers a client) beat moments (2 d^2, d^2) iff 2m < d."""
    return 2 * m < d


def _representation(representation: str, m: int, d: int) -> str:
    if representation not in REPRESENTATIONS:
        raise InputError("representation", f"expected one of {REPRESENTATIONS}, got {representation!r}")
    if representation == "auto":
        return "raw" if raw_is_cheaper(m, d) else "moments"
    return representation


@dataclass(frozen=True)
class ClusteredRegression(ClientProblem):
    H: torch.Tensor  # [R, N, d, d]
    b: torch.Tensor  # [R, N, d]
    c: torch.Tensor  # [R, N]
    W: torch.Tensor  # [R, K, d] planted cluster optima
    true_labels: tuple[int, ...]
    name: str = "planted clustered linear regression"
    #: copies of each instance: H holds R / tile distinct Hessians, replicate r uses H[r // tile] (b, c, W have all R
    #: rows); :meth:`repeated` with ``interleave`` makes restarts this way instead of copying H ``times`` times
    tile: int = 1

    @property
    def n_clients(self) -> int:
        return self.H.shape[1]

    @property
    def dim(self) -> int:
        return self.H.shape[-1]

    @property
    def replicates(self) -> int:
        return self.b.shape[0]

    def hessians(self) -> torch.Tensor:
        """H_j for every replicate ``[R, N, d, d]`` (a copy of each distinct instance per tile)."""
        return self.H if self.tile == 1 else self.H.repeat_interleave(self.tile, 0)

    def hessians_of(self, replicate: int) -> torch.Tensor:
        """H_j of one replicate ``[N, d, d]``, without copying: a tiled problem keeps each distinct instance once,
        replicate r being a copy of instance r // tile (``self.H[r]`` would be another replicate's)."""
        return self.H[replicate // self.tile]

    def _flat(self, X: torch.Tensor) -> torch.Tensor:
        """``[R, ..., N, d] -> [R, M, N, d]`` (M = product of the middle axes)."""
        self._check(X)
        if X.shape[0] != self.replicates:
            raise InputError("X", f"expected {self.replicates} replicates on axis 0, got {X.shape[0]}")
        return X.reshape(X.shape[0], -1, self.n_clients, self.dim)

    def _hx(self, Xf: torch.Tensor) -> torch.Tensor:
        """H_j x for ``Xf [R, M, N, d]`` as one batched matmul over (distinct instance, client). With ``tile`` > 1 the
        copies of an instance share its H_j, so their points are the rows of one product [x_1 ... x_{tile M}]^T H_j^T
        (H read once for all copies, the faster orientation: 20 ms against 36 ms for 640 clients, d 100, 20 points):
        within rounding of the single-copy product (tests/verify/test_clustered_regression_tile.py)."""
        R, M, N, d = Xf.shape
        t = self.tile
        if t == 1:
            HX = self.H.reshape(R * N, d, d) @ Xf.permute(0, 2, 3, 1).reshape(R * N, d, M)
            return HX.reshape(R, N, d, M).permute(0, 3, 1, 2)
        R0 = R // t
        Xt = Xf.reshape(R0, t, M, N, d).permute(0, 3, 1, 2, 4).reshape(R0 * N, t * M, d)
        XH = torch.bmm(Xt, self.H.reshape(R0 * N, d, d).transpose(1, 2))  # (H_j X)^T = X^T H_j^T: 1.8x H_j X here
        return XH.reshape(R0, N, t, M, d).permute(0, 2, 3, 1, 4).reshape(R, M, N, d)

    def loss_and_grad(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        Xf = self._flat(X)
        HX = self._hx(Xf)
        f = 0.5 * (Xf * HX).sum(-1) - (self.b[:, None] * Xf).sum(-1) + self.c[:, None]
        return f.reshape(X.shape[:-1]), (HX - self.b[:, None]).reshape(X.shape)

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        return self.loss_and_grad(X)[1]

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        return self.loss_and_grad(X)[0]

    def repeated(self, times: int, *, interleave: bool = False) -> "ClusteredRegression":
        """The same instances ``times`` times along the replicate axis, so that restarts or a step-size grid run as
        one batch on exactly the same data: replicate r's copy i is row ``r * times + i`` (``interleave``) or
        ``i * R + r`` (blocks)."""
        if interleave:  # H itself is not copied: the copies share it (``tile``)
            rep = lambda t: t.repeat_interleave(times, 0)
            return ClusteredRegression(self.H, rep(self.b), rep(self.c), rep(self.W), self.true_labels, self.name,
                                       tile=self.tile * times)
        rep = lambda t: t.repeat(times, *([1] * (t.dim() - 1)))
        return ClusteredRegression(rep(self.hessians()), rep(self.b), rep(self.c), rep(self.W), self.true_labels,
                                   self.name)

    def optima(self) -> torch.Tensor:
        lab = torch.as_tensor(self.true_labels, device=self.W.device)
        return self.W[:, lab]  # [R, N, d]

    def smoothness(self) -> torch.Tensor:
        """L_j = lambda_max(H_j) per replicate and client ``[R, N]`` (Assumption 7 (21))."""
        L = torch.linalg.eigvalsh(self.H)[..., -1]
        return L if self.tile == 1 else L.repeat_interleave(self.tile, 0)

    def gradients_at_models(self, models: torch.Tensor) -> torch.Tensor:
        """Every client's gradient at each of B models, ``models [R, B, d] -> [R, B, N, d]``: H_j m_b - b_j as one
        matrix product per replicate (Federated-Clustering's all-pairs step without copies of the models)."""
        R, Bm, d = models.shape
        if R != self.replicates or d != self.dim:
            raise InputError("models", f"expected [{self.replicates}, B, {self.dim}], got {tuple(models.shape)}")
        G = torch.bmm(models, self._stacked_hessians).reshape(R, Bm, self.n_clients, d)  # m_b^T H_j = (H_j m_b)^T
        return G.sub_(self.b[:, None])

    @cached_property
    def _stacked_hessians(self) -> torch.Tensor:
        """H laid out as ``[R, d, N d]`` with [r, a, (j, c)] = H_j[a, c], computed once."""
        H = self.hessians()
        R, N, d, _ = H.shape
        return H.permute(0, 2, 1, 3).reshape(R, d, N * d)



@dataclass(frozen=True)
class RawClusteredRegression(ClientProblem):
    """The same least-squares clients from their samples: f_j(x) = ||A_j x - y_j||^2 / (2m), gradient
    A_j^T (A_j x - y_j) / m, with A [R, N, m, d], y [R, N, m]. H, b, c (the moments of
    :class:`ClusteredRegression`) are computed on demand only (for constants and tests)."""

    A: torch.Tensor  # [R, N, m, d]
    y: torch.Tensor  # [R, N, m]
    W: torch.Tensor  # [R, K, d] planted cluster optima
    true_labels: tuple[int, ...]
    name: str = "planted clustered linear regression"
    #: samples of a block of clients processed together by :meth:`loss_and_grad` (half the L2 cache here)
    BLOCK_BYTES = 1 << 20
    #: samples of a block of clients in :class:`IFCAPass`: a quarter of the L3 cache here; 8 MB ran 3-4 % faster than
    #: 4 MB at m 100, d 1000 and 10-12 % at R 4, m 50, d 100 (thread time, interleaved, load 2.7)
    IFCA_BLOCK_BYTES = 8 << 20

    @property
    def n_clients(self) -> int:
        return self.A.shape[1]

    @property
    def dim(self) -> int:
        return self.A.shape[-1]

    @property
    def replicates(self) -> int:
        return self.A.shape[0]

    @property
    def samples(self) -> int:
        return self.A.shape[2]

    _flat = ClusteredRegression._flat

    def loss_and_grad(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Residuals r = A_j x - y_j and A_j^T r for blocks of clients whose samples fit in the cache (``BLOCK_BYTES``):
        both products read a block while it is there, so the samples stream from memory once per call."""
        Xf = self._flat(X)
        R, M, N, d = Xf.shape
        m = self.samples
        A = self.A.reshape(R * N, m, d)
        Y = self.y.reshape(R * N, m, 1)
        Xp = Xf.permute(0, 2, 3, 1).reshape(R * N, d, M)  # a view when every client sees the same models
        per = max(1, self.BLOCK_BYTES // (m * d * A.element_size()))
        f = A.new_empty(R * N, M)
        g = A.new_empty(R * N, M, d)
        for s in range(0, R * N, per):
            a = A[s:s + per]
            res = torch.baddbmm(-Y[s:s + per], a, Xp[s:s + per])  # [b, m, M]
            torch.sum(res * res, 1, out=f[s:s + per])
            torch.bmm(res.transpose(1, 2), a, out=g[s:s + per])  # r^T A: 4x faster than A^T r for M << d
        f = (f / (2 * m)).reshape(R, N, M).transpose(1, 2)
        g = (g / m).reshape(R, N, M, d).transpose(1, 2)
        return f.reshape(X.shape[:-1]), g.reshape(X.shape)

    def grad(self, X: torch.Tensor) -> torch.Tensor:
        return self.loss_and_grad(X)[1]

    def loss(self, X: torch.Tensor) -> torch.Tensor:
        return self.loss_and_grad(X)[0]

    def losses_and_member_sums(self, theta: torch.Tensor,
                               sums: bool = True) -> tuple[torch.Tensor, torch.Tensor | None]:
        """IFCA's round without the gradients it does not use (Ghosh et al. 2020, Algorithm 1, Option I): every
        client's loss at every cluster model, ``f [R, K, N]``, and per cluster the sum of its members' gradients at
        its model, ``S [R, K, d]``, S_k = sum_{i: j_i = k} A_i^T (A_i theta_k - y_i) / m with
        j_i = argmin_k f_i(theta_k) (ties to the smaller k, as ``argmin``), by :class:`IFCAPass`.
        ``sums=False``: the losses only (S is None)."""
        f = theta.new_empty(1, *theta.shape[:2], self.n_clients)
        run = self.ifca_pass(theta[None], f, torch.empty(1, theta.shape[0], self.n_clients, dtype=torch.long,
                                                         device=theta.device))
        if not sums:
            run.losses(0)
            return f[0], None
        return f[0], run.member_sums(0)

    def ifca_pass(self, thetas: torch.Tensor, losses: torch.Tensor, assign: torch.Tensor) -> "IFCAPass":
        """:class:`IFCAPass` over the caller's trace buffers ``thetas [T + 1, R, K, d]``, ``losses [T, R, K, N]``,
        ``assign [T, R, N]`` (IFCA Option I, verify/algorithms/ifca.py)."""
        _, R, K, d = thetas.shape
        if R != self.replicates or d != self.dim:
            raise InputError("theta", f"expected [{self.replicates}, K, {self.dim}], got {tuple(thetas.shape[1:])}")
        return IFCAPass(self, thetas, losses, assign)

    def _ifca_blocks(self) -> list:
        """The blocks of :class:`IFCAPass`, computed once per ``IFCA_BLOCK_BYTES``: whole replicates while one fits,
        else runs of clients of one replicate; ``(r0, r1, s, e, samples [rb b, m, d], samples^T [rb, d, b m],
        y [rb, 1, b m])`` (views)."""
        plans = self.__dict__.setdefault("_ifca_plans", {})  # the dataclass is frozen: its __dict__ is the cache
        nbytes = self.IFCA_BLOCK_BYTES
        if nbytes not in plans:
            R, N, m, d = self.A.shape
            client = m * d * self.A.element_size()
            if N * client <= nbytes:
                per = max(1, nbytes // (N * client))
                spans = [(r0, min(R, r0 + per), 0, N) for r0 in range(0, R, per)]
            else:
                per = max(1, nbytes // client)
                spans = [(r, r + 1, s, min(N, s + per)) for r in range(R) for s in range(0, N, per)]
            plans[nbytes] = [(r0, r1, s, e, self.A[r0:r1, s:e].reshape(-1, m, d),
                              self.A[r0:r1, s:e].reshape(r1 - r0, -1, d).transpose(1, 2),
                              self.y[r0:r1, s:e].reshape(r1 - r0, 1, -1)) for r0, r1, s, e in spans]
        return plans[nbytes]

    def repeated(self, times: int, *, interleave: bool = False) -> "RawClusteredRegression":
        """As :meth:`ClusteredRegression.repeated`."""
        rep = (lambda t: t.repeat_interleave(times, 0)) if interleave else (lambda t: t.repeat(times, *([1] * (t.dim() - 1))))
        return RawClusteredRegression(rep(self.A), rep(self.y), rep(self.W), self.true_labels, self.name)

    def optima(self) -> torch.Tensor:
        lab = torch.as_tensor(self.true_labels, device=self.W.device)
        return self.W[:, lab]

    def smoothness(self) -> torch.Tensor:
        """L_j = lambda_max(A_j^T A_j / m) = sigma_max(A_j)^2 / m, ``[R, N]``."""
        return torch.linalg.matrix_norm(self.A, ord=2) ** 2 / self.samples

    def gradients_at_models(self, models: torch.Tensor) -> torch.Tensor:
        """Every client's gradient at each of B models, ``models [R, B, d] -> [R, B, N, d]``."""
        R, Bm, d = models.shape
        if R != self.replicates or d != self.dim:
            raise InputError("models", f"expected [{self.replicates}, B, {self.dim}], got {tuple(models.shape)}")
        return self.grad(models[:, :, None].expand(R, Bm, self.n_clients, d))

    @cached_property
    def H(self) -> torch.Tensor:
        return self.A.transpose(-1, -2) @ self.A / self.samples

    @cached_property
    def b(self) -> torch.Tensor:
        return torch.einsum("rnmd,rnm->rnd", self.A, self.y) / self.samples

    @cached_property
    def c(self) -> torch.Tensor:
        return (self.y**2).sum(-1) / (2 * self.samples)

    def moments(self) -> ClusteredRegression:
        """The same problem as (H, b, c)."""
        return ClusteredRegression(self.H, self.b, self.c, self.W, self.true_labels, self.name)


class IFCAPass:
    """IFCA Option I's rounds on samples (Ghosh et al. 2020, Algorithm 1) without the gradients they do not use, in
    place on the caller's buffers ``thetas [T+1, R, K, d]``, ``losses [T', R, K, N]``, ``assign [T', R, N]``.

    :meth:`member_sums` (t) reads theta = thetas[t] and writes every client's loss at every model, losses[t][r, k, i] =
    f_ik = ||A_i theta_k - y_i||^2 / (2m), and the assignment assign[t][r, i] = j_i = argmin_k f_ik (ties to the
    smaller k, as ``argmin``); it returns per cluster the sum of its members' gradients at its model,
    S_k = sum_{i: j_i = k} A_i^T (A_i theta_k - y_i) / m, ``[R, K, d]`` (a buffer reused by the next call).

    One pass over the samples, in blocks of clients whose samples fit in the cache (``IFCA_BLOCK_BYTES``): per block
    the scaled residuals c (Theta A^T - y^T), c = (2m)^{-1/2}, of all K models, one product ``[K, d] x [d, m]`` a client
    (blocks of one replicate) or ``[K, d] x [d, b m]`` a replicate (blocks of whole replicates); their squared norms are
    the losses; then each client's gradient only at its assigned model,
    (c r_{i,j_i})^T A_i / (m c) (one row a client: m d flops, while the block is still in the cache), added into its
    cluster: (K + 1) m d flops a client instead of the 2 K m d of masking the residuals of every model, and the samples
    stream from memory once a round. Every view is built once: a round costs five tensor calls a block and three."""

    def __init__(self, problem: RawClusteredRegression, thetas: torch.Tensor, losses: torch.Tensor,
                 assign: torch.Tensor):
        R, N, m, d = problem.A.shape
        self.scale = (2.0 * m) ** -0.5  # residuals scaled by c: ||c r||^2 = ||r||^2 / (2m)
        self.grad_scale = 1.0 / (m * self.scale)  # A^T (c r) / (m c) = A^T r / m
        self.g = thetas.new_empty(R, N, d)  # each client's gradient at its model
        self.S = thetas.new_empty(R, thetas.shape[2], d)
        # row r K + j_i of S viewed [R K, d] for the per-cluster sums (index_add_: 6x faster than scatter_add_ here)
        self.offsets = (torch.arange(R, device=assign.device) * thetas.shape[2])[:, None] if R > 1 else None
        self.rows = assign.new_empty(R * N)
        self.assign = assign.unbind(0)  # per-round views, made once (a select costs as much as a small kernel)
        self.rows_of = assign.view(assign.shape[0], R * N).unbind(0) if R == 1 else None
        self.S_rows, self.g_rows = self.S.view(-1, d), self.g.view(-1, d)
        self.thetas = thetas
        self.blocks = [_IFCABlock(thetas, losses, assign, self.g, *span) for span in problem._ifca_blocks()]

    def _residuals(self, t: int, bl: "_IFCABlock") -> None:
        if bl.per_client:
            torch.baddbmm(bl.y_row, bl.models[t], bl.a_t, beta=-self.scale, alpha=self.scale, out=bl.res)
        else:
            torch.baddbmm(bl.y, bl.models[t], bl.rows_t, beta=-self.scale, alpha=self.scale, out=bl.res)
        torch.linalg.vecdot(bl.res4, bl.res4, out=bl.losses[t])  # f_ik = ||c r_ik||^2

    def losses(self, t: int) -> None:
        """losses[t] only."""
        for bl in self.blocks:
            self._residuals(t, bl)

    def assigned_losses(self, t: int, assign: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        """Every client's loss at its model of ``assign [R, N]`` in thetas[t] only, ``out [R, N]`` (after the last
        round: the clients' final losses): one row a client, m d flops."""
        d = self.thetas.shape[3]
        torch.gather(self.thetas[t], 1, assign[..., None].expand(*assign.shape, d), out=self.g)  # [R, N, d] models
        for bl in self.blocks:
            # [rb b, 1, m]: theta_{j_i}^T A_i^T, a row a client (3-4x faster than A_i theta_{j_i} as a column here)
            res = torch.baddbmm(bl.y_row, bl.g, bl.a.transpose(1, 2), beta=-self.scale, alpha=self.scale)
            torch.linalg.vecdot(res, res, out=out[bl.span].view(-1, 1))
        return out

    def member_sums(self, t: int) -> torch.Tensor:
        for bl in self.blocks:
            self._residuals(t, bl)
            torch.argmin(bl.losses[t], 1, out=bl.assign[t])
            torch.gather(bl.res4, 1, bl.index[t], out=bl.mine)  # c r_{i, j_i}
            bl.g.baddbmm_(bl.mine3, bl.a, beta=0.0, alpha=self.grad_scale)
        if self.offsets is None:
            rows = self.rows_of[t]
        else:
            rows = torch.add(self.assign[t], self.offsets, out=self.rows.view(self.assign[t].shape)).view(-1)
        self.S.zero_()
        self.S_rows.index_add_(0, rows, self.g_rows)
        return self.S


class _IFCABlock:
    """One block of :class:`IFCAPass`: replicates r0:r1, clients s:e (rb, b of them), its views and buffers."""

    __slots__ = ("span", "per_client", "a_t", "y_row", "a", "rows_t", "y", "models", "res", "res4", "losses",
                 "assign", "index", "mine", "mine3", "g")

    def __init__(self, thetas, losses, assign, g, r0: int, r1: int, s: int, e: int, a, rows_t, y):
        K, m = thetas.shape[2], a.shape[1]
        rb, b = r1 - r0, e - s
        self.span = (slice(r0, r1), slice(s, e))
        self.a, self.rows_t, self.y = a, rows_t, y  # [rb b, m, d], [rb, d, b m], [rb, 1, b m]
        self.y_row = y.view(rb * b, 1, m)
        # one replicate: a product [K, d] x [d, m] a client (its models a view, no copy), 5-15 % faster than one
        # [K, d] x [d, b m] at the reference configuration (m 100, d 1000); several: one product per replicate
        self.per_client = rb == 1
        if self.per_client:
            self.a_t = a.transpose(1, 2)
            self.models = thetas[:, r0:r1].expand(-1, b, K, thetas.shape[3]).unbind(0)
            self.res = thetas.new_empty(b, K, m)
            self.res4 = self.res.view(1, b, K, m).permute(0, 2, 1, 3)
        else:
            self.models = thetas[:, r0:r1].unbind(0)  # [rb, K, d] a round; the views made once
            self.res = thetas.new_empty(rb, K, b * m)
            self.res4 = self.res.view(rb, K, b, m)
        self.losses = losses[:, r0:r1, :, s:e].unbind(0)  # [rb, K, b] a round
        self.assign = assign[:, r0:r1, s:e].unbind(0)
        self.index = assign[:, r0:r1, None, s:e, None].expand(-1, rb, 1, b, m).unbind(0)
        self.mine = thetas.new_empty(rb, 1, b, m)
        self.mine3 = self.mine.view(rb * b, 1, m)
        self.g = g[r0:r1, s:e].view(rb * b, 1, -1)


def planted_clustered_regression(
    generator: torch.Generator,
    R: int,
    n_per_cluster: int,
    K: int,
    d: int,
    m: int,
    separation: float,
    noise: float = 0.0,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
    block: int = 8,
    representation: str = "auto",
) -> ClusteredRegression | RawClusteredRegression:
    """Draw R independent instances: K clusters of ``n_per_cluster`` clients, m samples each, in R^d.

    Data matrices are drawn in blocks of ``block`` replicates and reduced to (H, b, c) at once, so
    memory stays at block * N * m * d numbers; with ``representation="raw"`` (``"auto"``: when 2m < d) the
    samples are kept instead (the same draws).
    """
    for name, v in (("R", R), ("n_per_cluster", n_per_cluster), ("K", K), ("d", d), ("m", m)):
        if int(v) < 1:
            raise InputError(name, f"must be >= 1, got {v}")
    if K > d:
        raise InputError("K", f"planted orthonormal optima need K <= d, got K={K}, d={d}")
    if separation < 0 or noise < 0:
        raise InputError("separation, noise", f"must be >= 0, got {separation}, {noise}")
    rep = _representation(representation, m, d)
    N = K * n_per_cluster
    labels = torch.arange(K, device=device).repeat_interleave(n_per_cluster)
    Q, _ = torch.linalg.qr(randn(R, d, K, generator=generator, dtype=dtype, device=device))
    W = (separation / math.sqrt(2.0)) * Q.transpose(1, 2)  # [R, K, d], pairwise distance = separation
    Hs, bs, cs, As, ys = [], [], [], [], []
    for start in range(0, R, block):  # setup only: blocks of replicates bound the memory
        r = min(block, R - start)
        A = randn(r, N, m, d, generator=generator, dtype=dtype, device=device)
        y = torch.einsum("rnmd,rnd->rnm", A, W[start:start + r, labels])
        if noise > 0:
            y = y + noise * randn(r, N, m, generator=generator, dtype=dtype, device=device)
        if rep == "raw":
            As.append(A), ys.append(y)
            continue
        Hs.append(A.transpose(-1, -2) @ A / m)
        bs.append(torch.einsum("rnmd,rnm->rnd", A, y) / m)
        cs.append((y**2).sum(-1) / (2 * m))
    if rep == "raw":
        return RawClusteredRegression(torch.cat(As), torch.cat(ys), W, tuple(int(v) for v in labels))
    return ClusteredRegression(torch.cat(Hs), torch.cat(bs), torch.cat(cs), W, tuple(int(v) for v in labels))


def paper_synthetic_regression(
    generator: torch.Generator,
    R: int,
    K: int = 4,
    n_per_cluster: int = 75,
    d: int = 10,
    m: int = 9,
    scale: float = 100.0,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
    representation: str = "auto",
) -> ClusteredRegression | RawClusteredRegression:
    """werner2023 section 4.1 (docs/papers/werner2023.md §5.1), with the reference code's unstated choices.

    Cluster k in {0, ..., K-1} has the minimiser x*_k = scale * b_k, b_k uniform in {0, 1}^d; each of its
    clients draws m samples a ~ N(k 1, I_d) (entries with mean k, variance 1) and y = <a, x*_k>, no
    label noise; f_i(x) = ||A_i x - y_i||^2 / (2m). With m < d (the paper's d = 10 > m = 9) every H_i is
    singular: the local problem is underdetermined (the paper says "overdetermined", docs/papers/werner2023.md §7 A14),
    while the cluster average is not. x*_k may coincide for two clusters (probability 2^-d per pair).
    ``representation``: moments or samples (``"auto"``: samples when 2m < d; the paper's m = 9, d = 10
    keeps the moments).
    """
    R, n_per_cluster, K, d, m = (validate.integer(v, name, minimum=1) for name, v in
                                 (("R", R), ("n_per_cluster", n_per_cluster), ("K", K), ("d", d), ("m", m)))
    if validate.real(scale, "scale") <= 0:
        raise InputError("scale", f"must be > 0, got {scale}")
    rep = _representation(representation, m, d)
    N = K * n_per_cluster
    labels = torch.arange(K, device=device).repeat_interleave(n_per_cluster)
    W = scale * torch.randint(0, 2, (R, K, d), generator=generator, device=device).to(dtype)
    A = randn(R, N, m, d, generator=generator, dtype=dtype, device=device) + labels.to(dtype)[None, :, None, None]
    y = torch.einsum("rnmd,rnd->rnm", A, W[:, labels])
    if rep == "raw":
        return RawClusteredRegression(A, y, W, tuple(int(v) for v in labels), name="werner2023 synthetic linear regression")
    H = A.transpose(-1, -2) @ A / m
    b = torch.einsum("rnmd,rnm->rnd", A, y) / m
    c = (y**2).sum(-1) / (2 * m)
    return ClusteredRegression(H, b, c, W, tuple(int(v) for v in labels), name="werner2023 synthetic linear regression")


def regression_constants(problem: ClusteredRegression, D2: float, replicate: int = 0) -> list:
    """L, mu, A^2 and Delta^2(D^2) of one replicate, exact (f_i = 1/2 (x - w_k)^T H_i (x - w_k) + const for
    noise-free data; singular H_i allowed)."""
    import numpy as np

    from analytic.constants.clustering import quadratic_constants

    H = problem.hessians_of(replicate).cpu().numpy()
    x_star = problem.optima()[replicate].cpu().numpy()
    resid = np.abs(np.einsum("nab,nb->na", H, x_star) - problem.b[replicate].cpu().numpy()).max()
    if resid > 1e-9 * max(1.0, float(np.abs(problem.b[replicate].cpu().numpy()).max())):
        raise InputError("problem", "the planted optima are not stationary points of every client (label noise?)")
    return quadratic_constants(H, x_star, np.asarray(problem.true_labels), D2, require_definite=False)


def _regression_arguments(p) -> None:
    from verify.cli_args import int_type

    p.add_argument("--K", type=int_type("--K", 2), default=4, help="clusters (default 4)")
    p.add_argument("--n", type=int_type("--n", 1), default=75, help="clients per cluster (default 75)")
    p.add_argument("--d", type=int_type("--d", 1), default=10, help="dimension (default 10)")
    p.add_argument("--m", type=int_type("--m", 1), default=9, help="samples per client (default 9)")
    p.add_argument("--D2", type=float, default=0.0, help="D^2 of Assumption 5 (default 0, as in the paper's Fig. 2)")
    p.add_argument("--seed", type=int_type("--seed", 0), default=0, help="instance seed (default 0)")


def _register_constants() -> None:
    import math

    from verify.problems.constants_registry import constants_problem

    @constants_problem("synthetic-regression", "werner2023 section 4.1's synthetic linear regression (K clusters of n "
                       "clients, m samples in R^d with mean k, no noise): exact L, mu, A^2, Delta^2", _regression_arguments,
                       size=lambda a: ("--n", a.K * a.n * (a.m * a.d + a.d * a.d)))  # features and Gram matrices
    def synthetic_regression_constants(args) -> list:
        if not (math.isfinite(args.D2) and args.D2 >= 0):
            raise InputError("--D2", f"must be a finite number >= 0, got {args.D2}")
        gen = torch.Generator().manual_seed(args.seed)
        try:
            prob = paper_synthetic_regression(gen, 1, args.K, args.n, args.d, args.m)
        except InputError as exc:
            raise InputError(f"--{exc.param.replace('_', '-')}", exc.message) from None
        return regression_constants(prob, args.D2)


_register_constants()
