"""The checker on SGLang docs nobody here wrote (``tests/corpus/upstream/blocks.yaml``: blocks of
the shapes the upstream docs and cookbook use): no false error, every error the block must
raise, every program read, and the router's bootstrap-port regression among them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from helpers import yamlc
from macros.engine import programs
from macros.engine.check import check_text

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "upstream" / "blocks.yaml"
BLOCKS = yamlc.load(CORPUS.read_text(encoding="utf-8"))["blocks"]


def run(db, block, folder: Path):
    """The findings of one block, checked beside its files."""
    for name, text in (block.get("files") or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return check_text(db, block["text"], sglang=block.get("sglang"), base_dir=folder)


@pytest.mark.parametrize("block", BLOCKS, ids=[b["id"] for b in BLOCKS])
def test_each_block_raises_exactly_its_errors(db, block, tmp_path):
    found = run(db, block, tmp_path)
    errors = Counter(f.rule for f in found if f.severity.value == "error")
    assert errors == Counter(block["errors"]), (block["why"], [f.message for f in found])
    warnings = {f.rule for f in found if f.severity.value == "warning"}
    assert set(block.get("warnings", ())) <= warnings, block["why"]
    assert "parse.no-command" not in errors


def test_every_program_is_read_in_the_corpus(db):
    read = set()
    for block in BLOCKS:
        for words in block["text"].split("\n"):
            hit = programs.find(words.split())
            if hit is not None:
                read.add(hit[0].name)
    # the programs registered by programs.py; a part that registers more reads its own corpus
    assert set(programs.CORE) - read == set()


def test_the_bootstrap_port_regression_is_in_the_corpus():
    [block] = [b for b in BLOCKS if b.get("regression")]
    assert "eighty" in block["text"] and block["errors"] == ["catalog.bad-value"]


def test_the_corpus_has_blocks_that_pass_and_blocks_that_fail_of_each_kind():
    kinds = {b["kind"] for b in BLOCKS}
    for kind in kinds:
        mine = [b for b in BLOCKS if b["kind"] == kind]
        assert all(b["why"] for b in mine)
        assert any(not b["errors"] for b in mine), f"{kind}: no block that must pass"
        assert any(b["errors"] for b in mine), f"{kind}: no block that must fail"
