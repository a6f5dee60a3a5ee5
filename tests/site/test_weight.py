"""What a model page weighs is the build's doing (macros/site/bundle.py, stage.finish): the
theme's style sheets without the rules nothing on the site can match, code blocks without
their uncoloured blank spans, a small icon of our own. (The Playground's bundle is in
test_engines.py; the weight itself is measured by bench/reader.py, `make bench`.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.browser import require_esbuild
from helpers.models import MODELS

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
    page = built_site / LANGS[lang] / f"models/{model_id}/index.html"
    html = page.read_text(encoding="utf-8")
    assert '<div class="highlight">' in html and '<span class="w">' not in html
    assert re.search(r'<span class="se">\\</span>\n {2}--', html)  # the blanks are still there
    icon = re.search(r'<link rel="icon" href="([^"]+)"', html).group(1)
    assert icon.endswith("assets/recipes/favicon.png")
    assert (page.parent / icon).resolve().stat().st_size < 1024
