"""The ``fedverify demo NAME`` subcommand: a toy counterexample step by step, with a figure.

    fedverify demo myopic|ifca|hypcluster|cfl|byzantine|cafcor|graph [--out DIR] [--animate] [--rounds N] [--seed S]
                   [--eta X] [--tau X] [--batch N] [--start X] [--clients N] [--byzantine N]
                   [--format png|svg|pdf] [--dpi N] [--style paper|slides]

Prints the story round by round and writes ``DIR/demo_NAME.FORMAT`` and, with ``--animate``,
``DIR/demo_NAME.gif``. The knobs reach the check as keyword overrides (see
:func:`counterexamples.demo.run_demo`); a knob the demo cannot vary, and any other bad input, prints
one line naming the flag and returns 2. Top-level imports stay light (``fedverify --help`` must not
import torch): the demo module is imported when the command runs.
"""
from __future__ import annotations

import argparse

from analytic.errors import InputError
from verify.cli_args import parse_int, parse_number, writable_dir

PROG = "fedverify demo"
NAMES = ("myopic", "ifca", "hypcluster", "cfl", "byzantine", "cafcor", "graph")
FORMATS = ("png", "svg", "pdf")
STYLES = ("paper", "slides")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``demo`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "demo", help="classroom demo: a toy counterexample or mechanism, step by step, with a figure",
        description="Run a classroom toy round by round, in plain words, and draw it: werner2023's Myopic, IFCA, "
                    "HypCluster and CFL failures; dutta2023's Byzantine attack on the mean (byzantine); allouah2025's "
                    "correlated noise (cafcor); buttaci2024's similarity graph (graph).")
    p.add_argument("name", metavar="NAME", help=f"one of {', '.join(NAMES)}")
    p.add_argument("--out", default=".", metavar="DIR", help="where to write demo_NAME.FORMAT (and .gif); default: current directory")
    p.add_argument("--animate", action="store_true", help="also write an animated GIF")
    p.add_argument("--rounds", default="6", metavar="N", help="rounds to narrate in detail (default 6)")
    p.add_argument("--seed", default="0", metavar="S", help="root seed (default 0; matters for the stochastic demos)")
    k = p.add_argument_group("knobs (passed to the check; a demo that cannot vary one says so, exit 2)")
    k.add_argument("--eta", metavar="X", help="step size (learning rate)")
    k.add_argument("--tau", metavar="X", help="FC's radius tau (myopic, ifca, hypcluster, cfl) or local steps (byzantine, graph)")
    k.add_argument("--batch", metavar="N", help="batch size (cfl: FC's |B|)")
    k.add_argument("--start", metavar="X", help="start point (every client's / the cluster model's initial value)")
    k.add_argument("--clients", metavar="N", help="number of clients (cafcor: workers; graph: clients)")
    k.add_argument("--byzantine", metavar="N", help="number of Byzantine agents (byzantine: f of the N = 50 agents)")
    o = p.add_argument_group("output")
    o.add_argument("--format", default="png", metavar="FMT", help=f"figure format: {', '.join(FORMATS)} (default png)")
    o.add_argument("--dpi", default=None, metavar="N", help="figure resolution (default 150)")
    o.add_argument("--style", default="paper", metavar="STYLE",
                   help="paper (6.5 in wide) or slides (13.3 in wide, text >= 12 pt, GIFs >= 1280 px)")
    return p


#: The largest knob a demo runs in seconds and tells in finite numbers: |start| and tau (a radius) up to 1e6 keep
#: every loss (a square of the distance) far from float64's overflow (a start of 1e308 squared is inf, a story of
#: NaN); tau as local steps per round (byzantine, graph) and the client counts are loops run at once (tau = 1e9
#: local steps never ends).
LIMITS = {"eta": 1e3, "tau": 1e6, "start": 1e6, "batch": 1e6, "clients": 1000, "byzantine": 1000}
STEP_LIMIT = {"byzantine": 1000, "graph": 1000}  # tau = local steps per round there
MAX_ROUNDS = 10_000


def check_ranges(name: str, knobs: dict) -> None:
    """Each given knob within :data:`LIMITS` (``tau`` as local steps: a whole number up to :data:`STEP_LIMIT`)."""
    for k, v in knobs.items():
        if v is None:
            continue
        if k == "tau" and name in STEP_LIMIT:
            if v != int(v) or not 1 <= v <= STEP_LIMIT[name]:
                raise InputError(k, f"the {name} demo's tau is its local steps per round: a whole number in "
                                    f"1..{STEP_LIMIT[name]}, got {v:g}")
        elif abs(v) > LIMITS[k]:
            raise InputError(k, f"must be at most {LIMITS[k]:g} in size for a demo, got {v:g}")


def _opt(value, param: str, integer: bool = False):
    if value is None:
        return None
    return parse_int(value, param, 1) if integer else parse_number(value, param)


def run(args) -> int:
    """Run the demo; bad input raises InputError (the command line prints one line, exit 2)."""
    if args.name not in NAMES:
        raise InputError("NAME", f"unknown demo {args.name!r}; choose one of {', '.join(NAMES)}")
    rounds = parse_int(args.rounds, "rounds", 1)
    if rounds > MAX_ROUNDS:
        raise InputError("rounds", f"must be at most {MAX_ROUNDS}, got {rounds}")
    seed = parse_int(args.seed, "seed", 0)
    knobs = {"eta": _opt(args.eta, "eta"), "tau": _opt(args.tau, "tau"), "batch": _opt(args.batch, "batch", True),
             "start": _opt(args.start, "start"), "clients": _opt(args.clients, "clients", True),
             "byzantine": _opt(args.byzantine, "byzantine", True)}
    if args.format not in FORMATS:
        raise InputError("format", f"unknown format {args.format!r}; choose one of {', '.join(FORMATS)}")
    if args.style not in STYLES:
        raise InputError("style", f"unknown style {args.style!r}; choose one of {', '.join(STYLES)}")
    check_ranges(args.name, knobs)
    dpi = _opt(args.dpi, "dpi")
    writable_dir(args.out, "--out")
    from counterexamples.demo import check_knobs, run_demo  # torch and matplotlib only now

    check_knobs(args.name, knobs)  # a knob the demo cannot vary: one line, before any work
    out = run_demo(args.name, args.out, animate=args.animate, rounds=rounds, seed=seed, format=args.format, dpi=dpi,
                   style=args.style, **knobs)
    from reports.prose_math import prose_math

    print("\n".join(prose_math(line) for line in out.lines))  # eta -> η, theta_2 -> θ₂, <= -> ≤, as the paper prints
    return 0
