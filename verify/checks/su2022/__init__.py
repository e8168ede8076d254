"""su2022: the checks of this paper, a module per topic (docs/papers/su2022.md is the project's reading of the paper)."""
