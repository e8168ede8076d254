"""Long runs: the estimate printed first, --budget, progress lines, run --set overrides."""
import json

import numpy as np
import pytest

from verify import cli
from verify.costs import data_size, estimate
from verify.engine import Context

FAST = "werner2023.c15"


@pytest.fixture(scope="module")
def mnist_sized(tmp_path_factory):
    """Random uint8 28x28 images, labels 0-9, as the .npz the loader reads (Keras' mnist.npz layout)."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("data") / "mnist.npz"
    np.savez(path, x_train=rng.integers(0, 256, (60000, 28, 28), dtype=np.uint8),
             y_train=rng.integers(0, 10, 60000, dtype=np.uint8),
             x_test=rng.integers(0, 256, (10000, 28, 28), dtype=np.uint8),
             y_test=rng.integers(0, 10, 10000, dtype=np.uint8))
    return path


def test_estimate_reads_headers_and_scales(mnist_sized):
    from verify.costs import DataSize

    assert data_size(mnist_sized) == DataSize(60000, 10000, 784, 10)
    ctx = Context(data=str(mnist_sized))
    full, one = estimate("werner2023.x20", ctx, {}), estimate("werner2023.x20", ctx, {"rounds": 1})
    assert full.seconds == pytest.approx(40 * one.seconds) and full.peak_bytes == one.peak_bytes > 1e9
    assert estimate("werner2023.x20", Context(), {}) is None  # bundled digits: no --data, nothing to announce


def test_data_run_prints_estimate_first_and_budget_keeps_what_is_stored(mnist_sized, tmp_path, capsys):
    res = tmp_path / "res"
    assert cli.main(["run", FAST, "--results", str(res), "--quiet"]) == 0
    before = (res / f"{FAST}.json").read_bytes()
    capsys.readouterr()
    code = cli.main(["run", "werner2023.x20", "--data", str(mnist_sized), "--budget", "3",
                     "--results", str(res)])
    out, err = capsys.readouterr()
    assert code == 124
    lines = [ln for ln in out.splitlines() if "werner2023.x20" in ln]
    assert lines and lines[0].startswith("  estimate for werner2023.x20: ~") and "peak memory" in lines[0]
    assert "budget of 3 s spent" in err and "werner2023.x20, which was stopped" in err
    assert (res / f"{FAST}.json").read_bytes() == before
    assert not list(res.rglob("werner2023.x20*"))


def test_run_set_overrides_stored_beside_defaults(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FEDVERIFY_PROGRESS_S", "0.2")
    res = tmp_path / "res"
    argv = ["run", "werner2023.x20", "--set", "per_cluster=10", "--set", "rounds=2", "--results", str(res),
            "--json", str(tmp_path / "out.json")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "werner2023.x20 running" in out  # a progress line while it ran
    doc = json.loads((tmp_path / "out.json").read_text())[0]
    assert doc["env"]["overrides"] == {"per_cluster": "10", "rounds": "2"}
    assert "40 clients" in doc["explanation"] or "N = 40" in json.dumps(doc)
    assert not (res / "werner2023.x20.json").exists()  # never over the Result of the defaults
    assert cli.main(argv) == 0 and "(stored; --force reruns)" in capsys.readouterr().out


@pytest.mark.parametrize("extra,flag", [(["--set", "nosuch=1"], "--set"), (["--set", "rounds=2,3"], "--set"),
                                        (["--set", "rounds"], "--set"), (["--budget", "-1"], "--budget"),
                                        (["--budget", "soon"], "--budget")])
def test_bad_long_run_flags_are_one_line(extra, flag, tmp_path, capsys):
    assert cli.main(["run", "werner2023.x20", "--results", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag}:" in err
