"""buttaci2024 c01-c20, x01-x02: the check contract (planted wrong theory flips the verdict, same seed same
numbers, serialisation), and the numbers the spec and the issue ask for. The default runs are shared with
tests/test_all_checks.py through run_quick."""
import numpy as np
import pytest
import sympy as sp

from analytic.bounds import Bound
from analytic.papers import buttaci2024 as B
from verify.checks.buttaci2024 import contraction as K
from verify.checks.buttaci2024 import experiments as X
from verify.checks.buttaci2024 import graph as G
from verify.checks.buttaci2024 import lemmas as LM
from verify.checks.buttaci2024 import nonconvex as N
from verify.checks.buttaci2024 import pep as P
from verify.engine import Context
from verify.registry import load_all
from verify.result import Verdict
from verify.testing import CheckContract, run_quick

IDS = [f"buttaci2024.c{k:02d}" for k in range(1, 21)] + [f"buttaci2024.x{k:02d}" for k in range(1, 5)]


def _replace(level_method: tuple, expr) -> dict:
    """B.FACTORS with one factor replaced by a planted (wrong) expression."""
    old = B.FACTORS[level_method]
    return {**B.FACTORS, level_method: Bound(f"planted {old.name}", expr, "upper")}


def test_every_spec_claim_has_a_check():
    reg = load_all()
    assert [i for i in IDS if i not in reg] == []
    assert reg["buttaci2024.c08"].kind == "erratum"
    # Lemma B3 as printed (with its additive term A) holds, vacuously, at its largest admissible step
    assert {reg[i].kind for i in ("buttaci2024.c16", "buttaci2024.x02")} == {"bound"}
    assert {str(reg[i].expected) for i in ("buttaci2024.c16", "buttaci2024.x02")} == {"holds"}


class TestC01(CheckContract):
    check = G.c01_similarity_graph
    planted = {"weight_definition": lambda mis: -np.log10(mis)}  # log10 instead of the natural log
    determinism_overrides = {"C": 4}


class TestC02(CheckContract):
    check = G.c02_perturbed_point
    planted = {"perturbation": lambda w, u, beta: (1 - beta) * w + beta * u}  # roles of w and u swapped


class TestC03(CheckContract):
    check = K.c03_reductions
    planted = {"factors": _replace(("perturbed", "lemma"), 1 - 1 / B.beta + (1 - B.beta * B.mu * B.gamma) ** (B.E + 1) / B.beta)}
    determinism_overrides = {"T": 3, "points": 20}


class TestC04(CheckContract):
    check = G.c04_lemma_m1
    planted = {"identity": lambda wbar_k, wbar_0, beta: wbar_k}  # drops the (1 - beta) wbar_0 part


class TestC05(CheckContract):
    check = K.c05_exact_contraction
    planted = {"factors": {**B.FACTORS, **{(m, "lemma"): B.FACTORS[(m, "theorem")] for m in B.METHODS}}}


class TestC06(CheckContract):
    check = K.c06_ordering
    planted = {"factors": _replace(("perturbed", "lemma"), B.KAPPA_B3.expr + B.mu * B.gamma)}


class TestC07(CheckContract):
    check = K.c07_relaxation_chain
    planted = {"theorem_ours": Bound("planted theorem 3 factor", 1 - B.mu / ((B.beta + 1) * B.L), "upper")}


class TestC08(CheckContract):
    check = K.c08_speedup_artifact
    planted = {"claimed": B.SPEEDUP_TIGHT}  # a claim the analysis does support: no erratum
    planted_verdict = "holds"


class TestC09(CheckContract):
    check = K.c09_observed_contraction
    planted = {"lemma_fedavg": Bound("planted FedAvg factor", (1 - B.gamma * B.mu) ** (8 * B.E), "upper"), "Es": (1, 5)}
    determinism_overrides = {"Es": (1, 5), "T": 20}


class TestC10(CheckContract):
    check = LM.c10_per_round_lemma
    # the additive terms alone x 1e-6 (issue 17): at the noise floor (1 - kappa) D_inf must be paid by A
    planted = {"additive_fedprox": B.A_A3.scaled(1e-6), "additive_ours": B.A_B3.scaled(1e-6), "hs": (1.0,)}
    determinism_overrides = {"hs": (1.0,), "T": 8}


class TestC11(CheckContract):
    check = LM.c11_deviation_lemmas
    planted = {"lemma_a1": B.LEMMA_A1.scaled(0.5)}
    determinism_overrides = {"T": 5}


class TestC12(CheckContract):
    check = LM.c12_theorem_curves
    planted = {"theorem_1": B.THM1.scaled(1e-6), "theorem_3": B.THM3.scaled(1e-6)}
    determinism_overrides = {"T": 8}


class TestC13(CheckContract):
    check = LM.c13_floor_scaling
    planted = {"floor": B.FLOOR_3.scaled(1e-9)}
    determinism_overrides = {"betas": (0.2, 0.5, 1.0), "T": 10}


@pytest.mark.parametrize("expr, verdict", [
    # beta-free, and above Theorem 3's floor on beta >= 0.1: its largest A_beta, and beta (1 - beta) <= 1/4
    (B.FLOOR_THM3.subs(B.beta, sp.Rational(1, 10)) + B.E * B.G2 / (32 * B.L), "holds"),
    (sp.Float(1e6), "holds"),  # free of every symbol
    (1e-9 * B.FLOOR_THM3.subs(B.beta, 1), "violated"),  # beta-free and wrong
    (sp.Float(0), "violated"),  # a zero floor: no exponent in beta, still a verdict
], ids=["beta_free", "constant", "beta_free_wrong", "zero"])
def test_c13_gives_a_verdict_for_floors_free_of_beta(expr, verdict):
    """Any theory the signature accepts gives a verdict: a floor that does not depend on beta evaluates to a scalar,
    which once made the beta grid's slope fit fail with an IndexError."""
    floor = Bound("planted floor", expr, "upper")
    r = LM.c13_floor_scaling(Context(fidelity="quick", seed=0, replicates=10), floor=floor, betas=(0.2, 0.5, 1.0), T=10)
    assert r.verdict == Verdict(verdict), r.explanation


class TestC14(CheckContract):
    check = LM.c14_heterogeneity
    planted = {"floor_1": B.FLOOR_1.scaled(1e-9), "floor_3": B.FLOOR_3.scaled(1e-9)}


class TestC15(CheckContract):
    check = N.c15_nonconvex
    planted = {"theorem_2": B.THM2.scaled(1e-3), "theorem_4": B.THM4.scaled(1e-3), "Ts": (10, 30),
               "Es": (1, 5)}
    determinism_overrides = {"Ts": (10, 30), "Es": (1, 5)}


class WrongCorollary(B.Corollary1):
    def E_opt(self, T_v):  # the planted slip: exponent 1/2 on A/(2B)
        return (self.A / (2 * self.B)) ** 0.5 * np.asarray(T_v, dtype=float) ** (1 / 3)


class TestC16(CheckContract):
    check = K.c16_stability
    planted = {"additive": None}  # Lemma B3 without its additive term A (our former reading): violated at beta = 0.1


class TestC17(CheckContract):
    check = N.c17_corollary1
    planted = {"corollary": WrongCorollary, "Ts": (10, 30), "Es": (1, 2)}
    determinism_overrides = {"Ts": (10, 30), "Es": (1, 2), "instances": 5}


class TestC18(CheckContract):
    check = X.c18_local_steps
    planted = {"steps_rule": lambda sizes, E, reading, b: E * np.asarray(sizes) // b}  # floor instead of ceil


class TestC19(CheckContract):
    check = X.c19_table1
    # Table 1 with the inconsistent cell printed as its counts give (1.1x): no erratum
    planted = {"printed": {**B.TABLE1_PRINTED, ("beta=0.9", True): (1.0, 1.1, 1.0, 1.0)}}
    planted_verdict = "holds"


class TestX04(CheckContract):
    check = N.x04_eq76_young
    planted = {"coefficients": (1.0, 1.0)}  # Young's valid coefficients: the step holds
    planted_verdict = "holds"


def test_x04_exact_witness_and_the_indefinite_form():
    r = run_quick("buttaci2024.x04")
    assert r.observed["exact_witness"] == {"lhs": "1/400", "rhs": "1/1600"}  # g = 0, u = e_1: 4 times the bound
    names = {k: sp.Symbol(k) for k in ("L", "alpha", "gamma")}
    assert sp.simplify(sp.sympify(r.predicted["form_matrix_det"], locals=names)
                       + names["L"] ** 2 * names["alpha"] ** 2 * names["gamma"] ** 4 / 4) == 0
    assert r.finding.kind == "erratum" and not r.finding.missing() and "Peter-Paul" in r.claim.text


class TestX03(CheckContract):
    check = X.x03_table1_repaired
    planted = {"rounding": lambda x: np.floor(np.asarray(x) * 10) / 10}  # truncation


def leaky_partition(N, C, K, a, b, rng, R=1):
    """A generator without the a = 0 limit (Dir with concentration 1/max(a, 0.01))."""
    from verify.problems import buttaci2024_partition as part

    return part.class_counts(part.client_sizes(N, C, b, rng, R), rng.dirichlet(np.full(K, 1 / max(a, 0.01)), (R, C)))


class TestC20(CheckContract):
    check = G.c20_partitions
    planted = {"partition": leaky_partition}


class TestX01(CheckContract):
    check = P.x01_pep_certification
    planted = {"lemma_fedavg": Bound("planted FedAvg factor", (1 - B.gamma * B.mu) ** (2 * B.E + 2), "upper"), "Es": (1, 2),
               "mu_over_L": (0.25,), "betas": (0.5,), "regime_points": ()}
    determinism_overrides = {"Es": (1, 2), "mu_over_L": (0.25,), "betas": (0.5,), "regime_points": ()}


class TestX02(CheckContract):
    check = P.x02_pep_lemma_b3_step
    planted = {"additive": None}  # Lemma B3 without its additive term A (our former reading): violated at beta = 0.1
    determinism_overrides = {"betas": (0.1,)}


def test_x02_the_additive_floor_is_what_lemma_b3_gives_at_g2_mu2():
    # A at t = 0, Gamma = sigma = 0: 8 gamma^2 E^3 G^2 (4 + (1-beta)^2) + mu gamma^3 beta (1-beta) E^3 G^2, G^2 = mu^2
    mu, L, E, b = 0.25, 1.0, 5, 0.1
    g = 1 / (2 * L)
    expected = 8 * g**2 * E**3 * mu**2 * (4 + (1 - b) ** 2) + mu * g**3 * b * (1 - b) * E**3 * mu**2
    assert P.additive_floor(B.A_B3, mu=mu, L=L, gamma=g, E=E, beta=b) == pytest.approx(expected, rel=1e-12)
    assert expected > 75  # the issue's "A >= 75 D_t"


# -- the numbers the spec and the issue ask for ------------------------------------------------------------
def test_x01_sets_the_certified_worst_case_beside_every_factor():
    r = run_quick("buttaci2024.x01")
    for row in r.observed["rows"]:
        assert row["worst_case"] <= min(row["factor_lemma"], row["factor_tight"], row["factor_theorem"])
        assert row["worst_case"] == pytest.approx(row["quadratic_rho2"], rel=1e-5)
        assert row["rounds_ratio_lemma"] == pytest.approx(2.0, rel=1e-3)  # the worst case is kappa^2
    speeds = r.observed["certified_speedups"]
    # the certified speedup depends on the regime: small where mu << L, larger near mu = L (never generalised)
    assert max(s["certified"] for s in speeds if s["mu_over_L"] <= 0.25) < 1.03
    assert max(s["certified"] for s in speeds if s["mu_over_L"] == 0.01) < 1.001
    near = next(s for s in speeds if s["mu_over_L"] == 0.9 and s["method"] == "ours beta=0.5" and s["E"] == 4)
    assert near["certified"] == pytest.approx(1.1175, abs=1e-3)
    closed = {(c["mu_over_L"], c["E"]): c for c in r.predicted["closed_form_speedup_not_certified"]}
    assert closed[(0.9, 10)]["lemma"] == pytest.approx(1.135, abs=1e-3)
    assert closed[(1.0, 50)]["lemma"] == pytest.approx(1.166, abs=1e-3) and closed[(1.0, 50)]["theorem"] > 1.25
    assert "mu/L in {0.9, 0.25, 0.01}" in r.title
    assert "3/(beta+2)" in r.finding and r.finding.kind == "remark"


def test_x02_certifies_divergence_at_lemma_b3s_step():
    r = run_quick("buttaci2024.x02")
    row = r.observed["rows"][0]
    assert row["beta"] == 0.1 and row["diverges"] and row["worst_case"] == pytest.approx(1.5931, rel=1e-3)
    # the lemma as printed holds (vacuously): kappa + A/D_0 >= 75 against the worst case 1.59
    assert r.verdict == Verdict.HOLDS and row["lemma_bound"] > 75 and row["vacuity_factor"] > 40
    assert "Lemma 3 (Appendix B" in r.claim.text and r.finding.kind == "remark"


def test_c08_sympy_limits_and_the_three_predicted_speedups():
    r = run_quick("buttaci2024.c08")
    assert r.observed["supported_limit"] == "1" and sp.sympify(r.predicted["claimed_limit"], locals={"beta": B.beta}) == 3 / (B.beta + 2)
    assert np.all(np.asarray(r.observed["supported_speedup_at_experiment"]) < 1.0001)
    assert r.predicted["claimed_speedup_at_experiment"][0] == pytest.approx(1.2, abs=1e-3)
    # the complete erratum, with its regime and an exact second argument
    assert r.finding.kind == "erratum" and not r.finding.missing() and "mu << L" in r.finding.summary
    assert r.observed["exact"]["gap_ratio"] == "40002/40001" and r.observed["exact"]["holds_exactly"]
    # at mu = L the relaxation is an equality: (a) and (b) coincide, so the artifact is a mu << L statement
    last = r.observed["regime_table"][-1]
    assert last["mu_over_L"] == 1.0 and last["supported"] == pytest.approx(last["claimed"], rel=1e-9)


def test_exact_lemma_speedup_comparison_can_fail():
    from fractions import Fraction

    ok = B.lemma_speedup_below_exact("0.0001", "0.5", 10, "1.001")
    assert ok["below"] and ok["gap_ratio"] == Fraction(40002, 40001)
    # near mu = L the lemma-level speedup is about 1.156 at E = 10: below 6/5, not below 1.1
    assert B.lemma_speedup_below_exact("0.99", "0.5", 10, "1.2")["below"]
    assert not B.lemma_speedup_below_exact("0.99", "0.5", 10, "1.1")["below"]


def test_c09_is_the_chapter_figure_and_orders_the_methods():
    r = run_quick("buttaci2024.c09")
    panels = r.figure["panels"]
    assert len(panels) == 3 and {"FedAvg", "FedProx", "ours"} <= {p["title"].split()[0].rstrip(":") for p in panels}
    for p in panels:
        labels = " ".join(s["label"] for s in p["series"])
        assert "rho(M)^2" in labels and "lemma" in labels and "theorem" in labels
    rows = r.observed["rows"]
    for E in {row["E"] for row in rows}:
        rho = {row["method"].split()[0]: row["rho2"] for row in rows if row["E"] == E}
        assert rho["ours"] <= rho["FedAvg"] <= rho["FedProx"]


def test_c05_and_c16_numbers_from_the_spec():
    assert run_quick("buttaci2024.c05").fit["identity"]["max_rel_error"] < 1e-9
    r = run_quick("buttaci2024.c16")
    assert np.asarray(r.observed["r_ours_L"]) == pytest.approx([-5.415, -0.994, -0.111], abs=2e-3)
    assert np.asarray(r.predicted["kappa_B3"]) == pytest.approx([-1.224, -0.450, -0.009], abs=2e-3)
    assert r.observed["rho_sc_q2"][0] > 1 and r.observed["sufficient_condition_failures"] == 0
    # the lemma as printed holds, and vacuously: A_t >= 6e4 D_t at gamma = 1/(2L), E = 20
    assert r.verdict == Verdict.HOLDS and r.observed["violations"] == 0
    assert r.observed["min_A_over_D_largest_step"] > 6e4 and r.observed["theorem_step_rho2_le_kappa"]
    assert "Lemma 3 (Appendix B" in r.claim.text and "+ A (123)" in r.claim.text
    assert r.finding.kind == "remark" and "vacuously" in r.finding.summary


def test_c03_reports_that_the_floors_do_not_reduce():
    r = run_quick("buttaci2024.c03")
    assert sp.sympify(r.predicted["floor_thm3_beta1_minus_thm1_alpha0"]) == sp.sympify("6*E**2*G2/mu")
    assert all(r.observed["symbolic_reduction_exact"].values())


def test_c04_negative_controls_break_lemma_m1():
    r = run_quick("buttaci2024.c04")
    assert r.observed["relative_residual"] < 1e-12
    assert r.observed["relative_residual_asymmetric"] > 1e-3 and r.observed["relative_residual_partial_participation"] > 1e-3


def test_c19_finds_exactly_the_documented_rounding_quirk():
    r = run_quick("buttaci2024.c19")
    assert len(r.observed["mismatches"]) == 1 and len(r.observed["unexplained"]) == 1 and "20/19" in r.finding
    assert r.finding.kind == "erratum" and not r.finding.missing() and "1/380" in r.finding.second_argument
    assert r.observed["rule_misses"] == {"half-up": 1, "floor": 8, "ceiling": 9}
    x = run_quick("buttaci2024.x03")
    assert x.verdict == Verdict.HOLDS and x.observed["unexplained"] == [] and len(x.observed["mismatches"]) == 1


def test_assumption_failure_is_inconclusive():
    """c16 at a step beyond Lemma B3's condition (gamma > 1/(2L)) says nothing about the lemma."""
    r = K.c16_stability(Context(), gamma=0.3)
    assert r.verdict == Verdict.INCONCLUSIVE


@pytest.mark.slow
@pytest.mark.parametrize("check_id", IDS)
def test_verdicts_are_stable_over_root_seeds(check_id):
    from verify.registry import get

    spec = get(check_id)
    verdicts = {s: spec(Context(fidelity="quick", seed=s)).verdict for s in range(1, 6)}
    assert set(verdicts.values()) == {spec.expected}, verdicts


def test_claim_formulas_of_the_checks_issue_16_touched_render(tmp_path):
    """c08, c16, c19, x01-x03: the claim's LaTeX goes through matplotlib's mathtext and its typst math compiles."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import mathtext

    typst = pytest.importorskip("typst")
    claims = [K.C8_CLAIM, K.C16_CLAIM, X.C19_CLAIM, X.X03_CLAIM, P.X01_CLAIM, P.X02_CLAIM, N.X04_CLAIM]
    for i, c in enumerate(claims):
        mathtext.math_to_image(f"${c.latex}$", str(tmp_path / f"{i}.png"), format="png")
        assert c.source.startswith("buttaci2024")
    src = tmp_path / "claims.typ"
    src.write_text("#set page(width: auto, height: auto)\n" + "\n\n".join(f"$ {c.typst} $" for c in claims),
                   encoding="utf-8")
    assert len(typst.compile(str(src))) > 1000
