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
from unittest import mock

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


def _gram_steps_torch(G, b, c, v, s):
    """The gram backend's local steps as torch ran them before verify/algorithms/gram_steps.c."""
    v, c = v.clone(), c[..., None]
    for _ in range(s):
        v.sub_(((G @ v[..., None])[..., 0] - b).mul_(c))
    return v


def bench_gram_steps(R: int, M: int, d: int, s: int, runs: int) -> dict:
    """su2022's FedAvg local steps from Gram statistics (Phase2Round, backend "gram"): the C pass over the clients
    against the torch loop it replaced, bitwise (atol 0), at the shapes of su2022.c29 (R 12, M 200, d 10) and
    su2022.c20 (R 16, M 100, d 5), s = 5."""
    from verify.algorithms.tc_c import gram_local_steps

    g = torch.Generator().manual_seed(0)
    A = torch.randn(R, M, d, d, generator=g, dtype=torch.float64)
    G, b = A @ A.transpose(-1, -2) / d, torch.randn(R, M, d, generator=g, dtype=torch.float64)
    c, v0 = torch.rand(R, M, generator=g, dtype=torch.float64) * 0.1, torch.randn(R, M, d, generator=g, dtype=torch.float64)
    kernel = gram_local_steps()
    if kernel is None:
        raise RuntimeError("the C kernels are not built (python -m verify.native)")

    def ours():
        v = v0.clone()
        kernel(R * M, d, s, G.data_ptr(), b.data_ptr(), c.data_ptr(), v.data_ptr())
        return v.numpy()

    timing = interleaved(lambda: _gram_steps_torch(G, b, c, v0, s).numpy(), ours, runs)
    return pair_record(f"gram_local_steps_d{d}", {"R": R, "M": M, "d": d, "s": s}, "previous-fedverify",
                       "torch: s x (batched G v, - b, * c, v -= ...)", timing, atol=0.0)


def bench_bootstrap_means(R: int, P: int, n_boot: int, runs: int) -> dict:
    """verify/fit.py's bootstrap means: the C loop (a resample at a time) against numpy's accumulation it replaced
    (one resampled row at a time into the [n_boot, P] accumulator), bitwise (atol 0)."""
    from verify import fit

    y = np.random.default_rng(0).standard_normal((R, P))

    def numpy_loop():
        with mock.patch.dict(os.environ, {"FEDVERIFY_TC_C": "0"}):  # the library switched off, then as it was
            return fit._bootstrap_means(y, n_boot, np.random.default_rng(1))

    timing = interleaved(numpy_loop, lambda: fit._bootstrap_means(y, n_boot, np.random.default_rng(1)), runs)
    return pair_record(f"bootstrap_means_R{R}_P{P}", {"R": R, "P": P, "n_boot": n_boot}, "previous-fedverify",
                       "numpy: acc += y[idx[:, r]] for each draw r, then / R", timing, atol=0.0)


def bench_normal_draws(shape: tuple, runs: int) -> dict:
    """verify/normal_draws.py's ``randn`` against ``torch.randn`` itself, bitwise (atol 0), each from a generator seeded
    alike: su2022's feature draws (MixtureModel._features, about 7.6e5 numbers a call on average in the quick suite)
    and the correlated-noise draws of allouah2025's CafCor runs (about 3.6e3 a call)."""
    from verify.normal_draws import _checked_library, randn

    if _checked_library() is None:
        raise RuntimeError("the C kernels are not built (python -m verify.native)")
    timing = interleaved(lambda: torch.randn(shape, generator=torch.Generator().manual_seed(5), dtype=torch.float64),
                         lambda: randn(shape, generator=torch.Generator().manual_seed(5), dtype=torch.float64), runs)
    return pair_record(f"normal_draws_{'x'.join(map(str, shape))}", {"shape": list(shape)}, "torch",
                       "torch.randn(shape, generator=g, dtype=torch.float64)", timing, atol=0.0)


BENCHMARKS = {
    "threshold_step_fc_shape": lambda device, repeat: bench_tc_step(1024, 256, 1, 64, max(5, repeat), "fc_shape"),
    "threshold_step_tc_shape": lambda device, repeat: bench_tc_step(64, 1024, 4, 32, max(5, repeat), "tc_shape"),
    "gram_local_steps_c29": lambda device, repeat: bench_gram_steps(12, 200, 10, 5, max(7, repeat)),
    "gram_local_steps_c20": lambda device, repeat: bench_gram_steps(16, 100, 5, 5, max(7, repeat)),
    "bootstrap_means_large": lambda device, repeat: bench_bootstrap_means(64, 200, 2000, max(7, repeat)),
    "bootstrap_means_small": lambda device, repeat: bench_bootstrap_means(30, 50, 2000, max(7, repeat)),
    "normal_draws_features": lambda device, repeat: bench_normal_draws((48, 8, 200, 10), max(7, repeat)),
    "normal_draws_noise": lambda device, repeat: bench_normal_draws((16, 15, 240), max(15, repeat)),
}

if __name__ == "__main__":
    for key, fn in BENCHMARKS.items():
        if not key.startswith("threshold_step"):
            r = fn("cpu", 9)
            print(f"{key:<26} previous {r['baseline_s'] * 1e3:.3f} ms  fedverify {r['fedverify_s'] * 1e3:.3f} ms  "
                  f"ratio {r['ratio']:.2f}  max |diff| {r['max_abs_difference']:.1e}")
            continue
        r = fn("cpu", 7)
        print(f"{key:<26} one-block {r['previous_ns_per_element']:.2f} ns  blocked torch {r['blocked_torch_ns_per_element']:.2f} ns  "
              f"fedverify (fused={r['fused_kernel']}) {r['ns_per_element']:.2f} ns  "
              f"floor {r['floor_ns_per_element']:.2f} ns/point-coordinate  ratio {r['ratio']:.2f}  x floor {r['times_the_floor']:.2f}  "
              f"load {r['load_average'][0]:.2f}")
