"""What every benchmark shares: timing (best of several runs) and the record that refuses a speed-up
when the batched code and its baseline disagree."""
from __future__ import annotations

import time

import numpy as np
import torch


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best, out


def record(name, size, baseline, base_s, fv_s, ours, theirs, atol, ctx, repeat, kind: str = "literal-loop") -> dict:
    """One benchmark record; refuses to report a speed-up when the two sides disagree. ``baseline`` is the
    kind of baseline ("literal-loop": the algorithm as printed, loop by loop; "client-loop"; "fair-numpy":
    benchmarks/bench_fair.py), ``baseline_detail`` what exactly it runs."""
    max_diff = float(np.abs(ours - theirs).max())
    if max_diff > atol:
        raise AssertionError(f"{name}: batched and baseline results disagree by {max_diff}")
    return {"name": name, "size": size, "baseline": kind, "baseline_detail": baseline, "baseline_s": base_s, "fedverify_s": fv_s,
            "ratio": base_s / fv_s, "max_abs_difference": max_diff, "device": str(ctx.torch_device),
            "dtype": str(ctx.dtype).replace("torch.", ""), "runs": {"baseline": 1, "fedverify": repeat}}
