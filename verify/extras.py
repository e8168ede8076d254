"""The optional parts of fedverify and the one-line error when one is missing.

The core (``pip install fedverify``) runs, shows, lists and searches nothing it cannot: checks, ``constants`` and
``privacy``. Three extras add a command's engine each:

* ``fedverify[report]``: typst, which typesets ``fedverify report``'s PDF;
* ``fedverify[sweep]``: Dask distributed, for ``fedverify sweep`` and ``run --workers N``;
* ``fedverify[search]``: pycma, CMA-ES for ``fedverify search`` (its default method).

``fedverify[all]`` installs the three; ``fedverify[test]`` (what ``make setup`` installs) includes them.
"""
from __future__ import annotations

import importlib
import importlib.util

#: module -> (the extra that installs it, what needs it)
EXTRAS = {"typst": ("report", "the PDF report"), "distributed": ("sweep", "Dask workers (sweep, run --workers)"),
          "cma": ("search", "CMA-ES (search --method cma)")}


class MissingExtra(ImportError):
    """An optional dependency is not installed; ``str()`` is the one line that says which extra installs it."""

    def __init__(self, module: str) -> None:
        extra, what = EXTRAS[module]
        super().__init__(f"{what} needs {module}, which is not installed: pip install 'fedverify[{extra}]'")
        self.module, self.extra = module, extra


def available(module: str) -> bool:
    """Whether ``module`` can be imported (found, not imported)."""
    return importlib.util.find_spec(module) is not None


def require(module: str):
    """Import and return ``module``, or raise :class:`MissingExtra` naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise MissingExtra(module) from None
