"""Federated mixed linear regression (su2022 eq. (1)), batched over replicates.

The generative model (docs/papers/su2022.md §1.2, with phi = identity): client i has a hidden label
z_i ~ Cat(p) and n_i points (x_ij, y_ij) with

    y_ij = <x_ij, theta*_{z_i}> + zeta_ij,    E[x x^T | z = j] = Sigma_j,    zeta ~ N(0, sigma^2),

features independent of the noise (E24) and centred (E23). Everything the theorems name is planted
exactly: the centres theta*_j (minimum pairwise distance Delta exactly, radius R = max ||theta*_j||),
the spectrum alpha I <= Sigma_j <= beta I (diagonal Sigma_j whose extreme entries are attained),
sigma, and the proportions p.

Two objects:

* :class:`MixtureModel` -- the law: draws labels and any number of fresh points (Phase 1 uses fresh
  data every iteration, so it samples from the model directly);
* :class:`MixedRegression` -- one federation drawn from it: M clients with ragged sizes n_i, stored
  flat (client-major) as ``X [R, P, d]``, ``y [R, P]`` with ``seg [P]`` the client of each point,
  so every per-client quantity is one segment sum (``index_add_``) over all clients at once. The
  sizes are shared by the replicates; labels, features and noise are drawn per replicate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import torch

from analytic import validate
from analytic.errors import InputError, require
from verify.normal_draws import randn
from verify.workspace import workspace

CENTRES = ("random", "orthogonal")
COVARIANCES = ("identity", "heterogeneous")
FEATURES = ("gaussian", "rademacher")


@dataclass(frozen=True)
class MixtureModel:
    """Model (1) with phi = identity for R independent replicates.

    ``theta [R, k, d]`` centres, ``cov [R, k, d]`` the diagonal of Sigma_j, ``p [R, k]``.
    """

    theta: torch.Tensor
    cov: torch.Tensor
    sigma: float
    p: torch.Tensor
    features: str = "gaussian"

    @property
    def R(self) -> int:
        return self.theta.shape[0]

    @property
    def k(self) -> int:
        return self.theta.shape[1]

    @property
    def d(self) -> int:
        return self.theta.shape[2]

    @property
    def alpha(self) -> torch.Tensor:
        """min_j lambda_min(Sigma_j) per replicate (exact: Sigma_j is diagonal)."""
        return self.cov.amin(dim=(1, 2))

    @property
    def beta(self) -> torch.Tensor:
        """max_j ||Sigma_j||_2 per replicate (exact)."""
        return self.cov.amax(dim=(1, 2))

    @property
    def Delta(self) -> torch.Tensor:
        """min_{j != j'} ||theta*_j - theta*_j'|| per replicate."""
        return pairwise_separation(self.theta)

    @property
    def radius(self) -> torch.Tensor:
        """R = max_j ||theta*_j|| per replicate (assumption A2 holds with this R exactly)."""
        return torch.linalg.vector_norm(self.theta, dim=-1).amax(-1)

    @property
    def p_min(self) -> torch.Tensor:
        return self.p.amin(-1)

    @cached_property
    def identity_cov(self) -> bool:
        """Whether every Sigma_j = I (then features need no scaling)."""
        return bool((self.cov == 1).all())

    def labels(self, n: int, generator: torch.Generator) -> torch.Tensor:
        """``n`` i.i.d. labels per replicate, ``[R, n]`` (assumption A1)."""
        return torch.multinomial(self.p, n, replacement=True, generator=generator)

    def points(self, z: torch.Tensor, n_points: int, generator: torch.Generator):
        """``n_points`` fresh points for each label in ``z [R, *S]``: ``X [R, *S, n, d]``, ``y``, ``zeta [R, *S, n]``."""
        R, shape = z.shape[0], tuple(z.shape[1:])
        flat = z.reshape(R, -1)
        index = flat[..., None].expand(R, flat.shape[1], self.d)
        theta = torch.gather(self.theta, 1, index)
        X = self._features((R, flat.shape[1], n_points, self.d), generator)
        if not self.identity_cov:  # x = Sigma_z^{1/2} g; with Sigma_z = I the product by 1.0 is skipped (exact)
            X.mul_(torch.gather(self.cov.sqrt(), 1, index)[:, :, None, :])
        zeta = self.sigma * randn(R, flat.shape[1], n_points, generator=generator, dtype=X.dtype, device=X.device)
        prod = workspace("MixtureModel.points", X.shape, X)
        y = torch.mul(X, theta[:, :, None, :], out=prod).sum(-1).add_(zeta)  # y = <x, theta*_z> + zeta
        return (X.reshape(R, *shape, n_points, self.d), y.reshape(R, *shape, n_points),
                zeta.reshape(R, *shape, n_points))

    def _features(self, shape, generator) -> torch.Tensor:
        dtype, device = self.theta.dtype, self.theta.device
        if self.features == "gaussian":
            return randn(shape, generator=generator, dtype=dtype, device=device)
        return torch.randint(0, 2, shape, generator=generator, device=device).to(dtype) * 2 - 1

    def federation(self, sizes, generator: torch.Generator, z: torch.Tensor | None = None) -> "MixedRegression":
        """A federation of ``len(sizes)`` clients with the given sizes (shared by the replicates) and
        labels drawn from p (or the given ``z [R, M]``)."""
        sizes = torch.as_tensor(sizes, dtype=torch.long, device=self.theta.device)
        require(sizes.dim() == 1 and sizes.numel() >= 1 and bool((sizes >= 1).all()), "sizes",
                "client sizes must be a non-empty list of integers >= 1")
        M = sizes.numel()
        z = self.labels(M, generator) if z is None else z.to(self.theta.device)
        require(tuple(z.shape) == (self.R, M), "z", f"expected labels of shape {(self.R, M)}, got {tuple(z.shape)}")
        seg = torch.repeat_interleave(torch.arange(M, device=sizes.device), sizes)
        z_pt = z[:, seg]  # [R, P]
        P = seg.numel()
        index = z_pt[..., None].expand(self.R, P, self.d)
        theta = torch.gather(self.theta, 1, index)
        X = self._features((self.R, P, self.d), generator)
        if not self.identity_cov:
            X.mul_(torch.gather(self.cov.sqrt(), 1, index))
        zeta = self.sigma * randn(self.R, P, generator=generator, dtype=X.dtype, device=X.device)
        y = torch.mul(X, theta).sum(-1).add_(zeta)
        return MixedRegression(self, sizes, z, X, y, zeta, seg)


@dataclass(frozen=True)
class MixedRegression:
    """One federation: ``X [R, P, d]``, ``y, zeta [R, P]`` client-major, ``seg [P]``, ``sizes [M]``, ``z [R, M]``."""

    model: MixtureModel
    sizes: torch.Tensor
    z: torch.Tensor
    X: torch.Tensor
    y: torch.Tensor
    zeta: torch.Tensor
    seg: torch.Tensor
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def R(self) -> int:
        return self.X.shape[0]

    @property
    def M(self) -> int:
        return self.sizes.numel()

    @property
    def N(self) -> int:
        return self.seg.numel()

    @property
    def d(self) -> int:
        return self.X.shape[-1]

    @property
    def k(self) -> int:
        return self.model.k

    def client_sum(self, values: torch.Tensor) -> torch.Tensor:
        """Per-client sums of point values ``[R, P, ...] -> [R, M, ...]`` (one ``index_add_``)."""
        out = torch.zeros(values.shape[0], self.M, *values.shape[2:], dtype=values.dtype, device=values.device)
        return out.index_add_(1, self.seg, values)

    @cached_property
    def cluster_sizes(self) -> torch.Tensor:
        """N_j = sum of n_i over clients of cluster j, ``[R, k]`` (float)."""
        onehot = torch.nn.functional.one_hot(self.z, self.k).to(self.X.dtype)
        return (onehot * self.sizes.to(self.X.dtype)[None, :, None]).sum(1)

    @property
    def rho(self) -> torch.Tensor:
        """rho = min_j N_j / N per replicate (Theorem 2)."""
        return self.cluster_sizes.amin(-1) / self.N

    @cached_property
    def gram(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-client sufficient statistics G_i = phi_i^T phi_i ``[R, M, d, d]``, b_i = phi_i^T y_i
        ``[R, M, d]``, c_i = ||y_i||^2 ``[R, M]``."""
        G = torch.zeros(self.R, self.M, self.d, self.d, dtype=self.X.dtype, device=self.X.device)
        for start in range(0, self.d, 8):  # blocks of columns bound the [R, P, 8, d] outer products
            cols = self.X[:, :, start:start + 8]
            G[:, :, start:start + 8] = self.client_sum(cols[..., None] * self.X[:, :, None, :])
        return G, self.client_sum(self.X * self.y[..., None]), self.client_sum(self.y**2)

    @property
    def pair_count(self) -> int:
        """Q = sum_i n_i^2, the number of entries of the client kernels phi_i phi_i^T."""
        return int((self.sizes * self.sizes).sum())

    @cached_property
    def size_groups(self) -> list[tuple[int, torch.Tensor, torch.Tensor]]:
        """The clients grouped by size: ``(n, clients [M_n], slots [M_n, n^2])``, where ``slots`` are the
        positions of each client's kernel entries in ``point_pairs`` (row-major n x n blocks)."""
        sq = self.sizes * self.sizes
        pair_first = torch.cumsum(sq, 0) - sq
        groups = []
        for n in torch.unique(self.sizes).tolist():  # a loop over distinct sizes, run once per federation
            clients = torch.nonzero(self.sizes == n)[:, 0]
            slots = pair_first[clients, None] + torch.arange(n * n, device=clients.device)
            groups.append((int(n), clients, slots))
        return groups

    @cached_property
    def point_pairs(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The client kernels K_i = phi_i phi_i^T as a list of entries: ``p, q [Q]`` run over every
        ordered pair of points of one client (client by client, row-major), ``K [R, Q]`` = x_p . x_q."""
        dev = self.seg.device
        p = torch.empty(self.pair_count, dtype=torch.long, device=dev)
        q = torch.empty_like(p)
        K = torch.empty(self.R, self.pair_count, dtype=self.X.dtype, device=self.X.device)
        first = torch.cumsum(self.sizes, 0) - self.sizes
        for n, clients, slots in self.size_groups:
            points = first[clients, None] + torch.arange(n, device=dev)  # [M_n, n]
            p[slots] = points[:, :, None].expand(-1, n, n).reshape(-1, n * n)
            q[slots] = points[:, None, :].expand(-1, n, n).reshape(-1, n * n)
            Xg = self.X[:, points]  # [R, M_n, n, d]
            K[:, slots.reshape(-1)] = (Xg @ Xg.transpose(-1, -2)).reshape(self.R, -1)
        return p, q, K

    @cached_property
    def client_curvature(self) -> torch.Tensor:
        """||phi_i||_2^2 / n_i = lambda_max(G_i) / n_i, ``[R, M]`` (exact). G_i = phi_i^T phi_i and the client
        kernel K_i = phi_i phi_i^T share their nonzero eigenvalues, so the smaller of the two is decomposed:
        the Gram matrices ``[R, M, d, d]`` when clients are large, the kernels (sum_i n_i^2 entries) when
        they are small against d (many small clients would otherwise cost R M d^2 memory)."""
        n = self.sizes.to(self.X.dtype)
        if self.pair_count >= self.M * self.d * self.d:
            return largest_eigenvalues(self.gram[0]) / n
        _, _, K = self.point_pairs
        top = torch.empty(self.R, self.M, dtype=self.X.dtype, device=self.X.device)
        for size, clients, slots in self.size_groups:
            top[:, clients] = largest_eigenvalues(K[:, slots.reshape(-1)].reshape(self.R, -1, size, size))
        return top / n

    def gamma(self, eta) -> torch.Tensor:
        """gamma = eta max_i ||phi_i||_2^2 / n_i per replicate (Theorem 2)."""
        return torch.as_tensor(eta, dtype=self.X.dtype, device=self.X.device) * self.client_curvature.amax(-1)

    def eta_for_gamma(self, gamma: float) -> torch.Tensor:
        """The step eta [R] at which gamma takes the given value (docs/papers/su2022.md §2.6: gamma = 0.5 / s)."""
        return gamma / self.client_curvature.amax(-1)

    @property
    def chi2(self) -> float:
        """chi^2(n) = M sum_i n_i^2 / N^2 - 1 (docs/papers/su2022.md §1.4)."""
        n = self.sizes.to(torch.float64)
        return float(self.M * (n**2).sum() / n.sum() ** 2 - 1)

    @property
    def M_eff(self) -> float:
        """Kish effective number of clients N^2 / sum n_i^2 = M / (chi^2 + 1)."""
        return effective_clients(self.sizes)


# -- builders ------------------------------------------------------------------------------------
def pairwise_separation(theta: torch.Tensor) -> torch.Tensor:
    """min_{j != j'} ||theta_j - theta_j'|| for ``theta [R, k, d]``."""
    D = torch.cdist(theta, theta)
    k = theta.shape[1]
    eye = torch.eye(k, dtype=torch.bool, device=theta.device)
    return D.masked_fill(eye, math.inf).amin(dim=(1, 2))


def planted_centres(R: int, k: int, d: int, Delta: float, generator: torch.Generator, *, rule: str = "random",
                    shift: float = 0.0, dtype=torch.float64, device="cpu") -> torch.Tensor:
    """Centres ``[R, k, d]`` with minimum pairwise distance exactly ``Delta`` (docs/papers/su2022.md §1.6).

    ``random``: k i.i.d. N(0, I) directions normalised to unit length, then rescaled so that the
    minimum pairwise distance is Delta. ``orthogonal``: (Delta/sqrt 2) e_j in a random orthonormal
    basis (needs k <= d). ``shift`` adds the same vector of that norm to every centre (varies R/Delta).
    """
    require(k >= 2, "k", f"mixed regression needs k >= 2 clusters, got {k}")
    require(d >= 1, "d", f"must be >= 1, got {d}")
    require(Delta > 0, "Delta", f"must be > 0, got {Delta}")
    if rule == "random":
        u = randn(R, k, d, generator=generator, dtype=dtype, device=device)
        u = u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
        theta = u * (Delta / pairwise_separation(u))[:, None, None]
    elif rule == "orthogonal":
        require(k <= d, "k", f"orthogonal centres need k <= d, got k={k}, d={d}")
        Q, _ = torch.linalg.qr(randn(R, d, k, generator=generator, dtype=dtype, device=device))
        theta = (Delta / math.sqrt(2.0)) * Q.transpose(1, 2)
    else:
        raise InputError("rule", f"expected one of {CENTRES}, got {rule!r}")
    if shift:
        v = randn(R, 1, d, generator=generator, dtype=dtype, device=device)
        theta = theta + shift * v / torch.linalg.vector_norm(v, dim=-1, keepdim=True)
    return theta


def planted_covariances(R: int, k: int, d: int, generator: torch.Generator, *, rule: str = "identity",
                        alpha: float = 0.5, beta: float = 1.5, dtype=torch.float64, device="cpu") -> torch.Tensor:
    """Diagonals of Sigma_j ``[R, k, d]``: the identity (alpha = beta = 1), or ``heterogeneous``:
    entries U[alpha, beta] drawn per cluster, with alpha and beta attained in every cluster (needs d >= 2)."""
    if rule == "identity":
        return torch.ones(R, k, d, dtype=dtype, device=device)
    require(rule == "heterogeneous", "rule", f"expected one of {COVARIANCES}, got {rule!r}")
    require(d >= 2 and 0 < alpha <= beta, "alpha, beta", f"need d >= 2 and 0 < alpha <= beta, got {alpha}, {beta}")
    u = alpha + (beta - alpha) * torch.rand(R, k, d, generator=generator, dtype=dtype, device=device)
    u[..., 0], u[..., 1] = alpha, beta
    return u


def planted_model(R: int, k: int, d: int, generator: torch.Generator, *, Delta: float = 1.0, sigma: float = 0.1,
                  p=None, centres: str = "random", shift: float = 0.0, covariance: str = "identity", alpha: float = 0.5,
                  beta: float = 1.5, features: str = "gaussian", dtype=torch.float64, device="cpu") -> MixtureModel:
    """The mixture model of docs/papers/su2022.md §1.6 for R replicates (defaults: uniform p, Sigma_j = I, sigma = 0.1 Delta;
    ``covariance="heterogeneous"``: diagonal Sigma_j with entries in [alpha, beta], both attained)."""
    sigma = validate.real(sigma, "sigma", minimum=0.0)
    require(features in FEATURES, "features", f"expected one of {FEATURES}, got {features!r}")
    p = torch.full((k,), 1.0 / k, dtype=dtype) if p is None else torch.as_tensor(p, dtype=dtype)
    p = p.to(device)
    if p.dim() == 1:
        p = p[None].expand(R, k)
    require(tuple(p.shape) == (R, k) and bool((p > 0).all()) and bool(torch.allclose(p.sum(-1), torch.ones((), dtype=dtype, device=device))),
            "p", f"need {k} positive proportions summing to 1 (or one row per replicate), got shape {tuple(p.shape)}")
    theta = planted_centres(R, k, d, Delta, generator, rule=centres, shift=shift, dtype=dtype, device=device)
    cov = planted_covariances(R, k, d, generator, rule=covariance, alpha=alpha, beta=beta, dtype=dtype, device=device)
    if features == "rademacher":
        require(covariance == "identity", "features", "Rademacher features are planted with Sigma_j = I")
    return MixtureModel(theta, cov, float(sigma), p.contiguous(), features)


def largest_eigenvalues(A: torch.Tensor) -> torch.Tensor:
    """lambda_max of each symmetric matrix in the batch ``A [..., n, n]``, on ``A``'s device.

    On CUDA the decomposition runs on the CPU: cuSOLVER's batched syev failed with CUSOLVER_STATUS_INTERNAL_ERROR
    on 4 x 10^5 small matrices (su2022's Phase-2 federation at M = 10^5, H200, torch 2.11 + CUDA 13.0), and
    this is set-up work, exact either way, so the CPU's values also make a CUDA run start from the CPU run's step."""
    if A.device.type == "cpu":
        return torch.linalg.eigvalsh(A)[..., -1]
    return torch.linalg.eigvalsh(A.cpu())[..., -1].to(A.device)


def pareto_sizes(M: int, a: float, generator: torch.Generator, *, n_min: int = 2, scale: float = 3.0,
                 n_max: int = 500) -> torch.Tensor:
    """Heavy-tailed client sizes n_i = min(n_min + floor(scale * Lomax(a)), n_max) (docs/papers/su2022.md §1.6), ``[M]`` on CPU."""
    require(M >= 1, "M", f"must be >= 1, got {M}")
    require(a > 0, "a", f"the Pareto tail index must be > 0, got {a}")
    u = torch.rand(M, generator=generator, dtype=torch.float64, device=generator.device).cpu()
    lomax = u.clamp(min=1e-300) ** (-1.0 / a) - 1.0
    return torch.clamp(n_min + torch.floor(scale * lomax), max=n_max).to(torch.long)


def tiny_client_sizes(N: int, f: float, a: float, generator: torch.Generator, *, n_max: int = 500) -> torch.Tensor:
    """About ``N`` points with a fraction ``f`` of the data on clients holding 1 or 2 points and the
    rest on Pareto(a) clients of at least 3 points (Claim 31: the share on 1-2 point clients is f); ``[M]`` on CPU."""
    require(0 <= f < 1, "f", f"the data fraction on tiny clients must lie in [0, 1), got {f}")
    tiny_points = int(round(f * N))
    tiny = torch.tensor([1, 2], dtype=torch.long).repeat(tiny_points // 3 + 1)
    tiny = tiny[: int((torch.cumsum(tiny, 0) <= tiny_points).sum())]
    rest = pareto_sizes(max(N, 1), a, generator, n_min=3, n_max=n_max)
    rest = rest[: int((torch.cumsum(rest, 0) <= N - int(tiny.sum())).sum()) or 1]
    return torch.cat([tiny, rest])


def effective_clients(sizes) -> float:
    """M_eff = N^2 / sum_i n_i^2 (docs/papers/su2022.md §1.4, [derived]: equals M / (chi^2(n) + 1)).

    ``sizes``: a non-empty list of finite client sizes n_i >= 0, not all zero (else InputError).
    """
    validate.weights(sizes, "sizes")
    n = torch.as_tensor(sizes, dtype=torch.float64)
    m_eff = float(n.sum() ** 2 / (n**2).sum())
    require(math.isfinite(m_eff), "sizes", "too large: N^2 or sum_i n_i^2 overflows float64")
    return m_eff
