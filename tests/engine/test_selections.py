"""Every reachable selection composes a command that checks clean, and printing then
re-checking a command finds exactly what the engine found while composing it."""

from __future__ import annotations

from collections import Counter

import pytest

from macros.engine.selection import Selection
from macros.site import render
from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.resolve import resolve
from macros.engine.selections import deployment_selections, resolve_all, sample_playground

from helpers.models import MODELS, edit_yaml
from helpers.walks import walked


@pytest.fixture(scope="module", params=MODELS)
def model_id(request):
    return request.param


@pytest.fixture(scope="module")
def selections(db, model_id):
    return list(deployment_selections(db, model_id))


def _signature(findings):
    return Counter((f.severity.value, f.rule) for f in findings)


def test_every_cell_is_reachable(db, model_id, selections):
    model = db.model(model_id)
    assert {model.key(s) for s in selections} == set(model.cell_index)
    assert len(selections) >= len(model.cells)


def test_resolve_all_gives_each_selection_what_resolve_gives_it(db, model_id, selections):
    """The walk that composes every selection together hands each the resolution it gets on
    its own, strict or snapped, in the order ``deployment_selections`` lists them."""
    model = db.model(model_id)
    walk = list(resolve_all(db, model_id))
    assert [flat for flat, _ in walk] == selections
    for flat, res in walk:
        assert res == resolve(db, Selection.flat(model, flat)), flat
        assert res == resolve(db, Selection.flat(model, flat), strict=False), flat
    # the tests' kept walk (helpers.walks) is this walk, its selections each reader's own
    kept = walked(db, model_id)
    assert kept == walk
    kept[0][0]["changed"] = "by a reader"
    assert walked(db, model_id) == walk


def test_resolve_all_tells_apart_selections_alike_but_for_a_pick_only_a_check_reads(
        db, recipes_copy, model_id):
    """A setting that changes nothing in the command can still change what a check finds
    (here: a planted check on each option of every enumerated setting); the walk, which
    shares one selection's result with the alike ones, gives each its own findings."""
    model = db.model(model_id)
    planted = [{"id": f"planted-{axis}-{option.id}", "severity": "info",
                "when": {axis: option.id}, "message": "check.planted"}
               for axis in model.info.enumerate for option in model.axis_index[axis].options]
    edit_yaml(recipes_copy / model_id / "rules.yaml",
              lambda data: data.setdefault("checks", []).extend(planted))
    for lang, text in (("en", "A planted check."), ("ko", "심어 둔 검사예요.")):
        edit_yaml(recipes_copy / model_id / f"text.{lang}.yaml",
                  lambda data: data.update({"check.planted": text}))
    copy = load_database(recipes_copy)
    fired = 0
    for flat, res in resolve_all(copy, model_id):
        assert res == resolve(copy, Selection.flat(copy.model(model_id), flat)), flat
        fired += sum(d.rule.startswith("planted-") for d in res.diagnostics)
    assert fired >= len(model.info.enumerate) * len(model.cells)


def test_every_deployment_selection_checks_clean_and_round_trips(db, model_id, selections):
    model = db.model(model_id)
    failures = []
    for sel, res in walked(db, model_id):
        errors = [d.rule for d in res.diagnostics if d.severity.value == "error"]
        printed = render.command_text(db, model, res, "en")
        # read back as the release it is written for parses it
        again = check_text(db, printed, model_id=model_id, sglang=res.sglang, **res.match)
        router = render.router_text(res)
        router_errors = [f.rule for f in check_text(db, router, model_id=model_id)
                         if f.severity.value == "error"] if router else []
        if errors or router_errors or _signature(again) != Counter(
                (d.severity.value, d.rule) for d in res.diagnostics):
            failures.append((sel, errors, router_errors, _signature(again)))
    assert not failures, f"{len(failures)} of {len(selections)} failed; first: {failures[:3]}"


def test_sampled_playground_selections_check_clean(db, model_id):
    failures = []
    for sel in sample_playground(db, model_id, 300, seed=11):
        res = resolve(db, Selection.flat(db.model(model_id), sel))
        errors = [d.rule for d in res.diagnostics if d.severity.value == "error"]
        if errors:
            failures.append((sel, errors))
    assert not failures, failures[:3]


def test_resolution_is_deterministic(db, model_id, selections):
    sel = selections[len(selections) // 2]
    a = resolve(db, Selection.flat(db.model(model_id), sel))
    b = resolve(db, Selection.flat(db.model(model_id), sel))
    assert a == b
