"""Every check names the paper's numbered statements it exercises, every statement a check names exists, every main
result of the five papers has its card, and `fedverify statements` / `fedverify show P "Theorem 1"` print them."""
import json

import pytest

from verify.registry import load_all, statements, unknown_statements

CHECKS = load_all()
#: the main results of each paper (as the paper numbers them), whose cards must classify every symbol and term
MAIN = {
    "werner2023": ("Theorem 3.1", "Theorem 3.2", "Theorem 3.3", "Theorem 3.4"),
    "su2022": ("Theorem 1", "Theorem 2", "Theorem 3", "Proposition 1", "Proposition 2"),
    "dutta2023": ("Theorem 1",),
    "allouah2025": ("Theorem 4.1", "Theorem 4.2", "Corollary 4.1"),
    "buttaci2024": ("Theorem 1", "Theorem 2", "Theorem 3"),
}


def test_every_check_names_statements_that_its_paper_registers():
    ours = {cid: spec for cid, spec in CHECKS.items() if spec.paper in MAIN}  # other tests register checks of their own
    assert unknown_statements(ours) == []
    for cid, spec in ours.items():
        assert spec.statements, cid


def test_the_registry_refuses_a_check_that_names_no_statement():
    from verify.registry import check

    with pytest.raises(ValueError, match="statements"):
        check("zzz2099.c01", "t", "bound", "holds")(lambda ctx: None)
    with pytest.raises(ValueError, match="statements"):
        check("zzz2099.c02", "t", "bound", "holds", statements=("",))(lambda ctx: None)


@pytest.mark.parametrize("paper", sorted(MAIN))
def test_each_main_result_is_a_statement_with_bounds_and_checks(paper):
    table = statements(paper)
    for label in MAIN[paper]:
        assert label in table, f"{paper}: no Statement {label!r}"
        st = table[label]
        assert st.main and st.bounds, f"{paper} {label}: a main result with its Bounds"
        assert any(label in s.statements for s in CHECKS.values() if s.paper == paper), f"{paper} {label}: no check"


def _cli(capsys, *args):
    from verify.cli import main

    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse and InputError exit through SystemExit
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_statements_json_lists_every_papers_cards_and_show_prints_one(tmp_path, capsys):
    res = str(tmp_path / "res")
    code, _, err = _cli(capsys, "run", "dutta2023.c08", "--results", res)
    assert code == 0, err
    code, out, err = _cli(capsys, "statements", "--results", res, "--json", "-")
    assert code == 0, err
    cards = json.loads(out)
    assert {c["paper"] for c in cards} >= set(MAIN)  # and any paper another test registered in this process
    for c in cards:
        for key in ("paper", "statement", "checks", "verdict", "margin", "tightness", "symbols", "terms", "hypotheses"):
            assert key in c
    ran = [c for c in cards if "dutta2023.c08" in c["stored"]]
    assert ran and all(c["verdict"] != "not_run" for c in ran)
    label = ran[0]["statement"]
    code, out, err = _cli(capsys, "show", "dutta2023", label, "--results", res)
    assert code == 0 and label in out and "dutta2023.c08" in out, err
    code, out, err = _cli(capsys, "show", "dutta2023", "Theorem 99", "--results", res)
    assert code == 2 and "Theorem 99" in err
    code, out, err = _cli(capsys, "report", "--results", res, "--json", "-")  # the report's content, no typesetting
    assert code == 0, err
    content = json.loads(out)["papers"]["dutta2023"]
    assert [c["id"] for c in content["checks"]] == ["dutta2023.c08"]
    assert any("dutta2023.c08" in c["stored"] for c in content["statements"])
