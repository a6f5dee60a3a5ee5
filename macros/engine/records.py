"""Verification records: what a verified or in-progress cell's round ran, and whether it is stale.

Owns reading a cell's record (its ``verified_in`` round in model.yaml: release, image, digest,
date, hardware, who ran it, the benchmark results the round produced; ``None`` for whatever
the data does not say, shown as unknown) and judging it stale by recipes/catalog/
verification.yaml: the flag history changes the meaning of a flag the cell uses after the
record's release, or the release falls more than N releases behind the newest. The Playground
mirrors the judgement (``playground/records.js``). Must not compose commands (``resolve.py``)
or word them for readers (``site/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from macros.engine.model import Database, Model
from macros.engine.schema import Cell

RECORDED = ("verified", "in-progress")  # the statuses whose cells name a round


@dataclass(frozen=True)
class Stale:
    """Why a record is stale: ``behind`` (its release is ``count`` releases behind
    ``newest``) or ``meaning`` (``flag``'s ``fact`` changed in ``release``)."""

    kind: str
    fields: dict[str, str]


@dataclass(frozen=True)
class Record:
    round: str | None  # the round's id (None: the cell names none)
    build: str | None  # the build as its notes name it ("v0.5.18 @ 71de97b2")
    release: str | None  # the release of the flag history it ran on
    image: str | None
    digest: str | None
    date: str | None
    hardware: tuple[str, ...]
    by: str | None
    results: tuple[dict, ...]  # the benchmark results it produced: match, rows, scores
    stale: tuple[Stale, ...] = field(default=())

    def as_json(self) -> dict:
        return {"round": self.round, "build": self.build, "release": self.release,
                "image": self.image, "digest": self.digest, "date": self.date,
                "hardware": list(self.hardware), "by": self.by,
                "results": [dict(r) for r in self.results],
                "stale": [{"kind": s.kind, **s.fields} for s in self.stale]}


def record(db: Database, model: Model, cell: Cell) -> Record | None:
    """The record of a verified or in-progress cell (None for any other)."""
    if cell.status.value not in RECORDED:
        return None
    table = model.cache.setdefault("records", {})
    key = model.key(cell.match)
    if key not in table:
        table[key] = _record(db, model, cell)
    return table[key]


def _record(db: Database, model: Model, cell: Cell) -> Record:
    found = next((r for r in model.info.rounds if r.id == cell.verified_in), None)
    if found is None:
        return Record(None, None, None, None, None, None, (), None, ())
    results = tuple({"match": dict(r.match), "rows": len(r.rows), "scores": len(r.accuracy)}
                    for r in (model.benchmarks.results if model.benchmarks else ())
                    if r.round == found.id)
    hardware = tuple(found.hardware) or tuple(dict.fromkeys(r["match"]["hw"] for r in results
                                                            if "hw" in r["match"]))
    release = found.sglang if found.sglang in db.releases.order else None
    rec = Record(found.id, found.version, release, found.image, found.digest, found.date,
                 hardware, found.by, results)
    return Record(**{**rec.__dict__, "stale": tuple(stale(db, model, cell, release))})


def stale(db: Database, model: Model, cell: Cell, release: str | None) -> list[Stale]:
    """Why a record on ``release`` is stale for ``cell`` (empty: it holds; a build between
    releases is not judged)."""
    rule = db.releases.staleness
    if release is None or rule is None:
        return []
    behind, meaning, switch = rule
    order = db.releases.order
    out: list[Stale] = []
    count = len(order) - 1 - order.index(release)
    if count > behind:
        out.append(Stale("behind", {"release": release, "newest": order[-1],
                                    "count": str(count), "most": str(behind)}))
    at = order.index(release)
    flags = model.cell_flags[model.cell_index[model.key(cell.match)]]
    for f in {f.name: f for f in flags}.values():
        name, keys = f.name, meaning + (switch if not f.values else ())
        for changed, fact in db.releases.meaning_changes(name, keys):
            if order.index(changed) > at:
                out.append(Stale("meaning", {"flag": name, "fact": fact, "changed": changed,
                                             "release": release}))
                break
    return out


@dataclass(frozen=True)
class Entry:
    """One cell of the verification report: its model, cell, status and record."""

    model: str
    match: dict[str, str]
    status: str  # the cell's, or "stale" for a verified cell whose record is
    record: Record


def report(db: Database) -> list[Entry]:
    """Every model's verified and in-progress cells with their records, stale ones first,
    then model by model in the models' and cells' own order."""
    out = []
    for model in db.models.values():
        for cell in model.cells:
            rec = record(db, model, cell)
            if rec is not None:
                status = "stale" if cell.status.value == "verified" and rec.stale \
                    else cell.status.value
                out.append(Entry(model.id, dict(cell.match), status, rec))
    return sorted(out, key=lambda e: not e.record.stale)  # stable: the rest keep their order
