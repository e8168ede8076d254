"""Figures for the report: a Result's ``figure`` spec drawn with matplotlib and seaborn.

``Result.figure`` is one of

(a) ``{"panels": [panel, ...]}`` with each panel::

        {"title": str, "xlabel": str, "ylabel": str,
         "xscale": "log" | "linear", "yscale": "log" | "linear",
         "series": [{"label": str, "x": [...], "y": [...],
                     "lo": [...] | None, "hi": [...] | None, "band_label": str,
                     "role": "observed" | "bound" | "reference"}]}

    observed: markers and a line for the mean, a shaded band between ``lo`` and ``hi`` that
    carries ``band_label`` in the legend; bound: dashed line; reference: dotted grey line. Bound and
    reference lines are drawn above the observed ones, so a prediction the data meet stays visible.
    Panels sit side by side, at most three to a row.
(b) ``{"draw": "package.module:function"}``: ``function(result, path)`` writes a PNG at path.
(c) ``{}``: no figure.

Log axes cope with values that cannot be shown (zero, negative, NaN): those points are
masked (a line breaks there and the panel says how many were hidden); a band whose lower end
is not positive is drawn down to the bottom of the axis. No epsilon is ever added to data.
A log axis with no positive value at all falls back to a linear axis, and says so.

:func:`render_figure` raises :class:`FigureError` (or the draw function's own exception)
when a figure cannot be made; the PDF builder turns that into a note.
"""
from __future__ import annotations

import importlib
import math
import textwrap
import warnings
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure  # drawn on a bare Figure (Agg canvas): no pyplot state

__all__ = ["FigureError", "render_figure", "draw_panels", "render_latex", "DPI"]

DPI = 150
THEORY_ZORDER = 3  # bound and reference lines sit above observed ones (matplotlib's lines: 2)
MAX_COLS = 3
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF8", b"<svg", b"<?xml")


class FigureError(RuntimeError):
    """A figure spec that cannot be drawn."""


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------

#: the largest magnitude a figure draws: an axis pads its data range (on a log axis by a share of the decades), and
#: values near float64's 1.8e308 overflow that padding; such a value is counted with the hidden points instead
DRAWABLE = 1e250


def render_figure(result: Any, path: str | Path) -> Path | None:
    """Draw ``result.figure`` into ``path`` (PNG, or SVG if the suffix says so).

    Returns the path written, or ``None`` when the result has no figure.
    """
    spec = getattr(result, "figure", None) or {}
    path = Path(path)
    if not isinstance(spec, dict):
        raise FigureError(f"figure spec must be a dict, got {type(spec).__name__}")
    if spec.get("draw"):
        return _call_draw(str(spec["draw"]), result, path)
    if "panels" in spec:
        panels = spec["panels"]
        if not panels:
            return None
        if not isinstance(panels, list):
            raise FigureError("figure 'panels' must be a list")
        return draw_panels(panels, path)
    if not spec:
        return None
    raise FigureError(f"figure spec has neither 'panels' nor 'draw' (keys: {', '.join(map(str, spec))})")


def _call_draw(target: str, result: Any, path: Path) -> Path:
    mod_name, sep, func_name = target.partition(":")
    if not sep:  # also accept "package.module.function"
        mod_name, _, func_name = target.rpartition(".")
    if not mod_name or not func_name:
        raise FigureError(f"draw target {target!r} is not 'package.module:function'")
    obj: Any = importlib.import_module(mod_name)
    for part in func_name.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise FigureError(f"draw target {target!r} is not callable")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    obj(result, path)
    if not path.exists() or path.stat().st_size == 0:
        raise FigureError(f"{target} wrote no image at the given path")
    with open(path, "rb") as fh:
        head = fh.read(16).lstrip()
    if not head.startswith(_IMAGE_MAGIC):
        raise FigureError(f"{target} wrote a file that is not a PNG, JPEG, GIF or SVG image")
    return path


# --------------------------------------------------------------------------------------------
# panels
# --------------------------------------------------------------------------------------------

def _arr(v: Any, name: str, n: int | None = None) -> np.ndarray | None:
    if v is None:
        return None
    try:
        a = np.asarray([np.nan if x is None else x for x in v], dtype=float)
    except (TypeError, ValueError) as e:
        raise FigureError(f"series {name}: not a list of numbers ({e})") from None
    if a.ndim != 1:
        raise FigureError(f"series {name}: expected a flat list, got shape {a.shape}")
    if n is not None and a.size != n:
        raise FigureError(f"series {name}: length {a.size} differs from x (length {n})")
    return a


class LabelWarning(UserWarning):
    """A figure label that matplotlib's mathtext cannot parse: it is drawn as plain text, loudly."""


def label_problem(s: Any) -> str | None:
    """Why the label ``s`` does not parse as mathtext (e.g. ``$\\frac12$`` without braces), or None."""
    s = "" if s is None else str(s)
    if "$" not in s.replace(r"\$", ""):
        return None
    from matplotlib.mathtext import MathTextParser

    try:
        MathTextParser("path").parse(s)
    except ValueError as exc:
        return " ".join(str(exc).split())[:200]
    return None


def figure_labels(spec: Any) -> list[str]:
    """Every text of a figure spec (verify/figspec.py) that is drawn: titles, axis labels, series and band labels."""
    out = []
    for panel in (spec or {}).get("panels", []) if isinstance(spec, dict) else []:
        out += [str(panel.get(k)) for k in ("title", "xlabel", "ylabel") if panel.get(k)]
        for series in panel.get("series") or []:
            out += [str(series.get(k)) for k in ("label", "band_label") if series.get(k)]
    return out


def _text(s: Any, plain: bool, width: int = 60, limit: int = 140) -> str:
    """Text for matplotlib: one paragraph, at most ``limit`` characters, wrapped at ``width``
    (unless it holds mathtext, which must not be cut). ``plain`` escapes ``$`` so that mathtext
    is not attempted; a label that does not parse is drawn plain with a :class:`LabelWarning`."""
    s = " ".join(("" if s is None else str(s)).split())
    if not plain and (problem := label_problem(s)):
        warnings.warn(f"figure label {s!r} is not valid mathtext ({problem}); drawn as plain text", LabelWarning,
                      stacklevel=2)
        plain = True
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    if plain or "$" not in s:
        s = "\n".join(textwrap.wrap(s, width)) if len(s) > width else s
    return s.replace("$", r"\$") if plain else s


def _legend_label(s: Any, plain: bool) -> str | None:
    s = _text(s, plain, width=48, limit=110).strip()
    if not s:
        return None
    return " " + s if s.startswith("_") else s  # matplotlib hides labels starting with "_"


def draw_panels(panels: list[dict], path: str | Path) -> Path:
    """Draw panels side by side (at most three a row) and save to ``path``.

    Labels are matplotlib mathtext (``$\\sigma^2$`` renders); a label that does not parse is drawn as
    plain text with a :class:`LabelWarning` (tests require every check's labels to parse). A parse error
    that only surfaces when the figure is saved draws the whole figure plain, with the same warning.
    """
    path = Path(path)
    try:
        return _draw_panels(panels, path, plain=False)
    except FigureError:
        raise
    except ValueError as exc:  # a mathtext parse error surfaces at savefig time
        warnings.warn(f"figure {path.name}: mathtext failed at drawing time ({exc}); every label drawn as plain text",
                      LabelWarning, stacklevel=2)
        return _draw_panels(panels, path, plain=True)


def _draw_panels(panels: list[dict], path: Path, plain: bool) -> Path:
    import seaborn as sns

    n = len(panels)
    ncols = min(MAX_COLS, n)
    nrows = math.ceil(n / ncols)
    size = (4.8, 3.0) if n == 1 else (3.5 * ncols, 2.9 * nrows)
    with matplotlib.rc_context():
        sns.set_theme(style="whitegrid", context="paper")
        palette = sns.color_palette("deep")
        fig = Figure(figsize=size, layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for i, panel in enumerate(panels):
            if not isinstance(panel, dict):
                raise FigureError(f"panel {i}: expected a dict, got {type(panel).__name__}")
            _draw_panel(axes[i // ncols][i % ncols], panel, palette, plain, wrap=65 if n == 1 else 42)
        for j in range(n, nrows * ncols):
            axes[j // ncols][j % ncols].set_visible(False)
        path.parent.mkdir(parents=True, exist_ok=True)
        fmt = "svg" if path.suffix.lower() == ".svg" else "png"
        with warnings.catch_warnings():  # huge labels: the layout gives up, the figure is still fine
            warnings.filterwarnings("ignore", message="constrained_layout not applied")
            fig.savefig(path, dpi=DPI, format=fmt)
    return path


def _scale(scale: Any) -> str:
    s = str(scale or "linear").lower()
    if s not in ("log", "linear"):
        raise FigureError(f"axis scale {scale!r}: expected 'log' or 'linear'")
    return s


def _sparse_log_ticks(axis, lo: float, hi: float) -> None:
    """A log axis spanning less than a decade: matplotlib would label every minor tick as ``3×10^0``, and those
    labels collide. Label 1, 2 and 5 times the powers of ten in plain numbers instead (or a few linear steps
    when fewer than two of those fall inside), and leave the minor ticks unlabelled."""
    from matplotlib import ticker

    lo, hi = min(lo, hi), max(lo, hi)
    if not (lo > 0 and math.isfinite(hi) and hi < 10 * lo):  # no division: a tiny lo must not overflow
        return
    locator = ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0))
    if sum(lo <= t <= hi for t in locator.tick_values(lo, hi)) < 2:
        locator = ticker.MaxNLocator(nbins=4)
    axis.set_major_locator(locator)
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def _draw_panel(ax, panel: dict, palette, plain: bool, wrap: int = 60) -> None:
    xscale = _scale(panel.get("xscale"))
    yscale = _scale(panel.get("yscale"))
    series = panel.get("series") or []
    if not isinstance(series, list):
        raise FigureError("panel 'series' must be a list")

    # -- read and validate all series first, so the axis scales can be decided -----------------
    parsed = []
    for k, s in enumerate(series):
        if not isinstance(s, dict):
            raise FigureError(f"series {k}: expected a dict")
        name = str(s.get("label") or f"#{k}")
        x = _arr(s.get("x"), f"{name!r} x")
        if x is None:
            raise FigureError(f"series {name!r}: missing x")
        y = _arr(s.get("y"), f"{name!r} y", x.size)
        if y is None:
            raise FigureError(f"series {name!r}: missing y")
        lo = _arr(s.get("lo"), f"{name!r} lo", x.size)
        hi = _arr(s.get("hi"), f"{name!r} hi", x.size)
        role = str(s.get("role") or "observed")
        if role not in ("observed", "bound", "reference"):
            raise FigureError(f"series {name!r}: role {role!r} is not observed, bound or reference")
        parsed.append((s, x, y, lo, hi, role))

    def any_positive(arrs) -> bool:
        return any(a is not None and np.any(np.isfinite(a) & (a > 0)) for a in arrs)

    notes = []
    if xscale == "log" and parsed and not any_positive([p[1] for p in parsed]):
        xscale = "linear"
        notes.append("x: linear (no positive values)")
    if yscale == "log" and parsed and not any_positive([a for p in parsed for a in (p[2], p[3], p[4])]):
        yscale = "linear"
        notes.append("y: linear (no positive values)")
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)

    hidden = 0
    pending_bands = []  # bands with a non-positive lower end on a log y axis, drawn last
    colour_i = 0
    for s, x, y, lo, hi, role in parsed:
        ok = np.isfinite(x) & np.isfinite(y) & (np.abs(x) < DRAWABLE) & (np.abs(y) < DRAWABLE)
        if xscale == "log":
            ok &= x > 0
        if yscale == "log":
            ok &= y > 0
        hidden += int(np.sum(np.isfinite(x) & np.isfinite(y) & ~ok))
        order = np.argsort(np.where(np.isfinite(x), x, np.inf), kind="stable")
        xo, yo = x[order], np.where(ok, y, np.nan)[order]
        label = _legend_label(s.get("label"), plain)
        # theory (bound, reference) is drawn above the observations, broken, so that a prediction the data meet
        # exactly stays visible on the observed line instead of hiding under it
        if role == "reference":
            ax.plot(xo, yo, linestyle=":", color="0.3", linewidth=1.6, label=label, zorder=THEORY_ZORDER)
            continue
        colour = palette[colour_i % len(palette)]
        colour_i += 1
        if role == "bound":
            ax.plot(xo, yo, linestyle="--", color=colour, linewidth=1.5, label=label, zorder=THEORY_ZORDER)
            continue
        ax.plot(xo, yo, marker="o" if x.size <= 60 else None, markersize=3.5, linewidth=1.3, color=colour,
                label=label)
        if lo is not None and hi is not None:
            band_label = _legend_label(s.get("band_label"), plain) or _legend_label(
                f"band: {s.get('label') or 'observed'} (lo–hi)", plain
            )
            b_ok = np.isfinite(x) & np.isfinite(lo) & np.isfinite(hi) & (np.abs(x) < DRAWABLE) & (np.abs(hi) < DRAWABLE)
            if xscale == "log":
                b_ok &= x > 0
            if yscale == "log":
                b_ok &= hi > 0
                clipped = b_ok & (lo <= 0)
            else:
                clipped = np.zeros_like(b_ok)
            xb = x[order]
            lob = np.where(b_ok, lo, np.nan)[order]
            hib = np.where(b_ok, hi, np.nan)[order]
            okb = b_ok[order]
            if np.any(clipped):
                pending_bands.append((xb, lob, hib, okb, clipped[order], colour, band_label))
            elif np.any(okb):
                ax.fill_between(xb, lob, hib, where=okb, color=colour, alpha=0.22, linewidth=0,
                                label=band_label, interpolate=False)

    if pending_bands:
        # Autoscale on what can be shown (means, bounds, positive band ends), then extend the
        # clipped band ends to the bottom edge of the axis.
        for xb, lob, hib, okb, clip, colour, _ in pending_bands:
            ax.plot(xb, np.where(okb & ~clip, lob, np.nan), alpha=0)
            ax.plot(xb, hib, alpha=0)
        ax.relim()
        ax.autoscale_view()
        bottom, top = ax.get_ylim()
        for xb, lob, hib, okb, clip, colour, band_label in pending_bands:
            lo_draw = np.where(clip, bottom, lob)
            ax.fill_between(xb, lo_draw, hib, where=okb, color=colour, alpha=0.22, linewidth=0,
                            label=(band_label or "") + " (lower end ≤ 0: to axis)")
        ax.set_ylim(bottom, top)

    for axis, lim in ((ax.xaxis, ax.get_xlim()) if xscale == "log" else (None, None),
                      (ax.yaxis, ax.get_ylim()) if yscale == "log" else (None, None)):
        if axis is not None:
            _sparse_log_ticks(axis, *lim)
    if hidden:
        notes.append(f"{hidden} point{'s' if hidden > 1 else ''} ≤ 0 or not finite not shown")
    ax.set_title(_text(panel.get("title"), plain, width=wrap), fontsize=9)
    ax.set_xlabel(_text(panel.get("xlabel"), plain, width=wrap) + ("\n" + "; ".join(notes) if notes else ""))
    ax.set_ylabel(_text(panel.get("ylabel"), plain, width=50, limit=100))
    handles, labels = ax.get_legend_handles_labels()
    seen, h2, l2 = set(), [], []
    for h, lab in zip(handles, labels):
        if lab not in seen:
            seen.add(lab)
            h2.append(h)
            l2.append(lab)
    if h2:
        ax.legend(h2, l2, fontsize=6.5, loc="best", framealpha=0.85)


# --------------------------------------------------------------------------------------------
# LaTeX fallback for formulas
# --------------------------------------------------------------------------------------------

def _strip_math_delims(latex: str) -> str:
    s = latex.strip()
    for a, b in (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")):
        if s.startswith(a) and s.endswith(b) and len(s) >= len(a) + len(b):
            return s[len(a): len(s) - len(b)].strip()
    return s


def render_latex(latex: str, path: str | Path, fontsize: float = 13) -> Path:
    """Render a LaTeX formula through matplotlib mathtext to ``path`` (SVG, glyphs as paths).

    Raises ``ValueError`` when mathtext cannot parse the formula.
    """
    from matplotlib import mathtext
    from matplotlib.font_manager import FontProperties

    path = Path(path)
    body = _strip_math_delims(latex)
    if not body:
        raise ValueError("empty formula")
    with matplotlib.rc_context({"svg.fonttype": "path", "mathtext.fontset": "cm"}):
        mathtext.math_to_image(f"${body}$", str(path), prop=FontProperties(size=fontsize), format="svg")
    return path
