"""Every model with an upstream reference (tests/corpus/reference/<model>.yaml: the cookbook cells
as upstream lists them) resolves each of its cells to the upstream command: the same flags in the
same order, env, model name, docker image, status and node count. The only rewrites allowed are
a short spelling argparse reads as a flag (an abbreviation or alias, by the flag catalog) spelt
out and a deprecated flag replaced as the command's release spells it
(recipes/catalog/migrations.yaml); the multi-node flags upstream's engine adds, the flags an
overlay forced on the cell appends (overlay_flags), the ids this repo spells differently and
whether upstream's order is known (order: set compares flag and env sets) are data of the
reference file."""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from pathlib import Path

import pytest

from helpers import yamlc
from macros.engine.database import RECIPES, cached_database
from macros.engine.flags import Flag
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

REFERENCE = Path(__file__).resolve().parents[1] / "corpus" / "reference"


# The cookbook marks a cell's status in three ways; the recipes have one state for each.
STATUS = {
    "verified: true": "verified",
    "verified: false": "unverified",
    "verificationStatus: in-progress": "in-progress",
}

_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")


def _references() -> list[tuple[str, dict]]:
    models = sorted(p.name for p in RECIPES.iterdir() if (p / "model.yaml").is_file())
    return [(m, yamlc.load((REFERENCE / f"{m}.yaml").read_text(encoding="utf-8")))
            for m in models if (REFERENCE / f"{m}.yaml").is_file()]


def _cases() -> list:
    out = []
    for model_id, ref in _references():
        for cell in ref["cells"]:
            key = "/".join(str(v) for v in cell["match"].values())
            marks = [pytest.mark.xfail(strict=True, reason=cell["missing"])] \
                if cell.get("missing") else []
            out.append(pytest.param(model_id, ref, cell, id=f"{model_id}:{key}", marks=marks))
    return out


CASES = _cases()


def _match(ref: dict, cell: dict) -> dict[str, str]:
    ids = ref.get("option_ids", {})
    return {k: ids.get(k, {}).get(str(v), str(v)) for k, v in cell["match"].items()}


@lru_cache(maxsize=None)
def _resolved(model_id: str, match: tuple):
    return resolve(cached_database(), Selection(model_id, dict(match)))


def _resolution(model_id: str, ref: dict, cell: dict):
    return _resolved(model_id, tuple(_match(ref, cell).items()))


def _spelt_out(flag: str) -> str:
    """Upstream's short spelling (``--tp``, an abbreviation argparse reads as --tp-size; ``--ep``,
    an alias) as the recipes write it: the flag's own name, by the catalog."""
    name, sep, rest = flag.partition(" ")
    hit = cached_database().catalog.lookup(name)
    if hit.kind in ("abbreviated", "alias"):
        name = hit.spec.name
    return name + sep + rest


def _upstream_flags(ref: dict, cell: dict) -> list[str]:
    """The cell's flags as upstream prints them: abbreviations spelt out, and on more than one
    node the engine's multi-node flags after the first anchor the cell has."""
    flags = [_spelt_out(f) for f in cell["flags"]]
    if cell["nodes"] > 1:
        names = [f.split(" ", 1)[0] for f in flags]
        anchor = next(a for a in map(_spelt_out, ref["multi_node"]["after"]) if a in names)
        at = names.index(anchor) + 1
        added = [f.replace("{nodes}", str(cell["nodes"])) for f in ref["multi_node"]["flags"]]
        flags[at:at] = added
    return flags + [_spelt_out(f) for f in cell.get("overlay_flags", [])]


def _filled(text: str, ref: dict, cell: dict) -> str:
    values = {**ref["placeholders"], "MODEL_NAME": cell["model_name"]}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def _words(flags: list[str]) -> list[list[str]]:
    return [shlex.split(f) for f in flags]


@pytest.mark.parametrize("model_id,ref,cell", CASES)
def test_a_reference_cell_resolves_to_the_upstream_flags_in_order(model_id, ref, cell):
    res = _resolution(model_id, ref, cell)
    expected = [_filled(f, ref, cell) for f in _upstream_flags(ref, cell)]
    # upstream's spelling as the command's release spells it (a deprecated flag replaced)
    spelt, _ = cached_database().releases.migrate(
        [Flag(w[0], tuple(w[1:])) for w in _words(expected)], res.sglang)
    got, want = [f.words() for f in res.flags], [f.words() for f in spelt]
    if ref.get("order") == "set":  # upstream says which flags, not where an overlay puts them
        got, want = sorted(got), sorted(want)
    assert got == want


@pytest.mark.parametrize("model_id,ref,cell", CASES)
def test_a_reference_cell_resolves_to_the_upstream_env(model_id, ref, cell):
    res = _resolution(model_id, ref, cell)
    want = [_filled(e, ref, cell) for e in cell["env"]]
    assert (sorted(res.env), res.env)[ref.get("order") != "set"] == \
        (sorted(want), want)[ref.get("order") != "set"]


@pytest.mark.parametrize("model_id,ref,cell", CASES)
def test_a_reference_cell_serves_the_upstream_model_name(model_id, ref, cell):
    assert _resolution(model_id, ref, cell).model_name == cell["model_name"]


@pytest.mark.parametrize("model_id,ref,cell", CASES)
def test_a_reference_cell_runs_the_upstream_docker_image(model_id, ref, cell):
    assert _resolution(model_id, ref, cell).docker_image == cell["image"]


@pytest.mark.parametrize("model_id,ref,cell", CASES)
def test_a_reference_cell_has_the_upstream_status(model_id, ref, cell):
    res = _resolution(model_id, ref, cell)
    assert res.cell_status == STATUS[cell["status"]]
    # what the page shows is the same, unless this project judges the record behind it stale
    # (recipes/catalog/verification.yaml), which upstream does not do
    if res.record is not None and res.record.stale and res.cell_status == "verified":
        assert res.status == "stale"
    else:
        assert res.status == STATUS[cell["status"]]


@pytest.mark.parametrize("model_id,ref,cell", CASES)
def test_a_reference_cell_runs_on_the_upstream_node_count(model_id, ref, cell):
    assert _resolution(model_id, ref, cell).nodes == cell["nodes"]


@pytest.mark.parametrize("model_id,ref", [pytest.param(m, r, id=m) for m, r in _references()])
def test_a_model_with_a_reference_has_no_cell_the_reference_lacks(db, model_id, ref):
    model = db.model(model_id)
    listed = {model.key(_match(ref, c)) for c in ref["cells"]}
    assert [model.key(c.match) for c in model.cells if model.key(c.match) not in listed] == []
