"""The CLI stays right with many models: ``recipes check`` tells whose rules apply from the
served name (or says it cannot), ``recipes command`` fails on its own errors, and ``recipes
validate`` names an abbreviation as one and answers an unknown platform with how to add it."""

from __future__ import annotations

import re
import shutil

import pytest
from helpers.models import MODELS, add_twin, cell_selection, edit_yaml

from macros.engine.check import check_text
from macros.engine.database import load_database
from macros.engine.errors import RecipeError

ALWAYS = "check.always-wrong"


def _args(selection: dict[str, str]) -> list[str]:
    return [word for key, value in selection.items() for word in ("--set", f"{key}={value}")]


def _served_name(db, model_id: str) -> str:
    return db.model(model_id).info.model_names[0].name


def _model_unknown(db, text: str) -> list[str]:
    return [f.message for f in check_text(db, text) if f.rule == "check.model-unknown"]


@pytest.fixture(params=MODELS)
def two(request, recipes_copy):
    """(database, model id, its twin): the model and a copy of it with other served names."""
    twin = add_twin(recipes_copy, request.param)
    return load_database(recipes_copy), request.param, twin


def test_check_with_several_models_says_when_no_model_serves_the_name(two):
    db, model_id, twin = two
    models = ", ".join(sorted(db.models))
    assert _model_unknown(db, "sglang serve --model-path /models/mine --tp-size 8") == [
        "cannot tell which model's rules apply: '/models/mine' is not a served name of any "
        "model (their model_names); only the flag catalog was checked (models: "
        f"{models}; choose one with --model ID)"]


def test_check_with_several_models_says_when_two_models_serve_the_name(two, recipes_copy):
    db, model_id, twin = two
    edit_yaml(recipes_copy / twin / "model.yaml", lambda data: data["model_names"].append(
        {"when": {}, "name": _served_name(db, model_id)}))
    db = load_database(recipes_copy)
    name = _served_name(db, model_id)
    [message] = _model_unknown(db, f"sglang serve --model-path {name} --tp-size 8")
    assert f"'{name}' is a served name of {' and '.join(sorted([model_id, twin]))};" in message


def test_check_with_several_models_applies_the_rules_of_the_model_that_serves_the_name(two):
    db, model_id, twin = two
    text = f"sglang serve --model-path {_served_name(db, twin)} --tp-size 8"
    assert [(f.rule, f.message) for f in check_text(db, text)] == \
        [(f.rule, f.message) for f in check_text(db, text, model_id=twin)]


def test_a_router_takes_the_model_its_servers_name(two):
    db, model_id, _ = two
    server = f"sglang serve --model-path {_served_name(db, model_id)} --tp-size 8"
    router = "python3 -m sglang_router.launch_router --pd-disaggregation"
    assert _model_unknown(db, f"{server}\n{router}\n") == []
    assert _model_unknown(db, router) == [
        "cannot tell which model's rules apply: no server command in this text names the "
        "served name of one model; only the flag catalog was checked (models: "
        f"{', '.join(sorted(db.models))}; choose one with --model ID)"]


@pytest.mark.parametrize("model_id", MODELS)
def test_check_with_one_model_applies_its_rules_whatever_the_model_path(recipes_copy, model_id):
    for other in set(MODELS) - {model_id}:
        shutil.rmtree(recipes_copy / other)
    db = load_database(recipes_copy)
    text = "sglang serve --model-path /models/mine --tp-size 8"
    assert _model_unknown(db, text) == []
    assert [f.message for f in check_text(db, text)] == \
        [f.message for f in check_text(db, text, model_id=model_id)]


def _always_wrong(root, model_id: str) -> None:
    """A check rule that finds an error in every command of the model."""
    edit_yaml(root / model_id / "rules.yaml", lambda data: data.setdefault("checks", []).append(
        {"id": "always-wrong", "severity": "error", "when": {}, "message": ALWAYS}))
    for lang, text in (("en", "This command is always wrong."), ("ko", "이 명령은 항상 틀려요.")):
        edit_yaml(root / model_id / f"text.{lang}.yaml", lambda data: data.update({ALWAYS: text}))


@pytest.mark.parametrize("model_id", MODELS)
def test_command_with_an_error_prints_it_on_stderr_and_exits_1(cli, db, recipes_copy, model_id):
    _always_wrong(recipes_copy, model_id)
    args = _args(cell_selection(db.model(model_id)))
    r = cli("--root", str(recipes_copy), "command", model_id, *args)
    assert r.code == 1
    assert r.err == "error: This command is always wrong. (always-wrong)\n"
    assert "--model-path" in r.out  # the command is still shown, to see what is wrong


@pytest.mark.parametrize("model_id", MODELS)
def test_command_json_with_an_error_still_prints_the_json_and_exits_1(cli, db, recipes_copy,
                                                                     model_id):
    _always_wrong(recipes_copy, model_id)
    args = _args(cell_selection(db.model(model_id)))
    r = cli("--root", str(recipes_copy), "command", model_id, *args, "--format", "json")
    assert r.code == 1
    assert r.err == "error: This command is always wrong. (always-wrong)\n"
    assert {"severity": "error", "rule": "always-wrong", "flags": [],
            "message": "This command is always wrong."} in r.json()["diagnostics"]


@pytest.mark.parametrize("model_id", MODELS)
def test_command_without_errors_exits_0_with_nothing_on_stderr(cli, db, model_id):
    r = cli("command", model_id, *_args(cell_selection(db.model(model_id))))
    assert (r.code, r.err) == (0, "")


def _abbreviate(db, flags: list[str]) -> tuple[str, str]:
    """(flag entry, the same with its name shortened to a unique abbreviation)."""
    for entry in flags:
        name = entry.split()[0]
        short = name[:-1]
        if db.catalog.lookup(short).kind == "abbreviated":
            return entry, short + entry[len(name):]
    raise AssertionError("no flag of the cell has a unique one-letter-shorter abbreviation")


@pytest.mark.parametrize("model_id", MODELS)
def test_validate_names_an_abbreviated_flag_as_an_abbreviation(db, recipes_copy, model_id):
    entry, short = _abbreviate(db, list(db.model(model_id).cells[0].flags))

    def shorten(data):
        flags = data["cells"][0]["flags"]
        flags[flags.index(entry)] = short
    edit_yaml(recipes_copy / model_id / "cells.yaml", shorten)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    name, full = short.split()[0], entry.split()[0]
    assert [p.message for p in exc.value.problems] == [
        f"'{name}' is an abbreviation of '{full}'; write the full name"]


def _a_digit_off(db, hw: str) -> str:
    """Another product's id: ``hw`` with its first digit changed (mi350x -> mi360x)."""
    i = re.search(r"[0-9]", hw).start()
    return next(other for step in range(1, 10)
                if (other := hw[:i] + str((int(hw[i]) + step) % 10) + hw[i + 1:])
                not in db.platforms)


def _numbered_platform(db, model_id: str) -> str:
    return next(hw for hw in db.model(model_id).info.hardware if re.search(r"[0-9]", hw))


@pytest.mark.parametrize("model_id", MODELS)
def test_validate_answers_a_platform_not_in_the_catalog_with_how_to_add_it(db, recipes_copy,
                                                                          model_id):
    other = _a_digit_off(db, _numbered_platform(db, model_id))
    edit_yaml(recipes_copy / model_id / "model.yaml",
              lambda data: data["hardware"].append(other))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert [p.message for p in exc.value.problems] == [
        f"hw '{other}' is not in recipes/catalog/hardware.yaml (known: "
        f"{', '.join(db.platforms)}); add the platform there first"]


@pytest.mark.parametrize("model_id", MODELS)
def test_validate_suggests_a_platform_only_for_a_slip_of_the_keyboard(db, recipes_copy,
                                                                     model_id):
    hw = _numbered_platform(db, model_id)
    edit_yaml(recipes_copy / model_id / "model.yaml",
              lambda data: data["hardware"].append(hw + hw[-1]))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert [p.message for p in exc.value.problems] == [
        f"hw '{hw + hw[-1]}' is not in recipes/catalog/hardware.yaml (did you mean '{hw}'? "
        f"known: {', '.join(db.platforms)})"]


@pytest.mark.parametrize("model_id", MODELS)
def test_validate_answers_a_cell_on_a_platform_the_model_lacks_with_how_to_add_it(
        db, recipes_copy, model_id):
    hardware = db.model(model_id).info.hardware
    missing = [hw for hw in db.platforms if hw not in hardware]
    if not missing:
        pytest.skip(f"{model_id} lists every platform of the catalog")

    def move(data):
        data["cells"][0]["match"]["hw"] = missing[0]
    edit_yaml(recipes_copy / model_id / "cells.yaml", move)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert f"hw '{missing[0]}' is not a platform of this model (known: {', '.join(hardware)}); " \
        "add it to 'hardware' in model.yaml first" in [p.message for p in exc.value.problems]


@pytest.mark.parametrize("model_id", MODELS)
def test_check_context_suggests_no_other_gpu_for_an_unknown_platform(cli, db, model_id):
    other = _a_digit_off(db, _numbered_platform(db, model_id))
    r = cli("check", "--model", model_id, "--hw", other, "--", "sglang serve --model-path m")
    model = db.model(model_id).info
    assert (r.code, r.err) == (1, f"error: <check context>: hw '{other}' is not a platform of "
                                  f"{model.name} (known: {', '.join(model.hardware)})\n")


@pytest.mark.parametrize("model_id", MODELS)
def test_command_verbose_prints_the_cells_verification_record_on_stderr(cli, db, model_id):
    model = db.model(model_id)
    r = cli("command", model_id, *_args(cell_selection(model)), "--verbose")
    quiet = cli("command", model_id, *_args(cell_selection(model)))
    assert r.out == quiet.out  # the command itself is the same
    record = cli("command", model_id, *_args(cell_selection(model)), "--format", "json").json()
    if record.get("record") is None:
        assert r.err == ""
    else:
        assert r.err.startswith("# ") and r.err.count("\n") == 1, r.err
