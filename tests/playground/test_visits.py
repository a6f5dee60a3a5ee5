"""The shared page visits (``helpers.visits``) and pictures on request
(``helpers.browser.picture``): a page is loaded once per built site, path and viewport, whichever
server of that site asks; a probe's finding and a page's error reach the test that reads them;
pictures are drawn only when asked for."""

from __future__ import annotations

import socket
import struct
import time
import urllib.request

import pytest

from helpers.browser import (PICTURES, _Quiet, _Server, chromium, picture, require_chromium,
                             serve)
from helpers.visits import visit

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    """The process's Chromium, with no built site: these tests serve pages of their own."""
    require_chromium()
    with chromium() as b:
        yield b

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>t</title></head>
<body><article class="md-typeset"><h1>Title</h1>
<div style="width: 900px; overflow: hidden">far too wide for a phone</div>
<script>throw new Error('planted')</script></article></body></html>"""


def test_a_page_is_visited_once_per_site_path_and_viewport(browser, tmp_path):
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    with serve(tmp_path) as first, serve(tmp_path) as second:
        seen = visit(browser, first, "/", "phone")
        assert first != second  # another server of the same folder: the same visit
        assert visit(browser, second, "/", "phone") is seen
        other = visit(browser, second, "/", "desktop")
    assert other is not seen and other.viewport == "desktop"


def test_a_probe_that_throws_fails_only_its_own_answer(browser, tmp_path):
    """A page where the overlap probe cannot read a code block's first line (an empty one with
    the theme's buttons) still gives every other probe's answer."""
    (tmp_path / "index.html").write_text(PAGE.replace(
        "<h1>Title</h1>", '<h1>Title</h1><pre><nav class="md-code__nav"></nav>'
        '<code><span></span></code></pre>'), encoding="utf-8")
    with serve(tmp_path) as base:
        shown = visit(browser, base, "/", "desktop")
    assert "error" in shown.seen["overlaps"], shown.seen["overlaps"]
    assert shown.seen["widest"]["screen"] == 1440 and shown.seen["rendered"]["code"] == 1


def test_a_probes_finding_and_a_page_error_reach_the_reader(browser, tmp_path):
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    with serve(tmp_path) as base:
        shown = visit(browser, base, "/", "phone")
    widest = shown.seen["widest"]
    assert widest["screen"] == 390 and widest["page"] > 390
    assert [w for w in widest["wide"] if w.startswith("DIV")], widest
    assert any("planted" in p for p in shown.problems), shown.problems
    assert shown.seen["rendered"]["headingWidth"] > 0 and not shown.seen["rendered"]["jinja"]
    assert "split_words" not in shown.seen  # an English page: no Korean words to read


class _Target:
    def __init__(self):
        self.calls = []

    def screenshot(self, **options):
        self.calls.append(options)
        with open(options["path"], "wb") as f:
            f.write(b"picture")


def test_pictures_are_drawn_only_when_a_folder_is_named(tmp_path, monkeypatch):
    target = _Target()
    monkeypatch.delenv(PICTURES, raising=False)
    picture(target, "a.png")
    monkeypatch.setenv(PICTURES, "")
    picture(target, "a.png")
    assert target.calls == []
    monkeypatch.setenv(PICTURES, str(tmp_path / "shots"))
    picture(target, "a.jpeg", full_page=True, type="jpeg")
    assert target.calls == [{"path": str(tmp_path / "shots" / "a.jpeg"), "full_page": True,
                             "type": "jpeg"}]
    assert (tmp_path / "shots" / "a.jpeg").read_bytes() == b"picture"


def test_the_site_server_prints_nothing_for_a_connection_the_browser_dropped(tmp_path, capfd):
    """A connection reset before its request (a tab closed mid-fetch) prints no traceback in
    the run's output; the server goes on serving."""
    (tmp_path / "index.html").write_text("<p>here</p>", encoding="utf-8")
    with serve(tmp_path) as base:
        dropped = socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])))
        dropped.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        dropped.close()  # a reset, not an orderly close
        with urllib.request.urlopen(base + "/") as answer:
            assert b"here" in answer.read()
        time.sleep(0.3)  # the dropped connection's thread has read its reset
    assert "Traceback" not in capfd.readouterr().err


def test_the_site_server_prints_any_other_error_as_usual(capsys):
    """Only a dropped connection is kept quiet: another error in a request is printed with its
    traceback, as the standard server prints it."""
    server = _Server(("127.0.0.1", 0), _Quiet)
    try:
        for error, printed in ((ConnectionResetError(104, "reset"), False),
                               (BrokenPipeError(32, "broken"), False),
                               (ValueError("a fault of the site's"), True)):
            try:
                raise error
            except Exception:
                server.handle_error(None, ("127.0.0.1", 1))
            assert ("Traceback" in capsys.readouterr().err) is printed, error
    finally:
        server.server_close()
