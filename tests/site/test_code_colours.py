"""The shell blocks' colouring (macros/site/lexer.py): comments and quoted strings marked, the
rest one plain run; the text itself unchanged. The lexer on its own, through mkdocs.yml's
Markdown settings, and on every model's built pages in both languages."""

from __future__ import annotations

import html
import re
from pathlib import Path

import markdown
import pytest
from pygments.token import Comment, String, Text

from helpers import yamlc
from macros.site import lexer
from macros.site.lexer import RecipeShellLexer

from helpers.models import MODELS, subpages
from helpers.rendered import CODE_BLOCK, code_blocks

ROOT = Path(__file__).resolve().parents[2]
LANGS = {"en": "", "ko": "ko"}
SHELL_CLASSES = {"c1", "s1", "s2"}
_SPAN = re.compile(r'<span class="([^"]*)">(.*?)</span>', re.S)


def tokens(text: str) -> list[tuple[object, str]]:
    """The lexer's tokens with neighbours of one type joined, as the HTML formatter joins them."""
    joined: list[list] = []
    for kind, value in RecipeShellLexer().get_tokens(text):
        if joined and joined[-1][0] is kind:
            joined[-1][1] += value
        else:
            joined.append([kind, value])
    return [(kind, value) for kind, value in joined]


def test_a_command_is_one_plain_run_and_its_comments_are_marked():
    text = ("# Replace <node0-ip> with the head node's address.\n"
            "sglang serve \\\n  --tp-size 8 \\\n  --swa-full-tokens-ratio 0.1  # a hint\n")
    assert tokens(text) == [
        (Comment.Single, "# Replace <node0-ip> with the head node's address."),
        (Text, "\nsglang serve \\\n  --tp-size 8 \\\n  --swa-full-tokens-ratio 0.1  "),
        (Comment.Single, "# a hint"), (Text, "\n")]


@pytest.mark.parametrize("text, expected", [
    # a '#' inside a word or a quoted string starts no comment
    ("curl http://h/a#b", [(Text, "curl http://h/a#b\n")]),
    ("echo '#x' \"# y\" z", [(Text, "echo "), (String.Single, "'#x'"), (Text, " "),
                              (String.Double, '"# y"'), (Text, " z\n")]),
    # a JSON body over several lines is one string; an escaped quote does not end it
    ("-d '{\n  \"a\": 1\n}'", [(Text, "-d "), (String.Single, "'{\n  \"a\": 1\n}'"),
                               (Text, "\n")]),
    ('echo "a\\"b" c', [(Text, "echo "), (String.Double, '"a\\"b"'), (Text, " c\n")]),
    # a quote left open is text, not a string running to the end
    ("it's", [(Text, "it's\n")]),
    ("  # indented", [(Text, "  "), (Comment.Single, "# indented"), (Text, "\n")]),
    # an escaped quote opens no string; an escaped line end stays inside a string
    ("echo it\\'s -x 'a b'", [(Text, "echo it\\'s -x "), (String.Single, "'a b'"),
                                (Text, "\n")]),
    ('bash -c "a \\\n b" # c', [(Text, "bash -c "), (String.Double, '"a \\\n b"'),
                                  (Text, " "), (Comment.Single, "# c"), (Text, "\n")]),
    # after an operator a word starts, so may a comment; after a no-break space it does not
    ("a;# c", [(Text, "a;"), (Comment.Single, "# c"), (Text, "\n")]),
    ("a\u00a0# c", [(Text, "a\u00a0# c\n")]),
])
def test_what_is_a_comment_and_what_is_a_string(text, expected):
    assert tokens(text) == expected


def test_the_tokens_spell_the_text_back():
    text = "A=1 sglang serve \\\n  --x 'y z' # c\n\n# d\n\"e\" f#g\n"
    assert "".join(value for _, value in RecipeShellLexer().get_tokens(text)) == text


def _markdown() -> markdown.Markdown:
    """Python-Markdown with mkdocs.yml's extensions and their settings, as the build has them."""
    config = yamlc.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names, configs = [], {}
    for entry in config["markdown_extensions"]:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        names.append(name)
        configs[name] = dict(options or {})
    return markdown.Markdown(extensions=names, extension_configs=configs)


def test_mkdocs_yml_colours_a_bash_fence_with_it_and_python_as_before():
    out = _markdown().convert("```bash\n# hint\nsglang serve \\\n  --tp-size 8 \\\n"
                              "  --port 30000\n```\n\n```python\nx = 1\n```\n")
    shell, python = CODE_BLOCK.findall(out)
    assert {cls for cls, _ in _SPAN.findall(shell)} == {"c1"}
    assert _SPAN.findall(shell) == [("c1", "# hint")]
    assert {"n", "o", "mi"} <= {cls for cls, _ in _SPAN.findall(python)}


def test_a_build_with_no_lexer_fails_saying_what_to_run(monkeypatch, tmp_path):
    """An install older than the entry point: the build stops before any page, saying what to
    run, and leaves nothing behind (the preview's stage checks the same)."""
    import pygments.lexers
    from pygments.util import ClassNotFound

    from macros.site.build import BuildFailed, build_site

    def missing(alias, **options):
        raise ClassNotFound(alias)

    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name", missing)
    with pytest.raises(lexer.LexerMissing, match="make install"):
        lexer.require()
    with pytest.raises(BuildFailed, match="no lexer 'recipe-shell'.*make install"):
        build_site(out=tmp_path / "site", quiet=True)
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("model_id", MODELS)
def test_every_shell_block_of_a_model_marks_comments_and_strings_only(built_site, model_id,
                                                                      lang):
    """On each of the model's pages: a bash block's HTML carries comment and string spans only,
    each hint line of its Markdown (a line that is a comment) is one whole comment span, and
    every block's text (a Python one's too, whose blank spans the build takes out) is its
    Markdown's."""
    base = built_site / LANGS[lang] / "models" / model_id
    shell = 0
    for part in ("", *subpages(model_id)):
        for language, body, code in code_blocks(base / part):
            assert html.unescape(re.sub(r"<[^>]+>", "", code)).rstrip("\n") == \
                body.rstrip("\n"), (part, language)
            if language != "bash":
                continue
            shell += 1
            spans = _SPAN.findall(code)
            assert {cls for cls, _ in spans} <= SHELL_CLASSES, (part, code[:400])
            comments = [html.unescape(text).strip() for cls, text in spans if cls == "c1"]
            hints = [line.strip() for line in body.splitlines() if line.lstrip().startswith("#")]
            assert [hint for hint in hints if hint not in comments] == [], part
    assert shell, f"{model_id}: no shell block on its pages"
