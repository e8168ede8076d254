"""The statement card: one numbered statement of a paper, answered from the Results of the checks that exercise it.

A card says what a reader of the paper asks of "Theorem 3.1": is it right (the statement's verdict), how hard was it
tested (the binding margin and tightness), and what was tested at all. Everything on it is computed from the stored
Results, never typed by hand:

* **verdict.** ``violated`` when a check of it is violated (an erratum when that check's finding is one), else
  ``not_reproduced`` or ``inconclusive`` when one is, else ``holds``; ``not_checked`` when no check exercises it
  (the Statement says why).
* **margin, tightness.** Those of the binding atom: among the verdict atoms of the checks that gave the statement its
  verdict, those that evaluated one of its Bounds (all of their atoms when none did), the one closest to failing
  (smallest slack, verify/strength.py) for a statement that holds, else the first that reached its verdict.
* **symbols.** Each symbol of its Bounds, from the atoms that evaluated those Bounds (verify/evidence.py):
  ``varied`` when the atoms together gave it at least two values (its range, and the power: the smallest exponent
  ``s`` of a plant ``bound * x**s`` some atom would have called violated, ``up`` for s > 0 and ``down`` for s < 0),
  else ``fixed`` at the value they held it at (``null`` when no atom evaluated the Bound: the run is blind to it).
* **terms.** Each additive term of each Bound: ``exercised`` when some atom would have been violated without it.
* **hypotheses.** Each hypothesis ``measured`` when a check reported an Assumption that matches it (with the
  value and whether it held), else ``assumed``.
"""
from __future__ import annotations

import math
import re

from verify.result import Result

VERDICT_ORDER = ("violated", "not_reproduced", "inconclusive", "holds")


def _verdict(results: list[Result]) -> str:
    vs = {r.verdict.value for r in results}
    if "violated" in vs:
        return "violated"
    for v in ("not_reproduced", "inconclusive"):
        if v in vs:
            return v
    return "holds"


def _mentions(source: str, label: str) -> bool:
    """Whether a Bound's source names the statement (``Theorem 3.1`` in ``werner2023, Theorem 3.1, eq. (14)``)."""
    return re.search(re.escape(label) + r"(?![\d.]*\d)", source or "") is not None


def _atoms_of(statement, results: list[Result]) -> list[dict]:
    names = {b.name for b in statement.bounds}
    atoms = []
    for r in results:
        for a in r.atoms:
            ev = a.get("evidence") or {}
            if ev.get("bound") in names or (ev and _mentions(ev.get("source", ""), statement.label)):
                atoms.append({**a, "check": r.id})
    return atoms


def _slack(a: dict) -> float:
    s = a.get("slack")
    return float(s) if isinstance(s, (int, float)) and s == s else math.inf


def _min_power(records: list[dict], way: str) -> float | None:
    vals = [p[way] for rec in records for p in [rec.get("power") or {}] if isinstance(p.get(way), (int, float))]
    return min(vals) if vals else None


def symbol_coverage(name: str, atoms: list[dict]) -> dict:
    """One symbol's status over the atoms that evaluated it (see the module docstring)."""
    records = [a["evidence"]["symbols"][name] for a in atoms if name in (a.get("evidence") or {}).get("symbols", {})]
    values = set()
    for rec in records:
        if rec.get("status") == "varied":
            values.update(v for v in rec.get("values", []) + rec.get("range", []) if v is not None)
        elif rec.get("value") is not None:
            values.add(rec["value"])
    if not records or not values:
        return {"status": "fixed", "value": None, "note": "no verdict atom evaluated it: the checks are blind to it"}
    if len(values) < 2:
        return {"status": "fixed", "value": next(iter(values))}
    return {"status": "varied", "range": [min(values), max(values)],
            "power": {"up": _min_power(records, "up"), "down": _min_power(records, "down")},
            "atoms": sum(1 for r in records if r.get("status") == "varied")}


def term_coverage(bound, atoms: list[dict]) -> list[dict]:
    """Each top-level term of ``bound``: exercised when an atom that evaluated ``bound`` needed it."""
    from analytic.typst_math import typst_math
    from verify.evidence import terms_of

    import sympy as sp

    mine = [a for a in atoms if (a.get("evidence") or {}).get("bound") == bound.name]
    out = []
    for t in terms_of(bound):
        key = sp.sstr(t)
        recs = [x for a in mine for x in a["evidence"].get("terms", []) if x.get("term") == key]
        rec = {"bound": bound.name, "term": key, "typst": typst_math(t),
               "exercised": any(x.get("exercised") is True for x in recs)}
        if not recs:
            rec["note"] = "no verdict atom evaluated this bound"
        out.append(rec)
    return out


def hypothesis_coverage(statement, results: list[Result]) -> list[dict]:
    out = []
    for h in statement.hypotheses:
        hits = [(r.id, a) for r in results for a in r.assumptions if h.matches(a.name)]
        if hits:
            rid, a = hits[0]
            out.append({"name": h.name, "status": "measured", "check": rid, "as": a.name, "value": a.value,
                        "label": a.label, "held": all(x.held for _, x in hits), "times": len(hits)})
        else:
            out.append({"name": h.name, "status": "assumed"})
    return out


def card(statement, results: list[Result], check_ids: list[str] | None = None) -> dict:
    """The card of ``statement`` from the stored Results of the checks that exercise it (``check_ids``: all of
    those checks, stored or not; default the Results' ids). See the module docstring."""
    ids = [r.id for r in results] if check_ids is None else list(check_ids)
    base = {"paper": statement.paper, "statement": statement.label, "quote": statement.quote, "line": statement.line,
            "main": statement.main, "checks": ids, "stored": [r.id for r in results], "notes": statement.notes}
    if not results:
        why = ("no check exercises it: " + statement.not_checked) if not ids else \
            "its checks have no stored Result here: run them (fedverify run " + " ".join(ids) + ")"
        return {**base, "verdict": "not_checked" if not ids else "not_run", "why": why,
                "margin": None, "tightness": None, "symbols": {}, "terms": [],
                "hypotheses": [{"name": h.name, "status": "assumed"} for h in statement.hypotheses], "errata": []}
    verdict = _verdict(results)
    atoms = _atoms_of(statement, results)
    deciding = {r.id for r in results if r.verdict.value == verdict}  # the checks that gave the statement its verdict
    pool = [a for a in atoms if a["check"] in deciding] or [
        {**a, "check": r.id} for r in results if r.id in deciding for a in r.atoms]
    same = [a for a in pool if a.get("verdict") == verdict] or pool
    binding = min(same, key=_slack) if same and verdict == "holds" else (same[0] if same else None)
    symbols = {name: symbol_coverage(name, atoms) for name in statement.symbols}
    terms = [t for b in statement.bounds for t in term_coverage(b, atoms)]
    errata = [r.id for r in results if r.finding and r.finding.kind == "erratum"]
    return {**base, "verdict": verdict, "errata": errata,
            "margin": None if binding is None else {"check": binding["check"], "atom": binding.get("atom"),
                                                    "text": binding.get("margin_text"), "value": binding.get("margin"),
                                                    "slack": binding.get("slack")},
            "tightness": (binding or {}).get("tightness") if verdict == "holds" else None,
            "atoms": len(atoms), "symbols": symbols, "terms": terms,
            "hypotheses": hypothesis_coverage(statement, results)}


def cards(statements: dict, checks: dict, results: dict[str, Result]) -> list[dict]:
    """The cards of one paper's ``statements`` (label -> Statement), errata first then the paper's order;
    ``checks`` maps check id -> CheckSpec, ``results`` check id -> its stored Result."""
    out = []
    for label, st in statements.items():
        ids = [cid for cid, spec in checks.items() if label in spec.statements]
        out.append(card(st, [results[c] for c in ids if c in results], ids))
    return sorted(out, key=lambda c: (not c["errata"],))  # stable: the paper's order within each group


def counts(card_list: list[dict]) -> dict:
    """How many symbols varied against fixed, and terms exercised against not, over ``card_list``."""
    sym = [s["status"] for c in card_list for s in c["symbols"].values()]
    ter = [t["exercised"] for c in card_list for t in c["terms"]]
    return {"symbols_varied": sym.count("varied"), "symbols_fixed": sym.count("fixed"),
            "terms_exercised": sum(ter), "terms_not_exercised": len(ter) - sum(ter)}
