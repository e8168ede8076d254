"""CUDA against this machine's CPU on the same inputs, at sizes where a GPU matters (issue 22, item 5):

* one Federated-Clustering round (werner2023 Algorithm 2; clustered quadratics, d = 64, M = 10 steps) at
  N = 1024 and N = 4096 clients (N^2 gradient evaluations and N Threshold-Clusterings of N points);
* Threshold-Clustering (Algorithm 3) at N = 16384 points (R = 16, d = 32, K = 4, M = 10);
* one su2022 Phase-2 round (FedAvg + clustering, s = 5 local steps) at M = 10^5 clients (R = 4, d = 40, k = 5).

Every instance is drawn on the CPU and copied to the GPU, so both sides see the same numbers; a record is
refused when the outputs disagree. The CPU side runs with torch's default threads (what a user gets); the
GPU side is the best of ``repeat`` synchronised runs, the CPU side one run, each after a warm-up run. Without CUDA
every benchmark returns a ``skipped`` record (``python benchmarks/run.py`` then skips them); ``--device cpu --small``
runs the whole script on the CPU at small sizes, to test it on a machine without a GPU.

    python benchmarks/bench_gpu.py [--json FILE] [--repeat K] [--small] [--device cuda|cpu]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verify.algorithms.federated_clustering import fc_round  # noqa: E402
from verify.algorithms.threshold_clustering import Radius, threshold_clustering  # noqa: E402
from verify.algorithms.two_phase import Phase2Round  # noqa: E402
from verify.problems.clustered_quadratics import clustered_quadratics  # noqa: E402
from verify.problems.mixed_regression import pareto_sizes, planted_model  # noqa: E402
from verify.problems.points import clustered_points  # noqa: E402

TAU, STEPS, DELTA = 40.0, 10, 100.0


def to_device(obj, device):
    """A copy of ``obj`` (tensor, dataclass of tensors, tuple/list of them) on ``device``."""
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: to_device(getattr(obj, f.name), device)
                                           for f in dataclasses.fields(obj) if f.init})
    if isinstance(obj, (tuple, list)):
        return type(obj)(to_device(o, device) for o in obj)
    return obj


def _sync(device):
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def _best(fn, repeat, device):
    best, out = float("inf"), None
    for _ in range(repeat):
        _sync(device)
        t0 = time.perf_counter()
        out = fn()
        _sync(device)
        best = min(best, time.perf_counter() - t0)
    return best, out


def _compare(name, size, make, run, device, repeat, rtol=1e-9):
    """``make() -> inputs`` on the CPU; ``run(inputs) -> tensor``; each side after a warm-up run: the CPU once, the
    device best of ``repeat``."""
    inputs = make()
    run(inputs)  # warm-up of the CPU side too (allocator, first-call costs): a cold CPU run inflated the ratios
    cpu_s, ref = _best(lambda: run(inputs), 1, "cpu")
    dev_inputs = to_device(inputs, device)
    run(dev_inputs)  # warm-up: kernels, allocator
    dev_s, out = _best(lambda: run(dev_inputs), repeat, device)
    out = out.cpu()
    diff = float((out - ref).abs().max())
    if not torch.allclose(out, ref, rtol=rtol, atol=rtol * float(ref.abs().max())):
        raise AssertionError(f"{name}: {device} and CPU disagree by {diff}")
    return {"name": name, "size": size, "baseline": "cpu", "baseline_detail": f"the same code on this CPU "
            f"({torch.get_num_threads()} threads)", "baseline_s": cpu_s, "fedverify_s": dev_s, "ratio": cpu_s / dev_s,
            "device": str(device), "gpu": torch.cuda.get_device_name(0) if torch.device(device).type == "cuda" else None,
            "dtype": "float64", "max_abs_difference": diff, "load_average": os.getloadavg(),
            "runs": {"cpu": 1, "device": repeat}, "warm_up": {"cpu": 1, "device": 1}}


def bench_fc_round(N, device, repeat, R=1, d=64, K=4):
    def make():
        g = torch.Generator().manual_seed(N)
        prob = clustered_quadratics(g, R, K, N // K, d, DELTA, hessian="planted", mu=1.0, L=4.0)
        return prob, prob.optima() + torch.randn(R, N, d, generator=g, dtype=torch.float64)
    return _compare(f"gpu_fc_round_N{N}", {"R": R, "N": N, "d": d, "M": STEPS},
                    make, lambda a: fc_round(a[0], a[1], TAU, STEPS)[0], device, repeat)


def bench_threshold_clustering(N, device, repeat, R=16, d=32, K=4):
    def make():
        data = clustered_points(R, K, N // K, d, 1.0, 16.0, torch.Generator().manual_seed(N), torch.float64)
        return data.Z, data.own_point_init()
    radius = Radius.fixed(4.0)
    return _compare(f"gpu_threshold_clustering_N{N}", {"R": R, "N": N, "d": d, "K": K, "M": STEPS},
                    make, lambda a: threshold_clustering(a[0], a[1], radius, STEPS)[0], device, repeat)


def bench_phase2_round(M, device, repeat, R=4, d=40, k=5, s=5):
    def make():
        g = torch.Generator().manual_seed(M)
        model = planted_model(R, k, d, g)
        fed = model.federation(pareto_sizes(M, 3.0, g), g)
        u = torch.randn(model.theta.shape, generator=g, dtype=torch.float64)
        return fed, model.theta + 0.2 * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)

    def run(a):
        fed, theta = a
        return Phase2Round(fed, fed.eta_for_gamma(0.5 / s), s=s, backend="points")(theta)[0]
    return _compare(f"gpu_su2022_phase2_round_M{M}", {"R": R, "M": M, "d": d, "k": k, "s": s},
                    make, run, device, repeat, rtol=1e-8)


def _plan(small: bool):
    if small:
        return [("fc", 64), ("fc", 128), ("tc", 1024), ("p2", 2000)]
    return [("fc", 1024), ("fc", 4096), ("tc", 16384), ("p2", 100_000)]


_RUN = {"fc": bench_fc_round, "tc": bench_threshold_clustering, "p2": bench_phase2_round}


def _entry(kind, n):
    def run(device, repeat):
        if not torch.cuda.is_available():
            return {"name": f"gpu_{kind}_{n}", "skipped": "no CUDA device on this machine"}
        return _RUN[kind](n, "cuda", repeat)
    return run


BENCHMARKS = {f"gpu_{kind}_{n}": _entry(kind, n) for kind, n in _plan(False)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--small", action="store_true", help="small sizes (a test of the script)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device: nothing to benchmark (use --device cpu --small to test the script)")
        records = [{"name": f"gpu_{k}_{n}", "skipped": "no CUDA device on this machine"} for k, n in _plan(args.small)]
    else:
        records = []
        for kind, n in _plan(args.small):
            rec = _RUN[kind](n, args.device, args.repeat)
            records.append(rec)
            print(f"{rec['name']:<34} cpu {rec['baseline_s']:9.4f} s  {args.device} {rec['fedverify_s']:9.4f} s  "
                  f"ratio {rec['ratio']:7.1f}  diff {rec['max_abs_difference']:.1e}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
