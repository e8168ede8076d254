"""Legends that cover no data: one rule for where a figure's legend goes, and the test of it.

:func:`place_legend` draws an axes' legend at the first location, in a preferred order, where its box covers no
drawn data: no vertex or segment of a line, no scatter point, no bar, no outline of a band, no annotation text. If
every location covers something, it raises the top of the y axis (headroom) and tries again; failing that, it keeps
the location covering the fewest data vertices and reports it in the returned :class:`Placement`, so that a test
can fail on it (tests/counterexamples/test_legends.py draws every demo).

Coverage is computed in display coordinates, so log axes and every transform are exact: a segment covers the box
when it crosses it (Liang-Barsky clipping), not only when a vertex falls inside it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: ``gid`` of artists that mark where an animation is (a moving round line and its label): never data to avoid.
MARKER_GID = "round-marker"
#: How much headroom :func:`place_legend` may add above the data, in steps of this fraction of the y span.
HEADROOM_STEP, HEADROOM_STEPS = 0.3, 3
#: Locations tried after the preferred one, in this order (matplotlib's names).
LOCATIONS = ("upper right", "upper left", "lower right", "lower left", "center right", "center left",
             "upper center", "lower center", "center")


@dataclass(frozen=True)
class Placement:
    """Where a legend went and what it covers there (``covered``: labels of the artists under its box)."""

    location: str
    covered: tuple[str, ...]


def _segment_hits_box(p: np.ndarray, q: np.ndarray, box) -> np.ndarray:
    """Per segment p_i -> q_i (``[n, 2]`` display coordinates): does it meet the box (x0, y0, x1, y1)?"""
    x0, y0, x1, y1 = box
    d = q - p
    t0, t1 = np.zeros(len(p)), np.ones(len(p))
    ok = np.ones(len(p), dtype=bool)
    for pk, qk in ((-d[:, 0], p[:, 0] - x0), (d[:, 0], x1 - p[:, 0]), (-d[:, 1], p[:, 1] - y0), (d[:, 1], y1 - p[:, 1])):
        parallel = pk == 0
        ok &= ~(parallel & (qk < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(parallel, 0.0, qk / np.where(parallel, 1.0, pk))
        t0 = np.where(~parallel & (pk < 0), np.maximum(t0, r), t0)
        t1 = np.where(~parallel & (pk > 0), np.minimum(t1, r), t1)
    return ok & (t0 <= t1)


def _points_in_box(xy: np.ndarray, box) -> int:
    x0, y0, x1, y1 = box
    return int(np.sum((xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)))


def covered_artists(ax, box, renderer, skip=()) -> list[tuple[str, int]]:
    """(label, how many of its vertices or pieces lie under ``box``) for every data artist of ``ax`` the box meets.
    Data are clipped to the axes, so only the part of the box inside them counts."""
    frame = ax.get_window_extent(renderer)
    box = (max(box[0], frame.x0), max(box[1], frame.y0), min(box[2], frame.x1), min(box[3], frame.y1))
    if box[0] >= box[2] or box[1] >= box[3]:
        return []
    found = []
    for line in ax.lines:
        if line in skip or not line.get_visible():
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if not len(xy):
            continue
        hits = _points_in_box(xy, box) if line.get_marker() not in (None, "", "None", " ") else 0
        if line.get_linestyle() not in ("None", "", " ") and len(xy) > 1:  # a one-point line draws no segment
            hits += int(_segment_hits_box(xy[:-1], xy[1:], box).sum())
        if hits:
            found.append((str(line.get_label()), hits))
    from matplotlib.collections import PathCollection

    for coll in ax.collections:
        if coll in skip or not coll.get_visible():
            continue
        hits = 0
        if isinstance(coll, PathCollection):  # a scatter: its points
            xy = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float))
            hits = _points_in_box(xy[np.all(np.isfinite(xy), axis=1)], box)
        else:  # bands (fill_between), error bars, segments: the outlines of their paths
            for path in coll.get_paths():
                verts = coll.get_transform().transform(path.vertices)
                verts = verts[np.all(np.isfinite(verts), axis=1)]
                if len(verts) > 1:
                    hits += int(_segment_hits_box(verts[:-1], verts[1:], box).sum()) + _points_in_box(verts, box)
        if hits:
            found.append((str(coll.get_label()), hits))
    x0, y0, x1, y1 = box
    for artist, label in [(p, str(p.get_label()) or "bar") for p in ax.patches] + [
            (t, f"text {t.get_text()!r}") for t in ax.texts if t.get_text().strip()]:
        if artist in skip or not artist.get_visible():
            continue
        e = artist.get_window_extent(renderer)
        if e.x0 < x1 and e.x1 > x0 and e.y0 < y1 and e.y1 > y0:
            found.append((label, 1))
    return found


def _markers(ax) -> list:
    """The animation's round marker (``gid`` :data:`MARKER_GID`): not data."""
    return [a for a in (*ax.lines, *ax.texts, *ax.collections) if a.get_gid() == MARKER_GID]


def _renderer(fig):
    """The figure's renderer (a bare ``Figure`` gets an Agg canvas, as ``savefig`` would give it)."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()


def legend_coverage(ax, renderer=None) -> list[tuple[str, int]]:
    """What the axes' current legend covers (empty when it has none or it covers nothing); the animation's round
    marker (``gid`` :data:`MARKER_GID`) is not data."""
    legend = ax.get_legend()
    if legend is None:
        return []
    renderer = renderer or _renderer(ax.figure)
    box = legend.get_window_extent(renderer)
    return covered_artists(ax, (box.x0, box.y0, box.x1, box.y1), renderer, _markers(ax))


def _add_headroom(ax, fraction: float) -> None:
    """Raise the top of the y axis by ``fraction`` of its span (of its log span on a log axis). Vertical reference
    lines drawn over the whole height (``axvline``) stop at the old top, so that the headroom is free for the
    legend."""
    lo, hi = ax.get_ylim()
    full_height = [line for line in ax.lines if line.get_transform() is ax.get_xaxis_transform(which="grid")
                   and line.get_gid() != MARKER_GID]
    old_top = [float(np.max(line.get_ydata())) for line in full_height]
    if ax.get_yscale() == "log" and lo > 0 and hi > 0:
        ax.set_ylim(lo, hi * (hi / lo) ** fraction)
    else:
        ax.set_ylim(lo, hi + fraction * (hi - lo))
    for line, top in zip(full_height, old_top):
        line.set_ydata([0.0, top / (1.0 + fraction)])


def place_legend(ax, *, prefer: str = "upper right", headroom: bool = True, **kwargs) -> Placement:
    """Draw ``ax.legend(**kwargs)`` at ``prefer`` if its box covers no data there, else at the first clear location
    of :data:`LOCATIONS`; if none is clear, raise the y axis's top (``headroom``: up to three steps of 30 % of the
    span) and try again; else keep the location covering the fewest data vertices. Call it once the axes' data and
    limits are final, and the figure's layout fixed (no layout engine, or a draw before)."""
    renderer = _renderer(ax.figure)
    skip = _markers(ax)
    order = (prefer,) + tuple(x for x in LOCATIONS if x != prefer)
    best = None
    for step in range(HEADROOM_STEPS + 1 if headroom else 1):
        if step:
            _add_headroom(ax, HEADROOM_STEP)
        legend = ax.legend(loc=prefer, **kwargs)
        for loc in order:
            legend.set_loc(loc)  # one legend moved, its texts laid out once
            box = legend.get_window_extent(renderer)  # laid out against the axes' box: no draw of the figure needed
            covered = covered_artists(ax, (box.x0, box.y0, box.x1, box.y1), renderer, skip)
            if not covered:
                return Placement(loc, ())
            weight = sum(n for _, n in covered)
            if best is None or weight < best[0]:
                best = (weight, loc, covered, ax.get_ylim(), [(line, line.get_ydata()) for line in ax.lines])
    ax.set_ylim(*best[3])
    for line, ydata in best[4]:
        line.set_ydata(ydata)
    ax.legend(loc=best[1], **kwargs)
    return Placement(best[1], tuple(label for label, _ in best[2]))
