"""What every ``fedverify`` subcommand shares: one-line argument errors, the value parsers, and the
mapping from a library parameter's name to the flag a user typed.

The library raises :class:`analytic.errors.InputError` naming its *Python* parameter
(``sigma_cor2``, ``T``); :func:`fail` prints it under the subcommand's flag (``--sigma-cor``,
``--steps``) as one line on stderr and returns exit code 2.
"""
from __future__ import annotations

import argparse
import math
import sys
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
