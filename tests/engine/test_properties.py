"""Property tests (hypothesis): the checker never crashes, resolution is deterministic and
independent of YAML key order, printed commands round-trip; Kimi-K3's calculator's
properties are in test_calculator.py."""

from __future__ import annotations

import random
import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import yamlc
from macros.engine.selection import Selection
from macros.site import render
from macros.engine.check import check_text, parse
from macros.engine.flags import Flag, quote
from macros.engine.resolve import resolve
from macros.engine.selections import sample_playground

from helpers.models import MODELS

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

_words = st.sampled_from(["sglang", "serve", "python3", "-m", "sglang.launch_server",
                          "sglang_router.launch_router", "--tp-size", "8", "--tp", "--pp",
                          "--kv-cache-dtype", "fp8", "--enable-symm-mem", "--dcp-size", "\\",
                          "\n", "#", "'", '"', "=", "SGLANG_USE_AITER=1", "--prefill",
                          "http://h:1", "--model-path", "m", "--", "-", "$(x)", ";", "|"])


@SETTINGS
@given(text=st.text(max_size=300))
def test_checker_never_crashes_on_any_text(db, text):
    for finding in check_text(db, text):
        assert finding.severity.value in ("error", "warning", "info")


@pytest.mark.parametrize("model_id", MODELS)
@SETTINGS
@given(words=st.lists(_words, max_size=40))
def test_checker_never_crashes_on_command_like_text(db, model_id, words):
    check_text(db, " ".join(words), model_id=model_id, **db.model(model_id).cells[-1].match)


@SETTINGS
@given(value=st.text(min_size=1, max_size=40).filter(lambda s: "\x00" not in s))
def test_any_flag_value_is_quoted_so_the_shell_reads_it_back(db, value):
    text = Flag("--model-path", (value,)).text()
    assert shlex.split(text) == ["--model-path", value]


@pytest.fixture(scope="module", params=MODELS)
def model_id(request):
    return request.param


@pytest.fixture(scope="module")
def sample(db, model_id):
    return sample_playground(db, model_id, 120, seed=3)


def test_resolution_is_deterministic_and_round_trips(db, model_id, sample):
    model = db.model(model_id)
    catalogs = {"server": db.catalog, "router": db.router_catalog}
    for sel in sample:
        a = resolve(db, Selection.flat(db.model(model_id), sel))
        b = resolve(db, Selection.flat(db.model(model_id), dict(reversed(list(sel.items())))))
        assert a == b
        printed = render.command_text(db, model, a, "en")
        [cmd] = parse(printed, catalogs)
        assert [(n, v) for n, v in cmd.flags] == [(f.name, f.values) for f in a.flags]
        assert [f"{k}={v}" for k, v in cmd.env] == a.env


def test_resolution_does_not_depend_on_yaml_key_order(db, model_id, recipes_copy, sample):
    """Shuffle the keys of every mapping in the model's files: same commands."""
    from macros.engine.database import load_database

    rng = random.Random(5)

    def shuffle(node):
        if isinstance(node, dict):
            items = list(node.items())
            rng.shuffle(items)
            return {k: shuffle(v) for k, v in items}
        if isinstance(node, list):
            return [shuffle(v) for v in node]
        return node

    for path in (recipes_copy / model_id).glob("*.yaml"):
        if path.name.startswith("text."):
            continue
        data = yamlc.load(path.read_text())
        path.write_text(yamlc.dump(shuffle(data), allow_unicode=True, sort_keys=False))
    shuffled = load_database(recipes_copy)
    for sel in sample[:60]:
        a = resolve(db, Selection.flat(db.model(model_id), sel))
        b = resolve(shuffled, Selection.flat(shuffled.model(model_id), sel))
        assert a.flag_texts == b.flag_texts and a.env == b.env and a.calculations == b.calculations
        assert [d.rule for d in a.diagnostics] == [d.rule for d in b.diagnostics]


def test_quote_keeps_reader_placeholders_bare(db):
    assert quote("<node0-ip>:20000") == "<node0-ip>:20000"
    assert quote('{"a": 1}') == "'{\"a\": 1}'"
    assert quote("a b") == "'a b'"
    assert quote("$(rm -rf /)") == "'$(rm -rf /)'"
    assert quote("<script>") == "'<script>'"


def test_a_condition_reads_no_context_key_beyond_the_keys_it_names(db, model_id, sample):
    """Every condition in the model's data, evaluated in the contexts of sampled selections
    (known facts) and of an unknown context, asks only for keys its tree's ``keys()`` names:
    gating and check messages rely on that list to know what a rule depends on."""
    from macros.engine.conditions import attr

    model = db.model(model_id)
    rules = model.rules
    conds = [g.when for g in rules.gates] + [t.when for t in rules.transforms] + \
        [c.when for c in rules.checks] + [e.when for e in rules.effective] + \
        [c.when for c in rules.calculator] + [a.show_when for a in model.axes]

    class Ctx:
        def __init__(self, sel, res):
            self.sel, self.res, self.asked = sel, res, set()

        def value(self, key):
            self.asked.add(key)
            if self.res is None:
                return None
            if key.startswith("hw."):
                return attr(db.platforms[self.res.hw], key[3:])
            if key.startswith("cell."):
                return attr(model.cell(self.res.match), key[5:])
            if key == "nodes":
                return self.res.nodes
            if key in self.res.match:
                return self.res.match[key]
            return self.res.picks.get(key, None) if key in self.res.picks else None

        def flags(self):
            return None if self.res is None else {f.name: f.values for f in self.res.flags}

        def cell_flags(self):
            if self.res is None:
                return None
            i = model.cell_index[model.key(self.res.match)]
            return {f.name: f.values for f in model.cell_flags[i]}

        def env(self):
            return None if self.res is None else dict(e.split("=", 1) for e in self.res.env)

    contexts = [Ctx(None, None)] + [Ctx(s, resolve(db, Selection.flat(db.model(model_id), s))) for s in sample]
    asked = 0
    for ctx in contexts:
        for cond in conds:
            ctx.asked = set()
            assert cond.holds(ctx) in (True, False, None)
            assert ctx.asked <= cond.keys(), (cond, ctx.asked - cond.keys())
            asked += len(ctx.asked)
    # the sample is not trivial, and the model has conditions to ask (how many is its own)
    assert asked > 0 and conds and len(contexts) > 100
