"""What a verdict atom's data touched of its Bound: each symbol varied or fixed, each term exercised or not.

A theorem's bound ``g(x_1, ..., x_m) = t_1 + ... + t_k`` is tested by an atom of :mod:`verify.fit` on grid points
``i`` with the violation interval ``[lo_i, hi_i]`` of the measured quantity (the interval at which that atom would call
the bound violated). From the same numbers, without rerunning anything, this module says what the run could see:

* **symbols.** ``x_j`` is *varied* when it takes at least two values over the points, else *fixed* (the run is blind
  to how ``g`` depends on it). For a varied symbol, the *power* is the smallest exponent ``s`` of the literal plant
  ``g -> g * x_j**s`` that the run would have called violated: for an upper bound a point violates the planted
  bound when ``lo_i > g_i x_ij**s``, i.e. ``s ln x_ij < -ln(g_i/lo_i)``, so

      s_up   = min over points with x_ij < 1 of ln(g_i/lo_i) / (-ln x_ij)      (s > 0)
      s_down = min over points with x_ij > 1 of ln(g_i/lo_i) / ln x_ij         (s < 0, reported as its size)

  and mirrored for a lower bound (``hi_i < g_i x_ij**s``). ``None`` means no such plant flips the verdict on this
  grid (e.g. every value of ``x_j`` is >= 1 for ``s_up``). A plant in a fixed symbol at a value 1 changes nothing.
* **terms.** Each top-level additive term ``t_l`` (sympy's ``Add.make_args``) is *exercised* when the bound without
  it, ``g - t_l``, would have been violated at some point: the data needed that term. A term that is not
  exercised could be removed from the theorem and the run would still say ``holds``.

For a rate atom (a fitted exponent in ``param``) the param's power is the exponent shift the atom reports; another
symbol ``y`` that moves with the grid shifts the predicted exponent by ``s * d ln y / d ln x`` under the plant
``y**s``, so its power is the param's shift divided by that slope.

The statement cards (verify/statement_cards.py) merge these per-atom records over the checks of a statement.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

from analytic.bounds import Bound

#: at most this many values of a varied symbol are kept in a record (its range is always kept)
_MAX_SHOWN = 6


def _per_point(values: dict | None, shape: tuple) -> dict[str, np.ndarray]:
    """Each value broadcast to the atom's grid shape and flattened (a value of another shape is left out)."""
    out = {}
    for name, v in (values or {}).items():
        try:
            arr = np.broadcast_to(np.asarray(v, dtype=float), shape).ravel()
        except (TypeError, ValueError):
            continue
        out[name] = arr
    return out


def _num(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.4g}")


def _exponent_power(ln_slack: np.ndarray, ln_x: np.ndarray, positive: bool) -> float | None:
    """The smallest exponent size |s| with s of the given sign that overturns some point: points where
    s ln x is negative enough (upper) -- the caller passes ln_x already signed for the side."""
    sel = (ln_x < 0) if positive else (ln_x > 0)
    sel &= np.isfinite(ln_slack)
    if not np.any(sel):
        return None
    need = np.maximum(ln_slack[sel], 0.0) / np.abs(ln_x[sel])
    return _num(float(np.min(need)))


def symbol_record(x: np.ndarray, ln_slack: np.ndarray | None, side: str) -> dict:
    """``{"status": "varied", "range": [lo, hi], "values": [...], "power": {"up", "down"}}`` or
    ``{"status": "fixed", "value": v, "power": ...}`` for one symbol's per-point values ``x``; ``ln_slack`` is ln(g/lo)
    per point (upper) or ln(hi/g) (lower), >= 0 where the point holds. The power of a fixed symbol is that of the plant
    x**s at its one value (none at 1): the statement cards combine atoms that hold it at different values."""
    finite = x[np.isfinite(x)]
    if finite.size == 0:
        return {"status": "fixed", "value": None}
    distinct = np.unique(finite)
    if distinct.size < 2:
        rec = {"status": "fixed", "value": _num(float(distinct[0]))}
    else:
        rec = {"status": "varied", "range": [_num(float(distinct[0])), _num(float(distinct[-1]))],
               "values": [_num(float(v)) for v in distinct[:_MAX_SHOWN]]}
    rec["power"] = {"up": None, "down": None}
    if ln_slack is not None:
        keep = np.isfinite(x) & (x > 0)
        with np.errstate(divide="ignore"):
            ln_x = np.log(x[keep]) if side == "upper" else -np.log(x[keep])
        rec["power"] = {"up": _exponent_power(ln_slack[keep], ln_x, True),
                        "down": _exponent_power(ln_slack[keep], ln_x, False)}
    return rec


def terms_of(bound: Bound) -> tuple[sp.Expr, ...]:
    """The bound's top-level additive terms, as printed (one term when the expression is not a sum)."""
    return sp.Add.make_args(bound.expr)


@functools.lru_cache(maxsize=4096)
def _numpy_function(expr: sp.Expr):
    """(the free symbols of ``expr`` by name, its numpy function): sympy's lambdify costs milliseconds a call, and
    the same bound-without-a-term is evaluated by every run of a check in a process."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    return syms, sp.lambdify(syms, expr, "numpy")


def _without(bound: Bound, term: sp.Expr, at: dict[str, np.ndarray], shape: tuple) -> np.ndarray:
    rest = bound.expr - term
    syms, f = _numpy_function(rest)
    if not syms:
        return np.full(shape, float(rest)).ravel()
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(f(*(at[s.name] for s in syms)), dtype=float), shape).ravel()


def term_records(bound: Bound, at: dict[str, np.ndarray], lo: np.ndarray, hi: np.ndarray, side: str,
                 widen=None) -> list[dict]:
    """For each top-level term of ``bound``: exercised when the bound without it is violated at some point
    (upper: lo > rest; lower: hi < rest). ``widen`` maps raw bound values to the ones the atom compared
    (a relative rounding allowance)."""
    terms = terms_of(bound)
    if len(terms) < 1:
        return []
    missing = [s.name for s in bound.symbols if s.name not in at]
    out = []
    for t in terms:
        rec = {"term": sp.sstr(t)}
        if missing:
            rec.update(exercised=None, why=f"values of {missing} not given")
        else:
            rest = _without(bound, t, at, lo.shape)
            if widen is not None:
                rest = widen(rest)
            ok = np.isfinite(rest)
            broken = (lo[ok] > rest[ok]) if side == "upper" else (hi[ok] < rest[ok])
            rec["exercised"] = bool(np.any(broken))
        out.append(rec)
    return out


def bound_evidence(bound, values: dict | None, g, lo_v, hi_v, side: str, widen=None) -> dict:
    """The evidence record of a threshold atom on a :class:`Bound` (empty for plain numbers): ``g`` the bound
    values the atom compared at each point, ``[lo_v, hi_v]`` the violation intervals, ``widen`` the map from raw
    bound values to compared ones (a rounding allowance), applied to the bound without each term."""
    if not isinstance(bound, Bound):
        return {}
    try:
        return _bound_evidence(bound, values, g, lo_v, hi_v, side, widen)
    except Exception as exc:  # noqa: BLE001 - evidence describes a verdict; it must never cost the verdict
        return {"bound": bound.name, "source": bound.source, "kind": bound.kind, "symbols": {}, "terms": [],
                "error": f"{type(exc).__name__}: {exc}"}


def _bound_evidence(bound, values, g, lo_v, hi_v, side, widen) -> dict:
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (g, lo_v, hi_v)))
    at = _per_point(values, arrays[0].shape)
    g, lo, hi = (np.ravel(a) for a in arrays)
    with np.errstate(divide="ignore", invalid="ignore"):
        if side == "upper":
            ln_slack = np.where((g > 0) & (lo > 0), np.log(g / lo), np.inf)
        else:
            ln_slack = np.where((g > 0) & (hi > 0), np.log(hi / g), np.nan)
    positive = bool(np.all(np.isfinite(g) & (g > 0)))
    symbols = {s.name: (symbol_record(at[s.name], ln_slack if positive else None, side) if s.name in at
                        else {"status": "fixed", "value": None, "why": "no value given"}) for s in bound.symbols}
    return {"bound": bound.name, "source": bound.source, "kind": bound.kind, "symbols": symbols,
            "terms": term_records(bound, at, lo, hi, side, widen)}


def rate_evidence(bound: Bound, param: str, x: np.ndarray, values: dict | None, shift_up: float | None,
                  shift_down: float | None) -> dict:
    """The evidence record of a rate atom: ``param`` varied with the exponent shifts that flip the fit; the
    other symbols varied (with the power their co-movement with ``param`` gives) or fixed. Terms: a rate is
    fitted to the whole bound's local slope, so each term is classified by whether removing it moves the
    predicted exponent past the shift that flips the atom (``shift_up``: raising the exponent by more flips it,
    ``shift_down``: lowering it; ``None``: no shift that way flips it)."""
    if not isinstance(bound, Bound):
        return {}
    try:
        return _rate_evidence(bound, param, x, values, shift_up, shift_down)
    except Exception as exc:  # noqa: BLE001 - evidence describes a verdict; it must never cost the verdict
        return {"bound": bound.name, "source": bound.source, "kind": bound.kind, "param": param, "symbols": {},
                "terms": [], "error": f"{type(exc).__name__}: {exc}"}


def _rate_evidence(bound, param, x, values, shift_up, shift_down) -> dict:
    x = np.asarray(x, dtype=float).ravel()
    at = _per_point(values, x.shape)
    at[param] = x
    lx = np.log(x)
    symbols = {}
    for s in bound.symbols:
        if s.name not in at:
            symbols[s.name] = {"status": "fixed", "value": None, "why": "no value given"}
            continue
        rec = symbol_record(at[s.name], None, "upper")
        if rec["status"] == "varied":
            if s.name == param:
                k = 1.0
            else:
                y = at[s.name]
                k = float(np.polyfit(lx, np.log(y), 1)[0]) if np.all(y > 0) and np.ptp(lx) > 0 else 0.0
            rec["power"] = {"up": _num(shift_up / abs(k)) if shift_up is not None and abs(k) > 1e-12 else None,
                            "down": _num(shift_down / abs(k)) if shift_down is not None and abs(k) > 1e-12 else None}
            if s.name != param and k < 0:
                rec["power"] = {"up": rec["power"]["down"], "down": rec["power"]["up"]}
        symbols[s.name] = rec
    terms = []
    missing = [s.name for s in bound.symbols if s.name not in at]
    p_full = None if missing else _slope(bound.expr, at, lx)
    for t in terms_of(bound):
        rec = {"term": sp.sstr(t)}
        if p_full is None:
            rec.update(exercised=None, why="the bound's slope is not defined on the grid")
        else:
            p_rest = _slope(bound.expr - t, at, lx)
            moved = 0.0 if p_rest is None else p_rest - p_full
            rec["exercised"] = bool(p_rest is None or (shift_down is not None and moved < -shift_down)
                                    or (shift_up is not None and moved > shift_up))
        terms.append(rec)
    return {"bound": bound.name, "source": bound.source, "kind": bound.kind, "param": param, "symbols": symbols,
            "terms": terms}


def _slope(expr: sp.Expr, at: dict[str, np.ndarray], lx: np.ndarray) -> float | None:
    syms, f = _numpy_function(expr)
    with np.errstate(all="ignore"):
        g = np.broadcast_to(np.asarray(f(*(at[s.name] for s in syms)) if syms else float(expr), dtype=float), lx.shape)
    if not np.all(np.isfinite(g) & (g > 0)) or np.ptp(lx) == 0:
        return None
    return float(np.polyfit(lx, np.log(g), 1)[0])
