"""Branch values: a flag value the pinned SGLang release refuses, accepted for the one model
whose ``branch_values`` (model.yaml) lists it, with who reads it. The loader, ``recipes check``,
the generated-command check and the Playground accept it for that model only; any other value,
and the same value for any other model, stays an error."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from helpers.models import (BRANCH_VALUE, MODELS, ROOT, add_branch_value, add_twin,
                            cell_selection, edit_yaml, unused_choice_flag)

from macros.site import render
from macros.engine.catalog import value_problem
from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

NODE = shutil.which("node")


def _refusal(db, flag: str) -> str:
    """What the pinned catalog says of BRANCH_VALUE for ``flag``."""
    return value_problem(db.catalog.flags[flag], (BRANCH_VALUE,))


def _resolve_first_cell(db, model_id: str):
    return resolve(db, Selection.flat(db.model(model_id), cell_selection(db.model(model_id))))


@pytest.fixture(params=MODELS)
def branch(request, db, recipes_copy):
    """(database, model id, its twin without the branch value, the flag): the model's first
    cell sets a flag to a value only the model's branch_values allows."""
    model_id = request.param
    twin = add_twin(recipes_copy, model_id)
    flag = unused_choice_flag(db, model_id)
    add_branch_value(recipes_copy, model_id, flag)
    return load_database(recipes_copy), model_id, twin, flag


def test_a_listed_branch_value_loads_and_its_command_checks_clean(branch):
    db, model_id, _, flag = branch
    res = _resolve_first_cell(db, model_id)
    assert f"{flag} {BRANCH_VALUE}" in res.flag_texts
    assert [d.rule for d in res.diagnostics if d.severity.value == "error"] == []


@pytest.mark.parametrize("model_id", MODELS)
def test_an_unlisted_value_in_a_cell_is_a_load_error_naming_the_valid_choices(db, recipes_copy,
                                                                              model_id):
    flag = unused_choice_flag(db, model_id)
    add_branch_value(recipes_copy, model_id, flag, declare=False)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = exc.value.problems
    assert problem.file == f"recipes/{model_id}/cells.yaml"
    assert problem.message == _refusal(db, flag)


def test_recipes_check_accepts_the_value_for_its_model_only(branch):
    db, model_id, twin, flag = branch
    res = _resolve_first_cell(db, model_id)
    text = render.command_text(db, db.model(model_id), res, "en")
    assert [f.rule for f in check_text(db, text, model_id=model_id)
            if f.severity.value == "error"] == []
    [bad] = [f for f in check_text(db, text, model_id=twin) if f.severity.value == "error"]
    assert (bad.rule, bad.message, bad.flags) == ("catalog.bad-value", _refusal(db, flag), [flag])


def test_recipes_check_without_model_takes_the_model_its_served_name_names(branch):
    db, model_id, _, _ = branch
    res = _resolve_first_cell(db, model_id)
    text = render.command_text(db, db.model(model_id), res, "en")
    assert [(f.rule, f.message) for f in check_text(db, text)] == \
        [(f.rule, f.message) for f in check_text(db, text, model_id=model_id)]


def test_recipes_check_without_model_or_served_name_refuses_the_value(branch):
    db, model_id, twin, flag = branch
    res = _resolve_first_cell(db, model_id)
    text = render.command_text(db, db.model(model_id), res, "en").replace(
        res.model_name, "/models/local-copy")
    found = [(f.severity.value, f.rule) for f in check_text(db, text)]
    assert found == [("error", "catalog.bad-value"), ("info", "check.model-unknown")]


@pytest.mark.parametrize("entry, message", [
    ({"--tp": {"x": "a branch"}}, "'--tp' is an abbreviation of '--tp-size'; write the full name"),
    ({"--enable-metrics": {"x": "a branch"}},
     "flag '--enable-metrics' takes no value, so a branch cannot add one"),
    ({"--kv-cache-dtype": {"auto": "a branch"}},
     "'auto' is already a valid value of --kv-cache-dtype in sglang 0.5.23; delete it from "
     "branch_values"),
    ({"--kv-cache-dtype": {"fp9": None}},
     "branch value 'fp9' of --kv-cache-dtype gives no reason: say who reads it (the branch or "
     "image that accepts it)"),
    ({"--kv-cache-dtype": {"fp9": "  "}},
     "branch value 'fp9' of --kv-cache-dtype gives no reason: say who reads it (the branch or "
     "image that accepts it)"),
], ids=["abbreviated-flag", "flag-without-value", "value-already-valid", "no-reason",
        "blank-reason"])
@pytest.mark.parametrize("model_id", MODELS)
def test_a_wrong_branch_values_entry_is_a_load_error(recipes_copy, model_id, entry, message):
    edit_yaml(recipes_copy / model_id / "model.yaml",
              lambda data: data.setdefault("branch_values", {}).update(entry))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = exc.value.problems
    assert (problem.file, problem.message) == (f"recipes/{model_id}/model.yaml", message)
    assert problem.line is not None


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_playground_accepts_the_value_for_its_model_only(branch, tmp_path):
    db, model_id, _, flag = branch
    data = export_model(db, model_id, "en")
    without = json.loads(json.dumps(data))
    del without["model"]["branch_values"][flag]
    selection = cell_selection(db.model(model_id))
    (tmp_path / "sel.json").write_text(json.dumps([selection]), encoding="utf-8")
    got = {}
    for name, export in (("with", data), ("without", without)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        subprocess.run([NODE, str(ROOT / "tests" / "js" / "parity.mjs"), str(path), str(path),
                        str(tmp_path / "sel.json"), str(tmp_path / f"{name}.out.json")],
                       check=True, capture_output=True, timeout=120)
        [got[name]] = json.loads((tmp_path / f"{name}.out.json").read_text())["results"]
    res = _resolve_first_cell(db, model_id)
    assert got["with"]["rules"] == sorted({d.rule for d in res.diagnostics})
    assert "catalog.bad-value" not in got["with"]["rules"]
    assert ["error", "catalog.bad-value", _refusal(db, flag)] in got["without"]["diagnostics_en"]
