"""Estimated wall time and peak memory of the checks whose cost grows with the data (``fedverify run --data``).

A cost model maps the data's sizes (read from the files' headers, nothing loaded) and the check's settings
to an :class:`Estimate`; ``fedverify run`` prints it before the check starts (verify/cli_long.py). The
constants are measured: each model states the run it was fitted to.

werner2023.x20 (Table 1 on real data). Its work and memory are dominated by FC's all-pairs gradients: in each
round and task, every client's model is evaluated on every client's data of its group, ``R N (N / groups) m p c``
multiply-adds (R replicates, N = K per_cluster clients, m training images per client, p pixels + 1, c classes).
Measured: MNIST-sized data (60000 + 10000 images 28x28), quick settings (R 6, N 300, 15 groups, m 200),
one round: 539 s and 19.6 GB peak resident memory on a 2-core machine at load 8, i.e. 4.8e-9 s per
multiply-add and 8.5 times the ``R N (N / groups) p c`` float64 gradients array.
"""
from __future__ import annotations

import gzip
import os
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from analytic.validate import format_bytes


@dataclass(frozen=True)
class Estimate:
    seconds: float
    peak_bytes: float
    detail: str

    def text(self) -> str:
        s = self.seconds
        when = f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"
        return f"~{when}, ~{format_bytes(self.peak_bytes)} peak memory"


@dataclass(frozen=True)
class DataSize:
    n_train: int
    n_test: int
    pixels: int
    classes: int = 10


def _npy_shape(fh) -> tuple:
    version = np.lib.format.read_magic(fh)
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, _, _ = read(fh)
    return tuple(shape)


def _idx_shape(path: Path) -> tuple:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        magic = fh.read(4)
        ndim = magic[3]
        return struct.unpack(">" + "I" * ndim, fh.read(4 * ndim))


def data_size(path) -> DataSize | None:
    """The sizes of the dataset at ``path`` (an .npz or a folder of IDX files) from headers only; None if unreadable
    (the check itself then reports the file)."""
    p = Path(os.path.expanduser(str(path)))
    try:
        if p.is_dir():
            shapes = {}
            for key, stem in (("x_train", "train-images"), ("x_test", "t10k-images")):
                f = next(q for q in sorted(p.iterdir()) if q.name.startswith(stem))
                shapes[key] = _idx_shape(f)
        else:
            with zipfile.ZipFile(p) as z:
                shapes = {k: _npy_shape(z.open(f"{k}.npy")) for k in ("x_train", "x_test")}
        tr, te = shapes["x_train"], shapes["x_test"]
        return DataSize(int(tr[0]), int(te[0]), int(np.prod(tr[1:])))
    except (OSError, StopIteration, KeyError, ValueError, struct.error, zipfile.BadZipFile, IndexError):
        return None


SECONDS_PER_MADD = 4.8e-9
PEAK_PER_GRAD_BYTE = 8.5
BASE_BYTES = 0.35e9


def _x20(ctx, size: DataSize, overrides: dict) -> Estimate:
    K = int(overrides.get("K", 4))
    per_cluster = int(overrides.get("per_cluster") or 75)
    N = K * per_cluster
    groups = int(overrides.get("groups") or (15 if N % 15 == 0 else 1))
    rounds = int(overrides.get("rounds") or ctx.pick(40, 150))
    R = ctx.replicates or ctx.pick(6, 20)
    m, p, c = size.n_train // N, size.pixels + 1, size.classes
    madds = R * N * (N // groups) * m * p * c
    grads = 8.0 * R * N * (N // groups) * p * c
    data = 8.0 * (size.n_train + size.n_test) * size.pixels
    return Estimate(2 * rounds * madds * SECONDS_PER_MADD, BASE_BYTES + 2 * data + PEAK_PER_GRAD_BYTE * grads,
                    f"{N} clients x {m} images, {groups} groups, {R} replicates, {rounds} rounds x 2 tasks; "
                    "measured on 2 cores, yours may differ")


MODELS: dict[str, Callable[..., Estimate]] = {"werner2023.x20": _x20}


def estimate(check_id: str, ctx, overrides: dict) -> Estimate | None:
    """The estimate for one check on ``ctx.data`` (None: no data given, no model, or unreadable headers)."""
    model = MODELS.get(check_id)
    if model is None or ctx.data is None:
        return None
    size = data_size(ctx.data)
    return None if size is None else model(ctx, size, overrides)
