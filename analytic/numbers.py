"""How a number is shown to a reader when it is too large to be a measurement.

A quantity beyond :data:`DIVERGED_BEYOND` in size is a divergence (a plain mean under attack, an iterate that left
every scale) or a floating-point overflow, never data a reader should compare digits of: the report and the checks'
texts show it as "beyond 10^100" (one rule, here; reports/text_lint.py flags any such number that still appears).
"""
from __future__ import annotations

import math

DIVERGED_BEYOND = 1e100


def magnitude(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits, or "beyond 10^100" (with its sign) when it is that large."""
    f = float(x)
    if math.isnan(f):
        return "NaN"
    if abs(f) >= DIVERGED_BEYOND:
        return ("-" if f < 0 else "") + "beyond 10^100"
    return f"{f:.{digits}g}"
