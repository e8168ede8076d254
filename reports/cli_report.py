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
    return p


def run(args) -> int:
    from reports.pdf import build_report

    try:
        out = build_report(args.results, out=args.out, paper=args.paper, typst_source=args.typst)
    except ValueError as exc:  # nothing (readable) to report
        raise InputError("results", str(exc)) from None
    print(f"wrote {out}")
    return 0
