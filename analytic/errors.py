"""The one bad-input type of fedverify.

Every layer (the accountant, the problem builders, the algorithms, the engine) raises
:class:`InputError` with the name of the *Python* parameter it rejects (``sigma_cor``, ``T``,
``replicates``). The command line maps that name to its flag (``--sigma-cor``, ``--steps``) and
prints one line, exit code 2 (``verify.cli_args.flag_for``). A caller of the library sees a
``ValueError`` subclass whose ``param`` attribute says what to fix.
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad input: ``param`` names the offending parameter, ``message`` says what is wrong with it."""

    def __init__(self, param: str, message: str) -> None:
        self.param = str(param)
        self.message = str(message)
        super().__init__(f"{self.param}: {self.message}")

    def with_param(self, name: str) -> "InputError":
        """The same error under another name (the command line's flag for ``param``)."""
        return InputError(name, self.message)


def require(ok: bool, param: str, message: str) -> None:
    """Raise :class:`InputError` for ``param`` unless ``ok``."""
    if not ok:
        raise InputError(param, message)
