"""The source code a check's numbers depend on, and its fingerprint, without importing it.

A stored Result is reused only when the hash of every source file its check module can reach through
imports is unchanged (``CheckSpec.rerun_key``). This module finds those files by reading ``import``
statements with :mod:`ast` and resolving module names on the file system, so that ``fedverify run`` can
answer a stored Result without importing torch or any check module.

Each file's import list is cached in the user cache directory under its path, size and modification time
(``~/.cache/fedverify/imports.json``); a changed file is parsed again, so the cache never changes an answer.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import tempfile
from pathlib import Path

#: packages whose source can change a check's numbers besides the check's own package
CORE_PACKAGES = ("analytic", "verify", "counterexamples")


def imported_names(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every module name an import statement in ``tree`` may refer to (anywhere in the file, lazy
    imports inside functions included; ``from pkg import name`` yields ``pkg`` and ``pkg.name``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


class _Resolver:
    """Module name -> source file, by the file system below each top-level package's directories (found
    once by :func:`importlib.util.find_spec`, which imports only that top-level package)."""

    def __init__(self) -> None:
        self._roots: dict[str, list[Path] | None] = {}

    def _root_dirs(self, top: str) -> list[Path] | None:
        if top not in self._roots:
            try:
                spec = importlib.util.find_spec(top)
            except (ImportError, ValueError):
                spec = None
            if spec is None:
                self._roots[top] = None
            elif spec.submodule_search_locations:
                self._roots[top] = [Path(p) for p in spec.submodule_search_locations]
            else:
                self._roots[top] = [Path(spec.origin)] if spec.origin and spec.origin.endswith(".py") else None
        return self._roots[top]

    def path(self, name: str) -> Path | None:
        """The ``.py`` file of module ``name``, or None (an attribute, not a module; an extension module)."""
        top, *rest = name.split(".")
        roots = self._root_dirs(top)
        if not roots:
            return None
        if len(roots) == 1 and roots[0].suffix == ".py":
            return roots[0] if not rest else None
        for base in roots:
            stem = base.joinpath(*rest) if rest else base
            for candidate in (stem / "__init__.py", stem.with_suffix(".py") if rest else None):
                if candidate is not None and candidate.is_file():
                    return candidate
        return None


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fedverify" / "imports.json"


class _ImportCache:
    """Per-file import lists keyed by ``path`` and stamp ``[size, mtime_ns]``; saved only when it changed."""

    def __init__(self) -> None:
        try:
            self.data = json.loads(_cache_file().read_text())
        except (OSError, ValueError):
            self.data = {}
        if not isinstance(self.data, dict):
            self.data = {}
        self.changed = False

    def imports(self, name: str, path: Path) -> list[str]:
        st = path.stat()
        stamp = [st.st_size, st.st_mtime_ns]
        key = f"{name}\0{path}"
        hit = self.data.get(key)
        if isinstance(hit, dict) and hit.get("stamp") == stamp and isinstance(hit.get("imports"), list):
            return hit["imports"]
        tree = ast.parse(path.read_bytes(), filename=str(path))
        found = sorted(imported_names(tree, name, path.name == "__init__.py"))
        self.data[key] = {"stamp": stamp, "imports": found}
        self.changed = True
        return found

    def save(self) -> None:
        """Best effort: a read-only home only costs the next command the parse again."""
        if not self.changed:
            return
        path = _cache_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
                json.dump(self.data, fh)
            os.replace(fh.name, path)
            self.changed = False
        except OSError:
            pass


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


#: Per process: module -> (its closure, the stamps of the closure's files when it was found). A closure is reused
#: only while every one of its files keeps its stamp: a file can only reach a new import through an edit of a file
#: already in the closure, which changes that file's stamp. ``fedverify run --all`` finds 181 closures over the
#: same core files; without this each one re-read the import cache and re-resolved about 100 module names.
_CLOSURES: dict[str, tuple[dict[str, Path], tuple[tuple[int, int], ...]]] = {}
#: Per process: the closure's (name, path, stamp) list -> its hash, so an unchanged closure's files are not re-read.
_HASHES: dict[tuple, str] = {}
_IMPORTS: _ImportCache | None = None


def _unchanged(paths, stamps) -> bool:
    try:
        return all(_stamp(p) == s for p, s in zip(paths, stamps))
    except OSError:  # a file of the closure is gone: find the closure again
        return False


def module_closure(module: str) -> dict[str, Path]:
    """The source files ``module`` can execute through imports, following imports into fedverify's
    own packages (``analytic``, ``verify``, ``counterexamples``) and the module's own top-level
    package (a plugin's), including each package's ``__init__``; sorted by module name."""
    hit = _CLOSURES.get(module)
    if hit is not None and _unchanged(hit[0].values(), hit[1]):
        return dict(hit[0])
    closure = _find_closure(module)
    _CLOSURES[module] = (closure, tuple(_stamp(p) for p in closure.values()))
    return dict(closure)


def _find_closure(module: str) -> dict[str, Path]:
    global _IMPORTS
    roots = set(CORE_PACKAGES) | {module.split(".")[0]}
    if _IMPORTS is None:  # read once per process; each entry is still checked against its file's stamp
        _IMPORTS = _ImportCache()
    resolver, cache = _Resolver(), _IMPORTS
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or name.split(".")[0] not in roots:
            continue
        path = resolver.path(name)
        if path is None:
            continue
        seen[name] = path
        todo.extend(".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1))  # parent packages
        todo.extend(cache.imports(name, path))
    cache.save()
    return dict(sorted(seen.items()))


def closure_hash(module: str) -> str:
    """sha256 over the names and bytes of :func:`module_closure` (16 hex digits)."""
    closure = module_closure(module)
    key = tuple((name, str(path), _stamp(path)) for name, path in closure.items())
    if key not in _HASHES:
        h = hashlib.sha256()
        for name, path in closure.items():
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        _HASHES[key] = h.hexdigest()[:16]
    return _HASHES[key]
