"""werner2023 c17-c29, c31: the contract of every check (planted wrong theory flips the verdict, same seed
same numbers) with small grids, plus the acceptance numbers of the default runs (shared through run_quick)."""
import math

import numpy as np
import pytest
import sympy as sp

from analytic.bounds import Bound
from analytic.papers import werner2023 as W
from verify.checks.werner2023.assumptions import c17_lemma1_a, c18_lemma1_separation, c19_fig2_constants
from verify.checks.werner2023.experiments import c29_communication, c31_fig7_elbows
from verify.checks.werner2023.momentum import (
    c25_momentum_variance,
    c26_batch_variance,
    c27_momentum_rate,
    c28_momentum_byzantine,
)
from verify.checks.werner2023.fc_rates import (
    c20_full_batch,
    c21_fixed_batch_floor,
    c22_growing_batch,
    c23_gap_to_ground_truth,
    c24_byzantine_robustness,
)
from verify.engine import Context
from verify.fit import power_law
from verify.result import Verdict
from verify.testing import CheckContract, run_quick


class TestC17(CheckContract):
    check = c17_lemma1_a
    planted = {"theory": W.LEMMA_1_A2.scaled(1e-3), "points": 200}
    determinism_replicates = 2
    determinism_overrides = {"kappas": (2.0,), "points": 200}


class TestC18(CheckContract):
    check = c18_lemma1_separation
    # the erratum check: with the pairwise form the proof gives as the claim, nothing is violated
    planted = {"claimed": W.LEMMA_1_PAIRWISE, "kappas": (2.0,), "points": 100}
    planted_verdict = "holds"
    determinism_replicates = 2
    determinism_overrides = {"kappas": (2.0,), "points": 100}


class TestC19(CheckContract):
    check = c19_fig2_constants
    planted = {"A2_claim": 1.0, "T": 8}
    determinism_replicates = 2
    determinism_overrides = {"T": 8}


class TestC20(CheckContract):
    check = c20_full_batch
    planted = {"theory": power_law("T", -2.0, kind="tight"), "Ts": (5, 10, 20, 40)}
    determinism_replicates = 2
    determinism_overrides = {"Ts": (5, 10, 20)}


class TestC21(CheckContract):
    check = c21_fixed_batch_floor
    planted = {"theory": Bound("planted sigma^2/(n^2 B)", W.sigma**2 / (W.n**2 * W.B), "tight"), "ns": (2, 4, 8),
               "batches": (1, 4), "T": 2}
    determinism_replicates = 2
    determinism_overrides = {"ns": (2, 4), "batches": (1, 4), "T": 2}


class TestC22(CheckContract):
    check = c22_growing_batch
    planted = {"theory": power_law("T", -2.0, kind="upper"), "Ts": (2, 4, 8, 16)}
    determinism_replicates = 2
    determinism_overrides = {"Ts": (2, 4, 8)}


class TestC23(CheckContract):
    check = c23_gap_to_ground_truth
    # a claim that cannot be true ("the relative gap falls by more than 1000 percentage points") must be violated
    planted = {"margin": -10.0, "settings": ((4, 4), (4, 8), (8, 4)), "T": 10}
    determinism_replicates = 2
    determinism_overrides = {"settings": ((2, 2), (2, 4), (4, 2)), "T": 5}


class TestC24(CheckContract):
    check = c24_byzantine_robustness
    planted = {"fedavg_factor": W.FEDAVG_BYZANTINE_FACTOR.scaled(1e6), "betas": (0.2,), "T": 6}
    determinism_replicates = 2
    determinism_overrides = {"betas": (0.1,), "T": 4}


class TestC25(CheckContract):
    check = c25_momentum_variance
    planted = {"theory": Bound("planted alpha^2 sigma^2", W.alpha**2 * W.sigma**2, "upper"), "steps": 50}
    determinism_replicates = 20
    determinism_overrides = {"steps": 20}


class TestC26(CheckContract):
    check = c26_batch_variance
    planted = {"theory": Bound("planted sigma^2/sqrt(B)", W.sigma**2 / sp.sqrt(W.B), "exact")}
    determinism_replicates = 50


class TestC27(CheckContract):
    check = c27_momentum_rate
    # Assumption 9 forced to count as held: the wrong exponent is then judged, and must fail
    planted = {"separation_threshold": 0.0, "theory": power_law("T", -2.0, kind="upper"), "Ts": (4, 8, 16, 32)}
    determinism_replicates = 2
    determinism_overrides = {"Ts": (4, 8, 16)}


class TestC28(CheckContract):
    check = c28_momentum_byzantine
    planted = {"separation_threshold": 0.0, "theory": power_law("T", -2.0, kind="upper"), "Ts": (4, 8, 16)}
    determinism_replicates = 2
    determinism_overrides = {"Ts": (4, 8)}


class TestC29(CheckContract):
    check = c29_communication
    planted = {"fc_messages": Bound("planted N^2", W.N_sym**2, "exact"), "Ns": (4, 8), "T": 1}
    determinism_overrides = {"Ns": (4,), "T": 1}


class TestC31(CheckContract):
    check = c31_fig7_elbows
    # a claim Theorem 3.1's requirement meets ("falls no faster than sigma^-5") must be found to hold
    planted = {"claimed": power_law("sigma", -5.0, kind="lower")}
    planted_verdict = "holds"
    determinism_replicates = 2
    determinism_overrides = {"L": 10}


# -- acceptance numbers of the default runs (spec 6.4-6.7) -----------------------------------------
def test_c17_exact_a2_far_below_lemma1_and_sampling_below_exact():
    r = run_quick("werner2023.c17")
    assert np.all(np.asarray(r.observed["A2_exact_max"]) < np.asarray(r.predicted["A2_bound"]))
    assert np.all(np.asarray(r.observed["sampled_over_exact_min"]) <= 1.0)


def test_c17_worst_case_instance_makes_lemma1_loose_with_true_power():
    """Issue 17: random instances use <= 2% of (2L/mu)^2, so (L/mu)^1 in its place still held; the worst case of the
    lemma's class (one client with curvature L among n_i - 1 with mu) reaches ((n-1)(L-mu)/(L+(n-1)mu))^2, close to the
    supremum (L/mu - 1)^2: the bound is loose (about 5x), and (L/mu)^1 is now violated."""
    r = run_quick("werner2023.c17")
    n = r.observed["worst_case_n_i"]
    assert r.verdict.value == "holds" and r.tightness == "loose"
    assert np.allclose(r.observed["A2_worst_case"], ((n - 1) * 9 / (10 + (n - 1))) ** 2 * np.array([0, 1]) + np.array(
        [((n - 1) / (2 + (n - 1))) ** 2, 0]), rtol=1e-9)
    assert 0.15 < r.margin["value"] < 0.2025  # below the supremum's 81/400
    planted = c17_lemma1_a(Context(), theory=Bound("planted (L/mu)^1", W.L / W.mu, "upper"), points=200)
    assert planted.verdict.value == "violated"


def test_c18_one_d_counterexample_numbers():
    r = run_quick("werner2023.c18")
    lhs, rhs_max = np.asarray(r.observed["one_d_exact_min"]), np.asarray(r.observed["one_d_rhs_max_form"])
    assert np.isclose(lhs.min(), 1.0) and np.isclose(rhs_max.max(), 50.0)
    assert r.observed["random_pairs_max_form_fails"] > 0 and r.finding.kind == "erratum"
    assert "1 < 50" in r.finding.witness and "Fractions: 1 < 50" in r.finding.second_argument


def test_c15_erratum_has_an_exact_certificate():
    r = run_quick("werner2023.c15")
    assert r.finding.kind == "erratum" and "121 < 128" in r.finding.second_argument
    assert "3/4 - sqrt(2)/2" in r.finding.witness and "(95)" in r.finding.paper_says


def test_c31_judges_theorem_3_1_not_the_elbow_detector():
    """The verdict reads eq. (13) on Fig. 7's instances, so the elbow threshold cannot flip it (it did at eps = 0.2)."""
    a, b = run_quick("werner2023.c31"), c31_fig7_elbows(Context(fidelity="quick").for_check("werner2023.c31"), eps=0.2)
    assert a.verdict == b.verdict == Verdict.VIOLATED
    need = np.asarray(a.observed["theorem_3_1_steps_mean"])
    assert np.all(np.diff(need) < 0) and a.observed["falls"] == a.observed["pairs"]
    assert a.predicted["exact_change_sigma_0.5_to_4_without_max"] == pytest.approx(math.log(8) / math.log(19 / 20), rel=1e-12)


def test_c28_runs_are_paired():
    """With and without attackers the runs share the instances, starts and noise: the same starting gradients."""
    from verify.checks.werner2023.momentum import _momentum_runs

    ctx = Context(fidelity="quick", replicates=2).for_check("werner2023.c28")
    Ts = np.array([4, 8])
    y0, *_, s0 = _momentum_runs(ctx, Ts, 2, 3, 0, "paired")
    yb, *_, sb = _momentum_runs(ctx, Ts, 2, 3, 4, "paired")
    assert np.array_equal(s0, sb) and not np.array_equal(y0, yb)


def test_c19_exact_delta2_is_zero_on_the_papers_data():
    r = run_quick("werner2023.c19")
    assert max(r.observed["Delta2_exact_D2_0"]) == 0.0 and min(r.observed["Delta2_along_training"]) > 0
    assert max(r.observed["A2_along_training"]) <= min(r.observed["A2_exact"])
    assert r.finding.kind == "remark" and "Not an erratum" in r.finding and "line ~401" in r.finding


def test_c21_slopes_in_the_spec_window():
    r = run_quick("werner2023.c21")
    for key in ("slope_n_ci", "slope_B_ci"):
        lo, hi = r.observed[key]
        assert -1.15 <= lo and hi <= -0.85


def test_c20_c21_c22_controls_fail_and_c21_leaves_the_one_step_regime():
    """Issue 17: the 1/T slope (c20) and a growing-batch rate (c22) are automatic for any run that converges, and a
    floor falling with |B| for any SGD: each runs a method lacking the property, which must fail (FedAvg: no
    clustering; local training: no collaboration, floor flat in n_i). c21 runs at eta = 1/(2L): the floor is the
    stationary sum eta/(2 - eta) of every round's noise, not one round's."""
    for cid in ("werner2023.c20", "werner2023.c21", "werner2023.c22"):
        r = run_quick(cid)
        assert r.verdict.value == "holds" and r.control["verdict"] == "violated", (cid, r.control)
    r = run_quick("werner2023.c21")
    assert r.observed["eta"] == 0.5 and abs(r.fit["control"]["slope"]) < 0.2
    C = np.asarray(r.observed["floor_over_stationary_sigma2_over_nB"])
    assert 0.7 < C.min() and C.max() < 1.3  # the floor is eta/(2 - eta) sigma^2/(n |B|): dynamics, not one step
    assert run_quick("werner2023.c20").fit["control"]["slope"] > -0.2


def test_c22_attack_slope_near_one_half():
    r = run_quick("werner2023.c22")
    assert -0.6 <= r.observed["slope_edge_of_ball"] <= -0.4 and r.observed["slope_beta0"] < -0.8


def test_c27_reports_the_assignment_accuracy_when_assumption9_fails():
    r = run_quick("werner2023.c27")
    assert not r.assumptions[0].held and r.verdict.value == "inconclusive"
    assert "assignment accuracy" in r.explanation and len(r.observed["assignment_accuracy_at_T"]) == 4
    assert r.finding.kind == "erratum" and not r.finding.missing()
    assert "line ~344" in r.finding.paper_says and "Delta^2/4" in r.finding.second_argument


def test_c27_vacuity_argument_numbers():
    """The two inequalities of c27's second argument, on random sequences (seeded): the momentum's average squared
    norm never exceeds the gradients' (Jensen over the weights alpha (1 - alpha)^(t-s)), and the horizon formula."""
    from verify.checks.werner2023.momentum import vacuity_horizon

    rng = np.random.default_rng(0)
    for alpha in (0.05, 0.3, 1.0):
        g = rng.standard_normal((200, 5)) * rng.exponential(1.0, (200, 1))
        m, ms = np.zeros(5), []
        for gt in g:
            m = alpha * gt + (1 - alpha) * m
            ms.append(m @ m)
        assert np.mean(ms) <= np.mean((g ** 2).sum(1)) + 1e-12
    assert vacuity_horizon(2.5, 16, 20.0) == 16 * (2.5 ** 2 / 16 + 2.5 ** 3 / 20) / 20 ** 4
    assert vacuity_horizon(2.5, 16, 20.0, C=10.0) < 1  # even a constant 10 in (28) leaves no T >= 1


def test_c27_would_judge_the_rate_if_assumption9_held():
    """With the separation threshold at 0 the assumption counts as held and the measured slope is judged."""
    r = c27_momentum_rate(Context(replicates=2), separation_threshold=0.0, Ts=(4, 8, 16))
    assert r.verdict.value in ("holds", "violated", "inconclusive") and r.assumptions[0].held


@pytest.mark.slow
@pytest.mark.parametrize("check_id", [f"werner2023.c{i}" for i in (17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31)])
def test_verdict_stable_over_root_seeds(check_id):
    from verify.registry import get

    spec = get(check_id)
    verdicts = {s: spec(Context(seed=s)).verdict for s in range(1, 6)}
    assert all(v == spec.expected for v in verdicts.values()), verdicts
