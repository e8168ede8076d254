"""ASCII math in prose, as a reader of the paper expects to see it.

A check's title, claim, explanation and finding are sentences that carry small formulas written in ASCII
("the residual is <~ (delta^2+sigma^2) xi_1 / p_j"), because they are also printed on a terminal and stored in
JSON. The report shows them with the symbols the paper uses: Greek names become letters, simple powers and
indices become super- and subscripts, relations become their signs:

    >>> prose_math("the residual is <~ (delta^2+sigma^2) xi_1 / p_j")
    'the residual is ≲ (δ²+σ²) ξ₁ / pⱼ'

Only what is unambiguous is rewritten: a Greek name standing alone as a word (``sigma``, ``sigma_hat``, ``mu_PL``;
not ``sigmoid`` or ``Sigma_e``'s ``e``), a power that is an integer or ``T`` (``^2``, ``^-1``, ``^T``; ``^(-1/4)``
stays), an index that is digits or one letter with a Unicode subscript (``xi_1``, ``p_j``; ``n_boot`` stays).
Formulas proper are typeset from LaTeX (``Claim.latex``); this is for the words around them.
"""
from __future__ import annotations

import re

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "Gamma": "Γ", "delta": "δ", "Delta": "Δ", "epsilon": "ε", "eps": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "Theta": "Θ", "kappa": "κ", "lambda": "λ", "Lambda": "Λ", "mu": "μ",
    "nu": "ν", "xi": "ξ", "rho": "ρ", "sigma": "σ", "Sigma": "Σ", "tau": "τ", "phi": "φ", "Phi": "Φ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "Omega": "Ω",
}
_SUPER = str.maketrans("0123456789-T", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵀ")
_SUB_LETTERS = "aehijklmnoprstuvx"
_SUB = str.maketrans("0123456789" + _SUB_LETTERS, "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_RELATIONS = [("<=>", "⇔"), ("<==>", "⇔"), ("==>", "⇒"), ("<=", "≤"), (">=", "≥"), ("<~", "≲"), (">~", "≳"), ("!=", "≠"), ("+-", "±"), (" -> ", " → ")]

# a Greek name as a word of its own: not inside a longer word (letters or digits on either side), though an
# index (_1, _hat) may follow it
_GREEK_WORD = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?![A-Za-z0-9])")
_PY_POWER = re.compile(r"(?<=[A-Za-z0-9α-ωΑ-Ω)\]])\*\*(?=[A-Za-z0-9(\-])")
_HAT = re.compile(r"(?<=[A-Za-zα-ωΑ-Ω])_hat(?![A-Za-z0-9])")
_POWER = re.compile(r"(?<=[A-Za-z0-9α-ωΑ-Ω)|\]\u0302])\^(-?\d+|T)(?![A-Za-z0-9./(])")
_INDEX = re.compile(r"(?<=[A-Za-zα-ωΑ-Ω])_(\d+|[" + _SUB_LETTERS + r"])(?![A-Za-z0-9_])")
_SQRT = re.compile(r"(?<![A-Za-z])sqrt(?=\()")


def prose_math(text: str) -> str:
    """``text`` with its ASCII math written in symbols (see the module docstring); other text unchanged."""
    if not text:
        return text
    out = _PY_POWER.sub("^", text)  # Python's x**2 (sympy's str) is the same power as x^2
    out = _GREEK_WORD.sub(lambda m: GREEK[m.group(1)], out)
    out = _HAT.sub("\u0302", out)
    out = _POWER.sub(lambda m: m.group(1).translate(_SUPER), out)
    out = _INDEX.sub(lambda m: m.group(1).translate(_SUB), out)
    out = _SQRT.sub("√", out)
    for ascii_form, symbol in _RELATIONS:
        out = out.replace(ascii_form, symbol)
    return out
