"""Turning a Resolution into reader-visible text in one language.

Owns the printed shape of a command (hint comments, env lines, program line, one flag per
line) and of the router block, plus the labels of badges, sources and severities. The CLI,
the mkdocs macros, ``llms.txt`` and the export all print through here. Must not decide
anything about flags: that is ``resolve.py``.
"""

from __future__ import annotations

from .database import Database, Model
from .flags import env_text
from .resolve import Diagnostic, Resolution, TextRef

INDENT = "  "


def text(db: Database, model: Model, ref: TextRef | str, lang: str, **extra: str) -> str:
    if isinstance(ref, str):
        ref = TextRef(id=ref)
    fields = {**ref.fields, **extra}
    if ref.id == "ui.pd-banner" and "role" in fields:
        role = next(r for r in model.info.roles if r.id == fields["role"])
        fields["role"] = db.t(lang, role.label, model)
    return db.t(lang, ref.id, model, **fields)


WRAP = 78


def wrap(line: str) -> list[str]:
    """Greedy word wrap of one comment line (the Playground wraps the same way); indented,
    code-like lines stay whole."""
    if len(line) <= WRAP or line.startswith("  "):
        return [line]
    out: list[str] = []
    cur = ""
    for word in line.split(" "):
        if cur and len(cur) + 1 + len(word) > WRAP:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    out.append(cur)
    return out


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


def router_text(res: Resolution) -> str | None:
    if res.router is None:
        return None
    program = "python3 -m sglang_router.launch_router"
    body = [program] + [INDENT + " ".join(f.text() for f in group) for group in res.router]
    return "\n".join([line + " \\" for line in body[:-1]] + [body[-1]])


def status_label(db: Database, status: str, lang: str) -> str:
    return db.t(lang, f"status.{status}")


def status_title(db: Database, status: str, lang: str) -> str:
    return db.t(lang, f"status.{status}.title")


def diagnostic_text(db: Database, model: Model, d: Diagnostic, lang: str) -> str:
    return text(db, model, d.message, lang)


def label(db: Database, model: Model, text_id: str, lang: str, **fields) -> str:
    return db.t(lang, text_id, model, **fields)
