"""The report's "Worst-case search" section, from the stored search JSON (``<results>/search/<id>.json``,
written by ``fedverify search``): per searched claim, the ratio observed/bound at the check's planted instance,
the worst found by uniform random sampling and by the search method at the same budget, the certified worst
ratio where PEPit gives one, the verdict (violated when a ratio > 1 was found; otherwise inconclusive: a search
never proves a claim) and the witness (the worst instance, saved as ``.npz`` beside the JSON).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from reports.typst_markup import escape, fmt_num, one_line, table, verdict_badge

SUBDIR = "search"


def load_searches(results_dir, paper: str | None = None) -> tuple[list[dict], list[tuple[str, str]]]:
    """(searches sorted by check id, [(file, error)] for files that cannot be read)."""
    folder = Path(results_dir) / SUBDIR
    found, bad = [], []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            d = json.loads(path.read_text())
            if not isinstance(d, dict) or "worst_ratio" not in d or "id" not in d:
                raise ValueError("not a search result")
        except (OSError, ValueError) as exc:
            bad.append((str(path), f"{type(exc).__name__}: {exc}"))
            continue
        if paper is None or str(d["id"]).split(".")[0] == paper:
            found.append(d)
    return found, bad


def _witness(d: dict, limit: int = 300) -> str:
    inst = d.get("instance") or {}
    parts = []
    for k, v in inst.items():
        if isinstance(v, (int, float)):
            parts.append(f"{k} = {fmt_num(v)}")
        else:
            try:
                v = np.round(np.asarray(v, dtype=float), 4).tolist()
            except (TypeError, ValueError):
                pass
            parts.append(f"{k} = {one_line(v, 160)}")
    text = one_line("; ".join(parts), limit)
    return text + (f" (file {Path(d['instance_file']).name})" if d.get("instance_file") else "")


def search_section(results_dir, paper: str | None = None) -> str:
    """Typst markup of the section, or ``""`` when no search is stored."""
    searches, bad = load_searches(results_dir, paper)
    if not searches and not bad:
        return ""
    out = ["= Worst-case search",
           escape("A holds verdict says a claim held on the instances its check planted. fedverify search maximises "
                  "observed/bound over the claim's whole admissible space (a ratio above 1 is a violation) with a "
                  "search method and, as the baseline, uniform random sampling at the same number of evaluations. "
                  "Where PEPit certifies the exact worst case the certified ratio is shown: the search must approach it "
                  "from below. A search that finds no violation proves nothing: its verdict is inconclusive.")]
    rows = []
    for d in searches:
        ev = d.get("evaluations") or {}
        rows.append([escape(d["id"]), escape(d.get("method", "")), escape(str(ev.get(d.get("method"), ""))),
                     escape(fmt_num(d.get("planted_ratio"))), escape(fmt_num(d.get("random_ratio"))),
                     escape(fmt_num(d.get("worst_ratio"))), escape(fmt_num(d.get("certified_ratio"))),
                     verdict_badge(d.get("verdict"))])
    if rows:
        out.append(table(["claim", "method", "evaluations", "planted", "random", "search", "certified", "verdict"], rows,
                         align=["left", "left", "right", "right", "right", "right", "right", "left"], size="8.5pt"))
        out.append("== Witnesses")
        out += [f"- *{escape(d['id'])}* (ratio {escape(fmt_num(d.get('worst_ratio')))}): {escape(_witness(d))}"
                for d in searches]
    if bad:
        out.append(escape(f"{len(bad)} stored search file(s) unreadable, left out: "
                          + "; ".join(f"{p}: {e}" for p, e in bad)))
    return "\n\n".join(out) + "\n\n"
