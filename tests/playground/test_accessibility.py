"""axe-core (from npm: tests/js/package.json, injected from node_modules, never a CDN) finds no
serious or critical violation in what the project draws: the page content its macros render
(commands, tables, badges, notices, the Playground with every panel open, the Your values panel)
and its header partial (the language selector), in both languages and both colour schemes.
Material's own navigation and search are its own and left to it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers.browser import require_chromium
from helpers.models import MODELS, subpages
from test_browser import page_of

pytestmark = pytest.mark.browser

AXE = Path(__file__).parents[1] / "js" / "node_modules" / "axe-core" / "axe.min.js"


def _require_axe() -> None:
    require_chromium()
    if AXE.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{AXE} is missing on CI: make install runs npm ci in tests/js",
                    pytrace=False)
    pytest.skip("axe-core not installed: npm ci --prefix tests/js")


def _pages(group: str | None, lang: str) -> list[str]:
    """The pages of a group in a language: the home and the not-found page (``None``), or
    every page of a model."""
    if group is None:
        pages = ["/", "/404.html"]
    else:
        pages = [page_of("en", group), *(page_of("en", group) + sub for sub in subpages(group))]
    return pages if lang == "en" else ["/ko" + p for p in pages]


def _violations(page, rules: list[str] | None = None) -> list[dict]:
    """The serious and critical violations axe finds: its default rules, or only ``rules``."""
    return _check(page, rules)[0]


def _check(page, rules: list[str] | None = None) -> tuple[list[dict], list[str]]:
    """(the serious and critical violations, the colour rules that ran): axe's default rules, or
    only ``rules``. The colour rules are those axe files under colour (``cat.color``: contrast,
    links told apart by colour), the ones whose answer a change of colour scheme can change;
    every other rule reads the markup, which the scheme's toggle leaves as it is."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate("""async (rules) => {
      const scope = {include: [['article'], ['.md-header .md-select']]};
      const options = {resultTypes: ['violations']};
      if (rules) options.runOnly = {type: 'rule', values: rules};
      const r = await axe.run(scope, options);
      const colour = new Set(axe.getRules(['cat.color']).map(rule => rule.ruleId));
      const ran = [...r.passes, ...r.violations, ...r.incomplete, ...r.inapplicable]
        .map(rule => rule.id).filter(id => colour.has(id)).sort();
      return [r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')),
                    summary: v.nodes[0].failureSummary})), ran];
    }""", rules)


def _light_first(page) -> None:
    """Material keeps the reader's scheme under <base>/.__palette: light, set before the page
    runs."""
    page.add_init_script(
        "for (const k of ['/.__palette', '/ko/.__palette']) localStorage.setItem(k, "
        "JSON.stringify({index: 0, color: {scheme: 'default'}}));")


def _to_dark(page) -> None:
    """The header's toggle, as a reader switches; back once every transition has ended (a
    colour half-way would be measured otherwise)."""
    page.click("label[for=__palette_1]")
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.evaluate("() => Promise.all(document.getAnimations().map(a => a.finished))")


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("group", [None, *MODELS], ids=["home", *MODELS])
def test_no_serious_or_critical_accessibility_violation(browser, site, group, lang):
    """Every page of the group, one after the other in a tab, in both colour schemes: the page
    loads in the light one and is checked, then the header's toggle switches it to the dark
    one and it is checked again."""
    _require_axe()
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        _light_first(page)  # before every page of the tab
        found = {}
        for path in _pages(group, lang):
            page.goto(site + path)
            if page.locator(".recipe-playground").count():
                page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
            page.evaluate("() => document.querySelectorAll('article details')"
                          ".forEach(d => d.open = true)")
            assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") \
                == "default", path
            light, colour = _check(page)
            assert "color-contrast" in colour, (path, colour)
            _to_dark(page)  # the same markup in other colours: the colour rules again
            found[path] = {"default": light, "slate": _violations(page, colour)}
        assert found == {path: {"default": [], "slate": []} for path in found}, found
    finally:
        context.close()


def test_the_check_sees_a_planted_violation(browser, site):
    """A faint paragraph and an unlabelled button put into the article are reported."""
    _require_axe()
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(site + "/")
        page.evaluate("""() => { const a = document.querySelector('article');
          const p = document.createElement('p'); p.textContent = 'faint';
          p.style.color = '#eeeeee'; p.style.background = '#ffffff'; a.appendChild(p);
          a.appendChild(document.createElement('button')); }""")
        assert {v["id"] for v in _violations(page)} >= {"color-contrast", "button-name"}
    finally:
        context.close()


def test_the_dark_scheme_is_checked_after_the_toggle(browser, site):
    """Text in the theme's own colour on a fixed white ground reads in the light scheme and
    not in the dark one: only the check after the toggle reports it."""
    _require_axe()
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        _light_first(page)
        page.goto(site + "/")
        page.evaluate("""() => { const p = document.createElement('p');
          p.textContent = 'theme-coloured text on white'; p.id = 'planted';
          p.style.background = '#ffffff'; p.style.color = 'var(--md-default-fg-color)';
          document.querySelector('article').appendChild(p); }""")
        light, colour = _check(page)
        assert [v for v in light if v["id"] == "color-contrast"] == []
        _to_dark(page)  # the dark check runs the colour rules only, as the page check does
        dark = [v for v in _violations(page, colour) if v["id"] == "color-contrast"]
        assert dark and "#planted" in dark[0]["nodes"]
    finally:
        context.close()
