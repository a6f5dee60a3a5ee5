"""The command checker: shell text → parsed commands → findings (error / warning / info).

Owns reading ``sglang serve``, ``python3 -m sglang.launch_server`` and
``python3 -m sglang_router.launch_router`` commands (continuations, env prefixes, comments),
the catalog findings (unknown, abbreviated, deprecated flags, bad values, unknown env vars)
and running the model's check rules in context. Generated commands are checked by the same
``check_state`` so the CLI, the build and the docs tests agree.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from . import conditions
from .conditions import attr as _attr
from .catalog import Catalog, value_problem
from .database import Database, Model
from .errors import choices_hint
from .schema import Cell, Severity

SERVER_PROGRAMS = (("sglang", "serve"), ("-m", "sglang.launch_server"))
ROUTER_PROGRAMS = (("-m", "sglang_router.launch_router"),)


@dataclass
class Command:
    """One server or router command found in shell text."""

    program: str  # server | router
    line: int
    env: list[tuple[str, str]] = field(default_factory=list)
    flags: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)
    model: str | None = None
    text: str = ""
    positional_model: bool = False
    flag_lines: dict[str, int] = field(default_factory=dict)


@dataclass
class Finding:
    severity: Severity
    rule: str
    message: str
    flags: list[str]
    line: int | None = None
    text_id: str | None = None
    fields: dict[str, str] = field(default_factory=dict)


class ParseError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash continuations; keep the first physical line number of each."""
    return [(start, joined) for start, joined, _ in _logical(text)]


def _logical(text: str) -> list[tuple[int, str, list[tuple[int, str]]]]:
    out: list[tuple[int, str, list[tuple[int, str]]]] = []
    buf: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            buf.append((number, line[:-1]))
            continue
        buf.append((number, line))
        out.append((buf[0][0], " ".join(part for _, part in buf), buf))
        buf = []
    if buf:
        out.append((buf[0][0], " ".join(part for _, part in buf), buf))
    return out


def _program_at(words: list[str]) -> tuple[str, int, bool] | None:
    """(program, index of its first argument, takes a positional model) or None."""
    for i in range(len(words) - 1):
        pair = (words[i], words[i + 1])
        if pair in SERVER_PROGRAMS:
            return "server", i + 2, pair == ("sglang", "serve")
        if pair in ROUTER_PROGRAMS:
            return "router", i + 2, False
    return None


_OPERATORS = {"&&", "||", ";", "|", "&", ">", ">>", "<", "2>", "2>&1", "&>"}


def parse(text: str, catalogs: dict[str, Catalog]) -> list[Command]:
    """Every SGLang server or router command in ``text``; other shell lines are ignored.
    A command ends at a shell operator (``&&``, ``|``, ``>`` …)."""
    commands: list[Command] = []
    for line, logical, physical in _logical(text):
        try:
            words = shlex.split(logical, comments=True, posix=True)
        except ValueError as exc:
            raise ParseError(line, f"cannot split the command into words: {exc}") from None
        found = _program_at(words)
        if found is None:
            if commands and words and words[0].startswith("--"):
                raise ParseError(line, f"'{words[0]}' starts a line of its own: the line above "
                                 "does not end with '\\', so the shell would run this as a "
                                 "separate command")
            continue
        cut = next((i for i, w in enumerate(words) if w in _OPERATORS), None)
        if cut is not None and cut >= found[1]:
            words = words[:cut]
        program, start, positional_model = found
        cmd = Command(program, line, text=logical.strip(), positional_model=positional_model)
        head = words[:start - 2]
        # env assignments directly in front of the program (or of 'python3 -m')
        while head and head[-1] in ("python", "python3", "env"):
            head = head[:-1]
        for w in reversed(head):
            if "=" in w and not w.startswith("-") and w.split("=", 1)[0].replace("_", "").isalnum():
                cmd.env.insert(0, (w.split("=", 1)[0], w.split("=", 1)[1]))
            else:
                break
        _parse_args(cmd, words[start:], catalogs[program])
        cmd.flag_lines = _flag_lines(cmd, physical)
        commands.append(cmd)
    return commands


def _flag_lines(cmd: Command, physical: list[tuple[int, str]]) -> dict[str, int]:
    """The physical line each flag and env var is written on, for precise messages."""
    out: dict[str, int] = {}
    cursor = 0
    names = [n for n, _ in cmd.env] + [n for n, _ in cmd.flags]
    for name in names:
        for i in range(cursor, len(physical)):
            number, text = physical[i]
            if name in text.split("#")[0].replace("=", " ").split():
                out.setdefault(name, number)
                cursor = i
                break
    return out


def _parse_args(cmd: Command, words: list[str], catalog: Catalog) -> None:
    i = 0
    while i < len(words):
        w = words[i]
        if not w.startswith("-") or w == "-":
            if cmd.positional_model and not cmd.flags and not cmd.positionals \
                    and cmd.model is None:
                cmd.model = w  # `sglang serve <model>`
            else:
                cmd.positionals.append(w)
            i += 1
            continue
        name, eq, inline = w.partition("=")
        spec = catalog.lookup(name).spec
        values: list[str] = [inline] if eq else []
        i += 1
        if eq:
            pass
        elif spec is not None and not spec.takes_value:
            pass
        elif spec is not None and spec.nargs in (None, 1, "?"):
            if i < len(words) and not (words[i].startswith("--")):
                values.append(words[i])
                i += 1
        else:
            while i < len(words) and not words[i].startswith("--"):
                values.append(words[i])
                i += 1
        cmd.flags.append((name, tuple(values)))


# --- findings --------------------------------------------------------------------------------

def catalog_findings(cmd: Command, catalog: Catalog, env_known: set[str]) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[str, str] = {}
    for name, values in cmd.flags:
        hit = catalog.lookup(name)
        spec = hit.spec
        if hit.kind == "unknown":
            out.append(Finding(Severity.error, "catalog.unknown-flag",
                               f"unknown flag {name} for {catalog.package} {catalog.version} "
                               f"({choices_hint(name, catalog.flags)})", [name],
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
                               f"but write the full name", [name, spec.name],
                               text_id="catalog.abbreviated-flag",
                               fields={"flag": name, "full": spec.name}))
        if spec.deprecated:
            why = re.sub(r"^deprecated:\s*", "", spec.deprecated)
            out.append(Finding(Severity.warning, "catalog.deprecated-flag",
                               f"{spec.name} is deprecated: {why}", [spec.name],
                               text_id="catalog.deprecated-flag",
                               fields={"flag": spec.name, "why": why}))
        problem = value_problem(spec, values) if not (hit.kind == "negated" and not values) else None
        if problem:
            out.append(Finding(Severity.error, "catalog.bad-value", problem, [spec.name],
                               text_id="catalog.bad-value", fields={"problem": problem}))
        if spec.name in seen and spec.nargs not in ("+", "*") and not _is_append(spec):
            out.append(Finding(Severity.warning, "catalog.repeated-flag",
                               f"{spec.name} is given twice; the last one wins", [spec.name],
                               text_id="catalog.repeated-flag", fields={"flag": spec.name}))
        seen[spec.name] = name
    if cmd.program == "server":
        if "--model-path" not in seen and cmd.model is None:
            out.append(Finding(Severity.error, "catalog.missing-model",
                               "the command names no model (--model-path)", ["--model-path"],
                               text_id="catalog.missing-model"))
        for word in cmd.positionals:
            out.append(Finding(Severity.error, "catalog.stray-word",
                               f"unexpected word '{word}' (not a flag or a flag's value)", [],
                               text_id="catalog.stray-word", fields={"word": word}))
    for name, _ in cmd.env:
        if name.startswith("SGLANG_") and name not in catalog.env and name not in env_known:
            out.append(Finding(Severity.warning, "catalog.unknown-env",
                               f"{name} is not in {catalog.package} {catalog.version}'s "
                               f"environment registry", [name],
                               text_id="catalog.unknown-env", fields={"env": name}))
    return out


def _is_append(spec) -> bool:
    return spec.action == "append"


class _CheckContext:
    def __init__(self, db: Database, model: Model | None, hw, role, strategy, picks,
                 flags: dict[str, tuple[str, ...]], env: dict[str, str], cell: Cell | None,
                 program: str, extra: dict[str, Any]):
        self.db, self.model, self.hw, self.role, self.strategy = db, model, hw, role, strategy
        self.picks, self._flags, self._env, self.cell = picks or {}, flags, env, cell
        self.program, self.extra = program, extra

    def value(self, key: str):
        if key == "hw":
            return self.hw
        if key == "role":
            return self.role
        if key == "strategy":
            return self.strategy
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
        i = self.model.cell_index[(self.cell.match.hw, self.cell.match.role, self.cell.match.strategy)]
        return {f.name: f.values for f in self.model.cell_flags[i]}

    def env(self):
        return self._env


def rule_findings(db: Database, model: Model, ctx: _CheckContext) -> list[Finding]:
    out: list[Finding] = []
    for rule in model.rules.checks:
        if conditions.evaluate(rule.when, ctx) is not True:
            continue
        involved = [f for f in rule.flags if f in ctx.flags()] or list(rule.flags)
        involved += [e for e in rule.flags_from_env if e in ctx.env()]
        # the message may name any context value its condition reads ({router_bootstrap} …)
        fields = {k: str(v) for k in sorted(conditions.referenced_keys(rule.when))
                  if (v := ctx.value(k)) is not None}
        message = db.t("en", rule.message, model, **fields)
        out.append(Finding(rule.severity, rule.id, message, involved, text_id=rule.message,
                           fields=fields))
    return out


def check_state(db: Database, model: Model, hw, role, strategy, picks, flags, env, cell):
    """Findings for a composed command (called by resolve for every generated command)."""
    from .resolve import Diagnostic, TextRef

    ctx = _CheckContext(db, model, hw, role, strategy, picks, flags, env, cell, "server", {})
    cmd = Command("server", 0, env=list(env.items()),
                  flags=[(n, v) for n, v in flags.items()])
    findings = catalog_findings(cmd, db.catalog, model_env(model)) \
        + rule_findings(db, model, ctx)
    return [Diagnostic(severity=f.severity, rule=f.rule,
                       message=TextRef(id=f.text_id or f.rule, fields=f.fields), flags=f.flags)
            for f in findings]


def _check_context(db: Database, model: Model, hw, role, strategy) -> None:
    """A misspelt context would silently switch rules off: refuse it, naming the choices."""
    from .errors import Problem, RecipeError

    problems = []
    roles = {r.id: r for r in model.info.roles}
    if hw is not None and hw not in model.info.hardware:
        problems.append(f"hw '{hw}' is not a platform of {model.info.name} "
                        f"({choices_hint(hw, model.info.hardware)})")
    if role is not None and role not in roles:
        problems.append(f"role '{role}' is not known ({choices_hint(role, roles)})")
    strategies = roles[role].strategies if role in roles else \
        [s.id for s in model.info.strategies]
    if strategy is not None and strategy not in strategies:
        problems.append(f"strategy '{strategy}' is not one of {strategies}")
    if problems:
        raise RecipeError([Problem("<check context>", None, None, p) for p in problems])


def model_env(model: Model | None) -> set[str]:
    """SGLANG_* variables the model's recipes read that the pinned registry does not list."""
    return set() if model is None else set(model.info.branch_env)


def check_text(db: Database, text: str, *, model_id: str | None = None, hw: str | None = None,
               role: str | None = None, strategy: str | None = None) -> list[Finding]:
    """Check every command in ``text`` in the given context; unknown context skips rules that
    need it."""
    model = db.model(model_id) if model_id else (next(iter(db.models.values()))
                                                  if len(db.models) == 1 else None)
    if model is not None:
        _check_context(db, model, hw, role, strategy)
    catalogs = {"server": db.catalog, "router": db.router_catalog}
    try:
        commands = parse(text, catalogs)
    except ParseError as exc:
        return [Finding(Severity.error, "parse.shell", str(exc), [], exc.line)]
    if not commands:
        return [Finding(Severity.error, "parse.no-command",
                        "no sglang serve, python3 -m sglang.launch_server or "
                        "python3 -m sglang_router.launch_router command found", [], 1)]
    server_bootstrap = None
    for cmd in commands:
        flags = dict(cmd.flags)
        if cmd.program == "server" and "--disaggregation-bootstrap-port" in flags:
            server_bootstrap = flags["--disaggregation-bootstrap-port"][0]
    if server_bootstrap is None and model is not None:
        server_bootstrap = str(model.info.pd.bootstrap_port)
    out: list[Finding] = []
    for cmd in commands:
        catalog = catalogs[cmd.program]
        found = catalog_findings(cmd, catalog, model_env(model) if cmd.program == "server" else set())
        flags = {}
        for name, values in cmd.flags:
            canon = catalog.canonical(name) or (catalog.lookup(name).spec.name
                                                if catalog.lookup(name).spec else name)
            flags[canon] = values
        if cmd.model is not None and "--model-path" not in flags:
            flags["--model-path"] = (cmd.model,)
        env = dict(cmd.env)
        cmd_role = role
        if cmd_role is None and cmd.program == "server":
            mode = flags.get("--disaggregation-mode", ("null",))[0]
            cmd_role = {"prefill": "prefill", "decode": "decode"}.get(mode, "unified")
        extra: dict[str, Any] = {"server_bootstrap": server_bootstrap}
        if cmd.program == "router":
            prefill = flags.get("--prefill", ())
            extra["router_bootstrap"] = prefill[1] if len(prefill) > 1 else None
        if model is not None:
            cell = model.cell(hw, cmd_role, strategy) if hw and cmd_role and strategy else None
            ctx = _CheckContext(db, model, hw, cmd_role, strategy, {}, flags, env, cell,
                                cmd.program, extra)
            found += rule_findings(db, model, ctx)
        for f in found:
            lines = [cmd.flag_lines[n] for n in f.flags if n in cmd.flag_lines]
            f.line = f.line or (lines[0] if lines else cmd.line)  # the rule's first flag
        out.extend(found)
    return out
