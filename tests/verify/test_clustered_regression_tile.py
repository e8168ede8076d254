"""ClusteredRegression.repeated(interleave=True) shares H among the copies (``tile``) instead of copying it: every
gradient, loss and constant agrees with the copied problem (the former representation) to rounding."""
import torch

from verify.algorithms.ifca import ifca
from verify.problems.clustered_regression import ClusteredRegression, planted_clustered_regression


def _copied(P: ClusteredRegression, times: int) -> ClusteredRegression:
    """The former repeated(interleave=True): H copied ``times`` times."""
    rep = lambda t: t.repeat_interleave(times, 0)
    return ClusteredRegression(rep(P.H), rep(P.b), rep(P.c), rep(P.W), P.true_labels, P.name)


def _close(a, b, rtol=1e-12):
    return torch.allclose(a, b, rtol=rtol, atol=rtol * float(b.abs().max()))


def _problem(R=3, n=4, K=2, d=12, m=30):
    return planted_clustered_regression(torch.Generator().manual_seed(5), R, n, K, d, m, 4.0, noise=0.1,
                                        representation="moments")


def test_tiled_matches_copied_gradients_losses_constants():
    P = _problem()
    for times in (1, 3):
        T, C = P.repeated(times, interleave=True), _copied(P, times)
        assert T.tile == times and T.H.shape[0] == P.replicates and T.replicates == C.replicates
        X = torch.randn(C.replicates, 2, C.n_clients, C.dim, generator=torch.Generator().manual_seed(1),
                        dtype=torch.float64)
        (fT, gT), (fC, gC) = T.loss_and_grad(X), C.loss_and_grad(X)
        assert _close(gT, gC) and _close(fT, fC)
        assert torch.equal(T.smoothness(), C.smoothness())
        assert torch.equal(T.hessians(), C.H)
        assert all(torch.equal(T.hessians_of(r), C.H[r]) for r in range(C.replicates))
        models = X[:, 0, :2]
        assert _close(T.gradients_at_models(models), C.gradients_at_models(models))


def test_tiled_twice_and_blocks_after_tiling():
    P = _problem(R=2)
    T = P.repeated(2, interleave=True).repeated(3, interleave=True)  # edge case: tiles compose
    C = _copied(_copied(P, 2), 3)
    assert T.tile == 6
    X = torch.randn(C.replicates, C.n_clients, C.dim, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    assert _close(T.grad(X), C.grad(X))
    B, BC = T.repeated(2), C.repeated(2)  # blocks of a tiled problem: H materialised
    assert B.tile == 1 and torch.equal(B.H, BC.H) and torch.equal(B.b, BC.b)


def test_ifca_restarts_on_tiled_problem_match_copied():
    P = _problem(R=2, d=8)
    T, C = P.repeated(4, interleave=True), _copied(P, 4)
    theta0 = 3.0 * torch.randn(C.replicates, 2, C.dim, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    a = ifca(T, theta0, 0.3, 20, option="I", record_grads=False)
    b = ifca(C, theta0, 0.3, 20, option="I", record_grads=False)
    assert torch.equal(a.assign, b.assign) and _close(a.theta, b.theta, 1e-10)
