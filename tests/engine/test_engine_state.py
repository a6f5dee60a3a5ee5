"""What the engine keeps between calls, and for how long: the rules a cell can never meet are
left out for it without changing any result, a page resolves a selection once however many of
its macros show it, and a build keeps a model's memo tables only while it builds that model's
pages."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers.models import MODELS

from macros.site import pages as site_module
from macros.engine.check import CellContext
from macros.engine.database import load_database
from macros.engine.resolve import _select
from macros.engine.selection import Selection
from macros.engine.selections import deployment_selections


def _rule_lists(model):
    """Every list the resolver and the checker narrow per cell, with how each reads ``when``."""
    rules, info = model.rules, model.info
    out = [(rules.transforms, lambda r: r.when), (rules.checks, lambda r: r.when),
           (rules.calculator, lambda r: r.when), (rules.effective, lambda r: r.when),
           (rules.knobs, lambda k: k.show_when), (info.model_names, lambda r: r.when),
           (info.docker_images, lambda r: r.when)]
    return [(list(rs), when) for rs, when in out]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_rule_left_out_for_a_cell_holds_for_none_of_its_selections(db, model_id):
    model = db.model(model_id)
    left_out = 0
    for values in deployment_selections(db, model_id):
        st, _ = _select(db, Selection.flat(model, values), False)
        ctx = CellContext(db, model, st.cell)
        for rules, when in _rule_lists(model):
            for rule in rules:
                if when(rule).holds(ctx) is False:
                    left_out += 1
                    assert when(rule).holds(st) is not True, (values, when(rule).json())
    assert left_out > 0  # the cells do narrow the rules: the test checks something


def _page(tmp_path, database, text: str):
    docs = tmp_path / "docs" / "en"
    docs.mkdir(parents=True)
    source = docs / "page.md"
    source.write_text(text, encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(source), src_uri="page.md"))
    return site_module.PageTemplates(site_module.Site(database, "en"), tmp_path, docs), page


def _first_cell_call(database, model_id: str, macro: str) -> str:
    model = database.model(model_id)
    args = ", ".join(f'"{model.cells[0].match[d]}"' for d in model.dimensions)
    return f'{{{{ {macro}("{model_id}", {args}) }}}}'


@pytest.mark.parametrize("model_id", MODELS)
def test_a_page_showing_a_selection_twice_resolves_it_once(tmp_path, monkeypatch, model_id):
    database = load_database()
    calls = []
    real = site_module.resolve
    monkeypatch.setattr(site_module, "resolve", lambda *a, **k: calls.append(a) or real(*a, **k))
    text = "# Page { #page }\n\n" + _first_cell_call(database, model_id, "command") + "\n\n" \
        + _first_cell_call(database, model_id, "caveats") + "\n"
    pages, page = _page(tmp_path, database, text)
    pages.render(SimpleNamespace(page=page), text)
    assert len(calls) == 1


@pytest.mark.parametrize("model_id", MODELS)
def test_a_built_page_leaves_no_memo_table_of_any_model(tmp_path, model_id):
    database = load_database()
    text = "# Page { #page }\n\n" + _first_cell_call(database, model_id, "command") + "\n"
    pages, page = _page(tmp_path, database, text)
    pages.check_source(page)
    markdown = pages.render(SimpleNamespace(page=page), text)
    assert database.model(model_id).cache  # the page's resolution filled them
    pages.check_rendered(page, markdown)
    pages.page_done()  # what the stage does once every page is staged
    assert {m: dict(database.model(m).cache) for m in database.models} == \
        {m: {} for m in database.models}


@pytest.mark.parametrize("model_id", MODELS)
def test_a_model_page_keeps_only_its_own_models_tables_for_the_next_page(tmp_path, model_id):
    """A model's pages come one after the other (models/<id>.md, models/<id>/commands.md): its
    tables serve the next one; any other page drops them."""
    database = load_database()
    text = "# Page { #page }\n\n" + "\n\n".join(
        _first_cell_call(database, m, "command") for m in database.models) + "\n"
    pages, page = _page(tmp_path, database, text)
    pages.render(SimpleNamespace(page=page), text)
    assert all(database.model(m).cache for m in database.models)
    pages.page_done(f"models/{model_id}.md")
    assert {m for m in database.models if database.model(m).cache} == {model_id}
    pages.page_done(f"models/{model_id}/commands.md")
    assert {m for m in database.models if database.model(m).cache} == {model_id}
    pages.page_done("guides/translate.md")
    assert not any(database.model(m).cache for m in database.models)
