"""What a model page loads (issue #25's weight): the export's later part (macros/site/export.py
split_export, ui.js later) is not fetched to mount the Playground, grey its options and draw
its first command; the first release the reader picks that only the later part holds fetches
it, once, and the command is the one ``recipes command --sglang`` prints for that release.
(A link naming such a release, loaded fresh: test_browser.py's release selector test;
"Deploy as", which fetches it too: test_browser_deploy.py.) A later part that cannot be
fetched is said, and the command stays. While a link's release is fetched (the part held by
the test), the newest action is the one shown once it is in: a platform the reader picks, or
another link, followed from the page or while the page opened from a link mounts. A heading's
link or Back meanwhile is where the reader stays: the address is not written over, and the
waiting link is not drawn (unless nothing is drawn yet: the page opened from it). No
sitemap.xml is fetched: the theme's language re-mapping, which would read every language's, is
ours (lang-switch.js)."""

from __future__ import annotations

from contextlib import contextmanager
from urllib.parse import urlencode

import pytest

from macros.site.export import export_model, image_releases, later_name

from helpers.browser import drawn
from helpers.models import MODELS
from test_browser import _PRESSED_ARE, click, hash_of, pressed, wait_text

pytestmark = pytest.mark.browser


def later_release(db, model_id: str) -> str:
    """A release of the model's flag history that only the export's later part holds."""
    whole = export_model(db, model_id, "en")
    return next(v for v in whole["releases"]["order"] if v not in image_releases(whole))


@pytest.mark.parametrize("model_id", MODELS)
def test_the_page_mounts_without_the_later_part_and_fetches_it_for_another_release(
        site, browser, db, cli, model_id):
    release = later_release(db, model_id)
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
    release = later_release(db, model_id)
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


class Held:
    """A model page whose request for the later part waits until ``release`` answers it; the
    first cell's selection and another platform's cell, each with a release of that part."""

    def __init__(self, page, db, model_id: str):
        self.page, self.requests = page, []
        page.route(f"**/{later_name(model_id, 'en')}", lambda route: self.requests.append(route))
        cells, release = db.model(model_id).cells, later_release(db, model_id)
        first = cells[0].match
        second = next((c.match for c in cells if c.match["hw"] != first["hw"]), None)
        if second is None:
            pytest.skip(f"{model_id}: every cell is on one platform, there is no other to pick")
        self.first, self.second = {**first, "sglang": release}, {**second, "sglang": release}

    def asked(self) -> None:
        """Wait for the page to ask for the later part."""
        for _ in range(250):
            if self.requests:
                return
            self.page.wait_for_timeout(20)
        raise AssertionError("the link to a release of the later part did not fetch it")

    def follow(self, selection: dict) -> None:
        self.page.evaluate("h => { location.hash = h; }", "#" + urlencode(selection))

    def release(self, hw: str) -> None:
        """Answer the request; wait until the page is no longer busy and ``hw`` is pressed
        (or 5 s: the test then compares what is pressed)."""
        self.requests[0].continue_()
        self.page.wait_for_function("() => !document.querySelector('.recipe-playground')"
                                    ".hasAttribute('aria-busy')", timeout=10000)
        try:
            self.page.wait_for_function(_PRESSED_ARE, arg={"hw": hw}, timeout=5000)
        except Exception:
            pass

    def shows(self, selection: dict) -> None:
        """The Playground shows ``selection``'s platform, and the address names it."""
        assert pressed(self.page)["hw"] == selection["hw"]
        self.page.wait_for_function("hw => location.hash.includes('hw=' + hw)",
                                    arg=selection["hw"])
        assert hash_of(self.page.url)["hw"] == selection["hw"]


@contextmanager
def held_later(site, browser, db, model_id: str, opened_from_link: bool = False):
    """A new tab on the model page (``opened_from_link``: from ``Held.first``'s link, still
    mounting) with the later part held (``Held``); closed after, no script error thrown in it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        held = Held(page, db, model_id)
        link = "#" + urlencode(held.first) if opened_from_link else ""
        page.goto(f"{site}/models/{model_id}/{link}")
        if not opened_from_link:
            page.wait_for_selector(".recipe-playground[data-probed]", timeout=15000)
        yield held
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("model_id", MODELS)
def test_a_platform_picked_while_a_links_release_is_fetched_stays_picked(
        site, browser, db, model_id):
    """A link naming a release only the later part holds waits for that part; a platform the
    reader picks meanwhile is the one shown once the part is in: the link is not drawn again
    over the reader's choice."""
    with held_later(site, browser, db, model_id) as held:
        held.follow(held.first)
        held.asked()
        click(held.page, "hw", held.second["hw"])
        held.release(held.second["hw"])
        assert pressed(held.page)["hw"] == held.second["hw"]


@pytest.mark.parametrize("model_id", MODELS)
def test_of_two_links_followed_while_the_release_is_fetched_the_second_is_shown(
        site, browser, db, model_id):
    """Two links naming a release of the later part, the second followed while the first
    waits: once the part is in, the second link's selection is shown and is the address."""
    with held_later(site, browser, db, model_id) as held:
        held.follow(held.first)
        held.asked()
        held.follow(held.second)
        held.release(held.second["hw"])
        held.shows(held.second)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_link_followed_while_the_opening_links_release_is_fetched_is_the_one_shown(
        site, browser, db, model_id):
    """The page opened from a link naming a release of the later part mounts once that part is
    in; a link followed meanwhile (a matrix link, say) is the selection shown then, and the
    address."""
    with held_later(site, browser, db, model_id, opened_from_link=True) as held:
        held.asked()
        held.follow(held.second)
        held.release(held.second["hw"])
        held.page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=10000)
        held.shows(held.second)



def _away(page, away: str, opened: str) -> str:
    """Go elsewhere on the page as a reader does: a heading's link, or Back; the address then."""
    if away == "heading":
        anchor = page.evaluate("() => document.querySelector('article h2[id]').id")
        page.evaluate("h => { location.hash = h; }", "#" + anchor)
        where = opened.split("#")[0] + "#" + anchor
    else:
        page.go_back()
        where = opened
    page.wait_for_function("u => location.href === u", arg=where)
    return where


@pytest.mark.parametrize("away", ["heading", "back"])
@pytest.mark.parametrize("model_id", MODELS)
def test_a_heading_link_or_back_while_a_links_release_is_fetched_is_where_the_reader_stays(
        site, browser, db, model_id, away):
    """A link naming a release of the later part waits for it; the reader then follows a
    heading's link on the page, or goes Back to the page as it opened. Once the part is in,
    the waiting link is not drawn (the platform shown before stays pressed), its selection is
    not written over the address the reader went to, and the reader's next choice starts from
    what is shown, not from the link (no release of the link's in the address it writes)."""
    with held_later(site, browser, db, model_id) as held:
        page = held.page
        shown = pressed(page)["hw"]
        if shown == held.second["hw"]:
            held.second, held.first = held.first, held.second
        held.follow(held.second)
        held.asked()
        where = _away(page, away, page.url.split("#")[0])
        held.requests[0].continue_()
        drawn(page)
        assert page.url == where
        assert pressed(page)["hw"] == shown
        assert page.input_value('[data-testid="sglang"]') == ""
        click(page, "hw", held.second["hw"])
        page.wait_for_function("hw => location.hash.includes('hw=' + hw)", arg=held.second["hw"])
        assert "sglang" not in hash_of(page.url)


@pytest.mark.parametrize("model_id", MODELS)
def test_a_heading_link_while_the_opening_links_release_is_fetched_keeps_the_address(
        site, browser, db, model_id):
    """The page opened from a link naming a release of the later part; before that part is in,
    the reader follows a heading's link. The Playground then mounts showing the link's
    selection (it shows nothing before), and the address stays the heading's."""
    with held_later(site, browser, db, model_id, opened_from_link=True) as held:
        page = held.page
        held.asked()
        where = _away(page, "heading", page.url)
        held.requests[0].continue_()
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=10000)
        drawn(page)
        assert page.url == where
        assert pressed(page)["hw"] == held.first["hw"]
        assert page.input_value('[data-testid="sglang"]') == held.first["sglang"]


@pytest.mark.parametrize("model_id", MODELS)
def test_a_heading_link_while_a_chosen_release_is_fetched_keeps_the_address(
        site, browser, db, model_id):
    """The reader picks a release only the later part holds, then follows a heading's link
    before the part is in: the command for that release is drawn once it is (the choice was
    the reader's), and the address stays the heading's."""
    with held_later(site, browser, db, model_id) as held:
        page = held.page
        release = held.first["sglang"]
        page.select_option('[data-testid="sglang"]', release)
        held.asked()
        where = _away(page, "heading", page.url.split("#")[0])
        held.requests[0].continue_()
        drawn(page)
        assert page.url == where
        assert page.input_value('[data-testid="sglang"]') == release
