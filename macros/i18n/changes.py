"""What changed in an English page since its translation was stamped, paragraph by paragraph.

``recipes i18n-stamp`` keeps, next to the source hash in the Korean page, a copy of the English
page exactly as it was matched: ``docs/translated-from/<lang>/<page>`` (outside both language
folders, so neither site publishes it). The copy's own hash must equal the page's
``source_hash``; then the difference between it and the current English page, read as
paragraphs (``macros.i18n.paragraphs``), is what the translator has to carry over. No git
history is needed: the copy travels with the repository, a tarball or a fork.

Owns where the copy lives, reading it back and the paragraph diff with the current English
page's line numbers. Must not write files (``macros.i18n.stamp`` writes the copy).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from macros.engine.errors import RecipeError
from macros.i18n.pages import digest, display, front_matter, read_page
from macros.i18n.paragraphs import Block, blocks

FOLDER = "translated-from"
EXCERPT = 100  # characters of a paragraph shown to say which one it is


def matched_copy(src_uri: str, docs: Path, lang: str = "ko") -> Path:
    """Where the English text a translation was stamped against is kept."""
    return docs / FOLDER / lang / src_uri


@dataclass(frozen=True)
class Change:
    kind: str  # added | removed | changed
    first: int  # lines of the current English page; a removed paragraph: the line it followed
    last: int
    excerpt: str  # the paragraph's start, on one line (the old text for a removed one)

    @property
    def lines(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}–{self.last}"

    @property
    def where(self) -> str:
        """Where in the current English page, for a maintainer's report."""
        if self.kind == "removed":
            return f"after line {self.first}"
        return f"line {self.first}" if self.first == self.last else f"lines {self.lines}"


def _excerpt(block: Block) -> str:
    text = " ".join(block.text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT].rstrip() + "…"


def diff(old: str, new: str) -> list[Change]:
    """The paragraphs of ``new`` added or changed since ``old``, and those of ``old`` removed,
    in page order. A paragraph differs when its words differ (re-wrapping is no change)."""
    a, b = blocks(old), blocks(new)
    sm = difflib.SequenceMatcher(a=[" ".join(x.text.split()) for x in a],
                                 b=[" ".join(x.text.split()) for x in b], autojunk=False)
    out: list[Change] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        paired = min(i2 - i1, j2 - j1)
        out += [Change("changed", x.first, x.last, _excerpt(x)) for x in b[j1:j1 + paired]]
        out += [Change("added", x.first, x.last, _excerpt(x)) for x in b[j1 + paired:j2]]
        after = b[j2 - 1].last if j2 > 0 else 1
        out += [Change("removed", after, after, _excerpt(x)) for x in a[i1 + paired:i2]]
    return out


def changes(src_uri: str, docs: Path, lang: str = "ko") -> list[Change] | None:
    """What changed in the English page since the translation's stamp; None when that cannot
    be told: no copy was kept, or it is not the text the recorded ``source_hash`` names."""
    copy = matched_copy(src_uri, docs, lang)
    page, en = docs / lang / src_uri, docs / "en" / src_uri
    try:
        data = copy.read_bytes()
        recorded = front_matter(read_page(page, display(page, docs)),
                                display(page, docs)).source_hash
        current = read_page(en, display(en, docs))
    except (OSError, RecipeError):
        return None
    if digest(data) != recorded:
        return None
    try:
        old = data.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        return None
    return diff(old, current)
