"""Smoothness (L), PL / quadratic-growth / error-bound constants (mu) and convexity, for any cost given
by numpy callables; exact for least squares.

Definitions (dutta2023 Assumptions 1-2, docs/papers/dutta2023.md §3; Karimi, Nutini and Schmidt 2016):

* L: every agent's gradient is L-Lipschitz, ||grad q^i(x) - grad q^i(y)|| <= L ||x - y||
  (equivalently sup_x ||grad^2 q^i(x)||_2 for C^2 costs).
* mu_PL = inf_x ||grad q(x)||^2 / (2 (q(x) - q*)),  mu_QG = inf_x 2 (q(x) - q*) / ||x - x*||^2,
  mu_EB = inf_x ||grad q(x)|| / ||x - x*||; Assumption 2 needs PL and QG with one constant,
  mu = min(mu_PL, mu_QG).

What each number is (:class:`Constant` labels): a supremum estimated from sampled points is a
*lower bound* of the true supremum (L from pairs and from power iteration); an infimum estimated from
sampled points, even refined by local search, is an *upper bound* of the true infimum (mu); the
minimum over the iterates a run actually visited is *exact* for that set (Assumption 2 is stated at
the iterates only). Least squares q^i = ||A^i x - b^i||^2 has every constant in closed form (exact).

Callables, all vectorised over points: ``gap(X [M, d]) -> [M]`` (q(x) - q*, computed without
cancellation where possible), ``grad(X [M, d]) -> [M, d]`` (of the averaged cost), and per agent
``grads_at(P [M, n, d]) -> [M, n, d]`` (agent i at P[:, i]), ``values_at``, ``hessians_at``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from analytic.constants import Constant
from analytic.errors import require

Array = np.ndarray


# -- least squares: exact -----------------------------------------------------------------------------
def least_squares_constants(G: Array, rtol: float = 1e-12) -> dict[str, Constant]:
    """Exact constants of agents q^i(x) = ||A^i x - b^i||^2 from their Gram matrices G [n, d, d] = A^{iT} A^i.

    L = max_i lambda_max(grad^2 q^i) = 2 max_i lambda_max(G_i); with Gbar = (1/n) sum G_i,
    mu_QG = 2 lambda_min(Gbar) (growth to one point; 0 when the minimiser is not unique),
    mu_PL = 2 lambda_min^+(Gbar) (smallest positive eigenvalue: PL to the solution set) and
    mu = min(mu_PL, mu_QG), the constant of Assumption 2 (eq. (5))."""
    G = np.asarray(G, dtype=float)
    require(G.ndim == 3 and G.shape[1] == G.shape[2] and G.shape[0] >= 1, "G", f"expected [n, d, d], got {G.shape}")
    lam_i = np.linalg.eigvalsh(G)
    L = 2.0 * float(lam_i[:, -1].max())
    lam = np.linalg.eigvalsh(G.mean(0))
    tol = rtol * max(float(lam[-1]), np.finfo(float).tiny)
    positive = lam[lam > tol]
    mu_qg = 2.0 * float(lam[0]) if lam[0] > tol else 0.0
    mu_pl = 2.0 * float(positive[0]) if positive.size else 0.0
    conv = "q^i(x) = ||A^i x - b^i||^2 (no 1/2, no 1/l), q^H the mean over the n agents"
    return {
        "L": Constant("L", L, "exact", f"2 max_i lambda_max(A^iT A^i) (eigvalsh; {conv})"),
        "mu_PL": Constant("mu_PL", mu_pl, "exact", "2 lambda_min^+(mean_i A^iT A^i): PL inequality of q^H, eq. (5) left"),
        "mu_QG": Constant("mu_QG", mu_qg, "exact",
                          "2 lambda_min(mean_i A^iT A^i): quadratic growth to the minimiser, eq. (5) right (0: not unique)"),
        "mu": Constant("mu", min(mu_pl, mu_qg), "exact", "min(mu_PL, mu_QG): Assumption 2 with one constant"),
    }


# -- smoothness: sampled ----------------------------------------------------------------------------------
def _unit(rng: np.random.Generator, shape) -> Array:
    v = rng.standard_normal(shape)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def sample_around(centers: Array, rng: np.random.Generator, radii: Array, directions: int) -> Array:
    """Points c + rho (1 + ||c||) v for every center c [C, d], radius rho and ``directions`` random unit v: [C*P*D, d]."""
    centers = np.atleast_2d(np.asarray(centers, dtype=float))
    C, d = centers.shape
    scale = 1.0 + np.linalg.norm(centers, axis=1)
    v = _unit(rng, (C, len(radii), directions, d))
    return (centers[:, None, None] + (scale[:, None, None, None] * np.asarray(radii)[None, :, None, None]) * v).reshape(-1, d)


def lipschitz_from_pairs(grads_at: Callable[[Array], Array], points: Array, rng: np.random.Generator, n_agents: int,
                         steps=(1e-4, 1e-2, 1.0)) -> Constant:
    """max over agents i, points x and steps h of ||grad q^i(x) - grad q^i(x + h v)|| / h, v a random unit vector:
    a lower bound of L (docs/papers/dutta2023.md §3, Assumption 1). The step h is relative to 1 + ||x||."""
    X = np.asarray(points, dtype=float)
    M, d = X.shape
    best, where = 0.0, None
    g0 = grads_at(np.broadcast_to(X[:, None], (M, n_agents, d)))
    for h in steps:
        hh = h * (1.0 + np.linalg.norm(X, axis=1))
        V = _unit(rng, (M, n_agents, d))
        g1 = grads_at(X[:, None] + hh[:, None, None] * V)
        ratio = np.linalg.norm(g1 - g0, axis=-1) / hh[:, None]
        i = np.unravel_index(int(np.nanargmax(ratio)), ratio.shape)
        if ratio[i] > best:
            best, where = float(ratio[i]), (h, int(i[1]))
    return Constant("L_pairs", best, "lower bound",
                    f"max ||grad q^i(x) - grad q^i(y)||/||x - y|| over {M} points x, {len(steps)} steps h (relative), "
                    f"{n_agents} agents (attained at h = {where[0]:g}, agent {where[1]})" if where else "no pairs")


def central_difference_hvp(grads_at: Callable[[Array], Array], h: float = 1e-5) -> Callable[[Array, Array], Array]:
    """Hessian-vector products of every agent, (grad q^i(x + h v_i) - grad q^i(x - h v_i)) / (2h), with h relative to 1 + ||x||."""

    def hvp(X: Array, V: Array) -> Array:
        hh = h * (1.0 + np.linalg.norm(X, axis=-1))[:, None, None]
        return (grads_at(X[:, None] + hh * V) - grads_at(X[:, None] - hh * V)) / (2 * hh)

    return hvp


def hessian_norm_power(hvp: Callable[[Array, Array], Array], points: Array, n_agents: int, rng: np.random.Generator,
                       iters: int = 30) -> Array:
    """||grad^2 q^i(x)||_2 for each point and agent [M, n], by ``iters`` power iterations v <- Hv/||Hv|| from a
    random start (|v^T H v| at the end: a lower bound of the largest |eigenvalue|, docs/papers/dutta2023.md §3)."""
    X = np.asarray(points, dtype=float)
    V = _unit(rng, (X.shape[0], n_agents, X.shape[1]))
    for _ in range(iters):
        W = hvp(X, V)
        nrm = np.linalg.norm(W, axis=-1, keepdims=True)
        V = np.where(nrm > 0, W / np.where(nrm > 0, nrm, 1.0), V)
    return np.abs((hvp(X, V) * V).sum(-1))


def smoothness_estimate(grads_at: Callable[[Array], Array], centers: Array, n_agents: int, rng: np.random.Generator, *,
                        radii=np.logspace(-3, 1, 9), directions: int = 4, steps=(1e-4, 1e-2, 1.0),
                        power_points: int = 16, power_iters: int = 30, hvp=None) -> dict[str, Constant]:
    """L from sampled pairs around ``centers`` (radii relative to 1 + ||c||, docs/papers/dutta2023.md §3) and from Hessian power
    iteration at the centers and ``power_points`` of the sampled points: both are lower bounds of L."""
    pts = sample_around(centers, rng, np.asarray(radii), directions)
    pairs = lipschitz_from_pairs(grads_at, pts, rng, n_agents, steps)
    at = np.vstack([np.atleast_2d(centers), pts[rng.choice(len(pts), size=min(power_points, len(pts)), replace=False)]])
    norms = hessian_norm_power(hvp or central_difference_hvp(grads_at), at, n_agents, rng, power_iters)
    power = Constant("L_power", float(norms.max()), "lower bound",
                     f"max over {len(at)} points and {n_agents} agents of ||grad^2 q^i(x)||_2 by {power_iters} power "
                     f"iterations with {'exact' if hvp else 'central-difference'} Hessian-vector products")
    both = max(pairs.value, power.value)
    return {"L_pairs": pairs, "L_power": power,
            "L_hat": Constant("L_hat", both, "lower bound", "max of the sampled pair ratio and the power-iteration estimate")}


# -- PL, quadratic growth, error bound ------------------------------------------------------------------------
RATIOS = ("mu_PL", "mu_QG", "mu_EB")


def growth_ratios(gap: Callable[[Array], Array], grad: Callable[[Array], Array], X: Array, x_star: Array,
                  gap_floor: float = 0.0) -> dict[str, Array]:
    """The three ratios whose infima are mu_PL, mu_QG and mu_EB at points X [M, d] (NaN where the gap is at
    most ``gap_floor``: round-off would dominate the ratio there)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    e = np.asarray(gap(X), dtype=float)
    g2 = (np.asarray(grad(X), dtype=float) ** 2).sum(-1)
    r2 = ((X - x_star) ** 2).sum(-1)
    ok = (e > gap_floor) & (r2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"mu_PL": np.where(ok, g2 / (2 * e), np.nan), "mu_QG": np.where(ok, 2 * e / r2, np.nan),
                "mu_EB": np.where(ok, np.sqrt(g2 / r2), np.nan)}


def refine_infimum(fn: Callable[[Array], Array], starts: Array, rng: np.random.Generator, *, which: Array | None = None,
                   iters: int = 80, step: Array | float = 0.25, shrink_to: float = 1e-4) -> tuple[Array, Array]:
    """Local minimisation of ``fn`` (vectorised, NaN = not allowed) from each start by a rotated compass search:
    at each iteration try x +- h q_j for a random orthonormal basis q, move to the best improvement (and grow h),
    else halve h; stop when every h is below ``shrink_to`` times its start. ``fn`` may return several objectives
    [M, J]; start k then minimises column ``which[k]``. Returns (values [K], points [K, d]); every value is fn at
    the returned point (no extrapolation)."""
    x = np.array(starts, dtype=float)
    K, d = x.shape

    def f(X, cols):
        v = np.asarray(fn(X), dtype=float)
        return v if v.ndim == 1 else v[np.arange(len(X)), cols]

    cols = np.zeros(K, dtype=int) if which is None else np.asarray(which, dtype=int)
    fx = f(x, cols)
    h0 = np.broadcast_to(np.asarray(step, dtype=float), (K,)).copy()
    h = h0.copy()
    for _ in range(iters):
        Q, _r = np.linalg.qr(rng.standard_normal((d, d)))
        dirs = np.concatenate([Q.T, -Q.T])  # [2d, d]
        cand = x[:, None] + h[:, None, None] * dirs[None]
        fc = f(cand.reshape(-1, d), np.repeat(cols, 2 * d)).reshape(K, 2 * d)
        fc = np.where(np.isfinite(fc), fc, np.inf)
        j = fc.argmin(1)
        better = fc[np.arange(K), j] < fx
        x[better] = cand[better, j[better]]
        fx[better] = fc[better, j[better]]
        h = np.where(better, h * 1.5, h * 0.5)
        if np.all(h < shrink_to * h0):
            break
    return fx, x


def growth_constants(gap: Callable[[Array], Array], grad: Callable[[Array], Array], x_star: Array,
                     rng: np.random.Generator, *, radii=np.logspace(-4, 2, 31), directions: int = 200,
                     extra_points: Array | None = None, refine: int = 20, gap_floor: float = 0.0,
                     refine_iters: int = 80) -> dict[str, Constant]:
    """mu_PL, mu_QG, mu_EB and mu = min(mu_PL, mu_QG) as sampled infima (docs/papers/dutta2023.md §3, Assumption 2): points
    x* + rho (1 + ||x*||) v for every radius and ``directions`` unit v, plus ``extra_points`` (trajectories),
    then a compass search from the ``refine`` worst points of each ratio. Upper bounds of the true infima."""
    x_star = np.asarray(x_star, dtype=float)
    pts = sample_around(x_star[None], rng, np.asarray(radii), directions)
    if extra_points is not None and len(extra_points):
        pts = np.vstack([pts, np.atleast_2d(extra_points)])
    R = growth_ratios(gap, grad, pts, x_star, gap_floor)
    starts, which = [], []
    for j, name in enumerate(RATIOS):
        finite = np.isfinite(R[name])
        require(bool(finite.any()), "gap", "no sampled point has a gap above the round-off floor")
        worst = np.argsort(np.where(finite, R[name], np.inf))[:min(refine, int(finite.sum()))]
        starts.append(pts[worst])
        which += [j] * len(worst)
    starts = np.vstack(starts)
    which = np.asarray(which)
    def all_ratios(X):
        r = growth_ratios(gap, grad, X, x_star, gap_floor)
        return np.stack([r[n] for n in RATIOS], 1)

    vals, _ = refine_infimum(all_ratios, starts, rng, which=which, iters=refine_iters,
                             step=0.25 * np.linalg.norm(starts - x_star, axis=1))
    out: dict[str, Constant] = {}
    n_ok = int(np.isfinite(R["mu_PL"]).sum())
    for j, name in enumerate(RATIOS):
        value = float(min(np.nanmin(R[name]), vals[which == j].min()))
        out[name] = Constant(name, value, "upper bound",
                             f"sampled infimum over {n_ok} points ({len(radii)} radii x {directions} directions"
                             f"{' + trajectory' if extra_points is not None else ''}), refined by compass search from the "
                             f"{int((which == j).sum())} worst; the true infimum is at most this")
    out["mu"] = Constant("mu", min(out["mu_PL"].value, out["mu_QG"].value), "upper bound",
                         "min(mu_PL, mu_QG): Assumption 2 needs both with one constant")
    return out


def trajectory_constant(gap: Callable[[Array], Array], grad: Callable[[Array], Array], points: Array, x_star: Array,
                        gap_floor: float = 0.0) -> Constant:
    """mu_traj = min over visited iterates of ||grad q||^2/(2(q - q*)): exact for that set (Assumption 2 is stated
    at the iterates x_k only)."""
    r = growth_ratios(gap, grad, points, x_star, gap_floor)["mu_PL"]
    require(bool(np.isfinite(r).any()), "points", "no iterate has a gap above the round-off floor")
    return Constant("mu_traj", float(np.nanmin(r)), "exact",
                    f"minimum PL ratio over the {int(np.isfinite(r).sum())} iterates with a gap above round-off")


def growth_violations(gap: Callable[[Array], Array], grad: Callable[[Array], Array], X: Array, x_star: Array, mu: float,
                      rtol: float = 1e-9) -> dict[str, int]:
    """Counts of points where quadratic growth q - q* >= (mu/2)||x - x*||^2 or the error bound
    ||grad q|| >= mu ||x - x*|| fails by more than ``rtol`` (relative), Claim 3."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    e = np.asarray(gap(X), dtype=float)
    gn = np.linalg.norm(np.asarray(grad(X), dtype=float), axis=-1)
    dist = np.linalg.norm(X - x_star, axis=-1)
    qg = e < (mu / 2) * dist**2 * (1 - rtol)
    eb = gn < mu * dist * (1 - rtol)
    return {"qg_violations": int(qg.sum()), "eb_violations": int(eb.sum()), "points": int(len(X))}


# -- convexity -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConvexityProbe:
    midpoint_tests: int
    midpoint_violations: int
    worst_midpoint_excess: float  # max of q(mid) - (q(x) + q(y))/2 relative to the scale
    hessian_points: int
    min_eigenvalue: float  # min over points and agents of lambda_min(grad^2 q^i)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def convexity_probe(values_at: Callable[[Array], Array], hessians_at: Callable[[Array], Array], X: Array, Y: Array,
                    H_points: Array, n_agents: int, *, scale: float, rtol: float = 1e-12) -> ConvexityProbe:
    """Midpoint convexity q^i((x+y)/2) <= (q^i(x) + q^i(y))/2 for pairs (X [M, n, d], Y [M, n, d], one pair per
    agent and test) with tolerance rtol * scale, and lambda_min(grad^2 q^i) at H_points [P, d] (Claim 4)."""
    vx, vy, vm = values_at(X), values_at(Y), values_at((X + Y) / 2)
    excess = (vm - (vx + vy) / 2) / scale
    P = np.asarray(H_points, dtype=float)
    Hs = hessians_at(np.broadcast_to(P[:, None], (len(P), n_agents, P.shape[1])))
    lam = np.linalg.eigvalsh(Hs)[..., 0]
    return ConvexityProbe(int(excess.size), int((excess > rtol).sum()), float(excess.max()), int(lam.size),
                          float(lam.min()))
