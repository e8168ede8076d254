"""The plain-C kernels the algorithms and aggregators call: Threshold-Clustering's balls (``tc_balls.c``), the
column sort (``verify/aggregators/sort_columns.c``), trimmed mean (``verify/aggregators/trimmed_columns.c``) and
Krum's scores from a Gram matrix (``verify/aggregators/krum_scores.c``) and FedAvg's local steps from Gram
statistics (``gram_steps.c``). They are built and loaded as one library with
the core's kernels by verify/native.py (``make setup``; ``python -m verify.algorithms.tc_c`` builds it too); each
getter below returns its function, or None (not built, no compiler, or ``FEDVERIFY_TC_C=0``). The callers then compute
the same numbers with torch (verify/algorithms/threshold_clustering.py's
:func:`~verify.algorithms.threshold_clustering.gram_balls`; tests/verify/test_threshold_clustering.py compares the
two).
"""
from __future__ import annotations

from verify.native import FLAGS, SOURCES, build, build_root, cpu_fingerprint, library, library_path, main  # noqa: F401


def kernel():
    """``tc_gram_balls(R, K, N, g, z_sq, v_sq, t2, bound, inside, unsure, gap) -> unsure count`` (pointers to
    contiguous float64 / bool data), or None."""
    lib = library()
    return None if lib is None else lib.tc_gram_balls


def dot_kernel():
    """``tc_dot_balls(n, rows, N, d, K, z, z_sq, v, c, bound, inside, unsure, gap) -> unsure count`` (the balls with the
    dot products computed in C too; -1 when out of memory), or None."""
    lib = library()
    return None if lib is None else lib.tc_dot_balls


def norms_kernel():
    """``tc_norms(n, rows, N, d, z, z_sq, z_max)``: the points' squared norms and their maxima, or None."""
    lib = library()
    return None if lib is None else lib.tc_norms


def sort_columns():
    """``sort_columns(x, B, N, C, tile)``: sorts the columns of each ``[N, C]`` array of a contiguous float64
    ``[B, N, C]`` array in place, or None."""
    lib = library()
    return None if lib is None else lib.sort_columns


def trimmed_mean_columns():
    """``trimmed_mean_columns(x, B, N, C, f, out) -> 0`` (1: a column holds a NaN; -1: out of memory): the
    coordinate-wise trimmed mean of each ``[N, C]`` array of a contiguous float64 ``[B, N, C]`` array into ``out
    [B, C]`` by selection (verify/aggregators/trimmed_columns.c), or None."""
    lib = library()
    return None if lib is None else lib.trimmed_mean_columns


def krum_gram_scores():
    """``krum_gram_scores(R, N, k, g, nrm, c, u, lead, score, err, order, flag) -> flagged rows`` (-1: a score not
    finite, or out of memory): Krum's scores from the Gram matrix, their rounding intervals, the stable order and the
    rows that can change the first ``lead`` ranks (verify/aggregators/krum_scores.c), or None."""
    lib = library()
    return None if lib is None else lib.krum_gram_scores


def gram_local_steps():
    """``gram_local_steps(n, d, s, G, b, c, v) -> 0`` (-1 for d > 19): s FedAvg steps v <- v - c (G v - b) of n
    clients in place, bitwise the torch loop of verify/algorithms/two_phase.py (verify/algorithms/gram_steps.c), or
    None."""
    lib = library()
    return None if lib is None else lib.gram_local_steps


def krum_gram_distances():
    """``krum_gram_distances(R, N, g, nrm) -> 0, or -1 for non-finite norms``: a Gram matrix overwritten by Krum's
    squared distances in one pass, bitwise numpy's (verify/aggregators/krum_scores.c), or None."""
    lib = library()
    return None if lib is None else lib.krum_gram_distances


if __name__ == "__main__":
    main()
