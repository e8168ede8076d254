"""werner2023 x02-x09 (issue 18): exact witnesses, planted wrong theories flip the verdicts."""
from fractions import Fraction

import sympy as sp

from analytic.bounds import Bound
from analytic.papers import werner2023 as W
from verify.checks.werner2023 import example1 as E1
from verify.checks.werner2023 import fc_claims as FCC
from verify.checks.werner2023 import theorems as TH
from verify.engine import Context
from verify.registry import get, load_all
from verify.result import Verdict

Delta, sigma, n = sp.symbols("Delta sigma n", positive=True)


def run(cid, seed=0, **planted):
    return get(cid)(Context(fidelity="quick", seed=seed), **planted)


# -- x02 Lemma 4 --------------------------------------------------------------------------------------------
def test_lemma4_exact_witness_is_81_sigma2():
    w = TH.lemma4_exact_witness()
    assert w["var_z"] == Fraction(1, 4) and w["var_y"] == Fraction(81, 4) and w["ratio"] == 81
    assert w["y"] == (Fraction(10), Fraction(1))  # 0 is clipped to v = 10, 1 stays
    assert w["dist2"][1] <= w["tau2"] < w["dist2"][0]
    assert w["Delta"] >= 2 * w["sigma"] / w["delta"]  # inside the separation regime


def test_x02_erratum_has_its_fields_and_the_corrected_bound_holds():
    r = run("werner2023.x02")
    assert r.verdict == Verdict.VIOLATED and r.finding.kind == "erratum"
    assert "81" in r.finding.second_argument and "line ~608" in r.finding.paper_says
    # the correction: (n/G^2)(sigma^2 + c^2) with c = 10 sigma, i.e. 101 x the printed bound, holds
    assert run("werner2023.x02", theory=TH.LEMMA_4.scaled(101.0)).verdict == Verdict.HOLDS


# -- x03 / x04 -------------------------------------------------------------------------------------------------
def test_x03_closed_form_and_planted_upper_bound_order_is_violated():
    r = run("werner2023.x03")
    assert r.verdict == Verdict.HOLDS and r.observed["error_over_closed_form_minus_1"] < 1e-9
    planted = Bound("planted sigma^3/Delta as the order", sigma**3 / Delta, "tight")
    assert run("werner2023.x03", theory=planted).verdict == Verdict.VIOLATED


def test_tail_instance_has_variance_sigma2():
    inst = TH.tail_instance(1.0, 5.0)
    q = inst["q"]
    assert abs(q * (1 - q) * 25.0 - 1.0) < 1e-12 and q <= 0.5


def test_x04_planted_lower_bound_order_is_violated():
    r = run("werner2023.x04")
    assert r.verdict == Verdict.HOLDS and r.control["verdict"] == "violated"
    planted = Bound("planted sigma^4/Delta^2 as the order", sigma**4 / Delta**2, "tight")
    assert run("werner2023.x04", theory=planted).verdict == Verdict.VIOLATED


# -- x05 -------------------------------------------------------------------------------------------------------
def test_x05_planted_floor_above_the_bayes_risk_is_violated():
    assert run("werner2023.x05").verdict == Verdict.HOLDS
    assert run("werner2023.x05", theory=TH.MEAN_LOWER.scaled(8.0)).verdict == Verdict.VIOLATED


# -- x06 / x07 -------------------------------------------------------------------------------------------------
def test_x06_planted_steeper_rate_in_n_is_violated():
    r = run("werner2023.x06")
    assert r.verdict == Verdict.HOLDS and r.control["verdict"] == "violated"
    assert run("werner2023.x06", theory=Bound("planted 1/n^2", 1 / n**2, "upper")).verdict == Verdict.VIOLATED


def test_x07_constant_one_reading_is_not_enough():
    assert run("werner2023.x07").verdict == Verdict.HOLDS
    # read with a constant 1/2, replicates whose balls are only ~90% right fall under the claim
    assert run("werner2023.x07", C_sep=0.5).verdict == Verdict.VIOLATED


# -- Example 1's exact multipliers (c03's second argument) ----------------------------------------------------
def test_example1_multipliers_exact():
    m = E1.example1_multipliers(Fraction(1, 2))
    assert m["ball {2}"] == -5
    assert m["ball {1,2}"] == 1 - Fraction(1, 2) * (Fraction(19, 3) + Fraction(1, 3) ** 10 * Fraction(17, 3))
    assert abs(m["ball {1,2}"]) > 1 and m["v(0), ball {1,2,3}"] == Fraction(-4, 3)
    assert abs(E1.example1_multipliers(Fraction(1, 4))["ball {1,2}"]) < 1  # c03's eta = 0.25 contracts


def test_x08_is_retired_into_c03():
    ids = load_all()
    assert "werner2023.x08" not in ids and "werner2023.c03" in ids


# -- x09 -------------------------------------------------------------------------------------------------------
def test_x09_planted_tiny_tolerance_is_violated_and_ifca_control_fails():
    r = run("werner2023.x09")
    assert r.verdict == Verdict.HOLDS and r.control["verdict"] == "violated"
    assert run("werner2023.x09", theory=FCC.INIT_ERROR, eps=1e-60).verdict == Verdict.VIOLATED


# -- x10 / x11 -------------------------------------------------------------------------------------------------
def test_x10_planted_faster_rate_is_violated():
    from verify.checks.werner2023 import fc_noise as FN
    r = run("werner2023.x10")
    assert r.verdict == Verdict.HOLDS and r.control["verdict"] == "violated"
    assert run("werner2023.x10", theory=Bound("planted F/T^2", W.F / W.T**2, "upper")).verdict == Verdict.VIOLATED
    assert FN.STRONGLY_CONVEX_RATE.kind == "upper"


def test_x11_planted_beta_cubed_is_violated():
    from verify.checks.werner2023 import fc_noise as FN
    r = run("werner2023.x11")
    assert r.verdict == Verdict.HOLDS and r.control["verdict"] == "violated"
    u = FN.SQRT_BETA.symbol("u")
    assert run("werner2023.x11", theory=Bound("planted u^-3", u**-3, "upper")).verdict == Verdict.VIOLATED


# -- x12 -------------------------------------------------------------------------------------------------------
def test_x12_erratum_and_proof_radius_holds():
    from verify.checks.werner2023 import theorems as T12
    r = run("werner2023.x12")
    assert r.verdict == Verdict.VIOLATED and r.finding.kind == "erratum" and "oo" in r.finding.second_argument
    assert r.observed["proof_tau_verdict"] == "holds"
    # a planted bound that does not fall with alpha (beta sigma Delta, exponent 0 in w) holds for the statement's radius
    flat = Bound("planted beta sigma Delta", T12._beta * T12._sigma * T12._Delta * T12._w**0 + 0 * T12._w, "upper")
    assert run("werner2023.x12", theory=flat).verdict == Verdict.HOLDS


# -- x05: a minimax lower bound, tested as one ------------------------------------------------------------------
def test_x05_sharp_minimax_bound_is_not_a_false_alarm_and_a_wrong_floor_is_violated():
    """sigma^2/n is the true minimax risk of a Gaussian mean, so a check of a minimax statement must not flag it;
    2 sigma^2/n is beaten by the sample mean's constant risk sigma^2/n, and the widest prior's Bayes risk shows it."""
    n = sp.Symbol("n", positive=True)
    s = sp.Symbol("sigma", positive=True)
    for seed in (0, 1):
        assert run("werner2023.x05", seed=seed).verdict == Verdict.HOLDS
        sharp = Bound(name="sigma^2/n", expr=s**2 / n, kind="lower", hidden_constant=False,
                      statement="minimax", source="t")
        # the measured lower bound sigma^2/(n + 1/64^2) sits within Monte Carlo error of the sharp bound: not violated
        assert run("werner2023.x05", seed=seed, theory=sharp).verdict in (Verdict.HOLDS, Verdict.INCONCLUSIVE)
    wrong = Bound(name="2 sigma^2/n", expr=2 * s**2 / n, kind="lower", hidden_constant=False,
                  statement="wrong", source="t")
    assert run("werner2023.x05", theory=wrong).verdict == Verdict.VIOLATED
