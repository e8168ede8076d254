"""The code cites what a reader of this repository holds: the paper's own numbering and docs/papers/<key>.md.

Our working notes outside the repository (cited by their own section and claim labels) and the project's tracker
numbers mean nothing to a reader of the code; every source file of the four packages is scanned. The patterns and the
planted examples below are assembled from pieces, so that this file does not itself cite what it forbids.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("verify", "analytic", "counterexamples", "reports")
_TRACKER, _NOTES = "ssue", "pec"  # "i" + _TRACKER, "s" + _NOTES
FORBIDDEN = re.compile(rf"\b[Ii]{_TRACKER}s? \d+|\bS{_NOTES}\b|shared/s{_NOTES}"
                       rf"|\b[Ss]{_NOTES}[- ](?:sections? |§ ?|C\d|R\d|E\d|\d)")
#: identifiers that merely contain the word: CheckSpec, figspec, find_spec, a variable ``spec``
ALLOWED = re.compile(r"CheckSpec|figspec|find_spec|spec_from|\bspec\s*[=:.,)\]]|\bspec in\b")


def offending_lines(text: str) -> list[tuple[int, str]]:
    return [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)
            if FORBIDDEN.search(ALLOWED.sub("", line))]


def test_no_source_cites_notes_outside_the_repository():
    bad = [f"{path.relative_to(ROOT)}:{i}: {line[:120]}"
           for pkg in PACKAGES for path in sorted((ROOT / pkg).rglob("*")) if path.suffix in (".py", ".c", ".cpp")
           for i, line in offending_lines(path.read_text())]
    assert not bad, "cite the paper or docs/papers/<key>.md instead:\n" + "\n".join(bad)


@pytest.mark.parametrize("line", [f"Control (i{_TRACKER} 17): the mean",
                                  f"S{_NOTES}: ../shared/s{_NOTES}/su2022.md sections 3",
                                  f'"""S{_NOTES} C16: problem (11)', f"A1-A6 of s{_NOTES} 2.5",
                                  f"(s{_NOTES} section 4.1)"])
def test_the_scan_sees_a_reference_to_our_notes(line):
    assert offending_lines(line)


@pytest.mark.parametrize("line", ["spec = registry.get(cid)", "from verify import figspec", "def f(spec: CheckSpec):",
                                  "docs/papers/su2022.md §3, Claim 16", "the spectrum of P_i", "for spec in specs:"])
def test_the_scan_passes_code_and_our_own_citations(line):
    assert not offending_lines(line)


def test_every_paper_has_its_reading_in_docs_papers():
    """The code cites docs/papers/<key>.md: each paper with checks has that page, and it numbers its claims."""
    papers = sorted(p.name for p in (ROOT / "verify" / "checks").iterdir() if p.is_dir() and p.name[0] != "_")
    assert papers, "no paper packages found"
    for key in papers:
        page = ROOT / "docs" / "papers" / f"{key}.md"
        assert page.is_file(), f"{key}: docs/papers/{key}.md is missing"
        assert "Checkable claims" in page.read_text() or "checkable claims" in page.read_text(), \
            f"{key}: docs/papers/{key}.md has no numbered list of checkable claims (the check ids' numbers)"
