"""Live preview (``recipes serve --lang ko``): what a change rebuilds, and in a real browser,
an edited Korean page showing up by itself, rebuilt in under 2 s, with nothing written into
docs/ or recipes/."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.browser import chromium, require_chromium
from helpers.models import HOME_MODELS
from helpers.project import project_copy, standalone_copy


@pytest.fixture
def preview(tmp_path, monkeypatch):
    """A Preview of the Korean site over a project copy with its own recipes/, holding only the
    models its home page shows (``HOME_MODELS``): what a preview rebuilds and when is the
    subject, the same for any model."""
    from macros.engine.database import _cached
    from macros.site.preview import Preview

    root = project_copy(tmp_path, HOME_MODELS)
    monkeypatch.setenv("RECIPES_ROOT", str(root / "recipes"))
    yield Preview("ko", root, tmp_path / "work")
    _cached.cache_clear()  # the copy's database, edited by the test


def touch(path: Path, text: str = "\n") -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
    later = time.time() + 2  # past any file-system time granularity
    os.utime(path, (later, later))


def test_nothing_changed_rebuilds_nothing(preview):
    assert preview.changes() == ("", set())


def test_an_edited_korean_page_is_the_only_page_rebuilt(preview):
    touch(preview.root / "docs/ko/guides/translate.md")
    assert preview.changes() == ("pages", {"guides/translate.md"})


def test_an_edited_english_page_rebuilds_the_korean_page_it_is_the_source_of(preview):
    touch(preview.root / "docs/en/index.md")
    assert preview.changes() == ("pages", {"index.md"})


def test_a_new_korean_page_rebuilds_every_page(preview):
    """A translation that appears replaces an English stand-in: the page set changed."""
    (preview.root / "docs/ko/guides/translate.md").rename(preview.root / "docs/ko/draft.md")
    assert preview.changes() == ("pages", set())


def test_an_edit_to_the_database_reloads_it(preview):
    touch(next((preview.root / "recipes").glob("*/text.ko.yaml")), "# a comment\n")
    assert preview.changes() == ("database", set())


def test_an_edit_to_a_config_restages_everything(preview):
    touch(preview.root / "mkdocs.ko.yml", "# a comment\n")
    assert preview.changes() == ("config", set())


def test_a_database_edit_reaches_every_page_at_the_next_rebuild(preview):
    preview.build()
    text = preview.root / "recipes/catalog/text.ko.yaml"
    new = "플레이그라운드 준비 중이에요"
    text.write_text(re.sub(r"(?m)^ui\.loading: .*$", f"ui.loading: {new}",
                           text.read_text(encoding="utf-8")), encoding="utf-8")
    later = time.time() + 2
    os.utime(text, (later, later))
    assert preview.rebuild() == "every page (database changed)"
    for model_id in HOME_MODELS:  # every model of the copy
        page = (preview.site / f"models/{model_id}/index.html").read_text(encoding="utf-8")
        assert f'data-loading="{new}"' in page


# -- in a browser ------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _files(*folders: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for folder in folders for p in sorted(folder.rglob("*"))
            if p.is_file()}


class _Server:
    """``recipes serve`` run from a whole copy of the project (its own macros/ and recipes/),
    so what it imports and watches is the copy's."""

    def __init__(self, root: Path, lang: str):
        self.port = _free_port()
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "macros.cli", "serve", "--lang", lang, "--port",
             str(self.port)], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env={k: v for k, v in os.environ.items() if k != "RECIPES_ROOT"})
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 90) -> re.Match:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines:
                if m := re.search(pattern, line):
                    return m
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "\n".join(self.lines))

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def served_copy(tmp_path):
    """A whole copy (its own macros/ too), holding only the models its home page shows
    (``HOME_MODELS``): the live reload is the subject, the same for any model."""
    require_chromium()
    root = standalone_copy(tmp_path, HOME_MODELS)
    server = _Server(root, "ko")
    try:
        server.wait_for(r"serving ko on ")
        yield root, server
    finally:
        server.stop()


@pytest.mark.browser
def test_an_edited_korean_page_shows_in_the_open_browser_without_a_reload(served_copy):
    root, server = served_copy
    sources = _files(root / "docs", root / "recipes")
    page_file = root / "docs/ko/guides/translate.md"
    sentence = "미리보기에서 바로 보이는 새 문장이에요."
    with chromium() as browser:
        tab = browser.new_page()
        tab.goto(f"http://127.0.0.1:{server.port}/ko/guides/translate/")
        assert sentence not in tab.inner_text("article")
        tab.wait_for_timeout(500)  # the live-reload poll is open
        edited = page_file.read_text(encoding="utf-8") + f"\n{sentence}\n"
        page_file.write_text(edited, encoding="utf-8")
        # the live reload loads the page anew: while the new document is parsed it may have
        # no article yet
        tab.wait_for_function(
            "s => (document.querySelector('article')?.innerText || '').includes(s)",
            arg=sentence, timeout=20000)
    rebuilt = server.wait_for(r"rebuilt guides/translate\.md in ([0-9.]+)s")
    assert float(rebuilt[1]) < 2.0
    sources[str(page_file)] = edited.encode("utf-8")
    assert _files(root / "docs", root / "recipes") == sources  # the server wrote nothing there


def test_a_page_removed_while_previewing_is_gone_at_the_next_rebuild(preview):
    """The copy and llms.txt entry of a page removed from both languages go with it."""
    preview.build()
    for lang in ("en", "ko"):
        (preview.root / f"docs/{lang}/guides/translate.md").unlink()
    assert preview.rebuild() == "every page (pages changed)"
    assert not (preview.site / "guides/translate/index.md").exists()
    assert "guides/translate" not in (preview.site / "llms.txt").read_text(encoding="utf-8")
