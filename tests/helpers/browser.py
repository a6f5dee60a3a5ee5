"""Serving a built site on loopback and driving Debian's Chromium, for the browser tests.

The browser is Debian's Chromium headless shell (the package ``chromium-headless-shell``): the
same Blink and V8 as ``chromium`` without the desktop browser around them, the build Playwright
itself runs headless tests in. It draws the same pages; the browser tests took a quarter less
time in it than in ``/usr/bin/chromium`` (the README's "Tests" section gives the measure)."""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

# The binary itself: Debian's /usr/bin/chromium-headless-shell is a shell script that waits for
# it, one process more per run.
CHROMIUM = Path("/usr/lib/chromium/chromium-headless-shell")
PACKAGES = "chromium-headless-shell fonts-nanum"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Skip outside CI when Chromium is missing; on CI that is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing on CI: install the Debian packages {PACKAGES} "
                    "before the tests run", pytrace=False)
    pytest.skip(f"Chromium's headless shell not installed: apt-get install {PACKAGES}")


def require_esbuild() -> None:
    """Skip outside CI when esbuild (npm, tests/js) is missing: the site then ships the
    Playground unbundled (macros/site/bundle.py); on CI that is a failure."""
    from macros.site.bundle import esbuild

    if esbuild() is not None:
        return
    if os.environ.get("CI"):
        pytest.fail("esbuild is missing on CI: npm ci --prefix tests/js installs it", pytrace=False)
    pytest.skip("esbuild not installed: npm ci --prefix tests/js")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest output readable
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A connection the browser dropped mid-request (a tab closed, a fetch given up) is the
        browser's doing and is judged by the test; any other error is printed as usual."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


# The folder each running server serves, by base URL (``served_folder``).
_SERVED: dict[str, Path] = {}


@contextmanager
def serve(site: Path):
    """Serve ``site`` on 127.0.0.1:<free port>; yields the base URL."""
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    _SERVED[base] = Path(site).resolve()
    try:
        yield base
    finally:
        _SERVED.pop(base, None)
        server.shutdown()
        server.server_close()


def served_folder(base: str) -> Path | str:
    """The folder ``serve`` serves at ``base`` (two servers of one site name the same folder);
    ``base`` itself for a server this process did not start."""
    return _SERVED.get(base, base)


# Pictures of pages are for a person to look at; no test reads them, and a full page costs a
# second or more to draw. They are saved only when this variable names a folder (make screenshots).
PICTURES = "RECIPES_SCREENSHOTS"


def picture(target, name: str, **options) -> None:
    """Save a picture of ``target`` (a page or a locator; ``options`` as Playwright's
    ``screenshot`` takes them) as ``name`` in the folder $RECIPES_SCREENSHOTS names; nothing
    when it is unset or empty."""
    folder = os.environ.get(PICTURES)
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(Path(folder) / name), **options)


class _Shared:
    """This process's one Playwright and Chromium: Playwright's sync API refuses a second
    instance while one runs in the same thread, and a launch costs about a second, so every
    test of a run (each xdist worker is its own process) drives the same browser, each in
    contexts of its own (nothing a context holds is seen by another)."""

    playwright = None
    browser = None

    @classmethod
    def get(cls):
        if cls.browser is None or not cls.browser.is_connected():
            from playwright.sync_api import sync_playwright

            cls.stop()
            cls.playwright = sync_playwright().start()
            cls.browser = cls.playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                         args=ARGS)
        return cls.browser

    @classmethod
    def stop(cls) -> None:
        browser, playwright, cls.browser, cls.playwright = cls.browser, cls.playwright, None, None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


@contextmanager
def chromium():
    """Debian's Chromium through Playwright (never a downloaded browser): the process's shared
    one (started on first use, stopped at the end of the run by ``stop_chromium``). What the
    block opened (contexts, and pages opened with ``browser.new_page()``) is closed when it
    ends."""
    browser = _Shared.get()
    before = set(browser.contexts)
    try:
        yield browser
    finally:
        if browser.is_connected():
            for context in browser.contexts:
                if context not in before:
                    context.close()


class Lease:
    """A page of this process's kept tabs, lent to one test (``lease``): the handlers the
    test adds with ``on`` are taken off again and the page goes back, cleaned, at ``close``."""

    def __init__(self, key: tuple, context, page):
        self.key, self.context, self.page = key, context, page
        self._handlers: list[tuple[str, object]] = []

    def on(self, event: str, handler) -> None:
        self.page.on(event, handler)
        self._handlers.append((event, handler))

    def close(self) -> None:
        page, self.page = self.page, None
        if page is None:
            return
        for event, handler in self._handlers:
            page.remove_listener(event, handler)
        self._handlers.clear()
        if _clean(page, self.key[0]):
            _IDLE.setdefault(self.key, []).append((self.context, page))


class Watch:
    """What the pages a test watches report: ``problems`` (console errors and warnings, page
    errors, requests to any host but the local server at ``base``) and ``local_requests``,
    how many requests went to that server (a recorder that counts nothing is broken)."""

    def __init__(self, base: str):
        self.base = base
        self.problems: list[str] = []
        self.local_requests = 0

    def attach(self, held: Lease) -> None:
        """Record what the lent page ``held`` reports from now on (until it is given back)."""
        held.on("console", self._console)
        held.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        held.on("request", self._request)

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _request(self, request) -> None:
        if request.url.startswith(self.base + "/"):
            self.local_requests += 1
        elif not request.url.startswith(("data:", "blob:", "about:")):
            self.problems.append(f"request to another host: {request.url}")


# Pages kept between tests, by (site, viewport, touch): a new tab costs Chromium a renderer
# process, the theme's and the Playground's scripts compiled again and the site fetched again,
# about 1.7 CPU-seconds more than the same page opened in a tab it had before (bench: 2.8
# against 1.0-1.1 CPU-s a model page, on this 2-core machine). The contexts are the module's:
# ``chromium()`` closes them when the module ends, and a closed one is never lent.
_IDLE: dict[tuple, list] = {}
_CLEAR = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }"


def lease(browser, base: str, viewport: dict, touch: bool = False, beside: Lease | None = None
          ) -> Lease:
    """A tab on ``base`` at ``viewport`` (a phone's with touch), blank, with no storage,
    cookies or handlers left by an earlier test (each test that took it returned it through
    ``Lease.close``): what a reader has in a tab of their own. ``beside``: a tab of the same
    browser profile as that one (they share storage, as a reader's tabs do). Clipboard access
    is granted, as the copy buttons need it. A test that routes requests, adds init scripts,
    emulates media or counts what the page fetched from a cold cache opens a context of its
    own instead."""
    key = (base, viewport["width"], viewport["height"], touch)
    idle = _IDLE.setdefault(key, [])
    for i in reversed(range(len(idle))):
        context, page = idle[i]
        if page.is_closed() or context not in browser.contexts:
            del idle[i]
        elif beside is None or context is beside.context:
            del idle[i]
            if page.viewport_size != viewport:  # a test may have resized it
                page.set_viewport_size(dict(viewport))
            return Lease(key, context, page)
    if beside is not None:
        return Lease(key, beside.context, beside.context.new_page())
    context = browser.new_context(viewport=dict(viewport), has_touch=touch, is_mobile=touch)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    return Lease(key, context, context.new_page())


def _clean(page, base: str) -> bool:
    """Leave ``page`` blank, its site's storage and cookies gone; False (and the page closed)
    when that fails, as after a test that broke the page."""
    try:
        if page.is_closed():
            return False
        if page.url.startswith(base + "/"):
            page.evaluate(_CLEAR)
        page.goto("about:blank", timeout=5000)
        session = page.context.new_cdp_session(page)
        try:  # anything the page wrote while it unloaded
            session.send("Storage.clearDataForOrigin", {
                "origin": base, "storageTypes": "cookies,local_storage,indexeddb,cache_storage"})
        finally:
            session.detach()
        return True
    except Exception:  # noqa: BLE001 - a page that cannot be cleaned is not lent again
        try:
            page.close(run_before_unload=False)
        except Exception:  # noqa: BLE001
            pass
        return False


# A frame painted and the tasks queued right after it run (the Playground's afterPaint; as
# it does, 100 ms where no frame is painted, in a hidden tab).
_NEXT_FRAME = """() => new Promise(r => { let done = false; const go = () => { if (!done) {
  done = true; setTimeout(r, 0); } }; requestAnimationFrame(go); setTimeout(go, 100); })"""
# Every Playground on the page is idle: none waits for the export's later part (aria-busy),
# and one that has drawn a selection has finished its background work for it, the greying
# probes of the latest round (data-probed) and the same-command line (data-same).
_QUIET = """() => [...document.querySelectorAll('.recipe-playground')].every(root => {
  const pg = root.playground;
  if (root.hasAttribute('aria-busy')) return false;
  return !pg || !pg.res || (root.getAttribute('data-probed') === String(pg.round)
                            && root.getAttribute('data-same') === String(pg.updated));
})"""


def drawn(page, timeout: int = 5000) -> None:
    """Wait until what the reader's last action set going has reached the screen: the frame
    after it painted, the Playground's background work for the selection now shown finished
    (the options it greys, the line naming options that give the same command, which can move
    what is below it), and that laid out in one more frame. For a test that measures where
    things are after a click or a tap, in place of a fixed sleep (too short on a busy machine,
    idle time on a quiet one)."""
    page.evaluate(_NEXT_FRAME)
    page.wait_for_function(_QUIET, timeout=timeout, polling=50)  # not by frames: none may come
    page.evaluate(_NEXT_FRAME)


def stop_chromium() -> None:
    """Close the shared browser (tests/conftest.py calls it when the run ends)."""
    _Shared.stop()
