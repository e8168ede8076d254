"""Issue 23: bad input never ends in a traceback or a silent NaN.

The categories (paths, corrupt stored results, sizes, non-finite and wrongly typed numbers) across
every subcommand (list, run, show, report, demo, privacy, constants) and the public entry points: the
command line answers exit 2 with one line naming the flag, the library raises ``InputError`` naming the
parameter, and a results directory that was there before is byte for byte the same afterwards.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytic import privacy as P
from analytic import validate
from analytic.errors import InputError
from verify import cli
from verify.engine import Context, log_checkpoints
from verify.problems.buttaci2024_logistic import sc_lr
from verify.problems.buttaci2024_quadratic import sc_q2
from verify.problems.clustered_quadratics import clustered_quadratics
from verify.problems.clustered_regression import paper_synthetic_regression
from verify.problems.least_squares import gaussian_agents
from verify.problems.mixed_regression import effective_clients, planted_model
from verify.problems.points import clustered_points, planted_means
from verify.registry import _REGISTRY, check, load_all
from verify.result import Claim, Result, Verdict
from verify.store import ResultStore, UnreadableResult

STORED = "werner2023.c15"  # a registered id (show refuses unknown ids first); its result is planted, never run


def planted(cid: str = STORED) -> Result:
    return Result(id=cid, paper=cid.split(".")[0], title="planted", claim=Claim("c", "x", "Thm 1", "x"), kind="bound",
                  verdict=Verdict.HOLDS, expected=Verdict.HOLDS, observed={"y": [1.0, 2.0]})


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working directory with a file, a directory, a broken link and a results directory holding one
    stored result; yields a function returning a snapshot of the results directory's bytes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a directory\n")
    (tmp_path / "adir").mkdir()
    os.symlink(tmp_path / "nowhere" / "deeper", tmp_path / "dangling")
    ResultStore(tmp_path / "res").save(planted(), {"planted": True})

    def snapshot():
        return {p.name: p.read_bytes() for p in sorted((tmp_path / "res").iterdir())}

    return snapshot


def one_line_exit_2(capsys, argv, name):
    """``fedverify argv`` answers exit 2 and one line on stderr naming ``name``, no traceback."""
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's own refusals (OneLineParser: one line, exit 2)
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2, (argv, code, err)
    assert len(err.splitlines()) == 1 and name in err and "Traceback" not in err, (argv, err)
    return err


# -- paths ------------------------------------------------------------------------------------------------
PATH_CASES = [
    (["run", STORED, "--results", "afile"], "--results"),                 # a file
    (["run", STORED, "--results", "afile/sub"], "--results"),             # under a file
    (["run", STORED, "--results", "dangling/res"], "--results"),          # under a missing root (a broken link)
    (["run", STORED, "--results", "/proc/1/res"], "--results"),           # under an unwritable directory
    (["run", STORED, "--results", "res", "--json", "adir"], "--json"),   # a directory
    (["run", STORED, "--results", "res", "--json", "afile/a.json"], "--json"),  # under a file
    (["run", STORED, "--results", "res", "--json", ""], "--json"),       # empty
    (["show", STORED, "--results", "afile"], "--results"),
    (["show", STORED, "--results", "afile/sub"], "--results"),
    (["report", "--results", "afile"], "--results"),
    (["report", "--results", "res", "--out", "afile/r.pdf"], "--out"),
    (["report", "--results", "res", "--out", "adir"], "--out"),
    (["report", "--results", "res", "--typst", "afile/r.typ"], "--typst"),
    (["report", "--results", "res", "--typst", "adir"], "--typst"),
    (["demo", "myopic", "--out", "afile"], "--out"),
    (["demo", "myopic", "--out", "afile/d"], "--out"),
    (["demo", "myopic", "--out", "/proc/1/d"], "--out"),
    (["privacy", "--n", "10", "--sigma-ind", "1", "--json", "adir"], "--json"),
    (["privacy", "--n", "10", "--sigma-ind", "1", "--json", "afile/p.json"], "--json"),
    (["constants", "clustered-quadratics", "--json", "adir"], "--json"),
    (["constants", "clustered-quadratics", "--json", "afile/c.json"], "--json"),
    (["constants", "clustered-quadratics", "--json", "missing/c.json"], "--json"),
]


@pytest.mark.parametrize("argv,flag", PATH_CASES, ids=[" ".join(a) for a, _ in PATH_CASES])
def test_bad_paths_are_one_line_naming_the_flag(capsys, workdir, argv, flag):
    before = workdir()
    one_line_exit_2(capsys, argv, flag)
    assert workdir() == before  # nothing stored is lost or touched
    assert not os.path.exists("adir/demo_myopic.png") and not os.path.exists("report.pdf")


def test_path_rule_accepts_what_it_should(tmp_path):
    from verify.cli_args import output_file, readable_dir, writable_dir

    assert writable_dir(tmp_path / "new" / "deeper", "--results") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # checking creates nothing
    assert writable_dir(tmp_path, "--results") == tmp_path
    assert readable_dir(tmp_path / "absent", "--results") == tmp_path / "absent"  # show: nothing stored there
    assert output_file(tmp_path / "sub" / "a.json", "--json") == tmp_path / "sub" / "a.json"
    with pytest.raises(InputError, match="does not exist"):
        output_file(tmp_path / "sub" / "a.json", "--json", create_parents=False)


# -- corrupt stored results ---------------------------------------------------------------------------------
CORRUPTIONS = {
    "truncated": lambda text: text[: len(text) // 2],
    "no result key": lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "result"}),
    "result of the wrong shape": lambda text: json.dumps({**json.loads(text), "result": {"id": STORED}}),
    "not an object": lambda text: "[1, 2, 3]",
    "empty": lambda text: "",
}


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_unreadable_result_is_named_by_show_and_listed_by_the_store(capsys, workdir, tmp_path, how):
    path = tmp_path / "res" / f"{STORED}.json"
    path.write_text(CORRUPTIONS[how](path.read_text()))
    before = workdir()
    err = one_line_exit_2(capsys, ["show", STORED, "--results", "res"], f"{STORED}.json: unreadable, rerun with --force")
    assert err.startswith("fedverify show: error: res/")
    one_line_exit_2(capsys, ["show", STORED, "--results", "res", "--json"], "unreadable, rerun with --force")
    assert cli.main(["list", "--paper", "werner2023"]) == 0 and STORED in capsys.readouterr().out
    store = ResultStore(tmp_path / "res")
    with pytest.raises(UnreadableResult) as info:
        store.load(STORED)
    assert info.value.param == str(path)
    results, bad = store.load_all()
    assert results == [] and [cid for cid, _ in bad] == [STORED] and "rerun with --force" in bad[0][1]
    assert store.run_config(STORED) is None and not store.is_done(STORED, {"planted": True})  # a rerun replaces it
    assert workdir() == before


def test_report_skips_an_unreadable_result_with_a_warning_naming_it(capsys, workdir, tmp_path):
    ResultStore(tmp_path / "res").save(planted("werner2023.c16"), {})
    (tmp_path / "res" / f"{STORED}.json").write_text('{"format": 1, "run_config": {}}')
    before = workdir()
    assert cli.main(["report", "--results", "res", "--out", "r.pdf"]) == 0
    err = capsys.readouterr().err
    assert (tmp_path / "r.pdf").stat().st_size > 1000
    assert "warning" in err and f"{STORED}.json: unreadable, rerun with --force" in err and "Traceback" not in err
    assert workdir() == before
    (tmp_path / "res" / "werner2023.c16.json").write_text("{")
    one_line_exit_2(capsys, ["report", "--results", "res", "--out", "r2.pdf"], "no readable results")


def test_run_reruns_a_stored_result_that_lost_its_body(capsys, tmp_path):
    load_all()

    @check("zz0023.c01", "planted quick check", "bound", "holds", statements=("Theorem 1",))
    def quick(ctx):
        return planted("zz0023.c01")

    try:
        res = tmp_path / "r"
        assert cli.main(["run", "zz0023.c01", "--results", str(res), "--quiet"]) == 0
        doc = json.loads((res / "zz0023.c01.json").read_text())
        (res / "zz0023.c01.json").write_text(json.dumps({"format": 1, "run_config": doc["run_config"]}))
        capsys.readouterr()
        assert cli.main(["run", "zz0023.c01", "--results", str(res), "--quiet"]) == 0
        out = capsys.readouterr().out
        assert "(stored;" not in out and ResultStore(res).load("zz0023.c01").id == "zz0023.c01"
    finally:
        _REGISTRY.pop("zz0023.c01")


# -- sizes --------------------------------------------------------------------------------------------------
SIZE_CASES = [
    (["run", STORED, "--results", "res", "--replicates", "1000000000000"], "--replicates"),
    (["run", STORED, "--results", "res", "--replicates", "1e30"], "--replicates"),
    (["constants", "clustered-quadratics", "--K", "100000", "--n", "100000", "--d", "100000"], "--n"),
    (["constants", "synthetic-regression", "--n", "100000000", "--d", "10000"], "--n"),
    (["constants", "dutta2023-p1", "--N", "100000", "--l", "100000", "--d", "1000"], "--N"),
]


@pytest.mark.parametrize("argv,flag", SIZE_CASES, ids=[" ".join(a) for a, _ in SIZE_CASES])
def test_absurd_sizes_are_refused_up_front_with_the_memory_needed(capsys, workdir, argv, flag):
    before = workdir()
    err = one_line_exit_2(capsys, argv, flag)
    assert "would need" in err and "iB" in err
    assert workdir() == before


def test_a_check_that_runs_out_of_memory_at_the_users_replicates_is_one_line(capsys, tmp_path):
    load_all()

    @check("zz0023.c02", "planted allocation", "bound", "holds", statements=("Theorem 1",))
    def hungry(ctx):
        ctx.reps(10)
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 80000000000 bytes.")

    try:
        code = cli.main(["run", "zz0023.c02", "--results", str(tmp_path / "r"), "--replicates", "1000"])
        out, err = capsys.readouterr()
        assert code == 2 and "--replicates" in err and "74.5 GiB" in out and "Traceback" not in err + out
        code = cli.main(["run", "zz0023.c02", "--results", str(tmp_path / "r"), "--quiet"])
        assert code == 3  # at the check's own count it is a toolkit failure (exit 3), not bad input
    finally:
        _REGISTRY.pop("zz0023.c02")


def test_memory_cap_is_the_machine_and_names_the_parameter():
    have = validate.physical_memory()
    assert validate.memory("R", have // 8, 8) <= have
    with pytest.raises(InputError, match="more than this machine") as info:
        validate.memory("R", have // 8 + 1, 8)
    assert info.value.param == "R"
    with pytest.raises(InputError) as info:
        Context(replicates=10**12)
    assert info.value.param == "replicates" and "TiB" in info.value.message
    with pytest.raises(InputError) as info:
        clustered_points(10**6, 4, 10**6, 1000, 1.0, 8.0, torch.Generator())
    assert info.value.param == "R"


# -- numbers: the API cases, then a property over every public entry point ---------------------------
def gen():
    return torch.Generator().manual_seed(0)


API_CASES = [
    (lambda: Context(seed=True), "seed"),
    (lambda: Context(seed=1.5), "seed"),
    (lambda: Context(replicates="10"), "replicates"),
    (lambda: Context(replicates=True), "replicates"),
    (lambda: clustered_points(2, 2, 3, 3, math.nan, 8.0, gen()), "sigma"),
    (lambda: clustered_points(2, 2, 3, 3, 1.0, math.inf, gen()), "Delta"),
    (lambda: clustered_points(2, 2, "3", 3, 1.0, 8.0, gen()), "n"),
    (lambda: clustered_points(2, 2, 3, 3, -1.0, 8.0, gen()), "sigma"),
    (lambda: effective_clients([]), "sizes"),
    (lambda: effective_clients([0, 0]), "sizes"),
    (lambda: effective_clients([-3, 5]), "sizes"),
    (lambda: effective_clients([1.0, math.nan]), "sizes"),
    (lambda: effective_clients("35"), "sizes"),
    (lambda: P.secldp_rdp_step(10, 3, 1, "abc", 1.0, 1.0), "sigma_cor2"),
    (lambda: P.secldp_rdp_step(10, 3, 1, None, 1.0, 1.0), "sigma_cor2"),
    (lambda: P.secldp_rdp_step(10, True, 1, 1.0, 1.0, 1.0), "f"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, 1.0, 10, "x"), "delta"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, "1", 10, 1e-5), "C"),
    (lambda: P.account("secldp", 10, 3, 1, 1.0, 1.0, 1.0, 10, 1e-5, orders="abc"), "orders"),
    (lambda: P.gaussian_rdp(["a"], 1.0, 1.0), "alpha"),
    (lambda: P.mironov_epsilon(2.0, math.nan, 1e-5), "rdp"),
    (lambda: P.calibrate("secldp", 10, 3, 1, "1", 10, 1e-5, 1.0), "target_epsilon"),
    (lambda: P.noise_shape("secldp", "2"), "ratio"),
    (lambda: P.account("secldp", 10, 3, 1, 1e308, 1e308, 1.0, 10, 1e-5), "sigma_cor2"),  # a overflows: was NaN
    (lambda: P.account("secldp", 10**400, 3, 1, 1.0, 1.0, 1.0, 10, 1e-5), "n"),  # was OverflowError
    (lambda: P.min_sigma_eff2_mironov(1e-300, 10, 1e-5, 1.0), "target_epsilon"),  # was ZeroDivisionError
    (lambda: log_checkpoints(math.nan), "T"),
    (lambda: log_checkpoints(100, num=-1), "num"),
    (lambda: planted_means(2, 3, math.nan), "Delta"),  # was NaN means
    (lambda: clustered_quadratics(gen(), 2, 2, "2", 3, 1.0), "n_per_cluster"),  # was TypeError
    (lambda: paper_synthetic_regression(gen(), 1, 2, 2, 3, math.nan), "m"),  # was ValueError
    (lambda: paper_synthetic_regression(gen(), 1, 2, 2, 3, 2, scale=math.nan), "scale"),  # was NaN data
    (lambda: planted_model(2, 2, 3, gen(), sigma=math.inf), "sigma"),  # was inf noise
    (lambda: gaussian_agents("3", 4, 2, gen()), "N"),  # was TypeError
    (lambda: sc_lr(gen(), h=math.inf), "h"),  # was the LinAlgError (fedverify constants buttaci2024-logistic --h inf)
    (lambda: sc_q2(gen(), h=math.nan), "h"),  # was Gamma = nan
]


@pytest.mark.parametrize("call,param", API_CASES, ids=range(len(API_CASES)))
def test_api_refusals_name_the_parameter(call, param):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param and "\n" not in str(info.value)


CLI_NUMBER_CASES = [
    (["constants", "buttaci2024-logistic", "--h", "inf"], "--h"),  # was the LinAlgError traceback
    (["constants", "buttaci2024-quadratic", "--h", "nan"], "--h"),  # was Gamma = nan, exit 0
    (["constants", "buttaci2024-quadratic", "--sigma2", "inf"], "--sigma2"),
    (["constants", "buttaci2024-logistic", "--lam", "0"], "--lam"),
    (["run", STORED, "--results", "res", "--seed", "True"], "--seed"),
    (["run", STORED, "--results", "res", "--replicates", "nan"], "--replicates"),
    (["privacy", "--n", "10", "--sigma-ind", "nan"], "--sigma-ind"),
    (["privacy", "--n", "10", "--sigma-ind", "1", "--delta", "x"], "--delta"),
    (["demo", "myopic", "--rounds", "inf"], "--rounds"),
    (["privacy", "--n", "10", "--sigma-ind", "1", "--steps", "1" + "0" * 400], "--steps"),  # was OverflowError
    (["privacy", "--n", "10", "--sigma-cor", "1e300", "--sigma-ind", "1"], "--sigma-cor"),  # was OverflowError
    (["privacy", "--n", "10", "--target-epsilon", "1e-300"], "--target-epsilon"),  # was ZeroDivisionError
    (["list", "--paper", "nan"], "--paper"),
    (["show", STORED, "--results", ""], "--results"),
]


@pytest.mark.parametrize("argv,flag", CLI_NUMBER_CASES, ids=[" ".join(a) for a, _ in CLI_NUMBER_CASES])
def test_bad_numbers_on_the_command_line(capsys, workdir, argv, flag):
    before = workdir()
    one_line_exit_2(capsys, argv, flag)
    assert workdir() == before


NEGATIVE, NEGATIVE_INT, FRACTION = -1.0, -3, 2.5
BAD_REAL = [math.nan, math.inf, -math.inf, True, False, "3", "abc", None, b"1", 1j, [1.0], object()]
BAD_COUNT = BAD_REAL + [FRACTION, NEGATIVE_INT, NEGATIVE]

#: public entry points: (name, call(**kwargs), valid kwargs, {param: kind}); a "count" also refuses negatives and
#: fractions, a "nonneg" number negatives; an "optional count" takes None (the check's own default)
ENTRY_POINTS = [
    ("Context", lambda **k: Context(**k).seed, {"seed": 0, "replicates": 10}, {"seed": "count", "replicates": "optional count"}),
    ("clustered_points", lambda **k: clustered_points(gen=gen(), **k).Z,
     {"R": 2, "K": 2, "n": 3, "d": 3, "sigma": 1.0, "Delta": 8.0},
     {"R": "count", "K": "count", "n": "count", "d": "count", "sigma": "nonneg", "Delta": "nonneg"}),
    ("secldp_rdp_step", P.secldp_rdp_step, {"n": 10, "f": 3, "q": 1, "sigma_cor2": 1.0, "sigma_ind2": 1.0, "C": 1.0},
     {"n": "count", "f": "count", "q": "count", "sigma_cor2": "nonneg", "sigma_ind2": "nonneg", "C": "nonneg"}),
    ("account", lambda **k: P.account("secldp", **k).mironov.epsilon,
     {"n": 10, "f": 3, "q": 1, "sigma_cor2": 1.0, "sigma_ind2": 1.0, "C": 1.0, "T": 10, "delta": 1e-5},
     {"n": "count", "f": "count", "q": "count", "sigma_cor2": "nonneg", "sigma_ind2": "nonneg", "C": "nonneg",
      "T": "count", "delta": "nonneg"}),
    ("log_checkpoints", log_checkpoints, {"T": 100, "num": 10}, {"T": "count", "num": "count"}),
    ("sc_q2", lambda **k: sc_q2(gen(), **k).constants()["Gamma"].value, {"h": 1.0, "noise_var": 0.0},
     {"h": "nonneg", "noise_var": "nonneg"}),
]


def _bad(kind: str) -> list:
    if kind.endswith("count"):
        return [v for v in BAD_COUNT if not (v is None and kind.startswith("optional"))]
    return BAD_REAL + ([NEGATIVE] if kind == "nonneg" else [])


def _values(kind: str):
    good = st.integers(1, 12) if kind.endswith("count") else st.floats(0.0, 50.0)
    return st.one_of(st.sampled_from(_bad(kind)), good)


@st.composite
def entry_calls(draw):
    name, call, valid, kinds = draw(st.sampled_from(ENTRY_POINTS))
    kwargs = dict(valid)
    for param in draw(st.lists(st.sampled_from(sorted(kinds)), min_size=1, max_size=3, unique=True)):
        kwargs[param] = draw(_values(kinds[param]))
    return name, call, kwargs, kinds


def _has_nan(x) -> bool:
    if isinstance(x, torch.Tensor):
        return bool(torch.isnan(x).any())
    return bool(np.isnan(np.asarray(x, dtype=float)).any())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry_calls())
def test_public_entry_points_refuse_bad_numbers_with_input_error_never_nan(case):
    """Any mix of valid and bad values: InputError naming one of the function's parameters, or a result
    without NaN. Never another exception type; a bad value is never accepted."""
    name, call, kwargs, kinds = case
    bad = {p: v for p, v in kwargs.items() if any(v is b for b in _bad(kinds[p]))}
    try:
        out = call(**kwargs)
    except InputError as exc:
        assert exc.param in kinds, (name, kwargs, exc.param)
        return
    assert not bad, f"{name} accepted {bad}"
    assert not _has_nan(out), (name, kwargs)


def test_effective_clients_keeps_its_numbers():
    assert effective_clients(torch.full((50,), 7)) == pytest.approx(50.0)
    assert effective_clients([0, 3, 3]) == pytest.approx(2.0)
    assert effective_clients(np.array([1, 2, 3])) == pytest.approx(36 / 14)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 50), st.booleans(),
                          st.text(max_size=2)), max_size=6))
def test_effective_clients_is_input_error_or_a_finite_count(sizes):
    """M_eff = N^2 / sum n_i^2 lies in [1, M] for valid sizes; anything else is an InputError on ``sizes``."""
    try:
        m = effective_clients(sizes)
    except InputError as exc:
        assert exc.param == "sizes"
        return
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 for v in sizes)
    assert math.isfinite(m) and 1.0 - 1e-9 <= m <= len(sizes) * (1 + 1e-9)
