"""A page read as paragraphs (the unit of the what-changed diff and of the glossary check):
blocks with their page lines, the prose the checks read, and English blocks paired with their
translation section by section."""

from __future__ import annotations

from macros.i18n.paragraphs import align, blocks, prose

PAGE = """---
source_hash: 0123456789ab
---

# Title { #title }

First paragraph,
wrapped.

```bash
echo one

echo two
```

- a list item
- another
"""


def test_a_page_is_its_headings_code_blocks_and_runs_of_lines_without_the_front_matter():
    assert [(b.kind, b.first, b.last) for b in blocks(PAGE)] == [
        ("heading", 5, 5), ("text", 7, 8), ("code", 10, 14), ("text", 16, 17)]


def test_prose_leaves_out_code_template_tags_comments_link_targets_and_anchors():
    [heading, text] = blocks('# Run `x` { #run }\n\nSee {{ badge("m") }} <!-- check: a=b --> '
                             "[the page](other.md) and https://example.com/a.\n")
    assert " ".join(prose(heading).split()) == "# Run"
    assert " ".join(prose(text).split()) == "See [the page and"


def test_sections_of_the_same_shape_pair_block_by_block():
    en = blocks("# A { #a }\n\nOne.\n\nTwo.\n")
    ko = blocks("# 가 { #a }\n\n하나.\n\n둘.\n")
    assert [(a.text, [b.text for b in bs]) for a, bs in align(en, ko)] == [
        ("# A { #a }", ["# 가 { #a }"]), ("One.", ["하나."]), ("Two.", ["둘."])]


def test_a_section_whose_translation_has_another_shape_is_paired_whole():
    en = blocks("# A { #a }\n\nOne.\n\n## B { #b }\n\nTwo.\n")
    ko = blocks("# 가 { #a }\n\n하나.\n\n더.\n\n## 나 { #b }\n\n둘.\n")
    pairs = align(en, ko)
    assert [([x.text for x in a] if isinstance(a, list) else a.text, [b.text for b in bs])
            for a, bs in pairs] == [
        (["# A { #a }", "One."], ["# 가 { #a }", "하나.", "더."]),
        ("## B { #b }", ["## 나 { #b }"]), ("Two.", ["둘."])]
