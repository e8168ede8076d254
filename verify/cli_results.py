"""``fedverify results``: what a results directory holds, one row per stored Result.

A row is one (check, root seed, grid point): the top-level files (seed 0 at the check's defaults, what
``run`` and the report read), and every other point that ``run --seed S`` or ``sweep`` stored beside them
(verify/store.py). Columns: :data:`COLUMNS`. Printed as a table, or written with ``--csv FILE`` (``-``: standard
output) or ``--json [FILE]`` (a list of rows). Files that cannot be read are named on standard error, one
line each, and the other rows still come.
"""
from __future__ import annotations

import json
import sys

COLUMNS = ("id", "paper", "seed", "grid", "kind", "verdict", "expected", "as_expected", "tightness", "fidelity",
           "replicates", "device", "wall_time_s", "file")


def result_rows(results_dir, paper: str | None = None) -> tuple[list[dict], list[tuple[str, str]]]:
    """One dict per stored Result in ``results_dir`` (``grid``: the point's overrides as compact JSON, "" for
    the check's defaults), and the unreadable files as ``(file, error)``."""
    from verify.store import ResultStore

    stored, bad = ResultStore(results_dir).stored(paper)
    rows = []
    for s in stored:
        r, env = s.result, s.result.env
        rows.append({"id": r.id, "paper": r.paper, "seed": s.seed,
                     "grid": json.dumps(s.grid, separators=(",", ":"), allow_nan=True) if s.grid else "",
                     "kind": r.kind, "verdict": r.verdict.value, "expected": r.expected.value,
                     "as_expected": r.as_expected, "tightness": r.tightness, "fidelity": env.get("fidelity"),
                     "replicates": env.get("replicates"), "device": env.get("device"),
                     "wall_time_s": env.get("wall_time_s"), "file": str(s.path)})
    return rows, bad


def results_frame(results_dir, paper: str | None = None):
    """:func:`result_rows` as a pandas DataFrame with the columns :data:`COLUMNS` (the unreadable files are
    left out; :func:`result_rows` lists them)."""
    return _frame(result_rows(results_dir, paper)[0])


def add_parser(sub) -> None:
    from verify.cli_args import add_json_option

    p = sub.add_parser("results", help="list the stored Results of a results directory, one row per (check, seed, "
                                        "grid point)")
    p.add_argument("--results", default="results", help="results directory (default ./results)")
    p.add_argument("--paper", help="only this paper's Results (e.g. werner2023)")
    p.add_argument("--csv", metavar="FILE", help="write the rows as CSV to FILE ('-': standard output)")
    add_json_option(p, "the rows (a list of objects)")


def run(args) -> int:
    from analytic.errors import InputError
    from verify.cli_args import output_file, readable_dir, write_json

    readable_dir(args.results, "--results")
    if args.csv is not None and args.json is not None:
        raise InputError("--csv", "give --csv or --json, not both")
    for flag, dest in (("--csv", args.csv), ("--json", args.json)):
        if dest not in (None, "-"):
            output_file(dest, flag)
    rows, bad = result_rows(args.results, args.paper)
    for _, err in bad:
        print(f"fedverify results: warning: {err}", file=sys.stderr)
    if args.json is not None:
        write_json(args.json, rows)
        return 0
    if args.csv is not None:
        frame = _frame(rows)
        if args.csv == "-":
            frame.to_csv(sys.stdout, index=False)
        else:
            try:
                frame.to_csv(args.csv, index=False)
            except OSError as exc:  # checked above; this is the path changing under the command
                raise InputError("--csv", f"cannot write {args.csv} ({exc.strerror or exc})") from None
        return 0
    _print_table(rows)
    print(f"{len(rows)} stored Results in {args.results}/" + (f", {len(bad)} unreadable" if bad else ""))
    return 0


def _frame(rows: list[dict]):
    import pandas as pd

    return pd.DataFrame(rows, columns=list(COLUMNS))


def _print_table(rows: list[dict]) -> None:
    shown = ("id", "seed", "grid", "verdict", "expected", "tightness", "wall_time_s")
    cells = [[("" if row[c] is None else f"{row[c]:.2f}" if c == "wall_time_s" else str(row[c])) for c in shown]
             for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(shown)]
    for line in [list(shown)] + cells:
        print("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip())
