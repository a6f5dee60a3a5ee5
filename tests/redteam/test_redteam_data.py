"""Issue #20, second hardening pass: calculators and validate leftovers.

Every case edits a private copy of recipes/ (the ``recipes_copy`` fixture) and runs ``recipes
validate`` or composes a command on it. Models are found from the data: the calculator cases run
over every model that declares a calculator a rule pins; the others over every model."""

from __future__ import annotations

import copy
import math
import re

import pytest

from helpers import yamlc
from helpers.models import CALCULATED, MODELS, edit_yaml

from macros.engine import yamlfile
from macros.engine.calculator import fmt
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve
from macros.engine.selection import Selection


def _read(path):
    return yamlc.load(path.read_text(encoding="utf-8"))


def _pinned(root, model_id) -> tuple[int, dict]:
    """The first calculator of the model a rule writes as {calc.<id>}, with its index."""
    rules = (root / model_id / "rules.yaml").read_text(encoding="utf-8")
    for i, calc in enumerate(_read(root / model_id / "model.yaml")["calculators"]):
        if re.search(r"\bcalc\." + re.escape(calc["id"]) + r"\b", rules):
            return i, calc
    pytest.skip(f"no rule of {model_id} pins a calculator")


def _where(root, rel: str, path: tuple) -> str:
    """'recipes/<rel>:line:col' of ``path`` in that file of the copy."""
    doc = yamlfile.load(root / rel, display=f"recipes/{rel}")
    line, col = doc.where(path)
    return f"recipes/{rel}:{line}:{col}"


def _cell_args(match: dict) -> list[str]:
    return [w for k, v in match.items() for w in ("--set", f"{k}={v}")]


def _validate(cli, root):
    r = cli("--root", str(root), "validate")
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    return r


# --- 1. calculators --------------------------------------------------------------------------

@pytest.mark.parametrize("model_id", CALCULATED)
@pytest.mark.parametrize("value, why", [
    (1.0e+308, "must be from"),
    (-128, "must be a positive number"),
    (0, "must be a positive number"),
    (0.1234567890123456, "at most 15 significant digits"),
])
def test_a_calculator_constant_out_of_bounds_is_a_validate_error(cli, recipes_copy, model_id,
                                                                 value, why):
    i, calc = _pinned(recipes_copy, model_id)
    name = next(iter(calc.get("constants") or {}), "extra_constant")

    def change(data):
        data["calculators"][i].setdefault("constants", {})[name] = value
    edit_yaml(recipes_copy / model_id / "model.yaml", change)
    r = _validate(cli, recipes_copy)
    assert r.code == 1
    where = _where(recipes_copy, f"{model_id}/model.yaml", ("calculators", i, "constants", name))
    assert f"error: {where}: calculator '{calc['id']}': constant '{name}'" in r.err, r.err
    assert why in r.err
    # and no command of the model crashes on it
    cell = _read(recipes_copy / model_id / "cells.yaml")["cells"][0]
    r = cli("--root", str(recipes_copy), "command", model_id, *_cell_args(cell["match"]))
    assert r.code == 1 and "internal error" not in r.err, r.err


def _formula_edits():
    return [
        ("division-by-zero", lambda f: f"({f}) / 0", "division by zero"),
        ("always-zero", lambda f: f"({f}) * (avg_len - avg_len)", "not a positive number"),
        ("always-negative", lambda f: f"0 - ({f})", "not a positive number"),
        ("overflow", lambda f: f"({f})" + " * 1000000000000" * 30, "too large"),
    ]


@pytest.mark.parametrize("model_id", CALCULATED)
@pytest.mark.parametrize("edit", _formula_edits(), ids=[e[0] for e in _formula_edits()])
def test_a_formula_that_gives_no_value_is_a_validate_error_at_each_pinning_cell(
        cli, recipes_copy, model_id, edit):
    _, change, why = edit
    i, calc = _pinned(recipes_copy, model_id)

    def model(data):
        data["calculators"][i]["formula"] = change(data["calculators"][i]["formula"])
    edit_yaml(recipes_copy / model_id / "model.yaml", model)
    r = _validate(cli, recipes_copy)
    assert r.code == 1, r.err
    rel = f"{model_id}/cells.yaml"
    doc = yamlfile.load(recipes_copy / rel)
    cell_lines = {doc.where(("cells", n))[0] for n in range(len(doc.data["cells"]))}
    found = re.findall(rf"error: recipes/{re.escape(rel)}:(\d+):\d+: calculator "
                       rf"'{re.escape(calc['id'])}' gives this cell no value to pin as "
                       rf"{re.escape(calc['pins'])}: ([^\n]*)", r.err)
    assert found, r.err
    for line, message in found:
        assert int(line) in cell_lines
        assert why in message


@pytest.mark.parametrize("model_id", CALCULATED)
def test_an_absurd_calculator_value_at_run_time_is_a_recipe_error(recipes_copy, model_id):
    i, _ = _pinned(recipes_copy, model_id)
    db = load_database(recipes_copy)
    model = db.model(model_id)
    calc = model.info.calculators[i]
    cell = next(c for c in model.cells
                if resolve(db, Selection(model_id, dict(c.match))).calculation(calc.id).exact)
    model.info.calculators[i] = calc.model_copy(
        update={"formula": f"({calc.formula})" + " * 1000000000000" * 30})
    model.cache.clear()
    with pytest.raises(RecipeError, match=f"calculator '{calc.id}'.*too large"):
        resolve(db, Selection(model_id, dict(cell.match)))


@pytest.mark.parametrize("value", [math.inf, math.nan, 1e300, -1.0, 0.0])
def test_a_calculator_value_is_never_printed_absurd(value):
    with pytest.raises(RecipeError):
        fmt(value)


# --- 2. validate leftovers -------------------------------------------------------------------

def _joined_alike(root, model_id):
    """Edit the copy so two cells' option ids join to one key ('a' + 'b-c' and 'a-b' + 'c'):
    returns the new cell's index, or None where no option id of the model has a '-'."""
    info = _read(root / model_id / "model.yaml")
    cells = _read(root / model_id / "cells.yaml")["cells"]
    dims = ["hw"] + [d["id"] for d in info.get("dimensions", [])]
    for cell in cells:
        for a, b in zip(dims[1:], dims[2:]):
            if "-" in cell["match"][b]:
                head, tail = cell["match"][b].split("-", 1)
                new = {**cell["match"], a: f"{cell['match'][a]}-{head}", b: tail}

                def model(data):
                    for dim in data["dimensions"]:
                        if dim["id"] in (a, b):
                            dim["options"].append({"id": new[dim["id"]],
                                                   "label": dim["options"][0]["label"]})
                edit_yaml(root / model_id / "model.yaml", model)
                twin = {**copy.deepcopy(cell), "match": new}
                edit_yaml(root / model_id / "cells.yaml", lambda d: d["cells"].append(twin))
                return len(cells)
    return None


@pytest.mark.parametrize("model_id", MODELS)
def test_two_cells_whose_ids_join_alike_are_a_validate_error(cli, recipes_copy, model_id):
    n = _joined_alike(recipes_copy, model_id)
    if n is None:
        pytest.skip(f"no option id of {model_id} has a '-'")
    r = _validate(cli, recipes_copy)
    assert r.code == 1
    where = _where(recipes_copy, f"{model_id}/cells.yaml", ("cells", n, "match"))
    assert f"error: {where}: cell " in r.err and "join alike" in r.err, r.err


@pytest.mark.parametrize("model_id", MODELS)
@pytest.mark.parametrize("into", ["other-file", "same-file"])
def test_a_duplicate_axis_is_reported_where_it_stands(cli, recipes_copy, model_id, into):
    axes = {name: _read(recipes_copy / model_id / name)["axes"]
            for name in ("overlays.yaml", "playground.yaml")}  # the order the model reads them
    # the axis to copy: from the file the case names first, else from the model's other file
    prefer = ["overlays.yaml", "playground.yaml"]
    if into == "same-file":
        prefer.reverse()
    source = next((name for name in prefer if axes[name]), None)
    if source is None:
        pytest.skip(f"{model_id} declares no axis")
    target = source if into == "same-file" else next(n for n in axes if n != source)
    twin = copy.deepcopy(axes[source][0])
    edit_yaml(recipes_copy / model_id / target, lambda d: d["axes"].append(twin))
    # overlays.yaml's axes are read before playground.yaml's: the later one is the duplicate
    places = [(name, i) for name in axes for i in range(len(axes[name]) + (name == target))]
    pair = {(source, 0), (target, len(axes[target]))}
    first, dup = [p for p in places if p in pair]
    first_line = _where(recipes_copy, f"{model_id}/{first[0]}",
                        ("axes", first[1])).rsplit(":", 1)[0]
    r = _validate(cli, recipes_copy)
    assert r.code == 1
    where = _where(recipes_copy, f"{model_id}/{dup[0]}", ("axes", dup[1], "id"))
    assert (f"error: {where}: duplicate axis id '{twin['id']}' (first declared at "
            f"{first_line})") in r.err, r.err


def _first_axis(root, model_id) -> dict:
    """The model's first setting: a Playground axis, else an overlay axis."""
    for name in ("playground.yaml", "overlays.yaml"):
        axes = _read(root / model_id / name)["axes"]
        if axes:
            return axes[0]
    pytest.skip(f"{model_id} declares no axis")


@pytest.mark.parametrize("model_id", MODELS)
def test_gates_that_leave_a_setting_no_option_are_a_validate_error(cli, recipes_copy, model_id):
    info = _read(recipes_copy / model_id / "model.yaml")
    axis = _first_axis(recipes_copy, model_id)
    reason = axis["label"]  # any text id the model has
    gates = [{"id": "off-here", "when": {"hw": info["hardware"][:1]},
              "disable": {axis["id"]: [o["id"] for o in axis["options"]]}, "reason": reason},
             {"id": "off-elsewhere", "when": {"not": {"hw": info["hardware"][:1]}},
              "hide": {axis["id"]: [o["id"] for o in axis["options"]]}}]
    edit_yaml(recipes_copy / model_id / "rules.yaml",
              lambda d: d.setdefault("gates", []).extend(gates))
    r = _validate(cli, recipes_copy)
    assert r.code == 1
    line = re.search(rf"error: recipes/{model_id}/rules.yaml:\d+:\d+: gates [^\n]*'off-here'"
                     rf"[^\n]*'off-elsewhere'[^\n]* every option of setting '{axis['id']}'",
                     r.err)
    assert line, r.err


INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202a", "\u202e", "\u2066",
             "\u2069", "\u200e", "\u200f"]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
@pytest.mark.parametrize("model_id", MODELS)
def test_an_invisible_character_in_recipe_yaml_is_a_validate_error(cli, recipes_copy,
                                                                   model_id, char):
    path = recipes_copy / model_id / "cells.yaml"
    text = path.read_text(encoding="utf-8")
    flag = re.search(r"^\s+- (--[a-z-]+)", text, re.M)
    at = flag.start(1) + 3
    path.write_text(text[:at] + char + text[at:], encoding="utf-8")
    r = _validate(cli, recipes_copy)
    assert r.code == 1
    line = text.count("\n", 0, at) + 1
    col = at - text.rfind("\n", 0, at)
    assert (f"error: recipes/{model_id}/cells.yaml:{line}:{col}: invisible character "
            f"U+{ord(char):04X}") in r.err, r.err
    assert char not in r.err and f"\\u{ord(char):04x}" in r.err


@pytest.mark.parametrize("model_id", MODELS)
def test_an_invisible_character_in_a_message_is_escaped(cli, model_id):
    cell = _read(yamlfile.Path(__file__).parents[2] / "recipes" / model_id / "cells.yaml")
    match = dict(cell["cells"][0]["match"])
    last = list(match)[-1]
    match[last] = match[last][:1] + "\u200b" + match[last][1:]
    r = cli("command", model_id, *_cell_args(match))
    assert r.code == 1
    assert "\u200b" not in r.err and "\\u200b" in r.err, r.err


@pytest.mark.parametrize("model_id", CALCULATED)
def test_a_pinned_value_out_of_the_flags_bounds_is_a_validate_error(cli, recipes_copy, db,
                                                                    model_id):
    i, calc = _pinned(recipes_copy, model_id)
    written = {f.name for m in db.models.values() for flags in m.cell_flags for f in flags}
    flag = next(name for name, spec in sorted(db.catalog.flags.items())
                if spec.bound is not None and spec.bound.max == 1 and name not in written
                and spec.type == "float")
    rules = recipes_copy / model_id / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8").replace(calc["pins"], flag),
                     encoding="utf-8")

    def model(data):
        data["calculators"][i]["pins"] = flag
        data["calculators"][i]["formula"] = f"({data['calculators'][i]['formula']}) + 1"
    edit_yaml(recipes_copy / model_id / "model.yaml", model)
    r = _validate(cli, recipes_copy)
    assert r.code == 1
    assert re.search(rf"error: recipes/{model_id}/cells.yaml:\d+:\d+: calculator "
                     rf"'{calc['id']}' gives this cell no value to pin as {flag}: the result "
                     rf"[0-9.e+]+ is out of {flag}'s bounds", r.err), r.err
