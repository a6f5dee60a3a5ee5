"""A Sybil parser that checks the SGLang commands in a project's docs, for a project that
already runs its docs through Sybil::

    # conftest.py
    from sybil import Sybil
    from macros.checkdocs.sybil_parser import SGLangCheckParser

    pytest_collect_file = Sybil(parsers=[SGLangCheckParser()], patterns=["*.md", "*.rst"],
                                path="docs").pytest()

Each shell block ``recipes check`` reads in the document (by its file name: Markdown, MDX,
reStructuredText, notebooks, scripts) is one example; it fails with each error's file, line
and rule. ``SGLangCheckParser(model="…", sglang="0.5.23", hw="…")`` gives every block a
context, as ``recipes check``'s options do.
"""

from __future__ import annotations

from sybil import Region

from macros.checkdocs import sources
from macros.checkdocs.run import check_block


class SGLangCheckParser:
    def __init__(self, model: str | None = None, sglang: str | None = None, **context: str):
        self.model, self.sglang, self.context = model, sglang, context

    def __call__(self, document):
        path = str(document.path)
        fmt = sources.format_of(path, document.text[:200]) or "markdown"
        for block in sources.blocks(path, document.text, fmt):
            if block.skip:
                continue
            last = block.text.split("\n")[-1]
            end = block.lines[-1].offset(len(last))
            yield Region(block.at(1).offset(0), max(end, block.at(1).offset(0) + 1), block,
                         self.evaluate)

    def evaluate(self, example) -> str | None:
        from macros.engine.database import cached_database

        checked = check_block(cached_database(), example.parsed, model_id=self.model,
                              sglang=self.sglang, context=self.context)
        errors = [f for f in checked.findings if f.severity == "error"]
        if not errors:
            return None
        return "\n".join(f"{f.path}:{f.line}: error: "
                         + (f"cell {f.cell}, line {f.cell_line}: " if f.cell is not None else "")
                         + f"{f.message} ({f.rule})" for f in errors)
