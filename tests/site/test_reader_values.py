"""The placeholders a printed command leaves for the reader (<rank>, <node0-ip> …): each is
declared once in recipes/catalog/placeholders.yaml, explained on the model's pages, and a value of
its kind's shape fills it in without changing how bash reads the command."""

from __future__ import annotations

import re
import shlex

import pytest
from hypothesis import given, settings, strategies as st

from helpers.models import MODELS
from macros.engine.check import parse
from macros.engine.database import READER_TOKEN, reader_texts
from macros.site.render import command_text, router_text
from macros.engine.resolve import resolve
from macros.engine.schema import READER_KINDS
from macros.engine.selection import Selection
from helpers.rendered import LANGS

_SHELL_SPECIAL = set("|&;()<>$`\\\"' \t\n*?[]#!{}")


def _commands(db, model_id):
    """Every cell's default command and router of a model, as printed."""
    model = db.model(model_id)
    for cell in model.cells:
        res = resolve(db, Selection.flat(model, dict(cell.match)))
        yield command_text(db, model, res, "en"), router_text(res)


@pytest.mark.parametrize("model_id", MODELS)
def test_every_placeholder_a_models_commands_leave_is_declared(db, model_id):
    declared = {t for v in db.reader_values for t in v.tokens}
    printed = set()
    for command, router in _commands(db, model_id):
        printed |= set(re.findall(READER_TOKEN, command + (router or "")))
    model = db.model(model_id)
    from_data = {t for _, text in reader_texts(model) for t in re.findall(READER_TOKEN, text)}
    assert from_data <= declared, from_data - declared
    assert printed <= declared, printed - declared  # hint lines quote them too


@pytest.mark.parametrize("kind", sorted(READER_KINDS))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_no_value_of_a_kind_needs_shell_quoting(kind, data):
    value = data.draw(st.from_regex(READER_KINDS[kind], fullmatch=True))
    assert not (_SHELL_SPECIAL & set(value)), value
    assert shlex.split(f"--x {value}") == ["--x", value]


@pytest.mark.parametrize("model_id", MODELS)
def test_filled_in_commands_read_as_the_same_command_with_the_value(db, model_id):
    """Every cell: with every placeholder filled in by a value of its kind, bash reads the
    same program and flags, the value standing where the placeholder stood."""
    sample = {"host": "10.1.2.3", "rank": "1", "nic": "eth0", "path": "/etc/mooncake.json",
              "list": "mlx5_0:1,mlx5_1:1"}
    values = {t: sample[v.kind] for v in db.reader_values for t in v.tokens}
    catalogs = {"server": db.serving(db.model(model_id)).catalog, "router": db.router_catalog}

    def filled(text):
        for token, value in values.items():
            text = text.replace(token, value)
        return text

    seen = 0
    for command, router in _commands(db, model_id):
        for text in filter(None, (command, router)):
            if not re.search(READER_TOKEN, text):
                continue
            seen += 1
            before, after = parse(text, catalogs), parse(filled(text), catalogs)
            assert [c.program for c in after] == [c.program for c in before]
            for b, a in zip(before, after):
                assert [n for n, _ in a.flags] == [n for n, _ in b.flags]
                assert [tuple(filled(v) for v in vs) for _, vs in b.flags] == \
                    [tuple(vs) for _, vs in a.flags]
                assert not re.search(READER_TOKEN, repr(a.env) + repr(a.flags))
    # a model whose placeholder values hold no reader token has nothing to fill in
    assert seen or not any(re.search(READER_TOKEN, text)
                           for _, text in reader_texts(db.model(model_id)))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_both_pages_of_a_model_explain_its_placeholders(built_site, db, model_id, lang):
    """The recipe page and the commands page each have the panel, listing every placeholder
    the model's commands leave, with what it stands for in the page's language."""
    model = db.model(model_id)
    used = {t for _, text in reader_texts(model) for t in re.findall(READER_TOKEN, text)}
    base = built_site / LANGS[lang] / "models" / model_id
    pages = [(base / part / "index.md").read_text(encoding="utf-8") for part in ("", "commands")]
    for v in (v for v in db.reader_values if used & set(v.tokens)):
        meaning = re.split(r"[(`]", db.t(lang, v.text))[0][:30]
        for token in set(v.tokens) & used:
            for page in pages:
                assert f"`{token}`" in page or f"` {token} `" in page, (token, lang)
        for page in pages:
            assert meaning in page.replace("\\", ""), (meaning, lang)
