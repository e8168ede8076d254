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

from verify.named import import_submodules, named_registry

AGGREGATORS, aggregator = named_registry("aggregator")
import_submodules(__name__)
