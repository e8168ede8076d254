"""dutta2023 (Dutta, Doan, Reed, arXiv:2312.10189): Theorem 1, Remark 1, condition (9) and the proof's
constants, as Bounds and small functions.

Notation (docs/papers/dutta2023.md §1): N agents, f the CE filter's parameter (= the number of Byzantine agents in
the proof), H = |honest set| (= N - f in the proof), T the local steps per round (the paper's
calligraphic T), alpha the constant step size, L the per-agent smoothness constant (Assumption 1),
mu the PL / quadratic-growth constant of the honest average q^H (Assumption 2, eq. (5)), sigma^2 the
gradient-noise variance (Assumption 3, eq. (6)), e_k = q^H(x_k) - q^H(x*_H) the optimality gap.

The agents' costs of the paper's simulations are q^i(x) = phi(||A^i x - b^i||):
least squares phi(r) = r^2, problem (11) phi(r) = r^2 + sin^2 r, the non-convex PL variant
phi(r) = r^2 + 3 sin^2 r (Karimi et al.'s x^2 + 3 sin^2 x), problem (12) phi(r) = 1/(1 + exp(-r)).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import optimize

from analytic.bounds import Bound
from analytic.errors import require
from analytic.papers import Paper

PAPER = Paper(
    key="dutta2023",
    title="Resilient Federated Learning under Byzantine Attack in Distributed Nonconvex Optimization with "
          "2f-Redundancy",
    authors="Amit Dutta, Thinh T. Doan, Jeffrey H. Reed",
    venue="arXiv:2312.10189 [math.OC]", year=2023, url="https://arxiv.org/abs/2312.10189",
    summary=(
        "Federated local SGD with the comparative-elimination (CE) filter: the server keeps the N - f models closest "
        "to its current model and averages them. Theorem 1 claims, under L-smoothness, the PL condition, 2f-redundancy, "
        "a step alpha <= mu/(72 L^2 T) and f/(N-f) <= mu/(3L), that the optimality gap falls linearly, at rate "
        "1 - alpha mu T/36, to a floor set by the gradient noise; Remark 1 adds O(1/k) for steps ~ 1/k and exact "
        "convergence without noise. fedverify measured the constants of the paper's problems exactly and ran Algorithm 1 "
        "inside the hypotheses, under six attacks, on least squares and on a non-convex PL problem (phi = r^2 + 1.5 sin^2 r). "
        "There Theorem 1 held at every round, but loosely: the measured log-contraction is at least 36 times the bound's, "
        "and the settled floor lies at least two orders of magnitude below the printed floor; the plain mean in place of "
        "CE violates it. What the theorem does not give: the floor is proportional to sigma^2 but its Byzantine part does not "
        "shrink with the step size, so Remark 1's O(1/k) stalls at a floor under the CE-evasion attack (a mini-batch "
        "removes it, as Remark 1 says); without 2f-redundancy (label noise) CE stalls even with exact gradients. The "
        "paper's 'non-convex' problem (11) is convex, its problem (12) is neither smooth nor PL, its simulations use "
        "f = 8 and 10 of N = 50, which condition (9) excludes on any data with Assumption 2 read globally "
        "(mu_PL <= L/2 for problem (11), so f <= 7; read at the iterates as printed, only f > 12 is excluded), and "
        "the proof's step size mu^2/(72 L^3 T) does not give the claimed contraction (mu^2/(158 L^3 T) does once eq. (21) "
        "is fixed). Outside (9) CE still converges exactly. Whether CE beats CWTM and multi-Krum (Fig. 1) cannot be "
        "decided without the attack, which the paper does not name: with paired noise CE is ahead of both under an "
        "ALIE-style attack, CWTM ends below CE under the CE-evasion and sign-flip attacks, and CE and multi-Krum tie "
        "exactly when every filter removes the attack. Inside the proof, the inequalities (13a)-(13c) hold (loosely) on the "
        "non-convex PL problem, but the bound on E||V_x||^2 applies a fixed agent's drift bound to the farthest honest agent: "
        "an omniscient attack makes E||V_x||^2 2.15 times the printed bound (exact order-statistic quadrature). 'Since the "
        "objectives satisfy PL, x* is unique' is false (problem (11) with rank-deficient data has a line of minimisers), and "
        "the proof does not need it. On problem (12) the paper's metric, the mean local squared gradient norm, vanishes at "
        "infinity and not at the minimiser, so it ranks a diverged run ahead of CE. Against the non-faulty baseline of Fig. 1, "
        "CE loses far less than the Byzantine term of (10)."),
    not_checked=(
        ("Section IV, line 143 (Fig. 2): 'Local SGD with CE filter out performs other byzantine filters' on problem (12)",
         "the attack of the figure is not stated and the comparison is attack-dependent (as for Fig. 1, dutta2023.c17); "
         "dutta2023.x05 shows that the figure's metric cannot decide it and reports the comparison by the optimality gap per "
         "attack (CE ahead of a competitor or undecided, depending on the attack and the competitor) without a verdict on the unstated one"),
        ("Appendix VI-A, eq. (13): the inequalities for heterogeneous honest agents (different A^i) on a non-convex PL problem",
         "dutta2023.x02 tests them on the non-convex PL problem of c10/c11, whose honest agents share one cost; a non-convex "
         "PL instance with heterogeneous agents and exact mu that also meets condition (9) is not available here (P1-nc with "
         "Gaussian data has mu/L = 0.02: f = 0 only)"),
    ),
)

k, e0, alpha, mu, L, T, sigma, f, H, N, m = sp.symbols("k e0 alpha mu L T sigma f H N m", positive=True)

#: The bound's per-round contraction factor rho_bd = 1 - alpha mu T / 36 (eq. (10)).
RHO_BOUND = 1 - alpha * mu * T / 36

#: Theorem 1, eq. (10), as printed (with k the number of rounds done).
THEOREM_1 = Bound(
    name="Theorem 1, eq. (10)",
    expr=RHO_BOUND**k * e0 + 180 * L * T * alpha * sigma**2 / mu + 72 * T * sigma**2 * f / (mu * H),
    kind="upper",
    statement=("Under Assumptions 1-3, 2f-redundancy, a constant step alpha <= mu/(72 L^2 T) (eq. (8)) and "
               "f/(N-f) <= mu/(3L) (eq. (9)), Algorithm 1 satisfies E[q^H(x_k) - q^H*] <= (1 - alpha mu T/36)^k e_0 "
               "+ 180 L T alpha sigma^2/mu + 72 T sigma^2 f/(mu |H|)."),
    source="dutta2023, Theorem 1, eqs. (8)-(10)",
    hidden_constant=False,
    typst="EE[q^cal(H)(macron(x)_k) - q^cal(H)_*] <= (1 - (alpha mu cal(T))/36)^k e_0 + (180 L cal(T) alpha sigma^2)/mu "
          "+ (72 cal(T) sigma^2 f)/(mu |cal(H)|)",
)

#: Theorem 1 with exact gradients (sigma = 0) read as a rate: e_k <= rho_bd^k e_0 for every k >= 1 is the same statement
#: as -ln(e_k/e_0)/k >= -ln(1 - alpha mu T/36), the bound's per-round log-contraction (a lower bound on the measured one).
THEOREM_1_LOG_RATE = Bound(
    name="Theorem 1 (sigma = 0): per-round log-contraction",
    expr=-sp.log(RHO_BOUND),
    kind="lower",
    statement=("With exact gradients eq. (10) reads e_k <= (1 - alpha mu T/36)^k e_0 at every round k, i.e. the average "
               "log-contraction -ln(e_k/e_0)/k is at least -ln(1 - alpha mu T/36)."),
    source="dutta2023, Theorem 1, eq. (10) with sigma = 0",
    hidden_constant=False,
    typst="-1/k ln(e_k / e_0) >= -ln(1 - (alpha mu cal(T))/36)",
)

#: The floor of eq. (10): its limit as k -> infinity.
THEOREM_1_FLOOR = Bound(
    name="floor of eq. (10)",
    expr=180 * L * T * alpha * sigma**2 / mu + 72 * T * sigma**2 * f / (mu * H),
    kind="upper",
    statement="The optimality gap of Algorithm 1 settles below 180 L T alpha sigma^2/mu + 72 T sigma^2 f/(mu |H|).",
    source="dutta2023, Theorem 1, eq. (10) (k -> infinity)",
    hidden_constant=False,
    typst="E_oo = (180 L cal(T) alpha sigma^2)/mu + (72 cal(T) sigma^2 f)/(mu |cal(H)|)",
)

#: The bound the proof's own steps give once its constants are fixed (docs/papers/dutta2023.md §4.4; still conditional on the
#: unproven inequalities (13)): valid for alpha <= mu^2/(158 L^3 T) and f/|H| <= mu/(3L).
RECONSTRUCTED = Bound(
    name="reconstructed bound (proof of Theorem 1, constants corrected)",
    expr=(1 - alpha * mu * T / 18)**k * e0 + 108 * L * T * alpha * sigma**2 / mu + 36 * sigma**2 * f / (L * H),
    kind="upper",
    statement=("With the proof's constants corrected: E e_k <= (1 - alpha mu T/18)^k e_0 + 108 L T alpha sigma^2/mu "
               "+ 36 sigma^2 f/(L |H|), for alpha <= mu^2/(158 L^3 T)."),
    source="dutta2023, proof of Theorem 1 (Appendix VI-A) with its constants corrected (derived)",
    hidden_constant=False,
    typst="EE e_k <= (1 - (alpha mu cal(T))/18)^k e_0 + (108 L cal(T) alpha sigma^2)/mu + (36 sigma^2 f)/(L |cal(H)|)",
)

#: Step sizes: eq. (8) as printed, the one the proof invokes, and the one its steps actually need.
STEP_SIZE_PRINTED = mu / (72 * L**2 * T)
STEP_SIZE_PROOF = mu**2 / (72 * L**3 * T)
STEP_SIZE_CORRECTED = mu**2 / (158 * L**3 * T)

#: Step 9 of the proof (Appendix VI-A), the coefficient of E||grad q^H(x_k)||^2 with |B_k| = f, as printed.
STEP9_COEFFICIENT = (-(1 - 17 * L * f / (6 * mu * H)) * alpha * T + 7 * L**3 * T**2 * alpha**2 / (2 * mu**2)
                     + 4 * L**3 * T**2 * alpha**2 * f**2 / (mu**2 * H**2))
#: The same with (21) fixed: both copies of E||V_x||^2 carry L/2, so the |B_k|^2 coefficient is 8 L^3 (docs/papers/dutta2023.md §4.4 (c)).
STEP9_COEFFICIENT_CORRECTED = STEP9_COEFFICIENT.subs(4 * L**3 * T**2 * alpha**2 * f**2 / (mu**2 * H**2),
                                                     8 * L**3 * T**2 * alpha**2 * f**2 / (mu**2 * H**2))
#: Step 11's claim: the coefficient is at most -alpha T / 36.
STEP11_CLAIM = -alpha * T / 36

#: The Byzantine floor term of (10) as printed (mu below) and as the unrolled recursion gives it (L below).
BYZANTINE_FLOOR_PRINTED = 72 * T * sigma**2 * f / (mu * H)
BYZANTINE_FLOOR_UNROLLED = 72 * T * sigma**2 * f / (L * H)

#: Remark 1: a mini-batch of size m replaces sigma^2 by sigma^2/m, so the floor falls as 1/m.
MINIBATCH_FLOOR = Bound(
    name="Remark 1: floor with mini-batches of size m",
    expr=THEOREM_1_FLOOR.expr.subs(sigma, sigma / sp.sqrt(m)),
    kind="tight",
    statement=("Each agent sampling a mini-batch of size m replaces sigma^2 by sigma^2/m in (10), so the optimality "
               "error can be made arbitrarily close to zero."),
    source="dutta2023, Remark 1",
    hidden_constant=False,
    typst="E_oo (sigma^2 -> sigma^2 / m) prop 1/m",
)

#: Remark 1: with alpha_k ~ 1/k the convergence rate is O(1/k) (no constants, no proof).
DECAYING_STEP_RATE = Bound(
    name="Remark 1: O(1/k) with alpha_k ~ 1/k",
    expr=1 / k,
    kind="tight",
    statement="When alpha_k ~ 1/k, the convergence rate is O(1/k).",
    source="dutta2023, Remark 1",
    hidden_constant=True,
    typst="EE e_k = O(1/k)",
)

#: Remark 1 / R1-b: with f = 0 the floor is the alpha-dependent part, linear in alpha.
FLOOR_IN_STEP = Bound(
    name="floor of (10) with f = 0, in alpha",
    expr=180 * L * T * alpha * sigma**2 / mu,
    kind="tight",
    statement="Without Byzantine agents the floor of (10) is 180 L T alpha sigma^2/mu: proportional to the step size.",
    source="dutta2023, Theorem 1, eq. (10); Remark 1 (the step-size-dependent part of the ball)",
    hidden_constant=False,
    typst="(180 L cal(T) alpha sigma^2)/mu prop alpha",
)

#: The floor of (10) in sigma^2 at fixed alpha and f: both terms are proportional to sigma^2.
FLOOR_IN_VARIANCE = Bound(
    name="floor of (10) in sigma^2",
    expr=(180 * L * T * alpha / mu + 72 * T * f / (mu * H)) * sp.Symbol("sigma2", positive=True),
    kind="tight",
    statement="Both terms of the floor of (10) are proportional to the gradient-noise variance sigma^2.",
    source="dutta2023, Theorem 1, eq. (10); Remark 1",
    hidden_constant=False,
    typst="E_oo prop sigma^2",
)


#: Remark 1 / R1-b read as numbers (Claim 12 (c)): under an attack CE keeps, the floor's Byzantine part 72 T sigma^2 f/(mu |H|)
#: has no alpha, so the floor at alpha L = 0.02 is at least half the floor at alpha L = 0.1 (the alpha-part alone: 0.2).
ALPHA_FREE_FLOOR = Bound(
    name="Remark 1: the Byzantine floor does not shrink with alpha",
    expr=sp.Rational(1, 2),
    kind="lower",
    statement=("Under an attack CE keeps (CE evasion), the floor at alpha L = 0.02 is at least half the floor at alpha L = "
               "0.1: the Byzantine part of (10), 72 T sigma^2 f/(mu |H|), does not depend on alpha."),
    source="dutta2023, Theorem 1, eq. (10), and Remark 1",
    hidden_constant=False,
    typst="E_oo (alpha L = 0.02) >= 1/2 E_oo (alpha L = 0.1)",
)

#: Remark 1 / docs/papers/dutta2023.md §5.6 read as numbers (Claim 12 (d)): CE removes an attack outside the honest radius entirely, so the floor
#: under far random vectors is at most 1.5 x the floor of the N - f honest agents alone.
CE_REMOVES_FAR_ATTACK = Bound(
    name="CE removes attacks outside the honest radius",
    expr=sp.Rational(3, 2),
    kind="upper",
    statement=("Against far random vectors (100 x the honest radius) the floor of Algorithm 1 is at most 1.5 x the floor "
               "of the N - f honest agents averaged without a filter: CE eliminates the attack entirely."),
    source="dutta2023, Algorithm 1 (CE filter) and Remark 1",
    hidden_constant=False,
    typst="E_oo (A 1) <= 3/2 E_oo (cal(H) only)",
)

#: The paper's Figs. 2-3 ("as the local iterations increase, Algorithm 1 converges faster") with (10)'s contraction
#: 1 - alpha mu T/36, whose log-rate per round grows like T (Claim 14): per round, T = 3 local steps contract at least
#: twice as fast in log-rate as T = 1, and per local step the log-rate stays within a factor 2 of T = 1's.
LOCAL_STEPS_SPEEDUP = Bound(
    name="Figs. 2-3: T = 3 converges at least twice as fast per round as T = 1",
    expr=sp.Integer(2),
    kind="lower",
    statement=("As the local iterations increase Algorithm 1 converges faster: ln rho(T = 3) / ln rho(T = 1) >= 2 (the "
               "bound's ratio is 3)."),
    source="dutta2023, Section IV (Figs. 2-3) and Theorem 1 (rate 1 - alpha mu T/36)",
    hidden_constant=False,
    typst="ln rho(3) / ln rho(1) >= 2",
)
PER_STEP_RATE_LOW = Bound(
    name="per local step, the log-rate is at least half of T = 1's", expr=sp.Rational(1, 2), kind="lower",
    statement="ln rho(T) / (T ln rho(1)) >= 1/2: the per-local-step rate is roughly unchanged by T.",
    source="dutta2023, Theorem 1 (rate 1 - alpha mu T/36)", hidden_constant=False,
    typst="ln rho(cal(T)) / (cal(T) ln rho(1)) >= 1/2")
PER_STEP_RATE_HIGH = Bound(
    name="per local step, the log-rate is at most twice T = 1's", expr=sp.Integer(2), kind="upper",
    statement="ln rho(T) / (T ln rho(1)) <= 2: the per-local-step rate is roughly unchanged by T.",
    source="dutta2023, Theorem 1 (rate 1 - alpha mu T/36)", hidden_constant=False,
    typst="ln rho(cal(T)) / (cal(T) ln rho(1)) <= 2")


def rho_bound(alpha_: float, mu_: float, T_: int) -> float:
    """rho_bd = 1 - alpha mu T / 36, the per-round contraction of eq. (10)."""
    return 1.0 - alpha_ * mu_ * T_ / 36.0


def condition_9(f_: int, N_: int, mu_: float, L_: float) -> bool:
    """Condition (9): f/(N - f) <= mu/(3L)."""
    require(0 <= f_ < N_, "f", f"need 0 <= f < N, got f={f_}, N={N_}")
    return f_ / (N_ - f_) <= mu_ / (3.0 * L_) * (1 + 1e-12)


def f_max_condition_9(N_: int, mu_: float, L_: float) -> int:
    """The largest f allowed by condition (9): floor(N r / (1 + r)) with r = mu/(3L) (docs/papers/dutta2023.md §4.2).
    Since mu <= L, it never exceeds N/4."""
    require(N_ >= 1, "N", f"must be >= 1, got {N_}")
    require(mu_ > 0 and L_ > 0, "mu", f"need mu > 0 and L > 0, got mu={mu_}, L={L_}")
    r = mu_ / (3.0 * L_)
    return int(math.floor(N_ * r / (1.0 + r) * (1 + 1e-12)))


# -- the paper's agent costs: phi(r) with r = ||A^i x - b^i|| -----------------------------------------
def phi_sin(rho, kappa: float):
    """phi(r) = r^2 + kappa sin^2 r: problem (11) at kappa = 1, the non-convex PL variant at kappa = 3."""
    return rho**2 + kappa * np.sin(rho) ** 2


def dphi_sin(rho, kappa: float):
    """phi'(r) = 2 r + kappa sin 2r."""
    return 2 * rho + kappa * np.sin(2 * rho)


def curvature_bound_sin(kappa: float) -> float:
    """sup_r max(|phi''(r)|, phi'(r)/r) = 2 + 2 kappa for phi = r^2 + kappa sin^2 r: the Hessian of
    q^i = phi(||A^i x - b^i||) lies between -(2 kappa - 2)_+ A^T A and (2 + 2 kappa) A^T A, so L = (2 + 2 kappa) max ||A^i||^2."""
    return 2.0 + 2.0 * kappa


def isotropic_pl_constant(kappa: float) -> tuple[float, float]:
    """(mu_PL, argmin rho) of q(x) = phi(||x - x*||), phi = r^2 + kappa sin^2 r: the PL ratio
    ||grad q||^2 / (2 q) depends on rho = ||x - x*|| only and equals phi'(rho)^2 / (2 phi(rho)); its infimum,
    by a grid over (0, 50] refined with a bounded scalar minimisation (the ratio tends to 2 (1 + kappa) at 0
    and to 2 at infinity). Problem (11) with A^{iT} A^i = I: 1.07423 at rho = 2.1156; kappa = 3: 0.17553 at
    2.2017 (docs/papers/dutta2023.md §3, Assumption 2)."""
    require(kappa >= 0, "kappa", f"must be >= 0, got {kappa}")
    rho = np.linspace(1e-3, 50.0, 200_001)
    ratio = dphi_sin(rho, kappa) ** 2 / (2 * phi_sin(rho, kappa))
    i = int(np.argmin(ratio))
    lo, hi = rho[max(i - 1, 0)], rho[min(i + 1, rho.size - 1)]
    res = optimize.minimize_scalar(lambda r: dphi_sin(r, kappa) ** 2 / (2 * phi_sin(r, kappa)), bounds=(lo, hi),
                                   method="bounded", options={"xatol": 1e-12})
    return float(min(res.fun, ratio[i])), float(res.x)


def p1_pl_bounds(lambda_min_sum: float, n_honest: int) -> tuple[float, float]:
    """Problem (11) with realizable labels: lambda_min(sum_H A^T A)/(2|H|) <= mu_PL <= 4 lambda_min(sum_H A^T A)/|H|
    (docs/papers/dutta2023.md §3: phi(r) >= r^2 gives quadratic growth with 2 lambda_min/|H|, which for a convex function gives PL
    with a quarter of it; the upper end is the local PL constant at x*, where the Hessian is 4 A^T A / |H|)."""
    lam = lambda_min_sum / n_honest
    return lam / 2.0, 4.0 * lam


def redundancy_by_rank(N_: int, f_: int, rows: int, dim: int, label_noise: bool) -> bool:
    """R3 (docs/papers/dutta2023.md §1.3): for costs phi(||A^i x - b^i||) with Gaussian A^i [rows x dim] and realizable labels,
    2f-redundancy holds almost surely iff every N - 2f honest agents stack to rank dim, i.e. (N - 2f) rows >= dim;
    with label noise it fails (subset minimisers differ by O(noise))."""
    return (not label_noise) and (N_ - 2 * f_) * rows >= dim


# -- exact second arguments of the errata (independent of every simulation) --------------------------------
def f_cap_exact(N_: int, mu_over_L) -> int:
    """The largest f with f/(N - f) <= (mu/L)/3 (condition (9)), in exact rational arithmetic (Fraction or int
    mu/L); -1 if not even f = 0 qualifies (never: 0 always does)."""
    from fractions import Fraction

    r = Fraction(mu_over_L) / 3
    require(r >= 0, "mu_over_L", f"must be >= 0, got {mu_over_L}")
    best = -1
    for f_ in range(0, N_):
        if Fraction(f_, N_ - f_) <= r:
            best = f_
    return best


def pl_far_field_certificate(kappa: int = 1) -> dict:
    """Why condition (9) cannot hold for f = 8, 10 at N = 50 on problem (11), whatever the data (sympy, exact).

    q^i(x) = phi(||A^i x - b^i||), phi(s) = s^2 + kappa sin^2 s. Along x = x* + t v (realizable labels, r_i = t ||A^i v||)
    grad q^H = (1/|H|) sum_i (phi'(r_i)/r_i) A^{iT} A^i (t v) and phi'(s)/s -> 2 (s -> oo), so grad q^H = 2 t M v + o(t)
    and q^H - q^H* = t^2 v^T M v + o(t^2), M = (1/|H|) sum A^{iT} A^i. The PL ratio ||grad q^H||^2 / (2 (q^H - q^H*))
    tends to 2 ||M v||^2 / v^T M v, which is 2 lambda_min(M) for the weakest eigenvector v. Theorem 1 allows any
    start x_0 (and Assumption 2 is used at every iterate), so mu_PL <= 2 lambda_min(M) <= 2 lambda_max(M)
    <= 2 max_i ||A^i||^2, while L = sup|phi''| max_i ||A^i||^2 = (2 + 2 kappa) max_i ||A^i||^2 (Assumption 1 is
    sharp: phi''(0) = 2 + 2 kappa). Hence mu/L <= 2/(2 + 2 kappa) = 1/2 for problem (11).
    Returns the sympy limits and sup, the bound on mu/L as a Fraction, and the f cap at N = 50."""
    from fractions import Fraction

    s = sp.Symbol("s", positive=True)
    phi = s**2 + kappa * sp.sin(s) ** 2
    d1, d2 = sp.diff(phi, s), sp.diff(phi, s, 2)
    slope_limit = sp.limit(d1 / s, s, sp.oo)  # phi'(s)/s -> 2
    ratio_limit = sp.limit(d1**2 / (2 * phi), s, sp.oo)  # the 1-D PL ratio at infinity -> 2
    curvature_at_0 = sp.simplify(d2.subs(s, 0))  # phi''(0) = 2 + 2 kappa = sup phi'' (phi'' = 2 + 2 kappa cos 2s)
    sup_check = sp.simplify(d2 - (2 + 2 * kappa * sp.cos(2 * s)))  # 0: phi'' <= 2 + 2 kappa everywhere
    bound = Fraction(int(slope_limit), int(curvature_at_0))  # mu/L <= (2 lambda_max)/((2 + 2 kappa) lambda_max)
    return {"phi_prime_over_s_at_infinity": slope_limit, "pl_ratio_1d_at_infinity": ratio_limit,
            "phi_second_at_0": curvature_at_0, "phi_second_minus_closed_form": sup_check,
            "mu_over_L_max": bound, "f_cap_N50": f_cap_exact(50, bound)}


def convexity_certificate(kappa: int = 1) -> dict:
    """Problem (11) is convex (sympy, exact): phi(s) = s^2 + kappa sin^2 s has phi'' = 2 + 2 kappa cos 2s, which for
    kappa = 1 equals 4 cos^2 s >= 0, and phi'(s) = 2 s + kappa sin 2s >= 0 on s >= 0 (phi'(0) = 0, phi' non-decreasing);
    a convex non-decreasing phi of the convex r = ||A x - b|| is convex. For kappa = 3, phi''(pi/2) = -4 < 0."""
    r = sp.Symbol("r", real=True)
    phi = r**2 + kappa * sp.sin(r) ** 2
    d1, d2 = sp.diff(phi, r), sp.diff(phi, r, 2)
    return {"phi_second": sp.simplify(d2), "phi_second_minus_4cos2": sp.simplify(sp.expand_trig(d2 - 4 * sp.cos(r) ** 2)),
            "phi_first_at_0": d1.subs(r, 0), "phi_second_at_half_pi": sp.simplify(d2.subs(r, sp.pi / 2)),
            "min_phi_second": sp.simplify(2 - 2 * kappa)}


def step11_certificate() -> dict:
    """Step 11 of the proof of Theorem 1 (Appendix VI-A), exactly (sympy): step 9's coefficient of E||grad q^H||^2
    divided by alpha T, at alpha = mu^2/(72 L^3 T) and at the corner f/|H| = mu/(3L) allowed by (9), as a function of
    kappa = mu/L; step 11 claims it is <= -1/36. Also the constant c the proof would need in alpha = mu^2/(c L^3 T)."""
    kap = sp.Symbol("kappa", positive=True)
    c = sp.Symbol("c", positive=True)
    corner = {f: H * mu / (3 * L)}
    coef = sp.simplify((STEP9_COEFFICIENT / (alpha * T)).subs(corner).subs(alpha, STEP_SIZE_PROOF).subs(mu, kap * L))
    general = sp.simplify((STEP9_COEFFICIENT / (alpha * T)).subs(corner).subs(alpha, mu**2 / (c * L**3 * T)).subs(mu, kap * L))
    need = sp.solve(sp.Eq(general, sp.Rational(-1, 36)), c)
    fixed = sp.simplify((STEP9_COEFFICIENT_CORRECTED / (alpha * T)).subs(corner).subs(alpha, mu**2 / (c * L**3 * T))
                        .subs(mu, kap * L))
    need_fixed = sp.solve(sp.Eq(fixed, sp.Rational(-1, 36)), c)
    return {"coefficient_over_alphaT": coef, "at_mu_eq_L": sp.nsimplify(coef.subs(kap, 1)),
            "at_mu_to_0": sp.limit(coef, kap, 0), "claimed": sp.Rational(-1, 36),
            "c_needed": sp.simplify(need[0]), "c_needed_at_mu_eq_L": need[0].subs(kap, 1),
            "c_needed_21_fixed": sp.simplify(need_fixed[0]), "c_needed_21_fixed_at_mu_eq_L": need_fixed[0].subs(kap, 1)}


def remark1_mean_field(N_: int = 50, f_: int = 5, theta=None) -> dict:
    """A closed-form instance where Remark 1's O(1/k) fails under attack (exact rational arithmetic).

    d = 1, every honest q^i(x) = x^2/2 (L = mu = 1, x* = 0, 2f-redundancy holds), T = 1, gradient noise +-sigma with
    probability 1/2 each (unbiased, variance sigma^2: Assumption 3). Honest i sends x - alpha (x + xi_i); for
    0 < x < sigma their distances to x are alpha (sigma + x) (xi = +sigma) and alpha (sigma - x) (xi = -sigma). The f
    Byzantine agents send x + theta alpha (sigma - x) (theta < 1: strictly closer than every honest vector, so CE keeps
    them; they point away from x*). CE then drops the f farthest honest vectors: f of the n+ ~ Bin(N - f, 1/2) with
    xi = +sigma when n+ >= f, else all of them and f - n+ others. The expected update is x - alpha h(x) with
    (N - f) h(x) = (N - 2f + f theta) x - sigma (E g(n+) + f theta), g(n) = f if n >= f else 2n - f.
    h < 0 on (0, x_e) and h > 0 on (x_e, sigma), x_e = sigma (E g + f theta)/(N - 2f + f theta): the mean-field ODE
    x' = -h(x) pushes away from x* = 0 and settles at +-x_e. With alpha_k ~ 1/k (sum alpha_k = oo, sum alpha_k^2 < oo)
    the iterates follow the ODE (stochastic approximation; 0 is an unstable equilibrium with non-degenerate noise),
    so e_k -> x_e^2/2 > 0, whatever the constant in alpha_k: not O(1/k)."""
    from fractions import Fraction
    from math import comb

    theta = Fraction(1, 2) if theta is None else Fraction(theta)
    n = N_ - f_
    Eg = sum(Fraction(comb(n, j), 2**n) * (f_ if j >= f_ else 2 * j - f_) for j in range(n + 1))
    x_e = (Eg + f_ * theta) / (N_ - 2 * f_ + f_ * theta)  # in units of sigma
    return {"E_g": Eg, "x_e_over_sigma": x_e, "floor_over_sigma2": x_e**2 / 2, "theta": theta, "N": N_, "f": f_,
            "valid": 0 < x_e < 1}


def recursion_floor_certificate() -> dict:
    """The paper's own one-step inequality (Appendix VI-A, the display before (22)): e_{k+1} <= (1 - alpha mu T/36) e_k
    + 5 L T^2 sigma^2 alpha^2 + 2 T^2 alpha mu sigma^2 f/(L |H|). Its fixed point for a constant alpha, and the limit as
    alpha -> 0 (sympy): positive when f sigma > 0, so the proof gives no O(1/k) for alpha_k -> 0 under attack."""
    e = sp.Symbol("e", positive=True)
    rhs = (1 - alpha * mu * T / 36) * e + 5 * L * T**2 * sigma**2 * alpha**2 + 2 * T**2 * alpha * mu * sigma**2 * f / (L * H)
    fixed = sp.solve(sp.Eq(e, rhs), e)[0]
    return {"fixed_point": sp.simplify(fixed), "limit_alpha_to_0": sp.simplify(sp.limit(fixed, alpha, 0))}


# -- the proof's intermediate inequalities (Appendix VI-A), as Bounds ----------------------------------
#: E||grad q^H(x_k)|| and E||grad q^H(x_k)||^2 (the right-hand sides of (13a)-(13c) are written in them), and |B_k|,
#: the number of Byzantine vectors CE keeps in round k.
g1, g2, Bk = sp.symbols("g1 g2 B_k", nonnegative=True)

LEMMA_13A = Bound(
    name="(13a): E||x^i_{k,t+1} - x*_H||",
    expr=2 * g1 / mu + 2 * sigma / L, kind="upper",
    statement="For i in H: E||x^i_{k,t+1} - x*_H|| <= (2/mu) E||grad q^H(x_k)|| + 2 sigma/L.",
    source="dutta2023, Appendix VI-A, eq. (13), first line", hidden_constant=False,
    typst="EE norm(x^i_(k,t+1) - x^*_cal(H)) <= 2/mu EE norm(nabla q^cal(H)(macron(x)_k)) + (2 sigma)/L")
LEMMA_13B = Bound(
    name="(13b): E||x^i_{k,t+1} - x_k||",
    expr=2 * L * T * alpha * g1 / mu + 3 * sigma * T * alpha, kind="upper",
    statement="For i in H: E||x^i_{k,t+1} - x_k|| <= (2 L T alpha/mu) E||grad q^H(x_k)|| + 3 sigma T alpha.",
    source="dutta2023, Appendix VI-A, eq. (13), second line", hidden_constant=False,
    typst="EE norm(x^i_(k,t+1) - macron(x)_k) <= (2 L cal(T) alpha)/mu EE norm(nabla q^cal(H)(macron(x)_k)) + 3 sigma cal(T) alpha")
LEMMA_13C = Bound(
    name="(13c): E||x^i_{k,t+1} - x*_H||^2",
    expr=2 * g2 / mu**2 + 2 * sigma**2 / L**2, kind="upper",
    statement="For i in H: E||x^i_{k,t+1} - x*_H||^2 <= (2/mu^2) E||grad q^H(x_k)||^2 + 2 sigma^2/L^2.",
    source="dutta2023, Appendix VI-A, eq. (13), third line", hidden_constant=False,
    typst="EE norm(x^i_(k,t+1) - x^*_cal(H))^2 <= 2/mu^2 EE norm(nabla q^cal(H)(macron(x)_k))^2 + (2 sigma^2)/L^2")
#: The squared drift bound the proof uses without stating it (docs/papers/dutta2023.md §4.3 (13d), reconstructed from the constants 8 and 12).
LEMMA_13D = Bound(
    name="(13d, unstated): E||x^i_{k,t} - x_k||^2",
    expr=2 * L**2 * T**2 * alpha**2 * g2 / mu**2 + 3 * T**2 * alpha**2 * sigma**2, kind="upper",
    statement="For i in H: E||x^i_{k,t} - x_k||^2 <= (2 L^2 T^2 alpha^2/mu^2) E||grad q^H(x_k)||^2 + 3 T^2 alpha^2 sigma^2 "
              "(used by the proof, never stated; docs/papers/dutta2023.md §4.3).",
    source="dutta2023, Appendix VI-A (used in the bounds on E||V_x||^2 and (19)); docs/papers/dutta2023.md §4.3", hidden_constant=False,
    typst="EE norm(x^i_(k,t) - macron(x)_k)^2 <= (2 L^2 cal(T)^2 alpha^2)/mu^2 EE norm(nabla q^cal(H))^2 + 3 cal(T)^2 alpha^2 sigma^2")
#: The bound on the Byzantine perturbation V_x of (15), as printed after (16).
VX_BOUND = Bound(
    name="bound on E||V_x||^2 (after (16))",
    expr=8 * L**2 * T**2 * alpha**2 * Bk**2 * g2 / (mu**2 * H**2) + 12 * T**2 * alpha**2 * sigma**2 * Bk**2 / H**2,
    kind="upper",
    statement=("E||V_x||^2 <= (2|B_k|^2/|H|^2) E||x^j_{k,t} - x_k||^2 + (2|B_k|/|H|^2) sum_{i in H minus H_k} "
               "E||x^i_{k,t} - x_k||^2 <= (8 L^2 T^2 alpha^2/mu^2)(|B_k|^2/|H|^2) E||grad q^H(x_k)||^2 "
               "+ 12 T^2 alpha^2 sigma^2 |B_k|^2/|H|^2."),
    source="dutta2023, Appendix VI-A, the display bounding E||V_x||^2 (between (16) and (17))", hidden_constant=False,
    typst="EE norm(V_x)^2 <= (8 L^2 cal(T)^2 alpha^2)/mu^2 (|cal(B)_k|^2)/(|cal(H)|^2) EE norm(nabla q^cal(H))^2 "
          "+ (12 cal(T)^2 alpha^2 sigma^2 |cal(B)_k|^2)/(|cal(H)|^2)")
#: The same bound with one factor |H| less in the denominators: valid under Assumption 3 alone, since the farthest honest
#: agent's squared drift is at most the sum of all |H| agents' (max_j a_j <= sum_j a_j), each bounded by (13d).
VX_BOUND_REPAIRED = Bound(
    name="bound on E||V_x||^2 with E max_j <= sum_j (repaired)",
    expr=VX_BOUND.expr * H, kind="upper",
    statement="E||V_x||^2 <= (8 L^2 T^2 alpha^2/mu^2)(|B_k|^2/|H|) E||grad q^H||^2 + 12 T^2 alpha^2 sigma^2 |B_k|^2/|H|.",
    source="fedverify: the display after (16) with E max_j ||x^j - x_k||^2 <= sum_j E||x^j - x_k||^2", hidden_constant=False,
    typst="EE norm(V_x)^2 <= |cal(H)| dot (\"printed bound\")")

#: The Byzantine part of eq. (10)'s floor: what Theorem 1 allows CE to lose against the non-faulty agents alone.
BYZANTINE_TERM = Bound(
    name="Byzantine term of eq. (10)",
    expr=72 * T * sigma**2 * f / (mu * H), kind="upper",
    statement=("Algorithm 1's gap exceeds the non-faulty local SGD baseline's by at most the Byzantine term of (10), "
               "72 T sigma^2 f/(mu |H|) (the rest of the floor, 180 L T alpha sigma^2/mu, is the fault-free part, Remark 1)."),
    source="dutta2023, Theorem 1, eq. (10), Remark 1 and Section IV (Fig. 1, line 143)", hidden_constant=False,
    typst="EE e_K^(\"CE\") - EE e_K^(\"honest\") <= (72 cal(T) sigma^2 f)/(mu |cal(H)|)")


def max_chi2_mean(n: int, dps: int = 30):
    """E[max_{i <= n} Z_i^2] for i.i.d. standard normal Z_i, by quadrature of the order statistic's tail (mpmath):
    E max = int_0^oo (1 - P(Z^2 <= t)^n) dt with P(Z^2 <= t) = erf(sqrt(t/2)). Exact to the quadrature's precision."""
    import mpmath

    require(isinstance(n, int) and n >= 1, "n", f"must be an integer >= 1, got {n!r}")
    with mpmath.workdps(dps):
        return mpmath.quad(lambda t: 1 - mpmath.erf(mpmath.sqrt(t / 2)) ** n, [0, 1, 10, 50, mpmath.inf])


def vx_witness_certificate(H_: int = 49, eps: float = 1e-6) -> dict:
    """The exact value of E||V_x||^2 at round 0 on the witness of dutta2023.x03 (d = 1, T = 1, f = |B_0| = 1, x_0 = x*_H,
    exact gradients zero there, N1 noise xi_i ~ N(0, sigma^2)): honest y^i = x* - alpha xi_i; the Byzantine agent mirrors
    the farthest honest vector, b = x* + (1 - eps) alpha xi_{j*}, j* = argmax |xi_i|; CE drops j* and keeps b, so
    V_x = (2 - eps) alpha xi_{j*}/|H| and E||V_x||^2 = (2 - eps)^2 alpha^2 sigma^2 E[max_i Z_i^2]/|H|^2. The printed bound
    is 12 alpha^2 sigma^2/|H|^2 (E||grad q^H(x*)||^2 = 0), so the ratio is (2 - eps)^2 E[max Z^2]/12."""
    import mpmath

    m = max_chi2_mean(H_)
    ratio = (2 - mpmath.mpf(eps)) ** 2 * m / 12
    return {"H": H_, "E_max_Z2": m, "lhs_over_alpha2sigma2_H2": (2 - mpmath.mpf(eps)) ** 2 * m, "bound_coefficient": 12,
            "ratio": ratio, "repaired_ratio": ratio / H_}


def uniqueness_certificate() -> dict:
    """Problem (11) with A^i = [1 1], b^i = 1 (l = 1, d = 2) for every agent: q(x) = g(x1 + x2 - 1), g(s) = s^2 + sin^2 s
    (sympy, exact). g'' = 4 cos^2 s >= 0 (convex) and g(0) = g'(0) = 0, so g(s) <= s g'(s); g(s) - s^2 = sin^2 s >= 0;
    hence g'(s)^2 >= g(s)^2/s^2 >= g(s) and ||grad q||^2 = 2 g'(s)^2 >= 2 (q - q*): PL with mu = 1, while q = 0 on the
    whole line x1 + x2 = 1."""
    s, t = sp.symbols("s t", real=True)
    x1, x2 = sp.symbols("x1 x2", real=True)
    g = s**2 + sp.sin(s) ** 2
    q = g.subs(s, x1 + x2 - 1)
    grad_sq = sp.diff(q, x1) ** 2 + sp.diff(q, x2) ** 2
    return {"g_second_minus_4cos2": sp.simplify(sp.expand_trig(sp.diff(g, s, 2) - 4 * sp.cos(s) ** 2)),
            "g_at_0": g.subs(s, 0), "g_prime_at_0": sp.diff(g, s).subs(s, 0),
            "g_minus_s2": sp.simplify(g - s**2),
            "grad_sq_minus_2_gprime_sq": sp.simplify(grad_sq - 2 * sp.diff(g, s).subs(s, x1 + x2 - 1) ** 2),
            "q_on_line": sp.simplify(q.subs({x1: t, x2: 1 - t})), "mu_exact_lower": 1}
