"""Checking files: each shell block through the engine's ``check_text``, each finding placed at
its file and line (a notebook's cell and line too).

Owns reading a file for the check (UTF-8, its bytes as written: a CRLF or a BOM stays for the
shell reader to judge in a script, and is only a line end in a document), the blocks' context
(the command line's, then a block's own ``check:`` directive), what a block with no SGLang
command is (another shell block, not a finding: a page has ``pip install`` blocks too), and the
problems of a file itself as findings of their own (``input.*``), so one unreadable file in a
folder does not hide the others. ``--file`` and ``-- COMMAND`` text is checked whole, as
before: there a text with no command is still ``parse.no-command``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from macros.checkdocs import sources, walk
from macros.engine.errors import RecipeError

NO_COMMAND = "parse.no-command"
SEVERITIES = ("error", "warning", "info")


@dataclass
class Placed:
    """A finding at its place in a file."""

    path: str
    line: int
    severity: str
    rule: str
    message: str
    flags: list[str] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)
    cell: int | None = None
    cell_line: int | None = None
    block_line: int | None = None  # the line in the block's text (for --fix)

    @property
    def file(self) -> str:  # what macros.report.bounded groups by
        return self.path


@dataclass
class Checked:
    """A block and what the check found in it (empty for a block with no SGLang command)."""

    block: sources.Block
    findings: list[Placed]
    other: bool = False  # the block holds no SGLang command


@dataclass
class Report:
    findings: list[Placed] = field(default_factory=list)
    checked: list[Checked] = field(default_factory=list)
    files: int = 0
    blocks: int = 0  # blocks with an SGLang command, checked
    other: int = 0  # shell blocks without one
    skipped: int = 0  # blocks a directive skips

    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")


def read(path: str) -> tuple[str | None, Placed | None]:
    """A file's text, or the finding that says why it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return None, Placed(path, 1, "error", "input.unreadable",
                            f"cannot read the file: {exc.strerror or exc}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[:exc.start].decode("utf-8")
        return None, Placed(path, good.count("\n") + 1, "error", "input.not-utf8",
                            f"not UTF-8 text: byte 0x{data[exc.start]:02x} ({exc.reason}); "
                            "save the file as UTF-8")
    if "\0" in text:
        return None, Placed(path, text.count("\n", 0, text.index("\0")) + 1, "error",
                            "input.not-text", "not text: a NUL byte (is this a binary file?)")
    return text, None


def check_block(db, block: sources.Block, *, model_id: str | None, sglang: str | None,
                context: dict[str, str], keep_no_command: bool = False) -> Checked:
    from macros.engine.check import check_text

    own = dict(block.context)
    model = own.pop("model", None) or model_id
    release = own.pop("sglang", None) or sglang
    own.pop("generated", None)
    merged = {**context, **own}
    try:
        found = check_text(db, block.text, model_id=model, sglang=release,
                           base_dir=_folder(block.path), **merged)
    except RecipeError as exc:
        if not block.context:  # the command line's context: its own clear error
            raise
        where = block.directive_line or block.at(1).file_line
        problems = "; ".join(p.message for p in exc.problems)
        return Checked(block, [Placed(block.path, where, "error", "input.bad-directive",
                                      f"the check directive cannot be used: {problems}")])
    if not keep_no_command and any(f.rule == NO_COMMAND for f in found):
        found = [f for f in found if f.rule != NO_COMMAND]
        if not found:
            return Checked(block, [], other=True)
    placed = []
    for f in found:
        where = block.at(f.line)
        placed.append(Placed(block.path, where.file_line, f.severity.value, f.rule, f.message,
                             list(f.flags), dict(f.fields), where.cell, where.cell_line,
                             f.line))
    return Checked(block, placed)


def _folder(path: str):
    """Where a block's ``--config FILE`` is read: beside its file, or where the command line
    runs; None for stdin."""
    from pathlib import Path

    if path == "<stdin>":
        return None
    return Path.cwd() if path == "<command line>" else Path(path).parent


def _once_per_file(findings: list[Placed], said: set) -> list[Placed]:
    """A file says the same note once, however many of its blocks repeat it (the engine's
    ``once_key``: the model it cannot tell, an abbreviation, a deprecated program)."""
    from macros.engine.check import once_key

    out = []
    for f in findings:
        key = once_key(f)
        if key is None or key not in said:
            out.append(f)
            if key is not None:
                said.add(key)
    return out


def check_paths(db, paths: list[str], texts: list[tuple[str, str]] = (), *,
                model_id: str | None = None, sglang: str | None = None,
                context: dict[str, str] | None = None) -> Report:
    """Check the files of ``paths`` (files and folders) and the shell ``texts`` (name, text)
    given whole (``--file``, ``-- COMMAND``)."""
    context = dict(context or {})
    report = Report()
    for name, text in texts:
        block = sources.shell_blocks(name, text)[0]
        checked = check_block(db, block, model_id=model_id, sglang=sglang, context=context,
                              keep_no_command=True)
        report.checked.append(checked)
        report.findings += checked.findings
        report.blocks += 1
    if not paths:
        return report
    found, missing = walk.files(paths)
    if missing:
        raise RecipeError([_missing(m) for m in missing])
    for path, fmt in found:
        report.files += 1
        if fmt is None:
            report.findings.append(Placed(path, 1, "error", "input.unknown-format",
                                          "not a format recipes check reads (Markdown .md, MDX "
                                          ".mdx, reStructuredText .rst, notebooks .ipynb, shell "
                                          ".sh/.bash or a #! shell script); use --file PATH "
                                          "for a file of commands"))
            continue
        text, problem = read(path)
        if problem is not None:
            report.findings.append(problem)
            continue
        try:
            blocks = sources.blocks(path, text, fmt)
        except sources.SourceError as exc:
            report.findings.append(Placed(path, exc.line, "error", "input.bad-notebook",
                                          str(exc)))
            continue
        said: set = set()
        for block in blocks:
            if block.skip:
                report.skipped += 1
                continue
            checked = check_block(db, block, model_id=model_id, sglang=sglang,
                                  context=context)
            checked.findings = _once_per_file(checked.findings, said)
            report.checked.append(checked)
            if checked.other:
                report.other += 1
                continue
            report.blocks += 1
            report.findings += checked.findings
    return report


def _missing(path: str):
    from macros.engine.errors import Problem

    return Problem(path, None, None, "no such file or folder")


def shown(findings: list[Placed], severity: str) -> list[Placed]:
    """The findings at ``severity`` or above (error > warning > info)."""
    rank = SEVERITIES.index(severity)
    return [f for f in findings if SEVERITIES.index(f.severity) <= rank]
