"""The teaching kit: the three new toys, the knobs (a knob changes the numbers and the picture, a knob a demo
cannot vary is one line and exit 2), the output formats, the slides style and the animation frames."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from counterexamples import demo as D
from counterexamples import figures
from verify import cli


def run(argv, capsys):
    rc = cli.main(["demo", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Every demo once at its defaults (module cache: the figure tests reuse the Results)."""
    base = tmp_path_factory.mktemp("demos")
    return {name: D.run_demo(name, base / name, rounds=2) for name in D.DEMO_TABLE}


# -- the new toys --------------------------------------------------------------------------------------------------
def test_byzantine_breaks_the_mean_not_ce(outputs):
    o = outputs["byzantine"].result.observed
    assert o["f"] == 5 and o["N"] == 50
    assert o["final_gap_over_e0"]["mean"] > 1e3  # the attack drives the mean away from x*
    assert o["final_gap_over_e0"]["ce"] < 1e-10  # CE eliminates it and converges
    assert "with CE" in "\n".join(outputs["byzantine"].lines)


def test_cafcor_noise_cancels_in_the_average(outputs):
    o = outputs["cafcor"].result.observed
    # each worker's noise ~ sqrt((n-1) s_cor^2 + s_ind^2) = 3.0; the average's ~ s_ind / sqrt(n) = 0.032
    assert o["worker_rms"] == pytest.approx(o["predicted_worker_sd"], rel=0.15)
    assert o["average_rms_cafcor"] == pytest.approx(o["predicted_average_sd_cafcor"], rel=0.3)
    assert o["average_rms_ldp"] == pytest.approx(o["predicted_average_sd_ldp"], rel=0.3)
    assert o["worker_rms"] > 50 * o["average_rms_cafcor"]
    xi = outputs["cafcor"].result.arrays["xi"]
    assert np.abs(xi.sum(1)).max() < 1e-9 + 0.1 * 10 * 5  # the pairwise parts cancel; what is left is the small part


def test_graph_pull_moves_the_start_points_and_speeds_up(outputs):
    r = outputs["graph"].result
    starts, wbar = r.arrays["starts"], r.arrays["wbar"]
    # FedAvg (beta = 1) starts every client at wbar; the graph pulls each to beta wbar + (1 - beta) u_i
    assert np.allclose(starts[:, 0], wbar[:-1, 0][:, None, :])
    assert np.abs(starts[1:, 1] - wbar[1:-1, 1][:, None, :]).max() > 1e-3
    d = r.observed["dist_to_w_star_final"]
    assert d["perturbed"] < d["FedAvg"]


@pytest.mark.parametrize("name,phrase", [("byzantine", "comparative elimination"), ("cafcor", "the pairs cancel"),
                                         ("graph", "similarity graph")])
def test_new_demos_on_the_command_line(tmp_path, capsys, name, phrase):
    rc, out, err = run([name, "--out", str(tmp_path), "--rounds", "1"], capsys)
    assert rc == 0 and err == "", err
    assert phrase in out
    assert (tmp_path / f"demo_{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the knobs -----------------------------------------------------------------------------------------------------
def test_every_demo_has_a_notebook_worth_of_knobs():
    for name, d in D.DEMO_TABLE.items():
        assert set(d.knobs) <= set(D.KNOBS) and d.knobs, name


@pytest.mark.parametrize("name,argv,key,default_value,new_value", [
    ("ifca", ["--eta", "0.3"], lambda r: list(r.arrays["ifca1_gamma"]), [0.01, 0.1, 0.4], [0.3]),
    ("ifca", ["--start", "0.4"], lambda r: float(r.arrays["ifca1_theta"][0, 0, 1]), 0.0, 0.4),
    ("hypcluster", ["--tau", "2.5"], lambda r: float(r.arrays["fc_tau"][0]), 1.0, 2.5),
    ("byzantine", ["--byzantine", "8"], lambda r: r.observed["f"], 5, 8),
    ("byzantine", ["--tau", "1"], lambda r: r.observed["T"], 3, 1),
    ("cafcor", ["--clients", "4"], lambda r: r.arrays["xi"].shape[1], 10, 4),
    ("graph", ["--start", "-2"], lambda r: float(r.arrays["wbar"][0, 0, 0]), 3.0, -2.0),
])
def test_a_knob_changes_the_numbers_and_the_picture(tmp_path, capsys, outputs, name, argv, key, default_value, new_value):
    assert key(outputs[name].result) == pytest.approx(default_value)
    rc, out, err = run([name, *argv, "--out", str(tmp_path), "--rounds", "1"], capsys)
    assert rc == 0 and err == "", err
    assert out.startswith("Knobs: ")
    res = D.run_demo(name, tmp_path / "api", rounds=1, **{argv[0][2:]: float(argv[1])})
    assert key(res.result) == pytest.approx(new_value)
    with Image.open(outputs[name].figure) as a, Image.open(tmp_path / f"demo_{name}.png") as b:
        assert a.size == b.size
        assert np.abs(np.asarray(a.convert("L"), int) - np.asarray(b.convert("L"), int)).sum() > 0


def test_myopic_eta_reaches_the_check(tmp_path, capsys):
    rc, out, err = run(["myopic", "--eta", "0.25", "--format", "svg", "--out", str(tmp_path), "--rounds", "2"], capsys)
    assert rc == 0 and err == ""
    assert "learning rate η = 0.25" in out and "etas=(0.25,)" in out
    assert (tmp_path / "demo_myopic.svg").read_text().lstrip().startswith("<?xml")


def test_cfl_batch_reaches_fc(tmp_path):
    res = D.run_demo("cfl", tmp_path, rounds=1, batch=1)
    assert res.result.observed["fc"]["batch"] == 1
    # with single draws FC cannot keep 2 and 3 together (check c08); with |B| = 64 it does
    assert res.result.observed["fc"]["frac_rounds_ball2_is_23"] < 0.5


@pytest.mark.parametrize("argv,flag", [(["myopic", "--batch", "4"], "--batch"), (["cafcor", "--tau", "3"], "--tau"),
                                       (["ifca", "--clients", "3"], "--clients"), (["graph", "--batch", "2"], "--batch"),
                                       (["byzantine", "--byzantine", "30"], "--byzantine"),
                                       (["byzantine", "--clients", "10"], "--clients"), (["ifca", "--eta", "0"], "--eta"),
                                       (["cfl", "--batch", "0"], "--batch"), (["myopic", "--format", "gif"], "--format"),
                                       (["myopic", "--style", "poster"], "--style"), (["graph", "--dpi", "x"], "--dpi"),
                                       (["cafcor", "--start", "nan"], "--start")])
def test_a_bad_knob_is_one_line_exit_2(tmp_path, capsys, argv, flag):
    rc, out, err = run([*argv, "--out", str(tmp_path)], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"fedverify demo: error: {flag}"), err
    assert not any(tmp_path.iterdir())


def test_a_knob_the_demo_cannot_vary_names_it_in_the_api(tmp_path):
    with pytest.raises(D.InputError) as e:
        D.run_demo("myopic", tmp_path, batch=8)
    assert e.value.param == "batch" and "cannot vary batch" in e.value.message


# -- formats, styles, animation ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt,magic", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_formats(tmp_path, fmt, magic):
    res = D.run_demo("graph", tmp_path, rounds=1, format=fmt)
    assert res.figure.suffix == f".{fmt}" and res.figure.read_bytes()[:5].startswith(magic)


def test_dpi(tmp_path):
    a = D.run_demo("graph", tmp_path / "a", rounds=1, dpi=50).figure
    b = D.run_demo("graph", tmp_path / "b", rounds=1, dpi=200).figure
    with Image.open(a) as ia, Image.open(b) as ib:
        assert ib.size[0] == pytest.approx(4 * ia.size[0], rel=0.02)


@pytest.mark.parametrize("name", list(D.DEMO_TABLE))
def test_slides_text_is_at_least_12_pt(outputs, name):
    from matplotlib.text import Text

    d = D.DEMO_TABLE[name]
    with figures.style("slides"):
        fig = figures.new_figure()
        d.render(fig, outputs[name].result, upto=2, **d.render_kw)
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig).draw()
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert sizes and min(sizes) >= 12, (name, min(sizes))


def _panel_pixels(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[..., :3].astype(int)
    H = img.shape[0]
    out = []
    for ax in fig.axes:
        x0, y0, x1, y1 = ax.get_window_extent().extents.astype(int)
        out.append(img[H - y1: H - y0, x0:x1])
    return out


@pytest.mark.parametrize("name", list(D.DEMO_TABLE))
def test_every_panel_changes_between_animation_frames(outputs, name):
    d = D.DEMO_TABLE[name]
    frames = list(d.frames(outputs[name].result))
    shots = []
    for t in (frames[1], frames[-1]):
        with figures.style("slides"):
            fig = figures.new_figure()
            d.render(fig, outputs[name].result, upto=int(t), **d.render_kw)
            shots.append(_panel_pixels(fig))
    assert len(shots[0]) == len(shots[1]) >= 2
    for k, (a, b) in enumerate(zip(*shots)):
        assert a.shape == b.shape and np.abs(a - b).sum() > 0, f"{name}: panel {k} does not change"


def test_slides_gif_is_wide_enough(tmp_path, outputs):
    """The GIF run_demo writes in the slides style (three frames here, to keep the test short)."""
    d = D.DEMO_TABLE["graph"]
    with figures.style("slides"):
        gif = figures.animate(d.render, outputs["graph"].result, tmp_path / "g.gif", [0, 1, 2], **d.render_kw)
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.size[0] >= 1280 and im.n_frames == 3


def test_ifca_and_hypcluster_draw_different_pictures(outputs):
    with Image.open(outputs["ifca"].figure) as a, Image.open(outputs["hypcluster"].figure) as b:
        pa, pb = np.asarray(a.convert("L"), int), np.asarray(b.convert("L"), int)
    assert pa.shape != pb.shape or np.abs(pa - pb).mean() > 5
    fa, fb = figures.new_figure(), figures.new_figure()
    figures.render_example2(fa, outputs["ifca"].result, algorithm="ifca1")
    figures.render_hypcluster(fb, outputs["hypcluster"].result)
    assert len(fa.axes) == 2 and len(fb.axes) == 3
    assert "pooled loss" in fb.axes[0].get_title()


def test_the_demo_subcommand_module_imports_light():
    """fedverify --help builds the demo parser: counterexamples.cli_demo must not import torch or matplotlib."""
    import subprocess
    import sys

    code = ("import sys, counterexamples.cli_demo as m, argparse; p = argparse.ArgumentParser(); "
            "m.add_parser(p.add_subparsers()); print(sorted(k for k in ('torch', 'matplotlib', 'counterexamples.demo') "
            "if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_frame_zero_of_the_byzantine_animation_shows_both_runs():
    """Frame 0 of `demo byzantine --animate` draws a visible mark for the mean and for CE (it was empty: a one-point
    line draws nothing)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from counterexamples.teaching import byzantine_toy, render_byzantine
    from verify.engine import Context

    res = byzantine_toy(Context(), rounds=5)
    fig = Figure(figsize=(6.5, 3))
    render_byzantine(fig, res, upto=0)
    ax = fig.axes[0]
    dots = [ln for ln in ax.lines if ln.get_marker() == "o" and len(ln.get_xdata()) == 1]
    assert len(dots) == 2
