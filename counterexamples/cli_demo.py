"""The ``fedverify demo NAME`` subcommand: a toy counterexample step by step, with a figure.

    fedverify demo myopic|ifca|hypcluster|cfl [--out DIR] [--animate] [--rounds N] [--seed S]

Prints the story round by round and writes ``DIR/demo_NAME.png`` (Figure-1 style) and, with
``--animate``, ``DIR/demo_NAME.gif``. Bad input prints one line naming the parameter and returns 2.
"""
from __future__ import annotations

import argparse

from analytic.errors import InputError
from verify.cli_args import parse_int, writable_dir

PROG = "fedverify demo"
NAMES = ("myopic", "ifca", "hypcluster", "cfl")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``demo`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "demo", help="classroom demo: Myopic, IFCA, HypCluster or CFL failing, step by step, with a figure",
        description="Run a toy counterexample of werner2023 round by round, in plain words, and draw it.")
    p.add_argument("name", metavar="NAME", help=f"one of {', '.join(NAMES)}")
    p.add_argument("--out", default=".", metavar="DIR", help="where to write demo_NAME.png (and .gif); default: current directory")
    p.add_argument("--animate", action="store_true", help="also write an animated GIF")
    p.add_argument("--rounds", default="6", metavar="N", help="rounds to narrate in detail (default 6)")
    p.add_argument("--seed", default="0", metavar="S", help="root seed (default 0; matters for the stochastic CFL example)")
    return p


def run(args) -> int:
    """Run the demo; bad input raises InputError (the command line prints one line, exit 2)."""
    from counterexamples.demo import run_demo

    if args.name not in NAMES:
        raise InputError("NAME", f"unknown demo {args.name!r}; choose one of {', '.join(NAMES)}")
    rounds = parse_int(args.rounds, "rounds", 1)
    seed = parse_int(args.seed, "seed", 0)
    writable_dir(args.out, "--out")
    out = run_demo(args.name, args.out, animate=args.animate, rounds=rounds, seed=seed)
    print("\n".join(out.lines))
    return 0
