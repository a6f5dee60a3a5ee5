"""What a database load keeps for the next load in the same process, by the bytes it read.

The live preview reloads the database at each edit, the MCP server and a program using the
engine may load several, and the tests load hundreds of copies that differ in one file. Each
of them would otherwise parse hundreds of KB of generated JSON again, build every release's
flag catalog from the history again, and read and validate every model again. Kept here, each
under the bytes it came from (never under an object's identity alone, which a freed object
passes on):

- a model read and validated cleanly: by a digest of its own files and of every file of the
  catalog folder, handed out as a fresh copy (the engine fills a model's cache, and a caller may
  change what it gets); a model with a problem is never kept, so its problems are reported at
  every load. What no caller can change is not copied but shared by every copy: an instance of a
  frozen dataclass holding, in its fields and theirs, only immutable values (``unchangeable``),
  such as the conditions' trees and the flags. Rebuilding those took half of each copy's time;
- the flag histories (by name and text), handed out as they are: the engine only reads them;
- the flag catalogs (by name, package and text, with the history they read), as a copy of
  their tables: the bounds and the releases complete each load's catalog;
- the bench_serving arguments of a history (with the history);
- what the calculators' dry run found in a model's cells (``validate.check_calculator_cells``),
  under the model's key;
- what the releases make of flags (each other release's catalog, which of them take a value,
  the pinned catalog's specs completed with where argparse stores each flag): by the catalog
  folder's digest and the package (``releases.py`` asks ``release_memo``).

Must not read or validate anything itself (``database.py`` does) or decide what is valid.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
import stat
from enum import Enum
from pathlib import Path
from typing import Any

KEPT_MODELS = 32  # a model in memory is well under a megabyte as pickle's bytes
KEPT = 8  # entries of each other store; the oldest goes first

# key -> (the catalog folder's digest, the model as pickle's bytes: made here from the model
# just read, never written anywhere, so they never come from outside the process, and the
# unchangeable objects those bytes name by their place in the list, shared by every copy)
models: dict[bytes, tuple[bytes, tuple[bytes, list]]] = {}
histories: dict[tuple[str, str], dict] = {}
catalogs: dict[tuple[str, str, str], tuple[dict | None, Any]] = {}
bench: dict[int, tuple[dict, Any]] = {}  # by the history's id: the entry holds the history
releases: dict[tuple[bytes, str], tuple[dict, dict, dict]] = {}
dry_runs: dict[bytes, list[tuple[int, str]]] = {}  # by model key: (cell index, message)


def keep(store: dict, key, value) -> None:
    limit = KEPT_MODELS if store is models or store is dry_runs else KEPT
    while store and len(store) >= limit:
        del store[next(iter(store))]  # the oldest
    if limit:
        store[key] = value


def file_digest(path: Path) -> bytes | None:
    """A digest of a regular file's bytes; None if it is not one or cannot be read (opened as
    ``yamlfile.read_text`` opens a file: a FIFO in its place does not block)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return hashlib.sha256(handle.read()).digest()
    except OSError:
        return None
    finally:
        os.close(fd)


def folder_digest(folder: Path) -> bytes | None:
    """A digest of every file directly in ``folder`` (names and bytes); None if one cannot be
    read (the load reports it)."""
    h = hashlib.sha256()
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return None
    for path in entries:
        if path.is_dir():
            continue
        digest = file_digest(path)
        if digest is None:
            return None
        h.update(path.name.encode() + b"\0" + digest)
    return h.digest()


def model_key(model_dir: Path, files: tuple[str, ...], shared: bytes | None) -> bytes | None:
    """The digest a model is kept by: the catalog folder's (``shared``), the folder's name, and
    each of ``files`` (the files the model's reading opens: absent or its bytes); None when one
    cannot be read."""
    if shared is None:
        return None
    h = hashlib.sha256(shared + model_dir.name.encode() + b"\0")
    for name in files:
        path = model_dir / name
        if not os.path.lexists(path):
            h.update(b"-")
            continue
        digest = file_digest(path)
        if digest is None:
            return None
        h.update(b"+" + digest)
    return h.digest()


def kept_model(key: bytes | None, model_dir: Path):
    """A fresh copy of the model kept under ``key``, at ``model_dir``; None if none is."""
    kept = models.pop(key, None) if key is not None else None
    if kept is None:
        return None
    models[key] = kept  # the newest now: the oldest goes first
    data, shared = kept[1]
    model = _Copier(io.BytesIO(data), shared).load()
    model.dir = model_dir
    return model


def keep_model(key: bytes, shared: bytes, model) -> None:
    """Keep a copy of ``model`` as read, before the engine fills its cache; a model pickle
    cannot copy is not kept (and read again next time)."""
    out = io.BytesIO()
    keeper = _Keeper(out)
    try:
        keeper.dump(model)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    keep(models, key, (shared, (out.getvalue(), keeper.shared)))


_ATOMS = (str, bytes, int, float, complex, bool, type(None), Enum)  # Enum: by reference
_FIELDS: dict[type, tuple[str, ...] | None] = {}  # a frozen dataclass's fields; None: not one


def _frozen_fields(kind: type) -> tuple[str, ...] | None:
    if kind not in _FIELDS:
        params = getattr(kind, "__dataclass_params__", None)
        _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind)) \
            if params is not None and params.frozen and dataclasses.is_dataclass(kind) else None
    return _FIELDS[kind]


def unchangeable(obj, judged: dict[int, bool] | None = None) -> bool:
    """Whether nothing can change ``obj`` or anything it holds: an immutable value (text, a
    number, None, an enum member), a tuple or frozenset of such, or an instance of a frozen
    dataclass whose attributes are its fields only (no cached property beside them) and hold
    such values. Such an object is shared by the copies of a kept model instead of copied.
    ``judged``: answers by object id, for objects that stay alive meanwhile (one pickling)."""
    if isinstance(obj, _ATOMS):
        return True
    judged = {} if judged is None else judged
    known = judged.get(id(obj))
    if known is not None:
        return known
    judged[id(obj)] = False  # an object that holds itself is not judged unchangeable
    kind = type(obj)
    if kind is tuple or kind is frozenset:
        answer = all(unchangeable(item, judged) for item in obj)
    else:
        names = _frozen_fields(kind)
        answer = names is not None and set(getattr(obj, "__dict__", ())) <= set(names) \
            and all(unchangeable(getattr(obj, name), judged) for name in names)
    judged[id(obj)] = answer
    return answer


class _Keeper(pickle.Pickler):
    """Pickle's copy of a model, naming each unchangeable object by its place in ``shared``."""

    def __init__(self, out: io.BytesIO):
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared: list = []
        self._at: dict[int, int] = {}
        self._judged: dict[int, bool] = {}  # the model being pickled keeps every object alive

    def persistent_id(self, obj):
        # frozen dataclass instances only: a value, a tuple or an enum member pickle copies
        # (or names) at least as fast as a shared reference is looked up
        if _frozen_fields(type(obj)) is None or not unchangeable(obj, self._judged):
            return None
        at = self._at.get(id(obj))
        if at is None:
            at = self._at[id(obj)] = len(self.shared)
            self.shared.append(obj)  # held here, so no other object takes its id meanwhile
        return at


class _Copier(pickle.Unpickler):
    def __init__(self, data: io.BytesIO, shared: list):
        super().__init__(data)
        self.shared = shared

    def persistent_load(self, pid):
        return self.shared[pid]


def release_memo(shared: bytes | None, package: str) -> tuple[dict, dict, dict]:
    """The tables ``Releases`` shares (the other releases' catalogs, what ``accepts`` answers
    for them, the pinned specs it completed) with every Releases read from the same catalog
    folder; fresh ones when ``shared`` is None."""
    if shared is None:
        return {}, {}, {}
    memo = releases.get((shared, package))
    if memo is None:
        memo = ({}, {}, {})
        keep(releases, (shared, package), memo)
    return memo


def forget(shared: bytes) -> None:
    """Drop what was kept under the catalog folder's digest ``shared`` (a file changed while
    the load read it)."""
    for key in [k for k, (digest, _) in models.items() if digest == shared]:
        del models[key]
    for key in [k for k in releases if k[0] == shared]:
        del releases[key]
    dry_runs.clear()  # kept by model keys, which hold the digest only inside their hash
