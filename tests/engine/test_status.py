"""Honest status: a verified cell's command is Verified only as its verifying round ran it (its
defaults and the settings ``verified_with`` lists); any other command of the cell is shown as
derived from it, with what differs. Run over every model."""

from __future__ import annotations

import pytest

from helpers.models import MODELS
from macros.engine.records import record
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import deployment_selections, sample_playground


def _verified_cells(db, model_id, stale: bool = False):
    """The verified cells whose record holds (``stale``: those whose record is stale)."""
    model = db.model(model_id)
    return [c for c in model.cells if c.status.value == "verified"
            and bool(record(db, model, c).stale) == stale]


@pytest.mark.parametrize("model_id", MODELS)
def test_every_command_of_a_verified_cell_whose_record_is_stale_is_stale(db, model_id):
    """A stale record vouches for no command of its cell: each shows "stale", with why."""
    for cell in _verified_cells(db, model_id, stale=True):
        for picks in [{}, *cell.verified_with]:
            res = resolve(db, Selection(model_id, dict(cell.match), picks))
            assert (res.status, res.cell_status) == ("stale", "verified"), (cell.match, picks)
            assert [c for c in res.caveats if c.kind == "stale"]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_verified_cell_as_its_round_ran_it_is_verified(db, model_id):
    for cell in _verified_cells(db, model_id):
        for picks in [{}, *cell.verified_with]:
            res = resolve(db, Selection(model_id, dict(cell.match), picks))
            assert (res.status, res.cell_status) == ("verified", "verified"), (cell.match, picks)
            assert [c for c in res.caveats if c.kind == "derived"] == []


@pytest.mark.parametrize("model_id", MODELS)
def test_every_other_command_of_a_verified_cell_is_derived_with_what_differs(db, model_id):
    cells = {db.model(model_id).key(c.match) for c in _verified_cells(db, model_id)}
    seen = 0
    sample = sample_playground(db, model_id, 200, seed=17)
    for sel in list(deployment_selections(db, model_id, large_scale=False)) + sample:
        model = db.model(model_id)
        if model.key(sel) not in cells:
            continue
        res = resolve(db, Selection.flat(model, sel))
        cell = model.cell(res.match)
        base = resolve(db, Selection(model_id, dict(cell.match)))
        shapes = [resolve(db, Selection(model_id, dict(cell.match), p))
                  for p in cell.verified_with] + [base]
        ran = any(res.flag_texts == s.flag_texts and res.env == s.env for s in shapes)
        assert res.status == ("verified" if ran else "derived"), sel
        derived = [c for c in res.caveats if c.kind == "derived"]
        if not ran:
            seen += 1
            [caveat] = derived
            fields = caveat.text.fields
            items = {k: [] if v.startswith("@") else v.split(", ") for k, v in fields.items()}
            assert any(items.values()) or fields["changed"] == "@ui.diff.order"
            assert all(x in res.flag_texts + res.env for x in items["added"])
            assert all(x in base.flag_texts + base.env for x in items["removed"])
            for x in items["changed"]:  # the verified spelling, then this command's value
                old, new = x.split(" → ")
                assert old in base.flag_texts + base.env
                assert any(t.startswith(old.split(" ")[0].split("=")[0]) and t.endswith(new)
                           for t in res.flag_texts + res.env)
    assert seen or not cells  # a verified cell has other commands to tell apart


def test_the_issues_example_is_derived_not_verified(db, cli):
    """B300 Balanced with DFLASH, HiCache L3, FP8 KV and BF16 SSM used to show a green
    Verified; the CLI now says what it is and why."""
    r = cli("command", "kimi-k3", "--hw", "b300", "--role", "unified", "--strategy", "balanced",
            "--set", "spec=dflash", "--set", "hicache=l3", "--set", "kv_dtype=fp8",
            "--set", "ssm_dtype=bf16", "--format", "json")
    data = r.json()
    assert (data["status"], data["cell_status"], data["status_label"]) == \
        ("derived", "verified", "Derived from Verified")
    [caveat] = [c for c in data["caveats"] if c["kind"] == "derived"]
    assert caveat["text"].startswith("Derived from a Verified cell: this command is not one "
                                     "that was run to verify it. Against that command, added: ")
    assert "--speculative-algorithm DSPARK → DFLASH" in caveat["text"]
    assert "--mamba-ssm-dtype bfloat16" in caveat["text"].split("removed:")[0]
