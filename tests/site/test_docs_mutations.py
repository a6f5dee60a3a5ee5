"""Tests of the tests: each mistake a writer or maintainer can make in a page or in the
database makes the docs checks fail with a message naming the page (or file) and the line.
Each test breaks a private copy, never the real docs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from helpers.sybil_docs import run_document
from macros.engine.database import load_database
from macros.i18n.contract import check as i18n_check
from macros.site.pages import MacroError, Site

ROOT = Path(__file__).resolve().parents[2]
# The page these tests break: Kimi-K3's advanced usage page, which holds its runnable requests,
# its commands with their check directives and its macro calls.
PAGE = Path("models") / "kimi-k3" / "advanced.md"


@pytest.fixture
def docs_copy(tmp_path):
    target = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", target, ignore=shutil.ignore_patterns("conftest.py"))
    return target


def _mutate(path: Path, old: str, new: str) -> int:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer contains {old!r}"
    line = text[:text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return line


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_unmodified_page_passes(docs_copy, lang):
    """The page these tests break, and the model page its examples came from: every example
    of both runs and passes."""
    runs = [run_document(docs_copy / lang / page)
            for page in (PAGE, PAGE.parent.with_suffix(".md"))]
    assert runs[0][0] >= 3 and sum(count for count, _ in runs) >= 4
    assert [failure for _, failures in runs for failure in failures] == []


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_misspelt_flag_in_a_bash_block_fails_with_page_and_line(docs_copy, lang):
    page = docs_copy / lang / PAGE
    line = _mutate(page, "--context-length 65536", "--context-lenght 65536")
    _, failures = run_document(page)
    assert len(failures) == 1
    assert f"advanced.md:{line}:" in failures[0]
    assert "--context-lenght" in failures[0] and "catalog.unknown-flag" in failures[0]


def test_symmetric_memory_in_a_dcp_command_fails(docs_copy):
    page = docs_copy / "en" / PAGE
    line = _mutate(page, "  --tp-size 8 \\\n  --context-length", "  --tp-size 8 \\\n  --dcp-size 8 \\\n  --context-length")
    _, failures = run_document(page)
    assert len(failures) == 1
    assert "symm-mem-under-dcp" in failures[0] and "--enable-symm-mem" in failures[0]
    text = page.read_text(encoding="utf-8")
    symm = text[:text.index("--enable-symm-mem", text.index("--dcp-size 8 \\\n  --context-length"))]
    want = f"advanced.md:{symm.count(chr(10)) + 1}: --enable-symm-mem must not be set"
    assert want in failures[0]
    assert line  # the block starts where the mutation went in


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_wrong_reasoning_effort_fails(docs_copy, lang):
    page = docs_copy / lang / PAGE
    _mutate(page, 'reasoning_effort="high"', 'reasoning_effort="extreme"')
    _, failures = run_document(page)
    assert len(failures) == 1
    assert "advanced.md:" in failures[0]
    assert "BadRequestError" in failures[0] and "extreme" in failures[0]


def test_a_wrong_response_field_fails(docs_copy):
    page = docs_copy / "en" / PAGE
    _mutate(page, 'getattr(msg, "reasoning_content", None)', 'getattr(msg, "reasoning", None)')
    _, failures = run_document(page)
    assert len(failures) == 1 and "printed None for 'Reasoning'" in failures[0]


def test_a_wrong_endpoint_fails(docs_copy):
    page = docs_copy / "en" / PAGE
    _mutate(page, "client.chat.completions.create(", "client.completions.create(prompt='x', ")
    _, failures = run_document(page)
    assert failures and "advanced.md:" in failures[0]


def test_deleting_a_code_block_from_the_korean_page_is_reported_with_lines(docs_copy):
    page = docs_copy / "ko" / PAGE
    text = page.read_text(encoding="utf-8")
    start = text.index("```python")
    end = text.index("```", start + 10) + 3
    page.write_text(text[:start] + text[end:], encoding="utf-8")
    errors = [str(f) for f in i18n_check(docs_copy) if f.severity == "error"]
    assert any(re.match(r"docs/ko/models/kimi-k3/advanced\.md:\d+: error: code block missing: "
                        r"docs/en/models/kimi-k3/advanced\.md:\d+ has 'python", e)
               for e in errors), errors


def test_a_changed_macro_argument_in_the_korean_page_is_reported(docs_copy):
    page = docs_copy / "ko" / PAGE
    line = _mutate(page, 'hicache="l3"', 'hicache="l2"')
    errors = [str(f) for f in i18n_check(docs_copy) if f.severity == "error"]
    assert any(e.startswith(f"docs/ko/{PAGE}:{line}: error: macro call differs")
               for e in errors), errors


def test_a_changed_heading_anchor_is_reported(docs_copy):
    page = docs_copy / "ko" / PAGE
    text = page.read_text(encoding="utf-8")
    anchor = re.search(r"\{ #([\w-]+) \}", text.split("\n", 8)[-1]).group(1)
    line = _mutate(page, f"{{ #{anchor} }}", f"{{ #{anchor}-ko }}")
    errors = [str(f) for f in i18n_check(docs_copy) if f.severity == "error"]
    assert any(e.startswith(f"docs/ko/{PAGE}:{line}: error: heading anchor differs")
               for e in errors), errors


def test_editing_the_english_page_marks_the_korean_one_outdated(docs_copy):
    page = docs_copy / "en" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    todo = [str(f) for f in i18n_check(docs_copy) if f.severity == "todo"]
    line = page.read_text(encoding="utf-8").count("\n")
    assert todo == ["docs/ko/index.md:1: todo: outdated: docs/en/index.md changed since this "
                    "translation; update it, then run 'recipes i18n-stamp index.md'",
                    f"docs/en/index.md:{line}: todo: added since the translation (line {line}): "
                    "'One more sentence.'"]


def test_a_missing_korean_page_is_listed(docs_copy):
    (docs_copy / "ko" / "guides" / "translate.md").unlink()
    todo = [str(f) for f in i18n_check(docs_copy) if f.severity == "todo"]
    assert todo == ["docs/ko/guides/translate.md: todo: not translated yet (the site shows "
                    "docs/en/guides/translate.md with a notice)"]


def test_a_wrong_flag_in_the_database_fails_the_page_macro(recipes_copy):
    cells = recipes_copy / "kimi-k3" / "cells.yaml"
    text = cells.read_text(encoding="utf-8")
    marker = "  - match: {hw: b300, role: unified, strategy: balanced}"
    start = text.index(marker)
    insert_at = text.index("      - --mem-fraction-static 0.85\n", start)
    cells.write_text(text[:insert_at] + "      - --enable-symm-mem\n" + text[insert_at:],
                     encoding="utf-8")
    site = Site(load_database(recipes_copy), "en")
    with pytest.raises(MacroError) as exc:
        site.command("kimi-k3", "b300", "unified", "balanced")
    assert "b300 unified balanced" in str(exc.value)
    assert "--enable-symm-mem must not be set under DCP" in str(exc.value)


def test_a_misspelt_check_directive_fails_instead_of_switching_rules_off(docs_copy):
    page = docs_copy / "en" / PAGE
    _mutate(page, "<!-- check: model=kimi-k3 hw=b300 role=unified",
            "<!-- check: model=kimi-k3 hw=b3000 role=unified")
    _, failures = run_document(page)
    assert len(failures) == 1 and "hw 'b3000' is not a platform" in failures[0]


def test_a_missing_line_continuation_is_caught(docs_copy):
    page = docs_copy / "en" / PAGE
    line = _mutate(page, "  --context-length 65536 \\\n", "  --context-length 65536\n")
    _, failures = run_document(page)
    assert len(failures) == 1
    assert f"advanced.md:{line + 1}:" in failures[0] and "does not end with" in failures[0]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_docker_block_with_a_foreign_image_and_a_curl_block_to_another_port_fail(
        tmp_path, db, lang):
    """The run modes a page shows are checked like every command: each model's first cell,
    its image changed and its curl request sent elsewhere, fails on those two lines."""
    from macros.site import runmodes
    from macros.engine.resolve import resolve
    from macros.engine.selection import Selection

    for model_id, model in db.models.items():
        res = resolve(db, Selection.flat(model, model.cells[0].match))
        page = tmp_path / lang / f"{model_id}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(Site(db, lang).run_modes(model_id, **res.match) + "\n", encoding="utf-8")
        assert run_document(page)[1] == []
        # the page's own request: a chat request, or the job a diffusion model submits
        url = runmodes.request_url(db, model, res)
        elsewhere = url.replace(f"//{runmodes.HOST}:{runmodes.client_port(db, model, res)}/",
                                f"//{runmodes.HOST}:9/", 1)
        assert elsewhere != url
        image = _mutate(page, f"  {res.docker_image} \\", "  example/foreign:1 \\")
        curl = _mutate(page, url, elsewhere)
        _, failures = run_document(page)
        assert len(failures) == 2, failures
        assert f"{model_id}.md:{image}: image example/foreign:1 is none of" in failures[0]
        assert "docker.foreign-image" in failures[0]
        assert f"{model_id}.md:{curl}: curl sends to {elsewhere}" in failures[1] \
            and "curl.port" in failures[1], failures[1]
