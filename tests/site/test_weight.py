"""What a model page weighs is the build's doing (macros/site/bundle.py, stage.finish): the
theme's style sheets without the rules nothing on the site can match, code blocks without
their uncoloured blank spans, a small icon of our own. (The Playground's bundle is in
test_engines.py; the weight itself is measured by bench/reader.py, `make bench`.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.browser import require_esbuild
from helpers.models import MODELS, subpages

LANGS = {"en": "", "ko": "ko"}


def _theme_sheet(name: str) -> Path:
    import material

    found = sorted((Path(material.__file__).parent / "templates/assets/stylesheets")
                   .glob(f"{name}.*.min.css"))
    assert found, name
    return found[0]


def _selectors(css: str) -> set[str]:
    return {s.strip() for block in re.findall(r"([^{}]+)\{", css) for s in block.split(",")}


@pytest.mark.parametrize("lang", LANGS)
def test_the_theme_css_keeps_what_the_site_draws_and_drops_what_it_never_does(built_site, lang):
    """Kept: the page's own classes, and what the theme's script draws at run time (search
    results) or switches to (the dark palette); dropped: features the site does not use
    (a blog's posts, a cookie banner, social links)."""
    require_esbuild()  # the npm tools come together (tests/js/package.json)
    assets = built_site / LANGS[lang] / "assets/stylesheets"
    main = next(assets.glob("main.*.min.css")).read_text(encoding="utf-8")
    palette = next(assets.glob("palette.*.min.css")).read_text(encoding="utf-8")
    theirs = _theme_sheet("main").read_text(encoding="utf-8")
    assert len(main) < 0.8 * len(theirs)
    kept = _selectors(main)
    for selector in (".md-typeset .admonition", ".md-search-result__item", ".md-top",
                     ".md-typeset__scrollwrap"):
        assert any(selector in s for s in kept), selector
    assert "[data-md-color-scheme=slate]" in palette and "=indigo]" in palette
    for gone in (".md-post", ".md-consent", ".md-social"):
        assert gone in theirs and gone not in main, gone


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_code_blocks_carry_no_blank_spans_and_the_icon_is_ours(built_site, lang, model_id):
    pages = [built_site / LANGS[lang] / f"models/{model_id}/{part}index.html"
             for part in ("", *subpages(model_id))]
    html = {page: page.read_text(encoding="utf-8") for page in pages}
    assert all('<span class="w">' not in doc for doc in html.values())
    assert any('<div class="highlight">' in doc and  # the blanks are still there
               re.search(r' \\\n {2}--', doc) for doc in html.values())
    page, html = pages[0], html[pages[0]]
    icon = re.search(r'<link rel="icon" href="([^"]+)"', html).group(1)
    assert icon.endswith("assets/recipes/favicon.png")
    assert (page.parent / icon).resolve().stat().st_size < 1024
