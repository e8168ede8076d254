"""su2022 Phase 2 (FedX+clustering): one batched round vs a per-client loop of the same math."""
from __future__ import annotations

import numpy as np
import torch

from benchmarks.common import best_of, record
from verify.algorithms.two_phase import Phase2Round
from verify.engine import Context
from verify.problems.mixed_regression import pareto_sizes, planted_model


def phase2_round_loop(X, y, sizes, theta, eta, s):
    """One Phase-2 round (eq. (8) labels, s local FedAvg steps, the n_i/N average) for ONE replicate, client by
    client in numpy: X [P, d], y [P] client-major, sizes [M], theta [k, d], eta a float."""
    N = X.shape[0]
    new = theta.copy()
    start = 0
    for n in sizes:
        Xi, yi = X[start:start + n], y[start:start + n]
        start += n
        j = int(np.argmin(((yi[:, None] - Xi @ theta.T) ** 2).sum(0)))
        v = theta[j].copy()
        for _ in range(s):
            v = v - eta / n * Xi.T @ (Xi @ v - yi)
        new[j] += n / N * (v - theta[j])
    return new


def bench_phase2_round(device: str, repeat: int, R=16, M=5000, d=40, k=5, s=5) -> dict:
    """Batched Phase-2 round over all clients and replicates ([R, P, d] segment sums) vs a loop over
    replicates and clients (numpy), on Pareto(3) client sizes (n_i = 2 + floor(3 Lomax(3)), spec 1.6)."""
    ctx = Context(device=device, check_id="benchmark.su2022")
    gen = ctx.generator("federation")
    model = planted_model(R, k, d, gen, dtype=ctx.dtype, device=ctx.torch_device)
    fed = model.federation(pareto_sizes(M, 3.0, gen), gen)
    u = torch.randn(model.theta.shape, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    theta = model.theta + 0.2 * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    eta = fed.eta_for_gamma(0.5 / s)
    step = Phase2Round(fed, eta, s=s, backend="points")
    step(theta)  # warm-up
    fv_s, (new, _) = best_of(lambda: step(theta), repeat)
    Xn, yn, th, et = fed.X.cpu().numpy(), fed.y.cpu().numpy(), theta.cpu().numpy(), eta.cpu().numpy()
    sizes = fed.sizes.cpu().numpy()
    base_s, ref = best_of(lambda: np.stack([phase2_round_loop(Xn[r], yn[r], sizes, th[r], float(et[r]), s)
                                            for r in range(R)]), 1)
    return record("su2022_phase2_round", {"R": R, "M": M, "N": fed.N, "d": d, "k": k, "s": s},
                  "loop over replicates and clients, numpy (phase2_round_loop)", base_s, fv_s, new.cpu().numpy(), ref,
                  1e-9, ctx, repeat)


BENCHMARKS = {"su2022_phase2_round": bench_phase2_round}
