"""dutta2023: the checks of this paper, a module per topic (docs/papers/dutta2023.md is the project's reading of the paper)."""

from analytic.papers.dutta2023 import PAPER
from analytic.papers.dutta2023_statements import STATEMENTS
from verify.registry import register_paper

register_paper(PAPER, STATEMENTS)  # the paper's numbered statements, which its checks name (@check(statements=...))
