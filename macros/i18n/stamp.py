"""``recipes i18n-stamp``: the one edit a translator asks for. It records in a Korean page's
front matter the hash of the English page it matches, and keeps that English text where
``macros.i18n.changes`` reads it (``docs/translated-from/<lang>/``).

``stamp`` is the one function that edits a Korean page: only the ``source_hash`` of its front
matter changes, a BOM and the line ends are kept. Owns the stamp's writes: each file written whole or not at all, never through a symlink, and
only inside the language folder and the copies' folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from macros.engine.errors import Problem, RecipeError
from macros.i18n.changes import FOLDER, matched_copy
from macros.i18n.pages import DOCS, _BOM, decode, digest, display, front_matter, read_bytes


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
