"""Statement cards (verify/statement_cards.py): computed from Results, never typed by hand."""
import json

import numpy as np
import pytest
import sympy as sp

from analytic.bounds import Bound
from analytic.statements import Hypothesis, Statement, statement_table
from verify import fit
from verify.registry import fill_strength
from verify.result import Assumption, Claim, Result, erratum
from verify.statement_cards import card, cards, counts
from verify.strength import recording

n, x = sp.symbols("n x", positive=True)
THEOREM = Bound("Theorem 9, eq. (3)", 1 / n + 1 / x, "upper", source="test2099, Theorem 9, eq. (3)")
ST = Statement("test2099", "Theorem 9", "the error is at most 1/n + 1/x", 12, (THEOREM,),
               (Hypothesis("Assumption 1 (smooth)", r"smooth"), Hypothesis("Assumption 2 (bounded)", r"bounded")),
               main=True)
NS = np.array([1.0, 2.0, 4.0, 8.0])


def _result(cid="test2099.c01", data=None, verdict=None, finding=None):
    with recording() as atoms:
        v, _ = fit.deterministic_verdict(0.7 * (1 / NS + 1) if data is None else data, THEOREM,
                                         at={"n": NS, "x": 1.0})
    res = Result(id=cid, paper="test2099", title="t", claim=Claim("c", source="Theorem 9"), kind="bound",
                 verdict=verdict or v, expected="holds", finding=finding or "",
                 assumptions=[Assumption("L-smooth loss", True, 2.0, "exact")])
    fill_strength(res, atoms)
    return res


def test_the_card_has_the_fields_a_reader_asks_for_and_round_trips_as_json():
    c = card(ST, [_result()])
    for key in ("paper", "statement", "checks", "verdict", "margin", "tightness", "symbols", "terms", "hypotheses"):
        assert key in c
    assert c["verdict"] == "holds" and c["checks"] == ["test2099.c01"]
    assert c["symbols"]["n"]["status"] == "varied" and c["symbols"]["n"]["range"] == [1.0, 8.0]
    assert c["symbols"]["x"] == {"status": "fixed", "value": 1.0}
    assert {t["term"]: t["exercised"] for t in c["terms"]} == {"1/n": True, "1/x": True}
    assert c["hypotheses"][0]["status"] == "measured" and c["hypotheses"][0]["value"] == 2.0
    assert c["hypotheses"][1] == {"name": "Assumption 2 (bounded)", "status": "assumed"}
    json.loads(json.dumps(c))


def test_a_symbol_two_checks_hold_at_different_values_is_varied_on_the_card():
    a = _result("test2099.c01")
    with recording() as atoms:
        v, _ = fit.deterministic_verdict(0.5 * (1 / NS + 0.5), THEOREM, at={"n": NS, "x": 2.0})
    b = Result(id="test2099.c02", paper="test2099", title="t", claim=Claim("c"), kind="bound", verdict=v,
               expected="holds")
    fill_strength(b, atoms)
    c = card(ST, [a, b])
    assert c["symbols"]["x"]["status"] == "varied" and c["symbols"]["x"]["range"] == [1.0, 2.0]
    assert c["symbols"]["x"]["power"]["down"] is not None  # the x = 2 atom catches a plant x^-s


def test_a_symbol_no_atom_evaluated_is_fixed_and_says_the_checks_are_blind():
    m = sp.Symbol("m", positive=True)
    st = Statement("test2099", "Theorem 9", "q", None, (Bound("other", 1 / m, "upper"),))
    c = card(st, [_result()])
    assert c["symbols"]["m"]["status"] == "fixed" and c["symbols"]["m"]["value"] is None
    assert c["terms"] == [{"bound": "other", "term": "1/m", "typst": c["terms"][0]["typst"], "exercised": False,
                           "note": "no verdict atom evaluated this bound"}]


def test_the_statement_verdict_comes_from_its_checks_and_errata_lead():
    bad = _result("test2099.c03", data=3.0 * (1 / NS + 1), finding=erratum(
        "s", paper_says="p", correction="c", witness="w", second_argument="a"))
    c = card(ST, [_result(), bad])
    assert c["verdict"] == "violated" and c["errata"] == ["test2099.c03"]

    class Spec:
        def __init__(self, labels):
            self.statements = labels
    other = Statement("test2099", "Lemma 1", "a lemma", 3)
    unchecked = Statement("test2099", "Lemma 2", "never checked", 4, not_checked="needs a GPU cluster")
    table = statement_table("test2099", other, ST, unchecked)
    out = cards(table, {"test2099.c01": Spec(("Theorem 9",)), "test2099.c03": Spec(("Theorem 9",)),
                        "test2099.c04": Spec(("Lemma 1",))}, {"test2099.c01": _result(), "test2099.c03": bad})
    assert [c["statement"] for c in out] == ["Theorem 9", "Lemma 1", "Lemma 2"]  # errata first, then the paper's order
    assert out[1]["verdict"] == "not_run" and out[2]["verdict"] == "not_checked"
    assert "needs a GPU cluster" in out[2]["why"]
    assert counts(out)["symbols_varied"] == 1


def test_a_statement_refuses_a_label_that_is_not_the_papers_numbering():
    with pytest.raises(ValueError, match="numbered object"):
        Statement("test2099", "the main theorem", "q")
    with pytest.raises(ValueError, match="given twice"):
        statement_table("test2099", ST, ST)


def test_a_card_typesets_in_the_report(tmp_path):
    """The report's findings pages are the cards (reports/statement_pages.py): one compiles, and its text names the
    statement, the varied and the fixed symbols, the terms and the hypotheses."""
    from reports.pdf import _compiles, _finding_markup, prose, render_document
    from reports.statement_pages import paper_pages

    bad = _result("test2099.c03", data=3.0 * (1 / NS + 1), finding=erratum(
        "the bound fails", paper_says="p", correction="c", witness="w", second_argument="a"))
    c = card(ST, [_result(), bad])
    page = paper_pages("test2099", "A test paper", [c], {"test2099.c01": _result(), "test2099.c03": bad},
                       {}, _finding_markup, prose)
    for text in ("Theorem 9", "varied", "fixed", "Terms the data needed", "bounded", "the bound fails"):
        assert text in page
    assert _compiles(render_document([page], "test"), tmp_path) is None
