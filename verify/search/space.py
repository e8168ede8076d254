"""A claim's instance space, and its encoding as the unit cube every search method works in.

A space maps each instance parameter to its admissible range, exactly the claim's assumptions:

* ``(low, high)``: a real number in [low, high];
* ``(low, high, {"log": True})``: a scale parameter, uniform in log between low > 0 and high;
* ``range(a, b)`` or ``(a, b, {"int": True})``: an integer in [a, b - 1] (``range``) or [a, b];
* ``(low, high, {"shape": k})`` (or ``(m, k)``): an array of independent coordinates, each in [low, high]
  (a Byzantine input, a matrix of client vectors); options combine (``{"shape": 4, "log": True}``);
* a plain number (or any non-tuple value): a fixed setting passed to the objective as it is.

The encoding is one coordinate ``u`` in [0, 1] per searched number: ``low + u (high - low)`` (linear),
``low (high/low)^u`` (log), ``low + floor(u (high - low + 1))`` (integer, clipped to high). Every point of
the cube decodes to an admissible instance, so a method that stays in the cube never scores an instance
outside the claim's assumptions; a claim whose assumptions couple parameters (f < n/2) either
parametrises them so (f as a fraction of n) or states ``Objective(constraint=...)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytic.errors import InputError

OPTIONS = ("log", "int", "shape")


@dataclass(frozen=True)
class Dim:
    """One searched parameter: ``size`` coordinates of the cube, each decoded to [low, high]."""

    name: str
    low: float
    high: float
    log: bool = False
    integer: bool = False
    shape: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    def describe(self) -> str:
        kind = "integer" if self.integer else ("log" if self.log else "real")
        shape = f", shape {self.shape}" if self.shape else ""
        return f"{self.name} in [{self.low:g}, {self.high:g}] ({kind}{shape})"


class Space:
    """The decoded form of a ``space=`` dict; see the module docstring."""

    def __init__(self, dims: list[Dim], fixed: dict) -> None:
        self.dims, self.fixed = dims, dict(fixed)
        self.names = [d.name for d in dims]
        self.size = sum(d.size for d in dims)
        offsets = np.cumsum([0] + [d.size for d in dims])
        self.slices = {d.name: slice(int(a), int(b)) for d, a, b in zip(dims, offsets[:-1], offsets[1:])}

    # -- construction ----------------------------------------------------------------------------------
    @classmethod
    def of(cls, spec, where: str = "space") -> "Space":
        if isinstance(spec, Space):
            return spec
        if not isinstance(spec, dict) or not spec:
            raise ValueError(f"{where}: space must be a non-empty dict name -> range, got {spec!r}")
        dims, fixed = [], {}
        for name, value in spec.items():
            if isinstance(value, range):
                if value.step != 1 or len(value) < 1:
                    raise ValueError(f"{where}: space[{name!r}]: an integer range needs step 1 and one value at least")
                dims.append(Dim(name, float(value.start), float(value.stop - 1), integer=True))
            elif isinstance(value, tuple) and len(value) in (2, 3) and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in value[:2]):
                opts = value[2] if len(value) == 3 else {}
                if not isinstance(opts, dict) or set(opts) - set(OPTIONS):
                    raise ValueError(f"{where}: space[{name!r}]: options must be a dict of {OPTIONS}, got {opts!r}")
                low, high = float(value[0]), float(value[1])
                if not (math.isfinite(low) and math.isfinite(high) and low <= high):
                    raise ValueError(f"{where}: space[{name!r}]: need finite low <= high, got ({low}, {high})")
                log, integer = bool(opts.get("log", False)), bool(opts.get("int", False))
                if log and low <= 0:
                    raise ValueError(f"{where}: space[{name!r}]: a log range needs low > 0, got {low}")
                if log and integer:
                    raise ValueError(f"{where}: space[{name!r}]: choose log or int, not both")
                shape = opts.get("shape", ())
                shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
                if any(s < 1 for s in shape):
                    raise ValueError(f"{where}: space[{name!r}]: shape must be positive, got {shape}")
                dims.append(Dim(name, low, high, log, integer, shape))
            else:
                fixed[name] = value
        if not dims:
            raise ValueError(f"{where}: space has no searched parameter (every value is fixed)")
        return cls(dims, fixed)

    def describe(self) -> list[str]:
        return [d.describe() for d in self.dims] + [f"{k} = {v!r} (fixed)" for k, v in self.fixed.items()]

    # -- the unit cube <-> instances --------------------------------------------------------------------
    def decode(self, U) -> dict:
        """``U [B, size]`` in the cube -> ``{name: array [B, *shape]}`` (integers as int64) plus the fixed
        settings; values outside [0, 1] are clipped (a method's overshoot never leaves the space)."""
        U = np.clip(np.atleast_2d(np.asarray(U, dtype=float)), 0.0, 1.0)
        if U.shape[1] != self.size:
            raise ValueError(f"expected {self.size} coordinates per point, got {U.shape[1]}")
        out = {}
        for d in self.dims:
            u = U[:, self.slices[d.name]].reshape((U.shape[0], *d.shape))
            if d.integer:
                out[d.name] = np.minimum(d.low + np.floor(u * (d.high - d.low + 1)), d.high).astype(np.int64)
            elif d.log:
                out[d.name] = np.clip(np.exp(np.log(d.low) + u * (np.log(d.high) - np.log(d.low))), d.low, d.high)
            else:
                out[d.name] = np.clip(d.low + u * (d.high - d.low), d.low, d.high)
        return {**out, **self.fixed}

    def decode_torch(self, U):
        """The same for a torch tensor ``U [B, size]`` (differentiable in the real coordinates; integer
        coordinates are decoded but carry no gradient)."""
        import torch

        U = U.clamp(0.0, 1.0)
        out = {}
        for d in self.dims:
            u = U[:, self.slices[d.name]].reshape((U.shape[0], *d.shape))
            if d.integer:
                out[d.name] = torch.clamp(d.low + torch.floor(u.detach() * (d.high - d.low + 1)), max=d.high)
            elif d.log:
                out[d.name] = torch.exp(math.log(d.low) + u * (math.log(d.high) - math.log(d.low))).clamp(d.low, d.high)
            else:
                out[d.name] = d.low + u * (d.high - d.low)
        return {**out, **self.fixed}

    def encode(self, instance: dict) -> np.ndarray:
        """One instance (scalars / arrays per name) -> its point of the cube ``[size]``; a value outside its
        range is bad input naming the parameter."""
        u = np.empty(self.size)
        for d in self.dims:
            if d.name not in instance:
                raise InputError(d.name, f"the instance has no value for {d.name}")
            x = np.asarray(instance[d.name], dtype=float).reshape(-1)
            if x.size != d.size:
                raise InputError(d.name, f"expected {d.size} value(s), got {x.size}")
            tol = 1e-12 * max(1.0, abs(d.low), abs(d.high))
            if not np.all(np.isfinite(x)) or np.any(x < d.low - tol) or np.any(x > d.high + tol):
                raise InputError(d.name, f"outside the claim's space [{d.low:g}, {d.high:g}]: {x.tolist()}")
            x = np.clip(x, d.low, d.high)
            if d.integer:
                v = (x - d.low + 0.5) / (d.high - d.low + 1)
            elif d.log:
                v = (np.log(x) - np.log(d.low)) / max(np.log(d.high) - np.log(d.low), 1e-300)
            else:
                v = (x - d.low) / (d.high - d.low) if d.high > d.low else np.zeros_like(x)
            u[self.slices[d.name]] = v
        return u

    def row(self, batch: dict, i: int) -> dict:
        """Instance ``i`` of a decoded batch as plain Python numbers / arrays."""
        out = {}
        for d in self.dims:
            v = np.asarray(batch[d.name][i])
            out[d.name] = (int(v) if d.integer else float(v)) if not d.shape else v.copy()
        return {**out, **self.fixed}
