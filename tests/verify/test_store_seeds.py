"""Results keyed by seed and grid point: run --seed S beside seed 0, show --seed/--grid, `fedverify results`,
files of earlier versions still read, a full disk from the command line."""
import csv
import errno
import json
from pathlib import Path

import numpy as np
import pytest
import torch

import verify.store as store_mod
from verify import cli
from verify.result import Claim, Result, Verdict
from verify.store import SWEEP_DIR, ResultStore
from verify.store_files import grid_key

CHEAP = "su2022.c04"  # about 0.2 s with one torch thread; its numbers move with the seed


@pytest.fixture
def one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def show_json(capsys, results, *extra) -> dict:
    capsys.readouterr()
    assert cli.main(["show", CHEAP, "--results", str(results), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_run_seed_1_is_stored_beside_seed_0_and_show_reads_both(tmp_path, capsys, one_thread):
    for seed in ("0", "1"):
        assert cli.main(["run", CHEAP, "--seed", seed, "--results", str(tmp_path), "--quiet"]) == 0
    r0, r1 = show_json(capsys, tmp_path, "--seed", "0"), show_json(capsys, tmp_path, "--seed", "1")
    assert (r0["env"]["seed"], r1["env"]["seed"]) == (0, 1) and r0["observed"] != r1["observed"]
    assert show_json(capsys, tmp_path) == r0  # without --seed: seed 0, as the report reads it
    assert (tmp_path / SWEEP_DIR / CHEAP / "s1.json").exists()
    assert cli.main(["run", CHEAP, "--seed", "1", "--results", str(tmp_path)]) == 0  # found, not rerun
    assert "(stored; --force reruns)" in capsys.readouterr().out
    assert cli.main(["show", CHEAP, "--seed", "5", "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "at seed 5" in err and "(stored: seed 0, seed 1)" in err and f"run '{'fedverify run'} {CHEAP} --seed 5'" in err


def test_results_csv_has_one_row_per_stored_result_of_a_sweep(tmp_path, capsys, one_thread):
    assert cli.main(["sweep", CHEAP, "--seeds", "0-1", "--grid", "clients=200,300", "--workers", "1", "--quiet",
                     "--results", str(tmp_path)]) == 0
    assert cli.main(["run", CHEAP, "--seed", "2", "--results", str(tmp_path), "--quiet"]) == 0
    names = sorted(p.name for p in (tmp_path / SWEEP_DIR / CHEAP).glob("*.json"))
    assert names == ["s0.clients=200.g" + grid_key({"clients": 200}) + ".json",
                     "s0.clients=300.g" + grid_key({"clients": 300}) + ".json",
                     "s1.clients=200.g" + grid_key({"clients": 200}) + ".json",
                     "s1.clients=300.g" + grid_key({"clients": 300}) + ".json", "s2.json"]
    out = tmp_path / "rows.csv"
    capsys.readouterr()
    assert cli.main(["results", "--results", str(tmp_path), "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 5 == len({(r["seed"], r["grid"]) for r in rows})
    assert sorted((r["seed"], r["grid"]) for r in rows) == [
        ("0", '{"clients":200}'), ("0", '{"clients":300}'), ("1", '{"clients":200}'), ("1", '{"clients":300}'),
        ("2", "")]
    assert all(r["id"] == CHEAP and r["verdict"] == r["expected"] == "holds" and Path(r["file"]).exists() for r in rows)
    one = show_json(capsys, tmp_path, "--seed", "1", "--grid", "clients=300")
    assert one["env"]["seed"] == 1 and one["env"]["overrides"] == {"clients": "300"}
    assert cli.main(["results", "--results", str(tmp_path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 5
    assert cli.main(["results", "--results", str(tmp_path), "--paper", "werner2023", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert cli.main(["show", CHEAP, "--grid", "clients=200,300", "--results", str(tmp_path)]) == 2


def make_result(tag=0.0, seed=0):
    return Result(id=CHEAP, paper="su2022", title="t", claim=Claim("c"), kind="identity", verdict=Verdict.HOLDS,
                  expected=Verdict.HOLDS, observed={"tag": float(tag)}, env={"seed": seed},
                  arrays={"trace": np.full(4, float(tag))})


def legacy_save(path: Path, result: Result, run_config: dict, point: dict | None = None) -> None:
    """A file as the previous version wrote it: format 1, arrays at <stem>.npz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"format": 1, "run_config": run_config, "result": result.to_dict(), **({"point": point} if point else {})}
    path.write_text(json.dumps(doc))
    np.savez_compressed(path.with_suffix(".npz"), **result.arrays)


def test_files_of_the_previous_layout_stay_readable(tmp_path):
    st = ResultStore(tmp_path)
    grid = {"m": 5}
    old = tmp_path / SWEEP_DIR / CHEAP / f"s3.g{grid_key(grid)}.json"  # a grid point under its hash alone
    legacy_save(old, make_result(7, seed=3), {"seed": 3}, {"seed": 3, "grid": grid})
    assert st.load(CHEAP, seed=3, grid=grid).arrays["trace"][0] == 7.0
    assert st.is_done(CHEAP, {"seed": 3}, seed=3, grid=grid)
    assert [(s, g) for s, g, _ in st.load_points(CHEAP)[0]] == [(3, grid)]
    st.save(make_result(8, seed=3), {"seed": 3}, seed=3, grid=grid)  # rewritten under the readable name
    assert not old.exists() and not old.with_suffix(".npz").exists()
    assert [p.name for p in old.parent.glob("*.json")] == [f"s3.m=5.g{grid_key(grid)}.json"]
    assert st.load(CHEAP, seed=3, grid=grid).arrays["trace"][0] == 8.0


def test_a_top_level_file_of_seed_1_is_seed_1_and_moves_before_seed_0_is_stored(tmp_path):
    st = ResultStore(tmp_path)
    legacy_save(st.json_path(CHEAP), make_result(1, seed=1), {"seed": 1})  # the old `run --seed 1`
    assert st.load(CHEAP, seed=1).observed["tag"] == 1.0 and st.is_done(CHEAP, {"seed": 1}, seed=1)
    assert not st.is_done(CHEAP, {"seed": 0}, seed=0)
    st.save(make_result(0), {"seed": 0}, seed=0)  # seed 0 takes the top-level file; seed 1 is kept
    assert st.load(CHEAP, seed=0).observed["tag"] == 0.0 and st.load(CHEAP).observed["tag"] == 0.0
    assert st.load(CHEAP, seed=1).observed["tag"] == 1.0 and st.run_config(CHEAP, seed=1) == {"seed": 1}
    assert (tmp_path / SWEEP_DIR / CHEAP / "s1.json").exists() and not st.json_path(CHEAP).with_suffix(".npz").exists()


def test_a_full_disk_ends_run_with_one_line_naming_the_directory(tmp_path, capsys, monkeypatch, one_thread):
    assert cli.main(["run", CHEAP, "--results", str(tmp_path), "--quiet"]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    real = store_mod.atomic_write

    def full(path, write):
        def fail(fh):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, fail)

    monkeypatch.setattr(store_mod, "atomic_write", full)
    capsys.readouterr()
    assert cli.main(["run", CHEAP, "--results", str(tmp_path), "--quiet", "--force"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path) in err[0] and "no space left" in err[0] and "Traceback" not in err[0]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before  # everything intact

