"""2f-redundancy (dutta2023 Definition I.1; Gupta and Vaidya, PODC 2020), checked numerically.

Definition. The honest agents H (|H| >= N - f) have 2f-redundancy when every S subset of H with
|S| >= N - 2f has argmin_x sum_{i in S} q^i(x) = argmin_x sum_{i in H} q^i(x) (equality of *sets*).

What the checks use (docs/papers/dutta2023.md §1.3, derived there):

* R1: subsets of size exactly s = N - 2f suffice (a larger subset's sum is an average of size-s sums).
* R2: under 2f-redundancy with |H| > s every honest gradient vanishes at x*_H, so the *stationarity*
  g_max = max_i ||grad q^i(x*_H)|| / max_i ||grad q^i(x_0)|| is a necessary test (0 up to round-off).
* R3: for q^i = phi(||A^i x - b^i||) with phi strictly increasing and realizable labels b^i = A^i x°,
  argmin_S = x° + null(A_S): 2f-redundancy holds iff every size-s subset stacks to the rank of A_H.

The procedure (docs/papers/dutta2023.md §1.4): enumerate all C(|H|, s) subsets when there are at most ``max_enumerate``
(2e4), otherwise sample ``n_sample`` uniformly and add *adversarial* subsets: greedy removal of the
agents whose curvature carries the weakest direction of the remaining sum, and removal of the agents
whose gradients at x*_H pull hardest along a direction (the subsets whose minimiser moves most). For
each subset: (a) x*_H still minimises it (value gap below ``value_rtol`` q^S(x_0)), (b) its minimiser set
is no larger than H's (rank, or lambda_min of the Hessian at x*_H). A sampled check that finds no
failing subset is an *estimate*; a failing subset, once found, is a certificate.

Three entry points: :func:`quadratic_redundancy` (least squares, exact linear algebra per subset),
:func:`realizable_redundancy` (R3, Gram matrices only) and :func:`general_redundancy` (any smooth costs
given as numpy callables; subset minimisers by batched Levenberg-Marquardt steps).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from analytic.errors import require

Array = np.ndarray
MAX_ENUMERATE = 20_000
N_SAMPLE = 20_000


class AgentFunctions(Protocol):
    """Agents' costs at points X [M, d]: values [M, n], gradients [M, n, d], Hessians [M, n, d, d]."""

    def values(self, X: Array) -> Array: ...

    def grads(self, X: Array) -> Array: ...

    def hessians(self, X: Array) -> Array: ...


@dataclass(frozen=True)
class RedundancyReport:
    """The outcome of a 2f-redundancy check and its worst-subset evidence (docs/papers/dutta2023.md §1.4 step 4)."""

    holds: bool
    f: int
    n_total: int
    n_honest: int
    subset_size: int
    total_subsets: int
    checked: int
    sampled: int
    adversarial: int
    method: str  # "exact enumeration" or "sampled + adversarial"
    stationarity: float  # g_max of R2
    gap: float  # max over checked subsets of dist(argmin_S, x*_H) (the epsilon-redundancy gap)
    value_gap: float  # max over checked subsets of (q^S(x*_H) - min q^S) / q^S(x_0)
    min_eig: float  # min over subsets of lambda_min(curvature of S)/|S|, relative to max_i lambda_max
    worst_subset: tuple[int, ...] | None  # 0-based indices into the honest agents
    reason: str
    x_star: Array = field(repr=False, default=None)
    gap_subsets: int = 0  # how many subsets the gap and value gap were computed on (all checked, or the minimised ones)

    @property
    def dropped(self) -> tuple[int, ...]:
        """The honest agents the worst subset leaves out."""
        return tuple(sorted(set(range(self.n_honest)) - set(self.worst_subset or ()))) if self.worst_subset is not None else ()

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "x_star"}
        d["worst_subset"] = list(self.worst_subset) if self.worst_subset is not None else None
        d["dropped"] = list(self.dropped)
        return d


# -- subsets ---------------------------------------------------------------------------------------------
def subset_sizes(n_honest: int, f: int, n_total: int) -> int:
    """s = N - 2f, validated against Definition I.1 (N - 2f >= 1, |H| >= N - f)."""
    require(isinstance(f, (int, np.integer)) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    require(n_total - 2 * f >= 1, "f", f"Definition I.1 needs N - 2f >= 1; got N = {n_total}, f = {f}")
    require(n_total - f <= n_honest <= n_total, "n_total",
            f"need N - f <= |H| <= N; got |H| = {n_honest}, N = {n_total}, f = {f}")
    return n_total - 2 * f


def enumerate_or_sample(n: int, s: int, rng: np.random.Generator, max_enumerate: int = MAX_ENUMERATE,
                        n_sample: int = N_SAMPLE) -> tuple[Array, str, int]:
    """Indicator matrix W [M, n] of the size-s subsets to check, the method, and C(n, s)."""
    total = math.comb(n, s)
    if total <= max_enumerate:
        W = np.ones((total, n))
        for row, out in enumerate(itertools.combinations(range(n), n - s)):
            W[row, list(out)] = 0.0
        return W, "exact enumeration", total
    keep = np.argsort(rng.random((n_sample, n)), axis=1)[:, :s]
    W = np.zeros((n_sample, n))
    np.put_along_axis(W, keep, 1.0, axis=1)
    return W, "sampled + adversarial", total


def adversarial_subsets(curvature: Array, grads: Array, s: int) -> Array:
    """Size-s subsets [K, n] built to break redundancy (docs/papers/dutta2023.md §1.4 step 3):

    * greedy: from H, repeatedly drop the agent with the largest curvature v^T C_i v along the weakest
      eigenvector v of the remaining sum (the subset most likely to lose rank);
    * for each eigenvector u of sum_H C_i and each principal direction of the gradients at x*_H (both
      signs): drop the n - s agents with the largest u^T C_i u, and those with the largest g_i^T u.
    """
    n, d = grads.shape
    drop = n - s
    rows = []
    keep = np.ones(n, dtype=bool)
    for _ in range(drop):
        _, vecs = np.linalg.eigh(curvature[keep].sum(0))
        v = vecs[:, 0]
        load = np.einsum("nij,i,j->n", curvature, v, v)
        load[~keep] = -np.inf
        keep[int(np.argmax(load))] = False
    rows.append(keep.copy())
    _, U = np.linalg.eigh(curvature.sum(0))
    dirs = [U[:, j] for j in range(d)]
    if np.any(grads):
        _, _, Vt = np.linalg.svd(grads, full_matrices=False)
        dirs += [Vt[j] for j in range(min(d, Vt.shape[0]))]
    for u in dirs:
        scores = [np.einsum("nij,i,j->n", curvature, u, u), grads @ u, -(grads @ u)]
        for sc in scores:
            k = np.ones(n, dtype=bool)
            k[np.argsort(-sc, kind="stable")[:drop]] = False
            rows.append(k)
    W = np.unique(np.array(rows, dtype=float), axis=0)
    return W


def _stationarity(g_star: Array, g0: Array) -> float:
    den = float(np.linalg.norm(g0, axis=-1).max())
    return float(np.linalg.norm(g_star, axis=-1).max()) / (den if den > 0 else 1.0)


def _subsets_with_adversarial(n, s, rng, curvature, g_star, max_enumerate, n_sample):
    W, method, total = enumerate_or_sample(n, s, rng, max_enumerate, n_sample)
    n_adv = 0
    if method != "exact enumeration":
        A = adversarial_subsets(curvature, g_star, s)
        n_adv = len(A)
        W = np.vstack([W, A])
    return W, method, total, n_adv


def _relative_min_eig(W: Array, curvature: Array) -> Array:
    """lambda_min(sum_S C_i)/|S| relative to max_i lambda_max(C_i), for every subset row of W."""
    n, d, _ = curvature.shape
    CS = (W @ curvature.reshape(n, d * d)).reshape(-1, d, d)
    scale = float(np.linalg.eigvalsh(curvature)[:, -1].max()) or 1.0
    return np.linalg.eigvalsh(CS)[:, 0] / W.sum(1) / scale


# -- least squares: exact per subset ----------------------------------------------------------------------
def quadratic_redundancy(G: Array, h: Array, c: Array, *, f: int, n_total: int, rng: np.random.Generator,
                         x0: Array | None = None, max_enumerate: int = MAX_ENUMERATE, n_sample: int = N_SAMPLE,
                         rank_rtol: float = 1e-10, value_rtol: float = 1e-10,
                         stationarity_tol: float = 1e-8) -> RedundancyReport:
    """2f-redundancy of honest quadratic agents q^i(x) = x^T G_i x - 2 h_i^T x + c_i (least squares:
    G = A^T A, h = A^T b, c = ||b||^2), G [n, d, d], h [n, d], c [n]. Every checked subset is solved exactly:
    argmin_S = x_S + null(G_S) equals argmin_H iff rank G_S = rank G_H and q^S(x_H) = min q^S, the value gap
    being (x_H - x_S)^T G_S (x_H - x_S) (no cancellation)."""
    G, h, c = (np.asarray(a, dtype=float) for a in (G, h, c))
    n, d, _ = G.shape
    require(h.shape == (n, d) and c.shape == (n,), "h", f"need h [{n}, {d}] and c [{n}], got {h.shape}, {c.shape}")
    s = subset_sizes(n, f, n_total)
    x0 = np.zeros(d) if x0 is None else np.asarray(x0, dtype=float)
    GH, hH = G.sum(0), h.sum(0)
    x_H = np.linalg.lstsq(GH, hH, rcond=None)[0]
    g_star = 2 * (np.einsum("nij,j->ni", G, x_H) - h)
    g0 = 2 * (np.einsum("nij,j->ni", G, x0) - h)
    stat = _stationarity(g_star, g0)
    W, method, total, n_adv = _subsets_with_adversarial(n, s, rng, G, g_star, max_enumerate, n_sample)
    rel_eig = _relative_min_eig(W, G)
    eig_H = np.linalg.eigvalsh(GH)
    rank_H = int((eig_H > rank_rtol * eig_H[-1]).sum())
    GS = (W @ G.reshape(n, d * d)).reshape(-1, d, d)
    hS = W @ h
    eig_S, vec_S = np.linalg.eigh(GS)
    big = eig_S > rank_rtol * eig_S[:, -1:]
    rank_S = big.sum(1)
    inv = np.where(big, 1.0 / np.where(big, eig_S, 1.0), 0.0)  # pseudo-inverse on the numerical range
    x_S = np.einsum("mij,mj,mkj,mk->mi", vec_S, inv, vec_S, hS)
    D = x_H[None] - x_S
    value_gap = np.einsum("mi,mij,mj->m", D, GS, D) / np.maximum(W @ (c - 2 * h @ x0 + np.einsum("nij,i,j->n", G, x0, x0)),
                                                              np.finfo(float).tiny)
    dist = np.linalg.norm(D, axis=1)
    same_rank = rank_S == rank_H
    fail = (~same_rank) | (value_gap > value_rtol)
    holds = bool(stat <= stationarity_tol and not fail.any())
    worst = int(np.argmax(np.where(same_rank, dist, np.inf))) if (~same_rank).any() else int(np.argmax(dist))
    if (~same_rank).any():
        reason = f"{int((~same_rank).sum())} subset(s) lose rank (minimiser not unique)"
    elif fail.any():
        reason = f"{int(fail.sum())} subset(s) have a different minimiser (largest shift {dist.max():.3g})"
    elif stat > stationarity_tol:
        reason = f"honest gradients do not vanish at x*_H (g_max = {stat:.3g})"
    else:
        reason = "every checked subset has the honest minimiser"
    return RedundancyReport(holds, f, n_total, n, s, total, len(W), len(W) - n_adv, n_adv, method, stat,
                            float(dist[same_rank].max()) if same_rank.any() else math.inf, float(value_gap.max()),
                            float(rel_eig.min()), tuple(np.flatnonzero(W[worst]).tolist()), reason, x_H, len(W))


# -- realizable regressions (R3) --------------------------------------------------------------------------------
def realizable_redundancy(G: Array, *, f: int, n_total: int, rng: np.random.Generator,
                          max_enumerate: int = MAX_ENUMERATE, n_sample: int = N_SAMPLE,
                          rank_rtol: float = 1e-10) -> RedundancyReport:
    """R3: agents q^i = phi(||A^i x - b^i||), phi strictly increasing, with realizable labels b^i = A^i x°.
    Then every honest gradient vanishes at x° (stationarity 0), x° minimises every subset, and
    argmin_S = x° + null(A_S): 2f-redundancy holds iff rank(sum_S A^T A) = rank(sum_H A^T A) for every size-s subset."""
    G = np.asarray(G, dtype=float)
    n, d, _ = G.shape
    s = subset_sizes(n, f, n_total)
    W, method, total, n_adv = _subsets_with_adversarial(n, s, rng, G, np.zeros((n, d)), max_enumerate, n_sample)
    rel_eig = _relative_min_eig(W, G)
    eig_H = np.linalg.eigvalsh(G.sum(0))
    rank_H = int((eig_H > rank_rtol * eig_H[-1]).sum())
    GS = (W @ G.reshape(n, d * d)).reshape(-1, d, d)
    eig_S = np.linalg.eigvalsh(GS)
    rank_S = (eig_S > rank_rtol * eig_S[:, -1:]).sum(1)
    bad = rank_S != rank_H
    worst = int(np.argmin(rel_eig))
    reason = (f"{int(bad.sum())} subset(s) stack to rank < {rank_H}: their minimiser set is larger" if bad.any()
              else f"every checked subset stacks to rank {rank_H} (= rank of the honest stack)")
    return RedundancyReport(not bool(bad.any()), f, n_total, n, s, total, len(W), len(W) - n_adv, n_adv, method, 0.0,
                            math.inf if bad.any() else 0.0, 0.0, float(rel_eig.min()),
                            tuple(np.flatnonzero(W[worst]).tolist()), reason, None, len(W))


# -- any smooth costs ------------------------------------------------------------------------------------------
def minimise_sum(agents: AgentFunctions, W: Array, X0: Array, *, iters: int = 200, gtol: float = 1e-12,
                 chunk: int = 256) -> tuple[Array, Array, Array]:
    """Minimise F_m(x) = sum_i W[m, i] q^i(x) for every row m from X0 [M, d] by Levenberg-Marquardt steps
    x <- x - (grad^2 F + lam I)^{-1} grad F, batched over rows: a step that lowers F is taken and lam shrinks
    (Newton's quadratic convergence near a minimiser), otherwise lam grows (a shorter, more gradient-like step);
    lam also shifts a Hessian that is not positive definite. Returns (X [M, d], F [M], converged [M]);
    converged means ||grad F_m|| <= gtol ||grad F_m(X0)|| (or is at round-off relative to F_m)."""
    W = np.atleast_2d(np.asarray(W, dtype=float))
    X = np.array(np.broadcast_to(X0, (W.shape[0], np.shape(X0)[-1])), dtype=float)
    outs = [_levenberg_marquardt(agents, W[i:i + chunk], X[i:i + chunk], iters, gtol) for i in range(0, len(W), chunk)]
    return tuple(np.concatenate(parts) for parts in zip(*outs))  # type: ignore[return-value]


def _levenberg_marquardt(agents, W, X, iters, gtol):
    M, d = X.shape
    F = (W * agents.values(X)).sum(1)
    g = np.einsum("mn,mnd->md", W, agents.grads(X))
    lam = np.full(M, np.nan)
    stalled = np.zeros(M, dtype=bool)
    for it in range(iters):
        Hs = np.einsum("mn,mnij->mij", W, agents.hessians(X))
        eig = np.linalg.eigvalsh(Hs)
        scale = np.maximum(np.abs(eig[:, -1]), np.finfo(float).tiny)
        if it == 0:  # relative to the start, but never below ~1e6 x the round-off of a gradient evaluation
            tol = np.maximum(gtol * np.linalg.norm(g, axis=1), 1e-10 * scale * (1 + np.linalg.norm(X, axis=1)))
        done = (np.linalg.norm(g, axis=1) <= tol) | stalled
        if done.all():
            break
        lam = np.where(np.isnan(lam), 1e-6 * scale, lam)
        step = np.linalg.solve(Hs + (lam + np.maximum(0.0, -eig[:, 0]))[:, None, None] * np.eye(d), g[..., None])[..., 0]
        Xt = X - np.where(done, 0.0, 1.0)[:, None] * step
        Ft = (W * agents.values(Xt)).sum(1)
        ok = (Ft <= F) & ~done
        X = np.where(ok[:, None], Xt, X)
        F = np.where(ok, Ft, F)
        lam = np.where(ok, lam / 3, lam * 4)
        stalled |= lam > 1e16 * scale  # no decrease left to find: F is flat to round-off here
        g = np.einsum("mn,mnd->md", W, agents.grads(X))
    return X, F, np.linalg.norm(g, axis=1) <= np.maximum(tol, 1e3 * gtol * np.abs(F))


def general_redundancy(agents: AgentFunctions, *, f: int, n_total: int, rng: np.random.Generator, x_star: Array | None = None,
                       x0: Array | None = None, starts: int = 10, n_minimise: int = 64, random_starts: int = 3,
                       start_scale: float = 1.0, max_enumerate: int = MAX_ENUMERATE, n_sample: int = N_SAMPLE,
                       eig_rtol: float = 1e-10, value_rtol: float = 1e-10,
                       stationarity_tol: float = 1e-8) -> RedundancyReport:
    """The procedure of docs/papers/dutta2023.md §1.4 for smooth costs given as callables (``agents``: the honest agents).

    1. x*_H: ``x_star`` if known by construction (then ||grad q^H(x°)|| <= 1e-10 max(1, ||grad q^H(x_0)||) is
       required), else Levenberg-Marquardt from ``starts`` random points, which must agree to 1e-6 (1 + ||x||).
    2. Stationarity g_max (R2).
    3. Uniqueness on every enumerated / sampled / adversarial subset: lambda_min(sum_S grad^2 q^i(x*_H))/|S|
       >= eig_rtol * max_i lambda_max.
    4. Minimisers of ``n_minimise`` subsets, half the least curved at x*_H (where the minimiser can move most;
       the adversarial ones compete for these places) and half uniform, from x*_H and ``random_starts`` random
       points: value gap and distance of the best minimiser to x*_H.
    """
    if x0 is None:
        require(x_star is not None, "x0", "give x0 (the initial model) or x_star")
        x0 = np.zeros_like(np.asarray(x_star, dtype=float))
    x0 = np.asarray(x0, dtype=float)
    d = x0.size
    n = agents.values(x0[None]).shape[1]
    s = subset_sizes(n, f, n_total)
    ones = np.ones((1, n))
    g0 = agents.grads(x0[None])[0]
    if x_star is None:
        X0 = x0 + start_scale * (1 + np.linalg.norm(x0)) * rng.standard_normal((starts, d))
        Xs, Fs, conv = minimise_sum(agents, np.repeat(ones, starts, 0), X0)
        best = int(np.argmin(Fs))
        x_H = Xs[best]
        spread = float(np.linalg.norm(Xs[conv] - x_H, axis=1).max()) if conv.any() else math.inf
        unique_H = bool(conv.all() and spread <= 1e-6 * (1 + np.linalg.norm(x_H)))
    else:
        x_H = np.asarray(x_star, dtype=float)
        gH = np.linalg.norm(agents.grads(x_H[None])[0].mean(0))
        unique_H = bool(gH <= 1e-10 * max(1.0, float(np.linalg.norm(g0.mean(0)))))
    g_star = agents.grads(x_H[None])[0]
    stat = _stationarity(g_star, g0)
    Hs = agents.hessians(x_H[None])[0]
    W, method, total, n_adv = _subsets_with_adversarial(n, s, rng, Hs, g_star, max_enumerate, n_sample)
    rel_eig = _relative_min_eig(W, Hs)
    unique = rel_eig >= eig_rtol
    # step 4 on the subsets most at risk: the least curved first (adversarial ones included), then random ones
    order = list(np.argsort(rel_eig, kind="stable")[: n_minimise // 2])
    order += list(rng.choice(len(W), size=min(n_minimise, len(W)), replace=False))
    pick = np.array(list(dict.fromkeys(int(i) for i in order))[:n_minimise])
    Wm = W[pick]
    starts_m = [np.broadcast_to(x_H, (len(pick), d))]
    for _ in range(random_starts):
        starts_m.append(x_H + (1 + np.linalg.norm(x_H)) * rng.standard_normal((len(pick), d)))
    sols = [minimise_sum(agents, Wm, S0) for S0 in starts_m]
    F_all = np.stack([sl[1] for sl in sols])  # [starts, K]
    best = F_all.argmin(0)
    X_best = np.stack([sl[0] for sl in sols])[best, np.arange(len(pick))]
    F_H = (Wm * agents.values(x_H[None])).sum(1)
    F_0 = (Wm * agents.values(x0[None])).sum(1)
    value_gap = np.maximum(F_H - F_all.min(0), 0.0) / np.maximum(np.abs(F_0), np.finfo(float).tiny)
    dist = np.linalg.norm(X_best - x_H, axis=1)
    fail_value = value_gap > value_rtol
    holds = bool(unique_H and stat <= stationarity_tol and unique.all() and not fail_value.any())
    worst_local = int(np.argmax(dist))
    worst = pick[worst_local] if not (~unique).any() else int(np.argmin(rel_eig))
    if not unique_H:
        reason = "the honest minimiser is not unique (or not found)"
    elif stat > stationarity_tol:
        reason = f"honest gradients do not vanish at x*_H (g_max = {stat:.3g}): the agents share no minimiser"
    elif (~unique).any():
        reason = f"{int((~unique).sum())} subset(s) have a singular Hessian at x*_H (minimiser not unique)"
    elif fail_value.any():
        reason = f"{int(fail_value.sum())} subset(s) have a lower minimum away from x*_H"
    else:
        reason = "every checked subset has the honest minimiser"
    return RedundancyReport(holds, f, n_total, n, s, total, len(W), len(W) - n_adv, n_adv, method, stat,
                            float(dist.max()), float(value_gap.max()), float(rel_eig.min()),
                            tuple(np.flatnonzero(W[worst]).tolist()), reason, x_H, len(pick))
