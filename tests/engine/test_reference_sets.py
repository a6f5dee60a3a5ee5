"""Every model with an upstream reference given as sets (tests/corpus/reference/<model>-sets.yaml:
recipes whose flag order upstream leaves to its engine) resolves each recipe to the upstream
command as a set of flags and a set of env assignments, with the upstream status and node count;
and the model has no cell the reference lacks. Which selection a recipe is, is data of the file."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from helpers import yamlc
from macros.engine.database import RECIPES, cached_database
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

REFERENCE = Path(__file__).resolve().parents[1] / "corpus" / "reference"
_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")


def _references() -> list[tuple[str, dict]]:
    models = sorted(p.name for p in RECIPES.iterdir() if (p / "model.yaml").is_file())
    return [(m, yamlc.load((REFERENCE / f"{m}-sets.yaml").read_text(encoding="utf-8")))
            for m in models if (REFERENCE / f"{m}-sets.yaml").is_file()]


CASES = [pytest.param(m, ref, r, id=f"{m}:{r['id']}") for m, ref in _references()
         for r in ref["recipes"]]


def _resolved(model_id: str, recipe: dict):
    sel = recipe["selection"]
    dims = set(cached_database().model(model_id).dimensions)
    match = {k: v for k, v in sel.items() if k in dims}
    picks = {k: v for k, v in sel.items() if k not in dims}
    return resolve(cached_database(), Selection(model_id, match, picks))


def _words(texts: list[str], values: dict) -> set[tuple[str, ...]]:
    filled = [_PLACEHOLDER.sub(lambda m: values[m.group(1)], t) for t in texts]
    return {tuple(shlex.split(t)) for t in filled}


def test_there_is_a_reference_given_as_sets():
    assert CASES, "no tests/corpus/reference/<model>-sets.yaml for any model"


@pytest.mark.parametrize("model_id,ref,recipe", CASES)
def test_a_reference_recipe_resolves_to_the_upstream_flag_and_env_sets(model_id, ref, recipe):
    res = _resolved(model_id, recipe)
    assert {tuple(f.words()) for f in res.flags} == _words(recipe["flags"], ref["placeholders"])
    assert len(res.flags) == len(recipe["flags"])  # no flag twice
    assert set(res.env) == {e for e in recipe["env"]}


@pytest.mark.parametrize("model_id,ref,recipe", CASES)
def test_a_reference_recipe_has_the_upstream_status_and_node_count(model_id, ref, recipe):
    res = _resolved(model_id, recipe)
    assert (res.status, res.nodes) == (recipe["status"], recipe["nodes"])
    assert res.model_name == ref["placeholders"]["MODEL_NAME"]


@pytest.mark.parametrize("model_id,ref,recipe", [c for c in CASES if "gpus_per_node" in c.values[2]])
def test_a_reference_recipe_takes_the_upstream_gpus_per_node(model_id, ref, recipe):
    """The GPUs a node gives the recipe (a partial node: 4 of a B200 node's 8), where the
    reference states them."""
    res = _resolved(model_id, recipe)
    assert (res.nodes, res.gpus_per_node) == (recipe["nodes"], recipe["gpus_per_node"])


@pytest.mark.parametrize("model_id,ref,recipe", [c for c in CASES if "image" in c.values[2]])
def test_a_reference_recipe_runs_the_upstream_image_or_none(model_id, ref, recipe):
    """The image upstream publishes for the recipe, or none (null: the Python form only, whose
    docker text is the install route and never a made-up image)."""
    res = _resolved(model_id, recipe)
    assert res.docker_image == recipe["image"]
    assert (res.install != []) == (recipe["image"] is None)


@pytest.mark.parametrize("model_id,ref", [pytest.param(m, r, id=m) for m, r in _references()])
def test_a_model_with_a_reference_has_no_cell_the_reference_lacks(model_id, ref):
    model = cached_database().model(model_id)
    dims = model.dimensions
    listed = {model.key({k: v for k, v in r["selection"].items() if k in dims})
              for r in ref["recipes"]}
    assert [model.key(c.match) for c in model.cells if model.key(c.match) not in listed] == []
