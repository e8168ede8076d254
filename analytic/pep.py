"""Worst-case certification by performance estimation (PEP): the exact worst case of a first-order
method over a whole function class, as a small semidefinite program (Drori and Teboulle 2014; Taylor,
Hendrickx and Glineur 2017), solved through PEPit (Goujaud et al., Math. Prog. Comp. 2024) with cvxpy.

A PEP returns a bracket of the worst case: the **dual** value is an upper bound (PEPit rebuilds the
dual certificate, the "proof") and the **primal** value is the value of the worst instance the solver
found (a lower bound). Both are exact up to the solver's tolerance; :class:`WorstCase` widens the
bracket by that tolerance and by the feasibility errors PEPit reports, so that a verdict read from
``[lower, upper]`` does not depend on solver noise. Nothing is cached: every call solves its SDP.

What this module certifies:

* :func:`local_round_contraction`: one round of local methods (FedAvg, FedProx, the perturbed method of
  buttaci2024) on C clients that are L-smooth and mu-strongly convex and share the minimiser x*, started
  from a common model x0: sup ||wbar_E - x*||^2 / ||x0 - x*||^2, where each client runs
  w <- w - gamma (grad f_i(beta w + (1 - beta) x0) + alpha (w - x0)) for E steps and wbar_E = sum_i p_i w^i_E;
* :func:`gradient_descent_contraction` (E steps of gradient descent: PEPit's tutorial, tight value
  max(|1 - gamma L|, |1 - gamma mu|)^{2E}) and :func:`gradient_descent_function_value` (smooth convex,
  (f(x_n) - f*)/||x0 - x*||^2, tight value L/(4 n L gamma + 2) for gamma <= 1/L; Drori and Teboulle),
  the published closed forms the wrapper is tested against.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import asdict, dataclass

import numpy as np

from analytic.errors import require

#: Relative tolerance added to every bracket: interior-point SDP solvers stop at about 1e-8.
DEFAULT_RTOL = 1e-6
DEFAULT_SOLVER = "CLARABEL"


@dataclass(frozen=True)
class WorstCase:
    """A certified bracket [lower, upper] of a worst-case value.

    ``dual`` is the upper bound from the dual certificate, ``primal`` the value of the worst instance
    found; ``slack`` (solver tolerance plus the reported infeasibilities) widens both ends.
    """

    dual: float
    primal: float
    slack: float
    gram_size: int
    solver: str
    status: str
    seconds: float

    @property
    def value(self) -> float:
        return self.dual

    @property
    def lower(self) -> float:
        return self.primal - self.slack

    @property
    def upper(self) -> float:
        return self.dual + self.slack

    def as_dict(self) -> dict:
        return {**asdict(self), "lower": self.lower, "upper": self.upper}


#: The second solver, used only when the first stops short of "optimal": SCS (first-order splitting) at a
#: tolerance beyond the interior-point solver's, so the two methods share no failure mode. Clarabel stops at
#: "optimal_inaccurate" on some of the local-round PEPs near mu = L (E = 5 and 8 at mu/L = 0.9 on this machine; E = 4
#: with beta = 0.9 on an H200 host's Xeon with numpy 2.5), where SCS reaches "optimal" within 1e-6 of Clarabel's value.
FALLBACK_SOLVER = ("SCS", {"eps": 1e-8, "max_iters": 200_000})


def _solve_once(problem, solver: str, options: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # cvxpy's "may be inaccurate": read from the status instead
        dual = problem.solve(wrapper="cvxpy", solver=solver, verbose=0, **options)
    return dual, str(problem.wrapper.prob.status)


def _solve(problem, solver: str, rtol: float) -> WorstCase:
    """Solve a prepared PEPit problem and read its bracket and feasibility errors. When ``solver`` stops short of
    "optimal", the same problem is solved again by :data:`FALLBACK_SOLVER` and that solve is kept if it is optimal
    (``WorstCase.solver`` names the solver whose numbers these are); otherwise the first solve stands, with its
    bracket widened 100-fold."""
    t0 = time.perf_counter()
    dual, status = _solve_once(problem, solver, {})
    if status != "optimal" and solver != FALLBACK_SOLVER[0]:
        first = (dual, status, float(problem.objective.eval()) if dual is not None else None)
        dual2, status2 = _solve_once(problem, *FALLBACK_SOLVER)
        if status2 == "optimal" and dual2 is not None:
            dual, status, solver = dual2, status2, f"{FALLBACK_SOLVER[0]} (after {solver}: {first[1]})"
        else:  # keep the first solve: re-solve it so that the problem holds its values again
            dual, status = _solve_once(problem, solver, {})
    seconds = time.perf_counter() - t0
    require(dual is not None, "problem", "the PEP is unbounded: no finite worst case exists")
    primal = float(problem.objective.eval())
    gram_err = max(0.0, -float(np.linalg.eigvalsh(problem.G_value).min()))
    dual_err = max(0.0, -float(np.linalg.eigvalsh(problem.residual).min()))
    scale = max(1.0, abs(float(dual)))
    slack = rtol * scale * (100.0 if status != "optimal" else 1.0) + 10.0 * (gram_err + dual_err) * scale
    return WorstCase(float(dual), primal, slack, int(problem.G_value.shape[0]), solver, status, seconds)


def _function_class(problem, L: float, mu: float):
    from PEPit.functions import SmoothConvexFunction, SmoothStronglyConvexFunction

    require(L > 0 and 0 <= mu <= L, "mu, L", f"need 0 <= mu <= L and L > 0, got mu={mu}, L={L}")
    if mu == 0:
        return problem.declare_function(SmoothConvexFunction, L=L)
    return problem.declare_function(SmoothStronglyConvexFunction, mu=mu, L=L)


def local_round_contraction(L: float, mu: float, *, gamma: float, E: int, alpha: float = 0.0, beta: float = 1.0,
                            weights=None, solver: str = DEFAULT_SOLVER, rtol: float = DEFAULT_RTOL) -> WorstCase:
    """Worst case of ||wbar_E - x*||^2 / ||x0 - x*||^2 over one round of local steps.

    Clients i = 1..C (C = len(weights), default 1) have L-smooth, mu-strongly convex f_i with the common
    minimiser x* (heterogeneity Gamma = 0: every client's minimiser is the global one); each starts at
    x0 and takes E steps w <- w - gamma (grad f_i(beta w + (1 - beta) x0) + alpha (w - x0)); the server
    averages with the weights p_i. alpha = 0, beta = 1 is FedAvg (gradient descent when C = 1); beta = 1
    is FedProx; alpha = 0, beta < 1 is the perturbed method in a round where every client's neighbour
    average u_t^i equals x0 (round 0, or any round that starts from a consensus).
    """
    from PEPit import PEP, Expression, Point

    require(int(E) >= 1, "E", f"must be >= 1, got {E}")
    require(gamma > 0 and alpha >= 0 and 0 < beta <= 1, "gamma, alpha, beta",
            f"need gamma > 0, alpha >= 0, 0 < beta <= 1, got {gamma}, {alpha}, {beta}")
    p = np.ones(1) if weights is None else np.asarray(weights, dtype=float)
    require(p.ndim == 1 and p.size >= 1 and np.all(p > 0) and abs(p.sum() - 1) < 1e-12, "weights",
            "must be positive and sum to 1")
    problem = PEP()
    fs = [_function_class(problem, L, mu) for _ in range(p.size)]
    x_star = fs[0].stationary_point()
    for f in fs[1:]:  # the same minimiser for every client: zero gradient there, a free function value
        f.add_point((x_star, Point(is_leaf=False, decomposition_dict=dict()), Expression(is_leaf=True)))
    x0 = problem.set_initial_point()
    problem.set_initial_condition((x0 - x_star) ** 2 <= 1)
    wbar = None
    for p_i, f in zip(p, fs):
        w = x0
        for _ in range(int(E)):
            w = w - gamma * (f.gradient(beta * w + (1 - beta) * x0) + alpha * (w - x0))
        wbar = p_i * w if wbar is None else wbar + p_i * w
    problem.set_performance_metric((wbar - x_star) ** 2)
    return _solve(problem, solver, rtol)


def gradient_descent_contraction(L: float, mu: float, gamma: float, n: int, *, solver: str = DEFAULT_SOLVER,
                                 rtol: float = DEFAULT_RTOL) -> WorstCase:
    """sup ||x_n - x*||^2/||x0 - x*||^2 of n gradient steps over L-smooth mu-strongly convex functions
    (tight value max(|1 - gamma L|, |1 - gamma mu|)^{2n}): one client, alpha = 0, beta = 1."""
    return local_round_contraction(L, mu, gamma=gamma, E=n, solver=solver, rtol=rtol)


def gradient_descent_function_value(L: float, gamma: float, n: int, *, solver: str = DEFAULT_SOLVER,
                                    rtol: float = DEFAULT_RTOL) -> WorstCase:
    """sup (f(x_n) - f*)/||x0 - x*||^2 of n gradient steps over L-smooth convex functions (tight value
    L/(4 n L gamma + 2) for gamma <= 1/L; Drori and Teboulle 2014)."""
    from PEPit import PEP

    require(int(n) >= 1 and gamma > 0, "n, gamma", f"need n >= 1 and gamma > 0, got {n}, {gamma}")
    problem = PEP()
    f = _function_class(problem, L, 0.0)
    x_star = f.stationary_point()
    f_star = f(x_star)
    x = x0 = problem.set_initial_point()
    problem.set_initial_condition((x0 - x_star) ** 2 <= 1)
    for _ in range(int(n)):
        x = x - gamma * f.gradient(x)
    problem.set_performance_metric(f(x) - f_star)
    return _solve(problem, solver, rtol)
