"""``recipes check --fix`` and ``--diff``: deprecated spellings and abbreviated flags rewritten
in the files they were found in, every other byte kept.

Owns turning the commands of each checked block (as ``engine/check.py`` parses them) into
edits of a file's text: an abbreviation (what ``catalog.abbreviated-flag`` reports) becomes the
flag's full name; a deprecated flag that ``recipes/catalog/migrations.yaml`` migrates (where the
judged release deprecates it and has the replacement) goes, its partners take their new names and keep their values,
and an absent partner's default takes its place. An edit touches the flag's own characters
(found on the finding's line, outside quotes and comments, and read back from the file before
it is made) and, when a deleted flag leaves its line empty but for a ``\\``, that line; line
ends (LF, CRLF), a BOM, indentation, quoting and a notebook's JSON escapes stay as they were.
Only files with an edit are written; all are checked first (still there, unchanged since they
were read, writable, not a symlink), and nothing is written if one is not.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field

from macros.checkdocs.run import Report, read
from macros.checkdocs.sources import Block, Line
from macros.engine.errors import Problem, RecipeError


@dataclass
class Edit:
    start: int  # offsets in the file's text
    end: int
    text: str


@dataclass
class Change:
    path: str
    before: str
    edits: list[Edit] = field(default_factory=list)

    def after(self) -> str:
        out, at = [], 0
        for e in sorted(self.edits, key=lambda e: e.start):
            out.append(self.before[at:e.start])
            out.append(e.text)
            at = e.end
        out.append(self.before[at:])
        return "".join(out)


def _spans(line: str, name: str) -> list[tuple[int, int]]:
    """Where the flag ``name`` is written on a line as a word of its own (``name`` or
    ``name=…``), outside quotes and a comment."""
    out = []
    for m in re.finditer(rf"(?<![^\s]){re.escape(name)}(?=[=\s]|$)", line):
        before = line[:m.start()]
        quotes = re.sub(r"\\.", "", before)
        if quotes.count("'") % 2 or quotes.count('"') % 2 or re.search(r"(^|\s)#", before):
            continue
        out.append((m.start(), m.end()))
    return out


class _Planner:
    def __init__(self, text: str):
        self.text = text
        self.edits: dict[tuple[int, int], Edit] = {}

    def replace(self, where: Line, line: str, col: tuple[int, int], new: str) -> None:
        a, b = where.offset(col[0]), where.offset(col[1])
        if self.text[a:b] != line[col[0]:col[1]]:
            return  # the block's text is not the file's here: leave it
        self.edits[(a, b)] = Edit(a, b, new)

    def delete(self, where: Line, line: str, col: tuple[int, int]) -> None:
        rest = (line[:col[0]] + line[col[1]:]).strip()
        a, b = where.offset(col[0]), where.offset(col[1])
        if self.text[a:b] != line[col[0]:col[1]]:
            return
        if rest == "\\":  # the line held the flag alone: the whole line goes
            start = self.text.rfind("\n", 0, where.start) + 1 if where.cols is None \
                else where.offset(0)
            end = where.offset(len(line))
            for ending in ("\\r\\n", "\\n", "\r\n", "\n") if where.cols is not None \
                    else ("\r\n", "\n"):
                if self.text.startswith(ending, end):
                    end += len(ending)
                    break
            self.edits[(start, end)] = Edit(start, end, "")
            return
        head = line[:col[0]]
        if head.strip():  # the blanks before it go with it
            cut = len(head) - len(head.rstrip(" \t"))
            a = where.offset(col[0] - cut)
        else:  # first on its line: the blanks after it go
            tail = line[col[1]:]
            b = where.offset(col[1] + len(tail) - len(tail.lstrip(" \t")))
        self.edits[(a, b)] = Edit(a, b, "")


def _block_edits(db, block: Block, planner: _Planner, version: str) -> None:
    """The edits of one block, read from its commands as the engine parses them (not from the
    report, which says an abbreviation once per file)."""
    from macros.engine.check import parse

    lines = block.text.split("\n")
    server = db.releases.catalog(version) if version != db.catalog.version else db.catalog
    catalogs = {"server": server, "router": db.router_catalog}
    try:
        commands = parse(block.text, catalogs)
    except ValueError:  # shell text the reader cannot follow: nothing to fix here
        return
    for cmd in commands:
        catalog = catalogs.get(cmd.program)
        if catalog is None:
            continue
        for name, _ in cmd.flags:
            hit = catalog.lookup(name)
            n = cmd.flag_lines.get(name)
            if hit.kind == "abbreviated" and n is not None and 1 <= n <= len(lines):
                for col in _spans(lines[n - 1], name):
                    planner.replace(block.at(n), lines[n - 1], col, hit.spec.name)
    # a migration's rename of the same word (``--dp`` → ``--attn-dp-size``) is the one that stays
    for m in db.releases.migrations:
        if db.releases.applies(m, version):
            _migrate(block, lines, commands, m, server, planner)


def _migrate(block, lines, commands, m, catalog, planner) -> None:
    def written(cmd, full):  # the flag as the command spells it (an abbreviation too)
        out = []
        for name, _ in cmd.flags:
            spec = catalog.lookup(name).spec
            if spec is not None and spec.name == full:
                out.append(name)
        return out

    for cmd in commands:
        if cmd.program != "server":
            continue
        old = written(cmd, m.flag)
        at_line = cmd.flag_lines.get(old[0]) if old else None
        if at_line is None:
            continue
        present = False
        for partner, renamed in m.rename.items():
            for name in written(cmd, partner):
                present = True
                n = cmd.flag_lines[name]
                for col in _spans(lines[n - 1], name):
                    planner.replace(block.at(n), lines[n - 1], col, renamed)
        line = lines[at_line - 1]
        for col in _spans(line, old[0])[:1]:
            if present:
                planner.delete(block.at(at_line), line, col)
            else:
                new = " ".join(f"{name} {value}" for name, value in m.default.items())
                planner.replace(block.at(at_line), line, col, new)


def plan(db, report: Report, sglang: str | None = None) -> list[Change]:
    """The changes --fix makes: one per file with at least one edit."""
    version = db.releases.named(sglang) if sglang else db.catalog.version
    by_path: dict[str, list] = {}
    for checked in report.checked:
        block = checked.block
        if block.path in ("<stdin>", "<command line>") or not block.fixable:
            continue
        by_path.setdefault(block.path, []).append(checked)
    changes = []
    for path, checked in by_path.items():
        text, problem = read(path)
        if problem is not None:
            raise RecipeError([Problem(path, problem.line, None, problem.message)])
        planner = _Planner(text)
        for c in checked:
            if not c.other:
                _block_edits(db, c.block, planner, version)
        if planner.edits:
            change = Change(path, text, sorted(planner.edits.values(), key=lambda e: e.start))
            if change.after() != text:
                changes.append(change)
    return changes


def diff(changes: list[Change]) -> str:
    out = []
    for c in changes:
        relative = not os.path.isabs(c.path)
        out.extend(difflib.unified_diff(c.before.splitlines(keepends=True),
                                        c.after().splitlines(keepends=True),
                                        f"a/{c.path}" if relative else c.path,
                                        f"b/{c.path}" if relative else c.path))
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n\\ No newline at end of file\n"
    return "".join(out)


def write(changes: list[Change]) -> None:
    """Write every change, after checking them all: nothing is written if one file cannot
    be (gone, changed since it was read, read-only, a symlink)."""
    problems = []
    for c in changes:
        if os.path.islink(c.path):
            problems.append(Problem(c.path, None, None, "is a symlink: --fix writes only the "
                                    "files given, not what a link points to; fix its target "
                                    "by name"))
        elif not os.path.exists(c.path):
            problems.append(Problem(c.path, None, None, "no longer exists: it was removed "
                                    "after it was read; nothing was written"))
        elif not os.access(c.path, os.W_OK) or not os.stat(c.path).st_mode & 0o222:
            problems.append(Problem(c.path, None, None, "is read-only: --fix cannot write "
                                    "it; nothing was written (make it writable, or see the "
                                    "change with --diff)"))
        else:
            text, _ = read(c.path)
            if text != c.before:
                problems.append(Problem(c.path, None, None, "changed while it was checked; "
                                        "nothing was written: run --fix again"))
    if problems:
        raise RecipeError(problems)
    for c in changes:
        with open(c.path, "r+b") as fh:
            data = c.after().encode("utf-8")
            fh.write(data)
            fh.truncate(len(data))
