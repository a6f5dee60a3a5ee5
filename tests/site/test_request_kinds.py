"""Every kind of request a diffusion model's server takes as data (``model.yaml`` ``request.tasks``:
a label, the selections whose server takes it, its fields over the shared body). A selection's
request (its curl and client example, here and in the Playground) is the first kind its server
takes; the ``requests`` macro shows every kind a selection takes, and each model's pages show
every kind it declares, so the docs tests run each one against the stand-in. Holds for every
model with request kinds; a kind's label without its text, or an id given twice, is a
``recipes validate`` error at its line."""

from __future__ import annotations

import ast
import json
import re

import pytest
from helpers.models import MODELS, edit_yaml

from macros.engine.database import cached_database, load_database
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site import runmodes
from macros.site.pages import MacroError, Site

from helpers.models import ROOT

DB = cached_database()
KINDS = [m for m in MODELS if DB.model(m).info.request is not None
         and DB.model(m).info.request.tasks]
_CALL = re.compile(r"\{\{\s*requests\((.*?)\)\s*\}\}")


def test_there_is_a_model_with_request_kinds():
    assert KINDS


@pytest.mark.parametrize("model_id", KINDS)
def test_a_selections_request_is_the_first_kind_its_server_takes(model_id):
    model = DB.model(model_id)
    seen = set()
    for cell in model.cells:
        res = resolve(DB, Selection(model_id, dict(cell.match)))
        assert res.requests and res.request == res.requests[0]
        body = json.loads(runmodes.curl_text(DB, model, res, "en").split("-d '", 1)[1][:-1])
        assert body == {"model": res.model_name, **model.info.request.body_of(res.request)}
        seen.add(res.request)
    assert seen  # and another setting may give another kind
    for axis in model.axes:
        for option in axis.options:
            cell = model.cells[0]
            try:
                res = resolve(DB, Selection(model_id, dict(cell.match), {axis.id: option.id}))
            except Exception:
                continue
            seen.update(res.requests)
    # every kind is taken by some selection
    assert seen == {t.id for t in model.info.request.tasks}


def _page_calls(model_id: str, lang: str) -> list[tuple[tuple, dict]]:
    text = (ROOT / "docs" / lang / "models" / f"{model_id}.md").read_text(encoding="utf-8")
    calls = []
    for m in _CALL.finditer(text):
        node = ast.parse(f"f({m.group(1)})", mode="eval").body
        args = tuple(ast.literal_eval(a) for a in node.args)
        calls.append((args, {k.arg: ast.literal_eval(k.value) for k in node.keywords}))
    return calls


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", KINDS)
def test_the_models_page_shows_every_kind_it_declares(model_id, lang):
    """Each kind under its label, with a curl request and a client call (the blocks Sybil runs
    against the stand-in)."""
    model, site = DB.model(model_id), Site(DB, lang)
    shown = {}
    for args, kw in _page_calls(model_id, lang):
        out = site.requests(*args, **kw)
        for task in model.info.request.tasks:
            label = site.t(task.label, model).replace("(", "&#40;").replace(")", "&#41;")
            if f'=== "{label}"' in out:
                shown[task.id] = out
    assert sorted(shown) == sorted(t.id for t in model.info.request.tasks)
    for task_id, out in shown.items():
        assert out.count("```python") == out.count('=== "') and "```bash" in out


def test_requests_of_a_model_without_kinds_is_a_macro_error():
    llm = next(m for m in MODELS if DB.model(m).info.request is None)
    with pytest.raises(MacroError, match="declares no request tasks"):
        Site(DB, "en").requests(llm, *DB.model(llm).cells[0].match.values())


@pytest.mark.parametrize("model_id", KINDS)
def test_a_kind_twice_or_without_its_label_text_is_a_validate_error(recipes_copy, model_id):
    def change(d):
        tasks = d["request"]["tasks"]
        tasks.append(json.loads(json.dumps(tasks[0])))  # copies: YAML would write aliases
        tasks.append({**json.loads(json.dumps(tasks[0])), "id": "other-kind",
                      "label": "request.no-such-text"})
    edit_yaml(recipes_copy / model_id / "model.yaml", change)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    found = [p for p in exc.value.problems if p.file.endswith(f"{model_id}/model.yaml")]
    assert any("declared twice" in p.message and p.line for p in found)
    assert any("request.no-such-text" in p.message and p.line for p in found)
