"""Datasets on disk or inside a package; never downloaded.

* :func:`digits`: scikit-learn's handwritten digits (``sklearn.datasets.load_digits``: 1797 images of 8x8
  pixels with values 0..16, 10 classes), bundled with scikit-learn. Pixels are scaled to [0, 1].
* :func:`mnist`: MNIST from a local path, in either of its two common forms:
  a directory with the four standard IDX files (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
  ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``, each optionally ``.gz``; a dot before ``idx``
  as in torchvision's copies is accepted too), or one ``.npz`` file with ``x_train, y_train, x_test, y_test``
  (Keras' ``mnist.npz``). Pixels 0..255 are scaled to [0, 1].
* :func:`load`: the dataset a check runs on: ``ctx.data`` when the user passed ``--data PATH``, else digits.

A :class:`Dataset` holds float64 numpy arrays ``x [n, h*w]`` (flattened, row-major images), int64 labels,
the image shape and a one-line description of where it came from. A path that is missing or unreadable is
bad input (:class:`analytic.errors.InputError` naming ``data``, which the command line reports as
``--data``, exit 2).
"""
from __future__ import annotations

import functools
import gzip
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analytic.errors import InputError

#: IDX type codes (the third byte of the magic number) and their big-endian numpy dtypes
IDX_TYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
             0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
MNIST_PARTS = {"x_train": "train-images", "y_train": "train-labels", "x_test": "t10k-images", "y_test": "t10k-labels"}
PARAM = "data"  # the Python parameter every error here names (the command line's --data)


@dataclass(frozen=True)
class Dataset:
    """A classification dataset split into train and test: ``x_* [n, h*w]`` float64 in [0, 1], ``y_*`` int64."""

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    image_shape: tuple
    classes: int
    source: str

    @property
    def features(self) -> int:
        return int(self.x_train.shape[1])

    def describe(self) -> str:
        h, w = self.image_shape
        return (f"{self.name} ({h}x{w}, {len(self.y_train)} train + {len(self.y_test)} test images, "
                f"{self.classes} classes; {self.source})")


def _check_arrays(x: np.ndarray, y: np.ndarray, part: str, where: str) -> None:
    if x.ndim != 2 or y.ndim != 1 or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise InputError(PARAM, f"{where}: {part} images {x.shape} and labels {y.shape} do not pair up")
    if not np.all(np.isfinite(x)):
        raise InputError(PARAM, f"{where}: {part} images hold non-finite values")


@functools.lru_cache(maxsize=1)
def digits_raw() -> tuple:
    """scikit-learn's bundled digits as (images [1797, 64] with raw pixel values 0..16, labels [1797]), read once per
    process (read-only arrays). The bundled ``digits.csv.gz`` is read directly, which spares importing scikit-learn
    (about a second); ``sklearn.datasets.load_digits`` is the fallback."""
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    path = (os.path.join(list(spec.submodule_search_locations)[0], "datasets", "data", "digits.csv.gz")
            if spec is not None and spec.submodule_search_locations else "")
    if path and os.path.exists(path):
        with gzip.open(path, "rt") as fh:
            arr = np.loadtxt(fh, delimiter=",")
        x, y = arr[:, :-1].astype(np.float64), arr[:, -1].astype(np.int64)
    else:
        from sklearn.datasets import load_digits

        bunch = load_digits()
        x, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.int64)
    x.flags.writeable = False
    y.flags.writeable = False
    return x, y


def _digits_arrays() -> tuple:
    """The digits with pixels divided by 16 (values in [0, 1]), labels."""
    x, y = digits_raw()
    return x / 16.0, y


def digits(test_fraction: float = 0.2, rng: np.random.Generator | None = None) -> Dataset:
    """scikit-learn's bundled digits, split into train and test: a stratified split with the permutation from
    ``rng`` (default: a fixed split, ``numpy.random.default_rng(0)``), so the split is a function of its
    generator. Pixels 0..16 are divided by 16."""
    if not 0 < test_fraction < 1:
        raise InputError("test_fraction", f"must be in (0, 1), got {test_fraction}")
    x, y = _digits_arrays()
    rng = np.random.default_rng(0) if rng is None else rng
    test = np.zeros(len(y), dtype=bool)
    for k in range(10):  # stratified: the same test share of every class
        idx = rng.permutation(np.flatnonzero(y == k))
        test[idx[:int(round(test_fraction * len(idx)))]] = True
    return Dataset("digits", x[~test], y[~test], x[test], y[test], (8, 8), 10,
                   "scikit-learn's bundled load_digits, no download")


def _open(path: Path):
    """A binary file object, gunzipped when the file starts with gzip's magic bytes (whatever its name)."""
    with open(path, "rb") as fh:
        head = fh.read(2)
    return gzip.open(path, "rb") if head == b"\x1f\x8b" else open(path, "rb")


def read_idx(path) -> np.ndarray:
    """The array stored in one IDX file (LeCun's format: magic 0x0000TTDD, DD dimensions as big-endian uint32,
    then the data big-endian), gzipped or not. A malformed file is bad input naming ``data``."""
    path = Path(path)
    try:
        with _open(path) as fh:
            raw = fh.read()
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(PARAM, f"{path}: unreadable ({exc.__class__.__name__}: {exc})") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in IDX_TYPES:
        raise InputError(PARAM, f"{path}: not an IDX file (magic bytes {raw[:4].hex() or 'missing'})")
    dtype, ndim = IDX_TYPES[raw[2]], raw[3]
    if ndim < 1 or len(raw) < 4 + 4 * ndim:
        raise InputError(PARAM, f"{path}: truncated IDX header")
    shape = struct.unpack(f">{ndim}I", raw[4:4 + 4 * ndim])
    count = int(np.prod(shape, dtype=np.int64))
    body = raw[4 + 4 * ndim:]
    if len(body) != count * dtype.itemsize:
        raise InputError(PARAM, f"{path}: IDX header says {shape} ({count * dtype.itemsize} bytes) but the file holds "
                                f"{len(body)} bytes of data")
    return np.frombuffer(body, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


def _find_idx(folder: Path, stem: str) -> Path:
    """The IDX file of one MNIST part in ``folder`` (``train-images-idx3-ubyte`` or ``train-images.idx3-ubyte``,
    optionally ``.gz``)."""
    dims = "idx3" if "images" in stem else "idx1"
    for sep in ("-", "."):
        for ext in ("", ".gz"):
            p = folder / f"{stem}{sep}{dims}-ubyte{ext}"
            if p.is_file():
                return p
    raise InputError(PARAM, f"{folder}: no {stem}-{dims}-ubyte[.gz] (an MNIST folder holds the four IDX files "
                            "train-images, train-labels, t10k-images, t10k-labels; or pass an .npz with x_train, "
                            "y_train, x_test, y_test)")


def _scaled(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x / 255.0 if x.size and x.max() > 1.0 else x


def mnist(path) -> Dataset:
    """MNIST (or any IDX / npz dataset of the same layout, e.g. Fashion-MNIST) from a local folder or .npz file."""
    if path is None or str(path) == "":
        raise InputError(PARAM, "no path given")
    p = Path(os.path.expanduser(str(path)))
    if not p.exists():
        raise InputError(PARAM, f"{p}: no such file or directory")
    if not os.access(p, os.R_OK):
        raise InputError(PARAM, f"{p}: not readable")
    if p.is_dir():
        arrays = {key: read_idx(_find_idx(p, stem)) for key, stem in MNIST_PARTS.items()}
    else:
        try:
            with np.load(p, allow_pickle=False) as z:
                missing = [k for k in MNIST_PARTS if k not in z.files]
                if missing:
                    raise InputError(PARAM, f"{p}: the .npz lacks {', '.join(missing)} (needs x_train, y_train, "
                                            "x_test, y_test)")
                arrays = {k: np.asarray(z[k]) for k in MNIST_PARTS}
        except InputError:
            raise
        except Exception as exc:  # not a zip, a pickled array, a damaged file: all the user's input
            raise InputError(PARAM, f"{p}: unreadable as .npz ({exc.__class__.__name__}: {exc})") from None
    shape = tuple(arrays["x_train"].shape[1:])
    if len(shape) != 2 or tuple(arrays["x_test"].shape[1:]) != shape:
        raise InputError(PARAM, f"{p}: expected images [n, h, w] in both parts, got {arrays['x_train'].shape} and "
                                f"{arrays['x_test'].shape}")
    out = {}
    for part in ("train", "test"):
        x = _scaled(arrays[f"x_{part}"]).reshape(len(arrays[f"x_{part}"]), -1)
        y = np.asarray(arrays[f"y_{part}"])
        if not np.issubdtype(y.dtype, np.integer):  # a float label 2.7 is not a class: never truncate it
            raise InputError(PARAM, f"{p}: {part} labels must be integers, got {y.dtype}")
        y = y.astype(np.int64).ravel()
        _check_arrays(x, y, part, str(p))
        out[part] = (x, y)
    classes = int(max(out["train"][1].max(), out["test"][1].max())) + 1
    if out["train"][1].min() < 0 or classes < 2:
        raise InputError(PARAM, f"{p}: labels must be 0..K-1 with K >= 2")
    return Dataset("mnist", *out["train"], *out["test"], shape, classes, f"read from {p}")


def load(path=None) -> Dataset:
    """The dataset a reproduction runs on: MNIST (or the same layout) from ``path`` when given, else digits."""
    return digits() if path is None else mnist(path)


#: The fewest images a part must hold for the reproductions (several clients, every class in training)
MIN_IMAGES = {"train": 100, "test": 10}


def validate_content(path) -> Dataset:
    """The dataset at ``path`` read and checked as the reproductions need it: images [n, h, w] and integer
    labels that pair up, at least MIN_IMAGES per part, labels 0..K-1 with every class present in training.
    Anything else is bad input naming ``data``."""
    ds = mnist(path)
    for part, y in (("train", ds.y_train), ("test", ds.y_test)):
        if len(y) < MIN_IMAGES[part]:
            raise InputError(PARAM, f"{path}: {len(y)} {part} images; the reproductions need at least "
                                    f"{MIN_IMAGES[part]}")
    missing = sorted(set(range(ds.classes)) - set(np.unique(ds.y_train).tolist()))
    if missing:
        raise InputError(PARAM, f"{path}: labels must be 0..{ds.classes - 1} with every class in training; "
                                f"missing {missing[:5]}")
    return ds


@functools.lru_cache(maxsize=4)
def _checked(path: str, stamp: str) -> None:
    """:func:`validate_content` once per (path, fingerprint): a Context per check does not reread the files."""
    validate_content(path)


def validate_path(path) -> Path:
    """``path`` exists, is readable and holds a usable dataset (:func:`validate_content`), checked before any work
    starts (the command line's Context); the check reads the data again when it runs."""
    if path is None or str(path) == "":
        raise InputError(PARAM, "no path given")
    p = Path(os.path.expanduser(str(path)))
    if not p.exists():
        raise InputError(PARAM, f"{p}: no such file or directory")
    if not os.access(p, os.R_OK) or (p.is_dir() and not os.access(p, os.X_OK)):
        raise InputError(PARAM, f"{p}: not readable")
    _checked(str(p), fingerprint(p))
    return p


def fingerprint(path) -> str:
    """What identifies a dataset on disk for the results store's rerun key: the sha256 of the (name, size,
    modification time) of the file, or of every file in the folder; a replaced file reruns its checks."""
    import hashlib

    p = Path(os.path.expanduser(str(path)))
    files = sorted(q for q in p.iterdir() if q.is_file()) if p.is_dir() else [p]
    h = hashlib.sha256()
    for q in files:
        st = q.stat()
        h.update(f"{q.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]
