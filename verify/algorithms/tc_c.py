"""The plain-C kernels: Threshold-Clustering's balls (``tc_balls.c``), the aggregators' column sort
(``verify/aggregators/sort_columns.c``), trimmed mean (``verify/aggregators/trimmed_columns.c``) and Krum's scores
from a Gram matrix (``verify/aggregators/krum_scores.c``), one library
built by ``make setup`` (cc, about a second), loaded with ctypes, never built lazily.

``python -m verify.algorithms.tc_c`` compiles it (``cc -O3 -march=native -fopenmp-simd -shared``) into
``build/tc_c/<hash>/`` where the hash covers the source and the CPU's model and flags (-march=native code must not
run on another CPU), so a stale build is never loaded. :func:`kernel` returns the loaded library or None (not built,
no compiler, or ``FEDVERIFY_TC_C=0``); verify/algorithms/threshold_clustering.py then computes the same balls with
torch (:func:`verify.algorithms.threshold_clustering.gram_balls`; tests/verify/test_threshold_clustering.py compares
the two).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

SOURCES = [Path(__file__).with_name("tc_balls.c"), Path(__file__).parents[1] / "aggregators" / "sort_columns.c",
           Path(__file__).parents[1] / "aggregators" / "trimmed_columns.c",
           Path(__file__).parents[1] / "aggregators" / "krum_scores.c"]
ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["-O3", "-march=native", "-fopenmp-simd", "-fno-math-errno", "-shared", "-fPIC"]


def cpu_fingerprint() -> bytes:
    """The CPU's model and instruction-set flags: every -march=native build is keyed by it (such code must not
    run on another CPU)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        return "\n".join(sorted({ln for ln in lines if ln.startswith(("model name", "flags"))})).encode()
    except OSError:
        import platform
        return (platform.machine() + platform.processor()).encode()


def library_path() -> Path:
    tag = hashlib.sha256(b"".join(p.read_bytes() for p in SOURCES) + " ".join(FLAGS).encode() + cpu_fingerprint()).hexdigest()[:16]
    return build_root() / "tc_c" / tag / "fedverify_c.so"


def build_root() -> Path:
    """Where compiled kernels go: ``$FEDVERIFY_BUILD_DIR``, else ``build/`` in the checkout."""
    return Path(os.environ.get("FEDVERIFY_BUILD_DIR", ROOT / "build"))


@lru_cache(maxsize=1)
def _load():
    path = library_path()
    if not path.exists():
        return None
    lib = ctypes.CDLL(str(path))
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    lib.tc_gram_balls.argtypes = [i64, i64, i64] + [ptr] * 8
    lib.tc_gram_balls.restype = i64
    lib.tc_dot_balls.argtypes = [i64, ptr, i64, i64, i64] + [ptr] * 8
    lib.tc_dot_balls.restype = i64
    lib.tc_dot_anchor.argtypes = [i64, ptr, i64, i64, i64, i64] + [ptr] * 8 + [ctypes.c_double] * 2 + [ptr] * 7
    lib.tc_dot_anchor.restype = i64
    lib.tc_masked_sums.argtypes = [i64, ptr, i64, i64, i64, ptr, ptr, ptr, ptr]
    lib.tc_masked_sums.restype = None
    lib.tc_run.argtypes = [i64] * 5 + [ptr] * 3 + [ctypes.c_double] * 2 + [ptr] * 3
    lib.tc_run.restype = i64
    lib.tc_norms.argtypes = [i64, ptr, i64, i64, ptr, ptr, ptr]
    lib.tc_norms.restype = None
    lib.sort_columns.argtypes = [ptr, i64, i64, i64, i64]
    lib.sort_columns.restype = None
    lib.trimmed_mean_columns.argtypes = [ptr, i64, i64, i64, i64, ptr]
    lib.trimmed_mean_columns.restype = i64
    lib.krum_gram_scores.argtypes = [i64, i64, i64, ptr, ptr, ctypes.c_double, ctypes.c_double, i64] + [ptr] * 4
    lib.krum_gram_scores.restype = i64
    lib.krum_gram_distances.argtypes = [i64, i64, ptr, ptr]
    lib.krum_gram_distances.restype = i64
    return lib


def library():
    """The loaded library (``tc_gram_balls``, ``tc_dot_balls``, ``tc_dot_anchor``, ``tc_masked_sums``, ``tc_norms``,
    ``tc_run``, ``sort_columns``), or None (not built, or ``FEDVERIFY_TC_C=0``)."""
    if os.environ.get("FEDVERIFY_TC_C", "1") == "0":
        return None
    try:
        lib = _load()
    except OSError:
        lib = None
    if lib is None:
        _warn_off()
    return lib


@lru_cache(maxsize=1)
def _warn_off() -> None:
    """Once per process, to a person at a terminal: the C kernels are not built, so their callers run the (slower,
    equal) torch code (logs and captured output stay as they were)."""
    if not sys.stderr.isatty():
        return
    print(f"fedverify: note: the C kernels are not built for this copy ({library_path().parent}); Threshold-"
          f"Clustering and the column aggregators run in torch (same results, slower). Build them with "
          f"'{Path(sys.executable).name} -m verify.algorithms.tc_c' (a C compiler, about a second); "
          "FEDVERIFY_TC_C=0 turns them off without this note.", file=sys.stderr)


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


def krum_gram_distances():
    """``krum_gram_distances(R, N, g, nrm) -> 0, or -1 for non-finite norms``: a Gram matrix overwritten by Krum's
    squared distances in one pass, bitwise numpy's (verify/aggregators/krum_scores.c), or None."""
    lib = library()
    return None if lib is None else lib.krum_gram_distances


def build(compiler: str | None = None) -> Path | None:
    """Compile the kernel into :func:`library_path` (idempotent); None when there is no C compiler or it fails."""
    cc = compiler or os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    out = library_path()
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        try:
            subprocess.run([cc, *FLAGS, *map(str, SOURCES), "-o", str(tmp), "-lm"], check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        os.replace(tmp, out)
    _load.cache_clear()
    return out


if __name__ == "__main__":
    path = build()
    print(path if path else "no C compiler: the Threshold-Clustering balls run in torch", file=sys.stderr)
