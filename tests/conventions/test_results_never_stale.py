"""A stored Result is reused only for the code that produced it: a one-line edit anywhere a check can
reach reruns it, an edit it cannot reach does not (run in a temporary copy of the packages)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("analytic", "verify", "counterexamples", "reports")
IDS = ("werner2023.c15", "werner2023.c16", "allouah2025.c09")


@pytest.fixture
def copy(tmp_path) -> Path:
    src = tmp_path / "src"
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return src


def run(src: Path, results: Path, *ids) -> dict[str, str]:
    """``fedverify run`` on the copy; returns each check's fate: 'ran' or 'stored'."""
    out = subprocess.run([sys.executable, "-m", "verify.cli", "run", *ids, "--results", str(results), "--quiet"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(src)}, cwd=src,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    fate = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s+([=✓✗])\s+(\S+)", line)
        if m:
            fate[m.group(2)] = "stored" if m.group(1) == "=" else "ran"
    return fate


def edit_one_line(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) >= 1, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_copy_is_what_runs(copy):
    out = subprocess.run([sys.executable, "-c", "import verify.fit; print(verify.fit.__file__)"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(copy)}, cwd=copy)
    assert out.stdout.strip() == str(copy / "verify" / "fit.py")


def test_a_one_line_edit_reruns_exactly_the_results_that_can_reach_it(copy, tmp_path):
    res = tmp_path / "results"
    assert set(run(copy, res, *IDS).values()) == {"ran"}
    assert set(run(copy, res, *IDS).values()) == {"stored"}
    edit_one_line(copy / "analytic" / "papers" / "werner2023.py", "sigma, Delta, n, beta, delta, tau =",
                  "sigma, Delta, n, beta, delta, tau = ")  # one character, in a module only werner's checks reach
    assert run(copy, res, *IDS) == {"werner2023.c15": "ran", "werner2023.c16": "ran", "allouah2025.c09": "stored"}
    edit_one_line(copy / "verify" / "checks" / "allouah2025" / "privacy.py", "C9_TITLE =", "C9_TITLE  =")
    assert run(copy, res, *IDS) == {"werner2023.c15": "stored", "werner2023.c16": "stored", "allouah2025.c09": "ran"}
    edit_one_line(copy / "verify" / "fit.py", "DEFAULT_LEVEL = 0.95", "DEFAULT_LEVEL = 0.95  # edited")  # every check
    assert run(copy, res, *IDS) == {i: "ran" for i in IDS}


def test_a_lazy_import_inside_a_function_counts(copy, tmp_path):
    """counterexamples.demo imports verify.registry inside a function: the closure follows it."""
    from verify.registry import module_closure

    assert "verify.registry" in module_closure("counterexamples.demo")
    assert "analytic.papers.werner2023" in module_closure("verify.checks.werner2023.threshold_clustering")
    assert "analytic.papers.werner2023" not in module_closure("verify.checks.allouah2025.privacy")
