"""The Finding a Result carries: plain text stays a remark, an erratum needs its five fields, and
the registry turns a violated verdict without an erratum into a labelled discrepancy with the
command that reproduces it."""
import pytest

from verify.fit import power_law
from verify.engine import Context
from verify.registry import complete_finding, reproduce_command
from verify.result import ERRATUM_FIELDS, Claim, Finding, Result, erratum, remark


def _result(verdict, finding=""):
    return Result(id="synth2099.c01", paper="synth2099", title="t", claim=Claim("x <= 1", source="Lemma 1"),
                  kind="bound", verdict=verdict, expected="holds", explanation="x = 2 at n = 4", finding=finding)


def test_plain_text_is_a_remark_and_round_trips():
    r = _result("holds", "The bound is loose by 10^3.")
    assert r.finding.kind == "remark" and str(r.finding) == "The bound is loose by 10^3."
    assert "loose" in r.finding and "tight" not in r.finding
    back = Result.from_dict(r.to_dict())
    assert back.finding == r.finding
    assert not _result("holds").finding  # an empty finding is falsy
    legacy = r.to_dict() | {"finding": "old text"}  # results stored before findings had fields
    assert Result.from_dict(legacy).finding == remark("old text")


def test_erratum_fields_and_missing():
    e = erratum("s", paper_says="p", correction="c", witness="w", second_argument="a")
    assert e.kind == "erratum" and e.missing() == ["reproduce"]
    assert Finding(summary="s", kind="remark").missing() == list(ERRATUM_FIELDS)
    with pytest.raises(ValueError, match="finding kind"):
        Finding(kind="typo")


def test_violated_without_erratum_becomes_a_discrepancy_with_every_field():
    ctx = Context(seed=3)
    f = complete_finding(_result("violated"), ctx, {"theory": power_law("n", 2.0)})
    assert f.kind == "discrepancy" and not f.missing()
    assert "Lemma 1" in f.paper_says and "x = 2 at n = 4" in f.witness and "none recorded" in f.second_argument
    assert f.reproduce.startswith("fedverify run synth2099.c01 --seed 3 --fidelity quick") and "theory=" in f.reproduce


def test_erratum_keeps_its_fields_and_gets_the_command():
    e = erratum("s", paper_says="p", correction="c", witness="w", second_argument="a")
    f = complete_finding(_result("violated", e), Context(seed=1, replicates=20))
    assert f.kind == "erratum" and f.paper_says == "p"
    assert f.reproduce == reproduce_command("synth2099.c01", Context(seed=1, replicates=20))
    assert "--replicates 20" in f.reproduce


def test_holds_without_finding_stays_empty():
    assert not complete_finding(_result("holds"), Context())


def test_a_planted_wrong_theory_reports_a_discrepancy_not_an_erratum():
    from verify.registry import get

    spec = get("werner2023.c09")
    planted = power_law("n", -3.0, kind="upper")  # the oracle error falls like 1/n, never 1/n^3
    res = spec(Context(), theory=planted)
    assert res.verdict.value == "violated"
    assert res.finding.kind == "discrepancy" and not res.finding.missing()
    assert "theory=" in res.finding.reproduce


def test_env_records_provenance_and_version_flag(capsys):
    from verify.cli import main
    from verify.engine import environment

    env = environment(Context())
    for key in ("fedverify", "fedverify_commit", "pepit", "cvxpy", "clarabel", "scs", "matplotlib", "typst",
                "cpu", "command", "torch_threads"):
        assert key in env, key
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("fedverify ")


# -- one label per finding ----------------------------------------------------------------------------------------
def _labelled(kind, summary, **fields):
    from verify.result import Claim, Finding, Result
    return Result(id="synth2099.c01", paper="synth2099", title="Theorem 1", kind="bound", verdict="holds",
                  expected="holds", claim=Claim("x <= 1", source="synth2099, Theorem 1"), explanation="x stays under 1.",
                  finding=Finding(summary=summary, kind=kind, **fields))


@pytest.mark.parametrize("summary", ["Erratum (section 5 against Theorem 4.1): the budgets exceed it.",
                                     "Remark. The errata confirmed by the runs.", "This is an erratum of eq. (3)."])
def test_a_remark_that_calls_itself_an_erratum_fails(summary):
    from verify.testing import assert_label_matches_finding
    with pytest.raises(AssertionError, match="calls itself an erratum"):
        assert_label_matches_finding(_labelled("remark", summary))


@pytest.mark.parametrize("summary", ["Remark (not an erratum): the paper never claims it.", "No erratum: eq. (3) holds."])
def test_a_remark_that_says_what_it_is_not_passes(summary):
    from verify.testing import assert_label_matches_finding
    assert_label_matches_finding(_labelled("remark", summary))
    assert_label_matches_finding(_labelled("discrepancy", summary))


def test_an_erratum_needs_its_five_fields():
    from verify.testing import assert_label_matches_finding
    with pytest.raises(AssertionError, match="without"):
        assert_label_matches_finding(_labelled("erratum", "Erratum: eq. (3) is false.", paper_says="eq. (3)"))
    assert_label_matches_finding(_labelled("erratum", "Erratum: eq. (3) is false.", paper_says="eq. (3)",
                                           correction="c", witness="w", second_argument="a", reproduce="r"))
