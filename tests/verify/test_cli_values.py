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
