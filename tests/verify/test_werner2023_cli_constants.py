"""fedverify constants for werner2023: built-in clustered quadratics and the paper's regression, and a
user's own quadratics from an .npz file (exact A^2, Delta^2; infinite A^2 said in words; bad files exit 2)."""
import json

import numpy as np
import pytest

from verify.cli import main


def _write(path, H, x_star, labels, **extra):
    np.savez(path, H=H, x_star=x_star, labels=labels, **extra)
    return str(path)


@pytest.fixture
def quadratics():
    rng = np.random.default_rng(0)
    labels = np.array([0, 0, 1, 1])
    A = rng.normal(size=(4, 3, 3))
    H = A @ A.transpose(0, 2, 1) + np.eye(3)
    W = rng.normal(size=(2, 3)) * 4
    return H, W[labels], labels


def test_file_constants_printed_and_written(tmp_path, quadratics, capsys):
    out = tmp_path / "c.json"
    assert main(["constants", "quadratics", _write(tmp_path / "q.npz", *quadratics), "--D2", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    doc = json.loads(out.read_text())["constants"]
    assert set(doc) == {"L", "mu", "A2", "Delta2", "D2"}
    assert all(doc[k]["label"] == "exact" for k in ("L", "mu", "A2", "Delta2")) and doc["D2"]["value"] == 1.0
    assert "generalised eigenproblem" in doc["A2"]["how"] and "cvxpy/Clarabel" in doc["Delta2"]["how"]
    assert "A2" in text and "Delta2" in text


def test_infinite_a2_is_said_not_printed(tmp_path, quadratics, capsys):
    H, xs, labels = quadratics
    out = tmp_path / "c.json"
    assert main(["constants", "quadratics", _write(tmp_path / "q.npz", H, xs + 0.1 * np.arange(4)[:, None], labels), "--json", str(out)]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("A2")][0]
    doc = json.loads(out.read_text())["constants"]["A2"]
    assert "infinite" in line and "no finite A^2" in line and doc["value"] == "inf"


@pytest.mark.parametrize("bad, message", [
    (lambda H, x, l: dict(H=H[:, :2], x_star=x, labels=l), "square"),
    (lambda H, x, l: dict(H=H, x_star=x[:3], labels=l), "x_star"),
    (lambda H, x, l: dict(H=H + np.triu(np.ones((3, 3)), 1), x_star=x, labels=l), "symmetric"),
    (lambda H, x, l: dict(H=-H, x_star=x, labels=l), "positive definite"),
    (lambda H, x, l: dict(H=np.where(H > 3, np.nan, H), x_star=x, labels=l), "NaN"),
    (lambda H, x, l: dict(H=H, labels=l), "lacks"),
])
def test_bad_files_one_line_exit_2(tmp_path, quadratics, capsys, bad, message):
    path = tmp_path / "bad.npz"
    np.savez(path, **bad(*quadratics))
    assert main(["constants", "quadratics", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "FILE" in err and message in err


def test_missing_file_and_negative_d2(tmp_path, quadratics, capsys):
    assert main(["constants", "quadratics", str(tmp_path / "nope.npz")]) == 2
    assert main(["constants", "quadratics", _write(tmp_path / "q.npz", *quadratics), "--D2", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--D2" in err[1]


def test_builtin_problems(tmp_path, capsys):
    out = tmp_path / "b.json"
    assert main(["constants", "clustered-quadratics", "--K", "2", "--n", "3", "--d", "3", "--mu", "1", "--L", "2",
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())["constants"]
    assert doc["L"]["value"] == pytest.approx(2.0) and doc["mu"]["value"] == pytest.approx(1.0)
    assert doc["D2"]["value"] == pytest.approx(10.0) and doc["sigma2"]["value"] == 1.0  # Lemma 1's D^2 = 2(1 + 4)
    assert main(["constants", "clustered-quadratics", "--K", "5", "--d", "3"]) == 2
    assert "--K" in capsys.readouterr().err
    assert main(["constants", "synthetic-regression", "--K", "2", "--n", "3", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())["constants"]
    assert doc["mu"]["value"] == 0.0 and doc["Delta2"]["value"] == 0.0 and np.isfinite(doc["A2"]["value"])
