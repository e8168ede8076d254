"""Where a shared run loses wall time: ``fedverify run --all --workers N`` as the command runs it (workers started
before this process imports torch and the checks, one queue, longest first), with each Result's arrival time.

    python benchmarks/run_timeline.py RESULTS_DIR [--workers N] [--paper KEY] [--json FILE]

RESULTS_DIR should be fresh (every check runs). Prints, per process, when its first check started, when its last
ended and how long its checks ran (their own wall times), and the run's overhead: wall time minus the checks' summed
time divided by the processes (imports, worker start, idle between checks, an uneven end, shutdown). A check's start
is its arrival minus its wall time, so a worker's start includes nothing of the transfer back.
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> int:
    t0 = time.perf_counter()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--paper", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from verify.local_workers import WorkerStart

    start = WorkerStart(args.workers - 1, warm=True) if args.workers > 1 else None
    from verify.threads import use_threads

    use_threads(1)
    from verify.registry import select
    from verify.store import ResultStore
    from verify.sweep import Point, run_points, stored_wall_times

    specs = select([], paper=args.paper, all_=args.paper is None)
    store = ResultStore(args.results)
    imported = time.perf_counter() - t0
    rows = []

    def arrived(o) -> None:
        rows.append({"t": time.perf_counter() - t0, "process": o.worker, "id": o.point.check_id,
                     "wall_time_s": o.result.env.get("wall_time_s", 0.0) if o.result else 0.0, "status": o.status})

    settings = {"fidelity": "quick", "replicates": None, "device": "cpu", "float32_on_cuda": False}
    run_points([Point(s.id, 0, {}) for s in specs], {s.id: s for s in specs}, settings=settings, store=store,
               workers=args.workers, on_outcome=arrived, priority=stored_wall_times(store, specs), share_here=True,
               start=start)
    end = time.perf_counter() - t0
    per = {}
    for r in rows:
        per.setdefault(r["process"], []).append(r)
    busy = sum(r["wall_time_s"] for r in rows)
    summary = {"imports_s": imported, "wall_s": end, "checks_s": busy, "processes": len(per),
               "overhead_s": end - busy / max(1, len(per)),
               "per_process": {p: {"checks": len(v), "first_start_s": min(r["t"] - r["wall_time_s"] for r in v),
                                   "last_end_s": max(r["t"] for r in v), "busy_s": sum(r["wall_time_s"] for r in v)}
                               for p, v in per.items()}}
    print(f"imports {imported:.1f} s, wall {end:.1f} s, checks {busy:.1f} s over {len(per)} processes, "
          f"overhead {summary['overhead_s']:.1f} s")
    for p, v in summary["per_process"].items():
        print(f"  {p:<16} {v['checks']:4d} checks  first start {v['first_start_s']:6.1f} s  last end "
              f"{v['last_end_s']:6.1f} s  busy {v['busy_s']:6.1f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({**summary, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
