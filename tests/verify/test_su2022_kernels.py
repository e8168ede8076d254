"""su2022's faster kernels against the formulas they replace: bitwise where the same operations run (buffers reused,
products not multiplied by 1 or I), within 1e-12 where a product's summation order changed (and then the labels,
an argmin, equal)."""
import pytest
import torch

from verify.algorithms.moment_descent import _BLOCK_ELEMENTS, residual_moment
from verify.algorithms.two_phase import (
    Phase2Round,
    client_normal_equations,
    gram_rows,
    matrix_power_sum,
    preconditioners,
    quadratic_coefficients,
)
from verify.problems.mixed_regression import MixtureModel, planted_model
from verify.workspace import workspace


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# -- the previous formulas --------------------------------------------------------------------------
def residual_moment_before(X1, y1, X2, y2, theta):
    R, m, d = X1.shape
    H = theta.shape[1]
    X1, X2, thT = X1.contiguous(), X2.contiguous(), theta.transpose(1, 2).contiguous()
    w = (y1[..., None] - X1 @ thT) * (y2[..., None] - X2 @ thT)
    per_client = H * d if H < d else d * d
    block = max(1, _BLOCK_ELEMENTS // (R * per_client))
    Y = torch.zeros(R, H * d if H < d else H, d if H < d else d * d, dtype=X1.dtype)
    for s in range(0, m, block):
        x1, x2, wb = X1[:, s:s + block], X2[:, s:s + block], w[:, s:s + block]
        if H < d:
            Y += (wb[..., None] * x1[:, :, None, :]).reshape(R, -1, H * d).transpose(1, 2) @ x2
        else:
            Y += wb.transpose(1, 2) @ (x1[..., :, None] * x2[..., None, :]).reshape(R, -1, d * d)
    return (Y / m).reshape(R, H, d, d)


def points_before(mod: MixtureModel, z, n_points, generator):
    R, shape = z.shape[0], tuple(z.shape[1:])
    flat = z.reshape(R, -1)
    cov = torch.gather(mod.cov, 1, flat[..., None].expand(R, flat.shape[1], mod.d))
    theta = torch.gather(mod.theta, 1, flat[..., None].expand(R, flat.shape[1], mod.d))
    X = mod._features((R, flat.shape[1], n_points, mod.d), generator) * cov.sqrt()[:, :, None, :]
    zeta = mod.sigma * torch.randn(R, flat.shape[1], n_points, generator=generator, dtype=X.dtype)
    y = (X * theta[:, :, None, :]).sum(-1) + zeta
    return X.reshape(R, *shape, n_points, mod.d), y.reshape(R, *shape, n_points), zeta.reshape(R, *shape, n_points)


def gram_losses_before(step: Phase2Round, theta):
    R, M, d = step.fed.R, step.fed.M, step.fed.d
    Gt = (step.G.reshape(R, M * d, d) @ theta.transpose(1, 2)).reshape(R, M, d, -1)
    quad = (Gt * theta.transpose(1, 2)[:, None]).sum(2)
    return step.cy[..., None] - 2 * step.b @ theta.transpose(1, 2) + quad


def power_sum_before(A, s):
    eye = torch.eye(A.shape[-1], dtype=A.dtype)
    P, power = torch.zeros_like(A), eye.expand_as(A)
    for _ in range(s):
        P, power = P + power, power @ A
    return P


# -- residual_moment ----------------------------------------------------------------------------------
@pytest.mark.parametrize("R,m,d,H", [(2, 300, 4, 2), (2, 300, 3, 5), (1, 1, 2, 1), (3, 200_000, 3, 4), (2, 50_000, 6, 2)])
def test_residual_moment_is_bitwise_the_previous_formula(R, m, d, H):
    """Few and many anchors, one client (m = 1), pools longer than one block (the last block partial), and strided
    pairs (X[:, :, 0] of [R, m, 2, d], as Phase 1 passes them)."""
    g = gen(R * m + d)
    X = torch.randn(R, m, 2, d, generator=g, dtype=torch.float64)
    y = torch.randn(R, m, 2, generator=g, dtype=torch.float64)
    theta = torch.randn(R, H, d, generator=g, dtype=torch.float64)
    args = (X[:, :, 0], y[:, :, 0], X[:, :, 1], y[:, :, 1], theta)
    assert torch.equal(residual_moment(*args), residual_moment_before(*args))


def test_residual_moment_workspace_reuse_between_shapes():
    """A large call, then a smaller one and a larger one again: the kept buffers never leak values between calls."""
    g = gen(5)
    shapes = [(3, 5000, 4, 6), (2, 17, 5, 2), (4, 9000, 4, 6), (2, 17, 5, 2)]
    for R, m, d, H in shapes:
        X1, X2 = (torch.randn(R, m, d, generator=g, dtype=torch.float64) for _ in range(2))
        y1, y2 = (torch.randn(R, m, generator=g, dtype=torch.float64) for _ in range(2))
        theta = torch.randn(R, H, d, generator=g, dtype=torch.float64)
        assert torch.equal(residual_moment(X1, y1, X2, y2, theta), residual_moment_before(X1, y1, X2, y2, theta))


def test_workspace_views_are_contiguous_and_grow():
    like = torch.zeros(1, dtype=torch.float64)
    a = workspace("test/ws", (3, 4), like)
    b = workspace("test/ws", (5, 7), like)
    assert a.shape == (3, 4) and b.shape == (5, 7) and b.is_contiguous()
    assert workspace("test/ws", (2, 2), like).data_ptr() == b.data_ptr()  # kept: the smaller view reuses the buffer


# -- the model's samples ---------------------------------------------------------------------------------
@pytest.mark.parametrize("covariance,features", [("identity", "gaussian"), ("heterogeneous", "gaussian"),
                                                 ("identity", "rademacher")])
def test_points_and_federation_are_bitwise_the_previous_formula(covariance, features):
    mod = planted_model(3, 3, 5, gen(1), covariance=covariance, features=features, sigma=0.3)
    z = mod.labels(40, gen(2))
    new, old = mod.points(z, 4, gen(3)), points_before(mod, z, 4, gen(3))
    assert all(torch.equal(a, b) for a, b in zip(new, old))
    assert mod.identity_cov == (covariance == "identity")
    sizes = torch.tensor([1, 3, 2, 7])
    fed = mod.federation(sizes, gen(4))
    g = gen(4)
    zf = mod.labels(4, g)
    X, y, zeta = points_before(mod, zf[:, torch.repeat_interleave(torch.arange(4), sizes)], 1, g)
    assert torch.equal(fed.z, zf)
    assert torch.equal(fed.X, X[:, :, 0]) and torch.equal(fed.y, y[:, :, 0]) and torch.equal(fed.zeta, zeta[:, :, 0])


# -- Phase 2's losses ------------------------------------------------------------------------------------
def _federation(seed, R=3, k=3, d=4, M=30):
    g = gen(seed)
    mod = planted_model(R, k, d, g, sigma=0.3)
    return mod.federation(torch.randint(1, 12, (M,), generator=g), g)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gram_losses_match_the_previous_formula_and_give_the_same_labels(seed):
    fed = _federation(seed)
    step = Phase2Round(fed, 0.1, backend="gram")
    for scale in (0.0, 0.3, 3.0):  # at theta*, near it, far away
        theta = fed.model.theta + scale * torch.randn(fed.model.theta.shape, generator=gen(seed + 10), dtype=torch.float64)
        new, old = step.losses(theta), gram_losses_before(step, theta)
        assert torch.allclose(new, old, rtol=1e-12, atol=1e-12 * float(step.cy.abs().max()))
        assert torch.equal(new.argmin(-1), old.argmin(-1))


def test_quadratic_coefficients_give_the_residual_norms():
    fed = _federation(7, d=3)
    theta = torch.randn(fed.R, fed.k, fed.d, generator=gen(8), dtype=torch.float64)
    G, b, c = fed.gram
    direct = fed.client_sum((fed.X @ theta.transpose(1, 2) - fed.y[..., None]) ** 2)
    via_rows = gram_rows(G, b, c) @ quadratic_coefficients(theta).transpose(1, 2)
    assert torch.allclose(via_rows, direct, rtol=1e-12, atol=1e-12 * float(c.abs().max()))


@pytest.mark.parametrize("backend", ["points", "kernel", "gram"])
def test_losses_many_is_losses_at_each_model(backend):
    fed = _federation(3)
    step = Phase2Round(fed, 0.1, backend=backend)
    thetas = fed.model.theta[None] + 0.5 * torch.randn(6, *fed.model.theta.shape, generator=gen(9), dtype=torch.float64)
    many = step.losses_many(thetas)
    each = torch.stack([step.losses(t) for t in thetas])
    assert many.shape == (6, fed.R, fed.M, fed.k)
    assert torch.allclose(many, each, rtol=1e-12, atol=1e-12 * float((fed.y**2).sum()))
    assert torch.equal(many.argmin(-1), each.argmin(-1))


# -- sums of matrix powers -----------------------------------------------------------------------------
@pytest.mark.parametrize("s", [1, 2, 5])
def test_matrix_power_sum_is_bitwise_the_previous_loop(s):
    A = 0.3 * torch.randn(2, 7, 4, 4, generator=gen(s), dtype=torch.float64)
    new = matrix_power_sum(A, s)
    assert torch.equal(new, power_sum_before(A, s))
    new.add_(1.0)  # a fresh tensor (s = 1 included), not a view of the identity
    assert torch.equal(matrix_power_sum(A, s), power_sum_before(A, s))


@pytest.mark.parametrize("s", [1, 5])
def test_client_normal_equations_and_preconditioners_are_bitwise_the_previous_loops(s):
    fed = _federation(11)
    eta = fed.eta_for_gamma(0.4)
    G, b, _ = fed.gram
    c = (eta[:, None] / fed.sizes.to(G.dtype)[None, :])[..., None, None]
    S = power_sum_before(torch.eye(fed.d, dtype=G.dtype) - c * G, s)
    A, r = client_normal_equations(fed, eta, "fedavg", s)
    assert torch.equal(A, S @ G) and torch.equal(r, (S @ b[..., None])[..., 0])
    P, Phi, _, _ = preconditioners(fed, eta, "fedavg", s)
    eye = torch.eye(Phi.shape[2], dtype=Phi.dtype)
    assert torch.equal(P, power_sum_before(eye - c * Phi @ Phi.transpose(-1, -2), s))


def test_workspaces_are_per_thread():
    """verify.workspace keeps one buffer per name and thread: a second thread (a Dask worker running two
    checks at once) gets its own, so neither overwrites the other's temporaries."""
    import threading


    like = torch.zeros(1, dtype=torch.float64)
    here = workspace("test/threads", (4, 3), like)
    there = []
    t = threading.Thread(target=lambda: there.append(workspace("test/threads", (4, 3), like)))
    t.start()
    t.join()
    assert here.data_ptr() != there[0].data_ptr()
    assert workspace("test/threads", (2, 5), like).data_ptr() == here.data_ptr()  # kept and reused in this thread


def gram_steps_before(step: Phase2Round, v):
    """The gram backend's local steps as torch runs them (the loop verify/algorithms/gram_steps.c replaces)."""
    v, c = v.clone(), step.c[..., None]
    for _ in range(step.s):
        v.sub_(((step.G @ v[..., None])[..., 0] - step.b).mul_(c))
    return v


def test_gram_local_steps_in_c_are_bitwise_the_torch_loop():
    """FedAvg's s local steps from Gram statistics in C (one client at a time) give torch's bits: every d with
    d * d < 400, one to six steps, per-replicate steps, non-finite values passed through alike; from d = 20 (torch's
    batched product leaves its own loop for a BLAS) and without the library the torch loop itself runs."""
    from verify.algorithms import tc_c

    if tc_c.build() is None or tc_c.gram_local_steps() is None:
        pytest.skip("no C compiler")
    g = gen(11)
    for d, s, R, M in [(1, 2, 3, 17), (2, 1, 2, 5), (3, 6, 4, 9), (5, 5, 16, 100), (7, 3, 3, 40), (10, 5, 12, 200),
                       (16, 2, 2, 33), (19, 4, 3, 21)]:
        fed = planted_model(R, 3, d, g).federation(torch.randint(2, 30, (M,), generator=g).tolist(), g)
        step = Phase2Round(fed, torch.rand(R, generator=g, dtype=torch.float64), s=s, backend="gram")
        v = torch.randn(R, M, d, generator=g, dtype=torch.float64) * 10.0 ** torch.randint(-6, 6, (R, M, 1), generator=g)
        if d == 7:
            v[0, 0, 0], v[1, 2, 3] = float("nan"), float("inf")
        got, want = step.local_update(v), gram_steps_before(step, v)
        assert got.view(torch.int64).equal(want.view(torch.int64)), (d, s)
        assert step._gram_steps_in_c(v.clone())
    fed = planted_model(2, 2, 20, g).federation([5, 7, 9], g)
    step = Phase2Round(fed, 0.1, s=3, backend="gram")
    v = torch.randn(2, 3, 20, generator=g, dtype=torch.float64)
    assert not step._gram_steps_in_c(v.clone()) and step.local_update(v).equal(gram_steps_before(step, v))


def test_gram_local_steps_without_the_library_run_the_torch_loop(monkeypatch):
    monkeypatch.setenv("FEDVERIFY_TC_C", "0")
    g = gen(12)
    fed = planted_model(3, 2, 4, g).federation([3, 4, 5, 6], g)
    step = Phase2Round(fed, 0.2, s=4, backend="gram")
    v = torch.randn(3, 4, 4, generator=g, dtype=torch.float64)
    assert not step._gram_steps_in_c(v.clone()) and step.local_update(v).equal(gram_steps_before(step, v))
