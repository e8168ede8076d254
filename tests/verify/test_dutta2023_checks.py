"""dutta2023 c01-c20: the check contract (planted wrong theory, determinism on small grids) and the
acceptance numbers of the spec, read from the shared quick Result (verify.testing.run_quick)."""
from __future__ import annotations


import pytest

from analytic.bounds import Bound
from analytic.papers import dutta2023 as D
from verify.aggregators.ce import comparative_elimination
from verify.checks.dutta2023 import constants as C
from verify.checks.dutta2023 import filters as F
from verify.checks.dutta2023 import theorem as TH
from verify.engine import Context
from verify.fit import power_law
from verify.testing import CheckContract, run_quick


def mean_referenced_ce(X, f, reference=None):
    """A planted wrong CE: distances to the mean of the received vectors, not to the server model."""
    return comparative_elimination(X, f, reference="mean")


def larger_iso_constants(kappa):
    return (1.2 * D.isotropic_pl_constant(kappa)[0],)


class TestC01(CheckContract):
    check = C.c01_smoothness
    planted = {"curvature": {"P1": 2.0, "LS": 2.0}}  # the least-squares constant 2 for (11): too small
    determinism_overrides = {}


class TestC02(CheckContract):
    check = C.c02_pl_constant
    planted = {"iso_theory": larger_iso_constants, "cases": ("P1-iso",)}
    determinism_overrides = {"cases": ("P1-iso",)}


class TestC03(CheckContract):
    check = C.c03_growth_consistency
    planted = {"mu_rule": lambda c: c["mu_local"].value, "cases": ("P1-Gauss",), "points": 2000}  # the local constant at x*
    determinism_overrides = {"cases": ("P1-iso",), "points": 500}


class TestC04(CheckContract):
    check = C.c04_convexity
    planted = {"kappa": 3.0, "points": 200, "hessian_points": 100}  # the claim on the kappa = 3 variant is true
    planted_verdict = "holds"
    determinism_overrides = {"points": 100, "hessian_points": 50}


class TestC05(CheckContract):
    check = C.c05_problem12
    planted = {"lipschitz_exponent": 0.0, "rounds": 20}  # "(12) is smooth": a bounded Lipschitz ratio
    determinism_overrides = {"rounds": 10, "hs": (1e-2, 1e-4)}


class TestC06(CheckContract):
    check = C.c06_redundancy
    planted = {"predict": lambda N, f, l, d, noisy: not noisy, "cases": (("l=1, d=40, f=10", 1, 40, 10, 0.0),),
               "n_sample": 200}  # "realizable labels always give 2f-redundancy": wrong when a subset loses rank
    determinism_overrides = {"cases": (("l=2, d=10, f=2", 2, 10, 2, 0.0),), "n_sample": 100}


class TestC07(CheckContract):
    check = C.c07_common_stationarity
    planted = {"stationary_when_noisy": True, "rounds": 20}
    determinism_overrides = {"rounds": 10}


class TestC08(CheckContract):
    check = C.c08_ce_properties
    planted = {"aggregator": mean_referenced_ce, "instances": 30}
    determinism_overrides = {"instances": 20}


class TestC09(CheckContract):
    check = C.c09_condition9
    planted = {"mu_over_L_max": 1, "cases": C.CONDITION9_CASES[:1]}  # only "mu <= L": f <= 12 allowed, no erratum
    planted_verdict = "holds"
    determinism_overrides = {"cases": C.CONDITION9_CASES[1:2]}


PLANTED_FAST_RATE = Bound("planted: contraction 100x faster", (1 - 100 * D.alpha * D.mu * D.T) ** D.k * D.e0, "upper")


class TestC10(CheckContract):
    check = TH.c10_deterministic
    planted = {"theory": PLANTED_FAST_RATE, "fs": (2,), "attacks": ("A3",), "rounds": 30}
    determinism_overrides = {"fs": (2,), "attacks": ("A1",), "Ts": (1,), "rounds": 10, "nc_rounds": 10}


class TestC11(CheckContract):
    check = TH.c11_stochastic
    planted = {"theory": D.THEOREM_1.scaled(1e-3), "fs": (10,), "Ts": (3,), "sigma_factors": (1.0,), "rounds": 30,
               "floor_rounds": 30, "nc_rounds": 1000}  # the non-convex runs must still cross the shell (else inconclusive)
    determinism_overrides = {"fs": (2,), "attacks": ("A1",), "Ts": (1,), "sigma_factors": (1.0,), "rounds": 10,
                             "floor_rounds": 10, "nc_rounds": 10}
    determinism_replicates = 2


def test_c10_covers_the_nonconvex_problem_loosely_and_its_control_fails():
    """Issue 17: Theorem 1 on the paper's subject, a non-convex PL function: every run crosses the non-convex shell, the
    bound holds loosely (the measured log-contraction is ~36-200 x the bound's, so the margin says loose), the power is
    the smallest ratio, and the plain mean under the constant attack violates (10)."""
    r = run_quick(TH.c10_deterministic)
    assert r.verdict.value == "holds" and r.tightness == "loose"
    assert r.observed["nonconvex"]["largest_final_radius"] < TH.NC_SHELL[0]
    assert 30 <= r.margin["value"] <= 80 and r.power["plant"]["scale"] > 30
    assert r.control["verdict"] == "violated"
    planted = TH.c10_deterministic(Context(), log_rate=D.THEOREM_1_LOG_RATE.scaled(r.margin["value"] * 1.2), fs=(10,),
                                   attacks=("A3", "A6"))
    assert planted.verdict.value == "violated"  # a rate 1.2 x the measured worst would be caught


def test_c10_without_an_attack_that_harms_the_mean_is_inconclusive():
    """The control must fail: with the control rule replaced by CE the mean's attack is harmless, so not holds."""
    r = TH.c10_deterministic(Context(), control="ce", fs=(2,), attacks=("A3", "A6"), Ts=(1,))
    assert r.control["verdict"] == "holds" and r.verdict.value == "inconclusive"


def _floor_scaled(c):
    return Bound(f"planted: floor of (10) x {c:g}", D.RHO_BOUND**D.k * D.e0 + c * D.THEOREM_1_FLOOR.expr, "upper")


def test_c11_floors_settle_and_the_printed_floor_is_vacuous_with_the_power_it_reports():
    """The floors settle (least squares and non-convex), the settled floor is ~1e-5 to 5e-3 of E_inf, so E_inf cut to
    1e-6 is violated and cut to 0.01 still holds. The Result's binding atom is the one closest to failing (round 0 of
    eq. (10), where the bound's first term equals the observed e_0: ratio ~1, tight); the floor's atoms stay listed
    with their vacuous tightness and the small power they report."""
    q = run_quick(TH.c11_stochastic)
    assert q.verdict.value == "holds" and q.tightness == "tight" and q.observed["late_gap_over_E_inf"]["settled"]
    assert q.margin["value"] > 0.98
    floors = [a for a in q.atoms if a["tightness"] == "vacuous"]
    assert floors and min(a["power"] for a in floors) < 1e-2
    assert 1e-5 < q.observed["nonconvex"]["floor_over_E_inf"] < 1e-3 and q.observed["nonconvex"]["settled"]
    assert q.observed["nonconvex"]["crossed_shell_at_round"] is not None
    assert q.control["verdict"] == "violated"
    small = {"fs": (10,), "Ts": (1,), "sigma_factors": (1.0,)}
    assert TH.c11_stochastic(Context(), theory=_floor_scaled(1e-6), **small).verdict.value == "violated"
    assert TH.c11_stochastic(Context(), theory=_floor_scaled(1e-2), **small).verdict.value == "holds"


class TestC12(CheckContract):
    check = TH.c12_floor_scaling
    planted = {"in_step": power_law("alpha", 2, "tight"), "rounds": 60}
    determinism_overrides = {"rounds": 10, "sigma_factors": (1.0, 2.0), "step_grid": (0.05, 0.1)}
    determinism_replicates = 2


class TestC13(CheckContract):
    check = TH.c13_minibatch
    planted = {"theory": power_law("m", -2, "tight"), "rounds": 60, "batches": (1, 16)}
    determinism_overrides = {"rounds": 10, "batches": (1, 4)}
    determinism_replicates = 2


class TestC14(CheckContract):
    check = TH.c14_local_steps
    planted = {"min_speedup": D.LOCAL_STEPS_SPEEDUP.scaled(3.0), "rounds": 60}  # "T = 3 is 6x faster per round than T = 1"
    determinism_overrides = {"rounds": 10, "Ts": (1, 3)}
    determinism_replicates = 2


class TestC15(CheckContract):
    check = TH.c15_decaying_step
    planted = {"theory": power_law("k", 0, "tight"), "rounds": 300}  # "O(1/k) to a floor": then no erratum
    planted_verdict = "holds"
    determinism_overrides = {"rounds": 30}
    determinism_replicates = 2


class TestC16(CheckContract):
    check = F.c16_outside_hypotheses
    planted = {"aggregator": "mean", "fs": (5,), "attacks": ("A1",), "rounds": 30}  # plain averaging does not converge
    determinism_overrides = {"fs": (2,), "attacks": ("A2",), "rounds": 10}


class TestC17(CheckContract):
    check = F.c17_filters
    planted = {"attacks": ("A4",), "others": ("cwtm", "mean"), "fs": (0, 10)}  # where CE does win and F2 holds
    planted_verdict = "holds"  # a known attack under which the paper's words hold: the rule can say holds
    determinism_overrides = {"attacks": ("A1",), "others": ("mean",), "fs": (0, 2), "rounds": 5}
    determinism_replicates = 2


class TestC18(CheckContract):
    check = F.c18_fewer_byzantine
    planted = {"aggregator": "mean", "attacks": ("A6",), "rounds": 30, "f_acts": (2,)}
    determinism_overrides = {"f_acts": (0,), "rounds": 10}
    determinism_replicates = 2


class TestC19(CheckContract):
    check = F.c19_proof_constants
    planted = {"step_size": D.STEP_SIZE_CORRECTED}  # the step size the proof's steps need: no erratum
    planted_verdict = "holds"
    determinism_overrides = {}


class TestC20(CheckContract):
    check = F.c20_redundancy_needed
    planted = {"f": 0, "rounds": 50}  # no filter, no attack: converges to x*_H despite label noise
    planted_verdict = "not_reproduced"
    determinism_overrides = {"rounds": 10}


# -- acceptance numbers (spec section 7) from the shared quick Results --------------------------------------
def test_c16_with_no_filter_is_not_holds_and_its_control_fails():
    """Issue 17: the plain mean passed as the filter. The claim's own runs fail (far vectors, the constant 1e3 1), so the
    check cannot report holds; the control (the mean) is present and violated."""
    r = F.c16_outside_hypotheses(Context(), aggregator="mean", fs=(5,), rounds=60)
    assert r.verdict.value != "holds"
    assert r.control["verdict"] == "violated" and "mean" in r.control["what"]


def test_c16_toothless_attacks_give_inconclusive_not_holds():
    """Sign flip and CE evasion vanish at x*: the mean converges under them too, so CE's exact convergence there says
    nothing about the filter (controlled: inconclusive)."""
    r = F.c16_outside_hypotheses(Context(), fs=(5,), attacks=("A2", "A3"), rounds=120)
    assert r.fit["claim_verdict"] == "holds" and r.control["verdict"] == "holds"
    assert r.verdict.value == "inconclusive"


def test_c16_and_c18_quick_controls_fail_under_a_non_vanishing_attack():
    for spec in (F.c16_outside_hypotheses, F.c18_fewer_byzantine):
        r = run_quick(spec)
        assert r.verdict.value == "holds" and r.control["verdict"] == "violated", r.control
        assert r.control["per_attack"]["large value"] == "violated"


def test_c18_with_no_filter_is_not_holds_and_its_control_fails():
    r = F.c18_fewer_byzantine(Context(), aggregator="mean", f_acts=(2,), rounds=60)
    assert r.verdict.value != "holds"
    assert r.control["verdict"] == "violated"
    toothless = F.c18_fewer_byzantine(Context(), attacks=("A3",), f_acts=(2,), rounds=150)
    assert toothless.verdict.value == "inconclusive" and toothless.control["verdict"] == "holds"


def test_c02_isotropic_pl_constants_match_the_spec():
    r = run_quick(C.c02_pl_constant)
    assert r.observed["mu_hat"]["P1-iso"] == pytest.approx(1.0742, rel=0.005)
    assert r.observed["mu_hat"]["P1nc-iso"] == pytest.approx(0.1755, rel=0.005)
    assert r.observed["mu_hat_x2_3sin2"] >= 1 / 32
    assert r.observed["mu_traj_ge_mu_global"]


def test_c09_rests_on_the_proven_cap_and_reports_the_instances():
    r = run_quick(C.c09_condition9)
    assert r.observed["f_cap_any_data"] == 7 and r.observed["paper_f_outside"] == [8, 10]
    # the spec's sampled caps (isotropic 4, Gaussian 0-2) are reported, not claimed for every dataset
    assert [row["f_max"] for row in r.observed["problems"]] == [4, 0, 2, 2]
    assert all(row["mu_over_L_upper"] <= 0.5 for row in r.observed["problems"])
    assert r.observed["paper_f_status"][2].startswith("P1-iso: inside")  # f = 2 is inside (9) for isotropic data
    assert "outside for every dataset" not in r.observed["paper_f_status"][5]
    f = r.finding
    assert f.kind == "erratum" and "eq. (9)" in f.paper_says and "8/42" in f.second_argument


def test_c09_reports_both_readings_of_assumption_2():
    """Global (line 74, any start): f <= 7, violated; at the iterates as printed (line 76): mu <= L only, f <= 12, the
    paper's f not excluded (an aside atom); near x* the isotropic instance allows f <= 12."""
    r = run_quick(C.c09_condition9)
    readings = r.observed["readings_of_assumption_2"]
    assert readings["global"]["verdict"] == "violated" and readings["global"]["f_cap_any_data"] == 7
    assert readings["at_iterates"]["verdict"] == "holds" and readings["at_iterates"]["f_cap_any_data"] == 12
    near = readings["at_iterates"]["near_x_star"]
    assert abs(near["P1-iso"]["mu_over_L"] - 1.0) < 1e-9 and near["P1-iso"]["f_max"] == 12
    # near x* the PL ratio exceeds the global constant: each near-x* cap is at least the sampled global one
    assert all(near[row["problem"]]["f_max"] >= row["f_max"] for row in r.observed["problems"])
    assert set(r.fit) == {"global", "at_iterates"} and "line 76" in r.finding.correction
    assert r.verdict.value == "violated"


def test_c17_is_violated_under_an_attack_where_cwtm_beats_ce():
    """CE-evasion (A3): the vectors sit inside the honest radius, CE keeps them, CWTM trims them per coordinate; with the
    noise paired, CWTM ends below CE and the error grows with f, so the one-attack claim is violated."""
    r = F.c17_filters(Context(), attacks=("A3",), others=("cwtm",), context=(), fs=(0, 10))
    assert r.verdict.value == "violated", r.explanation
    assert r.observed["goal_1_filters"][0]["ce_beaten"]


def test_c17_ce_and_multikrum_tie_exactly_when_every_filter_removes_the_attack():
    """The argument for expecting inconclusive: under far random vectors (A1) CE and multi-Krum (m = N - f) average the
    same N - f honest vectors, so every replicate pair ties and F1 can be neither confirmed nor refuted there."""
    r = F.c17_filters(Context(), attacks=("A1",), others=("multikrum",), context=(), sigmas=(1.0,), fs=(0, 2), rounds=10)
    row = r.observed["goal_1_filters"][0]
    assert row["ties"] == r.observed["replicates"] and row["verdict"] == "inconclusive"
    assert r.fit["goal_1_filters"]["A1"] == "inconclusive"  # so the unanimous verdict over a library with A1 cannot be holds


def test_c17_claim_quotes_the_paper_and_keeps_the_mean_out_of_it():
    r = run_quick(F.c17_filters)
    assert "out performs other byzantine filters" in r.claim.text
    assert {row["other"] for row in r.observed["goal_1_filters"]} == {"cwtm", "multikrum"}
    assert {row["other"] for row in r.observed["context_mean"]} == {"mean"}
    assert r.finding.kind == "remark"


def test_errata_carry_exact_second_arguments():
    for spec in (C.c04_convexity, F.c19_proof_constants, TH.c15_decaying_step):
        f = run_quick(spec).finding
        assert f.kind == "erratum" and not f.missing(), (spec, f.missing())
    assert "4*cos(r)**2" in run_quick(C.c04_convexity).finding.second_argument
    assert "-1/1296" in run_quick(F.c19_proof_constants).finding.witness
    assert "x_e" in run_quick(TH.c15_decaying_step).finding.second_argument


def test_c10_bound_is_loose_by_the_expected_factor():
    t = run_quick(TH.c10_deterministic).observed["tightness_log_rate_ratio"]
    assert 30 <= t["min"] and t["max"] <= 80  # spec 4.2: about 72 (the bound's 1/36 against local GD's ~2)


def test_c19_reports_the_constants_the_proof_needs():
    r = run_quick(F.c19_proof_constants)
    assert r.observed["constant_needed_as_printed"] == pytest.approx(36 * (3.5 + 4 / 9))  # ~142
    assert r.observed["constant_needed_with_21_fixed"] == pytest.approx(158.0)
    assert r.observed["max_coefficient_over_alphaT"] == pytest.approx(-1 / 18 + (3.5 + 4 / 9) / 72, abs=1e-12)


def test_c20_plateau_grows_like_the_label_noise_squared():
    r = run_quick(F.c20_redundancy_needed)
    assert r.fit["slope"]["slope"] == pytest.approx(2.0, abs=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_every_dutta2023_verdict_is_stable_over_root_seeds(seed):
    from verify.registry import load_all

    for cid, spec in load_all().items():
        if cid.startswith("dutta2023."):
            r = spec(Context(seed=seed))
            assert r.verdict == r.expected, f"{cid} at seed {seed}: {r.verdict.value}. {r.explanation}"
