"""The verdict rules must be able to fail: planted wrong exponents and bounds give `violated`,
correct ones give `holds` over many root seeds."""
import numpy as np
import pytest

from verify.fit import (
    apply_assumptions,
    bootstrap_ci,
    bound_verdict,
    combine,
    counterexample_verdict,
    deterministic_verdict,
    geometric_rate_verdict,
    identity_verdict,
    interval_verdict,
    mc_bound_verdict,
    power_law,
    proportion_ci,
    proportion_verdict,
    rate_verdict,
    slope_fit,
)
from verify.result import Assumption, Verdict

X = np.array([4.0, 16.0, 64.0, 256.0])


def rate(Y, exponent, kind="upper", **kw):
    """The rate verdict for a claim stated as a power law n^exponent of the given kind."""
    return rate_verdict(X, Y, power_law("n", exponent, kind), param="n", tol=0.1, **kw)


def power_law_samples(seed, exponent=-1.0, R=200, noise="exponential"):
    rng = np.random.default_rng(seed)
    mult = rng.exponential(size=(R, X.size)) if noise == "exponential" else rng.lognormal(0, 0.3, size=(R, X.size))
    return X**exponent * mult


@pytest.mark.parametrize("seed", range(10))
def test_correct_rate_holds_over_seeds(seed):
    v, fit = rate(power_law_samples(seed), -1.0, "tight", rng=seed)
    assert v == Verdict.HOLDS, fit


@pytest.mark.parametrize("seed", range(10))
def test_planted_wrong_exponent_is_violated(seed):
    Y = power_law_samples(seed, exponent=-0.5)
    v, fit = rate(Y, -1.0, rng=seed)  # claims O(n^-1); data fall as n^-1/2
    assert v == Verdict.VIOLATED, fit


def test_tight_claim_fails_when_decay_is_faster():
    Y = power_law_samples(0, exponent=-2.0)
    assert rate(Y, -1.0)[0] == Verdict.HOLDS  # an upper bound allows faster decay
    assert rate(Y, -1.0, "tight")[0] == Verdict.VIOLATED
    assert rate(Y, -1.0, "exact")[0] == Verdict.VIOLATED


def test_lower_rate_side():
    Y = power_law_samples(1, exponent=-1.0)
    assert rate(Y, -1.0, "lower")[0] == Verdict.HOLDS
    assert rate(Y, -0.5, "lower")[0] == Verdict.VIOLATED


def test_a_sum_bound_is_judged_by_its_slope_on_the_grid():
    """data ~ 1/n + 0.05 (a floor): the Bound 1/n + 0.05 fits them, the Bound 1/n does not."""
    import sympy as sp

    from analytic.bounds import Bound

    n = sp.Symbol("n", positive=True)
    rng = np.random.default_rng(3)
    Y = (1 / X + 0.05) * rng.lognormal(0, 0.1, size=(200, X.size))
    v, fit = rate_verdict(X, Y, Bound("with floor", 1 / n + sp.Rational(1, 20), "tight"), param="n", tol=0.1, rng=0)
    assert v == Verdict.HOLDS and -1 < fit["predicted_exponent"] < -0.2
    assert fit["bound_local_slope_range"][0] < fit["bound_local_slope_range"][1]
    v, fit = rate_verdict(X, Y, Bound("no floor", 1 / n, "upper"), param="n", tol=0.1, rng=0)
    assert v == Verdict.VIOLATED and fit["predicted_exponent"] == -1.0


def test_wide_interval_straddling_the_threshold_is_inconclusive_not_holds():
    Y = np.stack([X**-1.3, X**-0.7] * 3)  # replicates disagree: the slope CI straddles -0.9
    v, fit = rate(Y, -1.0, "tight", rng=0)
    assert fit["slope_ci"][0] < -0.9 < fit["slope_ci"][1]
    assert v == Verdict.INCONCLUSIVE, fit


@pytest.mark.parametrize("seed", range(10))
def test_bound_verdict_correct_and_planted(seed):
    Y = power_law_samples(seed)  # mean = 1/x
    assert bound_verdict(Y, 1.5 / X, rng=seed)[0] == Verdict.HOLDS
    assert bound_verdict(Y, 0.5 / X, rng=seed)[0] == Verdict.VIOLATED
    assert bound_verdict(Y, 0.5 / X, side="lower", rng=seed)[0] == Verdict.HOLDS
    assert bound_verdict(Y, 1.5 / X, side="lower", rng=seed)[0] == Verdict.VIOLATED


def test_bound_at_the_edge_is_inconclusive():
    Y = power_law_samples(5)
    assert bound_verdict(Y, Y.mean(0), rng=0)[0] == Verdict.INCONCLUSIVE


def test_interval_and_combine():
    assert interval_verdict(0.1, 0.2, 0.3) == Verdict.HOLDS
    assert interval_verdict(0.4, 0.5, 0.3) == Verdict.VIOLATED
    assert interval_verdict(0.2, 0.4, 0.3) == Verdict.INCONCLUSIVE
    assert interval_verdict(0.4, 0.5, 0.3, "lower") == Verdict.HOLDS
    assert combine([Verdict.HOLDS, Verdict.INCONCLUSIVE]) == Verdict.INCONCLUSIVE
    assert combine([Verdict.INCONCLUSIVE, Verdict.VIOLATED]) == Verdict.VIOLATED
    with pytest.raises(ValueError):
        interval_verdict(0, 1, 0.5, "sideways")


def test_identity_verdict():
    assert identity_verdict([1.0, 2.0], [1.0 + 1e-13, 2.0], rtol=1e-12)[0] == Verdict.HOLDS
    v, d = identity_verdict([1.0, 2.1], [1.0, 2.0], rtol=1e-3)
    assert v == Verdict.VIOLATED and d["max_rel_error"] == pytest.approx(0.05)


def test_assumptions_make_holds_inconclusive():
    bad = [Assumption("Delta >= sigma/delta", held=False, value=2.0)]
    assert apply_assumptions(Verdict.HOLDS, bad) == Verdict.INCONCLUSIVE
    assert apply_assumptions(Verdict.VIOLATED, bad) == Verdict.INCONCLUSIVE
    assert apply_assumptions(Verdict.HOLDS, [Assumption("x", True)]) == Verdict.HOLDS


def test_counterexample_verdict():
    assert counterexample_verdict(True, True) == Verdict.REPRODUCED
    assert counterexample_verdict(True, False) == Verdict.NOT_REPRODUCED
    assert counterexample_verdict(False, True) == Verdict.NOT_REPRODUCED


def test_counterexample_verdict_from_undecided_tests_is_inconclusive():
    """A success rate whose interval straddles its threshold decides nothing: 21 of 24 against 0.75 (Clopper-Pearson
    lower end 0.68) with a clear failure is inconclusive, not 'not reproduced' (su2022.x11 on a CUDA stream said so)."""
    from verify.fit import proportion_verdict

    fail, _ = proportion_verdict(24, 24, 0.25)
    rep, _ = proportion_verdict(21, 24, 0.75)
    assert rep == Verdict.INCONCLUSIVE
    assert counterexample_verdict(fail, rep) == Verdict.INCONCLUSIVE
    assert counterexample_verdict(fail, proportion_verdict(23, 24, 0.75)[0]) == Verdict.REPRODUCED
    assert counterexample_verdict(fail, proportion_verdict(10, 24, 0.75)[0]) == Verdict.NOT_REPRODUCED
    assert counterexample_verdict(rep, False) == Verdict.NOT_REPRODUCED


def test_proportion_ci_clopper_pearson():
    p, lo, hi = proportion_ci(0, 20)
    assert p == 0 and lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 20))
    p, lo, hi = proportion_ci(20, 20)
    assert hi == 1 and lo == pytest.approx(0.025 ** (1 / 20))
    with pytest.raises(ValueError):
        proportion_ci(3, 2)


def test_bootstrap_ci_covers_mean_one_replicate_is_uninformative_unless_deterministic():
    rng = np.random.default_rng(0)
    m, lo, hi = bootstrap_ci(rng.normal(5, 1, size=400), rng=1)
    assert lo < 5 < hi and hi - lo < 0.3
    m, lo, hi = bootstrap_ci(np.array([[2.0, 3.0]]))
    assert np.all(lo == -np.inf) and np.all(hi == np.inf)
    m, lo, hi = bootstrap_ci(np.array([[2.0, 3.0]]), deterministic=True)
    assert np.all(lo == m) and np.all(hi == m)


def test_one_random_replicate_never_decides():
    Y = (X**-1.11)[None]  # one run that happens to look too steep
    assert rate(Y, -1.0, "tight")[0] == Verdict.INCONCLUSIVE
    assert bound_verdict(Y, 0.1 / X)[0] == Verdict.INCONCLUSIVE
    assert slope_fit(X, Y, deterministic=True).lo == pytest.approx(-1.11)


def test_false_holds_rate_near_nominal_for_few_replicates():
    """True mean exactly on the bound: 'holds' should come up about 2.5% of the time, not 3x that."""
    rng = np.random.default_rng(7)
    holds = sum(bound_verdict(rng.normal(1.0, 1.0, size=5), 1.0, rng=i, n_boot=400)[0] == Verdict.HOLDS
                for i in range(600))
    assert holds / 600 < 0.05


def test_many_grid_points_do_not_manufacture_violations():
    rng = np.random.default_rng(3)
    violated = sum(bound_verdict(rng.normal(1.0, 1.0, size=(50, 16)), 1.0, rng=i, n_boot=400)[0] == Verdict.VIOLATED
                   for i in range(300))
    assert violated / 300 < 0.08  # the uncorrected rule said violated about 40% of the time here


def test_numerical_failure_is_inconclusive_and_powerless_test_cannot_hold():
    from verify.fit import mc_identity_verdict

    assert identity_verdict([np.nan], [1.0], rtol=1e-3)[0] == Verdict.INCONCLUSIVE
    assert mc_identity_verdict([5.0], [1e9], [1.0], z=3.0)[0] == Verdict.INCONCLUSIVE
    assert mc_identity_verdict([1.0], [0.01], [1.0], z=3.0)[0] == Verdict.HOLDS
    assert interval_verdict(np.nan, 1.0, 0.5) == Verdict.INCONCLUSIVE


def test_slope_fit_exact_and_geometric_rate():
    f = slope_fit(X, (3 * X**-1.5)[None])
    assert f.slope == pytest.approx(-1.5) and f.intercept == pytest.approx(np.log10(3))
    steps = np.arange(10)
    v, g = geometric_rate_verdict(steps, (0.7**steps)[None], 0.75, deterministic=True)
    assert g["rate"] == pytest.approx(0.7) and v == Verdict.HOLDS
    assert geometric_rate_verdict(steps, (0.7**steps)[None], 0.65, deterministic=True)[0] == Verdict.VIOLATED
    assert geometric_rate_verdict(steps, (0.7**steps)[None], 0.65, side="lower", deterministic=True)[0] == Verdict.HOLDS
    assert geometric_rate_verdict(steps, (0.7**steps)[None], 0.75)[0] == Verdict.INCONCLUSIVE  # one random run
    with pytest.raises(ValueError):
        slope_fit(X, -np.ones((2, 4)))


def test_monte_carlo_and_exact_variants():
    from verify.fit import exact_zero_verdict, family_z, mc_identity_verdict

    assert family_z(1) == pytest.approx(3.0, abs=1e-3) and family_z(10) > family_z(1)
    assert family_z(1, df=19) > family_z(1)  # Student's t for few batches is wider
    assert mc_identity_verdict([1.02], [0.01], [1.0], z=3.0)[0] == Verdict.HOLDS
    assert mc_identity_verdict([1.05], [0.01], [1.0], z=3.0)[0] == Verdict.VIOLATED
    assert deterministic_verdict([1.0, 2.0], [1.0, 2.5])[0] == Verdict.HOLDS
    assert deterministic_verdict([1.0, 2.6], [1.0, 2.5])[0] == Verdict.VIOLATED
    assert deterministic_verdict([1.0, 2.6], [1.0, 2.5], side="lower")[0] == Verdict.HOLDS
    assert deterministic_verdict([0.9, 2.6], [1.0, 2.5], side="lower")[0] == Verdict.VIOLATED
    assert deterministic_verdict([1.0 - 1e-13], [1.0], side="lower", rtol=1e-12)[0] == Verdict.HOLDS
    assert mc_bound_verdict([1.0], [0.01], 1.1, z=3.0)[0] == Verdict.HOLDS
    assert mc_bound_verdict([1.0], [0.01], 0.9, z=3.0)[0] == Verdict.VIOLATED
    assert mc_bound_verdict([1.0], [0.1], 1.1, z=3.0)[0] == Verdict.INCONCLUSIVE
    assert mc_bound_verdict([1.0], [0.01], 0.9, z=3.0, side="lower")[0] == Verdict.HOLDS
    assert proportion_verdict(30, 32, 0.5)[0] == Verdict.HOLDS and proportion_verdict(2, 32, 0.5)[0] == Verdict.VIOLATED
    assert proportion_verdict(1, 2, 0.5)[0] == Verdict.INCONCLUSIVE
    assert exact_zero_verdict(0.0)[0] == Verdict.HOLDS and exact_zero_verdict(1e-9)[0] == Verdict.VIOLATED
    v, d = identity_verdict([0.0, 1e-3], [0.0, 0.0], rtol=1e-3)  # expected 0: no overflow warning
    assert v == Verdict.VIOLATED and d["max_abs_error"] == 1e-3 and d["expected_zero_points"] == 1
    assert d["max_rel_error"] == 0.0  # defined only where the expected value is not 0: never inf


def test_bound_verdict_reads_the_kind_of_a_bound():
    import sympy as sp

    from analytic.bounds import Bound

    n = sp.Symbol("n", positive=True)
    rng = np.random.default_rng(5)
    Y = (2 / X) * rng.lognormal(0, 0.05, size=(100, X.size))
    assert bound_verdict(Y, Bound("upper 3/n", 3 / n, "upper"), values={"n": X}, rng=0)[0] == Verdict.HOLDS
    assert bound_verdict(Y, Bound("upper 1/n", 1 / n, "upper"), values={"n": X}, rng=0)[0] == Verdict.VIOLATED
    assert bound_verdict(Y, Bound("lower 1/n", 1 / n, "lower"), values={"n": X}, rng=0)[0] == Verdict.HOLDS
    assert bound_verdict(Y, Bound("lower 3/n", 3 / n, "lower"), values={"n": X}, rng=0)[0] == Verdict.VIOLATED
    with pytest.raises(ValueError, match="side"):
        bound_verdict(Y, Bound("upper 3/n", 3 / n, "upper"), side="lower", values={"n": X})


def test_geometric_rate_takes_a_bound_and_a_window():
    """A textbook rate loose by a square (true r = q^2, stated q) holds as an upper Bound but is violated as a tight
    one; a window leaves out the floor a converged run sits on."""
    import sympy as sp

    from analytic.bounds import Bound
    from verify.fit import geometric_rate_verdict

    q = sp.Symbol("q", positive=True)
    k = np.arange(40.0)
    err = np.maximum(0.81 ** k, 1e-3)[None, :]  # true rate 0.81 = 0.9^2, then a floor from step 33
    upper, tight = Bound("rate", q, "upper"), Bound("rate", q, "tight")
    assert geometric_rate_verdict(k, err, upper, values={"q": 0.9}, window=(0, 30), deterministic=True)[0] == Verdict.HOLDS
    v, info = geometric_rate_verdict(k, err, tight, values={"q": 0.9}, window=(0, 30), tol=0.02, deterministic=True)
    assert v == Verdict.VIOLATED and info["tight"] and abs(info["rate"] - 0.81) < 1e-9
    assert geometric_rate_verdict(k, err, tight, values={"q": 0.81}, window=(0, 30), tol=0.02,
                                  deterministic=True)[0] == Verdict.HOLDS
    # without the window the floor drags the fitted rate above the truth
    assert geometric_rate_verdict(k, err, upper, values={"q": 0.81}, deterministic=True)[1]["rate"] > 0.82
    with pytest.raises(ValueError, match="window"):
        geometric_rate_verdict(k, err, upper, values={"q": 0.9}, window=(100, 200))
    with pytest.raises(ValueError, match="side"):
        geometric_rate_verdict(k, err, upper, "lower", values={"q": 0.9})


@pytest.mark.parametrize("c_kernels", ["1", "0"])
def test_bootstrap_means_are_bitwise_the_gathered_mean(c_kernels, monkeypatch):
    """verify.fit._bootstrap_means adds the resampled rows one draw at a time: bitwise numpy's y[idx].mean(axis=1)
    (same generator draws) for every shape, trailing sizes of 1, widely scaled values and non-finite entries
    included; a [R] sample and a non-float64 one take the gather itself. Both with the C loop
    (verify/bootstrap_means.c) and without it (numpy's loop)."""
    from verify import native
    from verify.fit import _bootstrap_means

    monkeypatch.setenv("FEDVERIFY_TC_C", c_kernels)
    if c_kernels == "1" and (native.build() is None or native.library() is None):
        pytest.skip("no C compiler")

    rng = np.random.default_rng(7)
    for _ in range(300):
        R = int(rng.integers(1, 70))
        shape = [R] + [int(rng.integers(1, 9)) for _ in range(int(rng.integers(0, 3)))]
        y = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, size=shape)
        if rng.random() < 0.1:
            y.reshape(-1)[0] = [np.inf, np.nan, -np.inf][int(rng.integers(3))]
        B = int(rng.integers(1, 200))
        want = y[np.random.default_rng(3).integers(0, R, size=(B, R))].mean(axis=1)
        got = _bootstrap_means(y, B, np.random.default_rng(3))
        assert got.shape == want.shape and np.array_equal(got, want, equal_nan=True), (shape, B)
    y = np.arange(12, dtype=np.float32).reshape(4, 3)
    assert np.array_equal(_bootstrap_means(y, 5, np.random.default_rng(0)),
                          y[np.random.default_rng(0).integers(0, 4, size=(5, 4))].mean(axis=1))


def test_deterministic_verdict_is_the_interval_rule_pair_by_pair():
    """deterministic_verdict decides all pairs in one comparison: the same verdict as combining interval_verdict(x,
    x, t) pair by pair, on random values with ties, infinities and NaNs, both sides; a NaN bound is bad input and an
    infinite bound stays itself under rtol."""
    from analytic.errors import InputError
    from verify.fit import combine, deterministic_verdict, interval_verdict

    rng = np.random.default_rng(11)
    for _ in range(400):
        n = int(rng.integers(1, 12))
        v = rng.integers(-3, 4, size=n).astype(float)
        t = rng.integers(-3, 4, size=n).astype(float)
        for arr in (v, t):
            if rng.random() < 0.2:
                arr[int(rng.integers(n))] = [np.inf, -np.inf][int(rng.integers(2))]
        if rng.random() < 0.2:
            v[int(rng.integers(n))] = np.nan
        for side in ("upper", "lower"):
            want = combine(interval_verdict(x, x, b, side) for x, b in zip(v, t))
            assert deterministic_verdict(v, t, side)[0] == want, (v, t, side)
    with pytest.raises(InputError, match="bounds"):
        deterministic_verdict([1.0, 2.0], [3.0, np.nan], "upper")
    assert deterministic_verdict([1.0, 2.0], [np.inf, 2.0], "upper", rtol=1e-9)[0].value == "holds"
    assert deterministic_verdict([1.0, -np.inf], [0.5, -np.inf], "lower", rtol=1e-9)[0].value == "holds"
