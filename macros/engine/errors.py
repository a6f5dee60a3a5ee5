"""Load and usage errors that carry a source location.

Owns the one error type every loader, validator and CLI command raises for bad input, and its
formatting as ``file:line:col: message``. Must not print or exit: the CLI and the mkdocs hook
decide how to show the errors.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, at a place a maintainer can jump to."""

    file: str
    line: int | None
    col: int | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.message}"


class RecipeError(Exception):
    """Raised with every problem found, so one run reports them all."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def choices_hint(value: str, choices: Iterable[str], limit: int = 12) -> str:
    """'(did you mean X?; known: a, b, …)' for a value that is not one of ``choices``."""
    choices = [str(c) for c in choices]
    if len(choices) > 40:  # a long list helps nobody: name the nearest ones only
        close = difflib.get_close_matches(str(value), choices, n=3, cutoff=0.75)
        if close:
            return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
        return f"none of the {len(choices)} known names is close"
    close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.6)
    shown = ", ".join(choices[:limit]) + (", …" if len(choices) > limit else "")
    if close:
        return f"did you mean '{close[0]}'? known: {shown}"
    return f"known: {shown}"
