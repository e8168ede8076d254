"""verify.testing.assert_cites_the_paper: a Result's reader-facing text cites the paper's numbering, never our private
spec (issue 20). Each case plants one spec reference in one reader-facing field; the clean Result passes."""
import pytest

from verify.result import Assumption, Claim, Result, erratum
from verify.testing import assert_cites_the_paper, reader_facing_texts


def _result(paper="synth2099", **kw):
    base = dict(id=f"{paper}.c01", paper=paper, title="Theorem 1: the rate holds", kind="bound", verdict="holds",
                expected="holds", claim=Claim("x_k <= C_1 rho^k", source=f"{paper}, Theorem 1, eq. (8)"),
                explanation="The gap stays under eq. (8) at every round (Appendix A.3, line 214).",
                observed={"final_gap": 1e-3}, predicted={"bound": "eq. (8)"})
    return Result(**(base | kw))


def test_a_clean_result_passes():
    assert_cites_the_paper(_result())


def test_claim_source_citing_spec_c14_fails():
    r = _result(claim=Claim("x_k <= rho^k", source="synth2099, Theorem 1; spec C14"))
    with pytest.raises(AssertionError, match=r"claim\.source: 'spec'"):
        assert_cites_the_paper(r)


@pytest.mark.parametrize("change, where", [
    ({"title": "Sign of beta_hat (E1): the rule repairs it"}, "title"),
    ({"explanation": "The spec's simulation found 0.18."}, "explanation"),
    ({"explanation": "Per attack: F1 holds, F2 inconclusive."}, "explanation"),
    ({"finding": erratum("Erratum (E5): the radius is 2 eps/alpha", paper_says="Theorem 1 (4)", correction="c",
                         witness="w", second_argument="a")}, "finding.summary"),
    ({"assumptions": [Assumption("tolerance", True, None, "exact", "spec 6.1 check 3")]}, "assumptions[0].detail"),
    ({"control": {"what": "the mean under far random vectors (A1)", "verdict": "violated"}}, "control.what"),
    ({"observed": {"spec_case": {"A": 1.0}}}, "observed.spec_case (key)"),
    ({"figure": {"panels": [{"title": "CE final gap vs f (F2)", "series": []}]}}, "figure.panels[0].title"),
    ({"figure": {"panels": [{"title": "t", "series": [{"label": "spec's simulation, worst 0.18"}]}]}},
     "figure.panels[0].series[0].label"),
])
def test_a_spec_reference_in_any_reader_facing_field_fails(change, where):
    with pytest.raises(AssertionError, match=rf"{__import__('re').escape(where)}: "):
        assert_cites_the_paper(_result(**change))


def test_the_papers_own_labels_pass_and_only_for_that_paper():
    """buttaci2024 numbers its appendix lemmas A1-A4, B1-B4 ("Lemma A3"); the same label elsewhere is ours."""
    text = {"title": "Lemmas A3/B3: kappa_A3 multiplies the error"}
    assert_cites_the_paper(_result(paper="buttaci2024", **text))
    with pytest.raises(AssertionError, match="'A3'"):
        assert_cites_the_paper(_result(paper="werner2023", **text))


def test_words_that_merely_contain_spec_pass():
    assert_cites_the_paper(_result(explanation="The spectrum of P_i is in [mu, L]; a specific step, respectively."))


def test_extra_texts_are_scanned():
    with pytest.raises(AssertionError, match="no_control"):
        assert_cites_the_paper(_result(), extra={"no_control": "Assumption 9 fails (spec 6.6)"})
    assert ("no_control", "fine") in reader_facing_texts(_result(), extra={"no_control": "fine"})
