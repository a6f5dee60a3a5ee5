"""The command checker: shell text → parsed commands → findings (error / warning / info).

Owns finding the ``sglang serve``, ``python3 -m sglang.launch_server`` and ``python3 -m
sglang_router.launch_router`` commands in the words ``shell.scan`` reads (with what bash reads
differently from how it looks as findings, and a command sent to the background with ``&``);
the catalog findings, judged per program as argparse would (unknown, abbreviated, deprecated
flags, flags only another program reads, bad values with the choices the command's env adds,
words no flag takes, deprecated and unknown env vars, less what the model's branch reads:
``branch_env``, ``branch_values``); telling whose rules apply (the model chosen, or the one a
command's --model-path serves, with a warning where none can be told) and running them in
context, each cell's rules narrowed once to those that can hold for it (``CellRules``); a
server command run by ``docker run … IMAGE`` has its docker options judged against
hardware.yaml's vocabulary (``docker.py``), against the platform's vendor (another vendor's
options), for the host folders it mounts and the ports it publishes, its image against the
model's ``docker_images`` and its flags as the image's release parses them; a curl request's
port against the server's (the router's for a PD server; the host side of the ``-p`` that
publishes it); another command chained on a server's line, and command substitutions in it;
a context no model has when none is chosen. Generated commands are checked by the same ``check_state`` so the
CLI, the build and the docs tests agree. Must not read shell syntax itself (``shell.py``) or run
or expand anything: ``$(…)`` stays text.

Size: the parsed commands (``Command``, ``DockerRun``, ``Curl``) and ``Finding`` are shared by
every kind of finding, and the rule findings read the same context the catalog findings set up;
the docker and curl findings are the part to move out once ``Finding`` lives below them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from macros.engine import check_config, docker, programs, shellvalues
from macros.engine import diffusion_check  # registers the diffusion CLI's programs (its module)
from macros.engine.conditions import attr as _attr, equalities
from macros.engine.catalog import Catalog
from macros.engine.model import Database
from macros.engine.model import Model, branch_value_problem, likely_typo
from macros.engine.errors import Problem, RecipeError, choices_hint
from macros.engine.flags import split_words
from macros.engine.results import Diagnostic, TextRef
from macros.engine.schema import Cell, Severity
from macros.engine.programs import BENCH, ROUTER, SERVER, Program
from macros.engine.shell import Logical, Word, scan


@dataclass
class DockerRun:
    """The ``docker run`` in front of a server command: its image and the options docker's
    vocabulary (hardware.yaml ``run_flags``) does not know."""

    image: str | None
    line: int
    image_line: int
    unknown: list[tuple[str, int]] = field(default_factory=list)
    options: set[tuple[str, str | None]] = field(default_factory=set)
    # each option in order: (name, value, as written, line)
    read: list[tuple[str, str | None, str, int]] = field(default_factory=list)

    def network_host(self) -> str | None:
        """The option sharing the host's network, as written, or None."""
        return next((w for n, v, w, _ in self.read if n in docker.NETWORK and v == "host"), None)


@dataclass
class Curl:
    """A curl request in shell text: each URL it sends to, with its line."""

    urls: list[tuple[str, int]]


@dataclass
class Command:
    """One server or router command found in shell text."""

    program: str  # server | router
    line: int
    entry: str = "sglang serve"  # the program as the catalog names it
    env: list[tuple[str, str]] = field(default_factory=list)
    flags: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # (word, the flag before it, its line): words argparse would refuse
    positionals: list[tuple[str, str | None, int]] = field(default_factory=list)
    model: str | None = None
    text: str = ""
    positional_model: bool = False
    flag_lines: dict[str, int] = field(default_factory=dict)
    background: bool = False  # ended by '&'
    docker: DockerRun | None = None
    # the other commands on its line: (the operator joining them, the other's program, its
    # line, whether the other comes after this one)
    chained: list[tuple[str, str, int, bool]] = field(default_factory=list)
    substitutions: list[tuple[str, int]] = field(default_factory=list)  # (word, its line)
    tool: Program | None = None  # the registered program (programs.py) that starts it
    # flags its --config file gives: name -> (the file as written, the key's line there)
    from_config: dict[str, tuple[str, int]] = field(default_factory=dict)
    config_unread: str | None = None  # the --config file that is not beside the text
    config_count: int = 0  # how many of ``flags`` (the first ones) the --config file gave


@dataclass
class Finding:
    severity: Severity
    rule: str
    message: str
    flags: list[str]
    line: int | None = None
    text_id: str | None = None
    fields: dict[str, str] = field(default_factory=dict)


# What the shell does with the other command, by the operator joining it to the server: the
# other command after the server, or before it.
_AFTER = {";": "the shell runs {other} once the server stops",
          "&&": "the shell runs {other} once the server exits without an error",
          "||": "the shell runs {other} when the server fails",
          "|": "the shell pipes the server's output into {other}",
          "|&": "the shell pipes the server's output into {other}",
          "&": "the shell starts the server in the background and runs {other} at once"}
_BEFORE = {";": "the shell runs {other} first, then the server",
           "&&": "the shell runs {other} first and the server only if it succeeds",
           "||": "the shell runs {other} first and the server only if it fails",
           "|": "the shell pipes {other}'s output into the server",
           "|&": "the shell pipes {other}'s output into the server",
           "&": "the shell runs {other} in the background, then the server"}


def _chain_findings(cmd: Command) -> list[Finding]:
    """Another command on the server's (router's) line, and a command substitution in its
    words: the line runs a command it is not about."""
    out = []
    what = "server" if cmd.program == "server" else "router"
    for joins, other, line, after in cmd.chained:
        ops = [op for op in joins.split() if op not in ("(", ")")] or [";"]
        op = ops[-1] if after else ops[0]
        meaning = (_AFTER if after else _BEFORE).get(op, _AFTER[";"]).format(other=other)
        meaning = meaning.replace("the server", f"the {what}")
        out.append(Finding(Severity.error, "check.chained-command",
                           f"'{op}' chains {other} onto the {what} command on this line: "
                           f"{meaning}, so whoever copies the line runs {other} too; put each "
                           "command on a line of its own", [], line))
    for word, line in cmd.substitutions:
        inner = re.search(r"(?:\$\(|`|[<>]\()\s*([^\s)`;&|]+)", word)
        program = inner.group(1) if inner else "a command"
        out.append(Finding(Severity.warning, "check.command-substitution",
                           f"'{word}' holds a command substitution: the shell runs {program} "
                           f"before the {what} starts and puts its output in its place, so "
                           f"neither this check nor the reader sees the value the {what} gets; "
                           "write the value itself", [], line))
    return out


_BACKGROUND = ("'&' runs this command in the background: the shell goes on at once, so the next "
               "command runs before the server listens; start it in a terminal of its own (or "
               "under a process manager) and wait until its /health endpoint answers")


def parse(text: str, catalogs: dict[str, Catalog],
          run_flags: dict[str, bool] | None = None) -> list[Command]:
    """Every command in ``text`` of a program whose kind (``server``, ``router``) ``catalogs``
    holds the parser of; other shell commands are ignored. A command ends where bash ends it:
    at a newline or a control operator (``&&``, ``|``, ``;`` …); redirections (``> log``,
    ``2>&1``) are not its arguments. With ``run_flags`` (docker's vocabulary) a ``docker run``
    in front of a server command is read too."""
    return _commands(scan(text).lines, lambda p: catalogs.get(p.kind), run_flags)


def _docker_run(head: list[Word], run_flags: dict[str, bool] | None,
                cmd: Command) -> None:
    """Read ``docker run OPTIONS IMAGE`` in the words before the program: the image, the
    options docker would refuse, and the environment ``-e``/``--env`` pass in."""
    at = next((i for i in range(len(head) - 1)
               if head[i].text == "docker" and head[i + 1].text == "run"), None)
    if at is None or run_flags is None:
        return
    words = head[at + 2:]
    found = docker.read([w.text for w in words], run_flags)
    image = words[found.image] if found.image is not None else None
    def written(o: docker.Option) -> str:
        first = words[o.at].text
        return f"{o.name} {o.value}" if first == o.name and o.value is not None else first

    cmd.docker = DockerRun(image.text if image else None, head[at].line,
                           image.line if image else head[at].line,
                           [(name, words[i].line) for name, i in found.unknown],
                           {(o.name, o.value) for o in found.options},
                           [(o.name, o.value, written(o), words[o.at].line)
                            for o in found.options])
    for option in found.options:
        if option.name in ("-e", "--env") and option.value and "=" in option.value:
            name, value = option.value.split("=", 1)
            cmd.env.append((name, value))
            cmd.flag_lines[name] = words[option.at].line


def _curls(lines: list[Logical]) -> list[Curl]:
    return [Curl([(w.text, w.line) for w in words[1:] if re.match(r"https?://", w.text)])
            for logical in lines for words in logical.commands
            if words and words[0].text == "curl"]


def _split_continued(lines: list[Logical], problems) -> list[Logical]:
    """A command whose last line ends with a ``\\`` the author did not mean runs on into the
    next line's program (``--page-size \\`` then ``python -m sglang.launch_server …``): that
    is reported, and the two are read as the two commands the author wrote."""
    out: list[Logical] = []
    for logical in lines:
        pending = logical
        while True:
            cut = _continued_at(pending)
            if cut is None:
                out.append(pending)
                break
            k, i = cut
            words = pending.commands[k]
            if problems is not None:
                problems.append((words[i - 1].line, "parse.continued-into-command",
                                 f"the '\\' at the end of line {words[i - 1].line} continues "
                                 f"this command into the next one ('{words[i].text} …' on line "
                                 f"{words[i].line}), so the shell runs them as one; end line "
                                 f"{words[i - 1].line} without '\\'"))
            out.append(Logical(pending.line, pending.text, pending.commands[:k] + [words[:i]],
                               pending.background[:k] + [False],
                               pending.operators[:k] + [""]))
            pending = Logical(words[i].line, pending.text, [words[i:]] + pending.commands[k + 1:],
                              pending.background[k:], [*pending.operators[k:]])
    return out


def _continued_at(logical: Logical) -> tuple[int, int] | None:
    """(command, word) where a second program starts on a later line of one command, at the
    first word of its line; None when no command holds one."""
    for k, words in enumerate(logical.commands):
        found = programs.find([w.text for w in words])
        if found is None:
            continue
        rest = programs.find([w.text for w in words[found[2]:]])
        if rest is None:
            continue
        at = found[2] + rest[1]
        i = at
        while i > 0 and words[i - 1].line == words[at].line:
            i -= 1
        if i > 0:
            return k, i
    return None


# argparse's own option on every program's parser (add_help): it prints the help and exits
HELP = frozenset({"-h", "--help"})


def _commands(lines: list[Logical], catalog_of, run_flags: dict[str, bool] | None = None,
              problems: list[tuple[int, str, str]] | None = None,
              helps: list[int] | None = None) -> list[Command]:
    """The commands of registered programs whose parser ``catalog_of(program)`` gives (None:
    not read); a line of flags the line above does not continue goes into ``problems``; a
    command asking for its help (``-h``) is no command to judge: its line goes into
    ``helps``."""
    commands: list[Command] = []
    lines = _split_continued(lines, problems)
    found_at = [[programs.find([w.text for w in words]) for words in logical.commands]
                for logical in lines]
    for logical, found_here in zip(lines, found_at):
        for k, words in enumerate(logical.commands):
            found = found_here[k]
            if found is None:
                if k == 0 and commands and words[0].text.startswith("--") \
                        and problems is not None:
                    problems.append((words[0].line, "parse.shell",
                                     f"'{words[0].text}' starts a line of its own: the line "
                                     "above does not end with '\\', so the shell would run "
                                     "this as a separate command"))
                continue
            tool, first, start = found
            if any(w.text in HELP for w in words[start:]):
                if helps is not None:
                    helps.append(words[0].line)
                continue  # argparse prints the help and exits: nothing else is read or run
            catalog = catalog_of(tool)
            if catalog is None:
                continue
            cmd = Command(tool.kind, words[0].line, tool.name, text=logical.text,
                          positional_model=tool.positional_model,
                          background=logical.background[k], tool=tool)
            for j, other in enumerate(logical.commands):
                theirs = found_here[j]
                if j == k or (j < k and theirs):  # two programs: said once, by the first
                    continue
                joins = logical.operators[min(j, k):max(j, k)]
                cmd.chained.append((joins[-1] if j > k else joins[0],
                                    theirs[0].name if theirs else other[0].text,
                                    other[0].line, j > k))
            cmd.substitutions = [(w.text, w.line) for w in words if w.substitution]
            head = words[:first]
            # env assignments directly in front of the program (or of 'python3 -m')
            while head and (head[-1].text in ("python", "python3", "env")
                            or re.fullmatch(r"(\S*/)?python3?(\.[0-9]+)?", head[-1].text)):
                head = head[:-1]
            env = []
            for w in reversed(head):
                if not w.assignment:
                    break
                name, value = w.text.split("=", 1)
                env.append((name, value))
                cmd.flag_lines[name] = w.line
            cmd.env = env[::-1]
            if tool.kind == SERVER:
                _docker_run(head, run_flags, cmd)
            _parse_args(cmd, words[start:], catalog)
            commands.append(cmd)
    return commands


def _parse_args(cmd: Command, words: list[Word], catalog: Catalog) -> None:
    """Flags and their values as argparse groups them; each flag's line (by the name written
    and by the full name) is kept for precise messages."""
    i = 0
    argparse_flags = 0  # the program takes flags of its own out before argparse sees the rest
    while i < len(words):
        w = words[i].text
        if not w.startswith("-") or w == "-":
            if cmd.positional_model and not argparse_flags and not cmd.positionals \
                    and cmd.model is None:
                cmd.model = w  # `sglang serve <model>`
            else:
                cmd.positionals.append((w, cmd.flags[-1][0] if cmd.flags else None,
                                        words[i].line))
            i += 1
            continue
        name, eq, inline = w.partition("=")
        spec = catalog.lookup(name).spec
        cmd.flag_lines.setdefault(name, words[i].line)
        if spec is not None:
            cmd.flag_lines.setdefault(spec.name, words[i].line)
        if spec is None or not spec.programs or cmd.entry not in spec.programs:
            argparse_flags += 1
        values: list[str] = [inline] if eq else []
        i += 1
        if eq:
            pass
        elif spec is not None and not spec.takes_value:
            pass
        elif spec is not None and spec.nargs in (None, 1, "?"):
            if i < len(words) and not (words[i].text.startswith("--")):
                values.append(words[i].text)
                i += 1
        else:
            while i < len(words) and not words[i].text.startswith("--"):
                values.append(words[i].text)
                i += 1
        cmd.flags.append((name, tuple(values)))


# --- findings --------------------------------------------------------------------------------

def catalog_findings(cmd: Command, catalog: Catalog, env_known: set[str],
                     branch_values: dict[str, dict[str, str | None]] | None = None
                     ) -> list[Finding]:
    """What the pinned catalog says of a command, as its program (``cmd.entry``) parses it
    with the command's env: ``env_known`` and ``branch_values`` are what the model's branch
    reads beyond it (``model_env``, ``model_values``)."""
    out: list[Finding] = []
    seen: dict[str, str] = {}
    given: dict[str, tuple[str, ...]] = {}  # the values of each flag whose values are sound
    hints: dict[str, str] = {}  # a suggestion compares with every flag: once per unknown name
    env = dict(cmd.env)
    for name, values in cmd.flags:
        hit = catalog.lookup(name)
        spec = hit.spec
        if spec is not None and spec.programs and cmd.entry not in spec.programs:
            out.append(Finding(Severity.error, "catalog.unknown-flag",
                               f"unknown flag {name} for {cmd.entry}: only "
                               f"{' and '.join(spec.programs)} reads it, before argparse runs, "
                               "so argparse refuses it here", [name],
                               text_id="catalog.unknown-flag", fields={"flag": name}))
            continue
        if hit.kind == "unknown":
            if name not in hints:  # the suggestion compares with every flag: once per catalog
                memo = catalog.__dict__.setdefault("_hints", {})
                if name not in memo:
                    memo[name] = choices_hint(name, catalog.flags)
                hints[name] = memo[name]
            out.append(Finding(Severity.error, "catalog.unknown-flag",
                               f"unknown flag {name} for {catalog.package} {catalog.version} "
                               f"({hints[name]})", [name],
                               text_id="catalog.unknown-flag", fields={"flag": name}))
            continue
        if hit.kind == "ambiguous":
            out.append(Finding(Severity.error, "catalog.ambiguous-flag",
                               f"{name} is an ambiguous abbreviation (could be "
                               f"{', '.join(hit.candidates)})", [name],
                               text_id="catalog.ambiguous-flag", fields={"flag": name}))
            continue
        if hit.kind == "abbreviated":
            out.append(Finding(Severity.warning, "catalog.abbreviated-flag",
                               f"{name} is an abbreviation of {spec.name}; argparse accepts it, "
                               f"but write {spec.name}: a later release may add a flag that "
                               "makes it ambiguous", [name, spec.name],
                               text_id="catalog.abbreviated-flag",
                               fields={"flag": name, "full": spec.name}))
        if spec.deprecated:
            why = re.sub(r"^deprecated:\s*", "", spec.deprecated)
            out.append(Finding(Severity.warning, "catalog.deprecated-flag",
                               f"{spec.name} is deprecated: {why}", [spec.name],
                               text_id="catalog.deprecated-flag",
                               fields={"flag": spec.name, "why": why}))
        judged = catalog.spec_under_env(spec, env)
        if values and judged.takes_value:  # run-time values and placeholders, as they can be
            values = _shell_values(judged, values, out)
        problem = branch_value_problem(judged, values, branch_values or {}) \
            if not (hit.kind == "negated" and not values) else None
        if problem is None and spec.name in catalog.roles.get("prefill-url", ()):
            problem = _bootstrap_port(spec.name, values)
        locked = [(v, var) for v, var in spec.env_choices
                  if v in values and v not in (judged.choices or ())]
        if problem and locked:
            problem += "".join(f"; {catalog.package} {catalog.version} adds '{v}' while {var} "
                               "is set to 1" for v, var in locked)
        if problem:
            out.append(Finding(Severity.error, "catalog.bad-value", problem, [spec.name],
                               text_id="catalog.bad-value", fields={"problem": problem}))
        else:
            given[spec.name] = values
        if spec.name in seen and spec.nargs not in ("+", "*") and not _is_append(spec):
            out.append(Finding(Severity.warning, "catalog.repeated-flag",
                               f"{spec.name} is given twice; the last one wins", [spec.name],
                               text_id="catalog.repeated-flag", fields={"flag": spec.name}))
        seen[spec.name] = name
    for name, other, problem in catalog.below_problems(given):
        out.append(Finding(Severity.error, "catalog.bad-value", problem, [name, other],
                           text_id="catalog.bad-value", fields={"problem": problem}))
    model_flags = catalog.roles.get("model", ())
    more = any(shellvalues.stray_placeholder(w) for w, _, _ in cmd.positionals)
    if model_flags and seen.keys().isdisjoint(model_flags) and cmd.model is None \
            and not more:  # `...`, `[args]` stand for more arguments: the model among them
        out.append(Finding(Severity.error, "catalog.missing-model",
                           f"the command names no model ({model_flags[0]})", [model_flags[0]],
                           text_id="catalog.missing-model"))
    for word, before, line in cmd.positionals:  # neither program takes positional arguments
        if shellvalues.stray_placeholder(word):  # `[args]`, `...`: the reader fills them in
            continue
        out.append(Finding(Severity.error, "catalog.stray-word", _stray(word, before, catalog),
                           [], line, text_id="catalog.stray-word", fields={"word": word}))
    for name, _ in cmd.env:
        if name in catalog.deprecated_env:
            why = catalog.deprecated_env[name]
            out.append(Finding(Severity.warning, "catalog.deprecated-env",
                               f"{name} is deprecated: {why}", [name],
                               text_id="catalog.deprecated-env", fields={"env": name, "why": why}))
        elif name.startswith("SGLANG_") and name not in catalog.env and name not in env_known:
            out.append(Finding(Severity.warning, "catalog.unknown-env",
                               f"{name} is not in {catalog.package} {catalog.version}'s "
                               f"environment registry", [name],
                               text_id="catalog.unknown-env", fields={"env": name}))
    return out


def _shell_values(spec, values: tuple[str, ...], out: list[Finding]) -> tuple[str, ...]:
    """``values`` with each one the shell fills in at run time, or the reader fills in, judged
    by what it can become (into ``out``) and left out of argparse's judgement."""
    kept = []
    for value in values:
        judged = shellvalues.judge(spec, value)
        if judged.problem:
            out.append(Finding(Severity.error, "catalog.bad-value", judged.problem, [spec.name],
                               text_id="catalog.bad-value", fields={"problem": judged.problem}))
        if judged.note:
            out.append(Finding(Severity.warning, "check.placeholder", judged.note, [spec.name],
                               fields={"flag": spec.name, "value": value}))
        kept.append(judged.value)
    return tuple(kept)


def _bootstrap_port(name: str, values: tuple[str, ...]) -> str | None:
    """The router's own reading of ``--prefill URL PORT`` after parsing (a number or 'none',
    router_args._parse_prefill_urls); None when it takes it."""
    if len(values) < 2 or values[1] == shellvalues.SKIP or values[1].lower() == "none":
        return None
    try:
        int(values[1])
    except ValueError:
        return (f"{name} {values[0]} {values[1]}: the router refuses it once its arguments are "
                f"parsed (\"Invalid bootstrap port: {values[1]}. Must be a number or 'none'\")")
    return None


def _is_append(spec) -> bool:
    return spec.action == "append"


def _stray(word: str, before: str | None, catalog: Catalog) -> str:
    """Why argparse refuses ``word``: the flag in front of it took all the values it takes."""
    spec = catalog.lookup(before).spec if before is not None else None
    if spec is None or (spec.takes_value and spec.nargs not in (None, 1, "?")):
        return f"unexpected word '{word}' (not a flag or a flag's value)"
    takes = "no value" if not spec.takes_value else \
        "at most one value" if spec.nargs == "?" else "one value"
    return (f"unexpected word '{word}': {before} takes {takes}, so argparse refuses '{word}' as "
            "an unrecognized argument")


class _CheckContext:
    def __init__(self, db: Database, model: Model | None, match: dict[str, str], picks,
                 flags: dict[str, tuple[str, ...]], env: dict[str, str], cell: Cell | None,
                 program: str, extra: dict[str, Any]):
        self.db, self.model, self.match, self.hw = db, model, match, match.get("hw")
        self.picks, self._flags, self._env, self.cell = picks or {}, flags, env, cell
        self.program, self.extra = program, extra

    def value(self, key: str):
        if key in self.match:
            return self.match[key]
        if key == "program":
            return self.program
        if key in self.extra:
            return self.extra[key]
        if key.startswith("hw."):
            if self.hw is None or self.hw not in self.db.platforms:
                return None
            return _attr(self.db.platforms[self.hw], key[3:])
        if key.startswith("cell."):
            return None if self.cell is None else _attr(self.cell, key[5:])
        return self.picks.get(key)  # generated commands pass every pick, hidden ones as ""

    def flags(self):
        return self._flags

    def cell_flags(self):
        if self.cell is None or self.model is None:
            return None
        i = self.model.cell_index[self.model.key(self.cell.match)]
        return {f.name: f.values for f in self.model.cell_flags[i]}

    def env(self):
        return self._env


class CellContext:
    """What every selection of one cell shares before anything is picked: its dimensions, its
    platform and attributes, its own flags; the program is the server. Conditions are
    three-valued and a fact left unknown never turns False into True, so a rule whose
    condition is False here is False for every selection of the cell: each cell reads only
    the rules that can hold for it (``cell_rules``)."""

    def __init__(self, db: Database, model: Model, cell: Cell):
        self.db, self.match, self.cell = db, cell.match, cell
        self.flag_map = {f.name: f.values
                         for f in model.cell_flags[model.cell_index[model.key(cell.match)]]}

    def value(self, key: str):
        if key in self.match:
            return self.match[key]
        if key.startswith("hw."):
            return _attr(self.db.platforms[self.match["hw"]], key[3:])
        if key.startswith("cell."):
            return _attr(self.cell, key[5:])
        return "server" if key == "program" else None

    def flags(self):
        return None

    def cell_flags(self):
        return self.flag_map

    def env(self):
        return None


class CellRules:
    """The rules of a model that can hold for one cell, list by list (``name`` tells the lists
    apart), each worked out on first use."""

    def __init__(self, ctx: CellContext):
        self.context = ctx
        self._lists: dict = {}

    def of(self, name, rules, when=lambda rule: rule.when) -> tuple:
        """``rules`` less those whose condition (``when``) cannot hold here, in order."""
        hit = self._lists.get(name)
        if hit is None:
            hit = self._lists[name] = tuple(r for r in rules
                                            if when(r).holds(self.context) is not False)
        return hit


def cell_rules(db: Database, model: Model, cell: Cell, key: tuple[str, ...]) -> CellRules:
    """The ``CellRules`` of ``cell`` (``key``: ``model.key(cell.match)``), one per cell."""
    table = model.cache.setdefault("cell_rules", {})
    hit = table.get(key)
    if hit is None:
        hit = table[key] = CellRules(CellContext(db, model, cell))
    return hit


def rule_findings(db: Database, model: Model, ctx: _CheckContext, rules=None) -> list[Finding]:
    """The findings of the model's checks (or of ``rules``, a part of them) in ``ctx``."""
    out: list[Finding] = []
    for rule in model.rules.checks if rules is None else rules:
        if rule.when.holds(ctx) is not True:
            continue
        involved = [f for f in rule.flags if f in ctx.flags()] or list(rule.flags)
        involved += [e for e in rule.flags_from_env if e in ctx.env()]
        # the message may name any context value its condition reads ({router_bootstrap} …)
        fields = {k: str(v) for k in sorted(rule.when.keys())
                  if (v := ctx.value(k)) is not None}
        message = db.t("en", rule.message, model, **fields)
        out.append(Finding(rule.severity, rule.id, message, involved, text_id=rule.message,
                           fields=fields))
    return out


def check_state(db: Database, model: Model, match, picks, flags, env, cell,
                release: str | None = None):
    """Findings for a composed command (called by resolve for every generated command), judged
    as the release it is written for parses it (the pinned one when None). Worked out once per
    distinct command and context: many selections compose the same command, and the rules read
    only the settings their conditions name (``Node.keys``)."""
    read = model.cache.get("check_keys")
    if read is None:
        read = model.cache["check_keys"] = tuple(sorted(
            set().union(*(r.when.keys() for r in model.rules.checks))))
    cell_key = model.key(cell.match) if cell else None
    key = (tuple(match.items()), tuple((k, picks.get(k)) for k in read if k not in match),
           tuple(flags.items()), tuple(env.items()), cell.match["hw"] if cell else None,
           cell_key, release)
    memo = model.cache.setdefault("check_state", {})
    if key not in memo:
        checks = cell_rules(db, model, cell, cell_key).of("checks", model.rules.checks) \
            if cell else None
        memo[key] = _check_state(db, model, match, picks, flags, env, cell, release, checks)
    return list(memo[key])


def _check_state(db: Database, model: Model, match, picks, flags, env, cell, release, checks):
    # the rules are written in the spelling a migration replaces: read the command back in it
    ctx = _CheckContext(db, model, match, picks, db.releases.legacy(flags), env, cell, "server",
                        {})
    return _catalog_diagnostics(db, model, flags, env, release) \
        + _diagnostics(model, rule_findings(db, model, ctx, checks))


def _catalog_diagnostics(db: Database, model: Model, flags, env, release) -> list[Diagnostic]:
    """What the catalog says of a generated command: the same for every context it is
    composed in, so once per command."""
    key = (tuple(flags.items()), tuple(env.items()), release)
    memo = model.cache.setdefault("catalog_diagnostics", {})
    if key not in memo:
        cmd = Command("server", 0, env=list(env.items()),
                      flags=[(n, v) for n, v in flags.items()])
        catalog = db.catalog if release in (None, db.catalog.version) \
            else db.releases.catalog(release)
        memo[key] = _diagnostics(model, catalog_findings(cmd, catalog, model_env(model),
                                                  model_values(model)))
    return memo[key]


def _diagnostics(model: Model, findings: list[Finding]) -> list[Diagnostic]:
    """The findings as results, one frozen object per distinct finding of a model: the memo
    tables above hold them for every distinct command, and most commands share them."""
    table = model.cache.setdefault("diagnostics", {})
    out = []
    for f in findings:
        key = (f.severity, f.rule, f.text_id, tuple(f.fields.items()), tuple(f.flags))
        hit = table.get(key)
        if hit is None:
            hit = table[key] = Diagnostic(
                severity=f.severity, rule=f.rule,
                message=TextRef(id=f.text_id or f.rule, fields=f.fields), flags=f.flags)
        out.append(hit)
    return out


def _check_context(db: Database, model: Model, context: dict[str, str]) -> None:
    """A misspelt context would silently switch rules off: refuse it, naming the choices."""

    problems = []
    for key, value in context.items():
        if key in model.dimensions:
            options = [o for o, _, _ in model.dimension_options[key]]
        elif key in model.axis_index:
            options = [o.id for o in model.axis_index[key].options]
        else:
            problems.append(f"'{key}' is not a dimension or setting of {model.info.name} "
                            f"({choices_hint(key, [*model.dimensions, *model.axis_index])})")
            continue
        if value in options:
            continue
        if key == "hw":
            near = likely_typo(value, options)  # the closest id is often another GPU
            problems.append(f"hw '{value}' is not a platform of {model.info.name} ("
                            + (f"did you mean '{near}'? " if near else "")
                            + f"known: {', '.join(options)})")
        else:
            problems.append(f"{key} '{value}' is not an option of {model.info.name} "
                            f"({choices_hint(value, options)})")
    if problems:
        raise RecipeError([Problem("<check context>", None, None, p) for p in problems])


def _check_context_any(db: Database, context: dict[str, str]) -> None:
    """With no model chosen: a context key or value no model has would switch rules off for
    every command; refuse it, naming the choices of all models."""
    problems = []
    for key, value in context.items():
        options: list[str] = []
        for model in db.models.values():
            if key in model.dimensions:
                options += [o for o, _, _ in model.dimension_options[key]]
            elif key in model.axis_index:
                options += [o.id for o in model.axis_index[key].options]
        options = list(dict.fromkeys(options))
        if not options:
            keys = {k: None for m in db.models.values() for k in (*m.dimensions, *m.axis_index)}
            problems.append(f"'{key}' is not a dimension or setting of any model "
                            f"({choices_hint(key, list(keys))})")
        elif value not in options:
            if key == "hw":
                near = likely_typo(value, options)
                problems.append(f"hw '{value}' is not a platform of any model ("
                                + (f"did you mean '{near}'? " if near else "")
                                + f"known: {', '.join(options)})")
            else:
                problems.append(f"{key} '{value}' is not an option of any model "
                                f"({choices_hint(value, options)})")
    if problems:
        raise RecipeError([Problem("<check context>", None, None, p) for p in problems])


def _pd_context(model: Model, mode: str | None, match: dict[str, str]) -> dict[str, str]:
    """The dimensions a hand-written server command implies by its --disaggregation-mode,
    read from the model's PD declaration: a prefill (decode) server has the dimension values
    its declaration names; a command that is no PD server has the one option of each such
    dimension that no declaration names (a role dimension's "unified", say)."""
    pd = model.info.pd
    if pd is None:
        return match
    declared = {kind: {k: v for k, v in equalities(server.when).items() if k in model.dimensions}
                for kind, server in pd.servers().items()}
    out = dict(match)
    if mode in declared:
        for k, v in declared[mode].items():
            out.setdefault(k, v)
        return out
    for dim in {k for d in declared.values() for k in d}:
        named = {d[dim] for d in declared.values() if dim in d}
        rest = [o for o, _, _ in model.dimension_options[dim] if o not in named]
        if len(rest) == 1:
            out.setdefault(dim, rest[0])
    return out


def model_env(model: Model | None) -> set[str]:
    """SGLANG_* variables the model's branch reads that the pinned release does not read."""
    return set() if model is None else set(model.info.branch_env)


def model_values(model: Model | None) -> dict[str, dict[str, str | None]]:
    """Flag values the model's branch accepts that the pinned catalog refuses."""
    return {} if model is None else model.info.branch_values


def check_text(db: Database, text: str, *, model_id: str | None = None,
               sglang: str | None = None, base_dir: str | os.PathLike | None = None,
               **context: str) -> list[Finding]:
    """Check every command in ``text`` in the given context (cell dimensions and Playground
    settings by id, e.g. ``hw="b300"``); unknown context skips rules that need it. The rules of
    ``model_id`` apply, else those of the only model, else those of the model each command
    names (``_named_models``). Each command is judged by its own program's parser
    (``programs.py``) as sglang ``sglang`` (a release of the flag history) has it; the pinned
    release when it is None. A shell error is reported and the next command is read on; the
    same abbreviation, and the model no command names, are said once per text. A server's
    ``--config FILE`` is read from ``base_dir`` (the checked file's folder), its options
    checked as flags; without the file a note says so once."""
    release = db.catalog.version if sglang is None else _release_catalog(db, sglang).version
    diffusion_check.use(db)  # which CLI serves each model of the recipes
    context = {k: v for k, v in context.items() if v is not None}
    fixed = db.model(model_id) if model_id else (next(iter(db.models.values()))
                                                  if len(db.models) == 1 else None)
    if fixed is not None:
        _check_context(db, fixed, context)
    else:  # the model is told per command later: each value must be one some model has
        _check_context_any(db, context)
    read = scan(text)
    problems = list(read.problems)
    missing: list[Command] = []  # commands of a program this release lacks

    def parser(tool: Program) -> Catalog:
        catalog = tool.parser(db, release)
        if catalog is None:
            missing.append(tool)
            return db.catalog  # to group its words; it is judged by nothing more
        return catalog

    helps: list[int] = []
    commands = _commands(read.lines, parser, db.containers.run_flags, problems, helps)
    raw = [Finding(Severity.error, rule, message, [], line)
           for line, rule, message in sorted(problems, key=lambda p: p[0])]
    curls = _curls(read.lines)
    if not commands and not curls:
        if helps or any(rule == "parse.shell" for _, rule, _ in problems):
            return raw
        return raw + [Finding(Severity.error, "parse.no-command",
                              f"no command of {', '.join(programs.names())} and no curl "
                              "command found", [], 1)]
    catalogs = [parser(cmd.tool) if cmd.tool is not None else db.catalog for cmd in commands]
    for cmd, catalog in zip(commands, catalogs):
        for f in _read_config(cmd, catalog, Path(base_dir) if base_dir is not None else None):
            if f.rule != "check.config-unread" or all(g.rule != f.rule for g in raw):
                raw.append(f)  # a file not beside the text is said once
    absent = {id(t) for t in missing}
    all_flags = [_canonical_flags(cmd, catalog) for cmd, catalog in zip(commands, catalogs)]
    models, unsure = ([fixed] * len(commands), {}) if fixed is not None else \
        _named_models(db, commands, all_flags, context)
    if curls:
        raw += _curl_findings(db, curls, commands, all_flags, fixed, context)
    server_bootstrap = None
    for cmd, flags in zip(commands, all_flags):
        if cmd.program == SERVER and "--disaggregation-bootstrap-port" in flags:
            server_bootstrap = flags["--disaggregation-bootstrap-port"][0]
    out: list[Finding] = raw
    said: set[tuple[str, ...]] = set()  # findings said once per text
    for i, (cmd, flags, model, catalog) in enumerate(zip(commands, all_flags, models,
                                                         catalogs)):
        found = _chain_findings(cmd)
        for severity, rule, message in diffusion_check.notes(cmd):  # how its CLI was told
            found.append(Finding(Severity(severity), rule, message, [], cmd.line))
        if cmd.tool is not None and id(cmd.tool) in absent:
            have = programs.instead(db, cmd.tool, release)
            found.append(Finding(Severity.error, "check.program-missing",
                                 f"sglang {release} has no {cmd.entry}: python exits with "
                                 f"'No module named {cmd.entry.split()[-1]}'"
                                 + (f"; run {' or '.join(have)}" if have else ""), [],
                                 cmd.line))
            for f in found:
                f.line = f.line or cmd.line
            out.extend(found)
            continue
        if cmd.tool is not None and cmd.tool.notice is not None:
            notice = cmd.tool.notice(db, release)
            if notice:
                found.append(Finding(Severity.warning, "check.deprecated-program",
                                     f"sglang {release} warns when {cmd.entry} starts: "
                                     f"{notice}", [], cmd.line))
        if cmd.docker is not None:
            given = db.catalog.role_value(flags, "port")
            port = given[0] if given else _default_port(db.catalog)
            docker_found, image_release = _docker_findings(db, cmd.docker, model,
                                                           context.get("hw"), port,
                                                           given is not None)
            found += docker_found
            if image_release is not None and sglang is None:  # judged as the image's release
                catalog = cmd.tool.parser(db, image_release) or catalog
        server = cmd.program == SERVER  # the branch reads server flags and env only
        found += catalog_findings(cmd, catalog, model_env(model) if server else set(),
                                  model_values(model) if server else {})
        found += _model_off_the_line(cmd, catalog)
        found += unsure.get(i, [])
        if cmd.background:
            found.append(Finding(Severity.warning, "check.background", _BACKGROUND, [],
                                 cmd.line))
        env = dict(cmd.env)
        bootstrap = server_bootstrap if server_bootstrap is not None or model is None \
            or model.info.pd is None else str(model.info.pd.bootstrap_port)
        extra: dict[str, Any] = {"server_bootstrap": bootstrap}
        if cmd.program == ROUTER:
            prefill = flags.get("--prefill", ())
            extra["router_bootstrap"] = prefill[1] if len(prefill) > 1 else None
        if model is not None and cmd.program in (SERVER, ROUTER):
            match = {k: v for k, v in context.items() if k in model.dimensions}
            picks = {k: v for k, v in context.items() if k not in match}
            if cmd.program == SERVER:
                match = _pd_context(model, flags.get("--disaggregation-mode", (None,))[0], match)
            cell = model.cell(match) if all(d in match for d in model.dimensions) else None
            rule_flags = db.releases.legacy(flags) if cmd.program == SERVER else flags
            ctx = _CheckContext(db, model, match, picks, rule_flags, env, cell, cmd.program,
                                extra)
            found += rule_findings(db, model, ctx)
        for f in found:
            lines = [cmd.flag_lines[n] for n in f.flags if n in cmd.flag_lines]
            f.line = f.line or (lines[0] if lines else cmd.line)  # the rule's first flag
            if not _config_finding(cmd, f):
                continue
            key = _said_once(f)
            if key is not None:
                if key in said:
                    continue
                said.add(key)
            out.append(f)
    return out


def _read_config(cmd: Command, catalog: Catalog, base: Path | None) -> list[Finding]:
    """Put the options of a server's ``--config FILE`` in front of its flags, as SGLang's
    merger does; what keeps the server from reading the file is an error, a file not beside
    the checked text a note."""
    given = next((v for n, v in cmd.flags if n == "--config"), None)
    if cmd.tool is None or not cmd.tool.config or not given:
        return []
    line = cmd.flag_lines.get("--config", cmd.line)
    path = check_config.locate(given[0], base)
    if path is None:
        cmd.config_unread = given[0]
        return [Finding(Severity.info, "check.config-unread",
                        f"--config {given[0]}: the file is not beside the checked text, so "
                        "the options it gives (the model too) were not checked", ["--config"],
                        line)]
    config = check_config.read(path, given[0], catalog)
    cmd.flags[0:0] = [(name, values) for name, values, _ in config.args]
    cmd.config_count = len(config.args)
    for name, _, key_line in config.args:
        spec = catalog.lookup(name).spec
        for known in {name, spec.name if spec is not None else name}:
            cmd.from_config.setdefault(known, (given[0], key_line))
            cmd.flag_lines.setdefault(known, line)
    return [Finding(Severity.error, "check.config", f"--config {given[0]}, line {key_line}: "
                    f"{why}", ["--config"], line) for key_line, why in config.problems]


def _model_off_the_line(cmd: Command, catalog: Catalog) -> list[Finding]:
    """A program that takes its model from the command line alone (``sglang serve``, which
    picks its server by it before any server reads ``--config``) whose model the argparse
    reading finds elsewhere: in the config file, or as an abbreviation only argparse expands.
    SGLang stops there with "Error: --model-path is required"."""
    if cmd.tool is None or not cmd.tool.model_on_command_line or cmd.model is not None:
        return []
    roles = catalog.roles.get("model", ())
    if not roles:
        return []
    exact = {n for name in roles if name in catalog.flags
             for n in (name, *catalog.flags[name].aliases)}

    def is_model(name: str) -> bool:
        spec = catalog.lookup(name).spec
        return spec is not None and spec.name in roles
    own = [n for n, _ in cmd.flags[cmd.config_count:]]
    if any(n in exact for n in own):
        return []
    if any(is_model(n) for n in own):
        where = f"its model is given as the abbreviation {next(n for n in own if is_model(n))}"
    elif any(is_model(n) for n, _ in cmd.flags[:cmd.config_count]):
        origin = next(cmd.from_config[n] for n in cmd.from_config if is_model(n))
        where = f"its model comes from --config {origin[0]}, line {origin[1]}"
    else:
        return []  # no model at all: catalog.missing-model says so
    return [Finding(Severity.error, "catalog.missing-model",
                    f"{cmd.entry} looks for its model on the command line alone ({roles[0]} "
                    "written in full, or a first word) to pick its server, before any "
                    f"--config file is read; {where}, so it stops with 'Error: {roles[0]} is "
                    f"required'. Give {roles[0]} in full on the command line", [roles[0]],
                    cmd.flag_lines.get("--config", cmd.line))]


def _config_finding(cmd: Command, f: Finding) -> bool:
    """Whether to keep ``f`` of a command with ``--config``: the file's options come first
    and the command's own win (no repeated flag), a file not read may name the model (not
    for a program that takes its model from the command line alone); a finding about one of
    the file's options says which key gave it."""
    if cmd.config_unread and f.rule == "catalog.missing-model" \
            and not (cmd.tool is not None and cmd.tool.model_on_command_line):
        return False
    if f.rule == "catalog.repeated-flag" and any(n in cmd.from_config for n in f.flags):
        return False
    origin = cmd.from_config.get(f.flags[0]) if f.flags else None
    if origin is not None and all(n != f.flags[0] for n, _ in cmd.flags[cmd.config_count:]):
        f.message += f" (from --config {origin[0]}, line {origin[1]})"
    return True


def once_key(f) -> tuple[str, ...] | None:
    """The key of a finding a text (or a file of many blocks) says once however many commands
    repeat it: the same abbreviation, the same deprecated program, no model to tell, a config
    file not there; None for any other finding."""
    if f.rule == "catalog.abbreviated-flag":
        return (f.rule, *f.flags)
    if f.rule == "check.deprecated-program":
        return (f.rule, f.message)
    if f.rule in ("check.config-unread", "check.model-unknown"):
        return (f.rule,)
    return None


_said_once = once_key


def _docker_findings(db: Database, run: DockerRun, model: Model | None, hw: str | None,
                     port: str, port_given: bool) -> tuple[list[Finding], str | None]:
    """What docker would refuse in the options, the options the platform's vendor needs that
    the line lacks and those of another vendor it has (when the context names the hardware),
    host folders no server needs, ports that cannot reach the server (``port``: its --port,
    ``port_given``: written, not sglang's default), whether the image is one the data names
    (the model's ``docker_images``; any model's when none can be told), and the release that
    image ships (None: a branch build, or an image the data does not name)."""
    flags = db.containers.run_flags
    out = [Finding(Severity.error, "docker.unknown-flag", f"unknown docker run option {name} "
                   f"({choices_hint(name, flags)})", [name], line)
           for name, line in run.unknown]
    out += _mount_findings(db, run) + _publish_findings(run, port, port_given)
    if hw in db.platforms:
        out += _vendor_findings(db, run, db.platforms[hw])
        platform = db.platforms[hw]
        vendor = db.containers.vendors[platform.vendor.value]
        texts = list(vendor.args)
        if vendor.per_device:
            texts += [vendor.per_device.replace("{index}", str(i)) for i in
                      range(platform.gpus_per_node * (platform.devices_per_card or 1))]
        missing = [t for t in texts if not {(o.name, o.value) for o in docker.read(
            split_words(t), flags).options} <= run.options]
        if missing:
            out.append(Finding(Severity.warning, "docker.vendor-options", f"docker run lacks "
                               f"{', '.join(missing)}, which a container on {platform.label} "
                               f"gets (hardware.yaml containers.vendors.{platform.vendor.value})",
                               [], run.line))
    rules = model.info.docker_images if model is not None else \
        [r for m in db.models.values() for r in m.info.docker_images]
    images = list(dict.fromkeys(r.image for r in rules if r.image is not None))
    whose = f"{model.info.name}'s" if model is not None else "any model's"
    if run.image is None:
        out.append(Finding(Severity.error, "docker.no-image", "docker run names no image in "
                           "front of the server command", [], run.line))
        return out, None
    rule = next((r for r in rules if r.image == run.image), None)
    if rule is None:
        official = _official_release(db, run.image)
        if official is not False:  # a release image of a repository the recipes use
            return out, official
        out.append(Finding(Severity.error, "docker.foreign-image", f"image {run.image} is none "
                           f"of {whose} docker_images ({', '.join(images)})", [],
                           run.image_line))
        return out, None
    return out, (db.releases.resolve(rule.sglang) if rule.sglang else None)


# a release image's tag: the release, then the build's parts (CUDA or ROCm version, GPU, date,
# architecture), as lmsysorg/sglang and lmsysorg/sglang-rocm tag their images
_RELEASE_TAG = re.compile(r"v?([0-9]+\.[0-9]+\.[0-9]+(?:\.post[0-9]+)?)"
                          r"(?:-(?:cu[0-9]+|rocm[0-9]+|mi[0-9]+x?|[0-9]{8}|amd64|arm64|aarch64"
                          r"|x86_64|cann[0-9.]+|npu|a[0-9]))*")


def _official_release(db: Database, image: str) -> str | bool:
    """For an image of a repository some model's ``docker_images`` pulls from (the official
    ``lmsysorg/sglang``, say): the release its tag names (``v0.5.23-cu129``: 0.5.23;
    ``latest``: the newest); False for an image of any other repository or a tag that names
    no release of the flag history (a build of the recipes' own is named in docker_images)."""
    repository, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] \
        else (image, "", "latest")
    used = {r.image.rsplit(":", 1)[0] for m in db.models.values()
            for r in m.info.docker_images if r.image is not None}
    if repository not in used:
        return False
    if tag == "latest":
        return db.releases.newest
    m = _RELEASE_TAG.fullmatch(tag)
    return m.group(1) if m and m.group(1) in db.releases.order else False


def _read_option(db: Database, text: str) -> list[tuple[str, str | None]]:
    return [(o.name, o.value) for o in docker.read(split_words(text), db.containers.run_flags)
            .options]


def _vendor_claims(db: Database):
    """Each vendor's options as hardware.yaml declares them: the exact (name, value) pairs, a
    pattern per per-device option, and the option names; plus the names every line may use
    whatever the vendor (the shared options, the port, the cache, the environment)."""
    c = db.containers
    claims = {}
    for vendor, run in c.vendors.items():
        pairs = {p for text in run.args for p in _read_option(db, text)}
        patterns = []
        if run.per_device:
            for name, value in _read_option(db, run.per_device.replace("{index}", "0")):
                template = next(v for n, v in _read_option(db, run.per_device) if n == name)
                patterns.append((name, re.compile(
                    re.escape(template).replace(re.escape("{index}"), "[0-9]+"))))
        names = {n for n, _ in pairs} | {n for n, _ in patterns}
        claims[vendor] = (pairs, patterns, names)
    texts = [*c.shared, c.publish.replace("{port}", "1"), c.host_network, *c.cache,
             c.env + " NAME=value"]
    common = {n for text in texts for n, _ in _read_option(db, text)}
    return claims, common


def _vendor_findings(db: Database, run: DockerRun, platform) -> list[Finding]:
    """Options another vendor's containers get (hardware.yaml ``containers.vendors``) on a
    line for ``platform``: an option that vendor declares as written, or by a name only other
    vendors use."""
    claims, common = _vendor_claims(db)
    mine = platform.vendor.value
    pairs, patterns, names = claims[mine]

    def exact(vendor: str, name: str, value: str | None) -> bool:
        p, pats, _ = claims[vendor]
        return (name, value) in p or any(n == name and value is not None and pat.fullmatch(value)
                                         for n, pat in pats)

    out = []
    own = ", ".join(db.containers.vendors[mine].args)
    for name, value, written, line in run.read:
        if exact(mine, name, value):
            continue
        owner = next((v for v in claims if v != mine and exact(v, name, value)), None)
        if owner is None and name not in names and name not in common:
            owner = next((v for v in claims if v != mine and name in claims[v][2]), None)
        if owner is None:
            continue
        out.append(Finding(Severity.error, "docker.foreign-vendor-option",
                           f"{written} is an option of {owner} containers (hardware.yaml "
                           f"containers.vendors.{owner}), not of a container on "
                           f"{platform.label} ({mine}): there docker either refuses it or "
                           "hands the container devices or privileges it does not need; a "
                           f"container on {platform.label} gets {own}", [name], line))
    return out


def _mount_findings(db: Database, run: DockerRun) -> list[Finding]:
    """A bind mount of the host's root folder or of a home folder: the server, and anything
    it runs, could read and change every file in it."""
    cache = [t for t in db.containers.cache
             if any(n in docker.VOLUME + docker.MOUNT for n, _ in _read_option(db, t))]
    needs = f" (the Hugging Face cache: {', '.join(cache)})" if cache else ""
    out = []
    for name, value, written, line in run.read:
        source = docker.mount_source(name, value)
        kind = docker.host_folder(source) if source else None
        if kind is None:
            continue
        what = "the host's root folder (/)" if kind == "root" else f"a home folder ({source})"
        files = "every file of the host" if kind == "root" else \
            "every file in it (SSH keys, tokens, shell start-up files)"
        out.append(Finding(Severity.error, "docker.host-mount",
                           f"{written} mounts {what} into the container: the server, and "
                           f"anything it runs, can read and change {files}; mount only the "
                           f"folders it needs{needs}", [name], line))
    return out


def _publish_findings(run: DockerRun, port: str, port_given: bool) -> list[Finding]:
    """A published port docker refuses, one whose container side is not where the server
    listens (its --port), and ports the host's network makes docker discard."""
    out = []
    where = f"--port {port}" if port_given else f"sglang's default --port, {port}"
    listens = int(port) if port.isdigit() else None
    host_net = run.network_host()
    for name, value, written, line in run.read:
        if name not in docker.PUBLISH:
            continue
        got = docker.publish(value) if value else "it names no port"
        if isinstance(got, str):
            out.append(Finding(Severity.error, "docker.publish", f"{written}: {got}; docker "
                               "refuses the line", [name], line))
        elif host_net:
            out.append(Finding(Severity.warning, "docker.publish", f"{written} does nothing "
                               f"beside {host_net}: docker discards published ports when "
                               "the container shares the host's network, where the server "
                               f"listens on {where}", [name], line))
        elif got is not None and listens is not None \
                and not got.container[0] <= listens < sum(got.container):
            first, count = got.container
            side = str(first) if count == 1 else f"{first}-{first + count - 1}"
            out.append(Finding(Severity.error, "docker.publish",
                               f"{written} publishes the container's port {side}, but the "
                               f"server listens on {where} in the container, so nothing "
                               f"answers there; publish its port (-p HOST:{port})", [name],
                               line))
    return out


def docker_client_ports(run: DockerRun, port: str) -> tuple[set[str] | None, str]:
    """Where a client on the host reaches a server listening on ``port`` in ``run``'s
    container: the host side of the ``-p`` that publishes it, else (the host's network, or
    no -p) the port itself; None when docker picks the host's port."""
    listens = int(port) if port.isdigit() else None
    if run.network_host() or listens is None:
        return {port}, "the server's --port"
    mapped = []
    for name, value, written, _ in run.read:
        got = docker.publish(value) if name in docker.PUBLISH and value else None
        if isinstance(got, docker.Publish) and got.container[0] <= listens < sum(got.container):
            mapped.append((got.host_port(listens), written))
    if not mapped:
        return {port}, "the server's --port"
    if any(host is None for host, _ in mapped):
        return None, ""
    return ({str(h) for h, _ in mapped}, "the host port docker publishes the server's --port "
            f"{port} on ({', '.join(w for _, w in mapped)})")


_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")


def _default_port(catalog: Catalog) -> str:
    """Where a program listens when its command gives no port."""
    return str(catalog.flags[catalog.role_flags("port")[0]].default)


def _cell_ports(db: Database, model: Model, cells) -> set[str]:
    """The --port each cell's server listens on (sglang's default where a cell sets none)."""
    out = set()
    values = model.info.placeholders
    default = _default_port(db.catalog)
    names = db.catalog.role_flags("port")
    for cell in cells:
        flags = model.cell_flags[model.cell_index[model.key(cell.match)]]
        port = next((f.value for f in flags if f.name in names and f.value), default)
        out.add(_PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), port))
    return out


def _curl_findings(db: Database, curls: list[Curl], commands: list[Command],
                   all_flags: list[dict], model: Model | None,
                   context: dict[str, str]) -> list[Finding]:
    """A curl request must reach the server its text (or its context) describes: the router
    in front of PD servers, else the server's --port."""
    routers = [f for c, f in zip(commands, all_flags) if c.program == "router"]
    servers = [(c, f) for c, f in zip(commands, all_flags) if c.program == "server"]
    pd_server = any(f.get("--disaggregation-mode", ("null",))[0] != "null" for _, f in servers)
    if routers or (servers and not pd_server):
        flags = routers[-1] if routers else servers[-1][1]
        catalog = db.router_catalog if routers else db.catalog
        given = catalog.role_value(flags, "port")
        expected = {given[0] if given else _default_port(catalog)}
        why = "the router's --port" if routers else "the server's --port"
        run = None if routers else servers[-1][0].docker
        if run is not None:
            expected, why = docker_client_ports(run, next(iter(expected)))
            if expected is None:  # docker picks the host's port: no port to hold curl to
                return []
    elif pd_server and model is not None and model.info.pd is not None:
        expected = {str(model.info.pd.router.port)}
        why = "the router's --port (clients of a PD server reach it)"
    elif model is not None and not servers:
        expected, why = _context_ports(db, model, context)
    else:
        return []
    out = []
    for curl in curls:
        for url, line in curl.urls:
            try:
                port = urlsplit(url).port
            except ValueError:
                port = None
            if port is None or str(port) not in expected:
                said = f"port {port}" if port is not None else "no port"
                out.append(Finding(Severity.error, "curl.port", f"curl sends to {url} "
                                   f"({said}), but {why} is {' or '.join(sorted(expected))}",
                                   [], line))
    return out


def _context_ports(db: Database, model: Model, context: dict[str, str]
                   ) -> tuple[set[str], str]:
    match = {k: v for k, v in context.items() if k in model.dimensions}
    picks = {k: v for k, v in context.items() if k not in match}
    cell = model.cell(match) if all(d in match for d in model.dimensions) else None
    ctx = _CheckContext(db, model, match, picks, {}, {}, cell, "server", {})
    pd = model.info.pd
    if pd is not None and any(s.when.holds(ctx) is True for s in pd.servers().values()):
        return {str(pd.router.port)}, "the router's --port (clients of a PD server reach it)"
    if cell is not None:
        return _cell_ports(db, model, [cell]), "the server's --port"
    ports = _cell_ports(db, model, model.cells) | ({str(pd.router.port)} if pd else set())
    return ports, f"a port {model.info.name}'s servers or router listen on"


def _release_catalog(db: Database, sglang: str | None) -> Catalog:
    if sglang is None:
        return db.catalog
    release = db.releases.named(sglang)
    if release is None:
        raise RecipeError([Problem("<command line>", None, None, f"--sglang: '{sglang}' is no "
                                   f"release of the flag history (known: "
                                   f"{', '.join(db.releases.order)}, latest)")])
    return db.releases.catalog(release)


def _canonical_flags(cmd: Command, catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """The command's flags by their full names, with a positional model as --model-path."""
    flags = {}
    for name, values in cmd.flags:
        canon = catalog.canonical(name) or (catalog.lookup(name).spec.name
                                            if catalog.lookup(name).spec else name)
        flags[canon] = values
    model_flags = catalog.roles.get("model", ())
    if cmd.model is not None and model_flags and flags.keys().isdisjoint(model_flags):
        flags[model_flags[0]] = (cmd.model,)
    return flags


def _named_models(db: Database, commands: list[Command], all_flags: list[dict],
                  context: dict[str, str]) -> tuple[list[Model | None], dict[int, list[Finding]]]:
    """With several models and none chosen: the model whose rules apply to each command, and
    a warning for each command where none can be told. A server command's --model-path names
    its model (any of a model's ``model_names``); a router command takes the one model its
    servers name. Rules are never skipped in silence: the warning names the models and how to
    choose."""
    served: dict[str, list[str]] = {}
    for m in db.models.values():
        for rule in m.info.model_names:
            if m.id not in served.setdefault(rule.name, []):
                served[rule.name].append(m.id)
    choose = f"models: {', '.join(db.models)}; choose one with --model ID"
    why: dict[int, str] = {}
    models: list[Model | None] = []
    for i, (cmd, flags) in enumerate(zip(commands, all_flags)):
        given = db.catalog.role_value(flags, "model") if cmd.program == "server" else None
        name = given[0] if given else None
        ids = served.get(name, []) if name is not None else []
        models.append(db.models[ids[0]] if len(ids) == 1 else None)
        if cmd.program != "server":
            continue
        if name is None:
            why[i] = "the command names no model"
        elif not ids:
            why[i] = f"'{name}' is not a served name of any model (their model_names)"
        elif len(ids) > 1:
            why[i] = f"'{name}' is a served name of {' and '.join(ids)}"
    named = {m.id: m for m in models if m is not None}
    for i, cmd in enumerate(commands):
        if cmd.program == "router":
            if len(named) == 1:
                models[i] = next(iter(named.values()))
            else:
                why[i] = ("no server command in this text names the served name of one model"
                          if not named else f"its servers name {' and '.join(named)}")
    for model in named.values():
        _check_context(db, model, context)
    if not why:
        return models, {}
    first = min(why)  # said once per text, at the first command it holds for
    more = len(why) - 1
    others = f" (and {more} more command{'s' if more > 1 else ''} of this text)" if more else ""
    return models, {first: [Finding(Severity.info, "check.model-unknown",
                                    f"cannot tell which model's rules apply: {why[first]}"
                                    f"{others}; only the flag catalog was checked ({choose})",
                                    [db.catalog.role_flags("model")[0]]
                                    if commands[first].program == SERVER else [])]}
