"""allouah2025: the checks of this paper, a module per topic (docs/papers/allouah2025.md is the project's reading of the paper)."""
