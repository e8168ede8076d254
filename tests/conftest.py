"""One test session shares each check's quick Result between its processes (pytest-xdist workers, ``make test``
runs ``-n auto``): the controlling process makes a folder for verify.testing's shared cache before the workers
start, and removes it at the end."""
import os
import shutil
import tempfile

from verify.testing import SHARED_CACHE_ENV


def pytest_configure(config):
    if hasattr(config, "workerinput") or os.environ.get(SHARED_CACHE_ENV):
        return  # a worker inherits the controller's folder; an outer session's folder is kept
    folder = tempfile.mkdtemp(prefix="fedverify-test-cache-")
    os.environ[SHARED_CACHE_ENV] = folder
    config._fedverify_cache = folder


def pytest_unconfigure(config):
    folder = getattr(config, "_fedverify_cache", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(SHARED_CACHE_ENV, None)
