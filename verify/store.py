"""Results on disk: one JSON per (check, root seed, grid point), its arrays beside it as .npz.

Layout of a results directory::

    results/
      werner2023.c09.json            seed 0 at the check's defaults (what ``run`` and the report read by default)
      werner2023.c09.a1b2c3d4.npz    its arrays (the JSON names this file; only when the check has arrays)
      sweep/werner2023.c09/          every other point, from ``run --seed S`` or ``sweep``
        s3.json, s3.a…npz              root seed 3 at the check's defaults
        s3.clients=200.g1f0c2a9e4b.json   root seed 3 at one grid point (the overrides, then their key,
                                       :func:`grid_key`; the overrides themselves are in the file's ``point``)

A point is (check id, root seed, grid); ``run --seed S`` and ``sweep`` store the same point in the same
file, so each reuses what the other stored (their rerun keys are the same), and a seed never overwrites
another. Files of earlier versions stay readable: grid points named by their key alone (``s3.g….json``),
arrays at ``<stem>.npz`` (format 1), and a top-level file that ``run --seed S`` wrote for a seed S other
than 0 (read as seed S; it is moved to its own point before seed 0 is stored there).

**Nothing lost on a rewrite.** :meth:`ResultStore.save` writes the new arrays under a new name, then
the new JSON (which names them) to a temporary that ``os.replace`` moves over the old JSON: that move
is the switch. Until it, the old JSON and its arrays are whole and readable; after it, the new ones
are. Only then are the old arrays removed. A save cut off at any moment (a kill, a full disk) leaves
the old Result, and the temporaries or unnamed arrays it left are removed by the next save of that
point. Writers of one point take an exclusive ``flock`` on a hidden lock file beside it (``.X.lock``),
so they serialise; readers take no lock (a read-only directory is readable): a reader that finds the
arrays its JSON named already gone reads the JSON again, which now names the new ones.

A JSON file is checked against :mod:`verify.result_schema` before it is used; one that fails (or cannot
be parsed, or whose arrays are damaged) is :class:`UnreadableResult` naming the file, and readers of many
files list it and go on. A check id is validated (:func:`verify.result_schema.safe_id`) before any
path is built from it. A full disk is one ``OSError`` naming the directory; a name too long for the
file system is an ``InputError`` (:func:`verify.store_files.storage_error`).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

try:  # POSIX; elsewhere the writes stay atomic but concurrent writers of one point are not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

import numpy as np

from analytic.errors import InputError
from verify.result import Result, check_sort_key
from verify.result_schema import FORMAT, ID_PATTERN, UnreadableResult, safe_id, validate_document
from verify.store_files import (atomic_write, canonical_grid, grid_key, legacy_point_name, parse_point_file,
                                point_name, storage_error)

SWEEP_DIR = "sweep"
#: how often a reader reads a JSON again when its arrays were replaced under it
_REREADS = 8


class NotStored(InputError):
    """Nothing is stored for the point asked for (``param`` is ``ID``)."""


@dataclass
class Stored:
    """One stored Result and where it is: its check, root seed, grid point and JSON file."""

    check_id: str
    seed: int
    grid: dict
    path: Path
    result: Result
    run_config: dict


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive ``flock`` on the hidden lock file of ``path`` (writers only)."""
    if fcntl is None:
        yield
        return
    fd = os.open(path.parent / f".{path.stem}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:200]


def _seed(seed) -> int:
    """A point's root seed: an integer >= 0 (None: 0), else InputError naming ``seed``."""
    if seed is None:
        return 0
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError("seed", f"expected an integer >= 0, got {seed!r:.40}")
    return int(seed)


def _stored_seed(doc: dict) -> int:
    """The root seed a validated document was run with: its point's, else its run's, else 0."""
    if "point" in doc:
        return int(doc["point"].get("seed", 0))
    for value in (doc.get("run_config", {}).get("seed"), doc["result"].get("env", {}).get("seed")):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return 0


class ResultStore:
    """Results on disk. Every method takes an optional point (``seed``, ``grid``); without one it is the
    check's top-level file (seed 0 at its defaults, or a file an earlier version stored there)."""

    def __init__(self, root: str | os.PathLike = "results") -> None:
        self.root = Path(root)

    # -- names ---------------------------------------------------------------------------------------
    def _stem(self, check_id: str, seed: int | None, grid: dict | None) -> Path:
        safe_id(check_id)
        seed = _seed(seed)
        if seed == 0 and not grid:
            return self.root / check_id
        return self.root / SWEEP_DIR / check_id / point_name(seed, grid)

    def json_path(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> Path:
        """Where :meth:`save` writes the point's JSON."""
        return Path(f"{self._stem(check_id, seed, grid)}.json")

    def npz_path(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> Path | None:
        """The arrays file of the stored point (its JSON names it), None when nothing or no arrays are stored."""
        jp = self.find(check_id, seed, grid)
        name = self._current_arrays(jp) if jp is not None else None
        return jp.parent / name if name else None

    def _expected(self, jp: Path) -> tuple[str, int | None, str | None]:
        """(check id, seed, grid key) that the file ``jp`` must hold (seed None: a top-level file)."""
        if jp.parent == self.root:
            return jp.name[: -len(".json")], None, None
        seed, key = parse_point_file(jp.name)
        return jp.parent.name, seed, key

    def find(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> Path | None:
        """The JSON file holding the point, or None. Seed None without a grid: the top-level file as it is."""
        top = self.root / f"{safe_id(check_id)}.json"
        if grid:
            seed = _seed(seed)
            legacy = self.root / SWEEP_DIR / check_id / f"{legacy_point_name(seed, grid)}.json"
            return next((p for p in (self.json_path(check_id, seed, grid), legacy) if p.exists()), None)
        if seed is None:
            return top if top.exists() else None
        seed = _seed(seed)
        if seed != 0 and self.json_path(check_id, seed).exists():
            return self.json_path(check_id, seed)
        if not top.exists():
            return None
        try:
            at = _stored_seed(self._document(top))
        except UnreadableResult:  # a damaged top-level file is seed 0's (the load then says it is unreadable)
            at = 0
        return top if at == seed else None

    # -- reading -------------------------------------------------------------------------------------
    def _document(self, jp: Path) -> dict:
        """The validated JSON document at ``jp``; :class:`UnreadableResult` naming it otherwise."""
        check_id, seed, key = self._expected(jp)
        try:
            doc = json.loads(jp.read_bytes())
        except (OSError, ValueError, RecursionError, MemoryError) as exc:
            raise UnreadableResult(jp, _reason(exc)) from None
        return validate_document(doc, jp, check_id=check_id, seed=seed, key=key, grid_key=grid_key)

    @staticmethod
    def _arrays_name(jp: Path, doc: dict) -> str | None:
        """The arrays file a document uses: named in it (format 2), else ``<stem>.npz`` when there (format 1)."""
        if doc["format"] >= 2:
            return doc.get("arrays")
        legacy = jp.with_suffix(".npz")
        return legacy.name if legacy.exists() else None

    def _load_path(self, jp: Path) -> tuple[dict, Result]:
        """(document, Result) of the JSON at ``jp`` with its arrays. No lock: when the arrays the JSON named are
        gone, a writer switched to a new JSON meanwhile; read that one."""
        for attempt in range(_REREADS):
            doc = self._document(jp)
            name = self._arrays_name(jp, doc)
            try:
                arrays = self._arrays(jp.parent / name) if name else {}
                break
            except FileNotFoundError:
                if attempt == _REREADS - 1:
                    raise UnreadableResult(jp, f"its arrays file {name} is missing") from None
        names = doc["result"].get("array_names")
        if names is not None and sorted(names) != sorted(arrays):
            raise UnreadableResult(jp, f"it names the arrays {sorted(names)[:5]}, its arrays file holds "
                                       f"{sorted(arrays)[:5]}")
        try:
            return doc, Result.from_dict(doc["result"], arrays)
        except Exception as exc:  # noqa: BLE001 - what the schema cannot see: the Result refuses its fields
            raise UnreadableResult(jp, _reason(exc)) from None

    @staticmethod
    def _arrays(p: Path) -> dict:
        fh = open(p, "rb")  # FileNotFoundError goes to the caller (the JSON was replaced meanwhile)
        try:
            with fh, np.load(fh) as z:
                return {k: z[k] for k in z.files}
        except Exception as exc:  # noqa: BLE001 - zip, pickle and OS errors alike: a damaged file
            raise UnreadableResult(p, _reason(exc)) from None

    def run_config(self, check_id: str, seed: int | None = None, grid: dict | None = None) -> dict | None:
        """The stored rerun key; None when nothing readable is stored (so a rerun replaces it)."""
        jp = self.find(check_id, seed, grid)
        if jp is None:
            return None
        try:
            return self._document(jp).get("run_config", {})
        except UnreadableResult:
            return None

    def is_done(self, check_id: str, run_config: dict, *, seed: int | None = None, grid: dict | None = None) -> bool:
        return self.run_config(check_id, seed, grid) == run_config

    def load(self, check_id: str, *, seed: int | None = None, grid: dict | None = None) -> Result:
        """The stored Result; :class:`NotStored` when there is none, :class:`UnreadableResult` naming the
        file when it cannot be read back."""
        jp = self.find(check_id, seed, grid)
        if jp is None:
            at = "" if seed is None and not grid else f" at seed {seed or 0}" + (
                f", grid {json.dumps(canonical_grid(grid))}" if grid else "")
            raise NotStored("ID", f"no stored result for {check_id}{at} in {self.root}/")
        return self._load_path(jp)[1]

    # -- writing -------------------------------------------------------------------------------------
    def save(self, result: Result, run_config: dict | None = None, *, seed: int | None = None,
             grid: dict | None = None) -> Path:
        """Store ``result`` at its point: new arrays under a new name, then the JSON naming them moved over
        the old JSON (the switch), then the old arrays removed, all under the point's exclusive lock. A save
        cut off anywhere leaves the old Result whole; the next save of the point removes what it left."""
        seed = _seed(seed)
        grid = canonical_grid(grid)
        jp = self.json_path(result.id, seed, grid)  # validates the id before any path is used
        try:
            jp.parent.mkdir(parents=True, exist_ok=True)
            with _locked(jp):
                if jp.parent == self.root:
                    self._move_other_seed(jp)
                old = self._current_arrays(jp)
                self._remove_leftovers(jp, keep=old)
                new = f"{jp.name[: -len('.json')]}.a{secrets.token_hex(4)}.npz" if result.arrays else None
                doc = {"format": FORMAT, "run_config": run_config or {}, "point": {"seed": seed, "grid": grid},
                       "arrays": new, "result": result.to_dict()}
                payload = json.dumps(doc, indent=1, allow_nan=True).encode()
                if new:
                    atomic_write(jp.parent / new, lambda fh: np.savez_compressed(fh, **result.arrays))
                try:
                    atomic_write(jp, lambda fh: fh.write(payload))
                except BaseException:
                    if new:
                        (jp.parent / new).unlink(missing_ok=True)
                    raise
                if old and old != new:
                    (jp.parent / old).unlink(missing_ok=True)
                if grid:  # the same point under the name earlier versions gave it
                    self._remove_legacy(jp.parent / f"{legacy_point_name(seed, grid)}.json")
        except OSError as exc:
            raise storage_error(exc, self.root) from None
        return jp

    def _current_arrays(self, jp: Path) -> str | None:
        """The arrays file the point's current JSON uses (None when it has none or cannot be read)."""
        if not jp.exists():
            return None
        try:
            return self._arrays_name(jp, self._document(jp))
        except UnreadableResult:
            return None

    @staticmethod
    def _remove_leftovers(jp: Path, keep: str | None) -> None:
        """Temporaries and unnamed arrays of this point from saves cut off before their switch (the lock is
        held: no other save of the point is under way)."""
        name = jp.name[: -len(".json")]
        stem = re.escape(name)
        pattern = re.compile(rf"(\.{stem}\.(json|npz|a[0-9a-f]{{8}}\.npz)\..+\.tmp|{stem}\.(a[0-9a-f]{{8}}\.)?npz)")
        for entry in os.listdir(jp.parent):  # names only: the directory holds every check's files
            if entry != keep and entry.startswith((name, "." + name)) and pattern.fullmatch(entry):
                with contextlib.suppress(FileNotFoundError):
                    (jp.parent / entry).unlink()

    def _remove_legacy(self, legacy: Path) -> None:
        """Remove a point's file under its earlier name (and that file's arrays) once the new one is whole."""
        if legacy.exists():
            arrays = self._current_arrays(legacy)
            legacy.unlink(missing_ok=True)
            if arrays:
                (legacy.parent / arrays).unlink(missing_ok=True)
            self._remove_leftovers(legacy, keep=None)

    def _move_other_seed(self, top: Path) -> None:
        """An earlier version's ``run --seed S`` stored seed S (not 0) at the top-level file: store it at its own
        point before seed 0 takes the file, unless that point already holds a Result."""
        if not top.exists():
            return
        try:
            doc, res = self._load_path(top)
        except UnreadableResult:
            return
        seed = _stored_seed(doc)
        if seed != 0 and self.find(res.id, seed) in (None, top):
            self.save(res, doc.get("run_config"), seed=seed)

    # -- many Results --------------------------------------------------------------------------------
    def ids(self) -> list[str]:
        """Check ids with a top-level file."""
        if not self.root.is_dir():
            return []
        return sorted(p.name[: -len(".json")] for p in self.root.glob("*.json")
                      if ID_PATTERN.fullmatch(p.name[: -len(".json")]))

    def _point_files(self, check_id: str) -> list[Path]:
        """The sweep files of a check, files under earlier names first (a newer name of the same point wins)."""
        d = self.root / SWEEP_DIR / check_id
        files = [p for p in d.iterdir() if parse_point_file(p.name)] if d.is_dir() else []
        return sorted(files, key=lambda p: (not re.fullmatch(r"s\d+\.g[0-9a-f]{10}\.json", p.name), p.name))

    def point_labels(self, check_id: str) -> list[str]:
        """What is stored for a check, from file names alone: ``seed 0``, ``seed 3``, ``seed 3 clients=200``."""
        labels = ["seed 0"] if (self.root / f"{safe_id(check_id)}.json").exists() else []
        for p in self._point_files(check_id):
            seed, _ = parse_point_file(p.name)
            readable = p.name[len(f"s{seed}"): -len(".json")].rpartition(".g")[0].lstrip(".")
            grid = f" {readable}" if readable else " (a grid point)" if ".g" in p.name else ""
            labels.append(f"seed {seed}{grid}")
        return list(dict.fromkeys(labels))

    def swept_ids(self) -> list[str]:
        """Check ids with at least one sweep point stored (beyond the top-level file)."""
        d = self.root / SWEEP_DIR
        if not d.is_dir():
            return []
        return sorted((p.name for p in d.iterdir() if p.is_dir() and ID_PATTERN.fullmatch(p.name)
                       and self._point_files(p.name)), key=check_sort_key)

    def _stored_of(self, check_id: str, with_top: bool) -> tuple[list[Stored], list[tuple[str, str]], bool]:
        """The check's stored points (sweep files, and its top-level file when ``with_top``) sorted by grid then
        seed, the unreadable files as ``(file, error)``, and whether any sweep file was there."""
        points: dict[tuple[str, int], Stored] = {}
        bad: list[tuple[str, str]] = []
        files = self._point_files(check_id)
        for jp in files + ([self.root / f"{check_id}.json"] if with_top else []):
            if not jp.exists():
                continue
            try:
                doc, res = self._load_path(jp)
            except UnreadableResult as e:
                bad.append((str(jp), str(e)))
                continue
            seed, grid = _stored_seed(doc), canonical_grid((doc.get("point") or {}).get("grid"))
            st = Stored(check_id, seed, grid, jp, res, doc.get("run_config", {}))
            if jp.parent == self.root:  # a point stored in the sweep directory wins over the top-level file
                points.setdefault(("", seed), st)
            else:
                points[(grid_key(grid), seed)] = st
        return [points[k] for k in sorted(points)], bad, bool(files)

    def load_points(self, check_id: str) -> tuple[list[tuple[int, dict, Result]], list[tuple[str, str]]]:
        """Every stored point of a swept check as ``(seed, grid, Result)`` (the top-level file counts as its
        run's seed with no grid, unless a sweep file has that seed too), sorted by grid then seed, and the
        files that could not be read as ``(file, error)``; nothing when no sweep point is stored."""
        safe_id(check_id)
        rows, bad, swept = self._stored_of(check_id, with_top=True)
        if not swept:
            return [], []
        return [(s.seed, s.grid, s.result) for s in rows], bad

    def stored(self, paper: str | None = None) -> tuple[list[Stored], list[tuple[str, str]]]:
        """Every stored Result (optionally one paper's), one per (check, seed, grid point), in check order,
        and the files that could not be read as ``(file, error)``."""
        ids = {*self.ids(), *self.swept_ids()}
        rows, bad = [], []
        for cid in sorted((i for i in ids if paper is None or i.split(".")[0] == paper), key=check_sort_key):
            got, unreadable, _ = self._stored_of(cid, with_top=True)
            rows += got
            bad += unreadable
        return rows, bad

    def load_all(self, paper: str | None = None) -> tuple[list[Result], list[tuple[str, str]]]:
        """Every readable top-level Result (optionally one paper's), in check order, and the files that could
        not be read as ``(id, error)``: a damaged file must not cost the others."""
        ids = [i for i in self.ids() if paper is None or i.split(".")[0] == paper]
        results, bad = [], []
        for cid in sorted(ids, key=check_sort_key):
            try:
                results.append(self.load(cid))
            except InputError as e:  # unreadable, or gone since it was listed
                bad.append((cid, str(e)))
        return results, bad
