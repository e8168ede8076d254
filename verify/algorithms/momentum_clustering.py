"""Momentum-Clustering (werner2023, Algorithm 4), batched over replicates and clients.

Round t = 1..T, for every replicate at once:

    m_{i,t} = alpha g_i(x_{i,t-1}) + (1 - alpha) m_{i,t-1}                        (29), m_{i,0} = 0
    {v_{k,t}}_k = Threshold-Clustering({m_{i,t}}_i ; K clusters ; init {v_{k,t-1}}_k)  (30), warm start
    x_{i,t} = x_{i,t-1} - eta v_{k_i,t}.

The paper leaves three pieces open; our reading (docs/papers/werner2023.md) defaults (section 2.4) are used:

* initial centers v_{k,0}: farthest-point selection among the round-1 momenta (deterministic: the
  momentum farthest from their centroid first, then each time the one farthest from the chosen ones);
* assignment k_i: the nearest center (ties to the smaller k);
* m_{i,0} = 0.

Communication: each client sends one momentum up and receives one center per round (N and N).
The run records what Theorem 3.4 and Assumption 9 talk about: ||grad f_i(x_{i,t-1})||^2, the
assignment accuracy (best matching of centers to true clusters), and the separation of the true
clusters' mean momenta min_{k != k'} ||mbar_k - mbar_k'||^2 (Assumption 9 asks >= Delta^2 at every t).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

from analytic.errors import require
from verify.algorithms.federated_clustering import make_radius, running_mean
from verify.algorithms.threshold_clustering import assign_nearest, distances, threshold_clustering
from verify.problems.base import ClientProblem, per_replicate

MAX_MATCHING_CLUSTERS = 8  # the assignment accuracy enumerates the K! matchings of centers to clusters


def momentum_update(m: torch.Tensor, g: torch.Tensor, alpha) -> torch.Tensor:
    """Eq. (29): alpha g + (1 - alpha) m; ``alpha`` a float or ``[R]`` tensor."""
    a = per_replicate(alpha, g)
    return a * g + (1 - a) * m


def farthest_point_centers(Z: torch.Tensor, K: int) -> torch.Tensor:
    """``[R, K, d]``: the point of ``Z [R, N, d]`` farthest from the centroid, then K - 1 times the point
    farthest from the centers chosen so far (ties to the smaller index)."""
    R, N, d = Z.shape
    require(1 <= K <= N, "K", f"need 1 <= K <= N, got K={K}, N={N}")
    rows = torch.arange(R, device=Z.device)
    first = distances(Z.mean(1, keepdim=True), Z)[:, 0].argmax(-1)
    chosen = [Z[rows, first]]
    for _ in range(1, K):  # K - 1 selections (not a loop over clients)
        dmin = distances(torch.stack(chosen, 1), Z).amin(1)  # [R, N]
        chosen.append(Z[rows, dmin.argmax(-1)])
    return torch.stack(chosen, 1)


def assignment_accuracy(assign: torch.Tensor, truth, K: int) -> torch.Tensor:
    """Fraction of clients whose center matches their true cluster under the best one-to-one matching
    of centers to clusters: ``assign [..., N] -> [...]``."""
    require(K <= MAX_MATCHING_CLUSTERS, "K", f"the accuracy enumerates K! matchings; K <= {MAX_MATCHING_CLUSTERS}, got {K}")
    t = torch.as_tensor(truth, device=assign.device)
    conf = (torch.nn.functional.one_hot(assign, K).to(torch.float64)[..., :, None]
            * torch.nn.functional.one_hot(t, K).to(torch.float64)[..., None, :]).sum(-3)  # [..., K(center), K(truth)]
    perms = torch.tensor(list(itertools.permutations(range(K))), device=assign.device)  # [P, K]
    hits = conf[..., torch.arange(K, device=assign.device), perms].sum(-1)  # [..., P]
    return hits.amax(-1) / assign.shape[-1]


def cluster_mean_separation(m: torch.Tensor, truth) -> torch.Tensor:
    """min_{k != k'} ||mbar_k - mbar_k'||^2 of the true clusters' mean vectors: ``m [R, N, d] -> [R]``."""
    t = torch.as_tensor(truth, device=m.device)
    onehot = torch.nn.functional.one_hot(t).to(m.dtype)  # [N, K]
    means = torch.einsum("rnd,nk->rkd", m, onehot) / onehot.sum(0)[None, :, None]
    d2 = distances(means, means) ** 2
    K = means.shape[1]
    return torch.where(torch.eye(K, dtype=torch.bool, device=m.device), torch.inf, d2).amin((-1, -2))


@dataclass
class MomentumRun:
    """Per round t = 1..T (index t-1): grad_sq [T, R, N] ||grad f_i(x_{i,t-1})||^2; accuracy [T, R];
    separation [T, R] (true clusters' mean momenta, Assumption 9); dist_sq [T+1, R, N]
    ||x_{i,t} - x*_i||^2; assign [R, N] the last round's k_i; x [R, N, d] final models; communication
    per round (uplink momenta, downlink centers, gradient evaluations)."""

    grad_sq: torch.Tensor
    accuracy: torch.Tensor
    separation: torch.Tensor
    dist_sq: torch.Tensor
    assign: torch.Tensor
    x: torch.Tensor
    communication: dict

    def running_mean(self) -> torch.Tensor:
        """(1/t) sum_{s <= t} ||grad f_i(x_{i,s-1})||^2 for every t: ``[T, R, N]``."""
        return running_mean(self.grad_sq)


def momentum_clustering(
    problem: ClientProblem,
    x0: torch.Tensor,
    eta,
    alpha,
    K: int,
    T: int,
    radius,
    *,
    steps: int = 10,
    batch_size=1,
    generator: torch.Generator | None = None,
    byzantine=None,
) -> MomentumRun:
    """Run Algorithm 4 for T rounds from ``x0 [R, N, d]``.

    ``eta`` and ``alpha`` are floats or ``[R]`` tensors (alpha in (0, 1]); ``radius`` a Radius, a float
    tau or a ``[R]`` tensor of tau; ``byzantine`` (verify.attacks.werner2023_attacks.Byzantine) adds bad
    momenta: round-level vectors join the points, the edge-of-ball attack sits at every center's edge
    at every step (b points per center, the threat model "from each cluster's perspective").
    """
    problem.check_run(x0, T, generator)
    require(steps >= 1, "steps", f"must be >= 1, got {steps}")
    a = torch.as_tensor(alpha, dtype=torch.float64)
    require(bool(((a > 0) & (a <= 1)).all()), "alpha", f"momentum parameter must lie in (0, 1], got {alpha}")
    R, N, d = x0.shape
    step = per_replicate(eta, x0)
    rad = make_radius(radius, R, 1)
    truth = problem.true_labels
    opt = problem.optima()
    tc_attack = byzantine.tc_attack(1) if byzantine is not None and byzantine.count and byzantine.per_step else None
    x, m, V = x0.clone(), torch.zeros_like(x0), None
    grad_sq, assigns, sep, dist_sq = [], [], [], [((x - opt) ** 2).sum(-1)]
    comm = {"uplink": [], "downlink": [], "gradient_evaluations": []}
    for _ in range(T):
        grad_sq.append((problem.grad(x) ** 2).sum(-1))
        g = problem.stochastic_grad(x, generator, batch_size) if problem.stochastic else problem.grad(x)
        m = momentum_update(m, g, alpha)
        Z = m
        if byzantine is not None and byzantine.count and not byzantine.per_step:
            Z = torch.cat([m, byzantine.vectors(m, generator)], 1)
        V0 = farthest_point_centers(Z, K) if V is None else V
        V, _ = threshold_clustering(Z, V0, rad, steps, attack=tc_attack)
        k = assign_nearest(m, V)
        x = x - step * V.gather(1, k[..., None].expand(R, N, d))
        assigns.append(k), sep.append(cluster_mean_separation(m, truth))
        dist_sq.append(((x - opt) ** 2).sum(-1))
        comm["gradient_evaluations"].append(g.numel() // (R * d))  # one per client at its own model
        comm["uplink"].append(m.numel() // (R * d))  # the good clients' momenta sent to the server
        comm["downlink"].append(k.numel() // R)  # one center v_{k_i} back to each client
    accuracy = assignment_accuracy(torch.stack(assigns), truth, K)  # [T, R], all rounds at once
    return MomentumRun(torch.stack(grad_sq), accuracy, torch.stack(sep), torch.stack(dist_sq), k, x, comm)
