"""Threshold-Clustering (werner2023, Algorithm 3, eq. (24)), batched over replicates.

For each center k independently, with S = {i : ||z_i - v_k|| <= tau_k} and N the number of
*all* points (good, out-of-cluster and Byzantine alike),

    v_k <- (1/N) * sum_i [ z_i 1(i in S) + v_k 1(i not in S) ]  =  v_k + (|S|/N) (mean_S z - v_k).

The update is conservative: a center with no point inside its ball does not move.

Shapes: points ``Z`` are ``[R, N, d]``, centers ``V`` are ``[R, K, d]``. Loops run over the
M steps only. Radius modes (docs/papers/werner2023.md §2.1):

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
    cache: StepCache | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Run M = ``steps`` steps of eq. (24) for every replicate and center at once.

    Returns the final centers ``[R, K, d]`` and, if ``record``, the history ``[M+1, R, K, d]``
    (step 0 is the initialisation). ``cache``: a :class:`StepCache` to carry on with (one is made when it applies).
    """
    if Z.dim() != 3 or V0.dim() != 3 or Z.shape[0] != V0.shape[0] or Z.shape[2] != V0.shape[2]:
        raise InputError("shapes", f"expected Z [R,N,d] and V0 [R,K,d], got {tuple(Z.shape)} and {tuple(V0.shape)}")
    if steps < 0:
        raise InputError("steps", f"must be >= 0, got {steps}")
    if attack is None and not record and cache is None:
        got = whole_run(Z, V0, radius, steps, inclusive=inclusive)
        if got is not None:
            return got[0], None
    return _step_by_step(Z, V0, radius, steps, inclusive, attack, record, cache)


def _step_by_step(Z, V0, radius, steps: int, inclusive: bool, attack, record: bool, cache):
    """:func:`threshold_clustering` one :func:`threshold_step` at a time (sharing a :class:`StepCache`)."""
    V = V0.clone()
    hist = [V.clone()] if record else None
    if cache is None and steps > 1:
        cache = step_cache(Z, V, radius)
    for step in range(1, steps + 1):
        V = threshold_step(Z, V, radius, inclusive=inclusive, attack=attack, step=step, cache=cache)
        if record:
            hist.append(V.clone())
    return V, (torch.stack(hist) if record else None)


@dataclass(frozen=True)
class RowRadius:
    """A fixed radius per row and center, ``tau [R, K]`` (the :class:`Radius` protocol, tau known beforehand)."""

    tau: torch.Tensor
    depends_on_distances = False

    def value(self, dists: torch.Tensor) -> torch.Tensor:
        return self.tau.to(dists).expand(dists.shape[:-1])


def whole_run(Z: torch.Tensor, V0: torch.Tensor, radius, steps: int, *, inclusive: bool = True):
    """The centers after ``steps`` steps of eq. (24) and the balls ``[R, K, N]`` of the last step (those at its
    starting centers), by one C call that runs each replicate's whole clustering while its points are in cache
    (verify/algorithms/tc_balls.c, tc_run: the points are read from memory once a run, not once a step). Its balls
    are the exact-difference test's (the Gram identity with the rounding bound of :func:`gram_balls`; a replicate
    with a pair too near its sphere to decide so is run again step by step, :func:`threshold_step`, which rechecks
    such pairs by exact differences); a ball is recomputed only when the center leaves the slack of the point where
    it was last computed (the rule of :class:`StepCache`), an in-ball sum only when its ball changed: by the points
    that entered (added) or left (subtracted), or afresh in the points' order (tc_balls.c, masked_sum) at the first
    step and when more than N / 8 points moved. The same balls as the step-by-step path and centers within rounding
    (~1e-15 relative) of its bmm sums. None when it does not apply: the C library not built, not float64
    CPU tensors, tau depending on the distances, points too large or not finite for the Gram identity, no step."""
    if (steps < 1 or Z.dim() != 3 or Z.device.type != "cpu" or Z.dtype != torch.float64 or V0.dtype != torch.float64
            or Z.requires_grad or V0.requires_grad or V0.device.type != "cpu"):
        return None
    R, N, d = Z.shape
    K = V0.shape[1]
    tau = static_radius(radius, R, K, Z)
    if tau is None or not gram_applies(Z, V0, tau):
        return None
    from verify.algorithms.tc_c import library
    from verify.aggregators.classic import _EPS64, gram_error_factor

    lib = library()
    if lib is None:
        return None
    z, v0, t = Z.contiguous(), V0.contiguous(), tau.to(torch.float64).contiguous()
    status = torch.empty(R, dtype=torch.uint8)
    V = torch.empty_like(v0)
    inside = torch.empty(R, K, N, dtype=torch.bool)
    bad = lib.tc_run(R, N, d, K, steps, z.data_ptr(), v0.data_ptr(), t.data_ptr(), gram_error_factor(d), _EPS64,
                     status.data_ptr(), V.data_ptr(), inside.data_ptr())
    if bad < 0:  # out of memory in C
        return None
    if bad > 0:  # a pair too near a sphere: these replicates step by step (exact recheck of such pairs)
        rows = status.nonzero()[:, 0]
        zr, vr, rad = z.index_select(0, rows), v0.index_select(0, rows), RowRadius(t.index_select(0, rows))
        cache = step_cache(zr, vr, rad)
        v_prev, _ = _step_by_step(zr, vr, rad, steps - 1, inclusive, None, False, cache)
        v_last, ins = threshold_step(zr, v_prev, rad, inclusive=inclusive, want_inside=True, cache=cache)
        V[rows], inside[rows] = v_last, ins
    return V, inside


#: Bytes of points one block of rows of a Threshold-Clustering step reads (half the L2 cache here): the
#: distances and the masked sum read a block while it is in cache, so the points stream from memory once.
TC_BLOCK_BYTES = 1 << 20
#: The same on a GPU, where a block is one kernel launch and the points stream from device memory anyway: blocks sized
#: for a CPU's cache left an H200 idle (an FC round at N = 4096, d = 64 ran 2048 one-row blocks: 3.6 s of dispatch on
#: the CPU against 0.31 s of kernels).
TC_BLOCK_BYTES_CUDA = 1 << 30


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


def step_cache(Z: torch.Tensor, V: torch.Tensor, radius) -> StepCache | None:
    """A :class:`StepCache` for the steps of one clustering of the points ``Z`` when it applies (float64, tau known
    beforehand), else None."""
    tau = static_radius(radius, Z.shape[0], V.shape[1], Z)
    return StepCache(Z, V.shape[1], tau, radius) if gram_applies(Z, V, tau) else None


def gram_applies(Z: torch.Tensor, V: torch.Tensor, tau: torch.Tensor | None) -> bool:
    return (tau is not None and Z.shape[1] > 0 and bool(torch.isfinite(tau).all()) and float(tau.abs().max()) < 1e140
            and Z.dtype == torch.float64 and V.dtype == torch.float64 and not Z.requires_grad
            and not V.requires_grad)


#: The largest squared norm the Gram test takes (beyond it, or for non-finite points, the exact test runs).
_GRAM_MAX_SQ = 1e280


def _c_kernel(z: torch.Tensor, v: torch.Tensor):
    """The plain-C balls (verify/algorithms/tc_c.py) when built and applicable (CPU float64), else None."""
    if z.device.type != "cpu" or v.device.type != "cpu":
        return None
    from verify.algorithms.tc_c import kernel

    return kernel()


def _dot_balls(z, v, z_sq, c, bound):
    """inside, unsure ``[r, K, N]``, gap ``[r, K]`` and whether a pair is unsure, by the C pass that computes the dot
    products itself (verify/algorithms/tc_balls.c, tc_dot_balls), for float64 CPU inputs; None when it is not built
    (or could not allocate its scratch). ``c``: ``||v_k||^2 - tau_k^2`` ``[r, K, 1]``."""
    from verify.algorithms.tc_c import dot_kernel

    dot = dot_kernel()
    if dot is None or z.dtype != torch.float64 or v.dtype != torch.float64:
        return None
    r, N, d = z.shape
    K = v.shape[1]
    z, v, z_sq = z.contiguous(), v.contiguous(), z_sq.contiguous()
    c, bound = c.reshape(r, K).contiguous(), bound.reshape(r, K).contiguous()
    rows = torch.arange(r)
    inside = torch.empty(r, K, N, dtype=torch.bool)
    unsure = torch.empty(r, K, N, dtype=torch.bool)
    gap = torch.empty(r, K, dtype=torch.float64)
    n = dot(r, rows.data_ptr(), N, d, K, z.data_ptr(),
            *(x.data_ptr() for x in (z_sq, v, c, bound, inside, unsure, gap)))
    return None if n < 0 else (inside, unsure, gap, n > 0)


def _gram_safe(sq: torch.Tensor) -> bool:
    """Squared norms the Gram test takes: finite and below ``_GRAM_MAX_SQ``."""
    return sq.numel() == 0 or (bool(torch.isfinite(sq).all()) and float(sq.max()) < _GRAM_MAX_SQ)


def gram_balls(z: torch.Tensor, v: torch.Tensor, tau: torch.Tensor, z_sq: torch.Tensor, inclusive: bool = True,
               want_slack: bool = False, *, v_sq: torch.Tensor | None = None, z_max: torch.Tensor | None = None,
               checked: bool = False, recheck: bool = True):
    """``dist(v_k, z_i) <= tau_k`` (or ``<``) as bool ``[r, K, N]``, bitwise the exact-difference test of
    :func:`ball_membership`, from the Gram identity: D~ = ||v||^2 + ||z||^2 - 2 <v, z> by one batched matrix
    product, within E = c (||v_k||^2 + max_i ||z_i||^2) of the square of the exact-difference distance (c from
    verify.aggregators.classic.gram_error_factor, the rule Krum's scores use). Pairs with |D~ - tau^2| > E + 4u tau^2
    are decided by the sign of D~ - tau^2 (both tests agree there, inclusive or strict); the others (points within
    about 1e-13 relative of the sphere, e.g. werner2023 Example 2's points exactly at tau) get their exact-difference
    distance (cdist of those pairs, the same arithmetic as the full cdist) and the exact test. None when the inputs
    are not finite or too large for the bound (the caller runs the exact test).

    ``want_slack``: also the slack h ``[r, K]``: every point's true distance to v_k differs from tau_k by more than
    h (from the gap min_i |D~_i - tau^2| less the bound; 0 when a pair needed the recheck), which
    :class:`StepCache` uses to skip a ball that cannot have changed. ``v_sq [r, K, 1]``, ``z_max [r, 1, 1]``: the
    centers' squared norms and the largest of the points', when the caller has them (``checked``: and has found
    them finite and small enough). ``recheck=False`` leaves the undecided pairs to the sign of D~ - tau^2 (only
    for the slack: it is 0 where a pair is undecided)."""
    from verify.aggregators.classic import _EPS64, gram_error_factor

    if v_sq is None:
        v_sq = (v * v).sum(-1, keepdim=True)  # [r, K, 1]
    if z_max is None:
        z_max = z_sq.amax(-1)[:, None, None]  # [r, 1, 1]
    if not checked and not (_gram_safe(z_max) and _gram_safe(v_sq)):
        return None
    t2 = tau * tau  # [r, K, 1]
    bound = gram_error_factor(z.shape[-1]) * (v_sq + z_max) + (4.0 * _EPS64) * t2
    lib = _c_kernel(z, v)
    got = _dot_balls(z, v, z_sq, v_sq - t2, bound) if lib is not None else None
    if got is not None:  # dot products and test in one C pass over the points (tc_balls.c, tc_dot_balls)
        inside, unsure, gap, any_unsure = got
    elif lib is not None:  # the same quantities in one pass over the dot products (verify/algorithms/tc_balls.c)
        r, N, _ = z.shape
        K = v.shape[1]
        g = torch.bmm(v, z.transpose(1, 2))  # [r, K, N], contiguous
        z_sq = z_sq.contiguous()
        vs, tt, bb = (x.reshape(r, K).contiguous() for x in (v_sq.expand(r, K, 1), t2.expand(r, K, 1), bound))
        inside = torch.empty(r, K, N, dtype=torch.bool)
        unsure = torch.empty(r, K, N, dtype=torch.bool)
        gap = torch.empty(r, K, dtype=torch.float64)
        any_unsure = lib(r, K, N, *(x.data_ptr() for x in (g, z_sq, vs, tt, bb, inside, unsure, gap))) > 0
    else:
        D = torch.baddbmm(v_sq + z_sq[:, None, :], v, z.transpose(1, 2), alpha=-2.0)
        D -= t2
        inside = D <= 0
        D.abs_()
        unsure = D <= bound
        any_unsure = bool(unsure.any())
        gap = D.amin(-1) if D.shape[-1] else torch.full_like(bound[..., 0], math.inf)
    if recheck and any_unsure:
        r, k, i = unsure.nonzero(as_tuple=True)
        dist = torch.cdist(v[r, k][:, None], z[r, i][:, None], compute_mode="donot_use_mm_for_euclid_dist")[:, 0, 0]
        t = tau[r, k, 0]
        inside[r, k, i] = dist <= t if inclusive else dist < t
    if not want_slack:
        return inside
    # every point's true squared distance is at least `gap` away from tau^2 (<= 0: some point is too near to say)
    gap = gap - bound.reshape(gap.shape)
    t = tau[..., 0]
    return inside, torch.where(gap > 0, torch.sqrt(t * t + gap.clamp_min(0)) - t, torch.zeros_like(t))


#: The steps ahead (inf: the limit, the ball's mean) at which :class:`StepCache` anchors a recomputed center too.
AHEAD = (1, 2, math.inf)


#: The anchors of the C path (:func:`_reanchor_c`): the step after next and the limit. The next step's center,
#: AHEAD's j = 1, comes out of the same balls as a step would compute, so its anchor only pays off where no other
#: does; the TC benchmark (R = 64, N = 1024, d = 32, K = 4, 10 steps) skipped the same steps without it, 8.75 ms
#: against 9.75 ms a clustering (interleaved, load 1.8 on 2 cores).
AHEAD_C = (2, math.inf)

#: Sum blocks whose balls :class:`StepCache` recomputes in one go (fewer, larger calls; the sums stay per block).
GROUP = 2


class StepCache:
    """What the steps of one Threshold-Clustering run on fixed points share when tau is known beforehand and the
    balls come from :func:`gram_balls`: the points' squared norms, and per (replicate, center) the center a_k at
    which its ball was last computed, that ball's mask and its slack h_k (every point's true distance to a_k is
    more than h_k away from tau_k), and per replicate the in-ball sums and counts.

    A center that has moved by m_k = ||v_k - a_k|| < h_k (less rounding margins) has every point's true distance
    on the same side of tau_k as at a_k (triangle inequality) and more than the rounding of an exact-difference
    distance away from it, so its ball is the one stored (the bounds of Elkan's and Hamerly's k-means): a step
    recomputes the balls of the replicates with a center that cannot be skipped (they become the new anchors), and
    with them, while the points are in cache, the balls at the points the center moves to while its ball does not
    change: v <- v + (|S|/N)(mean_S - v) puts it at mean_S + (1 - |S|/N)^j (v - mean_S) after j steps (``AHEAD``;
    j = inf is the mean), so when those points have the same ball and their neighbourhoods cover the segment, no
    later step recomputes it. A center is skipped when it lies within the slack of any anchor whose ball is the
    stored one (the others get slack 0). A step then recomputes the masked sums of the row blocks of
    :func:`step_sums` in which a ball changed: torch's ``bmm`` does not give bitwise the same numbers for a matrix
    whatever the batch it comes in, so a sum is always the same call on the same block as without the cache, and a
    block whose balls did not change keeps the bits of that call. Every output is bitwise what a step without the
    cache gives (tests/verify/test_threshold_clustering.py), except on the C path (:func:`_reanchor_c`), whose in-ball
    sums come from the same C pass as the balls, each coordinate summed in the points' order (tc_balls.c,
    masked_sum): the same balls, the centers within rounding (~1e-15 relative) of the bmm sums'. With few centers
    (``EXACT_MAX_K``) the balls and slacks come from exact differences (:func:`exact_balls`) instead."""

    def __init__(self, Z: torch.Tensor, K: int, tau: torch.Tensor, radius=None):
        from verify.aggregators.classic import gram_error_factor

        R, N, d = Z.shape
        self.radius = radius  # the radius object tau came from: a step with this very object reuses tau
        self.c = gram_error_factor(d)  # the rounding factor of the slack test, per run
        self.c_tau = self.c * tau[:, None]  # its tau term [R, 1, K], per run
        self.z_sq = Z.new_empty(R, N)  # the points' squared norms, filled block by block by the first step
        self.z_max = Z.new_empty(R, 1, 1)
        self.z_safe = True
        self.tau = tau
        # the center where the ball was computed, and the points it moves to while its ball does not change
        self.anchor = Z.new_empty(R, 1 + len(AHEAD), K, d)
        self.slack = Z.new_zeros(R, 1 + len(AHEAD), K)
        self.in_sum = Z.new_empty(R, K, d)
        self.count = Z.new_empty(R, K, 1)
        self.inside = torch.empty(R, K, N, dtype=torch.bool, device=Z.device)
        self.fresh = True

    def stale_rows(self, V: torch.Tensor) -> torch.Tensor:
        """The replicates whose balls may have changed since their anchors (a 1-D index tensor): those with a center
        v_k and no anchor a with m (1 + c) + c tau_k < h (1 - c), m = ||v_k - a||, h its slack."""
        c = self.c
        moved = torch.linalg.vector_norm(V[:, None] - self.anchor, dim=-1)  # [R, 1 + len(AHEAD), K]
        safe = moved * (1.0 + c) + self.c_tau < self.slack * (1.0 - c)
        return (~safe.any(1).all(-1)).nonzero()[:, 0]


def step_sums(Z: torch.Tensor, V: torch.Tensor, radius, *, inclusive: bool = True, want_inside: bool = False,
              cache: StepCache | None = None):
    """The in-ball sums ``[R, K, d]``, counts ``[R, K, 1]``, radii ``[R, K]`` and (``want_inside``) the balls
    ``[R, K, N]`` of one step of eq. (24).

    When tau does not depend on the distances and the fused kernel is built (``make setup``;
    verify/algorithms/tc_native.py), it computes all of this in one pass over the points: the same
    exact-difference distances and test, each point added to its in-ball sums while it is in L1
    (tests/verify/test_threshold_clustering.py compares it with the torch step). Otherwise the rows are
    processed in blocks of ``TC_BLOCK_BYTES`` of points: the balls (float64 with tau known beforehand: by the
    Gram identity with a rounding bound and an exact-difference recheck of the pairs it cannot decide,
    :func:`gram_balls`, and with a ``cache`` (:class:`StepCache`, which :func:`threshold_clustering` makes) only
    where they may have changed; otherwise exact-difference distances and the inclusive or strict test) and the masked
    sum ``bmm(w, Z)`` read a block while it is in cache. The balls are bitwise those of the exact-difference
    test and every output bitwise that of the one-block exact computation (the same masked-sum arithmetic on
    the same rows; tests/verify/test_threshold_clustering.py)."""
    R, N, d = Z.shape
    K = V.shape[1]
    same = cache is not None and radius is cache.radius  # the radius the cache was made for: its tau, not again
    tau = cache.tau if same else static_radius(radius, R, K, Z)
    native = _native(Z, V, tau)
    if native is not None:
        S, C, inside = native.tc_sums(Z.contiguous(), V.contiguous(), tau.contiguous(), inclusive, want_inside)
        return S, C, tau, (inside if want_inside else None)
    budget = TC_BLOCK_BYTES if Z.device.type == "cpu" else TC_BLOCK_BYTES_CUDA
    rows = R if tau is None else max(1, min(R, budget // max(1, N * d * Z.element_size())))
    if (cache is not None and tau is not None and V.dtype == Z.dtype == torch.float64 and not V.requires_grad
            and not Z.requires_grad
            and (same or torch.equal(cache.tau, tau))):  # (step_cache checked this tau: gram_applies)
        _cached_sums(Z, V, tau, inclusive, cache, rows)
        return (cache.in_sum.clone(), cache.count.clone(), tau,
                cache.inside.clone() if want_inside else None)
    gram = gram_applies(Z, V, tau)
    if rows >= R and not gram:
        inside, tau = ball_membership(Z, V, radius, inclusive=inclusive)
        w = inside.to(Z.dtype)
        return torch.bmm(w, Z), w.sum(-1, keepdim=True), tau, (inside if want_inside else None)
    in_sum = Z.new_empty(R, K, d)
    count = Z.new_empty(R, K, 1)
    inside_all = torch.empty(R, K, N, dtype=torch.bool, device=Z.device) if want_inside else None
    for s in range(0, R, rows):
        z, t = Z[s:s + rows], tau[s:s + rows, :, None]
        inside = None
        if gram and K > STEP_EXACT_MAX_K:
            inside = gram_balls(z, V[s:s + rows], t, (z * z).sum(-1), inclusive)
        if inside is None:
            dists = distances(V[s:s + rows], z)
            inside = dists <= t if inclusive else dists < t
        w = inside.to(Z.dtype)
        torch.bmm(w, z, out=in_sum[s:s + rows])
        torch.sum(w, -1, keepdim=True, out=count[s:s + rows])
        if want_inside:
            inside_all[s:s + rows] = inside
    return in_sum, count, tau, inside_all


#: Up to this many centers a row, :class:`StepCache` decides balls by exact differences (cdist), beyond it by the
#: Gram identity: a one-center product costs more than the distances (an FC step, K = 1, d = 64, ran 2x slower).
EXACT_MAX_K = 1
#: The same for a step without a cache (no slacks to compute): exact differences up to K = 4 (a TC step, K = 4,
#: d = 32: 3.5 ms against 4.1 ms by the Gram identity; with the cache's slacks the Gram identity wins, 12.8 ms
#: against 14.0 ms for a 10-step clustering).
STEP_EXACT_MAX_K = 4


def exact_balls(z, v, t, inclusive: bool = True):
    """The exact-difference balls ``[r, K, N]`` and their slacks ``[r, K]``: every point's true distance to v_k is
    more than h_k away from tau_k, with h_k = min_i (|dist_i - tau_k| - c dist_i) (an exact-difference distance is
    within (d + 4) u of the true one relative; c = verify.aggregators.classic.gram_error_factor is 8 (d + 4) u)."""
    from verify.aggregators.classic import gram_error_factor

    dists = distances(v, z)
    inside = dists <= t if inclusive else dists < t
    if dists.shape[-1] == 0:
        return inside, torch.full_like(t[..., 0], math.inf)
    gap = ((dists - t).abs_() - gram_error_factor(z.shape[-1]) * dists).amin(-1)
    return inside, torch.nan_to_num(gap.clamp_min_(0.0), nan=0.0)


def _balls(z, v, t, z_sq, z_max, inclusive: bool, safe: bool, recheck: bool = True):
    """The balls ``[r, K, N]`` and slacks ``[r, K]`` of a few replicates: :func:`exact_balls` for few centers,
    :func:`gram_balls` for more, the exact test with slack 0 (never skipped) when the Gram test does not apply."""
    if safe and v.shape[1] <= EXACT_MAX_K:
        return exact_balls(z, v, t, inclusive)
    got = gram_balls(z, v, t, z_sq, inclusive, want_slack=True, z_max=z_max, checked=True,
                     recheck=recheck) if safe else None
    if got is None:
        dists = distances(v, z)
        return (dists <= t if inclusive else dists < t), torch.zeros_like(t[..., 0])
    return got


def _c_path(Z: torch.Tensor, V: torch.Tensor) -> bool:
    """Whether :func:`_reanchor_c` applies: the C library built, contiguous float64 CPU points, more than
    ``EXACT_MAX_K`` centers."""
    if (Z.device.type != "cpu" or Z.dtype != torch.float64 or V.dtype != torch.float64 or not Z.is_contiguous()
            or V.shape[1] <= EXACT_MAX_K):
        return False
    from verify.algorithms.tc_c import library

    return library() is not None


def _reanchor_c(cache: StepCache, Z, V, tau, inclusive: bool, rows: int, idx: torch.Tensor, fresh: bool) -> None:
    """:func:`_reanchor` for the replicates ``idx`` by one C pass a replicate (tc_balls.c, tc_dot_anchor) that reads
    their points in place: the balls at ``V[idx]`` by the Gram identity (the pairs it cannot decide then get the exact
    recheck of :func:`gram_balls`) and the anchors ``AHEAD_C`` on the way to the balls' means with their slacks (a
    point well inside or outside a ball is pruned by the triangle inequality), and the in-ball sums and counts of those
    balls from the same pass (each coordinate summed in the points' order, tc_balls.c masked_sum; again by
    tc_masked_sums for the replicates whose undecided pairs the recheck decided), stored for the replicates whose balls
    changed (all when ``fresh``). They are not bmm's bits (the torch path's, :func:`_block_sums`): the TC benchmark
    (R = 64, N = 1024, d = 32, K = 4, 10 steps) spent 3.2 of 7.3 ms a clustering in those bmm calls. ``rows`` is
    unused (the torch path's block size)."""
    from verify.aggregators.classic import _EPS64, gram_error_factor
    from verify.algorithms.tc_c import library

    lib = library()
    R, N, d = Z.shape
    K = V.shape[1]
    n, A = idx.numel(), len(AHEAD_C)
    idx = idx.contiguous()
    v, t = V.index_select(0, idx).contiguous(), tau.index_select(0, idx)[..., None]  # [n, K, d], [n, K, 1]
    z_max = cache.z_max.index_select(0, idx)  # [n, 1, 1]
    cf = gram_error_factor(d)
    v_sq = (v * v).sum(-1, keepdim=True)
    t2 = t * t
    bound = (cf * (v_sq + z_max) + (4.0 * _EPS64) * t2)[..., 0].contiguous()
    c, t2 = (v_sq - t2)[..., 0].contiguous(), t2[..., 0].contiguous()
    js = torch.tensor(AHEAD_C, dtype=torch.float64)
    inside = torch.empty(n, K, N, dtype=torch.bool)
    unsure = torch.empty(n, K, N, dtype=torch.bool)
    gap = torch.empty(n, K, dtype=torch.float64)
    anchor = torch.empty(n, A, K, d, dtype=torch.float64)
    slack_a = torch.empty(n, A, K, dtype=torch.float64)
    sums = torch.empty(n, K, d, dtype=torch.float64)
    cnts = torch.empty(n, K, dtype=torch.float64)
    got = lib.tc_dot_anchor(n, idx.data_ptr(), N, d, K, A, js.data_ptr(), Z.data_ptr(), cache.z_sq.data_ptr(),
                            z_max.data_ptr(), v.data_ptr(), c.data_ptr(), t2.data_ptr(), bound.data_ptr(), cf, _EPS64,
                            inside.data_ptr(), unsure.data_ptr(), gap.data_ptr(), anchor.data_ptr(), slack_a.data_ptr(),
                            sums.data_ptr(), cnts.data_ptr())
    redo = None  # the replicates whose balls the recheck may have changed: their sums again, by tc_masked_sums
    if got < 0:  # out of memory in C: the exact balls, slack 0, no anchors
        inside = distances(v, Z.index_select(0, idx))
        inside = inside <= t if inclusive else inside < t
        gap.zero_()
        slack_a.zero_()
        anchor.copy_(v[:, None].expand_as(anchor))
        redo = torch.arange(n)
    elif got > 0:  # the pairs near tau: exact differences
        a, k, i = unsure.nonzero(as_tuple=True)
        dist = torch.cdist(v[a, k][:, None], Z[idx[a], i][:, None], compute_mode="donot_use_mm_for_euclid_dist")[:, 0, 0]
        tk = t[a, k, 0]
        inside[a, k, i] = dist <= tk if inclusive else dist < tk
        redo = torch.unique(a)
    if redo is not None and redo.numel():
        ins, rr = inside.index_select(0, redo).contiguous(), idx.index_select(0, redo).contiguous()
        s_r, c_r = sums.new_empty(rr.numel(), K, d), cnts.new_empty(rr.numel(), K)
        lib.tc_masked_sums(rr.numel(), rr.data_ptr(), N, d, K, Z.data_ptr(), ins.data_ptr(), s_r.data_ptr(),
                           c_r.data_ptr())
        sums[redo], cnts[redo] = s_r, c_r
    tt = t[..., 0]
    gap -= bound
    slack = torch.where(gap > 0, torch.sqrt(tt * tt + gap.clamp_min(0)) - tt, torch.zeros_like(tt))
    if fresh:  # idx is every replicate
        cache.inside.copy_(inside)
        cache.in_sum.copy_(sums)
        cache.count.copy_(cnts[..., None])
    else:  # the replicates whose balls changed (the others keep sums of the same balls, summed the same way)
        changed = (inside != cache.inside.index_select(0, idx)).flatten(1).any(1)
        cache.inside[idx] = inside
        ci = idx[changed]
        cache.in_sum[ci] = sums[changed]
        cache.count[ci] = cnts[changed][..., None]
    pad = cache.anchor.shape[1] - 1 - A  # the cache's unused anchors: slack 0, never used
    cache.anchor[idx] = torch.cat([v[:, None], anchor, v[:, None].expand(n, pad, K, d)], 1)
    cache.slack[idx] = torch.cat([slack[:, None], slack_a, slack.new_zeros(n, pad, K)], 1)


def _c_norms(Z: torch.Tensor, cache: StepCache) -> bool:
    """The points' squared norms and their maxima into ``cache`` by one C pass (verify/algorithms/tc_balls.c,
    tc_norms); False when it does not apply (not built, not a contiguous float64 CPU tensor)."""
    if Z.device.type != "cpu" or Z.dtype != torch.float64 or not Z.is_contiguous():
        return False
    from verify.algorithms.tc_c import norms_kernel

    norms = norms_kernel()
    if norms is None:
        return False
    R, N, d = Z.shape
    rows = torch.arange(R)
    norms(R, rows.data_ptr(), N, d, Z.data_ptr(), cache.z_sq.data_ptr(), cache.z_max.data_ptr())
    return True


def _block_sums(cache: StepCache, Z: torch.Tensor, s: int, rows: int) -> None:
    """The masked sums and counts of the block of ``rows`` replicates from ``s`` (the same call as
    :func:`step_sums`)."""
    b = slice(s, s + rows)
    w = cache.inside[b].to(Z.dtype)
    torch.bmm(w, Z[b], out=cache.in_sum[b])
    torch.sum(w, -1, keepdim=True, out=cache.count[b])


def _cached_sums(Z, V, tau, inclusive: bool, cache: StepCache, rows: int) -> None:
    """Bring ``cache`` up to date for the centers ``V`` (see :class:`StepCache`); ``rows``: the block size of
    :func:`step_sums`."""
    R = Z.shape[0]
    fresh, cache.fresh = cache.fresh, False
    v_safe = _gram_safe((V * V).sum(-1))
    stale = None if fresh or not (cache.z_safe and v_safe) else cache.stale_rows(V)
    if stale is not None and stale.numel() == 0:
        return
    if _c_path(Z, V) and (not fresh or _c_norms(Z, cache)):
        if fresh:
            cache.z_safe = _gram_safe(cache.z_max)
        if cache.z_safe and v_safe:  # every stale replicate in one go, points read where they lie (no copies)
            _reanchor_c(cache, Z, V, tau, inclusive, rows, torch.arange(R) if stale is None else stale, fresh)
            return
        fresh = fresh and not cache.z_safe  # (norms done) the exact balls below, slack 0
    if stale is None or 2 * stale.numel() > R:  # most rows: in place, GROUP sum blocks at a time, while in cache
        span = rows * GROUP
        starts = range(0, R, span) if stale is None else (torch.unique(stale // span) * span).tolist()
        for s in starts:
            b = slice(s, s + span)
            z = Z[b]
            if fresh:
                torch.sum(z * z, -1, out=cache.z_sq[b])
                torch.amax(cache.z_sq[b], -1, out=cache.z_max[b, 0, 0])
                cache.z_safe = cache.z_safe and _gram_safe(cache.z_max[b])
            safe = cache.z_safe and v_safe

            def sums(changed, s=s):  # the sum blocks of this group in which a ball changed (all at the first step)
                for j in range(0, changed.numel(), rows):
                    if fresh or bool(changed[j:j + rows].any()):
                        _block_sums(cache, Z, s + j, rows)

            _reanchor(cache, b, z, V[b], tau[b, :, None], inclusive, safe, sums)
        return

    def sums(changed):  # the blocks of the replicates whose balls changed
        for s in (torch.unique(stale[changed] // rows) * rows).tolist():
            _block_sums(cache, Z, s, rows)

    _reanchor(cache, stale, Z.index_select(0, stale), V.index_select(0, stale), tau.index_select(0, stale)[..., None],
              inclusive, True, sums)


def _reanchor(cache: StepCache, idx, z, v, t, inclusive: bool, safe: bool, sums) -> None:
    """New anchors for the replicates ``idx`` (a slice or an index tensor; ``z``, ``v``, ``t`` their points, centers,
    radii): their balls at ``v``, ``sums(changed [r])`` to bring the masked sums up to date, then the balls at the
    points ``AHEAD`` on the way to the means of the new balls (the other anchors)."""
    z_sq, z_max = cache.z_sq[idx], cache.z_max[idx]
    inside, slack = _balls(z, v, t, z_sq, z_max, inclusive, safe)
    changed = (inside != cache.inside[idx]).flatten(1).any(1)
    cache.inside[idx] = inside
    sums(changed)
    count = cache.count[idx]
    mean = cache.in_sum[idx] / count.clamp_min(1.0)
    keep = 1.0 - count / z.shape[1]  # [r, K, 1]
    ahead = [mean if math.isinf(j) else mean + keep ** j * (v - mean) for j in AHEAD]
    A, K = len(ahead), v.shape[1]
    slack_a = torch.zeros_like(slack).repeat(1, A)
    if safe:  # the balls there need no recheck: a point too near tau leaves that anchor with slack 0
        got = _balls(z, torch.cat(ahead, 1), t.repeat(1, A, 1), z_sq, z_max, inclusive, safe, recheck=False)
        if got is not None:
            same = (got[0].unflatten(1, (A, K)) == inside[:, None]).all(-1).flatten(1)
            slack_a = torch.where(same, got[1], slack_a)
    cache.anchor[idx] = torch.stack([v, *ahead], 1)
    cache.slack[idx] = torch.cat([slack[:, None], slack_a.unflatten(1, (A, K))], 1)


def threshold_step(
    Z: torch.Tensor,
    V: torch.Tensor,
    radius: Radius,
    *,
    inclusive: bool = True,
    attack: Attack | None = None,
    step: int = 1,
    want_inside: bool = False,
    cache: StepCache | None = None,
):
    """One step of eq. (24) for ``V [R, K, d]`` on points ``Z [R, N, d]``; with ``want_inside`` also the balls
    ``[R, K, N]`` of the step (the points averaged, Byzantine ones aside). ``cache``: as in :func:`step_sums`."""
    in_sum, count, tau, inside = step_sums(Z, V, radius, inclusive=inclusive, want_inside=want_inside, cache=cache)
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
    """k_i = argmin_k ||z_i - v_k|| (ties to the smaller k), shape ``[R, N]`` (our default, docs/papers/werner2023.md §2.1)."""
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
