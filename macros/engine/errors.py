"""Load and usage errors that carry a source location.

Owns the one error type every loader, validator and CLI command raises for bad input, and its
formatting as ``file:line:col: message``. Must not print or exit: the CLI and the mkdocs hook
decide how to show the errors.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable


# What a message must not print raw: zero-width and bidi controls, the byte-order mark and other
# format characters, and control characters but for the tab and the newline.
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
                     "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")


# Characters a reader does not see that change what a check reads or how text is shown:
# zero-width space and joiners, the word joiner, the byte-order mark (allowed only at a file's
# start) and the bidirectional controls. Refused in the recipes' YAML (yamlfile) and in the
# pages (the translators' checks); the one list both use.
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def escape(text: str) -> str:
    """``text`` with every invisible character written as its escape (U+200B as ``\\u200b``)."""
    if not isinstance(text, str):
        return text
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, at a place a maintainer can jump to."""

    file: str
    line: int | None
    col: int | None
    message: str

    def __post_init__(self) -> None:  # every message is shown escaped, wherever it goes
        object.__setattr__(self, "message", escape(self.message))
        object.__setattr__(self, "file", escape(self.file))

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
