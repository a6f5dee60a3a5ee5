"""The reader's path in a browser (issue #25), both languages, desktop (1440 px) and phone
(390 px): what a page loads, the search on demand, and the screenshots after a click (saved
under .build/screenshots/, which git ignores)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers.browser import chromium, require_chromium, serve
from helpers.models import MODELS

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".build" / "screenshots"
LANGS = ["en", "ko"]
DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}


def page_of(lang: str, model_id: str) -> str:
    return f"/models/{model_id}/" if lang == "en" else f"/{lang}/models/{model_id}/"


def home_of(lang: str) -> str:
    return "/" if lang == "en" else f"/{lang}/"


@pytest.fixture(scope="module")
def site():
    require_chromium()
    from macros.site.build import build_site

    scratch = ROOT / ".build" / f"reader-test-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        with serve(build_site(out=scratch / "site", quiet=True)) as base:
            yield base
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(site):
    with chromium() as b:
        yield b


def _open(browser, base, path, viewport=DESKTOP, ready=True):
    context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE,
                                  is_mobile=viewport is PHONE)
    page = context.new_page()
    requested: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requested.append(r.url[len(base):]))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + path, wait_until="networkidle")
    if ready:
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=20000)
    return context, page, requested, errors


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_the_search_index_loads_when_the_reader_searches(browser, site, model_id, lang):
    context, page, requested, errors = _open(browser, site, page_of(lang, model_id))
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
    context, page, requested, errors = _open(browser, site, home_of(lang), ready=False)
    try:
        page.wait_for_timeout(500)
        assert not [u for u in requested if "/assets/recipes/playground/" in u
                    or u.endswith((".en.json", ".ko.json"))]
        assert not errors
    finally:
        context.close()
