"""The command line refuses nonsense before any work starts: one line on stderr, exit 2, no traceback.

--grid values against each check's signature; the ranges of the demos', constants' and privacy's knobs;
a broken ``fedverify.commands`` entry point warns once and leaves the other commands working.
"""
from __future__ import annotations

import pytest

from verify.cli import main


def _one_line_exit_2(capsys, argv, *needles):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, code, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


@pytest.mark.parametrize("grid, says", [
    ("m=-5", "must be an integer >= 0"),
    ("m=abc", "expected an integer"),
    ("m=1e999", "expected an integer"),
    ("m=(4,16", "do not pair up"),
    ("sigma=1e999", "must be finite"),
    ("sigma=-1.0", "must be >= 0"),
])
def test_grid_values_are_checked_against_the_signature(tmp_path, capsys, grid, says):
    _one_line_exit_2(capsys, ["sweep", "su2022.x04", "--seeds", "0", "--grid", grid, "--results", str(tmp_path),
                              "--quiet", "--workers", "1"], "--grid", says)
    assert not any(tmp_path.rglob("*.json"))


def test_a_bound_keyword_given_a_number_is_refused(tmp_path, capsys):
    _one_line_exit_2(capsys, ["sweep", "dutta2023.c15", "--seeds", "0", "--grid", "theory=1.0", "--results",
                              str(tmp_path), "--quiet", "--workers", "1"], "--grid", "expects a Bound")


def test_grid_value_rules():
    from analytic.errors import InputError
    from verify.cli_args import _like

    assert _like(3, 5, "m") == 3 and _like(2.0, 5, "m") == 2 and _like(0.5, 1.0, "s") == 0.5
    assert _like((1, 2), (4, 16), "ns") == (1, 2) and _like("A3", "A1", "attack") == "A3"
    assert _like(-0.5, -1.0, "shift") == -0.5  # a negative default allows a negative value
    for value, default in [(True, 5), (1.5, 5), ("x", 1.0), (1, True), (3, "A1"), ((1, "a"), (4, 16)), (4, (4, 16))]:
        with pytest.raises(InputError):
            _like(value, default, "k")


@pytest.mark.parametrize("body", ["raise RuntimeError('boom on import')",
                                  "def add_parser(sub):\n    raise ValueError('boom in add_parser')\n"])
def test_a_broken_command_entry_point_warns_once_and_the_rest_works(tmp_path, monkeypatch, capsys, body):
    import importlib.metadata as md

    import verify.cli as cli

    (tmp_path / "fv_broken_cmd.py").write_text(body + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    real = cli.entry_points

    def with_broken(group):
        return [*real(group=group), md.EntryPoint("broken", "fv_broken_cmd", group)]

    monkeypatch.setattr(cli, "entry_points", with_broken)
    code = main(["list", "--paper", "werner2023"])
    captured = capsys.readouterr()
    assert code == 0 and "werner2023." in captured.out
    assert captured.err.count("subcommand 'broken' unavailable") == 1 and "Traceback" not in captured.err


def test_replicates_between_the_two_memory_guards_exit_2(tmp_path, monkeypatch, capsys):
    """--replicates that the Context's guard (8 bytes each) lets through but a check's own guard refuses (the
    points [R, K n, d] of werner2023.c09) is the user's size: exit 2 with the 'too large' line, not FAILED."""
    import analytic.validate as validate

    monkeypatch.setattr(validate, "physical_memory", lambda: 1 << 30)  # 1 GiB: R = 1e8 passes 8 R bytes
    code = main(["run", "werner2023.c09", "--replicates", "100000000", "--results", str(tmp_path), "--quiet",
                 "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 2, captured
    assert "too large for this machine" in captured.out + captured.err and "FAILED" not in captured.out
    assert "Traceback" not in captured.err


def test_a_too_large_allocation_survives_pickling_as_such():
    import pickle

    from analytic.validate import TooLarge, memory

    with pytest.raises(TooLarge) as info:
        memory("replicates", 1 << 62, 8)
    back = pickle.loads(pickle.dumps(info.value))
    assert isinstance(back, TooLarge) and back.param == "replicates" and back.message == info.value.message


def test_constants_least_squares_with_a_zero_matrix_is_bad_input(tmp_path, capsys):
    import numpy as np

    np.savez(tmp_path / "a0.npz", A=np.zeros((6, 10, 3)), b=np.zeros((6, 10)))
    _one_line_exit_2(capsys, ["constants", "least-squares", str(tmp_path / "a0.npz")], "FILE", "L = 0")


@pytest.mark.parametrize("flag", ["--sigma-ind", "--sigma-cor"])
def test_privacy_refuses_a_noise_whose_variance_underflows(capsys, flag):
    _one_line_exit_2(capsys, ["privacy", "--mechanism", "secldp", "--n", "10", "--f", "2", flag, "1e-300"],
                     flag, "underflows")


def test_privacy_at_a_tiny_but_representable_noise_prints_a_finite_epsilon(capsys):
    assert main(["privacy", "--mechanism", "ldp", "--sigma-ind", "1e-150", "--json", "-"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert all(0 < e < float("inf") for e in doc["epsilon"].values())


@pytest.mark.parametrize("argv, flag", [
    (["demo", "graph", "--tau", "1e9"], "--tau"),
    (["demo", "byzantine", "--tau", "2.5"], "--tau"),
    (["demo", "myopic", "--start", "1e308"], "--start"),
    (["demo", "cfl", "--batch", "1e9"], "--batch"),
    (["demo", "myopic", "--rounds", "1e9"], "--rounds"),
])
def test_demo_knobs_out_of_range_are_refused_before_any_work(tmp_path, capsys, argv, flag):
    _one_line_exit_2(capsys, [*argv, "--out", str(tmp_path)], flag)
    assert not any(tmp_path.iterdir())
