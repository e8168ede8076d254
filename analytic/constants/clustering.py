"""Constants of werner2023's clustering assumptions: A^2 (Assumption 4, eq. (16)), Delta^2 for a
given D^2 (Assumption 5, eq. (17)), and L, mu of Lemma 1 -- exact for quadratics, bounded from one
side for any problem whose gradients were evaluated at some points.

    Assumption 4:  ||grad f_i(x) - grad fbar_i(x)||^2 <= A^2 ||grad fbar_i(x)||^2      for all x,
    Assumption 5:  ||grad f_i(x) - grad f_j(x)||^2 >= Delta^2 - D^2 ||grad f_i(x)||^2   for all x, i !~ j,

with fbar_i the average loss of client i's cluster (main text, eq. (16): all cluster-mates). The best
constants are A^2 = sup_x max_i (ratio (31)) and, for a chosen D^2,
Delta^2(D^2) = inf_x min_{i !~ j} q_ij(x), q_ij(x) = ||grad f_i - grad f_j||^2 + D^2 ||grad f_i||^2.

Quadratics f_i(x) = 1/2 (x - x*_i)^T H_i (x - x*_i):

* A^2: if every client of a cluster has the cluster's optimum x*_k, the ratio (31) is
  ||(H_i - Hbar) u||^2 / ||Hbar u||^2 with u = x - x*_k, so A^2 = max_i of the largest eigenvalue of
  the generalised eigenproblem (H_i - Hbar)^2 v = lambda Hbar^2 v, i.e. sigma_max(Hbar^{-1}(H_i - Hbar))^2
  (computed that way: the same number without squaring Hbar's condition number). If some client's
  optimum differs from the cluster average's minimiser xbar*, then grad fbar(xbar*) = 0 while
  grad f_i(xbar*) != 0: no finite A^2 exists.
* Delta^2(D^2): q_ij is a convex quadratic in x, ||A_ij x - c_ij||^2 with A_ij = [H_i - H_j; D H_i] and
  c_ij = [H_i x*_i - H_j x*_j; D H_i x*_i]; its minimum is a least-squares residual. All ordered pairs
  are solved at once (batched pseudo-inverse) and the minimising pair's QP is solved again with cvxpy
  and Clarabel as an independent certificate.

From gradients at sampled points or along a trajectory (any problem): the largest ratio (31) seen is
a *lower bound* of A^2 (the supremum can only be larger), the smallest q_ij seen an *upper bound* of
Delta^2(D^2) (the infimum can only be smaller).

Theory only: numpy, scipy and cvxpy; no torch.
"""
from __future__ import annotations

import math

import numpy as np

from analytic.constants import Constant
from analytic.errors import require

SYMMETRY_RTOL = 1e-10  # |H - H^T| relative to max |H|: a symmetric matrix saved in float64 passes exactly
SHARED_OPTIMUM_RTOL = 1e-10  # clients "share an optimum" when their optima agree to this relative precision
POINTS_PER_BLOCK = 2**22  # numbers of a pairwise-difference block: bounds the memory of the sampled estimators


# -- validation ------------------------------------------------------------------------------------
def validate_quadratics(H, x_star, labels, *, require_definite: bool = True):
    """(H [N, d, d], x_star [N, d], labels [N]) as float64 / int arrays, or an InputError naming what
    is wrong: shapes, non-finite numbers, non-symmetric or (with ``require_definite``) not positive
    definite Hessians, fewer than two clusters."""
    H = np.asarray(H)
    x_star = np.asarray(x_star)
    labels = np.asarray(labels)
    require(H.ndim == 3 and H.shape[1] == H.shape[2] and H.shape[0] >= 2, "H",
            f"expected a stack of square matrices [N, d, d] with N >= 2, got shape {H.shape}")
    N, d = H.shape[0], H.shape[1]
    require(x_star.shape == (N, d), "x_star", f"expected shape [N, d] = [{N}, {d}], got {x_star.shape}")
    require(labels.shape == (N,), "labels", f"expected shape [N] = [{N}], got {labels.shape}")
    for name, a in (("H", H), ("x_star", x_star), ("labels", labels)):
        require(np.issubdtype(a.dtype, np.number) and not np.issubdtype(a.dtype, np.complexfloating), name,
                f"expected real numbers, got dtype {a.dtype}")
        require(bool(np.all(np.isfinite(a))), name, "contains NaN or infinite values")
    require(bool(np.all(labels == np.round(labels))), "labels", "cluster labels must be integers")
    H = H.astype(np.float64)
    scale = float(np.abs(H).max())
    asym = float(np.abs(H - H.transpose(0, 2, 1)).max())
    require(asym <= SYMMETRY_RTOL * max(scale, np.finfo(float).tiny), "H",
            f"Hessians must be symmetric (largest |H - H^T| = {asym:.3g})")
    H = 0.5 * (H + H.transpose(0, 2, 1))
    lam_min = np.linalg.eigvalsh(H)[:, 0]
    if require_definite:
        worst = int(np.argmin(lam_min))
        require(lam_min[worst] > 0, "H",
                f"Hessians must be positive definite (client {worst} has smallest eigenvalue {lam_min[worst]:.3g})")
    else:
        require(bool(np.all(lam_min >= -1e-12 * scale)), "H", "Hessians must be positive semidefinite")
    labels = labels.astype(np.int64)
    require(np.unique(labels).size >= 2, "labels", "Assumption 5 needs at least two clusters")
    return H, x_star.astype(np.float64), labels


def _clusters(labels: np.ndarray) -> list[np.ndarray]:
    return [np.nonzero(labels == k)[0] for k in np.unique(labels)]


# -- smoothness and strong convexity -----------------------------------------------------------------
def smoothness(H) -> Constant:
    """L = max_i lambda_max(H_i) (Assumption 7), exact."""
    lam = np.linalg.eigvalsh(np.asarray(H, dtype=np.float64))
    return Constant("L", float(lam[:, -1].max()), "exact", "largest eigenvalue of the Hessians H_i (max over clients)")


def strong_convexity(H) -> Constant:
    """mu = min_i lambda_min(H_i) (Lemma 1's strong convexity), exact; 0 when some H_i is singular."""
    lam = np.linalg.eigvalsh(np.asarray(H, dtype=np.float64))
    return Constant("mu", float(max(lam[:, 0].min(), 0.0)), "exact",
                    "smallest eigenvalue of the Hessians H_i (min over clients)")


# -- Assumption 4 ------------------------------------------------------------------------------------
def cluster_optima_spread(H, x_star, labels) -> float:
    """max_i ||grad f_i(xbar*_{k(i)})|| relative to the gradients' scale, xbar*_k a minimiser of fbar_k:
    zero exactly when every client is stationary at its cluster average's minimiser (clients share an
    optimum; with singular H_i the optimum x*_i given may be any of f_i's minimisers)."""
    H, x_star, labels = np.asarray(H, float), np.asarray(x_star, float), np.asarray(labels)
    spread = 0.0
    for idx in _clusters(labels):
        Hbar = H[idx].mean(0)
        xbar = np.linalg.lstsq(Hbar, np.einsum("nab,nb->a", H[idx], x_star[idx]) / idx.size, rcond=None)[0]
        g = np.einsum("nab,nb->na", H[idx], xbar[None] - x_star[idx])
        scale = np.linalg.norm(H[idx], ord=2, axis=(-2, -1)) * np.maximum(np.linalg.norm(x_star[idx], axis=-1), 1.0)
        spread = max(spread, float((np.linalg.norm(g, axis=-1) / scale).max()))
    return spread


def a2_quadratics(H, x_star, labels) -> Constant:
    """A^2 of Assumption 4 for quadratics, exact (``inf`` when clients of a cluster do not share an optimum)."""
    H, x_star, labels = np.asarray(H, float), np.asarray(x_star, float), np.asarray(labels)
    spread = cluster_optima_spread(H, x_star, labels)
    if spread > SHARED_OPTIMUM_RTOL:
        return Constant("A2", math.inf, "exact",
                        f"no finite A^2: clients of one cluster do not share an optimum (relative spread {spread:.3g}), "
                        "so at the cluster average's minimiser grad fbar_i = 0 while grad f_i != 0")
    best, who = 0.0, -1
    for idx in _clusters(labels):
        Hbar = H[idx].mean(0)
        lam = np.linalg.eigvalsh(Hbar)
        require(lam[0] > 1e-12 * lam[-1], "H", "a cluster's average Hessian is singular: ratio (31) is 0/0 along its null space")
        M = np.linalg.solve(Hbar, H[idx] - Hbar)  # Hbar^{-1}(H_i - Hbar), [n, d, d]
        s = np.linalg.norm(M, ord=2, axis=(-2, -1)) ** 2
        j = int(np.argmax(s))
        if s[j] > best:
            best, who = float(s[j]), int(idx[j])
    where = f"attained by client {who}" if who >= 0 else "zero: every client has its cluster's average Hessian"
    return Constant("A2", best, "exact",
                    "sup over x of ratio (31): largest eigenvalue of the generalised eigenproblem "
                    f"(H_i - Hbar)^2 v = lambda Hbar^2 v, max over clients ({where})")


# -- Assumption 5 ------------------------------------------------------------------------------------
PAIRS_PER_BLOCK = 2**14  # ordered pairs solved per batched least-squares call: bounds the memory


def _pair_systems(H, x_star, i, j, D2: float):
    """A [P, 2d, d] and c [P, 2d] of q_ij(x) = ||A x - c||^2 for the ordered pairs (i[p], j[p])."""
    Hxi, Hxj = np.einsum("nab,nb->na", H[i], x_star[i]), np.einsum("nab,nb->na", H[j], x_star[j])
    if D2 == 0:  # the D rows vanish
        return H[i] - H[j], Hxi - Hxj
    D = math.sqrt(D2)
    return np.concatenate([H[i] - H[j], D * H[i]], axis=1), np.concatenate([Hxi - Hxj, D * Hxi], axis=1)


def pair_minima(H, x_star, labels, D2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """min_x q_ij(x) for every ordered pair i !~ j (batched least squares), the pairs [P, 2] and the
    scale ||c_ij||^2 of each residual [P]. Exact up to rounding."""
    require(D2 >= 0 and math.isfinite(D2), "D2", f"must be a finite number >= 0, got {D2}")
    H, x_star, labels = np.asarray(H, float), np.asarray(x_star, float), np.asarray(labels)
    i, j = np.nonzero(labels[:, None] != labels[None, :])
    vals, scales = np.empty(i.size), np.empty(i.size)
    for s in range(0, i.size, PAIRS_PER_BLOCK):  # blocks of pairs bound the memory of the [P, 2d, d] systems
        A, c = _pair_systems(H, x_star, i[s:s + PAIRS_PER_BLOCK], j[s:s + PAIRS_PER_BLOCK], D2)
        r = A @ least_squares(A, c)[..., None]
        r = r[..., 0] - c
        vals[s:s + PAIRS_PER_BLOCK] = (r * r).sum(-1)
        scales[s:s + PAIRS_PER_BLOCK] = (c * c).sum(-1)
    return vals, np.stack([i, j], 1), scales


def least_squares(A: np.ndarray, c: np.ndarray) -> np.ndarray:
    """argmin_x ||A x - c|| for stacks ``A [P, m, d]`` (m >= d), ``c [P, m]``: Householder QR where A has
    full column rank, the SVD pseudo-inverse where it does not (e.g. D^2 = 0 and H_i = H_j)."""
    if A.shape[-2] < A.shape[-1]:
        return np.einsum("pij,pj->pi", np.linalg.pinv(A), c)
    Q, Rt = np.linalg.qr(A)
    diag = np.abs(np.diagonal(Rt, axis1=-2, axis2=-1))
    full = diag.min(-1) > 1e-12 * np.maximum(diag.max(-1), np.finfo(float).tiny)
    x = np.empty(A.shape[:-2] + A.shape[-1:])
    if full.any():
        x[full] = np.linalg.solve(Rt[full], np.einsum("pmi,pm->pi", Q[full], c[full])[..., None])[..., 0]
    if (~full).any():
        x[~full] = np.einsum("pij,pj->pi", np.linalg.pinv(A[~full]), c[~full])
    return x


def _certify(A: np.ndarray, c: np.ndarray) -> float:
    """min_x ||A x - c||^2 solved as a QP by cvxpy with Clarabel."""
    import cvxpy as cp

    x = cp.Variable(A.shape[1])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(A @ x - c)))
    prob.solve(solver=cp.CLARABEL)
    return float(prob.value)


def delta2_quadratics(H, x_star, labels, D2: float, *, certify: bool = True) -> Constant:
    """Delta^2 of Assumption 5 for the given D^2, exact: the smallest least-squares residual over all
    ordered pairs in different clusters; the minimising pair is re-solved by cvxpy/Clarabel."""
    H, x_star, labels = np.asarray(H, float), np.asarray(x_star, float), np.asarray(labels)
    vals, pairs, scales = pair_minima(H, x_star, labels, D2)
    p = int(np.argmin(vals))
    value, scale = float(vals[p]), float(scales[p])
    i, j = (int(v) for v in pairs[p])
    how = (f"inf over x and ordered pairs i !~ j of ||grad f_i - grad f_j||^2 + D^2 ||grad f_i||^2 with D^2 = {D2:g}: "
           f"least squares over {len(vals)} pairs, attained by clients ({i}, {j})")
    if value <= 1e-12 * scale:
        how += f"; zero to rounding (residual {value:.2g} against a scale of {scale:.3g})"
        value = 0.0
    if certify:
        A, c = _pair_systems(H, x_star, np.array([i]), np.array([j]), D2)
        how += f"; cvxpy/Clarabel on that pair's QP: {_certify(A[0], c[0]):.6g}"
    return Constant("Delta2", value, "exact", how)


def gradient_at_optima(H, x_star, labels) -> np.ndarray:
    """g2[i, j] = ||grad f_j(x*_i)||^2 for i !~ j (NaN for i ~ j): the quantity of Lemma 1, eq. (19)."""
    H, x_star, labels = np.asarray(H, float), np.asarray(x_star, float), np.asarray(labels)
    diff = x_star[:, None, :] - x_star[None, :, :]  # x*_i - x*_j
    g = np.einsum("jab,ijb->ija", H, diff)
    g2 = (g * g).sum(-1)
    return np.where(labels[:, None] != labels[None, :], g2, np.nan)


# -- estimates from evaluated gradients (any problem) ---------------------------------------------------
def _cluster_mean(G: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """grad fbar_{k(i)} at each point for each client i: ``G [..., N, d] -> [..., N, d]``."""
    onehot = (labels[:, None] == np.unique(labels)[None, :]).astype(G.dtype)  # [N, K]
    means = np.einsum("...nd,nk->...kd", G, onehot) / onehot.sum(0)[:, None]
    return np.einsum("...kd,nk->...nd", means, onehot)


def intra_ratio(G, labels, eps: float = 1e-12) -> np.ndarray:
    """Ratio (31) ||grad f_i - grad fbar_i||^2 / ||grad fbar_i||^2 at each point, ``G [..., N, d] -> [..., N]``;
    NaN where ||grad fbar_i||^2 <= eps * (mean ||grad f||^2 at that point): near a shared optimum both
    sides vanish and the quotient is rounding noise (docs/papers/werner2023.md §5.1's guard)."""
    G = np.asarray(G, dtype=float)
    labels = np.asarray(labels)
    bar = _cluster_mean(G, labels)
    num = ((G - bar) ** 2).sum(-1)
    den = (bar**2).sum(-1)
    floor = eps * (G**2).sum(-1).mean(-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > floor, num / den, np.nan)


def a2_lower_bound(G, labels, mask=None, eps: float = 1e-12, where: str = "sampled points") -> Constant:
    """The largest ratio (31) over the points and clients of ``G [..., N, d]`` (those with ``mask`` True):
    a lower bound of A^2."""
    r = intra_ratio(G, labels, eps)
    if mask is not None:
        r = np.where(np.asarray(mask, bool), r, np.nan)
    used = int(np.isfinite(r).sum())
    require(used > 0, "G", "no point with a non-vanishing cluster-average gradient to estimate A^2 from")
    return Constant("A2", float(np.nanmax(r)), "lower bound",
                    f"largest ratio (31) over {used} (point, client) pairs at {where}; the supremum over all x "
                    "can only be larger")


def inter_gap(G, labels, D2: float = 0.0, rows=None) -> np.ndarray:
    """q_ij = ||grad f_i - grad f_j||^2 + D^2 ||grad f_i||^2 at each point, ``G [..., N, d] -> [..., N', N]``
    for the clients ``rows`` (default all, N' = N), NaN for i ~ j; exact differences, in blocks of points."""
    G = np.asarray(G, dtype=float)
    labels = np.asarray(labels)
    N, d = G.shape[-2:]
    rows = np.arange(N) if rows is None else np.asarray(rows)
    flat = G.reshape(-1, N, d)
    block = max(1, POINTS_PER_BLOCK // (rows.size * N * d))
    out = np.empty((flat.shape[0], rows.size, N))
    for s in range(0, flat.shape[0], block):  # blocks of points bound the memory of the [p, N', N, d] differences
        g = flat[s:s + block]
        gi = g[:, rows]
        out[s:s + block] = ((gi[:, :, None, :] - g[:, None, :, :]) ** 2).sum(-1) + D2 * (gi**2).sum(-1)[:, :, None]
    out[:, labels[rows][:, None] == labels[None, :]] = np.nan
    return out.reshape(*G.shape[:-2], rows.size, N)


def delta2_upper_bound(G, labels, D2: float = 0.0, row_mask=None, rows=None, where: str = "sampled points") -> Constant:
    """The smallest q_ij over the points and ordered pairs i !~ j of ``G [..., N, d]`` (rows i among
    ``rows``, default all, and with ``row_mask [..., N']`` True): an upper bound of Delta^2(D^2)."""
    require(D2 >= 0 and math.isfinite(D2), "D2", f"must be a finite number >= 0, got {D2}")
    q = inter_gap(G, labels, D2, rows=rows)
    if row_mask is not None:
        q = np.where(np.asarray(row_mask, bool)[..., :, None], q, np.nan)
    return delta2_from_gaps(q, D2, where)


def delta2_from_gaps(q, D2: float, where: str = "sampled points") -> Constant:
    """The upper bound of Delta^2(D^2) given the gaps q_ij already evaluated (:func:`inter_gap`; NaN
    marks pairs not to use)."""
    q = np.asarray(q, dtype=float)
    used = int(np.isfinite(q).sum())
    require(used > 0, "G", "no pair of clients in different clusters to estimate Delta^2 from")
    return Constant("Delta2", float(np.nanmin(q)), "upper bound",
                    f"smallest ||grad f_i - grad f_j||^2 + D^2 ||grad f_i||^2 (D^2 = {D2:g}) over {used} "
                    f"(point, pair) combinations at {where}; the infimum over all x can only be smaller")


def quadratic_constants(H, x_star, labels, D2: float, *, certify: bool = True,
                        require_definite: bool = True) -> list[Constant]:
    """L, mu, A^2 and Delta^2(D^2) of a clustered quadratic problem, each exact, plus D^2 as given
    (``require_definite=False`` admits singular H_i, e.g. a least-squares loss with fewer samples than
    dimensions)."""
    H, x_star, labels = validate_quadratics(H, x_star, labels, require_definite=require_definite)
    require(D2 >= 0 and math.isfinite(D2), "D2", f"must be a finite number >= 0, got {D2}")
    return [smoothness(H), strong_convexity(H), a2_quadratics(H, x_star, labels),
            delta2_quadratics(H, x_star, labels, D2, certify=certify),
            Constant("D2", float(D2), "exact", "chosen (Assumption 5 trades Delta^2 against D^2)")]
