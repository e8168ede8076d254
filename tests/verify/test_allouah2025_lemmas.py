"""allouah2025.x04-x11 (issue 18: Lemmas C.1, C.3, C.4, Theorem 4.2 (1) for Algorithm 1's output, Corollary 4.1 in
f, Appendix C.5, SMEA): the check contract with a planted wrong theory each, and unit tests of the exact
computations the findings rest on. The default runs are shared with tests/test_all_checks.py through run_quick."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from analytic.bounds import Bound
from analytic.papers import allouah2025 as A
from verify.checks.allouah2025 import lemmas as K
from verify.engine import Context
from verify.fit import power_law
from verify.testing import CheckContract


class TestX04(CheckContract):
    check = K.x04_lemma_c4
    # an erratum check: a right-hand side ten times larger (810 sup E g) covers the left-hand side at v = 0
    planted = {"theory": A.LEMMA_C4.scaled(10.0)}
    planted_verdict = "holds"


class TestX05(CheckContract):
    check = K.x05_descent
    planted = {"theory": A.LEMMA_C3.scaled(3.0)}  # the smallest observed Q_t / bound is about 1.8
    determinism_overrides = {"T": 8}


class TestX06(CheckContract):
    check = K.x06_drift
    planted = {"theory": A.LEMMA_C1.scaled(0.5)}  # the noiseless run attains the bound at t = 0
    determinism_overrides = {"T": 8}


class TestX07(CheckContract):
    check = K.x07_theta_hat
    # an erratum check: with a bound 1000 times larger the output's lower bound S/T stays under it
    planted = {"theory": A.THM_4_2_SC.scaled(1e3)}
    planted_verdict = "holds"
    determinism_overrides = {"T_run": 30}


class TestX08(CheckContract):
    check = K.x08_cor41_in_f
    planted = {"theory_f1": power_law("f_plus_1", 0.5, "upper", "O(sqrt(f + 1))")}
    determinism_replicates = 4
    determinism_overrides = {"fs": (0, 1), "ns": (32, 64), "d": 256}


class TestX09(CheckContract):
    check = K.x09_cwtm_rate
    planted = {"theory": A.COR_4_1_UTILITY}  # CAF's rate, which the trimmed mean misses
    determinism_replicates = 4
    determinism_overrides = {"ns": (16, 32), "d": 256}


class TestX10(CheckContract):
    check = K.x10_smea
    planted = {"theory": A.PROP_4_1.scaled(0.2)}  # the worst observed ratio to kappa is about 0.25
    determinism_replicates = 4
    determinism_overrides = {"count": 4}


class TestX11(CheckContract):
    check = K.x11_het_term
    # a heterogeneity term that vanished like (1/n) G_cov^2 at a fixed fraction f/n
    planted = {"theory": Bound("(f/n^2) G_cov^2", A.COR_4_1_HET.expr / A.n, "upper", statement="planted",
                               source="planted", hidden_constant=True)}
    determinism_replicates = 8
    determinism_overrides = {"ns": (16, 32), "T_check": 40}


def test_x08_needs_the_f_over_n_term():
    """Without its f/(n eps^2) term Corollary 4.1's bound falls like 1/n at a fixed fraction f/n; the errors do not."""
    no_f_term = Bound("(f+1) d/(n^2 eps^2) only", (A.f + 1) * A.C**2 * A.d * A.L / (A.n**2 * A.eps**2), "upper",
                      statement="planted", source="planted", hidden_constant=True)
    r = K.x08_cor41_in_f(Context(fidelity="quick"), theory=no_f_term, fs=(0, 1))
    assert r.verdict.value == "violated", r.explanation


def test_lemma_c4_certificate_and_negative_g():
    cert = K.lemma_c4_rotated_sup(5.0, 1.0, 1e9)
    assert cert["rhs_upper"] < cert["lhs"] and abs(cert["lhs"] - math.exp(5.0)) < 1e-9
    assert 1.0 <= cert["sup_upper"] < 1.11  # the supremum is 1 (at v = 0); the 100-cell grid bound is e^0.1
    neg = K.lemma_c4_negative_g(3)
    assert neg["violated"] and neg["lhs"] == "-1" and neg["rhs"] == "-729"


def test_lemma_c4_holds_for_psd_matrices():
    """The corrected statement (M >= 0, g >= 0) on M = sum xi xi^T, g = exp(x/(16 sigma^2)) as Lemma C.6 uses it:
    E exp(lambda_max(M)/16) <= 9^d (4/3)^(n/2) (v^T M v ~ chi^2_n for unit v)."""
    gen = torch.Generator().manual_seed(3)
    n, d, N = 6, 3, 20000
    xi = torch.randn(N, n, d, generator=gen, dtype=torch.float64)
    lam = torch.linalg.eigvalsh(xi.transpose(1, 2) @ xi)[:, -1]
    lhs = float(torch.exp(lam / 16).mean())
    assert lhs <= 9**d * (4 / 3) ** (n / 2)


def test_theta_hat_exact_prefix_matches_float_recursion():
    exact = K.theta_hat_exact_prefix(60)
    e, m, S = 1.0, 0.0, 0.0
    for t in range(60):
        if t >= 1:
            b = (t - 1) / (t - 1 + 240)
            m = b * m + (1 - b) * e
        S += 0.5 * e * e
        e -= 10 / (t + 240) * m
    assert abs(exact["S_k"] - S) <= 1e-12 * S
    assert exact["T_star"] == math.floor(115200 * 0.5 / exact["S_k"]) + 1 or abs(
        exact["T_star"] - 115200 * 0.5 / exact["S_k"]) < 2


def test_smea_picks_the_honest_set_against_far_outliers():
    gen = torch.Generator().manual_seed(0)
    honest = torch.randn(3, 7, 4, generator=gen, dtype=torch.float64)
    X = torch.cat([honest, 100 + torch.randn(3, 2, 4, generator=gen, dtype=torch.float64)], 1)
    assert torch.allclose(K.smea(X, 2), honest.mean(1))


def test_smea_constant_is_below_kappa():
    nn, ff = sp.symbols("n f", positive=True)
    for n in range(3, 60):
        for f in range(1, (n - 1) // 2 + 1):
            assert sp.Rational(4 * f, n - 2 * f) < 6 * sp.Rational(f, n - f) * (1 + sp.Rational(f, n - 2 * f)) ** 2
    assert np.all(np.isfinite([K.kappa(10, 3)]))


def test_claims_render_in_mathtext_and_typst(tmp_path):
    """Every new claim's LaTeX goes through matplotlib's mathtext and its typst math compiles (the report needs both)."""
    import pytest

    from verify.registry import get
    from verify.testing import assert_claims_typeset, run_quick

    pytest.importorskip("typst")
    ids = [f"allouah2025.x{k:02d}" for k in range(4, 12)]
    assert_claims_typeset([run_quick(get(cid)) for cid in ids], "allouah2025", tmp_path)
