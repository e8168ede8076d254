"""Imports run one way, from the application down to the theory (DESIGN.md, "Layout").

Every import statement in the packages' sources, lazy ones inside functions included, must name a module of
the same layer or a lower one. The layers, lowest first:

0. ``analytic``: theory only.
1. ``verify``'s core: the engine, fit (verdict rules), Result, store, argument types, data sets.
2. ``verify.problems``: generators with planted constants.
3. ``verify.algorithms``, ``verify.aggregators``, ``verify.attacks``: the methods the papers run and attack.
4. ``verify.registry``, ``verify.search``, ``verify.testing``: the machinery a check is written with.
5. ``verify.checks``: one package per paper.
6. ``counterexamples``: the papers' toy failures (they may reuse a paper's check-side code).
7. the application: the command line, sweeps, the API, ``reports``.

A module whose name has no rule below is a test failure too, so a new module is placed deliberately.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("analytic", "verify", "counterexamples", "reports")

#: module-name prefix -> layer; the longest matching prefix decides
LAYERS = {
    "analytic": 0,
    "verify": 1, "verify.engine": 1, "verify.choices": 1, "verify.provenance": 1, "verify.result": 1,
    "verify.fit": 1, "verify.strength": 1, "verify.named": 1, "verify.correlated_noise": 1, "verify.figspec": 1,
    "verify.store": 1, "verify.store_files": 1, "verify.result_schema": 1, "verify.catalog": 1,
    "verify.cli_args": 1, "verify.data": 1, "verify.codehash": 1, "verify.threads": 1, "verify.costs": 1,
    "verify.extras": 1, "verify.native": 1, "verify.normal_draws": 1, "verify.evidence": 1, "verify.signed_rank": 1, "verify.workspace": 1, "verify.statement_cards": 1,
    "verify.problems": 2,
    "verify.algorithms": 3, "verify.aggregators": 3, "verify.attacks": 3,
    "verify.registry": 4, "verify.search": 4, "verify.testing": 4,
    "verify.checks": 5,
    "counterexamples": 6,
    "verify.cli": 7, "verify.cli_constants": 7, "verify.cli_privacy": 7, "verify.cli_search": 7,
    "verify.cli_sweep": 7, "verify.cli_long": 7, "verify.cli_stored": 7, "verify.cli_results": 7,
    "verify.cli_statements": 7,
    "counterexamples.cli_demo": 7, "verify.sweep": 7, "verify.local_workers": 7, "verify.typical_times": 7,
    "verify.api": 7, "verify.__main__": 7, "reports": 7,
}
#: modules of the core that only name what sits above them in docstrings, or not at all
EXPLICIT_CORE = {"verify"}


def layer(module: str) -> int | None:
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in LAYERS and (k > 1 or prefix in EXPLICIT_CORE or prefix in ("analytic", "counterexamples",
                                                                                   "reports")):
            return LAYERS[prefix]
    return None


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(source: str, module: str, is_pkg: bool = False):
    """(line, imported module) for every import in ``source`` (module ``module``), relative imports resolved."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                base = parts[:len(parts) - node.level + (1 if is_pkg else 0)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            yield node.lineno, name
            for a in node.names:  # `from verify.checks import werner2023` names a module
                if layer(f"{name}.{a.name}") is not None and f"{name}.{a.name}".count(".") > name.count("."):
                    yield node.lineno, f"{name}.{a.name}"


def sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def test_every_module_has_a_layer():
    missing = [module_name(p) for p in sources() if layer(module_name(p)) is None]
    assert not missing, f"modules with no layer in {__name__}.LAYERS: {missing}"


def upward_imports(source: str, module: str, is_pkg: bool = False) -> list[str]:
    own = layer(module)
    return [f"{module}:{line} (layer {own}) imports {name} (layer {layer(name)})"
            for line, name in imports(source, module, is_pkg) if layer(name) is not None and layer(name) > own]


def test_imports_never_run_upward():
    bad = [v for path in sources() for v in upward_imports(path.read_text(), module_name(path), path.name == "__init__.py")]
    assert not bad, "imports from a lower layer to a higher one:\n" + "\n".join(bad)


@pytest.mark.parametrize("module, source", [
    ("verify.problems.toys", "from verify.algorithms.myopic import myopic_clustering"),
    ("verify.checks.werner2023.fc_claims", "def f():\n    from counterexamples.example1_myopic import run_fc"),
    ("verify.problems.buttaci2024_quadratic", "from verify.cli_constants import constants_problem"),
    ("verify.problems", "from .. import cli"),
    ("verify.checks.werner2023", "from verify.checks import werner2023\nfrom verify import sweep"),
])
def test_the_rule_sees_an_upward_import(module, source):
    assert upward_imports(source, module, is_pkg=module in ("verify.problems", "verify.checks.werner2023"))


def test_the_rule_allows_a_downward_import():
    assert not upward_imports("from verify.problems.toys import Example1\nfrom analytic import bounds",
                              "verify.checks.werner2023.example1")
