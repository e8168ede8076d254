"""su2022.x04: GCYR20's synthetic IFCA protocol, batched, against a literal port of their training loop;
a planted wrong claim (one start suffices) is violated; a grid point whose sample cannot reach the
threshold is inconclusive."""
import numpy as np
import torch

from verify.checks.su2022.ifca_sweep import ifca_min_dist, instance, x04_ifca_synthetic_success
from verify.engine import Context


def literal(X, y, theta, w0, lr, epochs):
    """GCYR20's synthetic/train_cluster.py, one (data seed, train seed, lr), machine by machine: MSE loss and
    gradient per (machine, model), 'set' scores, each model moved by lr * sum(score * grad) / m; min_dist."""
    m, n, d = X.shape
    p = w0.shape[0]
    W = w0.copy()
    for _ in range(epochs):
        losses = np.zeros((m, p))
        grads = np.zeros((m, p, d))
        for i in range(m):
            for k in range(p):
                r = X[i] @ W[k] - y[i]
                losses[i, k] = np.mean(r ** 2)
                grads[i, k] = 2.0 / n * X[i].T @ r
        new = W.copy()
        for k in range(p):
            tmp = np.zeros(d)
            for i in range(m):
                tmp += (1.0 if np.argmin(losses[i]) == k else 0.0) * grads[i, k]
            new[k] = W[k] - lr * tmp / m
        W = new
    return np.mean([min(np.linalg.norm(W[k] - theta[j]) for j in range(p)) for k in range(p)])


def test_batched_equals_their_loop():
    ctx = Context(seed=3, device="cpu").for_check("su2022.x04")
    X, y, theta, W0 = instance(ctx, 2, 6, 5, 4, 2, 0.25, 0.1, 2, "data/0")
    lrs = (1.0, 0.1)
    md = ifca_min_dist(X, y, theta, W0, lrs, 20).numpy()
    for r in range(2):
        for s in range(2):
            for li, lr in enumerate(lrs):
                ref = literal(X[r].numpy(), y[r].numpy(), theta[r].numpy(), W0[r, s].numpy(), lr, 20)
                np.testing.assert_allclose(md[r, s, li], ref, rtol=1e-10, atol=1e-12)


def test_one_start_is_not_enough_planted_claim_violated():
    res = x04_ifca_synthetic_success(Context(device="cpu"), restarts=1, lrs=(0.1,))
    assert res.verdict.value == "violated" and res.observed["sweep_success"] < 0.5


def test_too_little_data_is_inconclusive():
    res = x04_ifca_synthetic_success(Context(device="cpu"), m=4, n=5, d=20, epochs=50)
    assert res.verdict.value == "inconclusive" and not res.assumptions[0].held
