"""One test session shares each check's quick Result between its processes (pytest-xdist workers, ``make test``
runs ``-n auto``): the controlling process makes a folder for verify.testing's shared cache before the workers
start, and removes it at the end.

With several workers, each runs its numerical libraries on one thread (set here, before the workers start, so
that they inherit it): two torch/OpenMP threads per worker on a machine with as many cores as workers made the
small-tensor checks 5x slower (an OpenMP rendezvous in every small op; measured on 2 cores: the dutta2023 checks of
tests/test_all_checks.py took 160 s with two threads per worker, 30 s with one). A value the user already set wins.
"""
import os
import shutil
import tempfile

from verify.testing import SHARED_CACHE_ENV

ONE_THREAD = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def pytest_configure(config):
    if hasattr(config, "workerinput") or os.environ.get(SHARED_CACHE_ENV):
        return  # a worker inherits the controller's folder; an outer session's folder is kept
    if getattr(config.option, "numprocesses", None):
        for name in ONE_THREAD:
            os.environ.setdefault(name, "1")
    folder = tempfile.mkdtemp(prefix="fedverify-test-cache-")
    os.environ[SHARED_CACHE_ENV] = folder
    config._fedverify_cache = folder


def pytest_unconfigure(config):
    folder = getattr(config, "_fedverify_cache", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(SHARED_CACHE_ENV, None)
