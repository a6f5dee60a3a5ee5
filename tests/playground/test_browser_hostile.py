"""Hostile strings in the database stay inert in a real browser (Debian Chromium, Playwright).

The site is built from a poisoned copy of recipes/ (``helpers.hostile.poison``: every text of
the catalog and of every model, every hardware label and a flag value of every model), each text
also carrying a sentinel: markup that would set ``window.__pwned`` if it ever became a live
element. Every model's page is opened in both languages with the Playground mounted. Every
platform is picked, then the selections the poisoned database (read by the engine) says show a
poisoned caveat, diagnostic, hint comment in the command, effective-settings reason, reason of an
option a rule greys and reason of an option greyed for having no effect (``_surfaces``); at each
step no dialog opens, no element is injected, no ``javascript:`` link appears and the sentinel
is never set, and the poisoned strings are on screen as the engine spells them, as literal text.
The static pages are checked the same way with JavaScript off. Same CI and skip rules as
test_browser.py.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from helpers.browser import chromium, require_chromium, serve
from helpers.hostile import EVIL, EVIL_LABEL, SENTINEL
from helpers.models import MODELS, subpages
from macros.engine.effects import explain, probe_options
from macros.engine.resolve import resolve
from macros.engine.results import TextRef
from macros.engine.selection import Selection
from macros.site import render
from test_browser import Tab, click, page_of, pressed, settled, unfold

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hostile(request):
    """The poisoned site served on a loopback port; (the address, the poisoned database as the
    engine loads it). Without Chromium, the skip comes before the run's poisoned build."""
    require_chromium()
    from macros.engine.database import load_database

    recipes, site, _ = request.getfixturevalue("hostile_site")
    db = load_database(recipes)
    with serve(site) as base:
        yield base, db


@pytest.fixture(scope="module")
def browser(hostile):
    with chromium() as b:
        yield b


@pytest.fixture
def tab(browser, hostile):
    t = Tab(browser, hostile[0])
    yield t
    t.close()


# What must never be in the DOM: live scripts or handlers from data, javascript: links.
INERT = """(scope) => {
    const root = document.querySelector(scope);
    const handlers = [...document.querySelectorAll('*')]
        .filter(e => [...e.attributes].some(a => /^on/i.test(a.name)))
        .map(e => e.outerHTML.slice(0, 120));
    const jsLinks = [...document.querySelectorAll('[href], [src], [action], [formaction]')]
        .filter(e => ['href', 'src', 'action', 'formaction'].some(
            n => /^\\s*javascript:/i.test(e.getAttribute(n) || '')))
        .map(e => e.outerHTML.slice(0, 120));
    return {
        found: !!root,
        injected: root ? root.querySelectorAll(
            'script, img, svg, iframe, object, embed, [onclick], [onerror], [onload]').length : -1,
        handlers, jsLinks,
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
    };
}"""


def assert_inert(page, scope: str = ".recipe-playground") -> None:
    state = page.evaluate(INERT, scope)
    assert state == {"found": True, "injected": 0, "handlers": [], "jsLinks": [], "pwned": None}


def _surfaces(db, model_id: str, lang: str) -> dict[str, tuple[dict, object]]:
    """Where the engine shows the model's poisoned texts: for each kind (caveats, diagnostics,
    the command's hint comments, an effective-settings reason, an option a rule greys with its
    reason, an option greyed for having no effect), the first cell whose selection shows one,
    with what the Playground must show there."""
    model = db.model(model_id)
    found: dict[str, tuple[dict, object]] = {}
    for cell in model.cells:
        flat = dict(cell.match)
        sel = Selection.flat(model, flat)
        res = resolve(db, sel, strict=False)
        if "caveats" not in found and res.caveats:
            found["caveats"] = flat, [render.text(db, model, c.text, lang) for c in res.caveats]
        if "diagnostics" not in found and res.diagnostics:
            found["diagnostics"] = flat, [render.diagnostic_text(db, model, d, lang)
                                          for d in res.diagnostics]
        if "hints" not in found and res.hints:
            found["hints"] = flat, [render.text(db, model, h, lang) for h in res.hints]
        ruled = [(a.axis, o) for a in res.axes if a.visible for o in a.options
                 if o.state == "disabled" and o.reason]
        if "ruled" not in found and ruled:
            axis, o = ruled[0]
            found["ruled"] = flat, (axis, o.id, render.text(db, model, TextRef(id=o.reason), lang,
                                                            **o.fields))
        because = [e for e in res.effective if e.because]
        if "effective" not in found and because:
            found["effective"] = flat, (because[0].knob,
                                        render.text(db, model, because[0].because, lang))
        if "greyed" not in found:  # (the probe resolves every neighbour: only until found)
            greyed = [(axis, option, reason)
                      for axis, options in sorted(probe_options(db, sel, res).items())
                      for option, reason in sorted(options.items())]
            if greyed:
                found["greyed"] = flat, [
                    (axis, option, render.text(db, model, TextRef(id=why), lang, **fields))
                    for axis, option, reason in greyed
                    for why, fields in [explain(db, sel, res, axis, option, reason)]]
        if len(found) == 6:
            break
    return found


def _go(page, base: str, lang: str, model_id: str, flat: dict, db) -> None:
    """The selection as a link to it, on the page already open; its command drawn."""
    page.goto(base + page_of(lang, model_id) + "#" + urlencode(flat))
    page.wait_for_selector(".recipe-playground[data-mounted=ready]")
    settled(page)
    model = db.model(model_id)
    want = render.command_text(db, model, resolve(db, Selection.flat(model, flat),
                                                  strict=False), lang)
    page.wait_for_function(
        "(want) => { const e = document.querySelector('[data-testid=\"command\"]');"
        " return e && e.textContent === want; }", arg=want, timeout=10000)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_poisoned_playground_stays_inert(tab, hostile, model_id, lang):
    base, db = hostile
    model = db.model(model_id)
    page = tab.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    tab.leases[-1].on("dialog", on_dialog)  # taken off when the tab gives the page back
    tab.open(lang, page=page, model_id=model_id)
    assert_inert(page)
    playground = page.locator(".recipe-playground")

    # Every platform, picked as a reader does; each label carries markup, shown as text.
    hardware = page.eval_on_selector_all('[data-axis="hw"] [data-option]',
                                         "els => els.map(e => e.dataset.option)")
    assert sorted(hardware) == sorted(model.info.hardware), hardware
    for hw in hardware:
        option = page.locator(f'[data-axis="hw"] [data-option="{hw}"]')
        label = option.locator(".rp-option__label")
        shown = (label if label.count() else option).text_content()
        assert shown == db.platforms[hw].label and shown.endswith(EVIL_LABEL)
        if option.get_attribute("aria-disabled") != "true" and not option.is_disabled():
            click(page, "hw", hw)
            assert pressed(page)["hw"] == hw, f"hw={hw} did not stick"
            assert_inert(page)

    surfaces = _surfaces(db, model_id, lang)
    assert surfaces, f"{model_id}: no cell shows a caveat, a diagnostic, a reason or a grey"
    if "caveats" in surfaces:  # each caveat's text, tags and all, as characters
        flat, texts = surfaces["caveats"]
        _go(page, base, lang, model_id, flat, db)
        shown = page.locator('[data-testid="caveats"]').text_content()
        assert all(text in shown for text in texts) and "<script>" in shown, texts
        assert_inert(page)
    if "diagnostics" in surfaces:
        flat, texts = surfaces["diagnostics"]
        _go(page, base, lang, model_id, flat, db)
        shown = page.locator('[data-testid="diagnostics"]').text_content()
        assert all(text in shown for text in texts) and "<script>" in shown, texts
        assert_inert(page)
    if "hints" in surfaces:  # comments of the command, which _go compared whole
        flat, texts = surfaces["hints"]
        _go(page, base, lang, model_id, flat, db)
        command = page.locator('[data-testid="command"]').text_content()
        # comments wrap at spaces, and a hint may have lines of its own: compared word by word
        comments = " ".join(" ".join(line[1:].split()) for line in command.splitlines()
                            if line.startswith("#"))
        assert all(" ".join(text.split()) in comments for text in texts), texts
        assert "<script>" in comments
        assert_inert(page)
    if "ruled" in surfaces:  # a rule's reason, in the option's title
        flat, (axis, value, text) = surfaces["ruled"]
        _go(page, base, lang, model_id, flat, db)
        option = page.locator(f'[data-axis="{axis}"] [data-option="{value}"]')
        assert option.get_attribute("title") == text and EVIL in text
        assert_inert(page)
    if "effective" in surfaces:
        flat, (knob, text) = surfaces["effective"]
        _go(page, base, lang, model_id, flat, db)
        row = page.locator(f'[data-testid="effective"] tr[data-knob="{knob}"]')
        assert row.count() == 1 and text in row.text_content() and EVIL in text
        assert_inert(page)
    if "greyed" in surfaces:  # in a button's title and tooltip (a list's options have none)
        flat, greyed = surfaces["greyed"]
        _go(page, base, lang, model_id, flat, db)
        buttons = [(axis, value, text) for axis, value, text in greyed
                   if page.locator(f'[data-axis="{axis}"] button[data-option="{value}"]').count()]
        assert buttons, greyed
        axis, value, text = buttons[0]
        selector = f'[data-axis="{axis}"] button[data-option="{value}"]'
        unfold(page, selector)  # a folded setting is probed once it opens
        page.wait_for_selector(selector + '[aria-disabled="true"]', state="attached",
                               timeout=30000)
        option = page.locator(selector)
        option.hover()  # the reason is worked out for the option the reader points at
        page.wait_for_function("([sel, want]) => document.querySelector(sel).title === want",
                               arg=[selector, text], timeout=10000)
        assert EVIL in text
        tip = page.locator(f'#{option.get_attribute("aria-describedby")}')
        assert tip.text_content() == text
        assert_inert(page)

    # The poisoned strings are text: the Playground as a whole reads them back literally.
    text = playground.text_content()
    assert "<script>" in text and SENTINEL in text
    # Let any (wrongly) loaded image error or script run before the last look.
    page.wait_for_timeout(200)
    assert_inert(page)
    assert dialogs == []


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_poisoned_static_page_has_no_live_markup(browser, hostile, model_id, lang):
    """The model's pages as served (its recipe page and its other pages), JavaScript off: the
    poisoned texts are characters, not elements."""
    base, db = hostile
    model = db.model(model_id)
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        article = ""
        for part in (*subpages(model_id), ""):  # the recipe page last: its Playground is checked
            page.goto(base + page_of(lang, model_id) + part)
            injected = page.eval_on_selector_all(
                "article script, article img[onerror], article [onclick], article [onload], "
                "article iframe, article svg[onload]", "els => els.map(e => e.outerHTML)")
            assert injected == []
            assert_inert(page, "article")
            article += page.locator("article").text_content()
        own = [key for key in model.text[lang] if f" {key} {EVIL} {SENTINEL}" in article]
        assert own, "none of the model's own poisoned texts is on its pages"
        assert any(db.platforms[hw].label in article for hw in model.info.hardware)
        # The Playground is only a placeholder until its script runs.
        assert page.locator(".recipe-playground").count() == 1
    finally:
        context.close()


def test_the_walk_reaches_every_kind_of_poisoned_text_in_some_model(db):
    """The kinds ``_surfaces`` looks for are each found in some model's data (a model may lack
    some: a model whose cells show no caveat), so none of the checks above is dead code."""
    found = set()
    for model_id in MODELS:
        found |= set(_surfaces(db, model_id, "en"))
    assert found == {"caveats", "diagnostics", "hints", "ruled", "effective", "greyed"}
