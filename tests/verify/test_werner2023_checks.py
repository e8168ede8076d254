"""werner2023 c09-c16: acceptance numbers, and planted wrong theory must flip the verdicts."""
import pytest
import sympy as sp

from analytic.bounds import Bound
from analytic.papers import werner2023 as W
from verify.engine import Context
from verify.registry import get
from verify.result import Verdict
from verify.testing import assert_verdict, run_quick


def run(cid, seed=0, replicates=None, **planted):
    return get(cid)(Context(fidelity="quick", seed=seed, replicates=replicates), **planted)


def test_c09_slope_in_acceptance_window_and_reproducible():
    a = run_quick("werner2023.c09")
    assert -1.1 <= a.fit["slope"] <= -0.9
    assert -1.1 <= a.fit["slope_ci"][0] and a.fit["slope_ci"][1] <= -0.9
    c = run("werner2023.c09", seed=1)
    assert c.fit["slope"] != a.fit["slope"] and c.verdict == Verdict.HOLDS


def test_c09_planted_wrong_oracle_is_violated():
    r = run("werner2023.c09", theory=Bound("planted sigma^2/(2n)", W.sigma**2 / (2 * W.n), "tight"))
    assert r.verdict == Verdict.VIOLATED and "planted" in r.env["overrides"]["theory"]


def test_c09_planted_wrong_exponent_is_violated():
    assert run("werner2023.c09", theory=Bound("planted sigma^2/n^2", W.sigma**2 / W.n**2, "tight")).verdict == Verdict.VIOLATED


def test_c10_planted_smaller_bound_is_violated():
    assert run("werner2023.c10", theory=W.THM_3_1.scaled(0.1)).verdict == Verdict.VIOLATED


def test_c13_planted_smaller_byzantine_bound_is_violated():
    r = run("werner2023.c13", theory=W.BYZANTINE_TERM.scaled(0.01))
    assert r.verdict == Verdict.VIOLATED and "NOT below" in r.explanation


def test_c13_our_own_derivation_does_not_decide_the_verdict():
    r = run("werner2023.c13", fixed_point=lambda b, n, tau: 0.5 * (b / n) ** 2 * tau**2)
    assert r.verdict == Verdict.HOLDS and r.fit["prediction_max_rel_error"] > 0.9


def test_c15_correct_constant_would_not_be_an_erratum():
    assert run("werner2023.c15", claimed=W.CORRECTED).verdict == Verdict.HOLDS


def test_c15_wrong_construction_is_inconclusive():
    real = W.construction
    r = run("werner2023.c15", construction=lambda s, D: {**real(s, D), "closed_form": 2 * real(s, D)["closed_form"]})
    assert r.verdict == Verdict.INCONCLUSIVE


def test_c16_planted_higher_floor_is_violated():
    assert run("werner2023.c16", theory=W.THM_3_2_FLOOR.scaled(10)).verdict == Verdict.VIOLATED


def test_assumption_failure_makes_c09_inconclusive():
    """Too few Threshold-Clustering steps for eq. (13): the run says nothing about the claim."""
    assert run("werner2023.c09", steps=1).verdict == Verdict.INCONCLUSIVE


def test_c12_planted_faster_contraction_is_violated():
    assert run("werner2023.c12", contraction_bound=Bound("planted 0.3", sp.Float(0.3), "upper"), tol=0.0).verdict \
        == Verdict.VIOLATED


TC_CHECKS = [f"werner2023.c{i:02d}" for i in range(9, 17)]


@pytest.mark.parametrize("check_id", TC_CHECKS)
def test_correct_theory_holds_at_another_root_seed(check_id):
    """The verdicts are stable: another root seed reaches the same (expected) verdict."""
    assert_verdict(check_id, get(check_id).expected, seeds=(1,))


@pytest.mark.slow
@pytest.mark.parametrize("check_id", TC_CHECKS)
def test_correct_theory_holds_over_ten_root_seeds(check_id):
    """The verdicts are stable: ten other root seeds reach the same (expected) verdict."""
    assert_verdict(check_id, get(check_id).expected, seeds=range(1, 11))


def test_too_few_replicates_give_inconclusive_not_a_verdict():
    r = run("werner2023.c09", replicates=3)
    assert r.verdict == Verdict.INCONCLUSIVE and "fewer than the 10" in r.explanation
    assert run("werner2023.c15", replicates=3).verdict == Verdict.VIOLATED  # exact check: no replicates involved


@pytest.mark.parametrize("check_id", ["werner2023.c25", "werner2023.c26"])
def test_too_few_replicates_for_a_five_percent_band_is_inconclusive_never_violated(check_id):
    """With --replicates 10 a 5% band on a Monte Carlo variance cannot be judged: inconclusive, not violated."""
    from verify.engine import Context
    from verify.registry import get

    r = get(check_id)(Context(replicates=10))
    assert r.verdict.value == "inconclusive", r.explanation
