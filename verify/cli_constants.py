"""``fedverify constants PROBLEM ...``: the constants the papers' assumptions name, for a built-in
problem or a user's own data, each with how it was obtained and what the number is.

    fedverify constants PROBLEM [problem options] [--json FILE]

Problems register themselves with :func:`verify.problems.constants_registry.constants_problem` in any module of
``verify.problems``
(this module imports them all), so a paper adds its problems without editing this file. A provider
is a function ``provider(args) -> list[Constant]`` plus a function adding its options to the
problem's parser; bad input raises :class:`analytic.errors.InputError` (one line, exit 2).
"""
from __future__ import annotations

import argparse

from analytic.constants import Constant
from analytic.errors import InputError
from verify.cli_args import add_json_option
from verify.named import import_submodules
from verify.problems.constants_registry import PROBLEMS, ConstantsProblem, constants_problem  # noqa: F401 (re-exported)


def load_problems() -> dict[str, ConstantsProblem]:
    import_submodules("verify.problems")
    return dict(sorted(PROBLEMS.items()))


#: the subcommand's one-line help, read by ``fedverify --help`` without building the parser (which loads every problem)
HELP = "the constants of a problem's assumptions (L, mu, A^2, ...), with how each was obtained"


def declared_problems() -> dict[str, tuple[str, str]] | None:
    """Problem name -> (its help line, the module that registers it), read from the source of ``verify.problems``
    (``@constants_problem("name", "help", ...)`` with literal name and help) without importing it; None when the
    source cannot say (a name or help that is not a literal), and then every problem module is imported."""
    import ast
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("verify.problems")
    if spec is None or not spec.submodule_search_locations:
        return None
    out: dict[str, tuple[str, str]] = {}
    for loc in spec.submodule_search_locations:
        for path in sorted(Path(loc).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "constants_problem(" not in text:
                continue
            module = ".".join(["verify.problems", *path.relative_to(loc).with_suffix("").parts])
            for node in ast.walk(ast.parse(text, filename=str(path))):
                fn = node.func if isinstance(node, ast.Call) else None
                if not (isinstance(fn, ast.Name) and fn.id == "constants_problem"):
                    continue
                try:
                    name, help_line = (ast.literal_eval(a) for a in node.args[:2])
                except (ValueError, TypeError, SyntaxError):
                    return None
                out[name] = (help_line, module)
    return out or None


def _lazy_parser_class():
    """A problem's parser that imports the problem's module and adds its options when it first parses (so
    ``fedverify constants --help`` lists the problems without importing torch or any of them)."""
    import importlib

    from verify.cli_args import OneLineParser

    class LazyProblemParser(OneLineParser):
        module: str = ""

        def parse_known_args(self, args=None, namespace=None):
            if self.module:
                importlib.import_module(self.module)
                prob = PROBLEMS[self.prog.rsplit(" ", 1)[-1]]
                self.module = ""
                prob.add_arguments(self)
                add_json_option(self, "the constants")
            return super().parse_known_args(args, namespace)

    return LazyProblemParser


def add_parser(subparsers):
    from verify.cli_args import OneLineParser

    p = subparsers.add_parser("constants", help=HELP)
    declared = declared_problems()
    if declared is None:
        sub = p.add_subparsers(dest="problem", required=True, metavar="PROBLEM", parser_class=OneLineParser)
        for prob in load_problems().values():
            q = sub.add_parser(prob.name, help=prob.help, description=prob.help)
            prob.add_arguments(q)
            add_json_option(q, "the constants")
        return p
    sub = p.add_subparsers(dest="problem", required=True, metavar="PROBLEM", parser_class=_lazy_parser_class())
    for name, (help_line, module) in sorted(declared.items()):
        q = sub.add_parser(name, help=help_line, description=help_line)
        q.module = module
    for prob in PROBLEMS.values():  # registered already and not in verify/problems' source (a plugin, a test)
        if prob.name not in declared:
            q = sub.add_parser(prob.name, help=prob.help, description=prob.help)
            prob.add_arguments(q)
            add_json_option(q, "the constants")
    return p


def format_constants(problem: str, constants: list[Constant]) -> str:
    width = max((len(c.name) for c in constants), default=4)
    lines = [f"constants of {problem}:"]
    for c in constants:
        if isinstance(c.value, bool):  # a property that holds or not (2f-redundancy)
            value = str(c.value).lower()
        else:
            value = f"{c.value:.6g}" if c.finite else ("infinite" if c.value > 0 else str(c.value))
        lines.append(f"  {c.name:<{width}} = {value:<12} ({c.label}) {c.how}")
    return "\n".join(lines)


def run(args) -> int:
    from verify.cli_args import output_file, write_json

    if args.json not in (None, "-"):
        output_file(args.json, "--json", create_parents=False)
    prob = PROBLEMS[args.problem]
    if prob.size is not None:
        from analytic.validate import memory

        flag, count = prob.size(args)
        memory(flag, count, 8, f"the {prob.name} instance's arrays ({count:.3g} float64 entries)")
    try:
        constants = prob.compute(args)
    except (MemoryError, RuntimeError) as exc:  # an allocation the machine refused: the user's sizes
        from verify.cli import _allocation, _out_of_memory

        if not _out_of_memory(exc):
            raise
        given = [a for a in vars(args) if isinstance(getattr(args, a), int) and not isinstance(getattr(args, a), bool)
                 and a not in ("seed", "f")]
        raise InputError(", ".join(f"--{a.replace('_', '-')}" for a in given) or "PROBLEM",
                         f"too large for this machine ({_allocation(exc)}); choose smaller sizes") from None
    if args.json != "-":
        print(format_constants(prob.name, constants))
    write_json(args.json, {"problem": prob.name, "constants": {c.name: c.as_dict() for c in constants}})
    return 0

