"""The notices a page of a translated site starts with: not yet translated (an English page
standing in), or outdated (the English page changed since the stamp), with the English
paragraphs changed since then (``macros.i18n.changes``).

Owns the notices' Markdown: plain functions any build step can call. Database text is data:
escaped for Markdown and HTML here (``macros.engine.inert``).
"""

from __future__ import annotations

import html
from pathlib import Path
from collections.abc import Callable, Collection

from macros.engine.inert import md
from macros.i18n.changes import changes
from macros.i18n.pages import status


def notice(src_uri: str, url: str, docs: Path, lang: str, t: Callable[..., str], *,
           fallbacks: Collection[str]) -> str | None:
    """The notice (Markdown) a page of the ``lang`` build starts with, or None.

    ``t`` gives the reader text for an id (with its fields); ``fallbacks`` are the pages this
    build of ``lang`` publishes from the English folder. An outdated page's notice lists
    the English paragraphs changed since its stamp, when the stamp kept the English text it
    matched. Database text is data: escaped for Markdown and HTML here, and the caller adds the
    notice after the page's template ran.
    """
    def sentence(text_id: str, **fields: str) -> str:
        return md(" ".join(str(t(text_id, **fields)).split()))

    if src_uri in fallbacks:
        return f'!!! warning ""\n    {sentence("ui.not-translated")}\n'
    if not (docs / "en" / src_uri).exists():
        return None
    if status(src_uri, docs, lang) not in ("outdated", "unstamped"):
        return None
    # the English page, relative to this one: up out of the language folder, then its path
    english = "../" * (url.count("/") + 1) + url
    # raw HTML: the target is outside this site's docs, which MkDocs cannot validate
    link = (f'<a href="{html.escape(english, quote=True)}" hreflang="en">'
            f'{sentence("ui.english-source")}</a>')
    note = f'!!! warning ""\n    {sentence("ui.outdated")} {link}\n'
    changed = changes(src_uri, docs, lang) or []
    if changed:
        note += f"\n    {sentence('ui.changes')}\n\n"
        for change in changed:
            note += (f"    - {sentence(f'ui.change.{change.kind}', lines=change.lines)} "
                     f"“{md(change.excerpt)}”\n")
    return note


def with_notice(markdown: str, note: str | None) -> str:
    return note + "\n\n" + markdown if note else markdown
