"""No control without an effect: every option the reader can pick changes what they see (the
command, a calculated value or a check) without making the command one SGLang refuses, or it is
greyed with its reason, in Python (``recipes command --format json`` settings) and in the
Playground alike."""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers.models import MODELS
from helpers.walks import walked
from macros.site import render
from macros.engine.effects import (NO_EFFECT, REFUSED, explain, memo_key, probe_options,
                                   with_probed)
from macros.engine.results import TextRef
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import sample_playground
from test_playground_parity import NODE, ROOT, _export

SAMPLED = 60


def _seen(db, model, res) -> tuple:
    """What the reader sees, as printed: command and router text, calculated values, the
    checks' findings."""
    return (render.command_text(db, model, res, "en"), render.router_text(res),
            [(c.id, c.value, c.reason.id if c.reason else None) for c in res.calculations],
            [(d.rule, d.severity.value, render.diagnostic_text(db, model, d, "en"))
             for d in res.diagnostics])


def _selections(db, model_id) -> list[dict]:
    """Every cell as the reader first sees it, and sampled Playground selections."""
    model = db.model(model_id)
    return [dict(c.match) for c in model.cells] + sample_playground(db, model_id, SAMPLED, seed=11)


def _flat(res) -> dict:
    out = {**res.match, **{k: v for k, v in res.picks.items() if v is not None}}
    if res.avg_len is not None:
        out["avg_len"] = res.avg_len
    return out


def _errors(res) -> set[str]:
    return {d.rule for d in res.diagnostics if d.severity.value == "error"}


def _picked(db, model, res, axes, only=None, memo: dict | None = None):
    """(setting, option, resolution) for every enabled option of ``axes`` (visible, not the
    one picked, within ``only``) whose pick sticks, as the Playground makes the pick. ``memo``
    keeps each selection's resolution for the caller's loop, shared with probe_options: a
    selection one setting away from several others is resolved once (resolve is a function of
    the selection)."""
    memo = {} if memo is None else memo
    for axis in axes:
        if not axis.visible or (only is not None and axis.axis not in only):
            continue
        for option in axis.options:
            if option.state != "enabled" or option.id == axis.value:
                continue
            flat = {**_flat(res), axis.axis: option.id}
            key = memo_key(flat)  # the key probe_options files its resolutions under
            if key not in memo:
                memo[key] = resolve(db, Selection.flat(model, flat), strict=False)
            other = memo[key]
            if other.picks.get(axis.axis) == option.id:  # else it snapped to another option
                yield axis.axis, option.id, other


@pytest.mark.parametrize("model_id", MODELS)
def test_every_option_left_enabled_changes_what_the_reader_sees(db, model_id):
    """Every cell and sampled selections: each enabled option of a visible setting, picked,
    changes the printed command, the router, a calculated value or a finding."""
    model = db.model(model_id)
    probed = 0
    for flat in _selections(db, model_id):
        sel = Selection.flat(model, flat)
        res = resolve(db, sel, strict=False)
        seen, errors = _seen(db, model, res), _errors(res)
        for axis, option, other in _picked(db, model, res,
                                           with_probed(res, probe_options(db, sel, res))):
            probed += 1
            assert _seen(db, model, other) != seen, (flat, axis, option)
            assert _errors(other) <= errors, (flat, axis, option)
    assert probed >= len(model.cells)  # a setting probed on every cell at least


@pytest.mark.parametrize("model_id", MODELS)
def test_a_greyed_option_picked_anyway_shows_the_same_result_or_a_refused_command(db, model_id):
    """The other half: what is greyed for having no effect really has none, and what is greyed
    as refused really gets an error finding."""
    model = db.model(model_id)
    greyed = 0
    for flat in _selections(db, model_id)[:80]:
        sel = Selection.flat(model, flat)
        res = resolve(db, sel, strict=False)
        for axis_id, options in probe_options(db, sel, res).items():
            for option, reason in options.items():
                other = resolve(db, Selection.flat(model, {**_flat(res), axis_id: option}),
                                strict=False)
                if reason == NO_EFFECT:
                    assert _seen(db, model, other) == _seen(db, model, res)
                else:
                    assert reason == REFUSED
                    assert any(d.severity.value == "error" for d in other.diagnostics)
                greyed += 1
    assert greyed > 0


def test_cluster_size_without_a_preset_is_greyed_with_its_reason(cli, db):
    """On H200 the cluster size only counts with a large-scale preset: without one, every
    other size is greyed and says why (the reader's report in issue #10)."""
    r = cli("command", "kimi-k3", "--set", "hw=h200", "--set", "role=unified",
            "--set", "strategy=balanced", "--format", "json")
    assert r.code == 0, r.err
    settings = {s["id"]: s for s in r.json()["settings"]}
    cluster = {o["id"]: o for o in settings["cluster"]["options"]}
    others = [o for k, o in cluster.items() if k != settings["cluster"]["value"]]
    assert others and all(o["state"] == "disabled" for o in others)
    model = db.model("kimi-k3")
    preset = db.t("en", model.axis_index["preset"].label, model)
    for o in others:  # named: the setting and the platforms that give it an effect
        assert o["reason"].startswith("No effect on this platform: it changes the command on ")
        assert f"once {preset} is " in o["reason"]


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model_id", MODELS)
def test_the_playground_greys_exactly_the_options_python_finds(db, model_id, tmp_path):
    model = db.model(model_id)
    selections = _selections(db, model_id)[::3]
    want = []
    for flat in selections:
        sel = Selection.flat(model, flat)
        res = resolve(db, sel, strict=False)
        want.append(probe_options(db, sel, res))
    (tmp_path / "sel.json").write_text(json.dumps(selections))
    proc = subprocess.run([NODE, str(ROOT / "tests" / "js" / "idle.mjs"),
                           str(_export(db, model_id, "en", tmp_path / "en.json")),
                           str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    got = json.loads((tmp_path / "out.json").read_text())
    assert got == want
    assert any(want)


def test_an_ep_wider_than_tp_is_greyed_as_refused(cli, db):
    """H200 Unified Balanced is TP16/EP16: TP 8 with EP left as the cell's would give a command
    SGLang refuses, so TP 8 is greyed and says why."""
    r = cli("command", "kimi-k3", "--set", "hw=h200", "--set", "role=unified",
            "--set", "strategy=balanced", "--format", "json")
    tp = {o["id"]: o for s in r.json()["settings"] if s["id"] == "tp" for o in s["options"]}
    assert tp["8"]["state"] == "disabled"
    assert tp["8"]["reason"].startswith("Not with the other settings as they are: SGLang would "
                                        "refuse the command. --ep-size 16: must be at most")


@pytest.mark.parametrize("model_id", MODELS)
def test_over_every_enumerated_selection_the_enumerated_settings_have_an_effect_or_are_greyed(
        db, model_id):
    """All cells × settings × presets of the model (model.yaml ``enumerate``): each enabled
    option of those settings, picked, changes the printed command, router, values or findings
    without a new error — or the probe greys it, and then picking it anyway shows the same
    result (no effect) or a new error (refused). The other settings are probed over every
    cell and sampled selections above."""
    model = db.model(model_id)
    only = set(model.info.enumerate)
    seen_count = 0
    resolved: dict = {}  # a neighbour of many selections is resolved once
    seen: dict[int, tuple] = {}  # and printed once

    def shown(other) -> tuple:
        if id(other) not in seen:
            seen[id(other)] = _seen(db, model, other)
        return seen[id(other)]

    for flat, res in walked(db, model_id):
        probed = probe_options(db, Selection.flat(model, flat), res, only, resolved)
        mine, errors = _seen(db, model, res), _errors(res)
        for axis, option, other in _picked(db, model, res, res.axes, only, resolved):
            reason = probed.get(axis, {}).get(option)
            if reason == NO_EFFECT:
                assert shown(other) == mine, (flat, axis, option)
            elif reason == REFUSED:
                assert _errors(other) - errors, (flat, axis, option)
            else:
                assert shown(other) != mine and _errors(other) <= errors, \
                    (flat, axis, option)
            seen_count += 1
    assert seen_count > len(model.cells)


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model_id", MODELS)
def test_a_greyed_option_names_what_would_make_it_count_in_python_and_the_playground(
        db, model_id, tmp_path):
    """No bare "No effect here": a greyed option names the setting, the platforms or the
    current choice (effects.explain), and the Playground says the same in both languages."""
    model = db.model(model_id)
    for step in (12, 1):  # a sample of the cells; all of them where the sample greys nothing
        selections = [dict(c.match) for c in model.cells][::step]
        want = []
        for flat in selections:
            sel = Selection.flat(model, flat)
            res = resolve(db, sel, strict=False)
            said = {}
            for axis, options in sorted(probe_options(db, sel, res).items()):
                for option, reason in sorted(options.items()):
                    why, fields = explain(db, sel, res, axis, option, reason)
                    assert why not in (NO_EFFECT, REFUSED), (flat, axis, option)
                    said[f"{axis}={option}"] = [render.text(db, model, TextRef(id=why), lang,
                                                            **fields) for lang in ("en", "ko")]
            want.append(said)
        if any(want):
            break
    (tmp_path / "sel.json").write_text(json.dumps(selections))
    proc = subprocess.run([NODE, str(ROOT / "tests" / "js" / "explain.mjs"),
                           str(_export(db, model_id, "en", tmp_path / "en.json")),
                           str(_export(db, model_id, "ko", tmp_path / "ko.json")),
                           str(tmp_path / "sel.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out.json").read_text()) == want
    assert any(want)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_probe_given_a_memo_answers_the_same_and_resolves_each_neighbour_once(
        db, model_id, monkeypatch):
    """``probe_options(..., memo)``: the reasons are those of a probe without one, and a second
    probe of the same selection with the same memo resolves nothing again."""
    from macros.engine import effects

    model = db.model(model_id)
    flat = dict(model.cells[0].match)
    sel = Selection.flat(model, flat)
    res = resolve(db, sel, strict=False)
    memo: dict = {}
    assert probe_options(db, sel, res, None, memo) == probe_options(db, sel, res)
    calls = []
    real = effects.resolve
    monkeypatch.setattr(effects, "resolve", lambda *a, **k: calls.append(1) or real(*a, **k))
    again = probe_options(db, sel, res, None, memo)
    assert calls == [] and again == probe_options(db, sel, res)
    assert len(calls) == len(memo) > 0  # the probe without a memo resolved each neighbour
