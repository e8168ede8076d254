"""Speed benchmarks: each runs fedverify's batched code side by side with a straightforward baseline.

    python benchmarks/run.py [--json FILE] [--update FILE] [--device cpu|cuda|auto] [--only NAME ...] [--repeat K]

Every module ``benchmarks/bench_*.py`` contributes a ``BENCHMARKS`` dict (name -> function
``(device, repeat) -> record``, or a list of records: bench_fair.py's, one per baseline). A record is ``{name, size, baseline_s, fedverify_s, ratio, device, ...}``;
the ratio is baseline time / fedverify time on the same inputs, and each benchmark first checks that
both give the same numbers (benchmarks/common.py). Times are the best of ``--repeat`` runs (the
baseline runs once when it is slow; the record says how many runs each side had).
"""
from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import platform
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def all_benchmarks() -> dict:
    found = {}
    for path in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        found.update(importlib.import_module(f"benchmarks.{path.stem}").BENCHMARKS)
    return found


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", help="write the records to this file")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    benchmarks = all_benchmarks()
    p.add_argument("--only", nargs="+", metavar="NAME",
                   help="run only these benchmarks (names or shell patterns, e.g. 'krum_vs_gram_numpy_*')")
    p.add_argument("--update", metavar="FILE",
                   help="merge the new records into this JSON file (a record replaces the one of the same name)")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    if args.only:
        unknown = [pat for pat in args.only if not fnmatch.filter(benchmarks, pat)]
        if unknown:
            p.error(f"--only: no benchmark matches {', '.join(unknown)}")
    records = []
    for name, fn in benchmarks.items():
        if args.only and not any(fnmatch.fnmatch(name, pat) for pat in args.only):
            continue
        got = fn(args.device, args.repeat)
        for rec in got if isinstance(got, list) else [got]:  # bench_fair.py: one record per baseline
            if "skipped" in rec:  # e.g. the GPU benchmarks without CUDA, ByzFL's without byzfl
                print(f"{name:<22} skipped: {rec['skipped']}")
                records.append(rec)
                continue
            rec["machine"] = {"cpu_threads": torch.get_num_threads(), "platform": platform.platform(),
                              "torch": torch.__version__}
            records.append(rec)
            print(f"{rec['name']:<22} size {rec['size']}  baseline {rec['baseline_s']:.3f}s  "
                  f"fedverify {rec['fedverify_s']:.4f}s  ratio {rec['ratio']:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    if args.update:
        merge_records(Path(args.update), records)
    return 0


def merge_records(path: Path, records: list) -> None:
    """Replace the records of the same name in ``path`` (keeping the file's order), append the new ones; written to
    a temporary file and renamed, so an interrupted run leaves the old file whole."""
    old = json.loads(path.read_text()) if path.exists() else []
    new = {r["name"]: r for r in records if "name" in r}
    merged = [new.pop(r.get("name"), r) for r in old] + list(new.values())
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(merged, indent=1))
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
