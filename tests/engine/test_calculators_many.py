"""A model may declare several calculators: each pins its own flag where it applies, says why
where it does not, and the CLI, the pages and the Playground name them apart. Tested on a copy
of every model with one more calculator (``extra``, helpers.models.add_calculator)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.models import MODELS, add_calculator, edit_yaml, extra_calc_flag, other_calc_flag

from macros.engine.calculator import fmt
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

NODE = shutil.which("node")


@pytest.fixture(params=MODELS)
def extra(request, recipes_copy):
    """(database, model id, the hardware where ``extra`` does not apply)."""
    model_id = request.param
    info = load_database(recipes_copy).model(model_id).info
    not_on = info.hardware[-1]
    add_calculator(recipes_copy, model_id, not_on)
    return load_database(recipes_copy), model_id, not_on


def _cells(db, model_id):
    return [Selection(model_id, dict(c.match)) for c in db.model(model_id).cells]


def test_each_calculator_pins_its_own_flag_where_it_applies(extra):
    db, model_id, not_on = extra
    model = db.model(model_id)
    before = [c.id for c in model.info.calculators][:-1]
    for sel in _cells(db, model_id):
        res = resolve(db, sel)
        assert [c.id for c in res.calculations] == before + ["extra"]
        calc = res.calculation("extra")
        if res.hw == not_on:
            assert calc.value is None and calc.reason.id == "ui.calc.na"
            assert extra_calc_flag(model_id) not in [f.name for f in res.flags]
            assert ("calculator", extra_calc_flag(model_id)) in \
                [(c.kind, c.flag) for c in res.caveats]
        else:
            assert calc.value == fmt(res.avg_len / 8192) and calc.reason is None
            assert f"{extra_calc_flag(model_id)} {calc.value}" in res.flag_texts


def _one_more(recipes: Path, model_id: str) -> None:
    """A copy of ``extra`` under another id, pinning another flag."""
    def again(data: dict) -> None:
        data["calculators"].append({**copy.deepcopy(data["calculators"][-1]), "id": "again",
                                    "pins": other_calc_flag(model_id)})
    edit_yaml(recipes / model_id / "model.yaml", again)


def test_calc_asks_which_calculator_when_a_model_has_several(cli, extra):
    db, model_id, _ = extra
    _one_more(Path(db.root), model_id)
    db = load_database(db.root)
    model = db.model(model_id)
    match = model.cells[0].match
    where = [w for k, v in match.items() for w in ("--set", f"{k}={v}")]
    root = str(Path(db.root))
    r = cli("--root", root, "calc", model_id, *where)
    ids = ", ".join(c.id for c in model.info.calculators)
    assert (r.code, r.err) == (1, f"error: <command line>: {model.info.name} declares "
                                  f"{len(model.info.calculators)} calculators; name one with "
                                  f"--calculator (known: {ids})\n")


def test_calc_prints_the_named_calculator(cli, extra):
    db, model_id, not_on = extra
    model = db.model(model_id)
    cell = next(c for c in model.cells if c.match["hw"] != not_on)
    where = [w for k, v in cell.match.items() for w in ("--set", f"{k}={v}")]
    r = cli("--root", str(Path(db.root)), "calc", model_id, *where, "--calculator", "extra",
            "--avg-len", "4096", "--format", "json")
    assert r.code == 0, r.err
    data = r.json()
    assert (data["calculator"], data["pins"], data["rows"]) == (
        "extra", extra_calc_flag(model_id), [{"avg_len": 4096, "value": 0.5, "text": "0.5"}])
    r = cli("--root", str(Path(db.root)), "calc", model_id, *where, "--calculator", "extr")
    assert (r.code, r.err) == (1, f"error: <command line>: --calculator: {model.info.name} "
                                  f"declares no calculator 'extr' (did you mean 'extra'? known: "
                                  f"{', '.join(c.id for c in model.info.calculators)})\n")


def test_the_command_json_lists_every_calculation(cli, extra):
    db, model_id, not_on = extra
    cell = next(c for c in db.model(model_id).cells if c.match["hw"] == not_on)
    where = [w for k, v in cell.match.items() for w in ("--set", f"{k}={v}")]
    r = cli("--root", str(Path(db.root)), "command", model_id, *where, "--format", "json")
    assert r.code == 0, r.err
    last = r.json()["calculations"][-1]
    assert last == {"id": "extra", "pins": extra_calc_flag(model_id), "value": None,
                    "text": None,
                    "exact": None, "reason": "The calculator does not apply here."}


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_playground_computes_every_calculator_as_python_does(extra, tmp_path):
    db, model_id, _ = extra
    data = export_model(db, model_id, "en")
    (tmp_path / "en.json").write_text(json.dumps(data), encoding="utf-8")
    sels = [{**dict(c.match), "avg_len": n} for c, n in zip(db.model(model_id).cells,
                                                            [2048, 16384, 65536] * 100)]
    (tmp_path / "sel.json").write_text(json.dumps(sels), encoding="utf-8")
    runner = Path(__file__).resolve().parents[1] / "js" / "parity.mjs"
    subprocess.run([NODE, str(runner), str(tmp_path / "en.json"), str(tmp_path / "en.json"),
                    str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                   check=True, capture_output=True, timeout=120)
    got = [r["calculations"] for r in
           json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"]]
    model = db.model(model_id)
    want = []
    for s in sels:
        res = resolve(db, Selection.flat(model, s), strict=False)
        want.append([[c.id, c.pins, c.value, c.reason.id if c.reason else None]
                     for c in res.calculations])
    assert got == want
    assert any(c[2] is not None for row in want for c in row if c[0] == "extra")


def _copy_of_extra_refused(extra, **changes) -> list[str]:
    """The load errors of the copy with ``extra`` declared twice, the second with ``changes``."""
    db, model_id, _ = extra

    def twice(data: dict) -> None:
        data["calculators"].append({**copy.deepcopy(data["calculators"][-1]), **changes})
    edit_yaml(Path(db.root) / model_id / "model.yaml", twice)
    with pytest.raises(RecipeError) as exc:
        load_database(db.root)
    return [p.message for p in exc.value.problems]


def test_two_calculators_may_not_pin_one_flag(extra):
    assert f"'{extra_calc_flag(extra[1])}' is pinned by calculator 'extra' already; a flag has " \
        "one value" in _copy_of_extra_refused(extra, id="again")


def test_a_calculator_id_is_used_once(extra):
    assert "calculator id 'extra' is used twice" in \
        _copy_of_extra_refused(extra, pins=other_calc_flag(extra[1]))
