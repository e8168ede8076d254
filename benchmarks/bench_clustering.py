"""Threshold-Clustering and Federated-Clustering (werner2023): batched vs loops over replicates,
centers, points and client pairs."""
from __future__ import annotations

import numpy as np
import torch

from analytic.papers.werner2023 import theory_radius
from benchmarks.common import best_of, record
from verify.algorithms.federated_clustering import federated_clustering
from verify.algorithms.threshold_clustering import Radius, threshold_clustering, threshold_clustering_loop
from verify.engine import Context
from verify.problems.clustered_regression import planted_clustered_regression
from verify.problems.points import clustered_points


def bench_threshold_clustering(device: str, repeat: int, R=64, N=1024, d=32, K=4, M=10) -> dict:
    """Batched Threshold-Clustering [R, N, d] vs a per-replicate, per-center, per-point numpy loop."""
    ctx = Context(device=device, check_id="benchmark.tc")
    data = clustered_points(R, K, N // K, d, 1.0, 16.0, ctx.generator("points"), ctx.dtype)
    Z, V0 = data.Z, data.own_point_init()
    tau = theory_radius(1 / K, 1.0, 16.0)
    radius = Radius.fixed(tau)
    threshold_clustering(Z, V0, radius, M)  # warm-up (allocations, CUDA context)
    fv_s, (V, _) = best_of(lambda: threshold_clustering(Z, V0, radius, M), repeat)
    Zn, V0n = Z.cpu().numpy(), V0.cpu().numpy()
    base_s, Vb = best_of(lambda: np.stack([threshold_clustering_loop(Zn[r], V0n[r], tau, M) for r in range(R)]), 1)
    return record("threshold_clustering", {"R": R, "N": N, "d": d, "K": K, "M": M},
                   "per-replicate, per-center, per-point Python/numpy loop (threshold_clustering_loop)",
                   base_s, fv_s, V.cpu().numpy(), Vb, 1e-9, ctx, repeat)


def federated_clustering_loop(H, b, x0, eta, tau, T, M):
    """Algorithm 2 transcribed with loops over rounds, clients i and clients j, for ONE replicate
    (numpy): g_j(x_i) = H_j x_i - b_j one at a time, then K=1 Threshold-Clustering started at g_i(x_i)."""
    x = np.array(x0, dtype=float)
    N = x.shape[0]
    for _ in range(T):
        new = x.copy()
        for i in range(N):
            G = np.stack([H[j] @ x[i] - b[j] for j in range(N)])
            v = threshold_clustering_loop(G, G[i:i + 1], tau, M)[0]
            new[i] = x[i] - eta * v
        x = new
    return x


def bench_federated_clustering(device: str, repeat: int, R=32, K=2, n=16, d=20, T=10, M=10) -> dict:
    """Batched Federated-Clustering (all-pairs gradients [R, N, N, d] and N clusterings per call)
    vs loops over replicates, clients i and clients j with the literal Threshold-Clustering loop."""
    ctx = Context(device=device, check_id="benchmark.fc")
    prob = planted_clustered_regression(ctx.generator("problem"), R, n, K, d, m=4 * d, separation=10.0,
                                        dtype=ctx.dtype, device=ctx.torch_device)
    x0 = prob.optima() + 0.5 * torch.randn(R, K * n, d, generator=ctx.generator("init"), dtype=ctx.dtype,
                                           device=ctx.torch_device)
    eta = 0.5 / float(prob.smoothness().max())
    tau = 4.0
    federated_clustering(prob, x0, eta, 1, tau, steps=M)  # warm-up
    fv_s, tr = best_of(lambda: federated_clustering(prob, x0, eta, T, tau, steps=M), repeat)
    Hn, bn, x0n = prob.H.cpu().numpy(), prob.b.cpu().numpy(), x0.cpu().numpy()
    base_s, xb = best_of(lambda: np.stack([federated_clustering_loop(Hn[r], bn[r], x0n[r], eta, tau, T, M)
                                            for r in range(R)]), 1)
    return record("federated_clustering", {"R": R, "N": K * n, "d": d, "T": T, "M": M},
                   "loops over replicates, clients i, clients j; literal Threshold-Clustering loop per client",
                   base_s, fv_s, tr.x[-1].cpu().numpy(), xb, 1e-8, ctx, repeat)


BENCHMARKS = {"threshold_clustering": bench_threshold_clustering, "federated_clustering": bench_federated_clustering}
