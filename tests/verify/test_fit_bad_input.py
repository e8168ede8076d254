"""Every public function of verify/fit.py refuses nonsense with one InputError naming the parameter.

A verdict atom that accepts a negative z, a level of 2, a NaN tolerance or the verdict 'maybe' answers
wrongly and silently (``mc_bound_verdict(1.2, 0.1, 1.0, z=-3)`` said holds for an estimate above its
bound). A hypothesis test replaces one parameter of a valid call by a bad value and requires InputError
with that parameter's name: never a verdict, never another exception type.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verify.fit as fit
from analytic.bounds import Bound
from analytic.errors import InputError
from verify.result import Assumption, Verdict

N = sp.Symbol("n", positive=True)
RATE = Bound("n^-1", N ** -1, "upper")
RNG = np.random.default_rng(5)
SAMPLES = RNG.normal(1.0, 0.1, size=(8, 3))
X = np.array([1.0, 2.0, 4.0, 8.0])
CURVE = np.abs(RNG.normal(1.0, 0.05, size=(6, 1))) * X ** -1.0

#: function -> a valid call's keyword arguments
VALID = {
    "tightness_of": dict(slack=3.0),
    "bootstrap_ci": dict(samples=SAMPLES, level=0.9, n_boot=50, rng=1, deterministic=False),
    "proportion_ci": dict(k=3, n=10, level=0.95),
    "slope_fit": dict(x=X, Y=CURVE, log_x=True, level=0.95, n_boot=50, rng=1, deterministic=False),
    "interval_verdict": dict(lo=0.1, hi=0.2, threshold=1.0, side="upper"),
    "combine": dict(verdicts=["holds", Verdict.HOLDS]),
    "unanimous": dict(verdicts=["holds", "violated"]),
    "controlled": dict(claim="holds", control="violated"),
    "side_of": dict(bound=RATE),
    "power_law": dict(param="n", exponent=-0.5, kind="upper"),
    "leading_exponent": dict(theory=RATE, param="n"),
    "leading_rate": dict(theory=RATE, param="n", kind="tight"),
    "rate_verdict": dict(x=X, Y=CURVE, theory=RATE, param="n", tol=0.1, level=0.95, n_boot=50, rng=1,
                         deterministic=False),
    "bound_verdict": dict(Y=SAMPLES, bound=2.0, side="upper", level=0.95, n_boot=50, rng=1, deterministic=False),
    "identity_verdict": dict(observed=[1.0, 2.0], expected=[1.0, 2.0], rtol=1e-6, atol=0.0),
    "family_z": dict(k=3, level=0.99, df=None, seeds=10),
    "mc_identity_verdict": dict(estimate=[1.0], se=[0.01], expected=[1.0], z=3.0, resolution=None, convict_z=5.0),
    "mc_bound_verdict": dict(estimate=[0.5], se=[0.01], bound=1.0, z=3.0, side="upper"),
    "deterministic_verdict": dict(values=[0.5], bounds=1.0, side="upper", rtol=0.0),
    "exact_zero_verdict": dict(value=0.0, atol=1e-12),
    "counterexample_verdict": dict(failure_reproduced=True, repaired_succeeds=Verdict.HOLDS),
    "apply_minimum_replicates": dict(verdict="holds", used=5, minimum=3),
    "apply_assumptions": dict(verdict="holds", assumptions=[Assumption("L-smooth", True)]),
    "geometric_rate_verdict": dict(steps=np.arange(8.0), errors=(0.7 ** np.arange(8.0))[None], limit=0.75, side="upper",
                                   tol=0.0, level=0.95, n_boot=50, rng=1, deterministic=True),
    "proportion_verdict": dict(k=9, n=10, threshold=0.5, side="lower", level=0.95),
    "bracket_verdict": dict(lower=[0.1], upper=[0.2], bound=1.0, side="upper"),
    "ratio_of_means_verdict": dict(numerator=SAMPLES[:, 0], denominator=SAMPLES[:, 1] + 1, threshold=1.0, side="upper",
                                   level=0.95, n_boot=50, rng=1),
    "paired_comparison_verdict": dict(a=SAMPLES[:, 0], b=SAMPLES[:, 0] + 1, alpha=0.05),
    "rank_trend_verdict": dict(x=X, Y=CURVE[:, ::-1], min_rho=0.5, level=0.95, n_boot=50, rng=1),
    "held_out_constant_verdict": dict(cal_lo=[0.9], cal_hi=[1.1], cal_bound=[1.0], test_lo=[0.4], test_hi=[0.6],
                                      test_bound=[0.5], side="upper", margin=1.5),
    "median_verdict": dict(samples=SAMPLES[:, 0], threshold=2.0, side="upper", level=0.95),
}

# -- bad values, by what the parameter is ---------------------------------------------------------------------
_junk = st.one_of(st.none(), st.booleans(), st.text(max_size=5), st.just(object()), st.just({"a": 1}))
_nan = st.just(float("nan"))
_inf = st.sampled_from([float("inf"), -float("inf")])
_level = st.one_of(_junk, _nan, _inf, st.floats(max_value=0.0, allow_nan=False),
                   st.floats(min_value=1.0, allow_nan=False))
_z = st.one_of(_junk, _nan, _inf, st.floats(max_value=0.0, allow_nan=False))
_tol = st.one_of(_junk, _nan, _inf, st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
_side = st.one_of(st.booleans(), st.integers(), st.text(max_size=6).filter(lambda s: s not in ("upper", "lower")))
_verdict = st.one_of(st.none(), st.booleans(), st.integers(),
                     st.text(max_size=8).filter(lambda s: s not in fit.VERDICTS))
_flag = st.one_of(st.none(), st.integers(), st.text(max_size=4), st.floats())
_count = st.one_of(_junk, _nan, st.integers(max_value=0),
                   st.floats(min_value=0.1, max_value=0.9))
_seed = st.one_of(st.booleans(), st.text(max_size=4), st.integers(max_value=-1), st.floats(0.1, 0.9), _nan)
_number = st.one_of(_junk, _nan, _inf)
_data = st.one_of(st.none(), st.booleans(), st.text(max_size=4), st.just([]), st.just(["a", 1.0]))
_theory_data = st.one_of(_data, _nan, st.just([float("nan")]))

#: (function, parameter) -> bad values for it
BAD = {}
for fn, kw in VALID.items():
    for p in kw:
        BAD[(fn, p)] = {"level": _level, "alpha": _level, "z": _z, "tol": _tol, "rtol": _tol, "atol": _tol,
                        "resolution": _tol.filter(lambda v: v is not None and v != float("inf")),
                        "side": _side, "deterministic": _flag,
                        "log_x": _flag, "n_boot": _count,
                        "rng": _seed, "verdict": _verdict, "claim": _verdict, "control": _verdict,
                        "failure_reproduced": st.one_of(_flag, _verdict.filter(lambda v: not isinstance(v, bool)),
                                                        st.just(Verdict.NOT_REPRODUCED)),
                        "repaired_succeeds": st.one_of(_flag, st.just(Verdict.REPRODUCED)),
                        "verdicts": st.one_of(st.lists(_verdict, min_size=1, max_size=3), st.none(), st.integers()),
                        "expected": _theory_data, "bound": _theory_data if fn != "side_of" else _data,
                        "theory": st.one_of(_data, st.just(1.0)), "exponent": _number,
                        "param": st.one_of(st.none(), st.integers(), st.just("2x"), st.just("")),
                        "kind": st.one_of(st.none(), st.just("upperish"), st.integers()),
                        "k": _count, "n": _count, "seeds": _count,
                        "convict_z": st.one_of(_junk.filter(lambda v: v is not None), _nan,
                                               st.floats(max_value=2.99, allow_nan=False)),
                        "used": st.integers(max_value=-1), "minimum": _junk,
                        "slack": st.one_of(_junk, _nan, st.floats(max_value=-1e-9, allow_nan=False)),
                        "margin": st.one_of(_junk, _nan, _inf, st.floats(max_value=0.999, allow_nan=False)),
                        "min_rho": st.one_of(_junk, _nan, st.floats(min_value=1.001, allow_infinity=False)),
                        "threshold": {"proportion_verdict": st.one_of(_junk, _nan, _inf),
                                      "interval_verdict": st.one_of(_junk, _nan)}.get(fn, _number),
                        "assumptions": st.one_of(st.none(), st.just([1, 2]), st.text(max_size=3)),
                        "limit": st.one_of(_junk, _nan, st.floats(max_value=0.0, allow_nan=False)),
                        "df": st.one_of(st.integers(max_value=0), st.booleans(), st.text(max_size=3)),
                        "se": st.one_of(_data, st.just([-0.1])), "value": _data,
                        }.get(p, _data)
CASES = sorted(BAD)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), data=st.data())
def test_every_public_function_refuses_a_bad_parameter(case, data):
    fn, param = case
    bad = data.draw(BAD[case], label=f"{fn}({param}=...)")
    with pytest.raises(InputError) as info:
        getattr(fit, fn)(**{**VALID[fn], param: bad})
    assert info.value.param == param, (fn, param, bad, info.value)


def test_the_valid_calls_decide():
    """The valid calls above are accepted (so each bad-value case differs from a good one only in one value)."""
    for fn, kw in VALID.items():
        getattr(fit, fn)(**kw)


def test_every_public_function_is_driven():
    public = {n for n, f in vars(fit).items() if callable(f) and not n.startswith("_") and getattr(f, "__module__", "")
              == "verify.fit" and not isinstance(f, type)}
    assert public == set(VALID), public ^ set(VALID)


@pytest.mark.parametrize("call, param", [
    (lambda: fit.mc_bound_verdict(1.2, 0.1, 1.0, z=-3), "z"),
    (lambda: fit.paired_comparison_verdict(np.arange(8.0), np.arange(8.0) + 1, alpha=2.0), "alpha"),
    (lambda: fit.identity_verdict([1.0], [1.0], rtol=math.nan), "rtol"),
    (lambda: fit.identity_verdict([1.0], [math.nan], rtol=1e-3), "expected"),
    (lambda: fit.counterexample_verdict("no", "no"), "failure_reproduced"),
    (lambda: fit.combine(["holds", "maybe"]), "verdicts"),
    (lambda: fit.identity_verdict([1.0], [1.1], rtol=-0.5), "rtol"),
    (lambda: fit.identity_verdict([1.0], [1.1], rtol=0.0, atol=-1.0), "atol"),
    (lambda: fit.deterministic_verdict([1.0], 1.0, rtol=-0.1), "rtol"),
    (lambda: fit.exact_zero_verdict(1e-3, atol=-1.0), "atol"),
    (lambda: fit.family_z(k=0), "k"),
    (lambda: fit.power_law("n", math.nan), "exponent"),
    (lambda: fit.bound_verdict(SAMPLES, 2.0, level=1.5), "level"),
    (lambda: fit.slope_fit(X, CURVE, deterministic=1), "deterministic"),
    (lambda: fit.interval_verdict(0.0, 1.0, 0.5, "middle"), "side"),
])
def test_the_reviews_cases_are_refused(call, param):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param


def test_valid_verdicts_are_unchanged_next_to_the_refusals():
    """The same calls with valid values keep their verdicts (the refusals above replaced wrong answers)."""
    assert fit.mc_bound_verdict(1.2, 0.01, 1.0, z=3.0)[0] == Verdict.VIOLATED
    assert fit.combine(["holds", "inconclusive"]) == Verdict.INCONCLUSIVE
    assert fit.counterexample_verdict(True, np.bool_(True)) == Verdict.REPRODUCED
    assert fit.family_z(1) == pytest.approx(3.0, abs=1e-4)
    assert fit.identity_verdict([np.nan], [1.0], rtol=1e-3)[0] == Verdict.INCONCLUSIVE  # a failed measurement
    assert fit.mc_identity_verdict([1.0], [np.nan], [1.0], z=3.0)[0] == Verdict.INCONCLUSIVE


def test_an_exact_identitys_monte_carlo_side_convicts_only_beyond_the_sweep_threshold():
    """allouah2025.c19's case: 17 points, one at 4.03 standard errors (beyond family_z(17) = 3.78, within
    family_z(17, seeds=1000) = 5.24) is inconclusive, not violated; 6 standard errors still convict."""
    z, zc = fit.family_z(17), fit.family_z(17, seeds=fit.SWEEP_SEEDS)
    assert z == pytest.approx(3.78, abs=0.01) and zc == pytest.approx(5.24, abs=0.01)
    est, se, exp_ = np.ones(17), np.full(17, 0.01), np.ones(17)
    est[3] = 1.0403
    assert fit.mc_identity_verdict(est, se, exp_, z)[0] == Verdict.VIOLATED  # the one-seed threshold alone
    v, info = fit.mc_identity_verdict(est, se, exp_, z, convict_z=zc)
    assert v == Verdict.INCONCLUSIVE and "4.03 standard errors" in info["reason"]
    est[3] = 1.06
    assert fit.mc_identity_verdict(est, se, exp_, z, convict_z=zc)[0] == Verdict.VIOLATED
    est[3] = 1.01
    assert fit.mc_identity_verdict(est, se, exp_, z, convict_z=zc)[0] == Verdict.HOLDS


def test_measured_successes_and_an_unlimited_resolution_are_accepted():
    """Indicator arrays (booleans) are 0/1 data; resolution=inf says 'no resolution limit' (buttaci2024's checks)."""
    mean, lo, hi = fit.bootstrap_ci(np.array([True, False, True, True]), n_boot=50, rng=0)
    assert mean == 0.75 and lo <= mean <= hi
    assert fit.mc_identity_verdict([1.0], [0.5], [1.0], z=3.0, resolution=np.inf)[0] == Verdict.HOLDS
