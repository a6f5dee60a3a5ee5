"""Hostile strings in the database stay inert: in the static pages, in the Markdown copies and
llms.txt, and in shell commands (metacharacters are quoted)."""

from __future__ import annotations

import html
import json
import re
import shlex
from pathlib import Path

import pytest

from helpers import yamlc
from helpers.hostile import EVIL_VALUE
from helpers.models import MODELS, subpages
from macros.engine.check import parse

ROOT = Path(__file__).resolve().parents[2]
def _live_markup(doc: str) -> list[str]:
    """What an HTML parser (as a browser reads the page) finds live of the poison: event
    handler attributes, javascript: links and scripts that are not the site's own."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Reader(HTMLParser):
        script = False

        def handle_starttag(self, tag, attrs):
            for name, value in attrs:
                if name.startswith("on"):
                    found.append(f"<{tag} {name}={value!r}>")
                if name in ("href", "src") and (value or "").strip().lower().startswith(
                        "javascript:"):
                    found.append(f"<{tag} {name}={value!r}>")
            self.script = tag == "script"

        def handle_data(self, data):
            if self.script and "alert(" in data:
                found.append(f"<script>{data[:60]}")

        def handle_endtag(self, tag):
            self.script = False

    Reader().feed(doc)
    return found


@pytest.fixture
def hostile(hostile_site):
    """The site built from the poisoned copy of recipes/, and the flag each model's poisoned
    value went to."""
    _, site, flags = hostile_site
    return site, json.loads(flags.read_text(encoding="utf-8"))


def _pages(site: Path, lang: str, model_id: str, name: str) -> str:
    """Every page of the model, as ``name`` (index.html or index.md) of the ``lang`` site."""
    return "\n".join((site / lang / "models" / model_id / part / name).read_text(encoding="utf-8")
                     for part in ("", *subpages(model_id)))


def _own_keys(model_id: str, lang: str) -> list[str]:
    return list(yamlc.load((ROOT / "recipes" / model_id / f"text.{lang or 'en'}.yaml")
                               .read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang", ["", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_html_from_data_is_escaped_in_the_pages(hostile, model_id, lang):
    site, _ = hostile
    doc = _pages(site, lang, model_id, "index.html")
    shown = [key for key in _own_keys(model_id, lang) if f" {key} " in doc]
    assert shown, "none of the model's own poisoned texts is on its pages"
    assert " table.hardware " in doc and " table.status " in doc  # the tables' headings too
    live = _live_markup(doc)
    assert live == [], live[:5]
    assert "&lt;script&gt;" in doc


@pytest.mark.parametrize("lang", ["", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_markdown_copies_and_llms_txt_are_inert(hostile, model_id, lang):
    site, _ = hostile
    md = _pages(site, lang, model_id, "index.md")
    assert [key for key in _own_keys(model_id, lang) if f" {key} " in md]  # the poison is in
    outside_code = re.sub(r"^[ \t]*(`{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", "", md,
                          flags=re.S | re.M)
    outside_code = re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", outside_code)  # code spans
    assert "<script" not in outside_code.replace("&lt;script", "")
    assert not re.search(r"(?<!\\)\]\(javascript:", outside_code)  # escaped: \[x\](…) is text
    llms = (site / lang / "llms.txt").read_text(encoding="utf-8")
    assert "<script" not in llms


@pytest.mark.parametrize("model_id", MODELS)
def test_shell_metacharacters_in_values_are_quoted(hostile, db, model_id):
    site, flags = hostile
    flag = flags[model_id]
    md = (site / "models" / model_id / "commands" / "index.md").read_text(encoding="utf-8")
    blocks = [m.group(2) for m in re.finditer(r"^[ \t]*(`{3,})bash[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
                                               md, re.S | re.M)]
    model = db.model(model_id)
    catalogs = {"server": db.serving(model).catalog, "router": db.router_catalog}
    values = [dict(c.flags).get(flag) for b in blocks for c in parse(b, catalogs)]
    assert (EVIL_VALUE,) in values
    line = next(l for b in blocks for l in b.splitlines() if "touch /tmp/pwned" in l)
    assert shlex.split(line.rstrip(" \\")) == [flag, EVIL_VALUE]


@pytest.mark.parametrize("text", ["88.1% on GPQA", "2.5 Pro", "1) first", "10. tenth",
                                  "- dash", "# hash", "> quote", "+ plus"])
def test_reader_text_that_starts_like_markdown_reads_as_written(text):
    """Inert, and with no stray backslash: the escape Markdown removes is the one we add."""
    import markdown

    from macros.engine.inert import md as _md

    html_out = markdown.markdown(_md(text))
    assert html_out == f"<p>{html.escape(text, quote=False)}</p>"
