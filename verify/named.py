"""Small registries of named functions (aggregators, attacks) and package-wide imports, so that adding
a module to a package is the only edit a new aggregator, attack, problem or check needs."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable


def named_registry(kind: str) -> tuple[dict[str, Callable], Callable[[str], Callable]]:
    """A dict name -> function and the decorator ``@register("name")`` filling it (a second, different
    function under one name is refused loudly)."""
    table: dict[str, Callable] = {}

    def register(name: str):
        def deco(fn: Callable) -> Callable:
            if name in table and table[name] is not fn:
                raise ValueError(f"{kind} {name!r} registered twice")
            table[name] = fn
            return fn

        return deco

    return table, register


def import_submodules(package: str) -> list[str]:
    """Import ``package`` and every module in it, subpackages recursively (a paper's checks live in
    ``verify/checks/<key>/``), skipping names that start with ``_``; return their names."""
    mod = importlib.import_module(package)
    names = []
    for info in pkgutil.iter_modules(getattr(mod, "__path__", None) or []):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        if info.ispkg:
            names.append(name)
            names.extend(import_submodules(name))
        else:
            importlib.import_module(name)
            names.append(name)
    return names
