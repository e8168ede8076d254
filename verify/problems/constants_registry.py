"""The problems ``fedverify constants PROBLEM`` knows: a registry that the modules of ``verify.problems``
fill with :func:`constants_problem` (it lives here, below the command line, so that a problem module
registers itself without importing the command line; :mod:`verify.cli_constants` reads it).
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable

from analytic.constants import Constant


@dataclass(frozen=True)
class ConstantsProblem:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    compute: Callable[[argparse.Namespace], list[Constant]]
    #: ``size(args) -> (flag, count)``: the float64 entries of the problem's arrays and the flag
    #: that grows it, checked against the machine's memory before anything is built (None: not declared)
    size: Callable[[argparse.Namespace], tuple[str, int]] | None = None


PROBLEMS: dict[str, ConstantsProblem] = {}


def constants_problem(name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None],
                      size: Callable[[argparse.Namespace], tuple[str, int]] | None = None):
    """Register ``compute(args) -> list[Constant]`` as ``fedverify constants NAME`` (``size``: see
    :class:`ConstantsProblem`)."""

    def deco(compute):
        old = PROBLEMS.get(name)
        if old is not None and old.compute is not compute:
            raise ValueError(f"constants problem {name!r} registered twice")
        PROBLEMS[name] = ConstantsProblem(name, help, add_arguments, compute, size)
        return compute

    return deco
