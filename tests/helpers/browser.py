"""Serving a built site on loopback and driving Debian's Chromium, for the browser tests."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Skip outside CI when Chromium is missing; on CI that is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing on CI: install the Debian packages chromium and "
                    "fonts-nanum before the tests run", pytrace=False)
    pytest.skip("Chromium not installed: apt-get install chromium fonts-nanum")


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


@contextmanager
def serve(site: Path):
    """Serve ``site`` on 127.0.0.1:<free port>; yields the base URL."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


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


def stop_chromium() -> None:
    """Close the shared browser (tests/conftest.py calls it when the run ends)."""
    _Shared.stop()
