"""Fair baselines: what a competent numpy user writes (a loop over replicates, everything within a
replicate vectorised over points/clients), side by side with fedverify's batched torch code, for
Threshold-Clustering, one Federated-Clustering round and one su2022 Phase-2 round.

The literal loops of bench_clustering.py, bench_werner2023.py and bench_su2022.py stay: they are the
correctness oracles (the algorithms as printed) and the headline "literal-loop" ratios. Here every
record has ``baseline: "fair-numpy"`` and its ``ratio`` is the MEDIAN over ``repeat`` interleaved pairs
(fedverify, baseline, fedverify, baseline, ...) of baseline time / fedverify time, torch and numpy's BLAS on one
thread (bench_aggregators.one_thread).
Each fair baseline must agree with fedverify to ``atol`` before it is timed.

    python benchmarks/bench_fair.py [--repeat K] [--json FILE]
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from analytic.papers.werner2023 import theory_radius  # noqa: E402
from verify.algorithms.threshold_clustering import Radius, threshold_clustering  # noqa: E402
from verify.engine import Context  # noqa: E402


# -- the fair baselines ------------------------------------------------------------------------------
def tc_fair(Z: np.ndarray, V0: np.ndarray, tau: float, steps: int) -> np.ndarray:
    """Threshold-Clustering (Algorithm 3) for ONE replicate, vectorised over centers and points:
    every step, all center-point distances at once, then v_k <- v_k + (sum_{inside} z - |inside| v_k) / N."""
    V = V0.copy()
    N = Z.shape[0]
    z2 = (Z * Z).sum(1)
    for _ in range(steps):
        D2 = (V * V).sum(1)[:, None] - 2.0 * V @ Z.T + z2[None, :]
        inside = (np.sqrt(np.maximum(D2, 0.0)) <= tau).astype(float)
        V = V + (inside @ Z - inside.sum(1)[:, None] * V) / N
    return V


def fc_round_fair(H: np.ndarray, xs: np.ndarray, x: np.ndarray, eta: float, tau: float, steps: int) -> np.ndarray:
    """One Federated-Clustering round (Algorithm 2) for ONE replicate, vectorised over clients i and j:
    G[i, j] = H_j (x_i - x*_j) for all pairs at once, then all N clusterings (each started at G[i, i])
    stepped together."""
    N = x.shape[0]
    G = np.einsum("jab,ijb->ija", H, x[:, None, :] - xs[None, :, :])  # [N, N, d]
    V = G[np.arange(N), np.arange(N)].copy()
    for _ in range(steps):
        inside = (np.linalg.norm(G - V[:, None, :], axis=-1) <= tau).astype(float)  # [N, N]
        V = V + (np.einsum("ij,ija->ia", inside, G) - inside.sum(1)[:, None] * V) / N
    return x - eta * V


def phase2_round_fair(X: np.ndarray, y: np.ndarray, sizes: np.ndarray, theta: np.ndarray, eta: float, s: int) -> np.ndarray:
    """One su2022 Phase-2 round for ONE replicate, vectorised over clients: eq. (8) labels from per-client
    segment sums of the squared residuals, s local FedAvg steps for all clients at once (each point's residual
    at its client's model, the gradients by segment sums), then the n_i / N weighted update of each cluster."""
    N, d = X.shape
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(len(sizes)), sizes)
    res2 = (y[:, None] - X @ theta.T) ** 2  # [N, k]
    labels = np.add.reduceat(res2, starts, axis=0).argmin(1)  # [M]
    v = theta[labels].copy()
    step = (eta / sizes)[:, None]
    for _ in range(s):
        r = np.einsum("pd,pd->p", X, v[owner]) - y
        v = v - step * np.add.reduceat(X * r[:, None], starts, axis=0)
    new = theta.copy()
    np.add.at(new, labels, (sizes / N)[:, None] * (v - theta[labels]))
    return new


# -- timing ------------------------------------------------------------------------------------------
def interleaved(fv, base, repeat: int) -> tuple[list[float], list[float]]:
    """``repeat`` pairs: fedverify then baseline, each timed alone (after one warm-up of each)."""
    fv(), base()
    t_fv, t_base = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fv()
        t1 = time.perf_counter()
        base()
        t2 = time.perf_counter()
        t_fv.append(t1 - t0)
        t_base.append(t2 - t1)
    return t_fv, t_base


def _record(name, size, baseline_desc, fv, base, fv_out, base_out, atol, repeat) -> dict:
    diff = float(np.abs(np.asarray(fv_out) - np.asarray(base_out)).max())
    if diff > atol:
        raise AssertionError(f"{name}: fair baseline and fedverify disagree by {diff}")
    from benchmarks.bench_aggregators import one_thread

    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with one_thread():  # numpy's BLAS on one thread too, whatever OMP_NUM_THREADS says
            t_fv, t_base = interleaved(fv, base, repeat)
    finally:
        torch.set_num_threads(saved)
    ratios = [b / f for f, b in zip(t_fv, t_base)]
    return {"name": name, "size": size, "baseline": "fair-numpy", "baseline_detail": baseline_desc,
            "baseline_s": statistics.median(t_base), "fedverify_s": statistics.median(t_fv),
            "ratio": statistics.median(ratios), "ratios": ratios, "max_abs_difference": diff,
            "timing": f"median of {repeat} interleaved single-thread pairs", "device": "cpu", "dtype": "float64",
            "threads": {"torch": 1, "blas": 1, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}}


def bench_tc_fair(device: str, repeat: int, R=64, N=1024, d=32, K=4, M=10) -> dict:
    """The instance of bench_clustering.bench_threshold_clustering (the literal-loop row)."""
    from verify.problems.points import clustered_points

    ctx = Context(device="cpu", check_id="benchmark.tc")
    data = clustered_points(R, K, N // K, d, 1.0, 16.0, ctx.generator("points"), ctx.dtype)
    Z, V0 = data.Z, data.own_point_init()
    tau = theory_radius(1 / K, 1.0, 16.0)
    radius = Radius.fixed(tau)
    Zn, V0n = Z.numpy(), V0.numpy()
    fv = lambda: threshold_clustering(Z, V0, radius, M)[0]  # noqa: E731
    base = lambda: np.stack([tc_fair(Zn[r], V0n[r], tau, M) for r in range(R)])  # noqa: E731
    return _record("threshold_clustering_fair", {"R": R, "N": N, "d": d, "K": K, "M": M},
                   "loop over replicates; centers x points distances and the update vectorised in numpy",
                   fv, base, fv().numpy(), base(), 1e-9, repeat)


def bench_fc_round_fair(device: str, repeat: int, R=16, N=256, d=64) -> dict:
    """The instance of bench_werner2023.bench_fc_round (the literal-loop row)."""
    from benchmarks.bench_werner2023 import ETA, M, TAU, _instance, _round

    ctx = Context(device="cpu", check_id="benchmark.werner2023.fc_round")
    prob, x = _instance(ctx, R, N, d)
    H, xs, xn = prob.hessians().numpy(), prob.x_star.numpy(), x.numpy()
    fv = lambda: _round(prob, x)  # noqa: E731
    base = lambda: np.stack([fc_round_fair(H[r], xs[r], xn[r], ETA, TAU, M) for r in range(R)])  # noqa: E731
    return _record("fc_round_fair", {"R": R, "N": N, "d": d, "M": M},
                   "loop over replicates; all client pairs' gradients and all N clusterings vectorised in numpy",
                   fv, base, fv().numpy(), base(), 1e-8, repeat)


def bench_phase2_fair(device: str, repeat: int, R=16, M=5000, d=40, k=5, s=5) -> dict:
    """The instance of bench_su2022.bench_phase2_round (the literal-loop row); fedverify's kernels are built
    once per federation (as in a run of T rounds), so the timed call is one round."""
    from verify.algorithms.two_phase import Phase2Round
    from verify.problems.mixed_regression import pareto_sizes, planted_model

    ctx = Context(device="cpu", check_id="benchmark.su2022")
    gen = ctx.generator("federation")
    model = planted_model(R, k, d, gen, dtype=ctx.dtype, device=ctx.torch_device)
    fed = model.federation(pareto_sizes(M, 3.0, gen), gen)
    u = torch.randn(model.theta.shape, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    theta = model.theta + 0.2 * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    eta = fed.eta_for_gamma(0.5 / s)
    step = Phase2Round(fed, eta, s=s)
    Xn, yn, th, et, sizes = fed.X.numpy(), fed.y.numpy(), theta.numpy(), eta.numpy(), fed.sizes.numpy()
    fv = lambda: step(theta)[0]  # noqa: E731
    base = lambda: np.stack([phase2_round_fair(Xn[r], yn[r], sizes, th[r], float(et[r]), s) for r in range(R)])  # noqa: E731
    return _record("su2022_phase2_round_fair", {"R": R, "M": M, "N": int(fed.N), "d": d, "k": k, "s": s},
                   "loop over replicates; labels, Gram matrices (segment sums) and the s local steps vectorised over clients",
                   fv, base, fv().numpy(), base(), 1e-9, repeat)


BENCHMARKS = {"threshold_clustering_fair": bench_tc_fair, "fc_round_fair": bench_fc_round_fair,
              "su2022_phase2_round_fair": bench_phase2_fair}


def main(argv=None) -> int:
    import argparse
    import json

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--only", choices=sorted(BENCHMARKS))
    p.add_argument("--json", help="write the records to this file")
    args = p.parse_args(argv)
    recs = []
    for name, fn in BENCHMARKS.items():
        if args.only and name != args.only:
            continue
        rec = fn("cpu", args.repeat)
        recs.append(rec)
        print(f"{name:<28} fair-numpy {rec['baseline_s']:.4f}s  fedverify {rec['fedverify_s']:.4f}s  ratio {rec['ratio']:.2f}x "
              f"(pairs: {min(rec['ratios']):.2f}-{max(rec['ratios']):.2f})", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(recs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
