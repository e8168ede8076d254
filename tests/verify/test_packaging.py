"""The package as installed: the wheel's C sources and LICENSE, the extras' one-line errors, verify.api.run and
load_results."""
import importlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from verify import cli
from verify.extras import EXTRAS, MissingExtra, require

ROOT = Path(__file__).resolve().parents[2]
FAST = "werner2023.c15"


def test_wheel_carries_c_sources_and_license(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = zipfile.ZipFile(next(tmp_path.glob("fedverify-*.whl"))).namelist()
    for src in ROOT.rglob("*.c"):
        rel = src.relative_to(ROOT).as_posix()
        if rel.split("/")[0] in ("verify", "analytic", "reports", "counterexamples"):
            assert rel in names, rel
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "MIT License" in (ROOT / "LICENSE").read_text()


def test_missing_extra_is_one_line_naming_it(monkeypatch, capsys, tmp_path):
    real = importlib.import_module

    def no_typst(name, *a, **k):
        if name == "typst":
            raise ModuleNotFoundError("No module named 'typst'", name="typst")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", no_typst)
    with pytest.raises(MissingExtra) as exc:
        require("typst")
    assert "pip install 'fedverify[report]'" in str(exc.value)
    assert cli.main(["report", "--results", str(tmp_path), "--out", str(tmp_path / "r.pdf")]) == cli.EXIT_MISSING
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fedverify[report]" in err
    assert {extra for extra, _ in EXTRAS.values()} == {"report", "sweep", "search"}


def test_api_run_and_load_results(tmp_path):
    from verify.api import load_results, run

    res = tmp_path / "res"
    out = run(FAST, seeds=[0, 1], results=res)
    assert [(r.id, r.env["seed"]) for r in out] == [(FAST, 0), (FAST, 1)]
    assert (res / f"{FAST}.json").exists() and (res / "sweep" / FAST).is_dir()
    again = run([FAST], seeds="0-1", results=res)  # read back, not rerun
    assert [r.env["wall_time_s"] for r in again] == [r.env["wall_time_s"] for r in out]
    table = load_results(res)
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    assert sorted((r["id"], r["seed"]) for r in rows) == [(FAST, 0), (FAST, 1)]
    assert all(r["verdict"] == out[0].verdict.value for r in rows)
