"""The ``{expression}`` templates of rule texts and flag values: integers, + - * / //,
parentheses and dotted names.

Owns reading a template (``parse_expr``, an ``Expr`` tree), filling it (``fill``,
``eval_expr``) and its load-time check (``dry_fill``: what every name can be worth where its
rule runs, given by ``database.py``). Must not read files or know a model's data; the names a
template may use come from its caller.

Division by zero: a divisor is accepted at load only when every value it can take is a non-zero
number: a literal, or a name whose values the caller lists (platform attributes, axis options,
cell flag values, ports) or bounds (``nodes`` ≥ 1). Loaded data cannot change, so a validated
template never divides by zero; ``eval_expr`` still answers ExprError, not a crash, for data
that was never validated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from macros.engine.conditions import clip as _clip, num as _num

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
        try:
            n = _num(v)
        except OverflowError:
            raise ExprError(f"'{node.name}' is too large") from None
        if n is None or not math.isfinite(n):
            raise ExprError(f"'{node.name}' is not a number here ({v!r})")
        return int(n) if n.is_integer() else n
    return _arith(node.op, _value(node.left, lookup), _value(node.right, lookup))


def _arith(op: str, a, b):
    if op in ("/", "//") and b == 0:
        raise ExprError("division by zero")
    try:
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        else:
            r = a // b if op == "//" else a / b
        if not math.isfinite(float(r)):  # a float past its range: inf, and inf - inf is nan
            raise OverflowError
    except OverflowError:  # a whole number too large to meet a float
        raise ExprError("a value is too large") from None
    return r


def show(v: Any) -> str:
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
        return show(v)
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
            return [show(v) for v in sorted(self.values)]
        finite = [b for b in (self.low, self.high) if math.isfinite(b)] or [0]
        return [show(b if self.whole else b + 0.5) for b in finite]


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
        return [show(v) for v in known.values], span
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
    return f"it ranges from {show(span.low)} to {show(span.high)}"


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
