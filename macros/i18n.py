"""Translation bookkeeping: which Korean pages are missing or outdated, and the notices.

Owns the source-hash convention: a Korean page records ``source_hash`` (the first 12 hex
digits of the SHA-256 of its English source) in its front matter; a different hash means the
English page changed after translation. The notices are injected at build time and never
written into the translated files. ``stamp`` is the one function that edits a Korean page,
and only when a translator runs ``recipes i18n-stamp``.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_HASH = re.compile(r"^source_hash:\s*['\"]?([0-9a-f]+)['\"]?\s*$", re.M)

# Set by the build hook: pages of the Korean build that come from the English folder.
FALLBACK_PAGES: set[str] = set()


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def recorded_hash(text: str) -> str | None:
    front = _FRONT.match(text)
    if not front:
        return None
    m = _HASH.search(front.group(1))
    return m.group(1) if m else None


def status(src_uri: str, docs: Path = DOCS, lang: str = "ko") -> str:
    """'missing', 'outdated', 'unstamped' or 'current' for one page of ``lang``."""
    en = docs / "en" / src_uri
    other = docs / lang / src_uri
    if not other.exists():
        return "missing"
    recorded = recorded_hash(other.read_text(encoding="utf-8"))
    if recorded is None:
        return "unstamped"
    return "current" if recorded == source_hash(en) else "outdated"


def notice_for(page, docs_dir: Path, lang: str) -> str | None:
    from .database import cached_database

    db = cached_database()
    src = page.file.src_uri
    # the English page, relative to this one: up out of the language folder, then its path
    url = page.url or ""
    english = "../" * (url.count("/") + 1) + url
    # raw HTML: the target is outside this site's docs, which MkDocs cannot validate
    link = f'<a href="{english}" hreflang="en">{html.escape(db.t(lang, "ui.english-source"))}</a>'
    if src in FALLBACK_PAGES:
        return f'!!! warning ""\n    {db.t(lang, "ui.not-translated")}\n'
    en = docs_dir.parent / "en" / src
    if not en.exists():
        return None
    state = status(src, docs_dir.parent, lang)
    if state in ("outdated", "unstamped"):
        return f'!!! warning ""\n    {db.t(lang, "ui.outdated")} {link}\n'
    return None


def stamp(src_uri: str, docs: Path = DOCS, lang: str = "ko") -> str:
    """Record the current English hash in the translated page's front matter."""
    en = docs / "en" / src_uri
    other = docs / lang / src_uri
    digest = source_hash(en)
    text = other.read_text(encoding="utf-8")
    front = _FRONT.match(text)
    if front:
        body = front.group(1)
        body = _HASH.sub(f"source_hash: {digest}", body) if _HASH.search(body) \
            else body + f"\nsource_hash: {digest}"
        text = f"---\n{body}\n---\n" + text[front.end():]
    else:
        text = f"---\nsource_hash: {digest}\n---\n\n" + text
    other.write_text(text, encoding="utf-8")
    return digest
