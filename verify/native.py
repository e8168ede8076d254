"""The project's plain-C kernels as one library: the sources, how they are built, and the loaded library.

The sources are Threshold-Clustering's balls (``verify/algorithms/tc_balls.c``), the aggregators' column sort
(``verify/aggregators/sort_columns.c``), trimmed mean (``verify/aggregators/trimmed_columns.c``) and Krum's scores
(``verify/aggregators/krum_scores.c``), FedAvg's local steps from Gram statistics (``verify/algorithms/gram_steps.c``),
the core's bootstrap means (``verify/bootstrap_means.c``) and torch.randn's float64 draws (``verify/normal_draws.c``).
``make setup`` builds them (``python -m verify.native``; cc, about a second) with
``cc -O3 -march=native -fopenmp-simd -shared`` into ``build/tc_c/<hash>/``, where the hash covers the sources and the
CPU's model and flags (-march=native code must not run on another CPU), so a stale build is never loaded. The library
is loaded with ctypes and never built lazily. :func:`library` returns it, or None (not built, no compiler, or
``FEDVERIFY_TC_C=0``); every caller then computes the same numbers in torch or numpy, and the tests compare the two.

This module sits in the core (it imports neither torch nor the algorithms), so that the core's own loops can use the
library too; ``verify/algorithms/tc_c.py`` names the kernels the algorithms call.
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

_HERE = Path(__file__).resolve().parent
SOURCES = [_HERE / "algorithms" / "tc_balls.c", _HERE / "aggregators" / "sort_columns.c",
           _HERE / "aggregators" / "trimmed_columns.c", _HERE / "aggregators" / "krum_scores.c",
           _HERE / "algorithms" / "gram_steps.c", _HERE / "bootstrap_means.c", _HERE / "normal_draws.c"]
ROOT = _HERE.parent
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
    lib.gram_local_steps.argtypes = [i64] * 3 + [ptr] * 4
    lib.gram_local_steps.restype = i64
    lib.resample_means.argtypes = [i64] * 3 + [ptr] * 3
    lib.resample_means.restype = None
    lib.normal_draws_f64.argtypes = [ptr, i64, ptr, i64]
    lib.normal_draws_f64.restype = i64
    return lib


def library():
    """The loaded library (every function its sources export), or None (not built, or ``FEDVERIFY_TC_C=0``)."""
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
    equal) torch and numpy code (logs and captured output stay as they were)."""
    if not sys.stderr.isatty():
        return
    print(f"fedverify: note: the C kernels are not built for this copy ({library_path().parent}); Threshold-"
          f"Clustering, the column aggregators, FedAvg's Gram steps, bootstrap means and large normal draws run in "
          f"torch and numpy (same results, slower). Build them with '{Path(sys.executable).name} -m verify.native' "
          "(a C compiler, about a second); FEDVERIFY_TC_C=0 turns them off without this note.", file=sys.stderr)


def build(compiler: str | None = None) -> Path | None:
    """Compile the kernels into :func:`library_path` (idempotent); None when there is no C compiler or it fails."""
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


def main() -> None:
    """``python -m verify.native`` (and ``python -m verify.algorithms.tc_c``): build, and say where."""
    path = build()
    print(path if path else "no C compiler: the C kernels' callers compute the same numbers in torch and numpy",
          file=sys.stderr)


if __name__ == "__main__":
    main()
