"""werner2023: the checks of this paper, a module per topic (docs/papers/werner2023.md is the project's reading of the paper)."""
