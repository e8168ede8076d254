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
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from verify.result import Result, check_sort_key

FORMAT = 1


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

    def run_config(self, check_id: str) -> dict | None:
        p = self.json_path(check_id)
        if not p.exists():
            return None
        try:
            return json.loads(p.read_text()).get("run_config", {})
        except (json.JSONDecodeError, OSError):
            return None

    def is_done(self, check_id: str, run_config: dict) -> bool:
        return self.run_config(check_id) == run_config

    def load(self, check_id: str) -> Result:
        doc = json.loads(self.json_path(check_id).read_text())
        arrays = {}
        if self.npz_path(check_id).exists():
            with np.load(self.npz_path(check_id)) as z:
                arrays = {k: z[k] for k in z.files}
        return Result.from_dict(doc["result"], arrays)

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
            except Exception as e:  # noqa: BLE001
                bad.append((cid, f"{type(e).__name__}: {e}"))
        return results, bad
