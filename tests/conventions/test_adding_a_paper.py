"""docs/adding-a-paper.md stays true: a minimal sixth paper, added by its steps to a temporary copy of the packages
(new files only, no edit of an existing one), is listed, run and shown through the real command line."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("analytic", "verify", "counterexamples", "reports")

THEORY = '''
"""toy2026: one theorem, to show the steps of docs/adding-a-paper.md."""
import sympy as sp

from analytic.bounds import Bound
from analytic.papers import Paper

PAPER = Paper(key="toy2026", title="The mean of n samples (a sixth paper)", authors="T. Oy", venue="tests", year=2026,
              summary="The sample mean of n standard normal draws has mean squared error 1/n (Theorem 1).")
n = sp.Symbol("n", positive=True)
THEOREM_1 = Bound(name="Theorem 1", expr=1 / n, kind="upper", statement="E (mean of n draws)^2 <= 1/n.",
                  source="toy2026, Theorem 1, eq. (1)")
'''

STATEMENTS = '''
"""toy2026's numbered statements: what its checks name, each with its card."""
from analytic.papers.toy2026 import THEOREM_1
from analytic.statements import Statement, statement_table

STATEMENTS = statement_table("toy2026", Statement("toy2026", "Theorem 1", "E (mean of n draws)^2 <= 1/n (1).", 3,
                                                  bounds=(THEOREM_1,), main=True))
'''

CHECKS = '''
"""toy2026 Claim 1: Theorem 1's rate 1/n."""
import numpy as np
import torch

from analytic.papers.toy2026 import PAPER, THEOREM_1
from analytic.papers.toy2026_statements import STATEMENTS
from verify.engine import Context
from verify.fit import rate_verdict
from verify.registry import check, register_paper, result_for
from verify.result import Claim, Result

register_paper(PAPER, STATEMENTS)


@check("toy2026.c01", "Theorem 1: the sample mean's squared error falls like 1/n", "rate", "holds", statements=("Theorem 1",),
       no_control="a rate of one estimator; a planted wrong exponent is its falsifier")
def c01_mean_rate(ctx: Context, *, theory=THEOREM_1, ns=(10, 30, 100, 300, 1000)) -> Result:
    """The squared error of the mean of n N(0, 1) draws, over replicates, against Theorem 1's 1/n (eq. (1))."""
    R = ctx.reps(quick=400, full=4000)
    gen = ctx.generator("draws")
    err = np.stack([(torch.randn(R, n, generator=gen, dtype=ctx.dtype).mean(1) ** 2).numpy() for n in ns], 1)
    verdict, fit = rate_verdict(np.asarray(ns, float), err, theory, param="n", tol=0.15, rng=ctx.numpy_rng("fit"))
    return result_for(ctx, Claim(theory.statement, source=theory.source), verdict,
                      observed={"n": np.asarray(ns), "mean_squared_error": err.mean(0)}, predicted={"rate": "1/n"},
                      fit=fit, explanation="The squared error of the sample mean against 1/n.")
'''


def _copy_tree(dst: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=ignore)
    (dst / "docs" / "papers").mkdir(parents=True)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for pkg in PACKAGES for p in (root / pkg).rglob("*.py")}


@pytest.fixture(scope="module")
def sixth(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    _copy_tree(root)
    before = _snapshot(root)
    # the steps of docs/adding-a-paper.md: the theory, our reading, the checks (new files only)
    (root / "analytic" / "papers" / "toy2026.py").write_text(textwrap.dedent(THEORY))
    (root / "analytic" / "papers" / "toy2026_statements.py").write_text(textwrap.dedent(STATEMENTS))
    (root / "docs" / "papers" / "toy2026.md").write_text("# toy2026\n\n## 6. Checkable claims\n\n1. Theorem 1.\n")
    pkg = root / "verify" / "checks" / "toy2026"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""toy2026: the checks of this paper."""\n')
    (pkg / "mean.py").write_text(textwrap.dedent(CHECKS))
    after = _snapshot(root)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing that existed was edited
    assert sorted(set(after) - set(before)) == ["analytic/papers/toy2026.py", "analytic/papers/toy2026_statements.py",
                                                "verify/checks/toy2026/__init__.py", "verify/checks/toy2026/mean.py"]
    return root


def _fedverify(root: Path, *argv) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root), "XDG_CACHE_HOME": str(root / "cache")}
    return subprocess.run([sys.executable, "-m", "verify.cli", *map(str, argv)], capture_output=True, text=True,
                          env=env, cwd=root, timeout=300)


def test_the_sixth_paper_is_listed_run_and_shown(sixth):
    listed = _fedverify(sixth, "list", "--paper", "toy2026", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [d["id"] for d in json.loads(listed.stdout)] == ["toy2026.c01"]
    res = sixth / "results"
    run = _fedverify(sixth, "run", "toy2026.c01", "--strict", "--results", res)
    assert run.returncode == 0, run.stdout + run.stderr
    stored = json.loads((res / "toy2026.c01.json").read_text())["result"]
    assert stored["verdict"] == "holds" and stored["paper_info"]["authors"] == "T. Oy"
    shown = _fedverify(sixth, "show", "toy2026.c01", "--results", res)
    assert shown.returncode == 0 and "Theorem 1" in shown.stdout


def test_a_planted_wrong_rate_in_the_sixth_paper_is_violated(sixth):
    code = ("import sympy as sp; from analytic.bounds import Bound; from verify.engine import Context; "
            "from verify.registry import get; n = sp.Symbol('n', positive=True); "
            "wrong = Bound(name='planted', expr=n ** -2, kind='upper', statement='1/n^2', source='planted'); "
            "print(get('toy2026.c01')(Context(seed=0), theory=wrong).verdict.value)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=sixth,
                         env={**os.environ, "PYTHONPATH": str(sixth), "XDG_CACHE_HOME": str(sixth / "cache")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "violated"
