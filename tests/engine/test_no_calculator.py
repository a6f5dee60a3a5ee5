"""A model without calculators pins no calculated value, shows no calculator caveat and no panel,
and the CLI says so; tested on a copy of every model with its calculators taken away."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from helpers.models import MODELS, edit_yaml
from macros.engine.database import load_database
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

NODE = shutil.which("node")


def _without_calculator(recipes, model_id):
    def drop(data: dict) -> None:
        data.pop("calculators", None)
        data.pop("request_length", None)  # nothing reads it any more
    edit_yaml(recipes / model_id / "model.yaml", drop)

    def no_rules(data: dict) -> None:
        data.pop("calculator", None)  # the reasons one would not apply have nothing to explain
        # rules that pin or read a calculator's value go too
        data["transforms"] = [t for t in data.get("transforms", [])
                              if "calc." not in json.dumps(t) and "calculator." not in json.dumps(t)]
        data["effective"] = [e for e in data.get("effective", [])
                             if "calculator." not in json.dumps(e)]
    edit_yaml(recipes / model_id / "rules.yaml", no_rules)
    return load_database(recipes)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_model_without_a_calculator_has_no_calculation_and_no_calculator_caveat(recipes_copy,
                                                                                  model_id):
    db = _without_calculator(recipes_copy, model_id)
    model = db.model(model_id)
    for cell in model.cells:
        res = resolve(db, Selection(model_id, dict(cell.match)))
        assert res.calculations == [] and res.avg_len is None
        assert [c for c in res.caveats if c.kind == "calculator"] == []
    exported = export_model(db, model_id, "en")["model"]
    assert (exported["calculators"], exported["request_length"]) == ([], None)


@pytest.mark.parametrize("model_id", MODELS)
def test_calc_says_the_model_declares_no_calculator(cli, recipes_copy, model_id):
    db = _without_calculator(recipes_copy, model_id)
    match = db.model(model_id).cells[0].match
    r = cli("--root", str(recipes_copy), "calc", model_id,
            *[w for k, v in match.items() for w in ("--set", f"{k}={v}")])
    assert (r.code, r.err) == (1, f"error: <command line>: {db.model(model_id).info.name} "
                                  "declares no calculator (model.yaml 'calculators')\n")


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model_id", MODELS)
def test_the_playground_composes_no_calculation_for_a_model_without_a_calculator(
        recipes_copy, tmp_path, model_id):
    from pathlib import Path

    db = _without_calculator(recipes_copy, model_id)
    data = export_model(db, model_id, "en")
    (tmp_path / "en.json").write_text(json.dumps(data), encoding="utf-8")
    sels = [dict(c.match) for c in db.model(model_id).cells[:5]]
    (tmp_path / "sel.json").write_text(json.dumps(sels), encoding="utf-8")
    runner = Path(__file__).resolve().parents[1] / "js" / "parity.mjs"
    subprocess.run([NODE, str(runner), str(tmp_path / "en.json"), str(tmp_path / "en.json"),
                    str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                   check=True, capture_output=True, timeout=60)
    results = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"]
    assert [r.get("error") for r in results] == [None] * len(sels)
    assert [r["calculations"] for r in results] == [[]] * len(sels)
    assert all(kind != "calculator" for r in results for kind, _, _ in r["caveats"])


@pytest.mark.parametrize("model_id", MODELS)
def test_a_request_length_for_a_model_without_a_calculator_is_an_error(cli, recipes_copy,
                                                                       model_id):
    db = _without_calculator(recipes_copy, model_id)
    match = db.model(model_id).cells[0].match
    r = cli("--root", str(recipes_copy), "command", model_id, "--set", "avg_len=8192",
            *[w for k, v in match.items() for w in ("--set", f"{k}={v}")])
    assert (r.code, r.err) == (1, f"error: <selection>: avg_len does not apply: no calculator "
                                  f"of {db.model(model_id).info.name} reads a request length\n")
