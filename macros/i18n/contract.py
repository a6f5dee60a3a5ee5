"""The translator contract: what must be identical between an English page and its Korean
translation, what no page may contain, and the report that tells a translator what to fix.

Same macro calls and template statements (with the same arguments, wherever they are: prose,
code blocks, comments), same code blocks (comments aside, fence header included), same check
directives, same explicit heading anchors, same attribute lists, same link targets and images,
same front matter except title, description and source_hash, same ``{% raw %}`` blocks, and no
raw HTML the English page does not have (``{% raw %}`` content included: it is published as it
is, so the build also judges the rendered translation's raw HTML against the English page
rendered by the same site); only prose and code comments differ. No Markdown page under docs/
may hold an invisible character (zero-width, joiners, a BOM past the start, bidi controls):
each is an error at its line and column, and messages show them escaped. In every page: front matter only with the
keys the site uses and values of their type (YAML between '---' lines, never MkDocs's
'key: value' metadata lines), attribute lists and fence headers only with the attributes the
site uses, and links and images only to http:, https:, mailto: or relative targets. Links,
images and attribute lists are read by Python-Markdown itself, configured as in mkdocs.yml, so
what is checked is what the build will publish. A page is also broken when its front matter is
not closed or not YAML, when a code fence is never closed, or when its template does not parse.
Missing, unstamped and outdated translations are listed as work to do (an outdated one with
the English paragraphs changed since its stamp, from ``macros.i18n.changes``), and what
``macros.i18n.terms`` finds (glossary terms, the register) as style problems.

Owns ``page_problems`` (what the build refuses in a page: every contract error of a
translation, every rule above for any page) and ``published_problems`` (the same safety rules
on the Markdown a page's template produced). Reads files only.

Size: every check of the contract reads a page through the same Python-Markdown configuration,
recorders and locator (``_markdown``, ``_Locator``); one module keeps one reading of a page.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import html
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from jinja2 import Environment, TemplateSyntaxError
from markdown import Markdown, util
from markdown.extensions.attr_list import AttrListTreeprocessor, get_attrs_and_remainder
from markdown.treeprocessors import Treeprocessor
from mkdocs.utils.meta import get_data as mkdocs_metadata
from pymdownx.superfences import RE_NESTED_FENCE_START, RE_OPTIONS

from macros.i18n import terms as i18n_terms
from macros.engine.errors import Problem, RecipeError, escape
from macros.i18n.pages import (DOCS, ROOT, FrontMatter, display, front_matter, read_page, status, symlink_problem)
from macros.i18n.changes import changes, matched_copy
from macros.i18n.paragraphs import fences

_DIRECTIVE = re.compile(r"<!--\s*check:(.*?)-->", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.M)
_ANCHOR = re.compile(r"\{\s*#([\w-]+)[^}]*\}\s*$")
# An inline code span, as Python-Markdown reads one: never across a blank line.
_CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
# Anything Python-Markdown may pass through as a tag: '<' and a letter, up to '>' (a tag may
# span lines, never a blank one) or the end of its paragraph. http(s)/ftp and e-mail autolinks
# are links, not HTML.
_TAG = re.compile(r"<(?!(?:https?|ftp)://)(?![^<>\s@]+@)/?[A-Za-z](?:[^<>\n]|\n(?![ \t]*\n))*>?")
_TAG_URL = re.compile(r"""\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_JINJA = Environment()  # the delimiters mkdocs-macros uses; only its lexer runs here

# Front matter: the keys this site's pages use, and how a translation may differ.
FRONT_MATTER_KEYS = ("description", "hide", "source_hash", "title")
TRANSLATABLE_KEYS = ("description", "source_hash", "title")
HIDE_NAMES = ("footer", "navigation", "path", "toc")  # what Material's `hide` can hide here
_PLAIN = "one line of plain text (no <, >, \", &, line breaks, control characters or template code)"
_NOT_PLAIN = re.compile(r"[<>\"&]|\{[{%#]")
# Attributes a page may set: in an attribute list ({ #id .class title="…" }), and in a fence
# header also the highlighter's options. Python-Markdown escapes attribute-list values, the
# highlighter does not escape a fence's id or classes: both must be plain names. A heading's
# data-toc-label reaches the table of contents stripped of tags and escaped (MkDocs reads the toc
# extension's sanitized name).
ATTRIBUTES = ("id", ".", "title", "data-toc-label")
FENCE_ATTRIBUTES = ("id", ".", "title", "hl_lines", "linenums")
_NAME = re.compile(r"[\w-]+")
SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_URL_NOISE = re.compile(r"[\t\n\r]")  # browsers drop these anywhere in a URL
_URL_EDGES = "".join(map(chr, range(0x21)))  # and these at either end


@dataclass(frozen=True)
class Item:
    kind: str
    value: str
    line: int | None


@dataclass(frozen=True)
class Finding:
    severity: str  # error (contract broken) | todo (translation work) | style (terms, register)
    file: str
    line: int | None
    message: str
    col: int | None = None

    def __post_init__(self):  # a message quotes page text: never an invisible character raw
        object.__setattr__(self, "message", escape(self.message))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        where += f":{self.col}" if self.line and self.col else ""
        return f"{where}: {self.severity}: {self.message}"


@dataclass(frozen=True)
class Page:
    items: list[Item]
    problems: list[Finding]  # what is broken in the page itself
    front: FrontMatter | None  # None: the front matter is broken (a problem says how)


def _lines_of(text: str):
    """pos -> line number in ``text``, in log time (a page may have many items)."""
    ends = [m.start() for m in re.finditer("\n", text)]
    return lambda pos: bisect.bisect_left(ends, pos) + 1


def _blank(match: re.Match) -> str:
    return "\n" * match.group(0).count("\n")


def _fence_language(info: str) -> str:
    """A fence's language as superfences reads it: the word after the fence, else the first
    class of its attribute list."""
    m = RE_NESTED_FENCE_START.match("```" + info)
    if m is None:
        return ""
    if m.group("lang"):
        return m.group("lang")
    classes = [v for k, v in get_attrs_and_remainder(m.group("attrs") or "")[0] if k == "."]
    return classes[0] if classes else ""


def _strip_comments(lang: str, body: str) -> str:
    if lang in ("python", "py", "bash", "sh", "shell", "console"):
        kept = []
        for line in body.splitlines():
            if line.lstrip().startswith("#"):
                continue
            kept.append(re.sub(r"\s+#(?![^'\"]*['\"][^'\"]*$)[^\n]*$", "", line).rstrip())
        return "\n".join(kept).strip()
    return body.strip()


def template_tags(text: str) -> list[Item]:
    """Every ``{{ … }}`` (a macro call) and ``{% … %}`` (a template statement) the page's
    template runs, wherever it stands, and every ``{% raw %}`` block (its content is data,
    published as it is: the raw HTML in it is judged as the page's own). Raises
    TemplateSyntaxError for a template that does not lex."""
    items: list[Item] = []
    current: tuple[str, int, list[str]] | None = None
    for lineno, token, value in _JINJA.lexer.tokeniter(text, None):
        if token == "raw_begin":
            items.append(Item("raw block", "{% raw %}…{% endraw %}", lineno))
        elif token in ("variable_begin", "block_begin"):
            current = ("macro call" if token == "variable_begin" else "template statement",
                       lineno, [])
        elif token in ("variable_end", "block_end") and current is not None:
            kind, line, parts = current
            items.append(Item(kind, " ".join("".join(parts).split()), line))
            current = None
        elif current is not None:
            current[2].append(value)
    return items


def _as_rendered(text: str) -> str:
    """What Markdown reads once the page's template ran, near enough to find links and
    attributes: text and ``{% raw %}`` content as they are, each tag as one inert letter (a
    macro's output is the project's own Markdown) with its line breaks kept."""
    out = []
    try:
        for _, token, value in _JINJA.lexer.tokeniter(text, None):
            if token == "data":
                out.append(value)
            else:
                letter = "x" if token in ("variable_begin", "block_begin") else ""
                out.append(letter + "\n" * value.count("\n"))
    except TemplateSyntaxError:  # reported by extract(); the text is the best view left
        return text
    return "".join(out)


# --- what Python-Markdown makes of a page --------------------------------------------------

@dataclass
class _Seen:
    urls: list[tuple[str, str]] = field(default_factory=list)  # (kind, attribute text)
    attr_lists: list[tuple[str, str]] = field(default_factory=list)  # (tag, list as written)


class _RecordingAttrList(AttrListTreeprocessor):
    """attr_list exactly as the build runs it, noting every attribute list it applies."""

    def assign_attrs(self, elem, attrs_string, *, strict=False):
        remainder = super().assign_attrs(elem, attrs_string, strict=strict)
        if not (strict and remainder):
            self.md.recipes_seen.attr_lists.append((elem.tag, attrs_string))
        return remainder


class _RecordingUrls(Treeprocessor):
    """Every URL an element carries once Markdown is done (after backslash escapes)."""

    def run(self, root):
        for elem in root.iter():
            for attr in ("href", "src"):
                value = elem.get(attr)
                if value is not None:
                    kind = "image" if elem.tag == "img" and attr == "src" else "link target"
                    self.md.recipes_seen.urls.append(
                        (kind, value.replace(util.AMP_SUBSTITUTE, "&")))


@functools.cache
def _markdown() -> Markdown:
    """Python-Markdown with mkdocs.yml's extensions, minus the build's own additions: toc's
    ids and permalinks (the build's, not the author's) and Pygments (colours change nothing)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names, configs = [], {}
    for entry in config.get("markdown_extensions") or []:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if name != "toc":
            names.append(name)
            configs[name] = dict(options or {})
    if "pymdownx.highlight" in configs:
        configs["pymdownx.highlight"]["use_pygments"] = False
    md = Markdown(extensions=names, extension_configs=configs)
    md.treeprocessors.register(_RecordingAttrList(md), "attr_list", 8)
    md.treeprocessors.register(_RecordingUrls(md), "recipes_urls", -1)  # after 'unescape'
    return md


def _seen(markdown: str) -> _Seen:
    md = _markdown()
    md.reset()
    md.recipes_seen = _Seen()
    md.convert(markdown)
    return md.recipes_seen


def _url_text(value: str) -> str:
    """The URL a browser reads from an attribute's text: entities decoded, tabs and line
    breaks dropped, control characters and spaces at the ends stripped."""
    return _URL_NOISE.sub("", html.unescape(value)).strip(_URL_EDGES)


def _scheme_problem(kind: str, url: str) -> str | None:
    m = _SCHEME.match(url)
    if m is None or m.group(1).lower() in SCHEMES:
        return None
    return (f"{kind} {_show(url)} uses the scheme '{m.group(1)}:'; only http:, https:, mailto: "
            "and relative links are allowed")


def _plain_name(key: str, value: str | None) -> bool:
    return key not in ("id", ".") or (value is not None and _NAME.fullmatch(value) is not None)


def _attribute_problems(pairs, allowed: tuple[str, ...], what: str) -> list[str]:
    shown = ", ".join({"id": "#id", ".": ".class"}.get(k, k) for k in allowed)
    out = []
    for key, value in pairs:
        if key not in allowed:
            out.append(f"{what}: '{key}' is not allowed (allowed: {shown})")
        elif not _plain_name(key, value):
            mark = "#" if key == "id" else "."
            out.append(f"{what}: '{mark}{value}' is not a plain name (letters, digits, '_' "
                       "and '-')")
    return out


def _fence_problems(info: str) -> list[str]:
    """What a fence header sets that the site does not use, read as superfences reads it."""
    m = RE_NESTED_FENCE_START.match("```" + info)
    if m is None:
        return []
    if m.group("attrs") is not None:
        pairs = get_attrs_and_remainder(m.group("attrs"))[0]
    elif m.group("options"):
        pairs = [(o.group("key"), o.group("value"))
                 for o in RE_OPTIONS.finditer(m.group("options"))]
    else:
        return []
    return _attribute_problems(pairs, FENCE_ATTRIBUTES, f"code fence {_show('```' + info)}")


def _attr_list_value(tag: str, written: str) -> str:
    """An attribute list as the contract compares it; a heading's id is its anchor, which the
    contract compares as such."""
    parts = []
    for key, value in get_attrs_and_remainder(written)[0]:
        if key == "id" and tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            continue
        parts.append({"id": f"#{value}", ".": f".{value}"}.get(key) or
                     (key if value is None else f'{key}="{value}"'))
    return " ".join(parts)


class _Locator:
    """Where in the page a thing Markdown found was written: the first match after the
    previous one (things come in page order), else the first anywhere, else nowhere. Needles
    are literal text (``find``) or an attribute list as written (``find_attr_list``)."""

    def __init__(self, text: str):
        self.text, self.at, self.line = text, 0, _lines_of(text)

    def _found(self, start: int) -> int:
        self.at = start + 1
        return self.line(start)

    def find(self, needles: list[str]) -> int | None:
        for needle in needles:
            start = self.text.find(needle, self.at)
            if start < 0:
                start = self.text.find(needle)
            if start >= 0:
                return self._found(start)
        return None

    def find_attr_list(self, written: str) -> int | None:
        """``{`` or ``{:``, spaces, then ``written`` and ``}``."""
        needle = written + "}"
        for begin in (self.at, 0):
            i = self.text.find(needle, begin)
            while i >= 0:
                j = i
                while j > 0 and self.text[j - 1] == " ":
                    j -= 1
                if j > 0 and self.text[j - 1] == ":":
                    j -= 1
                if j > 0 and self.text[j - 1] == "{" and j - 1 >= begin:
                    return self._found(j - 1)
                i = self.text.find(needle, i + 1)
        return None


def _url_needles(value: str) -> list[str]:
    url = _url_text(value)
    return [n for n in dict.fromkeys([value, url, url.removeprefix("mailto:")]) if n]


def _markdown_view(rendered: str, source: str, seen: _Seen | None = None
                   ) -> tuple[list[Item], list[tuple[int | None, str]]]:
    """Link targets, images and attribute lists of ``rendered`` (as ``seen`` recorded them
    when given, else as converted here) as contract items with their lines in ``source``, and
    what breaks the rules for them, as (line, what)."""
    seen = seen if seen is not None else _seen(rendered)
    items, problems = [], []
    urls, lists = _Locator(source), _Locator(source)
    for kind, value in seen.urls:
        line, url = urls.find(_url_needles(value)), _url_text(value)
        items.append(Item(kind, url, line))
        problem = _scheme_problem(kind, url)
        if problem:
            problems.append((line, problem))
    for tag, written in seen.attr_lists:
        line = lists.find_attr_list(written)
        shown = _show("{ " + written.strip() + " }")
        problems += [(line, p) for p in _attribute_problems(
            get_attrs_and_remainder(written)[0], ATTRIBUTES, f"attribute list {shown}")]
        value = _attr_list_value(tag, written)
        if value:
            items.append(Item("attribute list", value, line))
    return items, problems


# --- front matter --------------------------------------------------------------------------

def _plain_text_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return "found " + ("nothing" if value is None else f"a {type(value).__name__} value")
    if not value.strip():
        return "found an empty text"
    for char in value:
        if char in "\n\r\u2028\u2029":
            return "found a line break"
        if unicodedata.category(char) in ("Cc", "Cf"):
            return f"found the control character U+{ord(char):04X}"
    m = _NOT_PLAIN.search(value)
    return f"found {_show(m.group(0))}" if m else None


def _front_matter_problems(text: str, front: FrontMatter, name: str,
                           translation: bool) -> list[Finding]:
    if front.close_at is None:
        if mkdocs_metadata(text)[1]:
            return [Finding("error", name, 1, "front matter: MkDocs reads the 'key: value' "
                            "lines at the top of this page as metadata; start the page with its "
                            "heading, or write front matter between '---' lines", 1)]
        return []
    allowed = [k for k in FRONT_MATTER_KEYS if translation or k != "source_hash"]
    out = []
    for entry in front.entries:
        what = None
        if entry.key not in allowed:
            what = f"'{entry.key}' is not allowed (allowed: {', '.join(allowed)})"
        elif entry.key in ("title", "description"):
            why = _plain_text_problem(entry.value)
            what = f"'{entry.key}' must be {_PLAIN}; {why}" if why else None
        elif entry.key == "hide":
            rule = f"'hide' must be a list of page parts from: {', '.join(HIDE_NAMES)}"
            names = entry.value if isinstance(entry.value, list) else None
            wrong = [n for n in names or () if n not in HIDE_NAMES]
            if names is None:
                what = f"{rule}; found {_show(str(entry.value))}, not a list"
            elif wrong:
                what = f"{rule}; found {_show(str(wrong[0]))}"
            elif len(set(names)) != len(names):
                what = f"{rule}, each once"
        elif not re.fullmatch(r"[0-9a-f]{12}", str(entry.value)):
            what = (f"'source_hash' must be 12 lowercase hex digits (recipes i18n-stamp writes "
                    f"it); found {_show(str(entry.value))}")
        if what:
            out.append(Finding("error", name, entry.line, f"front matter: {what}", entry.col))
    return out


def _front_matter_differences(en: FrontMatter, ko: FrontMatter, en_name: str,
                              ko_name: str) -> list[Finding]:
    """A translation's front matter may change only the translatable keys."""
    en_entries = {e.key: e for e in en.entries}
    ko_entries = {e.key: e for e in ko.entries}
    out = []
    for key in FRONT_MATTER_KEYS:
        if key in TRANSLATABLE_KEYS:
            continue
        a, b = en_entries.get(key), ko_entries.get(key)
        if (a is None and b is None) or (a and b and a.value == b.value):
            continue
        expected, found = (json.dumps(e.value, ensure_ascii=False, default=str) if e
                           else f"no '{key}'" for e in (a, b))
        out.append(Finding("error", ko_name, b.line if b else 1,
                           f"front matter: '{key}' differs from {en_name}: expected {expected}, "
                           f"found {found} (a translation may change only description, "
                           "source_hash and title)", b.col if b else None))
    return out


# --- one page ------------------------------------------------------------------------------

def extract(text: str, name: str, translation: bool = False) -> Page:
    """The contract items of one page, in order, and what is broken in it."""
    problems: list[Finding] = []
    front = None
    try:
        front = front_matter(text, name)
    except RecipeError as exc:
        problems += [Finding("error", p.file, p.line, p.message, p.col) for p in exc.problems]
    body = text  # the page as Markdown gets it: MkDocs takes the front matter off
    if front is not None:
        problems += _front_matter_problems(text, front, name, translation)
        if front.close_at is not None:
            end = text.find("\n", front.close_at)
            end = len(text) if end < 0 else end
            body = "\n" * text.count("\n", 0, end) + text[end:]
    items: list[Item] = []
    blocks, unclosed = fences(body)
    for line, fence in unclosed:
        problems.append(Finding("error", name, line + 1, f"code fence {fence} is never closed: "
                                f"end the block with {fence} at the same indentation"))
    lines = body.split("\n")
    for first, last, info, code in blocks:
        items.append(Item("code block", f"{' '.join(info.split())}\n"
                                        f"{_strip_comments(_fence_language(info), code)}",
                          first + 1))
        problems += [Finding("error", name, first + 1, p) for p in _fence_problems(info)]
        lines[first:last + 1] = [""] * (last + 1 - first)
    outside = "\n".join(lines)
    try:
        items += template_tags(body)
    except TemplateSyntaxError as exc:
        problems.append(Finding("error", name, exc.lineno, exc.message or "template syntax error"))
    line = _lines_of(outside)
    for m in _DIRECTIVE.finditer(outside):
        items.append(Item("check directive", " ".join(m.group(1).split()), line(m.start())))
    for m in _HEADING.finditer(outside):
        anchor = _ANCHOR.search(m.group(2))
        items.append(Item("heading anchor", anchor.group(1) if anchor else "", line(m.start())))
    view, broken = _markdown_view(_as_rendered(body), body)
    items += view
    problems += [Finding("error", name, at, what) for at, what in broken]
    # raw HTML anywhere outside code, {% raw %} content included: the build publishes it
    for at, tag in raw_html(outside):
        items.append(Item("raw HTML", tag, at))
        for url in _TAG_URL.finditer(tag):
            problem = _scheme_problem("link target", _url_text(next(g for g in url.groups()
                                                                     if g is not None)))
            if problem:
                problems.append(Finding("error", name, at, problem))
    return Page(sorted(items, key=lambda i: (i.line or 0, i.kind)), problems, front)


def raw_html(markdown: str) -> list[tuple[int, str]]:
    """(line, tag) for every piece of raw HTML in ``markdown`` outside code blocks, code
    spans and check directives (code blocks already blanked by the caller, or none there),
    whitespace folded."""
    prose = _CODE_SPAN.sub(_blank, _DIRECTIVE.sub(_blank, markdown))
    line = _lines_of(prose)
    return [(line(m.start()), " ".join(m.group(0).split())) for m in _TAG.finditer(prose)]


def rendered_html_problems(rendered: str, en_rendered: str, source: str, name: str,
                           en_name: str) -> list[Finding]:
    """Raw HTML the rendered translation ``rendered`` carries more often than the English
    page ``en_rendered`` rendered by the same site (same macros, same language, so the
    macros' own output is the same in both): what only the page's text can have added,
    however it was written ({% raw %} blocks included). Lines are ``source``'s where the tag is
    written there."""
    def tags(markdown: str) -> list[tuple[int, str]]:
        blocks, _ = fences(markdown)
        lines = markdown.split("\n")
        for first, last, _, _ in blocks:
            lines[first:last + 1] = [""] * (last + 1 - first)
        return raw_html("\n".join(lines))

    budget: dict[str, int] = {}
    for _, tag in tags(en_rendered):
        budget[tag] = budget.get(tag, 0) + 1
    where = _Locator(source)
    out = []
    for _, tag in tags(rendered):
        if budget.get(tag, 0) > 0:
            budget[tag] -= 1
            continue
        out.append(Finding("error", name, where.find([tag]), f"raw HTML not in {en_name}: "
                           f"{_show(tag)} (the rendered page has it; write the prose in "
                           "Markdown, or keep the English page's HTML as it is)"))
    return out


def _foreign_html(en: Page, ko: Page, ko_name: str, en_name: str) -> list[Finding]:
    """Raw HTML a translation adds that its English page does not have: it would reach
    readers as markup."""
    known = {i.value for i in en.items if i.kind == "raw HTML"}
    return [Finding("error", ko_name, item.line, f"raw HTML not in {en_name}: {_show(item.value)} "
                    "(write the prose in Markdown, or keep the English page's HTML as it is)")
            for item in ko.items if item.kind == "raw HTML" and item.value not in known]


def _anchorless(page: Page, name: str) -> list[Finding]:
    return [Finding("error", name, item.line, "heading without an explicit anchor; add one, e.g. "
                    "`## Title { #title }`, identical in both languages")
            for item in page.items if item.kind == "heading anchor" and not item.value]


def contract(en_text: str, ko_text: str, en_name: str, ko_name: str) -> list[Finding]:
    """Every contract error of a translation and of its English page."""
    en = extract(en_text, en_name)
    ko = extract(ko_text, ko_name, translation=True)
    out: list[Finding] = list(en.problems) + list(ko.problems)
    out += _anchorless(en, en_name) + _anchorless(ko, ko_name)
    if en.front is not None and ko.front is not None:
        out += _front_matter_differences(en.front, ko.front, en_name, ko_name)
    kinds = ("macro call", "template statement", "raw block", "code block", "check directive",
             "heading anchor", "attribute list", "link target", "image")
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
                    expected, found = _from_first_difference(ea.value, kb.value)
                    out.append(Finding("error", ko_name, kb.line,
                                       f"{kind} differs from {_at(en_name, ea.line)}: "
                                       f"expected {_show(expected)}, found {_show(found)}"))
                elif ea:
                    near = b[j1].line if j1 < len(b) else (b[-1].line if b else
                                                           _section_line(en, ko, ea.line))
                    out.append(Finding("error", ko_name, near, f"{kind} missing: "
                                       f"{_at(en_name, ea.line)} has {_show(ea.value)}"))
                else:
                    out.append(Finding("error", ko_name, kb.line,
                                       f"extra {kind} not in {en_name}: {_show(kb.value)}"))
    out += _foreign_html(en, ko, ko_name, en_name)
    return sorted(out, key=lambda f: (f.file, f.line or 0))


def _section_line(en: Page, ko: Page, en_line: int | None) -> int | None:
    """The translation's heading of the section that holds ``en_line`` in the English page:
    where to look for something missing that has no neighbour of its kind."""
    anchors = [i.value for i in en.items if i.kind == "heading anchor" and i.value
               and (i.line or 0) <= (en_line or 0)]
    if not anchors:
        return None
    return next((i.line for i in ko.items if i.kind == "heading anchor"
                 and i.value == anchors[-1]), None)


def _at(name: str, line: int | None) -> str:
    return f"{name}:{line}" if line else name


def compare(en_path: Path, ko_path: Path, en_name: str, ko_name: str) -> list[Finding]:
    try:
        return contract(read_page(en_path, en_name), read_page(ko_path, ko_name), en_name,
                        ko_name)
    except RecipeError as exc:
        return [Finding("error", p.file, p.line, p.message, p.col) for p in exc.problems]


def page_problems(text: str, name: str, en_text: str | None = None,
                  en_name: str | None = None) -> list[Finding]:
    """What the build refuses in one page: for a translation (``en_text`` given) every
    contract error in it, for any other page what breaks the rules every page keeps."""
    return list(_page_problems(text, name, en_text, en_name))


@functools.lru_cache(maxsize=1024)  # a build asks twice per page (check, then stage)
def _page_problems(text: str, name: str, en_text: str | None,
                   en_name: str | None) -> tuple[Finding, ...]:
    """``page_problems``, kept for the same texts and names: the live preview and a process
    that builds many times (the tests) check the same unchanged pages at every build. A
    Finding is frozen, so a kept answer is shared safely; a changed page is a new key."""
    if en_text is not None:
        found = [f for f in contract(en_text, text, en_name or "the English page", name)
                 if f.file == name]
    else:
        page = extract(text, name)
        found = page.problems + _anchorless(page, name)
    return tuple(sorted(found + invisible_problems(text, name), key=lambda f: f.line or 0))


def published_problems(markdown: str, source: str, name: str,
                       seen: _Seen | None = None) -> list[Finding]:
    """The link and attribute rules applied to the Markdown a page's template produced (what
    the build converts), for anything the page's source did not show; lines are the source's
    where the thing is written there. ``seen``: what the engine's own conversion of
    ``markdown`` recorded (``macros.site.published``), so it is not converted again."""
    problems = []
    for _, _, info, _ in fences(markdown)[0]:
        found = _fence_problems(info)
        if found:
            at = _Locator(source).find([info])
            problems += [(at, p) for p in found]
    problems += _markdown_view(markdown, source, seen)[1]
    return [Finding("error", name, line, what) for line, what in dict.fromkeys(problems)]


_CHARACTER_NAMES = {"\u200e": "LEFT-TO-RIGHT MARK", "\u200f": "RIGHT-TO-LEFT MARK",
                    "\u2066": "LEFT-TO-RIGHT ISOLATE", "\u2067": "RIGHT-TO-LEFT ISOLATE",
                    "\u2068": "FIRST STRONG ISOLATE", "\u2069": "POP DIRECTIONAL ISOLATE"}


def invisible_problems(text: str, name: str) -> list[Finding]:
    """Every invisible character of a page (as read: a BOM at its start is already gone), at
    its line and column: it hides words from the checks and is not what a reader sees."""
    out = []
    for line, col, char in i18n_terms.invisible_characters(text):
        label = _CHARACTER_NAMES.get(char) or unicodedata.name(char, "invisible character")
        out.append(Finding("error", name, line, f"invisible character U+{ord(char):04X} "
                           f"({label}); delete it (a reader does not see it, and it hides "
                           "words from the glossary and register checks)", col))
    return out


def _from_first_difference(a: str, b: str) -> tuple[str, str]:
    """Two values from the first line where they differ (a long code block that differs late
    would show only its shared start)."""
    la, lb = a.split("\n"), b.split("\n")
    same = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
    if same == 0:
        return a, b
    return ("…\n" + "\n".join(la[same:]), "…\n" + "\n".join(lb[same:]))


def _show(value: str) -> str:
    one = escape(value.replace("\n", " ⏎ "))
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
        changed = changes(uri, docs, lang)
        unknown = "" if changed is not None else (
            f" (which paragraphs is unknown: {display(matched_copy(uri, docs, lang), docs)}, the "
            "English text of the last stamp, is missing or is not the one source_hash names)")
        out.append(Finding("todo", ko_name, 1, f"outdated: {en_name} changed since this "
                           f"translation{unknown}; update it, then run 'recipes i18n-stamp {uri}'"))
        out += [Finding("todo", en_name, c.first, f"{c.kind} since the translation "
                        f"({c.where}): '{c.excerpt}'") for c in changed or ()]
    return out + compare(en_path, other, en_name, ko_name)


def check(docs: Path = DOCS, lang: str = "ko", recipes: Path | None = None) -> list[Finding]:
    """Every contract error and every translation to-do under ``docs``, and every style
    problem of its Korean pages and, with ``recipes``, of its text catalogs: a glossary term
    (``docs/glossary.md``; a folder without one is an error) the translation lacks, a 합니다체
    ending; and every invisible character of its Markdown pages."""
    en_root, other_root = docs / "en", docs / lang
    if not (en_root.is_dir() and other_root.is_dir()):
        raise RecipeError([Problem(str(docs), None, None,
                                   f"not a docs folder (needs en/ and {lang}/)")])
    out: list[Finding] = []
    linked = set()
    for root in (en_root, other_root):
        for path in sorted(root.rglob("*")):  # a linked folder is listed, never entered
            problem = symlink_problem(path, root)
            if problem:
                linked.add(path.relative_to(root).as_posix())
                out.append(Finding("error", display(path, docs), None, problem))
    for en_path in sorted(en_root.rglob("*.md")):
        uri = en_path.relative_to(en_root).as_posix()
        if uri not in linked:
            out.extend(page_findings(uri, docs, lang))
    out += _invisible(docs, (en_root, other_root), linked)
    for other in sorted(other_root.rglob("*.md")):
        uri = other.relative_to(other_root).as_posix()
        if uri not in linked and not (en_root / uri).exists():
            out.append(Finding("error", display(other, docs), None,
                               f"has no English source page {display(en_root / uri, docs)}"))
    return out + style(docs, lang, recipes, linked)


def _invisible(docs: Path, roots: tuple[Path, ...], linked: set[str]) -> list[Finding]:
    """The invisible characters of every Markdown page under ``docs`` (both languages, and
    the pages beside them such as the glossary)."""
    paths = [p for p in sorted(docs.glob("*.md")) if p.is_file() and not p.is_symlink()]
    for root in roots:
        paths += [p for p in sorted(root.rglob("*.md"))
                  if p.relative_to(root).as_posix() not in linked and p.is_file()]
    out = []
    for path in paths:
        name = display(path, docs)
        try:
            out += invisible_problems(read_page(path, name), name)
        except RecipeError:  # unreadable: the contract check says why
            pass
    return out


def style(docs: Path, lang: str, recipes: Path | None, linked: set[str]) -> list[Finding]:
    """Glossary and register findings of every translated page (and catalog)."""
    glossary = docs / "glossary.md"
    name = display(glossary, docs)
    problems = []
    missing: list[Finding] = []
    if not glossary.is_file():  # the register is still checked; the terms cannot be
        missing.append(Finding("error", name, None, "the glossary is missing: the glossary "
                               f"check needs this page, with a '{i18n_terms.SECTION}' table "
                               f"{i18n_terms.HEADER}"))
    try:
        terms = i18n_terms.read_glossary(glossary, name) if not missing else []
    except RecipeError as exc:
        return [Finding("error", p.file, p.line, p.message, p.col) for p in exc.problems]
    for other in sorted((docs / lang).rglob("*.md")):
        uri = other.relative_to(docs / lang).as_posix()
        en = docs / "en" / uri
        if uri not in linked and en.is_file():
            problems += i18n_terms.page_problems(en, other, docs, terms, name)
    if recipes is not None:
        problems += i18n_terms.catalog_problems(recipes, terms, name)
    return missing + [Finding("style", p.file, p.line, p.message) for p in problems]
