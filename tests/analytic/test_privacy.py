"""analytic/privacy.py: oracle values (spec allouah2025 3.4-3.6), dp-accounting cross-checks, refusals, properties."""
from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic import privacy as P
from analytic.errors import InputError
from analytic.papers import allouah2025 as A

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _close(value: float, printed: str) -> bool:
    return abs(value - float(printed)) <= A.printed_tolerance(printed)


# -- spec 3.6 regression vectors ----------------------------------------------------------------------
@pytest.mark.parametrize("row", A.REGRESSION_VECTORS, ids=lambda r: f"n{r[1]}f{r[2]}q{r[3]}c{r[4]}i{r[5]}")
def test_spec_regression_vectors(row):
    C, n, f, q, c2, i2, T, delta = (float(x) for x in row[:8])
    n, f, q, T = int(n), int(f), int(q), int(T)
    e = P.secldp_rdp_step(n, f, q, c2, i2, C)
    acc = P.account("secldp", n, f, q, c2, i2, C, T, delta)
    # the spec prints 9-10 significant digits: agreement to the printed precision (<= 5e-9 relative for eps_step)
    assert _close(e, row[8]) and abs(e / float(row[8]) - 1) < 1e-8
    assert _close(acc.rdp_per_step, row[8])
    assert _close(acc.mironov.epsilon, row[9])
    assert _close(acc.mironov.alpha, row[10])
    assert acc.mironov.conversion == P.MIRONOV_OPTIMAL
    # the tighter conversion on the Opacus grid is never larger here (alpha* lies inside the grid)
    assert acc.grid.conversion == P.BALLE_GRID and acc.grid.grid == "opacus"
    assert acc.grid.epsilon <= acc.mironov.epsilon and not acc.grid.on_grid_edge


def test_acceptance_row_from_standard_deviations():
    """The command's acceptance case: sigma's given as standard deviations 0.70710678 and 0.4472136."""
    acc = P.account("secldp", 10, 3, 1, 0.70710678**2, 0.4472136**2, 1.0, 100, 1e-5)
    assert round(acc.mironov.epsilon, 2) == 112.97
    assert acc.grid.epsilon < acc.mironov.epsilon


@pytest.mark.parametrize("row", A.COROLLARY_VECTORS, ids=lambda r: f"eps{r[3]}f{r[2]}")
def test_corollary_vectors(row):
    C, n, f, eps, T, delta = (float(x) for x in row[:6])
    n, f, T = int(n), int(f), int(T)
    s2 = P.corollary41_noise(n, f, eps, T, delta, C, enforce_range=False)
    assert _close(s2, row[6])
    acc = P.account("secldp", n, f, f, s2, s2, C, T, delta)
    assert _close(acc.mironov.epsilon, row[7])
    L = P.log_inv_delta(delta)
    assert (acc.mironov.epsilon > eps) == (eps > L)  # the corollary fails exactly outside the theorem's range


def test_corollary_refuses_outside_theorem_range():
    with pytest.raises(InputError, match="epsilon"):
        P.corollary41_noise(100, 10, 26.4, 30, 1e-4, 2.25)


def test_spec_3_4_exact_minimum():
    printed, kw = A.COROLLARY_EXACT_MINIMUM
    exact = P.theorem41_min_equal_noise(kw["n"], kw["f"], kw["f"], kw["epsilon"], kw["T"], kw["delta"], kw["C"])
    assert _close(exact, printed)
    assert _close(P.corollary41_noise(kw["n"], kw["f"], kw["epsilon"], kw["T"], kw["delta"], kw["C"]), "409.348461")


@pytest.mark.parametrize("eps, z_grid, z_mironov", A.OPACUS_Z_VECTORS)
def test_spec_3_5_noise_multipliers(eps, z_grid, z_mironov):
    """z = sigma_eff/(2C) behind each experimental eps (T = 30, delta = 1e-4), from the calibration."""
    s2_grid = P.min_sigma_eff2_grid(float(eps), 30, 1e-4, 1.0)
    s2_mir = P.min_sigma_eff2_mironov(float(eps), 30, 1e-4, 1.0)
    assert _close(math.sqrt(s2_grid) / 2, z_grid)
    assert _close(math.sqrt(s2_mir) / 2, z_mironov)


# -- Lemma A.4: closed form, matrix form, special cases ------------------------------------------------
def test_incidence_matrix_gives_laplacian():
    K = P.complete_graph_incidence(6)
    assert K.shape == (6, 15)
    assert np.array_equal(K @ K.T, 6 * np.eye(6) - np.ones((6, 6)))


@pytest.mark.parametrize("n,f,q,c2,i2", [(10, 3, 1, 0.5, 0.2), (8, 3, 0, 0.7, 0.3), (30, 5, 5, 1.0, 0.1), (7, 3, 2, 2.0, 0.0)])
def test_matrix_form_and_sherman_morrison(n, f, q, c2, i2):
    Sigma = P.server_view_covariance(n, f, q, c2, i2)
    a, b = P.lemma_a4_ab(n, f, q, c2, i2)
    m = n - f
    assert np.allclose(Sigma, a * np.eye(m) - c2 * np.ones((m, m)), rtol=1e-14, atol=1e-14)  # eq. (8)
    inv = np.eye(m) / a + c2 / (a * b) * np.ones((m, m))  # eq. (9)
    assert np.allclose(inv @ Sigma, np.eye(m), atol=1e-12)
    assert math.isclose(P.secldp_rdp_step_matrix(n, f, q, c2, i2, 1.5), P.secldp_rdp_step(n, f, q, c2, i2, 1.5),
                        rel_tol=1e-12)
    assert math.isclose(1 / inv[0, 0], P.secldp_sigma_eff2(n, f, q, c2, i2), rel_tol=1e-12)


def test_paper_formula_equals_accountant():
    kw = dict(n=10, f=3, q=1, sigma_cor2=0.5, sigma_ind2=0.2, C=1.0)
    assert math.isclose(float(A.LEMMA_A4(**kw)), P.secldp_rdp_step(10, 3, 1, 0.5, 0.2, 1.0), rel_tol=1e-14)
    assert math.isclose(float(A.SIGMA_EFF2(n=10, f=3, q=1, sigma_cor2=0.5, sigma_ind2=0.2)),
                        P.secldp_sigma_eff2(10, 3, 1, 0.5, 0.2), rel_tol=1e-14)


def test_special_cases_of_spec_3_2():
    n, f = 10, 3
    assert P.secldp_sigma_eff2(n, f, 2, 0.0, 0.7) == pytest.approx(0.7, rel=1e-15)  # LDP
    assert P.secldp_sigma_eff2(n, f, f, 0.8, 0.3) == pytest.approx((7 * 0.8 + 0.3) * 0.3 / 1.1, rel=1e-14)
    assert P.secldp_sigma_eff2(n, f, f, 0.8, 0.0) == 0.0
    assert P.secldp_sigma_eff2(n, f, 1, 0.8, 0.0) == pytest.approx(9 * 0.8 * 2 / 3, rel=1e-14)
    assert P.secldp_sigma_eff2(n, 0, 0, 1e9, 0.3) == pytest.approx(n * 0.3, rel=1e-7)  # CDP-like limit
    acc = P.account("secldp", n, f, f, 0.8, 0.0, 1.0, 10, 1e-5)
    assert math.isinf(acc.mironov.epsilon) and math.isinf(acc.grid.epsilon)
    assert math.isinf(P.secldp_rdp_step(n, f, f, 0.8, 0.0, 1.0))


def test_gaussian_rdp_and_conversions():
    assert P.gaussian_rdp(3.0, 2.0, 4.0) == pytest.approx(3 * 4 / 32)
    assert np.allclose(P.gaussian_rdp(np.array([2.0, 4.0]), 1.0, 1.0), [1.0, 2.0])
    # Mironov at a given order, and the closed-form optimum agrees with a fine grid search
    r = P.epsilon_mironov_optimal(0.5, 1e-5)
    fine = 1 + np.logspace(-3, 3, 200001)
    assert r.epsilon == pytest.approx(np.min(P.mironov_epsilon(fine, 0.5 * fine, 1e-5)), rel=1e-9)
    # Balle's conversion is smaller than Mironov's at every order
    orders = np.asarray(P.OPACUS_ORDERS)
    assert np.all(P.balle_epsilon(orders, orders * 0.3, 1e-5) < P.mironov_epsilon(orders, orders * 0.3, 1e-5))


def test_dp_accounting_pure_dp_anchor():
    """anchors 3.1: constant RDP 1.1 over orders 2..32, delta = 1e-5 gives eps = 1.32783806176."""
    orders = np.arange(2, 33, dtype=float)
    assert P.epsilon_balle_grid(orders, np.full(orders.shape, 1.1), 1e-5).epsilon == pytest.approx(1.32783806176, abs=1e-10)


def test_grid_edge_is_flagged():
    acc = P.account_sigma_eff2(1e-3, 1.0, 1000, 1e-5)  # huge RDP: the optimum wants alpha -> 1
    assert acc.grid.on_grid_edge and acc.grid.alpha == P.OPACUS_ORDERS[0]


def test_epsilon_results_are_frozen_and_named():
    r = P.epsilon_mironov_optimal(1.0, 1e-5)
    with pytest.raises(Exception):
        r.epsilon = 0.0  # type: ignore[misc]
    assert r.reference.startswith("Mironov") and r.as_dict()["conversion"] == P.MIRONOV_OPTIMAL


# -- dp-accounting cross-check (test-only dependency) -------------------------------------------------
def test_grid_conversion_against_dp_accounting():
    """Gaussian mechanism at sampling rate 1, 300 random (z, T, delta): with dp-accounting's own order grid we
    agree to 1e-12 relative; with the Opacus grid (our default) we never undershoot theirs, and agree within
    1e-3 relative whenever their optimal order lies in [1.1, 63] (beyond that our grid stops at 63)."""
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    rng = np.random.default_rng(20250101)
    worst_same, worst_inside = 0.0, 0.0
    for _ in range(300):
        z, T, delta = 10 ** rng.uniform(-0.5, 1.5), int(10 ** rng.uniform(0, 3.5)), 10 ** rng.uniform(-10, -2)
        acc = RdpAccountant()
        acc.compose(dp_accounting.GaussianDpEvent(z), T)
        theirs, order = acc.get_epsilon_and_optimal_order(delta)
        # our accountant with sensitivity 2C = 1 and noise sigma = z, so sigma_eff^2 = z^2 and C = 1/2
        same = P.account_sigma_eff2(z * z, 0.5, T, delta, orders=P.DP_ACCOUNTING_ORDERS)
        ours = P.account_sigma_eff2(z * z, 0.5, T, delta)
        assert same.rdp_per_step == pytest.approx(1 / (2 * z * z), rel=1e-14)
        worst_same = max(worst_same, abs(same.grid.epsilon / theirs - 1))
        assert ours.grid.epsilon >= theirs * (1 - 1e-12)
        mironov_same_grid = P.epsilon_mironov_grid(P.DP_ACCOUNTING_ORDERS,
                                                   np.asarray(P.DP_ACCOUNTING_ORDERS) * same.rdp_total_slope, delta)
        assert mironov_same_grid.epsilon >= theirs  # Balle's conversion is the tighter one, order by order
        if 1.1 <= order <= 63:
            worst_inside = max(worst_inside, ours.grid.epsilon / theirs - 1)
    assert worst_same < 1e-12
    assert worst_inside < 1e-3


def test_dp_accounting_full_batch_anchor():
    """anchors 3.1: full-batch Gaussian, sigma = 4.530877117, orders 1.000..99.999 step 0.001 -> eps = 1 at 1e-6."""
    orders = np.round(np.arange(1.001, 100.0, 0.001), 3)
    r = P.epsilon_balle_grid(orders, P.gaussian_rdp(orders, 1.0, 4.530877117), 1e-6)
    assert r.epsilon == pytest.approx(1.0, abs=1e-8)


# -- refusals: one clear message naming the parameter ---------------------------------------------------
@pytest.mark.parametrize("call, param", [
    (lambda: P.secldp_sigma_eff2(10, 5, 0, 1.0, 1.0), "f: must satisfy f < n/2 (got f=5, n=10)"),
    (lambda: P.secldp_sigma_eff2(10, 3, 4, 1.0, 1.0), "q"),
    (lambda: P.secldp_sigma_eff2(10, 3, 1, -1.0, 1.0), "sigma_cor2"),
    (lambda: P.secldp_sigma_eff2(10, 3, 1, 1.0, -0.1), "sigma_ind2"),
    (lambda: P.secldp_sigma_eff2(10, 3, 1, float("nan"), 1.0), "sigma_cor2"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, 1.0, 10, 1.0), "delta"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, 1.0, 10, 0.0), "delta"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, 1.0, 0, 1e-5), "T"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, 0.0, 10, 1e-5), "C"),
    (lambda: P.account("nope", 10, 3, 1, 1.0, 1.0, 1.0, 10, 1e-5), "mechanism"),
    (lambda: P.theorem41_condition(10, 3, 1, 1.0, 1.0, 1.0, 10, 1e-5, 12.0), "epsilon: Theorem 4.1 needs epsilon < log(1/delta)"),
    (lambda: P.theorem41_required_sigma_eff2(0.0, 10, 1e-5, 1.0), "epsilon"),
    (lambda: P.min_sigma_eff2_grid(-1.0, 10, 1e-5, 1.0), "target_epsilon"),
    (lambda: P.gaussian_rdp(1.0, 1.0, 1.0), "alpha"),
    (lambda: P.validate_workers(10, 2.5, 0), "f"),
    (lambda: P.scale_noise_to_sigma_eff2(1.0, "secldp", 10, 3, 3, P.noise_shape("secldp", math.inf)), "ratio"),
])
def test_refusals_name_the_parameter(call, param):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param.split(":")[0]
    assert str(info.value).startswith(param.split(":")[0] + ":")
    assert param in str(info.value)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)


def test_analytic_imports_neither_torch_nor_verify():
    code = ("import sys, analytic.privacy, analytic.papers.allouah2025; "
            "bad = [m for m in sys.modules if m == 'torch' or m.startswith('torch.') or m == 'verify' "
            "or m.startswith('verify.')]; print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_paper_statements_compile_in_typst(tmp_path):
    typst = pytest.importorskip("typst")
    body = "\n\n".join(f"$ {b.typst} $" for b in A.ALL_BOUNDS) + f"\n\n$ {A.SERVER_VIEW_TYPST} $\n"
    src = tmp_path / "statements.typ"
    src.write_text("#set page(width: auto, height: auto)\n" + body, encoding="utf-8")
    assert len(typst.compile(str(src))) > 1000
    for b in A.ALL_BOUNDS:
        assert b.statement and b.source.startswith("allouah2025") and b.typst


# -- properties (hypothesis) ----------------------------------------------------------------------------
@st.composite
def workers(draw):
    n = draw(st.integers(1, 200))
    f = draw(st.integers(0, (n - 1) // 2))
    q = draw(st.integers(0, f))
    return n, f, q


noise = st.floats(0.0, 25.0, allow_nan=False, allow_subnormal=False)  # subnormal variances only test rounding
sigma_pos = st.floats(0.05, 50.0, allow_nan=False)
deltas = st.floats(1e-12, 0.5, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(s2=sigma_pos, T=st.integers(1, 5000), delta=deltas, C=st.floats(0.1, 5.0))
def test_epsilon_increases_with_T(s2, T, delta, C):
    a, b = P.account_sigma_eff2(s2, C, T, delta), P.account_sigma_eff2(s2, C, T + 1, delta)
    assert b.mironov.epsilon >= a.mironov.epsilon
    assert b.grid.epsilon >= a.grid.epsilon


@settings(max_examples=60, deadline=None)
@given(s2=sigma_pos, factor=st.floats(1.0001, 10.0), T=st.integers(1, 5000), delta=deltas)
def test_epsilon_increases_with_inverse_noise(s2, factor, T, delta):
    loud, quiet = P.account_sigma_eff2(s2 * factor, 1.0, T, delta), P.account_sigma_eff2(s2, 1.0, T, delta)
    assert quiet.mironov.epsilon >= loud.mironov.epsilon
    assert quiet.grid.epsilon >= loud.grid.epsilon


@settings(max_examples=40, deadline=None)
@given(w=workers(), target=st.floats(0.05, 60.0), T=st.integers(1, 2000), delta=deltas,
       mechanism=st.sampled_from(P.MECHANISMS), ratio=st.sampled_from([None, 0.3, 1.0, 3.0]),
       conversion=st.sampled_from([P.MIRONOV_OPTIMAL, P.BALLE_GRID]))
def test_calibrated_noise_never_exceeds_target(w, target, T, delta, mechanism, ratio, conversion):
    n, f, q = w
    shape = P.noise_shape(mechanism, ratio)
    if P.mechanism_sigma_eff2(mechanism, n, f, q, *shape) == 0.0:
        return  # q = f without independent noise: no noise level gives privacy (refused elsewhere)
    cal = P.calibrate(mechanism, n, f, q, target, T, delta, 1.0, ratio=ratio, conversion=conversion)
    acc = P.account(mechanism, n, f, q, cal.sigma_cor2, cal.sigma_ind2, 1.0, T, delta)
    achieved = acc.mironov.epsilon if conversion == P.MIRONOV_OPTIMAL else acc.grid.epsilon
    assert achieved <= target
    assert achieved >= target * (1 - 1e-6) or achieved == 0.0  # and it is the least such noise (tight)


@settings(max_examples=80, deadline=None)
@given(w=workers(), c2=noise, i2=noise, T=st.integers(1, 1000), delta=deltas)
def test_secldp_between_cdp_and_ldp(w, c2, i2, T, delta):
    n, f, q = w
    s = {m: P.mechanism_sigma_eff2(m, n, f, q, c2, i2) for m in P.MECHANISMS}
    tol = 1e-12 * max(s.values(), default=0.0)
    assert s["ldp"] <= s["secldp"] + tol <= s["cdp"] + 2 * tol
    if s["ldp"] > 0:
        eps = {m: P.account(m, n, f, q, c2, i2, 1.0, T, delta).mironov.epsilon for m in P.MECHANISMS}
        assert eps["cdp"] <= eps["secldp"] * (1 + 1e-12) <= eps["ldp"] * (1 + 2e-12)


@settings(max_examples=60, deadline=None)
@given(w=workers(), c2=noise, i2=st.floats(0.01, 25.0), C=st.floats(0.1, 5.0))
def test_closed_form_equals_matrix_form_property(w, c2, i2, C):
    n, f, q = w
    if n - f > 60:
        return  # keep the dense solve small
    kappa = np.linalg.cond(P.server_view_covariance(n, f, q, c2, i2))  # forming Sigma costs ~u kappa already
    assert math.isclose(P.secldp_rdp_step(n, f, q, c2, i2, C), P.secldp_rdp_step_matrix(n, f, q, c2, i2, C),
                        rel_tol=max(1e-10, 64 * np.finfo(float).eps * kappa))


@settings(max_examples=40, deadline=None)
@given(w=workers(), eps_frac=st.floats(0.01, 0.999), T=st.integers(1, 10_000), delta=deltas,
       ratio=st.sampled_from([0.0, 0.5, 1.0, 4.0]))
def test_theorem_condition_implies_epsilon(w, eps_frac, T, delta, ratio):
    n, f, q = w
    eps = eps_frac * P.log_inv_delta(delta)
    R = P.theorem41_required_sigma_eff2(eps, T, delta, 1.0)
    c2, i2 = P.scale_noise_to_sigma_eff2(R * (1 + 1e-12), "secldp", n, f, q, P.noise_shape("secldp", ratio))
    assert P.theorem41_condition(n, f, q, c2, i2, 1.0, T, delta, eps)
    acc = P.account("secldp", n, f, q, c2, i2, 1.0, T, delta)
    assert acc.mironov.epsilon <= P.theorem41_epsilon_bound(eps, delta) * (1 + 1e-12) <= eps * (1 + 1e-12)
