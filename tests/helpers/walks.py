"""Every deployment selection of a model with its resolution (``resolve_all``), walked once per
test process and database: a dozen modules read the whole walk of every model (the files, the
Playground's parity, the greyed options, the releases), and the largest model's walk takes
seconds. Resolutions are frozen; each reader gets the selections as dicts of its own."""

from __future__ import annotations

from collections import OrderedDict

from macros.engine.selections import resolve_all

_KEEP = 8  # (database, model) walks kept, the newest; a database copy a test edits is rare
_walks: OrderedDict = OrderedDict()


def walked(db, model_id: str) -> list[tuple[dict, object]]:
    """``list(resolve_all(db, model_id))``, kept while ``db`` is (the entry holds it, so its
    id names no other database)."""
    key = (id(db), model_id)
    entry = _walks.get(key)
    if entry is None or entry[0] is not db:
        entry = _walks[key] = (db, list(resolve_all(db, model_id)))
        while len(_walks) > _KEEP:
            _walks.popitem(last=False)
    _walks.move_to_end(key)
    return [(dict(flat), res) for flat, res in entry[1]]
