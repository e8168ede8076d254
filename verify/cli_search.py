"""``fedverify search``: hunt for the instance that breaks a searchable claim (verify/search/).

    fedverify search ID [--budget N] [--method cma|gradient|random] [--seed S] [--json FILE|-] [--results DIR]
                        [--quiet]

Runs the method (CMA-ES by default) and uniform random sampling at the same budget, side by side, and prints
the worst ratio observed/bound of each, the ratio at the check's planted instance, the certified worst ratio
where PEPit gives one, the worst instance (saved as ``DIR/search/ID.npz`` and re-scored from the file),
evaluations and wall time. The search's JSON (also ``DIR/search/ID.json``, which the report reads) has the
fields ``worst_ratio``, ``random_ratio``, ``planted_ratio``, ``certified_ratio``, ``instance_file``,
``evaluations``, ``method`` and the Result. Exit 0 whatever the verdict; 2 on bad input (one line naming the
flag).
"""
from __future__ import annotations

import argparse
import json
import sys

from analytic.errors import InputError
from verify.cli_args import output_file, parse_int, writable_dir

PROG = "fedverify search"
FLAGS = {"budget": "--budget", "method": "--method", "seed": "--seed", "instance_file": "--results"}


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "search", help="search a claim's instance space for a violation (CMA-ES, gradient, random)",
        description="Maximise observed/bound over a searchable claim's space; a ratio > 1 is a violation.")
    p.add_argument("id", metavar="ID", help="a searchable check id ('fedverify list --json' marks them)")
    p.add_argument("--budget", help="evaluations per method (default: the claim's own)")
    p.add_argument("--method", default="cma", help="cma (default), gradient (differentiable claims) or random")
    p.add_argument("--seed", default="0", help="root seed (default 0)")
    from verify.cli_args import add_json_option

    add_json_option(p, "the search")
    p.add_argument("--results", default="results", help="results directory; the witness goes to DIR/search/")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _bar(total: int, quiet: bool):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="eval", file=sys.stderr, dynamic_ncols=True, leave=False)


def run(args) -> int:
    from verify.engine import Context
    from verify.registry import get
    from verify.search import METHODS, json_path, search

    results = writable_dir(args.results, "--results")
    if args.json is not None and args.json != "-":
        output_file(args.json, "--json")
    seed = parse_int(args.seed, "seed", 0)
    budget = None if args.budget is None else parse_int(args.budget, "budget", 1)
    if args.method not in METHODS:
        raise InputError("method", f"unknown method {args.method!r}; choose one of {', '.join(METHODS)}")
    spec = get(args.id)
    total = (budget or (spec.objective.budget if spec.searchable else 0)) * (1 if args.method == "random" else 2)
    bar = _bar(total, args.quiet) if spec.searchable else None
    try:
        rep = search(spec, Context(seed=seed), method=args.method, budget=budget, results=results,
                     progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    data = rep.to_dict()
    text = json.dumps(data, indent=1, allow_nan=True, default=str)
    jp = json_path(results, spec.id)
    jp.parent.mkdir(parents=True, exist_ok=True)
    jp.write_text(text)
    if args.json == "-":
        print(text)
        return 0
    if args.json:
        output_file(args.json, "--json").write_text(text)
    _print(rep, spec)
    own = check_observed_worst(results, spec.id, seed)
    if own is not None and own > rep.worst_ratio:
        print(f"  the check's own stored run reached observed/bound {_fmt(own)}, above the search's "
              f"{_fmt(rep.worst_ratio)}: the search did not find the worst case it has seen (try a larger --budget)")
    return 0


def check_observed_worst(results, check_id: str, seed: int) -> float | None:
    """The largest observed/bound of an upper-side atom (a bound the quantity must stay below) in the check's stored
    Result of this seed, or None when there is no stored Result or no such atom."""
    from verify.store import NotStored, ResultStore, UnreadableResult

    try:
        res = ResultStore(results).load(check_id, seed=seed)
    except (NotStored, UnreadableResult):
        return None
    ratios = [a["margin"] for a in res.atoms if a.get("measure") == "ratio" and isinstance(a.get("margin"), (int, float))
              and (a.get("evidence") or {}).get("side") == "upper"]
    return max(ratios) if ratios else None


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.6g}"


def admissible(spec, instance: dict | None) -> str:
    """Whether a method's best point satisfies the claim's constraint (the claim's assumptions), in words."""
    if instance is None:
        return "no admissible point found"
    c = spec.objective.constraint
    if c is None:
        return "no constraint beyond the space"
    return "satisfies the claim's constraint" if c({**instance, **spec.space.fixed}) else "VIOLATES the constraint"


def _print(rep, spec=None) -> None:
    from verify.search.witness import instance_text

    print(f"{rep.check_id}: search for observed/bound > 1 ({rep.budget} evaluations per method, seed {rep.seed})")
    best = rep.extra.get("best", {})
    for name in rep.evaluations:
        ratio = rep.worst_ratio if name == rep.method else rep.random_ratio
        print(f"  {name:<8} worst ratio {_fmt(ratio):>12}   {rep.evaluations[name]} evaluations, "
              f"{rep.wall_time_s[name]:.2f} s" + (f", {rep.rejected[name]} outside the constraint"
                                                   if rep.rejected[name] else "")
              + (f"; its best point {admissible(spec, best.get(name))}" if spec is not None else ""))
    if rep.method != "random" and rep.random_ratio > rep.worst_ratio:
        print(f"  {rep.method} lost to random sampling at the same budget ({_fmt(rep.worst_ratio)} < "
              f"{_fmt(rep.random_ratio)}): its worst ratio is no estimate of the supremum; try a larger --budget "
              "or --method random")
    print(f"  planted  ratio       {_fmt(rep.planted_ratio):>12}")
    if rep.certified_ratio is not None:
        print(f"  certified worst ratio {_fmt(rep.certified_ratio)} (PEPit); search reached "
              f"{rep.worst_ratio / rep.certified_ratio:.4f} of it")
    print(f"  instance: {instance_text(rep.instance)}")
    if rep.instance_file:
        print(f"  witness: {rep.instance_file} (re-scored: {_fmt(rep.rescored_ratio)})")
    print(f"  verdict: {rep.result.verdict.value}: {rep.result.explanation}")
