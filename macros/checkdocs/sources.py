"""The shell blocks of a file, each line with its place in the original file.

Owns telling a file's format (by its name: ``.md``/``.markdown``, ``.mdx``, ``.rst``,
``.ipynb``, ``.sh``/``.bash``; a script with a shell ``#!`` line) and reading its shell blocks:
Markdown and MDX fences of a shell language (a ``console`` block keeps its ``$`` lines),
reStructuredText ``code-block::``/``code::``/``sourcecode::`` of a shell language and ``::``
literal blocks that hold a shell command, a notebook's ``%%bash``/``%%sh`` cells, ``!`` lines
and the server commands its Python hands to a launcher (``launch_server_cmd("…")``,
``execute_shell_command``, ``subprocess``, ``os.system``), and a shell script whole. Each
block line keeps the file line it came from and the offset of each of its characters in the
file's text (``Line``), so a finding is reported where it was written and a fix lands there.
A ``check:`` directive just above a block (``<!-- check: skip -->``, ``{/* check: … */}`` in
MDX, ``.. check: …`` in reStructuredText, ``# check: …`` first in a notebook cell, or after its ``%%bash``) skips it or
gives its context (``model=…``, ``sglang=…``, a dimension ``hw=…``). Must not judge a command
(``engine/check.py`` does).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from macros.checkdocs import notebook

SHELL_LANGS = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session",
                         "shellsession", "shell-script", "terminal"})
FORMATS = {".md": "markdown", ".markdown": "markdown", ".mdx": "mdx", ".rst": "rst",
           ".ipynb": "notebook", ".sh": "shell", ".bash": "shell"}
_SHEBANG = re.compile(r"#!\s*\S*(?:/|env\s+)(?:ba|z|da|k)?sh\b")


class SourceError(ValueError):
    """A file this reader cannot read as its format says: (line, message)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


@dataclass
class Line:
    """One line of a block: its 1-based line in the file, and where its characters are."""

    file_line: int
    start: int  # offset in the file's text of the line's first character
    cols: list[int] | None = None  # offset of each character (and one past the end), when
    # the line is not a plain slice of the file (a notebook's JSON string, a prompt removed)
    cell: int | None = None  # a notebook's cell (1-based) and the line in it
    cell_line: int | None = None

    def offset(self, col: int) -> int:
        if self.cols is None:
            return self.start + col
        return self.cols[min(col, len(self.cols) - 1)]


@dataclass
class Block:
    path: str
    text: str
    lines: list[Line]
    kind: str  # the block's form, e.g. "markdown bash", "notebook %%bash"
    context: dict[str, str] = field(default_factory=dict)
    skip: bool = False
    directive_line: int | None = None
    fixable: bool = True  # its text is the file's own characters (--fix can write there)

    def at(self, line: int | None) -> Line:
        """The file place of a 1-based line of the block's text (its first line for None)."""
        i = min(max((line or 1) - 1, 0), len(self.lines) - 1)
        return self.lines[i]


def format_of(path: str, head: str = "") -> str | None:
    """The format a file is read as: by its suffix, else a shell ``#!`` line; None if neither."""
    fmt = FORMATS.get(PurePath(path).suffix.lower())
    if fmt is None and _SHEBANG.match(head.lstrip("\ufeff")):
        return "shell"
    return fmt


def _physical(text: str) -> list[tuple[int, str]]:
    """Each line as (offset of its start, its text without the line end: LF or CRLF)."""
    out, i = [], 0
    for piece in text.split("\n"):
        out.append((i, piece[:-1] if piece.endswith("\r") else piece))
        i += len(piece) + 1
    return out


def _directive(args: str) -> tuple[dict[str, str], bool]:
    context: dict[str, str] = {}
    skip = False
    for word in args.split():
        key, eq, value = word.partition("=")
        if key == "skip" and value in ("", "true"):  # `skip`, or `skip=true` as Sybil's
            skip = True
        else:
            context[key] = value if eq else "true"
    return context, skip


def _console(lines: list[tuple[str, Line]]) -> list[tuple[str, Line]]:
    """A console session: its commands, prompts ('$ ', '# ', '% ') removed; output lines
    become empty so that every line keeps its number."""
    out = []
    continued = False
    for text, where in lines:
        m = re.match(r"[ \t]*[$#%][ \t]", text) if not continued else None
        if continued or m:
            cut = m.end() if m else 0
            cols = None if where.cols is None else where.cols[cut:]
            out.append((text[cut:], Line(where.file_line, where.start + cut, cols, where.cell,
                                         where.cell_line)))
            continued = text.rstrip().endswith("\\")
        else:
            out.append(("", Line(where.file_line, where.start, None, where.cell,
                                 where.cell_line)))
    return out


def _block(path: str, kind: str, lines: list[tuple[str, Line]], language: str,
           directive: tuple[dict[str, str], bool, int] | None = None) -> Block:
    if language in ("console", "shell-session", "shellsession", "terminal"):
        lines = _console(lines)
    context, skip, at = directive if directive else ({}, False, None)
    return Block(path, "\n".join(t for t, _ in lines), [w for _, w in lines],
                 f"{kind} {language}", context, skip, at)


# --- Markdown and MDX -----------------------------------------------------------------------

_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*)$")
_MD_DIRECTIVE = re.compile(r"<!--\s*check:(?P<args>.*?)-->\s*$")
_MDX_DIRECTIVE = re.compile(r"\{/\*\s*check:(?P<args>.*?)\*/\}\s*$")


def _language(info: str) -> str:
    info = info.strip().lstrip("{").strip()
    word = re.split(r"[\s{},=]", info, maxsplit=1)[0] if info else ""
    return word.lstrip(".").lower()


def _before(phys: list[tuple[int, str]], i: int, pattern: re.Pattern):
    """The check directive on the last non-blank line above line index ``i``, if any."""
    j = i - 1
    while j >= 0 and not phys[j][1].strip():
        j -= 1
    if j >= 0:
        m = pattern.search(phys[j][1].strip())
        if m and m.start() == 0:
            context, skip = _directive(m.group("args"))
            return context, skip, j + 1
    return None


def markdown_blocks(path: str, text: str, mdx: bool = False) -> list[Block]:
    phys = _physical(text)
    blocks = []
    i = 0
    while i < len(phys):
        m = _FENCE.match(phys[i][1])
        if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent"))
        close = re.compile(rf"[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(phys) and not close.match(phys[j][1]):
            j += 1
        language = _language(m.group("info"))
        if not language and _untagged_shell([t for _, t in phys[i + 1:j]]):
            # an untagged fence holding an SGLang command (or a shell script) is read as
            # the shell it is; a '$ ' prompt makes it a console session
            prompt = any(re.match(r"[ \t]*\$[ \t]", t) for _, t in phys[i + 1:j])
            language = "console" if prompt else "literal"
        if language in SHELL_LANGS or language == "literal":
            lines = []
            for k, (start, line) in enumerate(phys[i + 1:j]):
                cut = min(_indent(line), indent)
                lines.append((line[cut:], Line(i + 2 + k, start + cut)))
            directive = _before(phys, i, _MDX_DIRECTIVE if mdx else _MD_DIRECTIVE) \
                or (_before(phys, i, _MD_DIRECTIVE) if mdx else None)
            if lines:
                blocks.append(_block(path, "mdx" if mdx else "markdown", lines, language,
                                     directive))
        i = j + 1
    return blocks


# --- reStructuredText -----------------------------------------------------------------------

_RST_CODE = re.compile(r"(?P<indent>[ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode)::"
                       r"[ \t]*(?P<lang>\S*)[ \t]*$")
_RST_DIRECTIVE = re.compile(r"\.\.\s+check:(?P<args>.*)$")
_RST_LITERAL = re.compile(r"(?P<indent>[ \t]*)(?!\.\.\s).*::[ \t]*$")
_SHELLISH = re.compile(r"(?m)^[ \t]*(?:\$[ \t]+)?(?:[A-Z_][A-Z0-9_]*=\S*[ \t]+)*"
                       r"(?:sudo[ \t]+)?(?:sglang[ \t]|python3?[ \t]+-m[ \t]+sglang|"
                       r"docker[ \t]+run|curl[ \t])")


def _untagged_shell(body: list[str]) -> bool:
    """An untagged Markdown fence is shell when it starts with a shell's ``#!`` line or
    holds an SGLang command (the reStructuredText literal block's test)."""
    first = next((t.strip() for t in body if t.strip()), "")
    return bool(_SHEBANG.match(first)) or bool(_SHELLISH.search("\n".join(body)))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _rst_body(phys, i: int, base: int, options: bool) -> tuple[list[tuple[int, str]], int]:
    """The indented body after line index ``i`` (a directive's options skipped): its lines
    with their indices, and the index after it."""
    j = i + 1
    if options:
        while j < len(phys) and phys[j][1].strip().startswith(":") \
                and _indent(phys[j][1]) > base:
            j += 1
    body = []
    while j < len(phys):
        line = phys[j][1]
        if line.strip() and _indent(line) <= base:
            break
        body.append(j)
        j += 1
    while body and not phys[body[-1]][1].strip():
        body.pop()
    while body and not phys[body[0]][1].strip():
        body.pop(0)
    return body, j


def rst_blocks(path: str, text: str) -> list[Block]:
    phys = _physical(text)
    blocks = []
    i = 0
    while i < len(phys):
        line = phys[i][1]
        m = _RST_CODE.match(line)
        literal = None if m else _RST_LITERAL.match(line)
        if not m and not literal:
            i += 1
            continue
        base = _indent(line)
        body, after = _rst_body(phys, i, base, bool(m))
        if not body:
            i += 1
            continue
        cut = min(_indent(phys[j][1]) for j in body if phys[j][1].strip())
        lines = [(phys[j][1][cut:], Line(j + 1, phys[j][0] + cut)) for j in body]
        text_of = "\n".join(t for t, _ in lines)
        language = _language(m.group("lang")) if m else ""
        if m and language in SHELL_LANGS:
            blocks.append(_block(path, "rst", lines, language, _before(phys, i, _RST_DIRECTIVE)))
        elif literal and _SHELLISH.search(text_of):
            prompt = re.match(r"\s*\$\s", text_of)
            blocks.append(_block(path, "rst", lines, "console" if prompt else "literal",
                                 _before(phys, i, _RST_DIRECTIVE)))
        i = after
    return blocks


# --- shell scripts --------------------------------------------------------------------------

def shell_blocks(path: str, text: str) -> list[Block]:
    """A script is one block, read as bash reads it (CRLF and a BOM are findings here)."""
    lines, start = [], 0
    for n, piece in enumerate(text.split("\n"), 1):
        lines.append((piece, Line(n, start)))
        start += len(piece) + 1
    return [Block(path, text, [w for _, w in lines], "shell script")]


# --- notebooks ------------------------------------------------------------------------------

# Python calls whose string argument is a shell command: SGLang's notebook helpers and the
# standard library's ways to run one.
LAUNCHERS = frozenset({"launch_server_cmd", "execute_shell_command"})
_SUBPROCESS = frozenset({"run", "Popen", "call", "check_call", "check_output", "system",
                         "getoutput", "getstatusoutput"})
_MAGIC = re.compile(r"%%(?:bash|sh|script[ \t]+(?:ba)?sh)\b")
_NB_DIRECTIVE = re.compile(r"#\s*check:(?P<args>.*)$")


def _cell_lines(cell: notebook.Cell) -> list[tuple[str, Line]]:
    out = []
    pos = 0
    for n, piece in enumerate(cell.source.split("\n"), 1):
        text = piece[:-1] if piece.endswith("\r") else piece
        cols = cell.offsets[pos:pos + len(text) + 1]
        out.append((text, Line(0, cols[0] if cols else 0, cols, cell.number, n)))
        pos += len(piece) + 1
    return out


def _launcher(call: ast.Call) -> bool:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id in LAUNCHERS or f.id in _SUBPROCESS - {"run", "call", "system"}
    if isinstance(f, ast.Attribute):
        if f.attr in LAUNCHERS:
            return True
        owner = f.value.id if isinstance(f.value, ast.Name) else ""
        return f.attr in _SUBPROCESS and owner in ("subprocess", "sp", "os")
    return False


def _no_shell(call: ast.Call) -> bool:
    """SGLang's notebook launchers run no shell: they split the whole string at whitespace
    (a '\\' and a line end are spaces), so a line end does not end the command."""
    f = call.func
    return (f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")) in LAUNCHERS


def _joined(lines: list[tuple[str, Line]]) -> list[tuple[str, Line]]:
    """A launcher's lines as the one command it runs: each line but the last continued."""
    return [(text + " \\" if k < len(lines) - 1 and not text.rstrip().endswith("\\")
             else text, where) for k, (text, where) in enumerate(lines)]


_PREFIX = re.compile(r"(?i)[rbuf]*")


def _string_lines(node: ast.expr, cell_lines: list[tuple[str, Line]]
                  ) -> list[tuple[str, Line]] | None:
    """The lines of a string literal as written (an f-string's ``{…}`` read as a shell
    variable), or None when it is not one literal this reader can place."""
    if not isinstance(node, (ast.Constant, ast.JoinedStr)) or node.end_lineno is None:
        return None
    if isinstance(node, ast.Constant) and not isinstance(node.value, str):
        return None
    first, last = node.lineno - 1, node.end_lineno - 1
    segment = [t for t, _ in cell_lines[first:last + 1]]
    # columns are UTF-8 byte offsets in ast: turn them into characters
    start = len(segment[0].encode("utf-8")[:node.col_offset].decode("utf-8", "ignore"))
    end = len(segment[-1].encode("utf-8")[:node.end_col_offset].decode("utf-8", "ignore"))
    prefix = _PREFIX.match(segment[0], start).group()
    quote_at = start + len(prefix)
    quote = segment[0][quote_at:quote_at + 3]
    quote = quote if quote in ('"""', "'''") else segment[0][quote_at]
    if segment[-1][end - len(quote):end] != quote:
        return None  # implicit concatenation of several literals: not placed here
    out = []
    for k, (text, where) in enumerate(cell_lines[first:last + 1]):
        a = quote_at + len(quote) if k == 0 else 0
        b = end - len(quote) if k == last - first else len(text)
        body = text[a:b]
        cols = where.cols[a:b + 1] if where.cols is not None else None
        if "f" in prefix.lower():
            body, cols = _fstring(body, cols)
        out.append((body, Line(where.file_line, where.offset(a), cols, where.cell,
                                where.cell_line)))
    raw = "\n".join(t for t, _ in out)
    if "r" not in prefix.lower() and "\\" in raw.replace("\\\n", "").replace("\\\\", ""):
        escaped = re.sub(r"\\(?!\n)(.)", r"\1", raw)
        if escaped != raw:  # escapes the shell would read otherwise: value, first line
            return None
    return out


def _fstring(body: str, cols: list[int] | None) -> tuple[str, list[int] | None]:
    """An f-string's text with each ``{expr}`` as ``$name`` (known only at run time)."""
    out, mapped, i = [], [], 0
    while i < len(body):
        if body.startswith(("{{", "}}"), i):
            out.append(body[i])
            mapped.append(cols[i] if cols else i)
            i += 2
            continue
        if body[i] == "{":
            j = body.find("}", i)
            j = len(body) - 1 if j < 0 else j
            name = re.sub(r"\W+", "_", body[i + 1:j].split("!")[0].split(":")[0]).strip("_")
            word = "$" + (name if re.fullmatch(r"[A-Za-z_]\w*", name or "") else "VALUE")
            out.append(word)
            mapped.extend([cols[i] if cols else i] * len(word))
            i = j + 1
            continue
        out.append(body[i])
        mapped.append(cols[i] if cols else i)
        i += 1
    end = cols[len(body)] if cols else len(body)
    return "".join(out), (mapped + [end]) if cols is not None else None


def _words_of(node: ast.expr, lines: list[tuple[str, Line]]) -> list[tuple[str, Line]] | None:
    """A list of strings (``["python3", "-m", …]``) as shell lines: the words written on one
    line of the cell stay on one line, continued with ``\\`` (a word not a literal is
    ``$VALUE``, known at run time)."""
    import shlex
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    rows: dict[int, list[str]] = {}
    for item in node.elts:
        literal = isinstance(item, ast.Constant) and isinstance(item.value, str)
        word = shlex.quote(item.value) if literal else "$VALUE"
        rows.setdefault(item.lineno, []).append(word)
    out = []
    numbers = sorted(rows)
    for k, n in enumerate(numbers):
        where = lines[n - 1][1]
        text = " ".join(rows[n]) + (" \\" if k < len(numbers) - 1 else "")
        out.append((text, Line(where.file_line, where.start, None, where.cell,
                               where.cell_line)))
    return out


def _python_blocks(path: str, cell: notebook.Cell, lines: list[tuple[str, Line]],
                   directive) -> list[Block]:
    """The shell commands a code cell's Python hands to a launcher, and its ``!`` lines."""
    blocks = []
    masked = []
    for text, where in lines:
        stripped = text.lstrip()
        if stripped.startswith("!"):
            cut = len(text) - len(stripped) + 1
            cols = where.cols[cut:] if where.cols is not None else None
            body = text[cut:]
            if "{" in body:  # IPython fills in {expr} before the shell runs the line
                body, cols = _fstring(body, cols)
            blocks.append(_block(path, "notebook", [(body, Line(
                where.file_line, where.offset(cut), cols, where.cell, where.cell_line))],
                "!", directive))
            masked.append(text[:len(text) - len(stripped)] + "pass")
        elif stripped.startswith("%"):
            masked.append(text[:len(text) - len(stripped)] + "pass")
        else:
            masked.append(text)
    try:
        tree = ast.parse("\n".join(masked))
    except SyntaxError:
        return blocks  # not Python this reader can follow: its ! lines only
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args or not _launcher(node):
            continue
        arg = node.args[0]
        placed = _string_lines(arg, lines)
        if placed is not None:
            if _no_shell(node):
                placed = _joined(placed)
            blocks.append(_block(path, "notebook", placed, "python string", directive))
            continue
        words = _words_of(arg, lines)
        if words is None and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            where = lines[arg.lineno - 1][1]  # escapes read: every line at the string's start
            words = [(text, Line(where.file_line, where.start, None, where.cell,
                                 where.cell_line)) for text in arg.value.split("\n")]
        if words is not None:
            if _no_shell(node) and not isinstance(arg, (ast.List, ast.Tuple)):
                words = _joined(words)
            blocks.append(_block(path, "notebook", words, "python value", directive))
            blocks[-1].fixable = False  # rebuilt from Python values, not the file's text
    return blocks


def notebook_blocks(path: str, text: str) -> list[Block]:
    try:
        found = notebook.cells(text)
    except notebook.NotebookError as exc:
        raise SourceError(exc.line, str(exc)) from None
    file_lines = _LineIndex(text)
    blocks = []
    for cell in found:
        if cell.kind != "code" or not cell.source.strip():
            continue
        lines = _cell_lines(cell)
        for _, where in lines:
            where.file_line = file_lines.line(where.start)
        directive = None
        first = next((k for k, (t, _) in enumerate(lines) if t.strip()), 0)
        head = lines[first][0].strip()
        # the directive is the cell's first line, or the line after its %%bash
        for k in (first, first + 1) if _MAGIC.match(head) else (first,):
            m = _NB_DIRECTIVE.match(lines[k][0].strip()) if k < len(lines) else None
            if m:
                context, skip = _directive(m.group("args"))
                directive = (context, skip, lines[k][1].file_line)
        if _MAGIC.match(head):
            blocks.append(_block(path, "notebook", lines[first + 1:], "%%" + head[2:].split()[0],
                                 directive))
        elif cell.language in ("bash", "sh", "shell", "zsh"):
            blocks.append(_block(path, "notebook", lines, cell.language, directive))
        elif not head.startswith("%%"):
            blocks.extend(_python_blocks(path, cell, lines, directive))
    return blocks


class _LineIndex:
    """File line of an offset, by bisection over the line starts."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        import bisect
        return bisect.bisect_right(self.starts, offset)


def blocks(path: str, text: str, fmt: str) -> list[Block]:
    """Every shell block of ``text`` read as ``fmt`` (one of ``FORMATS``' values)."""
    if fmt in ("markdown", "mdx"):
        return markdown_blocks(path, text, mdx=fmt == "mdx")
    if fmt == "rst":
        return rst_blocks(path, text)
    if fmt == "notebook":
        return notebook_blocks(path, text)
    return shell_blocks(path, text)
