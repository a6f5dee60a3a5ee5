"""What a reader gets from a built page, engine-independent: the article's headings, code
blocks, badges, notices, Playground mounts and text, read with the standard library's parser."""

from __future__ import annotations

import importlib.util
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

# each language's folder in a built site (English at the root)
LANGS = {"en": "", "ko": "ko/"}

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


# a fenced block of a built page's Markdown copy, and a highlighted block of its HTML
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)"
                    r"^(?P=indent)(?P=ticks)[ \t]*$", re.M | re.S)
CODE_BLOCK = re.compile(r'<div class="highlight"><pre><span></span><code>(.*?)</code></pre>',
                        re.S)


def code_blocks(page: Path) -> list[tuple[str, str, str]]:
    """(language, Markdown body, HTML) of each code block of a built page (its folder), in
    order: the Markdown copy beside the HTML gives each block's language."""
    fences = [(m["lang"], re.sub(f"(?m)^{m['indent']}", "", m["body"]))
              for m in _FENCE.finditer((page / "index.md").read_text(encoding="utf-8"))]
    codes = CODE_BLOCK.findall((page / "index.html").read_text(encoding="utf-8"))
    assert len(fences) == len(codes), f"{page}: {len(fences)} fences, {len(codes)} code blocks"
    return [(lang, body, code) for (lang, body), code in zip(fences, codes)]


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


class _Article(HTMLParser):
    """Collects the parts of ``<article class="md-content__inner …">``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []  # open elements inside the article
        self.depth = 0  # >0 while inside the article
        self.open: list[dict] = []  # parts being collected: {"kind", "text", ...}
        self.parts: dict[str, list] = {"headings": [], "code": [], "badges": [], "notices": [],
                                       "playgrounds": [], "text": []}
        self.skip = 0  # inside a permalink or a script: not reader text

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        classes = set(attrs.get("class", "").split())
        if not self.depth:
            if tag == "article" and "md-content__inner" in classes:
                self.depth = 1
            return
        if tag in _VOID:
            return
        self.depth += 1
        opened = None
        if tag in _HEADINGS:
            opened = {"kind": "headings", "tag": tag, "id": attrs.get("id", "")}
        elif tag == "pre":
            opened = {"kind": "code"}
        elif "recipe-badge" in classes:
            opened = {"kind": "badges", "class": " ".join(sorted(classes))}
        elif "admonition" in classes or (tag == "details" and classes):
            opened = {"kind": "notices", "class": " ".join(sorted(classes - {"admonition"}))}
        elif "recipe-playground" in classes:
            self.parts["playgrounds"].append({k: v for k, v in attrs.items()
                                              if k.startswith("data-")})
        if (tag == "a" and "headerlink" in classes) or tag in ("script", "style", "button"):
            self.skip += 1
            opened = {"kind": None, "skip": True}
        if opened is not None:
            opened.update(text=[], depth=self.depth)
            self.open.append(opened)

    def handle_endtag(self, tag):
        if not self.depth or tag in _VOID:
            return
        while self.open and self.open[-1]["depth"] == self.depth:
            part = self.open.pop()
            if part.pop("skip", False):
                self.skip -= 1
                continue
            kind = part.pop("kind")
            text = "".join(part.pop("text"))
            part.pop("depth")
            part["text"] = text.strip("\n") if kind == "code" else _squash(text)
            self.parts[kind].append(part)
        self.depth -= 1

    def handle_data(self, data):
        if not self.depth or self.skip:
            return
        self.parts["text"].append(data)
        for part in self.open:
            part["text"].append(data)


def article(html: str) -> dict[str, list]:
    """The reader-visible parts of a page's article."""
    parser = _Article()
    parser.feed(html)
    parts = parser.parts
    parts["text"] = [_squash("".join(parts["text"]))]
    return parts


def assert_404_keeps_its_language(folder: Path, lang: str) -> None:
    """The 404 page in ``folder`` (a language's site) links only to that language's pages, all
    of which exist, and its language selector to each language's home."""
    doc = (folder / "404.html").read_text(encoding="utf-8")
    selector = dict((hreflang, href) for href, hreflang in re.findall(
        r'<a href="([^"]*)" hreflang="([a-z]+)"[^>]*class="md-select__link"', doc))
    assert selector == {"en": "/", "ko": "/ko/"}
    root = "/" if lang == "en" else f"/{lang}/"
    pages = set(re.findall(r'href="(/[^"#]*/)"', doc)) - {"/", "/ko/"}
    assert pages and all(p.startswith(root) for p in pages), pages
    assert all((folder / p[len(root):] / "index.html").is_file() for p in pages)


def require_zensical() -> None:
    """Skip outside CI when Zensical is missing; on CI that is a failure."""
    if importlib.util.find_spec("zensical") is not None:
        return
    if os.environ.get("CI"):
        pytest.fail("zensical is missing on CI: pip install -e '.[test]' installs it",
                    pytrace=False)
    pytest.skip("zensical not installed: pip install -e '.[zensical]'")
