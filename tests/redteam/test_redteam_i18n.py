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
from pathlib import Path

import pytest

from helpers.project import small_project

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parents[1] / "corpus" / "i18n"
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
    from macros.i18n.contract import check

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
    from macros.i18n.contract import rendered_html_problems

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
    from macros.site.build import BuildFailed, build_site

    with small_project(tmp_path) as root:
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
    from macros.i18n import contract as i18n_check
    from macros.site.build import BuildFailed, build_site

    monkeypatch.setattr(i18n_check, "page_problems", lambda *a, **k: [])
    with small_project(tmp_path) as root:
        shutil.copy(CORPUS / "en" / "page.md", root / "docs/en/page.md")
        korean = CURRENT.replace("## 실행하기", RAW_PARAGRAPH + "\n## 실행하기")
        (root / "docs/ko/page.md").write_text(korean, encoding="utf-8")
        with pytest.raises(BuildFailed) as exc:
            build_site(out=root / "site", root=root, quiet=True)
    assert "(the rendered page has it;" in str(exc.value)
    assert not (root / "site").exists()


# --- B. translators' checks never off in silence ---------------------------------------------

def findings(docs: Path) -> list[str]:
    from macros.i18n.contract import check

    return [str(f) for f in check(docs)]


def small_glossary(docs: Path, rows: str) -> None:
    (docs / "glossary.md").write_text("# Glossary\n\n## Terms\n\n| English | Korean | Not |\n"
                                      f"|---|---|---|\n{rows}", encoding="utf-8")


def test_a_missing_glossary_is_an_error_naming_the_file(tmp_path):
    docs = docs_with(tmp_path, CURRENT, glossary=False)
    assert errors(docs) == [
        "docs/glossary.md: error: the glossary is missing: the glossary check needs this page, "
        "with a '## Terms' table | English | Korean | Not |"]


def test_a_zero_width_space_does_not_hide_a_formal_ending(tmp_path):
    korean = CURRENT + "\n설정을 확인합\u200b니다.\n"
    docs = docs_with(tmp_path, korean)
    line = korean.count("\n", 0, korean.index("\u200b")) + 1
    found = findings(docs)
    assert f"docs/ko/page.md:{place(korean, chr(0x200b))}: error: invisible character U+200B (ZERO WIDTH " \
           "SPACE); delete it (a reader does not see it, and it hides words from the glossary " \
           "and register checks)" in found
    assert f"docs/ko/page.md:{line}: style: register: '확인합니다' is 합니다체; write 해요체 " \
           "(…해요, …이에요, …하세요)" in found


@pytest.mark.parametrize("char", ["\u200c", "\u200d", "\u2060", "\ufeff", "\u202a", "\u202e",
                                  "\u2066", "\u2069", "\u200e", "\u200f"])
def test_every_invisible_character_is_an_error_in_either_language(tmp_path, char):
    english = (CORPUS / "en" / "page.md").read_text("utf-8").replace("# Corpus", f"# Cor{char}pus")
    korean = CURRENT.replace("명령을", f"명{char}령을")
    docs = docs_with(tmp_path, korean, english)
    code = f"U+{ord(char):04X}"
    found = [f for f in errors(docs) if "invisible character" in f]
    assert [f.split(": error:")[0] for f in found] == [
        f"docs/en/page.md:{place(english, char)}", f"docs/ko/page.md:{place(korean, char)}"]
    assert all(code in f and char not in f for f in found)


def place(text: str, char: str) -> str:
    at = text.index(char)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


def test_a_byte_order_mark_at_the_start_of_a_page_is_no_error(tmp_path):
    korean = CURRENT.replace("명령을", "명\ufeff령을")
    docs = docs_with(tmp_path, "\ufeff" + korean)
    assert [f for f in errors(docs) if "invisible" in f] == [
        f"docs/ko/page.md:{place(korean, chr(0xfeff))}: error: invisible character U+FEFF (ZERO WIDTH NO-BREAK SPACE); "
        "delete it (a reader does not see it, and it hides words from the glossary and register "
        "checks)"]


def test_the_build_refuses_an_invisible_character_in_a_page():
    from macros.i18n.contract import page_problems

    found = page_problems("# Title { #t }\n\nSome\u202e text.\n", "docs/en/page.md")
    assert [str(f) for f in found] == [
        "docs/en/page.md:3:5: error: invisible character U+202E (RIGHT-TO-LEFT OVERRIDE); "
        "delete it (a reader does not see it, and it hides words from the glossary and register "
        "checks)"]


def test_messages_that_quote_text_show_invisible_characters_escaped(tmp_path):
    korean = CURRENT.replace("{ #run }", "{ #ru\u200bn }").replace(
        "명령을", "<b\u200b>명령을")
    docs = docs_with(tmp_path, korean)
    found = findings(docs)
    assert any("'#ru\\u200bn'" in f for f in found), found
    assert any("'<b\\u200b>'" in f for f in found), found
    assert not [f for f in found if "\u200b" in f]


def test_a_rejected_spelling_that_contains_the_term_names_both_and_asks_for_nothing_there(
        tmp_path):
    docs = docs_with(tmp_path, CURRENT + "\n셀 단위로 봐요.\n")
    small_glossary(docs, "| cell | 셀 | 셀 단위 |\n")
    line = (CURRENT + "\n셀 단위로 봐요.\n").split("\n").index("셀 단위로 봐요.") + 1
    assert [f for f in findings(docs) if "glossary" in f] == [
        f"docs/ko/page.md:{line}: style: glossary: found '셀 단위', which the glossary rejects "
        "for 'cell' although it contains the term '셀'; reword it so that only '셀' is left "
        "(docs/glossary.md:7)"]


def test_a_term_whose_rejected_spelling_is_the_term_itself_is_a_glossary_error(tmp_path):
    docs = docs_with(tmp_path, CURRENT + "\n셀을 봐요.\n")
    small_glossary(docs, "| cell | 셀 | 칸, 셀 |\n")
    assert errors(docs) == [
        "docs/glossary.md:7:1: error: '셀' is the term itself and also in the Not column; take "
        "it out of the Not column"]
    assert not [f for f in findings(docs) if "write '셀'" in f]


# --- C. bounded output -----------------------------------------------------------------------

def test_a_finding_repeated_more_than_twenty_times_is_shown_twenty_times_and_counted():
    from macros.engine.errors import Problem
    from macros.report import bounded

    items = [Problem("a.md", n, None, f"glossary: en.md:{n} says 'cell'; write '셀'")
             for n in range(1, 26)] + [Problem("b.md", 1, 2, "other")] * 3
    lines = list(bounded(items))
    assert lines[:20] == [str(p) for p in items[:20]]
    assert lines[20:] == ["b.md:1:2: other"] * 3 + [
        "… and 5 more like this in a.md: glossary: en.md:1 says 'cell'; write '셀'"]
    # message lines work the same; other files and other messages are their own shapes
    text = [f"c.md:{n}: error: x" for n in range(30)] + ["d.md:1: error: x"]
    assert list(bounded(text))[-2:] == ["d.md:1: error: x",
                                        "… and 10 more like this in c.md: error: x"]


def test_i18n_check_of_a_page_that_repeats_a_rejected_word_200000_times_is_bounded(tmp_path,
                                                                                    cli):
    korean = CURRENT + "\n" + "미리보기를 봐요.\n" * 200_000
    docs = docs_with(tmp_path, korean)
    r = cli("i18n-check", "--docs", str(docs))  # its time is measured in make bench, not here
    lines = r.out.splitlines()
    first = CURRENT.count("\n") + 2
    message = "glossary: '미리보기' is not the term for 'preview'; write '프리뷰' (docs/glossary.md:"
    assert len(lines) == 22  # the to-do, 20 findings, one summary
    shown = [ln for ln in lines if "미리보기" in ln]
    assert [ln.partition(" style: ")[0] for ln in shown[:20]] == [
        f"docs/ko/page.md:{first + n}:" for n in range(20)]
    assert all(ln.partition(" style: ")[2].startswith(message) for ln in shown[:20])
    assert lines[-1].startswith(f"… and 199,980 more like this in docs/ko/page.md: {message}")
    assert r.err.endswith("200000 glossary or register problem(s)\n")
    assert r.code == 1


def test_check_of_a_file_repeating_a_bad_command_is_bounded(tmp_path, cli):
    commands = tmp_path / "commands.txt"
    commands.write_text("python -m sglang.launch_server --bogus-flag-zz 1\n" * 500,
                        encoding="utf-8")
    r = cli("check", "--file", str(commands), "--model", "kimi-k3")
    lines = r.out.splitlines()
    unknown = [ln for ln in lines if "unknown flag --bogus-flag-zz" in ln]
    assert len(unknown) == 21 and len(lines) < 70
    assert unknown[-1].startswith(f"… and 480 more like this in {commands}: error: unknown flag "
                                  "--bogus-flag-zz")
    assert r.code == 1


def test_validate_of_a_catalog_repeating_a_mistake_is_bounded(recipes_copy, cli):
    path = recipes_copy / "kimi-k3" / "cells.yaml"
    wrong = "  - {match: {hw: b300, role: unified, strategy: balanced}, nodes: 1, bogus: 1}\n"
    path.write_text(path.read_text().replace("cells:\n", "cells:\n" + wrong * 300, 1))
    r = cli("--root", str(recipes_copy), "validate")
    bogus = [ln for ln in r.err.splitlines() if "unknown field 'bogus'" in ln]
    assert len(bogus) == 21
    assert bogus[-1] == ("error: … and 280 more like this in recipes/kimi-k3/cells.yaml: unknown "
                         "field 'bogus' (valid fields: match, nodes, gpus_per_node, status, verified_in, "
                         "collapse_pp, redirect, warn, env, flags, pins, verified_with)")
    assert r.code == 1
