"""What a stored Result file must be before anything reads it (verify/store.py's files).

A stored file is JSON: ``{"format": 2, "run_config": {...}, "result": {...}, "point": {...}, "arrays": NAME}``.
:func:`validate_document` checks every field's type, the format version (1 or 2; any other is refused,
never read as 1), and that the Result is the one its file name says: its ``id`` is the file's check id, its
``paper`` that id's paper, and a sweep point's stored ``point`` the seed and grid of its file name. A file
that fails is :class:`UnreadableResult` naming the file and the first field that is wrong, so that no
reader (``show``, ``list``, ``results``, the report) shows it as another check or crashes on it.

A check id is ``<paper>.<name>``, each part a letter or digit then letters, digits, ``_`` or ``-``, at
most 64 characters (:func:`safe_id`): the store builds file names from ids, so an id such as
``../../evil`` is refused before any path exists.
"""
from __future__ import annotations

import re
from dataclasses import MISSING, fields
from pathlib import Path

from analytic.errors import InputError
from verify.result import FINDING_KINDS, KINDS, Assumption, Claim, Finding, Result, Verdict

#: the format this version writes (2: the JSON names its arrays file) and those it reads
FORMAT = 2
READABLE_FORMATS = (1, 2)
#: deepest nesting of lists and dicts a free-form field may hold (the real ones: at most 9)
MAX_DEPTH = 64
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: an arrays file beside its JSON: ``<stem>.a<8 hex>.npz`` (format 2), no directory part
ARRAYS_PATTERN = re.compile(r"[A-Za-z0-9_.,=+\-\[\]]+\.a[0-9a-f]{8}\.npz")

VERDICTS = tuple(v.value for v in Verdict)
#: the fields of a stored Result and their JSON types (``REQUIRED`` must be there; the others have defaults)
REQUIRED = ("id", "paper", "title", "claim", "kind", "verdict", "expected")
#: the Result's fields by JSON type, read from the dataclass (so that a field added to Result is known here):
#: text fields, free-form objects (dict fields) and the fields with their own rules below
_OWN_RULES = ("claim", "assumptions", "finding", "verdict", "expected", "arrays", "atoms")
TEXT_FIELDS = ("verdict", "expected", *(f.name for f in fields(Result) if f.type in ("str", str)))
DICT_FIELDS = tuple(f.name for f in fields(Result) if f.name not in _OWN_RULES and f.default_factory is dict)
CLAIM_FIELDS = tuple(f.name for f in fields(Claim))  # all text
#: an assumption's fields and JSON types: ``value`` a number or null, the others those of their defaults
ASSUMPTION_FIELDS = {f.name: (int, float, type(None)) if f.name == "value" else bool if f.name == "held" else str
                     for f in fields(Assumption)}
_TYPE_WORDS = {str: "a string", bool: "a boolean"}
FINDING_FIELDS = tuple(f.name for f in fields(Finding))  # all text
RESULT_FIELDS = (*(f.name for f in fields(Result) if f.name != "arrays"), "array_names")


def other_fields(cls) -> dict:
    """Fields of the dataclass ``cls`` beyond the ones with rules here, each with the JSON type of its
    default (a list, a number, a boolean): what a field added to Result must hold in a stored file."""
    out = {}
    for f in fields(cls):
        if f.name in (*_OWN_RULES, *TEXT_FIELDS, *DICT_FIELDS):
            continue
        if f.default_factory is list:
            out[f.name] = list
        elif f.default is not MISSING and f.default is not None:
            out[f.name] = type(f.default)
    return out


OTHER_FIELDS = other_fields(Result)
DOCUMENT_FIELDS = ("format", "run_config", "result", "point", "arrays")


class UnreadableResult(InputError):
    """A stored result that cannot be read back; ``param`` is its file, the message says what to do."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(str(path), f"unreadable, rerun with --force ({reason})")
        self.reason = reason


def safe_id(check_id) -> str:
    """``check_id`` when it is ``<paper>.<name>`` of safe characters, else InputError naming ``id``."""
    if not isinstance(check_id, str) or not ID_PATTERN.fullmatch(check_id):
        raise InputError("id", f"a check id is <paper>.<name> of letters, digits, '_' and '-' (at most 64 "
                               f"each), got {str(check_id)[:80]!r}")
    return check_id


class _Bad(Exception):
    """One wrong field, said as ``where: what``."""


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise _Bad(f"{where}: {what}")


def _known(d: dict, fields, where: str) -> None:
    unknown = sorted(set(d) - set(fields))
    if unknown:
        raise _Bad(f"{where}: unknown field {unknown[0][:40]!r}")


def _type_name(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(v), "a number" if isinstance(v, (int, float)) else type(v).__name__)


def _depth(value) -> int:
    """Nesting depth of lists and dicts (iterative: a crafted file cannot exhaust the stack here)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if deepest > MAX_DEPTH:
                return deepest
            stack.extend((w, d + 1) for w in (v.values() if isinstance(v, dict) else v))
    return deepest


def _free_form(d, where: str) -> None:
    _need(isinstance(d, dict), where, f"expected an object, got {_type_name(d)}")
    _need(_depth(d) <= MAX_DEPTH, where, f"nested deeper than {MAX_DEPTH}")


def _text(d: dict, key: str, where: str) -> None:
    if key in d:
        _need(isinstance(d[key], str), f"{where}.{key}", f"expected a string, got {_type_name(d[key])}")


def _number(d: dict, key: str, where: str) -> None:
    if key in d:
        v = d[key]
        _need(isinstance(v, (int, float)) and not isinstance(v, bool), f"{where}.{key}",
              f"expected a number, got {_type_name(v)}")


def _check_result(r, check_id: str) -> None:
    _need(isinstance(r, dict), "result", f"expected an object, got {_type_name(r)}")
    missing = [k for k in REQUIRED if k not in r]
    _need(not missing, "result", f"no {', '.join(missing)}")
    _known(r, RESULT_FIELDS, "result")
    for k in TEXT_FIELDS:
        _text(r, k, "result")
    _need(r["id"] == check_id, "result.id", f"{r['id'][:80]!r} is another check's Result, not {check_id}'s")
    _need(r["paper"] == check_id.split(".")[0], "result.paper", f"{r['paper'][:40]!r} is not the paper of {check_id}")
    _need(r["kind"] in KINDS, "result.kind", f"expected one of {', '.join(KINDS)}, got {r['kind'][:40]!r}")
    for k in ("verdict", "expected"):
        _need(r[k] in VERDICTS, f"result.{k}", f"expected one of {', '.join(VERDICTS)}, got {r[k][:40]!r}")
    for k in DICT_FIELDS:
        if k in r:
            _free_form(r[k], f"result.{k}")
    for k in ("margin", "power"):
        _text(r.get(k, {}), "text", f"result.{k}")
    for k, t in OTHER_FIELDS.items():
        if k in r:
            _need(isinstance(r[k], t) and (t is bool or not isinstance(r[k], bool)), f"result.{k}",
                  f"expected {t.__name__}, got {_type_name(r[k])}")
            _need(_depth(r[k]) <= MAX_DEPTH, f"result.{k}", f"nested deeper than {MAX_DEPTH}")
    for k in ("seed", "replicates"):
        if r.get("env", {}).get(k) is not None:
            _need(isinstance(r["env"][k], int) and not isinstance(r["env"][k], bool), f"result.env.{k}",
                  f"expected an integer, got {_type_name(r['env'][k])}")
    _number(r.get("env", {}), "wall_time_s", "result.env")
    claim = r["claim"]
    _need(isinstance(claim, dict), "result.claim", f"expected an object, got {_type_name(claim)}")
    _need("text" in claim and not set(claim) - set(CLAIM_FIELDS), "result.claim",
          f"expected the fields {', '.join(CLAIM_FIELDS)} (text required)")
    for k in CLAIM_FIELDS:
        _text(claim, k, "result.claim")
    _check_assumptions(r.get("assumptions", []))
    _check_atoms(r.get("atoms", []))
    _check_finding(r.get("finding"))
    names = r.get("array_names", [])
    _need(isinstance(names, list) and all(isinstance(n, str) for n in names), "result.array_names",
          "expected a list of strings")


def _check_assumptions(items) -> None:
    _need(isinstance(items, list), "result.assumptions", f"expected a list, got {_type_name(items)}")
    for i, a in enumerate(items):
        where = f"result.assumptions[{i}]"
        _need(isinstance(a, dict), where, f"expected an object, got {_type_name(a)}")
        _need("name" in a and "held" in a and not set(a) - set(ASSUMPTION_FIELDS), where,
              f"expected the fields {', '.join(ASSUMPTION_FIELDS)} (name and held required)")
        for k, t in ASSUMPTION_FIELDS.items():
            if k in a:
                ok = isinstance(a[k], t) and (t is bool or not isinstance(a[k], bool))
                _need(ok, f"{where}.{k}", f"expected {_TYPE_WORDS.get(t, 'a number or null')}, got {_type_name(a[k])}")


def _check_atoms(items) -> None:
    """Each verdict atom an object with its rule and verdict as strings and its evidence an object (free-form
    otherwise: verify/strength.py and verify/evidence.py say what they hold)."""
    _need(isinstance(items, list), "result.atoms", f"expected a list, got {_type_name(items)}")
    for i, a in enumerate(items):
        where = f"result.atoms[{i}]"
        _need(isinstance(a, dict), where, f"expected an object, got {_type_name(a)}")
        for k in ("atom", "verdict"):
            _need(isinstance(a.get(k), str), f"{where}.{k}", f"expected a string, got {_type_name(a.get(k))}")
        _need(isinstance(a.get("evidence", {}), dict), f"{where}.evidence", "expected an object")
        _free_form(a, where)


def _check_finding(f) -> None:
    if f is None or isinstance(f, str):  # plain text: a remark (files from before findings carried fields)
        return
    _need(isinstance(f, dict), "result.finding", f"expected an object or a string, got {_type_name(f)}")
    _known(f, FINDING_FIELDS, "result.finding")
    for k in FINDING_FIELDS:
        _text(f, k, "result.finding")
    _need(f.get("kind", "remark") in FINDING_KINDS, "result.finding.kind",
          f"expected one of {', '.join(FINDING_KINDS)}")


def _check_point(point, seed: int | None, key: str | None, grid_key) -> None:
    """The stored ``point`` against the seed and grid key of the file's name (``seed`` None: the top-level
    file, where only (seed 0, no grid) is written with a point; legacy files there have none)."""
    _need(isinstance(point, dict) and set(point) <= {"seed", "grid"}, "point", "expected an object {seed, grid}")
    s, g = point.get("seed", 0), point.get("grid", {})
    _need(isinstance(s, int) and not isinstance(s, bool) and s >= 0, "point.seed",
          f"expected an integer >= 0, got {_type_name(s)}")
    _free_form(g, "point.grid")
    want_seed, want_key = (0, "") if seed is None else (seed, key)
    _need(s == want_seed, "point.seed", f"{s} is not the seed of this file ({want_seed})")
    if want_key is not None:
        _need(grid_key(g) == want_key, "point.grid", "is not the grid point of this file")


def validate_document(doc, path: Path | str, *, check_id: str, seed: int | None = None, key: str | None = None,
                      grid_key=None) -> dict:
    """``doc`` when it is a stored Result of ``check_id`` (at ``seed`` and grid key ``key`` for a sweep
    point's file; ``grid_key`` computes a grid's key), else :class:`UnreadableResult` naming ``path``."""
    try:
        _need(isinstance(doc, dict), "file", f"expected a JSON object, got {_type_name(doc)}")
        fmt = doc.get("format")
        _need(isinstance(fmt, int) and not isinstance(fmt, bool) and fmt in READABLE_FORMATS, "format",
              f"{fmt!r:.40} is not a format this fedverify reads ({', '.join(map(str, READABLE_FORMATS))})")
        _known(doc, DOCUMENT_FIELDS, "file")
        _free_form(doc.get("run_config", {}), "run_config")
        if "point" in doc:
            _check_point(doc["point"], seed, key, grid_key)
        _check_result(doc.get("result"), check_id)
        if fmt >= 2:
            name = doc.get("arrays")
            _need(name is None or (isinstance(name, str) and ARRAYS_PATTERN.fullmatch(name) is not None
                                   and name.startswith(Path(path).name[: -len(".json")] + ".a")), "arrays",
                  f"expected null or this file's arrays file name, got {str(name)[:60]!r}")
        else:
            _need("arrays" not in doc, "arrays", "format 1 has no arrays field")
    except _Bad as exc:
        raise UnreadableResult(path, str(exc)) from None
    return doc

