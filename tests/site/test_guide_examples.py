"""The guide's data examples are true: a YAML block under an ``<!-- example: FILE -->`` comment
is a fragment of that file of the repository (every key it gives, with the same value; every list
item it shows, somewhere in the file's list), in both languages. So an example cannot drift from
the data it quotes, and an id an example shows is one the data really uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import yamlc

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [ROOT / "docs" / lang / "guides" / "add-a-model.md" for lang in ("en", "ko")]
_EXAMPLE = re.compile(r"<!--\s*example:\s*(?P<file>\S+)\s*-->\s*\n(?:\{% raw %\}\s*\n)?"
                      r"```yaml\n(?P<body>.*?)\n```", re.S)


def _examples(page: Path) -> list[tuple[str, str]]:
    return [(m["file"], m["body"]) for m in _EXAMPLE.finditer(page.read_text(encoding="utf-8"))]


def fragment_of(part, whole) -> bool:
    """``part`` is ``whole`` with keys and list items left out, or such a part of a value
    anywhere inside ``whole``."""
    if _within(part, whole):
        return True
    children = whole.values() if isinstance(whole, dict) else whole \
        if isinstance(whole, list) else ()
    return any(fragment_of(part, child) for child in children)


def _within(part, whole) -> bool:
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and _within(v, whole[k])
                                               for k, v in part.items())
    if isinstance(part, list):
        return isinstance(whole, list) and all(any(_within(p, w) for w in whole) for p in part)
    return part == whole


CASES = [pytest.param(page, file, body, id=f"{page.parts[-3]}:{file}:{i}")
         for page in GUIDES for i, (file, body) in enumerate(_examples(page))]


def test_the_guide_has_checked_examples_in_both_languages():
    counts = [len(_examples(page)) for page in GUIDES]
    assert counts[0] >= 4 and counts[0] == counts[1]


@pytest.mark.parametrize("page,file,body", CASES)
def test_a_guide_example_is_a_fragment_of_the_file_it_names(page, file, body):
    data = yamlc.load((ROOT / file).read_text(encoding="utf-8"))
    assert fragment_of(yamlc.load(body), data), f"{page.name}: not in {file}:\n{body}"


def test_a_fragment_that_is_not_in_the_file_is_told_apart():
    data = {"results": [{"match": {"hw": "b200"}, "pending": True}], "n": [1, 2]}
    assert fragment_of([{"match": {"hw": "b200"}, "pending": True}], data)
    assert fragment_of({"n": [2]}, data)
    assert not fragment_of([{"match": {"hw": "b300"}, "pending": True}], data)
    assert not fragment_of({"n": [3]}, data)
    assert not fragment_of({"label": "bench.gsm8k"}, {"gsm8k_pct": {"label": "accuracy.gsm8k"}})
