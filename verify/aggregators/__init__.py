"""Robust aggregators: pure functions over a batch of client vectors.

Interface (every aggregator): ``aggregate(X, f, **options) -> Tensor``, ``X`` of shape ``[R, N, d]``
(replicates, clients, parameters), ``f`` the number of Byzantine clients it must tolerate; the result
is ``[R, d]`` in ``X``'s dtype and device. Aggregators never touch a global random state (those that
need randomness take an explicit ``generator``) and never loop over replicates or clients in Python.

Each module of this package registers its aggregators with ``@aggregator("name")``; the package
imports all its modules, so adding one needs no edit here. ``AGGREGATORS`` maps names to functions
(property tests iterate over it).
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

AGGREGATORS: dict[str, Callable] = {}


def aggregator(name: str):
    """Register an aggregator under ``name`` (loudly refusing a second one of the same name)."""

    def deco(fn: Callable) -> Callable:
        if name in AGGREGATORS and AGGREGATORS[name] is not fn:
            raise ValueError(f"aggregator {name!r} registered twice")
        AGGREGATORS[name] = fn
        return fn

    return deco


for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
