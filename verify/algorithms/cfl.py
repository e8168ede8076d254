"""Clustered Federated Learning (CFL; Sattler et al. 2020), batched over replicates.

CFL trains one model per cluster with FedAvg (gradient steps on the cluster-average loss) and,
when a cluster sits at a stationary point of its average loss while some members do not,
bipartitions it by the cosine similarities of the members' gradients (updates)

    alpha_ij = <g_i, g_j> / (||g_i|| ||g_j|| + 1e-12),

then recurses on each part; parts are never merged again (werner2023 section 2.1, Fig. 1(c)).
Split test for a cluster c (Sattler et al., Algorithm 2 and the reference code):
    round > ``warmup``,  ||(1/|c|) sum_{i in c} g_i|| < eps_1,  max_{i in c} ||g_i|| > eps_2,
    |c| >= ``min_split_size`` and fewer than ``max_clusters`` clusters so far.
Two bipartition rules:

* ``optimal`` -- the paper's rule: (c_1, c_2) = argmin over 2-partitions of the cluster of
  max_{i in c_1, j in c_2} alpha_ij (exhaustive; N <= 12; ties: first in enumeration order).
* ``agglomerative`` -- the reference code's approximation (github.com/felisat/
  clustered-federated-learning): complete-linkage agglomerative clustering of the distances
  -alpha_ij down to two clusters. The reference code also uses min_split_size = 3 (``len(idc) > 2``)
  and warm-up 20 rounds.

In 1-D, alpha_ij = sign(g_i g_j). At most one cluster per replicate splits in a round.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch

from analytic.errors import InputError
from verify.problems.base import ClientProblem, per_replicate

OPTIMAL_MAX_CLIENTS = 12
BIPARTITIONS = ("optimal", "agglomerative")


def cosine_similarity(G: torch.Tensor) -> torch.Tensor:
    """``[B, N, d] -> [B, N, N]``, with the reference code's 1e-12 in the denominator."""
    n = torch.linalg.vector_norm(G, dim=-1)
    return (G @ G.transpose(-1, -2)) / (n[..., :, None] * n[..., None, :] + 1e-12)


@lru_cache(maxsize=16)
def _subset_masks(n: int) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(bool((m >> i) & 1) for i in range(n)) for m in range(1 << n))


def optimal_bipartition(S: torch.Tensor, members: torch.Tensor) -> torch.Tensor:
    """argmin over 2-partitions (A, B) of ``members`` of max_{i in A, j in B} S_ij.

    ``S [B, N, N]``, ``members [B, N]`` bool. Returns ``side [B, N]``: True for the part that does
    NOT contain the lowest-indexed member (False elsewhere, and for non-members).
    """
    Bsz, N, _ = S.shape
    if N > OPTIMAL_MAX_CLIENTS:
        raise InputError("N", f"the optimal CFL bipartition enumerates at most {OPTIMAL_MAX_CLIENTS} clients, got {N}")
    masks = torch.tensor(_subset_masks(N), device=S.device)  # [P, N]
    A = masks[None] & members[:, None]  # [B, P, N]
    Bp = ~masks[None] & members[:, None]
    valid = A.any(-1) & Bp.any(-1)
    cross = A[..., :, None] & Bp[..., None, :]  # [B, P, N, N]
    cost = torch.where(cross, S[:, None], torch.full_like(S[:, None], -torch.inf)).amax((-1, -2))
    cost = torch.where(valid, cost, torch.full_like(cost, torch.inf))
    best = cost.argmin(1)
    side = Bp[torch.arange(Bsz, device=S.device), best]
    return _orient(side, members)


def agglomerative_bipartition(S: torch.Tensor, members: torch.Tensor) -> torch.Tensor:
    """Complete-linkage agglomerative clustering of distances -S among ``members`` into 2 groups.

    Same output convention as :func:`optimal_bipartition`. Merges run over N - 2 steps (not over
    clients); each step merges, in every batch row, the closest pair of live clusters (ties: the
    first pair in row-major order) using the Lance-Williams rule d(a u b, c) = max(d(a,c), d(b,c)).
    """
    Bsz, N, _ = S.shape
    inf = torch.tensor(torch.inf, dtype=S.dtype, device=S.device)
    eye = torch.eye(N, dtype=torch.bool, device=S.device)
    live = members.clone()
    D = torch.where(eye | ~(live[:, :, None] & live[:, None, :]), inf, -S)
    owner = torch.arange(N, device=S.device).expand(Bsz, N).clone()  # cluster id of each client
    rows = torch.arange(Bsz, device=S.device)
    for _ in range(max(N - 2, 0)):
        active = live.sum(1) > 2
        if not bool(active.any()):
            break
        flat = D.reshape(Bsz, N * N).argmin(1)
        a, b = torch.minimum(flat // N, flat % N), torch.maximum(flat // N, flat % N)
        merged = torch.maximum(D[rows, a], D[rows, b])  # [B, N] complete linkage
        new_row = torch.where(active[:, None], merged, D[rows, a])
        D[rows, a] = new_row
        D[rows, :, a] = new_row
        kill = active[:, None] & (torch.arange(N, device=S.device)[None] == b[:, None])
        D = torch.where(kill[:, :, None] | kill[:, None, :], inf, D)
        D[rows, a, a] = inf
        live = live & ~kill
        owner = torch.where(active[:, None] & (owner == b[:, None]), a[:, None], owner)
    first = torch.where(members, torch.arange(N, device=S.device)[None], N).argmin(1)
    side = members & (owner != owner[rows, first][:, None])
    return _orient(side, members)


def _orient(side: torch.Tensor, members: torch.Tensor) -> torch.Tensor:
    """Flip so that the lowest-indexed member is on the False side."""
    N = side.shape[1]
    first = torch.where(members, torch.arange(N, device=side.device)[None], N).argmin(1)
    flip = side.gather(1, first[:, None])
    return torch.where(flip, members & ~side, side) & members


def bipartition(S: torch.Tensor, members: torch.Tensor, rule) -> torch.Tensor:
    """Dispatch on ``rule``: ``optimal``, ``agglomerative``, or a callable ``rule(S, members) -> side``."""
    if callable(rule):
        return rule(S, members)
    if rule == "optimal":
        return optimal_bipartition(S, members)
    if rule == "agglomerative":
        return agglomerative_bipartition(S, members)
    raise InputError("bipartition", f"expected one of {BIPARTITIONS}, got {rule!r}")


@dataclass
class CFLTrace:
    """x [T+1, R, N, d] each client's model (its cluster's); labels [T+1, R, N] cluster ids;
    grads [T, R, N, d] g_i at the client's cluster model; split [T, R] whether a split happened;
    side [T, R, N] the clients moved to the new cluster; cos [T, R, N, N] similarities."""

    x: torch.Tensor
    labels: torch.Tensor
    grads: torch.Tensor
    split: torch.Tensor
    side: torch.Tensor
    cos: torch.Tensor


def clustered_fl(
    problem: ClientProblem,
    x0: torch.Tensor,
    eta,
    T: int,
    *,
    rule="optimal",
    eps1: float = 0.4,
    eps2: float = 1.6,
    warmup: int = 20,
    min_split_size: int = 2,
    max_clusters: int | None = None,
    generator: torch.Generator | None = None,
    batch_size=1,
) -> CFLTrace:
    """Run CFL for T rounds from a common model ``x0 [R, d]``; ``eta`` float or ``[R]``.

    Each round: every client computes g_i at its cluster's model; clusters that pass the split
    test are bipartitioned (one per replicate per round, the lowest id first); then every cluster
    takes the FedAvg step theta_c <- theta_c - eta * mean_{i in c} g_i.
    (Defaults eps1 = 0.4, eps2 = 1.6 are the reference notebook's values.)
    """
    if not callable(rule) and rule not in BIPARTITIONS:
        raise InputError("bipartition", f"expected one of {BIPARTITIONS} or a callable, got {rule!r}")
    if x0.dim() != 2:
        raise InputError("x0", f"expected a common model per replicate [R, d], got {tuple(x0.shape)}")
    if T < 1:
        raise InputError("T", f"must be >= 1, got {T}")
    R, d = x0.shape
    N = problem.n_clients
    cap = N if max_clusters is None else max_clusters
    if cap < 1:
        raise InputError("max_clusters", f"must be >= 1, got {max_clusters}")
    dev = x0.device
    theta = x0[:, None, :].expand(R, N, d).clone()  # one slot per possible cluster
    labels = torch.zeros(R, N, dtype=torch.long, device=dev)
    n_clusters = torch.ones(R, dtype=torch.long, device=dev)
    step = per_replicate(eta, theta)
    rows = torch.arange(R, device=dev)
    cids = torch.arange(N, device=dev)
    xs, ls, gs, sp, sides, coss = [theta.gather(1, labels[..., None].expand(R, N, d))], [labels.clone()], [], [], [], []
    for t in range(1, T + 1):
        X = theta.gather(1, labels[..., None].expand(R, N, d))
        G = problem.stochastic_grad(X, generator, batch_size) if problem.stochastic else problem.grad(X)
        S = cosine_similarity(G)
        member = labels[:, None, :] == cids[None, :, None]  # [R, C, N]
        size = member.sum(-1)
        mean = (member[..., None] * G[:, None]).sum(2) / size.clamp(min=1)[..., None]  # [R, C, d]
        gnorm = torch.linalg.vector_norm(G, dim=-1)
        max_norm = torch.where(member, gnorm[:, None], torch.zeros_like(gnorm[:, None])).amax(-1)
        wants = (torch.linalg.vector_norm(mean, dim=-1) < eps1) & (max_norm > eps2) & (size >= max(min_split_size, 2))
        wants &= (n_clusters < cap)[:, None] & (t > warmup)
        split = wants.any(1)
        c = wants.to(torch.int8).argmax(1)  # lowest eligible cluster id
        side = bipartition(S, member[rows, c], rule) & split[:, None]
        new_id = n_clusters.clone()
        labels = torch.where(side, new_id[:, None], labels)
        theta[rows, new_id.clamp(max=N - 1)] = torch.where(split[:, None], theta[rows, c], theta[rows, new_id.clamp(max=N - 1)])
        n_clusters = n_clusters + split.long()
        member = labels[:, None, :] == cids[None, :, None]
        mean = (member[..., None] * G[:, None]).sum(2) / member.sum(-1).clamp(min=1)[..., None]
        theta = theta - step * mean
        xs.append(theta.gather(1, labels[..., None].expand(R, N, d))), ls.append(labels.clone())
        gs.append(G), sp.append(split), sides.append(side), coss.append(S)
    return CFLTrace(torch.stack(xs), torch.stack(ls), torch.stack(gs), torch.stack(sp), torch.stack(sides), torch.stack(coss))


def first_split(trace: CFLTrace) -> tuple[torch.Tensor, torch.Tensor]:
    """Round (1-based; 0 if none) and side ``[R, N]`` of each replicate's first split."""
    any_split = trace.split.any(0)
    t_idx = trace.split.to(torch.int8).argmax(0)
    side = trace.side[t_idx, torch.arange(trace.split.shape[1])]
    return torch.where(any_split, t_idx + 1, torch.zeros_like(t_idx)), side & any_split[:, None]
