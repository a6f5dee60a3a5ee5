"""A recipe that uses part of a node (4 of a B200 node's 8 GPUs): a cell's ``gpus_per_node``.
Its footprint (the Playground's header, ``render.footprint_text``) and the matrix's nodes
column count the cell's GPUs per node × its nodes, not the platform's; a value above what the
platform's node has is a ``recipes validate`` error at its line with the valid range. Holds for
every model, on a copy given the data."""

from __future__ import annotations

import pytest
from helpers.models import MODELS, edit_yaml

from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site import render
from macros.site.pages import Site


def _wide_cell(db, model_id: str) -> int:
    """The index of the model's first cell on a platform with more than one GPU a node that
    does not yet use fewer."""
    model = db.model(model_id)
    return next(i for i, c in enumerate(model.cells)
                if db.platforms[c.match["hw"]].gpus_per_node > 1 and c.gpus_per_node is None)


def _set_per_node(recipes, model_id: str, index: int, value: int) -> None:
    def change(d):
        d["cells"][index]["gpus_per_node"] = value
    edit_yaml(recipes / model_id / "cells.yaml", change)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_partial_nodes_footprint_is_its_gpus_per_node_times_its_nodes(recipes_copy, db,
                                                                        model_id):
    index = _wide_cell(db, model_id)
    cell = db.model(model_id).cells[index]
    full = db.platforms[cell.match["hw"]].gpus_per_node
    per = full // 2
    _set_per_node(recipes_copy, model_id, index, per)
    copy = load_database(recipes_copy)
    res = resolve(copy, Selection(model_id, dict(cell.match)))
    assert res.gpus_per_node == per and res.nodes == cell.nodes
    for lang in ("en", "ko"):
        said = render.footprint_text(copy, res, lang)
        kind = "ui.footprint.npu" if copy.platforms[res.hw].vendor.value == "huawei" \
            else "ui.footprint"
        assert said.startswith(copy.t(lang, kind, total=str(cell.nodes * per),
                                      nodes=str(cell.nodes), per_node=str(per))), said
        # the matrix's row of the cell counts the same
        matrix = Site(copy, lang).matrix(model_id)
        anchor = next(line for line in matrix.splitlines()
                      if f"#cell-{'-'.join(cell.match.values())})" in line)
        assert f"| {cell.nodes}×{per} |" in anchor and f"| {cell.nodes}×{full} |" not in anchor
    # every other cell still takes its platform's whole node
    other = next(c for c in copy.model(model_id).cells if c.gpus_per_node is None)
    assert resolve(copy, Selection(model_id, dict(other.match))).gpus_per_node == \
        copy.platforms[other.match["hw"]].gpus_per_node


@pytest.mark.parametrize("model_id", MODELS)
def test_more_gpus_per_node_than_the_platform_has_is_a_validate_error(recipes_copy, db,
                                                                      model_id):
    index = _wide_cell(db, model_id)
    hw = db.model(model_id).cells[index].match["hw"]
    full = db.platforms[hw].gpus_per_node
    _set_per_node(recipes_copy, model_id, index, full + 1)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = [p for p in exc.value.problems if "gpus_per_node" in p.message]
    assert problem.file.endswith(f"{model_id}/cells.yaml") and problem.line is not None
    assert f"valid: 1 to {full}" in problem.message
