"""`fedverify search` (verify/search/, verify/cli_search.py): validated against known worst cases.

* gradient descent on [mu, L]-quadratics: the search reaches the closed form max(|1 - eta L|, |1 - eta mu|)^{2n}
  to 1e-3 (CMA-ES and gradient ascent);
* buttaci2024.x01: the search reaches >= 0.99 of PEPit's certified worst case and beats random sampling;
* werner2023.c18: Lemma 1's max-form erratum is found from a random start;
* a claim written with the documented API only, with its violation confined to a narrow corner, is found
  within its default budget while random sampling at the same budget misses it;
* bad input: one line naming the flag, exit 2.
"""
from __future__ import annotations

import json
import math
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import numpy as np
import pytest

from analytic.errors import InputError
from verify import cli, registry
from verify.engine import Context
from verify.registry import check, get
from verify.search import Objective, Space, search, witness_path
from verify.search.witness import load, rescore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def search_subcommand(monkeypatch):
    """`search` is registered in pyproject.toml; an editable install made before it existed lacks the entry
    point in its metadata, so add it from pyproject.toml (the test also pins that pyproject registers it)."""
    eps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["fedverify.commands"]
    assert eps["search"] == "verify.cli_search"
    real = cli.entry_points

    def patched(group):
        found = list(real(group=group))
        if group == cli.COMMANDS_GROUP and not any(e.name == "search" for e in found):
            found.append(EntryPoint("search", "verify.cli_search", group))
        return found

    monkeypatch.setattr(cli, "entry_points", patched)


@pytest.fixture
def local_checks():
    """Register test-local checks through the documented API; remove them afterwards."""
    added = []

    def register(check_id, space, objective):
        @check(check_id, "a test-local searchable claim", "bound", "holds", space=space, objective=objective,
              statements=("Theorem 1",))
        def claim(ctx):  # never run: the search only needs the space and the objective
            raise NotImplementedError

        added.append(check_id)
        return claim

    yield register
    for cid in added:
        registry._REGISTRY.pop(cid, None)


def _run(argv, capsys):
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# -- the space -------------------------------------------------------------------------------------------------
def test_space_decodes_every_point_of_the_cube_into_the_space_and_encodes_back():
    sp = Space.of({"a": (0.5, 2.0), "s": (1e-3, 10.0, {"log": True}), "k": range(2, 7), "v": (-1.0, 1.0, {"shape": 3}),
                   "fixed": 4.0})
    assert sp.size == 6 and sp.fixed == {"fixed": 4.0}
    U = np.random.default_rng(0).random((500, sp.size))
    U[0], U[1] = 0.0, 1.0
    x = sp.decode(U)
    assert x["a"].min() >= 0.5 and x["a"].max() <= 2.0 and x["s"].min() >= 1e-3 and x["s"].max() <= 10.0
    assert set(np.unique(x["k"])) == {2, 3, 4, 5, 6} and x["k"].dtype == np.int64
    assert x["v"].shape == (500, 3) and x["s"][0] == pytest.approx(1e-3) and x["s"][1] == pytest.approx(10.0)
    for i in range(20):
        inst = sp.row(x, i)
        back = sp.decode(sp.encode(inst)[None])
        for k in ("a", "s", "k", "v"):
            assert np.allclose(back[k][0], inst[k], rtol=1e-12)
    # log decoding is uniform in log: the median of s is near the geometric mean of the ends
    assert np.median(x["s"]) == pytest.approx(math.sqrt(1e-3 * 10.0), rel=0.3)


@pytest.mark.parametrize("bad", [{}, {"a": (2.0, 1.0)}, {"a": (0.0, 1.0, {"log": True})}, {"a": 3.0},
                                 {"a": (0.0, 1.0, {"colour": 1})}, {"a": range(5, 5)}])
def test_bad_spaces_fail_at_registration(bad):
    with pytest.raises(ValueError):
        Space.of(bad)


def test_encode_refuses_an_instance_outside_the_space_naming_the_parameter():
    sp = Space.of({"a": (0.0, 1.0), "b": (1.0, 2.0)})
    with pytest.raises(InputError) as info:
        sp.encode({"a": 0.5, "b": 3.0})
    assert info.value.param == "b"


# -- validation against closed forms and certificates -------------------------------------------------------------
MU, L, ETA, STEPS, DIM = 0.1, 1.0, 1.8, 3, 4
GD_WORST = max(abs(1 - ETA * L), abs(1 - ETA * MU)) ** (2 * STEPS)  # the tight value (PEPit's tutorial)


def _gd_ratio(h, x0):
    x = x0
    for _ in range(STEPS):
        x = x - ETA * h * x
    return (x ** 2).sum(-1) / (x0 ** 2).sum(-1)


GD_OBJECTIVE = Objective(batch=lambda ctx, x: _gd_ratio(np.asarray(x["h"]), np.asarray(x["x0"])),
                         torch=lambda ctx, x: _gd_ratio(x["h"], x["x0"]),
                         constraint=lambda inst: float(np.sum(np.asarray(inst["x0"]) ** 2)) > 1e-12,
                         planted={"h": np.linspace(MU, L, DIM), "x0": np.ones(DIM)}, budget=2000)
GD_SPACE = {"h": (MU, L, {"shape": DIM}), "x0": (-1.0, 1.0, {"shape": DIM})}


@pytest.mark.parametrize("method", ["cma", "gradient"])
def test_search_finds_the_worst_case_of_gradient_descent_on_quadratics(local_checks, method):
    spec = local_checks("testsearch2024.x01", GD_SPACE, GD_OBJECTIVE)
    rep = search(spec, Context(seed=0), method=method)
    assert rep.worst_ratio <= GD_WORST * (1 + 1e-12)  # no instance beats the tight worst case
    assert rep.worst_ratio == pytest.approx(GD_WORST, rel=1e-3)
    assert rep.worst_ratio >= rep.random_ratio and rep.result.verdict.value == "inconclusive"
    assert rep.evaluations == {method: 2000, "random": 2000}


def test_buttaci_x01_reaches_the_pepit_certificate_and_beats_random(tmp_path, capsys):
    out = tmp_path / "x01.json"
    code, _, err = _run(["search", "buttaci2024.x01", "--json", str(out), "--results", str(tmp_path), "--quiet"], capsys)
    assert code == 0, err
    rep = json.loads(out.read_text())
    for field in ("worst_ratio", "random_ratio", "planted_ratio", "instance_file", "evaluations", "method",
                  "certified_ratio"):
        assert field in rep
    assert rep["method"] == "cma" and rep["certified_ratio"] is not None
    assert rep["worst_ratio"] >= 0.99 * rep["certified_ratio"]
    assert rep["worst_ratio"] <= rep["certified_ratio"] * (1 + 1e-5)  # the certificate bounds every instance
    assert rep["worst_ratio"] > rep["random_ratio"] > rep["planted_ratio"]
    assert rep["verdict"] == "inconclusive" and "no violation found in 3000 evaluations" in rep["explanation"]
    assert Path(rep["instance_file"]).is_file() and rep["rescored_ratio"] == pytest.approx(rep["worst_ratio"], rel=1e-12)
    assert json.loads((tmp_path / "search" / "buttaci2024.x01.json").read_text())["worst_ratio"] == rep["worst_ratio"]


def test_werner_lemma1_max_form_is_found_from_a_random_start(tmp_path):
    spec = get("werner2023.c18")
    rep = search(spec, Context(seed=3), results=tmp_path)
    assert rep.worst_ratio > 1 and rep.result.verdict.value == "violated"
    assert rep.worst_ratio > 10 * rep.planted_ratio  # found by the search, not by scoring the planted instance
    f = rep.result.finding
    assert f.kind == "discrepancy" and "c = " in f.witness and "fedverify search werner2023.c18" in f.reproduce
    # the witness on disk re-scores to the same ratio, and lies inside the claim's constraint
    again, inst, meta = rescore(spec, Context(seed=3).for_check(spec.id), witness_path(tmp_path, spec.id))
    assert again == pytest.approx(rep.worst_ratio, rel=1e-12) and meta["method"] == "cma"
    c = np.asarray(inst["c"])
    assert np.min(np.abs(c[:, None] - c[None])[~np.eye(3, dtype=bool)]) >= 1.0


def _corner(ctx, x):
    """1/2 everywhere but near the corner (1, 1, 1, 1), where it rises past 1 only when every coordinate > ~0.97."""
    v = np.asarray(x["x"], dtype=float)
    return 0.5 + 0.6 * np.prod(v, axis=-1) ** 8


def test_a_plugin_claim_with_a_narrow_corner_violation_is_found_within_its_default_budget(local_checks, tmp_path, capsys):
    local_checks("plugin2025.x01", {"x": (0.0, 1.0, {"shape": 4})}, Objective(batch=_corner, planted={"x": [0.5] * 4}))
    code, out, err = _run(["search", "plugin2025.x01", "--json", "-", "--results", str(tmp_path)], capsys)
    assert code == 0, err
    rep = json.loads(out)
    assert rep["worst_ratio"] > 1 and rep["verdict"] == "violated"
    assert rep["random_ratio"] < 1  # the corner holds about 1e-5 of the cube: uniform sampling misses it
    inst, meta = load(rep["instance_file"])
    assert np.all(np.asarray(inst["x"]) > 0.97) and meta["check_id"] == "plugin2025.x01"


def test_list_json_marks_the_searchable_checks(capsys):
    code, out, _ = _run(["list", "--json"], capsys)
    rows = {r["id"]: r for r in json.loads(out)}
    searchable = {k for k, r in rows.items() if r.get("searchable")}
    assert len(searchable) >= 10 and len({k.split(".")[0] for k in searchable}) >= 4
    assert "werner2023.c09" in rows and "searchable" not in rows["werner2023.c09"]


# -- bad input: one line naming the flag, exit 2 ------------------------------------------------------------------
@pytest.mark.parametrize("argv, flag", [
    (["search", "nope2020.c01"], "ID"),
    (["search", "werner2023.c09"], "ID"),  # registered, not searchable
    (["search", "werner2023.c18", "--budget", "0"], "--budget"),
    (["search", "werner2023.c18", "--budget", "many"], "--budget"),
    (["search", "werner2023.c18", "--method", "annealing"], "--method"),
    (["search", "allouah2025.c11", "--method", "gradient"], "--method"),  # no differentiable objective
    (["search", "werner2023.c18", "--seed", "-1"], "--seed"),
])
def test_bad_input_names_the_flag(argv, flag, capsys, tmp_path):
    code, out, err = _run([*argv, "--results", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"fedverify search: error: {flag}:"), err


def test_results_that_is_a_file_is_refused_before_any_work(capsys, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = _run(["search", "werner2023.c18", "--results", str(f)], capsys)
    assert code == 2 and "--results" in err


def test_a_witness_of_another_check_is_refused(tmp_path):
    rep = search(get("werner2023.c18"), Context(seed=0), budget=50, results=tmp_path)
    with pytest.raises(InputError) as info:
        rescore(get("werner2023.c17"), Context(), rep.instance_file)
    assert info.value.param == "instance_file"
    (tmp_path / "bad.npz").write_text("not a witness")
    with pytest.raises(InputError):
        load(tmp_path / "bad.npz")


def test_same_seed_same_search():
    a = search(get("allouah2025.c11"), Context(seed=1), budget=200)
    b = search(get("allouah2025.c11"), Context(seed=1), budget=200)
    assert a.worst_ratio == b.worst_ratio and a.random_ratio == b.random_ratio


def test_accountant_agrees_with_dp_accounting_over_the_searched_space():
    pytest.importorskip("dp_accounting")
    rep = search(get("allouah2025.c10"), Context(seed=0))
    assert rep.worst_ratio <= 1.0  # relative gap <= 1e-9 everywhere the search looked
    assert rep.result.verdict.value == "inconclusive"


def test_report_shows_planted_random_and_search_ratios_with_the_witness(tmp_path, capsys):
    from reports.pdf import build_report
    from reports.search import load_searches, search_section

    assert search_section(tmp_path) == ""  # nothing searched: no section
    code, _, err = _run(["run", "werner2023.c18", "--results", str(tmp_path), "--quiet"], capsys)
    assert code == 0, err
    for cid in ("werner2023.c18", "buttaci2024.x01"):
        code, _, err = _run(["search", cid, "--budget", "300", "--results", str(tmp_path), "--quiet"], capsys)
        assert code == 0, err
    (tmp_path / "search" / "broken.json").write_text("{")
    found, bad = load_searches(tmp_path)
    assert [d["id"] for d in found] == ["buttaci2024.x01", "werner2023.c18"] and len(bad) == 1
    assert [d["id"] for d in load_searches(tmp_path, "werner2023")[0]] == ["werner2023.c18"]
    src = tmp_path / "r.typ"
    build_report(tmp_path, out=tmp_path / "r.pdf", typst_source=src)
    text = src.read_text()
    section = text[text.index("= Worst-case search"):]
    assert "buttaci2024\\.x01" in section and "werner2023\\.c18" in section and "== Witnesses" in section
    assert "certified" in section and "unreadable" in section and (tmp_path / "r.pdf").stat().st_size > 0


SEARCHABLE = ["allouah2025.c10", "allouah2025.c11", "allouah2025.c12", "allouah2025.x01", "buttaci2024.c07",
              "buttaci2024.c09", "buttaci2024.x01", "dutta2023.c10", "su2022.c21", "werner2023.c13", "werner2023.c17",
              "werner2023.c18"]


def test_the_searchable_claims_are_these():
    from verify.search import searchable_checks

    assert set(SEARCHABLE) <= set(searchable_checks())


@pytest.mark.parametrize("check_id", SEARCHABLE)
def test_every_searchable_claim_runs_rescores_and_agrees_with_its_check(check_id, tmp_path):
    """A short search of each claim: its planted instance lies in its space, the witness re-scores exactly, and
    only the claim whose check expects `violated` (Lemma 1's max-form) gets a ratio above 1."""
    if check_id == "allouah2025.c10":
        pytest.importorskip("dp_accounting")
    spec = get(check_id)
    rep = search(spec, Context(seed=0), budget=40, results=tmp_path)
    assert rep.planted_ratio is not None and math.isfinite(rep.planted_ratio)
    assert rep.rescored_ratio == pytest.approx(rep.worst_ratio, rel=1e-12)
    assert rep.result.id == check_id and rep.result.expected == spec.expected
    if spec.expected.value == "violated":
        assert rep.worst_ratio > 1 and rep.result.verdict.value == "violated"
    else:
        assert rep.worst_ratio <= 1 + 1e-9 and rep.result.verdict.value == "inconclusive"


@pytest.mark.slow
@pytest.mark.parametrize("check_id", SEARCHABLE)
def test_each_search_at_its_default_budget_takes_at_most_10_s(check_id, tmp_path, capsys):
    """The method and the random baseline together (the command's start, which imports every check module, is
    the same for every subcommand and not counted)."""
    if check_id == "allouah2025.c10":
        pytest.importorskip("dp_accounting")
    code, out, err = _run(["search", check_id, "--results", str(tmp_path), "--json", "-"], capsys)
    assert code == 0, err
    assert sum(json.loads(out)["wall_time_s"].values()) <= 10.0


def test_the_accountant_search_says_clearly_when_dp_accounting_is_missing(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # as if not installed: `import dp_accounting` fails
    code, out, err = _run(["search", "allouah2025.c10", "--budget", "5", "--results", str(tmp_path)], capsys)
    assert code == 2 and out == "" and "dp-accounting" in err and err.startswith("fedverify search: error: ID:")


def test_search_names_the_checks_own_worst_when_it_is_higher(tmp_path, capsys):
    """`fedverify search` prints the check's own stored observed/bound when it beats the search's best (werner2023.c17:
    its run reaches about 0.19, ten random points about 0.007)."""
    from verify.cli import main

    res = str(tmp_path / "res")
    assert main(["run", "werner2023.c17", "--results", res, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["search", "werner2023.c17", "--budget", "10", "--method", "random", "--results", res, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "the check's own stored run reached observed/bound" in out
