"""Typical wall times of the checks: the order in which ``fedverify run --workers N`` hands out checks when the
results directory holds none of them yet.

Several processes share one queue, longest check first, so that no long check is left to run alone at the end
(verify/sweep.py). A directory that holds a check's Result gives its last wall time; for the others this module's
table gives the time the check took in the quick suite on one thread (``typical_wall_times.json`` beside it). The
table orders work and nothing else: no verdict or stored number depends on it, and a stale table costs only some
seconds of wall time at the end of a run. A check missing from it counts as the table's median.

Refresh it from a quick-suite run (``python -m verify.typical_times RESULTS``).
"""
from __future__ import annotations

import json
import statistics
import sys
from functools import lru_cache
from pathlib import Path

TABLE = Path(__file__).with_name("typical_wall_times.json")


@lru_cache(maxsize=1)
def typical_wall_times() -> dict[str, float]:
    """Check id -> seconds (quick fidelity, one thread); {} when the table is missing or unreadable."""
    try:
        doc = json.loads(TABLE.read_text())
        return {str(k): float(v) for k, v in doc["seconds"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def typical_wall_time(check_id: str) -> float:
    """The table's time for ``check_id``, its median for a check it does not list, 0 without a table."""
    table = typical_wall_times()
    if check_id in table:
        return table[check_id]
    return statistics.median(table.values()) if table else 0.0


def table_from(results: str | Path) -> dict:
    """The table's document from the top-level Results of a quick-suite directory (seed 0, default settings)."""
    seconds, where = {}, set()
    for path in sorted(Path(results).glob("*.json")):
        try:
            doc = json.loads(path.read_text())
            env = doc["result"]["env"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if env.get("fidelity") != "quick" or doc.get("point", {}).get("grid"):
            continue
        seconds[doc["result"]["id"]] = round(float(env["wall_time_s"]), 2)
        where.add((env.get("cpu", "?"), env.get("torch_threads", "?"), env.get("fedverify_commit", "?")))
    return {"what": "wall seconds of each check in the quick suite (seed 0); only the order of a shared run uses it",
            "measured": [{"cpu": c, "torch_threads": t, "commit": k} for c, t, k in sorted(where, key=str)],
            "seconds": dict(sorted(seconds.items()))}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python -m verify.typical_times RESULTS_DIR (a quick-suite results directory)", file=sys.stderr)
        return 2
    doc = table_from(argv[0])
    if not doc["seconds"]:
        print(f"no quick-suite Results in {argv[0]}", file=sys.stderr)
        return 2
    from verify.store_files import atomic_write

    payload = (json.dumps(doc, indent=1) + "\n").encode()
    atomic_write(TABLE, lambda fh: fh.write(payload))
    print(f"{TABLE}: {len(doc['seconds'])} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
