"""Files of the results store: atomic writes with the user's umask, point names, and disk errors said in one line.

* :func:`atomic_write` writes to a temporary name beside the target and moves it into place with
  ``os.replace``, so the target is always either whole-old or whole-new. ``mkstemp`` creates files 0600;
  the file is set to ``0o666 & ~umask`` before the move, as ``open()`` would create it, so colleagues can
  read a shared results directory (and the PDF written through here).
* :func:`point_name` names a sweep point's files readably: ``s3`` (root seed 3 at the check's defaults) or
  ``s3.clients=200,eta=0.1.g1f0c2a9e4b`` (the overrides, then :func:`grid_key`, which keeps two points
  whose readable parts coincide apart). Files of earlier versions, ``s3.g1f0c2a9e4b``, stay readable.
* :func:`storage_error`: a full disk (ENOSPC, EDQUOT) becomes one ``OSError`` naming the results directory
  (the command line exits 1); a name too long for the file system (ENAMETOOLONG) is bad input naming it (exit 2).
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from analytic.errors import InputError

#: characters a readable point name keeps; every other one becomes ``_``
_UNSAFE = re.compile(r"[^A-Za-z0-9_.,=+\-\[\]]")
#: longest readable part of a point name (the grid key after it still tells points apart)
MAX_READABLE = 80
#: a sweep point's JSON: ``s<seed>.json``, or ``s<seed>[.<readable>].g<key>.json``
POINT_FILE = re.compile(r"s(\d{1,12})(?:(?:\.[^/]*)?\.g([0-9a-f]{10}))?\.json")


def file_mode() -> int:
    """``0o666 & ~umask``: the mode ``open()`` gives a new file. The umask is read from /proc where it can
    be (reading it with ``os.umask`` sets it for a moment, which other threads could see)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: Path, write) -> None:
    """Write via ``write(fh)`` to a temporary file beside ``path`` (mode :func:`file_mode`), then move it
    into place; on any failure the temporary is removed and ``path`` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fchmod(fh.fileno(), file_mode())
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def canonical_grid(grid: dict | None) -> dict:
    """A grid point as plain JSON data with its names sorted (what the store records; tuples become lists,
    as they come back from the file, so that a rerun key compares equal to the stored one)."""
    if not grid:
        return {}
    return json.loads(json.dumps({str(k): grid[k] for k in sorted(grid)}, allow_nan=True, default=repr))


def grid_key(grid: dict | None) -> str:
    """A stable short key of a grid point (its keyword overrides): 10 hex digits of the sha256 of
    their canonical JSON, "" for no overrides. The same values give the same key on every machine
    (``{"m": 50}`` and ``{"m": 50.0}`` differ, as the check's arguments do)."""
    if not grid:
        return ""
    text = json.dumps(canonical_grid(grid), sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def readable_grid(grid: dict | None) -> str:
    """``clients=200,eta=0.1``: the overrides as a file-name part (unsafe characters as ``_``, at most
    :data:`MAX_READABLE` characters)."""
    parts = []
    for k, v in canonical_grid(grid).items():
        text = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), allow_nan=True)
        parts.append(f"{k}={text}")
    return _UNSAFE.sub("_", ",".join(parts))[:MAX_READABLE]


def point_name(seed: int, grid: dict | None) -> str:
    """The stem of a sweep point's files: ``s<seed>`` or ``s<seed>.<readable grid>.g<grid key>``."""
    if not grid:
        return f"s{int(seed)}"
    return f"s{int(seed)}.{readable_grid(grid)}.g{grid_key(grid)}"


def legacy_point_name(seed: int, grid: dict | None) -> str:
    """The stem earlier versions gave a grid point (hash only): ``s<seed>.g<grid key>``."""
    return f"s{int(seed)}.g{grid_key(grid)}"


def parse_point_file(name: str) -> tuple[int, str] | None:
    """(seed, grid key; "" for none) of a sweep point's JSON file name, None for any other file."""
    m = POINT_FILE.fullmatch(name)
    return (int(m.group(1)), m.group(2) or "") if m else None


def storage_error(exc: OSError, directory: Path) -> BaseException:
    """What a failed write in ``directory`` should raise: one line naming the directory for a full disk or
    a too-long name, the error itself otherwise."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return OSError(exc.errno, "no space left on the device; the Results stored before are intact", str(directory))
    if exc.errno == errno.ENAMETOOLONG:
        return InputError("results", f"{str(directory)[:120]}: a file name there is too long for the file system")
    return exc
