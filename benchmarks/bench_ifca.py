"""IFCA (Ghosh et al. 2020, Option I) against a fair numpy transcription of the authors' update.

The reference code (github jichan3751/ifca, synthetic/train_cluster.py) loops over machines and clusters
with torch autograd: per round, MSE loss (1/n) ||X_i w_j - y_i||^2 and its gradient for every (i, j),
assignment j_i = argmin_j loss, then w_j <- w_j - lr (1/m) sum_{i: j_i = j} grad_ij. ``ifca_fair_numpy``
is what a competent numpy user writes for that update on one problem: all residuals in one product
[m n, d] x [d, p], the members' gradient sums in a second [d, m n] x [m n, p]. fedverify's ``ifca`` runs
on the problem's representation chosen by cost (raw samples when 2n < d, moments otherwise). Our loss is
||.||^2 / (2n), half the MSE, so our step is twice theirs; the final models agree to rounding.

Configurations: the reference's own (m = 100 machines, p = 2 clusters, n = 100 samples, d = 1000,
synthetic/config.json) and a small one (40, 4, 50, 100) where the moments form is the cheaper.
"""
from __future__ import annotations

import numpy as np
import torch

from benchmarks.bench_aggregators import interleaved, pair_record
from verify.algorithms.ifca import ifca
from verify.problems.clustered_regression import planted_clustered_regression


def ifca_fair_numpy(A: np.ndarray, y: np.ndarray, W0: np.ndarray, lr: float, T: int) -> np.ndarray:
    """T rounds of the reference IFCA update (MSE loss, 'set' scores, sum of members' gradients / m), vectorised:
    ``A [m, n, d]``, ``y [m, n]``, ``W0 [p, d]`` -> ``W [p, d]``."""
    m, n, d = A.shape
    p = W0.shape[0]
    A2 = A.reshape(m * n, d)
    W = W0.copy()
    clusters = np.arange(p)
    for _ in range(T):
        res = (A2 @ W.T).reshape(m, n, p) - y[..., None]  # [m, n, p]
        loss = np.einsum("mnp,mnp->mp", res, res) / n
        member = loss.argmin(1)[:, None] == clusters  # [m, p]
        G = A2.T @ (res * member[:, None, :]).reshape(m * n, p)  # [d, p]: sum over members of X_i^T r_ij
        W -= lr * (2.0 / n) * G.T / m
    return W


def bench_ifca(machines: int, p: int, n: int, d: int, runs: int, T: int = 10, lr: float = 0.1) -> dict:
    g = torch.Generator().manual_seed(0)
    prob = planted_clustered_regression(g, 1, machines // p, p, d, n, separation=float(np.sqrt(d)), noise=1e-3)
    theta0 = torch.bernoulli(torch.full((1, p, d), 0.5, dtype=torch.float64), generator=g)  # the reference's start
    A = getattr(prob, "A", None)
    if A is None:  # moments form: the baseline still gets the samples (same draws)
        A = planted_clustered_regression(torch.Generator().manual_seed(0), 1, machines // p, p, d, n,
                                         separation=float(np.sqrt(d)), noise=1e-3, representation="raw")
        An, yn = A.A[0].numpy(), A.y[0].numpy()
    else:
        An, yn = prob.A[0].numpy(), prob.y[0].numpy()
    W0 = theta0[0].numpy()
    timing = interleaved(lambda: ifca_fair_numpy(An, yn, W0, lr, T),
                         lambda: ifca(prob, theta0, 2 * lr, T, option="I", record_grads=False).theta[-1, 0].numpy(), runs)
    rep = type(prob).__name__
    return pair_record(f"ifca_m{machines}_p{p}_n{n}_d{d}", {"m": machines, "p": p, "n": n, "d": d, "T": T,
                       "representation": rep}, "ifca-fair",
                       "numpy transcription of jichan3751/ifca synthetic/train_cluster.py's update (two matrix products "
                       f"a round, one problem); fedverify on {rep}", timing, atol=1e-9, rtol=1e-9)


BENCHMARKS = {
    "ifca_vs_fair_reference_config": lambda device, repeat: bench_ifca(100, 2, 100, 1000, max(3, repeat)),
    "ifca_vs_fair_small": lambda device, repeat: bench_ifca(40, 4, 50, 100, max(5, repeat)),
}

if __name__ == "__main__":
    for key, fn in BENCHMARKS.items():
        rec = fn("cpu", 5)
        print(f"{key:<32} fair {rec['baseline_s']*1e3:9.2f} ms  ours {rec['fedverify_s']*1e3:9.2f} ms  "
              f"ratio {rec['ratio']:6.2f}  diff {rec['max_abs_difference']:.1e}  load {rec['load_average'][0]:.2f}", flush=True)
