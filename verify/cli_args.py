"""What every ``fedverify`` subcommand shares: one-line argument errors, the value parsers, and the
mapping from a library parameter's name to the flag a user typed, and the one rule for path arguments
(:func:`writable_dir`, :func:`readable_dir`, :func:`output_file`), which every subcommand applies to its
paths before it starts any work.

The library raises :class:`analytic.errors.InputError` naming its *Python* parameter
(``sigma_cor2``, ``T``); :func:`fail` prints it under the subcommand's flag (``--sigma-cor``,
``--steps``) as one line on stderr and returns exit code 2.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Mapping

from analytic.errors import InputError

EXIT_BAD_INPUT = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports bad input as a single line and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def flag_for(param: str, flags: Mapping[str, str] | None = None) -> str:
    """The command-line spelling of a library parameter: ``flags[param]`` if the subcommand maps it,
    a name that already is a flag or a positional (``--seed``, ``ID``) as it is, else
    ``--`` + the name with dashes (``sigma_cor`` -> ``--sigma-cor``)."""
    if flags and param in flags:
        return flags[param]
    if param.startswith("-") or param.isupper() or not param.replace("_", "").isalnum():
        return param
    return "--" + param.replace("_", "-")


def fail(prog: str, exc: InputError, flags: Mapping[str, str] | None = None) -> int:
    """Print ``exc`` as one line naming the flag; return the exit code for bad input."""
    print(f"{prog}: error: {flag_for(exc.param, flags)}: {exc.message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def parse_int(text, param: str, minimum: int | None = None) -> int:
    """An integer (``'10'``, ``'1e3'`` when whole) at least ``minimum``; InputError naming ``param``."""
    try:
        if isinstance(text, (bool, float)):
            raise TypeError
        value = int(text)
    except (TypeError, ValueError):
        try:  # '1e3' is an integer too; '1.5' and 'inf' are not
            as_float = float(text)
        except (TypeError, ValueError):
            as_float = math.nan
        if not (math.isfinite(as_float) and as_float.is_integer()) or isinstance(text, bool):
            raise InputError(param, f"expected an integer, got {text!r}") from None
        value = int(as_float)
    if minimum is not None and value < minimum:
        raise InputError(param, f"must be an integer >= {minimum}, got {value}")
    return value


def parse_number(text, param: str, *, allow_inf: bool = False) -> float:
    """A finite float (or +-inf when ``allow_inf``); InputError naming ``param``."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(param, f"expected a number, got {text!r}") from None
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise InputError(param, f"expected a finite number, got {text!r}")
    return value


def int_type(param: str, minimum: int | None = None):
    """``parse_int`` as an argparse ``type``: argparse then reports the error in one line."""

    def parse(text: str) -> int:
        try:
            return parse_int(text, param, minimum)
        except InputError as exc:
            raise argparse.ArgumentTypeError(f"{exc.param} {exc.message}") from None

    return parse


# -- paths: one rule for every subcommand, checked before any work starts ----------------------------------
def _nearest_existing(path: Path) -> Path:
    """``path`` itself or its nearest ancestor that exists (a dangling link counts as existing)."""
    p = path
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def _creatable_dir(path: Path, flag: str, shown: str) -> None:
    """``path`` does not exist: it can be created when its nearest existing ancestor is a writable
    directory (a file, a broken link or a read-only directory on the way makes that impossible)."""
    base = _nearest_existing(path)
    if not base.exists():  # a link to nothing
        raise InputError(flag, f"cannot create {shown}: {base} is a broken link")
    if not base.is_dir():
        raise InputError(flag, f"cannot create {shown}: {base} is a file, not a directory")
    if not os.access(base, os.W_OK | os.X_OK):
        raise InputError(flag, f"cannot create {shown}: {base} is not writable")


def _directory_path(value, flag: str, access: int, adjective: str) -> tuple[str, Path]:
    """The flag's text and path; an existing path must be a directory with ``access`` (an absent
    one is left to the caller)."""
    text = "" if value is None else str(value)
    if not text.strip():
        raise InputError(flag, "expected a directory, got an empty path")
    path = Path(text).expanduser()
    if path.exists():
        if not path.is_dir():
            raise InputError(flag, f"{text} is a file, not a directory")
        if not os.access(path, access):
            raise InputError(flag, f"the directory {text} is not {adjective}")
    return text, path


def writable_dir(value, flag: str) -> Path:
    """A directory to write into (``--results``, ``demo --out``): an existing writable directory, or a
    path that can be created; never a file or a path under a file. InputError naming ``flag``."""
    text, path = _directory_path(value, flag, os.W_OK | os.X_OK, "writable")
    if not path.exists():
        _creatable_dir(path, flag, text)
    return path


def readable_dir(value, flag: str) -> Path:
    """A directory to read stored results from (``show``/``report --results``): absent is allowed
    (the command then says there is nothing stored), a file or a path under a file is not."""
    text, path = _directory_path(value, flag, os.R_OK | os.X_OK, "readable")
    if path.exists():
        return path
    base = _nearest_existing(path)
    if base.exists() and not base.is_dir():
        raise InputError(flag, f"{text} is under {base}, which is a file, not a directory")
    return path


def output_file(value, flag: str, *, create_parents: bool = True) -> Path:
    """A file to write (``--json``, ``report --out``/``--typst``): not a directory, and its parent an
    existing writable directory or (``create_parents``) one that can be created."""
    text = "" if value is None else str(value)
    if not text.strip():
        raise InputError(flag, "expected a file name, got an empty path")
    path = Path(text).expanduser()
    if path.is_dir() or text.endswith(("/", os.sep)):
        raise InputError(flag, f"{text} is a directory; name a file")
    if os.path.lexists(path):
        if not path.exists():
            raise InputError(flag, f"{text} is a broken link")
        if not os.access(path, os.W_OK):
            raise InputError(flag, f"{text} is not writable")
    parent = path.parent
    if parent.exists():
        if not parent.is_dir():
            raise InputError(flag, f"cannot write {text}: {parent} is a file, not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(flag, f"cannot write {text}: the directory {parent} is not writable")
    elif create_parents:
        _creatable_dir(parent, flag, f"the directory of {text}")
    else:
        base = _nearest_existing(parent)
        why = "is a file, not a directory" if base.exists() and not base.is_dir() else "does not exist"
        raise InputError(flag, f"cannot write {text}: {parent if why == 'does not exist' else base} {why}")
    return path


def number_type(param: str, minimum: float | None = None, *, strict: bool = False):
    """A finite float (``> minimum`` when ``strict``, else ``>=``) as an argparse ``type``: NaN, inf and
    words are refused in one line naming ``param`` (argparse's own ``type=float`` takes 'nan')."""

    def parse(text: str) -> float:
        try:
            value = parse_number(text, param)
            if minimum is not None and (value <= minimum if strict else value < minimum):
                raise InputError(param, f"must be {'>' if strict else '>='} {minimum:g}, got {text}")
        except InputError as exc:
            raise argparse.ArgumentTypeError(f"{exc.param} {exc.message}") from None
        return value

    return parse


def add_json_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--json [FILE]``, the same in every subcommand: FILE, or ``-`` (also a bare ``--json``) for
    standard output, where the JSON is then the only thing printed."""
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help=f"write {what} as JSON to FILE ('-' or no FILE: standard output, nothing else printed)")


def write_json(dest: str | None, doc) -> None:
    """Write ``doc`` as JSON where ``--json`` says (nothing when it was not given)."""
    if not dest:
        return
    text = json.dumps(doc, indent=1, allow_nan=True)
    if dest == "-":
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return
    try:
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        Path(dest).write_text(text)
    except OSError as exc:  # checked up front by output_file; this is the path changing under the run
        raise InputError("--json", f"cannot write {dest} ({exc.strerror or exc})") from None


# -- keyword values from the command line (--grid NAME=V1,V2): checked against each check's signature --------------
def _scan(text: str):
    """Each character of ``text`` with the bracket depth and the open quote (None outside quotes) in force at it:
    the one reading of brackets and quotes that ``--grid`` values use (split at top-level commas, balance)."""
    depth, quote = 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        yield ch, depth, quote


def _balanced(text: str) -> bool:
    """Whether brackets and quotes in ``text`` pair up (a bare word never holds an unclosed '(' or quote)."""
    depth, quote = 0, None
    for _, depth, quote in _scan(text):
        if depth < 0:
            return False
    return depth == 0 and quote is None


def split_values(text: str) -> list[str]:
    """Split at commas outside brackets and quotes (``ns=(4,16),(8,32)`` is two tuples)."""
    out, cur = [], ""
    for ch, depth, quote in _scan(text):
        if ch == "," and depth == 0 and quote is None:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [v.strip() for v in out]


def _like(value, default, param: str):
    """``value`` checked against the kind of ``default``: a count (int) stays a whole number of the default's
    sign, a number stays finite (non-negative when the default is), a flag a bool, a word a word, a tuple a
    tuple of values like its first entry; a Bound (a theorem's right-hand side) cannot come from a literal."""
    from analytic import validate
    from analytic.bounds import Bound

    if isinstance(value, str) and not _balanced(value):
        raise InputError(param, f"{value!r} is not a Python literal (brackets or quotes do not pair up)")
    if isinstance(default, Bound):
        raise InputError(param, f"expects a Bound (a theorem's right-hand side), which a literal {value!r} cannot "
                                "give; pass it in Python: check(ctx, name=Bound(...))")
    if isinstance(default, (bool, type(None))):
        return validate.boolean(value, param) if isinstance(default, bool) else value
    if isinstance(default, int):
        return validate.integer(value, param, minimum=0 if default >= 0 else None)
    if isinstance(default, float):
        return validate.real(value, param, minimum=0.0 if default >= 0 else None)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise InputError(param, f"expected a word (like {default!r}), got {value!r}")
        return value
    if isinstance(default, (tuple, list)):
        if not isinstance(value, (tuple, list)):
            raise InputError(param, f"expected a tuple like {default!r}, got {value!r}")
        if default and all(type(d) is type(default[0]) for d in default):
            for item in value:
                _like(item, default[0], param)
        return value
    return value


#: A keyword whose default is None is checked by its annotation (``m: int | None = None``: a count)
_ANNOTATED = {"int": 1, "float": 1.0, "bool": False, "str": ""}


def check_grid_values(specs, grid: Mapping[str, list], param: str = "--grid") -> None:
    """Every grid value must fit the keyword it sets in every selected check (:func:`_like` against the
    keyword's default), so ``m=-5``, ``m=abc``, ``m=1e999``, an unbalanced ``m=(4,16`` or a number for a
    Bound is one line, exit 2, before any point runs."""
    import inspect

    for spec in specs:
        params = inspect.signature(spec.func).parameters
        for name, values in grid.items():
            p = params.get(name)
            if p is None or p.default is inspect.Parameter.empty:
                continue
            default = p.default if p.default is not None else _ANNOTATED.get(
                str(p.annotation).replace("Optional[", "").split("|")[0].strip(" ]'\""))
            for value in values:
                if value is None and p.default is None:
                    continue
                try:
                    _like(value, default, name)
                except InputError as exc:
                    raise InputError(param, f"{name}={value!r} for {spec.id}: {exc.message}") from None
