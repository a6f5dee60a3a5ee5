"""Bounded output: a finding repeated many times in one file is shown a few times and then
summed up in one line, so a page that repeats a mistake five million times gives a report a
person can read (and a terminal can print), with the exact count.

A finding's shape is its file and its message with line numbers aside (``file:line[:col]:``
before it, and ``name:line`` references inside it); any finding shape seen more than ``LIMIT``
times keeps its first ``LIMIT`` lines, in their place, and gets one line after all the others:
``… and 4,999,980 more like this in FILE: <message>``. Works on findings (anything with
``file`` and ``message``, printed with ``str()``) and on message lines
(``file:line[:col]: message``).

Owns only the shaping of what is printed; counts and exit codes are the caller's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

LIMIT = 20
_WHERE = re.compile(r"(?P<file>[^\n:]+?)(?::\d+(?::\d+)?)?: (?P<message>.*)", re.S)
_LINE_REF = re.compile(r"(?<=[\w.)\]]):\d+(?::\d+)?\b")  # docs/en/index.md:12 → docs/en/index.md


def _shape(item) -> tuple[str, str, str]:
    """(file, message as shown in the summary, the key that groups the same finding)."""
    file = getattr(item, "file", None)
    message = getattr(item, "message", None)
    if file is None or message is None:
        text = str(item)
        m = _WHERE.fullmatch(text)
        file, message = (m.group("file"), m.group("message")) if m else ("", text)
    kind = getattr(item, "severity", "")
    return file, message, f"{file}\0{kind}\0{_LINE_REF.sub('', message)}"


def bounded(items: Iterable, limit: int = LIMIT) -> Iterator[str]:
    """The lines to print for ``items``, in order: each finding shape at most ``limit``
    times, then one line per shape that had more, with how many more."""
    seen: dict[str, int] = {}
    first: dict[str, tuple[str, str]] = {}
    for item in items:
        file, message, key = _shape(item)
        n = seen.get(key, 0) + 1
        seen[key] = n
        if n == 1:
            first[key] = (file, message)
        if n <= limit:
            yield str(item)
    for key, n in seen.items():
        if n > limit:
            file, message = first[key]
            where = f" in {file}" if file else ""
            yield f"… and {n - limit:,} more like this{where}: {message}"
