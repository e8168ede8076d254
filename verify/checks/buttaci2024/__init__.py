"""buttaci2024: the checks of this paper, a module per topic (docs/papers/buttaci2024.md is the project's reading of the paper)."""
