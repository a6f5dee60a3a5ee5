"""Enumerating the reachable selections of a model, for tests, the benchmark and parity.

Owns what "every reachable selection" means: every cell, times every enabled option of each
axis the model lists under ``enumerate`` in model.yaml, as the rules gate it after the picks of
the axes before it (in the model's axis order; the others at their defaults). Playground cards
beyond those are sampled, not enumerated (``sample_playground``), because their product is
astronomically large. ``resolve_all`` hands every enumerated selection over with its
resolution, worked out in one walk per model (``resolve.walk``) for those who resolve them all.
Selections are flat mappings (the cell's dimensions and the settings by id, as a URL hash has
them); ``Selection.flat`` splits one. Must not compose commands itself (``resolve.py``).
"""

from __future__ import annotations

import random
from typing import Iterator

from macros.engine.model import Database
from macros.engine.resolve import axis_states, resolve, walk
from macros.engine.results import Resolution
from macros.engine.selection import Selection


def _enabled(states, axis: str) -> list[str]:
    state = next(a for a in states if a.axis == axis)
    return [o.id for o in state.options if o.state == "enabled"] if state.visible else []


def deployment_selections(db: Database, model_id: str, large_scale: bool = True) -> Iterator[dict]:
    """Every selection of the model's ``enumerate`` axes (model.yaml) on every cell; without
    ``large_scale`` only the overlays (the Deploy panel)."""
    return (flat for flat, _ in walk(db, model_id, _axes(db, model_id, large_scale), False))


def resolve_all(db: Database, model_id: str, large_scale: bool = True
                ) -> Iterator[tuple[dict, Resolution]]:
    """``deployment_selections`` with what ``resolve`` gives each (strict), composed together:
    the work the selections of a cell share is done once (``resolve.walk``). What the tests,
    the benchmark and the build use where they resolve every selection."""
    return walk(db, model_id, _axes(db, model_id, large_scale))


def _axes(db: Database, model_id: str, large_scale: bool) -> set[str]:
    model = db.model(model_id)
    return {a for a in model.info.enumerate if large_scale or a in model.overlay_ids}


def sample_playground(db: Database, model_id: str, count: int, seed: int = 7) -> list[dict]:
    """``count`` random selections over every axis, each pick drawn from the options the
    rules leave enabled at that point (so every sample is reachable by clicking). A draw whose
    command SGLang would refuse is drawn again: the Playground greys the option that leads
    there (macros/engine/effects.py), so a reader cannot click it together."""
    rng = random.Random(seed)
    model = db.model(model_id)
    out: list[dict] = []
    for _ in range(count * 50):
        if len(out) == count:
            break
        match = dict(rng.choice(model.cells).match)
        picks: dict[str, str] = {}
        for axis in model.axes:
            states = axis_states(db, Selection(model_id, match, picks))
            options = _enabled(states, axis.id)
            if options:
                picks[axis.id] = rng.choice(options)
        res = resolve(db, Selection(model_id, match, picks), strict=False)
        if not any(d.severity.value == "error" for d in res.diagnostics):
            out.append({**match, **picks})
    if len(out) < count:
        raise RuntimeError(f"{model_id}: {len(out)} of {count} sampled selections give a command "
                           "SGLang accepts: the rules refuse nearly every pick")
    return out
