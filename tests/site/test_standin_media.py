"""The docs stand-in serves a diffusion model's job as its ``request`` block says (media.py):
every served name of every model with a request block submits, polls and downloads; a body
missing a declared field, or giving it another JSON kind, is a 400 naming it; chat to such a
name is a 404, its server having no chat route; a twin of the model is served by its own names;
and the block is required."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from helpers.models import MODELS, add_twin
from macros.engine.database import cached_database, load_database
from macros.engine.errors import RecipeError
from helpers.models import edit_yaml
from standin import StandInServer, served_models

DB = cached_database()
JOBS = [m for m in MODELS if DB.model(m).info.request is not None]


def _post(url: str, body) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def _body(model, name: str, task: str | None = None) -> dict:
    """A job for ``name``: the full body of ``task`` (None: the model's first kind of request,
    or its body alone when it declares no kinds)."""
    request = model.info.request
    task = task or (request.tasks[0].id if request.tasks else None)
    return {"model": name, **json.loads(json.dumps(request.body_of(task)))}


def test_there_is_a_model_with_a_request_block():
    assert JOBS


@pytest.mark.parametrize("model_id", JOBS)
def test_every_served_name_submits_polls_and_downloads(model_id):
    model = DB.model(model_id)
    endpoint = model.info.request.endpoint
    with StandInServer(served_models(DB)) as srv:
        for rule in model.info.model_names:
            status, job = _post(srv.url + endpoint, _body(model, rule.name))
            assert (status, job["model"], job["status"]) == (200, rule.name, "completed")
            with urllib.request.urlopen(f"{srv.url}{endpoint}/{job['id']}") as r:
                assert json.load(r)["id"] == job["id"]
            with urllib.request.urlopen(f"{srv.url}{endpoint}/{job['id']}/content") as r:
                assert r.headers["Content-Type"] == "video/mp4" and r.read()


@pytest.mark.parametrize("model_id", JOBS)
def test_a_body_without_a_declared_field_or_of_another_kind_is_400_naming_it(model_id):
    model = DB.model(model_id)
    name = model.info.model_names[-1].name
    first, value = next(iter(model.info.request.body.items()))
    with StandInServer(served_models(DB)) as srv:
        url = srv.url + model.info.request.endpoint
        body = _body(model, name)
        del body[first]
        status, error = _post(url, body)
        assert status == 400 and f"'{first}' is required" in error["error"]["message"]
        body = _body(model, name)
        body[first] = None if value is not None else 1
        status, error = _post(url, body)
        assert status == 400 and f"'{first}' must be a" in error["error"]["message"]
        status, _ = _post(url, {**_body(model, name), "model": "someone/else"})
        assert status == 404


@pytest.mark.parametrize("model_id", JOBS)
def test_chat_to_a_diffusion_name_is_refused(model_id):
    name = DB.model(model_id).info.model_names[-1].name
    with StandInServer(served_models(DB)) as srv:
        status, error = _post(srv.url + "/v1/chat/completions",
                              {"model": name, "messages": [{"role": "user", "content": "hi"}]})
    # the diffusion server has no chat route: FastAPI's 404, whatever the request holds
    assert status == 404 and error["error"]["code"] == "not_found", error
    assert f"{name} is served by the diffusion server" in error["error"]["message"], error


@pytest.mark.parametrize("model_id", JOBS)
def test_a_twin_is_served_by_its_own_names(recipes_copy, model_id):
    twin = add_twin(recipes_copy, model_id)
    db = load_database(recipes_copy)
    with StandInServer(served_models(db)) as srv:
        for m in (model_id, twin):
            model = db.model(m)
            status, job = _post(srv.url + model.info.request.endpoint,
                                _body(model, model.info.model_names[-1].name))
            assert status == 200 and job["model"] == model.info.model_names[-1].name


@pytest.mark.parametrize("model_id", JOBS)
def test_a_diffusion_model_without_its_request_block_is_reported(recipes_copy, model_id):
    edit_yaml(recipes_copy / model_id / "model.yaml", lambda data: data.pop("request"))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert [p.message for p in exc.value.problems] == [
        "a model served by the diffusion CLI needs 'request': the request its server takes "
        "(kind video-job, endpoint, body)"]


@pytest.mark.parametrize("model_id", JOBS)
def test_every_kind_of_request_is_served_and_a_kind_none_declares_is_400(model_id):
    """Each of the model's request kinds (``request.tasks``) is a job the stand-in takes; a
    ``task`` no kind declares is refused, naming the declared ones."""
    model = DB.model(model_id)
    name = model.info.model_names[0].name
    tasks = model.info.request.tasks or [None]
    with StandInServer(served_models(DB)) as srv:
        url = srv.url + model.info.request.endpoint
        for task in tasks:
            status, job = _post(url, _body(model, name, task.id if task else None))
            assert (status, job["status"]) == (200, "completed"), (task, job)
        named = sorted({str(t.body["task"]) for t in model.info.request.tasks
                        if "task" in t.body})
        if named:
            status, error = _post(url, {**_body(model, name), "task": "no-such-task"})
            assert status == 400 and ", ".join(named) in error["error"]["message"]
