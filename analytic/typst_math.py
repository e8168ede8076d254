"""A sympy expression written in typst's math syntax, so that a Bound's formula can be written once.

A :class:`analytic.bounds.Bound` that gives no ``typst`` string gets ``typst_math(expr)``: the report then typesets
the expression the verdict was computed from, not a second transcription of it. A hand-written ``typst`` stays
where it says more than the expression (the whole inequality, an expectation, a norm the expression leaves out).

    >>> import sympy as sp
    >>> sigma, n, Delta = sp.symbols("sigma n Delta", positive=True)
    >>> typst_math(sigma**2 / n + sigma**3 / Delta)
    'sigma^(3)/Delta + sigma^(2)/n'

Symbol names follow the toolkit's convention ``base_index``: a Greek name or a single letter stays a typst
variable (``sigma``, ``x``), any other base is set upright as text (``"tol"``), and the index becomes a subscript
(``sigma_DP2`` -> ``sigma_("DP2")``, ``n_i`` -> ``n_(i)``).
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.str import StrPrinter

#: names typst math knows as symbols (its own Greek letters and a few constants)
GREEK = {"alpha", "beta", "gamma", "Gamma", "delta", "Delta", "epsilon", "zeta", "eta", "theta", "Theta", "iota",
         "kappa", "lambda", "Lambda", "mu", "nu", "xi", "Xi", "pi", "Pi", "rho", "sigma", "Sigma", "tau", "upsilon",
         "phi", "Phi", "chi", "psi", "Psi", "omega", "Omega"}
_FUNCTIONS = {"log", "exp", "sin", "cos", "tan", "tanh", "sinh", "cosh", "max", "min"}


#: the toolkit's short names for symbols typst writes otherwise
_ALIASES = {"eps": "epsilon", "ell": "ell"}


def _base(name: str) -> str:
    if name in _ALIASES:
        return _ALIASES[name]
    if name in GREEK or (len(name) == 1 and name.isalpha()):
        return name
    return f'"{name}"'


def _index(name: str) -> str:
    if len(name) == 1 or name.isdigit():
        return name
    return '"' + name.replace("_", " ") + '"'


class _TypstPrinter(StrPrinter):
    def _print_Symbol(self, expr) -> str:
        base, _, index = expr.name.partition("_")
        return _base(base) + (f"_({_index(index)})" if index else "")

    def _print_Pow(self, expr, rational=False) -> str:
        b, e = expr.as_base_exp()
        if e == sp.Rational(1, 2):
            return f"sqrt({self._print(b)})"
        if e == -sp.Rational(1, 2):
            return f"1/sqrt({self._print(b)})"
        if e.is_number and e.is_negative:
            inverse = b ** -e
            simple = inverse.is_Atom or inverse.is_Function or inverse.is_Pow
            return f"1/{self._print(inverse)}" if simple else f"1/({self._print(inverse)})"
        base = self._print(b)
        if not (b.is_Symbol or (b.is_Integer and b >= 0) or b.is_Function):
            base = f"({base})"
        return f"{base}^({self._print(e)})"

    def _print_Mul(self, expr) -> str:
        return super()._print_Mul(expr).replace("*", " ")

    def _print_Rational(self, expr) -> str:
        return f"{expr.p}/{expr.q}" if expr.q != 1 else str(expr.p)

    def _print_Float(self, expr) -> str:
        mantissa, _, exponent = f"{float(expr):g}".partition("e")
        return f"{mantissa} dot 10^({int(exponent)})" if exponent else mantissa

    def _print_Infinity(self, expr) -> str:
        return "oo"

    def _print_Exp1(self, expr) -> str:
        return "e"

    def _print_Pi(self, expr) -> str:
        return "pi"

    def _print_Abs(self, expr) -> str:
        return f"abs({self._print(expr.args[0])})"

    def _print_Function(self, expr) -> str:
        name = expr.func.__name__
        args = ", ".join(self._print(a) for a in expr.args)
        return f"{name}({args})" if name in _FUNCTIONS or name == "sqrt" else f'"{name}"({args})'

    def _print_Max(self, expr) -> str:
        return f"max({', '.join(self._print(a) for a in expr.args)})"

    def _print_Min(self, expr) -> str:
        return f"min({', '.join(self._print(a) for a in expr.args)})"

    def _print_exp(self, expr) -> str:
        return f"e^({self._print(expr.args[0])})"

    def _print_log(self, expr) -> str:
        return f"log({self._print(expr.args[0])})"


def typst_math(expr) -> str:
    """``expr`` (a sympy expression, or anything sympy can take) in typst math syntax."""
    return _TypstPrinter({"order": "none"}).doprint(sp.sympify(expr))
