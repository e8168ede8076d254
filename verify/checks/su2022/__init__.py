"""su2022: the checks of this paper, a module per topic (docs/papers/su2022.md is the project's reading of the paper)."""

from analytic.papers.su2022 import PAPER
from analytic.papers.su2022_statements import STATEMENTS
from verify.registry import register_paper

register_paper(PAPER, STATEMENTS)  # the paper's numbered statements, which its checks name (@check(statements=...))
