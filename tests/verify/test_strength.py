"""Margin, power and tightness of the verdict atoms (verify/strength.py, verify/fit.py): the power an
atom reports is the power it shows (a theory moved just past it flips the verdict), tightness follows
the thresholds in fit.py, and the registry keeps the weakest atom."""
import numpy as np
import pytest

from verify import fit
from verify.fit import PLANT_FACTOR, bound_verdict, deterministic_verdict, power_law, rate_verdict, tightness_of
from verify.result import Verdict
from verify.strength import aside, recording, weakest


def _bound_strength(Y, bound, **kw):
    with recording() as atoms:
        v, _ = bound_verdict(Y, bound, rng=0, **kw)
    return v, atoms[-1]


@pytest.mark.parametrize("side", ["upper", "lower"])
@pytest.mark.parametrize("scale", [1.5, 3.0, 40.0, 1e4])
def test_bound_power_is_shown_by_a_plant_just_past_it(side, scale):
    rng = np.random.default_rng(1)
    Y = rng.lognormal(0.0, 0.3, size=(40, 5)) + 1.0  # mean about 2.1
    b = np.full(5, 2.1 * (scale if side == "upper" else 1 / scale))
    v, s = _bound_strength(Y, b, side=side)
    assert v == Verdict.HOLDS and s.measure == "ratio"
    planted, _ = bound_verdict(Y, b * s.plant["scale"], side=side, rng=0)
    assert planted == Verdict.VIOLATED
    # just short of the power the verdict must not be violated
    short = s.power * (1.02 if side == "upper" else 0.98)
    assert bound_verdict(Y, b * short, side=side, rng=0)[0] != Verdict.VIOLATED
    assert s.tightness == tightness_of(scale)


def test_tightness_thresholds_live_in_fit():
    assert tightness_of(1.0) == tightness_of(fit.TIGHT_WITHIN) == "tight"
    assert tightness_of(fit.TIGHT_WITHIN * 1.01) == "loose" == tightness_of(fit.VACUOUS_BEYOND)
    assert tightness_of(fit.VACUOUS_BEYOND * 1.01) == "vacuous" == tightness_of(float("inf"))


def test_a_bound_beyond_the_trivial_one_is_vacuous_whatever_its_ratio():
    Y = np.full((10, 3), 1.0) + np.random.default_rng(0).normal(0, 1e-3, (10, 3))
    _, s = _bound_strength(Y, np.full(3, 1.5))
    assert s.tightness == "tight"
    _, s = _bound_strength(Y, np.full(3, 1.5), trivial=1.2)
    assert s.tightness == "vacuous"


@pytest.mark.parametrize("kind,true_slope", [("upper", -1.0), ("upper", -1.6), ("lower", -1.0), ("tight", -1.0)])
def test_rate_power_is_an_exponent_shift_that_flips_the_verdict(kind, true_slope):
    rng = np.random.default_rng(2)
    x = np.array([4.0, 8, 16, 32, 64, 128])
    Y = x[None, :] ** true_slope * rng.lognormal(0, 0.05, (30, x.size))
    theory = power_law("n", -1.0, kind)
    with recording() as atoms:
        v, info = rate_verdict(x, Y, theory, param="n", tol=0.1, rng=0)
    s = atoms[-1]
    assert v == Verdict.HOLDS and s.measure == "exponent"
    assert s.tightness == ("loose" if true_slope < -1.5 else "tight")
    shifted = power_law("n", -1.0 + s.plant["exponent_shift"], kind)
    assert rate_verdict(x, Y, shifted, param="n", tol=0.1, rng=0)[0] == Verdict.VIOLATED
    assert abs(s.plant["exponent_shift"]) == pytest.approx(s.power / PLANT_FACTOR)


def test_identity_atoms_report_their_tolerance_as_power():
    with recording() as atoms:
        v, _ = fit.identity_verdict([1.0, 2.0], [1.0, 2.0 + 1e-9], rtol=1e-6)
        fit.exact_zero_verdict(0.0, atol=1e-12)
    assert v == Verdict.HOLDS
    assert [a.power for a in atoms] == [1e-6, 1e-12] and {a.tightness for a in atoms} == {"tight"}


def test_weakest_is_the_binding_atom_closest_to_failing_among_atoms_that_reach_the_verdict():
    with recording() as atoms:
        deterministic_verdict([1.0], [1.5])  # tight
        deterministic_verdict([1.0], [500.0])  # vacuous
        deterministic_verdict([1.0], [0.5])  # violated: not part of a holding claim
        with aside():
            deterministic_verdict([1.0], [1e9])  # a control: not recorded
    assert len(atoms) == 3
    assert weakest(atoms, "holds").tightness == "tight"  # the closest to failing binds, not the loosest
    assert weakest(atoms, "violated").margin == 2.0
    assert weakest([], "holds") is None


def test_the_registry_fills_margin_power_and_tightness():
    from examples.check_template import c01_sample_mean
    from verify.engine import Context

    r = c01_sample_mean(Context())
    assert r.verdict == Verdict.HOLDS
    assert r.tightness in ("tight", "loose", "vacuous")
    assert r.margin["measure"] in ("ratio", "exponent") and r.margin["text"]
    assert r.power["value"] is not None and r.power["plant"]
    back = type(r).from_dict(r.to_dict(), r.arrays)
    assert (back.margin, back.power, back.tightness) == (r.margin, r.power, r.tightness)


def test_an_inconclusive_verdict_names_its_undecided_atoms():
    from verify.strength import undecided

    with recording() as atoms:
        deterministic_verdict([1.0], [1.5])  # holds
        bound_verdict(np.array([[0.9], [1.1], [0.95], [1.05]]), 1.0, rng=0, n_boot=200)  # straddles 1: undecided
    assert [a.verdict for a in atoms] == ["holds", "inconclusive"]
    text = undecided(atoms, "inconclusive")
    assert text.startswith("Undecided: 1 of 2 verdict atoms: bound (worst observed/bound")
    assert undecided(atoms, "holds") == ""
    assert "the check set the verdict" in undecided(atoms[:1], "inconclusive")


def test_the_registry_names_the_undecided_part_of_an_inconclusive_result():
    from examples.check_template import c01_sample_mean
    from verify.engine import Context

    r = c01_sample_mean(Context(replicates=5))  # fewer than the check's minimum: inconclusive whatever the atoms say
    assert r.verdict == Verdict.INCONCLUSIVE
    assert "[Undecided: " in r.explanation
