"""Environment variables judged as the pinned sglang release reads them: its deprecated set
warns with the release's own words, the variables it reads outside its registry are known, and
a model's branch_env may only name variables the release does not read at all."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from helpers.models import MODELS, ROOT, edit_yaml
from macros.site import render
from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site.pages import Site

FOLDED = "SGLANG_DSPARK_FOLDED_SAMPLING"
FOLDED_WHY = ("sglang 0.5.23 warns at start and ignores it. A folded DSpark draft proposal "
              "samples; set SGLANG_DSPARK_USE_GREEDY_DRAFT=1 for an argmax-only draft, or "
              "SGLANG_DSPARK_FOLDED_PROPOSAL=0 to keep the proposal out of the graph.")


def env_findings(db, text, **ctx):
    return [(f.severity.value, f.rule, f.message, tuple(f.flags))
            for f in check_text(db, text, **ctx) if f.rule != "check.model-unknown"]


def test_a_deprecated_variable_warns_with_the_note_of_the_releases_deprecated_set(db):
    assert env_findings(db, f"{FOLDED}=0 sglang serve --model-path m") == [
        ("warning", "catalog.deprecated-env", f"{FOLDED} is deprecated: {FOLDED_WHY}", (FOLDED,))]


def test_an_old_name_the_registry_still_reads_warns_with_its_new_name(db):
    text = "SGLANG_AITER_MLA_DCP_DECODE_BACKEND=asm sglang serve --model-path m"
    assert env_findings(db, text) == [
        ("warning", "catalog.deprecated-env",
         "SGLANG_AITER_MLA_DCP_DECODE_BACKEND is deprecated: sglang 0.5.23 reads it only while "
         "SGLANG_AITER_MLA_DECODE_BACKEND is unset, with a deprecation warning; set "
         "SGLANG_AITER_MLA_DECODE_BACKEND instead", ("SGLANG_AITER_MLA_DCP_DECODE_BACKEND",))]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_variable_the_release_reads_outside_its_registry_is_no_unknown_variable(db, model_id):
    assert env_findings(db, "SGLANG_HOST_IP=10.0.0.1 sglang serve --model-path m",
                        model_id=model_id) == []


@pytest.mark.parametrize("model_id", MODELS)
def test_recipes_validate_refuses_a_branch_env_entry_the_release_reads_at_its_place(
        cli, recipes_copy, model_id):
    """Each way the release reads a variable: its registry, straight from the environment
    (env_read in flag-bounds.yaml), and its deprecated set."""
    loaded = load_database(recipes_copy)
    catalog = loaded.serving(loaded.model(model_id)).catalog  # the variables its CLI reads
    if catalog.package == "sglang":  # facts read by hand in the 0.5.23 wheel
        readers = {"SGLANG_USE_AITER": "through its environment registry",
                   "SGLANG_HOST_IP": "straight from the environment (sglang/srt/utils/"
                                     "network.py (the multi-node bootstrap), os.getenv)",
                   FOLDED: "to warn that it is deprecated"}
    else:  # one variable of each way the catalog records (a way it lacks is not tested)
        ways = [next((n for n, e in sorted(catalog.env.items()) if "read" not in e), None),
                next((n for n, e in sorted(catalog.env.items()) if "read" in e), None),
                next(iter(sorted(catalog.deprecated_env)), None)]
        readers = {n: catalog.stock_read(n) for n in ways if n is not None}
    path = recipes_copy / model_id / "model.yaml"
    edit_yaml(path, lambda data: data.setdefault("branch_env", {}).update(
        {name: "a branch" for name in readers}))
    lines = path.read_text(encoding="utf-8").splitlines()
    r = cli("--root", str(recipes_copy), "validate")
    want = []
    for name, how in readers.items():
        line = next(i for i, text in enumerate(lines, 1) if text.startswith(f"  {name}: "))
        want.append(f"error: recipes/{model_id}/model.yaml:{line}:{len(name) + 5}: {name} is "
                    f"read by stock {catalog.package} 0.5.23 {how}, so it is not branch-only; "
                    "delete it "
                    "from branch_env")
    assert (r.code, r.err.splitlines()) == (1, want)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_branch_env_entry_without_a_reader_is_a_load_error(recipes_copy, model_id):
    path = recipes_copy / model_id / "model.yaml"
    edit_yaml(path, lambda data: data.setdefault("branch_env", {}).update(
        {"SGLANG_NOT_IN_ANY_RELEASE": " "}))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = exc.value.problems
    assert problem.message == ("branch_env SGLANG_NOT_IN_ANY_RELEASE gives no reader: say which "
                               "branch or image reads it")


def test_no_printed_command_sets_a_deprecated_variable(db):
    """Every variable a command can print comes from a cell, a Playground option or a rule's
    transform. The Ascend cells dropped SGLANG_DSPARK_FOLDED_SAMPLING=0: no round ran with it,
    and 0.5.23 ignores it (they keep SGLANG_DSPARK_FOLDED_PROPOSAL=0, which its note names)."""
    for model in db.models.values():
        sources = [cell.env for cell in model.cells] + \
            [o.env for axis in model.axes for o in axis.options] + \
            [t.env for t in model.rules.transforms]
        names = {e.split("=", 1)[0] for env in sources for e in env}
        assert sorted(names & set(db.catalog.deprecated_env)) == [], model.id


def _with_deprecated_variable(recipes_copy, model_id):
    """The model's first cell sets the deprecated variable: its database and that cell."""
    db = load_database(recipes_copy)
    if FOLDED not in db.serving(db.model(model_id)).catalog.deprecated_env:
        pytest.skip(f"the CLI serving {model_id} ({db.model(model_id).info.cli}) does not "
                    f"deprecate {FOLDED}: its catalog's deprecated set is "
                    f"{sorted(db.serving(db.model(model_id)).catalog.deprecated_env) or 'empty'}")
    edit_yaml(recipes_copy / model_id / "cells.yaml",
              lambda data: data["cells"][0].setdefault("env", []).append(f"{FOLDED}=0"))
    db = load_database(recipes_copy)
    return db, db.model(model_id).cells[0]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_generated_command_with_a_deprecated_variable_carries_the_warning_in_both_languages(
        recipes_copy, model_id):
    db, cell = _with_deprecated_variable(recipes_copy, model_id)
    model = db.model(model_id)
    res = resolve(db, Selection.flat(model, dict(cell.match)), strict=False)
    [d] = [d for d in res.diagnostics if d.rule == "catalog.deprecated-env"]
    assert (d.severity.value, d.flags) == ("warning", [FOLDED])
    assert render.diagnostic_text(db, model, d, "en") == f"{FOLDED} is deprecated: {FOLDED_WHY}"
    assert render.diagnostic_text(db, model, d, "ko") == \
        f"{FOLDED} 변수는 지원 중단(deprecated)됐어요: {FOLDED_WHY}"


@pytest.mark.parametrize("model_id", MODELS)
def test_a_deprecated_variable_is_no_page_caveat_just_as_a_deprecated_flag_is_not(
        recipes_copy, model_id):
    """The page's caveats show the model's rule warnings, not the catalog's: the warning is in
    the command's checks (JSON, Playground) only."""
    db, cell = _with_deprecated_variable(recipes_copy, model_id)
    for lang in ("en", "ko"):
        assert FOLDED not in Site(db, lang).caveats(model_id, **cell.match)


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model_id", MODELS)
def test_the_playground_gives_the_same_deprecated_variable_warning(recipes_copy, model_id,
                                                                    tmp_path):
    db, cell = _with_deprecated_variable(recipes_copy, model_id)
    model = db.model(model_id)
    res = resolve(db, Selection.flat(model, dict(cell.match)), strict=False)
    exports = []
    for lang in ("en", "ko"):
        exports.append(tmp_path / f"{lang}.json")
        exports[-1].write_text(json.dumps(export_model(db, model_id, lang)), encoding="utf-8")
    (tmp_path / "selections.json").write_text(json.dumps([dict(cell.match)]), encoding="utf-8")
    proc = subprocess.run([NODE, str(ROOT / "tests" / "js" / "parity.mjs"), *map(str, exports),
                           str(tmp_path / "selections.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    [got] = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"]
    for lang in ("en", "ko"):
        want = [[d.severity.value, d.rule, render.diagnostic_text(db, model, d, lang)]
                for d in res.diagnostics]
        assert got[f"diagnostics_{lang}"] == want
        assert "catalog.deprecated-env" in [rule for _, rule, _ in want]


def test_a_missing_history_is_a_load_error_that_says_what_it_holds(recipes_copy):
    (recipes_copy / "catalog" / "sglang-history.json").unlink()
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert [(p.file, p.message) for p in exc.value.problems] == [
        ("recipes/catalog/sglang-history.json", "file not found (it holds every release's "
         "flags, environment registry and deprecated variables); run 'recipes catalog'")]
