"""allouah2025: the checks of this paper, a module per topic (docs/papers/allouah2025.md is the project's reading of the paper)."""

from analytic.papers.allouah2025 import PAPER
from analytic.papers.allouah2025_statements import STATEMENTS
from verify.registry import register_paper

register_paper(PAPER, STATEMENTS)  # the paper's numbered statements, which its checks name (@check(statements=...))
