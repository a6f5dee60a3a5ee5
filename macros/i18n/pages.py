"""Translation bookkeeping: reading pages, their front matter (every key with its place),
which Korean pages are missing or outdated, which files a language folder may publish (none
reached through a symlink), the notices, and the one edit a translator asks for (``recipes
i18n-stamp``).

Owns the source-hash convention: a Korean page records ``source_hash`` (the first 12 hex
digits of the SHA-256 of its English source) in its YAML front matter; a different hash means
the English page changed after translation. Owns the notices' Markdown: plain functions any
build stage can call (mkdocs-macros calls them after a page's template ran, so notice text is
never template code); text from the database reaches the page escaped; an outdated notice
lists the English paragraphs changed since the stamp (``macros.i18n.changes``). ``stamp`` is
the one function that edits a Korean page: only the ``source_hash`` of its front matter
changes, a BOM and the line ends are kept; it also keeps the English text it matched in
``docs/translated-from/<lang>/`` (what the outdated notice compares with). Must not write
anything but that line and that copy, and only for a page ``stamp_target`` accepted.
"""

from __future__ import annotations

import hashlib
import html
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml

from macros.engine.errors import Problem, RecipeError

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_BOM = "\ufeff"

# Set by the build hook: pages of the Korean build that come from the English folder.
FALLBACK_PAGES: set[str] = set()


def display(path: Path, docs: Path) -> str:
    """``docs/ko/x.md`` for a page of ``docs``: the name messages use."""
    base = docs.parent
    return path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path)


def read_bytes(path: Path, name: str) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise RecipeError([Problem(name, None, None, "is a folder, not a Markdown page")]) from None
    except OSError as exc:
        raise RecipeError([Problem(name, None, None,
                                   f"cannot be read ({exc.strerror or exc})")]) from None


def decode(data: bytes, name: str) -> str:
    """UTF-8 text with its BOM and line ends as they are; a bad byte is reported at line:col."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RecipeError([Problem(name, line, col, f"not UTF-8 text ({exc.reason})")]) from None


def read_page(path: Path, name: str) -> str:
    """A page as the build reads it: UTF-8 without its BOM, every line end as ``\\n``."""
    text = decode(read_bytes(path, name), name)
    return text.removeprefix(_BOM).replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class Entry:
    """One front-matter key with its value as MkDocs's YAML loader builds it."""
    key: str
    value: object
    line: int  # of the key, 1-based in the page
    col: int


@dataclass(frozen=True)
class FrontMatter:
    source_hash: str | None  # as written, never re-typed by YAML (a hash of digits stays text)
    hash_span: tuple[int, int] | None  # 'source_hash: value' in the text that was parsed
    close_at: int | None  # where the closing '---' line starts (None: no front matter)
    entries: tuple[Entry, ...] = ()


def _lines(text: str, start: int):
    """(start, end) of every line from ``start``, end before its line end."""
    pos = start
    while True:
        end = text.find("\n", pos)
        if end < 0:
            yield pos, len(text)
            return
        yield pos, end
        pos = end + 1


def _is_delimiter(line: str, marks: tuple[str, ...]) -> bool:
    return line.rstrip("\r").rstrip(" \t") in marks


def front_matter(text: str, name: str) -> FrontMatter:
    """The YAML front matter of a page (``text`` as read, BOM and CR allowed), parsed the way
    MkDocs reads it; every way it can be broken is a RecipeError at its line."""
    start = len(_BOM) if text.startswith(_BOM) else 0
    lines = _lines(text, start)
    first = next(lines)
    if not _is_delimiter(text[first[0]:first[1]], ("---",)):
        return FrontMatter(None, None, None)
    yaml_start = first[1] + 1
    for s, e in lines:
        if _is_delimiter(text[s:e], ("---", "...")):
            close_at = s
            break
    else:
        raise RecipeError([Problem(name, 1, 1, "front matter is never closed: end it with a "
                                   "line '---'")])
    source = text[yaml_start:close_at]

    def problem(line0: int | None, col0: int | None, what: str) -> RecipeError:
        line = line0 + 2 if line0 is not None else None
        col = col0 + 1 if col0 is not None else None
        return RecipeError([Problem(name, line, col, f"front matter: {what}")])

    try:
        for event in yaml.parse(source, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                raise problem(mark.line, mark.column, "aliases (*name) are not supported here")
        node = yaml.compose(source, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context
        opened = exc.context_mark
        if exc.problem and opened and mark and opened.line != mark.line:
            what += f" ({exc.context} at line {opened.line + 2})"
        raise problem(mark.line if mark else None, mark.column if mark else None,
                      f"YAML syntax error: {what}") from None
    except yaml.reader.ReaderError as exc:
        line0 = source.count("\n", 0, exc.position)
        col0 = exc.position - (source.rfind("\n", 0, exc.position) + 1)
        raise problem(line0, col0,
                      f"character U+{exc.character:04X} is not allowed in YAML") from None
    except RecursionError:
        raise problem(0, 0, "nested too deeply to read") from None
    if node is None:
        return FrontMatter(None, None, close_at)
    if not isinstance(node, yaml.MappingNode):
        raise problem(node.start_mark.line, node.start_mark.column,
                      "must be keys with values (like 'source_hash: 3f2a9c1b7d40')")
    seen: set = set()
    source_hash = hash_span = None
    entries = []
    values = yaml.SafeLoader("")  # builds each value the way MkDocs's loader would
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode):
            raise problem(key.start_mark.line, key.start_mark.column, "a key must be a plain name")
        if key.value in seen:
            raise problem(key.start_mark.line, key.start_mark.column,
                          f"duplicate key '{key.value}'")
        seen.add(key.value)
        try:
            built = values.construct_object(value, deep=True)
        except (yaml.MarkedYAMLError, ValueError, TypeError, OverflowError,
                RecursionError) as exc:
            what = exc.problem if isinstance(exc, yaml.MarkedYAMLError) else exc
            raise problem(value.start_mark.line, value.start_mark.column,
                          f"'{key.value}' has a value YAML cannot read ({what})") from None
        if key.value == "source_hash":
            if not isinstance(value, yaml.ScalarNode):
                raise problem(value.start_mark.line, value.start_mark.column,
                              "source_hash must be one value (12 hex digits)")
            source_hash = built = value.value
            hash_span = (yaml_start + key.start_mark.index, yaml_start + value.end_mark.index)
        entries.append(Entry(key.value, built, key.start_mark.line + 2,
                             key.start_mark.column + 1))
    return FrontMatter(source_hash, hash_span, close_at, tuple(entries))


def digest(data: bytes) -> str:
    """The source-hash convention: the first 12 hex digits of the SHA-256 of the bytes."""
    return hashlib.sha256(data).hexdigest()[:12]


def source_hash(path: Path, name: str | None = None) -> str:
    return digest(read_bytes(path, name or str(path)))


def status(src_uri: str, docs: Path = DOCS, lang: str = "ko") -> str:
    """'missing', 'outdated', 'unstamped' or 'current' for one page of ``lang``; a page whose
    front matter is broken raises RecipeError."""
    en = docs / "en" / src_uri
    other = docs / lang / src_uri
    if not other.exists():
        return "missing"
    name = display(other, docs)
    recorded = front_matter(read_page(other, name), name).source_hash
    if recorded is None:
        return "unstamped"
    return "current" if recorded == source_hash(en, display(en, docs)) else "outdated"


def notice(src_uri: str, url: str, docs: Path, lang: str, t: Callable[..., str]) -> str | None:
    """The notice (Markdown) a page of the ``lang`` build starts with, or None.

    ``t`` gives the reader text for an id (with its fields). An outdated page's notice lists
    the English paragraphs changed since its stamp, when the stamp kept the English text it
    matched. Database text is data: escaped for Markdown and HTML here, and the caller adds the
    notice after the page's template ran.
    """
    from macros.i18n.changes import changes
    from macros.site.pages import _md

    def sentence(text_id: str, **fields: str) -> str:
        return _md(" ".join(str(t(text_id, **fields)).split()))

    if src_uri in FALLBACK_PAGES:
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
                     f"“{_md(change.excerpt)}”\n")
    return note


def with_notice(markdown: str, note: str | None) -> str:
    return note + "\n\n" + markdown if note else markdown


def symlink_problem(path: Path, root: Path) -> str | None:
    """Why the site will not publish ``path``, a file or folder inside the language folder
    ``root``: a symlink on the way (the file itself or a folder above it) could lead anywhere
    on the machine. None when the path is itself."""
    uri = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    try:
        real = str(Path(path).resolve())
        if real == str(Path(root).resolve() / uri):
            return None
    except (OSError, RuntimeError):  # a symlink loop is a RuntimeError before Python 3.13
        real = "a symlink loop"
    folder = display(Path(root), Path(root).parent)
    return (f"is reached through a symlink (it leads to {real}); the site publishes only files "
            f"that are inside {folder}/ themselves")


def stamp_target(page: str, docs: Path = DOCS, lang: str = "ko") -> str:
    """The page path of a Korean page named on the command line (``models/x.md``,
    ``docs/ko/models/x.md`` or a path inside docs/ko), or RecipeError saying why it may not be
    stamped: only an existing Markdown file inside docs/<lang>, reached without a symlink,
    whose English source exists."""
    def refuse(why: str) -> RecipeError:
        return RecipeError([Problem(page, None, None, why)])

    root = docs / lang
    root_abs = Path(os.path.abspath(root))
    given = Path(page)
    if given.is_absolute():
        candidate = given
    elif given.parts[:1] == ("docs",):  # docs/ko/x.md, or docs/en/x.md given by mistake
        candidate = docs.joinpath(*given.parts[1:])
    else:
        candidate = root / given
    lexical = Path(os.path.abspath(candidate))  # '..' folded, symlinks not followed
    if not lexical.is_relative_to(root_abs) or lexical == root_abs:
        raise refuse(f"not a page under docs/{lang}/ (give it as models/x.md or "
                     f"docs/{lang}/models/x.md)")
    uri = lexical.relative_to(root_abs).as_posix()
    if lexical.suffix != ".md":
        raise refuse(f"not a Markdown page (.md); only pages under docs/{lang}/ can be stamped")
    real = lexical.resolve()
    if real != root_abs.resolve() / uri:
        raise refuse(f"is reached through a symlink (it leads to {real}); stamp the page itself")
    if not real.is_file():
        raise refuse(f"no such page docs/{lang}/{uri}")
    if not (docs / "en" / uri).is_file():
        raise refuse(f"has no English source page docs/en/{uri}")
    return uri


def stamp(src_uri: str, docs: Path = DOCS, lang: str = "ko") -> str:
    """Record the current English hash in the translated page's front matter. Only that line
    changes (or is added): a BOM, the line ends and every other byte are kept. The English
    text it matched is kept beside (``macros.i18n.changes``)."""
    en = docs / "en" / src_uri
    other = docs / lang / src_uri
    name = display(other, docs)
    english = read_bytes(en, display(en, docs))  # read once: the copy is what the hash names
    recorded = digest(english)
    text = decode(read_bytes(other, name), name)
    front = front_matter(text, name)
    line_end = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    entry = f"source_hash: {recorded}"
    if front.hash_span:
        start, end = front.hash_span
        new = text[:start] + entry + text[end:]
    elif front.close_at is not None:
        new = text[:front.close_at] + entry + line_end + text[front.close_at:]
    else:
        bom = _BOM if text.startswith(_BOM) else ""
        new = bom + f"---{line_end}{entry}{line_end}---{line_end}{line_end}" + text[len(bom):]
    try:
        written = front_matter(new, name).source_hash
    except RecipeError:  # e.g. a one-line {flow: mapping} that a new line would break
        written = None
    if written != recorded:
        raise RecipeError([Problem(name, 1, None, "could not add source_hash to this front "
                                   "matter; write it on a line of its own, like "
                                   f"'source_hash: {recorded}'")])
    _write_matched_copy(src_uri, docs, lang, english)
    _replace(other, new.encode("utf-8"), name, other.stat().st_mode & 0o7777)
    return recorded


def _replace(path: Path, data: bytes, name: str, mode: int) -> None:
    """Write ``path`` whole or not at all: a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.stamp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise RecipeError([Problem(name, None, None,
                                   f"cannot be written ({exc.strerror or exc})")]) from None


def _write_matched_copy(src_uri: str, docs: Path, lang: str, data: bytes) -> None:
    """Keep the English text a stamp matched, byte for byte, where
    ``macros.i18n.changes`` reads it; written first, so a failed stamp leaves a copy whose hash
    no page records, which reads as "no copy"."""
    from macros.i18n.changes import FOLDER, matched_copy

    copy = matched_copy(src_uri, docs, lang)
    name = display(copy, docs)
    # checked before any folder is made: a linked folder must not get one elsewhere
    for folder in copy.relative_to(docs).parents[:-1]:  # docs/ itself is the caller's choice
        if (docs / folder).is_symlink():
            raise RecipeError([Problem(name, None, None, "is reached through a symlink "
                                       f"({display(docs / folder, docs)}); the copy of the "
                                       f"English text is written only inside {FOLDER}/ itself")])
    try:
        copy.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecipeError([Problem(name, None, None,
                                   f"cannot be written ({exc.strerror or exc})")]) from None
    _replace(copy, data, name, 0o644)
