"""EP is carved out of the TP group: a command whose --ep-size is wider than its --tp-size
cannot start. That is a fact of the server (``at_most`` in flag-bounds.yaml), so every model's
commands are held to it without a rule of their own, on every platform."""

from __future__ import annotations

import pytest

from helpers.models import MODELS
from macros.engine.check import check_text
from macros.engine.conditions import parse

PLATFORMS = ("b300", "h200", "mi355x")


def _errors(db, model_id, text, hw):
    model = db.model(model_id)
    if "--ep-size" not in db.serving(model).catalog.below:  # flag-bounds.yaml at_most
        pytest.skip(f"{model_id}'s CLI ({model.info.cli}) has no expert parallelism: "
                    "flag-bounds.yaml gives its catalog no at_most bound for --ep-size")
    name = model.info.model_names[-1].name
    return [(f.rule, f.message) for f in check_text(db, f"sglang serve --model-path {name} {text}",
                                                    model_id=model_id, hw=hw)
            if f.severity.value == "error"]


@pytest.mark.parametrize("hw", PLATFORMS)
@pytest.mark.parametrize("model_id", MODELS)
@pytest.mark.parametrize(("text", "shown"), [("--tp-size 8 --ep-size 16", "--ep-size 16: must be at most --tp-size (8)"),
                                             ("--tp-size 2 --ep-size 4", "--ep-size 4: must be at most --tp-size (2)"),
                                             ("--ep-size 2", "--ep-size 2: must be at most --tp-size (1, its default)")])
def test_an_ep_wider_than_tp_is_an_error_naming_both_flags(db, model_id, hw, text, shown):
    assert [m for r, m in _errors(db, model_id, text, hw) if r == "catalog.bad-value"] == [
        f"{shown}: SGLang carves the expert-parallel groups out of the TP ranks, so lower "
        "--ep-size or raise --tp-size"]


@pytest.mark.parametrize("model_id", MODELS)
@pytest.mark.parametrize("text", ["--tp-size 16 --ep-size 16", "--tp-size 16 --ep-size 8",
                                  "--tp-size 8", "--ep-size 1"])
def test_an_ep_within_tp_is_not_that_error(db, model_id, text):
    assert not [m for _, m in _errors(db, model_id, text, "b300") if "--ep-size" in m]


def test_the_bound_is_catalog_data_read_by_its_own_section(db):
    other, means, strict = db.catalog.below["--ep-size"]
    assert (other, strict) == ("--tp-size", False) and means


class _Ctx:
    def __init__(self, flags):
        self._flags = flags

    def value(self, key):
        return None

    def flags(self):
        return self._flags


@pytest.mark.parametrize(("flags", "want"), [
    ({"--ep-size": ("16",), "--tp-size": ("8",)}, True),
    ({"--ep-size": ("8",), "--tp-size": ("8",)}, False),
    ({"--ep-size": ("16",)}, False),  # the other flag absent: false, not unknown
    ({"--ep-size": ("x",), "--tp-size": ("8",)}, False),
    (None, None),  # the command is not known
])
def test_gt_flag_compares_with_another_flag_of_the_command(flags, want):
    cond = parse({"flag": {"--ep-size": {"gt_flag": "--tp-size"}}})
    assert cond.holds(_Ctx(flags)) is want


def test_gt_flag_takes_a_flag_name():
    node = parse({"flag": {"--ep-size": {"gt_flag": 8}}})
    messages = [m for _, m in node_problems(node)]
    assert "'gt_flag' takes the name of a flag, such as --tp-size (got 8)" in messages


def node_problems(node):
    from macros.engine.conditions import Tests

    return [p for _, t in node.entries for p in t.problems] if isinstance(node, Tests) else \
        [p for part in node.parts for p in node_problems(part)]
