"""The quick suite on both cores: ``fedverify run --all --workers 2`` (a local Dask cluster, one torch
thread per worker) against ``--workers 1`` (in this process, one torch thread), side by side.

    python benchmarks/bench_sweep.py [--pairs K] [--json FILE] [--paper KEY]

Each pair runs ``--workers 1`` then ``--workers 2`` as fresh subprocesses with OMP_NUM_THREADS=1 and
MKL_NUM_THREADS=1 (so torch has one thread in both), ``--force`` into the same results directory (the
2-worker run reads the stored wall times to start the longest checks first); the ratio is the median
over pairs of (1-worker wall time) / (2-worker wall time), process start and cluster start included.
The two runs must agree: every Result equal apart from its env (wall time, process). The machine's
load average is recorded before and after each run: other jobs on a shared machine take cores away
from the two workers, never from a sequential run's one.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(results: Path, workers: int, paper: str | None, out_json: Path) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    sel = ["--paper", paper] if paper else ["--all"]
    cmd = [sys.executable, "-m", "verify.cli", "run", *sel, "--force", "--quiet", "--results", str(results),
           "--workers", str(workers), "--json", str(out_json)]
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stdout[-2000:]} {proc.stderr[-2000:]}")
    return {"workers": workers, "wall_s": wall, "load_before": load0, "load_after": os.getloadavg()[0],
            "results": {r["id"]: r for r in json.loads(out_json.read_text())}}


def _differences(a: dict, b: dict) -> list[str]:
    strip = lambda r: {k: v for k, v in r.items() if k != "env"}  # noqa: E731
    return sorted(set(a) ^ set(b)) + [cid for cid in a if cid in b and strip(a[cid]) != strip(b[cid])]


def bench(pairs: int = 1, paper: str | None = None) -> dict:
    runs = []
    with tempfile.TemporaryDirectory(prefix="fedverify-bench-sweep-") as tmp:
        res = Path(tmp) / "results"
        for k in range(pairs):
            one = _run(res, 1, paper, Path(tmp) / f"w1-{k}.json")
            two = _run(res, 2, paper, Path(tmp) / f"w2-{k}.json")
            diff = _differences(one["results"], two["results"])
            if diff:
                raise AssertionError(f"run --workers 1 and --workers 2 disagree on {diff[:5]}")
            runs.append((one, two))
    ratios = [a["wall_s"] / b["wall_s"] for a, b in runs]
    n_checks = len(runs[0][0]["results"])
    return {
        "name": "quick_suite_workers",
        "size": {"checks": n_checks, "pairs": pairs, "selection": paper or "all"},
        "baseline": "fedverify run --workers 1 (in-process, one torch thread)",
        "baseline_s": statistics.median(a["wall_s"] for a, _ in runs),
        "fedverify_s": statistics.median(b["wall_s"] for _, b in runs),
        "ratio": statistics.median(ratios),
        "ratios": ratios,
        "load": [{"workers_1": [a["load_before"], a["load_after"]], "workers_2": [b["load_before"], b["load_after"]]}
                 for a, b in runs],
        "results_equal": True,
        "device": "cpu",
        "cpu_count": os.cpu_count(),
    }


def _bench(device: str, repeat: int) -> dict:
    """benchmarks/run.py's entry: one pair (each side takes a minute or more)."""
    return bench(pairs=1)


BENCHMARKS = {"quick_suite_workers": _bench}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=1)
    p.add_argument("--paper", help="one paper's checks instead of the whole suite")
    p.add_argument("--json", help="write the record to this file")
    args = p.parse_args(argv)
    rec = bench(args.pairs, args.paper)
    print(json.dumps({k: v for k, v in rec.items()}, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
