"""FedAvg, FedProx and the perturbed method of buttaci2024 (Algorithm 1), batched as one local rule.

Every method runs, on each client i, E local steps from the round's global model wbar_{t,0}:

    wtilde^i_{t,k} = beta w^i_{t,k} + (1 - beta) u^i_t                         (eq. 5, perturbed point)
    w^i_{t,k+1}    = w^i_{t,k} - gamma [ g_i(wtilde^i_{t,k}) + alpha (w^i_{t,k} - wbar_{t,0}) ]   (eqs. 3, 10-12)

with u^i_t = sum_n (p_in/p_i) w^n_{t-1,E} (u^i_0 = wbar_{0,0}), then the server aggregates
wbar_{t+1,0} = sum_i p_i w^i_{t,E}. FedAvg is alpha = 0, beta = 1; FedProx is beta = 1, alpha > 0; the
perturbed method is alpha = 0, beta in (0, 1). At beta = 1 the perturbed point is 1.0 w + 0.0 u = w exactly
and at alpha = 0 the proximal term is exactly 0, so the reductions are bit-for-bit.

State is ``[K, R, C, d]``: K method configurations side by side (each with its own gamma, alpha, beta),
R replicates, C clients, d parameters. The noise of a replicate is shared by the K configurations
(common random numbers), since the oracle draws it once per ``[R, C, d]``. Loops run over rounds and
local steps only.

Partial participation (Algorithm 1 samples M of C clients; the theory assumes M = C): [toolkit,
docs/papers/buttaci2024.md §2.3] M clients are drawn per round and replicate; non-participants keep their last model for the
neighbour averages (``mode="stale"``) or count as the round's global model (``mode="global"``), and the
aggregate is renormalised over the participants. Lemma M1 then no longer holds (docs/papers/buttaci2024.md §7 item 10).

The two readings of E (docs/papers/buttaci2024.md §7 item 14) live in :func:`batch_schedule`: (a) ``"steps"``, E local steps,
each on one of E disjoint mini-batches of the client's data (one pass per round; Algorithm 1), and
(b) ``"epochs"``, E passes with mini-batches of size B, E ceil(N_i/B) steps (the experiments).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from analytic.errors import require
from verify.problems.similarity_graph import SimilarityWeights

KINDS = ("fedavg", "fedprox", "perturbed")
READINGS = ("steps", "epochs")


@dataclass(frozen=True)
class MethodSpec:
    """One algorithm configuration: its kind, step gamma, proximal weight alpha and perturbation beta."""

    kind: str
    gamma: float
    alpha: float = 0.0
    beta: float = 1.0

    def __post_init__(self) -> None:
        require(self.kind in KINDS, "kind", f"expected one of {KINDS}, got {self.kind!r}")
        require(self.gamma > 0, "gamma", f"must be > 0, got {self.gamma}")
        require(self.alpha >= 0, "alpha", f"must be >= 0, got {self.alpha}")
        require(0 < self.beta <= 1, "beta", f"must lie in (0, 1], got {self.beta}")
        if self.kind == "fedavg":
            require(self.alpha == 0 and self.beta == 1, "alpha, beta", "FedAvg has alpha = 0 and beta = 1")
        if self.kind == "fedprox":
            require(self.beta == 1, "beta", "FedProx has beta = 1")
        if self.kind == "perturbed":
            require(self.alpha == 0, "alpha", "the perturbed method has alpha = 0")

    @property
    def label(self) -> str:
        return {"fedavg": "FedAvg", "fedprox": f"FedProx alpha={self.alpha:g}",
                "perturbed": f"ours beta={self.beta:g}"}[self.kind]


def fedavg(gamma: float) -> MethodSpec:
    return MethodSpec("fedavg", gamma)


def fedprox(gamma: float, alpha: float) -> MethodSpec:
    return MethodSpec("fedprox", gamma, alpha=alpha)


def perturbed(gamma: float, beta: float) -> MethodSpec:
    return MethodSpec("perturbed", gamma, beta=beta)


def perturbed_point(w: torch.Tensor, u: torch.Tensor, beta) -> torch.Tensor:
    """Eq. (5): the minimiser of (beta/2)||x - w||^2 + ((1-beta)/(2 p_i)) sum_n p_in ||x - w^n||^2, i.e.
    beta w + (1 - beta) u with u the p_in/p_i-weighted average of the w^n. Computed as torch.lerp(u, w, beta),
    which returns w exactly at beta = 1 (it evaluates w - (w - u)(1 - beta) for beta >= 1/2)."""
    return torch.lerp(u, w, beta)


@dataclass(frozen=True)
class Participation:
    """[toolkit] ``clients`` of C participate per round; ``mode`` says what non-participants count as."""

    clients: int
    mode: str = "stale"

    def __post_init__(self) -> None:
        require(self.clients >= 1, "clients", f"must be >= 1, got {self.clients}")
        require(self.mode in ("stale", "global"), "mode", f"expected stale or global, got {self.mode!r}")


@dataclass
class Trajectory:
    """What one run recorded.

    * ``wbar [T+1, K, R, d]``: the global model wbar_{t,0} at the start of every round (and after the last);
    * ``grad_sq [T, E, K, C]``: the replicate mean of ||g_i||^2, the oracle's stochastic gradients at every
      gradient point (the Monte Carlo estimate of E||g_i||^2 of Assumption 3; ``record_grad_sq``);
    * ``wbar_steps [T, E, K, R, d]``: the virtual average wbar_{t,k} = sum_i p_i w^i_{t,k} (eq. 2) for k < E,
      the points Theorems 2 and 4 sample from (``record_average``);
    * ``local [T, E+1, K, R, C, d]``, ``perturbed [T, E, K, R, C, d]``, ``u [T, K, R, C, d]``: every local
      iterate w^i_{t,k}, perturbed point and neighbour average (``keep_local``);
    * ``participants [T, R, C]``: who took part (partial participation only).
    """

    wbar: torch.Tensor
    grad_sq: torch.Tensor | None = None
    wbar_steps: torch.Tensor | None = None
    local: torch.Tensor | None = None
    perturbed: torch.Tensor | None = None
    u: torch.Tensor | None = None
    participants: torch.Tensor | None = None

    def local_average(self, p: torch.Tensor) -> torch.Tensor:
        """The virtual average wbar_{t,k} = sum_i p_i w^i_{t,k} (eq. 2) for k = 0..E: ``[T, E+1, K, R, d]``."""
        require(self.local is not None, "keep_local", "the run did not keep the local iterates")
        return p @ self.local


Oracle = Callable[[torch.Tensor, int, int], torch.Tensor]


def _params(methods: Sequence[MethodSpec], like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    vals = torch.tensor([[m.gamma, m.alpha, m.beta] for m in methods], dtype=like.dtype, device=like.device)
    return tuple(vals[:, j].reshape(-1, 1, 1, 1) for j in range(3))  # type: ignore[return-value]


def run_local_rounds(
    oracle: Oracle,
    methods: Sequence[MethodSpec],
    weights: SimilarityWeights,
    w0: torch.Tensor,
    *,
    T: int,
    E: int,
    R: int,
    record_grad_sq: bool = False,
    record_average: bool = False,
    active: Callable[[int, int], torch.Tensor] | None = None,
    keep_local: bool = False,
    participation: Participation | None = None,
    generator: torch.Generator | None = None,
) -> Trajectory:
    """Run T rounds of E local steps for every method in ``methods`` on R replicates, from wbar_{0,0} = w0.

    ``oracle(x, t, k)`` returns the stochastic gradients g_i at the points ``x [K, R, C, d]`` (noise drawn
    per ``[R, C, d]`` and shared by the K methods); ``active(t, k)`` is a ``[R, C]`` or ``[C]`` mask of the
    clients that take step k (the epochs reading); ``generator`` draws the participants when
    ``participation`` is given. See :class:`Trajectory` for what the flags record.
    """
    require(T >= 1 and E >= 1 and R >= 1, "T, E, R", f"must be >= 1, got {T}, {E}, {R}")
    require(len(methods) >= 1, "methods", "give at least one method")
    C = weights.p.shape[-1]
    w0 = torch.as_tensor(w0)
    d = w0.shape[-1]
    K = len(methods)
    gamma, alpha, beta = _params(methods, w0)
    p = weights.p.to(w0)
    Q = weights.neighbour.to(w0)
    if participation is not None:
        require(participation.clients <= C, "participation", f"at most {C} clients can take part")
        require(generator is not None, "generator", "partial participation draws clients: pass a generator")
    wbar = w0.expand(K, R, d).clone()
    X = w0.expand(K, R, C, d).clone()  # w^n_{t-1,E}; X_{-1} = (wbar_00, ...): u_0 = wbar_00
    out = {key: [] for key in ("grad_sq", "wbar_steps", "local", "perturbed", "u", "participants")}
    out["wbar"] = [wbar.clone()]
    keep = 1 - gamma * alpha  # w <- (1 - gamma alpha) w + gamma alpha wbar_0 - gamma g: exactly w - gamma g at alpha = 0
    for t in range(T):
        u = Q @ X
        start = wbar[:, :, None, :]
        pull = gamma * alpha * start
        w = start.expand(K, R, C, d).clone()
        if keep_local:
            out["local"].append(w)
            out["u"].append(u)
        for k in range(E):
            x = perturbed_point(w, u, beta)
            if record_average:
                out["wbar_steps"].append(p @ w)
            g = oracle(x, t, k)
            if record_grad_sq:
                out["grad_sq"].append(g.square().sum(-1))
            moved = torch.addcmul(pull, keep, w).addcmul_(gamma, g, value=-1)
            w = moved if active is None else torch.where(active(t, k)[..., None], moved, w)
            if keep_local:
                out["local"].append(w)
                out["perturbed"].append(x)
        if participation is None:
            wbar = p @ w
            X = w
        else:
            order = torch.rand(R, C, generator=generator, dtype=w0.dtype, device=w0.device).argsort(-1)
            mask = torch.zeros(R, C, dtype=torch.bool, device=w0.device)
            mask.scatter_(1, order[:, : participation.clients], True)
            pm = p * mask.to(p)
            wbar = ((pm / pm.sum(-1, keepdim=True))[:, None, :] @ w).squeeze(-2)
            rest = X if participation.mode == "stale" else start.expand_as(X)
            X = torch.where(mask[None, :, :, None], w, rest)
            out["participants"].append(mask)
        out["wbar"].append(wbar.clone())

    def stack(key: str, *shape) -> torch.Tensor | None:
        return torch.stack(out[key]).reshape(*shape, *out[key][0].shape) if out[key] else None

    grad_sq = stack("grad_sq", T, E)
    return Trajectory(stack("wbar", T + 1), None if grad_sq is None else grad_sq.mean(3), stack("wbar_steps", T, E),
                      stack("local", T, E + 1), stack("perturbed", T, E), stack("u", T), stack("participants", T))


# --------------------------------------------------------------------------------------------------
# The two readings of E (docs/papers/buttaci2024.md §7 item 14) for clients holding finite data
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BatchSchedule:
    """Mini-batches of one round for every replicate and client.

    ``weights [R, S, C, N]``: step s of client c averages the samples with weight 1/|batch| (rows of
    padded samples and of steps the client does not take are 0); ``active [R, S, C]``: whether client c
    takes step s; ``steps [C]``: steps per round; ``uses [R, C, N]``: how often each sample is used.
    """

    weights: torch.Tensor
    active: torch.Tensor
    steps: torch.Tensor
    uses: torch.Tensor
    reading: str


def steps_per_round(sizes, E: int, reading: str, batch_size: int | None = None) -> torch.Tensor:
    """Local steps per round: E (reading "steps", Algorithm 1) or E ceil(N_i/B) (reading "epochs")."""
    sizes = torch.as_tensor(sizes)
    if reading == "steps":
        return torch.full_like(sizes, int(E))
    require(batch_size is not None and batch_size >= 1, "batch_size", "the epochs reading needs a batch size >= 1")
    return int(E) * torch.div(sizes + batch_size - 1, batch_size, rounding_mode="floor")


def batch_schedule(sizes, E: int, reading: str, generator: torch.Generator, R: int, *, batch_size: int | None = None,
                   dtype=torch.float64) -> BatchSchedule:
    """Draw one round's mini-batches for clients with ``sizes [C]`` samples (padded to N = max size).

    "steps": each client's samples are shuffled and split into E consecutive blocks of sizes
    floor(N_i/E) or ceil(N_i/E), one block per step (every sample used once). "epochs": E fresh
    shuffles, each split into ceil(N_i/B) batches of B (the last may be smaller), every sample used E times.
    """
    require(reading in READINGS, "reading", f"expected one of {READINGS}, got {reading!r}")
    sizes = torch.as_tensor(sizes, dtype=torch.int64, device=generator.device)
    require(bool((sizes >= 1).all()), "sizes", "every client needs at least one sample")
    require(int(E) >= 1, "E", f"must be >= 1, got {E}")
    if reading == "steps":
        require(bool((sizes >= E).all()), "E", f"E = {E} disjoint batches need at least E samples per client")
    C, N = sizes.numel(), int(sizes.max())
    valid = torch.arange(N, device=sizes.device)[None, :] < sizes[:, None]  # [C, N]
    n_steps = steps_per_round(sizes, E, reading, batch_size)
    S = int(n_steps.max())
    epochs = 1 if reading == "steps" else int(E)
    onehot = torch.zeros(R, S, C, N, dtype=dtype, device=sizes.device)
    for e in range(epochs):
        keys = torch.rand(R, C, N, generator=generator, dtype=dtype, device=sizes.device).masked_fill(~valid, 2.0)
        rank = keys.argsort(-1).argsort(-1)  # position of each sample in its client's shuffle
        if reading == "steps":
            step = torch.div(rank * int(E), sizes[None, :, None], rounding_mode="floor")
        else:
            per_epoch = n_steps[None, :, None] // int(E)
            step = e * per_epoch + torch.div(rank, batch_size, rounding_mode="floor")
        step = torch.where(valid[None], step, torch.zeros_like(step))
        onehot.scatter_add_(1, step.unsqueeze(1), valid[None, None].to(dtype).expand(R, 1, C, N))
    counts = onehot.sum(-1)  # [R, S, C]
    active = counts > 0
    weights = onehot / counts.clamp(min=1)[..., None]
    return BatchSchedule(weights, active, n_steps, onehot.sum(1), reading)

