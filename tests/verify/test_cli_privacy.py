"""`fedverify privacy` (verify/cli_privacy.py), driven through the real command line."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from analytic import privacy as P
from verify import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ACCEPTANCE = ["--mechanism", "secldp", "--n", "10", "--f", "3", "--q", "1", "--sigma-cor", "0.70710678",
              "--sigma-ind", "0.4472136", "--clip", "1", "--steps", "100", "--delta", "1e-5"]


def _run(argv, capsys):
    """Through the real command line; returns (code, stdout, stderr)."""
    try:
        code = cli.main(["privacy", *argv])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_acceptance_case(capsys, tmp_path):
    path = tmp_path / "p.json"
    code, out, err = _run([*ACCEPTANCE, "--json", str(path)], capsys)
    assert code == 0 and err == ""
    rep = json.loads(path.read_text())
    eps = rep["epsilon"]
    assert round(eps["mironov_optimal"], 2) == 112.97
    assert eps["balle_grid"] <= eps["mironov_optimal"]
    assert rep["alpha"]["mironov_optimal"] == pytest.approx(1.437012, abs=5e-7)
    assert rep["alpha"]["balle_grid"] in P.OPACUS_ORDERS
    assert rep["rdp_per_step"] == pytest.approx(0.602836879, rel=1e-7)
    assert rep["sigma_eff2"] == pytest.approx(2 / 0.602836879, rel=1e-7)
    assert rep["condition_holds"] is False and rep["theorem41"]["certified_epsilon"] > math.log(1e5)
    assert rep["conversions"]["balle_grid"]["grid"] == "opacus"
    assert "112.97" in out and "mironov_optimal" in out and "balle_grid" in out and "Theorem 4.1" in out


def test_condition_at_a_given_epsilon(capsys, tmp_path):
    path = tmp_path / "c.json"
    # n = 100, f = q = 10, equal noise at Theorem 4.1's minimum for eps = 1 (spec 3.4): the condition holds
    s = math.sqrt(P.theorem41_min_equal_noise(100, 10, 10, 1.0, 100, 1e-5, 1.0) * (1 + 1e-9))
    code, out, _ = _run(["--n", "100", "--f", "10", "--sigma-cor", str(s), "--sigma-ind", str(s), "--steps", "100",
                         "--epsilon", "1", "--json", str(path)], capsys)
    rep = json.loads(path.read_text())
    assert code == 0 and rep["condition_holds"] is True
    assert rep["epsilon"]["mironov_optimal"] <= rep["theorem41"]["proof_bound_on_eps_star"] <= 1.0
    assert "condition holds" in out


def test_target_epsilon_prints_the_least_noise(capsys, tmp_path):
    path = tmp_path / "t.json"
    code, out, _ = _run(["--n", "100", "--f", "10", "--steps", "100", "--target-epsilon", "1", "--json", str(path)],
                        capsys)
    assert code == 0
    rep = json.loads(path.read_text())
    assert rep["mode"] == "calibrate" and rep["target_epsilon"] == 1.0
    for conv in (P.MIRONOV_OPTIMAL, P.BALLE_GRID):
        assert rep["sigma_cor"][conv] == pytest.approx(rep["sigma_ind"][conv])  # default shape r = 1
        assert rep["epsilon"][conv] <= 1.0
        # feeding the least noise back reproduces eps <= target
        acc = P.account("secldp", 100, 10, 10, rep["sigma_cor"][conv] ** 2, rep["sigma_ind"][conv] ** 2, 1.0, 100, 1e-5)
        assert (acc.mironov if conv == P.MIRONOV_OPTIMAL else acc.grid).epsilon <= 1.0
    assert rep["sigma_eff2"][P.BALLE_GRID] < rep["sigma_eff2"][P.MIRONOV_OPTIMAL] < rep["theorem41"]["min_sigma_eff2"]
    assert rep["theorem41"]["min_sigma_ind"] ** 2 == pytest.approx(2 * 18420.68074 / 91, rel=1e-8)
    assert "least noise" in out


def test_target_outside_theorem_range_still_calibrates(capsys, tmp_path):
    path = tmp_path / "o.json"
    code, out, _ = _run(["--mechanism", "ldp", "--steps", "30", "--delta", "1e-4", "--target-epsilon", "26.4",
                         "--clip", "2.25", "--json", str(path)], capsys)
    rep = json.loads(path.read_text())
    assert code == 0 and rep["theorem41"]["applies"] is False
    assert math.sqrt(rep["sigma_eff2"]["balle_grid"]) / (2 * 2.25) == pytest.approx(1.2708, abs=5e-5)  # spec 3.5
    assert "does not apply" in out


def test_mechanisms_are_ordered_at_the_same_noise(capsys, tmp_path):
    eps = {}
    for m in P.MECHANISMS:
        path = tmp_path / f"{m}.json"
        code, _, _ = _run(["--mechanism", m, "--n", "20", "--f", "2", "--sigma-cor", "1", "--sigma-ind", "1",
                           "--steps", "50", "--json", str(path)], capsys)
        assert code == 0
        eps[m] = json.loads(path.read_text())["epsilon"]["mironov_optimal"]
    assert eps["cdp"] < eps["secldp"] < eps["ldp"]


def test_no_privacy_is_reported_as_infinite(capsys, tmp_path):
    path = tmp_path / "inf.json"
    code, out, _ = _run(["--n", "10", "--f", "3", "--sigma-cor", "1", "--json", str(path)], capsys)
    rep = json.loads(path.read_text())
    assert code == 0 and rep["sigma_eff2"] == 0.0 and rep["epsilon"]["mironov_optimal"] == "inf"
    assert "inf" in out


@pytest.mark.parametrize("argv, param", [
    (["--n", "10", "--f", "5", "--sigma-ind", "1"], "--f: must satisfy f < n/2 (got f=5, n=10)"),
    (["--n", "10", "--f", "3", "--q", "4", "--sigma-ind", "1"], "--q:"),
    (["--n", "10", "--sigma-ind", "-1"], "--sigma-ind:"),
    (["--n", "10", "--sigma-cor", "-0.5", "--sigma-ind", "1"], "--sigma-cor:"),
    (["--n", "10", "--sigma-ind", "1", "--delta", "1"], "--delta:"),
    (["--n", "10", "--sigma-ind", "1", "--delta", "0"], "--delta:"),
    (["--n", "10", "--sigma-ind", "1", "--steps", "0"], "--steps:"),
    (["--n", "10", "--sigma-ind", "1", "--steps", "2.5"], "--steps:"),
    (["--n", "10", "--sigma-ind", "1", "--clip", "0"], "--clip:"),
    (["--n", "ten", "--sigma-ind", "1"], "--n:"),
    (["--sigma-ind", "1"], "--n:"),
    (["--n", "10"], "--sigma-ind:"),
    (["--n", "10", "--sigma-ind", "1", "--epsilon", "12"], "--epsilon: Theorem 4.1 needs epsilon < log(1/delta)"),
    (["--n", "10", "--target-epsilon", "0"], "--target-epsilon:"),
    (["--n", "10", "--target-epsilon", "1", "--sigma-ind", "1"], "--target-epsilon:"),
    (["--n", "10", "--f", "3", "--target-epsilon", "1", "--noise-ratio", "inf"], "--noise-ratio:"),
    (["--mechanism", "central", "--n", "10", "--sigma-ind", "1"], "--mechanism:"),
    (["--n", "10", "--sigma-ind", "1", "--orders", "fine"], "--orders:"),
])
def test_bad_input_one_line_exit_2(capsys, argv, param):
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fedverify privacy: error: ") and param in lines[0]


def test_unknown_option_is_one_line(capsys):
    code, _, err = _run(["--n", "10", "--sigma-ind", "1", "--bogus", "3"], capsys)
    err = err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "unrecognized arguments: --bogus" in err[0]


def test_option_without_value_is_one_line(capsys):
    code, _, err = _run(["--n"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--n" in err


def test_unwritable_json_is_exit_2(capsys, tmp_path):
    code, _, err = _run([*ACCEPTANCE, "--json", str(tmp_path / "missing" / "x.json")], capsys)
    assert code == 2 and err.startswith("fedverify privacy: error: --json")


def test_installed_fedverify_command():
    res = subprocess.run([sys.executable, "-m", "verify.cli", "privacy", *ACCEPTANCE], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0 and "112.97" in res.stdout
    bad = subprocess.run([sys.executable, "-m", "verify.cli", "privacy", "--n", "10", "--f", "5", "--sigma-ind", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip() == "fedverify privacy: error: --f: must satisfy f < n/2 (got f=5, n=10)"
