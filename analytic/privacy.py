"""Rényi differential privacy of Gaussian noise, plain and correlated (allouah2025, CafCor).

Pure math (numpy, scipy, math): no simulation, no torch. Every function takes its inputs
explicitly; what cannot be accounted for raises :class:`analytic.errors.InputError`, whose message
names the offending Python parameter (``f``, ``delta``, ``sigma_cor2``); the command line maps it to its flag.

Notation (docs/papers/allouah2025.md §3; the paper's Appendix A):

* n workers, f < n/2 of them malicious, q <= f malicious workers colluding with the server;
* per-worker noise variances sigma_cor^2 (pairwise correlated) and sigma_ind^2 (independent);
* clipping threshold C; user-level replace-one adjacency, so the sensitivity is 2C;
* T steps; delta in (0, 1); L_delta := log(1/delta).

The results in this module:

* **Gaussian RDP** (Lemma A.1, Gil et al. 2013; Mironov 2017 Prop. 7): a Gaussian mechanism
  with L2 sensitivity Delta and noise N(0, sigma^2 I) is (alpha, alpha Delta^2/(2 sigma^2))-RDP.
* **SecLDP per step** (Lemma A.4, eq. (2)) with a := (n-q) sigma_cor^2 + sigma_ind^2 and
  b := (f-q) sigma_cor^2 + sigma_ind^2:

      eps_step = 2 C^2 / a * (1 + sigma_cor^2 / b)                                       (eq. 2)

  i.e. the RDP of one step at order alpha is alpha * eps_step. Equivalently one step is a
  Gaussian mechanism of sensitivity 2C and noise variance

      sigma_eff^2 = a b / (b + sigma_cor^2)                                   (docs/papers/allouah2025.md §3.2, derived)

  The *matrix form* is eps_step = (1/2) (2C)^2 e_i^T Sigma^{-1} e_i with the server's view
  covariance Sigma = sigma_cor^2 K K^T + b I_{n-f} = a I - sigma_cor^2 11^T (eqs. 7-8), K the
  oriented incidence matrix of the complete graph on the n-f honest workers.
* **Composition** (Lemma A.2, Mironov 2017): RDP adds over steps, so T steps give T alpha eps_step.
* **RDP -> (eps, delta)**, two conversions, each result naming the one that produced it:

  - Mironov (Lemma A.3): eps(alpha) = rdp(alpha) + L_delta/(alpha-1). For a linear curve
    rdp(alpha) = rho alpha the optimum is alpha* = 1 + sqrt(L_delta/rho) and
    eps* = rho + 2 sqrt(rho L_delta) (proof of Theorem 4.1).
  - Balle et al. 2020 Thm 21 / Asoodeh et al. 2020 Prop. 12 (what Opacus and dp-accounting use):
    eps(alpha) = rdp(alpha) + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1),
    minimised over an order grid (default: Opacus's ``DEFAULT_ALPHAS``).
* **Theorem 4.1**: if eps in (0, L_delta) and sigma_eff^2 >= 16 C^2 T L_delta / eps^2, then
  Algorithm 1 is (eps, delta)-SecLDP; the proof gives eps* <= eps^2/(8 L_delta) + eps/sqrt(2).
* **Calibration** (docs/papers/allouah2025.md §3.3): the least noise for a target eps, in closed form from the theorem's
  condition, in closed form for Mironov's optimal conversion, and by bisection for the grid.
* **Comparison mechanisms** at the same per-worker noise (docs/papers/allouah2025.md §3.2 table, anchors 3.5):
  LDP (all secrets known, sigma_eff^2 = sigma_ind^2) and CDP (the server sees only the sum of
  the honest messages, sigma_eff^2 = (n-f) b). SecLDP always lies between them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import numpy as np
from scipy import optimize

from analytic import validate
from analytic.errors import InputError, require

Mechanism = Literal["secldp", "ldp", "cdp"]
MECHANISMS: tuple[str, ...] = ("secldp", "ldp", "cdp")

#: Opacus ``RDPAccountant.DEFAULT_ALPHAS``: 1.1 ... 10.9 (step 0.1), then 12 ... 63.
OPACUS_ORDERS: tuple[float, ...] = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))
#: dp-accounting ``DEFAULT_RDP_ORDERS``: 1.1 ... 10.9 (step 0.1), 11 ... 63, then 128, 256, 512, 1024.
DP_ACCOUNTING_ORDERS: tuple[float, ...] = tuple(
    [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024]
)

MIRONOV_OPTIMAL = "mironov_optimal"
MIRONOV_GRID = "mironov_grid"
BALLE_GRID = "balle_grid"
CONVERSIONS: dict[str, str] = {
    MIRONOV_OPTIMAL: "Mironov 2017 Prop. 3 (paper Lemma A.3) at the exact optimal order alpha* = 1 + sqrt(L/rho)",
    MIRONOV_GRID: "Mironov 2017 Prop. 3 (paper Lemma A.3), minimised over the order grid",
    BALLE_GRID: "Balle et al. 2020 Thm 21 / Asoodeh et al. 2020 Prop. 12 (Opacus, dp-accounting), "
    "minimised over the order grid",
}


# -- validation ------------------------------------------------------------------------------
_require = require
#: largest count (workers, steps) taken: every integer up to 2^53 is exact in float64, the accountant's arithmetic
MAX_COUNT = 2**53


def _as_int(value, param: str) -> int:
    return validate.integer(value, param, maximum=MAX_COUNT)


def _finite_nonneg(value: float, param: str, what: str) -> float:
    v = validate.real(value, param, allow_inf=True)  # one type check for every layer (analytic/validate.py)
    _require(math.isfinite(v), param, f"{what} must be finite (got {value!r})")
    _require(v >= 0.0, param, f"{what} must be >= 0 (got {value!r})")
    return v


def validate_workers(n, f, q) -> tuple[int, int, int]:
    """n >= 1, 0 <= f < n/2, 0 <= q <= f (Theorem 4.1's range)."""
    n, f, q = _as_int(n, "n"), _as_int(f, "f"), _as_int(q, "q")
    _require(n >= 1, "n", f"must be >= 1 (got n={n})")
    _require(f >= 0, "f", f"must be >= 0 (got f={f})")
    _require(2 * f < n, "f", f"must satisfy f < n/2 (got f={f}, n={n})")
    _require(q >= 0, "q", f"must be >= 0 (got q={q})")
    _require(q <= f, "q", f"colluders must satisfy q <= f (got q={q}, f={f})")
    return n, f, q


def validate_noise(sigma_cor2, sigma_ind2) -> tuple[float, float]:
    """Both noise variances finite and non-negative (zero is allowed: it may give no privacy)."""
    return (_finite_nonneg(sigma_cor2, "sigma_cor2", "noise variance sigma_cor^2"),
            _finite_nonneg(sigma_ind2, "sigma_ind2", "noise variance sigma_ind^2"))


def validate_clip(C) -> float:
    c = validate.real(C, "C", allow_inf=True)
    _require(math.isfinite(c) and c > 0.0, "C", f"clipping threshold C must be > 0 and finite (got {C!r})")
    return c


def validate_steps(T) -> int:
    t = _as_int(T, "T")
    _require(t >= 1, "T", f"must be >= 1 (got T={t})")
    return t


def validate_delta(delta) -> float:
    d = validate.real(delta, "delta", allow_inf=True)
    _require(0.0 < d < 1.0, "delta", f"must lie in (0, 1) (got delta={delta!r})")
    return d


def validate_orders(orders: Sequence[float]) -> np.ndarray:
    if isinstance(orders, (str, bytes)) or orders is None:  # the message is built only on failure: a repr costs
        raise InputError("orders", f"need a list of orders (got {orders!r})")  # milliseconds for a long array
    try:
        a = np.asarray(orders, dtype=float)
    except (TypeError, ValueError):
        raise InputError("orders", f"need a list of numbers (got {orders!r})") from None
    _require(a.ndim == 1 and a.size >= 1, "orders", "need a non-empty list of orders")
    _require(bool(np.all(np.isfinite(a)) and np.all(a > 1.0)), "orders", "every Rényi order must be finite and > 1")
    return a


def validate_mechanism(mechanism: str) -> str:
    _require(isinstance(mechanism, str) and mechanism in MECHANISMS, "mechanism", f"expected one of {', '.join(MECHANISMS)} (got {mechanism!r})")
    return mechanism


def log_inv_delta(delta: float) -> float:
    """L_delta := log(1/delta)."""
    return -math.log(validate_delta(delta))


# -- Gaussian RDP ------------------------------------------------------------------------------
def gaussian_rdp(alpha, sensitivity: float, sigma: float):
    """RDP of the Gaussian mechanism: alpha Delta^2 / (2 sigma^2) (Lemma A.1 with Sigma = sigma^2 I).

    ``alpha`` may be an array. sigma = 0 gives +inf (no privacy).
    """
    s = _finite_nonneg(sigma, "sigma", "noise standard deviation")
    d = _finite_nonneg(sensitivity, "sensitivity", "sensitivity")
    a = validate.array(alpha, "alpha")
    _require(bool(np.all(a > 1.0)), "alpha", f"Rényi orders must be > 1 (got {alpha!r})")
    slope = math.inf if s == 0.0 else d * d / (2.0 * s * s)
    out = a * slope
    return float(out) if out.ndim == 0 else out


def rdp_slope(sigma_eff2: float, C: float) -> float:
    """Per-step RDP per unit order, eps_step = (2C)^2 / (2 sigma_eff^2) = 2 C^2 / sigma_eff^2."""
    s2 = _finite_nonneg(sigma_eff2, "sigma_eff2", "effective noise variance")
    C = validate_clip(C)
    return math.inf if s2 == 0.0 else 2.0 * C * C / s2


# -- SecLDP: Lemma A.4 -------------------------------------------------------------------------
def lemma_a4_ab(n, f, q, sigma_cor2, sigma_ind2) -> tuple[float, float]:
    """a = (n-q) sigma_cor^2 + sigma_ind^2 and b = (f-q) sigma_cor^2 + sigma_ind^2 (Lemma A.4, step 4)."""
    n, f, q = validate_workers(n, f, q)
    c2, i2 = validate_noise(sigma_cor2, sigma_ind2)
    a, b = (n - q) * c2 + i2, (f - q) * c2 + i2
    _require(math.isfinite(a), "sigma_cor2" if (n - q) * c2 >= i2 else "sigma_ind2",
             f"too large: a = (n-q) sigma_cor^2 + sigma_ind^2 overflows float64 (n={n}, q={q})")
    return a, b


def secldp_sigma_eff2(n, f, q, sigma_cor2, sigma_ind2) -> float:
    """sigma_eff^2 = a b / (b + sigma_cor^2) (docs/papers/allouah2025.md §3.2): 1/(e_i^T Sigma^{-1} e_i), the Theorem 4.1 LHS.

    b = 0 (q = f and sigma_ind = 0) gives 0: the server recovers the honest inputs exactly.
    """
    a, b = lemma_a4_ab(n, f, q, sigma_cor2, sigma_ind2)
    c2 = float(sigma_cor2)
    if b == 0.0:
        return 0.0
    return a * (b / (b + c2))  # not (a b)/(b + c2): the product underflows for tiny noise


def ldp_sigma_eff2(sigma_ind2) -> float:
    """LDP (all secrets known to the server, equivalently sigma_cor = 0): sigma_eff^2 = sigma_ind^2."""
    return _finite_nonneg(sigma_ind2, "sigma_ind2", "noise variance sigma_ind^2")


def cdp_sigma_eff2(n, f, q, sigma_cor2, sigma_ind2) -> float:
    """CDP at the same per-worker noise: the server sees only sum_{i in H} (x_i + u_i).

    The honest-honest pairwise terms cancel in the sum and the server subtracts the colluders'
    terms, so the noise on the sum has variance (n-f) b with b = (f-q) sigma_cor^2 + sigma_ind^2.
    For q = f this is (n-f) sigma_ind^2, the sigma_cor -> infinity limit of SecLDP (anchors 3.5).
    """
    n, f, q = validate_workers(n, f, q)
    _, b = lemma_a4_ab(n, f, q, sigma_cor2, sigma_ind2)
    return (n - f) * b


def mechanism_sigma_eff2(mechanism: str, n, f, q, sigma_cor2, sigma_ind2) -> float:
    """sigma_eff^2 of one step of ``secldp``, ``ldp`` or ``cdp`` at the same per-worker noise."""
    validate_mechanism(mechanism)
    validate_workers(n, f, q)
    validate_noise(sigma_cor2, sigma_ind2)
    if mechanism == "secldp":
        return secldp_sigma_eff2(n, f, q, sigma_cor2, sigma_ind2)
    if mechanism == "ldp":
        return ldp_sigma_eff2(sigma_ind2)
    return cdp_sigma_eff2(n, f, q, sigma_cor2, sigma_ind2)


def secldp_rdp_step(n, f, q, sigma_cor2, sigma_ind2, C) -> float:
    """eps_step of eq. (2) exactly as printed: 2 C^2 / a * (1 + sigma_cor^2 / b); +inf when b = 0."""
    a, b = lemma_a4_ab(n, f, q, sigma_cor2, sigma_ind2)
    C = validate_clip(C)
    if b == 0.0:
        return math.inf
    return 2.0 * C * C / a * (1.0 + float(sigma_cor2) / b)


def complete_graph_incidence(m: int) -> np.ndarray:
    """Oriented incidence matrix K [m, m(m-1)/2] of the complete graph: +1 at i, -1 at j for pair i < j."""
    m = _as_int(m, "n")
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    K = np.zeros((m, len(pairs)))
    for p, (i, j) in enumerate(pairs):
        K[i, p], K[j, p] = 1.0, -1.0
    return K


def server_view_covariance(n, f, q, sigma_cor2, sigma_ind2) -> np.ndarray:
    """Sigma = sigma_cor^2 K K^T + b I_{n-f} (eq. 7 with the corrected size n-f; Lemma A.4 step 3).

    K K^T is the Laplacian (n-f) I - 11^T of the complete graph on the honest workers, so this
    equals a I - sigma_cor^2 11^T (eq. 8); it is built here from K, not from eq. (8).
    """
    n, f, q = validate_workers(n, f, q)
    _, b = lemma_a4_ab(n, f, q, sigma_cor2, sigma_ind2)
    K = complete_graph_incidence(n - f)
    return float(sigma_cor2) * (K @ K.T) + b * np.eye(n - f)


def secldp_rdp_step_matrix(n, f, q, sigma_cor2, sigma_ind2, C) -> float:
    """eps_step = (1/2) (2C)^2 max_i e_i^T Sigma^{-1} e_i (Lemma A.4, eqs. 7-10), by a linear solve."""
    Sigma = server_view_covariance(n, f, q, sigma_cor2, sigma_ind2)
    C = validate_clip(C)
    if np.linalg.matrix_rank(Sigma) < Sigma.shape[0]:
        return math.inf
    diag_inv = np.diag(np.linalg.solve(Sigma, np.eye(Sigma.shape[0])))
    return 0.5 * (2.0 * C) ** 2 * float(diag_inv.max())


def mechanism_rdp_step(mechanism: str, n, f, q, sigma_cor2, sigma_ind2, C) -> float:
    """Per-step RDP per unit order of ``mechanism``: 2 C^2 / sigma_eff^2 (sensitivity 2C)."""
    return rdp_slope(mechanism_sigma_eff2(mechanism, n, f, q, sigma_cor2, sigma_ind2), C)


# -- composition (Lemma A.2) -------------------------------------------------------------------
def compose(rdp_per_step, T):
    """Adaptive composition of T identical steps: RDP(alpha) = T * rdp_step(alpha) (Lemma A.2)."""
    T = validate_steps(T)
    r = validate.array(rdp_per_step, "rdp_per_step")
    out = T * r
    return float(out) if out.ndim == 0 else out


def linear_rdp_curve(orders, slope: float) -> np.ndarray:
    """The RDP curve rdp(alpha) = slope * alpha of a full-batch Gaussian mechanism (no subsampling)."""
    a = validate_orders(orders)
    with np.errstate(over="ignore"):  # a huge slope (almost no noise) is +inf RDP, i.e. no privacy
        return a * validate.real(slope, "slope", allow_inf=True)


# -- RDP -> (eps, delta) -------------------------------------------------------------------------
@dataclass(frozen=True)
class EpsilonResult:
    """(epsilon, delta)-DP obtained from an RDP curve, with the conversion and order that gave it."""

    epsilon: float
    delta: float
    alpha: float
    conversion: str
    rdp_at_alpha: float
    on_grid_edge: bool = False  # the optimum sits on the first or last order of the grid (widen it)
    grid: str = ""  # which order grid, for grid conversions

    @property
    def reference(self) -> str:
        return CONVERSIONS[self.conversion]

    def as_dict(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "alpha": self.alpha, "conversion": self.conversion,
                "rdp_at_alpha": self.rdp_at_alpha, "on_grid_edge": self.on_grid_edge, "grid": self.grid,
                "reference": self.reference}


def mironov_epsilon(alpha, rdp, delta):
    """Lemma A.3 (Mironov 2017 Prop. 3): (alpha, r)-RDP => (r + log(1/delta)/(alpha-1), delta)-DP."""
    L = log_inv_delta(delta)
    a = validate.array(alpha, "alpha")
    _require(bool(np.all(a > 1.0)), "alpha", "Rényi orders must be > 1")
    out = validate.array(rdp, "rdp") + L / (a - 1.0)
    return float(out) if out.ndim == 0 else out


def balle_epsilon(alpha, rdp, delta):
    """Balle et al. 2020 Thm 21 / Asoodeh et al. 2020 Prop. 12, the Opacus and dp-accounting conversion:

        eps(alpha) = r + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1).

    As in dp-accounting's ``compute_epsilon``: orders <= 1.01 give +inf (numerically unstable), and
    delta^2 + expm1(-r) > 0 gives 0 (the KL bound delta <= sqrt(1 - exp(-KL)) already suffices).
    """
    delta = validate_delta(delta)
    a = validate.array(alpha, "alpha")
    r = validate.array(rdp, "rdp")
    a, r = np.broadcast_arrays(a, r)
    _require(bool(np.all(a > 1.0)), "alpha", "Rényi orders must be > 1")
    with np.errstate(over="ignore", invalid="ignore"):
        eps = r + np.log1p(-1.0 / a) - np.log(delta * a) / (a - 1.0)
        eps = np.where(a <= 1.01, np.inf, eps)
        kl_enough = np.isfinite(r) & (delta**2 + np.expm1(-np.where(np.isfinite(r), r, 0.0)) > 0)
    eps = np.where(kl_enough, 0.0, eps)
    eps = np.where(np.isinf(r), np.inf, eps)
    return float(eps) if eps.ndim == 0 else eps


def _grid_minimum(orders: np.ndarray, rdp: np.ndarray, delta: float, eps: np.ndarray, conversion: str,
                  grid: str) -> EpsilonResult:
    k = int(np.argmin(eps))
    return EpsilonResult(
        epsilon=max(0.0, float(eps[k])), delta=float(delta), alpha=float(orders[k]), conversion=conversion,
        rdp_at_alpha=float(rdp[k]), on_grid_edge=bool(k in (0, orders.size - 1)) and math.isfinite(float(eps[k])),
        grid=grid)


def _grid_name(orders) -> str:
    t = tuple(float(a) for a in orders)
    if t == OPACUS_ORDERS:
        return "opacus"
    if t == DP_ACCOUNTING_ORDERS:
        return "dp_accounting"
    return f"custom ({len(t)} orders, {min(t):g}..{max(t):g})"


def epsilon_balle_grid(orders, rdp, delta) -> EpsilonResult:
    """min over the grid of :func:`balle_epsilon` (what Opacus's and dp-accounting's accountants return)."""
    a = validate_orders(orders)
    r = np.broadcast_to(np.asarray(rdp, dtype=float), a.shape)
    delta = validate_delta(delta)
    return _grid_minimum(a, r, delta, np.asarray(balle_epsilon(a, r, delta)), BALLE_GRID, _grid_name(orders))


def epsilon_mironov_grid(orders, rdp, delta) -> EpsilonResult:
    """min over the grid of :func:`mironov_epsilon` (Lemma A.3 on an order grid)."""
    a = validate_orders(orders)
    r = np.broadcast_to(np.asarray(rdp, dtype=float), a.shape)
    delta = validate_delta(delta)
    return _grid_minimum(a, r, delta, np.asarray(mironov_epsilon(a, r, delta)), MIRONOV_GRID, _grid_name(orders))


def epsilon_mironov_optimal(rho: float, delta: float) -> EpsilonResult:
    """Lemma A.3 at the exact optimal order for a linear curve rdp(alpha) = rho alpha (Thm 4.1 proof):

        alpha* = 1 + sqrt(L_delta / rho),    eps* = rho + 2 sqrt(rho L_delta).

    rho = 0 gives eps = 0 (alpha* = inf); rho = inf gives eps = inf.
    """
    L = log_inv_delta(delta)
    rho = validate.real(rho, "rho", allow_inf=True)
    _require(not math.isnan(rho) and rho >= 0.0, "rho", f"RDP slope must be >= 0 (got {rho!r})")
    if rho == math.inf:
        return EpsilonResult(math.inf, float(delta), math.nan, MIRONOV_OPTIMAL, math.inf)
    if rho == 0.0:
        return EpsilonResult(0.0, float(delta), math.inf, MIRONOV_OPTIMAL, 0.0)
    alpha = 1.0 + math.sqrt(L / rho)
    return EpsilonResult(rho + 2.0 * math.sqrt(rho * L), float(delta), alpha, MIRONOV_OPTIMAL, rho * alpha)


# -- the whole account of T steps ---------------------------------------------------------------
@dataclass(frozen=True)
class Account:
    """The privacy spend of T steps of one mechanism: per-step RDP and eps under each conversion."""

    mechanism: str
    sigma_eff2: float
    C: float
    T: int
    delta: float
    rdp_per_step: float  # per unit order: RDP(alpha) of one step = alpha * rdp_per_step
    mironov: EpsilonResult
    grid: EpsilonResult

    @property
    def z_eff(self) -> float:
        """Noise multiplier sigma_eff / (2C) (Opacus/dp-accounting convention, sensitivity 2C)."""
        return math.sqrt(self.sigma_eff2) / (2.0 * self.C)

    @property
    def rdp_total_slope(self) -> float:
        return self.T * self.rdp_per_step


def account_sigma_eff2(sigma_eff2: float, C, T, delta, orders=OPACUS_ORDERS, mechanism: str = "gaussian") -> Account:
    """Account for T steps of a Gaussian mechanism of sensitivity 2C and noise variance sigma_eff^2."""
    C, T, delta = validate_clip(C), validate_steps(T), validate_delta(delta)
    e = rdp_slope(sigma_eff2, C)
    rho = compose(e, T)
    a = validate_orders(orders)
    return Account(mechanism, float(sigma_eff2), C, T, delta, e, epsilon_mironov_optimal(rho, delta),
                   epsilon_balle_grid(a, linear_rdp_curve(a, rho) if math.isfinite(rho) else np.full(a.shape, np.inf),
                                      delta))


def account(mechanism: str, n, f, q, sigma_cor2, sigma_ind2, C, T, delta, orders=OPACUS_ORDERS) -> Account:
    """Privacy spend of T steps of ``secldp``, ``ldp`` or ``cdp`` (Lemma A.4, A.2, A.3; Balle 2020)."""
    s2 = mechanism_sigma_eff2(mechanism, n, f, q, sigma_cor2, sigma_ind2)
    return account_sigma_eff2(s2, C, T, delta, orders, mechanism)


# -- Theorem 4.1 ----------------------------------------------------------------------------------
def validate_theorem_epsilon(epsilon, delta) -> float:
    """Theorem 4.1 needs eps in (0, log(1/delta)); outside it the theorem says nothing."""
    L = log_inv_delta(delta)
    e = validate.real(epsilon, "epsilon", allow_inf=True)
    _require(math.isfinite(e) and e > 0.0, "epsilon", f"must be > 0 (got epsilon={epsilon!r})")
    _require(e < L, "epsilon",
             f"Theorem 4.1 needs epsilon < log(1/delta) = {L:.6g} (got epsilon={e:g}, delta={float(delta):g})")
    return e


def theorem41_required_sigma_eff2(epsilon, T, delta, C) -> float:
    """R := 16 C^2 T log(1/delta) / eps^2, the right-hand side of Theorem 4.1's condition."""
    e = validate_theorem_epsilon(epsilon, delta)
    return 16.0 * validate_clip(C) ** 2 * validate_steps(T) * log_inv_delta(delta) / (e * e)


def theorem41_condition(n, f, q, sigma_cor2, sigma_ind2, C, T, delta, epsilon) -> bool:
    """Theorem 4.1: sigma_eff^2 >= 16 C^2 T log(1/delta) / eps^2 (with eps < log(1/delta))."""
    return secldp_sigma_eff2(n, f, q, sigma_cor2, sigma_ind2) >= theorem41_required_sigma_eff2(epsilon, T, delta, C)


def theorem41_certified_epsilon(sigma_eff2, C, T, delta) -> float:
    """The smallest eps for which the condition holds at this noise: 4 C sqrt(T log(1/delta)) / sigma_eff.

    Theorem 4.1 certifies it only when it is < log(1/delta) (see :func:`theorem41_applies`).
    """
    s2 = _finite_nonneg(sigma_eff2, "sigma_eff2", "effective noise variance")
    if s2 == 0.0:
        return math.inf
    return 4.0 * validate_clip(C) * math.sqrt(validate_steps(T) * log_inv_delta(delta) / s2)


def theorem41_applies(sigma_eff2, C, T, delta) -> bool:
    """Whether some eps in (0, log(1/delta)) satisfies the condition at this noise."""
    return theorem41_certified_epsilon(sigma_eff2, C, T, delta) < log_inv_delta(delta)


def theorem41_epsilon_bound(epsilon, delta) -> float:
    """The proof's bound on eps* under the condition: eps^2 / (8 log(1/delta)) + eps / sqrt(2) (<= eps)."""
    e = validate_theorem_epsilon(epsilon, delta)
    return e * e / (8.0 * log_inv_delta(delta)) + e / math.sqrt(2.0)


# -- calibration (docs/papers/allouah2025.md §3.3, 3.4) ------------------------------------------------------------------
def noise_shape(mechanism: str, ratio: float | None = None) -> tuple[float, float]:
    """A unit noise shape (sigma_cor^2, sigma_ind^2) for a std ratio r = sigma_cor/sigma_ind.

    ratio = inf means sigma_ind = 0 (pure correlated noise); LDP ignores the ratio (sigma_cor = 0).
    Defaults: SecLDP r = 1 (Corollary 4.1), CDP r = 0.
    """
    validate_mechanism(mechanism)
    if mechanism == "ldp":
        return 0.0, 1.0
    r = (1.0 if mechanism == "secldp" else 0.0) if ratio is None else validate.real(ratio, "ratio", allow_inf=True)
    _require(not math.isnan(r) and r >= 0.0, "ratio", f"must be >= 0 or inf (got {ratio!r})")
    if math.isinf(r):
        return 1.0, 0.0
    return r * r, 1.0


def scale_noise_to_sigma_eff2(target_sigma_eff2: float, mechanism: str, n, f, q, shape) -> tuple[float, float]:
    """(sigma_cor^2, sigma_ind^2) = t * shape with sigma_eff^2 = target.

    sigma_eff^2 is homogeneous of degree one in (sigma_cor^2, sigma_ind^2) for every mechanism,
    so t = target / sigma_eff^2(shape) exactly.
    """
    unit = mechanism_sigma_eff2(mechanism, n, f, q, *shape)
    _require(unit > 0.0, "ratio",
             f"this noise shape gives no privacy for {mechanism} (sigma_eff^2 = 0; with q = f the server cancels "
             "all correlated noise, so independent noise sigma_ind > 0 is needed)")
    t = validate.real(target_sigma_eff2, "target_sigma_eff2", minimum=0.0) / unit
    return t * shape[0], t * shape[1]


def min_sigma_eff2_mironov(target_epsilon, T, delta, C) -> float:
    """Least sigma_eff^2 with eps* <= target (Mironov, optimal order), in closed form.

    eps* = rho + 2 sqrt(rho L) = target  <=>  sqrt(rho) = sqrt(L + eps) - sqrt(L), rho = 2 C^2 T / sigma_eff^2.
    """
    e = validate.real(target_epsilon, "target_epsilon", allow_inf=True)
    _require(math.isfinite(e) and e > 0.0, "target_epsilon", f"must be > 0 (got {target_epsilon!r})")
    L = log_inv_delta(delta)
    C, T = validate_clip(C), validate_steps(T)
    root = e / (math.sqrt(L + e) + math.sqrt(L))  # = sqrt(L + e) - sqrt(L) without cancellation
    _require(root * root > 0.0 and math.isfinite(2.0 * C * C * T / (root * root)), "target_epsilon",
             f"too small: the noise it needs overflows float64 (got target_epsilon={target_epsilon!r})")
    s2 = 2.0 * C * C * T / (root * root)
    while epsilon_mironov_optimal(compose(rdp_slope(s2, C), T), delta).epsilon > e:  # rounding: never exceed
        s2 = math.nextafter(s2, math.inf)
    return s2


def min_sigma_eff2_grid(target_epsilon, T, delta, C, orders=OPACUS_ORDERS, rtol: float = 1e-12) -> float:
    """Least sigma_eff^2 whose grid (Balle) eps is <= target, by bisection on log sigma_eff^2.

    eps is non-increasing in sigma_eff^2 at every order, hence on the grid; the returned value is
    the upper end of the final bracket, so it never gives more than the target.
    """
    e = validate.real(target_epsilon, "target_epsilon", allow_inf=True)
    _require(math.isfinite(e) and e > 0.0, "target_epsilon", f"must be > 0 (got {target_epsilon!r})")
    C, T, delta = validate_clip(C), validate_steps(T), validate_delta(delta)
    a = validate_orders(orders)

    def eps_at(s2: float) -> float:
        return epsilon_balle_grid(a, a * (2.0 * C * C * T / s2), delta).epsilon

    hi = min_sigma_eff2_mironov(e, T, delta, C)
    for _ in range(2000):
        if eps_at(hi) <= e:
            break
        hi *= 2.0
    else:  # pragma: no cover - needs an absurd target
        raise InputError("target_epsilon", f"epsilon={e:g} cannot be reached on this order grid")
    lo = hi
    while eps_at(lo) <= e and lo > 1e-300:
        lo /= 2.0
    while hi - lo > rtol * hi:
        mid = math.sqrt(lo * hi)
        if mid <= lo or mid >= hi:
            break
        if eps_at(mid) <= e:
            hi = mid
        else:
            lo = mid
    return hi


def theorem41_min_equal_noise(n, f, q, epsilon, T, delta, C) -> float:
    """Least s^2 = sigma_cor^2 = sigma_ind^2 meeting Theorem 4.1: R (f-q+2) / ((n-q+1)(f-q+1)) (docs/papers/allouah2025.md §3.3).

    For q = f this is 2R/(n-f+1), n-f+1 over 2 times less than LDP's R (the n-fold saving, C9).
    """
    n, f, q = validate_workers(n, f, q)
    R = theorem41_required_sigma_eff2(epsilon, T, delta, C)
    return R * (f - q + 2) / ((n - q + 1) * (f - q + 1))


def theorem41_min_correlated_noise(n, f, q, epsilon, T, delta, C) -> float:
    """Least sigma_cor^2 with sigma_ind = 0 and q < f: R (f-q+1) / ((n-q)(f-q)) (docs/papers/allouah2025.md §3.3)."""
    n, f, q = validate_workers(n, f, q)
    _require(q < f, "q", f"sigma_ind = 0 needs q < f (got q={q}, f={f}): with q = f it gives no privacy")
    R = theorem41_required_sigma_eff2(epsilon, T, delta, C)
    return R * (f - q + 1) / ((n - q) * (f - q))


def theorem41_min_ldp_noise(epsilon, T, delta, C) -> float:
    """LDP (sigma_cor = 0): sigma_ind^2 >= R."""
    return theorem41_required_sigma_eff2(epsilon, T, delta, C)


def corollary41_noise(n, f, epsilon, T, delta, C, enforce_range: bool = True) -> float:
    """Corollary 4.1: sigma_cor^2 = sigma_ind^2 = 32 C^2 T log(1/delta) / (eps^2 (n-f)).

    The corollary assumes eps < log(1/delta); ``enforce_range=False`` evaluates the formula outside
    that range anyway (to show what it gives there, docs/papers/allouah2025.md §7 item 3) instead of refusing.
    """
    n, f, _ = validate_workers(n, f, 0)
    e = validate_theorem_epsilon(epsilon, delta) if enforce_range else validate.real(epsilon, "epsilon", allow_inf=True)
    _require(math.isfinite(e) and e > 0.0, "epsilon", f"must be > 0 (got epsilon={epsilon!r})")
    return 32.0 * validate_clip(C) ** 2 * validate_steps(T) * log_inv_delta(delta) / (e * e * (n - f))


@dataclass(frozen=True)
class Calibration:
    """The least noise of one mechanism and shape for a target eps, under one conversion."""

    mechanism: str
    conversion: str
    target_epsilon: float
    sigma_eff2: float
    sigma_cor2: float
    sigma_ind2: float
    achieved: EpsilonResult

    def as_dict(self) -> dict:
        return {"mechanism": self.mechanism, "conversion": self.conversion, "target_epsilon": self.target_epsilon,
                "sigma_eff2": self.sigma_eff2, "sigma_cor2": self.sigma_cor2, "sigma_ind2": self.sigma_ind2,
                "sigma_cor": math.sqrt(self.sigma_cor2), "sigma_ind": math.sqrt(self.sigma_ind2),
                "achieved_epsilon": self.achieved.epsilon, "alpha": self.achieved.alpha}


def calibrate(mechanism: str, n, f, q, target_epsilon, T, delta, C, *, ratio: float | None = None,
              conversion: str = BALLE_GRID, orders=OPACUS_ORDERS) -> Calibration:
    """The least noise (for a fixed shape, docs/papers/allouah2025.md §3.3) whose eps under ``conversion`` is <= target."""
    validate_mechanism(mechanism)
    shape = noise_shape(mechanism, ratio)
    if conversion == MIRONOV_OPTIMAL:
        s2 = min_sigma_eff2_mironov(target_epsilon, T, delta, C)
    elif conversion == BALLE_GRID:
        s2 = min_sigma_eff2_grid(target_epsilon, T, delta, C, orders)
    else:
        raise InputError("conversion", f"expected {MIRONOV_OPTIMAL} or {BALLE_GRID} (got {conversion!r})")
    for _ in range(64):  # scaling the shape rounds sigma_eff^2 by an ulp or two: step up until eps <= target
        c2, i2 = scale_noise_to_sigma_eff2(s2, mechanism, n, f, q, shape)
        acc = account(mechanism, n, f, q, c2, i2, C, T, delta, orders)
        achieved = acc.mironov if conversion == MIRONOV_OPTIMAL else acc.grid
        if achieved.epsilon <= float(target_epsilon):
            break
        s2 = math.nextafter(s2, math.inf) * (1.0 + 2.0**-52)
    return Calibration(mechanism, conversion, float(target_epsilon), acc.sigma_eff2, c2, i2, achieved)


def bisect_increasing(fun: Callable[[float], float], target: float, lo: float, hi: float) -> float:
    """Root of fun(x) = target for an increasing fun on [lo, hi] (brentq to machine precision)."""
    return float(optimize.brentq(lambda x: fun(x) - target, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps,
                                 maxiter=500))
