"""werner2023 (Werner, He, Jordan, Jaggi, Karimireddy, TMLR 2023): theorems as Bounds.

Notation (spec section 1): sigma^2 is the *total* within-cluster variance (Assumption 3, eq. (12)),
Delta the separation of cluster means (eq. (11)), n = n_i the size of client i's cluster,
delta = delta_i = n_i/N its fraction, beta = beta_i the Byzantine fraction.
"""
from __future__ import annotations

import math

import sympy as sp

from analytic.bounds import Bound
from analytic.papers import Paper

PAPER = Paper(
    key="werner2023",
    title="Provably Personalized and Robust Federated Learning",
    authors="Mariel Werner, Lie He, Michael Jordan, Martin Jaggi, Sai Praneeth Karimireddy",
    venue="Transactions on Machine Learning Research (TMLR)", year=2023, url="https://arxiv.org/abs/2306.08393",
    summary=("Clients form clusters with a shared optimum; Threshold-Clustering (Algorithm 3) estimates each cluster's "
             "mean inside a ball of radius tau, Federated-Clustering (Algorithm 2) applies it to gradients, and "
             "Momentum-Clustering to momenta. The toolkit rebuilds the toy failures of Myopic clustering, IFCA and CFL "
             "(Examples 1-3), measures Threshold-Clustering's error against Theorem 3.1 and the lower bound of "
             "Theorem 3.2 (whose eq. (95) has an algebra error), and tests the rates of the main theorems."),
)

sigma, Delta, n, beta, delta, tau = sp.symbols("sigma Delta n beta delta tau", positive=True)

#: Theorem 3.1, eq. (14): E||v_{k_i,l} - E z_i||^2 <~ sigma^2/n_i + sigma^3/Delta + beta_i sigma Delta.
THM_3_1 = Bound(
    name="Theorem 3.1 (Threshold-Clustering error)",
    expr=sigma**2 / n + sigma**3 / Delta + beta * sigma * Delta,
    kind="upper",
    statement=(
        "Under Assumptions 1-3 with Delta >~ sigma/delta_i, beta_i <~ delta_i, tau ~ sqrt(delta_i sigma Delta) "
        "and l >~ log(sigma/Delta)/log(1-delta_i/2) steps, Threshold-Clustering's error is "
        "at most a constant times sigma^2/n_i + sigma^3/Delta + beta_i sigma Delta."
    ),
    source="werner2023, Theorem 3.1, eq. (14)",
    typst="EE norm(v_(k_i,l) - EE z_i)^2 lt.tilde sigma^2/n_i + sigma^3/Delta + beta_i sigma Delta",
)

#: The oracle term of (14): the variance of the mean of the true cluster. Tight (spec 6.2 check 9).
ORACLE = Bound(
    name="oracle sigma^2/n",
    expr=sigma**2 / n,
    kind="tight",
    statement="With the true clustering known, the cluster mean has error exactly sigma^2/n_i.",
    source="werner2023, Theorem 3.1 (first term of eq. (14))",
    hidden_constant=False,
    typst="sigma^2 / n_i",
)

#: The Byzantine term of (14), read with constant 1 (Definition 1: excess error <= beta_i sigma Delta).
BYZANTINE_TERM = Bound(
    name="Byzantine term of eq. (14)",
    expr=beta * sigma * Delta,
    kind="upper",
    statement="Byzantine points add at most beta_i sigma Delta (constant 1) to the error of Threshold-Clustering.",
    source="werner2023, Theorem 3.1 (third term of eq. (14)), Definition 1",
    hidden_constant=False,
    typst="beta_i sigma Delta",
)

#: Theorem 3.2, eq. (15): for any algorithm, E||mu_hat_1 - mu_1||^2 >= Omega(sigma^4/Delta^2 + sigma^2/n_i).
THM_3_2 = Bound(
    name="Theorem 3.2 (lower bound)",
    expr=sigma**4 / Delta**2 + sigma**2 / n,
    kind="lower",
    statement=(
        "For any algorithm there is a two-component mixture with separation >= Delta and variance <= sigma^2 "
        "on which its estimate of mu_1 has squared error Omega(sigma^4/Delta^2 + sigma^2/n_i)."
    ),
    source="werner2023, Theorem 3.2, eq. (15); construction in Appendix A.2",
    typst="EE norm(hat(mu)_1 - mu_1)^2 >= Omega(sigma^4/Delta^2 + sigma^2/n_i)",
)

# --- Appendix A.2 construction (atom "a", the paper's "delta") -----------------------------
S = sp.sqrt(4 * sigma**2 + Delta**2)
P_ATOM = sp.Rational(1, 2) - Delta / (2 * S)  # eq. (93)
A_ATOM = Delta / (1 - 2 * P_ATOM)  # from eq. (90): Delta = (1 - 2p) a

#: The two-point minimax error a^2 p^2 / 4 of the construction (best estimator mu_hat = a p / 2).
CONSTRUCTION_ERROR = sp.simplify(A_ATOM**2 * P_ATOM**2 / 4)

#: Its exact closed form (spec section 7, A2): sigma^4 / (S + Delta)^2, S = sqrt(4 sigma^2 + Delta^2).
CONSTRUCTION_ERROR_CLOSED = sigma**4 / (S + Delta) ** 2

#: The paper's claimed lower estimate (eq. (95)): a^2 p^2 / 4 >= sigma^4 / (4 Delta^2) when Delta^2 >= 2 sigma^2.
PAPER_CLAIMED = Bound(
    name="eq. (95) as printed",
    expr=sigma**4 / (4 * Delta**2),
    kind="lower",
    statement="a^2 p^2/4 >= sigma^4/(4 Delta^2) whenever Delta^2 >= 2 sigma^2",
    source="werner2023, Appendix A.2, eq. (95)",
    hidden_constant=False,
    typst="a^2 p^2 / 4 >= sigma^4 / (4 Delta^2)",
)

#: The corrected constant (spec section 7, A2): sigma^4/(S+Delta)^2 >= sigma^4/(9 Delta^2) when Delta^2 >= 2 sigma^2.
CORRECTED = Bound(
    name="eq. (95) corrected",
    expr=sigma**4 / (9 * Delta**2),
    kind="lower",
    statement="a^2 p^2/4 = sigma^4/(S+Delta)^2 >= sigma^4/(9 Delta^2) whenever Delta^2 >= 2 sigma^2",
    source="spec werner2023 section 7 (A2), derived",
    hidden_constant=False,
    typst="a^2 p^2 / 4 = sigma^4/(S + Delta)^2 >= sigma^4 / (9 Delta^2)",
)


def construction(sigma_v: float, Delta_v: float) -> dict:
    """Numbers of the A.2 construction: p (eq. (93)), atom a, mixture error a^2 p^2 / 4."""
    s = math.sqrt(4 * sigma_v**2 + Delta_v**2)
    p = 0.5 - Delta_v / (2 * s)
    a = Delta_v / (1 - 2 * p)
    return {"p": p, "a": a, "S": s, "error": a * a * p * p / 4, "closed_form": sigma_v**4 / (s + Delta_v) ** 2}


def tc_steps_required(sigma_v: float, Delta_v: float, delta_v: float) -> float:
    """Eq. (13): l >~ max(1, log(sigma/Delta) / log(1 - delta/2))."""
    return max(1.0, math.log(sigma_v / Delta_v) / math.log(1 - delta_v / 2))


def theory_radius(delta_v: float, sigma_v: float, Delta_v: float) -> float:
    """tau = sqrt(delta sigma Delta) (statement of Theorem 3.1)."""
    return math.sqrt(delta_v * sigma_v * Delta_v)


def edge_attack_excess(b: int, n_v: int, tau_v: float) -> float:
    """[derived, spec 3.1] Fixed point under b edge-of-ball attackers: v - zbar_in = (b/n) tau u,
    so the excess squared error is (b/n)^2 tau^2 (= (beta/delta)^2 tau^2)."""
    return (b / n_v) ** 2 * tau_v**2
