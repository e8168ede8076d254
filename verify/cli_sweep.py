"""``fedverify sweep``: checks x root seeds x grid points on Dask distributed (registered under
``fedverify.commands``).

    fedverify sweep [ID ... | --paper KEY | --all] --seeds 0-9 [--grid NAME=V1,V2 ...]
                    [--fidelity quick|full] [--replicates R] [--workers N | --scheduler ADDRESS]
                    [--device auto|cpu|cuda] [--data PATH] [--results DIR] [--json FILE|-] [--force] [--quiet]

One Dask task per (check, seed, grid point) (verify/sweep.py): a LocalCluster of N worker processes
(default: the number of cores), one thread each, or the cluster at ``--scheduler``. ``--grid`` maps a
check's keyword argument over values (Python literals: ``--grid m=50,100,200 --grid r=0.1,0.2``);
every combination is a grid point. Each Result is stored under its check id, root seed and grid
point (verify/store.py); a rerun of the same command redoes only what is missing.

``--json`` writes ``{"results": [...], "stability": [{"id", "grid", "runs", "at_expected", "ci":
[lo, hi], "off": [{"seed", "verdict", "expected"}]}]}`` (Clopper-Pearson interval at 95 %).
Exit codes as ``fedverify run``: 0 done, 1 ``--strict`` and a verdict off expected, 2 bad input, 3 a point
failed (the toolkit raised), 4 Dask missing (``pip install 'fedverify[sweep]'``), 130 interrupted.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from analytic.errors import InputError

#: library parameter names -> flags
FLAGS = {"seeds": "--seeds", "grid": "--grid", "workers": "--workers", "scheduler": "--scheduler",
         "paper": "--paper", "results": "--results", "device": "--device", "replicates": "--replicates"}


def add_parser(subparsers):
    from verify.cli_args import int_type
    from verify.choices import DEVICES, FIDELITIES

    p = subparsers.add_parser("sweep", help="run checks over root seeds and keyword grids on Dask; verdict stability")
    p.add_argument("ids", nargs="*", metavar="ID", help="check ids, e.g. werner2023.c09")
    p.add_argument("--paper", help="all checks of this paper")
    p.add_argument("--all", action="store_true", help="every registered check")
    p.add_argument("--seeds", default="0", help="root seeds: 0-9, 0,3,5 or 0-3,7 (default 0)")
    p.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                   help="a keyword argument of the checks and its values (Python literals; repeatable: the "
                        "product of all --grid is swept)")
    p.add_argument("--fidelity", choices=FIDELITIES, default="quick")
    p.add_argument("--replicates", type=int_type("--replicates", 2), help="override each check's replicate count")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int_type("--workers", 1), default=None,
                       help="worker processes of a local Dask cluster (default: the number of cores; 1 runs in this process)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler (tcp://host:port); its workers must import this fedverify")
    p.add_argument("--device", choices=DEVICES, default="auto", help="auto (default), cpu, cuda")
    p.add_argument("--data", metavar="PATH", default=None,
                   help="MNIST on disk for the real-data reproductions, as 'fedverify run --data' (default: "
                        "scikit-learn's bundled 8x8 digits)")
    p.add_argument("--results", default="results", help="results directory (default ./results)")
    from verify.cli_args import add_json_option

    add_json_option(p, "the Results and the stability table")
    p.add_argument("--strict", action="store_true", help="exit 1 when any verdict differs from its expected verdict")
    p.add_argument("--force", action="store_true", help="rerun points already stored with the same settings")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no line per point")
    return p


def _scheduler_address(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise InputError("scheduler", "expected an address like tcp://127.0.0.1:8786, got an empty string")
    if "://" not in text:
        text = "tcp://" + text
    host_port = text.split("://", 1)[1]
    if ":" not in host_port or not host_port.rsplit(":", 1)[1].isdigit():
        raise InputError("scheduler", f"expected an address like tcp://127.0.0.1:8786 (host and port), got {text!r}")
    return text


def run(args) -> int:
    from verify.cli import PROG, _warn_plugin_errors
    from verify.cli_args import check_grid_values, output_file, writable_dir
    from verify.engine import Context
    from verify.registry import select
    from verify.store import ResultStore
    from verify.local_workers import default_workers
    from verify.sweep import (check_grid_names, parse_grid, parse_seeds, points_for, run_points, stability,
                              stored_wall_times)

    from verify.extras import require

    if args.workers != 1:
        require("distributed")
    writable_dir(args.results, "--results")  # every input first: bad input must not cost a long sweep
    to_stdout = args.json == "-"
    if args.json is not None and not to_stdout:
        output_file(args.json, "--json")
    seeds = parse_seeds(args.seeds)
    grid = parse_grid(args.grid)
    scheduler = _scheduler_address(args.scheduler) if args.scheduler is not None else None
    if not args.ids and args.paper is None and not args.all:
        raise InputError("ID", "name check ids, --paper KEY or --all (see 'fedverify list')")
    specs = select(args.ids, paper=args.paper, all_=args.all)
    _warn_plugin_errors()
    check_grid_names(specs, grid)
    check_grid_values(specs, grid)
    settings = {"fidelity": args.fidelity, "replicates": args.replicates, "device": args.device,
                **({"data": args.data} if args.data is not None else {})}
    Context(**settings)  # the device (cuda without a GPU) is bad input before any task starts
    workers = args.workers if args.workers is not None else default_workers()
    points = points_for(specs, seeds, grid)
    store = ResultStore(args.results)
    quiet = args.quiet or to_stdout
    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(points), unit="run", file=sys.stderr, dynamic_ncols=True, leave=False)
    say = (bar.write if bar else (lambda s: print(s, file=sys.stderr if to_stdout else sys.stdout)))
    counts = {"stored": 0, "ran": 0, "failed": 0}

    def on_outcome(o) -> None:
        counts[o.status] += 1
        if bar:
            bar.update(1)
        if quiet and o.status != "failed":
            return
        if o.status == "stored":
            say(f"  = {o.point.label():<40} {o.result.verdict.value:<14} (stored; --force reruns)")
        elif o.status == "ran":
            mark = "✓" if o.result.as_expected else "✗"
            say(f"  {mark} {o.point.label():<40} {o.result.verdict.value:<14} expected {o.result.expected.value:<14} "
                f"{o.result.env.get('wall_time_s', 0):6.2f}s")
        else:
            say(f"  ! {o.point.label():<40} FAILED: {type(o.error).__name__}: {o.error}")
            if not args.quiet and o.traceback:
                print(o.traceback, file=sys.stderr)

    priority = stored_wall_times(store, specs)
    t0 = time.perf_counter()
    outcomes = []
    try:
        outcomes = run_points(points, {s.id: s for s in specs}, settings=settings, store=store, force=args.force,
                              workers=workers, scheduler=scheduler, imports=tuple(_imports()),
                              on_outcome=on_outcome, priority=priority)
    except KeyboardInterrupt:
        if bar:
            bar.close()
        print(f"{PROG} sweep: interrupted; the finished runs are kept in {store.root}/ (the same command resumes)",
              file=sys.stderr)
        return 130
    finally:
        if bar:
            bar.close()
    done = [o for o in outcomes if o.result is not None]
    table = stability((o.point.check_id, o.point.seed, o.point.grid, o.result) for o in done)
    if args.json is not None:
        doc = {"results": [{**o.result.to_dict(), "point": {"seed": o.point.seed, "grid": o.point.grid}} for o in done],
               "stability": table}
        text = json.dumps(doc, indent=1, allow_nan=True)
        if to_stdout:
            print(text)
        else:
            try:
                Path(args.json).parent.mkdir(parents=True, exist_ok=True)
                Path(args.json).write_text(text)
            except OSError as exc:
                raise InputError("--json", f"cannot write {args.json} ({exc.strerror or exc})") from None
    off = [o for o in done if not o.result.as_expected]
    failed = [o.point.label() for o in outcomes if o.status == "failed"]
    n_ran = counts["ran"] + counts["failed"]
    where = ("nothing to run" if not n_ran else scheduler or
             (f"{min(workers, n_ran)} local worker(s)" if workers > 1 else "this process"))
    summary = (f"{len(done)} results in {store.root}/ ({time.perf_counter() - t0:.1f}s, {where}): "
               f"{counts['ran']} ran, {counts['stored']} stored; {len(done) - len(off)} as expected, {len(off)} not"
               + (f"; {len(failed)} FAILED: {', '.join(failed)}" if failed else ""))
    print(summary, file=sys.stderr if to_stdout else sys.stdout)
    if not quiet:
        for row in table:
            if row["runs"] > 1 or row["at_expected"] < row["runs"]:
                g = " ".join(f"{k}={v!r}" for k, v in row["grid"].items())
                print(f"  {row['id']:<18} {g:<24} at expected {row['at_expected']}/{row['runs']} "
                      f"(95% CI {row['ci'][0]:.2f}-{row['ci'][1]:.2f})")
    if failed:
        from verify.cli import EXIT_CRASH

        return EXIT_CRASH
    if args.strict and off:
        print(f"--strict: verdicts differ from expected for {', '.join(o.point.label() for o in off)}", file=sys.stderr)
        return 1
    return 0


def _imports() -> list[str]:
    """The check modules this command imported by --import / FEDVERIFY_CHECKS, for the workers."""
    from verify.registry import imported_by_user

    return imported_by_user()
