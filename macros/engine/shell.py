"""Reading shell text as bash reads it: one linear pass over quotes, escapes, continuations,
comments, control operators, redirections, here-documents and env prefixes.

Owns ``scan`` (the logical lines, each split into simple commands of ``Word``s, with whether
``&`` ends each) and the problems where bash reads the text differently from how it looks (CRLF,
a ``\\`` before trailing spaces, a comment inside a continued command, a BOM). Must not know any
program, flag or catalog (``check.py`` finds the SGLang commands in the words) and must not run
or expand anything: ``$(…)`` stays text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

class ParseError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word as the program receives it (quotes and escapes removed)."""

    text: str
    line: int  # the physical line it starts on
    assignment: bool = False  # NAME=value with a plain NAME: an environment prefix
    substitution: bool = False  # holds a command substitution ($(…), `…`, <(…), >(…))


@dataclass
class Logical:
    """One line of shell input as bash reads it: up to an unescaped, unquoted newline."""

    line: int
    text: str
    commands: list[list[Word]]  # simple commands, split at control operators
    background: list[bool]  # of each command: whether '&' ends it
    # of each command: the control operators between it and the next command ('' for the last)
    operators: list[str] = field(default_factory=list)


@dataclass
class Scan:
    lines: list[Logical]
    problems: list[tuple[int, str, str]]  # (line, rule, message): bash would run it otherwise


_BOM = ("parse.bom", "the text starts with a byte-order mark (U+FEFF): bash reads it as part "
        "of the first word; save the text without it")
_CRLF = ("parse.crlf", "the line ends with a carriage return (Windows CRLF line ends): bash "
         "keeps '\\r' in the last word, so '8\\r' is not '8' and a '\\' before it does not "
         "continue the command; save the text with LF line ends")
_SPACED = ("parse.backslash-space", "'\\' is followed by spaces, so the shell ends the command "
           "here; delete the spaces after it")
_COMMENT_LINE = ("parse.comment-in-command", "a comment line inside a continued command ends "
                 "it: the shell runs the lines below as a separate command; move the comment "
                 "above the command")
_BACKSLASH_COMMENT = ("parse.comment-after-backslash", "a comment follows the '\\' on this line, "
                      "so the '\\' escapes the space after it instead of the line end and the "
                      "shell ends the command here (the lines below run as a command of their "
                      "own); move the comment above the command")
_COMMENT_END = ("parse.comment-in-command", "the '\\' at the end of this line is part of the "
                "comment, so the shell ends the command here; move the comment above the "
                "command")

# Bash's lexical classes; possessive repeats keep a long quoted value from costing memory.
# `<name>` is a placeholder the reader fills in (`--node-rank <rank>`), printed unquoted on
# purpose, so it is word text here although bash would read a redirection; so are `<other
# args>` (words inside, none at its edges) and `[args]`, `[a|b]`, `[...]` (no blank inside),
# which bash would read as a glob and a pipe.
_TOKEN = re.compile(r"""
    (?P<blank>[ \t]+)
  | (?P<bracket>\[[^\s\[\]'"`$\\;&()<>]*\|[^\s\[\]'"`$\\;&()<>]*\](?=[\s;&)]|\Z))
  | (?P<plain>[^ \t\n'"\\\#;&|()<>$`]+)
  | (?P<newline>\n)
  | (?P<cont>\\(?:\n|\Z))
  | (?P<bscomment>\\[ \t]+\#[^\n]*(?:\n|\Z))
  | (?P<spaced>\\[ \t]+\n)
  | (?P<escape>\\.?)
  | (?P<squote>'[^']*')
  | (?P<ansi>\$'[^'\\]*+(?:\\.[^'\\]*+)*+')
  | (?P<dquote>"[^"\\]*+(?:\\.[^"\\]*+)*+")
  | (?P<subst>\$\(|\$\{|`|[<>]\()
  | (?P<dollar>\$)
  | (?P<hash>\#)
  | (?P<placeholder><[^<>\s'"`$\\;&|()](?:[^<>\n'"`$\\;&|()]*[^<>\s'"`$\\;&|()])?>)
  | (?P<redirect>&>>?|[<>]&[0-9]*-?|>>|>\||<<<|<<-?|<>|[<>])
  | (?P<op>&&|\|\||;;&?|;&|\|&|[;&|()])
  | (?P<open>['"])
""", re.VERBOSE | re.DOTALL)
_DQUOTE_ESCAPE = re.compile(r"\\([$`\"\\\n])")
_ANSI_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", re.DOTALL)
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
         "f": "\f", "v": "\v"}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NEXT_IS_FLAG = re.compile(r"[ \t]*-")
_JOIN = re.compile(r"\\[ \t]*\n")
_CR_END = re.compile(r"\r(?=\n|\Z)")
_CLOSER = {"$(": ")", "<(": ")", ">(": ")", "${": "}", "`": "`"}
# A reader copying a recipe gets a server that stops with the terminal and a next command that
# runs before the server listens: bash runs it, so a warning, not an error.

def _ansi(body: str) -> str:
    def one(m: re.Match) -> str:
        code = m.group(1)
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8))
        return _ANSI.get(code, code)
    return _ANSI_ESCAPE.sub(one, body)


def _subst_end(text: str, i: int, close: str) -> int:
    """The index after the ``close`` that ends a substitution whose body starts at ``i``, or
    -1. Quotes and escapes inside are skipped; each character is looked at once."""
    opener = {")": "(", "}": "{"}.get(close)
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if close == "`":
            if c == "`":
                return i + 1
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return -1
            i = j + 1
            continue
        elif c == '"':
            m = _TOKEN.match(text, i)
            if m is None or m.lastgroup != "dquote":
                return -1
            i = m.end()
            continue
        elif c == opener:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


class _Scanner:
    """Reads shell text into lines, simple commands and words, in one pass."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1
        self.lines: list[Logical] = []
        self.problems: list[tuple[int, str, str]] = []
        self.commands: list[list[Word]] = [[]]
        self.background: list[bool] = [False]
        self.operators: list[list[str]] = [[]]  # the operators after each command
        self.parts: list[str] | None = None  # the word being read
        self.substituted = False  # the word being read holds a command substitution
        self.word_line = self.word_start = 0
        self.start: int | None = None  # where the current line's first token starts
        self.start_line = self.end = 0
        self.at_line_start = True  # only blanks so far on this physical line
        self.redirect: str | None = None  # a redirection waiting for its file name
        self.heredocs: list[tuple[str, bool]] = []

    def report(self, problem: tuple[str, str]) -> None:
        self.problems.append((self.line, *problem))

    def scan(self) -> Scan:
        n = len(self.text)
        while self.pos < n:
            try:
                self.step()
            except ParseError as exc:
                self.recover(exc)
        self.end_line()
        return Scan(self.lines, self.problems)

    def recover(self, exc: ParseError) -> None:
        """Report what bash cannot read, drop the line it is on and read on from the next:
        one shell error hides no other command."""
        self.problems.append((exc.line, "parse.shell", str(exc)))
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end  # the newline ends the dropped line
        self.drop()

    def drop(self) -> None:
        self.parts, self.substituted, self.redirect, self.heredocs = None, False, None, []
        self.commands, self.background, self.operators, self.start = [[]], [False], [[]], None

    def step(self) -> None:
        """Read one token."""
        text = self.text
        m = _TOKEN.match(text, self.pos)
        kind, chunk = m.lastgroup, m.group()
        if kind == "blank":
            self.end_word()
            self.pos = m.end()
            return
        if kind == "newline":
            self.pos = m.end()
            self.end_line()
            self.line += 1
            self.at_line_start = True
            self.skip_heredocs()
            return
        if kind in ("cont", "spaced", "bscomment"):
            if kind != "cont":
                self.report(_SPACED if kind == "spaced" else _BACKSLASH_COMMENT)
                self.end_word()  # the author meant a continuation: read it as one
            self.pos = m.end()
            if not chunk.endswith("\n"):  # a comment on the text's last line
                return
            self.line += 1
            self.at_line_start = True
            return
        if kind == "hash" and self.parts is None:
            self.comment()
            return
        if kind in ("op", "redirect"):
            self.operator(kind, chunk)
            self.pos = m.end()
            return
        if kind == "open":
            raise ParseError(self.line, "cannot split the command into words: the "
                             f"{chunk} quote opened here is never closed")
        self.word_text(kind, chunk, m.end())

    def word_text(self, kind: str, chunk: str, end: int) -> None:
        if self.parts is None:
            self.parts, self.word_line, self.word_start = [], self.line, self.pos
            self.begin()
        if kind == "escape":
            chunk = chunk[1:] or "\\"
        elif kind == "squote":
            chunk = chunk[1:-1]
        elif kind == "dquote":
            chunk = _DQUOTE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1),
                                       chunk[1:-1])
        elif kind == "ansi":
            chunk = _ansi(chunk[2:-1])
        elif kind == "subst":
            # `${…}` and arithmetic `$((…))` run no command
            self.substituted = self.substituted or not (
                chunk == "${" or chunk == "$(" and self.text.startswith("(", end))
            close = _subst_end(self.text, end, _CLOSER[chunk])
            if close < 0:
                raise ParseError(self.line, f"cannot split the command into words: the "
                                 f"'{chunk}' opened here is never closed")
            end, chunk = close, self.text[self.pos:close]
        if kind in ("squote", "dquote", "ansi", "subst"):
            self.line += self.text.count("\n", self.pos, end)
        self.parts.append(chunk)
        self.pos = self.end = end
        self.at_line_start = False

    def begin(self) -> None:
        if self.start is None:
            self.start, self.start_line = self.pos, self.line

    def end_word(self) -> None:
        if self.parts is None:
            return
        raw = self.text[self.word_start:self.pos]
        word = Word("".join(self.parts), self.word_line, bool(_ASSIGNMENT.match(raw)),
                    self.substituted)
        self.parts, self.substituted = None, False
        if self.redirect is None:
            self.commands[-1].append(word)
            return
        if self.redirect in ("<<", "<<-"):
            self.heredocs.append((word.text, self.redirect == "<<-"))
        self.redirect = None  # the file name is the redirection's, not the program's

    def operator(self, kind: str, chunk: str) -> None:
        if kind == "redirect" and self.parts is not None \
                and self.text[self.word_start:self.pos].isdigit():
            self.parts, self.substituted = None, False  # `2>`: the digits name a descriptor
        self.end_word()
        if self.redirect is not None:
            raise ParseError(self.line, f"the redirection '{self.redirect}' names no file")
        self.begin()
        self.end = self.pos + len(chunk)
        self.at_line_start = False
        if kind == "op":
            self.background[-1] = chunk == "&"
            self.operators[-1].append(chunk)
            self.commands.append([])
            self.background.append(False)
            self.operators.append([])
        elif not (chunk[-1].isdigit() or chunk[-1] == "-"):  # `>&2` and `>&-` are complete
            self.redirect = chunk

    def comment(self) -> None:
        text = self.text
        end = text.find("\n", self.pos)
        end = len(text) if end < 0 else end
        problem = None
        if self.start is not None:  # inside a command
            continued = text[self.pos:end].rstrip(" \t").endswith("\\")
            if not self.at_line_start:
                problem = _COMMENT_END if continued else None
            elif continued or _NEXT_IS_FLAG.match(text, end + 1):
                problem = _COMMENT_LINE
        if problem is None:
            self.pos = end  # the newline ends the command, as bash has it
            return
        self.report(problem)
        # the author meant the command to go on: read it so, having said that bash does not
        self.pos = end + 1
        self.line += 1
        self.at_line_start = True

    def end_line(self) -> None:
        self.end_word()
        if self.redirect is not None:  # the line is dropped: bash would not run it
            self.problems.append((self.line, "parse.shell",
                                  f"the redirection '{self.redirect}' names no file"))
            self.drop()
        if self.start is not None:
            text = _JOIN.sub(" ", self.text[self.start:self.end])
            kept = [i for i, c in enumerate(self.commands) if c]
            # the operators joining a kept command to the next one, past any empty command
            # (`( a ) ; b`: ') ;')
            joins = [" ".join(op for j in range(i, nxt) for op in self.operators[j])
                     for i, nxt in zip(kept, kept[1:])] + [""] if kept else []
            self.lines.append(Logical(self.start_line, text, [self.commands[i] for i in kept],
                                       [self.background[i] for i in kept], joins))
        self.commands, self.background, self.start = [[]], [False], None
        self.operators = [[]]

    def skip_heredocs(self) -> None:
        text, n = self.text, len(self.text)
        for delimiter, strip_tabs in self.heredocs:
            while self.pos < n:
                end = text.find("\n", self.pos)
                end = n if end < 0 else end
                body = text[self.pos:end]
                self.pos = min(end + 1, n)
                self.line += 1
                if (body.lstrip("\t") if strip_tabs else body) == delimiter:
                    break
        self.heredocs = []


def scan(text: str) -> Scan:
    """Bash's reading of ``text``, plus what in it bash reads differently from how it looks.
    Each such problem is reported once, and the rest is read as its author meant."""
    problems: list[tuple[int, str, str]] = []
    if text.startswith("\ufeff"):
        problems.append((1, *_BOM))
        text = text[1:]
    cr = _CR_END.search(text)
    if cr:
        problems.append((text.count("\n", 0, cr.start()) + 1, *_CRLF))
        text = _CR_END.sub("", text)
    scan = _Scanner(text).scan()
    scan.problems[:0] = problems
    return scan


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Each line of shell input with its continuations joined, at its first physical line."""
    return [(logical.line, logical.text) for logical in scan(text).lines]
