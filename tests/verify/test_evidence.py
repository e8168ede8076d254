"""What a verdict atom's data touched of its Bound (verify/evidence.py) and the binding atom (verify/strength.py).

A symbol reported ``varied`` with an exponent power must flip the verdict when the bound is planted with
``x**s`` beyond that power and must not flip within it; a ``fixed`` symbol is never reported varied, and a plant in
it is invisible; a term reported exercised flips the verdict when it is removed, one reported not exercised does not.
"""
import numpy as np
import pytest
import sympy as sp

from analytic.bounds import Bound
from verify import fit
from verify.registry import fill_strength
from verify.result import Claim, Result
from verify.strength import recording

n, x, sigma = sp.symbols("n x sigma", positive=True)
BOUND = Bound("test bound", sigma**2 / n + sigma**3 / x, "upper", source="test, Theorem 9")
NS = np.array([0.25, 0.5, 2.0, 8.0, 32.0])


def _measured(scale=0.6, xs=1.0):
    """Exact data at ``scale`` times the bound (sigma = 1, x = xs)."""
    return scale * (1.0 / NS + 1.0 / xs)


def _exact(bound, data, values):
    with recording() as atoms:
        v, _ = fit.deterministic_verdict(data, bound, at=values)
    return v, atoms[-1]


def test_a_varied_symbol_reports_the_exponent_plant_it_catches_and_is_right_both_ways():
    values = {"n": NS, "x": 1.0, "sigma": 1.0}
    v, atom = _exact(BOUND, _measured(), values)
    assert v.value == "holds"
    rec = atom.evidence["symbols"]["n"]
    assert rec["status"] == "varied" and rec["range"] == [0.25, 32.0]
    up, down = rec["power"]["up"], rec["power"]["down"]
    assert up is not None and down is not None
    for s, flips in ((up * 1.02, True), (up * 0.98, False), (-down * 1.02, True), (-down * 0.98, False)):
        planted = Bound("planted", BOUND.expr * n**sp.nsimplify(round(s, 6)), "upper")
        pv, _ = _exact(planted, _measured(), values)
        assert (pv.value == "violated") is flips, (s, pv)


def test_a_fixed_symbol_is_never_reported_varied_and_a_plant_in_it_is_invisible_at_one():
    values = {"n": NS, "x": 1.0, "sigma": 1.0}
    _, atom = _exact(BOUND, _measured(), values)
    assert atom.evidence["symbols"]["x"] == {"status": "fixed", "value": 1.0, "power": {"up": None, "down": None}}
    assert atom.evidence["symbols"]["sigma"]["status"] == "fixed"
    planted = Bound("planted", sigma**2 / n + sigma**3 / x**sp.Rational(3, 2), "upper")  # x^1.5 in place of x
    pv, patom = _exact(planted, _measured(), values)
    assert pv.value == "holds" and patom.evidence["symbols"]["x"]["status"] == "fixed"


def test_terms_exercised_are_the_ones_whose_removal_flips_the_verdict():
    values = {"n": NS, "x": 1.0, "sigma": 1.0}
    data = 0.6 * (1.0 / NS) + 0.95  # the sigma^3/x term carries most of the level, sigma^2/n the small-n points
    v, atom = _exact(BOUND, data, values)
    assert v.value == "holds"
    terms = {t["term"]: t["exercised"] for t in atom.evidence["terms"]}
    assert terms == {"sigma**2/n": True, "sigma**3/x": True}
    for t in sp.Add.make_args(BOUND.expr):
        pv, _ = _exact(Bound("without", BOUND.expr - t, "upper"), data, values)
        assert pv.value == "violated"
    # a run where one term never matters: that term is not exercised, and removing it still holds
    data2 = 0.5 * (1.0 / NS)
    v2, atom2 = _exact(BOUND, data2, values)
    terms2 = {t["term"]: t["exercised"] for t in atom2.evidence["terms"]}
    assert terms2 == {"sigma**2/n": True, "sigma**3/x": False}
    pv, _ = _exact(Bound("without", sigma**2 / n, "upper"), data2, values)
    assert pv.value == "holds"


def test_bootstrap_bound_and_rate_atoms_record_their_evidence():
    rng = np.random.default_rng(3)
    Y = _measured()[None, :] * rng.uniform(0.95, 1.05, size=(30, NS.size))
    with recording() as atoms:
        fit.bound_verdict(Y, BOUND, values={"n": NS, "x": 1.0, "sigma": 1.0}, rng=np.random.default_rng(0))
        fit.rate_verdict(NS, Y, BOUND, param="n", tol=0.1, values={"x": 1.0, "sigma": 1.0},
                         rng=np.random.default_rng(0))
    bound_atom, rate_atom = atoms
    assert bound_atom.evidence["symbols"]["n"]["status"] == "varied"
    assert rate_atom.evidence["param"] == "n" and rate_atom.evidence["symbols"]["n"]["status"] == "varied"
    assert rate_atom.evidence["symbols"]["x"]["status"] == "fixed"
    # the rate atom's power in its param is the exponent shift it reports
    assert rate_atom.evidence["symbols"]["n"]["power"]["down"] == pytest.approx(rate_atom.power, rel=1e-3)


def test_plain_numbers_carry_no_bound_evidence_only_their_side():
    with recording() as atoms:
        fit.deterministic_verdict([0.5, 0.6], [1.0, 1.0])
    assert atoms[-1].evidence == {"side": "upper"}


def _result():
    return Result(id="test2099.c01", paper="test2099", title="t", claim=Claim("c", source="s"), kind="bound",
                  verdict="holds", expected="holds")


def test_the_binding_atom_is_the_one_closest_to_failing_and_every_atom_stays_listed():
    with recording() as atoms:
        fit.deterministic_verdict([0.10], [1.0])   # slack 10: loose
        fit.deterministic_verdict([0.99], [1.0])   # slack 1.0101: closest to failing
        fit.deterministic_verdict([0.001], [1.0])  # slack 1000: vacuous
    res = _result()
    fill_strength(res, atoms)
    assert res.margin["value"] == pytest.approx(0.99)
    assert res.tightness == "tight"
    assert len(res.atoms) == 3 and res.atoms[0]["margin"] == pytest.approx(0.99)
    assert sorted(a["margin"] for a in res.atoms) == pytest.approx([0.001, 0.10, 0.99])


def test_an_identity_atom_binds_by_its_error_against_its_tolerance():
    with recording() as atoms:
        fit.identity_verdict([1.0], [1.0 + 1e-9], rtol=1e-8)  # error 1e-9 of 1e-8: slack 10
        fit.deterministic_verdict([0.5], [1.0])              # slack 2: binds
    res = _result()
    fill_strength(res, atoms)
    assert res.margin["value"] == pytest.approx(0.5)


@pytest.mark.parametrize("check_id", ["werner2023.c10", "buttaci2024.x05"])
def test_a_real_checks_varied_symbols_flip_when_planted_past_their_power(check_id):
    """A plant ``bound * x**s`` in a symbol the run varied, just past the power its atoms report, is violated."""
    from verify.engine import Context
    from verify.registry import get
    from verify.testing import run_quick, symbol_plants

    spec = get(check_id)
    res = run_quick(spec)
    plants = symbol_plants(spec, res)
    assert plants, f"{check_id}: no varied symbol with a power"
    for name, s, overrides in plants[:2]:
        planted = spec(Context(), **overrides)
        assert planted.verdict.value == "violated", (check_id, name, s, planted.explanation)
