"""The verification report (``recipes verify-report`` and the page's ``verify_report`` macro).

Owns wording ``records.report`` for readers: per model, how many cells have records and how
many are stale; then every recorded cell, stale ones first, with its record and why it is
stale, as text lines, as JSON and as a Markdown table. Must not judge records
(``engine/records.py``).
"""

from __future__ import annotations

import json

from macros.engine import records
from macros.engine.inert import cell_text
from macros.engine.model import Database
from macros.site import render


def summary(db: Database, entries) -> dict[str, dict[str, int]]:
    """Per model: its recorded cells, those whose record names a round, and the stale ones."""
    out = {m: {"records": 0, "rounds": 0, "stale": 0} for m in db.models}
    for e in entries:
        out[e.model]["records"] += 1
        out[e.model]["rounds"] += e.record.round is not None
        out[e.model]["stale"] += bool(e.record.stale)
    return out


def why(db: Database, e, lang: str) -> list[str]:
    model = db.model(e.model)
    return [db.t(lang, f"stale.{s.kind}", model, **s.fields) for s in e.record.stale]


def as_json(db: Database, lang: str) -> dict:
    entries = records.report(db)
    return {"summary": summary(db, entries), "cells": [
        {"model": e.model, "match": e.match, "status": e.status,
         "record": render.record_json(db, db.model(e.model), e.record, lang),
         "why": why(db, e, lang)} for e in entries]}


def as_text(db: Database, lang: str) -> str:
    entries = records.report(db)
    t = lambda text_id: db.t(lang, text_id)  # noqa: E731  (the page's column names)
    lines = [f"{m}: {t('report.records')} {n['records']}, {t('report.rounds')} {n['rounds']}, "
             f"{t('report.stale')} {n['stale']}" for m, n in summary(db, entries).items()]
    for e in entries:
        model = db.model(e.model)
        lines.append(f"{render.status_label(db, e.status, lang)}  {e.model} "
                     f"{'/'.join(e.match.values())}  {render.record_text(db, model, e.record, lang)}")
        lines += [f"    {w}" for w in why(db, e, lang)]
    return "\n".join(lines)


def printed(db: Database, fmt: str, lang: str) -> str:
    """What ``recipes verify-report`` prints: ``fmt`` is text or json."""
    if fmt == "json":
        return json.dumps(as_json(db, lang), ensure_ascii=False, indent=2)
    return as_text(db, lang)


def as_markdown(db: Database, lang: str, badge) -> str:
    """The page: a summary table per model, then every recorded cell (``badge(status, model,
    record)`` draws its badge)."""
    entries = records.report(db)
    t = lambda text_id, **f: cell_text(db.t(lang, text_id, **f))  # noqa: E731  (data: inert)
    out = [f"| {t('table.model')} | {t('report.records')} | {t('report.rounds')} | "
           f"{t('report.stale')} |", "|---|---|---|---|"]
    for m, n in summary(db, entries).items():
        out.append(f"| {cell_text(db.model(m).info.name)} | {n['records']} | {n['rounds']} | "
                   f"{n['stale']} |")
    out += ["", f"| {t('table.model')} | {t('report.cell')} | {t('table.status')} | "
            f"{t('report.record')} |", "|---|---|---|---|"]
    for e in entries:
        model = db.model(e.model)
        said = " ".join([render.record_text(db, model, e.record, lang), *why(db, e, lang)])
        out.append(f"| {cell_text(model.info.name)} | {cell_text('/'.join(e.match.values()))} "
                   f"| {badge(e.status, model, e.record)} | {cell_text(said)} |")
    return "\n".join(out)
