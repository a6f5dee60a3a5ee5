"""The rules of ``recipes check PATH…``'s own findings (``input.*``: a file or a directive the
reader cannot use), in the same shape as the checker's table (``engine/check_rules.py``).

Owns ``INPUT_RULES`` and ``markdown`` (the README's second rules table is this table printed:
``python -m macros.checkdocs.rules``; a test holds the two together, finds every ``input.*`` id
the reader raises in it, and makes each example file raise its rule). ``describe`` gives any
rule id's text, the checker's or the reader's, for a report that lists its rules (SARIF).
"""

from __future__ import annotations

from macros.engine.check_rules import BY_ID, Rule

# The example of a reader's rule is a file: its name and its content (bytes as written).
INPUT_RULES: tuple[Rule, ...] = (
    Rule("input.unreadable", "error", "The system refused to read the file (permissions, a "
         "folder where a file was expected).", "page.md: a file without read permission",
         "Make it readable, or leave it out of the paths."),
    Rule("input.not-utf8", "error", "The file is not UTF-8 text; the line of the first bad "
         "byte is given.", "page.md: ```bash⏎sglang serve \\xff⏎```", "Save it as UTF-8."),
    Rule("input.not-text", "error", "A NUL byte: a binary file with a docs name.",
         "page.md: \\x00", "Leave the binary out of the paths."),
    Rule("input.unknown-format", "error", "A file named on the command line whose format is "
         "none the reader knows (by its suffix, or a shell `#!` line).",
         "notes.txt: sglang serve --tp 8", "Give a Markdown, MDX, reStructuredText, notebook "
         "or shell file, or check a file of commands with `--file`."),
    Rule("input.bad-notebook", "error", "A `.ipynb` file that is not a notebook's JSON "
         "(nbformat 4 with a `cells` list).", "nb.ipynb: {\"cells\": [,]}",
         "Repair the JSON (open and save it in Jupyter)."),
    Rule("input.bad-directive", "error", "A `check:` directive above a block names a model, "
         "a release or a context the recipes do not have.",
         "page.md: <!-- check: model=no-such-model -->⏎```bash⏎sglang serve --model-path m⏎```",
         "Use the model ids, releases and dimension values the message lists."),
)

INPUT_BY_ID = {rule.id: rule for rule in INPUT_RULES}


def describe(rule_id: str) -> Rule | None:
    """A rule's text: the checker's, the reader's, or None (a model's own rule)."""
    return BY_ID.get(rule_id) or INPUT_BY_ID.get(rule_id)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown() -> str:
    lines = ["| rule | severity | what it means | example | how to fix |",
             "|---|---|---|---|---|"]
    for rule in INPUT_RULES:
        name, _, content = rule.example.partition(": ")
        ticks = "``" if "`" in content else "`"
        pad = " " if ticks == "``" else ""
        lines.append(f"| `{rule.id}` | {rule.severity} | {_cell(rule.means)} | `{name}` "
                     f"holding {ticks}{pad}{_cell(content)}{pad}{ticks} | {_cell(rule.fix)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
