"""IFCA (Ghosh et al. 2020, Option I) against a fair numpy transcription of the authors' update.

The reference code (github jichan3751/ifca, synthetic/train_cluster.py) loops over machines and clusters
with torch autograd: per round, MSE loss (1/n) ||X_i w_j - y_i||^2 and its gradient for every (i, j),
assignment j_i = argmin_j loss, then w_j <- w_j - lr (1/m) sum_{i: j_i = j} grad_ij. ``ifca_fair_numpy``
is what a competent numpy user writes for that update on one problem: all residuals in one product
[m n, d] x [d, p], the members' gradient sums in a second [p, m n] x [m n, d] (both in the fast GEMM orientation),
returning the same trace as fedverify (the models and every machine's loss at every model, every round);
``ifca_fair_torch`` is the same for all replicates at once. Rows at R = 1 and R = 4 replicates. fedverify's ``ifca``
runs on the samples (``representation="raw"``), as the baselines, and forms each machine's gradient only at its
assigned model (verify/problems/clustered_regression.py, IFCAPass): one pass over the samples a round, in blocks of
machines that stay in the cache between the residuals of the p models and the assigned model's gradient, against the
baselines' two passes (their second product computes every machine's gradient at all p models and masks p - 1 of
them). It also returns what the baselines do not: every machine's loss after the last round. Our loss is
||.||^2 / (2n), half the MSE, so our step is twice theirs; the traces agree to rounding.

Configurations: the reference's own (m = 100 machines, p = 2 clusters, n = 100 samples, d = 1000,
synthetic/config.json) and a small one (40, 4, 50, 100).
"""
from __future__ import annotations

import numpy as np
import torch

from benchmarks.bench_aggregators import interleaved, pair_record
from verify.algorithms.ifca import ifca
from verify.problems.clustered_regression import planted_clustered_regression


def ifca_fair_numpy(A: np.ndarray, y: np.ndarray, W0: np.ndarray, lr: float, T: int) -> np.ndarray:
    """T rounds of the reference IFCA update (MSE loss, 'set' scores, sum of members' gradients / m), vectorised,
    for ONE problem: ``A [m, n, d]``, ``y [m, n]``, ``W0 [p, d]``. Returns the trace fedverify's ``ifca`` returns,
    flattened: the models of every round ``[T + 1, p, d]`` and every machine's loss at every model in every round
    ``[T, p, m]`` (the MSE, twice fedverify's loss). Two GEMMs a round, both in the fast orientation: the residuals
    ``[m n, d] x [d, p]`` and the members' masked residuals times the samples ``[p, m n] x [m n, d]``."""
    m, n, d = A.shape
    p = W0.shape[0]
    A2 = A.reshape(m * n, d)
    W = W0.copy()
    clusters = np.arange(p)
    Ws, losses = [W.copy()], []
    for _ in range(T):
        res = (A2 @ W.T).reshape(m, n, p) - y[..., None]  # [m, n, p]
        loss = np.einsum("mnp,mnp->mp", res, res) / n
        member = loss.argmin(1)[:, None] == clusters  # [m, p]
        G = (res * member[:, None, :]).reshape(m * n, p).T @ A2  # [p, d]: sum over members of r_ij^T X_i
        W = W - lr * (2.0 / n) * G / m
        Ws.append(W.copy()), losses.append(loss.T)
    return np.concatenate([np.stack(Ws).ravel(), np.stack(losses).ravel()])


def ifca_fair_torch(A: torch.Tensor, y: torch.Tensor, W0: torch.Tensor, lr: float, T: int) -> torch.Tensor:
    """The same for R problems at once in torch (``A [R, m, n, d]``, ``y [R, m, n]``, ``W0 [R, p, d]``): two bmm a
    round in the same orientations; the trace flattened replicate by replicate as :func:`ifca_fair_numpy`'s."""
    R, m, n, d = A.shape
    p = W0.shape[1]
    A2 = A.reshape(R, m * n, d)
    W = W0.clone()
    Ws, losses = [W.clone()], []
    for _ in range(T):
        res = torch.bmm(A2, W.transpose(1, 2)).reshape(R, m, n, p) - y[..., None]
        loss = (res * res).sum(2) / n  # [R, m, p]
        member = torch.nn.functional.one_hot(loss.argmin(-1), p).to(A.dtype)  # [R, m, p]
        G = torch.bmm((res * member[:, :, None, :]).reshape(R, m * n, p).transpose(1, 2), A2)  # [R, p, d]
        W = W - lr * (2.0 / n) * G / m
        Ws.append(W.clone()), losses.append(loss.transpose(1, 2))
    return torch.cat([torch.stack(Ws, 1).reshape(R, -1), torch.stack(losses, 1).reshape(R, -1)], 1).reshape(-1)


def _trace(tr) -> np.ndarray:
    """fedverify's trace in the baselines' layout (models, then losses as MSE), replicate by replicate."""
    R = tr.theta.shape[1]
    th = tr.theta.transpose(0, 1).reshape(R, -1)
    lo = (2.0 * tr.losses).transpose(0, 1).reshape(R, -1)
    return torch.cat([th, lo], 1).reshape(-1).numpy()


def bench_ifca(machines: int, p: int, n: int, d: int, runs: int, T: int = 10, lr: float = 0.1, R: int = 1,
               baseline: str = "numpy") -> dict:
    g = torch.Generator().manual_seed(0)
    # the samples, as the baselines get them: fedverify's IFCA forms each client's gradient only at its model from
    # them ((p + 1) n d flops a machine), which beats the moments' p d^2 at both configurations
    prob = planted_clustered_regression(g, R, machines // p, p, d, n, separation=float(np.sqrt(d)), noise=1e-3,
                                        representation="raw")
    theta0 = torch.bernoulli(torch.full((R, p, d), 0.5, dtype=torch.float64), generator=g)  # the reference's start
    raw = prob
    ours = lambda: _trace(ifca(prob, theta0, 2 * lr, T, option="I", record_grads=False))  # noqa: E731
    if baseline == "numpy":
        An, yn, W0 = raw.A.numpy(), raw.y.numpy(), theta0.numpy()
        base = lambda: np.concatenate([ifca_fair_numpy(An[r], yn[r], W0[r], lr, T) for r in range(R)])  # noqa: E731
        detail = ("numpy transcription of jichan3751/ifca synthetic/train_cluster.py's update, a loop over replicates, "
                  "two GEMMs a round in the fast orientation, returning the models and every loss of every round")
    else:
        base = lambda: ifca_fair_torch(raw.A, raw.y, theta0, lr, T).numpy()  # noqa: E731
        detail = "the same in torch, all replicates at once (two bmm a round), returning the same trace"
    timing = interleaved(base, ours, runs)
    rep = type(prob).__name__
    return pair_record(f"ifca_m{machines}_p{p}_n{n}_d{d}_R{R}_vs_{baseline}",
                       {"m": machines, "p": p, "n": n, "d": d, "T": T, "R": R, "representation": rep},
                       f"ifca-fair-{baseline}", detail + f"; fedverify on {rep}", timing, atol=1e-9, rtol=1e-9)


BENCHMARKS = {
    f"ifca_{cfg}_R{R}_vs_{base}": (lambda device, repeat, a=args, R=R, base=base: bench_ifca(*a, max(3, repeat), R=R,
                                                                                            baseline=base))
    for cfg, args in (("reference_config", (100, 2, 100, 1000)), ("small", (40, 4, 50, 100)))
    for R in (1, 4) for base in ("numpy", "torch")
}

if __name__ == "__main__":
    for key, fn in BENCHMARKS.items():
        rec = fn("cpu", 5)
        print(f"{key:<40} fair {rec['baseline_s']*1e3:9.2f} ms  ours {rec['fedverify_s']*1e3:9.2f} ms  "
              f"ratio {rec['ratio']:6.2f}  diff {rec['max_abs_difference']:.1e}  load {rec['load_average'][0]:.2f}",
              flush=True)
