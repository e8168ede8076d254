"""CafCor's pairwise correlated noise from shared seeds, batched over replicates (allouah2025 section 2.2).

Every pair of workers i != j shares a secret S_ij (in practice a PRG seed agreed once through a
key exchange). At step t both endpoints expand it into the same Gaussian vector and apply it with
opposite signs (Algorithm 1, line 6; docs/papers/allouah2025.md §2.2):

    S_ij    = KDF(master, min(i, j), max(i, j))                     symmetric: S_ij = S_ji
    z_t^ij  = N(0, I_d) drawn from a counter-based stream keyed by (S_ij, t)
    v_t^ij  = +sigma_cor z_t^ij if i < j,   -sigma_cor z_t^ij if i > j     so v^ij = -v^ji exactly
    xi_t^i  = sum_{j != i} v_t^ij + vbar_t^i,      vbar_t^i ~ N(0, sigma_ind^2 I_d) independent

The stream is a pure function of (S_ij, t): worker i and worker j regenerate z_t^ij bit for bit,
whatever order the calls come in. Summed over **all n** workers the pairwise terms cancel exactly
(each z enters once with + and once with -); summed over the honest workers only, the pairs
with a malicious partner remain (variance f(n-f) sigma_cor^2 per coordinate, Lemma C.2 proof).

Shapes: replicates are rows of each pair's stream, so one call gives ``[R, n, d]``. The pairs are
looped over (n(n-1)/2 small draws); replicates and coordinates are batched inside each draw.

The server colluding with a set I of malicious workers learns {S_jk : k in I} and subtracts the
terms it can regenerate; what is left of an honest row is x_i + sum_{j notin I} v^ij + vbar^i,
whose covariance is a I - sigma_cor^2 11^T (eq. 8). :func:`server_view` computes it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

import numpy as np
import torch

from analytic.errors import InputError
from verify.normal_draws import randn

_MASK63 = (1 << 63) - 1


def _check_index(i: int, n: int, name: str = "worker") -> None:
    if not 0 <= i < n:
        raise InputError(name, f"index must lie in [0, {n}) (got {i})")


@dataclass(frozen=True)
class SharedSeeds:
    """The secrets S_ij of n workers, derived from one master secret by a symmetric KDF."""

    master: int
    n: int
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.n < 1:
            raise InputError("n", f"must be >= 1 (got n={self.n})")
        if self.master < 0:
            raise InputError("seed", f"the master secret must be >= 0 (got {self.master})")

    def pair_seed(self, i: int, j: int) -> int:
        """S_ij = KDF(master, min(i,j), max(i,j)): a 64-bit secret known to i and j only."""
        _check_index(i, self.n)
        _check_index(j, self.n)
        if i == j:
            raise InputError("pair", f"a worker shares no secret with itself (got i = j = {i})")
        key = (min(i, j), max(i, j))
        if key not in self._cache:
            ss = np.random.SeedSequence(entropy=self.master, spawn_key=key)
            self._cache[key] = int(ss.generate_state(1, dtype=np.uint64)[0])
        return self._cache[key]

    def pairs(self) -> list[tuple[int, int]]:
        """All unordered pairs (i, j), i < j, in lexicographic order."""
        return [(i, j) for i in range(self.n) for j in range(i + 1, self.n)]


def _pair_generator(seed_ij: int, t: int) -> np.random.Generator:
    """The counter-based stream keyed by (S_ij, t): Philox seeded with SeedSequence([S_ij lo, S_ij hi, t])."""
    if t < 0:
        raise InputError("t", f"step must be >= 0 (got {t})")
    words = [seed_ij & 0xFFFFFFFF, (seed_ij >> 32) & 0xFFFFFFFF, int(t)]
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(words)))


def pair_stream_numpy(seed_ij: int, t: int, shape: Sequence[int], out: np.ndarray | None = None) -> np.ndarray:
    """z_t^ij ~ N(0, I) in float64, a pure function of the secret and the step (both endpoints agree); written into
    ``out`` (float64, C-contiguous, of ``shape``) when given: the same numbers, without a fresh array per pair."""
    gen = _pair_generator(seed_ij, t)
    if out is None:
        return gen.standard_normal(tuple(shape))
    return gen.standard_normal(out=out)


def _add_signed(acc: np.ndarray, z: np.ndarray, sign: float) -> None:
    """acc += sign * z in place for sign = +-1 (z already scaled): adding -z is subtracting z, bit for bit."""
    if sign > 0:
        acc += z
    else:
        acc -= z


class StreamMemo:
    """Pair streams z_t^ij kept for a second reader within one simulated step.

    The server that colludes with a set I regenerates z_t^ij for every honest i and j in I (:func:`server_view`):
    the same pure function of (S_ij, t) the workers drew a moment before. A memo naming those pairs, passed to the
    draw (:func:`protocol_noise`, :func:`correlated_noise`) and then to :func:`server_view`, keeps a copy of each
    named stream as it is drawn and hands it back instead of drawing it twice: the same numbers, bit for bit (that
    the two ends regenerate identical streams is what allouah2025.c01 tests, with no memo). Only the named pairs
    are kept (one ``[R, d]`` float64 array each)."""

    def __init__(self, seeds: SharedSeeds, pairs) -> None:
        self._wanted = {seeds.pair_seed(i, j) for i, j in pairs if i != j}
        self._kept: dict[tuple, np.ndarray] = {}

    def get(self, key: tuple) -> np.ndarray | None:
        return self._kept.get(key)

    def offer(self, key: tuple, z: np.ndarray) -> None:
        if key[0] in self._wanted:
            self._kept[key] = z.copy()


def _scaled_stream(seed_ij: int, t: int, s: float, buf: np.ndarray, memo: StreamMemo | None = None) -> np.ndarray:
    """s z_t^ij into ``buf`` (s z is z when s = 1: the same numbers as the product); z from ``memo`` when it holds
    the stream, else drawn (and offered to ``memo``)."""
    key = (seed_ij, int(t), buf.shape)
    z = None if memo is None else memo.get(key)
    if z is not None:
        np.copyto(buf, z)
    else:
        pair_stream_numpy(seed_ij, t, buf.shape, out=buf)
        if memo is not None:
            memo.offer(key, buf)
    if s != 1.0:
        buf *= s
    return buf


def pair_stream(seed_ij: int, t: int, shape: Sequence[int], dtype=torch.float64, device="cpu") -> torch.Tensor:
    """z_t^ij ~ N(0, I) as a tensor: the standard-normal block of the stream keyed by (S_ij, t).

    Drawn in float64 on the CPU by numpy's counter-based Philox generator (faster than torch's
    CPU sampler and identical on every device), then moved to ``device``/``dtype``.
    """
    return torch.from_numpy(pair_stream_numpy(seed_ij, t, shape)).to(device=device, dtype=dtype)


def pair_sign(i: int, j: int) -> float:
    """+1 for the smaller index (adds the shared vector), -1 for the larger (subtracts it)."""
    return 1.0 if i < j else -1.0


def pair_noise(seeds: SharedSeeds, i: int, j: int, t: int, R: int, d: int, sigma_cor: float,
               dtype=torch.float64, device="cpu") -> torch.Tensor:
    """v_t^(ij) [R, d] as worker i computes it from S_ij alone: sign(i, j) sigma_cor z_t^ij."""
    z = pair_stream(seeds.pair_seed(i, j), t, (R, d), dtype, device)
    return (pair_sign(i, j) * float(sigma_cor)) * z


def worker_correlated_noise(seeds: SharedSeeds, i: int, t: int, R: int, d: int, sigma_cor: float,
                            dtype=torch.float64, device="cpu") -> torch.Tensor:
    """sum_{j != i} v_t^(ij) [R, d], computed by worker i from its own n-1 secrets (ascending j)."""
    _check_index(i, seeds.n)
    out = np.zeros((R, d))
    s = float(sigma_cor)
    buf = np.empty((R, d))
    for j in range(seeds.n):
        if j != i:  # (sign s) z = sign (s z) exactly, so each term is +-(s z)
            _add_signed(out, _scaled_stream(seeds.pair_seed(i, j), t, s, buf), pair_sign(i, j))
    return torch.from_numpy(out).to(device=device, dtype=dtype)


def correlated_noise(seeds: SharedSeeds, t: int, R: int, d: int, sigma_cor: float,
                     dtype=torch.float64, device="cpu", memo: StreamMemo | None = None) -> torch.Tensor:
    """The pairwise part of every worker's noise, ``[R, n, d]``: each pair's stream drawn once (and offered to
    ``memo``, see :class:`StreamMemo`).

    Row i accumulates its terms in ascending j, the same order and arithmetic as
    :func:`worker_correlated_noise`, so the two agree bit for bit.
    """
    n = seeds.n
    acc = np.zeros((n, R, d))  # worker-major while accumulating: contiguous rows
    s = float(sigma_cor)
    if s != 0.0:
        sz = np.empty((R, d))
        for i, j in seeds.pairs():  # row j adds (-s) z = -(s z): subtracting s z is the same sum
            _scaled_stream(seeds.pair_seed(i, j), t, s, sz, memo)
            acc[i] += sz
            acc[j] -= sz
    return torch.from_numpy(acc).permute(1, 0, 2).contiguous().to(device=device, dtype=dtype)


def independent_noise(generator: torch.Generator, R: int, n: int, d: int, sigma_ind: float,
                      dtype=torch.float64, device="cpu") -> torch.Tensor:
    """vbar_t^(i) ~ N(0, sigma_ind^2 I_d), i.i.d. over replicates and workers, ``[R, n, d]``."""
    return float(sigma_ind) * randn(R, n, d, generator=generator, dtype=dtype, device=device)


def protocol_noise(seeds: SharedSeeds, t: int, R: int, d: int, sigma_cor: float, sigma_ind: float,
                   generator: torch.Generator, dtype=torch.float64, device="cpu",
                   memo: StreamMemo | None = None) -> torch.Tensor:
    """xi_t^(i) = sum_{j != i} v_t^(ij) + vbar_t^(i) for every worker, ``[R, n, d]`` (docs/papers/allouah2025.md §2.2);
    ``memo`` keeps the streams a later :func:`server_view` regenerates (:class:`StreamMemo`)."""
    _check_noise(sigma_cor, sigma_ind)
    return (correlated_noise(seeds, t, R, d, sigma_cor, dtype, device, memo)
            + independent_noise(generator, R, seeds.n, d, sigma_ind, dtype, device))


def colluder_known_terms(seeds: SharedSeeds, t: int, rows: Sequence[int], colluders: Sequence[int], R: int, d: int,
                         sigma_cor: float, dtype=torch.float64, device="cpu",
                         memo: StreamMemo | None = None) -> torch.Tensor:
    """sum_{j in I} v_t^(ij) for each i in ``rows``, ``[R, len(rows), d]``: what the server regenerates
    from the secrets {S_ij : j in I} that the colluders I hand over (one stream per revealed pair; a stream
    ``memo`` holds is taken from it, the same numbers)."""
    acc = np.zeros((len(rows), R, d))
    s = float(sigma_cor)
    if s != 0.0:
        buf = np.empty((R, d))
        for r, i in enumerate(rows):
            for j in sorted(colluders):
                if j != i:
                    _add_signed(acc[r], _scaled_stream(seeds.pair_seed(i, j), t, s, buf, memo), pair_sign(i, j))
    return torch.from_numpy(acc).permute(1, 0, 2).to(device=device, dtype=dtype)


def server_view(messages: torch.Tensor, seeds: SharedSeeds, t: int, honest: Sequence[int],
                colluders: Sequence[int], sigma_cor: float, memo: StreamMemo | None = None) -> torch.Tensor:
    """The honest rows of ``messages [R, n, d]`` minus every term the server knows through the colluders (the
    streams from ``memo`` where it holds them, :class:`StreamMemo`)."""
    honest, colluders = list(honest), list(colluders)
    if set(honest) & set(colluders):
        raise InputError("q", "colluders must be malicious workers, not honest ones")
    R, _, d = messages.shape
    known = colluder_known_terms(seeds, t, honest, colluders, R, d, sigma_cor, messages.dtype, messages.device, memo)
    return messages[:, honest] - known


def _check_noise(sigma_cor: float, sigma_ind: float) -> None:
    for name, v in (("sigma_cor", sigma_cor), ("sigma_ind", sigma_ind)):
        if not (math.isfinite(float(v)) and float(v) >= 0.0):
            raise InputError(name, f"noise standard deviation must be finite and >= 0 (got {v!r})")


# -- the server as an attacker: likelihood ratios and Rényi divergences ----------------------------
def gaussian_llr(Y: torch.Tensor, mean_a: torch.Tensor, mean_b: torch.Tensor, Sigma: torch.Tensor) -> torch.Tensor:
    """log p_A(Y)/p_B(Y) for N(mean_a, Sigma) vs N(mean_b, Sigma): Delta^T Sigma^{-1} (Y - (mean_a+mean_b)/2).

    ``Y`` is ``[N, m]``; returns ``[N]``. Under P_B it is N(-eta/2, eta), under P_A N(+eta/2, eta),
    eta = Delta^T Sigma^{-1} Delta (docs/papers/allouah2025.md §3.7 recipe 4).
    """
    delta = (mean_a - mean_b).to(Y)
    w = torch.linalg.solve(Sigma.to(Y), delta)
    return (Y - 0.5 * (mean_a + mean_b).to(Y)) @ w


def renyi_divergence_mc(llr_under_b: torch.Tensor, alpha):
    """D_alpha(P_A || P_B) = (1/(alpha-1)) log E_{Y~P_B}[exp(alpha llr(Y))] by log-sum-exp (Def. A.1).

    ``alpha`` is one order (returns a float) or an array of orders (returns an array). Heavy-tailed
    for large alpha: reliable for alpha <= 2 (docs/papers/allouah2025.md §3.7 recipe 3).
    """
    a = np.atleast_1d(np.asarray(alpha, dtype=float))
    if np.any(a <= 1.0):
        raise InputError("alpha", f"Rényi order must be > 1 (got {alpha})")
    x = torch.as_tensor(a, dtype=llr_under_b.dtype, device=llr_under_b.device)[:, None] * llr_under_b.reshape(1, -1)
    log_mean = (torch.logsumexp(x, 1) - math.log(x.shape[1])).cpu().numpy()
    out = log_mean / (a - 1.0)
    return float(out[0]) if np.ndim(alpha) == 0 else out


def renyi_divergence_mc_se(llr_under_b: torch.Tensor, alpha: float) -> float:
    """Delta-method standard error of :func:`renyi_divergence_mc`: sd(w)/(sqrt(N) mean(w) (alpha-1))."""
    x = alpha * llr_under_b.reshape(-1)
    w = torch.exp(x - x.max())
    return float(w.std() / (w.mean() * math.sqrt(x.numel()))) / (alpha - 1.0)


# -- the same noise drawn from its joint law, for simulations at scale ------------------------------
def _noise_scale(sigma, R: int, dtype, device, param: str) -> torch.Tensor:
    """A standard deviation given as a number or per replicate ``[R]``, as ``[R, 1, 1]``."""
    s = torch.as_tensor(sigma, dtype=dtype, device=device)
    if s.dim() == 0:
        s = s.expand(R)
    if s.shape != (R,) or not bool(torch.all(torch.isfinite(s) & (s >= 0))):
        raise InputError(param, f"a standard deviation must be finite, >= 0, one number or one per replicate "
                                f"({R}), got shape {tuple(s.shape)}")
    return s.reshape(R, 1, 1)


@dataclass(frozen=True)
class NoiseInLaw:
    """CafCor's noise for n workers drawn from its exact joint law in O(n d) per draw (docs/papers/allouah2025.md §2.2).

    The shared-seed construction gives sum_{j != i} v^(ij) = sigma_cor (K z)_i with K the oriented incidence
    matrix of the complete graph: a zero-mean Gaussian with covariance sigma_cor^2 K K^T = sigma_cor^2
    (n I - 1 1^T) (x) I_d, the graph's Laplacian. Since n I - 1 1^T = n P with P = I - 1 1^T / n a
    projection, sigma_cor sqrt(n) P Z (Z_i i.i.d. N(0, I_d)) has exactly that law and sums to zero over the
    n workers. Adding vbar^(i) ~ N(0, sigma_ind^2 I_d) gives xi with covariance
    [(n sigma_cor^2 + sigma_ind^2) I - sigma_cor^2 1 1^T] (x) I_d.

    Use it where the n(n-1)/2 pair streams of :func:`correlated_noise` are too slow (many workers, large d,
    every round) and nothing reads the individual pair terms. The standard deviations are numbers or one
    per replicate ``[R]``.
    """

    R: int
    n: int
    d: int
    sigma_cor: torch.Tensor  # [R, 1, 1]
    sigma_ind: torch.Tensor  # [R, 1, 1]

    @classmethod
    def build(cls, R: int, n: int, d: int, sigma_cor, sigma_ind, dtype=torch.float64, device="cpu") -> "NoiseInLaw":
        for name, v in (("R", R), ("n", n), ("d", d)):
            if not (isinstance(v, (int, np.integer)) and v >= 1):
                raise InputError(name, f"must be an integer >= 1 (got {v!r})")
        R, n, d = int(R), int(n), int(d)
        return cls(R, n, d, _noise_scale(sigma_cor, R, dtype, device, "sigma_cor"),
                   _noise_scale(sigma_ind, R, dtype, device, "sigma_ind"))

    @cached_property
    def _pair_scale(self) -> torch.Tensor:
        """sigma_cor sqrt(n) ``[R, 1, 1]``, the same product every draw."""
        return self.sigma_cor * math.sqrt(self.n)

    def correlated(self, generator: torch.Generator) -> torch.Tensor:
        """The pairwise part of every worker's noise, ``[R, n, d]``."""
        s = self.sigma_cor
        Z = randn(self.R, self.n, self.d, generator=generator, dtype=s.dtype, device=s.device)
        return self._pair_scale * (Z - Z.mean(1, keepdim=True))

    def draw(self, generator: torch.Generator) -> torch.Tensor:
        """xi^(i) for every worker, ``[R, n, d]``: the pairwise part plus the independent part."""
        s = self.sigma_ind
        ind = randn(self.R, self.n, self.d, generator=generator, dtype=s.dtype, device=s.device)
        return self.correlated(generator) + s * ind


def correlated_noise_in_law(generator: torch.Generator, R: int, n: int, d: int, sigma_cor,
                            dtype=torch.float64, device="cpu") -> torch.Tensor:
    """The pairwise part of every worker's noise, ``[R, n, d]``, drawn from its joint law (:class:`NoiseInLaw`)."""
    return NoiseInLaw.build(R, n, d, sigma_cor, 0.0, dtype, device).correlated(generator)


def protocol_noise_in_law(generator: torch.Generator, R: int, n: int, d: int, sigma_cor, sigma_ind,
                          dtype=torch.float64, device="cpu") -> torch.Tensor:
    """xi^(i) = (pairwise part) + vbar^(i) for every worker, ``[R, n, d]``, drawn from the joint law
    (:class:`NoiseInLaw`)."""
    return NoiseInLaw.build(R, n, d, sigma_cor, sigma_ind, dtype, device).draw(generator)
