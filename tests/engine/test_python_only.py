"""A platform with no published image ("Python only"): a ``docker_images`` rule that leaves
``image`` out, and the model's ``install`` route. Such a selection has no image
(``docker_image`` None, never a made-up one); where the docker command would be, the pages, the
CLI and the Playground print why, the install commands and the server command; no container
file (Compose, Kubernetes) is written and ``--as compose`` says why. ``recipes validate``
refuses a placeholder image tag, a rule without an image and no install route, and docker
options on a rule without an image. Holds for every model, on a copy given the data."""

from __future__ import annotations

import pytest
from helpers.models import MODELS, edit_yaml

from macros import cli
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site import deploy, runmodes
from macros.site.pages import Site

INSTALL = 'pip install "sglang[test-extra]"'


def _imageless(recipes, model_id: str, hw: str, rule: dict | None = None,
               install: bool = True) -> None:
    def change(d):
        d["docker_images"].insert(0, rule if rule is not None else {"when": {"hw": hw}})
        if install:
            d["install"] = [{"when": {"hw": hw}, "commands": [INSTALL]}, *d.get("install", [])]
    edit_yaml(recipes / model_id / "model.yaml", change)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_selection_without_an_image_gets_the_install_route_not_a_docker_command(
        recipes_copy, db, model_id, tmp_path):
    cell = db.model(model_id).cells[0]
    hw = cell.match["hw"]
    _imageless(recipes_copy, model_id, hw)
    copy = load_database(recipes_copy)
    model = copy.model(model_id)
    res = resolve(copy, Selection(model_id, dict(cell.match)))
    assert res.docker_image is None and res.install == [INSTALL]
    for lang in ("en", "ko"):
        text = runmodes.docker_text(copy, model, res, lang)
        lines = text.splitlines()
        assert "docker run" not in text and INSTALL in lines
        assert lines[0].startswith("# ") and copy.t(lang, "ui.run.no-image").startswith(
            lines[0][2:].split(" ")[0])
        from macros.site import render
        assert text.endswith(render.command_text(copy, model, res, lang))
        page = Site(copy, lang).run_modes(model_id, **cell.match)
        assert f'=== "{copy.t(lang, "ui.run.install")}"' in page
        assert f'=== "{copy.t(lang, "ui.run.docker")}"' not in page and "docker run" not in page
        # no container file: there is nothing for one to run
        assert deploy.files(copy, model, res, "compose", lang) == []
        assert deploy.files(copy, model, res, "k8s", lang) == []
        assert deploy.files(copy, model, res, "config", lang)
    # a cell on another platform keeps its image
    other = next((c for c in model.cells if c.match["hw"] != hw), None)
    if other is not None:
        assert resolve(copy, Selection(model_id, dict(other.match))).docker_image is not None


def test_deploy_as_compose_of_a_selection_without_an_image_says_why(recipes_copy, db, capsys):
    model_id = MODELS[0]
    cell = db.model(model_id).cells[0]
    _imageless(recipes_copy, model_id, cell.match["hw"])
    sets = [w for k, v in cell.match.items() for w in ("--set", f"{k}={v}")]
    code = cli.main(["command", model_id, *sets, "--as", "compose", "--root", str(recipes_copy)])
    err = capsys.readouterr().err
    assert code == 1 and "no image is published" in err and "install" in err


@pytest.mark.parametrize("image", ["lmsysorg/sglang:<tag>", "lmsysorg/sglang:TODO",
                                   "lmsysorg/sglang:{{IMAGE}}", "lmsysorg/sglang:placeholder",
                                   "not an image"])
def test_a_placeholder_image_is_a_validate_error_at_its_line(recipes_copy, image):
    model_id = MODELS[0]
    edit_yaml(recipes_copy / model_id / "model.yaml",
              lambda d: d["docker_images"].insert(0, {"when": {}, "image": image}))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = [p for p in exc.value.problems if image in p.message]
    assert problem.file.endswith(f"{model_id}/model.yaml") and problem.line is not None
    assert "leave 'image' out" in problem.message and "REPOSITORY:TAG" in problem.message


@pytest.mark.parametrize("model_id", MODELS)
def test_no_image_without_an_install_route_is_a_validate_error(recipes_copy, db, model_id):
    data_has_install = bool(db.model(model_id).info.install)
    _imageless(recipes_copy, model_id, db.model(model_id).cells[0].match["hw"], install=False)
    if data_has_install:  # the model's own route covers it
        load_database(recipes_copy)
        return
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = [p for p in exc.value.problems if "'install'" in p.message]
    assert problem.file.endswith(f"{model_id}/model.yaml") and problem.line is not None


def test_docker_options_on_a_rule_without_an_image_are_a_validate_error(recipes_copy, db):
    model_id = MODELS[0]
    hw = db.model(model_id).cells[0].match["hw"]
    _imageless(recipes_copy, model_id, hw, rule={"when": {"hw": hw},
                                                 "args": ["--ulimit memlock=-1"]})
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert any("'args' belongs to an image" in p.message for p in exc.value.problems)
