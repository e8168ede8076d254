"""Figures from Result.figure specs: panels, draw callables, log axes with bad values."""
from __future__ import annotations

import sys
import textwrap
import types
import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

from reports import figures
from reports.figures import FigureError, render_figure, render_latex
from verify.result import Claim, Result

PNG = b"\x89PNG\r\n\x1a\n"


def result(figure: dict) -> Result:
    return Result(id="fig2000.c01", paper="fig2000", title="t", claim=Claim("c"), kind="rate",
                  verdict="holds", expected="holds", figure=figure)


def series(label, x, y, lo=None, hi=None, role="observed", band_label="95% bootstrap CI over 20 replicates"):
    return {"label": label, "x": list(x), "y": list(y), "lo": lo, "hi": hi,
            "band_label": band_label if lo is not None else "", "role": role}


def panel(series_list, xscale="log", yscale="log", title="p"):
    return {"title": title, "xlabel": "$T$", "ylabel": "error", "xscale": xscale, "yscale": yscale,
            "series": series_list}


T = np.array([1.0, 3, 10, 30, 100, 300, 1000])


def good_panel(title="p"):
    y = 1 / T
    return panel([series("observed", T, y, (0.8 * y).tolist(), (1.2 * y).tolist()),
                  series("bound", T, 2 / T, role="bound"), series("ref", T, T ** -0.5, role="reference")],
                 title=title)


def test_panels_render_png(tmp_path):
    p = render_figure(result({"panels": [good_panel(), good_panel("b")]}), tmp_path / "f.png")
    assert p == tmp_path / "f.png" and p.read_bytes()[:8] == PNG


def test_four_panels_wrap_to_two_rows_and_svg(tmp_path):
    p = render_figure(result({"panels": [good_panel(str(i)) for i in range(4)]}), tmp_path / "f.svg")
    assert b"<svg" in p.read_bytes()[:500]


def test_no_figure_gives_none(tmp_path):
    assert render_figure(result({}), tmp_path / "f.png") is None
    assert render_figure(result({"panels": []}), tmp_path / "f.png") is None
    assert not (tmp_path / "f.png").exists()


def test_bad_specs_raise_figure_error(tmp_path):
    with pytest.raises(FigureError, match="length"):
        render_figure(result({"panels": [panel([series("a", [1, 2, 3], [1, 2])])]}), tmp_path / "f.png")
    with pytest.raises(FigureError, match="role"):
        render_figure(result({"panels": [panel([series("a", [1], [1], role="nope")])]}), tmp_path / "f.png")
    with pytest.raises(FigureError, match="scale"):
        render_figure(result({"panels": [panel([], xscale="symlog")]}), tmp_path / "f.png")
    with pytest.raises(FigureError, match="neither"):
        render_figure(result({"weird": 1}), tmp_path / "f.png")


def test_log_axes_mask_non_positive_without_epsilon_floor(tmp_path):
    """Zero, negative and NaN values on log axes are hidden (said in the panel), a band whose
    lower end is <= 0 is drawn down to the axis, and the axis does not plunge to an epsilon."""
    y = np.array([1.0, 0.5, 0.0, -0.1, np.nan, 0.05, 0.02])
    lo = y - 0.3
    hi = y + 0.3
    spec = panel([series("obs", [0, *T[1:]], y.tolist(), lo.tolist(), hi.tolist()),
                  series("bound", T, 2 / T, role="bound")])
    fig = Figure()
    ax = fig.subplots()
    import seaborn as sns

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "invalid value in log" etc.
        figures._draw_panel(ax, spec, sns.color_palette("deep"), plain=False)
        fig.savefig(tmp_path / "x.png")
    bottom, top = ax.get_ylim()
    assert bottom > 1e-3  # smallest positive shown value is 0.02: no epsilon floor
    assert "not shown" in ax.get_xlabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("95% bootstrap CI over 20 replicates" in lab for lab in labels)


def test_log_axis_without_positive_values_falls_back_to_linear(tmp_path):
    spec = panel([series("obs", T, -T)])
    fig = Figure()
    ax = fig.subplots()
    figures._draw_panel(ax, spec, [(0, 0, 1)], plain=False)
    assert ax.get_yscale() == "linear" and "linear" in ax.get_xlabel()
    p = render_figure(result({"panels": [spec]}), tmp_path / "f.png")
    assert p.read_bytes()[:8] == PNG


def test_rcparams_do_not_leak(tmp_path):
    before = dict(matplotlib.rcParams)
    render_figure(result({"panels": [good_panel()]}), tmp_path / "f.png")
    after = dict(matplotlib.rcParams)
    assert {k: v for k, v in after.items() if before.get(k) != v} == {}


def test_bad_mathtext_label_falls_back_to_plain_text(tmp_path):
    spec = good_panel()
    spec["xlabel"] = r"$\frac{"
    spec["title"] = "$$$ unbalanced $"
    p = render_figure(result({"panels": [spec]}), tmp_path / "f.png")
    assert p.read_bytes()[:8] == PNG


@pytest.fixture
def draw_module(monkeypatch):
    mod = types.ModuleType("fv_fig_draws")
    exec(textwrap.dedent(
        """
        from matplotlib.figure import Figure
        def ok(result, path):
            fig = Figure(figsize=(3, 2)); fig.subplots().plot([0, 1], [0, 1]); fig.savefig(path, dpi=72)
        def boom(result, path):
            raise RuntimeError("no luck")
        def lazy(result, path):
            pass
        def garbage(result, path):
            open(path, "w").write("not an image")
        """
    ), mod.__dict__)
    monkeypatch.setitem(sys.modules, "fv_fig_draws", mod)
    return mod


def test_draw_callable(tmp_path, draw_module):
    p = render_figure(result({"draw": "fv_fig_draws:ok"}), tmp_path / "d.png")
    assert p.read_bytes()[:8] == PNG
    with pytest.raises(RuntimeError, match="no luck"):
        render_figure(result({"draw": "fv_fig_draws:boom"}), tmp_path / "d.png")
    with pytest.raises(FigureError, match="no image"):
        render_figure(result({"draw": "fv_fig_draws:lazy"}), tmp_path / "d.png")
    with pytest.raises(FigureError, match="not a PNG"):
        render_figure(result({"draw": "fv_fig_draws:garbage"}), tmp_path / "d.png")
    with pytest.raises(ImportError):
        render_figure(result({"draw": "no_such_module_xyz:f"}), tmp_path / "d.png")
    with pytest.raises(AttributeError):
        render_figure(result({"draw": "fv_fig_draws:missing"}), tmp_path / "d.png")


def test_render_latex(tmp_path):
    p = render_latex(r"$$\sum_{i=1}^n \frac{\sigma^2}{\mu T}$$", tmp_path / "e.svg")
    assert b"<svg" in p.read_bytes()[:1000]
    with pytest.raises(ValueError):
        render_latex(r"\frac{", tmp_path / "bad.svg")
    with pytest.raises(ValueError):
        render_latex("  ", tmp_path / "empty.svg")


def _panel_axes(panel: dict):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    figures._draw_panel(ax, panel, ["C0", "C1", "C2"], plain=False)
    fig.canvas.draw()
    return fig, ax


def test_log_axis_under_a_decade_has_plain_ticks_that_do_not_collide():
    """dutta2023.c14's T in {1, 3, 6} on a log axis: matplotlib labelled every minor tick (2x10^0, 3x10^0, 4x10^0)
    and the labels overlapped; under a decade the axis now shows 1, 2, 5 in plain numbers, minor ticks unlabelled."""
    fig, ax = _panel_axes({"xscale": "log", "yscale": "log",
                           "series": [series("floor", [1, 3, 6], [2.6e-6, 9.7e-7, 6.0e-7])]})
    lo, hi = ax.get_xlim()
    labels = [t for t in ax.xaxis.get_ticklabels() if t.get_text() and lo <= t.get_position()[0] <= hi]
    assert [t.get_text() for t in labels] == ["1", "2", "5"]
    assert not [t for t in ax.xaxis.get_ticklabels(minor=True) if t.get_text()]
    boxes = [t.get_window_extent(fig.canvas.get_renderer()) for t in labels]
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:]))  # no two labels overlap
    # more than a decade keeps matplotlib's decade labels
    _, ax_wide = _panel_axes({"xscale": "log", "series": [series("y", [1, 10, 1000], [1, 2, 3])]})
    assert isinstance(ax_wide.xaxis.get_major_formatter(), matplotlib.ticker.LogFormatter)


def test_theory_lines_are_drawn_above_observed_ones():
    """werner2023.c09's oracle sigma^2/n coincides with the observed error: drawn first and below, it was hidden.
    Bound and reference lines sit above the observed line whatever the series order."""
    x = [4, 16, 64, 256]
    _, ax = _panel_axes({"xscale": "log", "yscale": "log", "series": [
        series("oracle", x, [1 / n for n in x], role="reference"), series("bound", x, [2 / n for n in x], role="bound"),
        series("observed", x, [1 / n for n in x])]})
    z = {line.get_label(): line.get_zorder() for line in ax.get_lines()}
    assert z["oracle"] > z["observed"] and z["bound"] > z["observed"]


def test_huge_values_do_not_overflow_the_axis(tmp_path):
    """Values near float64's limit (a factor 2.48e+307) are counted as hidden, not passed to the log axis, whose
    padding would overflow (numpy's overflow warning reached the terminal)."""
    import warnings

    import numpy as np

    from reports.figures import draw_panels

    x = np.arange(1, 11.0)
    y = np.logspace(0, 307.4, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draw_panels([{"title": "t", "xscale": "log", "yscale": "log",
                      "series": [{"x": x.tolist(), "y": y.tolist(), "lo": (y / 2).tolist(), "hi": (y * 2).tolist(),
                                  "label": "a"}]}], tmp_path / "f.png")
    assert (tmp_path / "f.png").exists()
