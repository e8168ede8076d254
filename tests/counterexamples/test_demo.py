"""``fedverify demo``: narration, figures, GIF, and one-line errors (exit 2)."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from verify import cli


def run(argv, capsys):
    """Through the real command line (the demo is an entry-point subcommand)."""
    rc = cli.main(["demo", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_myopic_demo_names_the_wrong_round_and_draws_client_2_stuck(tmp_path, capsys):
    rc, out, err = run(["myopic", "--out", str(tmp_path / "d"), "--rounds", "3"], capsys)
    assert rc == 0 and err == ""
    assert "Round 2:" in out and "groups {1}, {2, 3} -- WRONG" in out
    assert "Round 1:" in out and "groups {1, 2}, {3} -- correct" in out
    assert "still at x = 1.000000" in out
    png = tmp_path / "d" / "demo_myopic.png"
    assert f"Figure: {png}" in out
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] >= 900
        pix = np.asarray(im.convert("RGB")).astype(int)
    red = (pix[..., 0] > 180) & (pix[..., 1] < 90) & (pix[..., 2] < 90)  # the wrong cluster's colour
    assert red.sum() > 200


@pytest.mark.parametrize("name,phrase", [("ifca", "Both clients pick θ₂ -- WRONG"),
                                         ("hypcluster", "HypCluster"),
                                         ("cfl", "CFL splits {1, 3}, {2} -- WRONG")])
def test_other_demos_tell_their_story(tmp_path, capsys, name, phrase):
    rc, out, err = run([name, "--out", str(tmp_path)], capsys)
    assert rc == 0 and err == "", err
    assert phrase in out
    assert (tmp_path / f"demo_{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / f"demo_{name}.gif").exists()


def test_animate_writes_a_gif(tmp_path, capsys):
    rc, out, _ = run(["ifca", "--out", str(tmp_path), "--animate"], capsys)
    assert rc == 0 and "Animation:" in out
    with Image.open(tmp_path / "demo_ifca.gif") as im:
        assert im.format == "GIF" and im.n_frames > 5


@pytest.mark.parametrize("argv,param", [(["foo"], "NAME"), (["myopic", "--rounds", "0"], "--rounds"),
                                        (["cfl", "--rounds", "two"], "--rounds"), (["ifca", "--seed", "-1"], "--seed")])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, param):
    rc, out, err = run([*argv, "--out", str(tmp_path)], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"fedverify demo: error: {param}")


def test_out_that_is_a_file_is_rejected(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    rc, _, err = run(["myopic", "--out", str(f)], capsys)
    assert rc == 2 and err.startswith("fedverify demo: error: --out")


def test_wired_into_the_fedverify_command(tmp_path, capsys):
    assert cli.main(["demo", "hypcluster", "--out", str(tmp_path), "--rounds", "1"]) == 0
    assert (tmp_path / "demo_hypcluster.png").exists()
    capsys.readouterr()
    assert cli.main(["demo", "nope"]) == 2
    assert capsys.readouterr().err.startswith("fedverify demo: error: NAME")
