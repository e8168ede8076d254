"""Threshold-Clustering (werner2023, Algorithm 3, eq. (24)), batched over replicates.

For each center k independently, with S = {i : ||z_i - v_k|| <= tau_k} and N the number of
*all* points (good, out-of-cluster and Byzantine alike),

    v_k <- (1/N) * sum_i [ z_i 1(i in S) + v_k 1(i not in S) ]  =  v_k + (|S|/N) (mean_S z - v_k).

The update is conservative: a center with no point inside its ball does not move.

Shapes: points ``Z`` are ``[R, N, d]``, centers ``V`` are ``[R, K, d]``. Loops run over the
M steps only. Radius modes (spec section 2.1):

* ``fixed``    -- a given tau (scalar, or a tensor broadcastable to ``[R, K]``);
* ``theory``   -- tau = c_tau * sqrt(delta * sigma * Delta) (statement of Thm 3.1);
* ``quantile`` -- tau = the q-quantile of the distances {||z_i - v_k||}_i, recomputed at each
  step, with the reference code's index rule ``sorted(d)[int(N q)]``.

An optional ``attack(V, tau, step)`` returns Byzantine points ``[R, K, b, d]`` *as seen by each
center* (they may depend on the current center, e.g. the edge-of-ball attack); they join the
in-ball test and the 1/N normalisation like any other point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Literal

import torch

from analytic.errors import InputError

RadiusMode = Literal["fixed", "theory", "quantile"]
Attack = Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]


@dataclass(frozen=True)
class Radius:
    """How the ball radius tau is chosen at each step."""

    mode: RadiusMode = "theory"
    tau: float | None = None  # fixed
    delta: float | None = None  # theory: cluster fraction
    sigma: float | None = None  # theory: within-cluster std (sqrt of total variance)
    Delta: float | None = None  # theory: separation
    c_tau: float = 1.0
    q: float = 0.2  # quantile

    def __post_init__(self) -> None:
        if self.mode not in ("fixed", "theory", "quantile"):
            raise InputError("radius mode", f"expected fixed, theory or quantile, got {self.mode!r}")
        if self.mode == "fixed" and (self.tau is None or self.tau < 0):
            raise InputError("tau", f"fixed radius needs tau >= 0, got {self.tau!r}")
        if self.mode == "theory":
            for name in ("delta", "sigma", "Delta"):
                v = getattr(self, name)
                if v is None or v < 0:
                    raise InputError(name, f"theory radius needs {name} >= 0, got {v!r}")
        if self.mode == "quantile" and not (0.0 < self.q < 1.0):
            raise InputError("q", f"quantile radius needs 0 < q < 1, got {self.q!r}")

    @staticmethod
    def fixed(tau: float) -> "Radius":
        return Radius(mode="fixed", tau=tau)

    @staticmethod
    def theory(delta: float, sigma: float, Delta: float, c_tau: float = 1.0) -> "Radius":
        """tau = c_tau sqrt(delta sigma Delta), the radius in the statement of Thm 3.1."""
        return Radius(mode="theory", delta=delta, sigma=sigma, Delta=Delta, c_tau=c_tau)

    @staticmethod
    def quantile(q: float = 0.2) -> "Radius":
        return Radius(mode="quantile", q=q)

    @property
    def depends_on_distances(self) -> bool:
        """Only the quantile radius needs the current distances (a fixed or theory tau is known beforehand)."""
        return self.mode == "quantile"

    def value(self, dists: torch.Tensor) -> torch.Tensor:
        """tau as a ``[R, K]`` tensor given the current distances ``[R, K, N]``."""
        shape = dists.shape[:-1]
        if self.mode == "fixed":
            return torch.full(shape, float(self.tau), dtype=dists.dtype, device=dists.device)
        if self.mode == "theory":
            tau = self.c_tau * math.sqrt(self.delta * self.sigma * self.Delta)
            return torch.full(shape, tau, dtype=dists.dtype, device=dists.device)
        n = dists.shape[-1]
        k = min(int(n * self.q), n - 1) + 1  # kthvalue is 1-based: sorted(d)[int(n q)]
        return torch.kthvalue(dists, k, dim=-1).values


def threshold_clustering(
    Z: torch.Tensor,
    V0: torch.Tensor,
    radius: Radius,
    steps: int,
    *,
    inclusive: bool = True,
    attack: Attack | None = None,
    record: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Run M = ``steps`` steps of eq. (24) for every replicate and center at once.

    Returns the final centers ``[R, K, d]`` and, if ``record``, the history ``[M+1, R, K, d]``
    (step 0 is the initialisation).
    """
    if Z.dim() != 3 or V0.dim() != 3 or Z.shape[0] != V0.shape[0] or Z.shape[2] != V0.shape[2]:
        raise InputError("shapes", f"expected Z [R,N,d] and V0 [R,K,d], got {tuple(Z.shape)} and {tuple(V0.shape)}")
    if steps < 0:
        raise InputError("steps", f"must be >= 0, got {steps}")
    V = V0.clone()
    hist = [V.clone()] if record else None
    for step in range(1, steps + 1):
        V = threshold_step(Z, V, radius, inclusive=inclusive, attack=attack, step=step)
        if record:
            hist.append(V.clone())
    return V, (torch.stack(hist) if record else None)


#: Bytes of points one block of rows of a Threshold-Clustering step reads (half the L2 cache here): the
#: distances and the masked sum read a block while it is in cache, so the points stream from memory once.
TC_BLOCK_BYTES = 1 << 20


def static_radius(radius, R: int, K: int, like: torch.Tensor) -> torch.Tensor | None:
    """tau ``[R, K]`` when it does not depend on the current distances (``radius.depends_on_distances`` is
    False: fixed and theory radii, per-replicate radii), else None."""
    if getattr(radius, "depends_on_distances", True):
        return None
    return radius.value(like.new_empty(R, K, 0))


def _native(Z: torch.Tensor, V: torch.Tensor, tau: torch.Tensor | None):
    """The fused C++ kernel (verify/algorithms/tc_native.py) when it is built and applies: float64 CPU tensors,
    tau known beforehand."""
    if tau is None or Z.device.type != "cpu" or Z.dtype != torch.float64 or V.dtype != torch.float64 or Z.requires_grad:
        return None
    from verify.algorithms.tc_native import kernel

    return kernel()


def step_sums(Z: torch.Tensor, V: torch.Tensor, radius, *, inclusive: bool = True, want_inside: bool = False):
    """The in-ball sums ``[R, K, d]``, counts ``[R, K, 1]``, radii ``[R, K]`` and (``want_inside``) the balls
    ``[R, K, N]`` of one step of eq. (24).

    When tau does not depend on the distances and the fused kernel is built (``make setup``;
    verify/algorithms/tc_native.py), it computes all of this in one pass over the points: the same
    exact-difference distances and test, each point added to its in-ball sums while it is in L1
    (tests/verify/test_threshold_clustering.py compares it with the torch step). Otherwise the rows are
    processed in blocks of
    ``TC_BLOCK_BYTES`` of points: exact-difference distances, the inclusive (or strict) test and the
    masked sum ``bmm(w, Z)`` all read a block while it is in cache. Every output is bitwise that of the
    one-block computation (the same operations on the same rows; tests/verify/test_threshold_clustering.py);
    the step runs 1.5-2.5x faster at FC and TC sizes (benchmarks/bench_kernels.py)."""
    R, N, d = Z.shape
    K = V.shape[1]
    tau = static_radius(radius, R, K, Z)
    native = _native(Z, V, tau)
    if native is not None:
        S, C, inside = native.tc_sums(Z.contiguous(), V.contiguous(), tau.contiguous(), inclusive, want_inside)
        return S, C, tau, (inside if want_inside else None)
    rows = R if tau is None else max(1, min(R, TC_BLOCK_BYTES // max(1, N * d * Z.element_size())))
    if rows >= R:
        inside, tau = ball_membership(Z, V, radius, inclusive=inclusive)
        w = inside.to(Z.dtype)
        return torch.bmm(w, Z), w.sum(-1, keepdim=True), tau, (inside if want_inside else None)
    in_sum = Z.new_empty(R, K, d)
    count = Z.new_empty(R, K, 1)
    inside_all = torch.empty(R, K, N, dtype=torch.bool, device=Z.device) if want_inside else None
    for s in range(0, R, rows):
        z, t = Z[s:s + rows], tau[s:s + rows, :, None]
        dists = distances(V[s:s + rows], z)
        inside = dists <= t if inclusive else dists < t
        w = inside.to(Z.dtype)
        torch.bmm(w, z, out=in_sum[s:s + rows])
        torch.sum(w, -1, keepdim=True, out=count[s:s + rows])
        if want_inside:
            inside_all[s:s + rows] = inside
    return in_sum, count, tau, inside_all


def threshold_step(
    Z: torch.Tensor,
    V: torch.Tensor,
    radius: Radius,
    *,
    inclusive: bool = True,
    attack: Attack | None = None,
    step: int = 1,
    want_inside: bool = False,
):
    """One step of eq. (24) for ``V [R, K, d]`` on points ``Z [R, N, d]``; with ``want_inside`` also the balls
    ``[R, K, N]`` of the step (the points averaged, Byzantine ones aside)."""
    in_sum, count, tau, inside = step_sums(Z, V, radius, inclusive=inclusive, want_inside=want_inside)
    n_total = Z.shape[1]
    if attack is not None:
        B = attack(V, tau, step)  # [R, K, b, d]
        bd = torch.linalg.vector_norm(B - V[:, :, None, :], dim=-1)
        bw = (bd <= tau[..., None] if inclusive else bd < tau[..., None]).to(Z.dtype)
        in_sum = in_sum + (bw[..., None] * B).sum(2)
        count = count + bw.sum(-1, keepdim=True)
        n_total += B.shape[2]
    new = V + (in_sum - count * V) / n_total
    return (new, inside) if want_inside else new


def distances(V: torch.Tensor, Z: torch.Tensor) -> torch.Tensor:
    """||v_k - z_i|| as ``[R, K, N]``, from exact differences: the matrix-multiply shortcut loses
    digits, and ball boundaries (tau = 2 exactly in werner2023 Example 2) must be decided exactly."""
    return torch.cdist(V, Z, compute_mode="donot_use_mm_for_euclid_dist")


def ball_membership(Z: torch.Tensor, V: torch.Tensor, radius: Radius, *, inclusive: bool = True):
    """Which points lie in each center's ball: bool ``[R, K, N]`` and the radii ``[R, K]`` used."""
    dists = distances(V, Z)
    tau = radius.value(dists)
    return (dists <= tau[..., None] if inclusive else dists < tau[..., None]), tau


def assign_nearest(Z: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """k_i = argmin_k ||z_i - v_k|| (ties to the smaller k), shape ``[R, N]`` (spec default)."""
    return distances(Z, V).argmin(-1)


def edge_of_ball_attack(direction: torch.Tensor, count: int, shrink: float = 1e-9) -> Attack:
    """The paper's worst case: ``count`` Byzantine points at v + tau (1 - shrink) u, recomputed each step.

    ``direction`` is a unit vector ``[R, d]`` (one per replicate) or ``[d]``.
    """
    if count < 0:
        raise InputError("byzantine count", f"must be >= 0, got {count}")

    def attack(V: torch.Tensor, tau: torch.Tensor, step: int) -> torch.Tensor:
        u = direction.to(V)
        u = u.expand(V.shape[0], V.shape[2]) if u.dim() == 1 else u
        pt = V + (tau * (1.0 - shrink))[..., None] * u[:, None, :]  # [R, K, d]
        return pt[:, :, None, :].expand(-1, -1, count, -1)

    return attack


def threshold_clustering_loop(Z, V0, tau: float, steps: int, inclusive: bool = True):
    """Algorithm 3 transcribed literally for ONE replicate: loops over steps, centers and points.

    numpy in, numpy out (``Z [N, d]``, ``V0 [K, d]``, fixed radius). It is the oracle the batched
    version is tested against and the baseline the benchmark measures it against; never use it
    in a check.
    """
    import numpy as np

    Z = np.asarray(Z, dtype=float)
    V = np.array(V0, dtype=float)
    for _ in range(steps):
        new = V.copy()
        for k in range(V.shape[0]):
            acc = np.zeros(V.shape[1])
            for z in Z:
                dist = np.linalg.norm(z - V[k])
                acc += z if (dist <= tau if inclusive else dist < tau) else V[k]
            new[k] = acc / len(Z)
        V = new
    return V
