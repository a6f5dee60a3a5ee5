"""Issue #20, second hardening pass: translators' checks, raw HTML, bounded output.

A. Raw HTML wrapped in ``{% raw %}…{% endraw %}`` on a Korean page is the page's own HTML: the
   contract reports the raw block and the HTML in it at file:line, and the build judges the
   rendered page against the English one and refuses it, publishing nothing.
B. The translators' checks never switch off in silence: a missing glossary is an error naming
   the file, invisible characters in any page are errors at file:line and do not hide a
   합니다체 ending, messages show them escaped, and a glossary message names the spelling found
   and the term expected, never asking for what is already there.
C. Output is bounded: a finding repeated more than 20 times in a file is shown 20 times and
   once summarized with the exact count (``macros.report``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.project import project_copy

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "corpus" / "i18n"
CURRENT = (CORPUS / "ko" / "current.md").read_text(encoding="utf-8")
RAW_PARAGRAPH = "셀을 봐요. {% raw %}<img src=x onerror=alert(1)>{% endraw %} 끝이에요.\n"


def docs_with(tmp_path: Path, korean: str, english: str | None = None,
              glossary: bool = True) -> Path:
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "ko").mkdir()
    (docs / "en" / "page.md").write_text(
        english if english is not None else (CORPUS / "en" / "page.md").read_text("utf-8"),
        encoding="utf-8")
    (docs / "ko" / "page.md").write_text(korean, encoding="utf-8")
    if glossary:
        shutil.copy(ROOT / "docs" / "glossary.md", docs / "glossary.md")
    return docs


def errors(docs: Path) -> list[str]:
    from macros.i18n_check import check

    return [str(f) for f in check(docs) if f.severity == "error"]


# --- A. raw HTML in {% raw %} ----------------------------------------------------------------

def test_raw_html_inside_a_raw_block_is_a_contract_error_at_its_line(tmp_path):
    korean = CURRENT.replace("## 실행하기", RAW_PARAGRAPH + "\n## 실행하기")
    docs = docs_with(tmp_path, korean)
    line = korean.split("\n").index(RAW_PARAGRAPH.rstrip("\n")) + 1
    found = errors(docs)
    assert f"docs/ko/page.md:{line}: error: extra raw block not in docs/en/page.md: " \
           "'{% raw %}…{% endraw %}'" in found
    assert f"docs/ko/page.md:{line}: error: raw HTML not in docs/en/page.md: " \
           "'<img src=x onerror=alert(1)>' (write the prose in Markdown, or keep the English " \
           "page's HTML as it is)" in found


def test_the_rendered_translation_is_judged_against_the_rendered_english_page():
    from macros.i18n_check import rendered_html_problems

    source = "# 제목 { #t }\n\n" + RAW_PARAGRAPH
    rendered = "# 제목 { #t }\n\n셀을 봐요. <img src=x onerror=alert(1)> 끝이에요.\n"
    found = rendered_html_problems(rendered, "# Title { #t }\n\nSee the cell.\n", source,
                                   "docs/ko/page.md", "docs/en/page.md")
    assert [str(f) for f in found] == [
        "docs/ko/page.md:3: error: raw HTML not in docs/en/page.md: "
        "'<img src=x onerror=alert(1)>' (the rendered page has it; write the prose in Markdown, "
        "or keep the English page's HTML as it is)"]
    # the English page's HTML, and what the macros made in both, are not the page's own
    same = "<kbd>Ctrl</kbd> <div class=\"recipe\">x</div>\n"
    assert rendered_html_problems(same, same, same, "ko", "en") == []


def test_a_build_refuses_raw_html_in_a_raw_block_and_publishes_nothing(tmp_path):
    from macros.build import BuildFailed, build_site

    root = project_copy(tmp_path)
    shutil.copy(CORPUS / "en" / "page.md", root / "docs/en/page.md")
    korean = CURRENT.replace("## 실행하기", RAW_PARAGRAPH + "\n## 실행하기")
    (root / "docs/ko/page.md").write_text(korean, encoding="utf-8")
    line = korean.split("\n").index(RAW_PARAGRAPH.rstrip("\n")) + 1
    out = root / "site"
    with pytest.raises(BuildFailed) as exc:
        build_site(out=out, root=root, quiet=True)
    message = str(exc.value)
    assert "Traceback" not in message
    assert f"docs/ko/page.md:{line}: raw HTML not in docs/en/page.md: " \
           "'<img src=x onerror=alert(1)>'" in message
    assert not out.exists()
    assert not list((root / ".build").glob("site-*"))
    published = [p for p in root.rglob("*.html") if "onerror" in p.read_text("utf-8", "replace")]
    assert published == []


def test_the_stage_judges_the_rendered_page_even_when_the_source_check_passes(tmp_path,
                                                                           monkeypatch):
    """The rendered page is judged on its own: with the source check out of the way, the raw
    HTML the template produced is still refused."""
    from macros import i18n_check
    from macros.build import BuildFailed, build_site

    monkeypatch.setattr(i18n_check, "page_problems", lambda *a, **k: [])
    root = project_copy(tmp_path)
    shutil.copy(CORPUS / "en" / "page.md", root / "docs/en/page.md")
    korean = CURRENT.replace("## 실행하기", RAW_PARAGRAPH + "\n## 실행하기")
    (root / "docs/ko/page.md").write_text(korean, encoding="utf-8")
    with pytest.raises(BuildFailed) as exc:
        build_site(out=root / "site", root=root, quiet=True)
    assert "(the rendered page has it;" in str(exc.value)
    assert not (root / "site").exists()
