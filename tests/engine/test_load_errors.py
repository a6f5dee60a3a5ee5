"""Every broken database in tests/corpus/broken_db.yaml gives the message a maintainer needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import yamlc
from macros.engine.database import load_database
from macros.engine.errors import RecipeError

CORPUS = yamlc.load((Path(__file__).parents[1] / "corpus" / "broken_db.yaml").read_text())


def test_the_real_database_loads(db):
    assert len(db.model("kimi-k3").cells) == 50


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 93
    assert len({c["name"] for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_broken_database_is_reported(case, recipes_copy):
    path = recipes_copy / case["file"]
    text = path.read_text(encoding="utf-8")
    assert case["find"] in text, f"corpus entry {case['name']} no longer matches {case['file']}"
    path.write_text(text.replace(case["find"], case["replace"], case.get("count", 1)),
                    encoding="utf-8")
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    messages = [str(p) for p in exc.value.problems]
    assert any(case["expect"] in m for m in messages), "\n".join(messages)
    for m in messages:  # every message points somewhere and has no Python noise
        assert m.startswith("recipes/"), m
        assert "Traceback" not in m and "pydantic" not in m.lower()


def test_cli_validate_prints_problems_and_exits_1(cli, recipes_copy):
    path = recipes_copy / "kimi-k3" / "cells.yaml"
    path.write_text(path.read_text().replace("strategy: balanced}", "strategy: balancd}", 1))
    r = cli("--root", str(recipes_copy), "validate")
    assert r.code == 1
    assert "error: recipes/kimi-k3/cells.yaml:23:48: strategy 'balancd' is not known " \
           "(did you mean 'balanced'?" in r.err
    assert "Traceback" not in r.err
    assert "benchmarks.yaml" not in r.err  # no cascade of follow-on errors


def test_cli_validate_ok(cli, db):
    r = cli("validate")
    assert r.code == 0
    cells = sum(len(m.cells) for m in db.models.values())
    assert r.out.startswith(f"ok: {len(db.models)} model(s), {cells} cells, "
                            f"{len(db.platforms)} platforms")
