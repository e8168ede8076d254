"""allouah2025.c01-c10: every check reaches its expected verdict at quick fidelity, and says `violated`
when one ingredient is planted wrong (a wrong accountant constant, a sign bug, an asymmetric KDF, ...)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from analytic import privacy as P
from analytic.papers import allouah2025 as A
from verify import registry
from verify.checks.allouah2025 import privacy as K
from verify.correlated_noise import SharedSeeds, pair_stream_numpy
from verify.engine import Context
from verify.result import Result, Verdict
from verify.testing import run_quick

IDS = [f"allouah2025.c{k:02d}" for k in range(1, 11)]
QUICK = Context(fidelity="quick")


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    return {cid: run_quick(cid) for cid in IDS}  # shared with tests/test_all_checks.py


@pytest.mark.parametrize("cid", IDS)
def test_check_reaches_expected_verdict(results, cid):
    r = results[cid]
    assert r.id == cid and r.paper == "allouah2025"
    assert r.verdict == r.expected == Verdict.HOLDS, (r.verdict, r.fit)
    assert r.claim.text and r.claim.latex and r.claim.source and r.claim.typst
    assert r.explanation.count(".") >= 2 and r.observed and r.predicted
    assert r.env["wall_time_s"] < 30
    d = json.loads(r.to_json())
    assert d["verdict"] == "holds"
    Result.from_dict(d)  # round trip


@pytest.mark.parametrize("cid", IDS)
def test_figures_follow_the_spec(results, cid):
    fig = results[cid].figure
    assert fig["panels"]
    for panel in fig["panels"]:
        assert {"title", "xlabel", "ylabel", "xscale", "yscale", "series"} <= set(panel)
        for s in panel["series"]:
            assert len(s["x"]) == len(s["y"]) <= 200
            assert s["role"] in ("observed", "bound", "reference")
            if s["lo"] is not None:
                assert len(s["lo"]) == len(s["hi"]) == len(s["x"]) and s["band_label"]


def test_c10_figure_has_the_three_mechanisms(results):
    labels = " ".join(s["label"] for s in results["allouah2025.c10"].figure["panels"][0]["series"])
    for name in ("SecLDP", "LDP", "CDP"):
        assert name in labels
    eps = results["allouah2025.c10"].observed["eps_opacus_grid"]
    assert np.all(np.asarray(eps["cdp"]) <= np.asarray(eps["secldp"]))
    assert np.all(np.asarray(eps["secldp"]) <= np.asarray(eps["ldp"]))


def test_erratum_finding_is_recorded(results):
    r = results["allouah2025.c07"]
    assert "log(1/delta)" in r.finding and "Corollary 4.1" in r.finding
    rows = r.observed["experiments"]
    assert len(rows) == len(A.EXPERIMENT_BUDGETS)
    for row in rows:
        assert row["reported_epsilon"] > row["log_1_over_delta"]
        assert row["achieved_eps_mironov"] > row["reported_epsilon"]
        assert row["achieved_eps_opacus_grid"] > row["reported_epsilon"]
    assert results["allouah2025.c02"].finding and results["allouah2025.c08"].finding


def test_measured_numbers_match_the_spec(results):
    c02 = results["allouah2025.c02"].observed
    k = list(c02["f"]).index(4)
    assert results["allouah2025.c02"].predicted["formula"][k] == pytest.approx(14.0625)
    assert abs(c02["mean"][k] - 14.0625) < 3.5 * c02["se"][k]
    c06 = results["allouah2025.c06"]
    assert np.all(np.abs(np.asarray(c06.observed["D_alpha"]) / np.asarray(c06.predicted["alpha_eps_step"]) - 1) < 0.05)
    c09 = results["allouah2025.c09"]
    assert c09.observed["slope"] == pytest.approx(1.0, abs=0.05)


# -- planted-wrong ingredients must give `violated` --------------------------------------------------
class OrderedKDF(SharedSeeds):
    """The two endpoints derive different secrets: the pairwise terms no longer cancel."""

    def pair_seed(self, i: int, j: int) -> int:
        return int(np.random.SeedSequence(entropy=self.master, spawn_key=(i, j)).generate_state(1, np.uint64)[0])


def test_c01_asymmetric_kdf_is_violated():
    r = K.c01_exact_cancellation(QUICK, seeds_factory=OrderedKDF)
    assert r.verdict == Verdict.VIOLATED and r.observed["bit_mismatches"] > 0


def test_c02_paper_reading_that_honest_noise_cancels_is_violated():
    wrong = lambda d, f, n, sigma_cor2, sigma_ind2: d * sigma_ind2 / (n - f)  # noqa: E731
    r = K.c02_honest_residual(Context(fidelity="quick", replicates=2000), predicted_fn=wrong)
    assert r.verdict == Verdict.VIOLATED


def _same_sign_noise(seeds, t, R, d, sigma_cor, sigma_ind, generator, dtype, device):
    """Sign bug: both endpoints add +z instead of +z / -z."""
    n = seeds.n
    acc = np.zeros((n, R, d))
    for i, j in seeds.pairs():
        z = sigma_cor * pair_stream_numpy(seeds.pair_seed(i, j), t, (R, d))
        acc[i] += z
        acc[j] += z
    xi = torch.from_numpy(acc).permute(1, 0, 2).to(device=device, dtype=dtype)
    return xi + sigma_ind * torch.randn(R, n, d, generator=generator, dtype=dtype, device=device)


def test_c03_sign_bug_is_violated():
    r = K.c03_marginals(Context(fidelity="quick", replicates=2000), noise_fn=_same_sign_noise)
    assert r.verdict == Verdict.VIOLATED


def test_c04_covariance_ignoring_colluders_is_violated():
    def wrong(n, f, q, c2, i2):  # pretends the colluders revealed nothing
        return K.eq8_covariance(n, f, 0, c2, i2)

    r = K.c04_server_view(Context(fidelity="quick", replicates=2000), predicted_fn=wrong)
    assert r.verdict == Verdict.VIOLATED


def test_c05_closed_form_missing_its_bracket_is_violated():
    def wrong(n, f, q, c2, i2, C):  # eq. (2) without the factor [1 + s_cor^2 / b]
        return 2 * C**2 / ((n - q) * c2 + i2)

    assert K.c05_closed_vs_matrix(QUICK, closed_form_fn=wrong).verdict == Verdict.VIOLATED


def test_c05_matrix_with_the_eq7_typo_is_violated():
    def typo(n, f, q, c2, i2, C):  # eq. (7) as printed: I_{n-q} and the Laplacian of n-q workers
        if q == f:
            return P.secldp_rdp_step_matrix(n, f, q, c2, i2, C)
        m = n - q
        a, b = P.lemma_a4_ab(n, f, q, c2, i2)
        Sigma = c2 * (m * np.eye(m) - np.ones((m, m))) + b * np.eye(m)
        return 2 * C**2 * float(np.linalg.inv(Sigma)[0, 0])

    assert K.c05_closed_vs_matrix(QUICK, matrix_form_fn=typo).verdict == Verdict.VIOLATED


def test_c06_wrong_accountant_constant_is_violated():
    def half(n, f, q, c2, i2, C):  # C^2 instead of 2 C^2: claims half the privacy loss
        return 0.5 * P.secldp_rdp_step(n, f, q, c2, i2, C)

    r = K.c06_monte_carlo_renyi(Context(fidelity="quick", replicates=10), rdp_step_fn=half)
    assert r.verdict == Verdict.VIOLATED


def test_c06_overcautious_accountant_is_violated_too():
    def double(n, f, q, c2, i2, C):  # an identity check: being loose is also a wrong constant
        return 2.0 * P.secldp_rdp_step(n, f, q, c2, i2, C)

    r = K.c06_monte_carlo_renyi(Context(fidelity="quick", replicates=10), rdp_step_fn=double)
    assert r.verdict == Verdict.VIOLATED


def test_c07_theorem_constant_8_instead_of_16_is_violated():
    def wrong(eps, T, delta, C):
        return 8.0 * C**2 * T * math.log(1 / delta) / eps**2

    assert K.c07_theorem_condition(QUICK, required_fn=wrong).verdict == Verdict.VIOLATED


def test_c08_effective_noise_without_colluder_cancellation_is_violated():
    def wrong(n, f, q, c2, i2):
        return P.lemma_a4_ab(n, f, q, c2, i2)[0]

    assert K.c08_special_cases(Context(fidelity="quick", replicates=500), sigma_eff2_fn=wrong).verdict == Verdict.VIOLATED


def test_c09_wrong_minimum_noise_is_violated():
    def wrong(n, f, eps, T, delta, C):  # Corollary-4.1-like R/(n-f) instead of 2R/(n-f+1)
        return P.theorem41_required_sigma_eff2(eps, T, delta, C) / (n - f)

    assert K.c09_noise_saving(QUICK, closed_form_fn=wrong).verdict == Verdict.VIOLATED


def test_c10_composition_in_sqrt_T_is_violated():
    def sqrt_T(curve, T, delta):
        return K.composed_mironov_epsilon(curve, max(1, int(round(math.sqrt(T)))), delta)

    assert K.c10_composition(QUICK, eps_fn=sqrt_T).verdict == Verdict.VIOLATED


def test_helpers_of_the_verdict_rules():
    assert K.family_z(1) == pytest.approx(3.0, abs=1e-3)
    assert K.family_z(10) > K.family_z(1) and K.family_z(10, df=9) > K.family_z(10)
    assert K.deterministic_verdict([1.0, 2.0], [1.0, 2.0])[0] == Verdict.HOLDS
    assert K.deterministic_verdict([1.0, 2.1], [1.0, 2.0])[0] == Verdict.VIOLATED
    assert K.mc_identity_verdict(1.0, 0.1, 1.25, 3.0)[0] == Verdict.HOLDS
    assert K.mc_identity_verdict(1.0, 0.01, 1.25, 3.0)[0] == Verdict.VIOLATED


def test_claim_formulas_render(results, tmp_path):
    """Every claim's LaTeX goes through matplotlib's mathtext and its typst math compiles (the report needs both)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import mathtext

    typst = pytest.importorskip("typst")
    for cid, r in results.items():
        mathtext.math_to_image(f"${r.claim.latex}$", str(tmp_path / f"{cid}.png"), format="png")
    body = "\n\n".join(f"$ {r.claim.typst} $" for r in results.values())
    src = tmp_path / "claims.typ"
    src.write_text("#set page(width: auto, height: auto)\n" + body, encoding="utf-8")
    assert len(typst.compile(str(src))) > 1000
