"""The Threshold-Clustering step (werner2023 eq. (24)) in cache-sized row blocks against the one-block
step it replaced, and against the streaming floor (one pass over the points: ``Z.sum()``).

fedverify's step is the fused C++ kernel when it is built (verify/algorithms/tc_native.py), else the
blocked torch step; both are recorded (``fused_kernel``, ``blocked_torch_*``). The one-block step computes
exact-difference distances (``cdist`` without the matrix-product shortcut), the inclusive test and the masked
sum ``bmm(w, Z)``; the blocked one decides the same balls by the Gram identity with an exact recheck (issue 22)
per block of rows that fits in the L2 cache, so the points stream from memory once. A single step, so no
step cache. Outputs agree to 1e-12 (the kernel adds the in-ball points in
another order than ``bmm``; the balls are the same). Shapes: an FC round's clustering (R N rows of
N gradients, K = 1, d = 64) and a TC benchmark's (R = 64 replicates of N = 1024 points, K = 4, d = 32).
Single thread, interleaved, medians; times per element of the all-pairs block (rows x K x N x d).
"""
from __future__ import annotations

import os
import time

import numpy as np
import torch

from benchmarks.bench_aggregators import interleaved, pair_record
from verify.algorithms import tc_native
from verify.algorithms import threshold_clustering as tc


def _torch_step(Z, V, radius, block_bytes, exact: bool = False):
    """The pure-torch step (fused kernel off) with row blocks of ``block_bytes``; ``exact``: exact-difference
    distances for every pair (no Gram identity: the step before the 2026-11-27 C kernels)."""
    saved, env, gram = tc.TC_BLOCK_BYTES, os.environ.get("FEDVERIFY_TC_NATIVE"), tc.gram_applies
    tc.TC_BLOCK_BYTES, os.environ["FEDVERIFY_TC_NATIVE"] = block_bytes, "0"
    if exact:
        tc.gram_applies = lambda Z, V, tau: False
    try:
        return tc.threshold_step(Z, V, radius)
    finally:
        tc.TC_BLOCK_BYTES, tc.gram_applies = saved, gram
        os.environ.pop("FEDVERIFY_TC_NATIVE") if env is None else os.environ.__setitem__("FEDVERIFY_TC_NATIVE", env)


def _one_block_step(Z, V, radius):
    """The step as it was before the row blocks: exact differences for all rows, then the masked sum."""
    return _torch_step(Z, V, radius, 1 << 62, exact=True)


def bench_tc_step(rows: int, N: int, K: int, d: int, runs: int, label: str) -> dict:
    g = torch.Generator().manual_seed(0)
    Z = torch.randn(rows, N, d, generator=g, dtype=torch.float64)
    V = Z[:, :K].clone() + 0.1
    radius = tc.Radius.fixed(float(np.sqrt(2 * d)))
    native = tc_native.kernel() is not None
    timing = interleaved(lambda: _one_block_step(Z, V, radius).numpy(), lambda: tc.threshold_step(Z, V, radius).numpy(), runs)
    blocked = interleaved(lambda: _one_block_step(Z, V, radius).numpy(),
                          lambda: _torch_step(Z, V, radius, tc.TC_BLOCK_BYTES).numpy(), runs)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        floor = []
        for _ in range(runs):
            t0 = time.perf_counter()
            Z.sum()
            floor.append(time.perf_counter() - t0)
    finally:
        torch.set_num_threads(threads)
    blocked.pop("outputs")
    rec = pair_record(f"threshold_step_{label}", {"rows": rows, "N": N, "K": K, "d": d}, "previous-fedverify",
                      "the same step in one block (distances for all rows, then the masked sum)", timing,
                      atol=1e-12 * float(Z.abs().max()))
    elements = rows * K * N * d
    floor_s = float(np.median(floor))
    rec.update(streaming_floor_s=floor_s, ns_per_element=rec["fedverify_s"] / elements * 1e9,
               previous_ns_per_element=rec["baseline_s"] / elements * 1e9, floor_ns_per_element=floor_s / (rows * N * d) * 1e9,
               times_the_floor=rec["fedverify_s"] / floor_s, fused_kernel=native,
               blocked_torch_s=blocked["fedverify_s"], blocked_torch_ratio=blocked["ratio"],
               blocked_torch_ns_per_element=blocked["fedverify_s"] / elements * 1e9)
    return rec


BENCHMARKS = {
    "threshold_step_fc_shape": lambda device, repeat: bench_tc_step(1024, 256, 1, 64, max(5, repeat), "fc_shape"),
    "threshold_step_tc_shape": lambda device, repeat: bench_tc_step(64, 1024, 4, 32, max(5, repeat), "tc_shape"),
}

if __name__ == "__main__":
    for key, fn in BENCHMARKS.items():
        r = fn("cpu", 7)
        print(f"{key:<26} one-block {r['previous_ns_per_element']:.2f} ns  blocked torch {r['blocked_torch_ns_per_element']:.2f} ns  "
              f"fedverify (fused={r['fused_kernel']}) {r['ns_per_element']:.2f} ns  "
              f"floor {r['floor_ns_per_element']:.2f} ns/point-coordinate  ratio {r['ratio']:.2f}  x floor {r['times_the_floor']:.2f}  "
              f"load {r['load_average'][0]:.2f}")
