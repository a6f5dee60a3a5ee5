"""Command-line tokens: one flag with its values, parsed from and printed to shell text.

Owns the shell quoting rules of every printed command, so the CLI, the pages, ``llms.txt`` and
the Playground show the same characters. Knows nothing about SGLang's catalog or the rules.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

# Values made only of these characters are printed bare.
_BARE = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")
# Reader placeholders such as <node0-ip>:20000 stay bare on purpose (the reader replaces them,
# as the upstream page shows them). Only placeholders the database declares qualify; the
# loader registers them here.
READER_PLACEHOLDERS: set[str] = set()
_ANGLE = re.compile(r"<[^<>]*>")


def quote(value: str) -> str:
    """Shell-quote ``value`` unless it is plainly safe or holds only declared placeholders."""
    if value and _BARE.match(value):
        return value
    if value and "<" in value:
        tokens = _ANGLE.findall(value)
        rest = _ANGLE.sub("", value)
        if tokens and all(t in READER_PLACEHOLDERS for t in tokens) \
                and (not rest or _BARE.match(rest)):
            return value
    return shlex.quote(value)


@dataclass(frozen=True, slots=True)
class Flag:
    """``--name v1 v2`` as a name and its (possibly empty) tuple of values."""

    name: str
    values: tuple[str, ...] = ()

    @property
    def value(self) -> str | None:
        return self.values[0] if self.values else None

    def text(self) -> str:
        return " ".join([self.name, *(quote(v) for v in self.values)])

    def words(self) -> list[str]:
        return [self.name, *self.values]


def split_words(text: str) -> list[str]:
    """shlex words of one flag string from the database (raises ValueError on bad quoting)."""
    return list(_split_cached(text))


@lru_cache(maxsize=16384)
def _split_cached(text: str) -> tuple[str, ...]:
    """The words of ``text``, kept: shlex depends on nothing but the text, and the run modes
    split the same few container options again for every selection they print."""
    return tuple(shlex.split(text, posix=True))


@lru_cache(maxsize=8192)
def _parse_cached(text: str) -> tuple[Flag, ...]:
    return tuple(_parse(text))


def parse_flag_text(text: str) -> list[Flag]:
    """Split a database flag string (``--tp-size 8`` or ``--host 0.0.0.0 --port 1``) into flags."""
    return list(_parse_cached(text))


def _parse(text: str) -> list[Flag]:
    words = split_words(text)
    flags: list[Flag] = []
    for word in words:
        if word.startswith("--"):
            name, eq, val = word.partition("=")
            flags.append(Flag(name, (val,) if eq else ()))
        elif flags:
            flags[-1] = Flag(flags[-1].name, flags[-1].values + (word,))
        else:
            raise ValueError(f"'{word}' does not start with --")
    return flags


def env_name(assignment: str) -> str:
    return assignment.split("=", 1)[0]


def env_text(assignment: str) -> str:
    name, _, value = assignment.partition("=")
    return f"{name}={quote(value)}" if value else f"{name}="
