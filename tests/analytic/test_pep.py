"""analytic/pep.py against PEPit's published tight closed forms, PEPit's own example, and metamorphic variants."""
import numpy as np
import pytest

from analytic import pep
from analytic.errors import InputError
from analytic.papers import buttaci2024 as B


def gd_contraction(L, mu, gamma, n):
    """Tight: max(|1 - gamma L|, |1 - gamma mu|)^{2n} (PEPit, tutorials/gradient_descent_contraction.py)."""
    return max(abs(1 - gamma * L), abs(1 - gamma * mu)) ** (2 * n)


@pytest.mark.parametrize("L, mu, gamma, n", [(1.0, 0.1, 1.0, 1), (1.0, 0.1, 1.9, 2), (2.0, 0.5, 0.25, 3),
                                             (3.0, 0.3, 0.5, 1)])
def test_gradient_descent_contraction_matches_the_published_closed_form(L, mu, gamma, n):
    wc = pep.gradient_descent_contraction(L, mu, gamma, n)
    tau = gd_contraction(L, mu, gamma, n)
    assert wc.lower <= tau <= wc.upper
    assert wc.value == pytest.approx(tau, rel=1e-6)
    assert wc.status == "optimal" and wc.lower <= wc.primal <= wc.dual + 1e-9 <= wc.upper + 1e-9


def test_gradient_descent_contraction_matches_pepits_own_example():
    """The same SDP value as PEPit's tutorial (two runs x_n, y_n instead of one run against x*)."""
    from PEPit.examples.tutorials.gradient_descent_contraction import wc_gradient_descent_contraction

    theirs, theory = wc_gradient_descent_contraction(L=1.0, mu=0.1, gamma=1.0, n=1, verbose=-1)
    ours = pep.gradient_descent_contraction(1.0, 0.1, 1.0, 1)
    assert theory == pytest.approx(0.81) and ours.value == pytest.approx(theirs, rel=1e-5)


def test_gradient_descent_function_value_matches_drori_teboulle():
    wc = pep.gradient_descent_function_value(3.0, 1 / 3, 4)
    assert wc.value == pytest.approx(3.0 / (4 * 4 * 3.0 * (1 / 3) + 2), rel=1e-5)  # 1/6


def test_several_clients_with_a_common_minimiser_have_the_one_client_worst_case():
    one = pep.local_round_contraction(1.0, 0.25, gamma=0.125, E=2, beta=0.5)
    two = pep.local_round_contraction(1.0, 0.25, gamma=0.125, E=2, beta=0.5, weights=[0.3, 0.7])
    three = pep.local_round_contraction(1.0, 0.25, gamma=0.125, E=2, alpha=1.0, weights=[0.2, 0.3, 0.5])
    assert two.value == pytest.approx(one.value, rel=1e-5)
    assert three.value == pytest.approx(pep.local_round_contraction(1.0, 0.25, gamma=0.125, E=2, alpha=1.0).value, rel=1e-5)


@pytest.mark.parametrize("method, alpha, beta", [("fedprox", 1.0, 1.0), ("perturbed", 0.0, 0.3), ("fedavg", 0.0, 1.0)])
def test_the_worst_case_dominates_every_quadratic_instance(method, alpha, beta):
    """Each one-dimensional quadratic with curvature lambda in [mu, L] is an instance: its exact round factor
    r(lambda)^2 (the lemma's kappa with mu -> lambda, spec 2.6) can never exceed the certified worst case."""
    L, mu, E = 2.0, 0.5, 3
    gamma = B.theorem_step(method, L, E, alpha)
    wc = pep.local_round_contraction(L, mu, gamma=gamma, E=E, alpha=alpha, beta=beta)
    lam = np.linspace(mu, L, 25)
    r = B.factor(method, "lemma", mu=lam, L=L, gamma=gamma, E=E, alpha=alpha, beta=beta)
    assert np.all(r**2 <= wc.upper) and np.max(r**2) == pytest.approx(wc.value, rel=1e-5)


def test_a_diverging_round_is_certified_above_one():
    wc = pep.local_round_contraction(1.0, 0.25, gamma=0.5, E=5, beta=0.1)
    assert wc.lower > 1.0


def test_bad_input_names_the_parameter():
    with pytest.raises(InputError, match="E"):
        pep.local_round_contraction(1.0, 0.1, gamma=0.1, E=0)
    with pytest.raises(InputError, match="mu, L"):
        pep.local_round_contraction(1.0, 2.0, gamma=0.1, E=1)
    with pytest.raises(InputError, match="weights"):
        pep.local_round_contraction(1.0, 0.1, gamma=0.1, E=1, weights=[0.5, 0.6])
    with pytest.raises(InputError, match="beta"):
        pep.local_round_contraction(1.0, 0.1, gamma=0.1, E=1, beta=1.5)


def test_nothing_is_cached_between_calls():
    a = pep.local_round_contraction(1.0, 0.1, gamma=0.5, E=1)
    b = pep.local_round_contraction(1.0, 0.1, gamma=0.9, E=1)
    assert a.value != pytest.approx(b.value) and a.seconds > 0 and b.seconds > 0


def _stops_short(monkeypatch, failing):
    """Make the solvers named in ``failing`` report 'optimal_inaccurate' (their numbers untouched)."""
    real = pep._solve_once

    def fake(problem, solver, options):
        dual, status = real(problem, solver, options)
        return dual, ("optimal_inaccurate" if solver in failing else status)
    monkeypatch.setattr(pep, "_solve_once", fake)


def test_a_solve_that_stops_short_is_redone_by_the_fallback_solver(monkeypatch):
    """Clarabel at 'optimal_inaccurate' (seen near mu = L, and at mu/L = 0.9, E = 4 on another host): SCS solves the
    same PEP again and its optimal bracket is kept, named as such; it holds the published closed form."""
    _stops_short(monkeypatch, {"CLARABEL"})
    wc = pep.gradient_descent_contraction(1.0, 0.1, 1.9, 2)
    assert wc.status == "optimal" and wc.solver.startswith("SCS (after CLARABEL")
    assert wc.lower <= gd_contraction(1.0, 0.1, 1.9, 2) <= wc.upper


def test_when_both_solvers_stop_short_the_first_solve_stands_with_a_widened_bracket(monkeypatch):
    _stops_short(monkeypatch, {"CLARABEL", "SCS"})
    wc = pep.gradient_descent_contraction(1.0, 0.1, 1.9, 2)
    assert wc.status == "optimal_inaccurate" and wc.solver == "CLARABEL"
    assert wc.slack >= 100 * pep.DEFAULT_RTOL * max(1.0, wc.dual)
    assert wc.lower <= gd_contraction(1.0, 0.1, 1.9, 2) <= wc.upper
