"""su2022 Phase 2 (FedX+clustering), the two-phase method, its baselines and reference formulas, batched.

Phase 2 (listing "Phase 2", docs/papers/su2022.md §2.4). Round t, for every client at once:

* line 7, eq. (8): z_{i,t} = argmin_j ||y_i - phi_i theta_{j,t-1}||_2 (ties to the lowest index);
* line 8: the client refines block z_{i,t} only: FedAvg runs s local gradient steps
  v <- v - (eta/n_i) phi_i^T (phi_i v - y_i); FedProx solves
  v = (I + (eta/n_i) phi_i^T phi_i)^{-1} (theta_{j,t-1} + (eta/n_i) phi_i^T y_i);
* line 9: theta_t = sum_i (n_i/N) theta_{i.,t}, so block j moves by sum_{i: z_{i,t} = j} (n_i/N)(v_i - theta_{j,t-1}).

Clients are ragged. Three backends compute the same round (tests compare them); none loops over clients:

* ``points``: segment sums over the flat points, memory O(R P d);
* ``gram``: products with per-client sufficient statistics G_i = phi_i^T phi_i, b_i = phi_i^T y_i,
  O(R M d^2), cheaper when clients are large; FedProx always uses it;
* ``kernel`` (FedAvg, clients small against d): the local steps stay in the span of phi_i^T, so
  v = theta_j - phi_i^T a with a <- a + c_i (r_0 - K_i a), c_i = eta/n_i, r_0 = phi_i theta_j - y_i and
  the client kernel K_i = phi_i phi_i^T; after s steps a = S_i r_0 with
  S_i = c_i sum_{t<s} (I - c_i K_i)^t, built once (sum_i n_i^2 entries). phi is then read twice per
  round, by two matrix products: the residuals of every block (which also give the labels) and the
  block sums.

Also here: the exact global recursion of Lemma 1 (eq. (11)), built from the explicit block
matrices P_i (the reference the simulation is checked against), the P-weighted least squares fixed
point (docs/papers/su2022.md §2.5), the oracle OLS on the true clusters, the IFCA-like baseline (Phase 2 from random
starts in the R-ball, docs/papers/su2022.md §2.7) and the two-phase method (Theorem 3).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch

from analytic.errors import InputError, require
from verify.algorithms.moment_descent import FedMDConfig, FedMDTrace, fedmd, permutation_distance
from verify.normal_draws import randn
from verify.problems.mixed_regression import MixedRegression, MixtureModel

LOCAL_SOLVERS = ("fedavg", "fedprox")
LABEL_RULES = ("estimated", "oracle")
BACKENDS = ("auto", "points", "gram", "kernel")
_GRAM_BUDGET = 1 << 25  # largest R*M*d*d the auto backend stores as Gram matrices


@dataclass
class Phase2Trace:
    """``theta [C, R, k, d]`` at the checkpoint rounds ``rounds`` (0 = the start); ``error [T+1, R]``
    d(theta_t, theta*) every round; ``misclustered [T, R]`` nu_hat_t = max_j N_{S_{j,t}} / N (the data
    share in the symmetric differences I_j xor I_{j,t}, clusters matched by the permutation of
    d(theta_{t-1}, theta*)); ``wrong_data [T, R]`` the share of data whose label is wrong;
    ``change [T, R]`` max_j ||theta_{j,t} - theta_{j,t-1}||; ``labels [R, M]`` the last round's labels."""

    rounds: np.ndarray
    theta: torch.Tensor
    error: torch.Tensor
    misclustered: torch.Tensor
    wrong_data: torch.Tensor
    change: torch.Tensor
    labels: torch.Tensor

    @property
    def final(self) -> torch.Tensor:
        return self.theta[-1]


def _as_eta(eta, fed: MixedRegression) -> torch.Tensor:
    e = torch.as_tensor(eta, dtype=fed.X.dtype, device=fed.X.device)
    e = e.expand(fed.R) if e.dim() == 0 else e
    require(tuple(e.shape) == (fed.R,) and bool((e > 0).all()), "eta", f"need a positive step (or one per replicate), got {tuple(e.shape)}")
    return e


class Phase2Round:
    """One round of FedX+clustering for a federation, with the per-call precomputations."""

    def __init__(self, fed: MixedRegression, eta, *, local: str = "fedavg", s: int = 1, labels: str = "estimated",
                 backend: str = "auto") -> None:
        require(local in LOCAL_SOLVERS, "local", f"expected one of {LOCAL_SOLVERS}, got {local!r}")
        require(labels in LABEL_RULES, "labels", f"expected one of {LABEL_RULES}, got {labels!r}")
        require(backend in BACKENDS, "backend", f"expected one of {BACKENDS}, got {backend!r}")
        require(s >= 1, "s", f"FedAvg needs s >= 1 local steps, got {s}")
        self.fed, self.local, self.s, self.label_rule = fed, local, (s if local == "fedavg" else 1), labels
        self.eta = _as_eta(eta, fed)
        n = fed.sizes.to(fed.X.dtype)
        self.c = self.eta[:, None] / n[None, :]  # eta / n_i  [R, M]
        self.weight = (n / fed.N)[None, :, None]  # n_i / N
        if backend == "auto":  # per round: gram ~M d^2 (k + s), points ~P d (k + 2 s), kernel ~P d (k + 1) + s Q
            small = fed.R * fed.M * fed.d * fed.d <= _GRAM_BUDGET
            backend = ("gram" if local == "fedprox" else "kernel" if fed.pair_count <= fed.N * fed.d
                       else "gram" if small and 2 * fed.N >= fed.M * fed.d else "points")
        require(backend == "gram" or local == "fedavg", "backend", "FedProx needs the gram backend")
        self.backend = backend
        if backend == "kernel":
            self.pair_p, self.pair_q, self.S = self._local_step_maps()
            self.weight_point = -(n / fed.N)[fed.seg]  # block j moves by sum over its points of -(n_i/N) a_p x_p
        if backend == "points":  # buffers reused by every local step
            self._point_buf = torch.empty_like(fed.X)
            self._client_buf = torch.empty(fed.R, fed.M, fed.d, dtype=fed.X.dtype, device=fed.X.device)
        if backend == "gram":
            self.G, self.b, self.cy = fed.gram
            if local == "fedprox":
                eye = torch.eye(fed.d, dtype=fed.X.dtype, device=fed.X.device)
                self.chol = torch.linalg.cholesky(eye + self.c[..., None, None] * self.G)

    def losses(self, theta: torch.Tensor) -> torch.Tensor:
        """||y_i - phi_i theta_j||^2 for every client and block, ``[R, M, k]``."""
        fed = self.fed
        if self.backend != "gram":
            return fed.client_sum(self._residuals(theta) ** 2)
        return self._gram_rows @ quadratic_coefficients(theta).transpose(1, 2)

    @cached_property
    def _gram_rows(self) -> torch.Tensor:
        return gram_rows(self.G, self.b, self.cy)

    def losses_many(self, thetas: torch.Tensor) -> torch.Tensor:
        """:meth:`losses` at T models at once, ``thetas [T, R, k, d] -> [T, R, M, k]``: without Gram matrices, one
        product phi [theta_1 ... theta_T] and one segment sum of the squared residuals over all T k blocks (each
        residual is the same dot product as :meth:`losses` takes, up to the product's summation order)."""
        if self.backend == "gram":
            return torch.stack([self.losses(th) for th in thetas])
        fed = self.fed
        T, R, k, d = thetas.shape
        res = self.fed.X @ thetas.permute(1, 3, 0, 2).reshape(R, d, T * k)  # [R, P, T k]
        sq = res.sub_(fed.y[..., None]).square_()
        return fed.client_sum(sq).reshape(R, fed.M, T, k).permute(2, 0, 1, 3)

    def assign(self, theta: torch.Tensor) -> torch.Tensor:
        """z_{i,t} by eq. (8) (or the true labels for the oracle-label variant), ``[R, M]``."""
        return self.fed.z if self.label_rule == "oracle" else self.losses(theta).argmin(-1)

    def local_update(self, v: torch.Tensor) -> torch.Tensor:
        """Each client's refined block from its start ``v [R, M, d]`` (line 8)."""
        fed, c = self.fed, self.c[..., None]
        if self.local == "fedprox":
            return torch.cholesky_solve((v + c * self.b)[..., None], self.chol)[..., 0]
        if self.backend == "kernel":
            v_point = torch.index_select(v, 1, fed.seg)
            a = self._coefficients(torch.einsum("rpd,rpd->rp", fed.X, v_point) - fed.y)
            return v - fed.client_sum(fed.X * a[..., None])
        v = v.clone()
        if self.backend == "gram" and self._gram_steps_in_c(v):
            return v
        for _ in range(self.s):
            if self.backend == "points":  # in place on reused buffers: fresh large tensors cost page faults every step
                buf = torch.index_select(v, 1, fed.seg, out=self._point_buf)  # each point's client model
                r = torch.einsum("rpd,rpd->rp", fed.X, buf).sub_(fed.y)
                grad = self._client_buf.zero_().index_add_(1, fed.seg, torch.mul(fed.X, r[..., None], out=buf))
            else:
                grad = (self.G @ v[..., None])[..., 0] - self.b
            v.sub_(grad.mul_(c))
        return v

    def _gram_steps_in_c(self, v: torch.Tensor) -> bool:
        """The s local steps of the gram backend on ``v [R, M, d]`` in place by verify/algorithms/gram_steps.c, bitwise
        the torch loop: one pass over the clients instead of 4 s batched ops (3.0x on the whole loop at
        R M = 2,400-9,600, d 5-10; benchmarks/bench_kernels.py). Only for CPU float64 with d * d < 400, where torch's
        batched product sums each row in order (the C loop's order); False (nothing done) otherwise or when the
        library is not built."""
        d = v.shape[-1]
        if d * d >= 400 or v.device.type != "cpu" or v.dtype != torch.float64 or not v.is_contiguous():
            return False
        from verify.algorithms.tc_c import gram_local_steps

        kernel = gram_local_steps()
        G, b, c = self.G, self.b, self.c
        if kernel is None or G.shape != v.shape + (d,) or b.shape != v.shape or c.shape != v.shape[:-1] \
                or G.dtype != v.dtype or b.dtype != v.dtype or c.dtype != v.dtype:
            return False
        G, b, c = G.contiguous(), b.contiguous(), c.contiguous()
        # 0, or -1 (v untouched) for a d the C loop does not take
        return kernel(v.shape[0] * v.shape[1], d, self.s, G.data_ptr(), b.data_ptr(), c.data_ptr(), v.data_ptr()) == 0

    def __call__(self, theta: torch.Tensor, z: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(theta_t, z_t) from theta_{t-1} ``[R, k, d]`` (labels ``z`` forced if given)."""
        if self.backend == "kernel":
            return self._kernel_round(theta, z)
        z = self.assign(theta) if z is None else z
        d = self.fed.d
        v0 = torch.gather(theta, 1, z[..., None].expand(*z.shape, d))
        delta = self.weight * (self.local_update(v0) - v0)
        return theta.scatter_add(1, z[..., None].expand(*z.shape, d), delta), z

    def _residuals(self, theta: torch.Tensor) -> torch.Tensor:
        """phi_p theta_j - y_p for every point and block, ``[R, P, k]``."""
        return self.fed.X @ theta.transpose(1, 2).contiguous() - self.fed.y[..., None]

    def _local_step_maps(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """S_i = c_i sum_{t<s} (I - c_i K_i)^t for every client, as entries over the point pairs (Horner's
        rule on the clients of one size at a time)."""
        fed = self.fed
        p, q, K = fed.point_pairs
        S = torch.empty_like(K)
        for n, clients, slots in fed.size_groups:
            c = self.c[:, clients, None, None]  # [R, M_n, 1, 1]
            eye = torch.eye(n, dtype=K.dtype, device=K.device)
            A = eye - c * K[:, slots.reshape(-1)].reshape(fed.R, -1, n, n)
            acc = eye.expand_as(A)
            for _ in range(self.s - 1):
                acc = eye + A @ acc
            S[:, slots.reshape(-1)] = (c * acc).reshape(fed.R, -1)
        return p, q, S

    def _coefficients(self, r0: torch.Tensor) -> torch.Tensor:
        """a = S_i r_0 ``[R, P]`` from the residuals r_0 ``[R, P]`` (kernel backend)."""
        return torch.zeros_like(r0).index_add_(1, self.pair_p, self.S * torch.index_select(r0, 1, self.pair_q))

    def _kernel_round(self, theta: torch.Tensor, z: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        fed = self.fed
        res = self._residuals(theta)
        if z is None:
            z = fed.z if self.label_rule == "oracle" else fed.client_sum(res**2).argmin(-1)
        z_point = torch.index_select(z, 1, fed.seg)
        a = self._coefficients(torch.gather(res, 2, z_point[..., None])[..., 0])
        blocks = torch.zeros(fed.R, theta.shape[1], fed.N, dtype=theta.dtype, device=theta.device)
        blocks.scatter_(1, z_point[:, None], (self.weight_point * a)[:, None])  # [R, k, P]
        return theta + blocks @ fed.X, z


def gram_rows(G: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Each client's sufficient statistics as one row [vec G_i, b_i, c_i], ``[R, M, d^2 + d + 1]``."""
    return torch.cat([G.flatten(-2), b, c[..., None]], -1)


def quadratic_coefficients(theta: torch.Tensor) -> torch.Tensor:
    """Rows [vec(theta_j theta_j^T), -2 theta_j, 1] ``[R, k, d^2 + d + 1]``: their product with a client's
    [vec G_i, b_i, c_i] is ||y_i - phi_i theta_j||^2 = <G_i, theta_j theta_j^T> - 2 b_i^T theta_j + c_i."""
    R, k, d = theta.shape
    outer = (theta[..., :, None] * theta[..., None, :]).reshape(R, k, d * d)
    return torch.cat([outer, -2 * theta, torch.ones(R, k, 1, dtype=theta.dtype, device=theta.device)], -1)


def clustering_errors(fed: MixedRegression, z_hat: torch.Tensor, match: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(nu_hat = max_j N_{S_j} / N, share of wrongly labelled data) ``[R]`` for labels ``z_hat [R, M]``;
    ``match [R, k]``: the estimated block matched to each true cluster."""
    k = fed.k
    inverse = torch.argsort(match, dim=-1)  # estimated block -> true cluster
    as_true = torch.gather(inverse, 1, z_hat)
    n = fed.sizes.to(fed.X.dtype)[None, :, None]
    true_oh = torch.nn.functional.one_hot(fed.z, k).bool()
    est_oh = torch.nn.functional.one_hot(as_true, k).bool()
    n_sym = ((true_oh ^ est_oh).to(n.dtype) * n).sum(1)  # [R, k]
    wrong = ((as_true != fed.z).to(n.dtype) * n[..., 0]).sum(1)
    return n_sym.amax(-1) / fed.N, wrong / fed.N


def fedx_clustering(fed: MixedRegression, theta0: torch.Tensor, eta, rounds: int, *, local: str = "fedavg",
                    s: int = 1, labels: str = "estimated", checkpoints=None, tol: float | None = None,
                    until: torch.Tensor | None = None, backend: str = "auto") -> Phase2Trace:
    """Run Phase 2 for ``rounds`` rounds from ``theta0 [R, k, d]``. ``checkpoints``: the rounds at
    which theta is kept (default: every round); ``tol``: stop once every replicate's max change is
    below it; ``until [R]``: stop once every replicate's error d(theta_t, theta*) has reached it
    (the arrays then end at the last round run)."""
    require(rounds >= 1, "rounds", f"must be >= 1, got {rounds}")
    require(tuple(theta0.shape) == (fed.R, fed.k, fed.d), "theta0", f"expected {(fed.R, fed.k, fed.d)}, got {tuple(theta0.shape)}")
    step = Phase2Round(fed, eta, local=local, s=s, labels=labels, backend=backend)
    keep = set(range(rounds + 1)) if checkpoints is None else {int(c) for c in checkpoints} | {0}
    theta = theta0.clone()
    err, match = permutation_distance(theta, fed.model.theta)
    errors, thetas, kept, mis, wrong, change = [err], [theta.clone()], [0], [], [], []
    z = None
    for t in range(1, rounds + 1):
        new, z = step(theta)
        nu, wr = clustering_errors(fed, z, match)
        mis.append(nu), wrong.append(wr)
        change.append(torch.linalg.vector_norm(new - theta, dim=-1).amax(-1))
        theta = new
        err, match = permutation_distance(theta, fed.model.theta)
        errors.append(err)
        stop = (tol is not None and bool((change[-1] < tol).all())) or (
            until is not None and bool((torch.stack(errors) <= until).any(0).all()))
        if t in keep or stop or t == rounds:
            thetas.append(theta.clone()), kept.append(t)
        if stop:
            break
    return Phase2Trace(np.asarray(kept), torch.stack(thetas), torch.stack(errors), torch.stack(mis),
                       torch.stack(wrong), torch.stack(change), z)


# -- reference formulas --------------------------------------------------------------------------
def padded_clients(fed: MixedRegression) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Clients as padded blocks: ``Phi [R, M, n_max, d]``, ``y [R, M, n_max]`` (zeros past n_i) and the mask."""
    n_max = int(fed.sizes.max())
    offsets = torch.cumsum(fed.sizes, 0) - fed.sizes
    pos = torch.arange(fed.N, device=fed.seg.device) - offsets[fed.seg]
    Phi = torch.zeros(fed.R, fed.M, n_max, fed.d, dtype=fed.X.dtype, device=fed.X.device)
    y = torch.zeros(fed.R, fed.M, n_max, dtype=fed.X.dtype, device=fed.X.device)
    Phi[:, fed.seg, pos] = fed.X
    y[:, fed.seg, pos] = fed.y
    mask = torch.zeros(fed.M, n_max, dtype=torch.bool, device=fed.X.device)
    mask[fed.seg, pos] = True
    return Phi, y, mask


def preconditioners(fed: MixedRegression, eta, local: str = "fedavg", s: int = 1):
    """The blocks P_i of Lemma 1 as explicit n_i x n_i matrices (padded to n_max, identity-like past n_i):
    FedAvg sum_{l<s} (I - eta phi_i phi_i^T / n_i)^l, FedProx (I + eta phi_i phi_i^T / n_i)^{-1}.
    Returns (P [R, M, n_max, n_max], Phi, y, mask)."""
    Phi, y, mask = padded_clients(fed)
    c = (_as_eta(eta, fed)[:, None] / fed.sizes.to(fed.X.dtype)[None, :])[..., None, None]
    eye = torch.eye(Phi.shape[2], dtype=Phi.dtype, device=Phi.device)
    S = c * Phi @ Phi.transpose(-1, -2)
    if local == "fedprox":
        return torch.linalg.inv(eye + S), Phi, y, mask
    return matrix_power_sum(eye - S, s), Phi, y, mask


def lemma1_update(fed: MixedRegression, theta: torch.Tensor, z: torch.Tensor, eta, local: str = "fedavg",
                  s: int = 1) -> torch.Tensor:
    """Eq. (11): theta_{j,t} = theta_{j,t-1} - eta B Lambda_{j,t} (phi theta_{j,t-1} - y) with
    B = phi^T P / N, evaluated from the explicit blocks P_i (not by running local steps)."""
    P, Phi, y, _ = preconditioners(fed, eta, local, s)
    eta_t = _as_eta(eta, fed)
    theta_i = torch.gather(theta, 1, z[..., None].expand(*z.shape, fed.d))  # each client's block
    resid = (Phi @ theta_i[..., None])[..., 0] - y  # [R, M, n_max]
    g = (Phi.transpose(-1, -2) @ (P @ resid[..., None]))[..., 0]  # phi_i^T P_i (phi_i theta_j - y_i)
    upd = torch.zeros_like(theta).scatter_add_(1, z[..., None].expand(*z.shape, fed.d), g)
    return theta - (eta_t / fed.N)[:, None, None] * upd


def client_normal_equations(fed: MixedRegression, eta, local: str = "fedavg", s: int = 1):
    """phi_i^T P_i phi_i ``[R, M, d, d]`` and phi_i^T P_i y_i ``[R, M, d]`` from the Gram matrices
    (push-through: phi^T (I - c phi phi^T)^l = (I - c G)^l phi^T)."""
    G, b, _ = fed.gram
    c = (_as_eta(eta, fed)[:, None] / fed.sizes.to(fed.X.dtype)[None, :])[..., None, None]
    eye = torch.eye(fed.d, dtype=G.dtype, device=G.device)
    if local == "fedprox":
        A = torch.linalg.inv(eye + c * G)
        return A @ G, (A @ b[..., None])[..., 0]
    S = matrix_power_sum(eye - c * G, s)
    return S @ G, (S @ b[..., None])[..., 0]


def matrix_power_sum(A: torch.Tensor, s: int) -> torch.Tensor:
    """sum_{l<s} A^l for a batch of square matrices ``A [..., n, n]``: s - 2 products (A^0 = I and A^1 = A
    are not multiplied out, and the power after the last term is not formed)."""
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    S, power = eye.expand_as(A).clone(), None
    for _ in range(1, s):
        power = A if power is None else power @ A
        S = S + power
    return S


def weighted_least_squares(fed: MixedRegression, z: torch.Tensor, eta, local: str = "fedavg", s: int = 1) -> torch.Tensor:
    """The P-weighted least squares fixed point on the partition ``z [R, M]`` (docs/papers/su2022.md §2.5):
    theta_j = (sum_{i: z_i = j} phi_i^T P_i phi_i)^{-1} sum_{i: z_i = j} phi_i^T P_i y_i; OLS for FedAvg s = 1."""
    A, r = client_normal_equations(fed, eta, local, s)
    return _cluster_solve(fed, z, A, r)


def oracle_ols(fed: MixedRegression) -> torch.Tensor:
    """Least squares per cluster with the true labels: the oracle reference sigma sqrt(d / N_j)."""
    G, b, _ = fed.gram
    return _cluster_solve(fed, fed.z, G, b)


def cluster_matrices(fed: MixedRegression, z: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    """sum_{i: z_i = j} A_i for per-client ``A [R, M, ...]``: ``[R, k, ...]``."""
    out = torch.zeros(fed.R, fed.k, *A.shape[2:], dtype=A.dtype, device=A.device)
    return out.scatter_add_(1, z.reshape(*z.shape, *([1] * (A.dim() - 2))).expand_as(A), A)


def _cluster_solve(fed, z, A, r):
    return torch.linalg.solve(cluster_matrices(fed, z, A), cluster_matrices(fed, z, r)[..., None])[..., 0]


def contraction_matrices(fed: MixedRegression, eta, local: str = "fedavg", s: int = 1) -> torch.Tensor:
    """K_j = (1/N) phi(x_{I_j})^T P_{I_j} phi(x_{I_j}) on the true clusters, ``[R, k, d, d]`` (eq. (12))."""
    A, _ = client_normal_equations(fed, eta, local, s)
    return cluster_matrices(fed, fed.z, A) / fed.N


def kappa(gamma, s: int = 1, local: str = "fedavg"):
    """kappa = gamma s / (1 - (1 - gamma)^s) (FedAvg) or 1 + gamma (FedProx) (Theorem 2)."""
    g = np.asarray(gamma, dtype=float)
    if local == "fedprox":
        return 1.0 + g
    return g * s / (1.0 - (1.0 - g) ** s)


# -- baselines and the two-phase method -----------------------------------------------------------
def ball_starts(R: int, k: int, d: int, radius: torch.Tensor, generator: torch.Generator, dtype=torch.float64) -> torch.Tensor:
    """k points i.i.d. uniform in the ball of radius ``radius [R]`` (the IFCA-like starts), ``[R, k, d]``."""
    u = randn(R, k, d, generator=generator, dtype=dtype, device=generator.device)
    u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    r = torch.rand(R, k, 1, generator=generator, dtype=dtype, device=generator.device) ** (1.0 / d)
    return u * r * radius.to(dtype)[:, None, None]


def success(fed: MixedRegression, trace: Phase2Trace, Delta: torch.Tensor) -> torch.Tensor:
    """docs/papers/su2022.md §6 success: d(theta_hat, theta*) <= Delta/4 and >= 90% of the data correctly labelled, ``[R]`` bool."""
    return (trace.error[-1] <= Delta / 4) & (trace.wrong_data[-1] <= 0.1)


@dataclass
class TwoPhaseResult:
    phase1: FedMDTrace
    phase2: Phase2Trace
    start: torch.Tensor  # [R, k, d] what Phase 2 started from
    phase1_ok: torch.Tensor  # [R] Phase 1 returned k groups


def two_phase(model: MixtureModel, fed: MixedRegression, theta0: torch.Tensor, anchor_labels: torch.Tensor,
              cfg: FedMDConfig, eta, rounds: int, generator: torch.Generator, *, local: str = "fedavg",
              s: int = 1) -> TwoPhaseResult:
    """Theorem 3's method: Phase 1 from ``theta0 [R, d]`` on the anchors, then Phase 2 on ``fed`` from
    its estimates. A replicate whose Phase 1 did not return k groups starts Phase 2 from theta0 in
    every block (a failure by construction: the method has no estimate to refine)."""
    if fed.model is not model:
        raise InputError("fed", "the federation must be drawn from the same mixture model as Phase 1 uses")
    p1 = fedmd(model, theta0, anchor_labels, cfg, generator)
    ok = p1.n_groups == model.k
    fallback = theta0[:, None, :].expand(model.R, model.k, model.d)
    start = torch.where(ok[:, None, None], torch.nan_to_num(p1.estimates), fallback)
    p2 = fedx_clustering(fed, start, eta, rounds, local=local, s=s, checkpoints=[rounds])
    return TwoPhaseResult(p1, p2, start, ok)


def frozen_centre_count(trace: Phase2Trace, start: torch.Tensor) -> torch.Tensor:
    """Per replicate, how many blocks never moved from their start (dead centres, docs/papers/su2022.md §4.2(2))."""
    moved = torch.linalg.vector_norm(trace.final - start, dim=-1) > 0
    return (~moved).sum(-1)

