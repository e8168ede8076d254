"""Typst markup helpers: the one escaping function, number formatting, tables.

Everything that comes from a :class:`~verify.result.Result` (titles, claims, explanations,
labels, dictionary keys, error messages) reaches the typst source through :func:`escape`,
which turns arbitrary text into typst *markup* that displays exactly that text. Formulas
(``claim.typst``) are the one thing that is meant to be interpreted; they travel as a typst
string literal (:func:`string_literal`) and are evaluated in math mode, so a broken formula
can never leak ``$`` or ``[`` into the surrounding document.

Numbers are formatted compactly by :func:`fmt_num` (``3.2e-05``, ``0.9852``, ``120``).
"""
from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from analytic.numbers import magnitude

__all__ = [
    "escape",
    "one_line",
    "string_literal",
    "fmt_num",
    "fmt_value",
    "fmt_duration",
    "summarise_mapping",
    "cell",
    "table",
    "check_mark",
    "verdict_badge",
    "VERDICT_COLOURS",
]

# ASCII characters that have (or can have, in some position) a meaning in typst markup:
#   \ escape/linebreak   # code   $ math   * strong   _ emph   ` raw   < > labels   @ refs
#   [ ] content blocks   = headings   - + lists, "--" dashes, "-?" soft hyphen   / terms and
#   comments   ~ non-breaking space   . ellipsis, "1." enumerations, field access after code
#   : term lists, URLs   { } ( ) ; , ! ? | & % ^ are harmless in markup but escaped as well,
# so that text glued to an embedded expression (``#f[..]`` followed by "(" or ".") never
# continues that expression. Quotes are left alone: they only become smart quotes.
_SPECIAL = frozenset("\\#$*_`<>@[]=-+/~.:{}();,!?|&%^")


def escape(text: Any) -> str:
    """Arbitrary text -> typst markup that shows exactly that text.

    Every ASCII punctuation character with a possible markup meaning gets a backslash (in typst
    a backslash before any non-space character yields that character literally). Control
    characters other than newline and tab become spaces, lone surrogates become U+FFFD, and
    blank lines are kept (they separate paragraphs). ``None`` gives the empty string.
    """
    if text is None:
        return ""
    s = str(text)
    s = s.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    for ch in s:
        if ch in _SPECIAL:
            out.append("\\" + ch)
        elif ch == "\n" or ch == "\t":
            out.append(ch)
        elif unicodedata.category(ch) == "Cc" or ch in "\u2028\u2029\u0085":
            out.append(" ")  # control characters, Unicode line/paragraph separators
        else:
            out.append(ch)
    return "".join(out)


def one_line(text: Any, limit: int | None = None) -> str:
    """Whitespace (newlines included) collapsed to single spaces, optionally truncated with "…".

    Plain text in, plain text out: use it before :func:`escape` for headings and table cells
    that must stay on one line.
    """
    s = " ".join(("" if text is None else str(text)).split())
    if limit is not None and len(s) > limit:  # cut between words, and say so in words (a cut word reads as broken)
        head = s[: max(limit - len(" [cut]"), 0)]
        head = head.rsplit(" ", 1)[0] if " " in head else head
        s = head.rstrip(" ,;:(") + " [cut]"
    return s


def string_literal(text: Any) -> str:
    """Arbitrary text -> a typst *code* string literal ``"..."`` (for ``eval`` and friends)."""
    s = "" if text is None else str(text)
    s = s.encode("utf-8", "replace").decode("utf-8")
    out = ['"']
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif unicodedata.category(ch) in ("Cc", "Cs") or ch in "\u2028\u2029":
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# --------------------------------------------------------------------------------------------
# numbers and values (these return *plain text*; escape() them before putting them in markup)
# --------------------------------------------------------------------------------------------

def fmt_num(x: Any, digits: int = 4) -> str:
    """Compact number: ``3.2e-05``, ``0.9852``, ``1.235e+06``, ``120``, ``NaN``, ``inf``.

    Integers print in full up to 10 digits; floats use ``digits`` significant digits in ``%g``
    style (trailing zeros dropped). Booleans print as ``true``/``false``; ``None`` as ``—``.
    """
    if x is None:
        return "—"
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        x = int(x)
        return str(x) if abs(x) < 10**10 else f"{x:.{digits}g}"
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0:
        return "0"
    if f.is_integer() and abs(f) < 10**6:
        return str(int(f))
    return magnitude(f, digits)  # beyond 10^100: a divergence, not data (analytic/numbers.py)


def fmt_duration(seconds: Any) -> str:
    """Wall time: ``0.042 s``, ``3.1 s``, ``2 min 05 s``, ``1 h 02 min``; ``—`` when unknown."""
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return "—"
    if not math.isfinite(s) or s < 0:
        return "—"
    if s < 60:
        return f"{fmt_num(s, 2 if s < 10 else 3)} s"
    if s < 3600:
        m, r = divmod(int(round(s)), 60)
        return f"{m} min {r:02d} s"
    h, r = divmod(int(round(s)), 3600)
    return f"{h} h {r // 60:02d} min"


_SHORT_LIST = 6
_MAX_STR = 120


def _truncate(s: str, n: int = _MAX_STR) -> str:
    return one_line(s, n)


def _numeric_array(v: Any) -> np.ndarray | None:
    """``v`` as a float array if it is a (possibly nested, rectangular) numeric sequence."""
    try:
        a = np.asarray(v, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return None
    return a if a.dtype.kind == "f" else None


def fmt_value(v: Any) -> str:
    """One value, summarised to one short line of plain text.

    Scalars print with :func:`fmt_num`; short numeric lists in full (``[1, 2, 4]``); long or
    multi-dimensional ones as ``300 values, 0.01…0.98`` (plus how many are not finite);
    strings are truncated; mappings report their size.
    """
    if v is None or isinstance(v, (bool, np.bool_, int, float, np.integer, np.floating)):
        return fmt_num(v)
    if isinstance(v, str):  # a formula a check printed with sympy: its powers as a reader writes them
        return _truncate(v.replace("**", "^"))
    if isinstance(v, Mapping):  # callers flatten mappings into rows; one left here is deeper than a table shows
        return "(nested: in the Result's JSON)"
    if isinstance(v, (Sequence, np.ndarray)) and not isinstance(v, (bytes, bytearray)):
        if len(v) == 0:
            return "[]"
        a = _numeric_array(v)
        if a is not None:
            if a.ndim == 1 and a.size <= _SHORT_LIST:
                return "[" + ", ".join(fmt_num(x) for x in a) + "]"
            finite = a[np.isfinite(a)]
            shape = f"{a.size} values" if a.ndim == 1 else f"{a.size} values ({' by '.join(map(str, a.shape))})"
            if finite.size == 0:
                return f"{shape}, none finite"
            s = f"{shape} from {fmt_num(finite.min())} to {fmt_num(finite.max())}"
            if finite.size < a.size:
                s += f" ({a.size - finite.size} not finite)"
            return s
        if len(v) <= _SHORT_LIST and all(
            x is None or isinstance(x, (str, int, float, bool, np.generic)) for x in v
        ):
            return _truncate("[" + ", ".join(fmt_value(x) for x in v) + "]")
        if _is_records(v):
            return f"{len(v)} records (in the Result's JSON)"
        return _truncate("[" + ", ".join(fmt_value(x) for x in list(v)[:_SHORT_LIST]) + (", …]" if len(v) > _SHORT_LIST else "]"))
    return _truncate(repr(v))


def _is_records(v: Any) -> bool:
    """A list of dicts (one per configuration, attack, seed ...): shown as its own table (:func:`record_tables`)."""
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, Mapping) for x in v)


def _label(key: str) -> str:
    return str(key).replace("_", " ")


def flatten_mapping(d: Mapping, prefix: str = "", depth: int = 3) -> list[tuple[str, Any]]:
    """``(name, value)`` pairs of a nested mapping, each nested key its own row (``ci / lo``), down to
    ``depth`` levels; lists of records are left to :func:`record_tables`."""
    out: list[tuple[str, Any]] = []
    for k, v in d.items():
        name = f"{prefix} / {_label(k)}" if prefix else _label(k)  # a path of words: "round1 identity / rtol"
        if isinstance(v, Mapping) and v and depth > 1:
            out += flatten_mapping(v, name, depth - 1)
        elif not _is_records(v):
            out.append((name, v))
    return out


def record_tables(d: Mapping | None, max_rows: int = 12, max_cols: int = 8) -> list[tuple[str, list[str], list[list[str]]]]:
    """Each list of records in ``d`` as ``(name, header, rows)`` of plain text: the columns are the records'
    scalar keys (at most ``max_cols``), at most ``max_rows`` rows (the last one says how many were left out)."""
    out = []
    for k, v in (d or {}).items():
        if not _is_records(v):
            continue
        cols: list[str] = []
        for rec in v:
            for c, x in rec.items():
                if c not in cols and not isinstance(x, (Mapping, list, tuple)):
                    cols.append(str(c))
        cols = cols[:max_cols]
        rows = [[fmt_value(rec.get(c)) for c in cols] for rec in v[:max_rows]]
        if len(v) > max_rows:
            rows.append(["…"] + [f"{len(v) - max_rows} more in the Result's JSON"] + [""] * (len(cols) - 2))
        if cols:
            out.append((str(k), cols, rows))
    return out


def summarise_mapping(d: Mapping | None, max_entries: int = 16) -> list[tuple[str, str]]:
    """Rows ``(name, value)`` of plain text for a dict of observed or predicted numbers.

    Nested mappings become their own rows (``ci / lo``); lists of records are tables of their own
    (:func:`record_tables`); at most ``max_entries`` rows are returned, the last one saying how many
    were left out.
    """
    if not d:
        return []
    flat = flatten_mapping(d)
    rows = [(one_line(k, 40), fmt_value(v)) for k, v in flat[:max_entries]]
    if len(flat) > max_entries:
        rows[-1] = ("…", f"{len(flat) - max_entries + 1} more entries not shown")
    return rows


# --------------------------------------------------------------------------------------------
# markup builders (arguments are markup, already escaped)
# --------------------------------------------------------------------------------------------

VERDICT_COLOURS = {
    "holds": "#1a7f37",
    "reproduced": "#1a7f37",
    "violated": "#c62828",
    "not_reproduced": "#c62828",
    "inconclusive": "#b26a00",
}


def cell(markup: str) -> str:
    """A content block ``[...]`` holding markup."""
    return "[" + markup + "]"


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    columns: Sequence[str] | None = None,
    align: Sequence[str] | None = None,
    size: str | None = None,
) -> str:
    """A typst ``#table`` call with a repeating bold header row.

    ``header`` and the cells of ``rows`` are markup (use :func:`escape`); ``columns`` are typst
    track sizes (``auto``, ``1fr``, ``3cm``) and ``align`` typst alignments, one per column.
    """
    n = len(header)
    cols = ", ".join(columns) if columns else ", ".join(["auto"] * n)
    parts = [f"columns: ({cols},)"]
    if align:
        parts.append("align: (" + ", ".join(align) + ",)")
    parts.append("table.header(" + ", ".join(cell(f"*{h}*") for h in header) + ")")
    for r in rows:
        if len(r) != n:
            raise ValueError(f"table row has {len(r)} cells, header has {n}")
        parts.append(", ".join(cell(c) for c in r))
    body = "#table(\n  " + ",\n  ".join(parts) + ",\n)"
    if size:
        body = "#[#set text(size: " + size + ")\n" + body + "\n]"
    return body


def check_mark(ok: bool | None) -> str:
    """Green ✓, red ✗, or an em dash when unknown."""
    if ok is None:
        return "—"
    return '#text(fill: rgb("#1a7f37"))[✓]' if ok else '#text(fill: rgb("#c62828"))[✗]'


def verdict_badge(verdict: Any) -> str:
    """The verdict word on a tinted pill in its colour (green / red / amber; grey if unknown)."""
    v = getattr(verdict, "value", verdict)
    v = "" if v is None else str(v)
    colour = VERDICT_COLOURS.get(v, "#555555")
    return f'#badge(rgb("{colour}"))[{escape(v)}]'
