"""Turning a Resolution into reader-visible text in one language.

Owns the printed shape of a command (hint comments, env lines, program line, one flag per
line) and of the router block, plus the labels of badges, sources and severities. The CLI,
the mkdocs macros, ``llms.txt`` and the export all print through here. Must not decide
anything about flags: that is ``resolve.py``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from macros.engine.model import Database

from macros.engine.model import Model
from macros.engine.flags import env_text
from macros.engine.results import Diagnostic, Resolution, TextRef

INDENT = "  "


def text(db: Database, model: Model, ref: TextRef | str, lang: str, **extra: str) -> str:
    if isinstance(ref, str):
        ref = TextRef(id=ref)
    fields = {**ref.fields, **extra}
    for name, value in fields.items():
        if isinstance(value, str) and value.startswith("@"):  # a text id, in this language
            fields[name] = db.t(lang, value[1:], model)
        elif isinstance(value, TextRef):  # a text of its own (a finding's message)
            fields[name] = text(db, model, value, lang)
    return db.t(lang, ref.id, model, **fields)


WRAP = 78
# Code points a terminal shows two columns wide (Hangul, CJK, full-width forms). A fixed list,
# not unicodedata, so the Playground's JavaScript counts exactly the same way.
_WIDE = ((0x1100, 0x115F), (0x2E80, 0xA4CF), (0xAC00, 0xD7A3), (0xF900, 0xFAFF),
         (0xFE30, 0xFE4F), (0xFF00, 0xFF60), (0xFFE0, 0xFFE6))


_WIDE_CHARS = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _WIDE) + "]")


def width(text: str) -> int:
    return len(text) + len(_WIDE_CHARS.findall(text))


def wrap(line: str) -> list[str]:
    """Greedy word wrap of one comment line by display width (the Playground wraps the same
    way); indented, code-like lines stay whole."""
    return list(_wrap(line))


@lru_cache(maxsize=4096)
def _wrap(line: str) -> tuple[str, ...]:
    """``wrap``'s lines, kept: the same few hint lines head thousands of selections' commands,
    and the wrap depends on nothing but the line."""
    if width(line) <= WRAP or line.startswith("  "):
        return (line,)
    out: list[str] = []
    cur, cur_width = "", 0
    for word in line.split(" "):
        w = width(word)
        if cur and cur_width + 1 + w > WRAP:
            out.append(cur)
            cur, cur_width = word, w
        elif cur:
            cur, cur_width = f"{cur} {word}", cur_width + 1 + w
        else:
            cur, cur_width = word, w
    out.append(cur)
    return tuple(out)


def hint_lines(db: Database, model: Model, res: Resolution, lang: str) -> list[str]:
    lines: list[str] = []
    for ref in res.hints:
        for line in text(db, model, ref, lang).splitlines():
            lines.extend(f"# {part}".rstrip() for part in wrap(line))
    return lines


def command_text(db: Database, model: Model, res: Resolution, lang: str) -> str:
    """The server command exactly as pages, the CLI and the Playground print it."""
    lines = hint_lines(db, model, res, lang)
    body = [env_text(e) for e in res.env] + [res.program] + \
        [INDENT + f.text() for f in res.flags]
    lines += [line + " \\" for line in body[:-1]] + [body[-1]]
    return "\n".join(lines)


def footprint_text(db: Database, res: Resolution, lang: str) -> str:
    """The accelerators the command takes, "16 GPUs: 2×8", from the cell's GPUs per node
    (its platform's unless the recipe uses fewer) × its nodes; then the platform's memory per
    GPU. The Playground's header prints the same (``render.js`` footprintText)."""
    platform = db.platforms[res.hw]
    kind = "ui.footprint.npu" if platform.vendor.value == "huawei" else "ui.footprint"
    out = db.t(lang, kind, total=str(res.nodes * res.gpus_per_node), nodes=str(res.nodes),
               per_node=str(res.gpus_per_node))
    if platform.hbm_gb:
        out += " · " + db.t(lang, "ui.hbm", gb=str(platform.hbm_gb))
    return out


def router_text(res: Resolution) -> str | None:
    if res.router is None:
        return None
    body = [res.router_program] + [INDENT + " ".join(f.text() for f in group)
                                   for group in res.router]
    return "\n".join([line + " \\" for line in body[:-1]] + [body[-1]])


def status_label(db: Database, status: str, lang: str) -> str:
    return db.t(lang, f"status.{status}")


def status_title(db: Database, status: str, lang: str, model: Model | None = None) -> str:
    """What ``status`` means: ``model``'s own words when its text files have them."""
    return db.t(lang, f"status.{status}.title", model)


def diagnostic_text(db: Database, model: Model, d: Diagnostic, lang: str) -> str:
    return text(db, model, d.message, lang)


def label(db: Database, model: Model, text_id: str, lang: str, **fields) -> str:
    return db.t(lang, text_id, model, **fields)


def record_fields(db: Database, model: Model, rec, lang: str) -> dict[str, str]:
    """A verification record's fields as text, "unknown" (in ``lang``) where the data is
    silent."""
    unknown = db.t(lang, "record.unknown")
    hardware = ", ".join(db.platforms[h].label if h in db.platforms else h
                         for h in rec.hardware) or unknown
    return {"round": rec.round or unknown, "build": rec.build or unknown,
            "release": rec.release or rec.build or unknown, "image": rec.image or unknown,
            "digest": rec.digest or unknown, "date": rec.date or unknown,
            "hardware": hardware, "by": rec.by or unknown, "results": str(len(rec.results))}


def record_line(db: Database, model: Model, rec, lang: str) -> str:
    """The record in one line: "verified on 0.5.18 · 2026-11 · B300"."""
    return db.t(lang, "record.on", model, **record_fields(db, model, rec, lang))


def record_text(db: Database, model: Model, rec, lang: str) -> str:
    """The whole record in a sentence, every field named."""
    if rec.round is None:
        return db.t(lang, "record.none", model)
    return db.t(lang, "record.round", model, **record_fields(db, model, rec, lang))


def record_json(db: Database, model: Model, rec, lang: str) -> dict | None:
    """A record as the CLI's JSON gives it: its fields, the line and the sentence."""
    return None if rec is None else {**rec.as_json(), "line": record_line(db, model, rec, lang),
                                     "text": record_text(db, model, rec, lang)}
