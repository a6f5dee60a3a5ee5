"""Negated boolean flags (argparse's ``BooleanOptionalAction``: ``--X`` and ``--no-X``) are
first-class: a model's data may write ``--no-X``, it means X is false to the rules, ``recipes
check``, the effective configuration, an overlay's edit, the release ranges and the export.

The flags are picked from the catalog by what it records (a BooleanOptionalAction flag no model's
data names; a plain store_true flag), never by a model's spelling."""

from __future__ import annotations

import pytest
from helpers.models import MODELS, ROOT, cell_selection, edit_yaml

from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.flags import Flag
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site.export import export_model

DATA = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "recipes").glob("*/*.yaml"))
               if p.parent.name != "catalog")


def _optional(catalog):
    """A BooleanOptionalAction flag no model's data names, and its --no- form."""
    spec = next((s for n, s in sorted(catalog.flags.items())
                 if s.negations and n not in DATA and s.negations[0] not in DATA), None)
    if spec is None:  # the catalog is the data that says so
        pytest.skip(f"the {catalog.package} catalog has no BooleanOptionalAction flag, so no "
                    "--no-X form to write")
    return spec.name, spec.negations[0]


def _model_catalog(db, model_id: str):
    """The catalog of the CLI that serves ``model_id``."""
    return db.serving(db.model(model_id)).catalog


def _store_true(catalog) -> str:
    return next(n for n, s in sorted(catalog.flags.items())
                if not s.takes_value and not s.negations and s.action == "store_true"
                and n not in DATA)


def _append_to_first_cell(root, model_id: str, *texts: str) -> None:
    edit_yaml(root / model_id / "cells.yaml",
              lambda data: data["cells"][0]["flags"].extend(texts))


def test_the_catalog_reads_a_negation_as_its_own_setting(db):
    name, negation = _optional(db.catalog)
    assert db.catalog.lookup(negation).kind == "negated"
    assert db.catalog.canonical(negation) == negation  # not the flag it turns off
    assert db.catalog.settings[negation] == name == db.catalog.settings[name]


@pytest.mark.parametrize("model_id", MODELS)
def test_validate_accepts_a_negation_in_a_cell(recipes_copy, model_id, db):
    _, negation = _optional(_model_catalog(db, model_id))
    _append_to_first_cell(recipes_copy, model_id, negation)
    model = load_database(recipes_copy).model(model_id)
    assert negation in [f.name for f in model.cell_flags[0]]


def test_validate_refuses_a_negation_with_a_value_and_a_no_form_argparse_lacks(recipes_copy, db):
    model_id = MODELS[0]
    name, negation = _optional(db.catalog)
    plain = _store_true(db.catalog)
    _append_to_first_cell(recipes_copy, model_id, f"{negation} yes", "--no-" + plain[2:])
    with pytest.raises(RecipeError) as err:
        load_database(recipes_copy)
    text = str(err.value)
    assert f"{name} takes no value (got 'yes')" in text
    assert f"flag '--no-{plain[2:]}' is not in the" in text
    assert "is an alias" not in text


def _rule_copy(recipes_copy, model_id: str, when: dict) -> None:
    """A check rule of the copy that fires on ``when``."""
    edit_yaml(recipes_copy / model_id / "rules.yaml", lambda data: data.setdefault(
        "checks", []).append({"id": "test-negation", "severity": "error", "when": when,
                              "message": "check.test-negation", "flags": []}))
    for lang in ("en", "ko"):
        edit_yaml(recipes_copy / model_id / f"text.{lang}.yaml",
                  lambda data: data.update({"check.test-negation": "negation test"}))


@pytest.mark.parametrize("model_id", MODELS)
def test_check_rules_read_the_negation_as_the_flag_being_false(recipes_copy, model_id, db):
    name, negation = _optional(_model_catalog(db, model_id))
    _rule_copy(recipes_copy, model_id, {"has": [name]})
    copy = load_database(recipes_copy)
    served = copy.model(model_id).info.model_names[0].name

    def fired(flag: str) -> bool:
        found = check_text(copy, f"sglang serve --model-path {served} {flag}", model_id=model_id)
        return any(f.rule == "test-negation" for f in found)
    assert fired(name)
    assert not fired(negation)


def test_check_calls_a_flag_and_its_negation_one_setting_given_twice(db):
    name, negation = _optional(db.catalog)
    found = check_text(db, f"sglang serve --model-path m {name} {negation}", model_id=MODELS[0])
    assert [f.rule for f in found if f.rule.startswith("catalog.")] == ["catalog.repeated-flag"]
    assert not any(f.rule == "catalog.unknown-flag" for f in
                   check_text(db, f"sglang serve --model-path m {negation}", model_id=MODELS[0]))


def test_every_release_where_the_flag_is_optional_accepts_its_negation(db):
    name, negation = _optional(db.catalog)
    releases = db.releases
    for version in releases.order:
        spec = releases.catalog(version).flags.get(name)
        assert releases.accepts(version, Flag(negation)) == bool(spec and spec.negations), version
    assert releases.span([Flag(negation)], db.catalog.version) is not None


@pytest.mark.parametrize("model_id", MODELS)
def test_an_overlay_adding_the_negation_replaces_the_flag_and_the_export_has_it(
        recipes_copy, model_id, db):
    """The cell sets X; an option of a new axis writes --no-X: one setting, in X's place."""
    name, negation = _optional(_model_catalog(db, model_id))
    _append_to_first_cell(recipes_copy, model_id, name)
    edit_yaml(recipes_copy / model_id / "overlays.yaml", lambda data: data["axes"].append(
        {"id": "negtest", "label": "check.test-negation", "default": "keep", "options": [
            {"id": "keep", "label": "check.test-negation"},
            {"id": "drop", "label": "check.test-negation", "add": [negation]}]}))
    for lang in ("en", "ko"):
        edit_yaml(recipes_copy / model_id / f"text.{lang}.yaml",
                  lambda data: data.update({"check.test-negation": "negation test"}))
    copy = load_database(recipes_copy)
    model = copy.model(model_id)
    sel = cell_selection(model)
    kept = resolve(copy, Selection(model_id, sel, {"negtest": "keep"}))
    dropped = resolve(copy, Selection(model_id, sel, {"negtest": "drop"}))
    kept_names = [f.name for f in kept.flags]
    dropped_names = [f.name for f in dropped.flags]
    assert name in kept_names and negation not in kept_names
    assert negation in dropped_names and name not in dropped_names
    assert dropped_names.index(negation) == kept_names.index(name)
    assert not [d for d in dropped.diagnostics if d.severity == "error"]
    exported = export_model(copy, model_id, "en")["catalog"]["flags"]
    assert exported[negation]["negates"] == name
    assert not exported[negation]["takes_value"]
