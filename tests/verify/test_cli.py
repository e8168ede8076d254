"""The command line: exit codes, one-line errors, resumable runs, --json, --strict."""
import json

import pytest

from verify import cli
from verify.registry import _REGISTRY, check, load_all
from verify.result import Claim, Result, Verdict

FAST = "werner2023.c15"


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_shows_werner_checks(capsys):
    code, out, _ = run(capsys, "list", "--paper", "werner2023")
    assert code == 0
    for i in range(9, 17):
        assert f"werner2023.c{i:02d}" in out
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0 and any(d["id"] == FAST for d in json.loads(out))


@pytest.mark.parametrize("argv,name", [
    (["run", "werner2023.c99"], "werner2023.c99"),
    (["run", "--all", "--replicates", "0"], "--replicates"),
    (["run", "--all", "--device", "tpu"], "--device"),
    (["run", "--all", "--seed", "-3"], "--seed"),
    (["run", "--paper", "nobody2020"], "--paper"),
    (["run"], "ID"),
    (["run", "--all", "--dtype", "float32", "--device", "cpu"], "--dtype"),
    (["show", "werner2023.c99"], "werner2023.c99"),
    (["report", "--results", "does-not-exist"], "--results"),
])
def test_bad_input_one_line_exit_2(capsys, tmp_path, monkeypatch, argv, name):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(cli.main(argv))
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2
    assert len(err.splitlines()) == 1 and name in err, err


def test_run_stores_skips_and_writes_json(capsys, tmp_path):
    res = tmp_path / "res"
    code, out, _ = run(capsys, "run", FAST, "--results", str(res), "--json", str(tmp_path / "a.json"), "--strict")
    assert code == 0 and (res / f"{FAST}.json").exists()
    arr = json.loads((tmp_path / "a.json").read_text())
    assert arr[0]["id"] == FAST and arr[0]["verdict"] == "violated"
    stamp = (res / f"{FAST}.json").stat().st_mtime_ns
    code, out, _ = run(capsys, "run", FAST, "--results", str(res))
    assert code == 0 and "stored" in out and (res / f"{FAST}.json").stat().st_mtime_ns == stamp
    code, out, _ = run(capsys, "run", FAST, "--results", str(res), "--force")
    assert (res / f"{FAST}.json").stat().st_mtime_ns != stamp
    code, out, _ = run(capsys, "run", FAST, "--results", str(res), "--seed", "5")  # other settings: rerun
    assert "stored" not in out
    code, out, _ = run(capsys, "show", FAST, "--results", str(res), "--seed", "5")  # stored beside seed 0
    assert code == 0 and "violated" in out and "finding (erratum)" in out
    # the five fields a reviewer signs, and the command that reproduces this very run
    for field in ("paper says:", "correction:", "witness:", "second argument:", f"reproduce: fedverify run {FAST} --seed 5"):
        assert field in out, field


@pytest.fixture
def planted_checks():
    """Two throwaway checks: one whose verdict differs from expected, one that crashes."""
    load_all()

    def mk(cid, verdict):
        return Result(id=cid, paper="zz0000", title="planted", claim=Claim("planted"), kind="bound",
                      verdict=verdict, expected=Verdict.HOLDS)

    @check("zz0000.c01", "planted mismatch", "bound", "holds", statements=("Theorem 1",))
    def mismatch(ctx):
        return mk("zz0000.c01", Verdict.VIOLATED)

    @check("zz0000.c02", "planted crash", "bound", "holds", statements=("Theorem 1",))
    def crash(ctx):
        raise RuntimeError("planted failure")

    @check("zz0000.c03", "planted interrupt", "bound", "holds", statements=("Theorem 1",))
    def interrupted(ctx):
        raise KeyboardInterrupt

    yield
    for cid in ("zz0000.c01", "zz0000.c02", "zz0000.c03"):
        _REGISTRY.pop(cid)


def test_strict_exit_1_on_mismatch_and_crash_keeps_finished(capsys, tmp_path, planted_checks):
    res = tmp_path / "r"
    code, out, _ = run(capsys, "run", "zz0000.c01", "--results", str(res), "--quiet")
    assert code == 0  # not strict: a mismatch is a finding, not a toolkit failure
    code, out, err = run(capsys, "run", "zz0000.c01", "--results", str(res), "--strict", "--force", "--quiet")
    assert code == 1 and "zz0000.c01" in err
    code, out, _ = run(capsys, "run", "zz0000.c02", "zz0000.c01", "--results", str(res), "--quiet")
    assert code == cli.EXIT_CRASH == 3 and "FAILED" in out and (res / "zz0000.c01.json").exists()


def test_interrupted_run_keeps_what_finished(capsys, tmp_path, planted_checks):
    res = tmp_path / "r"
    code, out, err = run(capsys, "run", "zz0000.c01", "zz0000.c03", "--results", str(res), "--quiet")
    assert code == 130 and "interrupted" in err
    assert (res / "zz0000.c01.json").exists() and not (res / "zz0000.c03.json").exists()
    code, out, _ = run(capsys, "run", "zz0000.c01", "--results", str(res), "--quiet")
    assert "stored" in out  # the restart redoes only what is missing


def test_changed_check_code_is_not_reused(capsys, tmp_path, monkeypatch):
    import verify.codehash
    import verify.registry

    res = tmp_path / "res"
    run(capsys, "run", FAST, "--results", str(res), "--quiet")
    # an edit of the check's source: both the stored-Result shortcut and the full path see a new hash
    for mod in (verify.codehash, verify.registry):
        monkeypatch.setattr(mod, "closure_hash", lambda module: "edited")
    code, out, _ = run(capsys, "run", FAST, "--results", str(res), "--quiet")
    assert code == 0 and "stored" not in out


def test_internal_config_error_is_a_toolkit_failure(capsys, tmp_path, planted_checks):
    from analytic.errors import InputError

    @check("zz0000.c04", "planted internal error", "bound", "holds", statements=("Theorem 1",))
    def internal(ctx):
        raise InputError("X", "internal shape mismatch")

    try:
        code, out, err = run(capsys, "run", "zz0000.c04", "zz0000.c01", "--results", str(tmp_path / "r"), "--quiet",
                             "--json", str(tmp_path / "a.json"))
        assert code == cli.EXIT_CRASH and "FAILED" in out and (tmp_path / "r" / "zz0000.c01.json").exists()
        assert json.loads((tmp_path / "a.json").read_text())[0]["id"] == "zz0000.c01"
    finally:
        _REGISTRY.pop("zz0000.c04")


def test_json_means_the_same_in_every_subcommand(capsys, tmp_path):
    """--json FILE writes FILE; --json - (or a bare --json) prints the JSON and nothing else on stdout."""
    res = str(tmp_path / "res")
    code, out, _ = run(capsys, "run", "werner2023.c01", "--results", res, "--quiet", "--json", "-")
    assert code == 0 and json.loads(out)[0]["id"] == "werner2023.c01"
    code, out, _ = run(capsys, "show", "werner2023.c01", "--results", res, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "reproduced"
    code, out, _ = run(capsys, "list", "--paper", "werner2023", "--results", res, "--json", "-")
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows["werner2023.c01"]["verdict"] == "reproduced" and "verdict" not in rows["werner2023.c09"]
    acct = ["--mechanism", "cdp", "--n", "10", "--f", "3", "--q", "1", "--sigma-ind", "1", "--clip", "1", "--steps", "100",
            "--delta", "1e-5"]
    code, out, _ = run(capsys, "privacy", *acct, "--json", "-")
    assert code == 0 and "epsilon" in json.dumps(json.loads(out))
    target = tmp_path / "p.json"
    code, out, _ = run(capsys, "privacy", *acct, "--json", str(target))
    assert code == 0 and json.loads(target.read_text()) and "epsilon" in out.lower()


def test_show_and_list_state_how_hard_a_holds_was_tested(capsys, tmp_path):
    res = str(tmp_path / "res")
    run(capsys, "run", "werner2023.c17", "--results", res, "--quiet")
    code, out, _ = run(capsys, "show", "werner2023.c17", "--results", res)
    assert "verdict holds, loose" in out and "margin: worst observed/bound" in out and "power: a bound" in out
    code, out, _ = run(capsys, "list", "--paper", "werner2023", "--results", res)
    assert any(line.startswith("werner2023.c17") and "holds" in line and "loose" in line for line in out.splitlines())


def test_a_reader_that_stops_early_ends_the_command_quietly():
    import subprocess
    import sys

    p = subprocess.run(f"{sys.executable} -m verify.cli list --json | head -c 20", shell=True, capture_output=True,
                       text=True, timeout=120)
    assert p.stdout.startswith("[") and "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr
