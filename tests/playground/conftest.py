"""Fixtures the Playground's browser tests share (test_browser, test_reader_path,
test_accessibility, test_browser_deploy): the run's built site (built once per run, served per
module), and the process's one Chromium. Each test opens contexts of its own and closes them."""

from __future__ import annotations

import pytest

from helpers.browser import chromium, require_chromium, serve


@pytest.fixture(scope="module")
def site(built_site):
    """The run's built site (conftest's ``built_site``: both languages, built once per run;
    the browser only reads it), served on 127.0.0.1:<free port>; its base URL. Served while
    a module's tests run and stopped after them (a start costs a thread): a server thread
    left running would keep later tests' builds from forking their languages' workers
    (tests/site/test_build_jobs.py)."""
    require_chromium()
    with serve(built_site) as base:
        yield base


@pytest.fixture(scope="module")
def browser(site):
    """Debian's Chromium (helpers.browser: one per process, never a downloaded browser)."""
    with chromium() as b:
        yield b
