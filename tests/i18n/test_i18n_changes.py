"""What changed (issue #13 item 3): a stamp keeps the English text it matched, and an outdated
Korean page's notice and ``recipes i18n-check`` name the English paragraphs added, removed or
changed since, with the current English page's line numbers; no git history is involved.
Every case runs in a throwaway copy of docs/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.i18n.notices import notice
from macros.i18n.pages import digest
from macros.i18n.changes import changes, diff, matched_copy
from macros.i18n.contract import check

ROOT = Path(__file__).resolve().parents[2]
PAGE = "guides/translate.md"
OLD = "A translator edits only the files under `docs/ko/`."
NEW = "A translator edits only the files under `docs/ko/`, never the English ones."


@pytest.fixture
def docs(tmp_path):
    target = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", target, ignore=shutil.ignore_patterns("conftest.py"))
    return target


def edit(path: Path, old: str, new: str) -> int:
    """Replace ``old`` once; the 1-based line where it was."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[:text.index(old)].count("\n") + 1


def todo(docs: Path) -> list[str]:
    return [str(f) for f in check(docs) if f.severity == "todo"]


def korean_notice(docs: Path, db) -> str:
    return notice(PAGE, PAGE.removesuffix(".md") + "/", docs, "ko",
                  lambda text_id, **fields: db.t("ko", text_id, **fields), fallbacks=())


def test_stamp_keeps_the_english_text_it_matched_byte_for_byte(cli, docs):
    en = docs / "en" / PAGE
    en.write_bytes(en.read_bytes() + b"\nOne more sentence.\n")
    r = cli("i18n-stamp", "--docs", str(docs), PAGE)
    assert r.code == 0, r.err
    assert r.out == (f"docs/ko/{PAGE}: source_hash set to {digest(en.read_bytes())} "
                     f"(docs/en/{PAGE} as it is now, kept in docs/translated-from/ko/{PAGE})\n")
    assert matched_copy(PAGE, docs).read_bytes() == en.read_bytes()


def test_every_korean_page_of_the_repository_keeps_the_english_text_it_was_stamped_against():
    docs = ROOT / "docs"
    for page in sorted((docs / "ko").rglob("*.md")):
        uri = page.relative_to(docs / "ko").as_posix()
        assert changes(uri, docs) == [], uri


def test_after_one_english_paragraph_changes_i18n_check_names_exactly_that_paragraph(cli, docs):
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    line = edit(docs / "en" / PAGE, OLD, NEW)
    assert todo(docs) == [
        f"docs/ko/{PAGE}:1: todo: outdated: docs/en/{PAGE} changed since this translation; "
        f"update it, then run 'recipes i18n-stamp {PAGE}'",
        f"docs/en/{PAGE}:{line}: todo: changed since the translation (line {line}): 'The English "
        "pages live in `docs/en/` and the Korean pages in `docs/ko/`, at the same relative path:…'"]


def test_after_one_english_paragraph_changes_the_korean_notice_lists_exactly_that_paragraph(
        cli, db, docs):
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    line = edit(docs / "en" / PAGE, OLD, NEW)
    assert korean_notice(docs, db).splitlines()[2:] == [
        "", f"    {db.t('ko', 'ui.changes')}", "",
        f"    - {db.t('ko', 'ui.change.changed', lines=str(line))} “The English pages live in "
        r"\`docs/en/\` and the Korean pages in \`docs/ko/\`, at the same relative path:…”"]


def test_an_added_and_a_removed_paragraph_are_named_with_the_english_lines_around_them(cli, docs):
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    en = docs / "en" / PAGE
    edit(en, "- Keep numbers as the source writes them (6,144, 1 GiB, −8.9%).\n", "")
    line = edit(en, "## Before you hand in { #checklist }\n",
                "## Before you hand in { #checklist }\n\nAsk a reviewer.\n")
    lines = en.read_text(encoding="utf-8").splitlines()
    first = next(i for i, t in enumerate(lines, 1) if t.startswith("- Write in 해요체"))
    last = next(i for i in range(first, len(lines) + 1) if not lines[i].startswith("- "))
    assert todo(docs)[1:] == [
        f"docs/en/{PAGE}:{first}: todo: changed since the translation (lines "
        f"{first}–{last}): '- Write in 해요체, in short sentences, with one idea per "
        "sentence. - Never translate flags, environment…'",
        f"docs/en/{PAGE}:{line + 2}: todo: added since the translation (line {line + 2}): "
        "'Ask a reviewer.'"]


def test_a_removed_paragraph_is_shown_with_its_old_text_after_the_line_it_followed():
    old = "# Page { #page }\n\nFirst.\n\nSecond.\n\nThird.\n"
    new = "# Page { #page }\n\nFirst.\n\nThird.\n"
    assert [(c.kind, c.where, c.excerpt) for c in diff(old, new)] == [
        ("removed", "after line 3", "Second.")]


def test_rewrapping_a_paragraph_is_no_change():
    assert diff("# P { #p }\n\nOne two\nthree.\n", "# P { #p }\n\nOne\ntwo three.\n") == []


def test_without_the_kept_english_text_the_page_is_outdated_and_i18n_check_says_why_no_lines(
        cli, docs):
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    matched_copy(PAGE, docs).unlink()
    edit(docs / "en" / PAGE, OLD, NEW)
    assert todo(docs) == [
        f"docs/ko/{PAGE}:1: todo: outdated: docs/en/{PAGE} changed since this translation "
        f"(which paragraphs is unknown: docs/translated-from/ko/{PAGE}, the English text of the "
        "last stamp, is missing or is not the one source_hash names); update it, then run "
        f"'recipes i18n-stamp {PAGE}'"]


def test_a_kept_english_text_that_is_not_the_stamped_one_is_not_used(cli, db, docs):
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    copy = matched_copy(PAGE, docs)
    copy.write_bytes(copy.read_bytes() + b"\nEdited by hand.\n")
    edit(docs / "en" / PAGE, OLD, NEW)
    assert changes(PAGE, docs) is None
    assert db.t("ko", "ui.changes") not in korean_notice(docs, db)


def test_an_english_paragraph_reaches_the_notice_as_text(cli, db, docs):
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    edit(docs / "en" / PAGE, "The English pages live in `docs/en/` and",
         "<img src=x onerror=alert(1)> [link](javascript:x) *em* The English pages live in "
         "`docs/en/` and")
    listed = korean_notice(docs, db).splitlines()[-1]
    assert r"“&lt;img src=x onerror=alert(1)&gt; \[link\](javascript:x) \*em\* The" in listed


def test_a_page_shown_from_english_in_one_build_is_not_so_in_the_next(cli, db, docs, tmp_path):
    """What one build notes of a language (the pages it shows from English) stays with that
    build: in the same process, another project's outdated page still lists what changed (a
    process-wide note once made it read "not translated yet")."""
    from helpers.project import project_copy
    from macros.site.stage import Stage

    other = project_copy(tmp_path)
    (other / "docs" / "ko" / PAGE).unlink()  # there, the page is shown from English
    stage = Stage(other, tmp_path / "work", langs=("ko",))
    stage.check(stage.languages[0])  # as that project's build does before anything else
    assert stage.languages[0].fallbacks == {PAGE}
    assert cli("i18n-stamp", "--docs", str(docs), PAGE).code == 0
    edit(docs / "en" / PAGE, OLD, NEW)
    assert db.t("ko", "ui.changes") in korean_notice(docs, db)


@pytest.mark.parametrize("linked", ["translated-from", "translated-from/ko/guides"])
def test_stamp_refuses_a_copy_folder_reached_through_a_symlink_and_leaves_the_page(
        cli, docs, tmp_path, linked):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(docs / linked)
    (docs / linked).symlink_to(elsewhere)
    page = docs / "ko" / PAGE
    edit(docs / "en" / PAGE, OLD, NEW)
    before = page.read_bytes()
    r = cli("i18n-stamp", "--docs", str(docs), PAGE)
    assert (r.code, r.out) == (1, "")
    assert r.err == (f"error: docs/translated-from/ko/{PAGE}: is reached through a symlink "
                     f"(docs/{linked}); the copy of the English text is written only inside "
                     "translated-from/ itself\n")
    assert page.read_bytes() == before and list(elsewhere.iterdir()) == []
