"""``fedverify sweep`` with the real engine: a LocalCluster of two worker processes, and a cluster of
``dask scheduler`` / ``dask worker`` processes on 127.0.0.1 with one worker killed mid-sweep; each
against a sequential run of the same points in this process."""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from verify import cli
from verify.registry import select
from verify.store import ResultStore
from verify.sweep import Point, parse_grid, parse_seeds, points_for, run_points, stability

ROOT = Path(__file__).resolve().parents[2]
CHEAP = ("su2022.c04", "allouah2025.c18")  # about 0.15 s each, random data: the seed moves their numbers
SETTINGS = {"fidelity": "quick", "replicates": None, "device": "cpu"}


@pytest.fixture
def sweep_cli(monkeypatch):
    """``fedverify sweep`` through cli.main; a checkout that is not pip-installed has no entry point yet."""
    import verify.cli_sweep

    mods = cli.command_modules()
    if "sweep" not in mods:
        monkeypatch.setattr(cli, "command_modules", lambda: {**mods, "sweep": verify.cli_sweep})


@pytest.fixture
def one_torch_thread():
    """The workers run with one torch thread; the sequential reference does too (same reductions)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def sweep(capsys, *argv):
    try:
        code = cli.main(["sweep", *argv])
    except SystemExit as exc:  # argparse's own errors (one line, exit 2)
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def comparable(result_dict: dict) -> dict:
    """A Result without what legitimately differs between two runs (wall time, process, command line)."""
    return {k: v for k, v in result_dict.items() if k not in ("env", "point")}


def sequential(tmp_path, ids, seeds) -> dict:
    specs = select(list(ids))
    outs = run_points(points_for(specs, seeds, {}), {s.id: s for s in specs}, settings=SETTINGS,
                      store=ResultStore(tmp_path / "sequential"), workers=1)
    assert all(o.status == "ran" for o in outs)
    return {(o.point.check_id, o.point.seed): comparable(o.result.to_dict()) for o in outs}


def test_entry_point_is_declared():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["fedverify.commands"]["sweep"] == "verify.cli_sweep"
    assert any(d.startswith("dask[distributed]") for d in meta["project"]["optional-dependencies"]["sweep"])


def test_seeds_and_grid_parse():
    assert parse_seeds("0-3,7") == [0, 1, 2, 3, 7] and parse_seeds("5") == [5]
    assert parse_grid(["m=50,100", "ns=(4,16),(8,32)", "rule='median',cwtm"]) == {
        "m": [50, 100], "ns": [(4, 16), (8, 32)], "rule": ["median", "cwtm"]}


@pytest.mark.parametrize("argv,flag", [
    (["werner2023.c99"], "ID"),
    ([], "ID"),
    ([CHEAP[0], "--seeds", "3-1"], "--seeds"),
    ([CHEAP[0], "--seeds", "a"], "--seeds"),
    ([CHEAP[0], "--grid", "d"], "--grid"),
    ([CHEAP[0], "--grid", "no_such_keyword=1,2"], "--grid"),
    ([CHEAP[0], "--grid", "d=1", "--grid", "d=2"], "--grid"),
    ([CHEAP[0], "--scheduler", "nowhere"], "--scheduler"),
    ([CHEAP[0], "--workers", "0"], "--workers"),
])
def test_bad_input_one_line_exit_2(capsys, tmp_path, sweep_cli, argv, flag):
    code, out, err = sweep(capsys, *argv, "--results", str(tmp_path / "r"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and flag in err, err
    assert not (tmp_path / "r").exists()  # nothing ran


def test_local_cluster_matches_sequential_and_reruns_nothing(capsys, tmp_path, sweep_cli, one_torch_thread):
    ref = sequential(tmp_path, CHEAP, [0, 1, 2])
    res, out_json = tmp_path / "r", tmp_path / "sweep.json"
    code, out, err = sweep(capsys, *CHEAP, "--seeds", "0-2", "--workers", "2", "--results", str(res),
                           "--json", str(out_json))
    assert code == 0, err
    doc = json.loads(out_json.read_text())
    got = {(r["id"], r["point"]["seed"]): comparable(r) for r in doc["results"]}
    assert len(doc["results"]) == 6 and got == ref
    assert ref[(CHEAP[0], 0)]["observed"] != ref[(CHEAP[0], 1)]["observed"]  # the seed matters
    assert {r["env"]["torch_threads"] for r in doc["results"]} == {1}
    assert sorted((s["id"], s["runs"], s["grid"] == {}) for s in doc["stability"]) == sorted((c, 3, True) for c in CHEAP)
    assert all(s["at_expected"] == 3 and s["ci"][1] == 1.0 and 0 < s["ci"][0] < 1 for s in doc["stability"])
    # seed 0 is the top-level file `fedverify run` writes; the other seeds under sweep/
    assert (res / f"{CHEAP[0]}.json").exists() and (res / "sweep" / CHEAP[0] / "s2.json").exists()
    code, out, err = sweep(capsys, *CHEAP, "--seeds", "0-2", "--workers", "2", "--results", str(res), "--quiet")
    assert code == 0 and "0 ran, 6 stored" in out
    code, out, err = sweep(capsys, "--results", str(res), CHEAP[0], "--seeds", "0-2", "--workers", "1", "--quiet",
                           "--grid", "clients=200,300")
    assert code == 0 and "6 ran, 0 stored" in out  # grid points are new points


def test_grid_points_are_stored_apart_and_counted_apart(tmp_path, one_torch_thread):
    specs = select([CHEAP[0]])
    grid = parse_grid(["clients=200,300"])
    outs = run_points(points_for(specs, [0, 1], grid), {s.id: s for s in specs}, settings=SETTINGS,
                      store=ResultStore(tmp_path), workers=1)
    assert [o.point.grid for o in outs] == [{"clients": 200}] * 2 + [{"clients": 300}] * 2
    table = stability((o.point.check_id, o.point.seed, o.point.grid, o.result) for o in outs)
    assert sorted((t["grid"]["clients"], t["runs"]) for t in table) == [(200, 2), (300, 2)]
    pts, bad = ResultStore(tmp_path).load_points(CHEAP[0])
    assert not bad and len(pts) == 4 and all(r.env["overrides"] == {"clients": repr(g["clients"])} for _, g, r in pts)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow  # 25 s of a real Dask cluster and a SIGKILL: `make test-slow` runs it
def test_dask_cli_cluster_survives_a_killed_worker(capsys, tmp_path, sweep_cli, one_torch_thread):
    """`dask scheduler` and two `dask worker` processes from the venv; one worker is killed (SIGKILL, the
    whole process group) once the first Result is stored; the scheduler gives its task to the other."""
    from distributed import Client

    ids, seeds = ("dutta2023.c01", "dutta2023.c02"), list(range(5))
    ref = sequential(tmp_path, ids, seeds)
    dask_cmd = str(Path(sys.executable).parent / "dask")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    procs = [subprocess.Popen([dask_cmd, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              env=env, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        time.sleep(1.0)
        for i in range(2):
            procs.append(subprocess.Popen([dask_cmd, "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1",
                                           "--nworkers", "1", "--no-dashboard", "--name", f"w{i}"],
                                          env=env, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        with Client(f"tcp://127.0.0.1:{port}", timeout="30s") as c:
            c.wait_for_workers(2, timeout=60)
        res = tmp_path / "r"
        killed = {}

        def kill_first_worker_after_first_result():
            deadline = time.time() + 120
            while time.time() < deadline:
                if list(res.glob("*.json")) or list(res.glob("sweep/*/*.json")):
                    killed["alive_sweep"] = True
                    os.killpg(procs[1].pid, signal.SIGKILL)
                    killed["at"] = time.time()
                    return
                time.sleep(0.02)

        watcher = threading.Thread(target=kill_first_worker_after_first_result, daemon=True)
        watcher.start()
        argv = [*ids, "--seeds", "0-4", "--scheduler", f"tcp://127.0.0.1:{port}", "--results", str(res)]
        code, out, err = sweep(capsys, *argv, "--json", str(tmp_path / "a.json"))
        t_end = time.time()
        watcher.join(5)
        assert code == 0, err
        assert "at" in killed and killed["at"] < t_end and procs[1].wait(10) is not None  # killed mid-sweep
        doc = json.loads((tmp_path / "a.json").read_text())
        keys = [(r["id"], r["point"]["seed"]) for r in doc["results"]]
        assert sorted(keys) == sorted(ref) and len(set(keys)) == len(keys) == 10  # every Result once
        assert {k: comparable(r) for k, r in zip(keys, doc["results"])} == ref  # equal to the sequential run
        st = ResultStore(res)
        for cid, seed in ref:  # intact on disk
            assert comparable(st.load(cid, seed=seed).to_dict()) == ref[(cid, seed)]
        assert len(doc["stability"]) == 2 and all(s["runs"] == 5 for s in doc["stability"])
        code, out, err = sweep(capsys, *argv, "--quiet")
        assert code == 0 and "0 ran, 10 stored" in out  # the same command again reruns nothing
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def test_tuple_grid_values_are_found_again(tmp_path, one_torch_thread):
    """A tuple value comes back from the JSON file as a list; the rerun key must still match."""
    specs = select([CHEAP[0]])
    pts = points_for(specs, [0], parse_grid(["half_steps=(2,4),(2,10)"]))
    kw = dict(settings=SETTINGS, store=ResultStore(tmp_path), workers=1)
    assert [o.status for o in run_points(pts, {s.id: s for s in specs}, **kw)] == ["ran", "ran"]
    assert [o.status for o in run_points(pts, {s.id: s for s in specs}, **kw)] == ["stored", "stored"]


@pytest.mark.slow  # a second LocalCluster start (15-35 s on 2 loaded cores); benchmarks/bench_sweep.py compares too
def test_run_with_two_workers_equals_run_in_process(capsys, tmp_path, one_torch_thread):
    """`fedverify run --workers 2`: the same Results as in this process, stored at the top-level files."""
    docs = {}
    for w in ("1", "2"):
        code = cli.main(["run", *CHEAP, "--workers", w, "--results", str(tmp_path / w), "--quiet",
                         "--json", str(tmp_path / f"{w}.json")])
        out = capsys.readouterr().out
        assert code == 0 and "2 as expected" in out
        docs[w] = {r["id"]: comparable(r) for r in json.loads((tmp_path / f"{w}.json").read_text())}
        assert all((tmp_path / w / f"{c}.json").exists() for c in CHEAP)
    assert docs["1"] == docs["2"]
    code = cli.main(["run", *CHEAP, "--workers", "2", "--results", str(tmp_path / "2")])
    assert code == 0 and capsys.readouterr().out.count("(stored; --force reruns)") == 2


@pytest.mark.parametrize("argv,starts", [
    (["--all", "--workers", "2"], True),
    (["--paper", "su2022"], True),  # the default: one worker a core (two here)
    (["--paper", "su2022", "--workers", "1"], False),
    (list(CHEAP) + ["--workers", "2"], False),  # named checks: imported only after the choice (verify/registry.py)
    (["--all", "--workers", "2", "--set", "d=3"], False),
    (["--all", "--workers", "2", "--budget", "60"], False),
])
def test_workers_start_early_only_where_the_run_will_share_its_queue(monkeypatch, argv, starts):
    """`run` starts its worker processes before importing torch and the checks only for --all / --paper with more than
    one worker and neither --set nor --budget (the paths that run on the cluster); nothing else starts any."""
    import verify.local_workers

    made = []
    monkeypatch.setattr(verify.local_workers, "WorkerStart", lambda n, **kw: made.append((n, kw)) or "started")
    monkeypatch.setattr(verify.local_workers, "default_workers", lambda: 2)
    args = cli.build_parser().parse_args(["run", *argv])
    args.imported = False
    assert (cli._early_workers(args) == "started") is starts
    assert made == ([(1, {"warm": True})] if starts else [])
    args.imported = True  # --import: the workers would not know those modules (the cluster path imports them)
    made.clear()
    assert cli._early_workers(args) is None and made == []


def test_run_paper_with_two_workers_starts_and_warms_its_worker_first(capsys, tmp_path, one_torch_thread, monkeypatch):
    """`run --paper P --workers 2`: its worker starts before this process imports the checks and imports them as its
    first task; this process and the worker share one queue; the Results equal this process's, and Dask's settings
    are given back."""
    import dask
    import distributed  # noqa: F401 - its defaults in dask.config first

    import verify.registry

    ref = sequential(tmp_path, CHEAP, [0])
    picked = select(list(CHEAP))
    monkeypatch.setattr(verify.registry, "select", lambda ids=(), paper=None, all_=False: picked)
    before = dask.config.get("distributed.worker.profile.enabled", None)
    out = tmp_path / "shared"
    code = cli.main(["run", "--paper", "su2022", "--workers", "2", "--results", str(out), "--quiet",
                     "--json", str(tmp_path / "shared.json")])
    assert code == 0 and "2 as expected" in capsys.readouterr().out
    got = {(r["id"], 0): comparable(r) for r in json.loads((tmp_path / "shared.json").read_text())}
    assert got == ref and all((out / f"{c}.json").exists() for c in CHEAP)
    assert dask.config.get("distributed.worker.profile.enabled") == before is True  # the run's False is gone


def test_this_process_and_a_worker_share_one_queue(tmp_path, one_torch_thread):
    """`run --workers 2`'s path (share_here): this process and one worker process take the points from one queue;
    every point arrives once, both took some, and each Result equals the sequential one."""
    ref = sequential(tmp_path, CHEAP, [0, 1, 2, 3])
    specs = select(list(CHEAP))
    outs = run_points(points_for(specs, [0, 1, 2, 3], {}), {s.id: s for s in specs}, settings=SETTINGS,
                      store=ResultStore(tmp_path / "shared"), workers=2, share_here=True)
    assert [o.status for o in outs] == ["ran"] * 8
    got = {(o.point.check_id, o.point.seed): comparable(o.result.to_dict()) for o in outs}
    assert got == ref
    where = {o.worker == "in-process" for o in outs}
    assert True in where  # this process ran points while the worker started
    assert torch.get_num_threads() == 1  # the fixture's setting is given back


def test_processes_that_run_checks_collect_the_oldest_generation_less_often(capsys, tmp_path, one_torch_thread):
    """`run` (in this process) and a worker's plugin set RUN_GC_THRESHOLDS: fewer full collections, the young
    generations as Python sets them."""
    import gc
    from types import SimpleNamespace

    from verify.local_workers import RUN_GC_THRESHOLDS, TuneWorker

    before = gc.get_threshold()
    assert RUN_GC_THRESHOLDS[:2] == (700, 10) and RUN_GC_THRESHOLDS[2] > 10
    try:
        gc.set_threshold(700, 10, 10)
        assert cli.main(["run", CHEAP[0], "--workers", "1", "--results", str(tmp_path), "--quiet"]) == 0
        assert gc.get_threshold() == RUN_GC_THRESHOLDS
        gc.set_threshold(700, 10, 10)
        TuneWorker().setup(SimpleNamespace(periodic_callbacks={}))
        assert gc.get_threshold() == RUN_GC_THRESHOLDS
    finally:
        gc.set_threshold(*before)
    capsys.readouterr()


FAULTS_SCRIPT = """
import resource, sys, torch
if sys.argv[1] == "tuned":
    from verify.local_workers import keep_freed_memory
    if not keep_freed_memory():
        print("no-glibc")
        sys.exit(0)
def round_():
    live = [torch.ones(1 << 20, dtype=torch.float64) for _ in range(24)]  # 24 tensors of 8 MiB on the heap
    del live
round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
round_()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_a_process_that_runs_checks_keeps_freed_memory_for_the_next_tensors():
    """keep_freed_memory (run, sweep points, workers): the second of two identical rounds of 192 MiB of tensors reuses
    the heap the first freed; glibc's defaults give it back and fault every page in again (measured here: 49,149 page
    faults of 49,152 pages, against 10,240 tuned)."""
    faults = {}
    for mode in ("plain", "tuned"):
        out = subprocess.run([sys.executable, "-c", FAULTS_SCRIPT, mode], capture_output=True, text=True, cwd=ROOT,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        if out.stdout.strip() == "no-glibc":
            pytest.skip("glibc's mallopt is not available here")
        faults[mode] = int(out.stdout.split()[-1])
    pages = 24 * (8 << 20) // 4096
    assert faults["plain"] > pages // 2  # the defaults do give the memory back (else this test could not fail)
    assert faults["tuned"] < faults["plain"] // 2


def test_only_a_process_about_to_end_skips_its_exit_collections():
    """The console script freezes the collector after its command (the interpreter's exit then skips its full
    collections: about 1 s); a call of ``main`` from Python does not, nor a worker's teardown unless it is a
    nanny's worker that is closing (its process ends next)."""
    import gc
    from types import SimpleNamespace

    from verify.local_workers import TuneWorker

    if gc.get_freeze_count():
        pytest.skip("this process froze objects before the test")
    code = ("import gc, sys; from verify import cli; sys.argv = ['fedverify', 'list', '--json']; rc = cli.main(); "
            "print(gc.get_freeze_count() > 0, rc, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stderr.split()[-2:] == ["True", "0"], out.stderr
    try:
        assert cli.main(["list", "--json"]) == 0
        closing = SimpleNamespace(name="closing")
        TuneWorker().teardown(SimpleNamespace(nanny=None, status=closing))  # in-process worker: the process goes on
        TuneWorker().teardown(SimpleNamespace(nanny="tcp://127.0.0.1:1", status=SimpleNamespace(name="running")))
        assert gc.get_freeze_count() == 0
        TuneWorker().teardown(SimpleNamespace(nanny="tcp://127.0.0.1:1", status=closing))
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_exit_benchmark_times_both_endings():
    """benchmarks/process_exit.py: one pair of children that import every check and end, plainly and frozen; each
    side's exit time is measured from the child's own last statement (no claim on which is faster here: a loaded
    test machine decides that, the benchmark's note reports it)."""
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.process_exit import bench
    finally:
        sys.path.remove(str(ROOT))
    rec = bench(pairs=1)
    assert rec["name"] == "process_exit" and len(rec["runs"]) == 1
    assert 0 < rec["plain_exit_s"] < 60 and 0 < rec["frozen_exit_s"] < 60
    assert rec["ratio"] == rec["plain_exit_s"] / rec["frozen_exit_s"]


def test_the_local_clusters_event_loops_wake_seldom():
    """Under DASK_CONFIG a local cluster's scheduler and workers time their event loop every second and read the
    machine's counters every 10 s (Dask: 20 ms and 0.5 s), and the worker has no statistical profiler: the threads
    that wake for them compete with the checks for the GIL."""
    import dask
    from distributed import Client

    from verify.local_workers import DASK_CONFIG, local_cluster

    def periods(server) -> dict:
        pcs = server.periodic_callbacks
        return {name: pcs[name].callback_time for name in ("tick", "monitor") if name in pcs} | \
            {"profile": "profile" in pcs and pcs["profile"].is_running()}

    with dask.config.set(DASK_CONFIG), local_cluster(1) as cluster, Client(cluster) as client:
        on_scheduler = client.run_on_scheduler(lambda dask_scheduler: periods(dask_scheduler))
        on_workers = list(client.run(lambda dask_worker: periods(dask_worker)).values())
    assert on_scheduler["tick"] == 1000 and on_scheduler["monitor"] == 10000
    assert on_workers == [{"tick": 1000, "monitor": 10000, "profile": False}]
