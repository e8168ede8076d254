"""The exact second arguments of the dutta2023 errata (analytic/papers/dutta2023.py): each is checked against an
independent hand computation, so that a finding never rests on one derivation."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from analytic.papers import dutta2023 as D


def test_far_field_certificate_gives_mu_over_L_at_most_one_half_and_f_at_most_7():
    c = D.pl_far_field_certificate()
    assert c["phi_prime_over_s_at_infinity"] == 2 and c["pl_ratio_1d_at_infinity"] == 2 and c["phi_second_at_0"] == 4
    assert c["mu_over_L_max"] == Fraction(1, 2) and c["f_cap_N50"] == 7
    # by hand: f/(N - f) <= 1/6  <=>  7 f <= N
    assert [D.f_cap_exact(N, Fraction(1, 2)) for N in (7, 13, 14, 50, 100)] == [1, 1, 2, 7, 14]
    # the non-convex variant phi = s^2 + 3 sin^2 s: phi''(0) = 8, so mu/L <= 1/4
    assert D.pl_far_field_certificate(3)["mu_over_L_max"] == Fraction(1, 4)


def test_far_field_pl_ratio_on_a_random_instance_approaches_2_lambda_min():
    """Numerically, on problem (11) with Gaussian A^i: the PL ratio far along M's weakest eigenvector -> 2 lambda_min(M)."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((8, 5, 3))
    x_star = rng.standard_normal(3)
    M = np.einsum("nij,nik->jk", A, A) / len(A)
    lam, V = np.linalg.eigh(M)
    x = x_star + 1e5 * V[:, 0]
    r = np.linalg.norm(A @ (x - x_star), axis=1)
    q = np.mean(r**2 + np.sin(r) ** 2)
    grad = np.mean(((2 * r + np.sin(2 * r)) / r)[:, None] * np.einsum("nij,nik,k->nj", A, A, x - x_star), axis=0)
    assert abs(grad @ grad / (2 * q) / (2 * lam[0]) - 1) < 1e-3
    assert 2 * lam[0] <= 0.5 * 4 * max(np.linalg.norm(a, 2) ** 2 for a in A)


def test_convexity_certificate_separates_problem_11_from_the_factor_3_variant():
    c1, c3 = D.convexity_certificate(1), D.convexity_certificate(3)
    assert c1["phi_second_minus_4cos2"] == 0 and c1["phi_first_at_0"] == 0
    assert c3["phi_second_at_half_pi"] == -4


def test_step11_certificate_matches_a_hand_computation():
    c = D.step11_certificate()
    # mu = L, f/|H| = 1/3, alpha = mu^2/(72 L^3 T): -(1 - 17/18) + 7/144 + 4 (1/9)/72 = -1/1296
    assert c["at_mu_eq_L"] == Fraction(-1, 18) + Fraction(7, 144) + Fraction(4, 9 * 72) == sp.Rational(-1, 1296)
    assert c["at_mu_to_0"] == sp.Rational(-1, 144) and c["c_needed_at_mu_eq_L"] == 142
    assert c["c_needed_21_fixed_at_mu_eq_L"] == 158


def test_remark1_mean_field_equilibrium_is_positive_and_matches_a_direct_sum():
    m = D.remark1_mean_field(50, 5)
    from math import comb

    Eg = sum(Fraction(comb(45, j), 2**45) * (5 if j >= 5 else 2 * j - 5) for j in range(46))
    assert m["E_g"] == Eg and m["valid"]
    assert m["x_e_over_sigma"] == (Eg + Fraction(5, 2)) / Fraction(85, 2)
    assert abs(float(m["x_e_over_sigma"]) - 0.17647) < 1e-4
    assert D.remark1_mean_field(50, 0)["x_e_over_sigma"] == 0  # no Byzantine agents: equilibrium at x*


def test_recursion_floor_is_positive_only_under_attack():
    c = D.recursion_floor_certificate()
    lim = c["limit_alpha_to_0"]
    assert sp.simplify(lim - 72 * D.T * D.sigma**2 * D.f / (D.L * D.H)) == 0
    assert lim.subs(D.f, 0) == 0
