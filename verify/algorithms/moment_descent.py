"""su2022 Phase 1: federated moment descent (FedMD), batched over replicates and anchors.

Listing "Phase 1" of the paper (line numbers as in docs/papers/su2022.md §2.3). Every anchor i in H keeps theta_{i,t}
(all start at the same theta_0). Iteration t:

* line 9-11: m fresh clients S_t with two points each give, for every anchor,
  Y_{i,t} = (1/m) sum_{i' in S_t} eps(x_{i'1}, y_{i'1}, theta_{i,t}) eps(x_{i'2}, y_{i'2}, theta_{i,t})^T
  with eps(x, y, theta) = (y - <x, theta>) x, and U_{i,t} = its top-k left singular subspace by
  orthogonal iteration (Algorithm 3: T1 half-steps = T1/2 iterations on Y Y^T; Y is formed once,
  which is the same arithmetic as FOI's client messages -- check su2022.c04 -- and cheaper);
* line 13: the anchor draws 2 ell fresh points and forms (eq. (2))
  A_{i,t} = (1/ell) sum_j (U^T eps(x_j, y_j, theta)) (U^T eps(x~_j, y~_j, theta))^T  (k x k),
  runs power iteration on A A^T for T2 steps: beta_hat (leading left singular vector) and
  sigma_hat^2 = max(beta_hat^T A beta_hat, 0) (E3; option ``sigma_rule="norm"``: ||A^T beta_hat||);
* the sign of beta_hat, which the paper leaves open (E1): ``first_moment`` orients it along
  m_bar = (1/(2 ell)) sum U^T eps over the anchor's fresh points (E m_bar = U^T Sigma_z (theta* - theta));
  ``none`` keeps power iteration's arbitrary sign; ``oracle`` uses the true U^T Sigma_z (theta* - theta);
* lines 14-18: if sigma_hat > eps Delta: theta <- theta + (alpha sigma_hat / (2 beta^2)) U beta_hat;
  else the anchor stops -- for good with ``freeze=True`` (the proof's theta_T = theta_{t*}, E6), or
  only this iteration with ``freeze=False`` (the listing's re-test);
* line 22: anchors closer than Delta/2 are grouped (connected components, E22); theta_hat_j is the
  mean of group j; Phase 1 fails when the number of groups is not k.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import torch

from analytic.errors import InputError, require
from verify.algorithms.orthogonal_iteration import orthogonal_iteration, random_orthonormal
from verify.normal_draws import randn
from verify.problems.mixed_regression import MixtureModel
from verify.workspace import workspace as _workspace

SIGN_RULES = ("first_moment", "none", "oracle")
SIGMA_RULES = ("rayleigh", "norm", "eigen")
_BLOCK_ELEMENTS = 1 << 22  # bound on the temporary tensor of one block of clients in residual_moment


@dataclass(frozen=True)
class FedMDConfig:
    """Phase-1 hyperparameters (docs/papers/su2022.md §2.6 defaults: d=10, k=3, sigma=0.1)."""

    m: int = 20000
    ell: int = 150
    T: int = 8
    T1: int = 60
    T2: int = 30
    eps: float = 0.1
    sign_rule: str = "first_moment"
    freeze: bool = True
    sigma_rule: str = "rayleigh"

    def __post_init__(self) -> None:
        for name in ("m", "ell", "T", "T2"):
            require(getattr(self, name) >= 1, name, f"must be >= 1, got {getattr(self, name)}")
        require(self.T1 >= 2 and self.T1 % 2 == 0, "T1", f"Algorithm 3 needs an even T1 >= 2, got {self.T1}")
        require(0 < self.eps < 0.25, "eps", f"Theorem 1 needs eps in (0, 1/4), got {self.eps}")
        require(self.sign_rule in SIGN_RULES, "sign_rule", f"expected one of {SIGN_RULES}, got {self.sign_rule!r}")
        require(self.sigma_rule in SIGMA_RULES, "sigma_rule", f"expected one of {SIGMA_RULES}, got {self.sigma_rule!r}")


@dataclass
class FedMDTrace:
    """What one batched Phase-1 run records.

    ``theta [T+1, R, H, d]`` anchor iterates; ``sigma_hat, moved [T, R, H]`` (sigma_hat NaN once frozen); ``residual [T+1, R, H]``
    g_t = ||Sigma_z (theta*_z - theta_t)||; ``proj_residual [T, R, H, k]``
    ||(I - U U^T) Sigma_j (theta*_j - theta_t)||^2 for every cluster j; ``t_stop [R, H]`` the
    iteration at which the anchor stopped (T if it never did); ``anchor_labels [R, H]``.
    Final outputs: ``estimates [R, k, d]`` (NaN where the grouping failed), ``n_groups [R]``,
    ``distance [R]`` = d(theta_hat, theta*) (inf where #groups != k), ``anchor_error [R, H]``.
    """

    theta: torch.Tensor
    sigma_hat: torch.Tensor
    moved: torch.Tensor
    residual: torch.Tensor
    proj_residual: torch.Tensor
    t_stop: torch.Tensor
    anchor_labels: torch.Tensor
    estimates: torch.Tensor
    n_groups: torch.Tensor
    distance: torch.Tensor
    anchor_error: torch.Tensor


# -- the moments ------------------------------------------------------------------------------------
def residual_moment(X1: torch.Tensor, y1: torch.Tensor, X2: torch.Tensor, y2: torch.Tensor,
                    theta: torch.Tensor) -> torch.Tensor:
    """Y [R, H, d, d] = (1/m) sum_i eps(x_i1, y_i1, theta_h) eps(x_i2, y_i2, theta_h)^T for every
    anchor model ``theta [R, H, d]`` from pairs ``X1, X2 [R, m, d]``, ``y1, y2 [R, m]``.

    With w_ih = r_i1(theta_h) r_i2(theta_h): for few anchors (H < d), Y = (X1 * w_h)^T X2 as one
    product [H d, m] x [m, d] per replicate; for many, Y_h = w_h^T (x_i1 kron x_i2) as [H, m] x [m, d^2].
    Both run over blocks of clients that bound the temporary memory.
    """
    R, m, d = X1.shape
    H = theta.shape[1]
    X1, X2 = (_contiguous(X, f"residual_moment/x{i}") for i, X in ((1, X1), (2, X2)))  # strided operands slow bmm 2-3x
    thT = theta.transpose(1, 2).contiguous()
    r1, r2 = (torch.bmm(X, thT, out=_workspace(f"residual_moment/r{i}", (R, m, H), X)) for i, X in ((1, X1), (2, X2)))
    w = r1.neg_().add_(y1[..., None]).mul_(r2.neg_().add_(y2[..., None]))  # r_i1 r_i2 = (y_i1 - <x_i1, theta_h>)(...)
    few = H < d
    per_client = H * d if few else d * d
    block = max(1, _BLOCK_ELEMENTS // (R * per_client))
    Y = torch.zeros(R, H * d if few else H, d if few else d * d, dtype=X1.dtype, device=X1.device)
    BLOCK = "residual_moment/block"
    for s in range(0, m, block):
        x1, x2, wb = X1[:, s:s + block], X2[:, s:s + block], w[:, s:s + block]
        nb = x1.shape[1]
        if few:
            prod = torch.mul(wb[..., None], x1[:, :, None, :], out=_workspace(BLOCK, (R, nb, H, d), X1))
            Y += prod.view(R, nb, H * d).transpose(1, 2) @ x2
        else:
            prod = torch.mul(x1[..., :, None], x2[..., None, :], out=_workspace(BLOCK, (R, nb, d, d), X1))
            Y += wb.transpose(1, 2) @ prod.view(R, nb, d * d)
    return (Y / m).reshape(R, H, d, d)


def _contiguous(X: torch.Tensor, name: str) -> torch.Tensor:
    """``X`` itself when contiguous, else its copy in the workspace ``name``."""
    return X if X.is_contiguous() else _workspace(name, tuple(X.shape), X).copy_(X)


def expected_moment(model: MixtureModel, theta: torch.Tensor) -> torch.Tensor:
    """E[Y | theta] = sum_j p_j Sigma_j (theta*_j - theta)(theta*_j - theta)^T Sigma_j, ``[R, H, d, d]`` (rank <= k)."""
    u = cluster_residuals(model, theta)  # [R, H, k, d]
    return torch.einsum("rk,rhkd,rhke->rhde", model.p, u, u)


def cluster_residuals(model: MixtureModel, theta: torch.Tensor) -> torch.Tensor:
    """Sigma_j (theta*_j - theta_h) for every anchor and cluster, ``[R, H, k, d]``."""
    return model.cov[:, None] * (model.theta[:, None] - theta[:, :, None])


def power_iteration(A: torch.Tensor, v0: torch.Tensor, steps: int, sigma_rule: str = "rayleigh"):
    """Power iteration on A A^T for ``A [..., k, k]`` from ``v0 [..., k]``: (beta_hat, sigma_hat^2).

    beta_hat approximates the leading left singular vector of A (sign arbitrary); sigma_hat^2
    approximates its leading singular value, in the units of ||Sigma e||^2 (E3):
    max(beta_hat^T A beta_hat, 0) (``rayleigh``, proof-consistent) or ||A^T beta_hat|| (``norm``); ``eigen`` is the
    literal reading of "power-iteration(A A^T)": the leading eigenvalue of A A^T, ||A^T beta_hat||^2 ~ ||Sigma e||^4 (a
    units error no reading of the proof supports; su2022.x11 runs it).
    """
    AAt = A @ A.transpose(-1, -2)
    v = v0 / torch.linalg.vector_norm(v0, dim=-1, keepdim=True)
    for _ in range(steps):
        v = (AAt @ v[..., None])[..., 0]
        v = v / torch.linalg.vector_norm(v, dim=-1, keepdim=True).clamp(min=torch.finfo(v.dtype).tiny)
    if sigma_rule == "rayleigh":
        s2 = ((v[..., None, :] @ A @ v[..., :, None])[..., 0, 0]).clamp(min=0)
    elif sigma_rule == "norm":
        s2 = torch.linalg.vector_norm((A.transpose(-1, -2) @ v[..., None])[..., 0], dim=-1)
    else:
        s2 = torch.linalg.vector_norm((A.transpose(-1, -2) @ v[..., None])[..., 0], dim=-1) ** 2
    return v, s2


def anchor_update(model: MixtureModel, theta: torch.Tensor, anchor_labels: torch.Tensor, U: torch.Tensor,
                  cfg: FedMDConfig, generator: torch.Generator, fresh=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Line 13 for every anchor: from 2 ell fresh points (or ``fresh = (X, y)``, ``[R, H, 2 ell, d]``),
    A_{i,t} of eq. (2), power iteration on A A^T, the sign rule; returns the unit direction
    r = U beta_hat ``[R, H, d]`` and sigma_hat ``[R, H]``."""
    R, H = anchor_labels.shape
    Xa, ya = fresh if fresh is not None else model.points(anchor_labels, 2 * cfg.ell, generator)[:2]
    ell = Xa.shape[2] // 2
    eps_vec = (ya - (Xa @ theta[..., None])[..., 0])[..., None] * Xa
    pe = eps_vec @ U  # [R, H, 2 ell, k]: U^T eps
    A = pe[:, :, :ell].transpose(-1, -2) @ pe[:, :, ell:] / ell
    v0 = randn(R, H, U.shape[-1], generator=generator, dtype=theta.dtype, device=theta.device)
    b_hat, s2 = power_iteration(A, v0, cfg.T2, cfg.sigma_rule)
    b_hat = b_hat * _orientation(cfg.sign_rule, b_hat, pe, U, model, theta, anchor_labels)[..., None]
    return (U @ b_hat[..., None])[..., 0], s2.sqrt()


def nested_residual_moments(X1: torch.Tensor, y1: torch.Tensor, X2: torch.Tensor, y2: torch.Tensor,
                            theta: torch.Tensor, ms) -> torch.Tensor:
    """Y of :func:`residual_moment` from the first m clients of one pool, for every m in the increasing
    ``ms`` at once (common random numbers across m: the pool of m is a prefix of the pool of m' > m);
    ``[len(ms), R, H, d, d]``."""
    ms = [int(v) for v in ms]
    require(all(a < b for a, b in zip(ms, ms[1:])) and ms[0] >= 1 and ms[-1] <= X1.shape[1], "ms",
            f"need increasing pool sizes within 1..{X1.shape[1]}, got {ms}")
    out, total, start = [], 0, 0
    for m in ms:
        total = total + residual_moment(X1[:, start:m], y1[:, start:m], X2[:, start:m], y2[:, start:m], theta) * (m - start)
        out.append(total / m)
        start = m
    return torch.stack(out)


# -- the algorithm ----------------------------------------------------------------------------------
def fedmd(model: MixtureModel, theta0: torch.Tensor, anchor_labels: torch.Tensor, cfg: FedMDConfig,
          generator: torch.Generator) -> FedMDTrace:
    """Run Phase 1 for every replicate and anchor at once.

    ``theta0 [R, d]`` (the same start for all anchors of a replicate, line 5) or ``[R, H, d]``;
    ``anchor_labels [R, H]`` the hidden labels of the anchors H (the PS does not see them; they
    decide which cluster the anchors' fresh points come from). alpha, beta and Delta are the
    model's exact values (inputs of the listing).
    """
    R, H = anchor_labels.shape
    k, d = model.k, model.d
    theta = theta0[:, None, :].expand(R, H, d).clone() if theta0.dim() == 2 else theta0.clone()
    require(tuple(theta.shape) == (R, H, d), "theta0", f"expected [R, d] or [R, H, d] with R={R}, H={H}, d={d}")
    alpha, beta, Delta = model.alpha[:, None], model.beta[:, None], model.Delta[:, None]
    stopped = torch.zeros(R, H, dtype=torch.bool, device=theta.device)
    t_stop = torch.full((R, H), cfg.T, dtype=torch.long, device=theta.device)
    thetas, sig, moved_all, proj = [theta.clone()], [], [], []
    for t in range(cfg.T):
        active = ~stopped if cfg.freeze else torch.ones_like(stopped)
        if not bool(active.any()):  # every anchor froze: the rest of the run changes nothing
            thetas.append(theta.clone())
            sig.append(torch.full((R, H), math.nan, dtype=theta.dtype, device=theta.device))
            moved_all.append(torch.zeros_like(stopped))
            proj.append(torch.full((R, H, k), math.nan, dtype=theta.dtype, device=theta.device))
            continue
        z = model.labels(cfg.m, generator)
        X, y, _ = model.points(z, 2, generator)  # [R, m, 2, d]: two points per fresh client
        Y = residual_moment(X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta)
        U = orthogonal_iteration(Y, random_orthonormal((R, H), d, k, generator, theta.dtype), cfg.T1 // 2)
        direction, s_hat = anchor_update(model, theta, anchor_labels, U, cfg, generator)
        move = active & (s_hat > cfg.eps * Delta)
        step = (alpha * s_hat / (2 * beta**2)) * move.to(theta.dtype)
        res = cluster_residuals(model, theta)
        proj.append(((res - (res @ U) @ U.transpose(-1, -2)) ** 2).sum(-1))
        theta = theta + step[..., None] * direction
        newly = active & ~move
        t_stop = torch.where(newly & (t_stop == cfg.T), torch.full_like(t_stop, t), t_stop)
        if cfg.freeze:
            stopped = stopped | newly
        thetas.append(theta.clone()), sig.append(torch.where(active, s_hat, torch.full_like(s_hat, math.nan)))
        moved_all.append(move)
    traj = torch.stack(thetas)
    own = torch.gather(model.theta, 1, anchor_labels[..., None].expand(R, H, d))
    cov_own = torch.gather(model.cov, 1, anchor_labels[..., None].expand(R, H, d))
    residual = torch.linalg.vector_norm(cov_own[None] * (own[None] - traj), dim=-1)
    comp, n_groups = group_anchors(theta, model.Delta)
    estimates = group_means(theta, comp, n_groups, k)
    dist, _ = permutation_distance(torch.nan_to_num(estimates, nan=0.0), model.theta)
    dist = torch.where(n_groups == k, dist, torch.full_like(dist, math.inf))
    return FedMDTrace(traj, torch.stack(sig), torch.stack(moved_all), residual, torch.stack(proj), t_stop,
                      anchor_labels, estimates, n_groups, dist, torch.linalg.vector_norm(theta - own, dim=-1))


def _orientation(rule: str, b_hat, pe, U, model, theta, anchor_labels) -> torch.Tensor:
    """+1 / -1 per anchor: the sign given to beta_hat (E1)."""
    if rule == "none":
        return torch.ones(b_hat.shape[:-1], dtype=b_hat.dtype, device=b_hat.device)
    if rule == "first_moment":
        target = pe.mean(2)  # m_bar = mean over the 2 ell fresh points of U^T eps
    else:
        res = cluster_residuals(model, theta)
        own = torch.gather(res, 2, anchor_labels[..., None, None].expand(*anchor_labels.shape, 1, model.d))[:, :, 0]
        target = (U.transpose(-1, -2) @ own[..., None])[..., 0]
    return torch.where((b_hat * target).sum(-1) < 0, -1.0, 1.0).to(b_hat.dtype)


# -- grouping and the permutation-invariant distance ------------------------------------------------
def group_anchors(theta: torch.Tensor, Delta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Connected components of the graph 'distance < Delta/2' on the anchors (line 22, E22).

    Returns ``comp [R, H]`` (the smallest anchor index of each anchor's component) and ``n_groups [R]``.
    """
    R, H, _ = theta.shape
    reach = (torch.cdist(theta, theta) < Delta[:, None, None] / 2).to(theta.dtype)
    for _ in range(max(1, math.ceil(math.log2(max(H, 2))))):  # transitive closure by squaring
        reach = ((reach @ reach) > 0).to(theta.dtype)
    comp = reach.argmax(-1)  # first reachable index
    n_groups = (comp == torch.arange(H, device=theta.device)[None]).sum(-1)
    return comp, n_groups


def group_means(theta: torch.Tensor, comp: torch.Tensor, n_groups: torch.Tensor, k: int) -> torch.Tensor:
    """theta_hat ``[R, k, d]``: the mean of each group's anchors (groups ordered by first anchor);
    NaN for replicates whose number of groups is not k."""
    R, H, d = theta.shape
    is_rep = comp == torch.arange(H, device=theta.device)[None]
    rank = torch.cumsum(is_rep.to(torch.long), -1) - 1
    group = torch.gather(rank, 1, comp).clamp(max=k - 1)
    sums = torch.zeros(R, k, d, dtype=theta.dtype, device=theta.device).scatter_add_(1, group[..., None].expand(R, H, d), theta)
    counts = torch.zeros(R, k, dtype=theta.dtype, device=theta.device).scatter_add_(1, group, torch.ones_like(theta[..., 0]))
    est = sums / counts.clamp(min=1)[..., None]
    return torch.where((n_groups == k)[:, None, None], est, torch.full_like(est, math.nan))


_PERMS: dict[tuple[int, str], torch.Tensor] = {}


def permutations(k: int, device) -> torch.Tensor:
    """All permutations of range(k) as ``[k!, k]`` (cached per device)."""
    key = (k, str(device))
    if key not in _PERMS:
        require(k <= 8, "k", f"the permutation-invariant distance enumerates k! matchings; k <= 8, got {k}")
        _PERMS[key] = torch.tensor(list(itertools.permutations(range(k))), dtype=torch.long, device=device)
    return _PERMS[key]


def permutation_distance(estimate: torch.Tensor, truth: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """d(theta_hat, theta*) = min_pi max_j ||theta_hat_{pi(j)} - theta*_j|| (eq. (6)) for ``[R, k, d]``;
    also the optimal pi ``[R, k]`` (pi[r, j] = the estimate matched to true cluster j)."""
    if estimate.shape != truth.shape:
        raise InputError("estimate", f"shape {tuple(estimate.shape)} differs from the truth's {tuple(truth.shape)}")
    D = torch.cdist(estimate, truth)  # [R, k_est, k_true]
    perms = permutations(truth.shape[1], truth.device)  # [P, k]
    cols = torch.arange(truth.shape[1], device=truth.device)
    cost = D[:, perms, cols[None, :]].amax(-1)  # [R, P]
    best = cost.argmin(-1)
    return cost.gather(1, best[:, None])[:, 0], perms[best]
