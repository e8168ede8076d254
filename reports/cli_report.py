"""``fedverify report``: the PDF report from stored Results (registered under ``fedverify.commands``).

    fedverify report [--results DIR] [--paper KEY] [--out report.pdf] [--typst FILE]
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
    return p


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

    require("typst")  # before any work: the PDF cannot be typeset without it
    from reports.pdf import build_report
    from verify.cli_args import output_file, readable_dir
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
