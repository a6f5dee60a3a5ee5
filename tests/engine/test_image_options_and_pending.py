"""Two general capabilities a model's data can use: docker run options an image needs where its
rule matches (a platform's, after the vendor's: ``docker_images[].args``), and benchmark results
announced upstream without numbers yet (``pending: true``), shown as pending in both languages.
Each holds for every model, on a copy given the data."""

from __future__ import annotations

import pytest
from helpers.models import BENCHMARKED, MODELS, cell_selection, edit_yaml

from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site.pages import Site
from macros.site.runmodes import docker_options

OPTION = "--ulimit memlock=-1"


def _with_platform_image(recipes, model_id: str, hw: str, args: list[str]) -> None:
    edit_yaml(recipes / model_id / "model.yaml", lambda d: d["docker_images"].insert(
        0, {"when": {"hw": hw}, "image": "example/test-image:1", "args": args}))


@pytest.mark.parametrize("model_id", MODELS)
def test_an_images_options_follow_the_vendors_on_its_platform_only(recipes_copy, db, model_id):
    model = db.model(model_id)
    first = model.cells[0]
    other = next((c for c in model.cells if c.match["hw"] != first.match["hw"]
                  and db.platforms[c.match["hw"]].vendor == db.platforms[first.match["hw"]].vendor),
                 None)
    _with_platform_image(recipes_copy, model_id, first.match["hw"], [OPTION])
    copy = load_database(recipes_copy)
    vendor = copy.containers.vendors[copy.platforms[first.match["hw"]].vendor.value]
    res = resolve(copy, Selection(model_id, dict(first.match)))
    lines = docker_options(copy, res)
    assert res.docker_args == [OPTION]
    assert lines[len(vendor.args)] == OPTION and lines.count(OPTION) == 1
    if other is not None:
        assert OPTION not in docker_options(copy, resolve(copy, Selection(model_id,
                                                                          dict(other.match))))


@pytest.mark.parametrize(("arg", "said"), [
    ("--bogus 1", "--bogus"), ("--privileged yes", "--privileged")])
def test_an_image_option_docker_run_lacks_or_misspells_is_a_load_error(recipes_copy, db, arg, said):
    model_id = MODELS[0]
    _with_platform_image(recipes_copy, model_id, db.model(model_id).cells[0].match["hw"], [arg])
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = [p for p in exc.value.problems if "docker_images" in str(p) or said in str(p)]
    assert problem.file.endswith(f"{model_id}/model.yaml") and said in problem.message
    assert "run_flags:" in problem.message


def _pending_first(recipes, model_id: str) -> dict:
    """The copy's first result becomes one announced without numbers: its match only (the
    page lists it after the results of the rounds, having none)."""
    kept = {}

    def change(d):
        kept.update(d["results"][0]["match"])
        d["results"][0] = {"match": dict(kept), "pending": True}
    edit_yaml(recipes / model_id / "benchmarks.yaml", change)
    return kept


@pytest.mark.parametrize("model_id", BENCHMARKED)  # models with a benchmarks.yaml
def test_a_pending_result_shows_as_pending_in_both_languages(recipes_copy, db, model_id):
    def pending(database, lang):
        said = database.t(lang, "bench.pending")
        return [line for line in Site(database, lang).benchmarks(model_id).splitlines()
                if said in line]
    before = {lang: pending(db, lang) for lang in ("en", "ko")}
    _pending_first(recipes_copy, model_id)
    copy = load_database(recipes_copy)
    for lang in ("en", "ko"):
        lines = pending(copy, lang)
        assert len(lines) == len(before[lang]) + 1
        assert all(line.startswith("**") and "SGLang" not in line for line in lines)


@pytest.mark.parametrize("model_id", BENCHMARKED)  # models with a benchmarks.yaml
def test_a_pending_result_with_numbers_or_a_run_is_a_load_error(recipes_copy, db, model_id):
    match = _pending_first(recipes_copy, model_id)
    round_id = db.model(model_id).info.rounds[0].id
    edit_yaml(recipes_copy / model_id / "benchmarks.yaml",
              lambda d: d["results"][0].update(round=round_id))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert any("a pending result has no numbers and no run yet; remove 'round'" in p.message
               for p in exc.value.problems), match


@pytest.mark.parametrize("model_id", BENCHMARKED)  # models with a benchmarks.yaml
def test_a_result_with_no_numbers_that_is_not_pending_says_how_to_mark_it(recipes_copy, model_id):
    edit_yaml(recipes_copy / model_id / "benchmarks.yaml", lambda d: d["results"][0].update(
        rows=[], accuracy=[], measured=[]))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert any("'pending: true'" in p.message for p in exc.value.problems)
