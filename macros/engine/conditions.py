"""The rule condition language: a ``when`` mapping parsed once, at load, into a small tree.

Owns the grammar and meaning of conditions (see the header of recipes/<model>/rules.yaml) in
three steps, each a function of its own: ``parse`` turns the mapping a maintainer wrote into a
``Node`` tree, keeping every shape mistake as a problem at its path inside the mapping (so one
run reports them all); ``Node.holds`` evaluates the tree against a ``Context``; ``Node.json``
ships the same tree to the Playground, whose walker evaluates exactly these node kinds. What a
condition may *name* (axes, ``hw.*`` attributes, flags) is checked against a model's vocabulary
in ``condition_check.py``. Three-valued: a test about something the context does not know (no
hardware given to ``recipes check``) yields None, and a rule fires only on True.
Must not read files or know a model's data.

The one vocabulary of the tree: a ``Key`` test reads a plain context key (an axis or dimension
id, ``hw.<attribute>``, ``cell.<attribute>``, ``nodes`` and the few engine keys); ``Names`` and
``Tests`` read one of three ``SOURCES`` (the command's flags, its cell's flags, its env).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

# written key -> (source, mode) of a Names node
NAMES = {"has": ("flags", "all"), "lacks": ("flags", "none"), "has_any": ("flags", "any"),
         "cell_has": ("cell_flags", "all"), "cell_lacks": ("cell_flags", "none"),
         "env_has": ("env", "all"), "env_has_any": ("env", "any")}
TESTS = {"flag": "flags", "cell_flag": "cell_flags", "env": "env"}  # written key -> source
SOURCES = ("flags", "cell_flags", "env")
LOGIC = ("any", "all", "not")
NUMERIC_OPS = {"gt", "ge", "lt", "le"}
# gt_flag: the value is a number greater than another flag's of the same command (its first
# value); false when that flag is absent or not a number, unknown when the command is.
OPS = {"eq", "ne", "ieq", "in", "not_in", "ne_var", "gt_flag"} | NUMERIC_OPS
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Path = tuple
Found = list[tuple[Path, str]]  # (path inside the condition, message)


class Context(Protocol):
    """What a condition can ask about. ``value`` returns None when the fact is unknown."""

    def value(self, key: str) -> Any: ...
    def flags(self) -> dict[str, tuple[str, ...]] | None: ...
    def cell_flags(self) -> dict[str, tuple[str, ...]] | None: ...
    def env(self) -> dict[str, str] | None: ...


def attr(obj: Any, name: str) -> Any:
    """An attribute of a known object; absent or null reads as "" (known to be empty), never as
    None, which would make the condition unknown."""
    value = getattr(obj, name, None)
    if value is None:
        return ""
    return value.value if hasattr(value, "value") else value


def num(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def norm(value: Any) -> str:
    """How a value compares: as the text a command would spell it."""
    if type(value) is str:  # what nearly every test compares: answered first
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def clip(text: str, limit: int = 80) -> str:
    """Data quoted in a message, cut short: a message is read, a 10 MB value is not."""
    return text if len(text) <= limit else text[:limit] + "…"


def _and(results) -> bool | None:
    out: bool | None = True
    for r in results:
        if r is False:
            return False
        if r is None:
            out = None
    return out


# --- the tree -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Op:
    """One operator of a value test with its operand; ``want`` as written (a list becomes a
    tuple), ``normed`` the operand as it compares (a frozenset for in / not_in)."""

    name: str
    want: Any
    path: Path
    normed: Any = None

    def holds(self, actual: Any, ctx: Context) -> bool | None:
        n = self.name
        if n == "eq":  # the most evaluated test of all: a text compares as it is
            return (actual if type(actual) is str else norm(actual)) == self.normed
        if n == "in":
            return (actual if type(actual) is str else norm(actual)) in self.normed
        if n == "ne":
            return norm(actual) != self.normed
        if n == "ieq":
            return norm(actual).lower() == self.normed
        if n == "not_in":
            return norm(actual) not in self.normed
        if n == "ne_var":
            other = ctx.value(self.want)
            return None if other is None else norm(actual) != norm(other)
        if n == "gt_flag":
            flags = ctx.flags()
            if flags is None:
                return None
            a, w = num(actual), num(_first(flags[self.want])) if self.want in flags else None
            return a is not None and w is not None and a > w
        a, w = num(actual), num(self.want)
        if a is None or w is None:
            return False
        return {"gt": a > w, "ge": a >= w, "lt": a < w, "le": a <= w}[n]


@dataclass(frozen=True, slots=True)
class Test:
    """A value test: every operator must hold. Written as a value (``eq``), a list (``in``)
    or a mapping of operators; ``form`` remembers which, for messages."""

    ops: tuple[Op, ...]
    form: str  # "value" | "list" | "ops"
    path: Path
    problems: tuple[tuple[Path, str], ...] = ()

    def holds(self, actual: Any, ctx: Context) -> bool | None:
        if actual is None:
            return None
        if len(self.ops) == 1:
            return self.ops[0].holds(actual, ctx)
        return _and(op.holds(actual, ctx) for op in self.ops)

    def reads(self) -> set[str]:
        return {op.want for op in self.ops if op.name == "ne_var"}

    def json(self) -> list:
        return [[op.name, list(op.want) if isinstance(op.want, tuple) else op.want]
                for op in self.ops]


class Node:
    """A parsed condition. ``holds`` evaluates it, ``keys`` names the plain context keys it
    reads, ``json`` is the form the Playground walks. Shape mistakes are ``Bad`` nodes and a
    ``Test``'s ``problems``, which ``condition_check.check`` reports."""

    __slots__ = ()

    def holds(self, ctx: Context) -> bool | None:
        raise NotImplementedError

    def keys(self) -> set[str]:
        return set()

    def json(self) -> list:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class All(Node):
    """Every part holds: the clauses of one mapping, or ``all: [...]``."""

    parts: tuple[Node, ...]
    path: Path = ()

    def holds(self, ctx: Context) -> bool | None:
        out: bool | None = True
        for part in self.parts:
            r = part.holds(ctx)
            if r is False:
                return False
            if r is None:
                out = None
        return out

    def keys(self) -> set[str]:
        return set().union(*(p.keys() for p in self.parts))

    def json(self) -> list:
        return ["all", [p.json() for p in self.parts]]


ALWAYS = All(())  # the empty mapping: holds in every context


@dataclass(frozen=True, slots=True)
class AnyOf(Node):
    parts: tuple[Node, ...]
    path: Path = ()

    def holds(self, ctx: Context) -> bool | None:
        out: bool | None = False
        for part in self.parts:
            r = part.holds(ctx)
            if r is True:
                return True
            if r is None:
                out = None
        return out

    def keys(self) -> set[str]:
        return set().union(*(p.keys() for p in self.parts))

    def json(self) -> list:
        return ["any", [p.json() for p in self.parts]]


@dataclass(frozen=True, slots=True)
class Not(Node):
    part: Node
    path: Path = ()

    def holds(self, ctx: Context) -> bool | None:
        r = self.part.holds(ctx)
        return None if r is None else not r

    def keys(self) -> set[str]:
        return self.part.keys()

    def json(self) -> list:
        return ["not", self.part.json()]


@dataclass(frozen=True, slots=True)
class Key(Node):
    """A test of one plain context key (an axis, ``hw.sm``, ``cell.nodes``, ``nodes`` …)."""

    key: str
    test: Test
    path: Path = ()

    def holds(self, ctx: Context) -> bool | None:
        actual = ctx.value(self.key)
        if actual is None:
            return None
        ops = self.test.ops
        if len(ops) == 1:  # Test.holds, without a call: most tests have one operator
            return ops[0].holds(actual, ctx)
        return _and(op.holds(actual, ctx) for op in ops)

    def keys(self) -> set[str]:
        return {self.key} | self.test.reads()

    def json(self) -> list:
        return ["key", self.key, self.test.json()]


def _source(ctx: Context, source: str):
    return ctx.flags() if source == "flags" else ctx.cell_flags() if source == "cell_flags" \
        else ctx.env()


@dataclass(frozen=True, slots=True)
class Names(Node):
    """Names present in a source: all of them (``has``), none (``lacks``) or any."""

    source: str
    mode: str  # "all" | "none" | "any"
    names: tuple[str, ...]
    path: Path = ()
    written: str = ""  # the key as written (has, cell_lacks, env_has_any …), for messages

    def holds(self, ctx: Context) -> bool | None:
        present = _source(ctx, self.source)
        if present is None:
            return None
        mode = self.mode
        for n in self.names:  # loops, not generators: conditions are read per selection
            if n in present:
                if mode != "all":
                    return mode == "any"
            elif mode == "all":
                return False
        return mode != "any"

    def json(self) -> list:
        return ["names", self.source, self.mode, list(self.names)]


@dataclass(frozen=True, slots=True)
class Tests(Node):
    """A value test per name of a source (a flag's first value; a flag without a value reads
    as 'true'); a name that is absent fails its test."""

    source: str
    entries: tuple[tuple[str, Test], ...]
    path: Path = ()
    written: str = ""

    def holds(self, ctx: Context) -> bool | None:
        present = _source(ctx, self.source)
        if present is None:
            return None
        env = self.source == "env"
        out: bool | None = True
        for name, test in self.entries:
            if name not in present:
                return False
            r = test.holds(present[name] if env else _first(present[name]), ctx)
            if r is False:
                return False
            if r is None:
                out = None
        return out

    def keys(self) -> set[str]:
        return set().union(*(t.reads() for _, t in self.entries))

    def json(self) -> list:
        return ["tests", self.source, [[name, t.json()] for name, t in self.entries]]


def _first(values: tuple[str, ...]) -> str:
    return values[0] if values else "true"


@dataclass(frozen=True, slots=True)
class Bad(Node):
    """A part that cannot be read; it never holds (unknown), and the load refuses it.
    ``near``: a written key the checker answers with the context keys it knows."""

    message: str
    path: Path = ()
    near: str | None = None

    def holds(self, ctx: Context) -> bool | None:
        return None

    def json(self) -> list:
        return ["bad"]


# --- parsing ------------------------------------------------------------------------------------

def parse(cond: Any, path: Path = ()) -> Node:
    """The tree of one ``when`` mapping. Never raises: what cannot be read becomes a ``Bad``
    node (or a test's problem) at its path, reported by ``condition_check.check``."""
    if isinstance(cond, Node):
        return cond
    if not isinstance(cond, dict):
        return Bad("a condition is a mapping of context keys to tests", path)
    parts = [_clause(key, spec, path + (key,)) for key, spec in cond.items()]
    return parts[0] if len(parts) == 1 else All(tuple(parts), path)


def _clause(key: Any, spec: Any, p: Path) -> Node:
    if not isinstance(key, str):
        return Bad(f"condition key {clip(repr(key))} is not a name", p, clip(str(key)))
    if key in ("any", "all"):
        if not isinstance(spec, list) or not spec:
            return Bad(f"'{key}' takes a non-empty list of conditions", p)
        parts = tuple(parse(c, p + (i,)) for i, c in enumerate(spec))
        return AnyOf(parts, p) if key == "any" else All(parts, p)
    if key == "not":
        return Not(parse(spec, p), p)
    if key in NAMES:
        source, mode = NAMES[key]
        what = "environment variable names" if source == "env" else "flag names"
        if not isinstance(spec, list) or not spec or not all(isinstance(n, str) for n in spec):
            return Bad(f"'{key}' takes a non-empty list of {what}", p)
        return Names(source, mode, tuple(spec), p, key)
    if key in TESTS:
        source = TESTS[key]
        if not isinstance(spec, dict) or not spec:
            shape = "NAME: test (env_has takes a list of names)" if source == "env" \
                else "--flag: test"
            return Bad(f"'{key}' takes a mapping of {shape}", p)
        return Tests(source, tuple((str(n), parse_test(str(n), t, p + (n,)))
                                   for n, t in spec.items()), p, key)
    return Key(key, parse_test(key, spec, p), p)


def parse_test(key: str, spec: Any, path: Path) -> Test:
    """A value test on ``key``: a value, a list, or a mapping of operators."""
    problems: Found = []
    if isinstance(spec, dict):
        if not spec:
            problems.append((path, f"an empty test on '{key}' holds whenever it is known; write "
                                   f"a value, a list or {{{'|'.join(sorted(OPS))}: …}}"))
        ops = []
        for op, want in spec.items():
            if op not in OPS:
                problems.append((path + (op,), f"unknown test '{op}' (known: "
                                               f"{', '.join(sorted(OPS))})"))
            elif (found := _operand_problems(key, op, want, path + (op,))):
                problems += found
                if op in ("in", "not_in") and isinstance(want, list) and want:
                    ops.append(_op(op, want, path + (op,)))  # its good items are checked too
            else:
                ops.append(_op(op, want, path + (op,)))
        return Test(tuple(ops), "ops", path, tuple(problems))
    if isinstance(spec, list):
        if not spec:
            problems.append((path, f"an empty list never matches '{key}'"))
        problems += [f for i, w in enumerate(spec) for f in _scalar_problems(key, w, path + (i,))]
        # the good items of a list with a bad one are still checked against the vocabulary
        return Test((_op("in", spec, path),) if spec else (), "list", path, tuple(problems))
    problems += _scalar_problems(key, spec, path)
    return Test((_op("eq", spec, path),) if not problems else (), "value", path, tuple(problems))


def _op(name: str, want: Any, path: Path) -> Op:
    if name in ("in", "not_in"):
        want = tuple(want)
        return Op(name, want, path, frozenset(norm(w) for w in want
                                              if not isinstance(w, (dict, list))))
    normed = norm(want).lower() if name == "ieq" else norm(want)
    return Op(name, want, path, normed)


def _scalar_problems(key: str, want: Any, path: Path) -> Found:
    if isinstance(want, (dict, list)):
        return [(path, f"a value of '{key}' is a name or a number, not a "
                       f"{'mapping' if isinstance(want, dict) else 'list'}")]
    return []


def _operand_problems(key: str, op: str, want: Any, path: Path) -> Found:
    if op in ("eq", "ne"):
        return _scalar_problems(key, want, path)
    if op == "ieq":
        return [] if isinstance(want, str) else \
            [(path, f"'ieq' compares text, ignoring case (got {clip(repr(want))})")]
    if op in ("in", "not_in"):
        if not isinstance(want, list) or not want:
            return [(path, f"'{op}' takes a non-empty list of values")]
        return [f for i, w in enumerate(want) for f in _scalar_problems(key, w, path + (i,))]
    if op == "ne_var":
        return [] if isinstance(want, str) else \
            [(path, f"'ne_var' takes the name of a context key (got {clip(repr(want))})")]
    if op == "gt_flag":
        return [] if isinstance(want, str) and want.startswith("--") else \
            [(path, f"'gt_flag' takes the name of a flag, such as --tp-size (got "
                    f"{clip(repr(want))})")]
    number = None if isinstance(want, bool) else num(want)
    if number is None or not math.isfinite(number):
        return [(path, f"'{op}' compares numbers; {clip(repr(want))} is not a number")]
    return []


def equalities(node: Node) -> dict[str, str]:
    """The plain keys a condition pins to one value at its top level (``{role: prefill}``):
    what a PD declaration says a prefill or decode server is."""
    parts = node.parts if isinstance(node, All) else (node,)
    return {p.key: p.test.ops[0].want for p in parts
            if isinstance(p, Key) and p.test.form == "value" and p.test.ops
            and isinstance(p.test.ops[0].want, str)}
