"""A Jupyter notebook's cells with the place of every character in the file.

Owns reading the notebook's JSON so that each character of a cell's source is known by its
offset in the file's text (``Cell.offsets``): a finding is reported at the file's line, and a
fix is written inside the JSON string it belongs to, escapes and every other byte kept. The
standard ``json`` module gives values only, so strings are read here with their spans; the
structure is plain JSON (RFC 8259), anything else is a clear error with its line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t"}


class NotebookError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


@dataclass
class Str:
    """A JSON string: its value and, for each of its characters, the offset in the file where
    that character's spelling starts (one more entry: the offset of the closing quote)."""

    value: str
    offsets: list[int]


@dataclass
class Cell:
    number: int  # 1-based, as a notebook viewer counts cells
    kind: str  # code | markdown | raw
    source: str
    offsets: list[int]  # of each character of source, and one past its end
    language: str  # the notebook's kernel language (python, bash, …)


def _decode(text: str, start: int, end: int) -> Str:
    """The string literal text[start:end] (quotes included), with each character's offset."""
    value: list[str] = []
    offsets: list[int] = []
    i, stop = start + 1, end - 1
    while i < stop:
        c = text[i]
        if c != "\\":
            value.append(c)
            offsets.append(i)
            i += 1
            continue
        kind = text[i + 1]
        if kind == "u":
            code = int(text[i + 2:i + 6], 16)
            width = 6
            if 0xD800 <= code < 0xDC00 and text[i + 6:i + 8] == "\\u":
                low = int(text[i + 8:i + 12], 16)
                if 0xDC00 <= low < 0xE000:
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    width = 12
            value.append(chr(code))
            offsets.append(i)
            i += width
            continue
        value.append(_ESCAPES[kind])
        offsets.append(i)
        i += 2
    offsets.append(stop)
    return Str("".join(value), offsets)


def _line(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1


def parse(text: str):
    """The JSON value of ``text``, its strings as ``Str`` (dict keys stay plain ``str``)."""

    def value(i: int):
        i = _WS.match(text, i).end()
        if i >= len(text):
            raise NotebookError(_line(text, i), "the notebook's JSON ends too early")
        c = text[i]
        if c == "{":
            out = {}
            i = _WS.match(text, i + 1).end()
            if text.startswith("}", i):
                return out, i + 1
            while True:
                m = _STRING.match(text, i)
                if not m:
                    raise NotebookError(_line(text, i), "not JSON: a key must be a string here")
                key = json.loads(m.group())
                i = _WS.match(text, m.end()).end()
                if not text.startswith(":", i):
                    raise NotebookError(_line(text, i), "not JSON: ':' expected after a key")
                out[key], i = value(i + 1)
                i = _WS.match(text, i).end()
                if text.startswith(",", i):
                    i = _WS.match(text, i + 1).end()
                    continue
                if text.startswith("}", i):
                    return out, i + 1
                raise NotebookError(_line(text, i), "not JSON: ',' or '}' expected")
        if c == "[":
            items = []
            i = _WS.match(text, i + 1).end()
            if text.startswith("]", i):
                return items, i + 1
            while True:
                item, i = value(i)
                items.append(item)
                i = _WS.match(text, i).end()
                if text.startswith(",", i):
                    i += 1
                    continue
                if text.startswith("]", i):
                    return items, i + 1
                raise NotebookError(_line(text, i), "not JSON: ',' or ']' expected")
        if c == '"':
            m = _STRING.match(text, i)
            if not m:
                raise NotebookError(_line(text, i), "not JSON: a string is not closed")
            return _decode(text, m.start(), m.end()), m.end()
        for word, v in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i):
                return v, i + len(word)
        m = _NUMBER.match(text, i)
        if m and m.end() > i:
            return json.loads(m.group()), m.end()
        raise NotebookError(_line(text, i), f"not JSON: unexpected {text[i]!r}")

    try:
        result, end = value(0)
    except RecursionError:
        raise NotebookError(1, "not JSON this reader can follow: nested too deeply") from None
    except (KeyError, ValueError, IndexError) as exc:
        if isinstance(exc, NotebookError):
            raise
        raise NotebookError(1, f"not JSON: {exc}") from None
    if _WS.match(text, end).end() != len(text):
        raise NotebookError(_line(text, end), "not JSON: text after the notebook's end")
    return result


def cells(text: str) -> list[Cell]:
    """The cells of a notebook (nbformat 4; a BOM before the JSON is allowed)."""
    start = 1 if text.startswith("\ufeff") else 0
    root = parse(" " * start + text[start:]) if start else parse(text)
    if not isinstance(root, dict) or not isinstance(root.get("cells"), list):
        raise NotebookError(1, "not a Jupyter notebook: no \"cells\" list (nbformat 4)")
    meta = root.get("metadata") if isinstance(root.get("metadata"), dict) else {}
    lang = ""
    for holder, key in ((meta.get("kernelspec"), "language"), (meta.get("language_info"), "name")):
        if isinstance(holder, dict) and isinstance(holder.get(key), Str):
            lang = holder[key].value
            break
    out = []
    for n, cell in enumerate(root["cells"], 1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = cell.get("source")
        parts = [source] if isinstance(source, Str) else \
            [s for s in source if isinstance(s, Str)] if isinstance(source, list) else []
        value = "".join(p.value for p in parts)
        offsets: list[int] = []
        for p in parts:
            offsets.extend(p.offsets[:-1])
        offsets.append(parts[-1].offsets[-1] if parts else 0)
        out.append(Cell(n, kind.value if isinstance(kind, Str) else "", value, offsets,
                        lang or "python"))
    return out
