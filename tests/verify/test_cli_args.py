"""Shared command-line pieces: flags for library parameter names, the one integer parser, the
constants dispatcher, and a broken installed plugin that must not hide the other checks."""
from __future__ import annotations

import argparse
import json

import pytest

from analytic.constants import Constant
from analytic.errors import InputError
from verify import cli, cli_constants, registry
from verify.cli_args import flag_for, parse_int, parse_number


@pytest.mark.parametrize("param,flags,flag", [("sigma_cor", None, "--sigma-cor"), ("T", {"T": "--steps"}, "--steps"),
                                              ("ID", None, "ID"), ("--seed", None, "--seed"), ("f", None, "--f"),
                                              ("FEDVERIFY_CHECKS", None, "FEDVERIFY_CHECKS"), ("sigma, Delta", None, "sigma, Delta")])
def test_flag_for(param, flags, flag):
    assert flag_for(param, flags) == flag


def test_parse_int_and_number_name_the_parameter():
    assert parse_int("12", "n") == 12 and parse_int("1e3", "n") == 1000 and parse_int(7, "n") == 7
    for bad in ("1.5", "inf", "nan", "ten", 2.5, True):
        with pytest.raises(InputError) as info:
            parse_int(bad, "n")
        assert info.value.param == "n"
    with pytest.raises(InputError, match="must be an integer >= 2"):
        parse_int("1", "replicates", 2)
    assert parse_number("2.5", "x") == 2.5 and parse_number("inf", "x", allow_inf=True) == float("inf")
    with pytest.raises(InputError):
        parse_number("inf", "x")


@pytest.fixture
def toy_problem(monkeypatch):
    """A constants problem registered for the test only (the real ones live in verify/problems)."""
    def add(p: argparse.ArgumentParser):
        p.add_argument("--scale", default="2")

    def compute(args):
        s = parse_number(args.scale, "scale")
        if s <= 0:
            raise InputError("scale", "must be > 0")
        return [Constant("L", 2 * s, "exact", "twice the scale"), Constant("A2", float("inf"), "exact", "no shared optimum")]

    monkeypatch.setitem(cli_constants.PROBLEMS, "toy", cli_constants.ConstantsProblem("toy", "a toy", add, compute))
    monkeypatch.setattr(cli_constants, "load_problems", lambda: dict(cli_constants.PROBLEMS))


def test_constants_dispatcher_prints_labels_and_writes_json(toy_problem, tmp_path, capsys):
    out = tmp_path / "c.json"
    assert cli.main(["constants", "toy", "--scale", "3", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "L" in text and "(exact)" in text and "infinite" in text
    doc = json.loads(out.read_text())
    assert doc["constants"]["L"]["value"] == 6.0 and doc["constants"]["A2"]["value"] == "inf"
    assert cli.main(["constants", "toy", "--scale", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "fedverify constants: error: --scale: must be > 0"


def test_constant_labels_are_checked():
    with pytest.raises(ValueError):
        Constant("L", 1.0, "guess", "")


def test_a_broken_installed_plugin_is_reported_and_does_not_hide_the_others(monkeypatch, capsys):
    class EP:
        value = "no_such_plugin_module_xyz"

    from verify import catalog

    real = registry.entry_points
    installed = lambda group: [*real(group=group), EP()]  # noqa: E731
    monkeypatch.setattr(registry, "entry_points", installed)
    monkeypatch.setattr(catalog, "entry_points", installed)  # the fast listing must fall back and say so too
    monkeypatch.setattr(registry, "_plugin_errors", {})
    assert cli.main(["list", "--paper", "werner2023"]) == 0
    out = capsys.readouterr()
    assert "werner2023.c09" in out.out and "no_such_plugin_module_xyz" in out.err
    assert cli.main(["run", "zz9999.c01"]) == 2
    assert "failed to import" in capsys.readouterr().err
