"""The guide's ``recipes validate`` output is what ``recipes validate`` prints today: the slips
the guide describes are made in a copy of the recipes and the block under the
``<!-- validate-output -->`` comment must be its output, line for line, in both languages. When
a recipe file moves a line, this test fails and prints the block to paste."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [ROOT / "docs" / lang / "guides" / "add-a-model.md" for lang in ("en", "ko")]
_BLOCK = re.compile(r"<!--\s*validate-output\s*-->\s*\n```text\n(?P<body>.*?)\n```", re.S)

# The slips the guide's sentence names, each (file under recipes/, text, its misspelling): the
# first occurrence of the text is replaced.
SLIPS = [
    ("kimi-k3/rules.yaml", "when: {hw.vendor: nvidia, nodes: {gt: 1}}",
     "when: {hw.vendor: nvidia, nodes: single}"),
    ("kimi-k3/rules.yaml", "when: {not: {hw.vendor: nvidia}}", "when: {not: {hw.vendor: NVIDIA}}"),
    ("kimi-k3/rules.yaml", "disable: {quant: [mxfp4]}", "disable: {quant: [mxfp5]}"),
    ("kimi-k3/rules.yaml", "{sel.cluster // hw.gpus_per_node}", "{sel.clust // hw.gpus_per_node}"),
    ("kimi-k3/model.yaml", "when: {role: prefill}}", "when: {quant: mxfp4}}"),
]


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> str:
    """What ``recipes validate`` prints for a copy of the recipes with the slips made."""
    work = tmp_path_factory.mktemp("validate")
    shutil.copytree(ROOT / "recipes", work / "recipes")
    for name, text, slip in SLIPS:
        path = work / "recipes" / name
        source = path.read_text(encoding="utf-8")
        assert text in source, f"the slip's place is gone from recipes/{name}: {text!r}"
        path.write_text(source.replace(text, slip, 1), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RECIPES_ROOT", None)
    run = subprocess.run([sys.executable, "-m", "macros.cli", "--root", "recipes", "validate"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    return (run.stdout + run.stderr).strip()


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.parts[-3])
def test_the_guides_validate_output_is_what_validate_prints(page, printed):
    blocks = _BLOCK.findall(page.read_text(encoding="utf-8"))
    assert len(blocks) == 1, f"{page}: one ```text block under <!-- validate-output -->"
    assert blocks[0].strip() == printed, (
        f"{page.relative_to(ROOT)}: the validate output is stale; paste this block:\n{printed}")


def test_each_slip_gives_one_error():
    """The block shows one line per slip: the slips are as many as the lines."""
    body = _BLOCK.search(GUIDES[0].read_text(encoding="utf-8"))["body"]
    assert len(body.strip().splitlines()) == len(SLIPS)
