"""What must never appear in the report's text as a reader sees it (the PDF's extracted text).

Each rule is a name and a regular expression; :func:`problems` returns every match with a little context. The
rules are the defects a reader met in the PDF: typst's error messages printed into the page, Python's ``**``
for powers, ``<=>`` typeset as "≤>", internal references (an issue number in parentheses, a "spec" label), raw dictionary keys of FIT
tables ("round1 identity · rtol 0"), array summaries ("16×4 array, 0.1…0.9"), words cut off with "…", and
numbers beyond any physical scale (an exponent of 100 or more, "2.48e+307"), which are overflow, not data.
"""
from __future__ import annotations

import re

RULES: dict[str, re.Pattern] = {
    "typst error": re.compile(r"TypstError|unknown variable|unclosed delimiter|expected expression"),
    "Python power **": re.compile(r"[\w)\]]\s*\*\*\s*[\w(\-]"),
    "<=> misrendered": re.compile(r"≤>|<=>"),
    "issue reference": re.compile(r"\(issue\b", re.IGNORECASE),
    "spec reference": re.compile(r"\bspec\s+(?:R?\d|§|C\d|section)", re.IGNORECASE),
    "raw FIT key": re.compile(r"·\s*rtol\s+\d|\bround\d+\s+identity\b"),
    "array summary": re.compile(r"\d+\s*×\s*\d+\s+array\b"),
    "cut-off text": re.compile(r"[A-Za-z0-9]{2}…(?!\s*[,)]|\w)|\w…\w"),
    # a whole number, not the digits inside a word (a commit hash such as 8db09ce2e852 holds "2e852")
    "overflowing number": re.compile(r"(?<![\w.])\d+(?:\.\d+)?e\+?[1-9]\d{2,}\b", re.IGNORECASE),
}


def problems(text: str, context: int = 40) -> list[tuple[str, str]]:
    """``(rule, excerpt)`` for every place of ``text`` a rule matches (whitespace folded to single spaces)."""
    flat = " ".join(text.split())
    out = []
    for name, pattern in RULES.items():
        for m in pattern.finditer(flat):
            out.append((name, flat[max(0, m.start() - context):m.end() + context]))
    return out


def summary(found: list[tuple[str, str]], per_rule: int = 3) -> str:
    """A short account of :func:`problems`' output: the count per rule and its first excerpts."""
    lines = []
    for name in RULES:
        hits = [ex for rule, ex in found if rule == name]
        if hits:
            lines.append(f"{name}: {len(hits)}")
            lines += [f"    ...{ex}..." for ex in hits[:per_rule]]
    return "\n".join(lines)
