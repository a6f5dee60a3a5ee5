"""Loading a database again (the live preview at each edit, the MCP server, the tests' copies)
reads and validates only the models whose bytes changed: a model read cleanly before is handed
out again as a fresh copy at its own folder, and the releases' catalogs are shared between loads
of the same catalog bytes. What is handed out equals what a first reading gives."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path

import pytest

from helpers import yamlc
from helpers.models import CALCULATED, MODELS
from macros.engine import kept
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.validate import Validator

ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name / "recipes"
    shutil.copytree(ROOT / "recipes", target)
    return target


STORES = ("models", "histories", "catalogs", "bench", "releases", "dry_runs")


@pytest.fixture(autouse=True)
def nothing_kept_yet(monkeypatch):
    """Each test starts from empty stores: what it sees kept, its own loads kept."""
    for name in STORES:
        monkeypatch.setattr(kept, name, {})


def _keep_nothing(monkeypatch) -> None:
    for name in STORES:
        monkeypatch.setattr(kept, name, {})
    monkeypatch.setattr(kept, "KEPT_MODELS", 0)
    monkeypatch.setattr(kept, "KEPT", 0)


@pytest.fixture
def validated(monkeypatch):
    """The ids of the models the loads validate (read afresh), in order."""
    seen: list[str] = []
    real = Validator.run

    def run(self):
        seen.append(self.m.id)
        return real(self)
    monkeypatch.setattr(Validator, "run", run)
    return seen


def _commands(db, model_id: str) -> list[dict]:
    """Every cell's resolution, whole."""
    model = db.model(model_id)
    out = []
    for cell in model.cells:
        res = resolve(db, Selection(model.id, dict(cell.match)), strict=False)
        out.append(res.model_dump(mode="json"))
    return out


@pytest.mark.parametrize("model_id", MODELS)
def test_a_kept_model_is_a_fresh_copy_at_its_own_folder_and_resolves_as_a_first_reading(
        model_id, tmp_path, monkeypatch, validated):
    first, second = _copy(tmp_path, "a"), _copy(tmp_path, "b")
    a = load_database(first)
    model = a.model(model_id)
    whole = len(model.cells)
    model.cells.pop()  # what a caller does to its copy stays in its copy
    model.cache["planted"] = True
    validated.clear()
    b = load_database(second)
    again = b.model(model_id)
    assert model_id not in validated  # handed out again, not read again
    assert again is not model and again.dir == second / model_id
    assert len(again.cells) == whole and "planted" not in again.cache
    _keep_nothing(monkeypatch)
    fresh = load_database(_copy(tmp_path, "c"))
    assert model_id in validated
    assert _commands(b, model_id) == _commands(fresh, model_id)


@pytest.mark.parametrize("model_id", MODELS)
def test_only_the_model_whose_files_changed_is_read_again(model_id, tmp_path, validated):
    recipes = _copy(tmp_path, "a")
    load_database(recipes)
    text = recipes / model_id / "text.en.yaml"
    data = yamlc.load(text.read_text(encoding="utf-8"))
    key = next(iter(data))
    data[key] = "An edited text."
    text.write_text(yamlc.dump(data, allow_unicode=True), encoding="utf-8")
    validated.clear()
    db = load_database(recipes)
    assert validated == [model_id]
    assert db.model(model_id).text["en"][key] == "An edited text."


@pytest.mark.parametrize("model_id", MODELS)
def test_a_catalog_edit_reads_every_model_again_and_finds_what_it_breaks(model_id, tmp_path,
                                                                        validated):
    """The model's files are the bytes of a clean reading, but a platform it names is gone from
    the catalog: the load reports it in the model's files."""
    recipes = _copy(tmp_path, "a")
    load_database(recipes)
    hw_id = load_database(recipes).model(model_id).cells[0].match["hw"]
    hardware = recipes / "catalog" / "hardware.yaml"
    doc = yamlc.load(hardware.read_text(encoding="utf-8"))
    doc["platforms"] = [p for p in doc["platforms"] if p["id"] != hw_id]
    hardware.write_text(yamlc.dump(doc, allow_unicode=True, sort_keys=False),
                        encoding="utf-8")
    validated.clear()
    with pytest.raises(RecipeError) as exc:
        load_database(recipes)
    assert sorted(set(validated)) == MODELS
    assert any(p.file.startswith(f"recipes/{model_id}/") and hw_id in p.message
               for p in exc.value.problems), exc.value.problems


def test_releases_share_their_catalogs_only_with_loads_of_the_same_bytes(tmp_path):
    """A flag dropped from the history (one no release keeps to the pinned one, so no model
    writes it) is gone from every release's catalog at the next load, not shared from the
    load before."""
    recipes, second = _copy(tmp_path, "a"), _copy(tmp_path, "b")
    a, b = load_database(recipes), load_database(second)
    old = a.releases.order[0]
    assert old != a.releases.pinned.version
    assert a.releases.catalog(old) is b.releases.catalog(old)
    history_file = recipes / "catalog" / "sglang-history.json"
    history = json.loads(history_file.read_text(encoding="utf-8"))
    flags = history["packages"][a.catalog.package]["flags"]
    gone = next(name for name in flags if a.catalog.lookup(name).spec is None
                and a.releases.catalog(old).lookup(name).kind == "exact")
    del flags[gone]
    history_file.write_text(json.dumps(history), encoding="utf-8")
    c = load_database(recipes)
    assert c.releases.catalog(old) is not a.releases.catalog(old)
    assert c.releases.catalog(old).lookup(gone).spec is None
    again = load_database(second)  # the old bytes: the old release catalog again
    assert again.releases.catalog(old) is a.releases.catalog(old)
    assert again.releases.catalog(old).lookup(gone).kind == "exact"


def test_what_a_caller_does_to_its_catalog_stays_out_of_the_shared_release_catalogs(
        tmp_path, monkeypatch):
    """A release's catalog made after a caller emptied its database's pinned catalog is made
    from the pinned catalog as loaded, and so is what the next load shares."""
    a = load_database(_copy(tmp_path, "a"))
    old = a.releases.order[0]
    a.releases._catalogs.clear()  # as if no command of the load had asked for a release yet
    a.releases._accepts.clear()
    a.catalog.roles.clear()
    a.catalog.flags.clear()
    a.catalog._index()
    made = a.releases.catalog(old)
    b = load_database(_copy(tmp_path, "b"))
    assert b.releases.catalog(old) is made
    _keep_nothing(monkeypatch)
    fresh = load_database(_copy(tmp_path, "c")).releases.catalog(old)
    assert made.roles == fresh.roles and made.roles
    assert {n: (s.bound, s.env_choices) for n, s in made.flags.items()} \
        == {n: (s.bound, s.env_choices) for n, s in fresh.flags.items()}


def test_a_kept_catalog_is_handed_out_as_a_copy_and_a_history_as_it_is(tmp_path):
    """The bounds and the releases complete each load's catalog: what one load's catalog
    is given or loses stays in that load. A history is only read, so it is shared."""
    loads = [load_database(_copy(tmp_path, name)) for name in ("a", "b")]
    names = len(loads[0].catalog.flags)
    roles = dict(loads[0].catalog.roles)
    assert names and roles
    for db in loads:
        db.catalog.flags.clear()
        db.catalog.roles.clear()
    c = load_database(_copy(tmp_path, "c"))
    assert all(c.catalog is not db.catalog for db in loads)
    assert len(c.catalog.flags) == names and c.catalog.roles == roles
    assert c.releases.history is loads[0].releases.history


@pytest.mark.parametrize("model_id", CALCULATED)
def test_the_calculators_dry_run_is_kept_with_the_model_and_redone_when_the_history_changes(
        model_id, tmp_path, monkeypatch):
    """The dry run composes the cells' commands, which the releases of the flag history shape:
    a load from the same bytes takes its findings, one after a byte of the history changed
    composes them again."""
    from macros.engine import validate

    ran: list[str] = []
    real = validate._dry_run

    def dry_run(db, model):
        ran.append(model.id)
        return real(db, model)
    monkeypatch.setattr(validate, "_dry_run", dry_run)
    recipes = _copy(tmp_path, "a")
    load_database(recipes)
    assert model_id in ran
    ran.clear()
    load_database(_copy(tmp_path, "b"))
    assert model_id not in ran
    history = recipes / "catalog" / "sglang-history.json"
    history.write_text(history.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    load_database(recipes)
    assert model_id in ran


def _pairs(a, b, path="model", seen=None):
    """Every (place, object of ``a``, object of ``b``) found at the same place in two copies:
    fields of dataclasses and pydantic models, items of containers, down to the leaves or to
    an object both copies hold (what it holds is the same)."""
    seen = set() if seen is None else seen
    if id(a) in seen:
        return
    seen.add(id(a))
    yield path, a, b
    if a is b or isinstance(a, (str, bytes, int, float, bool, type(None), Path)) \
            or type(a) is not type(b):
        return
    if isinstance(a, dict):
        for key in a:
            yield from _pairs(a[key], b[key], f"{path}[{key!r}]", seen)
    elif isinstance(a, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _pairs(x, y, f"{path}[{i}]", seen)
    elif isinstance(a, (set, frozenset)):
        return  # of plain values only (a set's items hash)
    else:
        names = list(getattr(a, "__dict__", {})) + [
            n for klass in type(a).__mro__ for n in getattr(klass, "__slots__", ())
            if hasattr(a, n)]
        for name in names:
            if name.startswith("__"):
                continue
            yield from _pairs(getattr(a, name), getattr(b, name), f"{path}.{name}", seen)


def _immutable(value, path: str) -> list[str]:
    """The places under ``value`` something could be changed at (empty when there are none):
    judged here on its own, not by ``kept.unchangeable``. Text, numbers, None and enum members
    are immutable; so are tuples and frozensets of such; a dataclass instance is when it is
    frozen, has no attribute beside its fields and they hold such values."""
    if isinstance(value, (str, bytes, int, float, bool, type(None), Enum)):
        return []
    if type(value) in (tuple, frozenset):
        return [p for i, item in enumerate(value) for p in _immutable(item, f"{path}[{i}]")]
    params = getattr(type(value), "__dataclass_params__", None)
    if params is None or not params.frozen:
        return [f"{path}: {type(value).__name__}"]
    names = [f.name for f in fields(value)]
    extra = sorted(set(getattr(value, "__dict__", {})) - set(names))
    return [f"{path}.{name}: beside the fields" for name in extra] + [
        p for name in names for p in _immutable(getattr(value, name), f"{path}.{name}")]


@pytest.mark.parametrize("model_id", MODELS)
def test_two_copies_share_only_what_nothing_can_change(model_id, tmp_path):
    """A kept model's copies are made faster by sharing what no caller can change (the
    conditions' trees, the flags): every object two copies hold in common holds, all the way
    down, nothing that could be changed; every list, dict, set and record a caller could
    change is each copy's own."""
    load_database(_copy(tmp_path, "a"))
    a = load_database(_copy(tmp_path, "b")).model(model_id)
    b = load_database(_copy(tmp_path, "c")).model(model_id)
    shared = 0
    for place, x, y in _pairs(a, b):
        if x is not y or isinstance(x, (str, bytes, int, float, bool, type(None), Enum)) \
                or x == ():
            continue
        assert _immutable(x, place) == [], f"{place}: shared by two copies"
        shared += 1
    assert shared, "nothing shared: every copy rebuilds the conditions' trees"
    assert a.cells is not b.cells and a.cells[0] is not b.cells[0]


def test_a_frozen_record_that_holds_something_changeable_is_copied_not_shared(monkeypatch):
    """Frozen is not enough: a frozen dataclass whose field holds a list, or a dict left out
    of its comparison, or an object of a plain class, can be changed through it, so each copy
    has its own; one holding only immutable values is shared."""
    monkeypatch.setattr(kept, "models", {})

    @dataclass(frozen=True)
    class Fixed:
        parts: tuple

    @dataclass(frozen=True)
    class Holder:
        items: list

    @dataclass(frozen=True)
    class Memo:
        name: str
        seen: dict = field(default_factory=dict, compare=False, hash=False)

    class Plain:
        def __init__(self):
            self.items = [1]

    @dataclass(frozen=True)
    class Wrapper:
        inner: object

    @dataclass
    class Kept:
        dir: Path
        fixed: Fixed
        holder: Holder
        memo: Memo
        wrapper: Wrapper

    made = dict(Fixed=Fixed, Holder=Holder, Memo=Memo, Plain=Plain, Wrapper=Wrapper, Kept=Kept)
    for name, kind in made.items():  # pickle finds classes by module and name
        kind.__qualname__ = name
    globals().update(made)
    try:
        kept.keep_model(b"k", b"s", Kept(Path("."), Fixed((1, ("a",))), Holder([1]), Memo("m"),
                                         Wrapper(Plain())))
        one, two = kept.kept_model(b"k", Path("x")), kept.kept_model(b"k", Path("y"))
    finally:
        for name in made:
            globals().pop(name)
    assert one.fixed is two.fixed and kept.unchangeable(one.fixed)
    for name in ("holder", "memo", "wrapper"):
        assert getattr(one, name) is not getattr(two, name), name
        assert not kept.unchangeable(getattr(one, name)), name
    one.holder.items.append(2)
    one.memo.seen["x"] = 1
    one.wrapper.inner.items.append(2)
    assert (two.holder.items, two.memo.seen, two.wrapper.inner.items) == ([1], {}, [1])
    assert (one.dir, two.dir) == (Path("x"), Path("y"))


def test_the_pinned_specs_are_completed_once_and_as_a_first_reading_completes_them(
        tmp_path, monkeypatch):
    """The pinned catalog file leaves out where argparse stores a flag; the releases complete
    each spec from the flag history. A load of the same catalog bytes takes the specs an
    earlier one completed (frozen: the same objects), and they say what a first reading says;
    a spec the bounds file made anew for this load (a bound, a choice an environment variable
    adds) is completed anew."""
    a = load_database(_copy(tmp_path, "a")).catalog.flags
    b = load_database(_copy(tmp_path, "b")).catalog.flags
    _keep_nothing(monkeypatch)
    fresh = load_database(_copy(tmp_path, "c")).catalog.flags
    completed = [name for name, spec in fresh.items() if spec.dest]
    assert completed
    for flags in (a, b):
        assert {n: (s.dest, s.bound) for n, s in flags.items()} \
            == {n: (s.dest, s.bound) for n, s in fresh.items()}
    untouched = [n for n in completed if a[n].bound is None and not a[n].env_choices]
    assert untouched and all(b[name] is a[name] for name in untouched)
