"""analytic/papers/buttaci2024.py: the spec's regression vectors (spec 3.8), the round map, Corollary 1, Table 1."""
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InputError
from analytic.papers import buttaci2024 as B

V = dict(L=2.0, mu=0.5, E=5, alpha=1.0, beta=0.5, sigma2=0.09, S=0.2, Gamma=1.5, G2=80.0, Delta=10.0, T=100)


def test_spec_regression_vectors_for_the_factors():
    assert B.theorem_step("perturbed", 2.0, 5) == 0.05 == B.theorem_step("fedavg", 2.0, 5)
    assert B.theorem_step("fedprox", 2.0, 5, 1.0) == pytest.approx(1 / 30)
    assert B.factor("perturbed", "lemma", mu=0.5, gamma=0.05, E=5, beta=0.5) == pytest.approx(0.8780861810302738, rel=1e-14)
    assert B.factor("fedavg", "lemma", mu=0.5, gamma=0.05, E=5) == pytest.approx(0.8810956933593749, rel=1e-14)
    assert B.factor("fedprox", "lemma", mu=0.5, gamma=1 / 30, E=5, alpha=1.0) == pytest.approx(0.9245936458333333, rel=1e-14)
    tight = [B.factor(m, "tight", **V) for m in B.METHODS]
    final = [B.factor(m, "theorem", **V) for m in B.METHODS]
    assert tight == pytest.approx([1 - 1 / 9, 1 - 1 / 15, 1 - 1 / 8.5])
    assert final == pytest.approx([1 - 1 / 12, 1 - 1 / 18, 0.9])


def test_spec_regression_vectors_for_terms_floors_and_rates():
    assert float(B.A_BETA.subs(B.beta, sp.Rational(1, 2))) == 12.25
    assert B.FLOOR_3(**V) == pytest.approx(98015.259, rel=1e-9)
    assert B.FLOOR_1(**V) == pytest.approx(5339.3393, rel=1e-7)
    assert B.FLOOR_1(**{**V, "alpha": 0.0}) == pytest.approx(8009.009, rel=1e-9)
    assert B.A_A3(**V, gamma=1 / 30) == pytest.approx(88.988989, rel=1e-7)
    assert B.A_B3(**V, gamma=0.05, gamma_prev=0.05, after0=1.0) == pytest.approx(2450.381475, rel=1e-9)
    assert B.THM2(**V) == pytest.approx(44.1042864, rel=1e-8)
    assert B.THM4(**V) == pytest.approx(52.5781113, rel=1e-8)
    cor = B.Corollary1.of(2.0, 10.0, 0.2, 0.09, 80.0, 0.5)
    assert (cor.A, cor.B) == pytest.approx((80.009, 980.0))
    assert float(cor.E_opt(100)) == pytest.approx(0.5503, abs=1e-4)
    assert float(cor.rate_at_opt(100)) == pytest.approx(16.1784103, rel=1e-8)
    assert cor.integer_E(100) == (1, True)


def test_theorem_floors_are_the_lemma_terms_over_gamma_mu():
    """Spec 3.9: Thm 1 = (L/(2 gamma mu)) A_A3 at gamma = 1/(2E L_alpha); Thm 3 = (L/(2 gamma mu)) A_B3 at 1/(2LE)."""
    g1 = B.theorem_step("fedprox", V["L"], V["E"], V["alpha"])
    g3 = B.theorem_step("perturbed", V["L"], V["E"])
    assert B.FLOOR_1(**V) == pytest.approx(V["L"] / (2 * g1 * V["mu"]) * B.A_A3(**V, gamma=g1))
    a3 = B.A_B3(**V, gamma=g3, gamma_prev=g3, after0=1.0)
    assert B.FLOOR_3(**V) == pytest.approx(V["L"] / (2 * g3 * V["mu"]) * a3)


def test_the_speedup_audit():
    audit = B.speedup_audit()
    assert audit["theorem_limit_is_claimed"] and audit["tight_limit"] == 1 and audit["gap_ratio_limit"] == 1
    assert sp.simplify(audit["gap_ratio_first_order"] - (1 + (1 - B.beta) * B.x_ratio / 2)) == 0
    assert float(B.SPEEDUP_THEOREM(x=1e-4, beta=0.5)) == pytest.approx(1.2, abs=1e-4)
    assert float(B.SPEEDUP_TIGHT(x=1e-4, beta=0.5)) < 1.00003
    assert float(B.lemma_speedup(1.0, 1.0, 0.5, 10)) == pytest.approx(1.156, abs=1e-3)  # spec C8 [sim]


def test_identical_quadratic_clients_contract_by_the_lemma_factor():
    """Spec 2.6: for identical clients rho(M) is the largest |kappa(mu -> lambda)| over the spectrum."""
    lam = np.array([0.5, 0.8, 1.4, 2.0])
    H = np.repeat(np.diag(lam)[None], 3, axis=0)
    c = np.zeros((3, 4))
    A = np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0.0]])
    P = A / A.sum()
    for kind, a, b in (("fedavg", 0.0, 1.0), ("fedprox", 1.0, 1.0), ("perturbed", 0.0, 0.3)):
        g = B.theorem_step(kind, 2.0, 5, a)
        rho = B.QuadraticRoundMap.build(H, c, P, gamma=g, E=5, alpha=a, beta=b).rho()
        r = B.factor(kind, "lemma", mu=lam, gamma=g, E=5, alpha=a, beta=b)
        assert rho == pytest.approx(np.abs(r).max(), rel=1e-12)


def test_round_map_moments_and_fixed_point():
    rng = np.random.default_rng(0)
    C, d = 3, 2
    Q = np.linalg.qr(rng.normal(size=(C, d, d)))[0]
    H = Q @ (np.array([0.5, 2.0])[None, :, None] * np.swapaxes(Q, 1, 2))
    c = rng.normal(size=(C, d))
    A = rng.uniform(0.5, 3, (C, C))
    A = np.triu(A, 1) + np.triu(A, 1).T
    P = A / A.sum()
    rmap = B.QuadraticRoundMap.build(H, c, P, gamma=0.05, E=4, beta=0.5)
    mean, cov = rmap.moments(np.zeros(d), 400, noise_var=0.1)
    m_inf, c_inf = rmap.stationary(0.1)
    assert mean[-1] == pytest.approx(m_inf, abs=1e-10) and cov[-1] == pytest.approx(c_inf, abs=1e-10)
    same = B.QuadraticRoundMap.build(H, np.repeat(c[:1], C, 0), P, gamma=0.05, E=4, beta=0.5)
    assert same.aggregate @ same.fixed_point() == pytest.approx(c[0], abs=1e-12)  # Gamma = 0: no bias
    with pytest.raises(InputError):
        B.QuadraticRoundMap.build(H, c, P, gamma=0.05, E=0)


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(1e-3, 1.0), L=st.floats(1.0, 10.0), E=st.integers(2, 60), beta=st.floats(0.05, 0.95),
       alpha=st.floats(0.05, 10.0))
def test_lemma_factors_order_and_reduce(mu, L, E, beta, alpha):
    """kappa_ours(beta) < kappa_avg < kappa_prox(alpha) at a common admissible step (E >= 2); equal at beta = 1,
    alpha = 0 and at E = 1."""
    g = 1 / (2 * E * (L + alpha))
    at = dict(mu=mu, L=L, gamma=g, E=E, alpha=alpha, beta=beta)
    k_o, k_a, k_p = (float(B.factor(m, "lemma", **at)) for m in ("perturbed", "fedavg", "fedprox"))
    assert k_o < k_a < k_p
    assert float(B.factor("perturbed", "lemma", **{**at, "beta": 1.0})) == pytest.approx(k_a, rel=1e-13)
    assert float(B.factor("fedprox", "lemma", **{**at, "alpha": 0.0})) == pytest.approx(k_a, rel=1e-13)
    one = {**at, "E": 1}
    assert float(B.factor("perturbed", "lemma", **one)) == pytest.approx(1 - g * mu, abs=1e-13)


def test_table1_bookkeeping_helpers():
    assert B.round_half_up([1.25, 1.05, 1.049999, 80 / 50]).tolist() == [1.3, 1.1, 1.0, 1.6]
    curves = np.array([[0.1, 0.2, 0.8, 0.9], [0.1, 0.1, 0.1, 0.1]])
    assert B.rounds_to_threshold(curves, 0.75).tolist() == [3, 0]
    cells = B.table1_speedups()
    assert cells[("beta=0.5", True)]["printed_by_rule"].tolist() == [1.0, 1.3, 1.2, 1.6]
    assert cells[B.TABLE1_KNOWN_QUIRK[0]]["ratio"][B.TABLE1_KNOWN_QUIRK[1]] == pytest.approx(20 / 19)


def test_complexity_terms_and_step_limits():
    t = B.t_eps_terms("perturbed", 0.1, L_v=2, Delta_v=10, S_v=0.2, sigma2_v=0.09, G2_v=80, E_v=5, beta_v=0.5)
    assert t["G"] == pytest.approx(5 * 80 * 12.25 / 0.1)
    assert B.lemma_step_limit("A1", 2.0, 0.5) == math.inf and B.lemma_step_limit("B3", 2.0, 0.5, beta_v=0.5) == 0.25
    with pytest.raises(InputError, match="lemma"):
        B.lemma_step_limit("C9", 2.0, 0.5)
    with pytest.raises(InputError, match="method"):
        B.theorem_step("scaffold", 2.0, 5)
    with pytest.raises(InputError, match="values"):
        B.factor("fedavg", "lemma", mu=0.5)
