"""Fair baselines: what a competent numpy or torch user writes, side by side with fedverify, for
Threshold-Clustering, one Federated-Clustering round and one su2022 Phase-2 round.

numpy baselines loop over replicates with everything within a replicate vectorised over points/clients and every
product a BLAS call (matmul); torch baselines batch the replicates too (bmm). Both decide the balls by the Gram
identity (||v||^2 + ||z||^2 - 2 <v, z> against tau^2: what a competent user writes; fedverify decides the same balls
exactly, and every baseline must agree with fedverify to ``atol`` before it is timed). Threshold-Clustering and the FC
round each have two instances, named in the record (``instance``): a settled one, whose balls stop changing after a
step or two (the benchmark instances of bench_clustering.py and bench_werner2023.py), and a boundary one, whose points
sit near the spheres so that many balls change at every step; each record states the fraction of (replicate, center)
balls that changed at each step (``balls_changing_per_step``, from exact-difference balls) and its mean.

The literal loops of bench_clustering.py, bench_werner2023.py and bench_su2022.py stay: they are the correctness
oracles (the algorithms as printed) and the headline "literal-loop" ratios. Here every ratio is the MEDIAN over
``repeat`` interleaved rounds (fedverify, then each baseline) of baseline time / fedverify time, torch and numpy's BLAS
on one thread (bench_aggregators.one_thread), with the load average.

    python benchmarks/bench_fair.py [--repeat K] [--json FILE] [--only NAME]
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
from verify.algorithms.threshold_clustering import (  # noqa: E402
    Radius, ball_membership, threshold_clustering, threshold_step)
from verify.engine import Context  # noqa: E402


# -- the fair baselines ------------------------------------------------------------------------------
def tc_fair(Z: np.ndarray, V0: np.ndarray, tau: float, steps: int) -> np.ndarray:
    """Threshold-Clustering (Algorithm 3) for ONE replicate, vectorised over centers and points: every step, all
    center-point squared distances by the Gram identity (one matmul), then v_k <- v_k + (sum_{inside} z - |inside| v_k)
    / N (a second matmul)."""
    V = V0.copy()
    N = Z.shape[0]
    z2 = (Z * Z).sum(1)
    t2 = tau * tau
    for _ in range(steps):
        D2 = (V * V).sum(1)[:, None] - 2.0 * (V @ Z.T) + z2[None, :]
        inside = (D2 <= t2).astype(float)
        V = V + (inside @ Z - inside.sum(1)[:, None] * V) / N
    return V


def tc_fair_torch(Z: torch.Tensor, V0: torch.Tensor, tau: float, steps: int) -> torch.Tensor:
    """The same for ALL replicates at once in torch: two bmm a step."""
    V = V0.clone()
    N = Z.shape[1]
    z2 = (Z * Z).sum(-1)[:, None, :]
    Zt = Z.transpose(1, 2)
    for _ in range(steps):
        D2 = (V * V).sum(-1, keepdim=True) - 2.0 * torch.bmm(V, Zt) + z2
        w = (D2 <= tau * tau).to(Z.dtype)
        V = V + (torch.bmm(w, Z) - w.sum(-1, keepdim=True) * V) / N
    return V


def fc_gradients_fair(H: np.ndarray, xs: np.ndarray, x: np.ndarray) -> np.ndarray:
    """G[i, j] = H_j (x_i - x*_j) for ONE replicate, ``[N, N, d]``, by one GEMM: x [N, d] times the stacked
    Hessians [N d, d]^T (H_j symmetric), less H_j x*_j."""
    N, d = x.shape
    c = np.einsum("jab,jb->ja", H, xs)
    return (x @ H.reshape(N * d, d).T).reshape(N, N, d) - c[None]


def fc_round_fair(H: np.ndarray, xs: np.ndarray, x: np.ndarray, eta: float, tau: float, steps: int) -> np.ndarray:
    """One Federated-Clustering round (Algorithm 2) for ONE replicate, vectorised over clients i and j: all client
    pairs' gradients by one GEMM (:func:`fc_gradients_fair`), then all N clusterings (each started at G[i, i]) stepped
    together, the distances by the Gram identity and both per-step products as batched matmuls (BLAS)."""
    N = x.shape[0]
    G = fc_gradients_fair(H, xs, x)
    g2 = np.einsum("ija,ija->ij", G, G)
    V = G[np.arange(N), np.arange(N)].copy()
    t2 = tau * tau
    for _ in range(steps):
        D2 = g2 - 2.0 * np.matmul(G, V[:, :, None])[..., 0] + (V * V).sum(1)[:, None]
        inside = (D2 <= t2).astype(float)
        V = V + (np.matmul(inside[:, None, :], G)[:, 0] - inside.sum(1)[:, None] * V) / N
    return x - eta * V


def fc_round_fair_torch(H: torch.Tensor, xs: torch.Tensor, x: torch.Tensor, eta: float, tau: float,
                        steps: int) -> torch.Tensor:
    """The same round for ALL replicates at once in torch: the gradients by one bmm ``[R, N, d] x [R, d, N d]``,
    the R N clusterings stepped together (two bmm a step)."""
    R, N, d = x.shape
    c = torch.einsum("rjab,rjb->rja", H, xs)
    G = (torch.bmm(x, H.reshape(R, N * d, d).transpose(1, 2)).reshape(R, N, N, d) - c[:, None]).reshape(R * N, N, d)
    g2 = (G * G).sum(-1)
    V = torch.diagonal(G.reshape(R, N, N, d), dim1=1, dim2=2).permute(0, 2, 1).reshape(R * N, d).clone()
    for _ in range(steps):
        D2 = g2 - 2.0 * torch.bmm(G, V[:, :, None])[..., 0] + (V * V).sum(1)[:, None]
        w = (D2 <= tau * tau).to(G.dtype)
        V = V + (torch.bmm(w[:, None, :], G)[:, 0] - w.sum(1)[:, None] * V) / N
    return x - eta * V.reshape(R, N, d)


def balls_changing(Z: torch.Tensor, V0: torch.Tensor, radius, steps: int) -> list[float]:
    """The fraction of (replicate, center) balls that differ from the previous step's, at steps 2..``steps``
    (exact-difference balls, the step without shortcuts)."""
    V, prev, out = V0, None, []
    for _ in range(steps):
        inside, _ = ball_membership(Z, V, radius)
        if prev is not None:
            out.append(float((inside != prev).any(-1).double().mean()))
        prev = inside
        V = threshold_step(Z, V, radius)
    return out


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
def interleaved(fv, bases: dict, repeat: int) -> tuple[list[float], dict]:
    """``repeat`` rounds: fedverify, then each baseline, each timed alone (after one warm-up of each)."""
    fv()
    for b in bases.values():
        b()
    t_fv, t_base = [], {k: [] for k in bases}
    for _ in range(repeat):
        t0 = time.perf_counter()
        fv()
        t_fv.append(time.perf_counter() - t0)
        for k, b in bases.items():
            t0 = time.perf_counter()
            b()
            t_base[k].append(time.perf_counter() - t0)
    return t_fv, t_base


def _records(name, size, instance: str, fv, bases: dict, atol, repeat, changing: list[float] | None = None) -> list:
    """One record per baseline of ``bases`` (kind -> (description, function)), all timed in the same interleaved
    rounds; refused when a baseline and fedverify disagree by more than ``atol``."""
    from benchmarks.bench_aggregators import one_thread

    ours = np.asarray(fv())
    diffs = {}
    for kind, (_, fn) in bases.items():
        diffs[kind] = float(np.abs(ours - np.asarray(fn())).max())
        if diffs[kind] > atol:
            raise AssertionError(f"{name} ({instance}): {kind} baseline and fedverify disagree by {diffs[kind]}")
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with one_thread():  # numpy's BLAS on one thread too, whatever OMP_NUM_THREADS says
            t_fv, t_base = interleaved(fv, {k: fn for k, (_, fn) in bases.items()}, repeat)
    finally:
        torch.set_num_threads(saved)
    recs = []
    for kind, (desc, _) in bases.items():
        ratios = [b / f for f, b in zip(t_fv, t_base[kind])]
        rec = {"name": f"{name}_{instance}_vs_{kind.replace('fair-', '')}", "size": size, "instance": instance,
               "baseline": kind, "baseline_detail": desc,
               "baseline_s": statistics.median(t_base[kind]), "fedverify_s": statistics.median(t_fv),
               "ratio": statistics.median(ratios), "ratios": ratios, "max_abs_difference": diffs[kind],
               "timing": f"median of {repeat} interleaved single-thread rounds", "device": "cpu", "dtype": "float64",
               "load_average": os.getloadavg(),
               "threads": {"torch": 1, "blas": 1, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}}
        if changing is not None:
            rec["balls_changing_per_step"] = changing
            rec["balls_changing_mean"] = float(np.mean(changing)) if changing else 0.0
        recs.append(rec)
    return recs


#: The instances: tau of the settled (the benchmark's) and the boundary one, per kernel.
TC_TAU = {"settled": None, "boundary": 1.2}  # None: the theory radius, tau = 2
FC_TAU = {"settled": 40.0, "boundary": 10.0}


def bench_tc_fair(device: str, repeat: int, instance: str = "settled", R=64, N=1024, d=32, K=4, M=10) -> list:
    """The instance of bench_clustering.bench_threshold_clustering (the literal-loop row): K = 4 clusters of 256
    points, within-cluster std 1, separation 16; settled: the theory radius tau = 2 (no ball changes after the
    first step); boundary: tau = 1.2, near the points' distances to the centers (most balls change at every
    step)."""
    from verify.problems.points import clustered_points

    ctx = Context(device="cpu", check_id="benchmark.tc")
    data = clustered_points(R, K, N // K, d, 1.0, 16.0, ctx.generator("points"), ctx.dtype)
    Z, V0 = data.Z, data.own_point_init()
    tau = TC_TAU[instance] or theory_radius(1 / K, 1.0, 16.0)
    radius = Radius.fixed(tau)
    Zn, V0n = Z.numpy(), V0.numpy()
    bases = {"fair-numpy": ("loop over replicates; Gram-identity distances and the update as two matmuls",
                            lambda: np.stack([tc_fair(Zn[r], V0n[r], tau, M) for r in range(R)])),
             "fair-torch": ("all replicates at once: Gram-identity distances and the update as two bmm a step",
                            lambda: tc_fair_torch(Z, V0, tau, M).numpy())}
    return _records("threshold_clustering", {"R": R, "N": N, "d": d, "K": K, "M": M, "tau": tau}, instance,
                    lambda: threshold_clustering(Z, V0, radius, M)[0].numpy(), bases, 1e-9, repeat,
                    balls_changing(Z, V0, radius, M))


def bench_fc_round_fair(device: str, repeat: int, instance: str = "settled", R=16, N=256, d=64) -> list:
    """The instance of bench_werner2023.bench_fc_round (the literal-loop row): 4 clusters of planted quadratics
    (mu 1, L 4, optima 100 apart), models at the optima plus N(0, I); settled: tau = 40 (every ball is its
    client's cluster from the first step); boundary: tau = 10, near the spread of a cluster's gradients at a model
    (a third of the balls change a step)."""
    from benchmarks.bench_werner2023 import ETA, M, _instance, _round
    from verify.algorithms.federated_clustering import _gradients_at_models

    ctx = Context(device="cpu", check_id="benchmark.werner2023.fc_round")
    prob, x = _instance(ctx, R, N, d)
    tau = FC_TAU[instance]
    H, xs = prob.hessians(), prob.x_star
    Hn, xsn, xn = H.numpy(), xs.numpy(), x.numpy()
    G = _gradients_at_models(prob, x, None, 1).reshape(R * N, N, d)
    V0 = torch.diagonal(G.reshape(R, N, N, d), dim1=1, dim2=2).permute(0, 2, 1).reshape(R * N, 1, d)
    changing = balls_changing(G, V0, Radius.fixed(tau), M)
    del G, V0
    bases = {"fair-numpy": ("loop over replicates; all pairs' gradients by one GEMM, the N clusterings by batched "
                            "matmuls (Gram-identity distances)",
                            lambda: np.stack([fc_round_fair(Hn[r], xsn[r], xn[r], ETA, tau, M) for r in range(R)])),
             "fair-torch": ("all replicates at once: the gradients by one bmm, the R N clusterings by two bmm a step",
                            lambda: fc_round_fair_torch(H, xs, x, ETA, tau, M).numpy())}
    return _records("fc_round", {"R": R, "N": N, "d": d, "M": M, "tau": tau}, instance,
                    lambda: _round(prob, x, tau).numpy(), bases, 1e-8, repeat, changing)


def bench_phase2_fair(device: str, repeat: int, R=16, M=5000, d=40, k=5, s=5) -> list:
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
    base = lambda: np.stack([phase2_round_fair(Xn[r], yn[r], sizes, th[r], float(et[r]), s)  # noqa: E731
                             for r in range(R)])
    return _records("su2022_phase2_round", {"R": R, "M": M, "N": int(fed.N), "d": d, "k": k, "s": s}, "planted",
                    lambda: step(theta)[0].numpy(),
                    {"fair-numpy": ("loop over replicates; labels, Gram matrices (segment sums) and the s local steps "
                                    "vectorised over clients", base)}, 1e-9, repeat)


BENCHMARKS = {"threshold_clustering_settled": lambda device, repeat: bench_tc_fair(device, repeat, "settled"),
              "threshold_clustering_boundary": lambda device, repeat: bench_tc_fair(device, repeat, "boundary"),
              "fc_round_settled": lambda device, repeat: bench_fc_round_fair(device, repeat, "settled"),
              "fc_round_boundary": lambda device, repeat: bench_fc_round_fair(device, repeat, "boundary"),
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
        for rec in fn("cpu", args.repeat):
            recs.append(rec)
            print(f"{rec['name']:<44} baseline {rec['baseline_s']:.4f}s  fedverify {rec['fedverify_s']:.4f}s  "
                  f"ratio {rec['ratio']:.2f}x (rounds: {min(rec['ratios']):.2f}-{max(rec['ratios']):.2f})  "
                  f"balls changing {rec.get('balls_changing_mean', float('nan')):.2f}  "
                  f"load {rec['load_average'][0]:.1f}",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(recs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
