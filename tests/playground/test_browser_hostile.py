"""Hostile strings in the database stay inert in a real browser (Debian Chromium, Playwright).

The site is built from a poisoned copy of recipes/ (``_poison`` from test_hostile, plus a
sentinel: markup that would set ``window.__pwned`` if it ever became a live element) and both
Kimi-K3 pages are opened with the Playground mounted. Clicking through the selections that show
the poisoned texts must open no dialog, inject no element, leave no ``javascript:`` link and
never set the sentinel; the poisoned strings must be on screen as literal text. The static HTML
is checked the same way with JavaScript off. Same CI and skip rules as test_browser.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from helpers.browser import chromium, require_chromium, serve
from helpers.models import subpages
from helpers.project import project_copy, recipes_root
from test_browser import MODEL, Tab, page_of, unfold
from helpers.hostile import EVIL, poison as _poison

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# Would set window.__pwned if parsed as HTML anywhere (an element's handler or a script).
SENTINEL = ('<img src=x onerror=window.__pwned=1>'
            '<svg onload="window.__pwned=2"></svg><script>window.__pwned=3</script>')
# Keys poisoned by _poison that the Playground shows, plus a greyed option's reason (a title
# attribute and a tooltip); each gets the sentinel on top of _poison's text.
KEYS = ("warn.gb200-decode-ll-prefill-pairing", "pin.b200-moe-runner", "hint.nvfp4-image",
        "role.decode", "check.spec-caps-running-requests", "round.b300.admission",
        "gate.npu-unified-only")
B300 = 'B300<script>alert(5)</script><img src=x onerror=window.__pwned=5>'


def _poison_more(recipes: Path) -> None:
    for lang in ("en", "ko"):
        path = recipes / "kimi-k3" / f"text.{lang}.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key in KEYS:
            data[key] = f"{key} {EVIL} {SENTINEL}"
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    hw = recipes / "catalog" / "hardware.yaml"
    text = hw.read_text(encoding="utf-8")
    old = "label: 'B300<script>alert(5)</script>'\n"
    assert old in text, "_poison no longer poisons the B300 label the way this test expects"
    hw.write_text(text.replace(old, f"label: '{B300}'\n"), encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_base(tmp_path_factory):
    """Build both languages from the poisoned database and serve them on a loopback port."""
    require_chromium()
    from macros.site.build import build_site

    tmp = tmp_path_factory.mktemp("browser-hostile")
    recipes = tmp / "recipes"
    shutil.copytree(ROOT / "recipes", recipes)
    _poison(recipes)
    _poison_more(recipes)
    project = project_copy(tmp)
    with recipes_root(recipes):
        site = build_site(out=project / "site", root=project, quiet=True)
    with serve(site) as base:
        yield base


@pytest.fixture(scope="module")
def browser(hostile_base):
    with chromium() as b:
        yield b


@pytest.fixture
def tab(browser, hostile_base):
    t = Tab(browser, hostile_base)
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


def click(page, axis: str, option: str) -> None:
    unfold(page, f'.recipe-playground [data-axis="{axis}"] [data-option="{option}"]')
    page.click(f'.recipe-playground [data-axis="{axis}"] [data-option="{option}"]')
    pressed = page.get_attribute(f'[data-axis="{axis}"] [data-option="{option}"]', "aria-pressed")
    assert pressed == "true", f"{axis}={option} did not stick"


def literal(key: str) -> str:
    """The poisoned text as a reader must see it (tags and all, as characters)."""
    return f"{key} {EVIL} {SENTINEL}"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_poisoned_playground_stays_inert(tab, lang):
    page = tab.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    tab.open(lang, page=page)
    assert_inert(page)
    playground = page.locator(".recipe-playground")

    # Every hardware button; the B300 label carries markup.
    hardware = page.eval_on_selector_all('[data-axis="hw"] [data-option]',
                                         "els => els.map(e => e.dataset.option)")
    assert "b300" in hardware and len(hardware) >= 8
    for hw in hardware:
        click(page, "hw", hw)
        assert_inert(page)
    label = page.locator('[data-axis="hw"] [data-option="b300"] .rp-option__label')
    assert label.text_content() == B300
    # The role label is poisoned too (and shows on every selection).
    assert page.locator('[data-axis="role"] [data-option="decode"] .rp-option__label') \
        .text_content() == literal("role.decode")

    # GB200 · Decode · Low-Latency: the caveat is the poisoned warn text.
    for axis, option in (("hw", "gb200"), ("role", "decode"), ("strategy", "low-latency")):
        click(page, axis, option)
    assert_inert(page)
    caveats = page.locator('[data-testid="caveats"]')
    assert caveats.is_visible()
    assert literal("warn.gb200-decode-ll-prefill-pairing") in caveats.text_content()
    assert "<script>" in caveats.text_content()

    # GB200 · Decode · Balanced: a diagnostic message from the database.
    click(page, "strategy", "balanced")
    diagnostics = page.locator('[data-testid="diagnostics"]').text_content()
    assert literal("check.spec-caps-running-requests") in diagnostics
    assert_inert(page)

    # B200 · Unified · Balanced: the pinned MoE runner's reason in the effective table.
    for axis, option in (("hw", "b200"), ("role", "unified"), ("strategy", "balanced")):
        click(page, axis, option)
    row = page.locator('[data-testid="effective"] tr[data-knob]', has_text="pin.b200-moe-runner")
    assert row.count() == 1
    assert literal("pin.b200-moe-runner") in row.text_content()
    assert_inert(page)

    # NVFP4 adds the poisoned hint as a comment of the command.
    click(page, "quant", "nvfp4")
    command = page.locator('[data-testid="command"]').text_content()
    comments = " ".join(line[2:] for line in command.splitlines() if line.startswith("# "))
    assert literal("hint.nvfp4-image") in comments  # comments wrap at spaces
    assert_inert(page)

    # A greyed option's reason goes into a title attribute and a tooltip.
    click(page, "hw", "a3")
    option = page.locator('[data-axis="role"] [data-option="decode"]')
    assert option.get_attribute("aria-disabled") == "true"
    assert option.get_attribute("title") == literal("gate.npu-unified-only")
    option.focus()
    tip = page.locator(f'#{option.get_attribute("aria-describedby")}')
    assert tip.is_visible() and tip.text_content() == literal("gate.npu-unified-only")
    assert_inert(page)

    # The poisoned strings are text: the Playground as a whole reads them back literally.
    text = playground.text_content()
    assert "<script>" in text and SENTINEL in text
    # Let any (wrongly) loaded image error or script run before the last look.
    page.wait_for_timeout(200)
    assert_inert(page)
    assert dialogs == []


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_poisoned_static_page_has_no_live_markup(browser, hostile_base, lang):
    """The model's pages as served (its recipe page, its commands page and its benchmarks
    page), JavaScript off: the poisoned texts are characters, not elements."""
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        article = ""
        for part in (*subpages(MODEL), ""):  # the recipe page last: its Playground is checked
            page.goto(hostile_base + page_of(lang) + part)
            injected = page.eval_on_selector_all(
                "article script, article img[onerror], article [onclick], article [onload], "
                "article iframe, article svg[onload]", "els => els.map(e => e.outerHTML)")
            assert injected == []
            assert_inert(page, "article")
            article += page.locator("article").text_content()
        for key in ("warn.gb200-decode-ll-prefill-pairing", "pin.b200-moe-runner",
                    "round.b300.admission"):
            assert literal(key) in article, key
        assert f"about.maker {EVIL}" in article  # a label of the model's facts, as characters
        assert B300 in article
        # The Playground is only a placeholder until its script runs.
        assert page.locator(".recipe-playground").count() == 1
    finally:
        context.close()
