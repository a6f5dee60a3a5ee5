"""The rule condition language and the ``{expression}`` templates, shared by every rule kind.

Owns the meaning of a ``when`` mapping (see the header of recipes/<model>/rules.yaml) and of the
arithmetic in braces, and the load-time checks of both: ``check_condition`` and ``dry_fill``
take a vocabulary (what each context key and template name can be worth, built by
``database.py`` from the data) and report every test that is malformed, names something
unknown, or can never hold. Three-valued: a test about something the context does not know (no
hardware given to ``recipes check``) yields None, and a rule fires only on True. The
Playground's JavaScript mirrors the evaluation half of this file; tests keep the two in step.
Must not read files or know a model's data.

Division by zero: a divisor is accepted at load only when every value it can take is a non-zero
number: a literal, or a name whose values the vocabulary lists (platform attributes, axis
options, cell flag values, ports) or bounds (``nodes`` ≥ 1). Loaded data cannot change, so a
validated template never divides by zero; ``eval_expr`` still answers ExprError, not a crash,
for data that was never validated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, Callable, Mapping, Protocol

from .errors import choices_hint

LIST_KEYS = {"has", "lacks", "has_any", "cell_has", "cell_lacks", "env_has", "env_has_any"}
TEST_KEYS = {"flag", "cell_flag", "env"}
FLAG_KEYS = LIST_KEYS | TEST_KEYS
LOGIC_KEYS = {"any", "all", "not"}
NUMERIC_OPS = {"gt", "ge", "lt", "le"}
OPS = {"eq", "ne", "ieq", "in", "not_in", "ne_var"} | NUMERIC_OPS
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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
    """The reference interpreter ``_compile`` must agree with (kept for the property tests, and
    for the dry runs at load, which must not fill the compile cache)."""
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
    if key in LOGIC_KEYS or key in FLAG_KEYS:
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
    """Every plain context key a condition reads (which axes a gate depends on, which values a
    check message may show)."""
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


# --- checking a condition at load ---------------------------------------------------------------

@dataclass(frozen=True)
class Domain:
    """The values a context key (or a flag's first value) can take at evaluation time.

    ``values`` closes the set; the tests compare through ``_norm`` as evaluation does (``fold``:
    case-insensitively, as SGLang reads some choices). An open domain says whether it holds
    only numbers (``number``), only whole numbers (``whole``), and their bounds."""

    what: str  # how a message names it: "axis 'quant'", "hw.vendor", "flag '--pp-size'"
    values: tuple[Any, ...] | None = None
    noun: str = "value"
    fold: bool = False
    number: bool = False
    whole: bool = False
    low: float | None = None
    high: float | None = None
    note: str = ""  # said after the valid choices, for a domain whose reading is surprising

    def describe(self) -> str:
        if self.values is not None:
            return "one of " + ", ".join(f"'{_norm(v)}'" for v in self.values)
        if not self.number:
            return "any text"
        kind = "a whole number" if self.whole else "a number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {_show(self.low)} to {_show(self.high)}"
        if self.low is not None:
            return f"{kind} ≥ {_show(self.low)}"
        return kind

    def admits(self, value: Any) -> bool:
        if self.values is not None:
            fold = (lambda s: s.lower()) if self.fold else (lambda s: s)
            return fold(_norm(value)) in {fold(_norm(v)) for v in self.values}
        if not self.number:
            return True
        n = None if isinstance(value, bool) else _num(value)
        return n is not None and math.isfinite(n) and (not self.whole or n.is_integer()) \
            and (self.low is None or n >= self.low) and (self.high is None or n <= self.high)


@dataclass(frozen=True)
class Vocabulary:
    """What a model's conditions may read: every plain context key with its domain, and for a
    flag name (``of_cell`` for cell_has / cell_flag) its value domain or why the name is wrong."""

    keys: Mapping[str, Domain]
    flag: Callable[[str, bool], "Domain | str"]


Found = list[tuple[tuple, str]]  # (path inside the condition, message)


def check_condition(cond: Any, vocab: Vocabulary, path: tuple = ()) -> Found:
    """Every problem of one ``when`` mapping, each at its path inside the mapping."""
    if not isinstance(cond, dict):
        return [(path, "a condition is a mapping of context keys to tests")]
    out: Found = []
    for key, spec in cond.items():
        p = path + (key,)
        if not isinstance(key, str):
            out.append((p, f"condition key {_clip(repr(key))} is not a name "
                           f"({_key_hint(_clip(str(key)), vocab)})"))
        elif key in ("any", "all"):
            if not isinstance(spec, list) or not spec:
                out.append((p, f"'{key}' takes a non-empty list of conditions"))
                continue
            for i, c in enumerate(spec):
                out += check_condition(c, vocab, p + (i,))
        elif key == "not":
            out += check_condition(spec, vocab, p)
        elif key in LIST_KEYS:
            out += _check_names(key, spec, vocab, p)
        elif key in TEST_KEYS:
            out += _check_flag_tests(key, spec, vocab, p)
        elif key in vocab.keys:
            out += _check_test(key, spec, vocab.keys[key], vocab, p)
        elif key.startswith("hw."):
            known = [k[3:] for k in vocab.keys if k.startswith("hw.")]
            out.append((p, f"unknown hardware attribute '{_clip(key[3:])}' "
                           f"({choices_hint(_clip(key[3:]), known)})"))
        elif key.startswith("cell."):
            known = [k[5:] for k in vocab.keys if k.startswith("cell.")]
            out.append((p, f"unknown cell attribute '{_clip(key[5:])}' "
                           f"(known: {', '.join(known)})"))
        else:
            out.append((p, f"condition names unknown axis '{_clip(key)}' "
                           f"({_key_hint(_clip(key), vocab)})"))
    return out


def _key_hint(key: str, vocab: Vocabulary) -> str:
    plain = [k for k in vocab.keys if "." not in k]
    return choices_hint(key, plain + ["hw.<attribute>", "cell.<attribute>"])


def _check_names(key: str, spec: Any, vocab: Vocabulary, path: tuple) -> Found:
    env = key.startswith("env")
    what = "environment variable names" if env else "flag names"
    if not isinstance(spec, list) or not spec or not all(isinstance(n, str) for n in spec):
        return [(path, f"'{key}' takes a non-empty list of {what}")]
    out: Found = []
    for i, name in enumerate(spec):
        if env:
            if not ENV_NAME.match(name):
                out.append((path + (i,), f"'{name}' is not an environment variable name"))
        elif isinstance(problem := vocab.flag(name, key.startswith("cell_")), str):
            out.append((path + (i,), problem))
    return out


def _check_flag_tests(key: str, spec: Any, vocab: Vocabulary, path: tuple) -> Found:
    env = key == "env"
    if not isinstance(spec, dict) or not spec:
        shape = "NAME: test (env_has takes a list of names)" if env else "--flag: test"
        return [(path, f"'{key}' takes a mapping of {shape}")]
    out: Found = []
    for name, test in spec.items():
        p = path + (name,)
        if env:
            if not isinstance(name, str) or not ENV_NAME.match(name):
                out.append((p, f"'{name}' is not an environment variable name"))
                continue
            domain: Domain | str = Domain(f"environment variable {name}")
        else:
            domain = vocab.flag(str(name), key == "cell_flag")
        if isinstance(domain, str):
            out.append((p, domain))
        else:
            out += _check_test(str(name), test, domain, vocab, p)
    return out


def _check_test(key: str, spec: Any, domain: Domain, vocab: Vocabulary, path: tuple) -> Found:
    """Problems of one value test: its shape, each operand against ``domain``, and (when the
    test is well-formed) whether any value of the domain passes it."""
    out: Found = []
    if isinstance(spec, dict):
        if not spec:
            return [(path, f"an empty test on '{key}' holds whenever it is known; write a value, "
                           f"a list or {{{'|'.join(sorted(OPS))}: …}}")]
        for op, want in spec.items():
            if op not in OPS:
                out.append((path + (op,), f"unknown test '{op}' (known: {', '.join(sorted(OPS))})"))
            else:
                out += _check_operand(key, op, want, domain, vocab, path + (op,))
    elif isinstance(spec, list):
        if not spec:
            out.append((path, f"an empty list never matches '{key}'"))
        for i, want in enumerate(spec):
            out += _check_value(key, want, domain, path + (i,))
    else:
        out += _check_value(key, spec, domain, path)
    if not out and not _can_hold(spec, domain):
        out.append((path, f"this test on '{key}' never holds: {domain.what} is {domain.describe()}"
                          + (f" ({domain.note})" if domain.note else "")))
    return out


def _check_value(key: str, want: Any, domain: Domain, path: tuple, fold: bool = False) -> Found:
    if isinstance(want, (dict, list)):
        return [(path, f"a value of '{key}' is a name or a number, not a "
                       f"{'mapping' if isinstance(want, dict) else 'list'}")]
    folded = Domain(domain.what, domain.values, fold=True) if fold and domain.values else domain
    if folded.admits(want):
        return []
    if domain.values is not None:
        shown, choices = _clip(_norm(want)), [_norm(v) for v in domain.values]
        # a value in the wrong case is the likeliest slip (AMD for amd): name the right one
        near = next((c for c in choices if c.lower() == shown.lower()), shown)
        note = f"; {domain.note}" if domain.note else ""
        hint = choices_hint(near, [c or "''" for c in choices])
        return [(path, f"{domain.what} has no {domain.noun} '{shown}' ({hint}{note})")]
    return [(path, f"{domain.what} is {domain.describe()} (got {_clip(repr(want))})")]


def _clip(text: str, limit: int = 80) -> str:
    """Data quoted in a message, cut short: a message is read, a 10 MB value is not."""
    return text if len(text) <= limit else text[:limit] + "…"


def _check_operand(key: str, op: str, want: Any, domain: Domain, vocab: Vocabulary,
                   path: tuple) -> Found:
    if op in ("eq", "ne"):
        return _check_value(key, want, domain, path)
    if op == "ieq":
        if not isinstance(want, str):
            return [(path, f"'ieq' compares text, ignoring case (got {_clip(repr(want))})")]
        return _check_value(key, want, domain, path, fold=True)
    if op in ("in", "not_in"):
        if not isinstance(want, list) or not want:
            return [(path, f"'{op}' takes a non-empty list of values")]
        return [f for i, w in enumerate(want) for f in _check_value(key, w, domain, path + (i,))]
    if op == "ne_var":
        if not isinstance(want, str):
            return [(path, f"'ne_var' takes the name of a context key (got {_clip(repr(want))})")]
        if want not in vocab.keys:
            return [(path, f"'ne_var' names unknown context key '{_clip(want)}' "
                           f"({choices_hint(_clip(want), list(vocab.keys))})")]
        return []
    number = None if isinstance(want, bool) else _num(want)
    if number is None or not math.isfinite(number):
        return [(path, f"'{op}' compares numbers; {_clip(repr(want))} is not a number")]
    if domain.values is not None and all(_num(v) is None for v in domain.values):
        return [(path, f"'{op}' compares numbers, but {domain.what} is never a number "
                       f"({domain.describe()})")]
    return []


class _Unknown:
    """The context of a dry run: ``ne_var`` compares with a value that is not known yet."""

    def value(self, key: str) -> Any:
        return None


def _can_hold(spec: Any, domain: Domain) -> bool:
    """Does some value of ``domain`` pass ``spec``? Open text domains always might."""
    if domain.fold:
        return True  # the command may spell the choice in any case
    if domain.values is not None:
        candidates: list[Any] = list(domain.values)
    elif domain.number:
        candidates = _number_candidates(spec, domain)
    else:
        return True
    return any(test_value(c, spec, _Unknown()) is not False for c in candidates)


def _number_candidates(spec: Any, domain: Domain) -> list[Any]:
    """Numbers that reach every region the test's constants cut the domain into: the
    constants, their neighbours, a point between any two, and the bounds."""
    if isinstance(spec, dict):
        consts = [w for op, w in spec.items() if op != "ne_var"]
        consts = [c for w in consts for c in (w if isinstance(w, list) else [w])]
    else:
        consts = spec if isinstance(spec, list) else [spec]
    numbers = sorted({n for c in consts if (n := _num(c)) is not None and math.isfinite(n)})
    out = [b for b in (domain.low, domain.high) if b is not None]
    for n in numbers:
        out += [math.floor(n) + d for d in (-1, 0, 1, 2)] + [n]
    out += [(a + b) / 2 for a, b in zip(numbers, numbers[1:])]
    if not out:
        out = [0, 1]
    return [c for c in out if domain.admits(c)]


# --- {expression} templates: integers, + - * / //, parentheses and dotted names --------------

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(//|[-+*/()]))")
TEMPLATE = re.compile(r"(?<!\{)\{([^{}]+)\}(?!\})")
PLACEHOLDER = re.compile(r"\{\{[A-Z0-9_]+\}\}")  # what resolve fills in after the rules


_EXPR_LIKE = re.compile(r"^[\sA-Za-z0-9_.+\-*/()]+$")


def expression_fields(text: str) -> list[str]:
    """Every single-brace group of ``text`` that reads as a name or an expression (``{nodes}``,
    ``{nodes - 1}``), as written; braces around other text (JSON) are prose."""
    return [m.group(1) for m in TEMPLATE.finditer(text) if _EXPR_LIKE.match(m.group(1))]


class ExprError(ValueError):
    pass


_MAX_DIGITS = 15  # a literal beyond any count or size; keeps every value a float can hold
_MAX_TOKENS = 100  # the parser and the tree walks recurse; this keeps them far from the limit


@dataclass(frozen=True)
class Num:
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Name:
    name: str
    raw: bool = False  # the whole template is this name: its value is used as it is

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        def side(e: Expr) -> str:
            return f"({e})" if isinstance(e, BinOp) else str(e)
        return f"{side(self.left)} {self.op} {side(self.right)}"


Expr = Num | Name | BinOp


@lru_cache(maxsize=4096)
def parse_expr(text: str) -> Expr:
    """The tree of one template's inside (``nodes - 1``); ExprError says what cannot be read."""
    text = text.strip()
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExprError(f"cannot read '{_clip(text[pos:].strip())}'")
        num, name, op = m.groups()
        tokens.append(("n", num) if num else ("id", name) if name else ("op", op))
        pos = m.end()
        if len(tokens) > _MAX_TOKENS:
            raise ExprError(f"more than {_MAX_TOKENS} numbers, names and operators")
    if len(tokens) == 1 and tokens[0][0] == "id":
        return Name(tokens[0][1], raw=True)
    tree, rest = _sum(tokens)
    if rest:
        raise ExprError(f"unexpected '{rest[0][1]}'")
    return tree


def _atom(tokens):
    if not tokens:
        raise ExprError("expression ends too early")
    kind, val = tokens[0]
    if kind == "n":
        if len(val) > _MAX_DIGITS:
            raise ExprError(f"'{val}' has more than {_MAX_DIGITS} digits")
        return Num(int(val)), tokens[1:]
    if kind == "id":
        return Name(val), tokens[1:]
    if val == "(":
        inner, rest = _sum(tokens[1:])
        if not rest or rest[0][1] != ")":
            raise ExprError("missing ')'")
        return inner, rest[1:]
    raise ExprError(f"unexpected '{val}'")


def _product(tokens):
    tree, rest = _atom(tokens)
    while rest and rest[0][1] in ("*", "/", "//"):
        op = rest[0][1]
        right, rest = _atom(rest[1:])
        tree = BinOp(op, tree, right)
    return tree, rest


def _sum(tokens):
    tree, rest = _product(tokens)
    while rest and rest[0][1] in ("+", "-"):
        op = rest[0][1]
        right, rest = _product(rest[1:])
        tree = BinOp(op, tree, right)
    return tree, rest


def expr_names(tree: Expr) -> set[str]:
    """Every name an expression reads."""
    if isinstance(tree, Name):
        return {tree.name}
    if isinstance(tree, BinOp):
        return expr_names(tree.left) | expr_names(tree.right)
    return set()


def eval_expr(text: str, lookup) -> Any:
    """Evaluate ``text`` with names resolved by ``lookup(name)``; a lone name returns as is."""
    tree = parse_expr(text)
    if isinstance(tree, Name) and tree.raw:
        return lookup(tree.name)
    return _value(tree, lookup)


def _value(node: Expr, lookup) -> Any:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        v = lookup(node.name)
        n = _num(v)
        if n is None or not math.isfinite(n):
            raise ExprError(f"'{node.name}' is not a number here ({v!r})")
        return int(n) if n.is_integer() else n
    return _arith(node.op, _value(node.left, lookup), _value(node.right, lookup))


def _arith(op: str, a, b):
    if op in ("/", "//") and b == 0:
        raise ExprError("division by zero")
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        return a // b if op == "//" else a / b
    except OverflowError:  # a whole number too large to meet a float
        raise ExprError("a value is too large") from None


def _show(v: Any) -> str:
    """A value as a template writes it: 4.0 as 4."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def fill(text: str, lookup) -> str:
    """Replace every ``{expression}`` in ``text`` (``{{PLACEHOLDER}}`` is left alone)."""
    if "{" not in text:
        return text
    def one(m: re.Match) -> str:
        v = eval_expr(m.group(1), lookup)
        if v is None or v == "":
            raise ExprError(f"'{{{m.group(1)}}}' has no value here")
        return _show(v)
    return TEMPLATE.sub(one, text)


# --- checking a template at load ------------------------------------------------------------

@dataclass(frozen=True)
class Known:
    """What a template name can be worth where its rule runs: every value when they are few
    (``missing`` says where it has none), otherwise numeric bounds."""

    values: tuple[Any, ...] | None = None
    missing: str = ""
    low: float = -math.inf
    high: float = math.inf
    whole: bool = False


@dataclass(frozen=True)
class Span:
    """What an arithmetic expression can be worth: every value when few, else bounds."""

    low: float
    high: float
    whole: bool
    values: frozenset | None = None

    @classmethod
    def of(cls, values) -> "Span":
        values = frozenset(values)
        whole = all(isinstance(v, int) or v.is_integer() for v in values)
        return cls(min(values), max(values), whole, values)

    def has_zero(self) -> bool:
        return 0 in self.values if self.values is not None else self.low <= 0 <= self.high

    def samples(self) -> list[str]:
        if self.values is not None:
            return [_show(v) for v in sorted(self.values)]
        finite = [b for b in (self.low, self.high) if math.isfinite(b)] or [0]
        return [_show(b if self.whole else b + 0.5) for b in finite]


_EXACT = 4096  # largest value set computed exactly; beyond it, bounds


@dataclass
class DryFill:
    """A text's templates checked at load: the problems, the texts it can become (each
    template varied in turn, the others at their first value) and each template's Span."""

    problems: list[str]
    texts: list[str]
    spans: list[Span | None]


def dry_fill(text: str, names: Callable[[str], "Known | str"]) -> DryFill:
    """Check every ``{expression}`` of ``text`` against what ``names`` says each name can be."""
    problems: list[str] = []
    pieces: list[list[str]] = []
    spans: list[Span | None] = []
    matches = list(TEMPLATE.finditer(text))
    stray = PLACEHOLDER.sub("", TEMPLATE.sub("", text))
    if "{" in stray or "}" in stray:
        problems.append(f"'{_clip(text)}' has a brace that opens no {{expression}} and no "
                        "{{PLACEHOLDER}}; it would reach the command as written")
    for m in matches:
        before = len(problems)
        samples, span = _dry_expr(m.group(1), names, problems)
        pieces.append(samples if len(problems) == before and samples else ["1"])
        spans.append(span)
    texts = [_substitute(text, matches, [p[0] for p in pieces])]
    for i, options in enumerate(pieces):
        for option in options[1:64]:
            chosen = [p[0] for p in pieces]
            chosen[i] = option
            texts.append(_substitute(text, matches, chosen))
    return DryFill(problems, texts, spans)


def _substitute(text: str, matches: list[re.Match], values: list[str]) -> str:
    out, at = [], 0
    for m, v in zip(matches, values):
        out += [text[at:m.start()], v]
        at = m.end()
    return "".join(out + [text[at:]])


def _dry_expr(inner: str, names, problems: list[str]) -> tuple[list[str], Span | None]:
    try:
        tree = parse_expr(inner)
    except ExprError as exc:
        problems.append(f"'{{{_clip(inner.strip())}}}' is not an expression: {exc}")
        return [], None
    if isinstance(tree, Name) and tree.raw:
        known = names(tree.name)
        if isinstance(known, str):
            problems.append(known)
            return [], None
        if known.values is None:
            span = Span(known.low, known.high, known.whole)
            return span.samples(), span
        if known.missing or not known.values:
            problems.append(f"'{{{tree.name}}}' has no value {known.missing or 'anywhere'}")
            return [], None
        numbers = [_num(v) for v in known.values]
        finite = all(n is not None and math.isfinite(n) for n in numbers)
        span = Span.of(numbers) if finite else None
        return [_show(v) for v in known.values], span
    span = _span(tree, names, problems, _clip(inner.strip()))
    return (span.samples() if span else []), span


def _span(node: Expr, names, problems: list[str], whole_text: str) -> Span | None:
    if isinstance(node, Num):
        return Span.of([node.value])
    if isinstance(node, Name):
        known = names(node.name)
        if isinstance(known, str):
            problems.append(known)
            return None
        if known.values is None:
            return Span(known.low, known.high, known.whole)
        if known.missing:
            problems.append(f"'{node.name}' in '{{{whole_text}}}' has no value {known.missing}")
            return None
        numbers = [None if isinstance(v, bool) else _num(v) for v in known.values]
        bad = [v for v, n in zip(known.values, numbers) if n is None or not math.isfinite(n)]
        if bad or not numbers:
            shown = f"it can be {bad[0]!r}" if bad else "it has no value"
            problems.append(f"'{node.name}' in '{{{whole_text}}}' is not a number ({shown})")
            return None
        return Span.of(int(n) if n.is_integer() else n for n in numbers)
    left = _span(node.left, names, problems, whole_text)
    right = _span(node.right, names, problems, whole_text)
    if left is None or right is None:
        return None
    if node.op in ("/", "//") and right.has_zero():
        why = "" if isinstance(node.right, Num) else f", which can be 0 ({_span_text(right)})"
        problems.append(f"'{{{whole_text}}}' divides by '{node.right}'{why}; a divisor is a "
                        "number other than 0 or a name that is never 0")
        return None
    if left.values is not None and right.values is not None \
            and len(left.values) * len(right.values) <= _EXACT:
        try:
            return Span.of(_arith(node.op, a, b) for a in left.values for b in right.values)
        except ExprError as exc:
            problems.append(f"'{{{whole_text}}}': {exc}")
            return None
    try:
        return _bounds(node.op, left, right)
    except OverflowError:
        problems.append(f"'{{{whole_text}}}': a value is too large")
        return None


def _span_text(span: Span) -> str:
    if span.values is not None:
        return "it can be " + ", ".join(span.samples()[:8])
    return f"it ranges from {_show(span.low)} to {_show(span.high)}"


def _mul(a: float, b: float) -> float:
    return 0.0 if a == 0 or b == 0 else a * b


def _div(x: float, y: float) -> float:
    if math.isinf(y):
        return 0.0 if math.isfinite(x) else math.copysign(math.inf, x * y)
    return x / y


def _floor(x: float) -> float:
    return math.floor(x) if math.isfinite(x) else x


def _bounds(op: str, a: Span, b: Span) -> Span:
    """Interval arithmetic; an undefined corner (inf - inf) widens to no bound."""
    whole = a.whole and b.whole
    if op in ("+", "-"):
        lows = a.low + b.low if op == "+" else a.low - b.high
        highs = a.high + b.high if op == "+" else a.high - b.low
        return Span(-math.inf if math.isnan(lows) else lows,
                    math.inf if math.isnan(highs) else highs, whole)
    if op == "*":
        corners = [_mul(x, y) for x in (a.low, a.high) for y in (b.low, b.high)]
        return Span(min(corners), max(corners), whole)
    # the divisor's bounds exclude 0 here, so the quotient is monotonic between the corners
    corners = [_div(x, y) for x in (a.low, a.high) for y in (b.low, b.high)]
    if op == "//":
        return Span(_floor(min(corners)), _floor(max(corners)), True)
    return Span(min(corners), max(corners), False)
