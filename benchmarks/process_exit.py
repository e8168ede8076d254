"""What a command pays to end: a process that imports every check (torch, scipy, sympy and the papers' Bounds
loaded, as at the end of ``fedverify run``) and then exits, with and without
:func:`verify.local_workers.skip_collections_at_exit` as its last step, in alternated pairs.

    python benchmarks/process_exit.py [--pairs K] [--json FILE]

Each side is a fresh subprocess; its exit time is the wall time from the moment its work is done (printed by the
child) to the moment the parent has reaped it. ``plain`` is Python's own finalization (its full collections over
every live object); ``frozen`` moves the live objects to the permanent generation first, as the console script and a
closing worker do. The ratio is the median over pairs of plain / frozen.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys, time
from verify.registry import load_all
load_all()
if sys.argv[1] == "frozen":
    from verify.local_workers import skip_collections_at_exit
    skip_collections_at_exit()
print(time.time(), flush=True)
"""


def _exit_seconds(mode: str) -> float:
    """Seconds from the child's last statement to its reaping, for ``mode`` plain or frozen."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, mode], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "OMP_NUM_THREADS": "1"})
    done = float(proc.stdout.readline())
    proc.wait()
    ended = time.time()
    if proc.returncode != 0:
        raise RuntimeError(f"the {mode} child failed ({proc.returncode})")
    return ended - done


def bench(pairs: int = 5) -> dict:
    rows = [(_exit_seconds("plain"), _exit_seconds("frozen")) for _ in range(pairs)]
    plain, frozen = (statistics.median(r[i] for r in rows) for i in (0, 1))
    return {"name": "process_exit", "pairs": pairs, "plain_exit_s": plain, "frozen_exit_s": frozen,
            "ratio": statistics.median(a / b for a, b in rows), "runs": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rec = bench(args.pairs)
    print(f"exit after importing every check: plain {rec['plain_exit_s']:.2f} s, frozen {rec['frozen_exit_s']:.2f} s, "
          f"ratio {rec['ratio']:.1f}x (median of {args.pairs} pairs)")
    if args.json:
        Path(args.json).write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
