"""Where a number came from: the fedverify version and commit, every library that can produce a
number (the arithmetic, the certificates, the figures), the CPU, the thread count and the command
line. Read once per process; nothing here imports the libraries it names (metadata only), so
``fedverify --version`` stays cheap.
"""
from __future__ import annotations

import functools
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

#: Distributions whose code produces numbers in a Result (certificates, solvers) or in the report.
PRODUCERS = ("fedverify", "pepit", "cvxpy", "clarabel", "scs", "matplotlib", "seaborn", "typst")
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def producer_versions() -> dict[str, str]:
    """Installed versions of :data:`PRODUCERS` (those installed)."""
    return {d: v for d in PRODUCERS if (v := _version(d)) is not None}


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the source tree fedverify runs from, with ``+dirty`` when it has uncommitted
    changes; ``None`` outside a git checkout (an installed wheel)."""
    if not (SOURCE_ROOT / ".git").exists():
        return None
    try:
        run = functools.partial(subprocess.run, cwd=SOURCE_ROOT, capture_output=True, text=True, timeout=5)
        head = run(["git", "rev-parse", "--short=12", "HEAD"])
        if head.returncode != 0:
            return None
        dirty = run(["git", "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


@functools.lru_cache(maxsize=1)
def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo; the platform's processor string elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def version_line() -> str:
    """What ``fedverify --version`` prints: version and commit."""
    commit = git_commit()
    return f"fedverify {_version('fedverify') or 'unknown'}" + (f" (commit {commit})" if commit else "")


def provenance() -> dict:
    """The fields every Result's ``env`` and the report's environment page carry."""
    versions = producer_versions()
    out = {"fedverify": versions.get("fedverify", "unknown"), "fedverify_commit": git_commit(),
           "cpu": cpu_model(), "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else ""}
    out.update({k: v for k, v in versions.items() if k != "fedverify"})
    return out
