"""The classic robust aggregators against ByzFL 0.0.11's (LPD-EPFL) on the same inputs.

ByzFL aggregates one problem at a time; its fastest path is numpy float64 arrays (np.sort, np.median,
scipy's exact-difference cdist, np.argpartition), which is what runs here, one call per replicate. Ours
takes the batch [R, N, d] as a torch tensor. Definitions are matched where they differ: Krum and
Multi-Krum with ByzFL's N - f - 1 neighbours (``neighbors=``), GM from 0 with distances floored at
nu = 0.1 for T = 3 iterations (``start="zero"``, ``eps``, ``iters``). Outputs agree to rounding (ByzFL
sums the kept inputs in another order); a benchmark refuses to report a ratio when they do not.

Timing: single thread (``torch.set_num_threads(1)``; numpy's sort is single-threaded anyway), the two
sides interleaved (baseline, ours, baseline, ours, ...), medians reported, with the load average.
ByzFL's top-level package imports torchvision (absent here); only ``byzfl.aggregators`` is imported,
as tests/verify/test_byzfl_crosscheck.py does.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import statistics
import sys
import time
import types

import numpy as np
import torch

from verify.aggregators.classic import coordinate_median, geometric_median, meamed, multi_krum, trimmed_mean

CELLS = [(N, d) for N in (20, 100, 500) for d in (100, 10_000)]
R = 16


def byzfl_aggregators():
    """ByzFL's aggregators module without running byzfl/__init__.py (which imports torchvision); None when
    byzfl is not installed."""
    if "byzfl.aggregators.aggregators" in sys.modules:
        return sys.modules["byzfl.aggregators.aggregators"]
    spec = importlib.util.find_spec("byzfl")
    if spec is None or not spec.submodule_search_locations:
        return None
    if "byzfl" not in sys.modules:
        pkg = types.ModuleType("byzfl")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["byzfl"] = pkg
    return importlib.import_module("byzfl.aggregators.aggregators")


def one_thread():
    """Every thread pool on one thread while a pair is timed: torch's, and numpy's BLAS (OpenBLAS starts one thread
    per core otherwise, which made the numpy side's small products 2x faster on an idle machine and 30x slower on a
    busy one), by threadpoolctl when it is installed (scikit-learn brings it)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def interleaved(baseline, ours, runs: int, warmup: int = 1) -> dict:
    """Median seconds of ``baseline`` and ``ours`` run alternately ``runs`` times each (after ``warmup``
    rounds), single thread (torch and numpy's BLAS); the ratio is the median of the per-round ratios."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    limits = one_thread()
    limits.__enter__()
    try:
        for _ in range(warmup):
            out_b, out_f = baseline(), ours()
        tb, tf = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            out_b = baseline()
            t1 = time.perf_counter()
            out_f = ours()
            t2 = time.perf_counter()
            tb.append(t1 - t0)
            tf.append(t2 - t1)
    finally:
        limits.__exit__(None, None, None)
        torch.set_num_threads(threads)
    return {"baseline_s": statistics.median(tb), "fedverify_s": statistics.median(tf),
            "ratio": statistics.median(b / f for b, f in zip(tb, tf)), "runs": runs,
            "baseline_times": tb, "fedverify_times": tf, "load_average": os.getloadavg(),
            "threads": 1, "outputs": (out_b, out_f)}


def pair_record(name: str, size: dict, baseline: str, detail: str, timing: dict, atol: float, rtol: float = 0.0) -> dict:
    """A record whose ratio is refused when the two outputs disagree (|a - b| > atol + rtol |b|)."""
    out_b, out_f = (np.asarray(o, dtype=float) for o in timing.pop("outputs"))
    diff = np.abs(out_f - out_b)
    if not np.all(diff <= atol + rtol * np.abs(out_b)):
        raise AssertionError(f"{name}: fedverify and {baseline} disagree by {float(diff.max())}")
    return {"name": name, "size": size, "baseline": baseline, "baseline_detail": detail, **timing,
            "max_abs_difference": float(diff.max()), "device": "cpu", "dtype": "float64"}


def _inputs(N: int, d: int, f: int, seed: int = 0) -> torch.Tensor:
    """Honest N(0, I) inputs and f Byzantine ones, all equal to a far point (ties for Krum's scores)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(R, N, d, generator=g, dtype=torch.float64)
    X[:, N - f:] = 3.0 + torch.randn(R, 1, d, generator=g, dtype=torch.float64)
    return X


def _pairs(agg):
    return {
        "cwtm": (lambda f: agg.TrMean(f=f), lambda X, f: trimmed_mean(X, f)),
        "cwmed": (lambda f: agg.Median(), lambda X, f: coordinate_median(X)),
        "krum": (lambda f: agg.Krum(f=f), lambda X, f: multi_krum(X, f, m=1, neighbors=X.shape[1] - f - 1)),
        "multikrum": (lambda f: agg.MultiKrum(f=f), lambda X, f: multi_krum(X, f, neighbors=X.shape[1] - f - 1)),
        "gm": (lambda f: agg.GeometricMedian(nu=0.1, T=3), lambda X, f: geometric_median(X, iters=3, eps=0.1, start="zero")),
        "meamed": (lambda f: agg.Meamed(f=f), lambda X, f: meamed(X, f)),
    }


def bench_aggregator(name: str, N: int, d: int, runs: int) -> dict:
    agg = byzfl_aggregators()
    f = N // 5
    X = _inputs(N, d, f)
    Xn = X.numpy()
    make, ours = _pairs(agg)[name]
    theirs = make(f)
    big = N * d >= 10**6  # seconds a call: no warm-up round, three interleaved pairs
    timing = interleaved(lambda: np.stack([theirs(Xn[r]) for r in range(R)]), lambda: ours(X, f).numpy(),
                         3 if big else runs, warmup=0 if big else 1)
    return pair_record(f"{name}_vs_byzfl_N{N}_d{d}", {"R": R, "N": N, "d": d, "f": f}, "byzfl",
                       f"ByzFL 0.0.11 {type(theirs).__name__}, one call per replicate on numpy float64", timing,
                       atol=1e-12, rtol=1e-12)


def _make(name: str, N: int, d: int):
    def run(device: str, repeat: int) -> dict:
        if byzfl_aggregators() is None:
            return {"name": f"{name}_vs_byzfl", "skipped": "byzfl is not installed (make setup installs it)"}
        return bench_aggregator(name, N, d, max(3, repeat))
    return run


def gram_multikrum_numpy(Xn: np.ndarray, m: int, k: int) -> np.ndarray:
    """A plain batched Gram-identity Multi-Krum in numpy, the competent hand-written baseline: D = n_i + n_j - 2 X X^T
    (one BLAS product), the diagonal set to +inf, the k smallest of each row by ``np.partition`` and summed, the m
    lowest scores (stable argsort, ties by index) averaged. No rounding control: it ranks as the exact-difference
    computation only where rounding cannot reorder two scores (true of the benchmark's inputs; checked by comparing
    outputs)."""
    R, N, _ = Xn.shape
    G = Xn @ Xn.transpose(0, 2, 1)
    nrm = np.einsum("rii->ri", G)
    D = nrm[:, :, None] + nrm[:, None, :] - 2.0 * G
    ii = np.arange(N)
    D[:, ii, ii] = np.inf
    score = np.partition(D, k - 1, axis=-1)[:, :, :k].sum(-1) if k > 0 else np.zeros((R, N))
    keep = np.argsort(score, axis=1, kind="stable")[:, :m]
    return np.take_along_axis(Xn, keep[:, :, None], 1).mean(1)


def bench_krum_gram(name: str, N: int, d: int, runs: int) -> dict:
    """Ours against :func:`gram_multikrum_numpy` on the same inputs (Krum: m = 1; Multi-Krum: m = N - f), both with
    the N - f - 2 nearest neighbours (Blanchard et al. 2017)."""
    f = N // 5
    X = _inputs(N, d, f)
    Xn = X.numpy()
    m = 1 if name == "krum" else N - f
    k = N - f - 2
    big = N * d >= 10**6
    # the small cells take under a millisecond a call: many interleaved rounds, or their median is noise
    timing = interleaved(lambda: gram_multikrum_numpy(Xn, m, k), lambda: multi_krum(X, f, m=m).numpy(),
                         5 if big else max(runs, 41), warmup=1)
    return pair_record(f"{name}_vs_gram_numpy_N{N}_d{d}", {"R": R, "N": N, "d": d, "f": f}, "gram-numpy",
                       f"batched numpy Gram-identity {'Krum' if m == 1 else 'Multi-Krum'} (np.partition of the k "
                       "smallest), one BLAS thread", timing, atol=1e-12, rtol=1e-12)


def _make_gram(name: str, N: int, d: int):
    def run(device: str, repeat: int) -> dict:
        return bench_krum_gram(name, N, d, max(5, repeat))
    return run


BENCHMARKS = {f"{name}_vs_byzfl_N{N}_d{d}": _make(name, N, d)
              for name in ("cwtm", "cwmed", "meamed", "krum", "multikrum", "gm") for N, d in CELLS}
BENCHMARKS.update({f"{name}_vs_gram_numpy_N{N}_d{d}": _make_gram(name, N, d)
                   for name in ("krum", "multikrum") for N, d in CELLS})


# --- CAF (allouah2025, Algorithm 2) ---------------------------------------------------------------------------------

#: (n, d, input seed). ByzFL ranks the iterates by ||Sigma v_0|| with a strict <, ours (the paper's line) by the
#: Rayleigh quotient v_1^T Sigma v_1 with <=; after one power step the two estimates of the top eigenvalue differ
#: by more than the spread of the last iterates, so the rules pick different iterates on about a third of the
#: inputs (the weights, hence the iterations and the work, are the same: the update uses v_1 on both sides). Each
#: cell uses the first seed in 0, 1, 2 on which both rules pick the same iterate and the loop ends within 20
#: iterations, so the two estimates can be required equal to 1e-12.
CAF_CELLS = [(20, 100, 0), (20, 10_000, 0), (100, 100, 0), (100, 10_000, 0), (500, 100, 1), (500, 10_000, 2)]


class _SeededStarts:
    """Stand-in for ``np.random.randn`` inside ByzFL's CAF: one ``[1, d]`` draw from ``torch.Generator(seed)`` per
    call, which are the start vectors our power-method CAF draws for one replicate, so both sides run the same
    iterations."""

    def __init__(self, seed: int) -> None:
        self.gen = torch.Generator().manual_seed(seed)

    def __call__(self, d: int) -> np.ndarray:
        return torch.randn(1, d, generator=self.gen, dtype=torch.float64)[0].numpy()


def _caf_inputs(n: int, d: int, f: int, seed: int = 0) -> torch.Tensor:
    """One problem ``[1, n, d]``: N(0, I) honest inputs, the last f with 1 + 225/d times the variance (the literal
    loop ends in a few iterations on these; on far clustered outliers it stalls, docs/papers/allouah2025.md 7.6)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(1, n, d, generator=g, dtype=torch.float64)
    X[:, n - f:] += 15.0 / d ** 0.5 * torch.randn(1, f, d, generator=g, dtype=torch.float64)
    return X


def bench_caf_literal(n: int, d: int, seed: int, runs: int) -> dict:
    """Our literal CAF (one power step, tau_max over all points) against ByzFL 0.0.11's CAF, one call on one problem
    each, the same start vectors (ByzFL's ``np.random.randn`` replaced by :class:`_SeededStarts` during its call).
    The inputs are those of :data:`CAF_CELLS` (on which ByzFL's ranking of the iterates and ours agree); the ratio
    is refused unless the two estimates agree to 1e-12."""
    from verify.aggregators.caf import caf

    agg = byzfl_aggregators()
    f = n // 5
    X = _caf_inputs(n, d, f, seed)
    x = X[0].numpy()
    theirs = agg.CAF(f)
    saved = np.random.randn

    def baseline():
        np.random.randn = _SeededStarts(1)
        try:
            return theirs(x)
        finally:
            np.random.randn = saved

    def ours():
        return caf(X, f, eigen="power", power_iters=1, max_over="all", generator=torch.Generator().manual_seed(1))[0]

    small = n * d < 10**6  # sub-millisecond calls: many interleaved rounds, or the median is noise
    timing = interleaved(baseline, lambda: ours().numpy(), max(runs, 41) if small else runs)
    return pair_record(f"caf_literal_vs_byzfl_N{n}_d{d}", {"R": 1, "n": n, "d": d, "f": f, "seed": seed}, "byzfl",
                       "ByzFL 0.0.11 CAF (one power step, max over all points), one call on numpy float64, same start "
                       "vectors", timing, atol=1e-12, rtol=1e-12)


def _make_caf_literal(n: int, d: int, seed: int):
    def run(device: str, repeat: int) -> dict:
        if byzfl_aggregators() is None:
            return {"name": "caf_literal_vs_byzfl", "skipped": "byzfl is not installed (make setup installs it)"}
        return bench_caf_literal(n, d, seed, max(5, repeat))
    return run


BENCHMARKS.update({f"caf_literal_vs_byzfl_N{n}_d{d}": _make_caf_literal(n, d, seed) for n, d, seed in CAF_CELLS})


#: (n, d) of the exact CAF's cells: n >= 100 and d = 64-512 (the Gram path where d > n); f = n / 5.
CAF_EXACT_CELLS = [(n, d) for n in (100, 500) for d in (64, 128, 256, 512)]


def bench_caf_exact(n: int, d: int, runs: int) -> dict:
    """Our exact CAF (numpy loop, top pairs by dsyevr) against the same filter with a full batched
    ``torch.linalg.eigh`` each iteration (``full_eigh=True``, the path every exact CAF took before), one problem of
    :func:`_caf_inputs`, one call each; refused unless the estimates and the final weights agree to 1e-12."""
    from verify.aggregators.caf import caf_filter

    f = n // 5
    X = _caf_inputs(n, d, f, 0)

    def run(full_eigh: bool):
        mu, trace = caf_filter(X, f, full_eigh=full_eigh)
        return torch.cat([mu[0], trace.weights[0]]).numpy(), int(trace.iterations[0])

    iterations = run(False)[1]
    timing = interleaved(lambda: run(True)[0], lambda: run(False)[0], max(runs, 11))
    return pair_record(f"caf_exact_vs_full_eigh_N{n}_d{d}",
                       {"R": 1, "n": n, "d": d, "f": f, "seed": 0, "iterations": iterations}, "full-eigh",
                       "fedverify's exact CAF with a full batched torch.linalg.eigh each iteration (full_eigh=True: "
                       "the path before the top-pair solver, bitwise its numbers); estimate and final weights compared",
                       timing, atol=1e-12)


def _make_caf_exact(n: int, d: int):
    def run(device: str, repeat: int) -> dict:
        return bench_caf_exact(n, d, max(5, repeat))
    return run


BENCHMARKS.update({f"caf_exact_vs_full_eigh_N{n}_d{d}": _make_caf_exact(n, d) for n, d in CAF_EXACT_CELLS})


if __name__ == "__main__":
    only = sys.argv[1:]
    for key, fn in BENCHMARKS.items():
        if only and not any(o in key for o in only):
            continue
        rec = fn("cpu", 5)
        print(f"{key:<36} {rec['baseline']} {rec['baseline_s']*1e3:9.2f} ms  ours {rec['fedverify_s']*1e3:9.2f} ms  "
              f"ratio {rec['ratio']:6.2f}  diff {rec['max_abs_difference']:.1e}  load {rec['load_average'][0]:.2f}", flush=True)
