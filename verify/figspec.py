"""Builders for ``Result.figure``: plain-data plot specs that reports/figures.py renders.

The shape of a figure::

    {"panels": [{"title", "xlabel", "ylabel", "xscale": "log"|"linear", "yscale": ...,
                 "series": [{"label", "x", "y", "lo", "hi", "band_label",
                             "role": "observed"|"bound"|"reference"}]}]}

or ``{"draw": "package.module:function"}`` for a custom drawing ``function(result, png_path)``.
"""
from __future__ import annotations

import numpy as np

from verify.fit import DEFAULT_LEVEL, bootstrap_ci


def observed(label: str, x, Y, rng=None, level: float = DEFAULT_LEVEL) -> dict:
    """Mean over replicates of ``Y [R, P]`` with its labelled bootstrap band."""
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    mean, lo, hi = bootstrap_ci(Y, level=level, rng=rng)
    band = f"{int(round(level * 100))}% bootstrap CI of the mean, {Y.shape[0]} replicates" if Y.shape[0] > 1 else ""
    return {"label": label, "x": list(map(float, x)), "y": mean.tolist(), "lo": lo.tolist() if band else None,
            "hi": hi.tolist() if band else None, "band_label": band, "role": "observed"}


def line(label: str, x, y, role: str = "bound") -> dict:
    return {"label": label, "x": list(map(float, x)), "y": list(map(float, np.broadcast_to(y, np.shape(x)))),
            "lo": None, "hi": None, "band_label": "", "role": role}


def interval(label: str, x, y, lo, hi, band_label: str, role: str = "observed") -> dict:
    """A curve with a band computed elsewhere (Clopper-Pearson, z standard errors, ...); the band
    must say what it is."""
    return {"label": label, "x": list(map(float, x)), "y": list(map(float, y)), "lo": list(map(float, lo)),
            "hi": list(map(float, hi)), "band_label": band_label, "role": role}


def panel(title: str, xlabel: str, ylabel: str, series: list[dict], xscale: str = "log", yscale: str = "log") -> dict:
    return {"title": title, "xlabel": xlabel, "ylabel": ylabel, "xscale": xscale, "yscale": yscale, "series": series}


def figure(*panels: dict) -> dict:
    return {"panels": list(panels)}
