"""How the site colours its shell blocks: comments and quoted strings, nothing else.

The pages' shell blocks are commands (``sglang serve \\``, a flag per line) with the hints the
engine writes as ``#`` comments. Pygments' Bash lexer marks every backslash, number and ``=``
of them, about four spans a line: most of a commands page's HTML, which every search index, every
browser and every accessibility scan then walks, for a colouring that marks ``0`` of ``0.1``
and not the rest. This lexer marks what carries meaning: a comment (a hint or a caveat) and a
quoted string (a request's JSON body); the rest is one plain text run.

``mkdocs.yml`` maps the ``bash`` fence to it (``pymdownx.highlight``'s
``extend_pygments_lang``), so the Markdown still says ``bash`` for every reader of it (the
checker, Sybil, the translators) and only the colouring changes. Pygments finds the lexer by
the ``pygments.lexers`` entry point in ``pyproject.toml``; ``require()`` (run by every stage,
so by a build and the preview) makes an install that predates that entry point fail with what to
run instead of quietly printing plain text.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer
from pygments.token import Comment, String, Text

ALIAS = "recipe-shell"


class RecipeShellLexer(RegexLexer):
    """Shell text with comments and quoted strings marked, everything else plain."""

    name = "Recipe shell"
    aliases = [ALIAS]
    filenames: list[str] = []

    tokens = {
        "root": [
            # a comment starts a word: at a line's start or after a blank or an operator, never
            # inside a word (a URL's fragment) or a quoted string (matched whole below)
            (r"(?:(?<=[ \t\n;&|()])|^)#[^\n]*", Comment.Single),
            # an escaped character, a line continuation included, is text: \' opens no string
            (r"\\[\s\S]", Text),
            (r"'[^']*'", String.Single),
            (r'"(?:\\[\s\S]|[^"\\])*"', String.Double),
            (r"[^#'\"\\]+", Text),
            (r".", Text),
        ],
    }


class LexerMissing(RuntimeError):
    """Pygments does not find the lexer: the install predates its entry point."""


def require() -> None:
    """Fail unless Pygments finds this lexer under its alias (the project's entry point)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        found = get_lexer_by_name(ALIAS)
    except ClassNotFound:
        found = None
    if not isinstance(found, RecipeShellLexer):
        raise LexerMissing(
            f"Pygments has no lexer '{ALIAS}': the installed package predates its entry point "
            "in pyproject.toml; run make install (pip install -e '.[test]') again")
