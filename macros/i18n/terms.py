"""The glossary and the register, checked on every Korean reader text.

The glossary is data that reads as a page: the table under ``## Terms`` in
``docs/glossary.md``, one concept per row, its English spellings (separated by ", "), the
one Korean term (or ``keep in English``) and the Korean spellings not to use (calques, older
names), which no Korean line or string may contain. Every English paragraph (``macros.i18n.paragraphs``
pairs it with its translation) and every English string of a ``text.en.yaml`` that uses a
term must have that term's Korean form in its translation, or the English spelling itself when
the glossary keeps it. The register: Korean prose is 해요체; a 합니다체 ending (a syllable
closed by ㅂ before 니다 or 니까, or 십시오) outside a heading or a title is a finding. Both checks read the
text as a reader sees it, invisible characters removed (``visible``), so a zero-width space
cannot hide a term or an ending; messages show such characters escaped (``errors.escape``). A glossary
row may not reject its own term.

Owns reading the glossary (strictly: a broken table is an error at its line), matching terms
(English as whole words, any case, plural and verb endings allowed; a kept term with its
capitals) and both checks' findings. Must not change a page or a catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from macros.engine import josa, yamlfile
from macros.engine.errors import INVISIBLE, Problem, RecipeError, escape
from macros.i18n.pages import display, read_page
from macros.i18n.paragraphs import Block, align, blocks, prose, prose_lines

KEEP = "keep in English"
HEADER = "| English | Korean | Not |"
SECTION = "## Terms"
_ROW = re.compile(r"^\|(.*)\|\s*$")
# Words a text catalog leaves as code without backticks: flags, environment variables,
# snake_case and dotted ids, and the {fields} the engine fills.
_CODE_WORDS = re.compile(r"(?<![\w-])--[\w-]+|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
                         r"|\b\w+(?:[_.]\w+)+\b|\{\w+\}")
# 합니다체: …습니다, …합니다, …입니다, …됩니까 — a Hangul syllable whose final is ㅂ before 니다
# or 니까 — and the imperative …십시오.
_JONG_B = "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == 17)
_FORMAL_WORD = re.compile(f"(?<![…가-힣])[가-힣]*(?:[{_JONG_B}]니(?:다|까)|십시오)(?![가-힣])")




def visible(text: str) -> str:
    """``text`` as a reader sees it: the invisible characters removed (line breaks kept)."""
    return INVISIBLE.sub("", text)


def invisible_characters(text: str) -> list[tuple[int, int, str]]:
    """(line, column, character) for every invisible character of ``text``."""
    out, line, start = [], 1, 0
    for m in INVISIBLE.finditer(text):
        line += text.count("\n", start, m.start())
        start = m.start()
        col = m.start() - text.rfind("\n", 0, m.start())
        out.append((line, col, m.group(0)))
    return out


@dataclass(frozen=True)
class Term:
    english: tuple[str, ...]
    korean: str | None  # None: kept in English
    line: int  # its row in the glossary
    pattern: re.Pattern
    rejected: tuple[str, ...] = ()  # Korean spellings of the concept that are not the term
    # the first word of each English spelling, case-folded: a text that holds none of them
    # once case-folded has no match of ``pattern`` (a quick look before the pattern's search)
    anchors: tuple[str, ...] = ()

    @property
    def expected(self) -> str:
        return f"'{self.english[0]}' (kept in English)" if self.korean is None \
            else f"'{self.korean}'"


def _pattern(spellings: tuple[str, ...], keep: bool) -> re.Pattern:
    words = "|".join(r"[\s-]+".join(map(re.escape, s.split())) for s in spellings)
    suffix = "" if keep else r"(?:s|es|d|ed|ing)?"
    # digits may follow (TP16 is TP), letters may not (TPU is not TP)
    return re.compile(rf"(?<![A-Za-z0-9_-])(?:{words}){suffix}(?![A-Za-z_-])", 0 if keep else re.I)


def read_glossary(path: Path, name: str) -> list[Term]:
    """The terms table of the glossary page; every malformed row is a RecipeError at its line."""
    lines = read_page(path, name).split("\n")
    try:
        start = lines.index(SECTION)
    except ValueError:
        raise RecipeError([Problem(name, None, None, f"no '{SECTION}' section (a table "
                                   f"{HEADER} under it)")]) from None
    rows = []
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("#"):
            break
        if lines[i].strip():
            rows.append(i)
    problems: list[Problem] = []
    terms: list[Term] = []
    seen: dict[str, int] = {}

    def cells(i: int) -> list[str] | None:
        m = _ROW.match(lines[i])
        return [c.strip() for c in m.group(1).split("|")] if m else None

    if len(rows) < 2 or cells(rows[0]) != ["English", "Korean", "Not"] or \
            not re.fullmatch(r"\|(?:\s*-{3,}\s*\|){3}\s*", lines[rows[1]]):
        raise RecipeError([Problem(name, start + 2, 1, f"'{SECTION}' must start with the table "
                                   f"header {HEADER} and its |---|---|---| line")])
    for i in rows[2:]:
        row = cells(i)
        if row is None or len(row) != 3 or not all(row[:2]):
            problems.append(Problem(name, i + 1, 1, "a term row is | English spellings, "
                                    f"separated by ', ' | the Korean term, or {KEEP} | Korean "
                                    "spellings not to use, separated by ', ', or nothing |"))
            continue
        spellings = tuple(s.strip() for s in row[0].split(","))
        keep = row[1] == KEEP
        for spelling in spellings:
            # a kept name is matched with its capitals: "Reasoning Parser" (a toggle) and
            # "reasoning parser" (the concept) are two rows
            key = spelling if keep else spelling.lower()
            if not spelling:
                problems.append(Problem(name, i + 1, 1, "an empty English spelling"))
            elif key in seen:
                problems.append(Problem(name, i + 1, 1, f"'{spelling}' is already a term at "
                                        f"line {seen[key]}; one row per concept"))
            seen[key] = i + 1
        rejected = tuple(r.strip() for r in row[2].split(",") if r.strip())
        kept = spellings[0] if keep else row[1]
        if any(INVISIBLE.search(c) for c in row):
            problems.append(Problem(name, i + 1, 1, "an invisible character in the row "
                                    f"({escape(lines[i].strip())}); delete it"))
        for spelling in rejected:
            if spelling == kept:
                problems.append(Problem(name, i + 1, 1, f"'{spelling}' is the term itself and "
                                        "also in the Not column; take it out of the Not column"))
        anchors = tuple({_folded(s.split()[0]) for s in spellings if s.split()})
        terms.append(Term(spellings, None if keep else row[1], i + 1, _pattern(spellings, keep),
                          rejected, anchors))
    if problems:
        raise RecipeError(problems)
    return terms


def used(terms: list[Term], english: str) -> list[Term]:
    """The terms ``english`` uses. Where matches overlap the longest wins ("state pool" inside
    "worst-case-reserved KDA state pool" is that longer term), and between two of the same
    length the kept name ("Reasoning Parser", the toggle, not the concept)."""
    low = _folded(english)
    found = sorted(((m.start(), m.end(), n) for n, term in enumerate(terms)
                    if not term.anchors or any(a in low for a in term.anchors)
                    for m in term.pattern.finditer(english)),
                   key=lambda x: (x[0] - x[1], x[0], terms[x[2]].korean is not None))
    taken: list[tuple[int, int]] = []
    hit: set[int] = set()
    for start, end, n in found:
        if all(end <= a or start >= b for a, b in taken):
            taken.append((start, end))
            hit.add(n)
    return [terms[n] for n in sorted(hit)]


def _folded(text: str) -> str:
    """``text`` case-folded as far as a term's pattern ignores case: dotless ı and dotted İ
    match i there, and case-folding keeps ı and writes İ as i and a combining dot."""
    return text.casefold().replace("\u0307", "").replace("\u0131", "i")


def _korean(term: Term) -> re.Pattern:
    """A Korean term with a particle allowed before each space (파이프라인을 병합)."""
    words = term.korean.split()
    return re.compile(r"(?:[을를이가의은는과와도]|에서)?\s+".join(map(re.escape, words)))


def misses(terms: list[Term], english: str, korean: str) -> list[Term]:
    """The terms ``english`` uses whose Korean form (or kept spelling) ``korean`` lacks."""
    return [term for term in used(terms, english)
            if not (term.pattern if term.korean is None else _korean(term)).search(korean)]


def rejected(terms: list[Term], korean: str) -> list[tuple[str, Term]]:
    """(spelling, term) for every Korean spelling in ``korean`` the glossary rejects."""
    return [(spelling, term) for term in terms for spelling in term.rejected
            if spelling in korean]


def _any_rejected(terms: list[Term]) -> re.Pattern | None:
    """One pattern for every rejected spelling: most lines have none, and a page may have
    hundreds of thousands of lines."""
    spellings = sorted({s for term in terms for s in term.rejected}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, spellings))) if spellings else None


def _rejected_problem(name: str, line: int | None, spelling: str, term: Term,
                      glossary: str) -> Problem:
    right = term.english[0] if term.korean is None else term.korean
    if right in spelling:  # the term is already there, inside the spelling found
        return Problem(name, line, None, f"glossary: found '{escape(spelling)}', which the "
                       f"glossary rejects for '{term.english[0]}' although it contains the term "
                       f"{term.expected}; reword it so that only {term.expected} is left "
                       f"({glossary}:{term.line})")
    return Problem(name, line, None, f"glossary: '{escape(spelling)}' is not the term for "
                   f"'{term.english[0]}'; write {term.expected} ({glossary}:{term.line})")


def formal_endings(text: str) -> list[str]:
    """The 합니다체 words of ``text`` (prose, titles already left out): a word that ends so,
    unless an ellipsis before it marks a quoted ending (…합니다) rather than a sentence."""
    return [m.group(0) for m in _FORMAL_WORD.finditer(text)]


def _page_misses(terms: list[Term], en: list[Block],
                 ko: list[Block]) -> list[tuple[int, Term, int]]:
    """(Korean line, term, English line) for every term a translated paragraph lacks."""
    out = []
    for a, b in align(en, ko):
        group = a if isinstance(a, list) else [a]
        if not b or not group:
            continue
        english = "\n".join(map(prose, group))
        korean = "\n".join(map(prose, b))
        for term in misses(terms, english, korean):
            x, en_line = next((x, line) for x in group for line, text, _ in prose_lines(x)
                              if term.pattern.search(text))
            # a list or a table keeps its lines in translation: point at the same item
            same = len(b) == 1 and b[0].last - b[0].first == x.last - x.first
            out.append((b[0].first + (en_line - x.first if same else 0), term, en_line))
    return out


def page_problems(en_path: Path, ko_path: Path, docs: Path, terms: list[Term],
                  glossary: str) -> list[Problem]:
    """Glossary misses and 합니다체 endings of one translated page."""
    en_name, ko_name = display(en_path, docs), display(ko_path, docs)
    try:
        # as a reader sees them: an invisible character (reported by i18n-check on its own)
        # must not hide a term or an ending from these checks
        en = blocks(visible(read_page(en_path, en_name)))
        ko = blocks(visible(read_page(ko_path, ko_name)))
    except RecipeError:  # the contract check reports an unreadable page
        return []
    out = [Problem(ko_name, line, None, f"glossary: {en_name}:{en_line} says "
                   f"'{term.english[0]}'; write {term.expected} here ({glossary}:{term.line})")
           for line, term, en_line in _page_misses(terms, en, ko)]
    any_rejected = _any_rejected(terms)
    for block in ko:
        for line, text, title in prose_lines(block):
            if any_rejected is not None and any_rejected.search(text):
                out += [_rejected_problem(ko_name, line, spelling, term, glossary)
                        for spelling, term in rejected(terms, text)]
            if not title:
                out += [_register(ko_name, line, word) for word in formal_endings(text)]
        if block.kind == "text":
            for i, raw in enumerate(block.text.split("\n")):
                out += [_particle(ko_name, block.first + i, miss)
                        for miss in particle_misses(raw)]
    return sorted(out, key=lambda p: p.line or 0)


# what a Korean particle may follow directly and be judged after (josa.final_sound): inline
# code, a link (its words), and in a catalog string a flag with its value
_PAGE_WORD = re.compile(r"`[^`\n]+`|\[[^\]\n]+\]\([^)\n]+\)")
_CATALOG_WORD = re.compile(r"`[^`\n]+`|(?<![\w-])--[a-z0-9][\w-]*(?: [\w.]+(?![\w.-]))?")


def particle_misses(text: str, words: re.Pattern = _PAGE_WORD) -> list[tuple[str, str, str]]:
    """(word, particle as written, the form it needs) for each particle ``text`` writes right
    after code or a link in the wrong form for that word's last sound."""
    out = []
    for m in words.finditer(text):
        written = josa.PARTICLE.match(text, m.end())
        if written:  # a template's {% raw %} markers are not read aloud
            want = josa.form(re.sub(r"\{%.*?%\}", "", m.group(0)), written.group(1))
            if want != written.group(1):
                out.append((m.group(0), written.group(1), want))
    return out


def _particle(name: str, line: int | None, miss: tuple[str, str, str]) -> Problem:
    word, written, want = miss
    return Problem(name, line, None, f"particle: '{escape(word)}{written}' should be "
                   f"'{escape(word)}{want}' (the particle follows the last syllable, letter or "
                   "digit read aloud)")


def _register(name: str, line: int | None, word: str) -> Problem:
    return Problem(name, line, None, f"register: '{escape(word)}' is 합니다체; write 해요체 "
                   "(…해요, …이에요, …하세요)")


def catalog_problems(recipes: Path, terms: list[Term], glossary: str) -> list[Problem]:
    """Glossary misses and 합니다체 endings of every ``text.ko.yaml`` against its
    ``text.en.yaml``, each at the line of its id."""
    out = []
    for ko_path in sorted(recipes.glob("*/text.ko.yaml")):
        en_path = ko_path.with_name("text.en.yaml")
        ko_name = Path(recipes.name, ko_path.parent.name, ko_path.name).as_posix()
        try:
            ko = yamlfile.load(ko_path, ko_name)
            en = yamlfile.load(en_path, Path(recipes.name, en_path.parent.name,
                                             en_path.name).as_posix())
        except RecipeError:  # recipes validate reports a broken catalog
            continue
        if not (isinstance(ko.data, dict) and isinstance(en.data, dict)):
            continue
        out += _catalog_problems(ko, en, terms, glossary)
    return out


def _catalog_problems(ko: yamlfile.Marked, en: yamlfile.Marked, terms: list[Term],
                      glossary: str) -> list[Problem]:
    out = []
    for key, korean in ko.data.items():
        english = en.data.get(key)
        if not isinstance(korean, str):
            continue
        line = ko.where((key,))[0]
        korean_words = _CODE_WORDS.sub(" ", visible(korean))
        if isinstance(english, str):
            for term in misses(terms, _CODE_WORDS.sub(" ", visible(english)), korean_words):
                out.append(Problem(ko.file, line, None, f"glossary: {en.file}:"
                                   f"{en.where((key,))[0]} ({key}) says '{term.english[0]}'; "
                                   f"write {term.expected} here ({glossary}:{term.line})"))
        out += [_rejected_problem(ko.file, line, spelling, term, glossary)
                for spelling, term in rejected(terms, korean_words)]
        out += [_register(ko.file, line, word) for word in formal_endings(korean_words)]
        out += [_particle(ko.file, line, miss)
                for miss in particle_misses(visible(korean), _CATALOG_WORD)]
    return out
