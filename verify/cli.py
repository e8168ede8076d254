"""The ``fedverify`` command: list, run, show, results (verify/cli_results.py), statements
(verify/cli_statements.py); other subcommands
(report, demo, privacy, constants) come from the entry-point group ``fedverify.commands``, each a module
with ``add_parser(subparsers)`` and ``run(args) -> int`` (and optionally ``FLAGS``, the flag of each
library parameter name).

``--import MODULE`` (anywhere on the line, repeatable) and ``FEDVERIFY_CHECKS=mod1,mod2`` import
check modules that are not installed as plugins (verify/registry.py).

Exit codes: 0 success; 1 with ``--strict``, a verdict differs from its ``expected`` (a finding, the
toolkit worked), or the disk is full (one line naming the directory; what was stored stays intact); 2 bad
input (one line naming the parameter); 3 the toolkit itself failed (a check raised; the traceback is
printed), whether or not ``--strict``; 4 an optional dependency is missing (one line naming the extra to
install, verify/extras.py); 124 ``run --budget`` spent; 130 interrupted.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import json
import sys
import time
import traceback
from importlib.metadata import entry_points
from pathlib import Path

from analytic.errors import InputError
from verify import cli_results, cli_statements
from verify.cli_args import (OneLineParser, add_json_option, fail, int_type, output_file, readable_dir, write_json,
                             writable_dir)
from verify.choices import DEVICES, FIDELITIES

PROG = "fedverify"
COMMANDS_GROUP = "fedverify.commands"
#: flags of the core commands whose library parameter is spelled otherwise (none: --paper, --seed, ... follow the rule)
FLAGS: dict[str, str] = {}
#: an optional dependency is missing (one line names the extra that installs it: verify/extras.py)
EXIT_MISSING = 4
#: a check raised: the toolkit failed (distinct from --strict's 1, a verdict that differs from expected)
EXIT_CRASH = 3


def command_modules() -> dict:
    """Subcommand modules registered under the entry-point group ``fedverify.commands``.

    A module's top level must import little (``fedverify --help`` imports them all): heavy imports go
    inside ``run``; a module whose ``add_parser`` itself is costly also sets ``HELP``, its one-line help, and
    its parser is built only when its subcommand is the one given (:func:`build_parser`)."""
    mods = {}
    for ep in entry_points(group=COMMANDS_GROUP):
        try:
            mods[ep.name] = importlib.import_module(ep.value)
        except Exception as exc:  # a missing optional dependency or a broken plugin: leave it out, keep the rest
            print(f"{PROG}: warning: subcommand {ep.name!r} unavailable ({exc.__class__.__name__}: {exc})",
                  file=sys.stderr)
    return dict(sorted(mods.items()))


def _given_command(argv: list[str], names) -> str | None:
    """The subcommand named on the line (the first word that is one), or None (e.g. ``fedverify --help``)."""
    return next((a for a in argv if a in names), None)


def build_parser(plugins: dict | None = None, command: str | None = "") -> argparse.ArgumentParser:
    """The full parser; with ``command`` given (None: none was), a plugin subcommand other than it that has
    ``HELP`` gets a parser with its help line only, so building it costs nothing."""
    from verify.provenance import version_line

    p = OneLineParser(prog=PROG, description="Check federated-learning theory against experiment.")
    p.add_argument("--version", action="version", version=version_line(),
                   help="print fedverify's version and the commit it runs from")
    p.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                   help="import a module of checks that is not an installed plugin (repeatable; may stand "
                        "anywhere on the line); FEDVERIFY_CHECKS=mod1,mod2 does the same")
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    ls = sub.add_parser("list", help="list the registered checks")
    ls.add_argument("--paper", help="only this paper's checks (e.g. werner2023)")
    ls.add_argument("--results", metavar="DIR", help="also show each check's stored verdict and tightness from DIR")
    add_json_option(ls, "the list")

    run = sub.add_parser("run", help="run checks and store their Results")
    run.add_argument("ids", nargs="*", metavar="ID", help="check ids, e.g. werner2023.c09")
    run.add_argument("--paper", help="all checks of this paper")
    run.add_argument("--all", action="store_true", help="every registered check")
    run.add_argument("--fidelity", choices=FIDELITIES, default="quick")
    run.add_argument("--replicates", type=int_type("--replicates", 2), help="override each check's replicate count")
    run.add_argument("--seed", type=int_type("--seed", 0), default=0, help="root seed (default 0)")
    run.add_argument("--device", choices=DEVICES, default="auto", help="auto (default: cuda if available, else cpu), cpu, cuda")
    run.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                     help="float64 (default); float32 is allowed on CUDA only")
    run.add_argument("--results", default="results", help="results directory (default ./results)")
    run.add_argument("--data", metavar="PATH", default=None,
                     help="MNIST on disk (a folder of the four IDX files, .gz or not, or an .npz with x_train, y_train, "
                          "x_test, y_test) for the real-data reproductions; default: scikit-learn's bundled 8x8 digits")
    add_json_option(run, "the Results of this run (an array)")
    run.add_argument("--strict", action="store_true", help="exit 1 when any verdict differs from its expected verdict")
    run.add_argument("--force", action="store_true", help="rerun checks already stored with the same settings")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--workers", type=int_type("--workers", 1), default=None,
                     help="worker processes (a local Dask cluster, one torch thread each; default: the number of "
                          "cores with --all or --paper, else 1 = in this process)")
    run.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                     help="a keyword argument of the checks (a Python literal, read as 'sweep --grid' reads it; "
                          "repeatable); stored as that sweep point, beside the Result of the defaults")
    run.add_argument("--budget", metavar="SECONDS",
                     help="stop the run when this much wall time is spent (the running check stores nothing; "
                          "what finished before stays stored; exit 124)")
    run.add_argument("--threads", type=int_type("--threads", 1), default=1,
                     help="CPU threads of torch and BLAS in this process (default 1: the checks' small tensors run "
                          "fastest on one, most of all on a busy machine)")

    show = sub.add_parser("show", help="show one stored Result, or one statement's card (show PAPER \"Theorem 3.1\")")
    show.add_argument("id", metavar="ID", help="a check id, or a paper key followed by a statement label")
    show.add_argument("statement", metavar="STATEMENT", nargs="?",
                      help="a numbered statement of the paper ID, as the paper numbers it (\"Theorem 3.1\"): its card "
                           "(verify/cli_statements.py)")
    show.add_argument("--results", default="results")
    show.add_argument("--seed", type=int_type("--seed", 0), default=None,
                      help="the Result of this root seed (default: the stored one of 'run', seed 0)")
    show.add_argument("--grid", action="append", default=[], metavar="NAME=VALUE",
                      help="the Result of this grid point of 'sweep --grid' (repeatable, one value each)")
    add_json_option(show, "the stored Result")
    cli_results.add_parser(sub)
    cli_statements.add_parser(sub)

    plugins = command_modules() if plugins is None else plugins
    for name, mod in list(plugins.items()):
        if command != "" and command != name and hasattr(mod, "HELP"):
            sub.add_parser(name, help=mod.HELP)
            continue
        try:
            mod.add_parser(sub)
        except Exception as exc:  # a plugin whose parser breaks: warn once, the other commands still work
            plugins.pop(name)
            print(f"{PROG}: warning: subcommand {name!r} unavailable ({exc.__class__.__name__}: {exc})",
                  file=sys.stderr)
    return p


# -- list -----------------------------------------------------------------------------------
def _warn_plugin_errors() -> None:
    from verify.registry import plugin_errors

    for module, err in plugin_errors().items():
        print(f"{PROG}: warning: installed check module {module!r} could not be imported ({err})", file=sys.stderr)


def _catalogue(args, paper: str | None = None) -> list:
    """The registered checks as :class:`verify.catalog.Entry` rows: read from source (no torch, no Bounds) unless
    only importing the modules can tell (checks given by --import or FEDVERIFY_CHECKS, a decorator that is not
    literal); ``paper`` filters, and an unknown paper is bad input."""
    from verify import catalog

    rows = None if getattr(args, "imported", False) else catalog.entries()
    if rows is None:
        from verify.registry import select

        specs = select(paper=paper, all_=paper is None)
        _warn_plugin_errors()
        return [catalog.Entry(s.id, s.title, s.kind, s.expected.value, getattr(s, "space", None) is not None)
                for s in specs]
    known = sorted({e.paper for e in rows})
    if paper is not None and paper not in known:
        raise InputError("paper", f"unknown paper {paper!r}; known: {', '.join(known)}")
    return [e for e in rows if paper is None or e.paper == paper]


def cmd_list(args) -> int:
    if args.json not in (None, "-"):
        output_file(args.json, "--json")
    stored = _stored_strength(args.results) if args.results is not None else {}
    specs = _catalogue(args, args.paper)
    if args.json:
        write_json(args.json, [{**s.as_dict(), **stored.get(s.id, {})} for s in specs])
        return 0
    width = max((len(s.id) for s in specs), default=10)
    for s in specs:
        got = stored.get(s.id)
        state = (f"{got['verdict']:<13} {got['tightness'] or '':<8} " if got else f"{'-':<13} {'':<8} ") if stored else ""
        print(f"{s.id:<{width}}  {s.kind:<14} expects {s.expected:<14} {state}{s.title}"
              + ("  [searchable]" if s.searchable else ""))
    n_search = sum(1 for s in specs if s.searchable)
    print(f"{len(specs)} checks" + (f", {n_search} [searchable] by 'fedverify search ID'" if n_search else "")
          + (f", {len(stored)} with stored Results in {args.results}/" if stored else ""))
    return 0


def _stored_strength(results: str) -> dict:
    """id -> the stored verdict, tightness, margin and power of every Result in ``results``."""
    from verify.store import ResultStore

    readable_dir(results, "--results")
    out = {}
    store = ResultStore(results)
    for cid in store.ids():
        try:
            r = store.load(cid)
        except InputError:  # unreadable (or gone since it was listed): `results` and `show` name it
            continue
        out[cid] = {"verdict": r.verdict.value, "tightness": r.tightness,
                    "margin": r.margin.get("text", ""), "power": r.power.get("text", "")}
    return out


# -- run ------------------------------------------------------------------------------------
def _write_json(path: str | None, results) -> None:
    if path:  # without --json nothing is written, and nothing need be serialised
        write_json(path, [r.to_dict() for r in results])


def _out_of_memory(exc: BaseException) -> bool:
    """An allocation the machine could not serve (numpy's MemoryError, torch's CPU and CUDA allocators), or one a
    check refused up front (:class:`analytic.validate.TooLarge`)."""
    from analytic.validate import TooLarge

    if isinstance(exc, (MemoryError, TooLarge)):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("can't allocate memory" in text or "out of memory" in text.lower())


def _allocation(exc: BaseException) -> str:
    """The size an allocator said it tried, when it said (``you tried to allocate N bytes``)."""
    import re

    from analytic.validate import format_bytes

    m = re.search(r"allocate (\d+) bytes", str(exc))
    if m:
        return f"it tried to allocate {format_bytes(int(m.group(1)))}"
    m = re.search(r"allocate ([\d.]+ [KMGTPE]?i?B)", str(exc))
    return f"it tried to allocate {m.group(1)}" if m else "an allocation failed"


def _finish_run(args, store, results, failed, too_big, where: str) -> int:
    """The end of ``fedverify run`` (in this process or on a cluster): the JSON, the summary line, the exit code
    (3 a check failed; 1 --strict and a verdict differs from expected; 2 too many replicates for the memory)."""
    _write_json(args.json, results)
    mismatched = [r.id for r in results if not r.as_expected]
    print(f"{len(results)} results in {store.root}/ ({where}); "
          f"{len(results) - len(mismatched)} as expected, {len(mismatched)} not" + (f"; {len(failed)} FAILED: {', '.join(failed)}" if failed else ""),
          file=sys.stderr if args.json == "-" else sys.stdout)
    if failed:
        return EXIT_CRASH
    if too_big:
        print(f"{PROG} run: error: --replicates: {args.replicates} replicates need more memory than this machine "
              f"has for {', '.join(too_big)}; choose fewer", file=sys.stderr)
        return 2
    if args.strict and mismatched:
        print(f"--strict: verdicts differ from expected for {', '.join(mismatched)}", file=sys.stderr)
        return 1
    return 0


def cmd_run(args) -> int:
    writable_dir(args.results, "--results")  # paths first: a bad one must not cost a long run its results
    if args.json not in (None, "-"):
        output_file(args.json, "--json")
    if not args.ids and args.paper is None and not args.all:
        raise InputError("ID", "name check ids, --paper KEY or --all (see 'fedverify list')")
    from verify import cli_stored
    from verify.store import ResultStore

    store = ResultStore(args.results)
    t_start = time.perf_counter()
    plain_say = print if args.json != "-" else (lambda line: print(line, file=sys.stderr))
    stored = cli_stored.answer(args, store, plain_say)  # all stored: answered without torch or the checks
    if stored is not None:
        return _finish_run(args, store, stored, [], [], f"{time.perf_counter() - t_start:.1f}s, all stored")
    early = _early_workers(args)
    try:
        return _run_checks(args, store, t_start, plain_say, early)
    finally:
        if early is not None:
            early.close()


def _early_workers(args):
    """The worker processes of ``run --workers N`` (N > 1 with --all or --paper; no --set, --budget or --import),
    started before this process imports torch and the checks (about 4.5 s), so that they import theirs meanwhile and
    take their first check as soon as the queue exists; None where the run is not going to use them."""
    if not (args.all or args.paper) or args.set or args.budget is not None or getattr(args, "imported", False):
        return None
    from verify.extras import available
    from verify.local_workers import WorkerStart

    workers = _run_workers(args)
    if workers <= 1 or not available("distributed"):
        return None
    return WorkerStart(workers - 1, warm=True)


def _run_workers(args) -> int:
    """The processes a run asks for: ``--workers``, else one a core with --all or --paper (one without
    fedverify[sweep]: the checks then run in this process), else 1."""
    if args.workers is not None:
        return args.workers
    from verify.extras import available
    from verify.local_workers import default_workers

    return default_workers() if (args.all or args.paper) and available("distributed") else 1


def _run_checks(args, store, t_start: float, plain_say, early) -> int:
    """``cmd_run`` once the run is known to compute something: the checks in this process, or shared with local
    workers (``early``: already started, else None)."""
    from verify.local_workers import ready_for_checks
    from verify.store import UnreadableResult
    from verify.threads import use_threads

    use_threads(args.threads)  # before any torch work (the checks' modules build tensors when imported)
    ready_for_checks()
    from verify.engine import Context
    from verify.registry import select

    specs = select(args.ids, paper=args.paper, all_=args.all)
    _warn_plugin_errors()
    ctx = Context(fidelity=args.fidelity, replicates=args.replicates, seed=args.seed, device=args.device,
                  float32_on_cuda=args.dtype == "float32", data=args.data)
    if args.dtype == "float32" and ctx.torch_device.type != "cuda":
        raise InputError("--dtype", "float32 is allowed on CUDA only; theory checks on the CPU run in float64")
    from verify import cli_long
    from verify.sweep import point_key

    overrides = cli_long.parse_set(args.set, specs)
    budget = cli_long.Budget(cli_long.parse_budget(args.budget))
    where = {"seed": args.seed, "grid": overrides} if overrides else {"seed": args.seed}  # the store's place of this run's Results
    from verify.extras import require

    workers = _run_workers(args)
    if workers > 1 and len(specs) > 1 and not overrides and budget.seconds is None:
        require("distributed")
        return _run_on_cluster(args, specs, store, workers, early)
    if early is not None:  # one check after all: this process alone
        early.close()
    results, failed, too_big = [], [], []
    bar = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(specs), unit="check", file=sys.stderr, dynamic_ncols=True, leave=False)
    say = (bar.write if bar else print) if args.json != "-" else plain_say
    progress = cli_long.Progress(say, quiet=args.quiet)
    running = None
    try:
        budget.start()
        for spec in specs:
            running = None
            if bar:
                bar.set_postfix_str(spec.id)
            check_config = point_key(spec, ctx, overrides)
            res = None
            if not args.force and store.is_done(spec.id, check_config, **where):
                try:
                    res = store.load(spec.id, **where)
                    say(f"  = {spec.id:<18} {res.verdict.value:<14} (stored; --force reruns)")
                except UnreadableResult as exc:  # damaged since it was stored: run it again
                    say(f"  ~ {exc.param}: unreadable ({exc.reason}); running it again")
            if res is None:
                running = spec.id
                progress.start(spec.id, cli_long.announce_estimate(spec, ctx, overrides, say) if not args.quiet else "")
                try:
                    res = spec.run(ctx, **overrides)
                except Exception as exc:  # the toolkit failed on this check (user input was checked above): go on
                    if args.replicates is not None and _out_of_memory(exc):  # the user's size, not a bug
                        too_big.append(spec.id)
                        say(f"  ! {spec.id:<18} too large for this machine at --replicates {args.replicates} "
                            f"({_allocation(exc)})")
                        if bar:
                            bar.update(1)
                        continue
                    failed.append(spec.id)
                    say(f"  ! {spec.id:<18} FAILED: {type(exc).__name__}: {exc}")
                    if not args.quiet:
                        traceback.print_exc(file=sys.stderr)
                    if bar:
                        bar.update(1)
                    continue
                finally:
                    progress.stop()
                with budget.held():  # a Result being written is written whole
                    store.save(res, check_config, **where)
                mark = "✓" if res.as_expected else "✗"
                say(f"  {mark} {spec.id:<18} {res.verdict.value:<14} {res.tightness or '':<8} expected "
                    f"{res.expected.value:<14} {res.env.get('wall_time_s', 0):6.2f}s")
            results.append(res)
            if bar:
                bar.update(1)
    except KeyboardInterrupt:
        budget.stop()
        if bar:
            bar.close()
        _write_json(args.json, results)
        print(f"{PROG}: interrupted; {len(results)} finished results are kept in {store.root}/", file=sys.stderr)
        return 130
    except cli_long.BudgetSpent:
        budget.stop()
        progress.stop()
        if bar:
            bar.close()
        _write_json(args.json, results)
        print(budget.spent_line(running, len(results), store.root), file=sys.stderr)
        return cli_long.EXIT_BUDGET
    budget.stop()
    if bar:
        bar.close()
    return _finish_run(args, store, results, failed, too_big, f"{time.perf_counter() - t_start:.1f}s")


def _run_on_cluster(args, specs, store, workers: int, early=None) -> int:
    """``fedverify run --workers N``: the same checks, one Dask task each on a local cluster of N worker
    processes with one thread each (verify/sweep.py); each Result stored at its top-level file as it
    arrives, in the run's order in ``--json``, exit codes as in this process."""
    from verify.sweep import Point, run_points, stored_wall_times

    settings = {"fidelity": args.fidelity, "replicates": args.replicates, "device": args.device,
                "float32_on_cuda": args.dtype == "float32", **({"data": args.data} if args.data is not None else {})}
    bar = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(specs), unit="check", file=sys.stderr, dynamic_ncols=True, leave=False)
    say = (bar.write if bar else print)
    failed, too_big = [], []

    def on_outcome(o) -> None:
        cid = o.point.check_id
        if o.status == "stored":
            say(f"  = {cid:<18} {o.result.verdict.value:<14} (stored; --force reruns)")
        elif o.status == "ran":
            mark = "✓" if o.result.as_expected else "✗"
            say(f"  {mark} {cid:<18} {o.result.verdict.value:<14} expected {o.result.expected.value:<14} "
                f"{o.result.env.get('wall_time_s', 0):6.2f}s")
        elif args.replicates is not None and _out_of_memory(o.error):
            too_big.append(cid)
            say(f"  ! {cid:<18} too large for this machine at --replicates {args.replicates} ({_allocation(o.error)})")
        else:
            failed.append(cid)
            say(f"  ! {cid:<18} FAILED: {type(o.error).__name__}: {o.error}")
            if not args.quiet and o.traceback:
                print(o.traceback, file=sys.stderr)
        if bar:
            bar.update(1)

    priority = stored_wall_times(store, specs)  # the longest checks first
    t_start = time.perf_counter()
    outcomes = []
    try:
        outcomes = run_points([Point(s.id, args.seed, {}) for s in specs], {s.id: s for s in specs}, settings=settings,
                              store=store, force=args.force, workers=workers,
                              on_outcome=on_outcome, priority=priority, share_here=True, start=early)
    except KeyboardInterrupt:
        if bar:
            bar.close()
        print(f"{PROG}: interrupted; the finished results are kept in {store.root}/", file=sys.stderr)
        return 130
    if bar:
        bar.close()
    results = [o.result for o in outcomes if o.result is not None]
    return _finish_run(args, store, results, failed, too_big, f"{time.perf_counter() - t_start:.1f}s, {workers} workers")


# -- show -----------------------------------------------------------------------------------
def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        if len(v) > 8:
            flat = [x for x in v if isinstance(x, (int, float))]
            return f"[{len(v)} values{f', {min(flat):.4g} … {max(flat):.4g}' if flat else ''}]"
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items()) + "}"
    return str(v)


def _show_grid(items: list[str]) -> dict:
    """``show --grid m=50 --grid eta=0.1`` -> ``{"m": 50, "eta": 0.1}``, values read as ``sweep --grid`` reads
    them (so the point is found under the same key); one value per name."""
    if not items:
        return {}
    from verify.sweep import parse_grid

    grid = parse_grid(items)
    many = [k for k, v in grid.items() if len(v) != 1]
    if many:
        raise InputError("--grid", f"show reads one grid point: give {many[0]} one value")
    return {k: v[0] for k, v in grid.items()}


def cmd_show(args) -> int:
    from verify.result import ERRATUM_FIELDS
    from verify.store import NotStored, ResultStore

    readable_dir(args.results, "--results")
    if args.statement is not None:
        if args.grid:
            raise InputError("--grid", "a statement's card reads the Results at the checks' defaults; drop --grid")
        return cli_statements.show_card(args.results, args.id, args.statement, args.seed, args.json)
    if args.id not in {e.id for e in _catalogue(args)}:  # unknown ids are bad input
        from verify.registry import get

        get(args.id)  # the same error, naming any check module that failed to import
    store = ResultStore(args.results)
    grid = _show_grid(args.grid)
    try:  # an unreadable file: one line naming it (UnreadableResult), exit 2
        r = store.load(args.id, seed=args.seed, grid=grid)
    except NotStored as exc:
        how = f"fedverify run {args.id}" + (f" --seed {args.seed}" if args.seed else "")
        if grid:
            how = f"fedverify sweep {args.id} --seeds {args.seed or 0} " + " ".join(f"--grid {g}" for g in args.grid)
        stored = store.point_labels(args.id)
        there = f" (stored: {', '.join(stored[:6])}{', ...' if len(stored) > 6 else ''})" if stored else ""
        raise InputError("ID", f"{exc.message}{there}; run '{how}' first") from None
    if args.json:
        if args.json != "-":
            output_file(args.json, "--json")
        write_json(args.json, r.to_dict())
        return 0
    mark = "as expected" if r.as_expected else "NOT as expected"
    qual = f", {r.tightness}" if r.tightness else ""
    print(f"{r.id}  {r.title}\n  kind {r.kind}; verdict {r.verdict.value}{qual} (expected {r.expected.value}: {mark})")
    if r.margin:
        print(f"  margin: {r.margin.get('text', '')}\n  power: {r.power.get('text', '')}")
    if r.control:
        print(f"  control: {r.control.get('what', '')}: {r.control.get('verdict', '')} (must fail)"
              + (f"; {r.control['detail']}" if r.control.get("detail") else ""))
    print(f"  claim: {r.claim.text}\n  source: {r.claim.source}")
    for section in ("fit", "observed", "predicted"):
        d = getattr(r, section)
        if d:
            print(f"  {section}:")
            for k, v in d.items():
                print(f"    {k}: {_fmt(v)}")
    if r.assumptions:
        print("  assumptions:")
        for a in r.assumptions:
            val = "" if a.value is None else f" = {_fmt(a.value)} ({a.label})"
            print(f"    [{'held' if a.held else 'NOT held'}] {a.name}{val} {a.detail}")
    print(f"  explanation: {r.explanation}")
    if r.finding:
        print(f"  finding ({r.finding.kind}): {r.finding.summary}")
        for name in ERRATUM_FIELDS:
            value = getattr(r.finding, name)
            if value:
                print(f"    {name.replace('_', ' ')}: {value}")
    print(f"  env: {_fmt({k: r.env.get(k) for k in ('device', 'dtype', 'fidelity', 'seed', 'wall_time_s', 'torch')})}")
    return 0


COMMANDS = {"list": cmd_list, "run": cmd_run, "show": cmd_show, "results": cli_results.run,
            "statements": cli_statements.run}


def _pop_imports(argv: list[str]) -> tuple[list[str], list[str]]:
    """Take every ``--import MODULE`` / ``--import=MODULE`` out of argv, wherever it stands."""
    rest, mods, i = [], [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--import" and i + 1 < len(argv):
            mods.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--import="):
            mods.append(a.split("=", 1)[1])
        else:
            rest.append(a)
        i += 1
    return rest, mods


def _quiet_broken_pipe() -> None:
    """``fedverify list --json | head``: a reader that stops early ends the command quietly, as for any
    Unix filter (the default SIGPIPE action), instead of a BrokenPipeError traceback."""
    import signal

    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def main(argv=None) -> int:
    if argv is None:  # the console script, not a call from Python (tests keep their own signal handling)
        _quiet_broken_pipe()
        try:
            return _main(argv)
        finally:  # the process ends next
            from verify.local_workers import skip_collections_at_exit

            skip_collections_at_exit()
    return _main(argv)


def _main(argv) -> int:
    argv, imports = _pop_imports(list(sys.argv[1:] if argv is None else argv))
    plugins = command_modules()
    args = build_parser(plugins, _given_command(argv, {*COMMANDS, *plugins})).parse_args(argv)
    args.imported = bool(imports)
    module = plugins.get(args.command)
    flags = getattr(module, "FLAGS", FLAGS) if module else FLAGS
    prog = f"{PROG} {args.command}"
    try:
        if imports:
            from verify.registry import import_modules

            import_modules(imports)
        if module is not None:
            return module.run(args)
        return COMMANDS[args.command](args)
    except InputError as exc:
        return fail(prog, exc, flags)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):  # one line naming where; what was stored is kept (exit 1)
            print(f"{prog}: error: {exc.filename or 'the disk'}: {exc.strerror}", file=sys.stderr)
            return 1
        if exc.errno == errno.ENAMETOOLONG:
            return fail(prog, InputError(str(exc.filename or "file name"), "too long for the file system"), flags)
        raise
    except ImportError as exc:
        from verify.extras import MissingExtra

        if not isinstance(exc, MissingExtra):
            raise
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_MISSING


if __name__ == "__main__":
    sys.exit(main())
