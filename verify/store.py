"""Results on disk: one JSON per check (arrays beside it as .npz), written atomically.

Layout of a results directory::

    results/
      werner2023.c09.json     {"format": 1, "run_config": {...}, "result": {...Result.to_dict()}}
      werner2023.c09.npz      Result.arrays (only when the check has arrays)

Each file is written to a temporary name in the same directory and moved into place with
``os.replace``, so a run cut off mid-write never leaves a half file, and everything finished
before an interruption stays on disk. A rerun skips a check whose stored ``run_config`` (its
rerun key: fidelity, replicates, seed, device, dtype, library versions and the hash of every
source file the check can reach, ``CheckSpec.rerun_key``) matches, unless forced.

A file that cannot be read back (truncated by hand, edited, written by something else) is never a
crash: :meth:`ResultStore.load` raises :class:`UnreadableResult` naming the file ("results/X.json:
unreadable, rerun with --force"), :meth:`ResultStore.load_all` lists it and goes on, and a rerun
treats it as not done.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from analytic.errors import InputError
from verify.result import Result, check_sort_key

FORMAT = 1
#: fields a stored result cannot be read back without
REQUIRED = ("id", "paper", "title", "claim", "kind", "verdict", "expected")


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
    def __init__(self, root: str | os.PathLike = "results") -> None:
        self.root = Path(root)

    def json_path(self, check_id: str) -> Path:
        return self.root / f"{check_id}.json"

    def npz_path(self, check_id: str) -> Path:
        return self.root / f"{check_id}.npz"

    def save(self, result: Result, run_config: dict | None = None) -> Path:
        """Old JSON out, arrays in, new JSON in: the JSON's presence means 'complete', so a save cut
        off at any point leaves either the new result or none (never old JSON with new arrays)."""
        self.json_path(result.id).unlink(missing_ok=True)
        if result.arrays:
            atomic_write(self.npz_path(result.id), lambda fh: np.savez_compressed(fh, **result.arrays))
        elif self.npz_path(result.id).exists():
            self.npz_path(result.id).unlink()
        doc = {"format": FORMAT, "run_config": run_config or {}, "result": result.to_dict()}
        payload = json.dumps(doc, indent=1, allow_nan=True).encode()
        atomic_write(self.json_path(result.id), lambda fh: fh.write(payload))
        return self.json_path(result.id)

    def _document(self, check_id: str) -> dict:
        """The stored JSON document, or UnreadableResult when it is not one with a ``result``."""
        p = self.json_path(check_id)
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

    def run_config(self, check_id: str) -> dict | None:
        """The stored rerun key; None when nothing readable is stored (so a rerun replaces it)."""
        if not self.json_path(check_id).exists():
            return None
        try:
            config = self._document(check_id).get("run_config", {})
        except UnreadableResult:
            return None
        return config if isinstance(config, dict) else None

    def is_done(self, check_id: str, run_config: dict) -> bool:
        return self.run_config(check_id) == run_config

    def load(self, check_id: str) -> Result:
        """The stored Result; :class:`UnreadableResult` naming the file when it cannot be read back."""
        doc = self._document(check_id)
        arrays = {}
        if self.npz_path(check_id).exists():
            try:
                with np.load(self.npz_path(check_id)) as z:
                    arrays = {k: z[k] for k in z.files}
            except Exception as exc:  # noqa: BLE001 - zip, pickle and OS errors alike: a damaged file
                raise UnreadableResult(self.npz_path(check_id), _reason(exc)) from None
        try:
            return Result.from_dict(doc["result"], arrays)
        except Exception as exc:  # noqa: BLE001 - fields missing or of the wrong type
            raise UnreadableResult(self.json_path(check_id), _reason(exc)) from None

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
