"""Conditions and templates are checked completely at load: every broken rule in
tests/corpus/broken_rules.yaml is a load error at its file:line:col, and whatever passes the
checks evaluates and fills without an error at command time."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import yamlc
from macros.engine.selection import Selection
from macros.engine import condition_check, conditions, templates
from macros.engine.database import load_database
from macros.engine.validate import Validator
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve

CORPUS = yamlc.load((Path(__file__).parents[1] / "corpus" / "broken_rules.yaml").read_text())
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _break(recipes_copy: Path, file: str, find: str, replace: str) -> None:
    path = recipes_copy / file
    text = path.read_text(encoding="utf-8")
    assert find in text, f"'{find}' no longer occurs in {file}"
    path.write_text(text.replace(find, replace, 1), encoding="utf-8")


def test_the_corpus_has_over_70_uniquely_named_cases():
    assert len({c["name"] for c in CORPUS}) == len(CORPUS) >= 70


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_broken_rule_is_a_load_error_at_its_place(case, recipes_copy):
    _break(recipes_copy, case["file"], case["find"], case["replace"])
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    messages = [str(p) for p in exc.value.problems]
    assert case["expect"] in messages, "\n".join(messages)
    for m in messages:
        assert m.startswith("recipes/"), m


# The findings of issue #11 as reproduced: each crashed or stayed silent in every command.
ISSUE_CASES = {
    "unknown-operator": ("when: {cell_flag: {--pp-size: {gt: 1}}, cell.collapse_pp: false}",
                         "when: {cell_flag: {--pp-size: {gte: 1}}, cell.collapse_pp: false}"),
    "unfinished-template": ('"--tp-size {cell.tp_size * cell.pp_size}"',
                            '"--tp-size {cell.tp_size +}"'),
    "division-by-zero": ('"--dp-size {sel.cluster // 8}"', '"--dp-size {sel.cluster // 0}"'),
    "env-given-a-list": ("{env: {SGLANG_K3_KDA_FUSED_BACKEND: aiter}}",
                         "{env: [SGLANG_K3_KDA_FUSED_BACKEND]}"),
    "word-for-a-number": ("nodes: {gt: 1}, lacks: [--nnodes]",
                          "nodes: {gt: two}, lacks: [--nnodes]"),
    "unknown-ne-var-key": ("router_bootstrap: {ne_var: server_bootstrap}",
                           "router_bootstrap: {ne_var: quantt}"),
}
COMMANDS = {
    "validate": ["validate"],
    "command": ["command", "kimi-k3", "--hw", "gb200", "--role", "unified", "--strategy",
                "balanced", "--set", "preset=serving"],
    "check": ["check", "--hw", "b300", "--role", "unified", "--strategy", "balanced", "--",
              "sglang serve --model-path moonshotai/Kimi-K3 --pp-size 2"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", ISSUE_CASES)
def test_every_command_names_the_broken_rule_instead_of_crashing(cli, recipes_copy, case, command):
    _break(recipes_copy, "kimi-k3/rules.yaml", *ISSUE_CASES[case])
    r = cli("--root", str(recipes_copy), *COMMANDS[command])
    assert r.code == 1, r.err
    assert r.err.startswith("error: recipes/kimi-k3/rules.yaml:"), r.err
    assert "internal error" not in r.err and "Traceback" not in r.err


def test_a_divisor_of_zero_from_data_is_an_expression_error():
    values = {"a": 8, "b": 0}
    for text in ("a // b", "a / b", "a // (b * 2)"):
        with pytest.raises(templates.ExprError, match="^division by zero$"):
            templates.eval_expr(text, values.__getitem__)


def test_an_infinite_value_in_arithmetic_is_an_expression_error():
    with pytest.raises(templates.ExprError, match=r"^'a' is not a number here \('inf'\)$"):
        templates.eval_expr("a * 2", {"a": "inf"}.__getitem__)


def test_a_template_reading_a_hidden_axis_is_a_clear_error_naming_the_selection(recipes_copy):
    _break(recipes_copy, "kimi-k3/rules.yaml", '"--port {pd.ports.prefill}"',
           '"--port {sel.cluster}"')
    db = load_database(recipes_copy)  # the load cannot see that prefill hides the cluster axis
    with pytest.raises(RecipeError) as exc:
        resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "prefill", "strategy": "default"}))
    assert [str(p) for p in exc.value.problems] == [
        "<selection>: cannot fill '--port {sel.cluster}' for b300 prefill default: "
        "'{sel.cluster}' has no value here"]


def test_a_platform_attribute_fills_a_template_as_its_catalog_id(recipes_copy):
    _break(recipes_copy, "kimi-k3/rules.yaml", '"--port {pd.ports.prefill}"',
           '"--served-model-name {hw.vendor}"')
    db = load_database(recipes_copy)
    flags = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "prefill", "strategy": "default"})).flag_texts
    assert "--served-model-name nvidia" in flags


# --- whatever passes the load checks runs -----------------------------------------------------

@pytest.fixture(scope="module")
def vocabularies(db):
    return [Validator(None, m, {}, db.platforms, db.catalog, db.router_catalog,
                       db.releases).vocabulary
            for m in db.models.values()]


class _Everything(dict):
    """A command that has every flag (or env var), each with the same value."""

    def __init__(self, value):
        super().__init__()
        self.value = value

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return self.value


class _KnownContext:
    """Every fact is known (the value given), so every test of a condition is really run."""

    def __init__(self, value):
        self._value = value

    def value(self, key):
        return self._value

    def flags(self):
        return _Everything((str(self._value),))

    def cell_flags(self):
        return _Everything(())

    def env(self):
        return _Everything(str(self._value))


_scalars = st.one_of(
    st.sampled_from(["b300", "unified", "nvfp4", "amd", "AMD", "8", "true", "applicable",
                     "server", "quant", "nodes", "server_bootstrap", "DSPARK", "none", ""]),
    st.integers(-2, 70000), st.booleans(), st.none(), st.floats(allow_nan=True))
_ops = st.sampled_from(sorted(conditions.OPS) + ["gte"])
_tests = st.one_of(_scalars, st.lists(_scalars, max_size=3),
                   st.dictionaries(_ops, st.one_of(_scalars, st.lists(_scalars, max_size=3)),
                                   max_size=2))
_names = st.sampled_from(["--pp-size", "--enable-symm-mem", "--moe-a2a-backend",
                          "--speculative-algorithm", "--nope", "SGLANG_X", "bad-name"])
_keys = st.sampled_from(["hw", "role", "quant", "tp", "nodes", "hw.vendor", "hw.sm", "hw.gfx",
                         "cell.collapse_pp", "cell.nodes", "calculator.mamba_ratio", "program",
                         "router_bootstrap", "any", "all", "not", "has", "lacks", "cell_has",
                         "env_has", "flag", "cell_flag", "env", "bogus"])
_junk = st.tuples(_keys, st.one_of(_tests, st.lists(_names, max_size=2),
                                   st.dictionaries(_names, _tests, max_size=2)))
# Tests that are mostly well-formed, so that many conditions pass the check and get evaluated.
_valid = st.one_of(
    st.tuples(st.just("hw"), st.sampled_from(["b300", ["a3", "mi355x"], {"in": ["h100"]},
                                              {"ne": "b200"}])),
    st.tuples(st.just("role"), st.sampled_from(["unified", {"not_in": ["decode"]}])),
    st.tuples(st.just("tp"), st.sampled_from(["8", "inherit", {"gt": 8}, {"le": 16}])),
    st.tuples(st.just("nodes"), st.one_of(st.integers(1, 4), st.builds(
        lambda op, n: {op: n}, st.sampled_from(["gt", "ge", "lt", "le", "ne", "gte"]),
        st.integers(1, 9)))),
    st.tuples(st.just("hw.vendor"), st.sampled_from(["amd", {"ieq": "NVIDIA"}])),
    st.tuples(st.just("hw.sm"), st.sampled_from([90, {"ge": 100}, ""])),
    st.tuples(st.just("cell.collapse_pp"), st.booleans()),
    st.tuples(st.just("calculator.mamba_ratio"), st.sampled_from(["applicable", "not_applicable"])),
    st.tuples(st.just("router_bootstrap"), st.sampled_from([{"ne_var": "server_bootstrap"}, 8998])),
    st.tuples(st.sampled_from(["has", "lacks", "cell_has", "has_any"]),
              st.lists(st.sampled_from(["--pp-size", "--enable-symm-mem"]), min_size=1,
                       max_size=2)),
    st.tuples(st.sampled_from(["flag", "cell_flag"]), st.sampled_from([
        {"--pp-size": {"gt": 1}}, {"--moe-a2a-backend": "none"}, {"--enable-symm-mem": True},
        {"--speculative-algorithm": {"ieq": "dspark"}}])),
    st.tuples(st.just("env"), st.sampled_from([{"SGLANG_X": "1"}, {"SGLANG_X": {"ne": "0"}}])),
    st.tuples(st.sampled_from(["env_has", "env_has_any"]), st.just(["SGLANG_X"])))
_conditions = st.recursive(
    st.lists(st.one_of(_valid, _valid, _valid, _junk), max_size=3).map(dict),
    lambda inner: st.one_of(
        st.builds(lambda kind, cs: {kind: cs}, st.sampled_from(["any", "all"]),
                  st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda c: {"not": c}, inner),
        st.builds(lambda a, b: {**a, **b}, inner, inner)),
    max_leaves=8)


@SETTINGS
@given(cond=st.one_of(_conditions, _scalars, st.lists(_conditions, max_size=2)))
def test_a_condition_that_passes_the_load_check_evaluates_in_any_context(vocabularies, cond):
    for vocab in vocabularies:
        tree = conditions.parse(cond)
        found = condition_check.check(tree, vocab)
        assert all(isinstance(path, tuple) and isinstance(m, str) for path, m in found)
        if found:
            continue
        for ctx in (_KnownContext("8"), _KnownContext(8), _KnownContext(None)):
            assert tree.holds(ctx) in (True, False, None)


_KNOWN = {"a": templates.Known((0, 2, 4)), "b": templates.Known((1, 3)),
          "n": templates.Known(low=1, whole=True), "w": templates.Known(("x", "8")),
          "m": templates.Known((5,), missing="on z")}
_OPEN_SAMPLES = {"n": (1, 2, 7, 1000)}
_atoms = st.sampled_from(["a", "b", "n", "w", "m", "q", "0", "1", "3"])
_expressions = st.one_of(
    st.recursive(_atoms, lambda e: st.builds(
        lambda left, op, right, paren: ("({} {} {})" if paren else "{} {} {}").format(
            left, op, right),
        e, st.sampled_from(["+", "-", "*", "/", "//"]), e, st.booleans()), max_leaves=5),
    st.lists(st.sampled_from(["a", "n", "3", "+", "//", "(", ")", "%"]), min_size=1,
             max_size=6).map(" ".join))


@SETTINGS
@given(inner=_expressions)
def test_a_template_that_passes_the_dry_fill_gives_only_values_it_predicted(inner):
    tokens = inner.replace("(", " ").replace(")", " ").split()
    dry = templates.dry_fill("{" + inner + "}", lambda n: _KNOWN.get(n, f"unknown name '{n}'"))
    assert all(isinstance(p, str) for p in dry.problems)
    if dry.problems:
        return
    used = sorted({t for t in tokens if t in _KNOWN})
    choices = [_OPEN_SAMPLES.get(n) or _KNOWN[n].values for n in used]
    span = dry.spans[0]
    for combo in itertools.product(*choices):
        value = templates.eval_expr(inner, dict(zip(used, combo)).__getitem__)
        if span is None:  # a lone name that is not a number: used as it is
            assert value in _KNOWN[used[0]].values
            continue
        number = float(value)
        assert span.low <= number <= span.high, (inner, combo, value, span)
        assert not span.whole or number.is_integer(), (inner, combo, value)
        assert span.values is None or any(math.isclose(number, v) for v in span.values)


def test_a_list_with_a_malformed_item_still_checks_its_other_items(db):
    """One run reports every problem: the mapping inside the list, and the misspelt option
    beside it, each at its own index."""
    model = next(iter(db.models.values()))
    axis = next(a for a in model.axes if len(a.options) > 1)
    good = axis.options[0].id
    vocab = Validator(None, model, {}, db.platforms, db.catalog, db.router_catalog,
                      db.releases).vocabulary
    for cond, at in (({axis.id: [{"a": 1}, good + "x"]}, (axis.id,)),
                     ({axis.id: {"in": [{"a": 1}, good + "x"]}}, (axis.id, "in"))):
        found = dict(condition_check.check(conditions.parse(cond), vocab))
        assert found[at + (0,)] == f"a value of '{axis.id}' is a name or a number, not a mapping"
        assert found[at + (1,)].startswith(f"axis '{axis.id}' has no option '{good}x' ")
