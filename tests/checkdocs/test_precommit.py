"""The pre-commit hook another repository adds (issue #21 item 7): its entry is `recipes
check` with the staged files as paths, and its `files` pattern is exactly the formats
`recipes check` reads."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from helpers import yamlc
from macros.checkdocs.sources import FORMATS

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"


def _hook() -> dict:
    hooks = yamlc.load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [h for h in hooks if h["id"] == "recipes-check"]
    return hook


def test_the_hook_matches_exactly_the_formats_check_reads():
    pattern = re.compile(_hook()["files"])
    for suffix in FORMATS:
        assert pattern.search(f"docs/page{suffix}"), suffix
    for other in ("docs/page.txt", "setup.py", "docs/page.md.bak", "image.png"):
        assert not pattern.search(other), other


def test_the_hook_runs_recipes_check_on_the_files_pre_commit_passes(cli, monkeypatch):
    hook = _hook()
    assert hook["language"] == "system" and hook["types"] == ["text"]
    program, *args = shlex.split(hook["entry"])
    assert program == "recipes"  # the console script of this package (pyproject.toml)
    monkeypatch.chdir(CORPUS)
    staged = ["docs/serve.sh", "docs/serve.mdx"]
    r = cli(*args, *staged)
    assert r.code == 1
    assert "docs/serve.sh:9: error:" in r.out and "docs/serve.mdx:15: error:" in r.out
