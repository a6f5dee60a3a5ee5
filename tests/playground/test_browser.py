"""The Playground in a real browser: Debian's Chromium driven by Playwright.

The run's site (both languages, built once per run: conftest's ``built_site``) is served on a
loopback port (``site``) and driven by one Chromium (``browser``): tests/playground/conftest.py.
Every test records console errors, page errors and requests to any other host, and fails if
there is one. Expected commands come from the ``recipes`` CLI, so the browser is checked against
the same engine the docs and the parity test use.

Needs Chromium's headless shell (apt-get install chromium-headless-shell fonts-nanum); never
downloads a browser.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from helpers.browser import Watch, lease, picture
from helpers.visits import PROBES, visit
from macros.engine.check import parse
from macros.engine.selections import sample_playground

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
from helpers.models import MODELS, subpages

# The interaction tests below walk through one model's own data (its platforms, roles and
# rules, as the seed describes them); the tests marked "every model" run on each model.
MODEL = "kimi-k3"


def page_of(lang: str, model_id: str = MODEL) -> str:
    return f"/models/{model_id}/" if lang == "en" else f"/{lang}/models/{model_id}/"


class Tab:
    """A reader's tab with its problems recorded (console errors, external requests): pages
    lent from the process's kept tabs (``helpers.browser.lease``, 1280 x 900), given back
    clean when the test ends."""

    def __init__(self, browser, base: str):
        self.browser, self.base = browser, base
        self.watch = Watch(base)
        self.leases = []

    def new_page(self):
        held = lease(self.browser, self.base, {"width": 1280, "height": 900},
                     beside=self.leases[0] if self.leases else None)  # one profile
        self.watch.attach(held)
        self.leases.append(held)
        return held.page

    def close(self) -> None:
        """Give the pages back; fail if any page logged an error or left the local server."""
        for held in self.leases:
            held.close()
        assert not self.watch.problems, ("the page logged errors or left the local server:\n"
                                         + "\n".join(self.watch.problems))

    def open(self, lang: str = "en", hash_: str = "", page=None, model_id: str = MODEL):
        page = page or self.new_page()
        page.goto(self.base + page_of(lang, model_id) + hash_)
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        settled(page)
        return page


@pytest.fixture
def tab(browser, site):
    t = Tab(browser, site)
    yield t
    t.close()


# --- helpers --------------------------------------------------------------------------------

def expected(cli, selection: dict, lang: str = "en", model_id: str = MODEL) -> dict:
    """What ``recipes command`` prints for a selection (JSON form, same engine and text)."""
    args = ["command", model_id, "--lang", lang, "--format", "json"]
    for key, value in selection.items():
        args += ["--set", f"{key}={value}"]
    result = cli(*args)
    assert result.code == 0, result.err
    return result.json()


def printed_command(cli, db, selection: dict, lang: str, model_id: str) -> str:
    """The command ``recipes command`` prints for a selection, without the router a PD server
    adds after it: its text form, which is the JSON form's ``command`` (the JSON form also works
    out every option's greyed state, about ten times the cost, for what these tests do not read)."""
    args = ["command", model_id, "--lang", lang]
    for key, value in selection.items():
        args += ["--set", f"{key}={value}"]
    result = cli(*args)
    assert result.code == 0, result.err
    return result.out.split(f"\n\n# {db.t(lang, 'ui.router')}\n")[0].removesuffix("\n")


def text_of(page, testid: str) -> str:
    return page.locator(f'[data-testid="{testid}"]').text_content()


def wait_text(page, testid: str, want: str, timeout: int = 5000) -> None:
    """Wait until the block shows exactly ``want``; then compare (for a readable diff)."""
    try:
        page.wait_for_function(
            "([id, want]) => { const e = document.querySelector(`[data-testid=\"${id}\"]`);"
            " return e && e.textContent === want; }", arg=[testid, want], timeout=timeout)
    except Exception:
        pass
    assert text_of(page, testid) == want


def unfold(page, selector: str) -> None:
    """Open "More settings" when the element is folded inside it, as a reader would."""
    page.evaluate("""(sel) => { const e = document.querySelector(sel);
        const d = e && e.closest('details');
        if (d && !d.open) d.querySelector('summary').click(); }""", selector)


def settled(page) -> None:
    """Wait until every Playground has written its selection into the address (ui.js writes it
    once the click's frame is painted)."""
    page.wait_for_function("() => [...document.querySelectorAll('.recipe-playground')]"
                           ".every(r => !r.playground || !r.playground.pendingHash)", timeout=5000)


def click(page, axis: str, option: str) -> None:
    """Pick ``option`` as a reader does: a click on its button, or a long setting's drop-down
    list (ui.js LONG_ROW) set to it."""
    selector = f'[data-axis="{axis}"] [data-option="{option}"]'
    unfold(page, selector)
    listed = page.locator(f'[data-axis="{axis}"] select.rp-select--options')
    if listed.count():
        listed.select_option(option)
    else:
        page.click(selector)
    settled(page)


def pressed(page) -> dict[str, str]:
    """The chosen option of every visible selector group."""
    return page.evaluate("""() => {
        const out = {};
        for (const g of document.querySelectorAll('.recipe-playground [data-axis]')) {
            if (g.hidden) continue;
            const b = g.querySelector('[data-option][aria-pressed="true"]');
            const list = g.querySelector('select.rp-select--options');
            if (b) out[g.dataset.axis] = b.dataset.option;
            else if (list) out[g.dataset.axis] = list.value;
        }
        return out;
    }""")


# every axis of the selection (an object) has its option pressed or chosen in its list
_PRESSED_ARE = """sel => Object.entries(sel).every(([axis, option]) => {
    const g = document.querySelector(`.recipe-playground [data-axis="${axis}"]`);
    if (!g || g.hidden) return false;
    const b = g.querySelector('[data-option][aria-pressed="true"]');
    const list = g.querySelector('select.rp-select--options');
    return (b ? b.dataset.option : list && list.value) === option;
})"""


def hash_of(url: str) -> dict[str, str]:
    return dict(p.split("=", 1) for p in urlsplit(url).fragment.split("&") if "=" in p)


# --- tests ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "ko"])
def test_clicks_compose_the_cli_command(tab, cli, db, lang):
    page = tab.open(lang)
    for axis, option in (("hw", "gb200"), ("role", "decode"), ("strategy", "balanced"),
                         ("hicache", "l3")):
        click(page, axis, option)
    want = expected(cli, {"hw": "gb200", "role": "decode", "strategy": "balanced",
                          "hicache": "l3"}, lang)
    wait_text(page, "command", want["command"])
    assert text_of(page, "router") == want["router"]
    assert page.locator('[data-testid="router"]').is_visible()
    badge = page.locator('[data-testid="status"]')
    assert badge.text_content() == want["status_label"]
    assert badge.get_attribute("class") == f"recipe-badge recipe-badge--{want['status']}"
    assert text_of(page, "calc-value") == want["calculations"][0]["text"]
    assert text_of(page, "release") == db.t(lang, "ui.sglang-release",
                                            release=want["sglang"]["release"])
    rules = page.eval_on_selector_all('[data-testid="diagnostics"] [data-rule]',
                                      "els => els.map(e => e.dataset.rule)")
    assert rules == [d["rule"] for d in want["diagnostics"]]
    assert "spec-caps-running-requests" in rules  # the 48-request cap under speculation
    chosen = pressed(page)
    assert {k: chosen[k] for k in ("hw", "role", "strategy", "hicache")} == \
        {"hw": "gb200", "role": "decode", "strategy": "balanced", "hicache": "l3"}
    # Labels come from the page language.
    label = page.locator('[data-axis="role"] .rp-axis__label').text_content()
    dim = next(d for d in db.model(MODEL).info.dimensions if d.id == "role")
    assert label == db.t(lang, dim.label, db.model(MODEL))
    assert page.locator('[data-axis="role"] [data-option="decode"]').text_content() == \
        db.t(lang, "role.decode", db.model(MODEL))


def test_unified_role_has_no_router(tab, cli):
    page = tab.open("en", "#hw=b300&role=unified&strategy=balanced")
    want = expected(cli, {"hw": "b300", "role": "unified", "strategy": "balanced"})
    wait_text(page, "command", want["command"])
    assert want["router"] is None
    assert text_of(page, "router") == ""
    assert not page.locator('[data-testid="router"]').is_visible()


def test_copy_button_puts_the_command_on_the_clipboard(tab, db):
    page = tab.open("ko", "#hw=b200&role=unified&strategy=balanced&spec=none")
    command = text_of(page, "command")
    button = page.locator('.rp-block--command [data-copy="command"]')
    button.click()
    page.wait_for_function("() => document.querySelector('.rp-block--command .rp-copy')"
                           ".classList.contains('rp-copied')", timeout=5000)
    assert button.text_content() == db.t("ko", "ui.copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == command
    assert command.startswith("# ") and "sglang serve" in command


def test_docker_switch_shows_the_docker_line_and_its_copy_button_copies_it(tab, cli, db):
    selection = {"hw": "mi355x", "role": "unified", "strategy": "balanced"}
    page = tab.open("ko", "#" + urlencode(selection))
    want = expected(cli, selection, "ko")
    wait_text(page, "command", want["command"])
    assert not page.locator('[data-testid="docker"]').is_visible()
    page.click('[data-runmode="docker"]')
    wait_text(page, "docker", want["docker"])
    assert page.locator('[data-testid="docker"]').is_visible()
    assert not page.locator('[data-testid="command"]').is_visible()
    button = page.locator('.rp-block--docker [data-copy="docker"]')
    button.click()
    page.wait_for_function("() => document.querySelector('.rp-block--docker .rp-copy')"
                           ".classList.contains('rp-copied')", timeout=5000)
    assert page.evaluate("() => navigator.clipboard.readText()") == want["docker"]
    assert text_of(page, "curl") == want["curl"]
    assert text_of(page, "python-client") == want["python"]


def test_hash_round_trip(tab, cli):
    page = tab.open("en")
    for axis, option in (("hw", "b200"), ("role", "unified"), ("strategy", "balanced"),
                         ("spec", "none"), ("hicache", "l2"), ("kv_dtype", "fp8"),
                         ("hicache_write_policy", "write_back")):
        click(page, axis, option)
    url = page.url
    state = hash_of(url)
    assert {k: state[k] for k in ("hw", "role", "strategy", "spec", "hicache", "kv_dtype",
                                  "hicache_write_policy")} == {
        "hw": "b200", "role": "unified", "strategy": "balanced", "spec": "none",
        "hicache": "l2", "kv_dtype": "fp8", "hicache_write_policy": "write_back"}
    assert state["avg_len"] == "11264"
    # Every visible axis is in the link, so it stays stable when defaults change.
    assert set(state) == set(pressed(page)) | {"avg_len"}
    command = text_of(page, "command")
    want = expected(cli, {k: v for k, v in state.items() if k != "avg_len"})
    assert command == want["command"]

    other = tab.new_page()
    other.goto(url)
    other.wait_for_selector(".recipe-playground[data-mounted=ready]")
    settled(other)
    assert pressed(other) == pressed(page)
    assert text_of(other, "command") == command
    assert hash_of(other.url) == state


def test_a_heading_link_followed_right_after_a_click_keeps_its_anchor(tab):
    """A click's selection reaches the address once its frame is painted (ui.js scheduleHash);
    a heading's link the reader follows before that keeps its own anchor."""
    page = tab.open("en", "#hw=b300&role=unified&strategy=balanced&spec=dspark")
    page.evaluate("""() => {
        document.querySelector('[data-axis="spec"] button[data-option="none"]').click();
        location.hash = '#benchmarks';
    }""")
    settled(page)
    assert urlsplit(page.url).fragment == "benchmarks"
    assert pressed(page)["spec"] == "none"


def test_impossible_hash_snaps_to_a_valid_selection(tab, cli):
    page = tab.open("en", "#hw=a3&role=decode&spec=dflash&tp=16")
    want = expected(cli, {"hw": "a3", "role": "unified", "strategy": "balanced"})
    wait_text(page, "command", want["command"])
    chosen = pressed(page)
    assert (chosen["hw"], chosen["role"], chosen["strategy"]) == ("a3", "unified", "balanced")
    assert chosen["spec"] == "dspark" and chosen["tp"] == "inherit"
    state = hash_of(page.url)
    assert (state["role"], state["strategy"], state["spec"]) == ("unified", "balanced", "dspark")


def test_a_click_that_leaves_no_cell_snaps_lower_selections(tab, cli):
    page = tab.open("en", "#hw=b300&role=prefill&strategy=long-context")
    click(page, "hw", "h100")  # H100 has no prefill cells
    chosen = pressed(page)
    assert (chosen["hw"], chosen["role"], chosen["strategy"]) == ("h100", "unified", "low-latency")
    wait_text(page, "command", expected(cli, {"hw": "h100", "role": "unified",
                                              "strategy": "low-latency"})["command"])


def test_greyed_option_shows_its_reason_and_does_nothing(tab, db):
    page = tab.open("en", "#hw=a3")
    option = page.locator('[data-axis="role"] [data-option="decode"]')
    reason = db.t("en", "gate.npu-unified-only", db.model(MODEL))
    assert option.get_attribute("aria-disabled") == "true"
    assert option.get_attribute("title") == reason
    tip = page.locator(f'#{option.get_attribute("aria-describedby")}')
    assert not tip.is_visible()
    option.focus()
    assert tip.is_visible() and tip.text_content() == reason
    before_url, before_command = page.url, text_of(page, "command")
    option.click(force=True)  # a real mouse click; Playwright would wait for aria-disabled to go
    assert pressed(page)["role"] == "unified"
    assert page.url == before_url and text_of(page, "command") == before_command
    # Hidden options are not shown at all: Modelslim is an A3-only quantization.
    click(page, "hw", "b300")
    assert not page.locator('[data-axis="quant"] [data-option="modelslim"]').is_visible()
    # An axis whose show_when fails is hidden: VLM transport does not apply to decode.
    click(page, "role", "decode")
    assert not page.locator('[data-axis="vlm"]').is_visible()


def test_the_calculated_value_follows_the_average_request_length(tab, cli):
    page = tab.open("en", "#hw=b300&role=unified&strategy=balanced")
    cell = {"hw": "b300", "role": "unified", "strategy": "balanced"}
    before = text_of(page, "calc-value")
    assert before == expected(cli, cell)["calculations"][0]["text"]
    page.fill('[data-testid="avg-len"]', "2048")
    want = expected(cli, {**cell, "avg_len": "2048"})
    calc = want["calculations"][0]
    wait_text(page, "calc-value", calc["text"])
    assert calc["text"] != before
    assert f"{calc['pins']} {calc['text']} \\" in text_of(page, "command")
    assert text_of(page, "command") == want["command"]
    settled(page)
    assert hash_of(page.url)["avg_len"] == "2048"
    # Where the calculator does not apply, its panel says why.
    page.goto(tab.base + page_of("en") + "#hw=a3")
    na = expected(cli, {"hw": "a3", "role": "unified", "strategy": "balanced"})
    wait_text(page, "calc-value", na["calculations"][0]["reason"])


def test_language_switch_keeps_the_page_and_the_selection(tab, db):
    page = tab.open("en")
    click(page, "hw", "gb300")
    click(page, "spec", "none")
    page.wait_for_load_state("networkidle")  # Material's sitemap lookups are done by now
    link = page.locator('a.md-select__link[data-recipes-lang="ko"]')
    assert "#hw=gb300" in link.get_attribute("href")  # the selection rides along
    with page.expect_navigation():
        link.evaluate("a => a.click()")  # the menu only shows on hover; click it directly
    page.wait_for_selector(".recipe-playground[data-mounted=ready]")
    assert urlsplit(page.url).path.endswith("/ko/models/kimi-k3/")
    assert page.locator('[data-axis="strategy"] .rp-axis__label').text_content() == \
        db.t("ko", next(d.label for d in db.model(MODEL).info.dimensions if d.id == "strategy"),
             db.model(MODEL))
    assert page.locator('[data-axis="spec"] [data-option="none"]').text_content() == \
        db.t("ko", "opt.spec.none", db.model(MODEL))
    chosen = pressed(page)
    assert (chosen["hw"], chosen["spec"]) == ("gb300", "none")


@pytest.mark.page_visits
@pytest.mark.parametrize("model_id", MODELS)
def test_pages_stay_on_the_local_server(browser, site, model_id):
    """Every model, both languages: its page as it opens logs no error or warning and asks no
    other host for anything."""
    for lang in ("en", "ko"):
        shown = visit(browser, site, page_of(lang, model_id))
        assert shown.problems == (), lang
        assert shown.local_requests >= 4  # page, script, stylesheet, JSON: the recorder works


@pytest.mark.parametrize("model_id", MODELS)
def test_random_selections_via_the_hash(tab, cli, db, model_id):
    """Every model: a link to any reachable selection shows the command the CLI prints."""
    page = tab.new_page()
    for selection in sample_playground(db, model_id, 6, seed=2024):
        page.goto(tab.base + page_of("en", model_id) + "#" + urlencode(selection))
        page.wait_for_selector(".recipe-playground[data-mounted=ready]")
        wait_text(page, "command", expected(cli, selection, model_id=model_id)["command"])
        try:  # the selectors may show it a moment after the command (a busy machine)
            page.wait_for_function(_PRESSED_ARE, arg=selection, timeout=5000)
        except Exception:
            pass
        chosen = pressed(page)
        assert {k: chosen.get(k) for k in selection} == selection


# Follow link ``b`` just after the Playground began greying the options of link ``a`` (its
# probes run in tasks after the paint: ui.js probeIdle): once the frame is painted and the
# probing is queued, before its first task runs.
_FOLLOW_DURING_PROBING = """async ([a, b]) => {
    const root = document.querySelector('.recipe-playground');
    const go = hash => { history.replaceState(null, '', '#' + hash);
                         window.dispatchEvent(new HashChangeEvent('hashchange')); };
    go(a);
    await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
    go(b);
    return root.getAttribute('data-probed');
}"""


@pytest.mark.parametrize("model_id", MODELS)
def test_a_link_followed_while_the_options_are_greyed_keeps_its_choices(tab, cli, db, model_id):
    """Every model: the greying of the previous selection's options stops once another link is
    followed; it never takes the new selection's choices away (it unpressed DeepSeek-V4's tp 1
    after a link from tp 2, with the right command shown)."""
    page = tab.new_page()
    picks = sample_playground(db, model_id, 6, seed=2024)
    page.goto(tab.base + page_of("en", model_id) + "#" + urlencode(picks[0]))
    page.wait_for_selector(".recipe-playground[data-mounted=ready]")
    for a, b in zip(picks, picks[1:]):
        before = page.evaluate(_FOLLOW_DURING_PROBING, [urlencode(a), urlencode(b)])
        page.wait_for_function(  # b's options greyed: the round after the link is finished
            "before => document.querySelector('.recipe-playground')"
            ".getAttribute('data-probed') !== before", arg=before)
        wait_text(page, "command", expected(cli, b, model_id=model_id)["command"])
        chosen = pressed(page)
        assert {k: chosen.get(k) for k in b} == b


@pytest.mark.page_visits
@pytest.mark.parametrize("model_id", MODELS)
def test_pages_render_finished(tab, browser, site, db, model_id):
    """Every model, its recipe page (showing its last cell), its commands page, its benchmarks
    page and any other page it has (advanced usage). What a reader sees: no raw Jinja, every
    badge and tab drawn with text, no empty code block, Korean text laid out in a real font.
    The pages under the recipe page are read as they open (``helpers.visits``). With
    $RECIPES_SCREENSHOTS set (make screenshots), pictures of the recipe page are saved."""
    model = db.model(model_id)
    for lang in ("en", "ko"):
        page = tab.open(lang, "#" + urlencode(model.cells[-1].match), model_id=model_id)
        seen = page.evaluate(PROBES["rendered"])
        assert not seen["jinja"]
        assert seen["badges"] >= len(model.cells) and seen["emptyBadges"] == 0  # the matrix
        assert seen["visibleBadges"] >= len(model.cells)
        assert seen["tabs"] >= 2 and seen["emptyTabs"] == 0  # pip / Docker
        assert seen["code"] >= 1 and seen["emptyCode"] == 0
        assert seen["headingWidth"] > 0 and seen["fonts"]
        assert page.locator(".recipe-playground").count() == 1
        # JPEG: a full page is tens of thousands of pixels tall, and PNG takes seconds to encode
        picture(page, f"{model_id}.{lang}.jpeg", full_page=True, type="jpeg", quality=80)
        picture(page.locator(".recipe-playground"), f"playground.{model_id}.{lang}.png")
        shown = {sub: visit(browser, site, page_of(lang, model_id) + sub)
                 for sub in subpages(model_id)}
        assert {sub: v.problems for sub, v in shown.items()} == {sub: () for sub in shown}
        seen = shown["commands/"].seen["rendered"]
        assert not seen["jinja"]
        # every cell's heading has its badge, nothing is hidden in a tab
        assert seen["visibleBadges"] >= len(model.cells) and seen["emptyBadges"] == 0
        assert seen["code"] >= len(model.cells) and seen["emptyCode"] == 0
        # the run modes of a cell per vendor, where the page has them: four tabs each
        source = ROOT / "docs" / lang / "models" / model_id / "commands.md"
        runs = source.read_text(encoding="utf-8").count("{{ run_modes(")
        assert seen["tabs"] >= 4 * runs and seen["emptyTabs"] == 0
        assert seen["headingWidth"] > 0 and seen["fonts"]
        if model.benchmarks is not None:  # every result drawn, with its badge
            seen = shown["benchmarks/"].seen["rendered"]
            assert not seen["jinja"]
            assert seen["visibleBadges"] >= len(model.benchmarks.results)
            assert seen["emptyBadges"] == 0 and seen["emptyCode"] == 0
            assert seen["headingWidth"] > 0 and seen["fonts"]
        for sub, v in shown.items():
            if sub in ("commands/", "benchmarks/"):
                continue
            seen = v.seen["rendered"]
            assert not seen["jinja"], sub
            assert seen["emptyBadges"] == 0 and seen["emptyTabs"] == 0, sub
            assert seen["code"] >= 1 and seen["emptyCode"] == 0, sub
            assert seen["headingWidth"] > 0 and seen["fonts"], sub


_CELL_SHOWN = """(id) => {
  const h = document.getElementById(id);
  if (!h) return {found: false};
  const r = h.getBoundingClientRect();
  let n = h.nextElementSibling;
  while (n && !n.querySelector('pre code') && !/^H[1-3]$/.test(n.tagName)) n = n.nextElementSibling;
  const code = n && n.querySelector('pre code');
  const c = code ? code.getBoundingClientRect() : null;
  return {found: true, top: r.top, bottom: r.bottom, height: innerHeight,
          drawn: h.getClientRects().length > 0,
          command: code ? code.textContent : '', codeTop: c ? c.top : null,
          codeVisible: !!code && code.offsetParent !== null};
}"""


def _shown(page, anchor: str) -> dict:
    return page.evaluate(_CELL_SHOWN, anchor)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_every_matrix_link_shows_its_cells_command(tab, cli, db, model_id, lang):
    """Every model, both languages: each row of the matrix links to a heading on the commands
    page that is drawn (not in a hidden tab) and followed by that cell's own command, shown;
    clicking a link lands there with the heading in the viewport.

    The landing is the browser's fragment scroll, the same for every heading: the real click
    checks it here, and a fresh load of a cell's URL below. The other links are read where
    they point, not jumped to one after another (a burst of ``location.hash`` changes is no
    reader's path, and one of fifty such jumps in a busy full run ended short of its heading)."""
    model = db.model(model_id)
    page = tab.open(lang, model_id=model_id)
    links = page.eval_on_selector_all(
        "article table a[href*='#cell-']", "as => as.map(a => a.href)")
    assert len(links) == len(model.cells)
    target = page_of(lang, model_id) + "commands/"
    assert {urlsplit(h).path for h in links} == {target}
    first = page.locator("article table a[href*='#cell-']").first
    first.click()
    page.wait_for_url("**" + target + "#cell-*")
    shown = _shown(page, urlsplit(page.url).fragment)
    assert shown["found"] and 0 <= shown["top"] < shown["height"]
    for href, cell in zip(links, sorted_cells(db, model_id)):
        anchor = urlsplit(href).fragment
        shown = _shown(page, anchor)
        assert shown["found"] and shown["drawn"], anchor
        assert shown["codeVisible"], anchor
        want = printed_command(cli, db, dict(cell.match), lang, model_id)
        assert shown["command"].removesuffix("\n") == want, anchor


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_cell_url_loaded_fresh_shows_that_cells_command(tab, cli, db, lang):
    """Every model: its last cell's URL, opened in a new tab, puts the cell's heading and the
    top of its command on the screen."""
    for model_id in MODELS:
        model = db.model(model_id)
        cell = sorted_cells(db, model_id)[-1]
        anchor = "cell-" + "-".join(model.key(cell.match))
        page = tab.new_page()
        page.goto(tab.base + page_of(lang, model_id) + "commands/#" + anchor)
        page.wait_for_load_state("load")
        shown = _shown(page, anchor)
        assert 0 <= shown["top"] < shown["height"]
        assert shown["codeTop"] is not None and shown["codeTop"] < shown["height"]
        assert shown["command"].removesuffix("\n") == printed_command(
            cli, db, dict(cell.match), lang, model_id)


def sorted_cells(db, model_id: str) -> list:
    """The model's cells in the matrix's order (platforms, then dimension options)."""
    from macros.site.pages import _ordered_cells
    model = db.model(model_id)
    return [c for hw in model.info.hardware for c in _ordered_cells(model, hw)]


@pytest.mark.parametrize(("lang", "query"), [("en", "DCP"), ("ko", "서버")],
                         ids=["en", "ko"])
def test_search_finds_the_model_page(tab, lang, query):
    """Material's search (a web worker over search/search_index.json) finds the model page."""
    page = tab.new_page()
    home = "/" if lang == "en" else "/ko/"
    page.goto(tab.base + home)
    # the index loads on demand (search-on-demand.js): when the reader opens the search
    with page.expect_response(lambda r: r.url.endswith("/search/search_index.json")) as index:
        page.locator("input.md-search__input").click()
    assert index.value.ok
    # Wait for the worker to finish building the index (the result meta line shows Material's
    # "type to search" placeholder), then enter the query. Material runs the query on
    # keyup; typing Hangul key by key does not always produce one, so fill and send keyup.
    page.wait_for_function(
        "() => { const m = document.querySelector('.md-search-result__meta');"
        " const t = JSON.parse(document.getElementById('__config').textContent).translations;"
        " return m && m.textContent.trim() === t['search.result.placeholder']; }", timeout=30000)
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(query)
    box.dispatch_event("keyup")
    assert box.input_value() == query
    # Material draws ten pages of results, the next ten as the reader scrolls to the list's end
    # (the model page need not rank in the first ten: its advanced usage and commands pages
    # say "server" more often); scroll with the wheel, as a reader does: the page must be in
    # the first twenty
    found = ("(path) => [...document.querySelectorAll('.md-search-result__item a')]"
             ".some(a => new URL(a.href).pathname === path)")
    page.wait_for_selector(".md-search-result__item", timeout=20000)
    if not page.evaluate(found, page_of(lang)):
        items = page.locator(".md-search-result__item")
        shown = items.count()
        items.last.scroll_into_view_if_needed()
        items.last.hover()
        page.mouse.wheel(0, 3000)
        page.wait_for_function("(n) => document.querySelectorAll('.md-search-result__item')"
                               ".length > n", arg=shown, timeout=20000)
    assert page.evaluate(found, page_of(lang)), "the model page is not in the first twenty"
    links = page.eval_on_selector_all(".md-search-result__item a", "els => els.map(a => a.href)")
    assert any(urlsplit(h).path == page_of(lang) for h in links)
    assert all(urlsplit(h).netloc == urlsplit(tab.base).netloc for h in links)


@pytest.mark.parametrize("model_id", MODELS)
def test_the_effective_configuration_shows_only_when_it_has_rows(tab, cli, db, model_id):
    """Every model: a selection without effective knobs shows no empty table."""
    cell = dict(db.model(model_id).cells[0].match)
    page = tab.open("en", "#" + urlencode(cell), model_id=model_id)
    rows = expected(cli, cell, model_id=model_id)["effective"]
    assert page.locator(".rp-effective").is_visible() == bool(rows)
    assert page.locator(".rp-effective tbody tr").count() == len(rows)


# --- phones, dark scheme, Korean text ---------------------------------------------------------

@pytest.mark.page_visits
@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_no_model_page_is_wider_than_a_phone(browser, site, model_id, lang):
    """At 390 px nothing pushes the page sideways: wide tables and code scroll in their box.
    The recipe page and the pages under it (commands, benchmarks, advanced usage), in a phone's
    viewport with touch, as the other phone tests open them (until stop 40, a 390 px desktop
    window without touch)."""
    for sub in ["", *subpages(model_id)]:
        shown = visit(browser, site, page_of(lang, model_id) + sub, "phone")
        seen = shown.seen["widest"]
        assert seen["page"] <= seen["screen"] and seen["wide"] == [], (sub, seen)
        assert shown.problems == (), sub


@pytest.mark.page_visits
@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_the_quick_start_shows_selectors_and_command_on_the_first_screen(browser, site, db,
                                                                          model_id, lang):
    """Every model, both languages, 1440×900: the hardware row and the cell's first two
    dimension rows, the status, the GPU count, the Copy button and the top of the command are
    all on the screen as the page opens; the model's facts are above them."""
    model = db.model(model_id)
    shown = visit(browser, site, page_of(lang, model_id))
    seen = shown.seen["first_screen"]
    assert seen is not None, "no command box"
    rows = {axis: seen["rows"].get(axis) for axis in ["hw", *model.dimensions[1:3]]}
    assert all(rows.values()), (rows, seen)
    assert seen["status"] and seen["footprint"] and seen["copy"], seen
    assert 0 <= seen["commandTop"] < seen["height"] - 100, seen
    assert seen["about"] == 1 and seen["aboutTop"] < seen["commandTop"], seen
    assert shown.problems == ()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_gpu_count_is_the_cells_nodes_times_its_gpus_per_node(tab, db, lang):
    """Every model: for its first and last cell the Playground names the GPUs the command
    needs, as the matrix counts them."""
    for model_id in MODELS:
        model = db.model(model_id)
        for cell in (model.cells[0], model.cells[-1]):
            page = tab.open(lang, "#" + urlencode(cell.match), model_id=model_id)
            p = db.platforms[cell.match["hw"]]
            per = cell.gpus_per_node or p.gpus_per_node  # a partial node's own count
            kind = "ui.footprint.npu" if p.vendor == "huawei" else "ui.footprint"
            want = db.t(lang, kind, total=str(cell.nodes * per), nodes=str(cell.nodes),
                        per_node=str(per))
            page.wait_for_function("(w) => document.querySelector('[data-testid=footprint]')"
                                   ".textContent.startsWith(w)", arg=want, timeout=5000)


# Clicks through the Deploy card and the folded cards, as a reader goes (Kimi-K3's own options).
_CLICKS = [("hw", "h200"), ("role", "decode"), ("strategy", "balanced"), ("hw", "b300"),
           ("role", "unified"), ("spec", "none"), ("hicache", "l2"), ("kv_dtype", "fp8"),
           ("hw", "gb200"), ("strategy", "low-latency")]


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("viewport", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_after_every_click_the_commands_top_edge_is_on_screen(browser, site, lang, viewport):
    """Desktop: the output stays in view beside the selectors. Phone: the output follows the
    Deploy card and a tap keeps the tapped option where it is; a tap that leaves the command off
    the screen shows a bar saying the command changed, whose Copy copies it and whose button
    brings the command's top edge back (the bar then goes). Pictures after the clicks are saved
    by make screenshots."""
    width, height = viewport
    context = lease(browser, site, {"width": width, "height": height})
    top_js = "() => document.querySelector('.rp-block--command').getBoundingClientRect().top"
    try:
        page = context.page
        page.goto(site + page_of(lang))
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        header = page.evaluate("() => document.querySelector('.md-header')"
                               ".getBoundingClientRect().bottom")
        jump, jumped = page.locator('[data-testid="jump"]'), 0
        for axis, option in _CLICKS:
            click(page, axis, option)  # the Playground updates within the click's handler
            assert pressed(page)[axis] == option
            top = page.evaluate(top_js)
            if width > 1000:
                assert header <= top < height - 40, (axis, option, top)
                assert not jump.is_visible()
                continue
            if header <= top < height - 40:
                assert not jump.is_visible(), (axis, option, top)
                continue
            assert jump.is_visible(), (axis, option, top)
            jump.locator('[data-testid="jump-copy"]').click()
            page.wait_for_function("() => document.querySelector('[data-testid=jump-copy]')"
                                   ".classList.contains('rp-copied')", timeout=5000)
            assert page.evaluate("navigator.clipboard.readText()") == text_of(page, "command")
            jump.locator('[data-testid="jump-show"]').click()
            page.wait_for_timeout(200)
            assert header <= page.evaluate(top_js) < height - 40, (axis, option)
            assert not jump.is_visible()
            jumped += 1
        assert width > 1000 or jumped, "no tap on the phone left the command off the screen"
        name = "desktop" if width > 1000 else "phone"
        picture(page, f"playground-after-clicks.{name}.{lang}.png")
    finally:
        context.close()


@pytest.mark.parametrize("model_id", MODELS)
def test_finer_settings_are_folded_until_opened_or_linked(tab, db, model_id):
    """Every model with cards: they open under "More settings" on a click; a link that sets
    one of their settings opens them."""
    page = tab.open("en", model_id=model_id)
    more = page.locator('[data-testid="more"]')
    if not any(a.card for a in db.model(model_id).axes):
        assert more.count() == 0
        return
    assert more.evaluate("d => d.open") is False
    card_axis = next(a for a in db.model(model_id).axes if a.card)
    assert not page.locator(f'[data-axis="{card_axis.id}"]').first.is_visible()
    more.locator("summary").click()
    assert more.evaluate("d => d.open") is True
    option = next(o.id for o in card_axis.options)
    page = tab.open("en", f"#{card_axis.id}={option}", model_id=model_id)
    assert page.locator('[data-testid="more"]').evaluate("d => d.open") is True


@pytest.mark.parametrize("lang, name", [("en", "Switch to dark mode"),
                                        ("ko", "어두운 화면으로 바꾸기")])
def test_the_reader_can_switch_to_the_dark_scheme_and_back(tab, lang, name):
    page = tab.open(lang)
    toggle = page.locator(f'label[title="{name}"]')
    assert toggle.count() == 1
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    before = page.evaluate(scheme)
    toggle.click()
    page.wait_for_function(f"() => document.body.getAttribute('data-md-color-scheme') !== '{before}'")
    assert {before, page.evaluate(scheme)} == {"default", "slate"}


@pytest.mark.parametrize("lang, breaks, korean_font", [("en", "normal", False),
                                                      ("ko", "keep-all", True)])
def test_korean_text_breaks_between_words_in_a_korean_font(tab, lang, breaks, korean_font):
    page = tab.open(lang)
    style = page.evaluate("""() => { const s = getComputedStyle(document.querySelector('.md-typeset'));
                             return [s.wordBreak, s.fontFamily]; }""")
    assert style[0] == breaks, style
    assert style[1].startswith('"Apple SD Gothic Neo", "Malgun Gothic"') == korean_font, style


def test_your_values_fill_every_command_and_stay_for_every_page(tab, cli, db):
    """Filled in once on the recipe page: the Playground's command and its copy carry the
    values; a value of the wrong shape is not used; the commands page and the Korean page of
    the same browser use them too; clearing brings the placeholders and highlighting back."""
    page = tab.open("en", "#hw=h200&role=unified&strategy=balanced")
    page.click("details.recipe-values > summary")
    page.fill('input[data-value="node0-ip"]', "10.0.0.1")
    page.fill('input[data-value="rank"]', "1")
    page.fill('input[data-value="nic"]', "eth0")
    command = text_of(page, "command")
    want = expected(cli, {"hw": "h200", "role": "unified", "strategy": "balanced"})["command"]
    assert command == want.replace("<node0-ip>", "10.0.0.1").replace("<rank>", "1") \
        .replace("<your-nic>", "eth0")
    page.locator('.rp-block--command [data-copy="command"]').click()
    page.wait_for_function("() => document.querySelector('.rp-block--command .rp-copy')"
                           ".classList.contains('rp-copied')", timeout=5000)
    copied = page.evaluate("() => navigator.clipboard.readText()")
    [served] = parse(copied, {"server": db.catalog, "router": db.router_catalog})
    assert dict(served.flags)["--node-rank"] == ("1",)
    assert dict(served.flags)["--dist-init-addr"] == ("10.0.0.1:20000",)

    page.fill('input[data-value="rank"]', "1; rm -rf ~")
    assert page.get_attribute('input[data-value="rank"]', "aria-invalid") == "true"
    assert "--node-rank <rank>" in text_of(page, "command")
    page.fill('input[data-value="rank"]', "1")

    anchor = "cell-h200-unified-balanced"
    for lang in ("en", "ko"):
        other = tab.new_page()
        other.goto(tab.base + page_of(lang) + "commands/#" + anchor)
        other.wait_for_function("() => document.querySelector('details.recipe-values')"
                                ".getAttribute('data-mounted') === 'ready'")
        block = other.evaluate(_CELL_SHOWN, anchor)["command"]
        assert "--node-rank 1 " in block and "--dist-init-addr 10.0.0.1:20000" in block
        assert "<rank>" not in block and "<node0-ip>" not in block
    other.click("details.recipe-values > summary")
    other.click(".rp-values__clear")
    block = other.evaluate(_CELL_SHOWN, anchor)["command"]
    assert "--node-rank <rank>" in block
    assert other.evaluate("(id) => !!document.getElementById(id).nextElementSibling"
                          ".querySelector('pre code span')", anchor)  # highlighted again


def _greyed(page) -> dict[str, set[str]]:
    return page.evaluate("""() => {
      const out = {};
      for (const g of document.querySelectorAll('.recipe-playground [data-axis]')) {
        if (g.hidden) continue;
        const off = [...g.querySelectorAll('[data-option][aria-disabled="true"]')]
          .filter(b => !b.parentNode.hidden).map(b => b.dataset.option);
        if (off.length) out[g.dataset.axis] = off.sort();
      }
      return out;
    }""")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_option_that_changes_nothing_is_greyed_as_the_cli_says(tab, cli, db, lang):
    """H200 Unified Balanced with every card open: once the background probes finish, the
    Playground greys exactly the options `recipes command --format json` lists as disabled,
    the cluster sizes without a preset among them, each saying why; clicking one changes
    nothing."""
    selection = {"hw": "h200", "role": "unified", "strategy": "balanced"}
    page = tab.open(lang, "#" + urlencode(selection))
    page.click('[data-testid="more"] > summary')
    page.wait_for_function("() => +document.querySelector('.recipe-playground')"
                           ".getAttribute('data-probed') >= 2", timeout=30000)
    settings = expected(cli, selection, lang)["settings"]
    want = {s["id"]: sorted(o["id"] for o in s["options"] if o["state"] == "disabled")
            for s in settings}
    greyed = {k: v for k, v in _greyed(page).items() if k in want}  # settings, not cell keys
    assert greyed == {k: v for k, v in want.items() if v}
    assert "8" in want["cluster"]
    button = page.locator('[data-axis="cluster"] [data-option="8"]')
    assert button.get_attribute("title") == db.t(lang, "gate.no-effect")
    before = text_of(page, "command")
    button.click(force=True)
    assert text_of(page, "command") == before


@pytest.mark.parametrize("model_id", MODELS)
def test_the_changes_list_names_the_cells_own_settings_apart(tab, cli, db, model_id):
    """Every model, its first cell as it opens: no change against the cell, and a line naming
    the Deploy settings the cell's own command is built with."""
    model = db.model(model_id)
    cell = dict(model.cells[0].match)
    page = tab.open("en", "#" + urlencode(cell), model_id=model_id)
    assert text_of(page, "diff") == db.t("en", "ui.diff.none")
    got = expected(cli, cell, model_id=model_id)
    deploy = [a for a in model.axes if not a.card]
    shown = {s["id"]: s["value"] for s in got["settings"]}
    parts = []
    for axis in deploy:
        if shown.get(axis.id) is None:
            continue
        option = next(o for o in axis.options if o.id == shown[axis.id])
        parts.append(f"{db.t('en', axis.label, model)}: "
                     f"{db.t('en', option.label, model, value=option.id)}")
    line = page.locator('[data-testid="cell-defaults"]')
    if not parts:  # no Deploy setting: no sentence with an empty list (DeepSeek-V4's cells)
        assert text_of(page, "cell-defaults") == "" and not line.is_visible()
        return
    assert text_of(page, "cell-defaults") == db.t("en", "ui.cell-defaults",
                                                  settings=", ".join(parts))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_release_selector_spells_the_command_for_it_and_stays_in_the_link(tab, cli, lang):
    """The reader's release: the command `recipes command --sglang` prints for it, the choice
    in the link (a fresh page restores it), and back to the recipe's own release."""
    page = tab.open(lang)
    state = hash_of(page.url) if page.url.count("#") else {}
    default = page.locator('[data-testid="sglang"]').input_value()
    assert default == ""  # the recipe's own release until the reader picks one
    page.select_option('[data-testid="sglang"]', "0.5.18")
    page.wait_for_function("() => location.hash.includes('sglang=0.5.18')")
    state = hash_of(page.url)
    args = ["command", MODEL, "--lang", lang, "--format", "json", "--sglang", "0.5.18"]
    for key, value in state.items():
        if key not in ("avg_len", "sglang"):
            args += ["--set", f"{key}={value}"]
    want = cli(*args).json()
    assert want["sglang"]["release"] == "0.5.18" and want["sglang"]["chosen"]
    wait_text(page, "command", want["command"])

    other = tab.new_page()
    other.goto(page.url)
    other.wait_for_selector(".recipe-playground[data-mounted=ready]")
    assert other.locator('[data-testid="sglang"]').input_value() == "0.5.18"
    assert text_of(other, "command") == want["command"]

    page.select_option('[data-testid="sglang"]', "")
    page.wait_for_function("() => !location.hash.includes('sglang=')")
