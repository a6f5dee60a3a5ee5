"""The published check read off the engine's own conversion: with MkDocs, ``recipes build``
applies the link and attribute rules (``i18n_check.published_problems``) to what MkDocs itself
made of each staged page, instead of converting every page a second time in the stage.

How. The staged config lists this module as a Markdown extension: in every conversion it
replaces attr_list's tree processor by the recording one and adds the URL recorder, so MkDocs'
Markdown notes each attribute list it applies and each URL an element ends up with; the hooks
(``macros/site/hooks.py``) open a page's record before MkDocs converts it and judge it right after.
The stage says which pages to judge (``expect``: the staged folder, the page, its source file's
name and path; the source is read again only to give a finding its line); ``problems`` returns, after the engine ran, every finding of
that folder's pages in page order. The live preview and Zensical keep the stage's own
conversion (the preview must refuse a page before the engine writes it; Zensical runs
elsewhere).

Owns the records of the conversions in this process. Must not change what Markdown makes of a
page, and must not raise from inside the engine: findings are collected and reported by the
build once the engine is done (the scratch site is thrown away).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from markdown import Extension

from macros.engine.errors import Problem, RecipeError
from macros.i18n.pages import read_page
from macros.i18n.contract import _RecordingAttrList, _RecordingUrls, _Seen, published_problems

NAME = "macros.site.published"  # what the staged config lists under markdown_extensions


@dataclass
class _Page:
    name: str  # the source file, as errors name it
    path: Path  # the source file, where findings are located
    seen: _Seen | None = None
    findings: list[str] = field(default_factory=list)


_expected: dict[str, dict[str, _Page]] = {}  # staged docs folder -> page uri -> its record
_current: _Page | None = None  # the page MkDocs is converting


def _key(docs_dir) -> str:
    return os.path.realpath(docs_dir)


def forget(docs_dir) -> None:
    """Start a folder's build afresh."""
    _expected.pop(_key(docs_dir), None)


def expect(docs_dir, uri: str, name: str, path: Path) -> None:
    """Judge ``uri`` when the engine converts it from ``docs_dir``; ``path`` is its source."""
    _expected.setdefault(_key(docs_dir), {})[uri] = _Page(name, Path(path))


def begin(docs_dir, uri: str) -> None:
    """The engine is about to convert this page (MkDocs' on_page_markdown)."""
    global _current
    _current = _expected.get(_key(docs_dir), {}).get(uri)
    if _current is not None:
        _current.seen = None


def end(markdown: str) -> None:
    """The page is converted (MkDocs' on_page_content): judge what its conversion recorded.
    ``markdown`` is the page as the engine converted it."""
    global _current
    page, _current = _current, None
    if page is None:
        return
    if page.seen is None:  # the extension did not run: the conversion cannot be judged
        page.findings = [f"{page.name}: the build's Markdown did not load {NAME}, so the "
                         "page's links and attribute lists were not checked"]
        return
    found = published_problems(markdown, "", page.name, page.seen)
    if found:  # again with the source, for the lines
        try:
            source = read_page(page.path, page.name)
        except RecipeError:  # gone meanwhile: the findings without their lines
            source = ""
        found = published_problems(markdown, source, page.name, page.seen)
    page.findings = [str(Problem(f.file, f.line, f.col, f.message)) for f in found]


def problems(docs_dir) -> list[str]:
    """Every finding of the folder's pages, in page order; a page the engine never
    converted is reported too."""
    out = []
    for uri, page in sorted(_expected.get(_key(docs_dir), {}).items()):
        if page.seen is None and not page.findings:
            out.append(f"{page.name}: MkDocs did not convert this page (it leaves out a "
                       "templates/ folder and what exclude_docs or draft_docs name), so its "
                       "links and attribute lists could not be checked and its Markdown copy "
                       "would be published without them; move the page or take it out of the "
                       "exclusions")
        out += page.findings
    return out


class _Recording(Extension):
    def extendMarkdown(self, md):
        md.recipes_seen = _Seen()
        if _current is not None:
            _current.seen = md.recipes_seen
        if "attr_list" in md.treeprocessors:  # record it, never add it
            md.treeprocessors.register(_RecordingAttrList(md), "attr_list", 8)
        md.treeprocessors.register(_RecordingUrls(md), "recipes_urls", -1)  # after 'unescape'


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's name)
    return _Recording(**kwargs)
