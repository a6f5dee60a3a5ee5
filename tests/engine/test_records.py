"""Verification records as data (issue #24 item 4): each verified or in-progress cell's round
(model.yaml ``rounds``, named by ``verified_in``) with its release, image, digest, date,
hardware, who ran it and the benchmark results it produced, "unknown" where the data is silent;
shown by the badge, the JSON and the CLI; stale, with why, when the flag history changes the
meaning of a flag the cell gives after the record's release or the release falls more than N
(recipes/catalog/verification.yaml) behind the newest, in Python and in the Playground alike.
Every model; a model without records is valid."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers.models import MODELS, edit_yaml

from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.records import RECORDED, record
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site.export import export_model

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "js" / "parity.mjs"
NODE = shutil.which("node")


@pytest.mark.parametrize("model_id", MODELS)
def test_every_verified_or_in_progress_cell_has_its_rounds_record(db, model_id):
    model = db.model(model_id)
    rounds = {r.id: r for r in model.info.rounds}
    for cell in model.cells:
        rec = record(db, model, cell)
        if cell.status.value not in RECORDED:
            assert rec is None
            continue
        found = rounds.get(cell.verified_in)
        assert rec.round == (found.id if found else None)
        if found is None:
            assert (rec.release, rec.image, rec.date, rec.by) == (None, None, None, None)
            continue
        assert (rec.build, rec.image, rec.digest, rec.date, rec.by) == (
            found.version, found.image, found.digest, found.date, found.by)
        assert rec.release == (found.sglang if found.sglang in db.releases.order else None)
        mine = [r for r in (model.benchmarks.results if model.benchmarks else ())
                if r.round == found.id]
        assert len(rec.results) == len(mine)
        assert set(rec.hardware) == (set(found.hardware) or {r.match["hw"] for r in mine})


@pytest.mark.parametrize("model_id", MODELS)
def test_the_json_and_the_cli_name_the_record_and_unknown_where_silent(cli, db, model_id):
    model = db.model(model_id)
    cell = next((c for c in model.cells if c.status.value in RECORDED), None)
    if cell is None:
        pytest.skip(f"{model_id} has no verified or in-progress cell")
    sets = [w for k, v in cell.match.items() for w in ("--set", f"{k}={v}")]
    out = cli("command", model_id, *sets, "--format", "json").json()
    rec = out["record"]
    assert rec["round"] == cell.verified_in
    for key in ("image", "digest", "date", "by"):
        if rec[key] is None:
            assert "unknown" in rec["text"]
    for lang, word in (("en", "unknown"), ("ko", "알 수 없음")):
        text = cli("command", model_id, *sets, "--lang", lang, "--verbose")
        assert text.err.startswith("# "), text.err
        if None in (rec["image"], rec["date"], rec["by"]):
            assert word in text.err.splitlines()[0]


def _judged(db, model_id):
    """A verified cell whose record ran on a release before the newest and is not stale, and
    a valued flag of it (None when the model has none)."""
    model = db.model(model_id)
    order = db.releases.order
    for cell, flags in zip(model.cells, model.cell_flags):
        rec = record(db, model, cell)
        if cell.status.value == "verified" and rec and rec.release and not rec.stale \
                and rec.release != order[-1]:
            flag = next((f for f in flags if f.values and db.releases.has(order[-1], f.name)),
                        None)
            if flag is not None:
                return cell, rec, flag
    return None


def _change_meaning(root: Path, flag: str, after: str, order: list[str]) -> str:
    """The copy's flag history gives ``flag`` another ``dest`` from the release after
    ``after`` on: a synthetic change of meaning. Returns that release."""
    path = root / "catalog" / "sglang-history.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    changed = order[order.index(after) + 1]
    entry = doc["packages"]["sglang"]["flags"][flag]
    was = entry["facts"].pop("dest", "original_dest")
    entry.setdefault("changes", {})["dest"] = [[f"{order[0]}..{after}", was],
                                               [f"{changed}..{order[-1]}", "synthetic_dest"]]
    path.write_text(json.dumps(doc), encoding="utf-8")
    return changed


@pytest.mark.parametrize("model_id", MODELS)
def test_a_synthetic_flag_change_after_the_record_turns_its_cell_stale_in_python_and_js(
        db, recipes_copy, tmp_path, model_id):
    found = _judged(db, model_id)
    if found is None:
        pytest.skip(f"{model_id} has no verified cell recorded on an older release")
    cell, rec, flag = found
    before = resolve(db, Selection(model_id, dict(cell.match)))
    assert before.status != "stale"
    changed = _change_meaning(recipes_copy, flag.name, rec.release, db.releases.order)
    copy = load_database(recipes_copy)
    res = resolve(copy, Selection(model_id, dict(cell.match)))
    assert res.status == "stale" and res.cell_status == "verified"
    said = [c for c in res.caveats if c.kind == "stale" and c.flag == flag.name]
    assert said and said[0].text.fields == {"flag": flag.name, "fact": "dest",
                                            "changed": changed, "release": rec.release}
    if NODE is None:
        pytest.skip("node is not installed")
    data = export_model(copy, model_id, "en")
    (tmp_path / "en.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "sel.json").write_text(json.dumps([dict(cell.match)]), encoding="utf-8")
    subprocess.run([NODE, str(RUNNER), str(tmp_path / "en.json"), str(tmp_path / "en.json"),
                    str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                   check=True, capture_output=True, timeout=120)
    got = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["results"][0]
    assert got["status"] == "stale"
    assert [c for c in got["caveats"] if c[0] == "stale" and c[1] == flag.name]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_record_falling_behind_the_newest_is_stale(db, recipes_copy, model_id):
    model = db.model(model_id)
    older = [c for c in model.cells if (r := record(db, model, c)) and r.release
             and r.release != db.releases.newest]
    edit_yaml(recipes_copy / "catalog" / "verification.yaml",
              lambda data: data.update(releases_behind=0))
    copy = load_database(recipes_copy)
    for cell in older:
        rec = record(copy, copy.model(model_id), cell)
        assert [s.kind for s in rec.stale][:1] == ["behind"]
        assert rec.stale[0].fields["release"] == rec.release


def test_an_unknown_fact_in_verification_yaml_is_an_error_at_its_place(recipes_copy):
    edit_yaml(recipes_copy / "catalog" / "verification.yaml",
              lambda data: data.update(meaning=["dfault"]))
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    text = str(exc.value)
    assert "verification.yaml:" in text and "'dfault' is not a fact" in text and "default" in text


@pytest.mark.parametrize("field,value", [("date", "2026-13"), ("digest", "sha256:xyz"),
                                         ("by", ""), ("hardware", ["no-such-gpu"])])
def test_a_malformed_record_field_is_a_validate_error_at_its_place(recipes_copy, field, value):
    model_id = MODELS[0]

    def bad_round(data: dict) -> None:
        data.setdefault("rounds", []).append({"id": "probe", "version": "v0", field: value})
    edit_yaml(recipes_copy / model_id / "model.yaml", bad_round)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    text = str(exc.value)
    assert f"{model_id}/model.yaml:" in text and field in text
    assert yaml  # the copies are YAML written back by edit_yaml
