"""The reader's path in a browser (issue #25), both languages, desktop (1440 px) and phone
(390 px): what a page loads, the search on demand, what a page shows as it opens (read once per
page and viewport: ``helpers.visits``), and what a click or a tap leaves on the screen. Pictures
after a click are saved under .build/screenshots/ (git ignores it) by ``make screenshots``."""

from __future__ import annotations

import pytest

from helpers.browser import drawn, lease, picture
from helpers.visits import visit
from helpers.models import MODELS, subpages

pytestmark = pytest.mark.browser
LANGS = ["en", "ko"]
DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


def page_of(lang: str, model_id: str) -> str:
    return f"/models/{model_id}/" if lang == "en" else f"/{lang}/models/{model_id}/"


def home_of(lang: str) -> str:
    return "/" if lang == "en" else f"/{lang}/"


def _open(browser, base, path, viewport=DESKTOP, ready=True, blocked=(), idle=False):
    """A tab on ``path`` (``blocked``: URL patterns it never gets, as if still loading), and
    what to ``close`` when done. It returns at the page's load event; ``idle`` waits until the
    network has been quiet for half a second as well, for a test about what the page
    requested (or had not yet). A tab that blocks or counts requests is a new context, so
    nothing comes from an earlier test's cache; the others are lent (``helpers.browser``)."""
    if blocked or idle:
        context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE,
                                      is_mobile=viewport is PHONE)
        for pattern in blocked:
            context.route(pattern, lambda route: route.abort())
        page = context.new_page()
        on = page.on
    else:
        context = lease(browser, base, viewport, touch=viewport is PHONE)
        page, on = context.page, context.on
    requested: list[str] = []
    errors: list[str] = []
    on("request", lambda r: requested.append(r.url[len(base):]))
    on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + path, wait_until="networkidle" if idle else "load")
    if ready:
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=20000)
    return context, page, requested, errors


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_the_search_index_loads_when_the_reader_searches(browser, site, model_id, lang):
    context, page, requested, errors = _open(browser, site, page_of(lang, model_id), idle=True)
    try:
        index = f"{home_of(lang)}search/search_index.json"
        assert not [u for u in requested if u.startswith(index) or "/workers/search." in u]
        page.click(".md-search__input")
        page.keyboard.type("SGLang")
        page.wait_for_selector(".md-search-result__item", timeout=20000)
        assert [u for u in requested if u.startswith(index)]
        assert [u for u in requested if "/workers/search." in u]
        assert page.locator(".md-search-result__item").count() > 0
        assert not errors
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_page_without_a_playground_loads_none_of_it(browser, site, lang):
    context, page, requested, errors = _open(browser, site, home_of(lang), ready=False,
                                             idle=True)
    try:
        page.wait_for_timeout(500)
        assert not [u for u in requested if "/assets/recipes/playground/" in u
                    or u.endswith((".en.json", ".ko.json"))]
        assert not errors
    finally:
        context.close()


_SCROLLERS = """root => {
  const out = [];
  for (const box of root.querySelectorAll('.rp-output, .rp-output-rest')) {
    for (const e of [box, ...box.querySelectorAll('*')]) {
      const s = getComputedStyle(e);
      const x = /(auto|scroll)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
      const y = /(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1;
      if (x || y) out.push(e.tagName + '.' + e.className + ' ' + e.scrollWidth + 'x' + e.scrollHeight
                           + ' in ' + e.clientWidth + 'x' + e.clientHeight);
    }
  }
  return out;
}"""


def _click_second(page, axis: str) -> None:
    """Pick the first enabled option of ``axis`` that is not picked: a click on its button, or
    in a long setting's drop-down list."""
    listed = page.locator(f'.rp-axis[data-axis="{axis}"] select')
    if listed.count():
        listed.select_option(listed.evaluate(
            "s => [...s.options].find(o => !o.disabled && !o.hidden && !o.selected).value"))
    else:
        page.locator(f'.rp-axis[data-axis="{axis}"] .rp-option:not([aria-pressed="true"])'
                     ':not([aria-disabled="true"])').first.click()
    drawn(page)


def _finer(page, tap: bool = False) -> str:
    """Open "More settings" as a reader would; the selector of the cards whose options the
    reader then works through (the Deploy card for a model without cards, MiniMax-H3's)."""
    more = page.locator('[data-testid="more"] > summary')
    if not more.count():
        return ".rp-card--deploy"
    more.tap() if tap else more.click()
    return ".rp-more"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_on_a_desktop_nothing_in_the_output_scrolls_and_the_command_stays_in_view(
        browser, site, model_id, lang):
    context, page, _, errors = _open(browser, site, page_of(lang, model_id))
    try:
        root = page.locator(".recipe-playground")
        _click_second(page, "hw")
        assert root.evaluate(_SCROLLERS) == []
        scope = _finer(page)
        last = page.locator(f"{scope} .rp-option:not([aria-disabled=true]):visible").last
        last.scroll_into_view_if_needed()
        last.click()
        drawn(page)
        copy = page.locator('.rp-output [data-copy="command"]')
        box, view = copy.bounding_box(), page.viewport_size
        assert 0 <= box["y"] and box["y"] + box["height"] <= view["height"], box
        assert root.evaluate(_SCROLLERS) == []
        picture(page, f"{model_id}-{lang}-desktop.png")
        rest = page.locator(".rp-output-rest")  # the sticky top never rides over the rest
        rest.scroll_into_view_if_needed()
        top_box, rest_box = page.locator(".rp-output").bounding_box(), rest.bounding_box()
        assert top_box["y"] + top_box["height"] <= rest_box["y"] + 1, (top_box, rest_box)
        assert not errors
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_on_a_phone_a_tap_keeps_the_tapped_option_on_screen_and_tips_stay_inside(
        browser, site, model_id, lang):
    context, page, _, errors = _open(browser, site, page_of(lang, model_id), viewport=PHONE)
    try:
        scope = _finer(page, tap=True)
        options = page.locator(f"{scope} .rp-option:not([aria-disabled=true]):visible"
                               ":not([aria-pressed=true])")
        assert options.count() > 0
        handles = options.element_handles()  # once: probing greys options as it goes
        picks = [handles[i] for i in (0, len(handles) // 2, len(handles) - 1)]
        for option in picks:  # the elements themselves: a tap changes which are picked
            if not option.is_visible() or option.get_attribute("aria-disabled") == "true":
                continue
            option.scroll_into_view_if_needed()
            before = option.bounding_box()
            option.tap()
            drawn(page)
            after = option.bounding_box()
            assert abs(after["y"] - before["y"]) <= 2, (before, after)
            assert 0 <= after["y"] <= PHONE["height"] - after["height"]
        for listed in page.locator(".rp-card--deploy select.rp-select--options").all():
            listed.scroll_into_view_if_needed()  # a long setting: its list stays where it was
            before = listed.bounding_box()
            listed.select_option(listed.evaluate(
                "s => [...s.options].filter(o => !o.disabled && !o.hidden && !o.selected).pop().value"))
            drawn(page)
            after = listed.bounding_box()
            assert abs(after["y"] - before["y"]) <= 2, (before, after)
        width = page.evaluate("document.documentElement.scrollWidth")
        greyed = page.locator('.rp-option[aria-disabled="true"]')
        for i in range(min(greyed.count(), 12)):
            g = greyed.nth(i)
            if not g.is_visible():
                continue
            g.focus()
            tip = page.locator(f'#{g.get_attribute("aria-describedby")}')
            box = tip.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        assert page.evaluate("document.documentElement.scrollWidth") <= max(width, PHONE["width"])
        picture(page, f"{model_id}-{lang}-phone.png")
        assert not errors
    finally:
        context.close()


@pytest.mark.page_visits
@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("model_id", [None, *MODELS], ids=["home", *MODELS])
def test_korean_never_breaks_inside_a_word_in_nav_toc_links_and_tables(browser, site, model_id,
                                                                       viewport):
    """The Korean home, or every Korean page of a model but its commands page (the cells'
    anchors and tables there are the model page's own kinds), as each opens (on a phone with
    its navigation drawer opened, as a reader would): ``helpers.visits``."""
    paths = ["/ko/"] if model_id is None else [
        f"/ko/models/{model_id}/",
        *(f"/ko/models/{model_id}/{sub}" for sub in subpages(model_id) if sub != "commands/")]
    for path in paths:
        shown = visit(browser, site, path, viewport)
        assert shown.seen["split_words"] == [], path
        assert shown.problems == (), path


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_an_unknown_value_in_the_link_is_named_not_snapped_in_silence(db, browser, site,
                                                                      model_id, lang):
    axis = db.model(model_id).axes[0].id
    context, page, _, errors = _open(browser, site, page_of(lang, model_id) + f"#{axis}=banana")
    try:
        notice = page.locator('[data-testid="hash-notice"]')
        assert notice.is_visible()
        assert f"{axis}=banana" in notice.text_content()
        assert page.locator(f'.rp-axis[data-axis="{axis}"] [aria-pressed="true"]').count() == 1
        _click_second(page, "hw")  # the reader moves on: the notice goes
        assert not notice.is_visible()
        assert not errors
    finally:
        context.close()


def _switch(page, to: str) -> None:
    """Follow the language link to the other page, and wait until that page has loaded: a
    wait for the load state alone may see the page the click leaves, before it navigates."""
    with page.expect_navigation(wait_until="networkidle"):
        page.evaluate("to => document.querySelector(`a[data-recipes-lang='${to}']`).click()", to)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_the_language_switch_keeps_the_cell_anchor(db, browser, site, model_id, lang):
    from macros.site.pages import cell_anchor

    model = db.model(model_id)
    anchor = cell_anchor(model, model.cells[len(model.cells) // 2].match)
    other = "ko" if lang == "en" else "en"
    path = page_of(lang, model_id) + "commands/"
    # the switch keeps the anchor before the Playground's script has run (a reader may switch
    # while a long page still loads): here that script never arrives
    context, page, _, errors = _open(browser, site, path + f"#{anchor}", ready=False,
                                     blocked=["**/assets/recipes/playground.js"], idle=True)
    try:
        _switch(page, other)
        want = page_of(other, model_id) + f"commands/#{anchor}"
        problems = [f"page error: {e}" for e in errors]
        if not page.url.endswith(want):
            problems.append(f"the switch landed on {page.url}, not on …{want}")
        else:
            heading = page.locator(f"#{anchor}").bounding_box()
            if heading is None or not 0 <= heading["y"] <= 200:
                problems.append(f"#{anchor} is not at the top of the screen: {heading}")
        # a plain message: this failure once crashed pytest's reporter (an AST recursion
        # error while it printed the assertion), which ended the whole run
        if problems:
            pytest.fail("; ".join(problems), pytrace=False)
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_language_switch_keeps_the_reading_place(browser, site, lang, viewport):
    model_id = MODELS[0]
    other = "ko" if lang == "en" else "en"
    context, page, _, errors = _open(browser, site, page_of(lang, model_id), viewport=viewport)
    try:
        # a heading two thirds down, of those the page can scroll to 100 px from the top (the
        # last ones of a short page cannot get there)
        name = page.evaluate("""() => {
          const end = document.documentElement.scrollHeight - innerHeight + 100;
          const ids = [...document.querySelectorAll('.md-content h2[id]')]
            .filter(h => h.getBoundingClientRect().top + scrollY <= end).map(h => h.id);
          return ids[Math.floor(ids.length * 2 / 3)];
        }""")
        page.evaluate("id => { const h = document.getElementById(id); "
                      "window.scrollBy(0, h.getBoundingClientRect().top - 100); }", name)
        page.wait_for_timeout(200)
        before = page.locator(f"#{name}").bounding_box()
        assert 0 <= before["y"] <= 200, (name, before)  # the place to keep
        _switch(page, other)
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=20000)
        page.wait_for_timeout(300)
        box = page.locator(f"#{name}").bounding_box()
        assert 0 <= box["y"] <= 200, (name, box)
        assert not errors
    finally:
        context.close()


@pytest.mark.page_visits
@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_no_icon_is_drawn_over_code_or_a_label(browser, site, model_id, lang, viewport):
    """The model's other pages (the commands page's "Your values" summary and every code
    block's copy button, the benchmarks and advanced usage pages) and the model page: no theme
    icon covers the text it belongs to, once the theme has added the code blocks' buttons."""
    for path in [*(page_of(lang, model_id) + sub for sub in subpages(model_id)),
                 page_of(lang, model_id)]:
        shown = visit(browser, site, path, viewport)
        assert shown.seen["overlaps"] == [], path
        assert shown.problems == (), path


@pytest.mark.page_visits
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_the_command_box_shows_80_columns_at_1440_px(browser, site, model_id, lang):
    """A desktop of 1440 px: the command beside the selectors shows 80 columns, so no line of
    the command (comments are wrapped at 80 by the engine) wraps a second time in the box."""
    shown = visit(browser, site, page_of(lang, model_id))
    seen = shown.seen["columns"]
    assert seen is not None, "no command box"
    assert seen["columns"] >= 80 and seen["wrapped"] == [], seen
    assert shown.problems == ()


@pytest.mark.page_visits
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_on_a_phone_the_matrix_shows_every_cells_status(browser, site, db, model_id, lang):
    """The deployment matrix at 390 px: every cell's status badge is inside the screen's width
    (not in a column scrolled off to the right), one per cell."""
    shown = visit(browser, site, page_of(lang, model_id), "phone")
    badges = shown.seen["matrix_badges"]
    assert len(badges) == len(db.model(model_id).cells)
    for i, box in enumerate(badges):
        assert box and 0 <= box["x"] and box["right"] <= PHONE["width"], (i, box)
    assert shown.problems == ()
