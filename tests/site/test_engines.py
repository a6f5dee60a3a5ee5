"""Two engines, one site: MkDocs + Material (the default) and Zensical build the same staged
input (macros/site/stage.py) into sites a reader cannot tell apart by their content.

One project copy, with one Korean page missing (an English stand-in) and one outdated, is built
by both engines; Zensical's build runs without a network where the machine can cut it off
(``unshare -n``). Every page of both languages is compared by what its article shows: headings
(text and anchor), code blocks, badges, notices, Playground mounts and the whole text. Korean
search runs through each engine's own search in Chromium.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from helpers.browser import chromium, require_chromium, require_esbuild, serve
from helpers.models import MODELS, subpages
from helpers.project import small_project
from helpers.rendered import (article, assert_404_keeps_its_language, code_blocks,
                              require_zensical)

ROOT = Path(__file__).resolve().parents[2]
LANGS = {"en": "", "ko": "ko"}

# What differs because each theme renders it its own way, not because the input differs:
# (page, part) -> why. Anything else that differs fails the parity test.
THEME_DIFFERENCES = {
    ("index.html", "title"): "Material leaves the site's home page name out of <title> "
                             "('Executable Recipes'); Zensical keeps it ('Home - …')",
    ("ko/index.html", "title"): "the same, in Korean ('홈 - …')",
}


def _offline_prefix() -> list[str]:
    """``unshare -n`` where this machine lets the tests drop the network, else nothing."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"],
                                                  capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


def build_zensical(root: Path, out: Path, offline: list[str]) -> subprocess.CompletedProcess:
    code = ("import sys; from pathlib import Path; from macros.site.build import build_site; "
            "build_site(out=Path(sys.argv[1]), root=Path(sys.argv[2]), quiet=True, "
            "engine='zensical')")
    return subprocess.run([*offline, sys.executable, "-c", code, str(out), str(root)],
                          cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def sites(tmp_path_factory, outdated_site):
    require_zensical()

    tmp = tmp_path_factory.mktemp("engines")
    # translate.md gone in Korean, a sentence added to the English home (the Korean one is
    # outdated); built once per run with MkDocs (conftest), read here
    root, mkdocs = outdated_site
    offline = _offline_prefix()
    done = build_zensical(root, tmp / "zensical", offline)
    assert done.returncode == 0, done.stderr
    return {"mkdocs": mkdocs, "zensical": tmp / "zensical", "root": root,
            "offline": bool(offline)}


def pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if "assets" not in p.relative_to(site).parts)


def reader_view(path: Path) -> dict:
    html = path.read_text(encoding="utf-8")
    parts = article(html)
    parts["title"] = re.findall(r"<title>(.*?)</title>", html)
    parts["lang"] = re.findall(r"<html lang=\"([^\"]+)\"", html)
    return parts


def test_both_engines_publish_the_same_pages(sites):
    assert pages(sites["zensical"]) == pages(sites["mkdocs"])
    assert len(pages(sites["mkdocs"])) >= 2 * (len(MODELS) + 3)


def test_every_page_reads_the_same_on_both_engines_in_both_languages(sites):
    """Headings and their anchors, code blocks (every command), badges, notices, Playground
    mounts and the article's whole text, page by page; only THEME_DIFFERENCES may differ."""
    differences = {}
    for page in pages(sites["mkdocs"]):
        ours, theirs = (reader_view(sites[e] / page) for e in ("mkdocs", "zensical"))
        for part in ours:
            if ours[part] != theirs[part]:
                differences[(page, part)] = (ours[part], theirs[part])
    assert set(differences) == set(THEME_DIFFERENCES), {k: v for k, v in differences.items()
                                                        if k not in THEME_DIFFERENCES}


def test_both_engines_colour_every_shell_block_of_a_model_alike(sites):
    """The shell blocks' colouring (macros/site/lexer.py, mapped in mkdocs.yml) reaches
    Zensical too: each bash block of every model page, both languages, is the same HTML."""
    shell = 0
    for model_id in MODELS:
        for lang, part in ((lang, part) for lang in LANGS for part in ("", *subpages(model_id))):
            folder = Path(LANGS[lang], "models", model_id, part)
            ours, theirs = (code_blocks(sites[e] / folder) for e in ("mkdocs", "zensical"))
            assert [b[:2] for b in ours] == [b[:2] for b in theirs], folder
            pairs = [(a[2], b[2]) for a, b in zip(ours, theirs, strict=True) if a[0] == "bash"]
            assert [a for a, b in pairs if a != b] == [], folder
            shell += len(pairs)
    assert shell


def test_the_parity_check_sees_a_changed_command(sites, tmp_path):
    """The comparison is not blind: one changed flag in one code block is a difference."""
    page = f"models/{MODELS[0]}/index.html"
    html = (sites["zensical"] / page).read_text(encoding="utf-8")
    changed = tmp_path / "index.html"
    changed.write_text(html.replace("--tp-size", "--tp-sizes", 1)
                       if "--tp-size" in html else html.replace("sglang serve", "sglang run", 1),
                       encoding="utf-8")
    assert reader_view(changed)["code"] != reader_view(sites["mkdocs"] / page)["code"]


def test_the_zensical_site_has_the_notices_and_the_english_stand_in(sites):
    from macros.engine.database import cached_database

    db = cached_database()
    site = sites["zensical"]
    stand_in = article((site / "ko/guides/translate/index.html").read_text(encoding="utf-8"))
    assert stand_in["notices"][0]["text"] == db.t("ko", "ui.not-translated")
    assert stand_in["headings"][0]["text"] == "Translate a page"  # the English page
    home_html = (site / "ko/index.html").read_text(encoding="utf-8")
    home = article(home_html)
    # the outdated notice, then the English paragraphs that changed since the stamp
    assert home["notices"][0]["text"].startswith(f'{db.t("ko", "ui.outdated")} '
                                                 f'{db.t("ko", "ui.english-source")}')
    assert re.search(r'<a href="\.\./" hreflang="en">', home_html)  # to the English page


@pytest.mark.parametrize("lang", LANGS)
def test_the_zensical_site_has_llms_txt_markdown_copies_and_exports(sites, lang):
    folder = sites["zensical"] / LANGS[lang]
    llms = (folder / "llms.txt").read_text(encoding="utf-8")
    for model_id in MODELS:
        parts = ("", *subpages(model_id))
        for part in parts:
            assert f"(models/{model_id}/{part}index.md)" in llms, (model_id, part)
        md = "\n".join((folder / f"models/{model_id}/{part}index.md").read_text(encoding="utf-8")
                       for part in parts)
        assert "sglang serve" in md and "{{" not in md
        export = json.loads((folder / f"assets/recipes/{model_id}.{lang}.json").read_bytes())
        assert export["lang"] == lang and export["model"]["id"] == model_id


@pytest.mark.parametrize("lang", LANGS)
def test_the_zensical_site_mounts_the_playground_on_every_model_page(sites, lang):
    folder = sites["zensical"] / LANGS[lang]
    assert (folder / "assets/recipes/playground.js").is_file()
    for model_id in MODELS:
        doc = article((folder / f"models/{model_id}/index.html").read_text(encoding="utf-8"))
        assert [(m["data-model"], m["data-lang"]) for m in doc["playgrounds"]] == \
            [(model_id, lang)]


@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
@pytest.mark.parametrize("lang", LANGS)
def test_both_engines_ship_the_playground_bundled_and_load_it_as_one(sites, engine, lang):
    """esbuild's bundle in each language's site (macros/site/bundle.py): the entry and its chunks,
    every chunk an import names is there, no source module ships beside them, the code is
    minified (no comment survives); the model pages load the entry with type="module" (as a
    classic script it would stop at its first import)."""
    require_esbuild()
    folder, source = sites[engine] / LANGS[lang], ROOT / "overrides/assets/recipes"
    assets = folder / "assets/recipes"
    shipped = sorted(p.relative_to(assets).as_posix() for p in (assets / "playground").iterdir())
    sources = {f"playground/{p.name}" for p in (source / "playground").glob("*.js")}
    assert shipped and not sources & set(shipped), shipped
    reached, todo = set(), ["playground.js"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        code = (assets / name).read_text(encoding="utf-8")
        assert "/*" not in code and "\n//" not in code, f"{name} is not minified"
        for rel in re.findall(r"""\bimport\s*(?:\(|[^'"();]*?from\s*)?["'](\.[^"']+)["']""", code):
            target = (Path(name).parent / rel).as_posix().removeprefix("./")
            target = os.path.normpath(target)
            assert (assets / target).is_file(), f"{name} imports {rel}, which is not shipped"
            todo.append(target)
    assert set(shipped) <= {n for n in reached if n.startswith("playground/")}, shipped
    for model_id in MODELS:
        html = (folder / f"models/{model_id}/index.html").read_text(encoding="utf-8")
        tags = re.findall(r"<script\b[^>]*assets/recipes/playground\.js[^>]*>", html)
        assert len(tags) == 1 and 'type="module"' in tags[0], tags


@pytest.mark.parametrize("lang", LANGS)
def test_the_zensical_404_page_keeps_its_readers_in_their_language(sites, lang):
    assert_404_keeps_its_language(sites["zensical"] / LANGS[lang], lang)


def test_the_zensical_build_needs_no_network(sites):
    if not sites["offline"]:
        pytest.skip("this machine cannot drop the network for a child process (unshare -n)")
    assert (sites["zensical"] / "ko" / "index.html").is_file()  # built inside unshare -n


def test_a_zensical_build_replaces_a_previous_site_whole(sites, tmp_path):
    from macros.site.build import MARKER, mark

    out = tmp_path / "site"
    shutil.copytree(sites["mkdocs"], out)
    mark(out, out)  # as if MkDocs had built it here: a copied marker names another folder
    done = build_zensical(sites["root"], out, [])
    assert done.returncode == 0, done.stderr
    assert (out / MARKER).is_file() and (out / "search.json").is_file()
    assert not (out / "search").exists()  # MkDocs' search folder went with the old site


def test_a_broken_link_fails_the_zensical_build_and_leaves_the_previous_site(sites, tmp_path):
    from macros.site.build import BuildFailed, build_site, mark

    out = tmp_path / "site"
    shutil.copytree(sites["zensical"], out)
    mark(out, out)  # as if Zensical had built it here: a copied marker names another folder
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    # the link is the subject, not a model: a copy of the home page's models fails alike
    with small_project(tmp_path) as root:
        for lang in ("en", "ko"):  # the translation keeps the contract: only the link is wrong
            page = root / f"docs/{lang}/index.md"
            page.write_text(page.read_text(encoding="utf-8") +
                            "\n[gone](models/no-such-page.md)\n", encoding="utf-8")
        with pytest.raises(BuildFailed) as exc:
            build_site(out=out, root=root, quiet=True, engine="zensical")
    assert re.fullmatch(r"mkdocs\.yml: index\.md:\d+:\d+: page does not exist", str(exc.value))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert not list((tmp_path / ".build").glob("site-*"))


# -- Korean search, through each engine's own search in Chromium --------------------------------

# Zensical's search dialog says how its search stands in a status line: a progressive
# "Loading search…" while its worker builds the index (anew each time the dialog opens), then
# the count of results or that there are none.
_ZENSICAL_SETTLED = re.compile(r"^(?!.*…\s*$).+", re.S)


def _paths(page, results: str) -> list[str]:
    hrefs = page.eval_on_selector_all(results, "els => els.map(e => e.href)")
    return list(dict.fromkeys(re.sub(r"^https?://[^/]+|[?#].*$", "", h) for h in hrefs))


def _search(page, engine: str, query: str, wanted: set[str] | None = None) -> list[str]:
    """The result links' paths for ``query``, every result drawn: typed into the engine's own
    search box once its index is built, read once the engine says how many it found. With
    ``wanted``, the drawing stops once one of those paths is among the results (the paths
    drawn so far)."""
    if engine == "mkdocs":
        box = page.locator("input.md-search__input")
        box.click()
        box.fill("")  # the box keeps the last query; empty, it shows the placeholder
        box.dispatch_event("keyup")
        # the index loads when the search opens (search-on-demand.js); the meta line shows
        # Material's "type to search" placeholder once the worker has built it
        meta = "document.querySelector('.md-search-result__meta')"
        page.wait_for_function(
            f"() => {{ const m = {meta}; const t = JSON.parse(document.getElementById("
            "'__config').textContent).translations;"
            " return m && m.textContent.trim() === t['search.result.placeholder']; }",
            timeout=60000)
        box.fill(query)
        box.dispatch_event("keyup")  # Material runs the query on keyup
        page.wait_for_function(
            f"() => {{ const m = {meta}; const t = JSON.parse(document.getElementById("
            "'__config').textContent).translations;"
            " return m && m.textContent.trim() !== t['search.result.placeholder']; }",
            timeout=60000)
        status = page.locator(".md-search-result__meta")
        items = page.locator(".md-search-result__item")
        results = ".md-search-result__item a"
    else:
        page.locator(".md-search__button").first.click()
        box = page.locator("dialog input[role=combobox]")
        box.fill(query)
        box.press("End")
        # its dialog lives in a shadow root, which a locator enters
        status = page.locator("dialog [role=status]")
        expect(status).to_have_text(_ZENSICAL_SETTLED, timeout=60000)
        # read the count once it has held for a second: a run on a busy machine once read
        # it too early and listed six of the seven pages with the Korean term
        held, last = 0, status.text_content()
        for _tick in range(150):
            page.wait_for_timeout(200)
            now = status.text_content()
            held, last = (held + 1, last) if now == last else (0, now)
            if held == 5:
                break
        items = page.locator("dialog ol[role=listbox] > li")
        results = "dialog ol[role=listbox] a[href]"
    # the first ten results, more each time the list's end comes into view as the reader
    # scrolls (Material draws four at a time, Zensical ten): scroll until all are drawn
    total = int((re.findall(r"\d+", status.text_content()) or ["0"])[0])
    stalls = 0
    while items.count() < total and stalls < 3:
        if wanted and wanted & set(_paths(page, results)):
            break
        shown = items.count()
        # the wheel over the list, as a reader scrolls: a little up, then down past the end
        # (already at the end, a wheel down alone scrolls nothing, so nothing more is drawn)
        items.last.scroll_into_view_if_needed()
        items.last.hover()
        page.mouse.wheel(0, -300)
        page.wait_for_timeout(200)
        page.mouse.wheel(0, 3000)
        for _tick in range(50):  # until more are drawn (10 s at most)
            if items.count() > shown:
                stalls = 0
                break
            page.wait_for_timeout(200)
        else:
            stalls += 1
    found = _paths(page, results)
    assert items.count() == total or (wanted and wanted & set(found)), \
        f"{query!r}: {items.count()} of {total} results drawn"
    page.keyboard.press("Escape")
    return found


@pytest.fixture(scope="module")
def korean_search(sites):
    """search(engine, query[, wanted]) -> the pages its Korean search lists (``_search``)."""
    require_chromium()
    from contextlib import ExitStack

    with ExitStack() as stack:
        browser = stack.enter_context(chromium())
        tabs = {}
        for engine in ("mkdocs", "zensical"):
            base = stack.enter_context(serve(sites[engine]))
            tab = browser.new_page()
            tab.goto(f"{base}/ko/")
            tabs[engine] = tab
        yield lambda engine, query, wanted=None: _search(tabs[engine], engine, query, wanted)


def _longest_flag(model_id: str) -> str:
    """The flag of the model's first command that the fewest other models' cells write (the
    longest of those): a search shows ten results at a time, and a flag every model writes
    may list ten other pages first, which says nothing about this model's page."""
    from macros.engine.database import cached_database
    from macros.site.pages import Site

    db = cached_database()
    res = Site(db, "ko").resolve(model_id, **db.model(model_id).cells[0].match)
    others = [{f.name for flags in m.cell_flags for f in flags}
              for m in db.models.values() if m.id != model_id]
    return min((f.name for f in res.flags),
               key=lambda name: (sum(name in names for names in others), -len(name)))


# A term the glossary keeps in Korean and every model page uses, with particles attached.
KOREAN_TERM = "디코딩"


@pytest.mark.browser
@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
def test_korean_search_finds_every_model_page_for_a_korean_term(korean_search, sites, engine):
    found = korean_search(engine, KOREAN_TERM)
    for model_id in MODELS:
        assert f"/ko/models/{model_id}/" in found, found
    for path in found:  # and nothing that does not say it
        text = article((sites[engine] / path.lstrip("/") / "index.html").read_text())["text"][0]
        assert KOREAN_TERM in text


@pytest.mark.browser
@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
@pytest.mark.parametrize("model_id", MODELS)
def test_korean_search_finds_a_flag_of_the_model_without_its_dashes(korean_search, engine,
                                                                     model_id):
    pages = {f"/ko/models/{model_id}/", f"/ko/models/{model_id}/commands/"}
    found = korean_search(engine, _longest_flag(model_id)[2:], pages)
    assert pages & set(found), found


@pytest.mark.browser
@pytest.mark.parametrize("engine", [
    pytest.param("mkdocs", marks=pytest.mark.xfail(
        strict=True, reason="Material's search (lunr) reads a leading '-' as 'must not "
                            "contain': a flag typed as written finds nothing")),
    "zensical"])
@pytest.mark.parametrize("model_id", MODELS)
def test_korean_search_finds_a_flag_of_the_model_as_written(korean_search, engine, model_id):
    pages = {f"/ko/models/{model_id}/", f"/ko/models/{model_id}/commands/"}
    found = korean_search(engine, _longest_flag(model_id), pages)
    assert pages & set(found), found


# The queries a Korean reader types: every Korean term of the glossary.
def _glossary_terms() -> list[str]:
    from macros.i18n.terms import read_glossary

    return [t.korean for t in read_glossary(ROOT / "docs" / "glossary.md", "glossary")
            if t.korean]


_WORKER_RESULTS = """async ([worker, config, queries]) => {
  const index = await (await fetch('search.json')).json();
  const w = new Worker(worker);
  const next = () => new Promise(done => { w.onmessage = e => done(e.data); });
  let answer = next();
  w.postMessage({type: 0, data: {...index, config}});
  await answer;
  const out = [];
  for (const input of queries) {
    answer = next();
    w.postMessage({type: 2, data: {input, filter: {input: {type: 'operator', data:
      {operator: 'and', operands: []}}, aggregation: {input: [{type: 'term', data: {field: 'tags'}}]}}}});
    const m = await answer;
    out.push(m.type === 3 ? m.data.items.map(i => i.id) : 'error');
  }
  w.terminate();
  return out;
}"""


@pytest.mark.browser
def test_zensicals_korean_index_finds_what_word_segmentation_finds(sites):
    """The Korean site's index is written without Zensical's word segmentation (stage.py
    ``_spaced_search``): its separator breaks where Hangul begins or ends instead. Zensical's
    own search worker, given the index both ways, answers every Korean glossary term with the
    same results."""
    require_chromium()
    site = sites["zensical"] / "ko"
    written = json.loads((site / "search.json").read_text(encoding="utf-8"))["config"]
    assert "ko" not in written["lang"] and "Script=Hangul" in written["separator"]
    cut = written["separator"].index("|(?<=\\p{Script=Hangul})")
    engine = {"lang": ["ko"], "separator": written["separator"][:cut]}  # as Zensical wrote it
    worker = next((site / "assets/javascripts/workers").glob("search.*.js"))
    queries = _glossary_terms()
    with chromium() as browser, serve(sites["zensical"]) as base:
        page = browser.new_page()
        page.goto(f"{base}/ko/llms.txt")  # the site's origin, none of a page's scripts
        url = worker.relative_to(site).as_posix()
        tuned = page.evaluate(_WORKER_RESULTS, [url, written, queries])
        segmented = page.evaluate(_WORKER_RESULTS, [url, engine, queries])
    assert "error" not in tuned and tuned == segmented
    assert sum(bool(r) for r in tuned) > len(queries) // 2  # the terms are found at all
