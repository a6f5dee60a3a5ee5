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


@contextmanager
def chromium():
    """Debian's Chromium through Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()
    finally:
        pw.stop()
