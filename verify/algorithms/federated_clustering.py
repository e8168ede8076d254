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
actually averaged into v_{i,t} (docs/papers/werner2023.md §6.1 check 8 calls it "client i's TC ball").
A fresh batch is drawn for every (model, client) evaluation (toolkit choice; the paper's B_i per
round is not pinned down for the all-pairs step).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from verify.algorithms.threshold_clustering import (
    Radius,
    step_cache,
    threshold_clustering,
    threshold_step,
    whole_run,
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
    depends_on_distances = False

    def value(self, dists: torch.Tensor) -> torch.Tensor:
        t = self.tau.to(dists).repeat_interleave(self.n_clients)
        return t[:, None].expand(dists.shape[:-1])


def make_radius(radius, R: int, N: int):
    """A :class:`Radius` (or any object with its ``value(dists)`` method), a float (fixed tau) or a
    ``[R]`` tensor of per-replicate tau."""
    if isinstance(radius, Radius) or hasattr(radius, "value"):
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


def fc_clustering_step(G: torch.Tensor, radius, steps: int, *, own: torch.Tensor | None = None, attack=None) -> FCStep:
    """Threshold-Clustering of each client's row of the all-pairs gradients ``G [R, N, N, d]``.

    Client i clusters {G[r, i, j]}_j with K = 1 and init G[r, i, i]; ``radius`` as in
    :func:`make_radius`. Returns the centers and the last step's balls.

    At scale, ``G`` may hold a block of B recipients and more senders, ``[R, B, N', d]`` (N' >= B: the
    good clients, then any Byzantine ones); ``own [R, B, d]`` is then each recipient's own gradient,
    the initialisation. ``attack(V, tau, step)`` adds points placed at every Threshold-Clustering step
    (the edge-of-ball attack, verify.algorithms.threshold_clustering), seen by each recipient.
    """
    if steps < 1:
        raise InputError("steps", f"Threshold-Clustering needs M >= 1 steps, got {steps}")
    R, N, N2, d = G.shape
    if own is None and N != N2:
        raise InputError("G", f"expected all-pairs gradients [R, N, N, d], got {tuple(G.shape)}")
    if own is not None and (own.shape != (R, N, d) or N2 < N):
        raise InputError("own", f"expected the recipients' own gradients [{R}, {N}, {d}], got {tuple(own.shape)}")
    rad = make_radius(radius, R, N)
    Z = G.reshape(R * N, N2, d)
    if own is None:
        V0 = torch.diagonal(G, dim1=1, dim2=2).permute(0, 2, 1).reshape(R * N, 1, d)  # g_i(x_i)
    else:
        V0 = own.reshape(R * N, 1, d)
    got = whole_run(Z, V0, rad, steps) if attack is None else None  # each client's M steps in one C call
    if got is not None:
        V, ball = got
    else:
        cache = step_cache(Z, V0, rad)  # the M steps share the points' norms and any ball that cannot have changed
        V_prev, _ = threshold_clustering(Z, V0, rad, steps - 1, attack=attack, cache=cache)
        # the last step also returns its balls [R*N, 1, N] (the points averaged), from the same distances
        V, ball = threshold_step(Z, V_prev, rad, attack=attack, step=steps, want_inside=True, cache=cache)
    return FCStep(V.reshape(R, N, d), ball.reshape(R, N, N2))


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
    problem.check_run(x0, T, generator)
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


# -- at scale ------------------------------------------------------------------------------------
MAX_BLOCK_ELEMENTS = 2**25  # numbers in one block of all-pairs gradients [R, B, N, d] (256 MiB in float64)


@dataclass(frozen=True)
class ShrunkQuantileRadius:
    """The MNIST reference code's radius (PRFL mnist/implementations/thresholding.py, strategy "quantile"):
    tau = shrink * sorted(dists)[int(N q)] with shrink = 0.99, recomputed at every step, and the inclusive test
    ||z - v|| <= tau (the code excludes ``ds > tau``), so the point at sorted index int(N q) is left out.
    With ``shrink=1`` and the inclusive test it is Algorithm 3 read literally (a point joins when its distance is
    <= tau): the point at index int(N q) joins the ball; with q = n_i/N that is the nearest client of another
    cluster (see :class:`StrictQuantileRadius` for the synthetic code's rule)."""

    q: float = 0.25
    shrink: float = 0.99

    def __post_init__(self) -> None:
        if not 0.0 < self.q < 1.0 or not 0.0 < self.shrink <= 1.0:
            raise InputError("q, shrink", f"need 0 < q < 1 and 0 < shrink <= 1, got q={self.q}, shrink={self.shrink}")

    def value(self, dists: torch.Tensor) -> torch.Tensor:
        n = dists.shape[-1]
        k = min(int(n * self.q), n - 1) + 1
        return self.shrink * torch.kthvalue(dists, k, dim=-1).values


@dataclass(frozen=True)
class StrictQuantileRadius:
    """The synthetic reference code's radius (PRFL synthetic/src/thresholding_procedure.py, ThresholdingV2 with
    strategy "Q<q>", used for Fig. 3): tau = sorted(dists)[int(N q)], recomputed at every step, with the STRICT test
    ||z - v|| < tau. Our Threshold-Clustering tests ``<=``, so this returns the largest float below that distance:
    exactly the points strictly nearer than the one at sorted index int(N q) join the ball."""

    q: float = 0.25

    def __post_init__(self) -> None:
        if not 0.0 < self.q < 1.0:
            raise InputError("q", f"need 0 < q < 1, got q={self.q}")

    def value(self, dists: torch.Tensor) -> torch.Tensor:
        n = dists.shape[-1]
        k = min(int(n * self.q), n - 1) + 1
        d = torch.kthvalue(dists, k, dim=-1).values
        return torch.nextafter(d, torch.zeros_like(d))


def running_mean(values: torch.Tensor) -> torch.Tensor:
    """The average over rounds 1..t for every t, along the leading (round) axis: ``[T, ...] -> [T, ...]``."""
    t = torch.arange(1, values.shape[0] + 1, dtype=values.dtype, device=values.device)
    return values.cumsum(0) / t.reshape(-1, *([1] * (values.dim() - 1)))


@dataclass
class FCRun:
    """What an at-scale run keeps, per round t = 1..T (index t-1), replicate and good client:

    grad_sq [T, R, N] ||grad f_i(x_{i,t-1})||^2 (exact gradient: Theorem 3.3's quantity);
    dist_sq [T+1, R, N] ||x_{i,t} - x*_i||^2; ball_ok [T, R, N] client i's last-step ball among the good
    clients is exactly its true cluster; x [R, N, d] the final models; communication: per round,
    gradient evaluations, gradient messages and model messages (each per replicate)."""

    grad_sq: torch.Tensor
    dist_sq: torch.Tensor
    ball_ok: torch.Tensor
    x: torch.Tensor
    communication: dict

    def running_mean(self) -> torch.Tensor:
        """(1/t) sum_{s <= t} ||grad f_i(x_{i,s-1})||^2 for every t: ``[T, R, N]``."""
        return running_mean(self.grad_sq)


def _row_block(R: int, N: int, senders: int, d: int, row_block: int | None) -> int:
    if row_block is not None:
        if row_block < 1:
            raise InputError("row_block", f"must be >= 1, got {row_block}")
        return min(row_block, N)
    return max(1, min(N, MAX_BLOCK_ELEMENTS // max(1, R * senders * d)))


def _gradients_at_models(problem: ClientProblem, models: torch.Tensor, generator, batch_size) -> torch.Tensor:
    """Every client's (batch) gradient at each model of ``models [R, B, d]``: ``[R, B, N, d]``. A problem
    with ``gradients_at_models`` (one product per replicate, no copies of the models) is asked directly;
    any other through its oracle on the expanded points."""
    R, Bm, d = models.shape
    if hasattr(problem, "gradients_at_models"):
        G = problem.gradients_at_models(models)
        return G + problem.noise(G.shape, generator, batch_size) if problem.stochastic else G
    P = models[:, :, None, :].expand(R, Bm, problem.n_clients, d)
    return problem.stochastic_grad(P, generator, batch_size) if problem.stochastic else problem.grad(P)


def fc_round(problem: ClientProblem, x: torch.Tensor, radius, steps: int, *, batch_size=1,
             generator: torch.Generator | None = None, byzantine=None, row_block: int | None = None):
    """One round of Algorithm 2 for every client at once: the clustered updates v [R, N, d], the balls
    among the good clients [R, N, N], and the number of gradient evaluations per replicate.

    Recipients are processed in blocks of rows (bounded memory, ``row_block`` or automatic): block b
    evaluates every client's (batch) gradient at the models of its B recipients, ``[R, B, N, d]``, in
    one oracle call, then runs the B Threshold-Clusterings as one call. ``byzantine``
    (verify.attacks.werner2023_attacks.Byzantine) adds its bad vectors to every recipient's points.
    """
    R, N, d = x.shape
    bad = 0 if byzantine is None else byzantine.count
    B = _row_block(R, N, N + bad, d, row_block)
    vs, balls, evaluations = [], [], 0
    for start in range(0, N, B):  # blocks of recipients: memory, not a loop over clients
        rows = torch.arange(start, min(N, start + B), device=x.device)
        G = _gradients_at_models(problem, x[:, rows], generator, batch_size)
        evaluations += rows.numel() * N
        own = G[:, torch.arange(rows.numel(), device=x.device), rows]  # g_i(x_i): the initialisation
        attack = None
        if bad:
            if byzantine.per_step:
                attack = byzantine.tc_attack(rows.numel())
            else:
                honest = G.reshape(R * rows.numel(), N, d)
                G = torch.cat([G, byzantine.vectors(honest, generator).reshape(R, rows.numel(), bad, d)], 2)
        out = fc_clustering_step(G, radius, steps, own=own, attack=attack)
        vs.append(out.v), balls.append(out.ball[..., :N])
    return torch.cat(vs, 1), torch.cat(balls, 1), evaluations


def client_steps(eta, x0: torch.Tensor):
    """A step size: a float, ``[R]`` (per replicate) or ``[R, N]`` (per replicate and client, e.g. 1/L of
    each client's cluster), shaped to broadcast against ``x0 [R, N, d]``."""
    if isinstance(eta, torch.Tensor) and eta.dim() == 2:
        if eta.shape != x0.shape[:2]:
            raise InputError("eta", f"per-client step sizes must have shape {tuple(x0.shape[:2])}, got {tuple(eta.shape)}")
        return eta.to(x0)[..., None]
    return per_replicate(eta, x0)


def federated_clustering_run(
    problem: ClientProblem,
    x0: torch.Tensor,
    eta,
    T: int,
    radius,
    *,
    steps: int = 10,
    batch_size=1,
    generator: torch.Generator | None = None,
    byzantine=None,
    row_block: int | None = None,
) -> FCRun:
    """Algorithm 2 at scale: T rounds from ``x0 [R, N, d]`` (the good clients), keeping per-round
    summaries (:class:`FCRun`) instead of the full trace. Same arguments as :func:`federated_clustering`
    (``radius`` and ``batch_size`` may be per-replicate ``[R]`` tensors, ``eta`` also ``[R, N]``); ``byzantine`` adds
    bad clients; ``row_block`` bounds the recipients per block. The T rounds are the only loop."""
    problem.check_run(x0, T, generator)
    R, N, _ = x0.shape
    step = client_steps(eta, x0)
    truth = torch.as_tensor(problem.true_labels, device=x0.device)
    same = truth[:, None] == truth[None, :]
    opt = problem.optima()
    x = x0.clone()
    grad_sq, dist_sq, ball_ok = [], [((x - opt) ** 2).sum(-1)], []
    evaluations = []
    for _ in range(T):
        grad_sq.append((problem.grad(x) ** 2).sum(-1))
        v, ball, n_eval = fc_round(problem, x, radius, steps, batch_size=batch_size, generator=generator,
                                   byzantine=byzantine, row_block=row_block)
        x = x - step * v
        dist_sq.append(((x - opt) ** 2).sum(-1)), ball_ok.append((ball == same).all(-1)), evaluations.append(n_eval)
    cross = [e - N for e in evaluations]  # evaluations at another client's model: one model and one gradient message each
    return FCRun(torch.stack(grad_sq), torch.stack(dist_sq), torch.stack(ball_ok), x,
                 {"gradient_evaluations": evaluations, "gradient_messages": cross, "model_messages": cross})
