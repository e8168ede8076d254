"""Checks from outside the package: the worked plugin (examples/plugin) installed and run through the
real command line, --import of a module or a file, FEDVERIFY_CHECKS, and the report's chapter."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify import cli

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin"


def fedverify(*argv, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verify.cli", *map(str, argv)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd or ROOT, timeout=300)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """``pip install ./examples/plugin`` into a directory of its own (offline, no dependency resolution),
    put on the path of the commands below: the test venv itself is not modified."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(PLUGIN)], check=True, capture_output=True, timeout=300)
    return target


def test_installed_plugin_is_listed_run_shown_and_reported(installed, tmp_path):
    env = {"PYTHONPATH": str(installed)}
    listed = fedverify("list", "--paper", "mine2025", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert [d["id"] for d in json.loads(listed.stdout)] == ["mine2025.c01"]
    res = tmp_path / "results"
    run = fedverify("run", "mine2025.c01", "--strict", "--results", res, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    stored = json.loads((res / "mine2025.c01.json").read_text())["result"]
    assert stored["verdict"] == "holds" and stored["paper_info"]["authors"] == "A. Author"
    assert stored["figure"]["panels"]
    shown = fedverify("show", "mine2025.c01", "--results", res, env=env)
    assert shown.returncode == 0 and "Theorem 1" in shown.stdout
    src = tmp_path / "report.typ"
    rep = fedverify("report", "--results", res, "--out", tmp_path / "r.pdf", "--typst", src, env=env)
    assert rep.returncode == 0, rep.stderr
    assert (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"
    typ = src.read_text()
    chapter = typ[typ.index("= Gradient descent contracts"):].replace("\\", "")  # typst escapes removed
    assert "A. Author" in chapter and "mine2025.c01" in chapter and "image(\"fig-" in chapter  # its figure
    # nothing in fedverify's own tree was edited: the plugin lives only in the install target
    assert not (ROOT / "verify" / "checks" / "mine2025.py").exists()


def test_plugin_tests_pass_with_the_inherited_contract(installed):
    out = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", str(PLUGIN / "tests")],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(installed)},
                         cwd=PLUGIN, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:]
    assert "7 passed" in out.stdout


@pytest.mark.slow  # 18 s of subprocesses; the installed-plugin test covers the path: `make test-slow` runs it
def test_import_option_takes_a_module_or_a_file_and_the_env_variable(tmp_path):
    res = tmp_path / "r"
    by_module = fedverify("--import", "examples.check_template", "run", "template2025.c01", "--strict",
                          "--results", res)
    assert by_module.returncode == 0, by_module.stderr
    by_file = fedverify("list", "--paper", "mine2025", "--import", PLUGIN / "src" / "mine2025" / "checks.py",
                        env={"PYTHONPATH": os.pathsep.join([str(PLUGIN / "src"), str(ROOT)])}, cwd=tmp_path)
    # (ROOT on the path: from tmp_path the command must still import this checkout's fedverify, not an editable
    # install made from another one)
    assert by_file.returncode == 0 and "mine2025.c01" in by_file.stdout, by_file.stderr
    by_env = fedverify("list", "--paper", "mine2025", env={"FEDVERIFY_CHECKS": "mine2025.checks",
                                                             "PYTHONPATH": str(PLUGIN / "src")})
    assert by_env.returncode == 0 and "mine2025.c01" in by_env.stdout


@pytest.mark.parametrize("argv", [["--import", "no_such_module_xyz", "list"], ["list", "--import=missing_file.py"]])
def test_a_module_that_cannot_be_imported_is_bad_input(argv, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fedverify list: error: --import: cannot import")


def test_env_variable_that_cannot_be_imported_is_bad_input(monkeypatch, capsys):
    monkeypatch.setenv("FEDVERIFY_CHECKS", "no_such_module_xyz")
    assert cli.main(["list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "FEDVERIFY_CHECKS" in err
