"""The classic robust aggregators, batched over replicates: mean, coordinate-wise median and trimmed
mean, Multi-Krum, geometric median, Meamed.

All take ``X [R, N, d]`` and the number ``f`` of Byzantine inputs to tolerate and return ``[R, d]``.
Definitions as in docs/papers/allouah2025.md §2.5 and docs/papers/dutta2023.md §2.6 (the standard ones):

* CWTM (Yin et al. 2018): per coordinate, drop the f largest and f smallest values, average the N-2f left.
* CWMED: per coordinate, the median (the mean of the two middle values when N is even).
* Multi-Krum (Blanchard et al. 2017): score_i = sum of the squared distances from x_i to its N-f-2
  nearest other inputs; average the m lowest-scoring inputs (default m = N - f, ByzFL's convention).
* GM (geometric median): argmin_z sum_i ||x_i - z||, by Weiszfeld's iterations (smoothed at 0).
* Meamed (Xie et al. 2018): per coordinate, average the N-f values closest to the median.

**Kernels.** Sorting along the client axis is what these cost; on CPU, numpy's sort (SIMD
quicksort) is 5-10x faster than torch's and faster than selection (``kthvalue``, ``topk``,
``np.partition``: measured on [16, N, d], N in {20, 100, 500}, d in {100, 10^4}), so CPU tensors are
sorted by numpy (:func:`sort_clients`); the sorted values are the same numbers whichever sort
produced them, so every output is bitwise what a torch sort gives. Multi-Krum's pairwise distances
come from the Gram identity ||x_i||^2 + ||x_j||^2 - 2 <x_i, x_j> (a matrix product) with a rounding
bound; the rows whose scores the bound cannot separate from another score get their exact-difference
scores (:func:`krum_scores`), so the ranking, and hence the output, is bitwise that of the
exact-difference computation.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from analytic.errors import require
from verify.aggregators import aggregator

_EPS64 = float(np.finfo(np.float64).eps) / 2  # unit roundoff u of float64
_NUMPY_SORTS = (torch.float64, torch.float32)


def _numpy_ok(X: torch.Tensor) -> bool:
    return X.device.type == "cpu" and X.dtype in _NUMPY_SORTS and not X.requires_grad


def sort_clients(X: torch.Tensor, dim: int = 1) -> torch.Tensor:
    """The values of ``X`` sorted along ``dim`` (ascending, NaN last): numpy's sort for CPU float tensors
    (same values as ``torch.sort``, 5-10x faster here), torch's otherwise."""
    if _numpy_ok(X):
        return torch.from_numpy(np.sort(X.numpy(), axis=dim))
    return X.sort(dim=dim).values


def argsort_clients(X: torch.Tensor, dim: int = 1) -> torch.Tensor:
    """Stable argsort along ``dim`` (ties by index): numpy's stable sort for CPU float tensors, torch's otherwise."""
    if _numpy_ok(X):
        return torch.from_numpy(np.argsort(X.numpy(), axis=dim, kind="stable"))
    return X.argsort(dim=dim, stable=True)


#: Bytes of X sorted at a time by :func:`_per_sorted_block` (a block stays in the L2 cache while it is
#: sorted and reduced; one block per call was 1.5-2x slower at [16, 100, 10^4], from page faults on the
#: fresh 128 MB sort buffer and cache misses).
BLOCK_BYTES = 1 << 20


def _per_sorted_block(X: torch.Tensor, reduce) -> torch.Tensor:
    """``reduce(sorted block [r, N, c]) -> [r, c]`` over blocks of replicates and coordinates of ``X`` sorted
    along the client axis, assembled into ``[R, d]``. Coordinates are independent, so blocking changes
    nothing but the memory traffic; ``reduce`` sees torch tensors either way."""
    R, N, d = X.shape
    if not _numpy_ok(X):
        return reduce(X.sort(dim=1).values)
    Xn = X.numpy()
    per_rep = N * d * X.element_size()
    rb = max(1, min(R, BLOCK_BYTES // max(per_rep, 1)))
    cb = d if rb > 1 else max(1, min(d, BLOCK_BYTES // (N * X.element_size())))
    network = _network_sort() if X.dtype == torch.float64 and N <= SORT_NETWORK_MAX_N else None
    if network is not None:
        sort = lambda x: _sort_by_network(x, network)  # noqa: E731
    else:
        sort = lambda x: np.sort(x, axis=1)  # noqa: E731
    if rb >= R and cb >= d:
        return reduce(torch.from_numpy(sort(Xn)))
    out = X.new_empty(R, d)
    for r0 in range(0, R, rb):
        for c0 in range(0, d, cb):
            out[r0:r0 + rb, c0:c0 + cb] = reduce(torch.from_numpy(sort(Xn[r0:r0 + rb, :, c0:c0 + cb])))
    return out


#: Up to this many clients a float64 block is sorted by the plain-C sorting network (verify/aggregators/sort_columns.c,
#: built by ``make setup``): 3x faster than numpy's per-column sort at N = 20, even at N = 50, slower at N = 100 (its
#: N log^2 N compare-exchanges against numpy's SIMD quicksort).
SORT_NETWORK_MAX_N = 32


def _network_sort():
    from verify.algorithms.tc_c import sort_columns

    return sort_columns()


def _sort_by_network(x: np.ndarray, network) -> np.ndarray:
    """``np.sort(x, axis=1)`` for a float64 block ``[r, N, c]`` by the sorting network on a contiguous copy, column
    tiles of 512 KB (numpy's sort when the block holds a NaN, which it puts last)."""
    out = np.array(x, dtype=np.float64, order="C", copy=True)
    if np.isnan(out).any():
        return np.sort(x, axis=1)
    r, N, c = out.shape
    tile = max(8, ((1 << 19) // (8 * N)) // 8 * 8)
    network(out.ctypes.data, r, N, c, tile)  # every replicate of the block in one call
    return out


def _check(X: torch.Tensor, f: int, need: int = 0) -> tuple[int, int, int]:
    require(X.dim() == 3, "X", f"expected [R, N, d], got shape {tuple(X.shape)}")
    R, N, d = X.shape
    require(isinstance(f, int) and f >= 0, "f", f"must be an integer >= 0, got {f!r}")
    require(N > need, "f", f"{N} inputs cannot tolerate f = {f} (this aggregator needs N > {need})")
    return R, N, d


@aggregator("mean")
def mean(X: torch.Tensor, f: int = 0) -> torch.Tensor:
    """The average: no robustness (FedAvg's aggregation)."""
    _check(X, f)
    return X.mean(1)


def _median_of_sorted(s: torch.Tensor) -> torch.Tensor:
    N = s.shape[1]
    lo, hi = (N - 1) // 2, N // 2
    return 0.5 * (s[:, lo] + s[:, hi])


@aggregator("cwmed")
def coordinate_median(X: torch.Tensor, f: int = 0) -> torch.Tensor:
    """Coordinate-wise median; for even N the mean of the two middle values (so it is symmetric)."""
    _check(X, f, 2 * f)
    return _per_sorted_block(X, _median_of_sorted)


#: From this many clients a float64 CPU trimmed mean is computed by selection in C
#: (verify/aggregators/trimmed_columns.c, built by ``make setup``): O(N) a column against the sort's O(N log N).
#: Measured on [16, N, d] with N // 5 trimmed (one thread, ms, selection / sort; interleaved, load 0.3): d = 100:
#: N 256 0.88 / 0.74 (numpy sorts up to 256 values by a network), N 300 1.04 / 1.29; d = 10^4: N 256 94 / 448,
#: N 300 104 / 142; an earlier build (8 columns copied at a time, load 0.2): d = 100: N 100 0.49 / 0.32, N 200
#: 0.74 / 0.64, N 500 1.52 / 2.14; d = 10^4: N 200 108 / 74, N 500 184 / 246.
CWTM_SELECT_MIN_N = 257


def _trimmed_mean_c(X: torch.Tensor, f: int) -> torch.Tensor | None:
    """The trimmed mean by selection in C (``trimmed_mean_columns``) for a float64 CPU ``X`` with at least
    ``CWTM_SELECT_MIN_N`` clients, else None (also when a column holds a NaN: the sort decides where it goes). The sum
    of the same values s[f:N-f] in another order: within rounding (~1e-16 relative) of the sort's mean
    (tests/verify/test_aggregators_kernels.py)."""
    R, N, d = X.shape
    if N < CWTM_SELECT_MIN_N or not _numpy_ok(X) or X.dtype != torch.float64:
        return None
    from verify.algorithms.tc_c import trimmed_mean_columns

    kernel = trimmed_mean_columns()
    if kernel is None:
        return None
    x = np.ascontiguousarray(X.numpy())
    out = np.empty((R, d))
    return torch.from_numpy(out) if kernel(x.ctypes.data, R, N, d, f, out.ctypes.data) == 0 else None


@aggregator("cwtm")
def trimmed_mean(X: torch.Tensor, f: int) -> torch.Tensor:
    """Coordinate-wise trimmed mean: drop the f largest and f smallest per coordinate (needs N > 2f)."""
    _, N, _ = _check(X, f, 2 * f)
    got = _trimmed_mean_c(X, f)
    if got is not None:
        return got
    return _per_sorted_block(X, lambda s: s[:, f:N - f].mean(1))


def pairwise_sq_distances(X: torch.Tensor) -> torch.Tensor:
    """||x_i - x_j||^2 for all pairs, ``[R, N, N]``, from exact differences (never the matrix-product shortcut)."""
    return torch.cdist(X, X, compute_mode="donot_use_mm_for_euclid_dist") ** 2


def krum_scores_exact(X: torch.Tensor, k: int) -> torch.Tensor:
    """score_i = sum of the k smallest ||x_i - x_j||^2 over j != i, ``[R, N]``, from exact differences (the
    oracle of :func:`krum_scores`): each row sorted, its smallest entry (the zero distance to itself) skipped."""
    return sort_clients(pairwise_sq_distances(X), -1)[:, :, 1:k + 1].sum(-1)


def gram_error_factor(d: int) -> float:
    """c = 8 (d + 4) u: a squared distance from the Gram identity, D~ = n_i + n_j - 2 <x_i, x_j> (norms and dot
    product summed in any order, d terms each), and the square of the exact-difference distance (cdist's d-term
    sum of squared differences, its sqrt) both lie within about (2 gamma_d + 6u)(n_i + n_j) of ||x_i - x_j||^2,
    so |D~ - cdist^2| <= c (n_i + n_j), about twice the sum of the two. The one rounding rule of every Gram-identity
    shortcut with an exact-difference recheck (Krum's scores here; Threshold-Clustering's balls in
    verify/algorithms/threshold_clustering.py)."""
    return 8.0 * (d + 4) * _EPS64


#: Up to this many terms N^2 d per replicate, numpy's BLAS runs Krum's Gram product on one thread by itself.
KRUM_NUMPY_GRAM_MAX = 1 << 16


@lru_cache(maxsize=1)
def _blas_controller():
    """threadpoolctl's controller of numpy's BLAS (scikit-learn brings threadpoolctl), or None."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def _gram(X: torch.Tensor, Xn: np.ndarray) -> np.ndarray:
    """X X^T ``[R, N, N]`` (float64 CPU) by numpy's BLAS on as many threads as torch uses: OpenBLAS otherwise starts
    a thread per core, which on a busy machine, torch on one thread, made a [16, 100, 100] product 30x slower; and
    on one thread it is 1.5-3x faster than torch's bmm at [16, N, d], N in {20, 100, 500}, d in {100, 10^4}. Without
    threadpoolctl, torch's bmm (on torch's threads)."""
    R, N, d = X.shape
    if N * N * d <= KRUM_NUMPY_GRAM_MAX:
        return Xn @ Xn.transpose(0, 2, 1)
    controller = _blas_controller()
    if controller is None:
        return torch.bmm(X, X.transpose(1, 2)).numpy()
    with controller.limit(limits=torch.get_num_threads(), user_api="blas"):
        return Xn @ Xn.transpose(0, 2, 1)

#: Below this many all-pairs terms (R N^2 d) Krum's scores are computed by exact differences directly.
KRUM_GRAM_MIN_TERMS = 0


def krum_scores(X: torch.Tensor, k: int, lead: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Krum's scores ``[R, N]``, ranked exactly as :func:`krum_scores_exact` ranks them (bitwise the same
    order, ties by index), and a mask ``[R, N]`` of the rows whose score is the exact-difference one. With
    ``lead = m`` only the first m ranks (which rows, in which order) are guaranteed exact, which is all Multi-Krum
    uses: the rows ranked after them may keep approximate scores even where their intervals meet.

    Distances by the Gram identity D~_ij = n_i + n_j - 2 g_ij (g = X X^T by a matrix product, n_i = g_ii, so
    D~_ii = 0 exactly). Rounding bound (:func:`gram_error_factor`): each g_ij is a d-term dot product, so D~_ij is within
    (2 gamma_d + 4u)(n_i + n_j) of ||x_i - x_j||^2 (gamma_d = d u / (1 - d u)); the exact-difference
    reference (cdist's d-term sum of squares, its sqrt and the square) is within (2 gamma_d + 6u)(n_i + n_j)
    of it too (||x_i - x_j||^2 <= 2(n_i + n_j)); we use E_ij = 8 (d + 4) u (n_i + n_j), about twice the sum
    of the two. The sum of the k smallest entries of a row moves by at most the sum of all its entries'
    moves, so |score~_i - score_i| <= sum_j E_ij + 2 N u score~_i =: E_i (the two k-term summations, in any
    order: score~_i is the sum of the k + 1 smallest D~_ij, the zero D~_ii among them, picked by a partial
    selection ``np.partition``, O(N) a row where a sort costs O(N log N)).

    **Fast path.** When no two intervals [score~_i - E_i, score~_i + E_i] of a replicate meet, both
    computations order every pair the same way and no two exact scores tie: the approximate scores are returned.
    **Only the leading ranks** (``lead = m``): a row ranked m-th or earlier by score~ whose interval meets another's,
    and a row ranked later whose interval meets the span of the first m intervals (its lower end below their largest
    upper end), are the ones the machinery below must settle. A later row whose interval meets only later rows' lies
    above every leading row's interval, so its exact score is above every leading row's exact score whatever its own
    rank among the later rows: the first m ranks, and so Multi-Krum's average, are those of the exact scores. Byzantine
    duplicates that no leading rank reaches (the usual case) then cost nothing.
    **Exact tie machinery**, only for the rows whose interval meets another's (the rows that rounding could reorder):

    * Inputs that are bitwise equal have bitwise equal exact scores (the same arithmetic on the same
      numbers), so their intervals meet: among the flagged rows, each group of duplicates (the pairs with
      D~_ij <= E_ij, then compared exactly) is ranked by its lowest-index member's score, which the others copy.
    * Each group representative whose interval still meets another representative's gets its
      exact-difference score (one batched cdist of those rows against all inputs).
    * When no two intervals of a replicate's rows meet at all (the usual case) there are no duplicates (their
      exact scores are equal, so their intervals would meet) and nothing to recheck: the search for duplicates
      and the rechecks are skipped. A score~ sums the k + 1 smallest entries of its row, found by partial
      selection (``np.partition``) instead of a sort.

    So every comparison the ranking makes agrees with the exact one, exact ties (duplicates) included.
    The approximate part runs in numpy (CPU float64; a few microseconds per operation where torch takes
    ten, which decides the small cells); other dtypes and devices, non-finite scores and problems below
    ``KRUM_GRAM_MIN_TERMS`` take the exact path."""
    score, exact, _ = _krum_scores(X, k, lead)
    return score, (torch.zeros(score.shape, dtype=torch.bool) if exact is None else exact)


def _krum_scores(X: torch.Tensor, k: int, lead: int | None) -> tuple[torch.Tensor, torch.Tensor, np.ndarray | None]:
    """:func:`krum_scores` (its mask None when no row is exact), and on its fast path the stable order of the scores
    ``[R, N]`` (None otherwise), which is the order ``score.argsort(dim=1, stable=True)`` gives, or at least its first
    ``lead`` columns: Multi-Krum then needs no second sort."""
    R, N, d = X.shape
    if X.dtype != torch.float64 or not _numpy_ok(X) or R * N * N * d < KRUM_GRAM_MIN_TERMS:
        return krum_scores_exact(X, k), torch.ones(R, N, dtype=torch.bool, device=X.device), None
    Xn = X.numpy()
    D = _gram(X, Xn)  # the Gram matrix, overwritten in place by the distances
    c = gram_error_factor(d)
    kernel = _krum_kernel() if N <= KRUM_C_MAX_N else None
    if kernel is not None:  # the same scores up to their summation order, intervals, order and flags, in one C call
        D = np.ascontiguousarray(D)
        # one workspace, one pointer (each .ctypes costs microseconds at this size): nrm, score, err, order, flag
        RN = R * N
        work = np.empty(4 * RN + (RN + 7) // 8)
        base = work.ctypes.data
        n_flagged = kernel(R, N, k, D.ctypes.data, base, c, _EPS64, N if lead is None else min(lead, N),
                           base + 8 * RN, base + 16 * RN, base + 24 * RN, base + 32 * RN)
        if n_flagged < 0:
            return krum_scores_exact(X, k), torch.ones(R, N, dtype=torch.bool, device=X.device), None
        score = work[RN:2 * RN].reshape(R, N)
        if n_flagged == 0:
            return torch.from_numpy(score), None, work[3 * RN:4 * RN].view(np.int64).reshape(R, N)
        return _settle(X, Xn, k, D, work[:RN].reshape(R, N), c, score, work[2 * RN:3 * RN].reshape(R, N),
                       work[4 * RN:].view(np.uint8)[:RN].reshape(R, N).astype(bool))
    nrm = _gram_to_distances(D)
    if nrm is None:
        return krum_scores_exact(X, k), torch.ones(R, N, dtype=torch.bool, device=X.device), None
    D.partition(k, axis=-1)  # in place (a fresh [R, N, N] copy cost more than the selection's own work): D is spent
    score = D[:, :, :k + 1].sum(-1)
    if not np.isfinite(score).all():
        return krum_scores_exact(X, k), torch.ones(R, N, dtype=torch.bool, device=X.device), None
    err = c * (N * nrm + nrm.sum(1, keepdims=True)) + (2.0 * N * _EPS64) * np.abs(score)  # sum_j E_ij + 2Nu|score~|
    flagged, order = _meeting_and_order(score, err, lead)
    if flagged is None:
        return torch.from_numpy(score), None, order
    D = _gram(X, Xn)  # the tie machinery compares distances by index: the same D~ again (rare: intervals met)
    _gram_to_distances(D)
    return _settle(X, Xn, k, D, nrm, c, score, err, flagged)


def _gram_to_distances(D: np.ndarray) -> np.ndarray | None:
    """Overwrite the Gram matrix ``D [R, N, N]`` by D~_ij = max((n_i - 2 g_ij) + n_j, 0), D~_ii = 0, and return the
    norms n ``[R, N]`` (the diagonal it held); None when some norm is not finite (D is then spent). One C pass
    (verify/aggregators/krum_scores.c, bitwise these numpy operations) where the kernels are built."""
    R, N, _ = D.shape
    kernel = _c_function("krum_gram_distances")
    if kernel is not None and D.flags.c_contiguous:
        nrm = np.empty((R, N))
        return None if kernel(R, N, D.ctypes.data, nrm.ctypes.data) < 0 else nrm
    nrm = np.diagonal(D, axis1=1, axis2=2).copy()
    if not np.isfinite(nrm.sum(1)).all():
        return None
    D *= -2.0
    D += nrm[:, :, None]
    D += nrm[:, None, :]
    np.maximum(D, 0.0, out=D)
    ii = np.arange(N)
    D[:, ii, ii] = 0.0
    return nrm


#: Up to this many inputs Krum's scores after the Gram product come from one C call (verify/aggregators/krum_scores.c):
#: there numpy's dozen calls cost more than the arithmetic. Beyond it the selection dominates, and numpy's partition
#: (SIMD introselect) is about 3x the C quickselect at N = 100.
KRUM_C_MAX_N = 32


def _krum_kernel():
    """The C kernel of Krum's scores after the Gram product (verify/aggregators/krum_scores.c), or None."""
    return _c_function("krum_gram_scores")


def _c_function(name: str):
    """The C kernel ``name`` of verify/algorithms/tc_c.py, or None (tc_c decides: not built, or ``FEDVERIFY_TC_C=0``).
    The module is imported once: the import statement at every call cost about a tenth of a Krum call at N = 20,
    d = 100."""
    global _TC_C
    if _TC_C is None:
        from verify.algorithms import tc_c as _TC_C
    return getattr(_TC_C, name)()


_TC_C = None


def _settle(X: torch.Tensor, Xn: np.ndarray, k: int, D: np.ndarray, nrm: np.ndarray, c: float, score: np.ndarray,
            err: np.ndarray, flagged: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, None]:
    """The exact tie machinery of :func:`krum_scores` for the ``flagged`` rows (``score`` is overwritten)."""
    R, N, d = X.shape
    ii = np.arange(N)
    if R * int(flagged.sum(1).max()) * N * d <= KRUM_DIRECT_TERMS:  # every flagged row rechecked, no grouping
        _exact_rows(X, Xn, k, score, flagged)
        return torch.from_numpy(score), torch.from_numpy(flagged), None
    root = _duplicate_roots(Xn, D, nrm, c, flagged)
    is_root = root == ii
    exact = _meeting(np.where(is_root, score, np.inf), err) & is_root & flagged
    if exact.any():
        _exact_rows(X, Xn, k, score, exact)
    return torch.from_numpy(np.take_along_axis(score, root, 1)), torch.from_numpy(exact), None


#: Up to this many terms R K N d (K flagged rows a replicate) Krum's flagged rows all get exact-difference scores
#: (bitwise-equal inputs get bitwise-equal exact scores: the same operations on the same numbers) instead of first
#: being grouped into duplicates: a few numpy calls fewer, which decides the small cells.
KRUM_DIRECT_TERMS = 1 << 20


def _exact_rows(X: torch.Tensor, Xn: np.ndarray, k: int, score: np.ndarray, rows_mask: np.ndarray) -> None:
    """Overwrite ``score`` in place, on the rows of ``rows_mask [R, N]``, by the exact-difference scores (one batched
    cdist of those rows against all inputs, each row sorted, the zero distance to itself skipped)."""
    K = int(rows_mask.sum(1).max())
    rows = np.argsort(~rows_mask, axis=1, kind="stable")[:, :K]  # [R, K], the flagged first
    valid = np.take_along_axis(rows_mask, rows, 1)
    Xr = torch.from_numpy(np.take_along_axis(Xn, rows[..., None], 1))
    Dr = torch.cdist(Xr, X, compute_mode="donot_use_mm_for_euclid_dist") ** 2
    exact_score = sort_clients(Dr, -1)[:, :, 1:k + 1].sum(-1).numpy()
    np.put_along_axis(score, rows, np.where(valid, exact_score, np.take_along_axis(score, rows, 1)), 1)


def _meeting_and_order(key: np.ndarray, err: np.ndarray, lead: int | None) -> tuple[np.ndarray | None, np.ndarray]:
    """(the rows whose interval [key - err, key + err] meets another's in the same row, restricted with ``lead`` to
    those that can change the first ``lead`` ranks, or None when there are none; the stable order of ``key``
    ``[R, N]``, or its first column for ``lead = 1``): :func:`_meeting_sorted`, or for ``lead = 1`` the same rows
    without a sort (:func:`_meeting_of_the_first`)."""
    if lead == 1 and key.shape[1] > 1:
        return _meeting_of_the_first(key, err)
    return _meeting_sorted(key, err, lead)


def _meeting_sorted(key: np.ndarray, err: np.ndarray, lead: int | None) -> tuple[np.ndarray | None, np.ndarray]:
    """:func:`_meeting_and_order` from one stable sort. Sorted by key, interval i meets an earlier one iff its lower end
    is <= the prefix max of the earlier upper ends, and a later one iff its upper end is >= the suffix min of the
    later lower ends. A row ranked after the first ``lead`` matters only if its lower end is at most the largest upper
    end of the first ``lead`` intervals."""
    R, N = key.shape
    order = np.argsort(key, axis=1, kind="stable")
    rows = np.arange(R)[:, None]
    s_o, e_o = key[rows, order], err[rows, order]
    up, low = s_o + e_o, s_o - e_o
    meets = np.zeros((R, N), dtype=bool)
    meets[:, 1:] = low[:, 1:] <= np.maximum.accumulate(up[:, :-1], axis=1)
    meets[:, :-1] |= up[:, :-1] >= np.minimum.accumulate(low[:, :0:-1], axis=1)[:, ::-1]
    if lead is not None and lead < N:
        meets[:, lead:] &= low[:, lead:] <= up[:, :lead].max(1, keepdims=True)
    if not meets.any():
        return None, order
    out = np.zeros((R, N), dtype=bool)
    out[rows, order] = meets
    return out, order


def _meeting_of_the_first(key: np.ndarray, err: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """:func:`_meeting_and_order` for ``lead = 1`` without a sort (Krum): the first row of the stable order is the
    lowest-index minimum; a later row can change it iff its lower end is at most the first row's upper end (its
    interval then meets the first's, whose key is no larger), and the first row is flagged iff some row is. The
    order returned is that first column, ``[R, 1]``."""
    R = key.shape[0]
    first = np.argmin(key, axis=1)  # the lowest index among equal minima, as the stable sort puts first
    rows = np.arange(R)
    meets = key - err <= (key[rows, first] + err[rows, first])[:, None]
    meets[rows, first] = False
    meets[rows, first] = meets.any(1)
    return (meets if meets.any() else None), first[:, None]


def _meeting(key: np.ndarray, err: np.ndarray) -> np.ndarray:
    """``[R, N]``: the finite keys whose interval [key - err, key + err] meets another's in the same row (keys at
    +inf meet nothing finite); the rule of :func:`_meeting_and_order`, on every rank."""
    flagged, _ = _meeting_and_order(key, err, None)
    return np.zeros(key.shape, dtype=bool) if flagged is None else flagged & np.isfinite(key)


def _rows_equal(Xn: np.ndarray, r: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``Xn[r, i] == Xn[r, j]`` on all d values, for each pair: the first 8 values of every pair compared at once, the
    rest only for the pairs that pass, in chunks of 2^15 values a side (gathered [pairs, d] copies of fresh pages cost
    more than the comparisons at d = 10^4; a chunk stays in the cache)."""
    d = Xn.shape[-1]
    head = min(d, 8)
    same = (Xn[r, i, :head] == Xn[r, j, :head]).all(-1)
    todo = np.flatnonzero(same)
    step = max(1, (1 << 15) // d)
    for p0 in range(0, todo.size, step):
        p = todo[p0:p0 + step]
        same[p] = (Xn[r[p], i[p]] == Xn[r[p], j[p]]).all(-1)
    return same


def _duplicate_roots(Xn: np.ndarray, D: np.ndarray, nrm: np.ndarray, c: float, flagged: np.ndarray) -> np.ndarray:
    """``root [R, N]``: for a flagged row i the lowest flagged j with D~_ij <= E_ij = c (n_i + n_j) and x_j bitwise
    equal to x_i (i itself when there is none); every other row is its own root. Bitwise equality is transitive, so a
    group of duplicates (all flagged, their exact scores being equal) points at its lowest-index member. Only the K
    flagged rows of each replicate are compared: [R, K, K] candidate pairs, the lowest candidate of each row confirmed
    on its d values (the next one only when it differs)."""
    R, N = flagged.shape
    root = np.broadcast_to(np.arange(N), (R, N)).copy()
    K = int(flagged.sum(1).max())
    rows = np.sort(np.argsort(~flagged, axis=1, kind="stable")[:, :K], axis=1)  # [R, K] increasing, padded
    valid = np.take_along_axis(flagged, rows, 1)
    rr = np.arange(R)[:, None, None]
    Dsub = D[rr, rows[:, :, None], rows[:, None, :]]  # [R, K, K]
    nsub = np.take_along_axis(nrm, rows, 1)
    cand = (Dsub <= c * (nsub[:, :, None] + nsub[:, None, :])) & valid[:, :, None] & valid[:, None, :]
    cand &= np.tri(K, k=-1, dtype=bool)  # j < i (rows increase along the axis)
    first = np.full((R, K), -1)  # position along rows of the lowest earlier flagged row equal to this one
    todo = cand.any(-1)
    while todo.any():  # one round unless a near-duplicate that is not bitwise equal comes first
        r_i, a_i = np.nonzero(todo)
        b_i = cand[r_i, a_i].argmax(-1)  # the lowest candidate left
        same = _rows_equal(Xn, r_i, rows[r_i, a_i], rows[r_i, b_i])
        first[r_i[same], a_i[same]] = b_i[same]
        cand[r_i, a_i, b_i] = False
        todo[r_i[same], a_i[same]] = False
        todo &= cand.any(-1)
    sel = first >= 0
    if sel.any():
        r_i, a_i = np.nonzero(sel)
        root[r_i, rows[r_i, a_i]] = rows[r_i, first[r_i, a_i]]
    return root


@aggregator("multikrum")
def multi_krum(X: torch.Tensor, f: int, m: int | None = None, neighbors: int | None = None) -> torch.Tensor:
    """Average of the m inputs with the lowest Krum scores (default m = N - f; needs N > 2f + 2).

    ``neighbors`` is the number k of nearest other inputs a score sums: N - f - 2 (Blanchard et al. 2017,
    the default); ByzFL 0.0.11 averages the N - f - 1 nearest (the same ranking as their sum)."""
    _, N, _ = _check(X, f, 2 * f + 2)
    m = N - f if m is None else m
    require(1 <= m <= N, "m", f"must lie in [1, {N}], got {m}")
    k = N - f - 2 if neighbors is None else neighbors
    require(isinstance(k, int) and 0 <= k <= N - 1, "neighbors", f"must lie in [0, {N - 1}], got {neighbors!r}")
    score, _, order = _krum_scores(X, k, lead=m)
    # ties broken by index: deterministic (the fast path's order is this stable sort's)
    R, _, d = X.shape
    if order is not None:  # CPU: whole rows by numpy's take (a memcpy a row, 3x index_select at d = 10^4)
        rows = (order[:, :m] + N * np.arange(R)[:, None]).reshape(-1)
        kept = np.take(X.numpy().reshape(R * N, d), rows, axis=0)
        # Krum (m = 1): the kept row is its own mean bitwise (a one-term sum divided by 1), without torch's mean
        return torch.from_numpy(kept) if m == 1 else torch.from_numpy(kept.reshape(R, m, d)).mean(1)
    keep = score.argsort(dim=1, stable=True)[:, :m]
    rows = (keep.to(X.device) + N * torch.arange(R, device=X.device)[:, None]).reshape(-1)
    # whole rows, not torch.gather's element-wise copy (1.5-3x): the same [R, m, d] values, so the same torch mean
    return X.reshape(R * N, d).index_select(0, rows).view(R, m, d).mean(1)


@aggregator("gm")
def geometric_median(X: torch.Tensor, f: int = 0, iters: int = 200, eps: float = 1e-12,
                     start: str = "cwmed") -> torch.Tensor:
    """Geometric median by Weiszfeld's iterations z <- sum_i w_i x_i / sum_i w_i, w_i = 1 / max(||x_i - z||, eps)
    (the smoothed variant, which converges from any start), from the coordinate-wise median
    (``start="cwmed"``) or from 0 (``start="zero"``, ByzFL's GeometricMedian with nu = eps, T = iters).

    Each iteration reads X twice: the distances by an exact-difference ``cdist`` (X - z is never
    materialised) and the weighted sum by a batched matrix-vector product.

    From the coordinate-wise median, z often starts exactly on an input (for example when one input holds every
    coordinate's median). The smoothed step then gives that input the weight 1/eps and barely moves: from the
    5 inputs of tests/verify/test_aggregators_classic.py's example, 200 steps ended 0.32 from the median. There the
    step is Vardi and Zhang's (:func:`_step_off_an_input`), which leaves an input at once unless the input is the
    geometric median. Every other step is the smoothed one, bit for bit. ``start="zero"`` runs ByzFL's iteration
    literally, smoothed steps only."""
    _check(X, f)
    require(start in ("cwmed", "zero"), "start", f"expected 'cwmed' or 'zero', got {start!r}")
    z = coordinate_median(X, 0) if start == "cwmed" else X.new_zeros(X.shape[0], X.shape[2])
    for _ in range(iters):
        dist = torch.cdist(X, z[:, None], compute_mode="donot_use_mm_for_euclid_dist")  # [R, N, 1]
        w = 1.0 / dist.clamp_min(eps).transpose(1, 2)  # [R, 1, N]
        new = torch.bmm(w, X)[:, 0] / w.sum(-1)
        if start == "cwmed":
            on = dist[..., 0] == 0  # [R, N]: the inputs z sits on
            if bool(on.any()):
                new = torch.where(on.any(1, keepdim=True), _step_off_an_input(X, z, dist[..., 0], on), new)
        z = new
    return z


def _step_off_an_input(X: torch.Tensor, z: torch.Tensor, dist: torch.Tensor, on: torch.Tensor) -> torch.Tensor:
    """Weiszfeld's step from a point z ``[R, d]`` that coincides with eta >= 1 of the inputs ``X [R, N, d]`` (``on
    [R, N]``; ``dist [R, N]`` the distances to z). This is Vardi and Zhang's modification (PNAS 97(4), 2000, eq. 2.6).
    With the other inputs' weights w_i = 1/||x_i - z||, T = sum w_i x_i / sum w_i, R = sum w_i (x_i - z) and
    r = ||R||:

        z' = (1 - eta/r)^+ T + min(1, eta/r) z.

    z stays where it is exactly when r <= eta, the condition for z to be the geometric median. So the iteration
    leaves an input that is not the median, where the smoothed step would give that input the weight 1/eps and
    stall."""
    free = ~on
    w = torch.where(free, 1.0 / torch.where(free, dist, 1.0), 0.0)  # [R, N]
    w_sum = w.sum(1, keepdim=True)
    pull = (w[:, :, None] * X).sum(1)  # sum_i w_i x_i  [R, d]
    T = pull / torch.where(w_sum > 0, w_sum, 1.0)
    r = torch.linalg.vector_norm(pull - w_sum * z, dim=-1, keepdim=True)
    eta = on.sum(1, keepdim=True).to(X.dtype)
    lam = torch.where(r > 0, (eta / torch.where(r > 0, r, 1.0)).clamp_max(1.0), 1.0)
    return (1.0 - lam) * T + lam * z


def _meamed_of_sorted(s: torch.Tensor, f: int) -> torch.Tensor:
    """Meamed of a block sorted along the client axis: the N - f values closest to the median c form a window
    s[w], ..., s[w + N - f - 1] of the sorted values, with w the number of w' < f whose left end is farther
    from c than the next value past the window's right end (c - s[w'] > s[w' + N - f] - c; the predicate
    is true then false as w' grows). On an exact tie the smaller value is kept."""
    R, N, c = s.shape
    med = _median_of_sorted(s)[:, None]
    L = N - f
    w = ((med - s[:, :f]) > (s[:, L:] - med)).sum(1, keepdim=True)  # [R, 1, c]
    pos = torch.arange(N, device=s.device)[None, :, None]
    inside = (pos >= w) & (pos < w + L)
    return torch.where(inside, s, torch.zeros((), dtype=s.dtype, device=s.device)).sum(1) / L


@aggregator("meamed")
def meamed(X: torch.Tensor, f: int) -> torch.Tensor:
    """Mean around the median: per coordinate, average the N-f values closest to the coordinate-wise median
    (on a tie in distance the smaller value is kept; the choice does not depend on the clients' order)."""
    _, N, _ = _check(X, f, 2 * f)
    return _per_sorted_block(X, lambda s: _meamed_of_sorted(s, f))
