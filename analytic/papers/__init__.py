"""Each paper's theorems and lemmas as Bounds (``analytic/papers/<key>.py``), and who wrote it.

A paper module defines ``PAPER = Paper(...)``; the check modules register it
(``verify.registry.register_paper``) so that every Result carries the paper's title and authors
and the report can open the paper's chapter with them.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

#: A paper key: the first author's surname in lowercase ASCII letters, the year, and an optional
#: letter when one author has two papers in a year (``werner2023``, ``smith2024b``).
PAPER_KEY = re.compile(r"^[a-z]+\d{4}[a-z]?$")


@dataclass(frozen=True)
class Paper:
    """Bibliographic data of a paper, and in a few sentences what the toolkit checks of it."""

    key: str
    title: str
    authors: str
    venue: str = ""
    year: int | None = None
    url: str = ""
    summary: str = ""  # the paper's chapter in the report opens with this
    #: statements a reader would look for that no check covers, each as (statement with its paper
    #: reference, why it is not checked); the report lists them under the summary
    not_checked: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not PAPER_KEY.match(self.key):
            raise ValueError(f"key: {self.key!r} is not a paper key like 'werner2023' or 'smith2024b'")
        if not self.title.strip() or not self.authors.strip():
            raise ValueError(f"{self.key}: a Paper needs a title and authors")
        for item in self.not_checked:
            if len(item) != 2 or not all(isinstance(x, str) and x.strip() for x in item):
                raise ValueError(f"{self.key}: not_checked holds (statement, why) pairs of non-empty strings")

    def as_dict(self) -> dict:
        return asdict(self)
