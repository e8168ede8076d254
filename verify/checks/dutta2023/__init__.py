"""dutta2023: the checks of this paper, a module per topic (docs/papers/dutta2023.md is the project's reading of the paper)."""
