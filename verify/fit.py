"""Fits and the verdict rules: the one place where a measurement becomes a verdict.

Rules (DESIGN.md):

* **interval** (the atom every other rule uses): an upper-type claim "q <= b" *holds* when the
  upper end of q's confidence interval is <= b, is *violated* when the lower end is > b, and is
  *inconclusive* otherwise. A lower-type claim mirrors it.
* **rate** "error = O(x^p)": fit the log-log slope of the replicate mean with a bootstrap CI over
  replicates; holds when the CI lies at or below p + tol and, if the bound's curve g is given,
  the slope of observed/g shows no upward trend (its CI at or below tol). A *tight* claim must
  also match p from below (CI at or above p - tol). A lower-bound rate mirrors the upper one.
* **bound** with explicit constants: holds when the upper CI of the observed mean stays under
  the bound at every grid point (lower bounds: the lower CI stays above).
* **identity**: holds when the relative error is under the stated tolerance, else violated.
* **exact numbers** (a deterministic quantity against a bound, from either side; an exact zero):
  the interval collapses to the value.
* **Monte Carlo** identities and bounds: the estimate +- z standard errors (``family_z`` gives z
  for k simultaneous tests); a test without power is inconclusive.
* **geometric rate**: the per-step contraction factor from a semilog fit, against a limit.
* **proportion**: a Clopper-Pearson interval of a success rate, against a threshold.
* **certified bracket**: a quantity known only to lie in [lower, upper] (an SDP's primal and dual
  values) against a bound.
* **two samples**: a ratio of means (bootstrap), a paired comparison (Wilcoxon signed-rank), a
  monotone trend (Spearman's rho with a bootstrap CI).
* **hidden constant** ("q <= C g" with C unspecified): C fitted once on calibration points, then
  held fixed on held-out points (the only way such a claim can fail).
* **median**: a distribution-free (order-statistic) interval of a median, against a threshold.
* **counterexample**: reproduced when the paper's failure predicate holds *and* the repaired
  algorithm succeeds on the same instance.
* a run whose assumptions did not hold is ``inconclusive``, never ``holds``.

Bad input is refused, never answered: every public function checks its parameters through
:mod:`analytic.validate` and raises :class:`analytic.errors.InputError` naming the parameter (a level
outside (0, 1), z <= 0, a negative or NaN tolerance, a verdict string outside :class:`Verdict`, a flag
that is not a bool, k < 1 simultaneous tests). A NaN *measurement* is data (a failed run) and gives
``inconclusive``; a NaN *theory* value (an expected value, a bound) is bad input.

Rate and bound verdicts take the theory as an :class:`analytic.bounds.Bound` and read its
``kind``: ``upper`` and ``lower`` give the side, ``tight`` (and ``exact``) an upper claim whose
exponent must also be matched from below. No check builds a verdict by hand: a test greps for it.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Literal

import numpy as np
from scipy import stats

from analytic import validate as check
from analytic.bounds import Bound
from analytic.errors import InputError
from verify.evidence import bound_evidence, rate_evidence
from verify.native import library as native_library
from verify.result import Assumption, Verdict
from verify.signed_rank import one_sided_pvalues
from verify.strength import Strength, aside, record, weakest  # noqa: F401  (weakest: combine's twin for strength)

Side = Literal["upper", "lower"]
DEFAULT_LEVEL = 0.95
DEFAULT_BOOT = 2000
THREE_SIGMA_LEVEL = 0.9973  # two-sided coverage of +-3 standard errors


SIDES = ("upper", "lower")
VERDICTS = tuple(v.value for v in Verdict)


# -- parameters: every public function below checks its own through analytic/validate.py -------------
def _rng(rng) -> np.random.Generator:
    """A Generator from a Generator, a SeedSequence, a seed >= 0 or None (seed 0)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    return np.random.default_rng(0 if rng is None else check.integer(rng, "rng", minimum=0))


def _side(side, optional: bool = False):
    """``upper`` or ``lower`` (``None`` too where the side may come from a Bound)."""
    return None if (optional and side is None) else check.choice(side, "side", SIDES)


def _verdict(value, param: str = "verdict") -> Verdict:
    """A Verdict from a Verdict or its string value; anything else is bad input."""
    return Verdict(check.choice(value, param, VERDICTS))


def _resampling(level, n_boot, rng, deterministic) -> tuple[float, int, np.random.Generator, bool]:
    """The shared parameters of the bootstrap rules: level in (0, 1), n_boot >= 1, a seed, a flag."""
    return (check.probability(level, "level"), check.integer(n_boot, "n_boot", minimum=1), _rng(rng),
            check.boolean(deterministic, "deterministic"))


def _grid(x, param: str = "x", positive: bool = True) -> np.ndarray:
    """A grid: at least two finite numbers (positive for a log axis), as a 1-d float64 array."""
    x = check.array(x, param, allow_inf=False).ravel()
    if x.size < 2:
        raise InputError(param, f"a fit needs at least 2 grid points, got {x.size}")
    if positive and np.any(x <= 0):
        raise InputError(param, "a log-log fit needs positive grid values")
    return x


def _theory(values, param: str) -> np.ndarray:
    """A theory's values (an expected value, a bound): numbers (booleans in an array count as 0/1), never NaN."""
    arr = check.measured(values, param)
    if np.any(np.isnan(arr)):
        raise InputError(param, "expected numbers, got NaN")
    return arr


def _bound_arg(bound, param: str = "bound") -> Bound:
    if not isinstance(bound, Bound):
        raise InputError(param, f"expected a Bound, got {bound!r}")
    return bound


def _values_arg(values, param: str = "values") -> dict | None:
    if values is not None and not isinstance(values, dict):
        raise InputError(param, f"expected a dict of symbol values, got {values!r}")
    return values


def _quantiles(boot: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    a = (1.0 - level) / 2.0
    return np.quantile(boot, a, axis=0), np.quantile(boot, 1.0 - a, axis=0)


# -- how hard a verdict was tested (margin, power, tightness: verify/strength.py) --------------
#: A holding bound attained within this factor is ``tight``; beyond VACUOUS_BEYOND it is ``vacuous``.
TIGHT_WITHIN = 2.0
VACUOUS_BEYOND = 100.0
#: A plant at the reported power is made this much stronger, so that it lies strictly past it.
PLANT_FACTOR = 0.9


def tightness_of(slack: float) -> str:
    """``tight`` when the theory is attained within TIGHT_WITHIN (slack = bound/observed for an upper
    bound, observed/bound for a lower one), ``loose`` up to VACUOUS_BEYOND, ``vacuous`` beyond."""
    slack = check.real(slack, "slack", minimum=0.0, allow_inf=True)
    if not slack <= VACUOUS_BEYOND:  # also inf
        return "vacuous"
    return "tight" if slack <= TIGHT_WITHIN else "loose"


def _threshold_strength(atom: str, verdict: Verdict, est, lo, hi, lo_v, hi_v, bound, side: Side,
                        trivial=None, evidence: dict | None = None) -> Strength:
    """Margin, power and tightness of 'q <= bound' (or >=) judged from q's estimate ``est``, its
    interval [lo, hi] and the wider interval [lo_v, hi_v] a violation needs, point by point.

    With a positive bound and a non-negative quantity the measure is the ratio q/bound: the margin is
    the worst ratio (with its CI), the power the factor the bound could be scaled by before one
    point's violation interval lies wholly on the wrong side (upper: max lo_v/bound; lower: min
    hi_v/bound). Otherwise the measure is the difference q - bound and the power an additive shift.
    ``trivial``: a bound no claim needs (the starting error): a bound at or beyond it is vacuous.
    ``evidence``: what the data touched of the Bound (verify/evidence.py), kept with the Strength."""
    evidence = {**(evidence or {}), "side": side}  # which way the atom compared (read by `fedverify search`)
    est, lo, hi, lo_v, hi_v, b = (np.ravel(x) for x in np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (est, lo, hi, lo_v, hi_v, bound))))
    upper = side == "upper"
    holds = verdict == Verdict.HOLDS
    ok = np.isfinite(est) & np.isfinite(b)
    if not np.any(ok):
        return record(Strength(atom, verdict.value, "ratio", float("nan"), None, None,
                               "no finite comparison", "no finite value to compare", None, float("inf"),
                               evidence=evidence))
    est, lo, hi, lo_v, hi_v, b = (x[ok] for x in (est, lo, hi, lo_v, hi_v, b))
    if np.all(b > 0) and np.all(est >= 0):
        r = est / b
        i = int(np.argmax(r) if upper else np.argmin(r))
        power = float(np.max(lo_v / b) if upper else np.min(hi_v / b))
        worst = float(r[i])
        slack = (1.0 / worst if worst > 0 else float("inf")) if upper else worst
        tight = tightness_of(slack) if holds else None
        if holds and trivial is not None:
            t = np.broadcast_to(np.asarray(trivial, dtype=float).ravel(), b.shape) if np.size(trivial) > 1 else float(
                np.asarray(trivial, dtype=float).ravel()[0])
            if (upper and np.all(b >= t)) or (not upper and np.all(b <= t)):
                tight, slack = "vacuous", float("inf")
        usable = np.isfinite(power) and (power > 0 if upper else power > 0)
        plant = {"scale": power * (PLANT_FACTOR if upper else 1.0 / PLANT_FACTOR)} if usable else {}
        ptext = (f"a bound {power:.3g}x as large would be violated" if usable
                 else "no rescaling of the bound would make this run violate it (its interval reaches 0)")
        return record(Strength(atom, verdict.value, "ratio", worst, [float(lo[i] / b[i]), float(hi[i] / b[i])],
                               power if np.isfinite(power) else None, ptext,
                               f"worst observed/bound {worst:.3g} (CI {lo[i] / b[i]:.3g} to {hi[i] / b[i]:.3g})",
                               tight, slack, plant, evidence))
    d = est - b
    i = int(np.argmax(d) if upper else np.argmin(d))
    shift = float(np.min(b - lo_v) if upper else np.min(hi_v - b))
    room = -d[i] if upper else d[i]  # how far the worst point is from the bound, relative to the bound's size
    slack = 1.0 + room / abs(b[i]) if b[i] != 0 else (float("inf") if room > 0 else 1.0)
    return record(Strength(atom, verdict.value, "difference", float(d[i]), [float(lo[i] - b[i]), float(hi[i] - b[i])],
                           shift, f"the bound moved by {shift:.3g} {'down' if upper else 'up'} would be violated",
                           f"worst observed - bound {d[i]:.3g}", tightness_of(slack) if holds and slack >= 1 else None,
                           float(slack),
                           {"shift": (-1 if upper else 1) * shift / PLANT_FACTOR} if np.isfinite(shift) else {},
                           evidence))


def _tolerance_strength(atom: str, verdict: Verdict, measure: str, error: float, tolerance: float,
                        text: str) -> Strength:
    """An identity matched within a tolerance: the margin is the error, the power the tolerance (a
    change of the expected value larger than it is detected); a holding identity is tight."""
    slack = tolerance / error if error > 0 else float("inf")  # the error could grow this much and still hold
    return record(Strength(atom, verdict.value, measure, error, None, tolerance,
                           f"a change of the expected value beyond {tolerance:.3g} ({measure.replace('_', ' ')}) "
                           "would be detected", text, "tight" if verdict == Verdict.HOLDS else None, slack))


# -- confidence intervals ----------------------------------------------------------------------
def _bootstrap_means(y: np.ndarray, n_boot: int, rng) -> np.ndarray:
    """Means of ``n_boot`` resamples of the replicates (axis 0): ``[n_boot, ...]``.

    Bitwise ``y[idx].mean(axis=1)``: for a float64 ``y`` with more than one value per replicate numpy sums that
    middle axis in index order, so the resampled rows are added one draw at a time into an ``[n_boot, ...]``
    accumulator, without the ``[n_boot, R, ...]`` gather (2-3x, and 10-40x on its first touch of fresh pages, at
    R = 30-64, P = 50-200). A ``[R]`` sample (summed pairwise along its last axis) takes the gather."""
    R = y.shape[0]
    idx = _rng(rng).integers(0, R, size=(n_boot, R))
    if y.dtype != np.float64 or y.ndim == 1 or y[0].size == 1:
        return y[idx].mean(axis=1)
    flat = np.ascontiguousarray(y.reshape(R, -1))
    lib = native_library()
    if lib is not None:  # the same additions in C, a resample at a time (verify/bootstrap_means.c; 3-6x)
        acc = np.empty((n_boot, flat.shape[1]))
        lib.resample_means(n_boot, R, flat.shape[1], flat.ctypes.data, idx.ctypes.data, acc.ctypes.data)
        return acc.reshape((n_boot,) + y.shape[1:])
    acc = flat[idx[:, 0]]
    for r in range(1, R):
        acc += flat[idx[:, r]]
    acc /= R
    return acc.reshape((n_boot,) + y.shape[1:])


def _expanded_interval(est, boot: np.ndarray, level: float, R: int):
    """Percentile interval of the bootstrap means, widened about the estimate by
    t_{R-1} / z * sqrt(R / (R - 1)) (Hesterberg's expanded percentile bootstrap): the plain
    percentile interval is too narrow for few replicates (it would call a bound held about 3x too
    often at R = 5); for R >= 50 the factor is below 1.03."""
    lo, hi = _quantiles(boot, level)
    a = (1.0 - level) / 2.0
    k = float(stats.t.isf(a, R - 1) / stats.norm.isf(a) * np.sqrt(R / (R - 1)))
    return est - k * (est - lo), est + k * (hi - est)


def bootstrap_ci(samples, level: float = DEFAULT_LEVEL, n_boot: int = DEFAULT_BOOT, rng=None, *,
                 deterministic: bool = False):
    """Mean over replicates (axis 0) with an expanded percentile-bootstrap CI; ``[R]`` or ``[R, P]``.

    One replicate of a random quantity says nothing about its spread: the interval is then
    (-inf, inf), so every verdict built on it is inconclusive. Pass ``deterministic=True`` for an
    exact quantity (one "replicate" is the value itself): the interval collapses to it.
    """
    level, n_boot, rng, deterministic = _resampling(level, n_boot, rng, deterministic)
    y = check.measured(samples, "samples")
    if y.ndim == 0:
        y = y[None]
    mean = y.mean(axis=0)
    R = y.shape[0]
    if deterministic:
        return mean, np.array(mean, copy=True), np.array(mean, copy=True)
    if R < 2:
        return mean, np.full_like(mean, -np.inf), np.full_like(mean, np.inf)
    lo, hi = _expanded_interval(mean, _bootstrap_means(y, n_boot, rng), level, R)
    return mean, lo, hi


def proportion_ci(k: int, n: int, level: float = DEFAULT_LEVEL) -> tuple[float, float, float]:
    """Fraction k/n with the exact Clopper-Pearson interval."""
    n = check.integer(n, "n", minimum=1)
    k = check.integer(k, "k", minimum=0, maximum=n)
    a = 1.0 - check.probability(level, "level")
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return k / n, lo, hi


# -- slopes -------------------------------------------------------------------------------------
@dataclass
class SlopeFit:
    slope: float
    lo: float
    hi: float
    intercept: float
    level: float
    n_boot: int
    axis: str  # "loglog" or "semilog"

    def as_dict(self) -> dict:
        return asdict(self)


def _ols_slopes(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slope and intercept of each row of Y [B, P] against X [P]."""
    xc = X - X.mean()
    slope = (Y - Y.mean(axis=-1, keepdims=True)) @ xc / (xc @ xc)
    return slope, Y.mean(axis=-1) - slope * X.mean()


def slope_fit(x, Y, *, log_x: bool = True, level: float = DEFAULT_LEVEL, n_boot: int = DEFAULT_BOOT, rng=None,
              deterministic: bool = False) -> SlopeFit:
    """Slope of log10(mean_r Y) against log10(x) (or against x when ``log_x`` is False).

    ``Y`` is ``[R, P]``: R replicates at P grid points. The CI resamples replicates (whole rows),
    so it reflects the spread of the estimate of the *mean* curve. Values must be positive.
    One replicate of a random quantity gives the interval (-inf, inf) unless ``deterministic``.
    """
    level, n_boot, rng, deterministic = _resampling(level, n_boot, rng, deterministic)
    log_x = check.boolean(log_x, "log_x")
    x = _grid(x, "x", positive=log_x)
    Y = np.atleast_2d(check.measured(Y, "Y"))
    if Y.ndim != 2 or Y.shape[1] != x.size or x.size < 2:
        raise InputError("Y", f"need Y [R, P] with P = len(x) >= 2, got {Y.shape} and {x.size}")
    if not np.all(Y.mean(axis=0) > 0):
        raise InputError("Y", "the mean curve must be positive for a log fit")
    X = np.log10(x) if log_x else x
    s, c = _ols_slopes(X, np.log10(Y.mean(axis=0))[None, :])
    s, c = float(s[0]), float(c[0])
    axis = "loglog" if log_x else "semilog"
    R = Y.shape[0]
    if deterministic or R < 2:
        lo, hi = (s, s) if deterministic else (-np.inf, np.inf)
        return SlopeFit(s, lo, hi, c, level, 0, axis)
    means = _bootstrap_means(Y, n_boot, rng)  # [B, P]
    with np.errstate(divide="ignore", invalid="ignore"):
        bs, _ = _ols_slopes(X, np.log10(np.where(means > 0, means, np.nan)))
    if np.mean(np.isfinite(bs)) < 0.99:  # resampled mean curves not positive: no log-slope interval
        return SlopeFit(s, -np.inf, np.inf, c, level, n_boot, axis)
    lo, hi = _expanded_interval(s, bs[np.isfinite(bs)], level, R)
    return SlopeFit(s, float(lo), float(hi), c, level, n_boot, axis)


# -- verdict rules --------------------------------------------------------------------------
def interval_verdict(lo: float, hi: float, threshold: float, side: Side = "upper") -> Verdict:
    """The atom: an upper-type claim 'q <= threshold' from q's CI [lo, hi] (lower-type mirrors).
    A NaN end (a measurement that failed) gives inconclusive; a NaN threshold, or an interval whose lower
    end lies above its upper end, is bad input."""
    lo, hi, threshold = (_scalar(v, n) for v, n in ((lo, "lo"), (hi, "hi"), (threshold, "threshold")))
    side = _side(side)
    if np.isnan(threshold):
        raise InputError("threshold", "expected a number, got NaN")
    if np.isnan(lo) or np.isnan(hi):
        return Verdict.INCONCLUSIVE
    if lo > hi:
        raise InputError("lo", f"the interval's lower end {lo:g} lies above its upper end {hi:g}")
    if side == "upper":
        if hi <= threshold:
            return Verdict.HOLDS
        return Verdict.VIOLATED if lo > threshold else Verdict.INCONCLUSIVE
    if lo >= threshold:
        return Verdict.HOLDS
    return Verdict.VIOLATED if hi < threshold else Verdict.INCONCLUSIVE


def _collapsed_interval_verdict(values: np.ndarray, thresholds: np.ndarray, side: Side) -> Verdict:
    """``combine(interval_verdict(x, x, t, side) ...)`` over all pairs at once (exact values: the interval
    collapsed to the value), for thresholds already checked to be numbers: violated when some x lies beyond its t,
    else inconclusive when some x is NaN, else holds. One comparison of the arrays where the per-pair calls took
    about 12 us each (some checks decide hundreds of thousands of exact pairs)."""
    beyond = values > thresholds if _side(side) == "upper" else values < thresholds
    if beyond.any():
        return Verdict.VIOLATED
    return Verdict.INCONCLUSIVE if np.isnan(values).any() else Verdict.HOLDS


def _scalar(value, param: str) -> float:
    """One measured number (NaN and +-inf allowed: see :func:`interval_verdict`)."""
    if isinstance(value, float):
        return value
    arr = check.measured(value, param)
    if arr.size != 1:
        raise InputError(param, f"expected one number, got {arr.size}")
    return float(arr.ravel()[0])


def combine(verdicts: Iterable[Verdict]) -> Verdict:
    """All parts must hold: any violated -> violated; else any inconclusive -> inconclusive."""
    vs = _verdicts(verdicts)
    if any(v == Verdict.VIOLATED for v in vs):
        return Verdict.VIOLATED
    if any(v == Verdict.INCONCLUSIVE for v in vs):
        return Verdict.INCONCLUSIVE
    return Verdict.HOLDS


def _verdicts(verdicts) -> list[Verdict]:
    if isinstance(verdicts, (str, bytes)) or not isinstance(verdicts, Iterable):
        raise InputError("verdicts", f"expected an iterable of verdicts, got {verdicts!r}")
    return [_verdict(v, "verdicts") for v in verdicts]


def unanimous(verdicts: Iterable[Verdict]) -> Verdict:
    """A statement about one unknown member of a family (e.g. a paper's unstated attack), each member's verdict
    given: holds when it holds for every member, violated when it is violated for every member, else
    inconclusive (the answer depends on which member the paper meant)."""
    vs = _verdicts(verdicts)
    if vs and all(v == Verdict.HOLDS for v in vs):
        return Verdict.HOLDS
    if vs and all(v == Verdict.VIOLATED for v in vs):
        return Verdict.VIOLATED
    return Verdict.INCONCLUSIVE


def controlled(claim: Verdict, control: Verdict) -> Verdict:
    """A claim about an algorithm's property (a filter resists an attack) read beside its control: the same harness
    run with the unprotected baseline (e.g. the plain mean), which must fail. The claim's ``holds`` stands only when
    the control is violated; if the control also holds (or cannot be decided) the attack did no harm even without
    the property, so the run says nothing about it: inconclusive. A claim that does not hold keeps its verdict."""
    claim, control = _verdict(claim, "claim"), _verdict(control, "control")
    if claim != Verdict.HOLDS:
        return claim
    return Verdict.HOLDS if control == Verdict.VIOLATED else Verdict.INCONCLUSIVE


def side_of(bound: Bound) -> tuple[Side, bool]:
    """(side, tight) that a Bound's kind asks of a measurement: upper, lower, or tight (upper and
    matched from below); an ``exact`` Bound is tight."""
    return {"upper": ("upper", False), "lower": ("lower", False), "tight": ("upper", True),
            "exact": ("upper", True)}[_bound_arg(bound).kind]


BOUND_KINDS = ("upper", "lower", "tight", "exact")


def power_law(param: str, exponent: float, kind: str = "upper", name: str | None = None) -> Bound:
    """The Bound ``param**exponent`` of the given kind: a rate claim stated only by its exponent."""
    import sympy as sp

    if not (isinstance(param, str) and param.isidentifier()):
        raise InputError("param", f"expected a symbol name, got {param!r}")
    exponent = check.real(exponent, "exponent")
    kind = check.choice(kind, "kind", BOUND_KINDS)
    if name is not None and not isinstance(name, str):
        raise InputError("name", f"expected a string, got {name!r}")
    x = sp.Symbol(param, positive=True)
    return Bound(name or f"{param}^{exponent:g}", x ** sp.nsimplify(exponent), kind,  # type: ignore[arg-type]
                 statement=f"{'Theta' if kind in ('tight', 'exact') else 'O' if kind == 'upper' else 'Omega'}"
                           f"({param}^{exponent:g})")


def leading_exponent(theory: Bound, param: str, *, first=()) -> float:
    """The exponent of ``param`` in a bound's leading term: lim_{x -> oo} d log g / d log x for g = ``theory``,
    after each variable in ``first`` has been sent to infinity (in that order), every other symbol held fixed.

    A bound such as xi_1 = sqrt((d/m) log N) + (d/m) log^3 N has the grid slope of whichever term dominates there
    (here the log^3 N term, a proof artifact, at every simulable m); its statement is about the regime where the
    leading sqrt term dominates (m >> d log^5 N), and there its exponent in m is -1/2, with log N held fixed (the
    polylog is the slowly varying factor). ``first``: variables whose terms must vanish before ``param``'s term
    leads, e.g. m -> oo (xi_1 -> 0) to read the exponent of ell in xi_1/p + xi_2. The limits are taken of the
    elasticity, not of g, so a factor that diverges in a ``first`` variable does not hide ``param``'s exponent.
    Computed symbolically from the Bound, so a planted factor param**s shifts it by exactly s."""
    import sympy as sp

    _bound_arg(theory, "theory")
    names = [str(s) for s in theory.symbols] if hasattr(theory, "symbols") else []
    for name, what in [(param, "param")] + [(v, "first") for v in first]:
        if not isinstance(name, str) or name not in names:
            raise InputError(what, f"expected one of the symbols {names} of {theory.name!r}, got {name!r}")
    x = theory.symbol(param)
    e = sp.simplify(x * sp.diff(theory.expr, x) / theory.expr)
    for v in first:
        e = sp.limit(e, theory.symbol(v), sp.oo)
    p = sp.limit(e, x, sp.oo)
    if not (p.is_real and p.is_finite) or p.free_symbols:
        raise InputError("theory", f"{theory.name}: no finite leading exponent in {param} (limit {p})")
    return float(p)


def leading_rate(theory: Bound, param: str, *, first=(), kind: str = "tight") -> Bound:
    """The power law param**p with p = :func:`leading_exponent` (its kind ``tight`` by default: the claim that the
    measured worst case attains the leading term's order, matched from both sides by :func:`rate_verdict`)."""
    kind = check.choice(kind, "kind", BOUND_KINDS)
    p = leading_exponent(theory, param, first=first)
    return power_law(param, p, kind, name=f"leading term of {theory.name} in {param}: {param}^{p:g}")


def _on_grid(bound: Bound, param: str, x, values: dict | None) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return np.broadcast_to(np.asarray(bound(**{**(values or {}), param: x}), dtype=float), x.shape)


def rate_verdict(
    x,
    Y,
    theory: Bound,
    *,
    param: str,
    tol: float,
    values: dict | None = None,
    level: float = DEFAULT_LEVEL,
    n_boot: int = DEFAULT_BOOT,
    rng=None,
    deterministic: bool = False,
) -> tuple[Verdict, dict]:
    """Verdict for 'observed = O(g)' where g is the Bound ``theory`` in ``param`` over the grid ``x``.

    The predicted exponent p is the least-squares log-log slope of g over the grid: exactly the
    exponent for a power law, and for a sum such as sigma^2/n + sigma^3/Delta the slope exact data
    following g would show on this grid. Since the least-squares slope is linear, 'observed/g shows
    no upward trend' is the same test as 'slope <= p + tol'. The kind of ``theory`` gives the side
    (upper: slope CI at or below p + tol; lower: at or above p - tol) and tightness (tight and
    exact: both). ``values`` fixes g's other symbols (they may be arrays that move with x).
    ``Y`` is ``[R, P]``; ``deterministic``: one exact curve, whose slope is known exactly.
    """
    side, tight = side_of(_bound_arg(theory, "theory"))
    level, n_boot, rng, deterministic = _resampling(level, n_boot, rng, deterministic)
    tol = check.tolerance(tol, "tol")
    if not (isinstance(param, str) and param.isidentifier()):
        raise InputError("param", f"expected a symbol name, got {param!r}")
    x = _grid(x, "x")
    g = _on_grid(theory, param, x, _values_arg(values))
    if not np.all(np.isfinite(g) & (g > 0)):
        raise InputError("theory", f"{theory.name} must be positive and finite on the grid for a log-log fit")
    p = round(float(np.polyfit(np.log10(x), np.log10(g), 1)[0]), 12)  # a power law's exponent, without fit noise
    f = slope_fit(x, Y, level=level, n_boot=n_boot, rng=_rng(rng), deterministic=deterministic)
    parts = [interval_verdict(f.lo, f.hi, p + tol, "upper")] if side == "upper" else [
        interval_verdict(f.lo, f.hi, p - tol, "lower")
    ]
    if tight:
        parts.append(interval_verdict(f.lo, f.hi, p - tol, "lower"))
    verdict = combine(parts)
    _rate_strength(verdict, f, p, tol, side, tight, param, (theory, x, values))
    ratio = np.atleast_2d(np.asarray(Y, dtype=float)).mean(axis=0) / g
    local = np.gradient(np.log(g), np.log(x))  # g's slope along the grid (other symbols may move with x)
    return verdict, {
        "slope": f.slope,
        "slope_ci": [f.lo, f.hi],
        "predicted_exponent": p,
        "tolerance": tol,
        "tight": tight,
        "side": side,
        "theory": theory.name,
        "bound_local_slope_range": [float(local.min()), float(local.max())],
        "fitted_constant": float(ratio.max() if side == "upper" else ratio.min()),
        "intercept": f.intercept,
        "level": level,
        "n_boot": f.n_boot,
    }


def _rate_strength(verdict: Verdict, f: SlopeFit, p: float, tol: float, side: Side, tight: bool,
                   param: str, grid: tuple | None = None) -> Strength:
    """Margin (fitted minus stated exponent, with its CI) and power (the exponent shift that flips the
    verdict: an upper claim fails once its exponent is lowered past the CI's lower end less tol, a
    lower claim once it is raised past the upper end plus tol; a tight claim is as weak as its weaker
    side) of a rate verdict. A holding rate is tight when matched from both sides, else loose."""
    down, up = p + tol - f.lo, f.hi + tol - p  # shifts that flip the upper side (lower p) and the lower side (raise p)
    evidence = {}
    if grid is not None:  # (theory, x, values): what the grid touched of the Bound (verify/evidence.py)
        flips_up, flips_down = tight or side == "lower", tight or side == "upper"
        evidence = rate_evidence(*grid[:1], param, grid[1], grid[2], up if flips_up and np.isfinite(up) else None,
                                 down if flips_down and np.isfinite(down) else None)
    if tight:
        power, shift = (down, -down) if down >= up else (up, up)
    else:
        power, shift = (down, -down) if side == "upper" else (up, up)
    matched = f.lo >= p - tol and f.hi <= p + tol
    holds = verdict == Verdict.HOLDS
    # headroom: how far the exponent's interval is from leaving the holding side, as the factor
    # (x_max/x_min)**h that the stated bound could change by over the grid before the verdict stops holding
    h_up, h_low = p + tol - f.hi, f.lo - (p - tol)
    h = min(h_up, h_low) if tight else (h_up if side == "upper" else h_low)
    span = float(np.ptp(np.log(np.asarray(grid[1], dtype=float)))) if grid is not None else math.log(10.0)
    slack = math.exp(h * span) if np.isfinite(h) else float("inf")
    finite = bool(np.isfinite(power))
    return record(Strength(
        "rate", verdict.value, "exponent", f.slope - p, [f.lo - p, f.hi - p], power if finite else None,
        (f"the stated exponent {'lowered' if shift < 0 else 'raised'} by more than {power:.3g} in {param} "
         "would be violated") if finite else "no exponent shift would be detected (no interval for the slope)",
        f"fitted minus stated exponent in {param}: {f.slope - p:+.3f} (CI {f.lo - p:+.3f} to {f.hi - p:+.3f})",
        ("tight" if matched else "loose") if holds else None, slack,
        {"exponent_shift": shift / PLANT_FACTOR, "param": param} if finite else {}, evidence))


def _broadcast(*pairs) -> list[np.ndarray]:
    """Arrays (value, name) broadcast together; shapes that do not match name the last parameter."""
    try:
        return list(np.broadcast_arrays(*(np.asarray(a, dtype=float) for a, _ in pairs)))
    except ValueError:
        shapes = ", ".join(f"{n} {np.shape(a)}" for a, n in pairs)
        raise InputError(pairs[-1][1], f"shapes do not match: {shapes}") from None


def _bound_values(bound, values: dict | None, side: Side | None, param: str = "bound",
                  at: str = "values") -> tuple[np.ndarray, Side]:
    """A Bound evaluated at ``values`` with the side its kind asks, or plain numbers with ``side``."""
    side = _side(side, optional=True)
    _values_arg(values, at)
    if isinstance(bound, Bound):
        if side is not None:
            raise InputError("side", f"the kind of {bound.name!r} ({bound.kind}) decides the side; do not pass one")
        b = np.asarray(bound(**(values or {})), dtype=float)
        if np.any(np.isnan(b)):
            raise InputError(at, f"{bound.name} evaluates to NaN at {values}")
        return b, side_of(bound)[0]
    if values is not None:
        raise InputError(at, "only a Bound is evaluated at values")
    b = _theory(bound, param)
    if b.size == 0:
        raise InputError(param, "expected at least one number, got an empty array")
    return b, side or "upper"


def bound_verdict(Y, bound, side: Side | None = None, *, values: dict | None = None, level: float = DEFAULT_LEVEL,
                  n_boot: int = DEFAULT_BOOT, rng=None, deterministic: bool = False,
                  trivial=None) -> tuple[Verdict, dict]:
    """Verdict for 'E[observed] <= bound' (or >=) at every grid point, from replicates ``Y [R, P]``.

    ``bound`` is a :class:`Bound` evaluated at ``values`` (its kind gives the side) or plain
    numbers (``side`` upper by default: a stated tolerance band, a fitted constant).

    *Holds* needs every point's CI (at ``level``) on the right side: requiring all P points keeps
    the false-holds rate at most the per-point rate. *Violated* needs one point's CI at the
    Bonferroni level 1 - (1 - level)/P wholly on the wrong side, so that testing many grid points
    does not manufacture violations (at R = 50 and 16 points exactly on the bound, the uncorrected
    rule said violated 40% of the time). Anything else is inconclusive.

    ``trivial``: a bound that needs no theorem (the starting error, the diameter of the domain); a
    holding bound at or beyond it everywhere is ``vacuous`` whatever its ratio.
    """
    theory = bound
    bound, side = _bound_values(bound, values, side)
    level, n_boot, rng, deterministic = _resampling(level, n_boot, rng, deterministic)
    if trivial is not None:
        _theory(trivial, "trivial")
    Y = check.measured(Y, "Y")
    if Y.ndim == 0:
        Y = Y[None]
    if Y.ndim == 1:
        Y = Y[:, None]
    P = Y.shape[1]
    b = np.broadcast_to(bound, Y.shape[1:])
    mean, lo, hi = bootstrap_ci(Y, level=level, n_boot=n_boot, rng=rng, deterministic=deterministic)
    level_v = 1.0 - (1.0 - level) / P
    if deterministic or Y.shape[0] < 2 or P == 1:
        lo_v, hi_v = lo, hi
    else:
        lo_v, hi_v = _expanded_interval(mean, _bootstrap_means(Y, n_boot, _rng(rng)), level_v, Y.shape[0])
    held = [interval_verdict(l, h, t, side) == Verdict.HOLDS for l, h, t in zip(lo, hi, b)]
    broken = [interval_verdict(l, h, t, side) == Verdict.VIOLATED for l, h, t in zip(lo_v, hi_v, b)]
    v = Verdict.VIOLATED if any(broken) else (Verdict.HOLDS if all(held) else Verdict.INCONCLUSIVE)
    _threshold_strength("bound", v, mean, lo, hi, lo_v, hi_v, b, side, trivial,
                        bound_evidence(theory, values, b, lo_v, hi_v, side))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = mean / b
    return v, {
        "mean": mean,
        "ci_lo": lo,
        "ci_hi": hi,
        "bound": b,
        "side": side,
        "level": level,
        "violation_level": level_v,
        "worst_ratio": float(np.nanmax(ratio) if side == "upper" else np.nanmin(ratio)),
    }


def identity_verdict(observed, expected, rtol: float, atol=0.0) -> tuple[Verdict, dict]:
    """Holds when |observed - expected| <= atol + rtol |expected| everywhere; else violated.
    A non-finite observed value (a numerical failure) is inconclusive, not a violation; the expected value
    (the theory's) must be a number and the tolerances finite and >= 0."""
    o = check.measured(observed, "observed")
    e = _theory(expected, "expected")
    rtol, atol = check.tolerance(rtol, "rtol"), check.tolerance(atol, "atol")
    if e.size == 0:
        raise InputError("expected", "expected at least one number, got an empty array")
    o, e = _broadcast((o, "observed"), (e, "expected"))
    err = np.abs(o - e)
    if not np.all(np.isfinite(o)):
        return Verdict.INCONCLUSIVE, {"max_abs_error": float("nan"), "max_rel_error": float("nan"), "rtol": rtol,
                                      "atol": atol, "reason": "non-finite observed value"}
    ok = bool(np.all(err <= atol + rtol * np.abs(e)))
    # a relative error is defined where the expected value is not 0 (an exact 0 matched exactly counts as 0):
    # an expected 0 met by 1e-16 is an absolute error, not an infinite relative one
    defined = (e != 0) | (err == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(err == 0, 0.0, err / np.abs(np.where(e != 0, e, 1.0)))[defined]
    rel = rel if rel.size else np.array([float("nan")])
    v = Verdict.HOLDS if ok else Verdict.VIOLATED
    if np.max(rtol) > 0 and np.isfinite(rel.max()):
        rt = float(np.max(rtol))
        _tolerance_strength("identity", v, "relative_error", float(rel.max()), rt,
                            f"max relative error {rel.max():.3g} against the tolerance {rt:.3g}")
    else:
        tol = float(np.max(atol))
        _tolerance_strength("identity", v, "absolute_error", float(err.max()), tol,
                            f"max absolute error {err.max():.3g} against the tolerance {tol:.3g}")
    return v, {
        "max_abs_error": float(err.max()),
        # over the points where it is defined (expected value not 0); None where it is defined nowhere
        "max_rel_error": float(rel.max()) if np.isfinite(rel.max()) else None,
        "expected_zero_points": int(np.sum(~defined)),
        "rtol": rtol,
        "atol": atol,
    }


# -- Monte Carlo and exact-number variants of the same rules -----------------------------------
#: The root seeds a conviction must survive: a Monte Carlo atom that may not convict by chance at any
#: seed of a sweep (:func:`mc_identity_verdict`'s ``convict_z``) tests k points at each of this many seeds.
SWEEP_SEEDS = 1000


def family_z(k: int, level: float = THREE_SIGMA_LEVEL, df: int | None = None, seeds: int = 1) -> float:
    """Critical |z| for k simultaneous two-sided tests at family-wise coverage ``level`` (Bonferroni);
    Student's t with ``df`` degrees of freedom when the standard errors come from few batches.
    ``seeds``: the same k tests repeated at that many root seeds (a sweep), all in one family: the
    tail of each test is (1 - level) / (2 k seeds).

    k = 1 at the default level gives 3.0: "within 3 standard errors" for one number; k = 17 gives
    3.78, and k = 17 over SWEEP_SEEDS = 1000 seeds 5.24.
    """
    k = check.integer(k, "k", minimum=1)
    level = check.probability(level, "level")
    df = None if df is None else check.integer(df, "df", minimum=1)
    seeds = check.integer(seeds, "seeds", minimum=1)
    tail = (1.0 - level) / (2.0 * k * seeds)
    return float(stats.norm.isf(tail) if df is None else stats.t.isf(tail, df))


def mc_identity_verdict(estimate, se, expected, z: float, resolution=None, *,
                        convict_z: float | None = None) -> tuple[Verdict, dict]:
    """Monte Carlo identity: holds when every |estimate - expected| <= z * SE (identity rule, atol = z SE).

    A test without power must not say holds: when the half-width z * SE exceeds ``resolution``
    (default |expected|, i.e. the interval cannot even tell the value from 0) the verdict is
    inconclusive unless the estimate is already outside the interval (violated). A NaN or infinite
    standard error (the estimate failed) is inconclusive.

    ``convict_z`` (>= z; default z): the deviation, in standard errors, a *violation* needs. The Monte
    Carlo side of an identity that is exact by another computation (a closed form matched to rounding)
    must not convict it by chance at any seed: pass ``family_z(k, seeds=SWEEP_SEEDS)``, so a deviation
    between z and convict_z standard errors is ``inconclusive`` and the power reported is convict_z's.
    """
    z = check.real(z, "z", minimum=0.0, strict=True)
    convict_z = z if convict_z is None else check.real(convict_z, "convict_z", minimum=z)
    check.measured(estimate, "estimate")
    se = check.measured(se, "se", minimum=0.0)
    _theory(expected, "expected")
    if resolution is not None:
        resolution = check.tolerance(resolution, "resolution", allow_inf=True)
    if not np.all(np.isfinite(se)):
        return Verdict.INCONCLUSIVE, {"z": z, "max_abs_z": float("nan"), "reason": "non-finite standard error"}
    with aside():  # recorded below in standard errors
        v, info = identity_verdict(estimate, expected, rtol=0.0, atol=z * np.asarray(se, dtype=float))
    est, exp_, se = (np.asarray(x, dtype=float) for x in (estimate, expected, se))
    with np.errstate(divide="ignore", invalid="ignore"):
        info.update({"z": z, "max_abs_z": float(np.nanmax(np.abs(est - exp_) / np.maximum(se, np.finfo(float).tiny)))})
    res = np.abs(exp_) if resolution is None else np.asarray(resolution, dtype=float)
    if v == Verdict.HOLDS and np.any(z * se > res):
        v = Verdict.INCONCLUSIVE
        info["reason"] = "z * SE exceeds the resolution: the Monte Carlo test has no power"
    info["convict_z"] = convict_z
    if v == Verdict.VIOLATED and not np.any(np.abs(est - exp_) > convict_z * se):
        v = Verdict.INCONCLUSIVE
        info["reason"] = (f"a deviation of {info['max_abs_z']:.3g} standard errors: beyond z = {z:.3g}, within the "
                          f"{convict_z:.3g} a violation needs")
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.broadcast_to(convict_z * se, np.broadcast(est, exp_, se).shape)
        rel = float(np.nanmax(np.where(exp_ != 0, half / np.abs(np.where(exp_ != 0, exp_, 1.0)), half)))
    record(Strength("monte_carlo_identity", v.value, "z", info["max_abs_z"], None, rel,
                    f"a relative change of the expected value beyond {rel:.3g} (z = {convict_z:.3g} standard errors) "
                    "would be detected", f"max |estimate - expected| = {info['max_abs_z']:.3g} standard errors "
                    f"against {z:.3g}", "tight" if v == Verdict.HOLDS else None,
                    z / info["max_abs_z"] if info["max_abs_z"] > 0 else float("inf")))
    return v, info


def mc_bound_verdict(estimate, se, bound, z: float, side: Side | None = None, *,
                     values: dict | None = None) -> tuple[Verdict, dict]:
    """Monte Carlo bound: 'E[X] <= bound' (or >=) at each point from estimates with standard errors;
    the interval rule on estimate +- z SE (choose z with :func:`family_z` for several points)."""
    b, side = _bound_values(bound, values, side)
    z = check.real(z, "z", minimum=0.0, strict=True)
    est, se = check.measured(estimate, "estimate"), check.measured(se, "se", minimum=0.0)
    est, se, b = _broadcast((est, "estimate"), (se, "se"), (b, "bound"))
    verdict = combine(interval_verdict(e - z * s, e + z * s, t, side) for e, s, t in zip(est.ravel(), se.ravel(), b.ravel()))
    _threshold_strength("monte_carlo_bound", verdict, est, est - z * se, est + z * se, est - z * se, est + z * se, b, side,
                        evidence=bound_evidence(bound, values, b, est - z * se, est + z * se, side))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # an exact point has SE 0: |z| = inf
        zs = (est - b) / np.maximum(se, np.finfo(float).tiny)
    return verdict, {"z": z, "side": side, "worst_z": float(np.nanmax(zs) if side == "upper" else np.nanmin(zs)),
                     "count": int(est.size)}


def deterministic_verdict(values, bounds, side: Side | None = None, rtol: float = 0.0, *,
                          at: dict | None = None) -> tuple[Verdict, dict]:
    """'value <= bound' (side upper) or 'value >= bound' (lower) for exact, non-random numbers: the
    interval rule with the interval collapsed to the value. ``rtol`` widens the bound by rtol |bound|
    in the claim's favour (rounding of exact arithmetic). ``bounds`` may be a Bound evaluated ``at``."""
    b_raw, side = _bound_values(bounds, at, side, "bounds", "at")
    rtol = check.tolerance(rtol, "rtol")
    v, raw = _broadcast((check.measured(values, "values"), "values"), (b_raw, "bounds"))
    def widen(r):  # an infinite bound stays itself (inf * rtol would add NaN or the opposite infinity)
        with np.errstate(invalid="ignore"):
            return np.where(np.isinf(r), r, r + (rtol if side == "upper" else -rtol) * np.abs(r))

    b = widen(raw)
    verdict = _collapsed_interval_verdict(v, b, side)
    _threshold_strength("exact_bound", verdict, v, v, v, v, v, b, side,
                        evidence=bound_evidence(bounds, at, b, v, v, side, widen))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(raw != 0, v / np.where(raw != 0, raw, 1.0), np.nan)
    worst = (float(np.nanmax(ratio) if side == "upper" else np.nanmin(ratio))) if np.any(np.isfinite(ratio)) else None
    wrong = v > b if side == "upper" else v < b
    return verdict, {"worst_ratio": worst, "count": int(v.size), "violations": int(np.sum(wrong)), "rtol": rtol,
                     "side": side}


def exact_zero_verdict(value: float, atol: float = 0.0) -> tuple[Verdict, dict]:
    """'value = 0' for an exact quantity (a count of mismatches, a rounding residual): holds when |value| <= atol."""
    x = abs(_scalar(value, "value"))
    atol = check.tolerance(atol, "atol")
    v = interval_verdict(x, x, atol, "upper")
    _tolerance_strength("exact_zero", v, "absolute_error", x, atol, f"|value| = {x:.3g} against {atol:.3g}")
    return v, {"value": float(value), "atol": atol}



def counterexample_verdict(failure_reproduced: bool | Verdict, repaired_succeeds: bool | Verdict) -> Verdict:
    """Reproduced when the failing algorithm fails *and* the repaired one succeeds on the same instance.

    Each part is a decided fact (bool) or the Verdict of a statistical test of it (e.g. :func:`proportion_verdict`):
    reproduced when both hold, not reproduced when either is violated (decided against), inconclusive when neither
    is decided against but one is undecided (a success rate whose interval straddles its threshold says nothing)."""
    parts = [_part(p, name) for p, name in ((failure_reproduced, "failure_reproduced"),
                                            (repaired_succeeds, "repaired_succeeds"))]
    if all(p == Verdict.HOLDS for p in parts):
        return Verdict.REPRODUCED
    if any(p == Verdict.VIOLATED for p in parts):
        return Verdict.NOT_REPRODUCED
    return Verdict.INCONCLUSIVE


def _part(value, param: str) -> Verdict:
    """A part of a counterexample: a bool, or the holds/violated/inconclusive Verdict of a test of it."""
    if isinstance(value, Verdict):
        if value not in (Verdict.HOLDS, Verdict.VIOLATED, Verdict.INCONCLUSIVE):
            raise InputError(param, f"expected a bool or a holds/violated/inconclusive Verdict, got {value.value!r}")
        return value
    return Verdict.HOLDS if check.boolean(value, param) else Verdict.VIOLATED


def apply_minimum_replicates(verdict: Verdict, used: int, minimum: int) -> Verdict:
    """Fewer replicates than a check needs: whatever the numbers say, the verdict is inconclusive."""
    verdict = _verdict(verdict)
    used, minimum = check.integer(used, "used", minimum=0), check.integer(minimum, "minimum", minimum=0)
    return Verdict.INCONCLUSIVE if used < minimum else verdict


def apply_assumptions(verdict: Verdict, assumptions: Iterable[Assumption]) -> Verdict:
    """A run whose assumptions did not hold says nothing about the claim: inconclusive."""
    verdict = _verdict(verdict)
    items = list(assumptions) if isinstance(assumptions, Iterable) and not isinstance(assumptions, str) else None
    if items is None or not all(isinstance(a, Assumption) for a in items):
        raise InputError("assumptions", f"expected a list of Assumption, got {assumptions!r}")
    return Verdict.INCONCLUSIVE if any(not a.held for a in items) else verdict


def geometric_rate_verdict(steps, errors, limit, side: Side | None = None, *, values: dict | None = None,
                           window: tuple[float, float] | None = None, tol: float = 0.0, level: float = DEFAULT_LEVEL,
                           n_boot: int = DEFAULT_BOOT, rng=None, deterministic: bool = False) -> tuple[Verdict, dict]:
    """'errors ~ C r^k with r <= limit' (upper; lower: r >= limit), from a semilog fit of the replicate
    mean ``errors [R, L]`` against the steps, with a bootstrap CI of r (``deterministic``: one exact curve).

    ``limit`` is the stated contraction per step: a :class:`Bound` evaluated at ``values`` (its kind gives
    the side; ``tight`` and ``exact`` must also be matched from below: r >= limit - tol, so a rate loose by
    a square, r = limit^2, is violated) or a plain number with ``side`` (upper by default). ``window``
    = (first, last) step of the fit: leave out the transient before it and the floor after it (a run that
    reached machine precision contracts no more, which would make any rate look slower)."""
    tight = isinstance(limit, Bound) and side_of(limit)[1]
    stated = limit
    limit, side = _bound_values(limit, values, side, "limit")
    limit = check.real(float(limit) if limit.size == 1 else limit, "limit", minimum=0.0, strict=True)
    level, n_boot, rng, deterministic = _resampling(level, n_boot, rng, deterministic)
    tol = check.tolerance(tol, "tol")
    steps = check.array(steps, "steps", allow_inf=False).ravel()
    errors = np.atleast_2d(check.measured(errors, "errors"))
    if steps.size < 2:
        raise InputError("steps", f"a rate needs at least 2 steps, got {steps.size}")
    if errors.ndim != 2 or errors.shape[1] != steps.size:
        raise InputError("errors", f"expected errors [R, {steps.size}], got shape {errors.shape}")
    if window is not None:
        w = check.array(window, "window", allow_inf=False)
        if w.shape != (2,) or w[0] > w[1]:
            raise InputError("window", f"expected (first, last) with first <= last, got {window!r}")
        keep = (steps >= w[0]) & (steps <= w[1])
        if keep.sum() < 2:
            raise InputError("window", f"{window} keeps {int(keep.sum())} steps; a rate needs at least 2")
        steps, errors = steps[keep], errors[:, keep]
    f = slope_fit(steps, errors, log_x=False, level=level, n_boot=n_boot, rng=rng, deterministic=deterministic)
    lo, hi = 10 ** f.lo, 10 ** f.hi
    parts = [interval_verdict(lo, hi, limit, side)]
    if tight:
        parts.append(interval_verdict(lo, hi, limit - tol, "lower"))
    v = combine(parts)
    _threshold_strength("geometric_rate", v, 10 ** f.slope, lo, hi, lo, hi, limit, side,
                        evidence=bound_evidence(stated, values, limit, lo, hi, side))
    return v, {"rate": 10 ** f.slope, "rate_ci": [lo, hi], "slope_log10": f.slope, "limit": limit, "side": side,
               "tight": tight, "tolerance": tol, "window": None if window is None else [float(w) for w in window],
               "level": level}


def proportion_verdict(k: int, n: int, threshold: float, side: Side = "lower",
                       level: float = DEFAULT_LEVEL) -> tuple[Verdict, dict]:
    """'success rate >= threshold' (side lower; upper: <=) from k successes in n independent trials,
    with the exact Clopper-Pearson interval. Any finite threshold is allowed: one outside [0, 1] is what a planted
    wrong claim at the reported power looks like (a rate no run can reach, or one every run beats), and it is
    decided like any other."""
    threshold = check.real(threshold, "threshold")
    side = _side(side)
    p, lo, hi = proportion_ci(k, n, level)
    v = interval_verdict(lo, hi, threshold, side)
    _threshold_strength("proportion", v, p, lo, hi, lo, hi, threshold, side)
    return v, {"rate": p, "ci": [lo, hi], "k": int(k), "n": int(n),
                                                       "threshold": threshold, "side": side, "level": level}


def bracket_verdict(lower, upper, bound, side: Side = "upper") -> tuple[Verdict, dict]:
    """'q <= bound' (side upper; lower: 'q >= bound') for quantities known only to lie in certified
    brackets [lower, upper]: the two values of a semidefinite program (primal: a feasible instance,
    dual: a certificate), interval arithmetic. The interval rule with the bracket as the interval, point by
    point: holds when every bracket lies on the claim's side, violated when one lies wholly on the wrong
    side, inconclusive otherwise (a bracket that straddles the bound: the solver cannot tell)."""
    side = _side(side)
    lo, hi, b = _broadcast((check.measured(lower, "lower"), "lower"), (check.measured(upper, "upper"), "upper"),
                           (check.measured(bound, "bound"), "bound"))
    if np.any(np.isnan(b)):
        raise InputError("bound", "expected numbers, got NaN")
    if np.any(lo > hi):
        raise InputError("lower", "every lower end must be <= its upper end")
    parts = [interval_verdict(l, h, t, side) for l, h, t in zip(lo.ravel(), hi.ravel(), b.ravel())]
    _threshold_strength("certified_bracket", combine(parts), hi if side == "upper" else lo, lo, hi, lo, hi, b, side)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b != 0, (hi if side == "upper" else lo) / np.where(b != 0, b, 1.0), np.nan)
    return combine(parts), {"side": side, "count": int(lo.size),
                            "violations": int(sum(v == Verdict.VIOLATED for v in parts)),
                            "undecided": int(sum(v == Verdict.INCONCLUSIVE for v in parts)),
                            "worst_ratio": float(np.nanmax(ratio) if side == "upper" else np.nanmin(ratio))
                            if np.any(np.isfinite(ratio)) else None}


# -- two-sample and trend rules --------------------------------------------------------------------
def ratio_of_means_verdict(numerator, denominator, threshold: float, side: Side = "upper", *,
                           level: float = DEFAULT_LEVEL, n_boot: int = DEFAULT_BOOT, rng=None) -> tuple[Verdict, dict]:
    """'E[X] / E[Y] <= threshold' (side upper; lower: >=) from independent replicates X [R1] and Y [R2]: the
    interval rule on the expanded percentile-bootstrap CI of mean(X)/mean(Y), each sample resampled on its own
    (expansion factor of the smaller sample). Fewer than two replicates on either side: inconclusive."""
    x, y = check.measured(numerator, "numerator").ravel(), check.measured(denominator, "denominator").ravel()
    threshold, side = check.real(threshold, "threshold"), _side(side)
    level, n_boot, rng, _ = _resampling(level, n_boot, rng, False)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(x.mean() / y.mean())
    R = min(x.size, y.size)
    if R < 2:
        return Verdict.INCONCLUSIVE, {"ratio": ratio, "ratio_ci": [-np.inf, np.inf], "threshold": threshold, "side": side}
    g = _rng(rng)
    boot = _bootstrap_means(x[:, None], n_boot, g)[:, 0] / _bootstrap_means(y[:, None], n_boot, g)[:, 0]
    lo, hi = _expanded_interval(ratio, boot, level, R)
    v = interval_verdict(float(lo), float(hi), threshold, side)
    _threshold_strength("ratio_of_means", v, ratio, lo, hi, lo, hi, threshold, side)
    return v, {
        "ratio": ratio, "ratio_ci": [float(lo), float(hi)], "threshold": threshold, "side": side, "level": level}


def paired_comparison_verdict(a, b, *, alpha: float = 0.05) -> tuple[Verdict, dict]:
    """'a is smaller than b' (e.g. one method's error against another's) from paired replicates a [R], b [R]:
    holds when the one-sided Wilcoxon signed-rank test of a - b < 0 rejects at ``alpha``, violated when the
    opposite one-sided test (a - b > 0) rejects, else inconclusive (no detectable difference, or all pairs tied)."""
    a, b = check.measured(a, "a").ravel(), check.measured(b, "b").ravel()
    alpha = check.probability(alpha, "alpha")
    for arr, name in ((a, "a"), (b, "b")):
        if arr.size == 0:
            raise InputError(name, "expected at least one replicate, got none")
    if a.shape != b.shape:
        raise InputError("b", f"a and b must pair up, got {a.shape} and {b.shape}")
    diff = a - b
    info = {"median_difference": float(np.median(diff)), "mean_a": float(a.mean()), "mean_b": float(b.mean()),
            "pairs": int(a.size), "alpha": alpha}
    if a.size < 2 or not np.all(np.isfinite(diff)) or not np.any(diff != 0):  # too few, a failed run, all tied
        return Verdict.INCONCLUSIVE, {**info, "p_less": 1.0, "p_greater": 1.0}
    p_less, p_greater = one_sided_pvalues(diff)
    v = Verdict.HOLDS if p_less < alpha else (Verdict.VIOLATED if p_greater < alpha else Verdict.INCONCLUSIVE)
    record(Strength("paired_comparison", v.value, "p_value", p_less, None, alpha,
                    f"a difference significant at level {alpha:g} (one-sided Wilcoxon) is detected",
                    f"one-sided p-value {p_less:.3g} (opposite side {p_greater:.3g})", None,
                    alpha / p_less if p_less > 0 else float("inf")))
    return v, {**info, "p_less": p_less, "p_greater": p_greater}


def rank_trend_verdict(x, Y, min_rho: float, *, level: float = DEFAULT_LEVEL, n_boot: int = DEFAULT_BOOT,
                       rng=None) -> tuple[Verdict, dict]:
    """'E[Y] increases with x' read as Spearman's rho between x [P] and the replicate mean of Y [R, P] being at least
    ``min_rho``: the interval rule (lower side) on a percentile-bootstrap CI of rho over resampled replicates."""
    x = _grid(x, "x", positive=False)
    Y = np.atleast_2d(check.measured(Y, "Y"))
    min_rho = check.real(min_rho, "min_rho", minimum=-1.0, maximum=1.0)
    level, n_boot, rng, _ = _resampling(level, n_boot, rng, False)
    if Y.ndim != 2 or Y.shape[1] != x.size or x.size < 2:
        raise InputError("Y", f"need Y [R, P] with P = len(x) >= 2, got {Y.shape} and {x.size}")
    rho = float(stats.spearmanr(x, Y.mean(0)).statistic)
    if Y.shape[0] < 2:
        return Verdict.INCONCLUSIVE, {"rho": rho, "rho_ci": [-1.0, 1.0], "min_rho": min_rho}
    rm = stats.rankdata(_bootstrap_means(Y, n_boot, _rng(rng)), axis=1)  # Spearman = Pearson on ranks
    rx = stats.rankdata(x)
    rm, rx = rm - rm.mean(1, keepdims=True), rx - rx.mean()
    den = np.sqrt((rm**2).sum(1) * (rx**2).sum())
    boot = np.where(den > 0, rm @ rx / np.where(den > 0, den, 1.0), 0.0)
    lo, hi = _quantiles(boot, level)
    v = interval_verdict(float(lo), float(hi), min_rho, "lower")
    _threshold_strength("rank_trend", v, rho, lo, hi, lo, hi, min_rho, "lower")
    return v, {
        "rho": rho, "rho_ci": [float(lo), float(hi)], "min_rho": min_rho, "level": level}


# -- su2022: constants fitted once on a calibration part of the grid, then held fixed --------------
def held_out_constant_verdict(cal_lo, cal_hi, cal_bound, test_lo, test_hi, test_bound, side: Side = "upper",
                              margin: float = 1.0) -> tuple[Verdict, dict]:
    """A bound with an unspecified constant, 'q <= C g' (side upper) or 'q >= C g' (lower), checked the
    only way such a claim can fail: fit C once on calibration points, hold it fixed on the others.

    ``cal_lo, cal_hi`` and ``test_lo, test_hi`` are confidence intervals of q (collapsed to the value
    for exact numbers), ``cal_bound``, ``test_bound`` the bound's shape g at those points (positive).
    Upper side: C = margin * max over calibration points of hi / g (the smallest constant the
    calibration data allow, widened by ``margin``); the claim *holds* when every held-out hi <= C g,
    is *violated* when some held-out lo > C g (the shape of g fails to follow q), else inconclusive.
    The lower side mirrors it (C = min lo / g / margin). A non-positive or non-finite g is bad input.
    """
    cl, ch, cg, tl, th, tg = (np.atleast_1d(check.measured(v, n)).ravel() for v, n in (
        (cal_lo, "cal_lo"), (cal_hi, "cal_hi"), (cal_bound, "cal_bound"), (test_lo, "test_lo"), (test_hi, "test_hi"),
        (test_bound, "test_bound")))
    for g, name in ((cg, "cal_bound"), (tg, "test_bound")):
        if not (np.all(np.isfinite(g)) and np.all(g > 0)):
            raise InputError(name, "the bound's shape must be positive and finite")
    if cl.size != cg.size or ch.size != cg.size or tl.size != tg.size or th.size != tg.size:
        raise InputError("test_bound", "each interval end needs one bound value")
    side = _side(side)
    margin = check.real(margin, "margin", minimum=1.0)
    if side == "upper":
        C = float(np.max(ch / cg)) * margin
        verdict = combine(interval_verdict(lo, hi, C * g, "upper") for lo, hi, g in zip(tl, th, tg))
        worst = float(np.max(th / tg) / C) if np.isfinite(C) and C > 0 else float("nan")
    elif side == "lower":
        C = float(np.min(cl / cg)) / margin
        verdict = combine(interval_verdict(lo, hi, C * g, "lower") for lo, hi, g in zip(tl, th, tg))
        worst = float(np.min(tl / tg) / C) if np.isfinite(C) and C > 0 else float("nan")
    if not np.isfinite(C) or C <= 0:
        verdict = Verdict.INCONCLUSIVE  # the calibration could not pin a usable constant down
    else:
        _threshold_strength("held_out_constant", verdict, (tl + th) / 2, tl, th, tl, th, C * tg, side)
    return verdict, {"constant": C, "margin": margin, "side": side, "worst_test_ratio_to_constant": worst,
                     "calibration_points": int(cg.size), "held_out_points": int(tg.size)}


def median_verdict(samples, threshold: float, side: Side = "upper", level: float = DEFAULT_LEVEL) -> tuple[Verdict, dict]:
    """'median <= threshold' (side upper; lower: >=) from i.i.d. replicates, with the distribution-free interval
    [x_(k), x_(n+1-k)] of the median (binomial order statistics, coverage >= ``level``, k as large as that
    allows). A few outlying replicates move a mean's bootstrap interval but not this one; with too few
    replicates for any such interval (n <= 5 at 95%) the verdict is inconclusive."""
    x = np.sort(check.measured(samples, "samples").ravel())
    threshold, side, level = check.real(threshold, "threshold"), _side(side), check.probability(
        level, "level")
    n = x.size
    if np.any(np.isnan(x)):
        return Verdict.INCONCLUSIVE, {"median": float("nan"), "ci": [-np.inf, np.inf], "k": 0, "n": int(n), "side": side}
    alpha = 1.0 - level
    ks = [k for k in range(1, n // 2 + 1) if 2.0 * stats.binom.cdf(k - 1, n, 0.5) <= alpha]
    lo, hi = (x[ks[-1] - 1], x[n - ks[-1]]) if ks else (-np.inf, np.inf)
    coverage = 1.0 - 2.0 * stats.binom.cdf(ks[-1] - 1, n, 0.5) if ks else 1.0
    v = interval_verdict(lo, hi, threshold, side)
    _threshold_strength("median", v, np.median(x), lo, hi, lo, hi, threshold, side)
    return v, {"median": float(np.median(x)), "ci": [float(lo), float(hi)],
                                                       "k": ks[-1] if ks else 0, "coverage": float(coverage), "n": int(n),
                                                       "threshold": threshold, "side": side}
