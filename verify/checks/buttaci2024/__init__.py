"""buttaci2024: the checks of this paper, a module per topic (docs/papers/buttaci2024.md is the project's reading of the paper)."""

from analytic.papers.buttaci2024 import PAPER
from analytic.papers.buttaci2024_statements import STATEMENTS
from verify.registry import register_paper

register_paper(PAPER, STATEMENTS)  # the paper's numbered statements, which its checks name (@check(statements=...))
