"""The one convention for a check (DESIGN.md): a direct call is `fedverify run` bit for bit, verdicts
come only from verify/fit.py, settings are keyword arguments, and the template CI runs follows it."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

from examples.check_template import MEAN_ERROR, c01_sample_mean
from verify import cli
from verify.checks.werner2023.threshold_clustering import c09_oracle_scaling
from verify.engine import Context
from verify.registry import load_all
from verify.store import ResultStore
from verify.testing import CheckContract

CHECKS = load_all()
ROOT = Path(__file__).resolve().parents[2]


def test_direct_call_equals_fedverify_run_bit_for_bit(tmp_path, capsys):
    assert cli.main(["run", "werner2023.c09", "--results", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    stored = ResultStore(tmp_path).load("werner2023.c09")
    direct = c09_oracle_scaling(Context())
    a, b = direct.to_dict(), stored.to_dict()
    for field in ("observed", "predicted", "fit", "verdict", "explanation", "figure", "assumptions"):
        assert a[field] == b[field], field  # JSON keeps every float exactly: equality is bit for bit
    assert np.array_equal(direct.arrays["errors"], stored.arrays["errors"])  # every replicate, bit for bit


def _check_modules() -> list[Path]:
    """Every module that registers a check, and every module beside them (shared helpers of a paper's checks)."""
    registering = {Path(inspect.getsourcefile(spec.func)) for spec in CHECKS.values()}
    folders = {p.parent for p in registering if p.is_relative_to(ROOT)}
    return sorted(p for f in folders for p in f.glob("*.py")
                  if p.name != "__init__.py" and not p.name.startswith("cli_") and p.name not in ("demo.py", "figures.py"))


FORBIDDEN = {"Verdict": "a check reads a verdict's .passed; it never names a Verdict member",
             "interval_verdict": "verdict atoms live in verify/fit.py",
             "Result": "the Result is built by result_for(ctx, ...)"}


@pytest.mark.parametrize("path", _check_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_check_builds_a_verdict_or_a_result_by_hand(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in FORBIDDEN and not isinstance(node.ctx, ast.Store):
            if node.id == "Result" and not _is_called(tree, node):
                continue  # the return annotation `-> Result` is fine
            pytest.fail(f"{path.name}:{node.lineno}: {node.id}: {FORBIDDEN[node.id]}")
        if isinstance(node, ast.Attribute) and node.attr in ("HOLDS", "VIOLATED", "INCONCLUSIVE", "REPRODUCED",
                                                              "NOT_REPRODUCED"):
            pytest.fail(f"{path.name}:{node.lineno}: .{node.attr}: {FORBIDDEN['Verdict']}")


def _is_called(tree: ast.AST, name: ast.Name) -> bool:
    return any(isinstance(n, ast.Call) and n.func is name for n in ast.walk(tree))


@pytest.mark.parametrize("check_id", list(CHECKS))
def test_settings_are_keyword_arguments_with_defaults(check_id):
    params = list(inspect.signature(CHECKS[check_id].func).parameters.values())
    assert params[0].name == "ctx", f"{check_id}: the first parameter is the Context"
    for p in params[1:]:
        assert p.kind == p.KEYWORD_ONLY and p.default is not p.empty, f"{check_id}: {p.name} must be keyword-only with a default"


def test_a_check_refuses_to_build_a_result_outside_its_registration():
    with pytest.raises(RuntimeError, match="not bound"):
        c01_sample_mean.func(Context())  # the undecorated function: its context carries no check id


def test_overrides_are_recorded_and_the_default_run_carries_none():
    r = c01_sample_mean(Context(replicates=10), ns=(4, 16))
    assert r.env["overrides"] == {"ns": "(4, 16)"}
    assert "overrides" not in c01_sample_mean(Context(replicates=10)).env


class TestTemplate(CheckContract):
    """The template CI runs: its contract, with a planted wrong constant."""

    check = c01_sample_mean
    planted = {"theory": MEAN_ERROR.scaled(0.5)}


def test_template_planted_wrong_exponent_is_violated():
    import sympy as sp

    from analytic.bounds import Bound

    n = sp.Symbol("n", positive=True)
    r = c01_sample_mean(Context(), theory=Bound("planted 1/n^2", 20 / n**2, "exact"))
    assert r.verdict.value == "violated"
