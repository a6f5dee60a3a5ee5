"""Two options of a cell dimension that give the very same command on a platform are said to
(Kimi-K3's H200 Balanced is its Low-Latency): ``effects.same_command`` finds them from the data,
``recipes command --format json`` lists them, and the Playground finds the same (Node) and says
so under the status in both languages (browser)."""

from __future__ import annotations

import json
import subprocess
from urllib.parse import urlencode

import pytest
from helpers.browser import drawn, lease

from helpers.models import MODELS
from macros.engine.effects import command_key, same_command
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import sample_playground
from test_playground_parity import NODE, ROOT, _export


def _selections(db, model_id) -> list[dict]:
    model = db.model(model_id)
    return [dict(c.match) for c in model.cells] + sample_playground(db, model_id, 20, seed=5)


@pytest.mark.parametrize("model_id", MODELS)
def test_every_option_named_gives_the_same_command_and_no_other_does(db, model_id):
    """Checked against the cells themselves: an option is named exactly when the cell beside it
    (one dimension apart, same platform) resolves to the same flags, environment and router."""
    model = db.model(model_id)
    cells = {model.key(c.match): c for c in model.cells}
    for cell in model.cells:
        sel = Selection.flat(model, dict(cell.match))
        res = resolve(db, sel, strict=False)
        found = same_command(db, sel, res)
        for dim in model.dimensions[1:]:
            for option, _, _ in model.dimension_options[dim]:
                twin = cells.get(model.key({**cell.match, dim: option}))
                if twin is None or option == cell.match[dim]:
                    assert option not in found.get(dim, [])
                    continue
                other = resolve(db, Selection.flat(model, dict(twin.match)), strict=False)
                assert (option in found.get(dim, [])) == (command_key(other) == command_key(res))


def _twin_cells(db, model):
    """(cell, dimension, option) for the first cell whose neighbour one dimension apart, on
    the same platform, resolves to the very same command; None when the model has none."""
    cells = {model.key(c.match): c for c in model.cells}
    for cell in model.cells:
        res = resolve(db, Selection.flat(model, dict(cell.match)), strict=False)
        for dim in model.dimensions[1:]:
            for option, _, _ in model.dimension_options[dim]:
                twin = cells.get(model.key({**cell.match, dim: option}))
                if twin is None or option == cell.match[dim]:
                    continue
                other = resolve(db, Selection.flat(model, dict(twin.match)), strict=False)
                if command_key(other) == command_key(res):
                    return cell, dim, option
    return None


@pytest.mark.parametrize("model_id", MODELS)
def test_recipes_command_json_names_a_neighbour_cell_with_the_same_command(db, cli, model_id):
    """The case a reader met (two cells of one platform holding the same flags), as the CLI's
    JSON gives it: the neighbour's option is named under its dimension."""
    found = _twin_cells(db, db.model(model_id))
    if found is None:
        pytest.skip(f"{model_id}: no two neighbouring cells share a command")
    cell, dim, option = found
    sets = [w for k, v in cell.match.items() for w in ("--set", f"{k}={v}")]
    got = cli("command", model_id, *sets, "--format", "json")
    assert got.code == 0, got.err
    assert option in got.json()["same_command"].get(dim, [])


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model_id", MODELS)
def test_the_playground_names_the_same_options_python_does(db, model_id, tmp_path):
    model = db.model(model_id)
    selections = _selections(db, model_id)
    want = []
    for flat in selections:
        sel = Selection.flat(model, flat)
        want.append(same_command(db, sel, resolve(db, sel, strict=False)))
    (tmp_path / "sel.json").write_text(json.dumps(selections))
    proc = subprocess.run([NODE, str(ROOT / "tests" / "js" / "same.mjs"),
                           str(_export(db, model_id, "en", tmp_path / "en.json")),
                           str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out.json").read_text()) == want


def _label(db, model, dim: str, option: str, lang: str) -> str:
    label = next(lb for o, lb, _ in model.dimension_options[dim] if o == option)
    return db.t(lang, label, model, value=option)


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_the_playground_says_which_options_give_the_same_command(browser, site, db, model_id,
                                                                 lang):
    """Every model: a cell whose command another option gives too says so, naming both (when
    the model has one), and a cell without one shows no such line."""
    model = db.model(model_id)
    found = {}
    for cell in model.cells:
        sel = Selection.flat(model, dict(cell.match))
        found[model.key(cell.match)] = (cell, same_command(db, sel, resolve(db, sel, strict=False)))
    named = [(c, s) for c, s in found.values() if s]
    plain = next(c for c, s in found.values() if not s)
    context = lease(browser, site, {"width": 1440, "height": 900})
    try:
        page = context.page
        base = site + (f"/models/{model_id}/" if lang == "en" else f"/{lang}/models/{model_id}/")
        for cell, same in named[:1]:
            page.goto(base + "#" + urlencode(cell.match))
            page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
            platform = db.platforms[cell.match["hw"]].label
            want = " ".join(
                db.t(lang, "ui.same-command", platform=platform,
                     option=_label(db, model, dim, cell.match[dim], lang),
                     others=", ".join(_label(db, model, dim, o, lang) for o in same[dim]))
                for dim in model.dimensions[1:] if dim in same)
            line = page.locator('[data-testid="same-command"]')
            line.wait_for(state="visible", timeout=5000)
            assert line.text_content() == want
        page.goto(base + "#" + urlencode(plain.match))
        page.reload()
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        drawn(page)  # the line is drawn (hidden here) once the options are worked through
        assert not page.locator('[data-testid="same-command"]').is_visible()
    finally:
        context.close()
