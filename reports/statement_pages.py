"""A paper's findings pages as statement cards: Theorem 3.1 in one place, errata first, then the paper's order.

Each card (verify/statement_cards.py) prints the statement as the paper numbers and words it, its verdict from its
checks, the binding margin and tightness, which symbols of its bounds the runs varied (with the smallest exponent
plant that would have been caught) and which they held fixed, which additive terms the data needed, which
hypotheses were measured and which assumed, and the findings (errata with their five fields, remarks) of its checks.
The per-check sections of the report stay as the evidence behind the cards; each check on a card links there.
"""
from __future__ import annotations

from reports.typst_markup import escape, fmt_num, one_line, table, verdict_badge


def _symbol(name: str) -> str:
    import sympy as sp

    from analytic.typst_math import typst_math

    return "$" + typst_math(sp.Symbol(name)) + "$"


def _power_text(p: dict | None) -> str:
    p = p or {}
    if any(v is not None and v <= 0 for v in p.values()):  # an atom already violated as run
        return "violated as run"
    parts = []
    if p.get("up") is not None:
        parts.append(f"×x^{fmt_num(p['up'], 3)}")
    if p.get("down") is not None:
        parts.append(f"×x^−{fmt_num(p['down'], 3)}")
    return ("caught: " + " or ".join(parts)) if parts else "no exponent plant caught"


def _symbol_rows(symbols: dict) -> list[list[str]]:
    rows = []
    for name, s in symbols.items():
        if s["status"] == "varied":
            rows.append([_symbol(name), "varied", escape(f"{fmt_num(s['range'][0])} to {fmt_num(s['range'][1])}"),
                         escape(_power_text(s.get("power")))])
        else:
            value = "never evaluated" if s.get("value") is None else f"held at {fmt_num(s['value'])}"
            rows.append([_symbol(name), "*fixed*", escape(value), "blind to it"])
    return rows


def card_markup(c: dict, link_of: dict[str, str], finding_markup, prose) -> str:
    """One card as typst markup; ``link_of`` maps a check id to its section label, ``finding_markup`` and ``prose``
    are the report's renderers of a Finding and of reader-facing text."""
    head = escape(c["statement"]) + (" (main result)" if c.get("main") else "")
    where = f" #note[paper line {c['line']}]" if c.get("line") else ""
    verdict = c["verdict"]
    chip = verdict_badge(verdict) if verdict not in ("not_checked", "not_run") else f"#note[{escape(verdict)}]"
    tight = f" #note[{escape(c['tightness'])}]" if c.get("tightness") else ""
    out = [f"== {head}{where} {chip}{tight}", f"#quote(block: true)[{prose(c['quote'])}]"]
    if c.get("why"):
        out.append(f"#note[{escape(c['why'])}]")
    if c["checks"]:
        links = ", ".join(f"#link(<{link_of[i]}>)[{escape(i)}]" if i in link_of else escape(i) for i in c["checks"])
        out.append(f"*Checks:* {links}.")
    if c.get("margin"):
        m = c["margin"]
        lead = "Closest to failing" if c["verdict"] == "holds" else "Deciding atom"
        out.append(f"*{lead}:* {escape(m['check'])} ({escape(m.get('atom') or '')}): "
                   f"{escape(m.get('text') or '')}.")
    if c["symbols"]:
        out.append(table(["symbol", "status", "values", "power (plant bound × x^s)"], _symbol_rows(c["symbols"]),
                         columns=["auto", "auto", "1fr", "1.4fr"], align=["left"] * 4, size="8.5pt"))
    if c["terms"]:
        seen: dict[str, bool] = {}  # a term shared by several of the statement's bounds: exercised by any of them
        for t in c["terms"]:
            seen[t["typst"]] = seen.get(t["typst"], False) or bool(t["exercised"])
        ex = [f"${t}$" for t, e in seen.items() if e]
        not_ex = [f"${t}$" for t, e in seen.items() if not e]
        if ex:
            out.append("*Terms the data needed:* " + ", ".join(ex) + ".")
        if not_ex:
            out.append("*Terms not exercised* (the run would still hold without each): " + ", ".join(not_ex) + ".")
    if c.get("notes"):
        out.append(f"#note[{prose(c['notes'])}]")
    hyp = []
    for h in c["hypotheses"]:
        if h["status"] == "measured":
            val = "" if h.get("value") is None else f" = {fmt_num(h['value'])} ({h.get('label')})"
            hyp.append(f"{escape(h['name'])}: measured{escape(val)}, {'held' if h.get('held') else '*not held*'}")
        else:
            hyp.append(f"{escape(h['name'])}: assumed")
    if hyp:
        out.append("*Hypotheses:* " + "; ".join(hyp) + ".")
    for cid, f in c.get("findings", []):
        out.append(f"#finding[#note[{escape(cid)}] " + finding_markup(f) + "]")
    return "\n\n".join(out)


def paper_pages(key: str, title: str, cards: list[dict], results: dict, link_of: dict[str, str], finding_markup,
                prose) -> str:
    """The findings pages of one paper: its cards (errata first, then the paper's order), then the findings of
    checks that exercise no numbered statement. ``results``: check id -> Result of this paper."""
    placed = set()
    for c in cards:
        c["findings"] = [(i, results[i].finding) for i in c.get("stored", []) if results[i].finding]
        placed.update(i for i, _ in c["findings"])
    out = [f"= What the checks found: {escape(one_line(title, 120))}",
           "#note[One card per numbered statement of the paper, errata first, then in the paper's order. Each card "
           "says which symbols of the statement the runs varied and which they held fixed (a check is blind to a "
           "fixed one), and which terms of its bound the data needed; the checks' sections are the evidence.]"]
    out += [card_markup(c, link_of, finding_markup, prose) for c in cards]
    rest = [(i, r) for i, r in results.items() if r.finding and i not in placed]
    if rest:
        out.append("== Findings of checks that exercise no numbered statement")
        out += [f"#finding[#note[{escape(i)}] " + finding_markup(r.finding) + "]" for i, r in rest]
    return "\n\n".join(out)
