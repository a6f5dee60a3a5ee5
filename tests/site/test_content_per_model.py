"""Content that must be each model's own, checked on every model: a scaling table's sizes are
the ones its commands print (under the flags' current spelling), and a badge means what the
model says its statuses mean."""

from __future__ import annotations

import re

import pytest

from helpers import yamlc
from helpers.models import MODELS, ROOT
from macros.engine.inert import cell_text, esc
from macros.site import render
from macros.site.pages import MacroError, Site

_FLAG_LINE = re.compile(r"^\s+(--[a-z0-9-]+) ?([^ \\\n]*)", re.M)  # as the command prints it
_CALL = re.compile(r"\{\{\s*scaling_table\((.*?)\)\s*\}\}")


def _page_calls(model_id: str) -> list[tuple[str, tuple, dict]]:
    """Every scaling_table call the pages of both languages make for ``model_id``."""
    out = []
    for page in sorted((ROOT / "docs").glob("*/**/*.md")):
        if "translated-from" in page.parts:
            continue
        for m in _CALL.finditer(page.read_text(encoding="utf-8")):
            args = eval(f"(lambda *a, **k: (a, k))({m.group(1)})", {})  # noqa: S307 (our pages)
            if args[0][0] == model_id:
                out.append((str(page.relative_to(ROOT)), args[0][1:], args[1]))
    return out


def _tables(db, model_id):
    """(where, axis, dims, picks) of every scaling table to check: the pages' calls, and one
    per setting of the model that changes its node count from the first cell."""
    model = db.model(model_id)
    calls = [(where, a[0], a[1:], k) for where, a, k in _page_calls(model_id)]
    dims = tuple(model.cells[0].match[d] for d in model.dimensions[1:])
    for axis in model.axis_index:
        if axis in model.dimensions:
            continue
        calls.append((f"{model_id} first cell, {axis}", axis, dims, {}))
    return calls


@pytest.mark.parametrize("model_id", MODELS)
def test_a_scaling_table_shows_the_sizes_its_commands_print(db, model_id):
    site, model = Site(db, "en"), db.model(model_id)
    checked = 0
    for where, axis, dims, picks in _tables(db, model_id):
        try:
            table = site.scaling_table(model_id, axis, *dims, **picks)
        except MacroError:
            continue  # no platform offers this selection
        rows = [r.strip("|").split("|") for r in table.splitlines()[2:]]
        hw = next(h for h in model.info.hardware if _offers(site, model_id, h, dims, picks))
        for option, row in zip(model.axis_index[axis].options, rows):
            res = site.resolve(model_id, hw, *dims, **{**picks, axis: option.id})
            printed = dict(_FLAG_LINE.findall(render.command_text(db, model, res, "en")))
            for role, cell in zip(("tensor-parallel", "data-parallel"), row[-2:]):
                names = [n for n in _spellings(db.catalog.roles[role]) if n in printed]
                want = printed[names[0]] if names else "1"
                assert cell.strip() == want, (where, option.id, role, printed)
            checked += 1
    if _page_calls(model_id):
        assert checked, f"{model_id}'s pages call scaling_table but no row was checked"


def _spellings(names: list[str]) -> list[str]:
    """A role's flags and every spelling a migration gives them (migrations.yaml): a table
    that reads only a deprecated spelling shows the default where the command prints the new
    one."""
    doc = yamlc.load((ROOT / "recipes/catalog/migrations.yaml").read_text(encoding="utf-8"))
    out = list(names)
    for m in doc["migrations"]:
        for old, new in (m.get("rename") or {}).items():
            if old in out and new not in out:
                out.insert(out.index(old), new)  # the new spelling is the one printed
    return out


def _offers(site, model_id, hw, dims, picks) -> bool:
    try:
        site.resolve(model_id, hw, *dims, **picks)
        return True
    except MacroError:
        return False


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_a_badge_means_what_its_model_says(db, model_id, lang):
    """The badge's tooltip on the model's pages and the home page's table of statuses give
    the model's own meaning of each status its cells carry (recipes validate makes every
    model word them), never another model's."""
    site, model = Site(db, lang), db.model(model_id)
    matrix = site.matrix(model_id, commands=f"{model_id}/commands.md")
    home = site.status_meanings().splitlines()
    for status in sorted({c.status.value for c in model.cells}):
        own = model.text[lang][f"status.{status}.title"]
        # the meaning opens the tooltip; a recorded cell's verification record may follow it
        assert re.search(re.escape(f'recipe-badge--{status}" title="{esc(own)}') + r'["\s]',
                         matrix), status
        [row] = [r for r in home if r.startswith(f"| {model.info.name} |")
                 and f"recipe-badge--{status}\"" in r]
        assert row.rstrip(" |").endswith(cell_text(own))
        for other in db.models.values():  # no other model's words on this model's badges
            theirs = other.text[lang].get(f"status.{status}.title")
            if other.id != model_id and theirs and theirs != own:
                assert esc(theirs) not in matrix


def _pp(db, res) -> int:
    flags = {f.name: f.value for f in res.flags}
    return int(db.catalog.role_value(flags, "pipeline-parallel") or 1)


@pytest.mark.parametrize("model_id", MODELS)
def test_every_decode_server_has_a_prefill_it_can_pair_with(db, model_id):
    """SGLang pairs a PD decode server split into pipeline stages only with a prefill of the
    same depth: on each platform, some prefill selection (a cell, or a cell with one setting
    of the Playground) has it, so the pair a page or a warning names can be built."""
    site, model = Site(db, "en"), db.model(model_id)
    if model.info.pd is None:
        pytest.skip(f"{model_id} declares no PD disaggregation")
    by_hw: dict[str, list] = {}
    for cell in model.cells:
        res = site.resolve(model_id, **cell.match)
        by_hw.setdefault(cell.match["hw"], []).append((cell, res))
    for hw, rows in by_hw.items():
        prefill = [(c, r) for c, r in rows if r.pd == "prefill"]
        depths = {_pp(db, r) for _, r in prefill}
        for cell, res in prefill:
            for axis in model.axes:
                for option in axis.options:
                    try:
                        depths.add(_pp(db, site.resolve(model_id, **cell.match,
                                                        **{axis.id: option.id})))
                    except MacroError:
                        continue
        for cell, res in rows:
            if res.pd == "decode" and _pp(db, res) > 1:
                assert _pp(db, res) in depths, (hw, cell.match, sorted(depths))
