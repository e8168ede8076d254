"""Simulation engine conventions: device, dtype, seed tree, replicate batching, checkpoints.

Every check receives a :class:`Context`. State tensors are batched as ``[R, N, d]``
(replicates, clients or points, parameters); loops run over rounds only.

Randomness: one root seed -> :class:`numpy.random.SeedSequence`, spawned per
(check id, stream name) -> an explicit :class:`torch.Generator`. Nothing seeds a global RNG,
so two checks never share a stream and the same seed on the same machine gives the same numbers.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import torch

from analytic import validate
from analytic.errors import InputError
from verify.choices import DEVICES, FIDELITIES  # noqa: F401  (re-exported: verify.engine.DEVICES)

Fidelity = Literal["quick", "full"]
MIN_REPLICATES = 10  # fewest replicates a random check's verdict may rest on


def resolve_device(device: str) -> torch.device:
    """``auto`` picks CUDA when available, else CPU. ``cuda`` without a GPU is an error."""
    if device not in DEVICES:
        raise InputError("device", f"expected one of {', '.join(DEVICES)}, got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("device", "cuda requested but no CUDA device is available")
    return torch.device(device)


def default_dtype(device: torch.device, allow_float32_on_cuda: bool = False) -> torch.dtype:
    """float64 everywhere by default (theory checks need it); float32 only if asked on CUDA."""
    if device.type == "cuda" and allow_float32_on_cuda:
        return torch.float32
    return torch.float64


def _stable_int(text: str) -> int:
    """A platform-independent 32-bit integer from a string (Python's hash() is salted)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


@dataclass(frozen=True)
class Context:
    """What a check needs to know about the run it is part of.

    ``replicates`` is ``None`` when the check should use its own default for the fidelity.
    """

    fidelity: Fidelity = "quick"
    replicates: int | None = None
    seed: int = 0
    device: str = "auto"
    float32_on_cuda: bool = False
    check_id: str = ""
    #: a dataset on disk for the real-data reproductions (``fedverify run --data PATH``: MNIST as IDX files or an
    #: .npz, verify/data/datasets.py); None: they run on scikit-learn's bundled digits
    data: str | None = None
    #: replicate counts a check asked for but did not get (the user's --replicates was below its minimum)
    short_replicates: list = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.fidelity, str) or self.fidelity not in FIDELITIES:
            raise InputError("fidelity", f"expected quick or full, got {self.fidelity!r}")
        if self.replicates is not None:
            # one run of a random quantity carries no spread, so no verdict could rest on it
            object.__setattr__(self, "replicates", validate.integer(self.replicates, "replicates", minimum=2))
            # every random check keeps at least one float64 per replicate (its observed values), so a
            # count whose 8 bytes each exceed the machine's memory cannot run at all: refuse it up front
            validate.memory("replicates", self.replicates, 8, f"{self.replicates:.3g} replicates (8 bytes each at least)")
        object.__setattr__(self, "seed", validate.integer(self.seed, "seed", minimum=0))
        if not isinstance(self.float32_on_cuda, (bool, np.bool_)):
            raise InputError("float32_on_cuda", f"expected True or False, got {self.float32_on_cuda!r}")
        if not isinstance(self.device, str):
            raise InputError("device", f"expected one of {', '.join(DEVICES)}, got {self.device!r}")
        if not isinstance(self.check_id, str):
            raise InputError("check_id", f"expected a string, got {self.check_id!r}")
        resolve_device(self.device)  # validates the name early
        if self.data is not None:
            if not isinstance(self.data, (str, bytes)) and not hasattr(self.data, "__fspath__"):
                raise InputError("data", f"expected a path, got {self.data!r}")
            from verify.data.datasets import validate_path

            object.__setattr__(self, "data", str(validate_path(self.data)))

    # -- derived settings ---------------------------------------------------------------
    @property
    def torch_device(self) -> torch.device:
        return resolve_device(self.device)

    @property
    def dtype(self) -> torch.dtype:
        return default_dtype(self.torch_device, self.float32_on_cuda)

    def reps(self, quick: int, full: int | None = None, minimum: int = MIN_REPLICATES) -> int:
        """Replicate count: the user's ``--replicates`` if given, else the check's default.

        A user count below the check's ``minimum`` is honoured but noted, and the check's verdict
        is then reported as inconclusive (see CheckSpec.run): too few runs to judge by.
        """
        if self.replicates is not None:
            if self.replicates < minimum:
                self.short_replicates.append((self.replicates, minimum))
            return self.replicates
        return quick if self.fidelity == "quick" else (full if full is not None else 4 * quick)

    def pick(self, quick, full):
        """Choose a setting by fidelity."""
        return quick if self.fidelity == "quick" else full

    def for_check(self, check_id: str) -> "Context":
        return replace(self, check_id=check_id, short_replicates=[])

    # -- randomness ---------------------------------------------------------------------
    def seed_sequence(self, stream: str = "") -> np.random.SeedSequence:
        """Seed sequence for (root seed, check id, stream name); independent across names."""
        return np.random.SeedSequence(
            entropy=self.seed, spawn_key=(_stable_int(self.check_id), _stable_int(stream))
        )

    def generator(self, stream: str = "") -> torch.Generator:
        """An explicit torch generator on the run's device for one named stream."""
        seed = int(self.seed_sequence(stream).generate_state(2, dtype=np.uint32).astype(np.uint64) @ [1, 2**32])
        g = torch.Generator(device=self.torch_device)
        g.manual_seed(seed & ((1 << 63) - 1))
        return g

    def numpy_rng(self, stream: str = "") -> np.random.Generator:
        return np.random.default_rng(self.seed_sequence(stream))

    def tensor(self, data, dtype: torch.dtype | None = None) -> torch.Tensor:
        return torch.as_tensor(data, dtype=dtype or self.dtype, device=self.torch_device)


def log_checkpoints(T: int, num: int = 20, include_zero: bool = False) -> np.ndarray:
    """Log-spaced distinct integer rounds in [1, T] (T always included), for trajectory recording."""
    T = validate.integer(T, "T", minimum=1)
    num = validate.integer(num, "num", minimum=1)
    validate.memory("num", num, 8, "the checkpoint grid")
    pts = np.unique(np.round(np.logspace(0, math.log10(T), num)).astype(int))
    pts = pts[(pts >= 1) & (pts <= T)]
    if pts[-1] != T:
        pts = np.append(pts, T)
    if include_zero:
        pts = np.insert(pts, 0, 0)
    return pts


def library_versions() -> dict:
    """Versions of the libraries whose arithmetic decides a check's numbers."""
    import platform

    import scipy
    import sympy

    return {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
            "sympy": sympy.__version__, "torch": torch.__version__}


def environment(ctx: Context) -> dict:
    """Versions and settings that go into every Result's ``env`` field (with the provenance of
    :mod:`verify.provenance`: fedverify's version and commit, the solvers and plotting libraries,
    the CPU and the command line)."""
    import platform

    from verify.provenance import provenance

    dev = ctx.torch_device
    return {
        **library_versions(),
        **provenance(),
        "platform": platform.platform(),
        "device": str(dev) + (f" ({torch.cuda.get_device_name(dev)})" if dev.type == "cuda" else ""),
        "dtype": str(ctx.dtype).replace("torch.", ""),
        "fidelity": ctx.fidelity,
        "replicates": ctx.replicates,
        "seed": ctx.seed,
        "torch_threads": torch.get_num_threads(),
        **({"data": ctx.data} if ctx.data is not None else {}),
    }
