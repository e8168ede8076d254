"""``fedverify run`` when every chosen check is already stored: answered without importing torch or a check.

A stored Result is reused when its stored rerun key equals the one this run would compute
(``CheckSpec.rerun_key``: fidelity, replicates, seed, device, dtype, library versions, the hash of the
check's source closure). Every part of that key can be known without importing torch or the check
modules: the ids and their modules from source (:func:`verify.catalog.check_modules`), the code hash
from the files (:mod:`verify.codehash`), the library versions from the installed distributions' metadata,
and the device when no GPU can be present. When any of these is uncertain (a GPU may be present, keyword
overrides, ``--data``, ``--force``, checks given by ``--import``), or any Result is missing or differs,
:func:`answer` returns None and the full path runs, which recomputes the key exactly; so this shortcut can
only answer what the full path would answer the same way.
"""
from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

LIBRARIES = ("numpy", "scipy", "sympy", "torch")


def _no_gpu_possible() -> bool:
    """True when torch's ``auto`` device is certainly the CPU: a CPU-only torch build, or no GPU device node."""
    try:
        if "+cpu" in version("torch"):
            return True
    except PackageNotFoundError:
        return False
    dev = Path("/dev")
    try:
        names = os.listdir(dev)
    except OSError:
        return False
    return sys.platform.startswith("linux") and not any(n.startswith("nvidia") or n in ("kfd", "dxg") for n in names)


def library_versions() -> dict | None:
    """The versions ``verify.engine.library_versions`` would report, read from the distributions' metadata."""
    try:
        return {"python": platform.python_version(), **{name: version(name) for name in LIBRARIES}}
    except PackageNotFoundError:
        return None


def light_key(args, module: str, libraries: dict) -> dict:
    """The rerun key of a check in ``module`` for these ``run`` arguments, on the CPU in float64."""
    from verify.codehash import closure_hash

    return {"fidelity": args.fidelity, "replicates": args.replicates, "seed": args.seed, "device": "cpu",
            "dtype": "float64", "code": closure_hash(module), "libraries": libraries}


def _chosen(args, modules: dict[str, str]) -> list[str] | None:
    """The ids ``run`` was asked for, in check order (None: an unknown id or paper, which the full path reports)."""
    from verify.result import check_sort_key

    if args.all:
        return sorted(modules, key=check_sort_key)
    ids = list(args.ids)
    if args.paper is not None:
        ids += sorted((cid for cid in modules if cid.split(".")[0] == args.paper), key=check_sort_key)
        if not any(cid.split(".")[0] == args.paper for cid in modules):
            return None
    if any(cid not in modules for cid in ids):
        return None
    return list(dict.fromkeys(ids))


def answer(args, store, say) -> list | None:
    """The stored Results of every check this ``run`` names, when all are stored under the key it would compute;
    None when the full path must run. Prints the same line per check as the full path."""
    if (args.force or args.data is not None or getattr(args, "set", None) or getattr(args, "imported", False)
            or args.dtype != "float64" or args.device == "cuda"
            or (args.device == "auto" and not _no_gpu_possible())):
        return None
    from verify import catalog

    modules = catalog.check_modules()
    libraries = library_versions()
    if modules is None or libraries is None:
        return None
    ids = _chosen(args, modules)
    if not ids:
        return None
    from verify.store import UnreadableResult

    results = []
    for cid in ids:
        if not store.is_done(cid, light_key(args, modules[cid], libraries), seed=args.seed):
            return None
        try:
            results.append(store.load(cid, seed=args.seed))
        except UnreadableResult:
            return None
    for r in results:
        say(f"  = {r.id:<18} {r.verdict.value:<14} (stored; --force reruns)")
    return results
