"""A pytest plugin that checks the SGLang commands in a project's own docs: one test per shell
block, failing with each error's file, line and rule.

Enabled by an ini option (nothing is collected without it, so installing the package changes
no other test run)::

    # pyproject.toml
    [tool.pytest.ini_options]
    sglang_check = ["docs/**/*.md", "docs/**/*.ipynb"]   # globs, relative to the rootdir
    sglang_check_model = "kimi-k3"                       # optional: whose rules apply
    sglang_check_release = "0.5.23"                      # optional: the sglang release

The plugin is registered under the ``pytest11`` entry point of this package (``recipes-check``);
without the package installed, ``-p macros.checkdocs.pytest_plugin`` loads it. Blocks are read
by ``sources`` (every format ``recipes check`` reads), checked by ``run.check_block``; a block
with no SGLang command passes, a ``check: skip`` directive skips it.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

from macros.checkdocs import sources
from macros.checkdocs.run import check_block, read

_DB = []


def _db():
    if not _DB:
        from macros.engine.database import cached_database

        _DB.append(cached_database())
    return _DB[0]


def pytest_addoption(parser):
    parser.addini("sglang_check", type="linelist", default=[],
                  help="globs of docs whose SGLang commands recipes check checks")
    parser.addini("sglang_check_model", default="",
                  help="the model whose rules apply (default: as recipes check tells)")
    parser.addini("sglang_check_release", default="",
                  help="the sglang release flags are judged by (default: the pinned one)")


def _matches(config, path: Path) -> bool:
    globs = config.getini("sglang_check")
    if not globs:
        return False
    try:
        rel = path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return False
    return any(fnmatch(rel, g) or fnmatch(rel, g.replace("**/", "")) for g in globs)


def pytest_collect_file(file_path: Path, parent):
    if _matches(parent.config, file_path) and sources.format_of(str(file_path)) is not None:
        return DocFile.from_parent(parent, path=file_path)
    return None


class DocFile(pytest.File):
    def collect(self):
        rel = str(self.path.relative_to(self.config.rootpath))
        text, problem = read(str(self.path))
        if problem is not None:
            raise pytest.UsageError(f"{rel}:{problem.line}: {problem.message}")
        fmt = sources.format_of(rel, text[:200])
        try:
            blocks = sources.blocks(rel, text, fmt)
        except sources.SourceError as exc:
            raise pytest.UsageError(f"{rel}:{exc.line}: {exc}") from None
        for block in blocks:
            if not block.skip:
                yield BlockItem.from_parent(self, name=f"line {block.at(1).file_line}",
                                            block=block)


class CheckFailed(Exception):
    pass


class BlockItem(pytest.Item):
    def __init__(self, *, block: sources.Block, **kwargs):
        super().__init__(**kwargs)
        self.block = block

    def runtest(self):
        model = self.config.getini("sglang_check_model") or None
        release = self.config.getini("sglang_check_release") or None
        checked = check_block(_db(), self.block, model_id=model, sglang=release, context={})
        errors = [f for f in checked.findings if f.severity == "error"]
        if errors:
            raise CheckFailed("\n".join(
                f"{f.path}:{f.line}: error: "
                + (f"cell {f.cell}, line {f.cell_line}: " if f.cell is not None else "")
                + f"{f.message} ({f.rule})" for f in errors))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        line = self.block.at(1).file_line
        return self.path, line - 1, f"SGLang command at {self.block.path}:{line}"
