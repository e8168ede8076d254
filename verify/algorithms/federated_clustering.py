"""Federated-Clustering (werner2023, Algorithm 2), batched over replicates and clients.

Round t = 1..T, for every client i at once:
    all pairs:  G[r, i, j] = g_j(x_{i,t-1})  -- client j's (batch-averaged, Lemma 7) gradient at
                client i's model; ONE batched oracle call on the [R, N, N, d] tensor of models;
    v_{i,t} = Threshold-Clustering({G[r, i, j]}_j ; K = 1 ; init v_{i,0} = g_i(x_{i,t-1}) ; M steps)
              (eq. (24), from verify.algorithms.threshold_clustering; j = i is included);
    x_{i,t} = x_{i,t-1} - eta v_{i,t}.

The N clustering problems of a round are solved as one Threshold-Clustering call on
``[R*N, N, d]`` points. The trace records, per round, client i's *ball*: the set of j whose
gradient lay within tau of the center in the last TC step, i.e. the clients whose gradients were
actually averaged into v_{i,t} (spec section 6.1 check 8 calls it "client i's TC ball").
A fresh batch is drawn for every (model, client) evaluation (toolkit choice; the paper's B_i per
round is not pinned down for the all-pairs step).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from verify.algorithms.threshold_clustering import (
    Radius,
    ball_membership,
    threshold_clustering,
    threshold_step,
)
from analytic.errors import InputError
from verify.problems.base import ClientProblem, all_pairs, per_replicate


@dataclass(frozen=True)
class ReplicateRadius:
    """A fixed radius per replicate (a ``[R]`` tensor), repeated for each of the N clients.

    Implements the ``value(dists) -> [R*N, K]`` protocol of :class:`Radius` (fixed mode) so that a
    grid of tau values runs as replicates of one batched Threshold-Clustering call.
    """

    tau: torch.Tensor  # [R]
    n_clients: int

    def value(self, dists: torch.Tensor) -> torch.Tensor:
        t = self.tau.to(dists).repeat_interleave(self.n_clients)
        return t[:, None].expand(dists.shape[:-1])


def make_radius(radius, R: int, N: int):
    """A :class:`Radius`, a float (fixed tau) or a ``[R]`` tensor of per-replicate tau."""
    if isinstance(radius, Radius):
        return radius
    if isinstance(radius, torch.Tensor) and radius.dim() > 0:
        if radius.shape[0] != R or bool(torch.any(radius < 0)):
            raise InputError("tau", f"expected {R} non-negative per-replicate radii, got {tuple(radius.shape)}")
        return ReplicateRadius(radius, N)
    return Radius.fixed(float(radius))


@dataclass
class FCStep:
    """One round's clustering for every client: centers v [R, N, d] and balls [R, N, N] (bool)."""

    v: torch.Tensor
    ball: torch.Tensor


def fc_clustering_step(G: torch.Tensor, radius, steps: int) -> FCStep:
    """Threshold-Clustering of each client's row of the all-pairs gradients ``G [R, N, N, d]``.

    Client i clusters {G[r, i, j]}_j with K = 1 and init G[r, i, i]; ``radius`` as in
    :func:`make_radius`. Returns the centers and the last step's balls.
    """
    if steps < 1:
        raise InputError("steps", f"Threshold-Clustering needs M >= 1 steps, got {steps}")
    R, N, N2, d = G.shape
    if N != N2:
        raise InputError("G", f"expected all-pairs gradients [R, N, N, d], got {tuple(G.shape)}")
    rad = make_radius(radius, R, N)
    Z = G.reshape(R * N, N, d)
    V0 = torch.diagonal(G, dim1=1, dim2=2).permute(0, 2, 1).reshape(R * N, 1, d)  # g_i(x_i)
    V_prev, _ = threshold_clustering(Z, V0, rad, steps - 1)
    ball, _ = ball_membership(Z, V_prev, rad)  # [R*N, 1, N]: the points averaged in the last step
    V = threshold_step(Z, V_prev, rad)
    return FCStep(V.reshape(R, N, d), ball.reshape(R, N, N))


@dataclass
class FCTrace:
    """x [T+1, R, N, d] models (x[0] = x_0); v [T, R, N, d] clustered updates v_{i,t};
    ball [T, R, N, N] (client i's last-step ball contains j); losses [T+1, R, N] f_i(x_{i,t});
    own_grad [T, R, N, d] g_i(x_{i,t-1}); pair_grads [T, R, N, N, d] (only when ``record_pairs``)."""

    x: torch.Tensor
    v: torch.Tensor
    ball: torch.Tensor
    losses: torch.Tensor
    own_grad: torch.Tensor
    pair_grads: torch.Tensor | None


def federated_clustering(
    problem: ClientProblem,
    x0: torch.Tensor,
    eta,
    T: int,
    radius,
    *,
    steps: int = 10,
    batch_size=1,
    generator: torch.Generator | None = None,
    record_pairs: bool = False,
) -> FCTrace:
    """Run Algorithm 2 for T rounds from per-client models ``x0 [R, N, d]``.

    ``eta``: float or ``[R]``; ``radius``: :class:`Radius`, float tau, or ``[R]`` tensor of tau;
    ``steps``: M; ``batch_size``: |B| (int or ``[R]``), used when the problem is stochastic.
    """
    if x0.dim() != 3 or x0.shape[1] != problem.n_clients:
        raise InputError("x0", f"expected [R, {problem.n_clients}, d], got {tuple(x0.shape)}")
    if T < 1:
        raise InputError("T", f"must be >= 1, got {T}")
    step = per_replicate(eta, x0)
    x = x0.clone()
    xs, vs, balls, fs, own, pairs = [x.clone()], [], [], [], [], []
    for _ in range(T):
        P = all_pairs(x)
        if problem.stochastic:
            G, f_own = problem.stochastic_grad(P, generator, batch_size), problem.loss(x)
        else:
            Lp, G = problem.loss_and_grad(P)  # one pass: losses of every client at every model
            f_own = torch.diagonal(Lp, dim1=1, dim2=2)
        out = fc_clustering_step(G, radius, steps)
        x = x - step * out.v
        xs.append(x.clone()), vs.append(out.v), balls.append(out.ball), fs.append(f_own)
        own.append(torch.diagonal(G, dim1=1, dim2=2).permute(0, 2, 1))
        if record_pairs:
            pairs.append(G)
    fs.append(problem.loss(x))
    return FCTrace(
        torch.stack(xs), torch.stack(vs), torch.stack(balls), torch.stack(fs), torch.stack(own),
        torch.stack(pairs) if record_pairs else None,
    )


def ball_equals(ball: torch.Tensor, truth) -> torch.Tensor:
    """``ball [..., N, N]`` -> bool ``[..., N]``: client i's ball is exactly its true cluster."""
    t = torch.as_tensor(truth, device=ball.device)
    return (ball == (t[:, None] == t[None, :])).all(-1)
