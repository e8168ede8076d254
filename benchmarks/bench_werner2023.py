"""Federated-Clustering at scale (werner2023, Algorithm 2): one round at N = 256, d = 64, R = 16 batched vs
per-client loops of the same math, and the round time as N doubles (O(N^2): every client evaluates its
gradient at every model and clusters N points).

Besides the wall-clock times of benchmarks.common, each record carries process CPU times (``*_cpu_s``) with
torch on ONE thread: on a machine shared with other jobs the wall clock of the batched side swings by 3x or
more, and with several threads the CPU time also counts threads spinning while they wait; single-threaded
CPU time barely moves. The loops are single-threaded anyway, so ``cpu_ratio`` is a conservative speed-up
(an idle multi-core machine only helps the batched side). The N-doubling series is timed the same way."""
from __future__ import annotations

import time

import numpy as np
import torch

from benchmarks.common import record
from verify.algorithms.federated_clustering import fc_round
from verify.algorithms.threshold_clustering import threshold_clustering_loop
from verify.engine import Context
from verify.problems.clustered_quadratics import clustered_quadratics

TAU, M, ETA, DELTA = 40.0, 10, 0.1, 100.0


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """Best wall-clock and best process-CPU seconds over ``repeat`` runs, and the last output."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
    return wall, cpu, out


class one_thread:
    """torch on a single thread inside the block (restored after)."""

    def __enter__(self):
        self.saved = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        torch.set_num_threads(self.saved)


def _compare(name, size, baseline, fn_ours, fn_base, ctx, repeat, kind: str = "literal-loop") -> dict:
    fn_ours()  # warm-up
    fv_s, _, ours = timed(fn_ours, repeat)
    with one_thread():
        _, fv_cpu, _ = timed(fn_ours, repeat)
    base_s, base_cpu, theirs = timed(fn_base, 1)
    rec = record(name, size, baseline, base_s, fv_s, ours.cpu().numpy(), theirs, 1e-9, ctx, repeat, kind)
    return {**rec, "baseline_cpu_s": base_cpu, "fedverify_cpu_s": fv_cpu, "cpu_ratio": base_cpu / fv_cpu,
            "threads": torch.get_num_threads()}


def _instance(ctx: Context, R: int, N: int, d: int, K: int = 4):
    prob = clustered_quadratics(ctx.generator(f"problem N={N}"), R, K, N // K, d, DELTA, hessian="planted", mu=1.0, L=4.0,
                                dtype=ctx.dtype, device=ctx.torch_device)
    x = prob.optima() + torch.randn(R, N, d, generator=ctx.generator(f"models N={N}"), dtype=ctx.dtype, device=ctx.torch_device)
    return prob, x


def _round(prob, x, tau: float = TAU):
    v, _, _ = fc_round(prob, x, tau, M)
    return x - ETA * v


def fc_round_literal_loop(H, xs, x, eta, tau, steps):
    """Algorithm 2's round for ONE replicate as written: for every client i, every client j's gradient
    H_j (x_i - x*_j) one at a time, then Threshold-Clustering transcribed literally (loops over steps and points)."""
    N = x.shape[0]
    new = x.copy()
    for i in range(N):
        G = np.stack([H[j] @ (x[i] - xs[j]) for j in range(N)])
        new[i] = x[i] - eta * threshold_clustering_loop(G, G[i:i + 1], tau, steps)[0]
    return new


def fc_round_client_loop(H, xs, x, eta, tau, steps):
    """The same round for ONE replicate with a loop over clients i only: client i's N gradients and its
    Threshold-Clustering are numpy-vectorised (what a per-client simulation would do)."""
    new = x.copy()
    for i in range(x.shape[0]):
        G = np.einsum("jab,jb->ja", H, x[i] - xs)
        v = G[i].copy()
        for _ in range(steps):
            inside = np.linalg.norm(G - v, axis=1) <= tau
            v = v + (G[inside].sum(0) - inside.sum() * v) / G.shape[0]
        new[i] = x[i] - eta * v
    return new


def _loop_over_replicates(fn, prob, x):
    H, xs, xn = prob.hessians().cpu().numpy(), prob.x_star.cpu().numpy(), x.cpu().numpy()
    return np.stack([fn(H[r], xs[r], xn[r], ETA, TAU, M) for r in range(xn.shape[0])])


def bench_fc_round(device: str, repeat: int, R=16, N=256, d=64) -> dict:
    """One FC round (N^2 gradient evaluations as batched matmuls, N clusterings as one call) vs Algorithm 2
    transcribed with loops over replicates, clients i and clients j."""
    ctx = Context(device=device, check_id="benchmark.werner2023.fc_round")
    prob, x = _instance(ctx, R, N, d)
    return _compare("fc_round", {"R": R, "N": N, "d": d, "M": M},
                    "Algorithm 2 as written: loops over replicates, clients i and clients j, literal Threshold-Clustering",
                    lambda: _round(prob, x), lambda: _loop_over_replicates(fc_round_literal_loop, prob, x), ctx, repeat)


def bench_fc_round_client_loop(device: str, repeat: int, R=16, N=256, d=64) -> dict:
    """The same round vs a loop over replicates and clients i with numpy-vectorised work per client."""
    ctx = Context(device=device, check_id="benchmark.werner2023.fc_round")
    prob, x = _instance(ctx, R, N, d)
    return _compare("fc_round_client_loop", {"R": R, "N": N, "d": d, "M": M},
                    "loops over replicates and clients i; each client's gradients and clustering vectorised in numpy",
                    lambda: _round(prob, x), lambda: _loop_over_replicates(fc_round_client_loop, prob, x), ctx, repeat,
                    kind="client-loop")


def bench_fc_round_scaling(device: str, repeat: int, R=16, d=64, Ns=(32, 64, 128, 256, 512)) -> dict:
    """FC round time as N doubles (expected ratio 4: O(N^2) work per round)."""
    ctx = Context(device=device, check_id="benchmark.werner2023.scaling")
    wall, cpu = {}, {}
    for N in Ns:
        prob, x = _instance(ctx, R, N, d)
        _round(prob, x)
        wall[N], _, _ = timed(lambda: _round(prob, x), repeat)
        with one_thread():
            _, cpu[N], _ = timed(lambda: _round(prob, x), repeat)
    ratios = [cpu[b] / cpu[a] for a, b in zip(Ns[:-1], Ns[1:])]
    return {"name": "fc_round_scaling", "size": {"R": R, "d": d, "N": list(Ns), "M": M},
            "baseline": "scaling",
            "baseline_detail": f"single-thread CPU time of a round at N = {Ns[-1]} over N = {Ns[-2]} (expected 4: O(N^2))",
            "baseline_s": cpu[Ns[-1]], "fedverify_s": cpu[Ns[-2]], "ratio": ratios[-1],
            "cpu_times_s": {str(k): v for k, v in cpu.items()}, "wall_times_s": {str(k): v for k, v in wall.items()},
            "cpu_doubling_ratios": ratios, "wall_doubling_ratios": [wall[b] / wall[a] for a, b in zip(Ns[:-1], Ns[1:])],
            "device": str(ctx.torch_device), "dtype": str(ctx.dtype).replace("torch.", ""), "runs": {"fedverify": repeat},
            "threads": torch.get_num_threads()}


BENCHMARKS = {"fc_round": bench_fc_round, "fc_round_client_loop": bench_fc_round_client_loop,
              "fc_round_scaling": bench_fc_round_scaling}
