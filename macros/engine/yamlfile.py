"""YAML reading that remembers where every value came from.

Owns turning a YAML file into plain Python data plus a map from each value's path (a tuple of
keys and list indexes) to its line and column, so later validation can point at the exact spot.
Owns the YAML subset recipe files may use, and says where a file leaves it: every OS and
decoding problem, duplicate keys (plain PyYAML silently overwrites them), anchors, aliases and
merge keys (an alias bomb or a recursive alias would otherwise hang or crash every command),
non-scalar keys, tags, and YAML 1.1 spellings that silently change a value (``yes``, ``010``,
``0x10``, ``1_000``, dates). The tree is built from the parser's events without recursion, so
nesting cannot exhaust the stack. Knows nothing about recipes' fields.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from macros.engine.errors import INVISIBLE, Problem, RecipeError

try:  # the C parser is several times faster on the cell database
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

Path_ = tuple[Any, ...]

MAX_DEPTH = 64  # recipe files nest about 8 deep; the cap keeps every later walk shallow
SHOWN_ALIASES = 10  # an alias bomb has dozens; the first few say what to fix

# The characters YAML forbids (PyYAML's Reader.NON_PRINTABLE), found here to report a line:col.
_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                            "\U00010000-\U0010FFFF]")
_PLAIN_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null")}
_resolver = yaml.resolver.Resolver()
_constructor = yaml.SafeLoader("")  # only to tell a maintainer what YAML 1.1 would have read


class Marked:
    """Data of one YAML file and the (line, col) of every node, keyed by path; and how each
    decimal fraction was written (``spelled``: "33.10" reads as the float 33.1, and a figure
    shown as measured keeps the digits it was given)."""

    def __init__(self, file: str, data: Any, marks: dict[Path_, tuple[int, int]],
                 spelled: dict[Path_, str] | None = None):
        self.file = file
        self.data = data
        self.marks = marks
        self.spelled = spelled or {}

    def where(self, path: Path_) -> tuple[int | None, int | None]:
        """Line and column of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.marks:
                return self.marks[path]
            path = path[:-1]
        return self.marks.get((), (None, None))

    def problem(self, path: Path_, message: str) -> Problem:
        line, col = self.where(path)
        return Problem(self.file, line, col, message)


def read_text(path: Path | str, name: str) -> str:
    """The UTF-8 text of a regular file; every OS or encoding problem as a RecipeError naming
    ``name`` (a decoding error at the line:col of the first bad byte)."""
    def fail(message: str, line: int | None = None, col: int | None = None):
        return RecipeError([Problem(name, line, col, message)])

    try:
        # O_NONBLOCK: a FIFO in place of a YAML file must not block the open.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise fail("file not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise fail("cannot read: symbolic link loop") from None
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise fail("is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):  # a device or FIFO could block or never end
            raise fail("is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read()
    except OSError as exc:
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
        raise fail(f"not UTF-8 text: byte 0x{data[exc.start]:02x} ({exc.reason}); "
                   "save the file as UTF-8", line, col) from None
    return text


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


def _yaml11_reads(tag: str, value: str) -> str:
    try:
        return repr(_constructor.construct_object(yaml.ScalarNode(tag, value)))
    except (yaml.YAMLError, ValueError, OverflowError):
        return "something else"


def _scalar(event: yaml.ScalarEvent) -> tuple[Any, str | None]:
    """The value of a scalar and, when it leaves the recipe subset, why."""
    value = event.value
    tag = event.tag
    if tag in (None, "!"):
        tag = _resolver.resolve(yaml.ScalarNode, value, event.implicit)
    if tag not in _SCALAR_TAGS:
        if tag == _TAG + "merge":
            return None, ("merge keys ('<<') are not supported in recipe files; write the "
                          "keys out")
        if tag == _TAG + "timestamp":
            return None, f"'{value}' is read as a date by YAML; quote it for text"
        if event.tag in (None, "!"):  # an implicit special value such as '='
            return None, f"'{value}' has a special meaning in YAML; quote it for text"
        return None, (f"tag '{_short_tag(tag)}' is not supported in recipe files (use text, "
                      "numbers, true/false, null, lists and mappings)")
    if tag == _TAG + "str":
        return value, None
    if tag == _TAG + "null":
        return None, None
    if tag == _TAG + "bool":
        if value.lower() in ("true", "false"):
            return value.lower() == "true", None
        word = "true" if value.lower() in ("yes", "on") else "false"
        return None, f"'{value}' is read as {word} by YAML; write {word}, or quote it for text"
    if tag == _TAG + "int":
        if not _PLAIN_INT.match(value):
            return None, (f"'{value}' is not a plain decimal number (YAML reads it as "
                          f"{_yaml11_reads(tag, value)}); write it in decimal digits, or quote "
                          "it for text")
        try:
            return int(value), None
        except ValueError:  # longer than Python converts (4,300 digits)
            return None, f"a number of {len(value):,} digits is too large"
    if "_" in value or ":" in value:
        return None, (f"'{value}' is not a plain decimal number (YAML reads it as "
                      f"{_yaml11_reads(tag, value)}); write it in decimal digits, or quote it "
                      "for text")
    # NaN and infinities are values here; the schema refuses them where a number must be finite.
    return _constructor.construct_yaml_float(yaml.ScalarNode(tag, value)), None


class _Frame:
    """A mapping or list being built, with where its values go."""

    __slots__ = ("value", "path", "mark", "key", "key_set", "keep")

    def __init__(self, value, path: Path_ | None, mark):
        self.value = value
        self.path = path  # None: the value is discarded (a duplicate key's), so no marks
        self.mark = mark
        self.key: Any = None
        self.key_set = False
        self.keep = True  # False after a bad or duplicate key: its value is dropped


KEPT_FILES = 1024  # files read before, by name and text: a model has about 10
_kept: dict[tuple[str, str], Marked] = {}


def load(path: Path | str, display: str | None = None) -> Marked:
    """Read ``path``; raise RecipeError with file:line:col for every way it is not a
    recipe file (OS and encoding problems, syntax errors, duplicate keys, anchors…).

    A file read before under the same name with the same text is not parsed again (the live
    preview reloads the database at each edit, and the tests load hundreds of databases that
    differ in one file): the tree kept from the first reading is handed out as a fresh copy,
    so a caller may change what it gets. Only a file that loaded cleanly is kept; the file is
    read every time, so an edit is always seen."""
    path = Path(path)
    name = display or str(path)
    text = read_text(path, name)
    kept = _kept.get((name, text))
    if kept is None:
        kept = _parse(name, text)
        while _kept and len(_kept) >= KEPT_FILES:
            del _kept[next(iter(_kept))]  # the oldest
        if KEPT_FILES:
            _kept[(name, text)] = kept
    return Marked(name, _copy(kept.data), dict(kept.marks), dict(kept.spelled))


def _copy(value: Any) -> Any:
    """A copy of a loaded tree (mappings, lists and immutable scalars; nested at most
    MAX_DEPTH deep)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _parse(name: str, text: str) -> Marked:
    """``text`` of the file ``name`` as a Marked tree (RecipeError: every problem)."""
    bad = _NON_PRINTABLE.search(text)
    if bad:
        i, char = bad.start(), bad.group()
        what = "a NUL byte" if char == "\0" else f"control character U+{ord(char):04X}"
        raise RecipeError([Problem(name, text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i),
                                   f"{what} is not allowed in a YAML file")])
    marks: dict[Path_, tuple[int, int]] = {}
    spelled: dict[Path_, str] = {}  # each decimal fraction as written
    problems: list[Problem] = []

    def add(mark, message: str) -> None:
        problems.append(Problem(name, mark.line + 1, mark.column + 1, message))

    stack: list[_Frame] = []
    root: list[Any] = []
    documents = 0
    aliases = 0  # anchors and aliases seen

    def refuse_alias(mark, message: str) -> None:
        nonlocal aliases
        aliases += 1
        if aliases <= SHOWN_ALIASES:
            add(mark, message)

    def child_path() -> Path_ | None:
        """The path of the value that starts now (None: not kept)."""
        if not stack:
            return ()
        top = stack[-1]
        if top.path is None:
            return None
        if isinstance(top.value, list):
            return top.path + (len(top.value),)
        if not top.key_set:
            return None  # keys carry no marks of their own
        return top.path + (top.key,) if top.keep else None

    def deliver(value: Any, start_mark, is_scalar: bool) -> None:
        if not stack:
            root.append(value)
            return
        top = stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
            return
        if not top.key_set:
            top.key_set, top.keep, top.key = True, True, value
            if not is_scalar:
                kind = "list" if isinstance(value, list) else "mapping"
                add(start_mark, f"a {kind} cannot be a mapping key; keys are text or numbers")
                top.keep = False
            elif value in top.value:
                add(start_mark, f"duplicate key '{value}' (the first one is kept by YAML, so "
                    "this one would be lost)")
                top.keep = False
            return
        if top.keep:
            top.value[top.key] = value
        top.key_set, top.key = False, None

    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    add(event.start_mark, "a recipe file holds one YAML document; remove this "
                        "'---' and what follows, or move it into its own file")
                    break
                continue
            if isinstance(event, yaml.AliasEvent):
                refuse_alias(event.start_mark, f"alias '*{event.anchor}': aliases are not "
                             "supported in recipe files; write the value out")
                deliver(None, event.start_mark, True)
                continue
            if isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
                if event.anchor is not None:
                    refuse_alias(event.start_mark, f"anchor '&{event.anchor}': anchors and "
                                 "aliases are not supported in recipe files; write the value out")
                where = child_path()
                if where is not None:
                    marks[where] = (event.start_mark.line + 1, event.start_mark.column + 1)
            if isinstance(event, yaml.ScalarEvent):
                value, bad = _scalar(event)
                if bad:
                    add(event.start_mark, bad)
                elif isinstance(value, float) and where is not None:
                    spelled[where] = event.value
                hidden = INVISIBLE.search(event.value)
                if hidden:
                    at = text.find(hidden.group(), event.start_mark.index, event.end_mark.index)
                    line = text.count("\n", 0, at) + 1 if at >= 0 else event.start_mark.line + 1
                    col = at - text.rfind("\n", 0, at) if at >= 0 else event.start_mark.column + 1
                    problems.append(Problem(name, line, col, f"invisible character "
                                            f"U+{ord(hidden.group()):04X} in '{event.value}': it "
                                            "shows as nothing or reorders the text; delete it"))
                deliver(value, event.start_mark, True)
            elif isinstance(event, yaml.CollectionStartEvent):
                is_map = isinstance(event, yaml.MappingStartEvent)
                default = _TAG + ("map" if is_map else "seq")
                if event.tag not in (None, "!", default):
                    add(event.start_mark, f"tag '{_short_tag(event.tag)}' is not supported in "
                        "recipe files (use text, numbers, true/false, null, lists and mappings)")
                if len(stack) >= MAX_DEPTH:
                    add(event.start_mark, f"nested more than {MAX_DEPTH} levels deep")
                    break
                stack.append(_Frame({} if is_map else [], where, event.start_mark))
            elif isinstance(event, yaml.CollectionEndEvent):
                frame = stack.pop()
                deliver(frame.value, frame.mark, False)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "YAML syntax error"
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        problems.append(Problem(name, line, col, f"YAML syntax error: {what}"))
    except yaml.YAMLError as exc:  # unmarked; load already refused the characters it knows
        problems.append(Problem(name, None, None, f"YAML syntax error: {exc}"))
    if aliases > SHOWN_ALIASES:
        problems.append(Problem(name, None, None, f"{aliases - SHOWN_ALIASES} more anchors or "
                                "aliases not shown; write every value out"))
    if problems:
        raise RecipeError(problems)
    return Marked(name, root[0] if root else None, marks, spelled)
