"""Translation bookkeeping: reading pages, their front matter (every key with its place),
which Korean pages are missing or outdated, and which files a language folder may publish
(none reached through a symlink).

Owns the source-hash convention: a Korean page records ``source_hash`` (the first 12 hex
digits of the SHA-256 of its English source) in its YAML front matter; a different hash means
the English page changed after translation. The notices are ``macros.i18n.notices``'; the one
edit of a Korean page (``recipes i18n-stamp``) is ``macros.i18n.stamp``'s. Must not write.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from macros.engine.errors import Problem, RecipeError

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_BOM = "\ufeff"


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


def split_front_matter(text: str) -> tuple[str, str]:
    """(front matter, body): the body is what MkDocs hands a page's plugins (its own split)."""
    from mkdocs.utils.meta import get_data

    body = get_data(text)[0]
    at = len(text) - len(body) if text.endswith(body) else text.find(body)
    return (text[:at], body) if at > 0 else ("", body)
