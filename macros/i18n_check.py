"""The translator contract: what must be identical between an English page and its Korean
translation, and the report that tells a translator what to fix.

Same macro calls and template statements (with the same arguments, wherever they are: prose,
code blocks, comments), same code blocks (comments aside), same check directives, same
explicit heading anchors, same link targets and images, and no raw HTML the English page does
not have; only prose and code comments differ. A page is also broken when its front matter is
not closed or not YAML, when a code fence is never closed, or when its template does not
parse. Missing, unstamped and outdated translations are listed as work to do.
Owns ``page_problems``, the subset the build enforces page by page. Reads files only.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, TemplateSyntaxError

from .errors import Problem, RecipeError
from .i18n import DOCS, display, front_matter, read_page, status

_DIRECTIVE = re.compile(r"<!--\s*check:(.*?)-->", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.M)
_ANCHOR = re.compile(r"\{\s*#([\w-]+)[^}]*\}\s*$")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HREF = re.compile(r"\bhref=\"([^\"]+)\"")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)")
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_RAW = re.compile(r"\{%-?\s*raw\s*-?%\}.*?\{%-?\s*endraw\s*-?%\}", re.S)
# An inline code span, as Python-Markdown reads one: never across a blank line.
_CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
# Anything Python-Markdown may pass through as a tag: '<' and a letter, up to '>' or the end of
# the line. http(s)/ftp and e-mail autolinks are links, not HTML.
_TAG = re.compile(r"<(?!(?:https?|ftp)://)(?![^<>\s@]+@)/?[A-Za-z][^<>\n]*>?")
_JINJA = Environment()  # the delimiters mkdocs-macros uses; only its lexer runs here


@dataclass(frozen=True)
class Item:
    kind: str
    value: str
    line: int


@dataclass(frozen=True)
class Finding:
    severity: str  # error (contract broken) | todo (translation work)
    file: str
    line: int | None
    message: str
    col: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        where += f":{self.col}" if self.line and self.col else ""
        return f"{where}: {self.severity}: {self.message}"


@dataclass(frozen=True)
class Page:
    items: list[Item]
    problems: list[Finding]  # what is broken in the page itself


def _lines_of(text: str):
    """pos -> line number in ``text``, in log time (a page may have many items)."""
    ends = [m.start() for m in re.finditer("\n", text)]
    return lambda pos: bisect.bisect_left(ends, pos) + 1


def _blank(match: re.Match) -> str:
    return "\n" * match.group(0).count("\n")


def _strip_comments(lang: str, body: str) -> str:
    if lang.split()[0:1] and lang.split()[0] in ("python", "py", "bash", "sh", "shell", "console"):
        kept = []
        for line in body.splitlines():
            if line.lstrip().startswith("#"):
                continue
            kept.append(re.sub(r"\s+#(?![^'\"]*['\"][^'\"]*$)[^\n]*$", "", line).rstrip())
        return "\n".join(kept).strip()
    return body.strip()


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


def template_tags(text: str) -> list[Item]:
    """Every ``{{ … }}`` (a macro call) and ``{% … %}`` (a template statement) the page's
    template runs, wherever it stands; ``{% raw %}`` content is data. Raises
    TemplateSyntaxError for a template that does not lex."""
    items: list[Item] = []
    current: tuple[str, int, list[str]] | None = None
    for lineno, token, value in _JINJA.lexer.tokeniter(text, None):
        if token in ("variable_begin", "block_begin"):
            current = ("macro call" if token == "variable_begin" else "template statement",
                       lineno, [])
        elif token in ("variable_end", "block_end") and current is not None:
            kind, line, parts = current
            items.append(Item(kind, " ".join("".join(parts).split()), line))
            current = None
        elif current is not None:
            current[2].append(value)
    return items


def extract(text: str, name: str) -> Page:
    """The contract items of one page, in order, and what is broken in it."""
    problems: list[Finding] = []
    try:
        front_matter(text, name)
    except RecipeError as exc:
        problems += [Finding("error", p.file, p.line, p.message, p.col) for p in exc.problems]
    items: list[Item] = []
    blocks, unclosed = fences(text)
    for line, fence in unclosed:
        problems.append(Finding("error", name, line + 1, f"code fence {fence} is never closed: "
                                f"end the block with {fence} at the same indentation"))
    lines = text.split("\n")
    for first, last, info, body in blocks:
        items.append(Item("code block", f"{info.split()[0] if info else ''}\n"
                                        f"{_strip_comments(info, body)}", first + 1))
        lines[first:last + 1] = [""] * (last + 1 - first)
    outside = "\n".join(lines)
    try:
        items += template_tags(text)
    except TemplateSyntaxError as exc:
        problems.append(Finding("error", name, exc.lineno, exc.message or "template syntax error"))
    raw_free = _RAW.sub(_blank, outside)
    line = _lines_of(outside)
    for m in _DIRECTIVE.finditer(outside):
        items.append(Item("check directive", " ".join(m.group(1).split()), line(m.start())))
    for m in _HEADING.finditer(outside):
        anchor = _ANCHOR.search(m.group(2))
        items.append(Item("heading anchor", anchor.group(1) if anchor else "", line(m.start())))
    line = _lines_of(raw_free)
    for rx, kind in ((_LINK, "link target"), (_HREF, "link target"), (_IMAGE, "image")):
        for m in rx.finditer(raw_free):
            items.append(Item(kind, m.group(1), line(m.start())))
    prose = _CODE_SPAN.sub(_blank, _DIRECTIVE.sub(_blank, outside))
    line = _lines_of(prose)
    for m in _TAG.finditer(prose):
        items.append(Item("raw HTML", " ".join(m.group(0).split()), line(m.start())))
    return Page(sorted(items, key=lambda i: (i.line, i.kind)), problems)


def _foreign(en: Page, ko: Page, ko_name: str, en_name: str) -> list[Finding]:
    """What a translation adds that its English page does not have and that would run or
    reach readers as markup: template code and raw HTML."""
    out = []
    known = {(i.kind, i.value) for i in en.items}
    for item in ko.items:
        if (item.kind, item.value) in known:
            continue
        if item.kind in ("macro call", "template statement"):
            out.append(Finding("error", ko_name, item.line,
                               f"extra {item.kind} not in {en_name}: {_show(item.value)}"))
        elif item.kind == "raw HTML":
            out.append(Finding("error", ko_name, item.line, f"raw HTML not in {en_name}: "
                               f"{_show(item.value)} (write the prose in Markdown, or keep the "
                               "English page's HTML as it is)"))
    return out


def page_problems(text: str, name: str, en_text: str | None = None,
                  en_name: str | None = None) -> list[Finding]:
    """What the build refuses in one page: a broken page, and for a translation (``en_text``
    given) template code or raw HTML its English page does not have."""
    page = extract(text, name)
    out = list(page.problems)
    if en_text is not None:
        out += _foreign(extract(en_text, en_name or "the English page"), page, name,
                        en_name or "the English page")
    return sorted(out, key=lambda f: f.line or 0)


def compare(en_path: Path, ko_path: Path, en_name: str, ko_name: str) -> list[Finding]:
    try:
        en = extract(read_page(en_path, en_name), en_name)
        ko = extract(read_page(ko_path, ko_name), ko_name)
    except RecipeError as exc:
        return [Finding("error", p.file, p.line, p.message, p.col) for p in exc.problems]
    out: list[Finding] = list(en.problems) + list(ko.problems)
    for page, name in ((en, en_name), (ko, ko_name)):
        for item in page.items:
            if item.kind == "heading anchor" and not item.value:
                out.append(Finding("error", name, item.line,
                                   "heading without an explicit anchor; add one, e.g. "
                                   "`## Title { #title }`, identical in both languages"))
    kinds = ("macro call", "template statement", "code block", "check directive",
             "heading anchor", "link target", "image")
    for kind in kinds:
        a = [i for i in en.items if i.kind == kind]
        b = [i for i in ko.items if i.kind == kind]
        sm = difflib.SequenceMatcher(a=[i.value for i in a], b=[i.value for i in b], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "equal":
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                ea = a[i1 + k] if i1 + k < i2 else None
                kb = b[j1 + k] if j1 + k < j2 else None
                if ea and kb:
                    out.append(Finding("error", ko_name, kb.line,
                                       f"{kind} differs from {en_name}:{ea.line}: "
                                       f"expected {_show(ea.value)}, found {_show(kb.value)}"))
                elif ea:
                    near = b[j1].line if j1 < len(b) else (b[-1].line if b else None)
                    out.append(Finding("error", ko_name, near, f"{kind} missing: "
                                       f"{en_name}:{ea.line} has {_show(ea.value)}"))
                else:
                    out.append(Finding("error", ko_name, kb.line,
                                       f"extra {kind} not in {en_name}: {_show(kb.value)}"))
    out += [f for f in _foreign(en, ko, ko_name, en_name) if f.message.startswith("raw HTML")]
    return sorted(out, key=lambda f: (f.file, f.line or 0))


def _show(value: str) -> str:
    one = value.replace("\n", " ⏎ ")
    return f"'{one[:90]}…'" if len(one) > 90 else f"'{one}'"


def page_findings(uri: str, docs: Path = DOCS, lang: str = "ko") -> list[Finding]:
    """Every contract error and translation to-do of one translated page."""
    en_path, other = docs / "en" / uri, docs / lang / uri
    en_name, ko_name = display(en_path, docs), display(other, docs)
    out: list[Finding] = []
    try:
        state = status(uri, docs, lang)
    except RecipeError:
        state = "broken"  # compare() reports what is broken, with its line
    if state == "missing":
        return [Finding("todo", ko_name, None, f"not translated yet (the site shows "
                        f"{en_name} with a notice)")]
    if state == "unstamped":
        out.append(Finding("todo", ko_name, 1, "no source_hash in the front matter; run "
                           f"'recipes i18n-stamp {uri}' once the translation matches"))
    elif state == "outdated":
        out.append(Finding("todo", ko_name, 1, f"outdated: {en_name} changed since this "
                           f"translation; update it, then run 'recipes i18n-stamp {uri}'"))
    return out + compare(en_path, other, en_name, ko_name)


def check(docs: Path = DOCS, lang: str = "ko") -> list[Finding]:
    """Every contract error and every translation to-do under ``docs``."""
    en_root, other_root = docs / "en", docs / lang
    if not (en_root.is_dir() and other_root.is_dir()):
        raise RecipeError([Problem(str(docs), None, None,
                                   f"not a docs folder (needs en/ and {lang}/)")])
    out: list[Finding] = []
    for en_path in sorted(en_root.rglob("*.md")):
        out.extend(page_findings(en_path.relative_to(en_root).as_posix(), docs, lang))
    for other in sorted(other_root.rglob("*.md")):
        uri = other.relative_to(other_root).as_posix()
        if not (en_root / uri).exists():
            out.append(Finding("error", display(other, docs), None,
                               "has no English source page (same path under docs/en)"))
    return out
