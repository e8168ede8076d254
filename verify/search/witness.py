"""The worst instance found, kept as a reproducible witness: an ``.npz`` beside the results
(``<results>/search/<id>.npz``), re-scored when loaded.

The file holds each searched parameter under its name, the fixed settings and the metadata (check id,
ratio, method, seed, budget) as JSON under ``__meta__``. :func:`rescore` loads it, checks the instance lies
in the claim's space and scores it again through the claim's reference objective: a witness that no
longer gives its stored ratio (the code changed) says so.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from analytic.errors import InputError

META = "__meta__"


def _jsonable(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def instance_text(instance: dict, digits: int = 6) -> str:
    """``name = value`` pairs of an instance, arrays rounded, for a finding's witness and the report."""
    parts = []
    for k, v in instance.items():
        a = np.asarray(v)
        if a.dtype.kind in "fc":
            a = np.round(a.astype(float), digits)
        parts.append(f"{k} = {a.tolist()}")
    return ", ".join(parts)


def save(path, check_id: str, instance: dict, space, meta: dict) -> Path:
    """Write the witness; returns its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {d.name: np.asarray(instance[d.name]) for d in space.dims}
    fixed = {k: _jsonable(v) for k, v in space.fixed.items()}
    info = {"check_id": check_id, "fixed": fixed, **{k: _jsonable(v) for k, v in meta.items()}}
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays, **{META: np.array(json.dumps(info, default=repr))})
    tmp.replace(path)
    return path


def load(path) -> tuple[dict, dict]:
    """(instance, metadata) of a saved witness; an unreadable file is bad input naming it."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z[META]))
            inst = {k: z[k] for k in z.files if k != META}
    except (OSError, ValueError, KeyError) as exc:
        raise InputError("instance_file", f"{path}: unreadable witness ({type(exc).__name__}: {exc})") from None
    inst = {k: (v.item() if v.ndim == 0 else v) for k, v in inst.items()}
    return inst, meta


def rescore(spec, ctx, path) -> tuple[float, dict, dict]:
    """Load the witness of ``spec`` (a searchable CheckSpec) and score it again: (ratio, instance, metadata)."""
    inst, meta = load(path)
    if meta.get("check_id") != spec.id:
        raise InputError("instance_file", f"{path} is a witness of {meta.get('check_id')}, not {spec.id}")
    space = spec.space
    space.encode(inst)  # inside the claim's space, or bad input naming the parameter
    full = {**inst, **space.fixed}
    if spec.objective.constraint is not None and not spec.objective.constraint(full):
        raise InputError("instance_file", f"{path}: the instance violates the claim's constraint")
    return spec.objective.score_one(ctx, space, full), full, meta
