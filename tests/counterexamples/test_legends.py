"""No legend covers data: the placement rule, and every demo's figure (still and animation frames, both styles)."""
import numpy as np
import pytest
from matplotlib.figure import Figure

from counterexamples import figures
from counterexamples.demo import DEMO_TABLE
from counterexamples.legends import covered_artists, legend_coverage, place_legend
from counterexamples.teaching import run_toy
from verify.engine import Context
from verify.registry import get


def _ax():
    fig = Figure(figsize=(4, 3))
    return fig, fig.subplots()


def test_a_segment_crossing_the_box_counts_without_a_vertex_inside():
    fig, ax = _ax()
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    mid = ax.transData.transform([[0.45, 0.45], [0.55, 0.55]])
    box = (mid[0, 0], mid[0, 1], mid[1, 0], mid[1, 1])
    assert covered_artists(ax, box, figures_renderer(fig)) == [("diagonal", 1)]
    corner = ax.transData.transform([[0.8, 0.05], [0.95, 0.2]])
    assert covered_artists(ax, (*corner[0], *corner[1]), figures_renderer(fig)) == []


def figures_renderer(fig):
    from counterexamples.legends import _renderer

    return _renderer(fig)


def test_placement_leaves_the_preferred_corner_when_data_sit_there():
    fig, ax = _ax()
    x = np.linspace(0, 1, 50)
    ax.plot(x, 1 - x * 0.2, label="high on the left")  # fills the upper left corner
    ax.plot(x, 0.1 + 0 * x, label="flat")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    got = place_legend(ax, prefer="upper left")
    assert got.location != "upper left" and got.covered == ()
    assert legend_coverage(ax) == []


def test_headroom_when_no_corner_is_free():
    fig, ax = _ax()
    x = np.linspace(0, 1, 200)
    for c in np.linspace(0.05, 0.95, 10):
        ax.plot(x, c + 0 * x, label=f"level {c:.2f}")  # horizontal lines over the whole height
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    got = place_legend(ax, prefer="upper right", fontsize=5, ncol=5)
    assert got.covered == () and ax.get_ylim()[1] > 1.0
    assert legend_coverage(ax) == []


def test_a_planted_covering_legend_is_reported():
    fig, ax = _ax()
    ax.plot([0, 1], [1, 0], label="line")
    ax.plot([0, 1], [0, 1], label="other")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    ax.legend(loc="center")  # both lines cross the centre
    assert {label for label, _ in legend_coverage(ax)} == {"line", "other"}


@pytest.fixture(scope="module")
def demo_results():
    out = {}
    for name, demo in DEMO_TABLE.items():
        ctx = Context(fidelity="quick", seed=0)
        out[name] = run_toy(demo.source[4:], ctx) if demo.source.startswith("toy:") else get(demo.source).run(ctx)
    return out


@pytest.mark.parametrize("name", sorted(DEMO_TABLE))
@pytest.mark.parametrize("style", ["paper", "slides"])
def test_no_demo_legend_covers_data(demo_results, name, style):
    demo, result = DEMO_TABLE[name], demo_results[name]
    frames = list(demo.frames(result))
    # the animation's frames in the paper style; the slides style (larger text, the same data) by its still
    uptos = [None, frames[0], frames[len(frames) // 2], frames[-1]] if style == "paper" else [None]
    with figures.style(style):
        for upto in uptos:
            fig = figures.new_figure()
            demo.render(fig, result, **demo.render_kw) if upto is None else demo.render(fig, result, upto=upto,
                                                                                         **demo.render_kw)
            fig.draw_without_rendering()
            for i, ax in enumerate(fig.axes):
                assert legend_coverage(ax) == [], (name, style, upto, i)
