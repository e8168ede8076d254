"""Results on disk: one JSON per check (arrays beside it as .npz), written atomically.

Layout of a results directory::

    results/
      werner2023.c09.json     {"format": 1, "run_config": {...}, "result": {...Result.to_dict()}}
      werner2023.c09.npz      Result.arrays (only when the check has arrays)
      sweep/werner2023.c09/   the points of ``fedverify sweep`` other than (seed 0, no grid):
        s3.json, s3.npz         root seed 3 at the check's defaults
        s3.g1f0c2a9e4b.json     root seed 3 at one grid point (keyword overrides; the key is
                                :func:`grid_key`, the overrides themselves are in the file's ``point``)

A point is (check id, root seed, grid); ``fedverify run`` stores its one result per check at the top
level (whatever its seed, as it always did), and the sweep's point (seed 0, no grid) is that same
file, so a sweep reuses what ``fedverify run`` stored and the other way round (their rerun keys are
the same).

Each file is written to a temporary name in the same directory and moved into place with
``os.replace``, so a run cut off mid-write never leaves a half file, and everything finished
before an interruption stays on disk. A rerun skips a check whose stored ``run_config`` (its
rerun key: fidelity, replicates, seed, device, dtype, library versions and the hash of every
source file the check can reach, ``CheckSpec.rerun_key``) matches, unless forced.

A file that cannot be read back (truncated by hand, edited, written by something else) is never a
crash: :meth:`ResultStore.load` raises :class:`UnreadableResult` naming the file ("results/X.json:
unreadable, rerun with --force"), :meth:`ResultStore.load_all` lists it and goes on, and a rerun
treats it as not done.

Several processes may write one results directory at once (sweep workers, two ``fedverify``
commands): each point's JSON and arrays are written under an exclusive lock on a hidden lock file
beside them (``.X.lock``, ``fcntl.flock``), and read under a shared one, so a reader never pairs one
writer's JSON with another's arrays; different points never share a file.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

try:  # POSIX; elsewhere the writes stay atomic but concurrent writers of one point are not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

import numpy as np

from analytic.errors import InputError
from verify.result import Result, check_sort_key

FORMAT = 1
#: fields a stored result cannot be read back without
REQUIRED = ("id", "paper", "title", "claim", "kind", "verdict", "expected")
SWEEP_DIR = "sweep"


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


@contextlib.contextmanager
def _locked(path: Path, exclusive: bool):
    """Hold ``flock`` on the hidden lock file of ``path`` (exclusive to write, shared to read)."""
    if fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent / f".{path.stem}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def atomic_write(path: Path, write) -> None:
    """Write via ``write(fh)`` to a temporary file beside ``path``, then move it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class UnreadableResult(InputError):
    """A stored result that cannot be read back; ``param`` is its file, the message says what to do."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(str(path), f"unreadable, rerun with --force ({reason})")
        self.reason = reason


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:200]


class ResultStore:
    """Results on disk. Every method takes an optional point (``seed``, ``grid``): without one, or at
    (seed 0, no grid), it is the check's top-level file, as ``fedverify run`` writes it."""

    def __init__(self, root: str | os.PathLike = "results") -> None:
        self.root = Path(root)

    def _stem(self, check_id: str, seed: int | None, grid: dict | None) -> Path:
        if (seed is None or seed == 0) and not grid:
            return self.root / check_id
        if seed is None:
            seed = 0
        key = grid_key(grid)
        return self.root / SWEEP_DIR / check_id / (f"s{int(seed)}" + (f".g{key}" if key else ""))

    def json_path(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> Path:
        return Path(f"{self._stem(check_id, seed, grid)}.json")

    def npz_path(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> Path:
        return Path(f"{self._stem(check_id, seed, grid)}.npz")

    def save(self, result: Result, run_config: dict | None = None, *, seed: int | None = None,
             grid: dict | None = None) -> Path:
        """Old JSON out, arrays in, new JSON in: the JSON's presence means 'complete', so a save cut
        off at any point leaves either the new result or none (never old JSON with new arrays); the
        whole is done under the point's exclusive lock, so concurrent writers of one point serialise
        (the last one wins, whole) and readers never see one writer's JSON with another's arrays."""
        jp, npz = self.json_path(result.id, seed, grid), self.npz_path(result.id, seed, grid)
        doc = {"format": FORMAT, "run_config": run_config or {}, "result": result.to_dict()}
        if seed is not None or grid:
            doc["point"] = {"seed": 0 if seed is None else int(seed), "grid": canonical_grid(grid)}
        with _locked(jp, exclusive=True):
            jp.unlink(missing_ok=True)
            if result.arrays:
                atomic_write(npz, lambda fh: np.savez_compressed(fh, **result.arrays))
            elif npz.exists():
                npz.unlink()
            payload = json.dumps(doc, indent=1, allow_nan=True).encode()
            atomic_write(jp, lambda fh: fh.write(payload))
        return jp

    def _document(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> dict:
        """The stored JSON document, or UnreadableResult when it is not one with a ``result``."""
        return self._read_document(self.json_path(check_id, seed, grid))

    @staticmethod
    def _read_document(p: Path) -> dict:
        try:
            doc = json.loads(p.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UnreadableResult(p, _reason(exc)) from None
        if not isinstance(doc, dict) or not isinstance(doc.get("result"), dict):
            raise UnreadableResult(p, "no 'result' in the file")
        missing = [k for k in REQUIRED if k not in doc["result"]]
        if missing:
            raise UnreadableResult(p, f"the result has no {', '.join(missing)}")
        return doc

    def run_config(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> dict | None:
        """The stored rerun key; None when nothing readable is stored (so a rerun replaces it)."""
        if not self.json_path(check_id, seed, grid).exists():
            return None
        try:
            config = self._document(check_id, seed, grid).get("run_config", {})
        except UnreadableResult:
            return None
        return config if isinstance(config, dict) else None

    def is_done(self, check_id: str, run_config: dict, *, seed: int | None = None, grid: dict | None = None) -> bool:
        return self.run_config(check_id, seed, grid) == run_config

    def load(self, check_id: str, *, seed: int | None = None, grid: dict | None = None) -> Result:
        """The stored Result; :class:`UnreadableResult` naming the file when it cannot be read back."""
        return self._load_path(self.json_path(check_id, seed, grid))[1]

    def _load_path(self, jp: Path) -> tuple[dict, Result]:
        """(document, Result) of the JSON at ``jp`` and its arrays, read under the point's shared lock."""
        npz = jp.with_suffix(".npz")
        with _locked(jp, exclusive=False):
            doc = self._read_document(jp)
            arrays = {}
            if npz.exists():
                try:
                    with np.load(npz) as z:
                        arrays = {k: z[k] for k in z.files}
                except Exception as exc:  # noqa: BLE001 - zip, pickle and OS errors alike: a damaged file
                    raise UnreadableResult(npz, _reason(exc)) from None
        try:
            return doc, Result.from_dict(doc["result"], arrays)
        except Exception as exc:  # noqa: BLE001 - fields missing or of the wrong type
            raise UnreadableResult(jp, _reason(exc)) from None

    # -- the points of sweeps ------------------------------------------------------------------------
    def swept_ids(self) -> list[str]:
        """Check ids with at least one sweep point stored (beyond the top-level file)."""
        d = self.root / SWEEP_DIR
        if not d.is_dir():
            return []
        return sorted((p.name for p in d.iterdir() if p.is_dir() and any(p.glob("s*.json"))), key=check_sort_key)

    def load_points(self, check_id: str) -> tuple[list[tuple[int, dict, Result]], list[tuple[str, str]]]:
        """Every stored point of a swept check as ``(seed, grid, Result)`` (the top-level file counts as
        its run's seed with no grid, unless a sweep file has that seed too), sorted by grid then seed,
        and the files that could not be read as ``(file, error)``."""
        points: dict[tuple[str, int], tuple[int, dict, Result]] = {}
        bad: list[tuple[str, str]] = []
        d = self.root / SWEEP_DIR / check_id
        for jp in sorted(d.glob("s*.json")) if d.is_dir() else []:
            try:
                doc, res = self._load_path(jp)
                point = doc.get("point") or {}
                seed, grid = int(point.get("seed", res.env.get("seed", 0))), canonical_grid(point.get("grid"))
            except UnreadableResult as e:
                bad.append((str(jp), str(e)))
                continue
            except Exception as e:  # noqa: BLE001 - a point of the wrong shape: name the file, go on
                bad.append((str(jp), f"{jp}: unreadable, rerun with --force ({_reason(e)})"))
                continue
            points[(grid_key(grid), seed)] = (seed, grid, res)
        top = self.json_path(check_id)
        if points and top.exists():
            try:
                doc, res = self._load_path(top)
                seed = int((doc.get("run_config") or {}).get("seed", res.env.get("seed", 0)))
                points.setdefault(("", seed), (seed, {}, res))
            except (UnreadableResult, TypeError, ValueError) as e:
                bad.append((str(top), str(e)))
        return [points[k] for k in sorted(points, key=lambda k: (k[0], k[1]))], bad

    def ids(self) -> list[str]:
        if not self.root.exists():
            return []
        return sorted(p.name[: -len(".json")] for p in self.root.glob("*.json") if not p.name.startswith("."))

    def load_all(self, paper: str | None = None) -> tuple[list[Result], list[tuple[str, str]]]:
        """Every readable Result (optionally one paper's), in check order, and the files that could
        not be read as ``(id, error)``: a damaged file must not cost the others."""
        ids = [i for i in self.ids() if paper is None or i.split(".")[0] == paper]
        results, bad = [], []
        for cid in sorted(ids, key=check_sort_key):
            try:
                results.append(self.load(cid))
            except UnreadableResult as e:
                bad.append((cid, str(e)))
            except Exception as e:  # noqa: BLE001 - never let one file cost the others
                bad.append((cid, f"{self.json_path(cid)}: unreadable, rerun with --force ({_reason(e)})"))
        return results, bad
