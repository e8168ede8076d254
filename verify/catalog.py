"""What the checks are, read from their source without running or importing them.

``fedverify list`` and ``fedverify show`` must answer at once; importing the check modules imports
torch and builds every paper's sympy Bounds (seconds). The ``@check(id, title, kind, expected, ...)``
line of every check states its identity in literals, so the catalogue reads those lines with
:mod:`ast` from the modules that the entry-point group ``fedverify.checks`` names (packages with all
their submodules, as :func:`verify.registry.load_all` imports them).

:func:`entries` returns ``None`` whenever the source cannot say for certain (a module that cannot be
found, a decorator argument that is not a literal, check modules given by ``FEDVERIFY_CHECKS``); the
caller then imports the modules (:func:`verify.registry.load_all`), which is always right, only slower.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from importlib.metadata import entry_points
from pathlib import Path

ENTRY_POINT_GROUP = "fedverify.checks"
ENV_VAR = "FEDVERIFY_CHECKS"


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    kind: str
    expected: str
    searchable: bool = False

    @property
    def paper(self) -> str:
        return self.id.split(".")[0]

    def as_dict(self) -> dict:
        d = {"id": self.id, "title": self.title, "kind": self.kind, "expected": self.expected}
        if self.searchable:
            d["searchable"] = True
        return d


class _NotLiteral(Exception):
    pass


def _module_files(name: str) -> list[Path]:
    """The source files of module or package ``name`` (a package: every submodule, recursively)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise _NotLiteral(name)
    if spec.submodule_search_locations:
        return sorted(p for loc in spec.submodule_search_locations for p in Path(loc).rglob("*.py"))
    return [Path(spec.origin)]


def _literal(node: ast.AST, names: dict):
    """A literal, or a module-level name bound to one (``TITLE = "..."`` above the decorator)."""
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise _NotLiteral(ast.dump(node)) from None


def _module_constants(tree: ast.Module) -> dict:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


def _checks_in(path: Path) -> list[Entry]:
    text = path.read_text(encoding="utf-8")
    if "@check(" not in text and "registry.check(" not in text:
        return []
    tree = ast.parse(text, filename=str(path))
    names = _module_constants(tree)
    out = []
    for node in tree.body:  # checks are module-level functions
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            fn = dec.func if isinstance(dec, ast.Call) else None
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
            if name != "check":
                continue
            args = [_literal(a, names) for a in dec.args]
            kw = {k.arg: k.value for k in dec.keywords}
            fields = dict(zip(("id", "title", "kind", "expected"), args))
            for key in ("id", "title", "kind", "expected"):
                if key not in fields and key in kw:
                    fields[key] = _literal(kw[key], names)
            if len(fields) < 4:
                raise _NotLiteral(f"{path}:{dec.lineno}")
            out.append(Entry(str(fields["id"]), str(fields["title"]), str(fields["kind"]),
                             str(getattr(fields["expected"], "value", fields["expected"])), "space" in kw))
    return out


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fedverify" / "catalog.json"


def _load_cache() -> dict:
    try:
        return json.loads(_cache_file().read_text())
    except (OSError, ValueError):
        return {}


def _save_cache(cache: dict) -> None:
    """Best effort: a read-only home only costs the next command the parse again."""
    path = _cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
            json.dump(cache, fh)
        os.replace(fh.name, path)
    except OSError:
        pass


def entries() -> list[Entry] | None:
    """Every installed check, in check order, from source alone; ``None`` when only an import can tell.

    Each file's entries are cached (user cache directory) under its path, size and modification time,
    so an unchanged installation is read without parsing."""
    from verify.result import check_sort_key

    if os.environ.get(ENV_VAR, "").strip():
        return None
    cache, fresh, changed = _load_cache(), {}, False
    found: dict[str, Entry] = {}
    try:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            for path in _module_files(ep.value):
                st = path.stat()
                key, stamp = str(path), [st.st_size, st.st_mtime_ns]
                hit = cache.get(key)
                if hit and hit["stamp"] == stamp:
                    rows = [Entry(**r) for r in hit["entries"]]
                else:
                    rows, changed = _checks_in(path), True
                fresh[key] = {"stamp": stamp, "entries": [asdict(r) for r in rows]}
                for e in rows:
                    found[e.id] = e
    except (_NotLiteral, ImportError, SyntaxError, OSError, ValueError, TypeError, KeyError):
        return None
    if changed or set(fresh) != set(cache):
        _save_cache(fresh)
    return sorted(found.values(), key=lambda e: check_sort_key(e.id))


def _module_name(package: str, root: Path | None, path: Path) -> str:
    """The dotted name of source file ``path`` of entry-point module ``package`` (``root``: the package's folder)."""
    if root is None:
        return package
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def check_modules() -> dict[str, str] | None:
    """Check id -> the module that defines it, from source alone (as :func:`entries`; ``None`` when only an import
    can tell). ``fedverify run`` fingerprints a stored Result's code from this without importing the check."""
    if entries() is None:  # also refreshes the per-file cache read below
        return None
    cache = _load_cache()
    out: dict[str, str] = {}
    try:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            spec = importlib.util.find_spec(ep.value)
            locations = list(spec.submodule_search_locations or []) if spec else []
            for path in _module_files(ep.value):
                root = next((Path(loc) for loc in locations if Path(loc) in path.parents), None)
                hit = cache.get(str(path))
                rows = [Entry(**r) for r in hit["entries"]] if hit else _checks_in(path)
                for e in rows:
                    out[e.id] = _module_name(ep.value, root, path)
    except (_NotLiteral, ImportError, SyntaxError, OSError, ValueError, TypeError, KeyError):
        return None
    return out
