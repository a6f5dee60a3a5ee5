"""The page "Check your own docs" (docs/en/guides/check-your-docs.md and its Korean twin) shows
what the tool does: each `recipes check` line on it is a valid call, its example finding is
what the checker prints for its example block, and the hook id and ini option it names are the
real ones. (The page's SGLang command blocks are checked by the docs' own Sybil run.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from helpers import yamlc
from macros.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / lang / "guides" / "check-your-docs.md" for lang in ("en", "ko")]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def _blocks(page: Path) -> list[tuple[str, str]]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES, ids=["en", "ko"])
def test_every_recipes_check_line_on_the_page_is_a_valid_call(page):
    calls = [line for lang, body in _blocks(page) if lang == "bash"
             for line in body.splitlines() if line.startswith("recipes ")]
    assert len(calls) >= 3
    for line in calls:
        args = build_parser().parse_args(shlex.split(line)[1:])
        assert args.cmd == "check" and args.paths, line


@pytest.mark.parametrize("page", PAGES, ids=["en", "ko"])
def test_the_example_finding_is_what_the_checker_prints(cli, tmp_path, monkeypatch, page):
    blocks = _blocks(page)
    example = next(body for lang, body in blocks if lang == "bash" and body.startswith("sglang"))
    shown = next(body for lang, body in blocks if lang == "text").strip()
    call = next(line for lang, body in blocks if lang == "bash"
                for line in body.splitlines() if "--severity error" in line)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "serve.md").write_text(f"# Serve\n\n```bash\n{example}```\n",
                                                encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = cli(*shlex.split(call)[1:])
    assert r.code == 1
    [line] = r.out.splitlines()
    head, rule = re.match(r"(\S+:\d+: error: \S+ \S+:).*(\(\S+\) \[.*\])$", shown).groups()
    assert line.startswith(head) and line.endswith(rule), (line, shown)


def test_the_hook_and_the_ini_option_the_page_names_are_the_real_ones():
    text = PAGES[0].read_text(encoding="utf-8")
    hooks = yamlc.load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert f"id: {hooks[0]['id']}" in text
    from macros.checkdocs import pytest_plugin
    assert "sglang_check = [" in text and '"sglang_check"' in Path(
        pytest_plugin.__file__).read_text(encoding="utf-8")
