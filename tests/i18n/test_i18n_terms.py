"""A checked glossary and register (issue #13 items 4 and 5): ``docs/glossary.md`` is data; a
term the English uses must appear in its Korean form (or kept in English) in the paragraph or
string that translates it, and Korean prose stays in 해요체. ``recipes i18n-check`` reports
each miss with file:line and the expected term and fails; the repository passes. Planted
mistakes run in throwaway copies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.engine.errors import RecipeError
from macros.i18n.contract import check, style as style_findings
from macros.i18n.terms import formal_endings, read_glossary, used

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary.md"


@pytest.fixture
def docs(tmp_path):
    target = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", target, ignore=shutil.ignore_patterns("conftest.py"))
    return target


def row(english: str) -> int:
    """The glossary line of the row whose English column is ``english``."""
    lines = GLOSSARY.read_text(encoding="utf-8").split("\n")
    return next(i + 1 for i, line in enumerate(lines) if line.startswith(f"| {english} |"))


def style(docs: Path, recipes: Path | None = None) -> list[str]:
    """What i18n-check reports as glossary and register problems (its contract part is
    tested elsewhere)."""
    return [str(f) for f in style_findings(docs, "ko", recipes, set())]


def plant(path: Path, line_start: str, old: str, new: str) -> int:
    """Replace ``old`` by ``new`` in the one line that starts with ``line_start``; its number."""
    lines = path.read_text(encoding="utf-8").split("\n")
    [n] = [i for i, line in enumerate(lines) if line.startswith(line_start)]
    assert old in lines[n]
    lines[n] = lines[n].replace(old, new)
    path.write_text("\n".join(lines), encoding="utf-8")
    return n + 1


def english_line(path: Path, line_start: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i + 1 for i, line in enumerate(lines) if line.startswith(line_start))


def small_docs(tmp_path: Path, en: str, ko: str) -> Path:
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "ko").mkdir()
    shutil.copy(GLOSSARY, docs / "glossary.md")
    (docs / "en" / "p.md").write_text(en, encoding="utf-8")
    (docs / "ko" / "p.md").write_text(ko, encoding="utf-8")
    return docs


def test_the_repository_pages_and_catalogs_use_the_glossary_terms_in_haeyo_register():
    assert [str(f) for f in check(ROOT / "docs", recipes=ROOT / "recipes")
            if f.severity == "style"] == []


def test_a_planted_wrong_term_in_a_korean_page_is_reported_with_its_line_and_the_term(docs):
    line = plant(docs / "ko" / "index.md", "검사를 거친", "레시피", "조리법")
    en = english_line(docs / "en" / "index.md", "Checked, bilingual")
    assert style(docs) == [
        f"docs/ko/index.md:{line}: style: glossary: docs/en/index.md:{en} says 'recipe'; write "
        f"'레시피' here (docs/glossary.md:{row('recipe')})"]


def test_a_planted_wrong_term_in_a_text_catalog_is_reported_at_its_id(docs, recipes_copy):
    line = plant(recipes_copy / "catalog" / "text.ko.yaml", "table.cells:", "셀", "칸")
    en = english_line(recipes_copy / "catalog" / "text.en.yaml", "table.cells:")
    assert style(docs, recipes_copy) == [
        f"recipes/catalog/text.ko.yaml:{line}: style: glossary: recipes/catalog/text.en.yaml:"
        f"{en} (table.cells) says 'cell'; write '셀' here (docs/glossary.md:{row('cell')})"]


def test_a_term_kept_in_english_must_keep_its_english_spelling(docs):
    page = docs / "ko" / "guides" / "translate.md"
    line = plant(page, "- 용어집이 영어로 두는", "Playground,", "플레이그라운드,")
    en = english_line(docs / "en" / "guides" / "translate.md", "- Keep the terms the glossary")
    assert style(docs) == [
        f"docs/ko/guides/translate.md:{line}: style: glossary: docs/en/guides/translate.md:{en} "
        f"says 'Playground'; write 'Playground' (kept in English) here (docs/glossary.md:"
        f"{row('Playground')})"]


def test_a_rejected_korean_spelling_is_reported_wherever_it_is_used_headings_included(docs):
    term = next(t for t in read_glossary(GLOSSARY, "docs/glossary.md") if t.rejected)
    line = plant(docs / "ko" / "guides" / "translate.md", "## 용어집", "용어집",
                 f"용어집과 {term.rejected[0]}")
    assert style(docs) == [
        f"docs/ko/guides/translate.md:{line}: style: glossary: '{term.rejected[0]}' is not the "
        f"term for '{term.english[0]}'; write {term.expected} (docs/glossary.md:{term.line})"]


def test_a_planted_hapnida_sentence_in_a_korean_page_is_reported_with_its_line(docs):
    line = plant(docs / "ko" / "index.md", "검사를 거친", "제공해요.", "제공합니다.")
    assert style(docs) == [f"docs/ko/index.md:{line}: style: register: '제공합니다' is 합니다체; "
                           "write 해요체 (…해요, …이에요, …하세요)"]


def test_a_planted_hapnida_sentence_in_a_text_catalog_is_reported_at_its_id(docs, recipes_copy):
    line = plant(recipes_copy / "catalog" / "text.ko.yaml", "ui.outdated:", "있어요.", "있습니다.")
    assert style(docs, recipes_copy) == [
        f"recipes/catalog/text.ko.yaml:{line}: style: register: '있습니다' is 합니다체; write 해요체 "
        "(…해요, …이에요, …하세요)"]


def test_a_heading_in_hapnida_form_is_not_a_register_problem(docs):
    plant(docs / "ko" / "guides" / "translate.md", "## 제출하기 전에", "제출하기 전에",
          "제출하기 전에 확인합니다")
    assert style(docs) == []


def test_i18n_check_fails_on_a_glossary_miss_and_counts_it(cli, docs):
    plant(docs / "ko" / "index.md", "검사를 거친", "레시피", "조리법")
    r = cli("i18n-check", "--docs", str(docs))
    assert r.code == 1
    assert r.err == ("0 contract error(s), 0 translation to-do(s), 1 glossary or register "
                     "problem(s)\n")


@pytest.mark.parametrize("korean", ["파이프라인 제거", "파이프라인을 제거", "파이프라인의 제거"])
def test_a_particle_between_the_words_of_a_korean_term_is_the_term(tmp_path, korean):
    docs = small_docs(tmp_path, "# P { #p }\n\nThe pipeline collapse.\n",
                      f"# P {{ #p }}\n\n{korean}예요.\n")
    assert style(docs) == []


def test_the_longest_overlapping_term_wins_and_a_tie_goes_to_the_kept_name():
    terms = read_glossary(GLOSSARY, "docs/glossary.md")
    assert [t.english[0] for t in used(terms, "the worst-case-reserved KDA state pool")] == [
        "worst-case-reserved KDA state pool"]
    assert [t.english[0] for t in used(terms, "the Reasoning Parser toggle")] == [
        "Reasoning Parser"]


def test_an_english_term_is_a_whole_word_in_any_case_with_plural_or_verb_endings():
    terms = read_glossary(GLOSSARY, "docs/glossary.md")
    assert [t.english[0] for t in used(terms, "Cells, cell's, pinned, recipes")] == [
        "cell", "recipe", "pinned"]
    assert used(terms, "cellar precellular") == []


def test_a_hapnida_ending_is_a_syllable_closed_by_bieup_before_nida_or_nikka():
    assert formal_endings("필요합니다. 됩니까? 있습니다 입니다 하십시오") == [
        "필요합니다", "됩니까", "있습니다", "입니다", "하십시오"]
    assert formal_endings("다니다 어니다 해요 돼요") == []


def test_a_quoted_ending_and_the_name_of_the_register_are_not_hapnida_sentences():
    assert formal_endings("어미(…합니다, …습니다)는 쓰지 않아요. 합니다체도 마찬가지예요.") == []


def test_a_glossary_row_that_is_not_three_cells_is_an_error_at_its_line(tmp_path):
    broken = tmp_path / "glossary.md"
    text = GLOSSARY.read_text(encoding="utf-8").replace("| cell | 셀 | |", "| cell | 셀 |")
    broken.write_text(text, encoding="utf-8")
    with pytest.raises(RecipeError) as exc:
        read_glossary(broken, "docs/glossary.md")
    assert [str(p) for p in exc.value.problems] == [
        f"docs/glossary.md:{row('cell')}:1: a term row is | English spellings, separated by "
        "', ' | the Korean term, or keep in English | Korean spellings not to use, separated by "
        "', ', or nothing |"]


def test_an_english_spelling_in_two_rows_is_an_error(tmp_path):
    broken = tmp_path / "glossary.md"
    broken.write_text(GLOSSARY.read_text(encoding="utf-8") + "| Cell | 칸 | |\n",
                      encoding="utf-8")
    with pytest.raises(RecipeError) as exc:
        read_glossary(broken, "docs/glossary.md")
    last = broken.read_text(encoding="utf-8").count("\n")
    assert [str(p) for p in exc.value.problems] == [
        f"docs/glossary.md:{last}:1: 'Cell' is already a term at line {row('cell')}; one row "
        "per concept"]


def test_a_translation_that_splits_a_paragraph_is_checked_section_by_section(tmp_path):
    en = "# P { #p }\n\nEach cell has a role.\n"
    assert style(small_docs(tmp_path / "a", en, "# P { #p }\n\n셀마다 있어요.\n\n역할이요.\n")) == []
    assert style(small_docs(tmp_path / "b", en, "# P { #p }\n\n셀마다 있어요.\n\n그래요.\n")) == [
        f"docs/ko/p.md:1: style: glossary: docs/en/p.md:3 says 'role'; write '역할' here "
        f"(docs/glossary.md:{row('role')})"]


def test_the_quick_look_before_each_terms_pattern_changes_no_answer():
    """``used`` looks for a term's first word (case-folded) before running its pattern: over
    every paragraph of the English docs, and over spellings in other cases, with hyphens and
    with the letters a pattern that ignores case takes for i, k and s, it finds what the
    patterns alone find."""
    import dataclasses

    terms = read_glossary(ROOT / "docs" / "glossary.md", "glossary")
    assert all(term.anchors for term in terms)
    alone = [dataclasses.replace(term, anchors=()) for term in terms]
    paragraphs = [p for page in sorted((ROOT / "docs" / "en").rglob("*.md"))
                  for p in page.read_text(encoding="utf-8").split("\n\n")]
    spelt = [s for term in terms for s in term.english]
    paragraphs += [" and ".join(spelt).upper(), " ".join(s.replace(" ", "-") for s in spelt),
                   # letters a term's pattern takes for i, k and s when it ignores case
                   " ".join(spelt).replace("i", "\u0131").replace("k", "\u212a"),
                   " ".join(spelt).upper().replace("I", "\u0130").replace("S", "\u017f")]
    found = 0
    for text in paragraphs:
        quick = [t.line for t in used(terms, text)]
        assert quick == [t.line for t in used(alone, text)], text[:200]
        found += len(quick)
    assert found > len(terms)
