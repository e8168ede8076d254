"""Every registered check runs at quick fidelity and reaches its expected verdict (the Result is
shared with the paper test modules through verify.testing.run_quick, so each check runs once)."""
import pytest

from verify.engine import Context
from verify.registry import load_all
from verify.testing import (assert_cites_the_paper, assert_label_matches_finding, assert_power_shown,
                            assert_says_how_hard_it_was_tested, run_quick)

CHECKS = load_all()


@pytest.mark.parametrize("check_id", list(CHECKS))
def test_check_reaches_expected_verdict(check_id):
    spec = CHECKS[check_id]
    res = run_quick(spec)
    assert res.id == check_id and res.kind == spec.kind
    assert res.verdict == res.expected, f"{check_id}: {res.verdict.value} != {res.expected.value}\n{res.explanation}"
    assert res.claim.text and res.claim.source and res.explanation
    assert res.env["dtype"] == "float64"
    assert res.paper_info.get("title"), f"{check_id}: its paper is not registered (register_paper)"
    res.to_json()  # serialisable
    assert_finding_complete(res)
    assert_label_matches_finding(res)


def assert_finding_complete(res):
    """A violated Result carries the five fields a reviewer signs; a check that expects violated
    claims an erratum, so its finding is of kind erratum (a measurement plus a second argument)."""
    if res.verdict.value == "violated":
        assert not res.finding.missing(), f"{res.id}: violated without {res.finding.missing()}"
    if res.expected.value == "violated":
        assert res.finding.kind == "erratum", f"{res.id}: expects violated but its finding is a {res.finding.kind}"
        assert res.finding.paper_says and res.finding.second_argument != res.finding.witness


@pytest.mark.slow
@pytest.mark.parametrize("check_id", list(CHECKS))
def test_check_reaches_expected_verdict_at_full_fidelity(check_id):
    res = CHECKS[check_id](Context(fidelity="full", seed=1))
    assert res.verdict == res.expected, f"{check_id}: {res.verdict.value} != {res.expected.value}\n{res.explanation}"



@pytest.mark.parametrize("check_id", list(CHECKS))
def test_check_says_how_hard_it_was_tested(check_id):
    assert_says_how_hard_it_was_tested(CHECKS[check_id], run_quick(CHECKS[check_id]))


@pytest.mark.parametrize("check_id", [c for c, s in CHECKS.items() if s.kind in ("rate", "bound")])
def test_power_claimed_is_power_shown(check_id):
    assert_power_shown(CHECKS[check_id], run_quick(CHECKS[check_id]))


@pytest.mark.parametrize("check_id", list(CHECKS))
def test_every_figure_label_parses(check_id, tmp_path):
    """Every label a check's figure draws is valid mathtext (a label that is not is drawn plain, with a warning that
    this test turns into a failure); a figure drawn by a function of its own is drawn here to find out."""
    import warnings

    from reports.figures import LabelWarning, figure_labels, label_problem, render_figure

    res = run_quick(CHECKS[check_id])
    bad = {label: label_problem(label) for label in figure_labels(res.figure) if label_problem(label)}
    assert not bad, f"{check_id}: figure labels that are not mathtext: {bad}"
    if "draw" in (res.figure or {}):
        with warnings.catch_warnings():
            warnings.simplefilter("error", LabelWarning)
            render_figure(res, tmp_path / "figure.png")


@pytest.mark.parametrize("check_id", list(CHECKS))
def test_reader_facing_text_cites_the_paper(check_id):
    """A reader holds the paper, not our spec: titles, claims, explanations, findings, assumptions, controls, figure
    labels and table keys cite the paper's theorem, equation, figure, section or line (issue 20)."""
    spec = CHECKS[check_id]
    assert_cites_the_paper(run_quick(spec), extra={"no_control": spec.no_control or ""})
