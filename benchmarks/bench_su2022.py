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
    """Batched Phase-2 round over all clients and replicates (the auto backend: client kernels here, since
    the clients are small against d) vs a loop over replicates and clients (numpy), on Pareto(3) client
    sizes (n_i = 2 + floor(3 Lomax(3)), spec 1.6). Also records the one-off setup and the points backend."""
    ctx = Context(device=device, check_id="benchmark.su2022")
    gen = ctx.generator("federation")
    model = planted_model(R, k, d, gen, dtype=ctx.dtype, device=ctx.torch_device)
    fed = model.federation(pareto_sizes(M, 3.0, gen), gen)
    u = torch.randn(model.theta.shape, generator=gen, dtype=ctx.dtype, device=ctx.torch_device)
    theta = model.theta + 0.2 * u / torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    eta = fed.eta_for_gamma(0.5 / s)
    setup_s, step = best_of(lambda: Phase2Round(fed, eta, s=s), 1)  # auto backend; the first call builds the kernels
    step(theta)  # warm-up
    fv_s, (new, _) = best_of(lambda: step(theta), repeat)
    points = Phase2Round(fed, eta, s=s, backend="points")
    points(theta)
    points_s, (by_points, _) = best_of(lambda: points(theta), repeat)
    assert torch.allclose(new, by_points, atol=1e-9), "kernel and points backends disagree"
    Xn, yn, th, et = fed.X.cpu().numpy(), fed.y.cpu().numpy(), theta.cpu().numpy(), eta.cpu().numpy()
    sizes = fed.sizes.cpu().numpy()
    base_s, ref = best_of(lambda: np.stack([phase2_round_loop(Xn[r], yn[r], sizes, th[r], float(et[r]), s)
                                            for r in range(R)]), 1)
    rec = record("su2022_phase2_round", {"R": R, "M": M, "N": fed.N, "d": d, "k": k, "s": s},
                 "loop over replicates and clients, numpy (phase2_round_loop)", base_s, fv_s, new.cpu().numpy(), ref,
                 1e-9, ctx, repeat)
    # the per-federation setup (client kernels, S_i) is paid once per run of T rounds; the points backend
    # (segment sums, no setup) is the one-pass alternative
    rec.update(backend=step.backend, setup_s=setup_s, ratio_with_setup=base_s / (setup_s + fv_s),
               points_backend_s=points_s, points_backend_ratio=base_s / points_s)
    return rec


BENCHMARKS = {"su2022_phase2_round": bench_phase2_round}
