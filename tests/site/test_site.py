"""The built site: both languages, the seed's facts and commands, no external requests,
language switching, search, translation notices and safe builds."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from helpers import yamlc
from helpers.models import MODELS, subpages
from helpers.project import small_project
from helpers.rendered import LANGS, assert_404_keeps_its_language
from macros.engine.check import parse
from macros.engine.flags import Flag

ROOT = Path(__file__).resolve().parents[2]
FACTS = yamlc.load((Path(__file__).parents[1] / "corpus" / "seed_facts.yaml").read_text())


def page_html(site: Path, lang: str, page: str = "models/kimi-k3/") -> str:
    return (site / LANGS[lang] / page / "index.html").read_text(encoding="utf-8")


def model_markdown(site: Path, lang: str, model_id: str = "kimi-k3") -> str:
    """The Markdown copies of every page of a model: its recipe page and the pages under it."""
    base = site / LANGS[lang] / "models" / model_id
    return "\n".join((base / part / "index.md").read_text(encoding="utf-8")
                     for part in ("", *subpages(model_id)))


def visible_text(doc: str) -> str:
    doc = re.sub(r"<(script|style)\b.*?</\1>", " ", doc, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", doc))


@pytest.mark.parametrize("lang", LANGS)
def test_every_seed_fact_is_on_the_page(built_site, lang):
    text = "\n".join(visible_text(page_html(built_site, lang, f"models/kimi-k3/{part}"))
                     for part in ("", *subpages("kimi-k3")))
    missing = [fact for fact in FACTS["text"] if str(fact) not in text]
    assert not missing, f"{lang}: missing {missing}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", [k for k in FACTS["commands"] if not k.endswith("example")])
def test_every_seed_command_is_on_the_page(built_site, db, lang, name):
    md = model_markdown(built_site, lang)
    catalogs = {"server": db.catalog, "router": db.router_catalog}
    [want] = parse(FACTS["commands"][name], catalogs)
    # the seed's spelling, as the release the page writes for spells it (a deprecated flag
    # replaced: --attn-dp-size N for --dp-size N --enable-dp-attention)
    spelt, _ = db.releases.migrate([Flag(n, v) for n, v in want.flags], db.catalog.version)
    want.flags = [(f.name, f.values) for f in spelt]
    blocks = re.findall(r"```(?:bash|shell)[^\n]*\n(.*?)```", md, re.S)
    found = [cmd for block in blocks for cmd in parse(block, catalogs)]
    assert found, "no commands on the page"

    def covers(cmd):
        flags = dict(cmd.flags)
        return cmd.program == want.program and all(flags.get(n) == v for n, v in want.flags) \
            and all(e in cmd.env for e in want.env)
    assert any(covers(c) for c in found), f"{name} is not on the {lang} page"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["reasoning-example", "tool-example"])
def test_seed_python_examples_are_on_the_page(built_site, lang, name):
    assert FACTS["commands"][name] in model_markdown(built_site, lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_no_raw_jinja_and_badges_rendered(built_site, db, lang, model_id):
    doc = page_html(built_site, lang, f"models/{model_id}/")
    assert "{{" not in visible_text(doc) and "{%" not in visible_text(doc)
    # a badge for each status the model's cells hold (the matrix shows every cell)
    for status in {cell.status.value for cell in db.model(model_id).cells}:
        assert f'class="recipe-badge recipe-badge--{status}"' in doc, status
    assert 'class="tabbed-set' in doc  # content tabs
    assert "md-clipboard" in doc or "content.code.copy" in doc  # copy buttons enabled


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_no_external_fonts_scripts_or_styles(built_site, lang, model_id):
    for part in ("", *subpages(model_id)):
        doc = page_html(built_site, lang, f"models/{model_id}/{part}")
        for tag, attr in (("script", "src"), ("link", "href"), ("img", "src")):
            for m in re.finditer(rf"<{tag}\b[^>]*\b{attr}=\"([^\"]+)\"", doc):
                url = m.group(1)
                if tag == "link" and re.search(r'rel="(alternate|canonical)"', m.group(0)):
                    continue
                assert not re.match(r"(https?:)?//", url), (part, f"external {tag}: {url}")
        assert "fonts.googleapis" not in doc and "fonts.gstatic" not in doc, part


@pytest.mark.parametrize("model_id", MODELS)
def test_language_switch_lands_on_the_same_page(built_site, model_id):
    for part in ("", *subpages(model_id)):
        page = f"models/{model_id}/{part}"
        en = page_html(built_site, "en", page)
        ko = page_html(built_site, "ko", page)
        to_ko = re.search(r'<a href="([^"]+)" hreflang="ko"', en).group(1)
        to_en = re.search(r'<a href="([^"]+)" hreflang="en"', ko).group(1)
        assert (built_site / page / to_ko).resolve() == (built_site / "ko" / page).resolve()
        assert (built_site / "ko" / page / to_en).resolve() == (built_site / page).resolve()


@pytest.mark.parametrize("lang,word", [("en", "DCP"), ("ko", "서버")])
def test_search_index_finds_the_seed_page(built_site, lang, word):
    """The seed's model page, for a word of the seed (its notes on DCP; 서버, server)."""
    index = json.loads((built_site / LANGS[lang] / "search" / "search_index.json").read_text())
    hits = {d["location"].split("#")[0] for d in index["docs"] if word in d["text"] + d["title"]}
    assert "models/kimi-k3/" in hits
    assert lang in index["config"]["lang"]


@pytest.mark.parametrize("lang", LANGS)
def test_search_index_holds_every_page_of_every_model(built_site, lang):
    index = json.loads((built_site / LANGS[lang] / "search" / "search_index.json").read_text())
    located = {d["location"].split("#")[0] for d in index["docs"]}
    for model_id in MODELS:
        for part in ("", *subpages(model_id)):
            assert f"models/{model_id}/{part}" in located, (model_id, part)


@pytest.mark.parametrize("lang", LANGS)
def test_machine_readable_outputs(built_site, db, lang):
    root = built_site / LANGS[lang]
    llms = (root / "llms.txt").read_text(encoding="utf-8")
    for model_id in MODELS:  # every page of every model, and its cells in the export
        for part in ("", *subpages(model_id)):
            assert f"(models/{model_id}/{part}index.md)" in llms, (model_id, part)
        export = json.loads((root / f"assets/recipes/{model_id}.{lang}.json").read_text())
        assert export["lang"] == lang
        assert len(export["cells"]) == len(db.model(model_id).cells), model_id
    md = model_markdown(built_site, lang)
    assert "sglang serve" in md and "{{" not in md
    export = json.loads((root / f"assets/recipes/kimi-k3.{lang}.json").read_text())
    assert len(export["cells"]) == 50  # the seed's cells




def test_missing_and_outdated_translations_get_notices(outdated_site):
    root, site = outdated_site  # translate.md gone in Korean, a sentence added to the English home
    translate = visible_text((site / "ko/guides/translate/index.html").read_text())
    assert "아직 한국어로 번역되지 않았" in translate or "번역되지 않" in translate
    home = visible_text((site / "ko/index.html").read_text())
    from macros.engine.database import cached_database

    outdated = cached_database().t("ko", "ui.outdated")
    assert outdated in home
    # the Korean text stays; the new English sentence is only named in the notice's list
    listed = cached_database().t("ko", "ui.changes")
    assert home.count("A new English sentence.") == 1
    assert home.index(outdated) < home.index(listed) < home.index("A new English sentence.")
    home_html = (site / "ko/index.html").read_text()
    assert re.search(r'<a href="\.\./" hreflang="en">', home_html)  # to the English page
    current = visible_text((site / "ko/models/kimi-k3/index.html").read_text())
    assert outdated not in current


def test_a_failed_build_leaves_the_previous_site_intact(tmp_path):
    """On a copy holding only the models its home page shows and the one its page names: what
    fails is one page's macro, and a model more would only add time."""
    from macros.site.build import BuildFailed, build_site

    with small_project(tmp_path, also=("kimi-k3",)) as root:
        site = build_site(out=root / "site", root=root, quiet=True)
        before = (site / "models/kimi-k3/index.html").read_text()
        page = root / "docs/en/models/kimi-k3.md"
        page.write_text(page.read_text() +
                        '\n{{ command("kimi-k3", "b300", "prefill", "balanced") }}\n')
        with pytest.raises(BuildFailed) as exc:
            build_site(out=root / "site", root=root, quiet=True)
    assert "'balanced' is not a strategy" in str(exc.value)
    assert (site / "models/kimi-k3/index.html").read_text() == before
    scratch = root / ".build"
    assert not scratch.exists() or not [p for p in scratch.iterdir() if p.name.startswith("site-")]


@pytest.mark.parametrize("link", ["models/no-such-page.md", "models/kimi-k3.md#no-such-anchor"])
def test_a_broken_internal_link_or_anchor_fails_the_build(tmp_path, link):
    from macros.site.build import BuildFailed, build_site

    with small_project(tmp_path, also=("kimi-k3",)) as root:
        page = root / "docs/en/index.md"
        page.write_text(page.read_text() + f"\n[gone]({link})\n")
        with pytest.raises(BuildFailed) as exc:
            build_site(out=root / "site", root=root, quiet=True)
    assert link.split("/")[-1].split("#")[-1] in str(exc.value)


BROKEN_PAGES = [
    ("jinja-syntax", "en/index.md", '{{ command("kimi-k3", "b300", "unified" }}',
     "docs/en/index.md:{line}: unexpected '}}', expected ')'"),
    ("bad-cell", "en/index.md", '{{ badge("kimi-k3", "b300", "unified", "fast") }}',
     "docs/en/index.md:{line}: badge: kimi-k3 has no cell b300/unified/fast (cells on b300: "),
    ("impossible-selection", "ko/index.md", '{{ command("kimi-k3", "a3", "decode", "balanced") }}',
     "docs/ko/index.md:{line}: kimi-k3 a3 decode balanced: <selection>: role 'decode' is not "
     "available on a3"),
    ("undefined-macro", "en/index.md", '{{ comand("kimi-k3") }}',
     "docs/en/index.md:{line}: 'comand' is undefined"),
    ("bad-option", "en/index.md", '{{ command("kimi-k3", "b300", "unified", "balanced", spec="eagle") }}',
     "'eagle' is not an option of 'spec' (available: none, dspark, dflash)"),
]


@pytest.mark.parametrize("name,page,text,expect", BROKEN_PAGES, ids=[b[0] for b in BROKEN_PAGES])
def test_a_broken_page_fails_the_build_with_file_line_and_no_traceback(tmp_path, name, page, text,
                                                                       expect):
    from macros.site.build import BuildFailed, build_site

    with small_project(tmp_path, also=("kimi-k3",)) as root:
        path = root / "docs" / page
        body = path.read_text(encoding="utf-8")
        line = body.count("\n") + 2
        path.write_text(body + "\n" + text + "\n", encoding="utf-8")
        with pytest.raises(BuildFailed) as exc:
            build_site(out=root / "site", root=root, quiet=True)
    message = str(exc.value)
    assert expect.format(line=line) in message, message
    assert "Traceback" not in message


@pytest.mark.parametrize("lang", LANGS)
def test_a_404_page_keeps_its_readers_in_their_language(built_site, lang):
    """Served at any missing path, a 404 page links to its own language's pages, and its
    language selector to each language's home."""
    assert_404_keeps_its_language(built_site / LANGS[lang], lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_code_in_the_effective_configuration_shows_no_markdown_escapes(built_site, lang,
                                                                     model_id):
    """A knob's value is code: Markdown's escapes (``trtllm\\_mla``) must not reach the reader."""
    doc = (built_site / LANGS[lang] / f"models/{model_id}/index.html").read_text(encoding="utf-8")
    codes = re.findall(r"<td><code>([^<]*)</code></td>", doc)
    assert codes and not [c for c in codes if re.search(r"\\[_*`\[\]()!\\0-9]", c)]


def test_no_korean_particle_sits_inside_a_code_span(built_site):
    """Korean prose wraps a flag or a variable in code and puts its particle after it
    (`SGLANG_SIMULATE_ACC_LEN=4.5`로, not `…=4.5로`)."""
    glued = []
    for page in sorted((built_site / "ko").rglob("*.html")):
        text = re.sub(r"<pre.*?</pre>", "", page.read_text(encoding="utf-8"), flags=re.S)
        glued += [(page.name, c) for c in re.findall(r"<code>([^<]*)</code>", text)
                  if re.search(r"[A-Za-z0-9_=.-][가-힣]", html.unescape(c))]
    assert glued == []
