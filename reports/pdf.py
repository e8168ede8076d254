"""The PDF report: every stored Result, laid out with typst (offline, built-in features only).

``build_report(results_dir, out, paper)`` reads the results directory, draws the figures
(:mod:`reports.figures`) into a temporary build directory, writes one typst source there,
compiles it with the ``typst`` package and moves the PDF atomically to ``out``.

Layout: a front page (title, date, how to read the report, verdicts and tight / loose / vacuous
counts per paper), a table of contents, one page per paper "What the checks found" (in the paper's
own numbering: the confirmed errata with their five fields, remarks and discrepancies, and every
holds that is loose or vacuous), the table of every check (findings first), then one chapter per
paper whose check sections flow on without page breaks (claim and source, formula, figure, fit,
how hard it was tested, assumptions, observed and predicted numbers, verdict and explanation,
finding), and the environment the results were produced in.

Nothing from a Result reaches the typst source unescaped (:func:`reports.typst_markup.escape`);
formulas travel as string literals evaluated in math mode. If the document still fails to
compile (a formula that is not valid typst math, an image typst cannot decode), the sections
are typeset one by one and a failing one is rebuilt in a safe form (formula as plain text,
figure replaced by a note), so one bad Result never costs the whole report.
"""
from __future__ import annotations

import datetime as _dt
import os
import re
import struct
import tempfile
from collections import Counter

import numpy as np
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.prose_math import prose_math
from reports.typst_markup import (
    flatten_mapping,
    record_tables,
    check_mark,
    escape,
    one_line,
    fmt_duration,
    fmt_num,
    fmt_value,
    string_literal,
    summarise_mapping,
    table,
    verdict_badge,
)
from verify.result import ERRATUM_FIELDS, Result, check_sort_key
from verify.store import ResultStore, atomic_write

__all__ = ["build_report", "render_document"]

TEXT_WIDTH_CM = 17.0  # A4 (21 cm) less 2 cm margins each side

PREAMBLE = r"""
#let badge(colour, body) = box(
  fill: colour.lighten(86%), stroke: 0.5pt + colour.lighten(40%),
  inset: (x: 3pt, y: 0pt), outset: (y: 2pt), radius: 2pt,
  text(fill: colour.darken(10%), weight: "bold", size: 0.92em, body),
)
#let part(title) = block(above: 1.1em, below: 0.5em, sticky: true,
  text(size: 8.5pt, weight: "bold", fill: luma(30%), tracking: 0.05em, upper(title)))
#let note(body) = text(size: 9pt, style: "italic", fill: luma(35%), body)
#let mono(body) = text(font: ("DejaVu Sans Mono",), size: 8.5pt, body)
#let finding(body) = block(width: 100%, fill: rgb("#fff4e0"), inset: 8pt, radius: 2pt,
  stroke: (left: 2.5pt + rgb("#b26a00")), body)
#let meta(body) = block(width: 100%, fill: luma(96%), inset: (x: 7pt, y: 5pt), radius: 2pt,
  text(size: 9pt, body))
"""

STYLE = r"""
#set page(paper: "a4", margin: (x: 2cm, top: 2cm, bottom: 2cm),
  header: context {
    if counter(page).get().first() > 1 [
      #set text(size: 8pt, fill: luma(45%))
      fedverify report #h(1fr) __HEADER_RIGHT__
      #v(-0.6em) #line(length: 100%, stroke: 0.4pt + luma(75%))
    ]
  },
  footer: context align(center, text(size: 8pt, fill: luma(45%),
    counter(page).display("1 / 1", both: true))),
)
#set text(font: ("Libertinus Serif", "DejaVu Sans"), size: 10pt, lang: "en")
#set par(justify: true, leading: 0.6em)
#set table(stroke: 0.4pt + luma(70%), inset: (x: 4pt, y: 3pt))
#show table: set par(justify: false)
#show table.cell.where(y: 0): set text(weight: "bold")
#show heading.where(level: 1): it => block(above: 1.2em, below: 0.8em,
  text(size: 15pt, weight: "bold", it.body))
#show heading.where(level: 2): it => block(above: 1em, below: 0.7em, width: 100%,
  stroke: (bottom: 0.6pt + luma(60%)), inset: (bottom: 4pt), text(size: 12.5pt, weight: "bold", it.body))
#show link: set text(fill: rgb("#1f4e99"))
"""

HOW_TO_READ = (
    "Each check takes one claim of a paper (a theorem, lemma, rate, identity, privacy "
    "statement or counterexample), runs it on synthetic problems whose constants are planted or "
    "measured, and ends in a verdict. "
    "#badge(rgb(\"#1a7f37\"))[holds]: the observations agree with the claim (the observed "
    "quantity stays under the bound, decays at least at the predicted rate, matches the identity "
    "within tolerance). "
    "#badge(rgb(\"#c62828\"))[violated]: the data contradict the claim as stated. "
    "#badge(rgb(\"#b26a00\"))[inconclusive]: the evidence cannot decide, for instance because an "
    "assumption of the claim did not hold in the run; such a run never counts as holding. "
    "#badge(rgb(\"#1a7f37\"))[reproduced]: a counterexample's failure appeared and the repaired "
    "algorithm succeeded on the same instance; "
    "#badge(rgb(\"#c62828\"))[not\\_reproduced]: it did not. "
    "Each check states its _expected_ verdict, the one a correct toolkit should reach: an erratum check "
    "tests a statement the paper gets wrong and therefore expects _violated_, so a violated erratum "
    "is a confirmation, not a failure. The column _as expected_ says whether verdict and expected "
    "agree; a ✗ (followed by the expected verdict) marks either a toolkit bug or a genuine surprise, and is "
    "worth reading first. "
    "A _holds_ also says how hard it was tested: _tight_ (the bound is attained within 2×, or a "
    "rate is matched from both sides), _loose_ (within 2× to 100×) or _vacuous_ (beyond 100×, or "
    "beyond a bound that needs no theorem); each check states its margin (how far the measurement "
    "sat from the theory) and its power (the smallest change of the theory the run would have "
    "called violated), and a claim about an algorithm's property names the control that had to fail. "
    "Shaded bands in the figures are spreads over replicates, as each legend states."
)

TIGHTNESS = ("tight", "loose", "vacuous")


def strength_sentence(r: Result) -> str:
    """One sentence on how far a holding claim is from being attained, from its margin."""
    m = r.margin or {}
    v = m.get("value")
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return ""
    if m.get("measure") == "ratio" and v > 0:
        return (f"the bound exceeds the observed value by a factor {1 / v:.3g}" if v < 1 else
                f"the observed value exceeds the lower bound by a factor {v:.3g}")
    if m.get("measure") == "exponent":
        return f"the observed exponent differs from the stated one by {v:+.2f}"
    return one_line(m.get("text", ""), 160)


def _verdict_cell(r: Result) -> str:
    return verdict_badge(r.verdict) + (f" #note[{escape(r.tightness)}]" if r.tightness else "")


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------

# --------------------------------------------------------------------------------------------
# assets: figures and formula images
# --------------------------------------------------------------------------------------------

@dataclass
class Assets:
    figure: str | None = None  # file name inside the build directory
    figure_error: str = ""
    figure_width_cm: float | None = None
    latex_svg: str | None = None
    latex_width_cm: float | None = None
    latex_error: str = ""
    formula_error: str = ""  # typst's message for claim.typst, filled in only on repair


def _png_width_cm(path: Path, assumed_dpi: float = 150.0) -> float | None:
    """Natural width of a PNG: pixel width over its pHYs resolution (else ``assumed_dpi``)."""
    try:
        data = path.read_bytes()[:4096]
    except OSError:
        return None
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return None
    w = struct.unpack(">I", data[16:20])[0]
    dpi = assumed_dpi
    k = data.find(b"pHYs")
    if k >= 0 and len(data) >= k + 13:
        ppu_x, _, unit = struct.unpack(">IIB", data[k + 4: k + 13])
        if unit == 1 and ppu_x > 0:  # pixels per metre
            dpi = ppu_x * 0.0254
    return w / dpi * 2.54


def _svg_width_cm(path: Path) -> float | None:
    try:
        head = path.read_text(errors="replace")[:2000]
    except OSError:
        return None
    m = re.search(r'<svg[^>]*\bwidth="([\d.]+)(pt|px)?"', head)
    if not m:
        return None
    w = float(m.group(1))
    return w / (72.0 if m.group(2) in (None, "pt") else 96.0) * 2.54


def _short_error(e: BaseException, n: int = 240) -> str:
    msg = " ".join(f"{type(e).__name__}: {e}".split())
    return msg if len(msg) <= n else msg[: n - 1] + "…"


def _figure_key(r: Result) -> str:
    """What a figure is drawn from: the Result (numbers, spec, arrays) and the drawing code (reports/figures.py
    and, for a figure drawn by a function of its own, that function's module)."""
    import hashlib
    import importlib.util
    import json

    h = hashlib.sha256(json.dumps(r.to_dict(), sort_keys=True, default=str).encode())
    for name in sorted(r.arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(r.arrays[name]).tobytes())
    h.update(Path(__file__).with_name("figures.py").read_bytes())
    target = (r.figure or {}).get("draw")
    if isinstance(target, str) and ":" in target:
        spec = importlib.util.find_spec(target.split(":")[0])
        if spec and spec.origin and os.path.exists(spec.origin):
            h.update(Path(spec.origin).read_bytes())
    return h.hexdigest()[:24]


def _cached_figure(r: Result, dest: Path, cache: Path | None):
    """``render_figure`` through a cache of figures keyed by what they are drawn from (:func:`_figure_key`): a
    report rebuilt over unchanged Results redraws nothing. A cache that cannot be written is only slower."""
    import shutil

    from reports.figures import render_figure

    if cache is None:
        return render_figure(r, dest)
    key = _figure_key(r)
    for hit in cache.glob(f"{key}.*"):
        out = dest.with_suffix(hit.suffix)
        shutil.copyfile(hit, out)
        return out
    p = render_figure(r, dest)
    if p is not None:
        try:
            cache.mkdir(parents=True, exist_ok=True)
            tmp = cache / f".{key}{p.suffix}.tmp"
            shutil.copyfile(p, tmp)
            os.replace(tmp, cache / f"{key}{p.suffix}")
        except OSError:
            pass
    return p


def _make_assets(i: int, r: Result, build: Path, cache: Path | None = None) -> Assets:
    from reports.figures import render_latex

    a = Assets()
    try:
        p = _cached_figure(r, build / f"fig-{i}.png", cache)
        if p is not None:
            a.figure = p.name
            a.figure_width_cm = _png_width_cm(p) if p.suffix == ".png" else _svg_width_cm(p)
    except Exception as e:  # noqa: BLE001 - any failure becomes a note in the report
        a.figure_error = _short_error(e)
    if not (r.claim.typst or "").strip() and (r.claim.latex or "").strip():
        try:
            p = render_latex(r.claim.latex, build / f"eq-{i}.svg")
            a.latex_svg = p.name
            a.latex_width_cm = _svg_width_cm(p)
        except Exception as e:  # noqa: BLE001
            a.latex_error = _short_error(e)
    return a


def _make_all_assets(results: list[Result], build: Path, cache: Path | None = None, progress=None) -> list[Assets]:
    """Figures and formula images for every result, drawn in this process (on two cores a pool of
    interpreters saved under 20% of a ~15 s build, not worth its start-up and bookkeeping); figures whose
    Result did not change come from ``cache``. ``progress(done, total, check_id)`` is told after each."""
    out = []
    for i, r in enumerate(results):
        out.append(_make_assets(i, r, build, cache))
        if progress is not None:
            progress(i + 1, len(results), r.id)
    return out


# --------------------------------------------------------------------------------------------
# markup
# --------------------------------------------------------------------------------------------

def _label(i: int) -> str:
    return f"check-{i}"


def _verdict_str(v: Any) -> str:
    return str(getattr(v, "value", v))


def _wall(r: Result) -> Any:
    return (r.env or {}).get("wall_time_s")


def _image(name: str, width_cm: float | None) -> str:
    w = "100%" if width_cm is None or width_cm > TEXT_WIDTH_CM else f"{width_cm:.2f}cm"
    return f"#align(center, image({string_literal(name)}, width: {w}))"


_FIT_LABELS = {
    "slope": "fitted slope",
    "predicted_exponent": "predicted exponent",
    "tolerance": "tolerance",
    "tight": "tight (must match from below)",
    "constant": "fitted constant",
    "intercept": "intercept",
    "r2": "R²",
    "worst_ratio": "worst observed/bound",
    "max_rel_error": "largest relative error",
    "max_abs_error": "largest absolute error",
    "rtol": "relative tolerance",
    "atol": "absolute tolerance",
    "rate": "contraction per step",
    "rate_ci": "contraction CI",
    "fitted_constant": "observed/theory at the worst point",
    "bound_local_slope_range": "theory's local slope on the grid",
    "max_abs_z": "largest |estimate - expected| in SE",
    "worst_z": "worst (estimate - bound) in SE",
    "violations": "points on the wrong side",
}
#: bookkeeping of the verdict rules, not quantities a reader needs (they stay in the JSON)
_FIT_HIDDEN = {"side", "level", "n_boot", "violation_level", "intercept", "theory", "count", "z", "slope_log10",
               "deterministic", "claim_verdict"}


def _without_bookkeeping(d):
    """``d`` without the verdict rules' bookkeeping keys (:data:`_FIT_HIDDEN`), at every level of nesting."""
    if isinstance(d, dict):
        return {k: _without_bookkeeping(v) for k, v in d.items() if k not in _FIT_HIDDEN}
    return d


def _fit_rows(fit: dict) -> list[tuple[str, str]]:
    """Fit entries as (name, value) plain-text rows: slope with its CI first, then the rest."""
    if not fit:
        return []
    fit = _without_bookkeeping(fit)
    rows = []
    keys = list(fit)
    order = [k for k in ("slope", "predicted_exponent", "tolerance", "tight") if k in fit]
    order += [k for k in keys if k not in order and k != "slope_ci" and k not in _FIT_HIDDEN]
    if "slope_ci" in fit and "slope" not in fit:
        order.insert(0, "slope_ci")
    for k in order:
        v = fit[k]
        if k == "slope":
            s = fmt_num(v)
            ci = fit.get("slope_ci")
            if isinstance(ci, (list, tuple)) and len(ci) == 2:
                s += f"   (CI {fmt_num(ci[0])} … {fmt_num(ci[1])})"
            elif ci is not None:
                s += f"   (CI {fmt_value(ci)})"
            rows.append((_FIT_LABELS["slope"], s))
        elif k == "slope_ci" and isinstance(v, (list, tuple)) and len(v) == 2:
            rows.append(("slope CI", f"{fmt_num(v[0])} … {fmt_num(v[1])}"))
        elif k.endswith("_ci") and isinstance(v, (list, tuple)) and len(v) == 2:
            rows.append((k.replace("_", " "), f"{fmt_num(v[0])} … {fmt_num(v[1])}"))
        elif isinstance(v, dict):
            for k2, v2 in flatten_mapping(v, prefix=_FIT_LABELS.get(k, k.replace("_", " "))):
                rows.append((k2, fmt_value(v2)))
        else:
            rows.append((_FIT_LABELS.get(k, k.replace("_", " ")), fmt_value(v)))
    if len(rows) > 16:
        rows = rows[:15] + [("…", f"{len(rows) - 15} more entries not shown")]
    return rows


def _fit_headline(fit: dict) -> str:
    """One markup sentence comparing fitted and predicted exponents, when both are present."""
    if "slope" not in fit or "predicted_exponent" not in fit:
        return ""
    try:
        slope, pred = float(fit["slope"]), float(fit["predicted_exponent"])
    except (TypeError, ValueError):
        return ""
    s = f"fitted slope #strong[{escape(fmt_num(slope))}]"
    ci = fit.get("slope_ci")
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        s += f" (CI {escape(fmt_num(ci[0]))} … {escape(fmt_num(ci[1]))})"
    s += f" against predicted exponent #strong[{escape(fmt_num(pred))}]"
    tol = fit.get("tolerance")
    if isinstance(tol, (int, float)) and not isinstance(tol, bool):
        s += f" ± {escape(fmt_num(tol))}"
    if fit.get("tight"):
        s += " (tight: must match from below too)"
    return s[0].upper() + s[1:] + "."


def _kv_table(rows: list[tuple[str, str]], head=("quantity", "value"), fill: bool = True) -> str:
    return table(
        list(head),
        [[escape(k), escape(v)] for k, v in rows],
        columns=["auto", "1fr" if fill else "auto"],
        size="8.5pt",
    )


#: a (name, value) table longer than this is set in two columns side by side
TWO_COLUMNS_FROM = 7


def _kv_columns(rows: list[tuple[str, str]], head=("quantity", "value")) -> str:
    """A (name, value) table; a long one split in two halves side by side, so it takes half the height."""
    if len(rows) < TWO_COLUMNS_FROM:
        return _kv_table(rows, head, fill=False)
    half = (len(rows) + 1) // 2
    return ("#grid(columns: (1fr, 1fr), gutter: 10pt,\n[" + _kv_table(rows[:half], head) + "],\n["
            + _kv_table(rows[half:], head) + "])")


def _formula_markup(r: Result, a: Assets, safe: bool) -> str:
    """The claim's formula: typst math (evaluated from a string literal), else the LaTeX
    rendered by mathtext, else the source as plain text. ``safe``: never evaluate typst math."""
    typ = (r.claim.typst or "").strip()
    latex = (r.claim.latex or "").strip()
    if typ and not safe:
        return f"#math.equation(block: true, eval({string_literal(typ)}, mode: \"math\"))"
    if a.latex_svg:
        out = _image(a.latex_svg, a.latex_width_cm)
        if typ:
            out += "\n#note[(the typst formula could not be typeset; shown from the LaTeX source)]"
        return out
    if typ:
        why = f": {a.formula_error}" if a.formula_error else ""
        return f"#align(center, mono[{escape(typ)}])\n#note[(typst formula could not be typeset{escape(why)})]"
    if not latex:
        return ""
    why = a.latex_error or "could not be typeset"
    return f"#align(center, mono[{escape(latex)}])\n#note[(LaTeX shown as source: {escape(why)})]"


def _figure_markup(r: Result, a: Assets, safe: bool) -> str:
    if a.figure_error:
        return f"#note[figure failed: {escape(a.figure_error)}]"
    if a.figure is None:
        return ""
    if safe:
        return "#note[figure failed: typst could not include the image]"
    return _image(a.figure, a.figure_width_cm)


def prose(text: str) -> str:
    """Reader-facing prose (a title, claim, explanation, finding) with its ASCII math in symbols, escaped."""
    return escape(prose_math(text))


def _check_section(i: int, r: Result, a: Assets, safe_formula: bool = False, safe_figure: bool = False) -> str:
    out: list[str] = []
    heading = one_line(f"{r.id} — {prose_math(r.title)}" if r.title else r.id, 200)
    out.append(f"== {escape(heading)} <{_label(i)}>")
    wall = _wall(r)
    meta = [
        f"paper #strong[{escape(r.paper)}]",
        f"kind #strong[{escape(r.kind)}]",
        f"verdict {_verdict_cell(r)}",
        f"expected #strong[{escape(_verdict_str(r.expected))}]",
        f"{check_mark(r.as_expected)} {'as expected' if r.as_expected else 'not as expected'}",
    ]
    if wall is not None:
        meta.append(f"wall time {escape(fmt_duration(wall))}")
    out.append("#meta[" + " #h(0.6em)·#h(0.6em) ".join(meta) + "]")

    out.append("#part[Claim]")
    claim = prose(r.claim.text) if r.claim.text else "#note[no statement recorded]"
    if r.claim.source:
        claim += f" #h(0.3em) #note[({escape(r.claim.source)})]"
    out.append(claim)
    f = _formula_markup(r, a, safe_formula)
    if f:
        out.append(f)

    fig = _figure_markup(r, a, safe_figure)
    if fig:
        out.append("#part[Figure]")
        out.append(fig)

    fit = r.fit or {}
    if fit:
        out.append("#part[Fit]")
        headline = _fit_headline(fit)
        if headline:
            out.append(headline)
        out.append(_kv_columns(_fit_rows(fit)))

    if r.assumptions:
        out.append("#part[Assumptions and measured constants]")
        rows = []
        for asm in r.assumptions[:30]:
            rows.append([
                escape(one_line(asm.name, 48)),
                escape(fmt_value(asm.value)),
                escape(one_line(asm.label, 16)),
                check_mark(None if asm.held is None else bool(asm.held)),
                escape(asm.detail),
            ])
        if len(r.assumptions) > 30:
            rows.append(["…", "", "", "", escape(f"{len(r.assumptions) - 30} more not shown")])
        out.append(table(["name", "value", "label", "held", "detail"], rows,
                         columns=["auto", "auto", "auto", "auto", "1fr"],
                         align=["left", "right", "left", "center", "left"], size="8.5pt"))

    obs, pred = summarise_mapping(r.observed), summarise_mapping(r.predicted)
    records = record_tables(r.observed) + record_tables(r.predicted)
    if obs or pred:
        out.append("#part[Observed and predicted]")
        cols = []
        if obs:
            cols.append(_kv_table(obs, ("observed", "value")))
        if pred:
            cols.append(_kv_table(pred, ("predicted", "value")))
        if len(cols) == 2:
            out.append("#grid(columns: (1fr, 1fr), gutter: 10pt,\n[" + cols[0] + "],\n[" + cols[1] + "])")
        else:
            out.append(_kv_columns(obs or pred, ("observed", "value") if obs else ("predicted", "value")))
    for name, header, rows in records:
        out.append(f"#note[{escape(name.replace('_', ' '))}]")
        out.append(table([escape(h.replace("_", " ")) for h in header], [[escape(c) for c in row] for row in rows],
                         size="8pt"))

    strength = _strength_rows(r)
    if strength:
        out.append("#part[How hard it was tested]")
        out.append(_kv_table(strength, fill=False))

    out.append("#part[Verdict]")
    expl = prose(r.explanation) if r.explanation else "#note[no explanation recorded]"
    out.append(f"{verdict_badge(r.verdict)} #h(0.4em) {expl}")
    if r.finding:
        out.append("#v(0.4em)\n#finding[" + _finding_markup(r.finding) + "]")
    return "\n\n".join(out)


def _strength_rows(r: Result) -> list[tuple[str, str]]:
    """Rows (plain text; _kv_table escapes) saying how hard the verdict was tested."""
    rows = []
    if r.tightness:
        rows.append(("tightness", r.tightness + (": " + strength_sentence(r) if strength_sentence(r) else "")))
    if r.margin.get("text"):
        rows.append(("margin", r.margin["text"]))
    if r.power.get("text"):
        rows.append(("power", r.power["text"]))
    if r.control:
        rows.append(("control (must fail)", f"{r.control.get('what', '')}: {r.control.get('verdict', '')}"
                     + (f". {r.control['detail']}" if r.control.get("detail") else "")))
    return rows


_FINDING_LABEL = {"erratum": "Erratum", "remark": "Remark (not an erratum)",
                  "discrepancy": "Discrepancy (measurement only, not a confirmed erratum)"}


def _finding_markup(f) -> str:
    """A finding: its kind, summary and, where present, the five fields a reviewer signs."""
    out = [f"*{_FINDING_LABEL.get(f.kind, f.kind)}.* {prose(f.summary)}"]
    for name in ERRATUM_FIELDS:
        value = getattr(f, name)
        if value and not (f.kind == "remark" and name == "reproduce"):
            shown = escape(value) if name == "reproduce" else prose(value)  # a command is shown as typed
            out.append(f"#text(size: 9pt)[_{escape(name.replace('_', ' '))}:_ {shown}]")
    return "\n\n".join(out)


def _summary_line(results: list[Result]) -> str:
    n = len(results)
    ok = sum(r.as_expected for r in results)
    counts = Counter(_verdict_str(r.verdict) for r in results)
    order = ["holds", "violated", "inconclusive", "reproduced", "not_reproduced"]
    parts = [f"{counts[v]} {verdict_badge(v)}" for v in order if counts[v]]
    parts += [f"{c} {verdict_badge(v)}" for v, c in counts.items() if v not in order]
    s = (f"#strong[{n}] check{'s' if n != 1 else ''}: #strong[{ok}] as expected {check_mark(True)}, "
         f"#strong[{n - ok}] not as expected{' ' + check_mark(False) if n - ok else ''}. Verdicts: "
         + ", ".join(parts) + ".")
    return s


def paper_ref(r: Result) -> str:
    """The claim's place in the paper (``Lemma 1, eq. (18)``): its source without the paper key in front."""
    src = (r.claim.source or "").strip()
    if src.lower().startswith(r.paper.lower()):
        src = src[len(r.paper):].lstrip(" ,:;")
    return one_line(src.split(";")[0].strip() or r.title, 70)


def _has_finding(r: Result) -> bool:
    return bool(r.finding) or r.tightness in ("loose", "vacuous")


def _front_table(results: list[Result], stability: dict | None = None) -> str:
    """The table of every check, findings first, with a ``stability`` column (runs at expected over the seeds of
    ``fedverify sweep``, reports/stability.py) when the results directory holds sweep points."""
    from reports.stability import stability_cell

    rows = []
    order = sorted(range(len(results)), key=lambda i: not _has_finding(results[i]))  # stable: findings first
    for i in order:
        r = results[i]
        rows.append([
            f"#link(<{_label(i)}>)[{escape(one_line(r.id, 40))}]",
            escape(one_line(paper_ref(r), 48)),
            prose(one_line(r.title, 130)),
            _verdict_cell(r),
            # the expected verdict is spelled out only where the verdict differs from it
            check_mark(r.as_expected) + ("" if r.as_expected else " " + escape(_verdict_str(r.expected))),
            *([stability_cell(stability.get(r.id))] if stability else []),
            escape(fmt_duration(_wall(r))),
        ])
    stab = ["stability"] if stability else []
    # kind and expected verdict stand in each check's section; here the title gets the width (12 -> 6 pages, 178 checks)
    return table(["check", "paper ref.", "title", "verdict", "as expected", *stab, "wall time"], rows,
                 columns=["auto", "1fr", "2.4fr", "auto", "auto", *(["auto"] * len(stab)), "auto"],
                 align=["left", "left", "left", "left", "center", *(["right"] * len(stab)), "right"],
                 size="7.5pt")


def _statement_cards(results: list[Result]) -> dict[str, list[dict]]:
    """Per paper whose statements are registered, the statement cards of these Results (verify/statement_cards.py);
    a paper without registered statements (a plugin that declares none) keeps the list of findings."""
    from verify.registry import load_all, statements
    from verify.statement_cards import cards

    reg = load_all()
    out = {}
    for key in sorted({r.paper for r in results}):
        table = statements(key)
        if table:
            mine = {cid: spec for cid, spec in reg.items() if spec.paper == key}
            out[key] = cards(table, mine, {r.id: r for r in results if r.paper == key})
    return out


def _ledger(results: list[Result]) -> str:
    """What the checks found: per paper, its statement cards (reports/statement_pages.py) when it registers its
    statements; otherwise one page per paper, before the chapters: first each confirmed erratum
    (verdict violated, finding of kind erratum) with its five fields, then every discrepancy and
    remark, each labelled as such."""
    pages = []
    cards = _statement_cards(results)
    for key in sorted({r.paper for r in results}):
        rs = [(i, r) for i, r in enumerate(results) if r.paper == key]
        if cards.get(key):  # the paper registers its statements: its findings pages are their cards
            from reports.statement_pages import paper_pages

            title = (rs[0][1].paper_info or {}).get("title") or key
            pages.append(paper_pages(key, title, cards[key], {r.id: r for _, r in rs}, {r.id: _label(i) for i, r in rs},
                                     _finding_markup, prose))
            continue
        errata = [(i, r) for i, r in rs if r.finding.kind == "erratum" and r.verdict.value == "violated"]
        others = [(i, r) for i, r in rs if r.finding and (i, r) not in errata]
        weak = [(i, r) for i, r in rs if r.tightness in ("loose", "vacuous")]
        title = (rs[0][1].paper_info or {}).get("title") or key
        out = [f"= What the checks found: {escape(one_line(title, 120))}",
               f"#note[key {escape(key)}; each entry names the paper's theorem, lemma, equation or figure, then the "
               "check that tested it]"]
        if not errata and not others:
            out.append("#note[No check of this paper confirmed an erratum or recorded a remark.]")
        if errata:
            out.append(f"#part[Errata confirmed ({len(errata)})]")
        for i, r in errata:
            out.append(f"#block(breakable: true, below: 1em)[#strong[{escape(paper_ref(r))}] "
                       f"#note[(#link(<{_label(i)}>)[{escape(r.id)}])] — "
                       f"{prose(one_line(r.title, 200))}\n\n" + _finding_markup(r.finding) + "]")
        if others:
            out.append(f"#part[Remarks and discrepancies: not errata ({len(others)})]")
        for i, r in others:
            out.append(f"#block(breakable: true, below: 0.8em)[#strong[{escape(paper_ref(r))}] "
                       f"#note[(#link(<{_label(i)}>)[{escape(r.id)}])] "
                       f"{_verdict_cell(r)} — " + _finding_markup(r.finding) + "]")
        if weak:
            out.append(f"#part[Holds, but loose or vacuous ({len(weak)})]")
            out.append(table(["paper ref.", "check", "tightness", "how far"],
                             [[escape(paper_ref(r)), f"#link(<{_label(i)}>)[{escape(r.id)}]",
                               escape(r.tightness), escape(strength_sentence(r))] for i, r in weak],
                             columns=["auto", "1fr", "auto", "1fr"], align=["left"] * 4, size="8.5pt"))
        pages.append("\n\n".join(out))
    return "\n\n#pagebreak(weak: true)\n\n".join(pages)


_ENV_ORDER = ["python", "platform", "numpy", "scipy", "sympy", "torch", "device", "dtype",
              "fidelity", "replicates", "seed", "torch_threads"]


def _env_section(results: list[Result], results_dir: Path, built: str,
                 unreadable: list[tuple[str, str]]) -> str:
    out = ["= Environment"]
    keys = list(_ENV_ORDER)
    for r in results:
        for k in (r.env or {}):
            if k not in keys and k != "wall_time_s":
                keys.append(k)
    rows = []
    for k in keys:
        vals = [fmt_value((r.env or {})[k]) if k in (r.env or {}) else None for r in results]
        present = [v for v in vals if v is not None]
        if not present:
            continue
        c = Counter(present)
        if len(c) == 1:
            v = present[0]
            if k == "replicates" and v == "—":
                v = "each check's default"
        else:
            common = c.most_common(4)
            v = "varies: " + "; ".join(f"{val} ({n})" for val, n in common)
            if len(c) > 4:
                v += f"; {len(c) - 4} other values"
        if len(present) < len(results):
            v += f"   [absent in {len(results) - len(present)} results]"
        rows.append((k, v))
    walls = [w for w in (_wall(r) for r in results) if isinstance(w, (int, float)) and not isinstance(w, bool)]
    total = fmt_duration(sum(walls)) if walls else "—"
    if walls and len(walls) < len(results):
        total += f" (over the {len(walls)} results that recorded one)"
    rows.append(("total wall time", total))
    rows.append(("results", f"{len(results)} from {results_dir}"))
    rows.append(("report built", built))
    out.append(_kv_table(rows, ("setting", "value")))
    if unreadable:
        out.append("#part[Result files that could not be read]")
        out.append(_kv_table([(cid, err) for cid, err in unreadable], ("file", "error")))
    return "\n\n".join(out)


def _papers_table(results: list[Result]) -> str:
    """One row per paper: title, number of checks, verdicts, how many as expected, wall time."""
    order = ["holds", "violated", "inconclusive", "reproduced", "not_reproduced"]
    rows = []
    for key in sorted({r.paper for r in results}):
        rs = [r for r in results if r.paper == key]
        info = rs[0].paper_info or {}
        counts = Counter(_verdict_str(r.verdict) for r in rs)
        walls = [w for w in (_wall(r) for r in rs) if isinstance(w, (int, float)) and not isinstance(w, bool)]
        tight = Counter(r.tightness for r in rs if r.verdict.value == "holds")
        rows.append([escape(key), escape(one_line(info.get("title", ""), 120)), escape(str(len(rs))),
                     ", ".join(f"{counts[v]} {verdict_badge(v)}" for v in order if counts[v]),
                     escape(" / ".join(str(tight[t]) for t in TIGHTNESS)),
                     escape(f"{sum(r.as_expected for r in rs)} / {len(rs)}"),
                     escape(fmt_duration(sum(walls)) if walls else "—")])
    return table(["paper", "title", "checks", "verdicts", "holds: tight / loose / vacuous", "as expected",
                  "wall time"], rows,
                 columns=["auto", "1.6fr", "auto", "1fr", "auto", "auto", "auto"],
                 align=["left", "left", "right", "left", "center", "right", "right"], size="8.5pt")


def _front(results: list[Result], built: str, paper: str | None, results_dir: Path,
           unreadable: list[tuple[str, str]], stability: dict | None = None) -> str:
    papers = sorted({r.paper for r in results})
    out = [
        '#block(below: 0.7em, text(size: 22pt, weight: "bold")[fedverify])',
        '#text(size: 14pt)[Federated-learning theory checked against experiment]',
        f"#v(0.3em)\n#text(size: 9.5pt, fill: luma(35%))[{escape(built)} · "
        f"{'paper ' + escape(paper) if paper else escape(str(len(papers)) + ' paper' + ('s' if len(papers) != 1 else '') + ': ' + ', '.join(papers))}"
        f" · results from {escape(str(results_dir))}]",
        "#v(0.6em)",
        "#block(width: 100%, inset: (x: 9pt, y: 7pt), fill: luma(97%), radius: 2pt, "
        "stroke: 0.5pt + luma(85%))[#text(weight: \"bold\")[How to read this report.] "
        + HOW_TO_READ + "]",
        _summary_line(results),
    ]
    if unreadable:
        out.append(f"#note[{escape(str(len(unreadable)))} result file(s) could not be read; see Environment.]")
    out.append(_papers_table(results))  # per paper: verdicts and how many holds are tight / loose / vacuous
    out.append("#pagebreak(weak: true)\n\n#outline(title: [Contents], depth: 1, indent: auto)")
    out.append("#pagebreak(weak: true)\n\n" + _ledger(results))
    out.append("#pagebreak(weak: true)\n\n= Every check at a glance\n\n#note[Checks with a finding first (errata, "
               "remarks, loose or vacuous bounds), then the others; each row links to its section.]")
    out.append(_front_table(results, stability))
    return "\n\n".join(out)


CHECK_SEPARATOR = "\n\n#v(0.6em)\n#line(length: 100%, stroke: 0.4pt + luma(80%))\n#v(0.2em)\n\n"


def render_document(sections: list[str], header_right: str, flow: set[int] | frozenset = frozenset()) -> str:
    """The typst document: sections separated by a page break, except those whose index is in ``flow``,
    which follow the previous section after a thin rule (the checks of one paper flow on)."""
    style = STYLE.replace("__HEADER_RIGHT__", header_right)
    body = sections[0] if sections else ""
    for k, sec in enumerate(sections[1:], start=1):
        body += (CHECK_SEPARATOR if k in flow else "\n\n#pagebreak(weak: true)\n\n") + sec
    return '#set document(title: "fedverify report")\n' + PREAMBLE + style + "\n" + body + "\n"


# --------------------------------------------------------------------------------------------
# compiling
# --------------------------------------------------------------------------------------------

_FONTS = None


def _fonts():
    """typst fonts: embedded ones, system ones, and matplotlib's DejaVu (for ✓ ✗ everywhere)."""
    global _FONTS
    if _FONTS is None:
        import matplotlib
        import typst

        ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
        _FONTS = typst.Fonts(include_system_fonts=True, include_embedded_fonts=True,
                             font_paths=[str(ttf)] if ttf.is_dir() else [])
    return _FONTS


def _compile(source: str, build: Path, name: str = "report.typ", timestamp: int | None = None) -> bytes:
    import typst

    src = build / name
    src.write_text(source, encoding="utf-8")
    kw = {"timestamp": timestamp} if timestamp is not None else {}
    return typst.compile(str(src), root=str(build), font_paths=_fonts(), format="pdf", **kw)


def _compiles(source: str, build: Path) -> str | None:
    """None if the source compiles, else typst's message."""
    try:
        _compile(source, build, name="probe.typ")
        return None
    except Exception as e:  # noqa: BLE001
        return _short_error(e)


# --------------------------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------------------------

def _now() -> tuple[_dt.datetime, int | None]:
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    if sde and sde.strip().isdigit():
        ts = int(sde)
        return _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc), ts
    return _dt.datetime.now().astimezone(), None


def _paper_intro(r: Result) -> str:
    """A paper's chapter heading: its title, authors, venue and the summary of what was checked
    (from the Result's ``paper_info``; the key alone for a paper that was never registered)."""
    info = r.paper_info or {}
    if not info.get("title"):
        return f"= Checks: {escape(one_line(r.paper, 60))}\n\n"
    out = [f"= {escape(one_line(info['title'], 160))}"]
    meta = [info.get("authors") or "", info.get("venue") or "", str(info.get("year") or ""), f"key {r.paper}"]
    out.append("#meta[" + escape(" · ".join(m for m in meta if m)) + "]")
    if info.get("url"):
        out.append(f"#note[{escape(info['url'])}]")
    if info.get("summary"):
        out.append(prose(info["summary"]))
    if info.get("not_checked"):
        rows = [f"- {escape(one_line(what, 300))}: {escape(one_line(why, 400))}" for what, why in info["not_checked"]]
        out.append("*Not checked, and why.*\n" + "\n".join(rows))
    return "\n\n".join(out) + "\n\n"


def build_report(results_dir: str | os.PathLike = "results", out: str | os.PathLike = "report.pdf",
                 paper: str | None = None, typst_source: str | os.PathLike | None = None, progress=None,
                 figure_cache: bool = True) -> Path:
    """Build the PDF report from the results in ``results_dir``; return the path written.
    ``typst_source``: also write the typst source there (to adapt the layout, or to read it).

    Raises ``ValueError`` when there is no result to report.
    """
    results_dir = Path(results_dir)
    out = Path(out)
    results, unreadable = ResultStore(results_dir).load_all(paper)
    from reports.stability import load_stability, stability_page

    stab_rows, stab_points = load_stability(results_dir, paper)  # fedverify sweep's points, if any
    if not results and stab_points:  # a directory that only a sweep wrote: each swept check's first point stands in
        results = [stab_points[cid][0][2] for cid in sorted(stab_points)]
    if not results:
        where = f"{results_dir}" + (f" for paper {paper!r}" if paper else "")
        if unreadable:
            raise ValueError(f"no readable results in {where} ({len(unreadable)} unreadable: "
                             f"{unreadable[0][0]}: {unreadable[0][1]})")
        raise ValueError(f"no results in {where}; run 'fedverify run' first")

    when, ts = _now()
    built = when.strftime("%Y-%m-%d %H:%M %Z").strip()
    with tempfile.TemporaryDirectory(prefix="fedverify-report-") as tmp:
        build = Path(tmp)
        assets = _make_all_assets(results, build, results_dir / ".figure-cache" if figure_cache else None, progress)
        if progress is not None:
            progress(len(results), len(results), "typesetting")

        front = _front(results, built, paper, results_dir, unreadable, stab_rows)
        checks: list[str] = []
        flow: set[int] = set()  # section indices that follow on the same page (a paper's checks after its first)
        current = None
        for i, r in enumerate(results):
            sec = _check_section(i, r, assets[i])
            if r.paper != current:
                current = r.paper
                sec = _paper_intro(r) + sec
            else:
                flow.add(1 + i)  # sections[0] is the front matter
            checks.append(sec)
        env = _env_section(results, results_dir, built, unreadable)
        header_right = escape(built)

        from reports.search import search_section  # fedverify search's stored results, when there are any

        searched = search_section(results_dir, paper)
        sections = [front, *checks, *([searched] if searched else []), env]
        if stab_rows:  # after the environment: _repair counts the check sections from sections[1]
            sections.append(stability_page(stab_rows, stab_points, build, {r.id: _label(i) for i, r in enumerate(results)}))
        source = render_document(sections, header_right, flow)
        try:
            pdf = _compile(source, build, timestamp=ts)
        except Exception as first_error:  # noqa: BLE001 - isolate the offending sections
            sections = _repair(sections, results, assets, build, header_right)
            source = render_document(sections, header_right, flow)
            try:
                pdf = _compile(source, build, timestamp=ts)
            except Exception as e:  # noqa: BLE001
                keep = out.with_suffix(".typ")
                keep.write_text(source, encoding="utf-8")
                raise RuntimeError(f"typst could not compile the report ({_short_error(e)}; first: "
                                   f"{_short_error(first_error)}); source kept at {keep}") from e

    atomic_write(out, lambda fh: fh.write(pdf))
    if typst_source is not None:
        atomic_write(Path(typst_source), lambda fh: fh.write(source.encode("utf-8")))
    return out


def _repair(sections: list[str], results: list[Result], assets: list[Assets], build: Path,
            header_right: str) -> list[str]:
    """Typeset each section alone. A failing check section is rebuilt with its formula shown
    safely, then its figure replaced by a note, then both; a section that still fails becomes a
    note carrying typst's message."""
    from reports.figures import render_latex

    fixed = list(sections)
    all_labels = {_label(i) for i in range(len(results))}

    def alone(sec: str) -> str:
        # A section typeset alone still links to the other checks: give it stand-in anchors.
        own = set(re.findall(r"<(check-\d+)>\s*$", sec, flags=re.M))
        anchors = "".join(f"#metadata(none) <{lab}>\n" for lab in sorted(all_labels - own))
        return render_document([anchors + sec], header_right)

    for k, sec in enumerate(sections):
        err = _compiles(alone(sec), build)
        if err is None:
            continue
        i = k - 1  # sections[0] is the front page; the checks follow in order
        if not 0 <= i < len(results):
            fixed[k] = f"#note[a section of the report could not be typeset: {escape(err)}]"
            continue
        r, a = results[i], assets[i]
        prefix = sec[: sec.index("\n== ")] + "\n\n" if sec.startswith("= ") else ""
        if (r.claim.typst or "").strip():
            a.formula_error = _compiles(render_document([_formula_markup(r, a, safe=False)], header_right),
                                        build) or ""
            if a.formula_error and not a.latex_svg and (r.claim.latex or "").strip():
                try:
                    p = render_latex(r.claim.latex, build / f"eq-{i}.svg")
                    a.latex_svg, a.latex_width_cm = p.name, _svg_width_cm(p)
                except Exception as e:  # noqa: BLE001
                    a.latex_error = _short_error(e)
        for sf, sg in ((True, False), (False, True), (True, True)):
            candidate = prefix + _check_section(i, r, a, safe_formula=sf, safe_figure=sg)
            err = _compiles(alone(candidate), build)
            if err is None:
                fixed[k] = candidate
                break
        else:
            if a.latex_svg:  # the mathtext image itself may be what typst cannot read
                a.latex_svg = None
                candidate = prefix + _check_section(i, r, a, safe_formula=True, safe_figure=True)
                if _compiles(alone(candidate), build) is None:
                    fixed[k] = candidate
                    continue
            fixed[k] = (f"{prefix}== {escape(one_line(r.id, 200))} <{_label(i)}>\n\n"
                        f"#note[this section could not be typeset: {escape(err)}]")
    return fixed
