"""Translator and database text is data, never code (issue #11, findings 2–4, and the
review's findings 1, 2, 4 and 9).

Notices reach the page escaped and after the template ran; a page's template is rendered in a
sandbox that only offers the recipe macros with literal arguments; a translation may only call
what its English page calls and carry no raw HTML of its own; front matter holds only the keys
the site uses, with plain values; attribute lists and fence headers only the attributes the site
uses; links and images only http:, https:, mailto: or relative targets. ``recipes i18n-check``
reports every contract error with its line and the build refuses exactly the same, plus any
page reached through a symlink and any Korean page without an English one; ``recipes
i18n-stamp`` writes only the front-matter line of a Korean page that keeps the contract. Every
case runs in a throwaway copy.
"""

from __future__ import annotations

import hashlib
import html
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import yamlc
from helpers.models import HOME_MODELS
from helpers.project import project_copy, recipes_root, small_project
from macros.engine.errors import Problem
from macros.i18n.pages import front_matter
from macros.i18n.contract import check, page_problems

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parents[1] / "corpus" / "i18n"
EXPECTED = yamlc.load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))
CASES = sorted(p.stem for p in (CORPUS / "ko").glob("*.md"))
# Cases also run through a real build (about a second each): one of every kind of mistake.
BUILD_CASES = ["anchor-changed", "attr-list-heading-event", "attr-list-link-event",
               "code-block-changed", "fence-header-attribute", "fence-unclosed",
               "front-matter-description-refresh", "front-matter-metadata-lines",
               "front-matter-status-attribute", "front-matter-template",
               "image-data-uri", "link-autolink-extra", "link-javascript",
               "link-javascript-reference", "macro-dropped", "raw-html-img-onerror"]


def visible_text(doc: str) -> str:
    doc = re.sub(r"<(script|style)\b.*?</\1>", " ", doc, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", doc))


def corpus_docs(tmp_path: Path, case: str) -> Path:
    """docs/en/page.md and docs/ko/page.md: the corpus page and one translation of it, and the
    site's glossary (i18n-check needs one)."""
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "ko").mkdir()
    shutil.copy(ROOT / "docs" / "glossary.md", docs / "glossary.md")
    shutil.copy(CORPUS / "en" / "page.md", docs / "en" / "page.md")
    shutil.copy(CORPUS / "ko" / f"{case}.md", docs / "ko" / "page.md")
    return docs


def sha12(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


# -- i18n-check: the contract, one corpus case per mistake

def test_every_corpus_case_states_what_i18n_check_reports():
    assert sorted(EXPECTED) == CASES
    assert all("check" in EXPECTED[case] for case in CASES)


@pytest.mark.parametrize("case", CASES)
def test_i18n_check_reports_exactly_the_contract_errors_of_each_corpus_case(tmp_path, case):
    errors = [str(f) for f in check(corpus_docs(tmp_path, case)) if f.severity == "error"]
    assert errors == EXPECTED[case]["check"]


def test_i18n_check_exits_1_and_prints_the_error_with_its_line(cli, tmp_path):
    docs = corpus_docs(tmp_path, "raw-html-script")
    r = cli("i18n-check", "--docs", str(docs))
    assert r.code == 1
    assert r.out.splitlines() == [
        "docs/ko/page.md:1: todo: no source_hash in the front matter; run 'recipes i18n-stamp "
        "page.md' once the translation matches", *EXPECTED["raw-html-script"]["check"]]
    assert r.err == ("2 contract error(s), 1 translation to-do(s), 0 glossary or register "
                     "problem(s)\n")


def test_i18n_check_on_a_folder_that_is_not_a_docs_folder_is_an_error(cli):
    r = cli("i18n-check", "--docs", "/nonexistent")
    assert (r.code, r.out, r.err) == (1, "", "error: /nonexistent: not a docs folder "
                                              "(needs en/ and ko/)\n")


def test_a_source_hash_of_digits_only_is_read_as_written_not_as_a_number():
    assert front_matter("---\nsource_hash: 123456789012\n---\n", "p.md").source_hash == \
        "123456789012"


def test_a_page_that_is_not_utf8_is_reported_at_the_bad_byte(tmp_path):
    docs = corpus_docs(tmp_path, "current")
    page = docs / "ko" / "page.md"
    page.write_bytes(page.read_bytes().replace("실행하기".encode(), b"\xff", 1))
    errors = [str(f) for f in check(docs) if f.severity == "error"]
    assert errors == ["docs/ko/page.md:9:4: error: not UTF-8 text (invalid start byte)"]


# -- the build: it refuses exactly what i18n-check reports, with the page and line

def as_build_error(finding: str) -> str:
    """An i18n-check line as the build reports it (no severity)."""
    return finding.replace(": error: ", ": ", 1)


@pytest.mark.parametrize("case", CASES)
def test_the_build_refuses_in_every_corpus_case_exactly_what_i18n_check_reports(case):
    en = (CORPUS / "en" / "page.md").read_text(encoding="utf-8")
    ko = (CORPUS / "ko" / f"{case}.md").read_text(encoding="utf-8")
    found = [str(Problem(f.file, f.line, f.col, f.message))
             for f in page_problems(ko, "docs/ko/page.md", en, "docs/en/page.md")]
    assert found == [as_build_error(e) for e in EXPECTED[case]["check"]]


def site_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes()
            for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project copy with the corpus page in both languages, built once; a test may break
    it, must put it back, and expects every failed build to leave this site as it is. The copy
    holds only the models its home page shows (``HOME_MODELS``): what these tests break is a
    page, never a model, and a failed build stages every page first, so a model more would only
    add time (the real docs, every model's pages, are checked on the run's built site)."""
    from macros.site.build import build_site

    root = project_copy(tmp_path_factory.mktemp("i18n-build"), HOME_MODELS)
    shutil.copy(CORPUS / "en" / "page.md", root / "docs/en/page.md")
    shutil.copy(CORPUS / "ko" / "current.md", root / "docs/ko/page.md")
    with recipes_root(root / "recipes"):
        site = build_site(out=root / "site", root=root, quiet=True)
    return SimpleNamespace(root=root, site=site, files=site_files(site))


def failed_build(project) -> str:
    """Build the project, expect it to fail and the previous site to stay whole; the error."""
    from macros.site.build import BuildFailed, build_site

    with recipes_root(project.root / "recipes"), pytest.raises(BuildFailed) as exc:
        build_site(out=project.site, root=project.root, quiet=True)
    assert site_files(project.site) == project.files
    assert not list((project.root / ".build").glob("site-*"))
    assert "Traceback" not in str(exc.value)
    return str(exc.value)


class Markup(HTMLParser):
    """Every attribute of every tag in a document."""

    def __init__(self):
        super().__init__()
        self.attributes: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.attributes += [(tag, k, v or "") for k, v in attrs]


def test_the_real_docs_build_with_no_event_handler_refresh_style_or_script_link(project,
                                                                               built_site):
    """Every page of the run's built site (the real docs, every model) and the corpus page."""
    pages = [*((built_site, p) for p in built_site.rglob("*.html")),
             *((project.site, p) for p in project.site.glob("**/page/index.html"))]
    assert len(pages) > 8 and len([p for site, p in pages if site == project.site]) == 2
    for site, page in pages:
        markup = Markup()
        markup.feed(page.read_text(encoding="utf-8"))
        for tag, key, value in markup.attributes:
            where = f"{page.relative_to(site)}: <{tag} {key}={value!r}>"
            assert not key.startswith("on") and key != "http-equiv", where
            assert key != "style" or (tag in ("td", "th") and value in (
                "text-align: left;", "text-align: right;", "text-align: center;")), where
            if key in ("href", "src"):
                assert re.match(r"(https?|mailto):|[^:]*(?:[/?#]|$)", value), where


@pytest.mark.parametrize("case", BUILD_CASES)
def test_a_translation_that_breaks_the_contract_fails_the_build_with_page_and_line(project, case):
    page = project.root / "docs/ko/page.md"
    shutil.copy(CORPUS / "ko" / f"{case}.md", page)
    try:
        message = failed_build(project)
    finally:
        shutil.copy(CORPUS / "ko" / "current.md", page)
    assert [ln for ln in message.splitlines() if ln.startswith("docs/ko/page.md")] == \
        [as_build_error(e) for e in EXPECTED[case]["check"]]


def test_a_translation_that_breaks_the_contract_fails_before_any_language_is_built(
        project, monkeypatch, tmp_path):
    """Every language is staged (its pages checked) before any engine runs: a broken Korean
    page stops the build before the English site is built, one after the other or at once
    (the engine's runs are noted in a file, which a forked worker writes to as well)."""
    from macros.site import build as build_module

    ran = tmp_path / "engine-runs"
    ran.touch()

    def engine(config, quiet, name):
        with ran.open("a", encoding="utf-8") as out:
            out.write(f"{name}\n")
    monkeypatch.setattr(build_module, "_mkdocs", engine)
    page = project.root / "docs/ko/page.md"
    shutil.copy(CORPUS / "ko" / "link-javascript.md", page)
    try:
        for jobs in (1, 2):
            monkeypatch.setenv("RECIPES_BUILD_JOBS", str(jobs))
            message = failed_build(project)
            assert [ln for ln in message.splitlines() if ln.startswith("docs/ko/page.md")] == [
                as_build_error(e) for e in EXPECTED["link-javascript"]["check"]]
    finally:
        shutil.copy(CORPUS / "ko" / "current.md", page)
    assert ran.read_text(encoding="utf-8") == ""


def test_a_korean_page_without_an_english_page_fails_the_build(project):
    page = project.root / "docs/ko/only-korean.md"
    page.write_text("# 한국어만 { #only }\n", encoding="utf-8")
    try:
        message = failed_build(project)
    finally:
        page.unlink()
    assert message == "docs/ko/only-korean.md: has no English source page docs/en/only-korean.md"


def test_i18n_check_reports_a_korean_page_without_an_english_page(tmp_path):
    docs = corpus_docs(tmp_path, "current")
    (docs / "ko" / "only-korean.md").write_text("# 한국어만 { #only }\n", encoding="utf-8")
    assert [str(f) for f in check(docs) if f.severity == "error"] == [
        "docs/ko/only-korean.md: error: has no English source page docs/en/only-korean.md"]


OUT_OF_TREE = ("the site is made only from what is inside docs/ itself, following no link to a "
               "folder or out of it: put the files themselves there instead")
SYMLINKS = [  # (link in the project, what it points at, the build's message)
    ("file-outside", "docs/ko/leak.md", "{outside}/secret.md",
     "docs/ko/leak.md: is a symbolic link to a file outside docs/ ({outside}/secret.md); "
     + OUT_OF_TREE),
    ("folder-outside", "docs/ko/more", "{outside}",  # refused before anything walks it
     "docs/ko/more: is a symbolic link to a folder outside docs/ ({outside}); " + OUT_OF_TREE),
    ("file-inside", "docs/ko/alias.md", "{root}/docs/ko/index.md",
     "docs/ko/alias.md: is reached through a symlink (it leads to {root}/docs/ko/index.md); "
     "the site publishes only files that are inside docs/ko/ themselves"),
    ("english-file", "docs/en/leak.md", "{outside}/secret.md",
     "docs/en/leak.md: is a symbolic link to a file outside docs/ ({outside}/secret.md); "
     + OUT_OF_TREE),
]


@pytest.mark.parametrize("name,link,target,expected", SYMLINKS, ids=[s[0] for s in SYMLINKS])
def test_a_page_reached_through_a_symlink_fails_the_build_and_publishes_nothing(
        project, tmp_path, name, link, target, expected):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text('PRETTY_NAME="Debian GNU/Linux 12"\n', encoding="utf-8")
    path = project.root / link
    path.symlink_to(target.format(outside=outside, root=project.root))
    try:
        message = failed_build(project)  # and the site is as it was: nothing published
    finally:
        path.unlink()
    assert message == expected.format(outside=outside, root=project.root.resolve())


def test_i18n_check_reports_a_page_reached_through_a_symlink_and_does_not_read_it(tmp_path):
    docs = corpus_docs(tmp_path, "current")
    secret = tmp_path / "secret.md"
    secret.write_text("<script>alert(1)</script>\n", encoding="utf-8")
    (docs / "ko" / "page.md").unlink()
    (docs / "ko" / "page.md").symlink_to(secret)
    assert [str(f) for f in check(docs) if f.severity == "error"] == [
        f"docs/ko/page.md: error: is reached through a symlink (it leads to {secret.resolve()}); "
        "the site publishes only files that are inside docs/ko/ themselves"]


def test_an_english_page_may_set_only_title_description_and_hide_in_its_front_matter():
    text = ("---\ntitle: Page\nsource_hash: 0123456789ab\ntemplate: main.html\n---\n\n"
            "# Page { #page }\n")
    assert [str(f) for f in page_problems(text, "docs/en/page.md")] == [
        "docs/en/page.md:3:1: error: front matter: 'source_hash' is not allowed (allowed: "
        "description, hide, title)",
        "docs/en/page.md:4:1: error: front matter: 'template' is not allowed (allowed: "
        "description, hide, title)"]


def test_hide_names_only_parts_of_the_page_material_can_hide():
    text = "---\nhide: [toc, sidebar]\n---\n\n# Page { #page }\n"
    assert [str(f) for f in page_problems(text, "docs/en/page.md")] == [
        "docs/en/page.md:2:1: error: front matter: 'hide' must be a list of page parts from: "
        "footer, navigation, path, toc; found 'sidebar'"]


def test_a_javascript_link_is_refused_in_an_english_page_too():
    text = "# Page { #page }\n\n[run](javascript:alert(1))\n"
    assert [str(f) for f in page_problems(text, "docs/en/page.md")] == [
        "docs/en/page.md:3: error: link target 'javascript:alert(1)' uses the scheme "
        "'javascript:'; only http:, https:, mailto: and relative links are allowed"]


def test_template_code_in_a_korean_page_fails_the_build_and_runs_nothing(tmp_path):
    from macros.site.build import BuildFailed, build_site

    sentinel = tmp_path / "sentinel"
    with small_project(tmp_path) as root:
        (root / "docs/ko/index.md").write_text(
            (root / "docs/ko/index.md").read_text(encoding="utf-8") +
            f"\n{{{{ cycler.__init__.__globals__.os.popen('touch {sentinel}').read() }}}}\n",
            encoding="utf-8")
        line = (root / "docs/ko/index.md").read_text(encoding="utf-8").count("\n")
        with pytest.raises(BuildFailed) as exc:
            build_site(out=root / "site", root=root, quiet=True)
    assert f"docs/ko/index.md:{line}: 'cycler' is undefined" in str(exc.value)
    assert not sentinel.exists()


# -- the sandbox: what a page's template may do

def english_page(tmp_path: Path, db, text: str):
    """``text`` as docs/en/page.md, and the English build's PageTemplates: (pages, page)."""
    from macros.site.pages import PageTemplates, Site

    docs = tmp_path / "docs" / "en"
    docs.mkdir(parents=True)
    source = docs / "page.md"
    source.write_text(text, encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(source), src_uri="page.md"))
    return PageTemplates(Site(db, "en"), tmp_path, docs), page


def render_page(tmp_path: Path, db, text: str) -> str:
    """Render ``text`` as docs/en/page.md the way the build does."""
    pages, page = english_page(tmp_path, db, text)
    return pages.render(SimpleNamespace(page=page), text)


def test_a_page_renders_the_recipe_macros_and_keeps_raw_blocks_as_text(tmp_path, db):
    out = render_page(tmp_path, db, '{{ status_badge("verified") }} {% raw %}{{NAME}}{% endraw %}')
    assert out.startswith('<span class="recipe-badge recipe-badge--verified"')
    assert out.endswith(" {{NAME}}")


MACROS = ("about, badge, benchmarks, calculator_table, caveats, cells, command, effective, matrix, "
          "models, playground, requests, router, run_modes, scaling_table, status_badge, status_meanings, text, "
          "values, verify_report")
REFUSED = [
    ("attribute", "{{ status_badge.__self__ }}", "attribute access ('.__self__') is not allowed"),
    ("string-method", "{{ recipes_lang.ljust(1000000000) }}", "attribute access ('.ljust') is not "
     "allowed"),
    ("loop", "{% for x in 'ab' %}{% endfor %}", "'{% for %}' is not allowed"),
    ("set", "{% set x = 1 %}", "'{% set %}' is not allowed"),
    ("include", "{% include 'page.md' %}", "'{% include %}' is not allowed"),
    ("filter", '{{ status_badge("verified")|upper }}', "a filter ('|upper') is not allowed"),
    ("power", "{{ 9 ** 9 ** 9 }}", "the operator '**' is not allowed"),
]


@pytest.mark.parametrize("name,text,what", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_page_may_only_call_recipe_macros_with_literal_arguments(tmp_path, db, name, text, what):
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError) as exc:
        render_page(tmp_path, db, f"# Page {{ #page }}\n\n{text}\n")
    assert str(exc.value) == (f"docs/en/page.md:3: {what} in a page: a page may only call the "
                              f"recipe macros ({MACROS}) with literal arguments")


def test_a_macro_argument_must_be_a_literal(tmp_path, db):
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError) as exc:
        render_page(tmp_path, db, "{{ status_badge(recipes_lang) }}")
    assert str(exc.value) == ("docs/en/page.md:1: status_badge(): every argument must be a "
                              "literal string, number or true/false")


def test_a_number_too_large_to_be_finite_is_no_literal(tmp_path, db):
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError) as exc:
        render_page(tmp_path, db, "{{ status_badge(1e400) }}")
    assert str(exc.value) == ("docs/en/page.md:1: status_badge(): every argument must be a "
                              "literal string, number or true/false")


def test_jinja_globals_are_not_offered_to_pages_and_nothing_runs(tmp_path, db):
    from mkdocs.exceptions import PluginError

    sentinel = tmp_path / "sentinel"
    with pytest.raises(PluginError) as exc:
        render_page(tmp_path, db, f"{{{{ cycler.__init__.__globals__.os.popen('touch {sentinel}')"
                                  ".read() }}")
    assert str(exc.value) == ("docs/en/page.md:1: 'cycler' is undefined (a page may call the "
                              f"recipe macros only; known: {MACROS})")
    assert not sentinel.exists()


SMUGGLED = [  # what only the rendered page shows: a macro-free page may output a literal
    ("link", '[x]({{ "javascript:alert(1)" }})',
     "link target 'javascript:alert(1)' uses the scheme 'javascript:'; only http:, https:, "
     "mailto: and relative links are allowed"),
    ("attribute-list", '[x](https://a.example/){{ "{ onclick=alert(1) }" }}',
     "attribute list '{ onclick=alert(1) }': 'onclick' is not allowed (allowed: #id, .class, "
     "title, data-toc-label)"),
]


@pytest.mark.parametrize("name,text,what", SMUGGLED, ids=[s[0] for s in SMUGGLED])
def test_what_only_the_rendered_page_shows_fails_the_build_at_its_source_line(tmp_path, db,
                                                                              name, text, what):
    from mkdocs.exceptions import PluginError

    source = f"# Page {{ #page }}\n\n{text}\n"
    pages, page = english_page(tmp_path, db, source)
    pages.check_source(page)
    assert pages.pending == []  # the source alone shows nothing wrong
    markdown = pages.render(SimpleNamespace(page=page), source)
    with pytest.raises(PluginError) as exc:
        pages.check_rendered(page, markdown)
    assert str(exc.value) == f"docs/en/page.md:3: {what}"


@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
@pytest.mark.parametrize("name,text,what", SMUGGLED, ids=[s[0] for s in SMUGGLED])
def test_what_only_the_rendered_page_shows_fails_a_real_build_at_its_source_line(project, engine,
                                                                                 name, text, what):
    """MkDocs judges its own conversion (macros.site.published), Zensical the stage's: same words."""
    from macros.site.build import BuildFailed, build_site

    if engine == "zensical":
        from helpers.rendered import require_zensical

        require_zensical()
    page = project.root / "docs/en/smuggled.md"
    page.write_text(f"# Page {{ #page }}\n\n{text}\n", encoding="utf-8")
    try:
        with recipes_root(project.root / "recipes"), pytest.raises(BuildFailed) as exc:
            build_site(out=project.site, root=project.root, quiet=True, engine=engine)
    finally:
        page.unlink()
    assert str(exc.value) == f"docs/en/smuggled.md:3: {what}"
    assert site_files(project.site) == project.files


def test_a_page_the_engine_never_converted_is_reported_not_passed(tmp_path):
    from macros.site import published

    published.expect(tmp_path, "page.md", "docs/en/page.md", tmp_path / "page.md")
    published.begin(tmp_path, "other.md")
    published.end("# Other\n")
    assert published.problems(tmp_path) == [
        "docs/en/page.md: MkDocs did not convert this page (it leaves out a templates/ folder "
        "and what exclude_docs or draft_docs name), so its links and attribute lists could not "
        "be checked and its Markdown copy would be published without them; move the page or "
        "take it out of the exclusions"]
    published.forget(tmp_path)
    assert published.problems(tmp_path) == []


# -- the notices: database text reaches the page as text

@pytest.fixture(scope="module")
def hostile_notices(tmp_path_factory):
    """Both notices poisoned with template code and HTML; one page untranslated, one outdated.
    The copy holds only the models its home page shows (``HOME_MODELS``): the notices are the
    subject, on pages no model has."""
    from macros.site.build import build_site

    tmp = tmp_path_factory.mktemp("notices")
    sentinel = tmp / "sentinel"
    payload = (f"{{{{ cycler.__init__.__globals__.os.popen('touch {sentinel}').read() }}}} "
               "<img src=x onerror=alert(1)>")
    project = project_copy(tmp, HOME_MODELS)
    recipes = project / "recipes"
    text = recipes / "catalog" / "text.ko.yaml"
    data = yamlc.load(text.read_text(encoding="utf-8"))
    data["ui.not-translated"] = f"NOT-TRANSLATED {payload}"
    data["ui.outdated"] = f"OUTDATED {payload}"
    data["ui.english-source"] = "ENGLISH <b onclick=alert(2)>source</b>"
    text.write_text(yamlc.dump(data, allow_unicode=True), encoding="utf-8")
    (project / "docs/ko/guides/translate.md").unlink()
    en_index = project / "docs/en/index.md"
    en_index.write_text(en_index.read_text(encoding="utf-8") + "\nOne more sentence.\n",
                        encoding="utf-8")
    with recipes_root(recipes):
        site = build_site(out=project / "site", root=project, quiet=True)
    return SimpleNamespace(site=site, sentinel=sentinel, payload=payload)


def test_template_code_in_a_notice_runs_nothing(hostile_notices):
    assert not hostile_notices.sentinel.exists()


@pytest.mark.parametrize("page,label", [("ko/guides/translate/index.html", "NOT-TRANSLATED"),
                                        ("ko/index.html", "OUTDATED")])
def test_a_notice_shows_its_database_text_as_text(hostile_notices, page, label):
    doc = (hostile_notices.site / page).read_text(encoding="utf-8")
    assert f"{label} {hostile_notices.payload}" in visible_text(doc)
    assert "<img src=x" not in doc and "<b onclick" not in doc


def test_the_outdated_notice_links_the_english_page_with_an_escaped_label(hostile_notices):
    doc = (hostile_notices.site / "ko/index.html").read_text(encoding="utf-8")
    assert ('<a href="../" hreflang="en">ENGLISH &lt;b onclick=alert(2)&gt;source&lt;/b&gt;</a>'
            in doc)


# -- i18n-stamp: only a Korean page's front-matter line, only when the page keeps the contract

@pytest.fixture
def docs(tmp_path):
    """A docs copy whose English index changed (so its Korean page needs a new stamp), and a
    recipes folder beside it."""
    target = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", target, ignore=shutil.ignore_patterns("conftest.py"))
    en = target / "en" / "index.md"
    en.write_text(en.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    (tmp_path / "recipes" / "m").mkdir(parents=True)
    (tmp_path / "recipes" / "m" / "cells.yaml").write_text("cells: []\n", encoding="utf-8")
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize("form", ["index.md", "docs/ko/index.md", "absolute"])
def test_stamp_accepts_a_korean_page_in_each_documented_form(cli, docs, form):
    page = str(docs / "ko" / "index.md") if form == "absolute" else form
    r = cli("i18n-stamp", "--docs", str(docs), page)
    digest = sha12(docs / "en" / "index.md")
    assert (r.code, r.out) == (0, f"docs/ko/index.md: source_hash set to {digest} "
                                  "(docs/en/index.md as it is now, kept in "
                                  "docs/translated-from/ko/index.md)\n")
    assert front_matter((docs / "ko" / "index.md").read_text(encoding="utf-8"),
                        "p").source_hash == digest


REFUSED_PAGES = [
    ("database-file", "../../recipes/m/cells.yaml",
     "not a page under docs/ko/ (give it as models/x.md or docs/ko/models/x.md)"),
    ("dot-dot", "docs/ko/../../recipes/m/cells.yaml",
     "not a page under docs/ko/ (give it as models/x.md or docs/ko/models/x.md)"),
    ("english-page", "docs/en/index.md",
     "not a page under docs/ko/ (give it as models/x.md or docs/ko/models/x.md)"),
    ("outside-absolute", "{tmp}/recipes/m/cells.yaml",
     "not a page under docs/ko/ (give it as models/x.md or docs/ko/models/x.md)"),
    ("yaml-in-docs-ko", "notes.yaml",
     "not a Markdown page (.md); only pages under docs/ko/ can be stamped"),
    ("symlink-out", "linked.md",
     "is reached through a symlink (it leads to {tmp}/recipes/m/cells.yaml); stamp the page "
     "itself"),
    ("no-english-source", "only-korean.md", "has no English source page docs/en/only-korean.md"),
    ("missing", "nothing-here.md", "no such page docs/ko/nothing-here.md"),
]


@pytest.mark.parametrize("name,page,why", REFUSED_PAGES, ids=[r[0] for r in REFUSED_PAGES])
def test_stamp_refuses_anything_but_a_korean_page_and_writes_nothing(cli, docs, name, page, why):
    tmp = docs.parent.resolve()
    (docs / "ko" / "notes.yaml").write_text("a: 1\n", encoding="utf-8")
    (docs / "ko" / "linked.md").symlink_to(tmp / "recipes/m/cells.yaml")
    (docs / "ko" / "only-korean.md").write_text("# 한국어만 { #only }\n", encoding="utf-8")
    before = snapshot(tmp)
    page = page.format(tmp=tmp)
    r = cli("i18n-stamp", "--docs", str(docs), page)
    assert (r.code, r.out, r.err) == (1, "", f"error: {page}: {why.format(tmp=tmp)}\n")
    assert snapshot(tmp) == before


def test_stamp_refuses_a_page_that_breaks_the_contract_and_leaves_it_unchanged(cli, docs):
    page = docs / "ko" / "index.md"
    text = page.read_text(encoding="utf-8") + "\n<script>alert(1)</script>\n"
    page.write_text(text, encoding="utf-8")
    line = text.count("\n")
    before = page.read_bytes()
    r = cli("i18n-stamp", "--docs", str(docs), "index.md")
    assert r.code == 1 and r.out == ""
    assert r.err.splitlines() == [
        f"error: docs/ko/index.md:{line}: raw HTML not in docs/en/index.md: '{tag}' (write the "
        "prose in Markdown, or keep the English page's HTML as it is)"
        for tag in ("<script>", "</script>")] + [
        "error: <command line>: nothing stamped: fix the pages above first (recipes i18n-check "
        "lists the same problems)"]
    assert page.read_bytes() == before


STAMP_REFUSED = [
    ("description-refresh", "---\n",
     "---\ndescription: '0;url=http://127.0.0.1:8765/404.html#R\" http-equiv=\"refresh'\n",
     ["docs/ko/index.md:2:1: front matter: 'description' must be one line of plain text (no <, "
      ">, \", &, line breaks, control characters or template code); found '\"'"]),
    ("heading-event", "{ #cli }", '{ #cli onmouseover="alert(1)" }',
     ["docs/ko/index.md:{line}: attribute list '{ #cli onmouseover=\"alert(1)\" }': "
      "'onmouseover' is not allowed (allowed: #id, .class, title, data-toc-label)",
      "docs/ko/index.md:{line}: extra attribute list not in docs/en/index.md: "
      "'onmouseover=\"alert(1)\"'"]),
]


@pytest.mark.parametrize("name,old,new,errors", STAMP_REFUSED, ids=[s[0] for s in STAMP_REFUSED])
def test_stamp_refuses_a_page_whose_front_matter_or_attributes_would_reach_the_html(
        cli, docs, name, old, new, errors):
    page = docs / "ko" / "index.md"
    text = page.read_text(encoding="utf-8")
    line = text[:text.index(old)].count("\n") + 1
    page.write_text(text.replace(old, new, 1), encoding="utf-8")
    before = page.read_bytes()
    r = cli("i18n-stamp", "--docs", str(docs), "index.md")
    assert (r.code, r.out) == (1, "")
    assert r.err.splitlines() == [f"error: {e.replace('{line}', str(line))}" for e in errors] + [
        "error: <command line>: nothing stamped: fix the pages above first (recipes i18n-check "
        "lists the same problems)"]
    assert page.read_bytes() == before


def test_one_refused_page_among_several_means_none_is_stamped(cli, docs):
    before = snapshot(docs)
    r = cli("i18n-stamp", "--docs", str(docs), "index.md", "../../recipes/m/cells.yaml")
    assert r.code == 1 and r.out == ""
    assert snapshot(docs) == before


def test_stamp_keeps_the_bom_and_crlf_line_ends_and_changes_only_the_hash(cli, docs):
    page = docs / "ko" / "index.md"
    old = front_matter(page.read_text(encoding="utf-8"), "p").source_hash
    before = b"\xef\xbb\xbf" + page.read_bytes().replace(b"\n", b"\r\n")
    page.write_bytes(before)
    r = cli("i18n-stamp", "--docs", str(docs), "index.md")
    assert r.code == 0, r.err
    digest = sha12(docs / "en" / "index.md")
    assert page.read_bytes() == before.replace(f"source_hash: {old}\r\n".encode(),
                                               f"source_hash: {digest}\r\n".encode(), 1)


def test_stamp_puts_one_front_matter_after_the_bom_of_a_page_without_one(cli, docs):
    page = docs / "ko" / "index.md"
    body = page.read_text(encoding="utf-8").split("---\n", 2)[2].lstrip("\n")
    page.write_bytes(b"\xef\xbb\xbf" + body.encode())
    r = cli("i18n-stamp", "--docs", str(docs), "index.md")
    assert r.code == 0, r.err
    digest = sha12(docs / "en" / "index.md")
    assert page.read_bytes() == (b"\xef\xbb\xbf" + f"---\nsource_hash: {digest}\n---\n\n".encode()
                                 + body.encode())


def test_stamp_adds_the_hash_to_front_matter_that_has_none(cli, docs):
    page = docs / "ko" / "index.md"
    text = page.read_text(encoding="utf-8")
    old_line = text.split("\n")[1]
    page.write_text(text.replace(old_line, "title: 홈", 1), encoding="utf-8")
    r = cli("i18n-stamp", "--docs", str(docs), "index.md")
    assert r.code == 0, r.err
    digest = sha12(docs / "en" / "index.md")
    assert page.read_text(encoding="utf-8").startswith(
        f"---\ntitle: 홈\nsource_hash: {digest}\n---\n")


def test_the_stamped_real_docs_still_pass_i18n_check(cli, docs):
    assert cli("i18n-stamp", "--docs", str(docs), "index.md").code == 0
    r = cli("i18n-check", "--docs", str(docs))
    assert (r.code, r.err) == (0, "0 contract error(s), 0 translation to-do(s), 0 glossary or "
                                  "register problem(s)\n")
