"""The report's text as a reader sees it: no typst errors, no Python syntax, no internal keys or references, no cut
words, no overflowing numbers (reports/text_lint.py), on a report built from real checks."""
import shutil
import subprocess

import pytest

from reports.prose_math import prose_math
from reports.text_lint import RULES, problems
from verify import cli
from verify.store import ResultStore

PLANTED = "TypstError: unknown variable: act"
#: checks whose papers' texts are clean of internal references (werner2023's and su2022's summaries still cite
#: issue numbers; the papers' modules are cleaned with their checks)
CHECKS = ["allouah2025.c01", "buttaci2024.c01", "dutta2023.c01", "dutta2023.c02"]


@pytest.mark.parametrize("rule,text", [
    ("typst error", "the figure: TypstError: unknown variable: act"),
    ("Python power **", "simplifies to (- Δ**2 + 4*σ**2)"),
    ("<=> misrendered", "1/16 ≤> 11 < 8 sqrt 2"),
    ("issue reference", "the theorems' terms (" + "iss" + "ue 18, x05-x12)"),  # assembled: not a citation
    ("spec reference", "0 under 2f-redundancy, spec R2"),
    ("raw FIT key", "worst ratio 1.111 lower · rtol 0 assumptions"),
    ("array summary", "values 16×4 array, 0.1…0.9 here"),
    ("cut-off text", "section 3 (pairwise- canc… Pairwise"),
    ("overflowing number", "the bound exceeds it by a factor 2.48e+307"),
    ("overflowing number", "a ratio of 1e308 at n = 5"),
])
def test_each_rule_finds_its_defect(rule, text):
    assert rule in RULES and rule in {r for r, _ in problems(text)}


def test_plain_prose_passes():
    text = ("The spectral gap is 0.25 (CI 0.1 … 0.4); Theorem 2 holds for 1, …, N clients, x² ≤ 4 ⇔ |x| ≤ 2, "
            "a factor 2.5e+03, the specification of Remark 1 and 300 values from 0.01 to 0.98; fedverify_commit "
            "8db09ce2e852 and 1f2e345a5e678 (commit hashes, not numbers).")
    assert problems(text) == []


def test_prose_math_writes_python_powers_and_equivalence_as_symbols():
    assert prose_math("(- Delta**2 + Delta*sqrt(Delta**2 + 4*sigma**2))") == "(- Δ² + Δ*√(Δ² + 4*σ²))"
    assert prose_math("1/16 <=> 11 < 8 sqrt 2") == "1/16 ⇔ 11 < 8 sqrt 2"
    assert "**" not in prose_math("(1 - p)**(1/2)")


def _pdf_text(path) -> str:
    exe = shutil.which("pdftotext")
    if exe is not None:
        return subprocess.run([exe, str(path), "-"], capture_output=True, text=True, check=True).stdout
    import pypdf

    return "\n".join(page.extract_text() or "" for page in pypdf.PdfReader(str(path)).pages)


def test_report_of_real_checks_reads_clean_and_a_planted_error_is_caught(tmp_path):
    res = tmp_path / "res"
    assert cli.main(["run", *CHECKS, "--results", str(res), "--quiet"]) == 0
    store = ResultStore(res)
    planted = store.load(CHECKS[0])
    planted.id, planted.explanation = "allouah2025.c02", f"{planted.explanation} {PLANTED}"
    store.save(planted, {})
    out = tmp_path / "report.pdf"
    assert cli.main(["report", "--results", str(res), "--out", str(out)]) == 0
    found = problems(_pdf_text(out))
    assert found, "the planted typst error must be found"
    assert {rule for rule, _ in found} == {"typst error"}, found
    assert all("unknown variable" in excerpt or "TypstError" in excerpt for _, excerpt in found)


@pytest.mark.slow
def test_the_full_quick_suite_report_reads_clean(tmp_path):
    """Every check at quick fidelity, then the whole report: its text has no typst error, no Python power, no raw fit
    key, no overflowing number and no truncation the lint knows (about 5 minutes on 2 cores: ``make test-slow``)."""
    res = tmp_path / "res"
    assert cli.main(["run", "--all", "--results", str(res), "--quiet"]) == 0
    out = tmp_path / "report.pdf"
    assert cli.main(["report", "--results", str(res), "--out", str(out), "--quiet"]) == 0
    found = problems(_pdf_text(out))
    assert not found, found[:10]
