"""The docs after the macros ran: every Python snippet runs against the stand-in server and
every shell block (hand-written or generated, English and Korean) passes the checker."""

from __future__ import annotations

import pytest

from helpers.sybil_docs import COUNTS, run_document


def _pages(site, lang):
    root = site / "ko" if lang == "ko" else site
    pages = sorted(p for p in root.rglob("index.md") if lang == "ko" or "ko" not in
                   p.relative_to(site).parts[:1])
    return pages


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_rendered_pages_run_and_check_clean(built_site, lang):
    pages = _pages(built_site, lang)
    assert any(p.parent.name == "kimi-k3" for p in pages)
    failures = []
    examples = 0
    for page in pages:
        count, failed = run_document(page)
        examples += count
        failures += failed
    assert not failures, "\n".join(failures)
    assert examples > 50
    assert COUNTS[("rendered", lang, "shell")] >= 55  # 50 cells + routers + page commands
    assert COUNTS[("rendered", lang, "python")] >= 2


def test_rendered_kimi_pages_have_every_cell_command(built_site, db):
    """The commands page has a block per cell (and the recipe page its own examples)."""
    base = built_site / "models" / "kimi-k3"
    commands = (base / "commands" / "index.md").read_text()
    assert commands.count("```bash") >= len(db.model("kimi-k3").cells)
    for text in (commands, (base / "index.md").read_text()):
        assert "{{" not in text and "{%" not in text  # no raw Jinja left
