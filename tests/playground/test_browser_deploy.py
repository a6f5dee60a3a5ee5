""""Deploy as" in the browser (playground/deployui.js): for a PD selection and a multi-node one,
each format's Copy puts on the clipboard exactly what ``recipes command --as`` prints (the
command: what ``recipes command`` prints), Download saves the same text under the file's name,
and a placeholder left unfilled is named next to Copy with a link to "Your values"."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest
from helpers.browser import lease

from macros.site import deploy

from helpers.browser import chromium
from helpers.models import MODELS
from helpers.walks import walked

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser


def _picks(db):
    """A PD selection and a multi-node one (not PD), from the first model that has each."""
    pd = multi = None
    for model_id in MODELS:
        for flat, res in walked(db, model_id):
            if pd is None and res.pd and len(deploy.groups(db, db.model(model_id), res)) == 2:
                pd = (model_id, flat)
            if multi is None and res.nodes > 1 and not res.pd:
                multi = (model_id, flat)
    return [p for p in (pd, multi) if p]


def test_each_format_copies_and_downloads_what_the_cli_prints(site, db, cli):
    picks = _picks(db)
    assert len(picks) == 2
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900},
                                      accept_downloads=True)
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
        errors: list[str] = []
        for model_id, flat in picks:
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{site}/models/{model_id}/#{urlencode(flat)}")
            page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
            sets = [a for k, v in flat.items() for a in ("--set", f"{k}={v}")]
            for fmt in ("command", "config", "compose", "k8s"):
                page.click(f'[data-deploy-format="{fmt}"]')
                # the file writers load at the first file format asked for (deployui.js)
                page.wait_for_function("() => !document.querySelector('[data-testid=deploy]')"
                                       ".hasAttribute('aria-busy')")
                if fmt == "command":
                    want = [cli("command", model_id, *sets).out]
                else:
                    got = cli("command", model_id, *sets, "--as", fmt, "--format", "json").json()
                    want = [f["text"] for f in got["files"]]
                blocks = page.locator('[data-testid="deploy-file"]')
                assert blocks.count() == len(want), (model_id, fmt)
                for i, text in enumerate(want):
                    block = blocks.nth(i)
                    block.locator('[data-copy="deploy"]').click()
                    page.wait_for_function(
                        "(i) => document.querySelectorAll('[data-testid=deploy-file]')[i]"
                        ".querySelector('[data-copy=deploy]').classList.contains('rp-copied')",
                        arg=i, timeout=5000)
                    assert page.evaluate("() => navigator.clipboard.readText()") == text, \
                        (model_id, fmt, i)
                    with page.expect_download() as info:
                        block.locator("[data-download]").click()
                    saved = Path(info.value.path()).read_text(encoding="utf-8")
                    assert saved == text
                    assert info.value.suggested_filename == block.get_attribute("data-name")
                    left = [t for v in db.reader_values for t in v.tokens if t in text]
                    note = block.locator('[data-testid="deploy-unfilled"]')
                    if left:
                        assert all(t in note.text_content() for t in left), (fmt, left)
                        href = note.locator("a").get_attribute("href")
                        assert href == "#" + page.get_attribute("details.recipe-values", "id")
                    else:
                        assert note.count() == 0
        context.close()
        assert not errors, errors


def test_deploy_as_follows_the_release_select(site, db, cli):
    """The release chosen in the URL (``sglang=``, the release select) reaches "Deploy as":
    the Compose and Kubernetes files Copy gives are what ``recipes command --as … --sglang``
    prints, and a file written for another release names it."""
    model_id, flat = _picks(db)[0]
    res = next(r for f, r in walked(db, model_id) if f == flat)
    release = next(v for v in db.releases.order if v != res.sglang_default)
    sets = [a for k, v in flat.items() for a in ("--set", f"{k}={v}")]
    with chromium() as browser:
        context = lease(browser, site, {"width": 1280, "height": 900})
        page = context.page
        errors: list[str] = []
        context.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{site}/models/{model_id}/#{urlencode({**flat, 'sglang': release})}")
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        assert page.input_value('[data-testid="sglang"]') == release
        for fmt in ("compose", "k8s"):
            page.click(f'[data-deploy-format="{fmt}"]')
            page.wait_for_function("() => !document.querySelector('[data-testid=deploy]')"
                                   ".hasAttribute('aria-busy')")  # the writers, at first use
            got = cli("command", model_id, *sets, "--as", fmt, "--sglang", release,
                      "--format", "json").json()
            want = [f["text"] for f in got["files"]]
            assert all(f"sglang {release}" in text for text in want)
            blocks = page.locator('[data-testid="deploy-file"]')
            assert blocks.count() == len(want), fmt
            for i, text in enumerate(want):
                blocks.nth(i).locator('[data-copy="deploy"]').click()
                page.wait_for_function(
                    "(i) => document.querySelectorAll('[data-testid=deploy-file]')[i]"
                    ".querySelector('[data-copy=deploy]').classList.contains('rp-copied')",
                    arg=i, timeout=5000)
                assert page.evaluate("() => navigator.clipboard.readText()") == text, (fmt, i)
        context.close()
    assert not errors, errors
