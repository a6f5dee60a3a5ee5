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
from macros.engine.flags import Flag
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

NODE = shutil.which("node")


def _refusal(db, flag: str, model_id: str) -> str:
    """What the pinned catalog of the model's CLI says of BRANCH_VALUE for ``flag``."""
    return value_problem(db.serving(db.model(model_id)).catalog.flags[flag], (BRANCH_VALUE,))


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
    assert problem.message == _refusal(db, flag, model_id)


def test_recipes_check_accepts_the_value_for_its_model_only(branch):
    db, model_id, twin, flag = branch
    res = _resolve_first_cell(db, model_id)
    text = render.command_text(db, db.model(model_id), res, "en")
    assert [f.rule for f in check_text(db, text, model_id=model_id)
            if f.severity.value == "error"] == []
    [bad] = [f for f in check_text(db, text, model_id=twin) if f.severity.value == "error"]
    assert (bad.rule, bad.message, bad.flags) == ("catalog.bad-value",
                                                  _refusal(db, flag, model_id), [flag])


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
    # a path no registry knows: how the checker told the model's CLI is a note of its own
    found = [(f.severity.value, f.rule) for f in check_text(db, text)
             if f.rule != "check.cli-by-flags"]
    assert found == [("error", "catalog.bad-value"), ("info", "check.model-unknown")]


def _wrong_entry(catalog, case: str) -> tuple[dict, str]:
    """(branch_values entry, the load error) of each kind of mistake, with flags of the catalog
    of the model's CLI: a store_true flag, and the first flag with choices (the LLM server's
    --kv-cache-dtype, say)."""
    if case == "abbreviated-flag":
        return ({"--tp": {"x": "a branch"}},
                "'--tp' is an abbreviation of '--tp-size'; write the full name")
    plain = next(n for n, f in sorted(catalog.flags.items())
                 if f.action == "store_true" and not f.negations and not f.programs)
    if case == "flag-without-value":
        return ({plain: {"x": "a branch"}},
                f"flag '{plain}' takes no value, so a branch cannot add one")
    chosen = "--kv-cache-dtype" if "--kv-cache-dtype" in catalog.flags else next(
        n for n, f in sorted(catalog.flags.items()) if f.choices and f.nargs is None)
    first = catalog.flags[chosen].choices[0]
    if case == "value-already-valid":
        return ({chosen: {first: "a branch"}},
                f"'{first}' is already a valid value of {chosen} in {catalog.package} "
                f"{catalog.version}; delete it from branch_values")
    reason = None if case == "no-reason" else "  "
    return ({chosen: {"fp9": reason}},
            f"branch value 'fp9' of {chosen} gives no reason: say who reads it (the branch or "
            "image that accepts it)")


@pytest.mark.parametrize("case", ["abbreviated-flag", "flag-without-value",
                                  "value-already-valid", "no-reason", "blank-reason"])
@pytest.mark.parametrize("model_id", MODELS)
def test_a_wrong_branch_values_entry_is_a_load_error(recipes_copy, db, model_id, case):
    entry, message = _wrong_entry(db.serving(db.model(model_id)).catalog, case)
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
    assert ["error", "catalog.bad-value", _refusal(db, flag, model_id)] in \
        got["without"]["diagnostics_en"]


# --- issue #24 item 2: a branch build is a release of its own -------------------------------

def _imaged(db, model_id):
    """(flag, value, image) of each branch value that names its image."""
    return [(flag, value, reader.image)
            for flag, values in db.model(model_id).info.branch_values.items()
            for value, reader in values.items() if getattr(reader, "image", None)]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_branch_images_own_value_names_that_image_and_never_a_stock_range(db, model_id):
    """Every command that uses a value only one image has is for that image: it names the
    image (JSON, the page's release sentence), gives no range of stock releases, and spelt
    for a stock release instead the value is refused with the image named."""
    from helpers.walks import walked
    from macros.site.pages import Site

    imaged = _imaged(db, model_id)
    site, seen = Site(db, "en"), 0
    for flat, res in walked(db, model_id):
        used = [(f, v, i) for f, v, i in imaged
                if any(x.name == f and v in x.values for x in res.flags)]
        if not used:
            continue
        seen += 1
        for flag, value, image in used:
            assert res.docker_image == image, (flat, res.docker_image)
            assert res.sglang_image == image and res.sglang_span is None
            assert f"{flag} {value}" in res.branch_only
            sentence = site._span_text(res)
            assert image in sentence and "–" not in sentence
        stock = resolve(db, Selection.flat(db.model(model_id), flat),
                        release=db.releases.order[-2])
        assert stock.sglang_image is None and stock.branch_only == []
        assert "release.branch-only" in [d.rule for d in stock.diagnostics]
    assert seen or not imaged


@pytest.mark.parametrize("model_id", MODELS)
def test_a_branch_value_naming_no_branch_image_of_the_model_is_a_load_error(recipes_copy,
                                                                          model_id):
    """A value's image must be one the model builds from with no release (a branch build);
    any other is an error at its place in model.yaml."""
    flag = unused_choice_flag(load_database(recipes_copy), model_id)
    add_branch_value(recipes_copy, model_id, flag, declare=False)

    def declare(data: dict) -> None:
        data.setdefault("branch_values", {}).setdefault(flag, {})[BRANCH_VALUE] = {
            "image": "example.org/not-an-image:of-this-model", "why": "a test"}
    edit_yaml(recipes_copy / model_id / "model.yaml", declare)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert "example.org/not-an-image:of-this-model' is not a branch image" in str(exc.value)
    assert "model.yaml:" in str(exc.value)


@pytest.mark.parametrize("model_id", MODELS)
def test_the_releases_that_take_a_value_follow_the_branch_values_not_the_dicts_identity(
        db, model_id):
    """What a release takes is remembered per flag and value; the branch values asked with
    it are part of that memory by what they hold. A dict freed and its id taken by another,
    or one dict that gains a value, must not answer with what the old one held (a parity run
    saw a stock release take a branch value that way, after a copied database was freed)."""
    releases = db.serving(db.model(model_id)).releases
    flag_name = unused_choice_flag(db, model_id)
    flag = Flag(flag_name, (BRANCH_VALUE,))
    branch: dict = {}
    assert releases.taking(flag, branch) == []
    branch[flag_name] = {BRANCH_VALUE: "a test branch"}  # the same dict, the same id
    having = [v for v in releases.order if releases.catalog(v).lookup(flag_name).spec]
    assert having and releases.taking(flag, branch) == having
    assert releases.taking(flag, {}) == []
