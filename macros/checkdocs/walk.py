"""The files ``recipes check PATH…`` reads: each file given, and the files of each folder given
whose format ``sources`` reads, less what git ignores.

Owns the folder walk: every ``.gitignore`` from the repository's root (the nearest folder
above with a ``.git``) down to each file applies, as git applies it (pathspec's
``GitIgnoreSpec``, git's own wildmatch rules: negation, anchoring, ``**``, a folder rule);
``.git`` is never entered and folder symlinks are not followed. A file named on the command
line is read whatever the ignore files say (the person asked for it). Order is sorted, so the
report is the same on every machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pathspec

from macros.checkdocs.sources import format_of


def _root(folder: Path) -> Path:
    for p in (folder, *folder.parents):
        if (p / ".git").exists():
            return p
    return folder


def _spec(folder: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


class _Ignored:
    """Whether a path is ignored, by the .gitignore files of its folder and those above it up
    to the repository's root (a deeper file's rules win, as in git)."""

    def __init__(self, top: Path):
        self.root = _root(top)
        self.specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _of(self, folder: Path):
        if folder not in self.specs:
            self.specs[folder] = _spec(folder)
        return self.specs[folder]

    def __call__(self, path: Path, is_dir: bool) -> bool:
        ignored = False
        folders = [self.root] + [self.root / Path(*path.relative_to(self.root).parts[:k])
                                 for k in range(1, len(path.relative_to(self.root).parts))]
        for folder in folders:
            spec = self._of(folder)
            if spec is None:
                continue
            rel = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                ignored = bool(result.include)
        return ignored


def files(paths: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """(each file to read with its format, or None for a file named that is of no known
    format; the names given that do not exist)."""
    found: list[tuple[str, str | None]] = []
    missing: list[str] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            top = p.resolve()
            ignored = _Ignored(top)
            for folder, dirs, names in os.walk(top):
                here = Path(folder)
                dirs[:] = sorted(d for d in dirs if d != ".git"
                                 and not (here / d).is_symlink()
                                 and not ignored(here / d, True))
                for name in sorted(names):
                    full = here / name
                    if format_of(name) is None or ignored(full, False):
                        continue
                    shown = p / full.relative_to(top)
                    found.append((str(shown), format_of(name)))
        elif p.exists():
            head = ""
            if format_of(given) is None:
                try:
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        head = fh.readline(200)
                except OSError:
                    head = ""
            found.append((given, format_of(given, head)))
        else:
            missing.append(given)
    return found, missing
