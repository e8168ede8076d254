"""werner2023: the checks of this paper, a module per topic (docs/papers/werner2023.md is the project's reading of the paper)."""

from analytic.papers.werner2023 import PAPER
from analytic.papers.werner2023_statements import STATEMENTS
from verify.registry import register_paper

register_paper(PAPER, STATEMENTS)  # the paper's numbered statements, which its checks name (@check(statements=...))
