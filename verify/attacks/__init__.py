"""Byzantine attacks: what the f malicious clients send, batched.

Interface (every attack): ``attack(honest, f, *, generator=None, **context) -> Tensor``, ``honest`` of
shape ``[R, h, d]`` (the honest clients' vectors this round), the result ``[R, f, d]`` in the same
dtype and device. ``context`` carries what an omniscient attacker may also know (the server's current
model ``reference``, the aggregator's radius, ...); an attack documents which keys it reads. Random
attacks take an explicit ``generator``; none touches a global random state.

Each module registers its attacks with ``@attack("name")``; the package imports all its modules.
Data-poisoning attacks (label flips) change the malicious clients' data instead and live with the
problem they poison.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

ATTACKS: dict[str, Callable] = {}


def attack(name: str):
    """Register an attack under ``name`` (loudly refusing a second one of the same name)."""

    def deco(fn: Callable) -> Callable:
        if name in ATTACKS and ATTACKS[name] is not fn:
            raise ValueError(f"attack {name!r} registered twice")
        ATTACKS[name] = fn
        return fn

    return deco


for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
