"""Many (check, root seed, grid point) runs on Dask distributed: ``fedverify sweep`` and
``fedverify run --workers N``.

A *point* is one call ``check(Context(seed=s, ...), **grid)``. Each point is one Dask task; a task
runs in a worker process with one torch thread (small-tensor code is 3-300x slower with two threads
on a loaded machine) and sends back the Result's dict, its arrays and the rerun key of the code the
worker ran. The client (this process) writes each Result to the store as it arrives
(:class:`verify.store.ResultStore`, atomic and locked per point), so a sweep cut off at any moment
keeps everything that finished, and a rerun of the same command skips every point whose stored rerun
key matches. Workers need no shared file system with the client.

Where the tasks run:

* ``workers=1`` and no scheduler: in this process, one after the other (no Dask at all);
* ``workers=N``: a :class:`distributed.LocalCluster` of N worker processes, one thread each;
* ``scheduler="tcp://host:port"``: the cluster already running there (``dask scheduler`` and
  ``dask worker`` from the command line, dask-jobqueue on slurm/PBS, ...). Its workers must import
  the same fedverify (and the same ``--import`` modules).

A worker that dies mid-task (killed, out of memory) is replaced or not, and the scheduler gives its
task to another worker (Dask's ``distributed.scheduler.allowed-failures``, 3 by default); a task that
raises is a failed point, reported with its traceback, and the other points go on.

Stability: :func:`stability` counts, per check and grid point, the runs at the expected verdict
with the Clopper-Pearson interval of :func:`verify.fit.proportion_ci`.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import os
import socket
import uuid
from dataclasses import dataclass, field
from typing import Callable, Iterable

from analytic.errors import InputError
from verify.cli_args import split_values
from verify.engine import Context
from verify.local_workers import DASK_CONFIG, WorkerStart, local_cluster, one_thread, ready_for_checks, worker_plugin
from verify.result import Result
from verify.store import ResultStore, canonical_grid, grid_key


# -- what to run ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    check_id: str
    seed: int
    grid: dict = field(default_factory=dict, hash=False, compare=True)

    @property
    def key(self) -> tuple[str, int, str]:
        return self.check_id, self.seed, grid_key(self.grid)

    def label(self) -> str:
        g = " ".join(f"{k}={v!r}" for k, v in canonical_grid(self.grid).items())
        return f"{self.check_id} seed {self.seed}" + (f" [{g}]" if g else "")


def parse_seeds(text: str, param: str = "--seeds") -> list[int]:
    """``"0-9"``, ``"0,3,5"``, ``"0-3,7"`` -> sorted distinct root seeds (each >= 0)."""
    seeds: set[int] = set()
    parts = [p.strip() for p in str(text).split(",")]
    if not text or not str(text).strip() or any(not p for p in parts):
        raise InputError(param, f"expected seeds like 0-9 or 0,3,5, got {text!r}")
    for part in parts:
        lo, dash, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if dash else a
        except ValueError:
            raise InputError(param, f"expected seeds like 0-9 or 0,3,5, got {text!r} ({part!r} is not a seed or a range)") from None
        if a < 0 or b < a:
            raise InputError(param, f"a range needs 0 <= first <= last, got {part!r}")
        if b - a >= 1_000_000:
            raise InputError(param, f"{part!r} names more than a million seeds")
        seeds.update(range(a, b + 1))
    return sorted(seeds)


def _value(text: str):
    """A Python literal (``50``, ``0.1``, ``True``, ``(4, 16)``, ``'median'``) or else the bare word."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def parse_grid(items: Iterable[str], param: str = "--grid") -> dict[str, list]:
    """``["m=50,100", "n=200"]`` -> ``{"m": [50, 100], "n": [200]}`` (a name given twice is an error)."""
    grid: dict[str, list] = {}
    for item in items or ():
        name, eq, values = str(item).partition("=")
        name = name.strip()
        if not eq or not name.isidentifier() or not values.strip():
            raise InputError(param, f"expected NAME=V1,V2,..., got {item!r}")
        if name in grid:
            raise InputError(param, f"{name} is given twice; list all its values in one --grid {name}=V1,V2")
        vals = split_values(values)
        if any(v == "" for v in vals):
            raise InputError(param, f"an empty value in {item!r}")
        grid[name] = [_value(v) for v in vals]
    return grid


def grid_points(grid: dict[str, list]) -> list[dict]:
    """The Cartesian product of the grid's values (``[{}]`` for no grid), in the order given."""
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def check_grid_names(specs, grid: dict, param: str = "--grid") -> None:
    """Every grid name must be a keyword argument of every selected check (else InputError naming it)."""
    for spec in specs:
        sig = inspect.signature(spec.func)
        params = list(sig.parameters.values())[1:]  # after ctx
        if any(p.kind == p.VAR_KEYWORD for p in params):
            continue
        names = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
        for name in grid:
            if name not in names:
                known = ", ".join(sorted(names)) or "none"
                raise InputError(param, f"{name!r} is not a keyword argument of {spec.id} (its keywords: {known})")


def points_for(specs, seeds: Iterable[int], grid: dict[str, list]) -> list[Point]:
    """One point per (check, grid point, seed), checks in order, then grid points, then seeds."""
    gps = grid_points(grid)
    return [Point(s.id, seed, g) for s in specs for g in gps for seed in seeds]


def stored_wall_times(store: ResultStore, specs) -> dict:
    """Each check's last wall time in the store, else its typical one (verify/typical_times.py): the task priority
    (longest first, so that no long check is left to run alone at the end)."""
    from verify.typical_times import typical_wall_time

    out = {}
    for s in specs:
        out[s.id] = typical_wall_time(s.id)
        try:
            if store.json_path(s.id).exists():
                out[s.id] = float(store.load(s.id).env.get("wall_time_s", out[s.id]))
        except Exception:  # noqa: BLE001 - a damaged file only loses its stored time
            pass
    return out


# -- one task ----------------------------------------------------------------------------------------
def point_key(spec, ctx: Context, grid: dict | None) -> dict:
    """The rerun key of a point: the check's (:meth:`CheckSpec.rerun_key`) plus its keyword overrides.
    At seed 0 with no grid it is exactly ``fedverify run``'s key, so the two reuse each other's Result."""
    key = spec.rerun_key(ctx)
    if grid:
        key["overrides"] = canonical_grid(grid)
    return key


def run_point(check_id: str, seed: int, grid: dict, settings: dict, imports: tuple = ()) -> dict:
    """Run one point (in a worker) and return its Result as plain data with the worker's rerun key."""
    one_thread()
    ready_for_checks()
    from verify.registry import get, import_modules

    if imports:
        import_modules(imports)
    spec = get(check_id)
    ctx = Context(seed=seed, **settings)
    res = spec.run(ctx, **grid)
    return {"result": res.to_dict(), "arrays": dict(res.arrays), "run_config": point_key(spec, ctx, grid),
            "worker": f"{socket.gethostname()}:{os.getpid()}"}


def _result(payload: dict) -> Result:
    return Result.from_dict(payload["result"], payload.get("arrays"))


# -- many tasks --------------------------------------------------------------------------------------
@dataclass
class Outcome:
    point: Point
    status: str  # "stored" (reused), "ran", "failed"
    result: Result | None = None
    error: BaseException | None = None
    traceback: str = ""
    worker: str = ""


def run_points(points: list[Point], specs: dict, *, settings: dict, store: ResultStore, force: bool = False,
               workers: int = 1, scheduler: str | None = None, imports: tuple = (),
               on_outcome: Callable[[Outcome], None] | None = None, priority: dict | None = None,
               share_here: bool = False, start: WorkerStart | None = None) -> list[Outcome]:
    """Run every point not already stored under its rerun key; store each Result as it arrives.

    Each Result is stored at its point (seed 0 at the defaults: the check's top-level file, as ``fedverify
    run`` stores it; any other point beside it, never over it: verify/store.py). ``priority``: a number per
    check id (bigger starts first; the stored wall time is a good one, so that long checks do not finish
    last). ``share_here`` (a local cluster only): this process runs points too, beside ``workers - 1`` worker
    processes (it has imported the checks already, so one worker's start is saved); ``start``: those workers, started
    earlier by the caller (:class:`WorkerStart`, closed here). Returns one :class:`Outcome` per point, in the order of
    ``points``.
    """
    on_outcome = on_outcome or (lambda o: None)

    def where(p: Point) -> dict:
        return {"seed": p.seed, "grid": p.grid}

    base = {}  # the code hash is the costly part of a rerun key: once per check, the seed set per point
    outcomes: dict[tuple, Outcome] = {}
    todo: list[tuple[Point, dict]] = []
    for p in points:
        spec = specs[p.check_id]
        if p.check_id not in base:
            base[p.check_id] = point_key(spec, Context(seed=0, **settings), None)
        key = {**base[p.check_id], "seed": p.seed, **({"overrides": canonical_grid(p.grid)} if p.grid else {})}
        if not force and store.is_done(p.check_id, key, **where(p)):
            try:
                o = Outcome(p, "stored", store.load(p.check_id, **where(p)))
                outcomes[p.key] = o
                on_outcome(o)
                continue
            except InputError:  # damaged since it was stored: run it again
                pass
        todo.append((p, key))

    def finish(p: Point, key: dict, payload: dict | None, exc=None, tb: str = "") -> None:
        if payload is None:
            o = Outcome(p, "failed", error=exc, traceback=tb)
        else:
            res = _result(payload)
            ran_key = payload.get("run_config") or key
            store.save(res, ran_key, **where(p))
            o = Outcome(p, "ran", res, worker=payload.get("worker", ""))
        outcomes[p.key] = o
        on_outcome(o)

    run_here = _runner_here(specs, settings, finish)
    try:
        if todo and workers <= 1 and scheduler is None:
            for p, key in todo:
                run_here(p, key)
        elif todo:
            _run_on_dask(todo, settings=settings, workers=workers, scheduler=scheduler, imports=imports,
                         finish=finish, priority=priority or {}, run_here=run_here if share_here else None, start=start)
    finally:
        if start is not None:
            start.close()
    return [outcomes[p.key] for p in points if p.key in outcomes]


def _runner_here(specs, settings, finish):
    """``run(point, key)`` in this process: the Result (or the failure) goes to ``finish``."""
    import traceback as tbmod

    def run(p, key) -> None:
        try:
            spec = specs[p.check_id]
            ctx = Context(seed=p.seed, **settings)
            res = spec.run(ctx, **p.grid)
            payload = {"result": res.to_dict(), "arrays": dict(res.arrays), "run_config": point_key(spec, ctx, p.grid),
                       "worker": "in-process"}
        except Exception as exc:  # noqa: BLE001 - one failed point does not stop the others
            finish(p, key, None, exc, tbmod.format_exc())
            return
        finish(p, key, payload)

    return run


def _run_on_dask(todo, *, settings, workers, scheduler, imports, finish, priority, run_here=None, start=None) -> None:
    import dask
    import distributed  # noqa: F401 - its defaults in dask.config first, or leaving the block below drops them

    with dask.config.set(DASK_CONFIG):
        if run_here is not None and scheduler is None and (start is not None or min(workers, len(todo)) > 1):
            mine = WorkerStart(min(workers, len(todo)) - 1) if start is None else None  # a given start is the caller's
            try:
                _shared_loop(todo, settings=settings, imports=imports, finish=finish, priority=priority,
                             run_here=run_here, start=start or mine)
            finally:
                if mine is not None:
                    mine.close()
            return
        _dask_loop(todo, settings=settings, workers=workers, scheduler=scheduler, imports=imports, finish=finish,
                   priority=priority)


def _submit(client, p: Point, settings: dict, imports, token: str, **kw):
    """One point as one Dask task (keyed by check, seed, grid point and the run's token)."""
    return client.submit(run_point, p.check_id, p.seed, p.grid, settings, tuple(imports), pure=False,
                         key=f"fedverify-{p.check_id}-s{p.seed}-{grid_key(p.grid) or 'default'}-{token}", **kw)


def _settle(f, p: Point, key: dict, finish) -> None:
    """A finished task's Result (or its error and the worker's traceback) to ``finish``; the future is released."""
    if f.status == "finished":
        finish(p, key, f.result())
    else:
        import traceback as tbmod

        exc = f.exception()
        finish(p, key, None, exc, "".join(tbmod.format_exception(type(exc), exc, f.traceback())))
    f.release()


def _shared_loop(todo, *, settings, imports, finish, priority, run_here, start: WorkerStart) -> None:
    """The worker processes of ``start`` and this process take the points from one queue, longest first. Each worker
    holds two points (the one it runs and the next), so that it never waits for this process to hand it one; a
    worker's next point is submitted when one of its points finishes (from Dask's callback thread). Results are stored
    here, between this process's own points, so ``finish`` runs in one thread only."""
    import queue
    import threading
    from collections import deque

    import torch

    order = sorted(todo, key=lambda t: -priority.get(t[0].check_id, 0))
    pending, lock, done = deque(order), threading.Lock(), queue.Queue()
    token = uuid.uuid4().hex[:8]
    futures: dict = {}
    inflight = [0]  # points taken for a worker and not settled yet (a callback may hold one not in futures yet)
    client: dict = {}

    def take(for_worker: bool = False):
        with lock:
            if not pending:
                return None
            inflight[0] += for_worker
            return pending.popleft()

    def settle(f) -> None:
        p, key = futures.pop(f)
        with lock:
            inflight[0] -= 1
        _settle(f, p, key, finish)

    threads = torch.get_num_threads()
    failed: dict = {}  # the error that stopped the workers' start

    def submit() -> None:
        item = take(for_worker=True)
        if item is None:
            return
        p, key = item
        f = _submit(client["client"], p, settings, imports, token)
        futures[f] = (p, key)
        f.add_done_callback(lambda fut: (done.put(fut), submit()))

    def start_workers() -> None:  # in a thread: this process runs points while the workers start
        try:
            client["client"] = start.client()
            for _ in range(2 * start.workers):
                submit()
        except BaseException as exc:  # noqa: BLE001 - raised again in the main thread
            failed["error"] = exc

    starter = threading.Thread(target=start_workers, name="fedverify-submit", daemon=True)
    starter.start()
    one_thread()  # this process is one of the workers now
    try:
        while True:
            while not done.empty():
                settle(done.get())
            item = take()
            if item is None:
                break
            run_here(*item)
        starter.join()
        if "error" in failed:
            raise failed["error"]
        while inflight[0]:
            settle(done.get())
    except BaseException:
        with lock:
            pending.clear()  # no callback submits another point
        for f in list(futures):
            f.cancel()
        raise
    finally:
        torch.set_num_threads(threads)
        starter.join()


def _dask_loop(todo, *, settings, workers, scheduler, imports, finish, priority) -> None:
    from distributed import Client, as_completed

    cluster = None
    try:
        if scheduler is None:
            cluster = local_cluster(min(workers, len(todo)))
            client = Client(cluster)
        else:
            try:
                client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise InputError("scheduler", f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
        with client:
            client.register_plugin(worker_plugin())
            token = uuid.uuid4().hex[:8]
            futures = {}
            for p, key in todo:
                futures[_submit(client, p, settings, imports, token, priority=priority.get(p.check_id, 0))] = (p, key)
            try:
                for f in as_completed(list(futures)):
                    _settle(f, *futures[f], finish)
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    finally:
        if cluster is not None:
            cluster.close()


# -- stability ---------------------------------------------------------------------------------------
def stability(rows: Iterable[tuple[str, int, dict, Result]]) -> list[dict]:
    """Per (check id, grid point): runs, runs at the expected verdict, the Clopper-Pearson interval
    of that fraction, and the seeds off expected (with their verdicts)."""
    from verify.fit import proportion_ci
    from verify.result import check_sort_key

    groups: dict[tuple[str, str], dict] = {}
    for cid, seed, grid, res in rows:
        g = groups.setdefault((cid, grid_key(grid)), {"id": cid, "grid": canonical_grid(grid), "runs": 0,
                                                       "at_expected": 0, "off": []})
        g["runs"] += 1
        if res.as_expected:
            g["at_expected"] += 1
        else:
            g["off"].append({"seed": seed, "verdict": res.verdict.value, "expected": res.expected.value})
    out = []
    def order(kv):  # check order, then the grid's values (numbers as numbers)
        return check_sort_key(kv[0][0]), [(k, (0, v) if isinstance(v, (int, float)) else (1, repr(v)))
                                          for k, v in kv[1]["grid"].items()]

    for (cid, gk), g in sorted(groups.items(), key=order):
        _, lo, hi = proportion_ci(g["at_expected"], g["runs"])
        out.append({"id": g["id"], "grid": g["grid"], "runs": g["runs"], "at_expected": g["at_expected"],
                    "ci": [lo, hi], "off": sorted(g["off"], key=lambda o: o["seed"])})
    return out
