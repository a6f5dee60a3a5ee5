"""A page read as paragraphs, the unit a translator works in.

Owns the block lexer every translation check shares: fenced code blocks as
pymdownx.superfences reads them (``fences``), and a page as its blocks (a heading, a code
block, or a run of non-blank lines: a paragraph, a list, a table, an admonition's lines) with
their 1-based lines in the page as read, front matter left out. Owns the prose of a block as
the term and register checks read it (code, template tags, comments, link targets and
attribute lists taken out) and the pairing of an English page's blocks with its
translation's, section by section. Must not read files or judge the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_HEADING = re.compile(r"^#{1,6}\s")
# What is not prose in a line of Markdown; each is replaced by a space.
_NOT_PROSE = re.compile(
    r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}"  # template tags
    r"|<!--.*?-->"  # comments, check directives among them
    r"|(?<![\\`])(`+)(?!`).+?(?<!`)\1(?!`)"  # code spans
    r"|\]\([^)]*\)"  # a link's or an image's target
    r"|\{\s*[#.:][^}]*\}"  # attribute lists, heading anchors
    r"|<[^>\n]*>"  # tags and autolinks
    r"|https?://\S+", re.S)
# An admonition or tab line ('!!! note "Title"', '=== "Tab"'): its title is a heading.
_TITLED = re.compile(r'^\s*(?:[!?]{3}\+?|===)\s*[\w-]*\s*(?:"(?P<title>[^"]*)")?\s*$')


def fences(text: str) -> tuple[list[tuple[int, int, str, str]], list[tuple[int, str]]]:
    """Fenced code blocks as pymdownx.superfences reads them: (first line, last line, info,
    body) with 0-based line numbers, and the (line, fence) of every fence never closed. A fence
    closes on the same fence at the same indentation; a less indented line abandons it."""
    lines = text.split("\n")
    blocks, unclosed = [], []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        j = i + 1
        while j < len(lines):
            line = lines[j]
            if line.strip() and not line.startswith(indent):
                j = len(lines)  # dedented: Markdown reads the opening line as text
                break
            if line.startswith(indent) and line[len(indent):].rstrip(" \t") == fence:
                break
            j += 1
        if j >= len(lines):
            unclosed.append((i, fence))
            i += 1
            continue
        body = "".join(line + "\n" for line in lines[i + 1:j])
        blocks.append((i, j, m.group("info").strip(), body))
        i = j + 1
    return blocks, unclosed


@dataclass(frozen=True)
class Block:
    kind: str  # heading | code | text
    first: int  # 1-based lines of the page
    last: int
    text: str  # the block's lines as written, indentation kept


def _front_matter_end(lines: list[str]) -> int:
    """Index of the first line after the front matter (0 when there is none)."""
    if not lines or lines[0].rstrip(" \t") != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip(" \t") in ("---", "..."):
            return i + 1
    return 0


def blocks(text: str) -> list[Block]:
    """The blocks of a page (``text`` as ``macros.i18n.pages.read_page`` gives it), in order."""
    lines = text.split("\n")
    start = _front_matter_end(lines)
    code = {first: last for first, last, _, _ in fences(text)[0] if first >= start}
    out: list[Block] = []
    run: list[int] = []

    def close() -> None:
        if run:
            out.append(Block("text", run[0] + 1, run[-1] + 1,
                             "\n".join(lines[run[0]:run[-1] + 1])))
            run.clear()

    i = start
    while i < len(lines):
        if i in code:
            close()
            out.append(Block("code", i + 1, code[i] + 1, "\n".join(lines[i:code[i] + 1])))
            i = code[i] + 1
            continue
        line = lines[i]
        if not line.strip():
            close()
        elif _HEADING.match(line):
            close()
            out.append(Block("heading", i + 1, i + 1, line))
        else:
            run.append(i)
        i += 1
    close()
    return out


def prose_lines(block: Block) -> list[tuple[int, str, bool]]:
    """(line, prose, is a title) for every line of a text or heading block: the words a reader
    reads, without code, template tags, comments, link targets or attribute lists. A heading,
    an admonition's title and a tab's label are titles."""
    if block.kind == "code":
        return []
    cleaned = _NOT_PROSE.sub(lambda m: " " + "\n" * m.group(0).count("\n"), block.text)
    out = []
    for offset, line in enumerate(cleaned.split("\n")):
        titled = _TITLED.match(line)
        if titled:
            out.append((block.first + offset, titled.group("title") or "", True))
        else:
            out.append((block.first + offset, line, block.kind == "heading"))
    return out


def prose(block: Block) -> str:
    return "\n".join(text for _, text, _ in prose_lines(block))


def _sections(page: list[Block]) -> list[list[Block]]:
    """The page cut before every heading: each section starts with its heading (the first may
    have none)."""
    out: list[list[Block]] = [[]]
    for block in page:
        if block.kind == "heading":
            out.append([])
        out[-1].append(block)
    return out


def align(en: list[Block], other: list[Block]) -> list[tuple[Block | list[Block], list[Block]]]:
    """English blocks with their translation: section by section, block by block where the
    section has the same shape (the same kinds in the same order) in both; else the English
    section whole against the translated one. Each pair is (English block or blocks,
    translated blocks)."""
    a, b = _sections(en), _sections(other)
    if len(a) != len(b):  # the contract reports the headings; nothing can be paired
        return [(en, other)] if en or other else []
    pairs: list[tuple[Block | list[Block], list[Block]]] = []
    for x, y in zip(a, b):
        if [k.kind for k in x] == [k.kind for k in y]:
            pairs += [(p, [q]) for p, q in zip(x, y)]
        elif x or y:
            pairs.append((x, y))
    return pairs
