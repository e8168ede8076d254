"""What ``fedverify run`` does for a long run: keyword overrides, a time budget, progress and a cost estimate.

``--set NAME=VALUE`` (repeatable) passes a keyword argument to every chosen check, read as ``sweep --grid``
reads its values (:func:`verify.sweep.parse_grid`; one value per name). Such a Result is stored as the sweep's
point (its root seed and these overrides), never over the Result of the check's defaults.

``--budget SECONDS`` bounds the whole run's wall time: when it is spent the running check is stopped (the
Results stored before it are untouched, it stores nothing), one line says so, and the exit code is
:data:`EXIT_BUDGET` (124, as ``timeout``).

While a check runs longer than :data:`PROGRESS_S` seconds, a line every :data:`PROGRESS_S` seconds gives its
elapsed time and the process's resident memory; before a check with a cost model runs
(:mod:`verify.costs`) its estimated time and peak memory for the data's size are printed.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from analytic.errors import InputError

EXIT_BUDGET = 124
#: seconds between two progress lines of a running check (FEDVERIFY_PROGRESS_S changes it)
PROGRESS_S = 30.0


class BudgetSpent(BaseException):
    """Raised in the main thread when ``--budget`` is spent (a BaseException: no check's ``except Exception``
    swallows it)."""


def parse_set(items, specs) -> dict:
    """``--set NAME=VALUE`` items -> ``{name: value}``; every name a keyword of every chosen check."""
    if not items:
        return {}
    from verify.sweep import check_grid_names, parse_grid

    grid = parse_grid(items, "--set")
    many = [k for k, v in grid.items() if len(v) != 1]
    if many:
        raise InputError("--set", f"{many[0]} has {len(grid[many[0]])} values; run takes one value per name "
                                  f"(sweep --grid {many[0]}=... runs several)")
    check_grid_names(specs, grid, "--set")
    return {k: v[0] for k, v in grid.items()}


def parse_budget(text) -> float | None:
    if text is None:
        return None
    from verify.cli_args import parse_number

    value = parse_number(text, "--budget")
    if value <= 0:
        raise InputError("--budget", f"must be a positive number of seconds, got {text!r}")
    return value


class Budget:
    """A wall-clock budget for the run: :meth:`start` arms a timer that raises :class:`BudgetSpent` in the main
    thread; :meth:`stop` disarms it. A None budget does nothing."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.t0 = time.perf_counter()
        self._old = None

    def _fire(self, signum, frame):
        raise BudgetSpent()

    def start(self) -> "Budget":
        self.t0 = time.perf_counter()
        if self.seconds is not None:
            self._old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def stop(self) -> None:
        if self.seconds is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old or signal.SIG_DFL)

    @contextlib.contextmanager
    def held(self):
        """The budget's signal waits until the block ends (a Result being stored is stored whole)."""
        if self.seconds is None:
            yield
            return
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})

    def spent_line(self, running: str | None, kept: int, root) -> str:
        during = f" during {running}, which was stopped and stored nothing" if running else ""
        return (f"fedverify run: budget of {self.seconds:g} s spent after {time.perf_counter() - self.t0:.1f} s"
                f"{during}; the {kept} Results finished before are kept in {root}/")


def resident_bytes() -> int:
    """This process's resident memory (Linux /proc; 0 where unknown)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Progress:
    """Prints ``  ... ID running 1m30s, 2.1 GiB resident`` every ``every`` seconds while a check runs (a daemon
    thread; torch releases the interpreter during its operations, so the line comes on time)."""

    def __init__(self, say, every: float | None = None, quiet: bool = False) -> None:
        self.say, self.quiet = say, quiet
        self.every = every if every is not None else float(os.environ.get("FEDVERIFY_PROGRESS_S", PROGRESS_S))
        self._stop = threading.Event()
        self._thread = None

    def start(self, check_id: str, estimate: str = "") -> None:
        if self.quiet or self.every <= 0:
            return
        from analytic.validate import format_bytes

        self._stop.clear()
        t0 = time.perf_counter()

        def loop():
            while not self._stop.wait(self.every):
                el = int(time.perf_counter() - t0)
                self.say(f"  ... {check_id} running {el // 60}m{el % 60:02d}s, {format_bytes(resident_bytes())} "
                         f"resident{f' (estimate {estimate})' if estimate else ''}")

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None


def announce_estimate(spec, ctx, overrides: dict, say) -> str:
    """Print the check's estimated time and peak memory before it starts (when it has a cost model); return the
    estimate's short text for the progress lines ("" when none)."""
    from verify.costs import estimate

    est = estimate(spec.id, ctx, overrides)
    if est is None:
        return ""
    say(f"  estimate for {spec.id}: {est.text()} ({est.detail})")
    sys.stdout.flush()
    return est.text()
