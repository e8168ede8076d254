"""CAF, the Covariance-bound Agnostic Filter (allouah2025, Algorithm 2), batched over replicates.

Given x_1..x_n in R^d and 0 <= f < n/2 (and nothing else, no covariance bound):

    c_i <- 1;  mu* <- (1/n) sum_i x_i;  sigma*^2 <- +inf
    while sum_i c_i > n - 2f:
        mu_c    <- sum_i c_i x_i / sum_i c_i
        Sigma_c <- sum_i c_i (x_i - mu_c)(x_i - mu_c)^T / sum_i c_i
        (sigma_c^2, v) <- top eigenpair of Sigma_c
        if sigma_c^2 <= sigma*^2:  mu* <- mu_c, sigma*^2 <- sigma_c^2      (ties replace the incumbent)
        tau_i <- <v, x_i - mu_c>^2
        tau_max <- max_{j : c_j > 0} tau_j          (the paper prints max over all j in [n])
        if tau_max == 0: stop                        (all weighted points coincide along v: sigma_c = 0)
        c_i <- max(0, c_i (1 - tau_i / tau_max))
    return mu*

CAF returns the weighted mean of the iteration whose weighted covariance had the smallest top
eigenvalue, not the last iterate; with f = 0 the loop never runs and CAF is the mean.
Proposition 4.1: ||CAF - xbar_S||^2 <= kappa lambda_max(Cov_S) for every S of size n - f, with
kappa = 6f/(n-f) (1 + f/(n-2f))^2.

**Termination.** Each iteration zeroes the weight of the argmax of tau among the positive-weight
points (1 - tau/tau = 0 exactly in IEEE arithmetic), so at most n - k points keep weight after k
iterations and the loop stops within 2f iterations. That argument needs the max over positive
weights (``max_over="positive"``, the default). The printed line takes the max over all j
(``max_over="all"``, also what ByzFL 0.0.11 does): points already at weight 0 that lie far out keep
tau_max large, the weights of the others barely shrink, and the loop can run for thousands of
iterations (docs/papers/allouah2025.md §2.4, 7.6). That variant runs under an iteration cap and warns with
:class:`CafIterationCapWarning` when a replicate reaches it.

**Top eigenpair.** ``eigen="exact"`` uses a symmetric eigensolver on the d x d weighted covariance
when d <= n, and on the n x n weighted Gram matrix G = W^{1/2} D D^T W^{1/2} / s otherwise (if
G u = lambda u then v is proportional to D^T W^{1/2} u; cost O(n^2 d) instead of O(d^3)). Only the top
pair is used, so from :data:`TOP_PAIR_MIN_DIM` on (CPU, float64) it is computed alone by LAPACK's
dsyevr (one index of the spectrum: a tridiagonal reduction and one eigenvector, without the full
eigendecomposition), 3-5x faster than a full ``eigh`` at m = 64-512, and the loop runs one replicate at a
time in numpy (:func:`_exact_numpy`): 2.6-3.5x the full-``eigh`` filter at n 100-500, d 64-512.
``eigen="power"`` runs ``power_iters`` power steps v <- Sigma v / ||Sigma v|| from a Gaussian start
drawn from an explicit generator, without forming Sigma (O(n d) per step), and takes the Rayleigh
quotient v^T Sigma v of the final vector as the eigenvalue (the paper's experiments used a power
method with an unstated number of steps; its robustness "up to constants" has no proof).

Everything runs in the input's dtype and device, batched over the replicate axis; the loop runs
over filter iterations only (replicates that have stopped are frozen by masks).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from scipy.linalg import blas, lapack

from analytic.errors import require
from verify.aggregators import aggregator
from verify.normal_draws import randn

Eigen = Literal["exact", "power"]
MaxOver = Literal["positive", "all"]
EIGEN_METHODS = ("exact", "power")
MAX_OVER = ("positive", "all")
#: Default iteration cap of the literal variant (max over all j), per replicate.
LITERAL_CAP = 1000


class CafIterationCapWarning(UserWarning):
    """The literal CAF loop (max over all j) reached its iteration cap with sum c > n - 2f."""


@dataclass
class CafTrace:
    """What happened inside the filter, per replicate (R replicates, K = iterations of the longest one).

    ``iterations [R]`` loop iterations run; ``sigma_star2 [R]`` the smallest top eigenvalue seen
    (sigma*^2; +inf when the loop never ran); ``sigma2 [R, K]`` the top eigenvalue of every iteration
    (NaN after a replicate stopped); ``weight_sum [R, K + 1]`` sum_i c_i before each iteration and after
    the last (NaN after stopping); ``means [R, K, d]`` the weighted mean mu_c of every iteration (only
    with ``record_means``); ``weights [R, n]`` the final weights; ``capped [R]`` the loop hit the cap
    with sum c > n - 2f; ``zero_spread [R]`` it stopped because tau_max = 0.
    """

    iterations: torch.Tensor
    sigma_star2: torch.Tensor
    sigma2: torch.Tensor
    weight_sum: torch.Tensor
    weights: torch.Tensor
    capped: torch.Tensor
    zero_spread: torch.Tensor
    means: torch.Tensor | None = None


#: Smallest eigenproblem (m = d for the covariance, m = n for the Gram matrix) whose top pair a CPU float64 exact
#: CAF computes alone with dsyevr, one problem at a time, and whose filter loop runs in numpy (:func:`_exact_numpy`).
#: From there the eigensolve is most of an iteration: measured one thread, top pair of one m x m matrix, dsyevr
#: against ``torch.linalg.eigh``: 0.17 / 0.49 ms at m = 64, 2.7 / 9.5 ms at 256, 12 / 61 ms at 512. Smaller problems
#: (most of allouah2025's toys: m <= 30 in batches of up to 1024 replicates, some at m = 32-57) keep the batched
#: torch loop and its numbers: the loop is discontinuous at exact ties of tau (identical inputs such as ALIE's copies),
#: where a rounding-level change decides whether a copy keeps a weight of 1e-16 and so stays in the max over positive
#: weights; one such instance (n 34, d 157) moved its CAF error by 23 % when the threshold was 32.
TOP_PAIR_MIN_DIM = 64


def _fast_exact(X: torch.Tensor, full_eigh: bool = False) -> bool:
    """Whether the exact eigenproblems of ``X [..., n, d]`` (m = d if d <= n, else n) take the dsyevr path."""
    n, d = X.shape[-2:]
    return not full_eigh and min(n, d) >= TOP_PAIR_MIN_DIM and X.device.type == "cpu" and X.dtype == torch.float64 \
        and not X.requires_grad


def _top_pair(S: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest eigenvalue and a unit eigenvector of the symmetric m x m ``S`` read from its lower triangle (as
    ``torch.linalg.eigh`` reads it), by LAPACK dsyevr with il = iu = m (a tridiagonal reduction and one eigenvector,
    no full eigendecomposition). It is what ``scipy.linalg.eigh(subset_by_index=...)`` calls, without that wrapper's
    argument handling, about 0.1 ms a call: a loop at n 100, d 64 took 3.4 ms through it, 2.4 ms direct. Where
    LAPACK finds no eigenvalue (non-finite entries) ``torch.linalg.eigh`` answers, as the batched path would. Both
    are backward stable: eigenvalues agree to about eps ||S||, eigenvectors to about eps ||S|| / gap (gap: distance
    from the top eigenvalue to the next)."""
    m = S.shape[0]
    # S.T is the Fortran-order view of S; its upper triangle is S's lower one
    w, z, found, _, info = lapack.dsyevr(S.T, compute_v=1, range="I", il=m, iu=m, lower=0)
    if info == 0 and found == 1:
        return float(w[0]), z[:, 0]
    e, V = torch.linalg.eigh(torch.from_numpy(np.ascontiguousarray(S)))
    return float(e[-1]), V[:, -1].numpy()


def _covariance_top_pair(D: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """Top pair of Sigma = sum_i w_i D_i D_i^T for one problem ``D [n, d]``: the lower triangle of B^T B with
    B = W^{1/2} D (BLAS dsyrk, half the products of a full GEMM) goes to :func:`_top_pair`."""
    B = np.sqrt(np.maximum(w, 0.0))[:, None] * D
    # B.T is [d, n] in Fortran order, so dsyrk's A A^T = B^T B reads it without a copy
    return _top_pair(blas.dsyrk(1.0, B.T, lower=1))


def top_symmetric_pair(M: torch.Tensor, full_eigh: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Largest eigenvalue ``[R]`` and a unit eigenvector ``[R, m]`` of each symmetric ``M [R, m, m]``, read from its
    lower triangle: one :func:`_top_pair` per problem from :data:`TOP_PAIR_MIN_DIM` on (CPU float64), else (or with
    ``full_eigh``) one batched ``torch.linalg.eigh``."""
    if not _fast_exact(M, full_eigh):
        lam, vec = torch.linalg.eigh(M)
        return lam[:, -1], vec[:, :, -1]
    return _stacked([_top_pair(S) for S in M.numpy()])


def _stacked(pairs: list[tuple[float, np.ndarray]]) -> tuple[torch.Tensor, torch.Tensor]:
    """``[(lambda, v)]`` of R problems as (``[R]``, ``[R, m]``) float64 tensors."""
    return torch.tensor([p[0] for p in pairs], dtype=torch.float64), torch.from_numpy(np.stack([p[1] for p in pairs]))


def _weighted_matvec(D: torch.Tensor, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Sigma v with Sigma = sum_i w_i D_i D_i^T, without forming Sigma: ``[R, d]``."""
    return torch.einsum("rn,rnd->rd", w * torch.einsum("rnd,rd->rn", D, v), D)


def top_eigenpair(D: torch.Tensor, w: torch.Tensor, eigen: Eigen = "exact", *, power_iters: int = 1,
                  generator: torch.Generator | None = None,
                  full_eigh: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Top eigenvalue ``[R]`` and unit eigenvector ``[R, d]`` of Sigma = sum_i w_i D_i D_i^T.

    ``D [R, n, d]`` are the centred points, ``w [R, n]`` weights summing to 1. ``exact``: the d x d
    covariance (d <= n) or the n x n Gram matrix (d > n), both by ``torch.linalg.eigh``; ``power``:
    ``power_iters`` power steps from a N(0, I_d) start drawn from ``generator``, eigenvalue = Rayleigh
    quotient of the last vector. A zero Sigma gives eigenvalue 0 (the vector is then arbitrary).
    """
    R, n, d = D.shape
    if eigen == "exact":
        if d <= n:
            if _fast_exact(D, full_eigh):
                lam, vec = _stacked([_covariance_top_pair(Dr, wr) for Dr, wr in zip(D.numpy(), w.numpy())])
            else:
                lam, vec = top_symmetric_pair((D * w[..., None]).transpose(1, 2) @ D, full_eigh)
            return lam.clamp_min(0.0), vec
        sq = w.clamp_min(0.0).sqrt()
        B = sq[..., None] * D  # [R, n, d]
        lam, u = top_symmetric_pair(B @ B.transpose(1, 2), full_eigh)
        v = torch.einsum("rnd,rn->rd", B, u)
        norm = torch.linalg.vector_norm(v, dim=-1, keepdim=True)
        return lam.clamp_min(0.0), torch.where(norm > 0, v / torch.where(norm > 0, norm, 1.0), v)
    require(generator is not None, "generator", "the power-method CAF needs an explicit torch.Generator")
    v = randn(R, d, generator=generator, dtype=D.dtype, device=D.device)
    v = v / torch.linalg.vector_norm(v, dim=-1, keepdim=True)
    for _ in range(power_iters):
        u = _weighted_matvec(D, w, v)
        norm = torch.linalg.vector_norm(u, dim=-1, keepdim=True)
        v = torch.where(norm > 0, u / torch.where(norm > 0, norm, 1.0), v)
    lam = (v * _weighted_matvec(D, w, v)).sum(-1)
    return lam.clamp_min(0.0), v


def _validate(X: torch.Tensor, f: int, eigen: str, max_over: str, power_iters: int) -> tuple[int, int, int]:
    require(X.dim() == 3, "X", f"expected [R, N, d], got shape {tuple(X.shape)}")
    R, n, d = X.shape
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    require(2 * f < n, "f", f"CAF needs f < n/2; got f = {f} with n = {n}")
    require(eigen in EIGEN_METHODS, "eigen", f"expected one of {EIGEN_METHODS}, got {eigen!r}")
    require(max_over in MAX_OVER, "max_over", f"expected one of {MAX_OVER}, got {max_over!r}")
    require(isinstance(power_iters, int) and power_iters >= 1, "power_iters", f"must be an integer >= 1, got {power_iters!r}")
    return R, n, d


def _projections(X: torch.Tensor, w: torch.Tensor, eigen: Eigen, power_iters: int, generator,
                 kernel: torch.Tensor | None, full_eigh: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(top eigenvalue sigma_c^2 [R], tau [R, n]) of the weighted covariance at weights ``w`` (summing to 1).

    With a ``kernel`` K = X X^T (exact eigenpairs, d > n) everything stays in R^{n x n}: with D = X - 1 mu^T,
    mu = X^T w, D D^T = K - (K w) 1^T - 1 (K w)^T + (w^T K w) 1 1^T; if u is the top unit eigenvector of
    W^{1/2} D D^T W^{1/2} with eigenvalue lambda, v = D^T W^{1/2} u / sqrt(lambda) and
    tau_i = <v, D_i>^2 = (D D^T W^{1/2} u)_i^2 / lambda. Cost O(n^3) per iteration instead of O(n^2 d). The
    subtractions lose about u max_i K_ii in absolute terms, so a spread below that resolution counts as zero
    (the inputs are centred at their mean first; spreads above about sqrt(8 n u) ~ 1e-7 sqrt(n) of the inputs'
    scale are resolved).
    """
    if kernel is None:
        D = X - (w[:, None, :] @ X)
        lam, v = top_eigenpair(D, w, eigen, power_iters=power_iters, generator=generator, full_eigh=full_eigh)
        return lam, (D @ v[:, :, None])[..., 0] ** 2
    Kw = (kernel @ w[:, :, None])[..., 0]
    DD = kernel - Kw[:, :, None] - Kw[:, None, :] + (w * Kw).sum(1)[:, None, None]
    sq = w.clamp_min(0.0).sqrt()
    lam, u = top_symmetric_pair(sq[:, :, None] * DD * sq[:, None, :], full_eigh)
    # D D^T carries rounding errors of order u max_i K_ii (the subtractions cancel): a top eigenvalue below
    # that level is a zero spread to working precision (all weighted points coincide), and tau = 0 stops the loop
    resolution = 8 * X.shape[1] * torch.finfo(X.dtype).eps * torch.diagonal(kernel, dim1=1, dim2=2).amax(1)
    lam = torch.where(lam > resolution, lam, torch.zeros_like(resolution))
    proj = (DD @ (sq * u)[:, :, None])[..., 0]
    return lam, torch.where(lam[:, None] > 0, proj**2 / torch.where(lam > 0, lam, 1.0)[:, None], torch.zeros_like(proj))


def caf_filter(X: torch.Tensor, f: int, *, eigen: Eigen = "exact", power_iters: int = 1,
               generator: torch.Generator | None = None, max_over: MaxOver = "positive", max_iter: int | None = None,
               record: bool = True, record_means: bool = False,
               full_eigh: bool = False) -> tuple[torch.Tensor, CafTrace | None]:
    """CAF (Algorithm 2) of ``X [R, n, d]`` tolerating ``f`` corrupt inputs: the estimate ``[R, d]`` and its
    trace (``None`` when ``record`` is False, the lean path an aggregator call takes).

    ``max_iter`` caps the loop (default: 2f for ``max_over="positive"``, which the termination argument
    guarantees, and :data:`LITERAL_CAP` for the literal ``max_over="all"``); a replicate that reaches the
    cap with sum c > n - 2f is flagged in ``trace.capped`` and a :class:`CafIterationCapWarning` is issued.
    Exact eigenpairs with d > n run the whole loop on the n x n kernel of the inputs centred at their mean
    (CAF is translation equivariant), so its cost is one O(n^2 d) product plus O(n^3) per iteration. From
    :data:`TOP_PAIR_MIN_DIM` on (CPU float64) the exact loop runs per replicate in numpy with top pairs by
    dsyevr (:func:`_exact_numpy`); ``full_eigh=True`` keeps the batched torch loop with a full ``eigh`` per
    iteration, the path every exact CAF took before (its numbers bitwise).
    """
    R, n, d = _validate(X, f, eigen, max_over, power_iters)
    require(isinstance(full_eigh, bool), "full_eigh", f"must be True or False, got {full_eigh!r}")
    cap = (2 * f if max_over == "positive" else LITERAL_CAP) if max_iter is None else int(max_iter)
    require(cap >= 0, "max_iter", f"must be >= 0, got {max_iter}")
    if f == 0 and not record:  # the loop never runs (sum c = n = n - 2f): the mean
        return X.mean(1), None
    if eigen == "exact" and f > 0 and _fast_exact(X, full_eigh):
        return _exact_numpy(X.numpy(), f, cap, max_over, record, record_means)
    if eigen == "power" and max_over == "all" and not record and f > 0 and cap > 0 and R <= LITERAL_NUMPY_MAX_R \
            and X.device.type == "cpu" and X.dtype == torch.float64 and not X.requires_grad:
        require(generator is not None, "generator", "the power-method CAF needs an explicit torch.Generator")
        return _literal_power_numpy(X.numpy(), f, power_iters, generator, cap), None
    dev, dt = X.device, X.dtype
    floor = n - 2 * f
    kernel, Xc = None, X
    if eigen == "exact" and d > n and f > 0:
        Xc = X - X.mean(1, keepdim=True)
        kernel = Xc @ Xc.transpose(1, 2)
    c = torch.ones(R, n, dtype=dt, device=dev)
    c_sum = c.sum(1, keepdim=True)  # sum_i c_i, once per iteration: the next weights and the stopping test
    w_star = c / n
    s2_star = torch.full((R,), float("inf"), dtype=dt, device=dev)
    active = torch.full((R,), f > 0, dtype=torch.bool, device=dev)
    running = f > 0  # bool(active.any()), known without a look at f > 0
    if record:
        iterations = torch.zeros(R, dtype=torch.long, device=dev)
        zero_spread = torch.zeros(R, dtype=torch.bool, device=dev)
        sigma2, wsum, means = [], [c_sum[:, 0]], []
    for k in range(cap):
        if not running:
            break
        w = c / c_sum
        lam, tau = _projections(Xc, w, eigen, power_iters, generator, kernel, full_eigh)
        better = active & (lam <= s2_star)
        w_star = torch.where(better[:, None], w, w_star)
        s2_star = torch.where(better, lam, s2_star)
        tau_max = (tau * (c > 0) if max_over == "positive" else tau).amax(1, keepdim=True)
        flat = tau_max[:, 0] <= 0
        step = active & ~flat
        c = torch.where(step[:, None], (c * (1.0 - tau / torch.where(flat[:, None], 1.0, tau_max))).clamp_min(0.0), c)
        c_sum = c.sum(1, keepdim=True)
        if record:
            iterations += active.long()
            zero_spread |= active & flat
            sigma2.append(torch.where(active, lam, torch.nan))
            if record_means:
                means.append(torch.where(active[:, None], (w[:, None, :] @ X)[:, 0], torch.nan))
            wsum.append(torch.where(iterations == k + 1, c_sum[:, 0], torch.nan))
        active = step & (c_sum[:, 0] > floor)
        running = bool(active.any())
    if running:
        _warn_capped(max_over, cap, int(active.sum()), R, stacklevel=3)
    mu_star = X.mean(1) if f == 0 else (w_star[:, None, :] @ X)[:, 0]
    if not record:
        return mu_star, None
    empty = torch.empty(R, 0, dtype=dt, device=dev)
    trace = CafTrace(
        iterations=iterations, sigma_star2=s2_star,
        sigma2=torch.stack(sigma2, 1) if sigma2 else empty, weight_sum=torch.stack(wsum, 1),
        weights=c, capped=active, zero_spread=zero_spread,
        means=(torch.stack(means, 1) if means else torch.empty(R, 0, d, dtype=dt, device=dev)) if record_means else None)
    return mu_star, trace


def _warn_capped(max_over: str, cap: int, capped: int, R: int, stacklevel: int) -> None:
    warnings.warn(f"CAF ({max_over}) reached its cap of {cap} iterations with sum c > n - 2f in {capped} of {R} "
                  "replicates; the estimate is the best iterate so far", CafIterationCapWarning, stacklevel=stacklevel)


def _projections_one(x: np.ndarray, mu: np.ndarray, w: np.ndarray,
                     kernel: np.ndarray | None) -> tuple[float, np.ndarray]:
    """:func:`_projections` for one problem ``x [n, d]`` in numpy, eigenpairs by :func:`_top_pair`: (sigma_c^2,
    tau [n]) at weights ``w`` summing to 1 and weighted mean ``mu``, through the n x n ``kernel`` of the centred
    inputs when one is given (``mu`` is then not used)."""
    if kernel is None:
        D = x - mu
        lam, v = _covariance_top_pair(D, w)
        return (0.0 if lam < 0 else lam), (D @ v) ** 2
    Kw = kernel @ w
    DD = kernel - Kw[:, None] - Kw[None, :] + (w * Kw).sum()
    sq = np.sqrt(np.maximum(w, 0.0))
    lam, u = _top_pair(sq[:, None] * DD * sq[None, :])
    resolution = 8 * x.shape[0] * np.finfo(x.dtype).eps * kernel.diagonal().max()
    if not lam > resolution:  # a zero spread to working precision (see _projections)
        return 0.0, np.zeros(x.shape[0])
    return lam, (DD @ (sq * u)) ** 2 / lam


@dataclass
class _Run:
    """One replicate's exact loop (:func:`_exact_one`): sigma_c^2 and mu_c per iteration, sum c before the first
    and after each, the final weights, whether it was still running at the cap or stopped on zero spread, and the
    best iterate (mu*, sigma*^2)."""

    sigma2: list
    means: list
    weight_sum: list
    weights: np.ndarray
    capped: bool
    zero_spread: bool
    mu_star: np.ndarray
    sigma_star2: float


def _exact_one(x: np.ndarray, f: int, cap: int, max_over: MaxOver) -> _Run:
    """Algorithm 2 with exact eigenpairs on one problem ``x [n, d]`` in numpy (the steps of :func:`caf_filter`).
    The weighted mean is mu_c = (sum_i c_i x_i) / sum_i c_i, one rounding after the sum, so equal inputs give their
    common point exactly, sigma_c = 0 and the zero-spread stop; mu* is the mu_c of the best iteration."""
    n, d = x.shape
    xc = x - x.mean(0) if d > n else x  # CAF is translation equivariant; the kernel path needs centred inputs
    kernel = xc @ xc.T if d > n else None
    c, c_sum = np.ones(n), float(n)
    run = _Run(sigma2=[], means=[], weight_sum=[c_sum], weights=c, capped=True, zero_spread=False, mu_star=x.mean(0),
               sigma_star2=math.inf)
    for _ in range(cap):
        w = c / c_sum
        mu = (c @ x) / c_sum
        lam, tau = _projections_one(xc, mu, w, kernel)
        if lam <= run.sigma_star2:
            run.mu_star, run.sigma_star2 = mu, lam
        tau_max = (tau * (c > 0) if max_over == "positive" else tau).max()
        run.sigma2.append(lam)
        run.means.append(mu)
        if tau_max <= 0:
            run.zero_spread, run.capped = True, False
            run.weight_sum.append(c_sum)
            break
        c = np.maximum(c * (1.0 - tau / tau_max), 0.0)
        c_sum = float(c.sum())
        run.weight_sum.append(c_sum)
        if not c_sum > n - 2 * f:
            run.capped = False
            break
    run.weights = c
    return run


def _exact_numpy(X: np.ndarray, f: int, cap: int, max_over: MaxOver, record: bool,
                 record_means: bool) -> tuple[torch.Tensor, CafTrace | None]:
    """:func:`caf_filter` with exact eigenpairs for CPU float64 problems from :data:`TOP_PAIR_MIN_DIM` on (f > 0):
    one replicate at a time in numpy (:func:`_exact_one`; a numpy call costs about 1 us against several for a torch
    call, and per problem the eigensolve dominates), top pairs by dsyevr. It agrees with the batched torch loop to
    rounding, which compounds over the iterations (tests/verify/test_caf.py)."""
    R, n, d = X.shape
    runs = [_exact_one(x, f, cap, max_over) for x in X]
    capped = sum(r.capped for r in runs)
    if capped:
        _warn_capped(max_over, cap, capped, R, stacklevel=4)
    mu_star = torch.from_numpy(np.stack([r.mu_star for r in runs]))
    if not record:
        return mu_star, None
    K = max(len(r.sigma2) for r in runs)

    def padded(rows: list[list], width: int, tail: tuple = ()) -> torch.Tensor:
        out = np.full((R, width, *tail), np.nan)
        for r, row in enumerate(rows):
            if row:
                out[r, :len(row)] = row
        return torch.from_numpy(out)

    trace = CafTrace(
        iterations=torch.tensor([len(r.sigma2) for r in runs], dtype=torch.long),
        sigma_star2=torch.tensor([r.sigma_star2 for r in runs], dtype=torch.float64),
        sigma2=padded([r.sigma2 for r in runs], K), weight_sum=padded([r.weight_sum for r in runs], K + 1),
        weights=torch.from_numpy(np.stack([r.weights for r in runs])),
        capped=torch.tensor([r.capped for r in runs]), zero_spread=torch.tensor([r.zero_spread for r in runs]),
        means=padded([r.means for r in runs], K, (d,)) if record_means else None)
    return mu_star, trace


#: Replicates up to which an aggregator call of the literal power-method CAF (CPU float64) runs its problems one
#: by one in numpy (about 1 us a numpy call against several for a batched torch call); larger batches keep the
#: batched torch loop. Measured one thread, (n, d) = (20, 100): 0.51 / 0.84 / 3.37 ms at R = 1 / 8 / 32 against
#: the torch loop's 3.39 / 3.54 / 3.92 ms; (100, 2000): 1.5 / 11.6 / 98 ms against 3.0 / 51 / 388 ms.
LITERAL_NUMPY_MAX_R = 32


def _literal_power_numpy(X: np.ndarray, f: int, power_iters: int, generator: torch.Generator,
                        cap: int) -> torch.Tensor:
    """The literal loop (power steps, tau_max over all j in [n], the printed line of Algorithm 2) of an aggregator
    call, CPU float64, in numpy, one replicate at a time in lockstep: the steps of :func:`caf_filter` with the same
    start vectors (row r of one ``torch.randn(R, d)`` draw from ``generator`` per iteration) and
    v <- Sigma v / ||Sigma v|| ``power_iters`` times (v kept when Sigma v = 0). With q = D v of the last vector,
    sigma_c^2 = v^T Sigma v = sum_i w_i q_i^2 and tau_i = q_i^2, so the Rayleigh quotient costs no second pass
    over D. Since tau_i <= tau_max and IEEE division is monotone, 1 - tau_i / tau_max >= 0 and the weights stay
    >= 0 without a clamp. The products sum in another order than torch's, so the estimate agrees with the traced
    torch loop to rounding (tests/verify/test_caf_literal.py). Only the literal variant takes this path: the
    repaired loop (max over positive weights) keeps the torch loop, so the power-method estimates of existing
    callers, and the generator state they leave, are unchanged."""
    R, n, d = X.shape
    floor = n - 2 * f
    c = [np.ones(n) for _ in range(R)]
    c_sum = [float(n)] * R
    w_star = [np.full(n, 1.0 / n) for _ in range(R)]
    s2_star = [math.inf] * R
    active = [True] * R
    for _ in range(cap):
        V = randn(R, d, generator=generator, dtype=torch.float64).numpy()
        for r in range(R):
            if not active[r]:
                continue
            x = X[r]
            w = c[r] / c_sum[r]
            D = x - w @ x
            v = V[r] / math.sqrt(V[r] @ V[r])
            for _ in range(power_iters):
                u = (w * (D @ v)) @ D
                norm = math.sqrt(u @ u)
                if norm > 0:
                    v = u / norm
            q = D @ v
            tau = q * q
            lam = max(float(w @ tau), 0.0)
            if lam <= s2_star[r]:
                w_star[r], s2_star[r] = w, lam
            tau_max = tau.max()
            if tau_max <= 0:  # all weighted points coincide along v: sigma_c = 0
                active[r] = False
                continue
            c[r] = c[r] * (1.0 - tau / tau_max)
            c_sum[r] = float(c[r].sum())
            active[r] = c_sum[r] > floor
        if not any(active):
            break
    if any(active):
        _warn_capped("all", cap, sum(active), R, stacklevel=5)
    return torch.from_numpy(np.stack([w_star[r] @ X[r] for r in range(R)]))


@aggregator("caf")
def caf(X: torch.Tensor, f: int, *, eigen: Eigen = "exact", power_iters: int = 1,
        generator: torch.Generator | None = None, max_over: MaxOver = "positive", max_iter: int | None = None) -> torch.Tensor:
    """CAF's estimate ``[R, d]`` (see :func:`caf_filter`; default: exact eigenpairs, max over positive weights)."""
    return caf_filter(X, f, eigen=eigen, power_iters=power_iters, generator=generator, max_over=max_over,
                      max_iter=max_iter, record=False)[0]
