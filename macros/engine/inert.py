"""Reader text from the database or a page made inert where it is placed: in a line of
Markdown, a table cell, an HTML attribute or an admonition title. What a reader sees is the
text as written, never markup or Markdown syntax (links, emphasis, code, a list or a heading).

Owns the escaping every writer of Markdown shares (the page macros, the translation notices).
"""

from __future__ import annotations

import html
import re

_MD_ENTITIES = {c: f"&#{ord(c)};" for c in "[]()*_`\\!<>"}


def esc(text: str) -> str:
    """Text from the database in an HTML attribute or an admonition title: inert, never markup.
    Markdown still reads links and emphasis there, so their characters go as entities too
    (the browser shows them as written)."""
    return "".join(_MD_ENTITIES.get(c, c) for c in html.escape(str(text), quote=True))


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")
_MD_LINE_START = re.compile(r"^(\s*)([#>+-]|\d+[.)])")


def inline(text: str) -> str:
    """Reader text inside a line of Markdown: no HTML, links, emphasis, code or cell break."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False))


def md(text: str) -> str:
    """Reader text placed in Markdown: no HTML and no Markdown syntax (links, emphasis, code,
    tables, or a list or heading at the start of a line)."""
    # "1." starts a list but "\1." is a backslash and a list: escape the dot ("1\."), which
    # Markdown reads as a plain dot
    return _MD_LINE_START.sub(lambda m: m.group(1) + (
        m.group(2)[:-1] + "\\" + m.group(2)[-1] if m.group(2)[0].isdigit()
        else "\\" + m.group(2)), inline(text))


def cell_text(text: str) -> str:
    """Inert text in a table cell, which cannot start a list or a heading: one line."""
    return inline(text).replace("\n", " ")
