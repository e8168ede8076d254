"""Local Dask worker processes for ``fedverify run --workers N`` and ``fedverify sweep --workers N``: how many,
their environment (one thread each), the plugin that tunes them, and :class:`WorkerStart`, which starts them in a
thread while this process goes on.

This module imports neither torch nor the checks, so that ``run --workers N`` can start its workers before this
process imports them (about 4.5 s): the workers import theirs on the other cores meanwhile.
"""
from __future__ import annotations

import os

#: environment of every local worker process: one thread for OpenMP/MKL as for torch
ONE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
#: Dask settings of the local cluster. Measured here (dutta2023.c02, one worker, 2 loaded cores): 0.4 s in
#: this process, 2.3-2.7 s in a default Dask worker. Two causes: the nanny's MALLOC_TRIM_THRESHOLD_
#: (setting it switches off glibc's dynamic mmap threshold, so every tensor above 128 KiB is mmapped and
#: unmapped again: 1.3-1.7 s without the profiler), and the worker's statistical profiler (a thread that
#: walks the task's stack every 10 ms; small-op Python code pays for it). Without both: 0.3-0.5 s.
#: Every Dask server's event loop also wakes every 20 ms to time itself (``admin.tick``, a diagnostic) and every
#: 0.5 s to read the machine's counters (``admin.system-monitor``, for the dashboard this cluster does not start):
#: over a quick suite with ``--workers 2`` those threads took 7.9 CPU-s, and with 1 s and 10 s 4.0, while the
#: checks' own threads wait for the GIL less.
DASK_CONFIG = {"distributed.worker.profile.enabled": False,
               "distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "10s",
               "distributed.nanny.pre-spawn-environ": {k: int(v) for k, v in ONE_THREAD_ENV.items()}}


def default_workers() -> int:
    """The cores this process may use (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def one_thread() -> None:
    """One torch thread in this process (a Dask worker): both cores busy, no OpenMP rendezvous."""
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)


#: Python's cyclic-collector thresholds while checks run: a full collection (about 0.1 s once torch, scipy and sympy
#: are loaded) after 100 collections of the middle generation instead of 10. Measured on a one-thread quick suite:
#: 7 full collections -> 1, 1.27 s -> 0.49 s of collection in all. The young generations keep Python's defaults, so
#: short-lived cyclic garbage is freed as soon as before.
RUN_GC_THRESHOLDS = (700, 10, 100)


def fewer_full_collections() -> None:
    """Set :data:`RUN_GC_THRESHOLDS` in a process that runs checks (this one, or a worker)."""
    import gc

    gc.set_threshold(*RUN_GC_THRESHOLDS)


def skip_collections_at_exit() -> None:
    """Move every live object to the collector's permanent generation (``gc.freeze``) in a process about to end: the
    interpreter's finalization then skips its full collections over torch's, scipy's and sympy's objects. Measured
    on ``run --paper buttaci2024`` (one thread): 1.0-1.2 s from the command's return to the process's end, 0.2 s
    with it. Reference counting still frees what it frees and atexit handlers still run; only cyclic garbage is
    left to the OS. Call it only where nothing follows but the end of the process (the console script after its
    command, a worker at teardown), never in a process that goes on (a test calling ``main``)."""
    import gc

    gc.freeze()


#: glibc's malloc thresholds while checks run (``mallopt``): blocks below 32 MiB come from the heap from the start (the
#: largest value glibc's dynamic mmap threshold reaches, and the most it accepts), and up to 512 MiB of free memory
#: at the heap's top is kept for the next tensors instead of being given back to the OS and faulted in again page by
#: page. Measured (one thread, alternated pairs): ``run --paper su2022`` (5 pairs) system time 4.10 -> 2.47 s, CPU
#: ratio 0.94; the quick suite (4 pairs) system time 6.1 -> 3.1-3.4 s, user time up by a median 0.8% (memory the kernel
#: had just zeroed was in the cache; kept memory may not be), CPU ratio median 0.985 (0.95-1.09); peak resident memory
#: within +-60 MiB. With glibc's own 64 MiB trim threshold nothing moved (su2022, 4 pairs: system 3.70 -> 3.39 s, CPU
#: ratio 1.02): the trim is what costs.
RUN_MALLOC = {"mmap_threshold": 32 << 20, "trim_threshold": 512 << 20}
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_MALLOC_SET = False


def keep_freed_memory() -> bool:
    """Set :data:`RUN_MALLOC` in a process that runs checks (this one, a worker), once. It also replaces the
    ``MALLOC_TRIM_THRESHOLD_`` a Dask nanny gives its workers (``dask worker`` on a cluster), which switches glibc's
    dynamic mmap threshold off, so that every tensor above 128 KiB would be mmapped and unmapped again (see
    DASK_CONFIG). Returns whether glibc took the settings (False elsewhere: nothing to set)."""
    global _MALLOC_SET
    if _MALLOC_SET:
        return True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        _MALLOC_SET = bool(libc.mallopt(_M_MMAP_THRESHOLD, RUN_MALLOC["mmap_threshold"])) and \
            bool(libc.mallopt(_M_TRIM_THRESHOLD, RUN_MALLOC["trim_threshold"]))
    except (OSError, AttributeError):  # not glibc
        return False
    return _MALLOC_SET


def ready_for_checks() -> None:
    """A process about to run checks (``run``, a sweep point, a worker): fewer full collections
    (:func:`fewer_full_collections`) and freed memory kept for the next tensors (:func:`keep_freed_memory`)."""
    fewer_full_collections()
    keep_freed_memory()


class TuneWorker:
    """A Dask worker plugin: no statistical profiler on the worker (see DASK_CONFIG), glibc's
    thresholds for tensors (:func:`keep_freed_memory`), fewer full collections (:func:`fewer_full_collections`), none at
    the worker's exit (:func:`skip_collections_at_exit`). Registered by every sweep on the cluster it uses."""

    name = "fedverify-tune-worker"
    idempotent = True

    def setup(self, worker) -> None:
        for name in ("profile", "profile-cycle"):
            pc = worker.periodic_callbacks.get(name)
            if pc is not None:
                pc.stop()
        ready_for_checks()

    def teardown(self, worker) -> None:
        # a nanny's worker that is closing is a process about to end, and the nanny (so the run's close) waits for
        # it; a worker without one may share a process that goes on (an in-process cluster)
        if getattr(worker, "nanny", None) and getattr(getattr(worker, "status", None), "name", "") == "closing":
            skip_collections_at_exit()

    def transition(self, key, start, finish, **kwargs) -> None:
        pass


def local_cluster(workers: int):
    """A LocalCluster of ``workers`` processes, one thread each, one OpenMP/MKL/torch thread each, no
    memory limit (a check's own allocation check decides), no dashboard."""
    import logging

    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=0,
                        dashboard_address=None, silence_logs=logging.ERROR, env=dict(ONE_THREAD_ENV))


def worker_plugin():
    """A :class:`TuneWorker` that Dask accepts as a worker plugin (distributed imported only here)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class _Tune(TuneWorker, WorkerPlugin):
        pass

    return _Tune()


def warm_worker() -> float:
    """A worker's first task when it is to run checks of this process's queue: torch and every check module
    imported (about 4.5 CPU-s), while this process is still importing and keying its own points, so that the
    worker's first point starts at once. Returns the seconds it took."""
    import time

    t0 = time.perf_counter()
    one_thread()
    from verify.registry import load_all

    load_all()
    return time.perf_counter() - t0


class WorkerStart:
    """``workers`` local worker processes started in a thread, so that this process goes on meanwhile (importing
    the checks, keying and running points): :meth:`client` waits for them. ``warm``: each worker's first task is
    :func:`warm_worker`. The Dask settings (DASK_CONFIG) hold from here until :meth:`close`, which is idempotent."""

    def __init__(self, workers: int, *, warm: bool = False) -> None:
        import threading

        import dask
        import distributed  # noqa: F401 - its defaults in dask.config first, or the settings' exit drops them

        self.workers = workers
        self._config = dask.config.set(DASK_CONFIG)
        self._made: dict = {}
        self._closed = False
        self._thread = threading.Thread(target=self._start, args=(warm,), name="fedverify-workers", daemon=True)
        self._thread.start()

    def _start(self, warm: bool) -> None:
        try:
            from distributed import Client

            self._made["cluster"] = local_cluster(self.workers)
            client = self._made["client"] = Client(self._made["cluster"])
            client.register_plugin(worker_plugin())
            if warm:
                self._made["warm"] = [client.submit(warm_worker, pure=False, workers=[w])
                                      for w in client.scheduler_info()["workers"]]
        except BaseException as exc:  # noqa: BLE001 - raised again by client()
            self._made["error"] = exc

    def client(self):
        """The cluster's client once the workers are up (the error that stopped them is raised here)."""
        self._thread.join()
        if "error" in self._made:
            raise self._made["error"]
        return self._made["client"]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._thread.join()
        try:
            for f in self._made.get("warm", []):
                f.release()
            for name in ("client", "cluster"):
                if name in self._made:
                    self._made[name].close()
        finally:
            self._config.__exit__(None, None, None)
