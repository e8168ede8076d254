"""``fedverify statements``: one card per numbered statement of a paper, from the stored Results of its checks.

``fedverify statements [--paper P] [--results DIR] [--seed S] [--json [FILE|-]]`` prints the cards of every
registered paper (or one), errata first, then in the paper's order; ``fedverify show P "Theorem 3.1"`` prints one.
A card (verify/statement_cards.py) gives the statement's verdict from its checks, the binding margin and tightness,
each symbol of its bounds varied (range, power) or fixed (value), each additive term exercised or not, and each
hypothesis measured or assumed.
"""
from __future__ import annotations

HELP = "one card per numbered statement of the papers (Theorem 3.1, Lemma C.2, ...): verdict, what was varied and " \
       "what was held fixed"


def add_parser(sub) -> None:
    from verify.cli_args import add_json_option, int_type

    p = sub.add_parser("statements", help=HELP)
    p.add_argument("--paper", help="only this paper's statements (e.g. werner2023)")
    p.add_argument("--results", default="results", help="results directory (default ./results)")
    p.add_argument("--seed", type=int_type("--seed", 0), default=None, help="the Results of this root seed (default 0)")
    add_json_option(p, "the cards (a list of objects)")


def paper_cards(results_dir, paper: str, seed: int | None = None) -> list[dict]:
    """The cards of ``paper`` from the Results stored in ``results_dir`` (unreadable or missing ones are left out:
    their statements say ``not_run``)."""
    from verify.registry import load_all, statements
    from verify.statement_cards import cards
    from verify.store import ResultStore

    reg = {cid: spec for cid, spec in load_all().items() if spec.paper == paper}
    store = ResultStore(results_dir)
    found = {}
    for cid in reg:
        try:
            found[cid] = store.load(cid, seed=seed)
        except Exception:  # noqa: BLE001 - not stored or unreadable: the card says not_run; `results` names bad files
            continue
    return cards(statements(paper), reg, found)


def _papers(paper: str | None) -> list[str]:
    from analytic.errors import InputError
    from verify.registry import load_all, statements

    load_all()
    known = sorted(statements())
    if paper is not None and paper not in known:
        raise InputError("--paper", f"unknown paper {paper!r}; papers with statements: {', '.join(known)}")
    return [paper] if paper else known


def _power(p: dict | None) -> str:
    p = p or {}
    if any(v is not None and v <= 0 for v in p.values()):  # an atom already violated as run
        return "violated as run"
    parts = [f"x^{sign}{v:.3g}" for sign, v in (("+", p.get("up")), ("-", p.get("down"))) if v is not None]
    return ("a plant " + " or ".join(parts) + " would be violated") if parts else "no exponent plant would be violated"


def format_card(c: dict) -> str:
    """A card as text for the terminal."""
    head = f"{c['paper']} {c['statement']}" + ("  [main result]" if c.get("main") else "")
    verdict = c["verdict"] + (f", {c['tightness']}" if c.get("tightness") else "")
    lines = [f"{head}: {verdict}" + (f"  (paper line {c['line']})" if c.get("line") else ""),
             f"  \u201c{c['quote']}\u201d"]
    if c.get("why"):
        lines.append(f"  {c['why']}")
    if c["checks"]:
        errata = f"; errata: {', '.join(c['errata'])}" if c["errata"] else ""
        lines.append(f"  checks: {', '.join(c['checks'])}{errata}")
    if c.get("margin"):
        m = c["margin"]
        lead = "closest to failing" if c["verdict"] == "holds" else "deciding atom"
        lines.append(f"  {lead}: {m['check']} {m.get('atom') or ''}: {m.get('text') or ''}")
    varied = [(k, v) for k, v in c["symbols"].items() if v["status"] == "varied"]
    fixed = [(k, v) for k, v in c["symbols"].items() if v["status"] == "fixed"]
    for k, v in varied:
        lines.append(f"  varied {k} in [{v['range'][0]:.4g}, {v['range'][1]:.4g}]: {_power(v.get('power'))}")
    if fixed:
        lines.append("  fixed (blind to them): " + "; ".join(
            f"{k} = {v['value']:.4g}" if v.get("value") is not None else f"{k} (never evaluated)" for k, v in fixed))
    seen: dict[str, bool] = {}  # a term shared by several of the statement's bounds: exercised by any of them
    for t in c["terms"]:
        seen[t["term"]] = seen.get(t["term"], False) or bool(t["exercised"])
    ex = [t for t, e in seen.items() if e]
    not_ex = [t for t, e in seen.items() if not e]
    if ex:
        lines.append("  terms exercised: " + "; ".join(ex))
    if not_ex:
        lines.append("  terms NOT exercised (removing one would still hold): " + "; ".join(not_ex))
    if c.get("notes"):
        lines.append(f"  note: {c['notes']}")
    for h in c["hypotheses"]:
        if h["status"] == "measured":
            val = "" if h.get("value") is None else f" = {h['value']:.4g} ({h.get('label')})"
            lines.append(f"  hypothesis {h['name']}: measured by {h['check']}{val}, "
                         f"{'held' if h.get('held') else 'NOT held'}")
        else:
            lines.append(f"  hypothesis {h['name']}: assumed (no check measured it)")
    return "\n".join(lines)


def run(args) -> int:
    from verify.cli_args import output_file, readable_dir, write_json
    from verify.registry import unknown_statements
    import sys

    readable_dir(args.results, "--results")
    if args.json not in (None, "-"):
        output_file(args.json, "--json")
    out = [c for p in _papers(args.paper) for c in paper_cards(args.results, p, args.seed)]
    for line in unknown_statements():
        print(f"fedverify: warning: {line}", file=sys.stderr)
    if args.json is not None:
        write_json(args.json, out)
        return 0
    print("\n\n".join(format_card(c) for c in out))
    return 0


def show_card(results_dir, paper: str, label: str, seed: int | None = None, as_json: str | None = None) -> int:
    """``fedverify show P "Theorem 3.1"``: one card."""
    from analytic.errors import InputError
    from verify.cli_args import write_json
    from verify.registry import statements

    _papers(paper)
    table = statements(paper)
    if label not in table:
        raise InputError("STATEMENT", f"{paper} registers no statement {label!r}; known: {', '.join(table)}")
    c = next(c for c in paper_cards(results_dir, paper, seed) if c["statement"] == label)
    if as_json is not None:
        write_json(as_json, c)
    else:
        print(format_card(c))
    return 0
