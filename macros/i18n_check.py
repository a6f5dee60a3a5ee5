"""The translator contract: what must be identical between an English page and its Korean
translation, and the report that tells a translator what to fix.

Same macro calls (with the same arguments), same code blocks (comments aside), same check
directives, same explicit heading anchors, same link targets and images; only prose and code
comments differ. Missing, unstamped and outdated translations are listed as work to do.
Reads files only.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from .i18n import DOCS, status

_MACRO = re.compile(r"\{\{\s*(.*?)\s*\}\}", re.S)
_DIRECTIVE = re.compile(r"<!--\s*check:(.*?)-->", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.M)
_ANCHOR = re.compile(r"\{\s*#([\w-]+)[^}]*\}\s*$")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HREF = re.compile(r"\bhref=\"([^\"]+)\"")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                    re.M | re.S)
_RAW = re.compile(r"\{%\s*raw\s*%\}.*?\{%\s*endraw\s*%\}", re.S)


@dataclass(frozen=True)
class Item:
    kind: str
    value: str
    line: int


@dataclass(frozen=True)
class Finding:
    severity: str  # error (contract broken) | todo (translation work)
    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.severity}: {self.message}"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _strip_comments(lang: str, body: str) -> str:
    if lang.split()[0:1] and lang.split()[0] in ("python", "py", "bash", "sh", "shell", "console"):
        kept = []
        for line in body.splitlines():
            if line.lstrip().startswith("#"):
                continue
            kept.append(re.sub(r"\s+#(?![^'\"]*['\"][^'\"]*$)[^\n]*$", "", line).rstrip())
        return "\n".join(kept).strip()
    return body.strip()


def extract(text: str) -> list[Item]:
    """The contract items of one page, in order."""
    items: list[Item] = []
    fenced_spans = []
    for m in _FENCE.finditer(text):
        info = m.group("info").strip()
        items.append(Item("code block", f"{info.split()[0] if info else ''}\n"
                                        f"{_strip_comments(info, m.group('body'))}",
                          _line(text, m.start())))
        fenced_spans.append((m.start(), m.end()))
    outside = text
    for start, end in reversed(fenced_spans):
        outside = outside[:start] + "\n" * text.count("\n", start, end) + outside[end:]
    raw_free = _RAW.sub(lambda m: "\n" * m.group(0).count("\n"), outside)
    for m in _MACRO.finditer(raw_free):
        items.append(Item("macro call", " ".join(m.group(1).split()), _line(outside, m.start())))
    for m in _DIRECTIVE.finditer(outside):
        items.append(Item("check directive", " ".join(m.group(1).split()), _line(outside, m.start())))
    for m in _HEADING.finditer(outside):
        anchor = _ANCHOR.search(m.group(2))
        items.append(Item("heading anchor", anchor.group(1) if anchor else "",
                          _line(outside, m.start())))
    for rx, kind in ((_LINK, "link target"), (_HREF, "link target"), (_IMAGE, "image")):
        for m in rx.finditer(raw_free):
            items.append(Item(kind, m.group(1), _line(outside, m.start())))
    return sorted(items, key=lambda i: (i.line, i.kind))


def compare(en_path: Path, ko_path: Path, en_name: str, ko_name: str) -> list[Finding]:
    en, ko = extract(en_path.read_text(encoding="utf-8")), extract(ko_path.read_text(encoding="utf-8"))
    out: list[Finding] = []
    for item in en + ko:
        if item.kind == "heading anchor" and not item.value:
            name = en_name if item in en else ko_name
            out.append(Finding("error", name, item.line, "heading without an explicit anchor; "
                               "add one, e.g. `## Title { #title }`, identical in both languages"))
    kinds = ("macro call", "code block", "check directive", "heading anchor", "link target", "image")
    for kind in kinds:
        a = [i for i in en if i.kind == kind]
        b = [i for i in ko if i.kind == kind]
        sm = difflib.SequenceMatcher(a=[i.value for i in a], b=[i.value for i in b], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "equal":
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                ea = a[i1 + k] if i1 + k < i2 else None
                kb = b[j1 + k] if j1 + k < j2 else None
                if ea and kb:
                    out.append(Finding("error", ko_name, kb.line,
                                       f"{kind} differs from {en_name}:{ea.line}: "
                                       f"expected {_show(ea.value)}, found {_show(kb.value)}"))
                elif ea:
                    near = b[j1].line if j1 < len(b) else (b[-1].line if b else None)
                    out.append(Finding("error", ko_name, near,
                                       f"{kind} missing: {en_name}:{ea.line} has {_show(ea.value)}"))
                else:
                    out.append(Finding("error", ko_name, kb.line,
                                       f"extra {kind} not in {en_name}: {_show(kb.value)}"))
    return out


def _show(value: str) -> str:
    one = value.replace("\n", " ⏎ ")
    return f"'{one[:90]}…'" if len(one) > 90 else f"'{one}'"


def check(docs: Path = DOCS, lang: str = "ko") -> list[Finding]:
    """Every contract error and every translation to-do under ``docs``."""
    out: list[Finding] = []
    en_root, other_root = docs / "en", docs / lang
    base = docs.parent
    for en_path in sorted(en_root.rglob("*.md")):
        uri = en_path.relative_to(en_root).as_posix()
        other = other_root / uri
        en_name = en_path.relative_to(base).as_posix() if en_path.is_relative_to(base) else str(en_path)
        ko_name = other.relative_to(base).as_posix() if other.is_relative_to(base) else str(other)
        state = status(uri, docs, lang)
        if state == "missing":
            out.append(Finding("todo", ko_name, None, f"not translated yet (the site shows "
                               f"{en_name} with a notice)"))
            continue
        if state == "unstamped":
            out.append(Finding("todo", ko_name, 1, "no source_hash in the front matter; run "
                               f"'recipes i18n-stamp {uri}' once the translation matches"))
        elif state == "outdated":
            out.append(Finding("todo", ko_name, 1, f"outdated: {en_name} changed since this "
                               f"translation; update it, then run 'recipes i18n-stamp {uri}'"))
        out.extend(compare(en_path, other, en_name, ko_name))
    for other in sorted(other_root.rglob("*.md")):
        uri = other.relative_to(other_root).as_posix()
        if not (en_root / uri).exists():
            out.append(Finding("error", other.relative_to(base).as_posix(), None,
                               "has no English source page (same path under docs/en)"))
    return out
