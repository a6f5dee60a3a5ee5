"""What a model page loads (issue #25's weight): the export's later part (macros/site/export.py
split_export, ui.js later) is not fetched to mount the Playground, grey its options and draw
its first command; the first release the reader picks that only the later part holds fetches
it, once, and the command is the one ``recipes command --sglang`` prints for that release.
(A link naming such a release, loaded fresh: test_browser.py's release selector test;
"Deploy as", which fetches it too: test_browser_deploy.py.) A later part that cannot be
fetched is said, and the command stays; a platform picked while a link's release is fetched
stays picked. No sitemap.xml is fetched: the
theme's language re-mapping, which would read every language's, is ours (lang-switch.js)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from macros.site.export import export_model, image_releases, later_name

from helpers.models import MODELS
from test_browser import _PRESSED_ARE, click, hash_of, pressed, wait_text

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("model_id", MODELS)
def test_the_page_mounts_without_the_later_part_and_fetches_it_for_another_release(
        site, browser, db, cli, model_id):
    whole = export_model(db, model_id, "en")
    release = next(v for v in whole["releases"]["order"] if v not in image_releases(whole))
    later = "/assets/recipes/" + later_name(model_id, "en")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("?")[0]))
    page.goto(f"{site}/models/{model_id}/")
    page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
    page.wait_for_selector(".recipe-playground[data-probed]", timeout=15000)  # greyed after paint
    page.wait_for_load_state("networkidle")
    assert f"{site}/assets/recipes/{model_id}.en.json" in asked
    assert f"{site}{later}" not in asked
    assert not [u for u in asked if u.endswith("sitemap.xml")]

    page.select_option('[data-testid="sglang"]', release)
    page.wait_for_function("(v) => location.hash.includes('sglang=' + v)", arg=release)
    args = ["command", model_id, "--format", "json", "--sglang", release]
    for key, value in hash_of(page.url).items():
        if key not in ("avg_len", "sglang"):
            args += ["--set", f"{key}={value}"]
    want = cli(*args).json()
    assert want["sglang"]["release"] == release and want["sglang"]["chosen"]
    wait_text(page, "command", want["command"])
    page.select_option('[data-testid="sglang"]', "")
    page.wait_for_function("() => !location.hash.includes('sglang=')")
    assert asked.count(f"{site}{later}") == 1
    context.close()


def test_a_later_part_that_cannot_be_fetched_is_said_and_the_command_stays(site, browser, db):
    """The later part refused (HTTP 404): picking a release it holds says the Playground could
    not load its data (the page's own words) and keeps the command it showed; no script error."""
    model_id = MODELS[0]
    whole = export_model(db, model_id, "en")
    release = next(v for v in whole["releases"]["order"] if v not in image_releases(whole))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route(f"**/{later_name(model_id, 'en')}", lambda route: route.fulfill(status=404))
    page.goto(f"{site}/models/{model_id}/")
    page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
    shown = page.locator('[data-testid="command"]').text_content()
    page.select_option('[data-testid="sglang"]', release)
    notice = page.locator('[data-testid="hash-notice"]')
    notice.wait_for(state="visible", timeout=5000)
    assert notice.text_content() == db.t("en", "ui.load-failed")
    assert page.locator('[data-testid="command"]').text_content() == shown
    assert page.get_attribute(".recipe-playground", "aria-busy") is None
    context.close()
    assert not errors, errors


def _hold_later(page, model_id: str) -> list:
    """The later part's requests, answered (``continue_``) when the test says so."""
    held: list = []
    page.route(f"**/{later_name(model_id, 'en')}", lambda route: held.append(route))
    return held


def _asked(page, held: list) -> None:
    for _ in range(250):
        if held:
            return
        page.wait_for_timeout(20)
    raise AssertionError("the link to a release of the later part did not fetch it")


def _link(page, selection: dict) -> None:
    page.evaluate("h => { location.hash = h; }", "#" + urlencode(selection))


def _released(page, held: list, hw: str) -> None:
    held[0].continue_()
    page.wait_for_function("() => !document.querySelector('.recipe-playground')"
                           ".hasAttribute('aria-busy')", timeout=10000)
    try:
        page.wait_for_function(_PRESSED_ARE, arg={"hw": hw}, timeout=5000)
    except Exception:
        pass


@pytest.mark.parametrize("model_id", MODELS)
def test_a_platform_picked_while_a_links_release_is_fetched_stays_picked(
        site, browser, db, model_id):
    """A link naming a release only the later part holds waits for that part; a platform the
    reader picks meanwhile is the one shown once the part is in: the link is not drawn again
    over the reader's choice."""
    whole = export_model(db, model_id, "en")
    release = next(v for v in whole["releases"]["order"] if v not in image_releases(whole))
    first = db.model(model_id).cells[0].match
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    held = _hold_later(page, model_id)
    page.goto(f"{site}/models/{model_id}/")
    page.wait_for_selector(".recipe-playground[data-probed]", timeout=15000)
    _link(page, {**first, "sglang": release})
    _asked(page, held)
    other = next(hw for hw in db.model(model_id).info.hardware if hw != first["hw"])
    click(page, "hw", other)
    _released(page, held, other)
    assert pressed(page)["hw"] == other
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("model_id", MODELS)
def test_of_two_links_followed_while_the_release_is_fetched_the_second_is_shown(
        site, browser, db, model_id):
    """Two links naming a release of the later part, the second followed while the first
    waits: once the part is in, the second link's selection is shown and is the address."""
    whole = export_model(db, model_id, "en")
    release = next(v for v in whole["releases"]["order"] if v not in image_releases(whole))
    cells = db.model(model_id).cells
    first = cells[0].match
    second = next(c.match for c in cells if c.match["hw"] != first["hw"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    held = _hold_later(page, model_id)
    page.goto(f"{site}/models/{model_id}/")
    page.wait_for_selector(".recipe-playground[data-probed]", timeout=15000)
    _link(page, {**first, "sglang": release})
    _asked(page, held)
    _link(page, {**second, "sglang": release})
    _released(page, held, second["hw"])
    assert pressed(page)["hw"] == second["hw"]
    page.wait_for_function("hw => location.hash.includes('hw=' + hw)", arg=second["hw"])
    assert hash_of(page.url)["hw"] == second["hw"]
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("model_id", MODELS)
def test_a_link_followed_while_the_opening_links_release_is_fetched_is_the_one_shown(
        site, browser, db, model_id):
    """The page opened from a link naming a release of the later part mounts once that part is
    in; a link followed meanwhile (a matrix link, say) is the selection shown then, and the
    address."""
    whole = export_model(db, model_id, "en")
    release = next(v for v in whole["releases"]["order"] if v not in image_releases(whole))
    cells = db.model(model_id).cells
    first = cells[0].match
    second = next(c.match for c in cells if c.match["hw"] != first["hw"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    held = _hold_later(page, model_id)
    page.goto(f"{site}/models/{model_id}/#" + urlencode({**first, "sglang": release}))
    _asked(page, held)
    _link(page, {**second, "sglang": release})
    _released(page, held, second["hw"])
    page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=10000)
    assert pressed(page)["hw"] == second["hw"]
    page.wait_for_function("hw => location.hash.includes('hw=' + hw)", arg=second["hw"])
    assert hash_of(page.url)["hw"] == second["hw"]
    context.close()
    assert not errors, errors
