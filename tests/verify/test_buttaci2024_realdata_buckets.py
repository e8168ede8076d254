"""buttaci2024 x20's size groups: each client's data term over its real samples only, against the padded formula."""
from __future__ import annotations

import numpy as np
import torch

from verify.checks.buttaci2024.realdata import perturbed_rounds, size_buckets
from verify.data.softmax import softmax_rows, with_bias


def test_size_buckets_cover_each_nonempty_client_once_and_pad_to_its_group_max():
    sizes = np.array([[5, 0, 17, 3], [1, 64, 2, 17]])
    groups = size_buckets(sizes, most=3)
    flat = sizes.reshape(-1)
    covered = np.sort(np.concatenate([ix for ix, _ in groups]))
    assert np.array_equal(covered, np.flatnonzero(flat > 0))
    assert all(nb == flat[ix].max() for ix, nb in groups) and len(groups) <= 3
    padded = sum(len(ix) * nb for ix, nb in groups)
    assert padded <= 7 * 64 and padded == 64 + 2 * 17 + 4 * 5  # the optimum: {64}, {17, 17}, {1, 2, 3, 5}
    assert size_buckets(np.zeros((2, 3), dtype=int)) == []  # edge: no client has data
    assert [nb for _, nb in size_buckets(np.array([4, 4, 4]), most=4)] == [4]


def _padded_rounds(X, y, mask, P, Q, betas, *, T, E, gamma, lam):
    """The previous formula: every client's gradient over its padded row of samples (padding weighted 0)."""
    R, C, n, p = X.shape
    c = int(y.max()) + 1
    M, dt = len(betas), X.dtype
    beta = torch.as_tensor(betas, dtype=dt).view(M, 1, 1, 1, 1)
    wbar, last = torch.zeros(M, R, p, c, dtype=dt), torch.zeros(M, R, C, p, c, dtype=dt)
    Y = torch.nn.functional.one_hot(y.long(), c).to(dt)
    weight = (mask.to(dt) / mask.sum(-1, keepdim=True).clamp_min(1).to(dt))[..., None]
    out = [wbar]
    for _ in range(T):
        u = torch.einsum("rij,mrjpc->mripc", Q, last)
        w = wbar[:, :, None].expand(M, R, C, p, c).clone()
        for _ in range(E):
            V = beta * w + (1 - beta) * u
            Err = softmax_rows(torch.einsum("rcnp,mrcpk->mrcnk", X, V)) - Y
            w -= gamma * (torch.einsum("rcnp,mrcnk->mrcpk", X, Err * weight) + lam * V)
        wbar = torch.einsum("rc,mrcpk->mrpk", P, w)
        last = w
        out.append(wbar)
    return torch.stack(out)


def test_grouped_gradients_equal_the_padded_formula_on_ragged_clients():
    g = torch.Generator().manual_seed(11)
    R, C, n, p, c = 2, 5, 9, 4, 3
    X = with_bias(torch.randn(R, C, n, p - 1, generator=g, dtype=torch.float64))
    y = torch.randint(0, c, (R, C, n), generator=g)
    sizes = torch.tensor([[9, 2, 0, 5, 1], [3, 3, 8, 9, 4]])  # an empty client (edge case) and a full one
    mask = torch.arange(n)[None, None] < sizes[..., None]
    P = torch.rand(R, C, generator=g, dtype=torch.float64)
    P /= P.sum(-1, keepdim=True)
    Q = torch.rand(R, C, C, generator=g, dtype=torch.float64)
    Q /= Q.sum(-1, keepdim=True)
    kw = dict(T=3, E=2, gamma=0.3, lam=0.01)
    _, ours = perturbed_rounds(X, y, mask, X, y, mask, P, Q, (0.5, 1.0), return_models=True, **kw)
    ref = _padded_rounds(X, y, mask, P, Q, (0.5, 1.0), **kw)
    assert torch.allclose(ours, ref, rtol=1e-12, atol=1e-15)
