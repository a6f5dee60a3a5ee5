"""The rule condition language and the ``{expression}`` templates, shared by every rule kind.

Owns the meaning of a ``when`` mapping (see the header of recipes/<model>/rules.yaml) and of the
arithmetic in braces. Three-valued: a test about something the context does not know (no
hardware given to ``recipes check``) yields None, and a rule fires only on True. The
Playground's JavaScript mirrors this file; tests keep the two in step.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Protocol

FLAG_KEYS = {"has", "lacks", "has_any", "cell_has", "cell_lacks", "flag", "cell_flag",
             "env_has", "env_has_any", "env"}
LOGIC_KEYS = {"any", "all", "not"}
OPS = {"eq", "ne", "gt", "ge", "lt", "le", "ieq", "in", "not_in", "ne_var"}


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


def _num(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def test_value(actual: Any, spec: Any, ctx: Context) -> bool | None:
    """Does ``actual`` pass the value test ``spec``? None when ``actual`` is unknown."""
    if actual is None:
        return None
    if isinstance(spec, dict):
        result: bool | None = True
        for op, want in spec.items():
            outcome = _test_op(actual, op, want, ctx)
            if outcome is False:
                return False
            if outcome is None:
                result = None
        return result
    if isinstance(spec, list):
        return _norm(actual) in {_norm(w) for w in spec}
    return _norm(actual) == _norm(spec)


def _norm(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _test_op(actual: Any, op: str, want: Any, ctx: Context) -> bool | None:
    if op == "eq":
        return _norm(actual) == _norm(want)
    if op == "ne":
        return _norm(actual) != _norm(want)
    if op == "ieq":
        return _norm(actual).lower() == _norm(want).lower()
    if op == "in":
        return _norm(actual) in {_norm(w) for w in want}
    if op == "not_in":
        return _norm(actual) not in {_norm(w) for w in want}
    if op == "ne_var":
        other = ctx.value(want)
        return None if other is None else _norm(actual) != _norm(other)
    a, w = _num(actual), _num(want)
    if a is None or w is None:
        return False
    return {"gt": a > w, "ge": a >= w, "lt": a < w, "le": a <= w}[op]


def _and(results) -> bool | None:
    out: bool | None = True
    for r in results:
        if r is False:
            return False
        if r is None:
            out = None
    return out


def evaluate(cond: dict[str, Any], ctx: Context) -> bool | None:
    """Evaluate a ``when`` mapping: every key must hold."""
    fn = _COMPILED.get(id(cond))
    if fn is None:
        fn = _compile(cond)
        _COMPILED[id(cond)] = fn
        _KEEP.append(cond)  # keeps id(cond) from being reused while the cache holds it
    return fn(ctx)


def evaluate_slow(cond: dict[str, Any], ctx: Context) -> bool | None:
    """The reference interpreter ``_compile`` must agree with (kept for the property tests)."""
    return _and(_clause(key, spec, ctx) for key, spec in cond.items())


_COMPILED: dict[int, Any] = {}
_KEEP: list[Any] = []


def _compile(cond: dict[str, Any]):
    """Turn a condition into a closure once; rule data is immutable after loading."""
    parts = [_compile_clause(key, spec) for key, spec in cond.items()]
    if not parts:
        return lambda ctx: True
    if len(parts) == 1:
        return parts[0]

    def all_of(ctx):
        out: bool | None = True
        for part in parts:
            r = part(ctx)
            if r is False:
                return False
            if r is None:
                out = None
        return out
    return all_of


def _compile_clause(key: str, spec: Any):
    if key in ("any", "all", "not") or key in FLAG_KEYS:
        return lambda ctx: _clause(key, spec, ctx)
    if isinstance(spec, (dict, list)) or isinstance(spec, bool) or spec is None:
        return lambda ctx: test_value(ctx.value(key), spec, ctx)
    want = _norm(spec)

    def equals(ctx):
        actual = ctx.value(key)
        if actual is None:
            return None
        return (actual if isinstance(actual, str) else _norm(actual)) == want
    return equals


def _clause(key: str, spec: Any, ctx: Context) -> bool | None:
    if key == "any":
        results = [evaluate(c, ctx) for c in spec]  # each nested condition is compiled too
        if any(r is True for r in results):
            return True
        return None if any(r is None for r in results) else False
    if key == "all":
        return _and(evaluate(c, ctx) for c in spec)
    if key == "not":
        r = evaluate(spec, ctx)
        return None if r is None else not r
    if key in FLAG_KEYS:
        return _flag_clause(key, spec, ctx)
    return test_value(ctx.value(key), spec, ctx)


def _flag_clause(key: str, spec: Any, ctx: Context) -> bool | None:
    if key.startswith("env"):
        env = ctx.env()
        if env is None:
            return None
        if key == "env_has":
            return all(n in env for n in spec)
        if key == "env_has_any":
            return any(n in env for n in spec)
        return _and(False if n not in env else test_value(env[n], t, ctx) for n, t in spec.items())
    flags = ctx.cell_flags() if key.startswith("cell_") else ctx.flags()
    if flags is None:
        return None
    if key in ("has", "cell_has"):
        return all(n in flags for n in spec)
    if key in ("lacks", "cell_lacks"):
        return not any(n in flags for n in spec)
    if key == "has_any":
        return any(n in flags for n in spec)
    # flag / cell_flag: a missing flag fails its test
    return _and(False if n not in flags else test_value(_first(flags[n]), t, ctx)
                for n, t in spec.items())


def _first(values: tuple[str, ...]) -> str:
    return values[0] if values else "true"


def referenced_keys(cond: Any) -> set[str]:
    """Every plain context key a condition reads (used to validate rules at load time)."""
    keys: set[str] = set()
    if isinstance(cond, dict):
        for key, spec in cond.items():
            if key in ("any", "all"):
                for c in spec:
                    keys |= referenced_keys(c)
            elif key == "not":
                keys |= referenced_keys(spec)
            elif key not in FLAG_KEYS:
                keys.add(key)
                if isinstance(spec, dict) and "ne_var" in spec:
                    keys.add(spec["ne_var"])
    return keys


def referenced_flags(cond: Any) -> set[str]:
    """Every flag name a condition mentions (checked against the catalog at load time)."""
    names: set[str] = set()
    if isinstance(cond, dict):
        for key, spec in cond.items():
            if key in ("any", "all"):
                for c in spec:
                    names |= referenced_flags(c)
            elif key == "not":
                names |= referenced_flags(spec)
            elif key in FLAG_KEYS and not key.startswith("env"):
                names |= set(spec if isinstance(spec, list) else spec.keys())
    return names


# --- {expression} templates: integers, + - * / //, parentheses and dotted names.

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(//|[-+*/()]))")
TEMPLATE = re.compile(r"(?<!\{)\{([^{}]+)\}(?!\})")


class ExprError(ValueError):
    pass


def eval_expr(text: str, lookup) -> Any:
    """Evaluate ``text`` with names resolved by ``lookup(name)``; a lone name returns as is."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExprError(f"cannot read '{text[pos:]}' in '{{{text}}}'")
        num, name, op = m.groups()
        tokens.append(("n", num) if num else ("id", name) if name else ("op", op))
        pos = m.end()
    if len(tokens) == 1 and tokens[0][0] == "id":
        return lookup(tokens[0][1])
    out, rest = _sum(tokens, lookup)
    if rest:
        raise ExprError(f"unexpected '{rest[0][1]}' in '{{{text}}}'")
    return out


def _atom(tokens, lookup):
    if not tokens:
        raise ExprError("expression ends too early")
    kind, val = tokens[0]
    if kind == "n":
        return int(val), tokens[1:]
    if kind == "id":
        v = lookup(val)
        n = _num(v)
        if n is None:
            raise ExprError(f"'{val}' is not a number here ({v!r})")
        return (int(n) if n == int(n) else n), tokens[1:]
    if val == "(":
        v, rest = _sum(tokens[1:], lookup)
        if not rest or rest[0][1] != ")":
            raise ExprError("missing ')'")
        return v, rest[1:]
    raise ExprError(f"unexpected '{val}'")


def _product(tokens, lookup):
    v, rest = _atom(tokens, lookup)
    while rest and rest[0][1] in ("*", "/", "//"):
        op = rest[0][1]
        w, rest = _atom(rest[1:], lookup)
        if op == "*":
            v = v * w
        elif w == 0:
            raise ExprError("division by zero")
        else:
            v = v // w if op == "//" else v / w
    return v, rest


def _sum(tokens, lookup):
    v, rest = _product(tokens, lookup)
    while rest and rest[0][1] in ("+", "-"):
        op = rest[0][1]
        w, rest = _product(rest[1:], lookup)
        v = v + w if op == "+" else v - w
    return v, rest


def fill(text: str, lookup) -> str:
    """Replace every ``{expression}`` in ``text`` (``{{PLACEHOLDER}}`` is left alone)."""
    if "{" not in text:
        return text
    def one(m: re.Match) -> str:
        v = eval_expr(m.group(1), lookup)
        if v is None or v == "":
            raise ExprError(f"'{{{m.group(1)}}}' has no value here")
        if isinstance(v, float) and v == int(v):
            v = int(v)
        return str(v)
    return TEMPLATE.sub(one, text)
