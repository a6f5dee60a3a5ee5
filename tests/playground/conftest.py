"""Fixtures the Playground's browser tests share (test_browser, test_reader_path,
test_accessibility, test_browser_deploy): the run's built site served once per run, and the
process's one Chromium. Each test opens contexts of its own and closes them."""

from __future__ import annotations

import pytest

from helpers.browser import chromium, require_chromium, serve


@pytest.fixture(scope="session")
def site(built_site):
    """The run's built site (conftest's ``built_site``: both languages, built once per run;
    the browser only reads it), served on 127.0.0.1:<free port>; its base URL."""
    require_chromium()
    with serve(built_site) as base:
        yield base


@pytest.fixture(scope="session")
def browser(site):
    """Debian's Chromium (helpers.browser: one per process, never a downloaded browser)."""
    with chromium() as b:
        yield b
