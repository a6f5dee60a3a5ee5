"""What the build leaves out of a page a reader downloads (issue #25's weight; the browser's
side: tests/playground/test_browser_weight.py): the checker's directives, which the Markdown
keeps, the templates' indentation between tags (macros/site/stage.py _slim_page), and the
theme's custom properties nothing reads, the components of features the site leaves off and the
rules for a text direction no page is written in (macros/site/bundle.py)."""

from __future__ import annotations

import re
from pathlib import Path

import material
import pytest

from macros.site.bundle import SCRIPT_DRAWN, directions_unwritten, script_drawn_off

from helpers.models import MODELS, SPEED, subpages

LANGS = {"en": "", "ko": "ko"}
_PROPERTY = re.compile(r"--[A-Za-z0-9_-]+")
_DECLARED = re.compile(r"(--[A-Za-z0-9_-]+)\s*:")
_READ = re.compile(r"var\(\s*(--[A-Za-z0-9_-]+)")
THEME = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_a_model_page_has_no_checker_directive_its_markdown_keeps(built_site, model_id, lang):
    """On each of the model's pages the check directives stay in the Markdown copy only; the
    pages' commands (most are on the commands page) are in the HTML, their directives gone."""
    base = built_site / LANGS[lang] / "models" / model_id
    pages = [base / part for part in ("", *subpages(model_id))]
    html = {page: (page / "index.html").read_text(encoding="utf-8") for page in pages}
    assert not [page for page, doc in html.items() if "<!-- check:" in doc]
    assert any("<!-- check:" in (page / "index.md").read_text(encoding="utf-8") for page in pages)
    assert any("sglang serve" in doc for doc in html.values())


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", SPEED)
def test_a_benchmarks_page_has_no_bench_directive_its_markdown_keeps(built_site, model_id,
                                                                     lang):
    """The reproduce commands are published on the model's benchmarks page (not the model
    page, which stays light): there, too, the directives stay in the Markdown only."""
    page = built_site / LANGS[lang] / "models" / model_id
    markdown = (page / "benchmarks" / "index.md").read_text(encoding="utf-8")
    html = (page / "benchmarks" / "index.html").read_text(encoding="utf-8")
    assert "<!-- bench:" in markdown and "<!-- bench:" not in html
    assert "bench_serving" in html or "benchmark.serving" in html
    assert "<!-- bench:" not in (page / "index.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGS)
def test_a_model_page_has_no_indentation_between_tags_and_its_code_keeps_its_own(built_site,
                                                                                 lang):
    for model_id in MODELS:
        blocks = []
        for part in ("", *subpages(model_id)):
            html = (built_site / LANGS[lang] / "models" / model_id / part / "index.html"
                    ).read_text(encoding="utf-8")
            blocks += re.findall(r"<pre\b.*?</pre>", html, re.S)
            outside = re.sub(r"<pre\b.*?</pre>|<script\b.*?</script>", "", html, flags=re.S)
            assert not re.search(r">\n[ \t]+<", outside), (model_id, part)
        assert any(re.search(r"\n  +-", b) for b in blocks), model_id  # continued lines' indent


@pytest.mark.parametrize("lang", LANGS)
def test_every_theme_property_left_is_read_and_every_one_read_is_left(built_site, lang):
    site = built_site / LANGS[lang]
    sheets = [p.read_text(encoding="utf-8") for p in sorted(site.glob("assets/stylesheets/*.css"))]
    own = [p.read_text(encoding="utf-8") for p in sorted(site.glob("assets/recipes/*.css"))]
    scripts = [p.read_text(encoding="utf-8") for pattern in
               ("assets/javascripts/bundle.*.js", "assets/recipes/**/*.js")
               for p in sorted(site.glob(pattern))]
    others = {sub for sub in LANGS.values() if sub and sub != LANGS[lang]}  # their own sites
    pages = [p.read_text(encoding="utf-8") for p in sorted(site.glob("**/*.html"))
             if p.relative_to(site).parts[0] not in others]
    theme = {n for p in THEME.glob("*.css") for n in _DECLARED.findall(p.read_text(encoding="utf-8"))}
    declared = {n for text in sheets + own for n in _DECLARED.findall(text)}
    read = {n for text in sheets + own for n in _READ.findall(text)}
    named = {n for text in scripts + pages + own for n in _PROPERTY.findall(text)}
    assert not (read - declared) & theme  # nothing a kept rule or our sheets read was dropped
    unread = {n for text in sheets for n in _DECLARED.findall(text)} - read - named
    assert not unread  # nothing declared that no rule, page or script reads


@pytest.mark.parametrize("lang", LANGS)
def test_the_theme_sheet_keeps_what_the_site_draws_and_not_what_its_features_leave_off(
        built_site, lang):
    sheet = next((built_site / LANGS[lang]).glob("assets/stylesheets/main.*.css")).read_text(
        encoding="utf-8")
    selectors = " ".join(re.findall(r"([^{}]+)\{", sheet))
    for drawn in ("md-code__button", "md-search-result", "md-dialog", "md-top", "md-nav__link"):
        assert f".{drawn}" in selectors, drawn  # the copy button, search, its toast, …
    for prefix, _ in SCRIPT_DRAWN:  # none turned on in mkdocs.yml, none on a page
        assert f".{prefix}" not in selectors, prefix
    assert "[dir=ltr]" in selectors and "[dir=rtl]" not in selectors  # every page is ltr


def test_a_feature_turned_on_or_a_page_holding_its_component_keeps_its_rules(tmp_path):
    page = tmp_path / "index.html"
    page.write_text('<div class="md-source">repo</div>', encoding="utf-8")
    config = {"theme": {"features": ["content.code.copy"]}, "plugins": ["search"], "extra": {}}
    off = script_drawn_off(config, [page])
    assert "md-tooltip" in off and "md-source" not in off
    config = {"theme": {"features": ["content.tooltips"]}, "plugins": [{"tags": {}}],
              "extra": {"version": {"provider": "mike"}}}
    off = script_drawn_off(config, [page])
    assert not {"md-tooltip", "md-tag", "md-version", "md-source"} & set(off)
    assert "md-annotation" in off


def test_a_page_written_right_to_left_keeps_the_theme_rules_for_it(tmp_path):
    page = tmp_path / "index.html"
    page.write_text('<body dir="ltr"></body>', encoding="utf-8")
    assert directions_unwritten([page]) == ["rtl"]
    page.write_text('<body dir="rtl"></body>', encoding="utf-8")
    assert directions_unwritten([page]) == ["ltr"]
    page.write_text("<body dir=rtl><p dir='LTR'></p></body>", encoding="utf-8")  # as minified
    assert directions_unwritten([page]) == []
