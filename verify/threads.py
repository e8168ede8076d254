"""How many CPU threads a process's numerical libraries use.

The checks run small tensors (tens to thousands of entries) for many rounds; with several threads each
operation pays for waking the pool, and on a machine whose cores are busy with other processes every
round waits for the slowest thread. One thread per process is the default of ``fedverify run`` and of
the sweep workers; ``--threads N`` changes it for ``run``.

:func:`use_threads` sets the environment for child processes and the libraries not yet loaded
(``OMP_NUM_THREADS`` and the BLAS variables), torch's intra-op pool when torch is (or gets) imported,
and the BLAS pools already loaded (numpy's OpenBLAS) through threadpoolctl where it is installed.
"""
from __future__ import annotations

import os
import sys

from analytic.errors import InputError

DEFAULT = 1
_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def use_threads(n: int, *, import_torch: bool = True) -> None:
    """Run this process's numerical code on ``n`` threads (``n >= 1``). Call it before the first torch operation;
    with ``import_torch`` False torch is limited only if it is already imported (a later import reads
    ``OMP_NUM_THREADS``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError("threads", f"expected an integer >= 1, got {n!r}")
    for var in _ENV:
        os.environ[var] = str(n)
    if import_torch or "torch" in sys.modules:
        import torch

        if torch.get_num_threads() != n:
            torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the environment variables above still hold for BLAS libraries loaded later
        return
    threadpool_limits(n)
