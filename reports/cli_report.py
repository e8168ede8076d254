"""``fedverify report``: the PDF report from stored Results (registered under ``fedverify.commands``).

    fedverify report [--results DIR] [--paper KEY] [--out report.pdf] [--typst FILE] [--json [FILE|-]]

``--json`` writes the report's content instead of typesetting it (typst is then not needed): per paper, its title,
its statement cards (verify/statement_cards.py) and every check's verdict, expected verdict, tightness and finding.
"""
from __future__ import annotations

from analytic.errors import InputError


def add_parser(subparsers):
    p = subparsers.add_parser("report", help="build the PDF report from stored Results")
    p.add_argument("--results", default="results", help="results directory (default ./results)")
    p.add_argument("--paper", help="only this paper's checks")
    p.add_argument("--out", default="report.pdf", help="the PDF to write (default report.pdf)")
    p.add_argument("--typst", metavar="FILE", help="also write the typst source of the report")
    p.add_argument("--redraw", action="store_true",
                   help="draw every figure again (by default a figure whose Result did not change is reused from "
                        "DIR/.figure-cache)")
    p.add_argument("--quiet", action="store_true", help="no progress")
    from verify.cli_args import add_json_option

    add_json_option(p, "the report's content (per paper: statement cards and checks) instead of the PDF")
    return p


def report_content(results_dir, paper: str | None = None) -> dict:
    """What the PDF says, as data: per paper its title, its statement cards and each check's verdict and finding."""
    from verify.cli_statements import paper_cards
    from verify.registry import statements
    from verify.store import ResultStore

    results, unreadable = ResultStore(results_dir).load_all(paper)
    if not results:
        raise InputError("results", f"no readable results in {results_dir}" + (f" for paper {paper!r}" if paper else ""))
    out = {"papers": {}, "unreadable": [{"file": str(f), "error": e} for f, e in unreadable]}
    for key in sorted({r.paper for r in results}):
        rs = [r for r in results if r.paper == key]
        out["papers"][key] = {
            "title": (rs[0].paper_info or {}).get("title", ""),
            "statements": paper_cards(results_dir, key) if statements(key) else [],
            "checks": [{"id": r.id, "title": r.title, "kind": r.kind, "verdict": r.verdict.value,
                        "expected": r.expected.value, "as_expected": r.as_expected, "tightness": r.tightness,
                        "source": r.claim.source, "finding": r.finding.__dict__ if r.finding else None}
                       for r in rs]}
    return out


def _progress(quiet: bool):
    """Progress on stderr: a bar on a terminal, else a line every 25 figures (a build takes about a minute)."""
    import sys

    if quiet:
        return None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit="figure", file=sys.stderr, leave=False, dynamic_ncols=True)

        def tell(done, total, what):
            bar.total = total
            bar.n = done
            bar.set_postfix_str(what)
            bar.refresh()
            if what == "typesetting":
                bar.close()
                print("fedverify report: typesetting ...", file=sys.stderr)
        return tell

    def tell(done, total, what):
        if what == "typesetting":
            print(f"fedverify report: {total} figures ready; typesetting ...", file=sys.stderr)
        elif done % 25 == 0 or done == total:
            print(f"fedverify report: figures {done}/{total}", file=sys.stderr)
    return tell


def run(args) -> int:
    import sys

    from verify.extras import require

    from verify.cli_args import output_file, readable_dir, write_json

    if args.json is not None:  # the content as data: no typesetting, so no typst needed
        readable_dir(args.results, "--results")
        if args.json != "-":
            output_file(args.json, "--json")
        from verify.registry import load_all

        load_all()
        write_json(args.json, report_content(args.results, args.paper))
        return 0
    require("typst")  # before any work: the PDF cannot be typeset without it
    from reports.pdf import build_report
    from verify.store import ResultStore

    readable_dir(args.results, "--results")  # every path first: nothing is built for a report that cannot be written
    output_file(args.out, "--out")
    if args.typst is not None:
        output_file(args.typst, "--typst")
    try:
        out = build_report(args.results, out=args.out, paper=args.paper, typst_source=args.typst,
                           progress=_progress(args.quiet), figure_cache=not args.redraw)
    except ValueError as exc:  # nothing (readable) to report
        raise InputError("results", str(exc)) from None
    except OSError as exc:  # checked above; this is the file system changing under the build
        raise InputError("--out", f"cannot write the report ({exc.strerror or exc})") from None
    _, unreadable = ResultStore(args.results).load_all(args.paper)
    if unreadable:
        print(f"fedverify report: warning: {len(unreadable)} stored result(s) unreadable, left out of the report: "
              + "; ".join(err for _, err in unreadable), file=sys.stderr)
    print(f"wrote {out}")
    return 0
