"""bench/growth.py's copies of the project holding fewer models (issue #22 item 7 measures the
build and the suite on them): a copy holding one model keeps that model's pages and nav lines
whole and names no other model in either language's config."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from helpers.models import MODELS, subpages

ROOT = Path(__file__).resolve().parents[2]


def _growth():
    spec = importlib.util.spec_from_file_location("growth", ROOT / "bench" / "growth.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages(config: Path) -> list[str]:
    return re.findall(r"^\s+- (?:[^\n]*: )?(models/\S+\.md)$", config.read_text(encoding="utf-8"),
                      re.M)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_copy_with_one_model_keeps_its_nav_and_pages_and_drops_every_other(model_id,
                                                                            tmp_path):
    root = _growth().project_with([model_id], tmp_path)
    own = [f"models/{model_id}.md"] + [f"models/{model_id}/{sub.rstrip('/')}.md"
                                       for sub in subpages(model_id)]
    for config in ("mkdocs.yml", "mkdocs.ko.yml"):
        assert sorted(_nav_pages(root / config)) == sorted(own), config
        assert sorted(_nav_pages(ROOT / config)) != sorted(own)  # the real one has more
    for lang in ("en", "ko"):
        for page in own:
            assert (root / "docs" / lang / page).is_file(), (lang, page)
    assert sorted(p.name for p in (root / "recipes").iterdir() if p.name != "catalog") \
        == [model_id]
