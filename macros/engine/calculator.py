"""A model's calculator, read from its data: values taken from the command (its flags, its
environment, whether it is a PD prefill or decode server), constants, and one formula.

Owns evaluating a ``Calculator`` (schema.py) for one command and request length, and the
formatting of its result (``fmt``); the Playground's JavaScript evaluates the same data the same
way (a parity test compares them). Must not know any model: the formula, the constants and how
each value is read are the model's data (``calculator`` in its model.yaml).
"""

from __future__ import annotations

import math
from typing import Any

from macros.engine import templates
from macros.engine.templates import ExprError
from macros.engine.schema import Calculator

Values = dict[str, Any]


class _Context:
    """What a calculator's conditions read: the command's flags and env, ``pd`` (the PD server
    kind, "" for none) and the values worked out so far."""

    def __init__(self, flags: dict[str, tuple[str, ...]], env: dict[str, str], pd: str | None,
                 values: Values):
        self._flags, self._env, self.pd, self.values = flags, env, pd, values

    def value(self, key: str) -> Any:
        if key == "pd":
            return self.pd or ""
        return self.values.get(key)

    def flags(self):
        return self._flags

    def cell_flags(self):
        return None

    def env(self):
        return self._env


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        return None


def evaluate(calc: Calculator, flags: dict[str, tuple[str, ...]], env: dict[str, str],
             pd: str | None, avg_len: int | None) -> tuple[Values, float | None]:
    """Every value of ``calc`` for one command, and the formula's result (None when a value
    cannot be worked out, ``applies_when`` fails, or the result is not a positive number)."""
    values: Values = {}
    ctx = _Context(flags, env, pd, values)

    def lookup(name: str) -> Any:
        if name in values:
            return values[name]
        if name in calc.constants:
            return calc.constants[name]
        if name == "avg_len" and avg_len is not None:
            return avg_len
        raise ExprError(f"unknown name '{name}'")

    def worth(given: Any, text: bool) -> Any:
        if text or not isinstance(given, str):
            return given
        return templates.eval_expr(given, lookup)

    try:
        for v in calc.values:
            read = (flags.get(v.flag) or ()) if v.flag else ()
            if read and (v.text or _number(read[0]) is not None):
                values[v.id] = read[0] if v.text else _number(read[0])
                continue
            case = next((c for c in v.cases if c.when.holds(ctx) is True), None)
            values[v.id] = worth(case.value if case else v.default, v.text)
        if calc.applies_when.holds(ctx) is not True:
            return values, None
        result = templates.eval_expr(calc.formula, lookup)
    except ExprError:  # a value the command cannot give (a division by zero, say)
        return values, None
    if not isinstance(result, (int, float)) or not math.isfinite(result) or result <= 0:
        return values, None
    return values, float(result)


def of_command(calc: Calculator, flags, env: list[str], pd: str | None,
               avg_len: int) -> tuple[Values, float | None]:
    """``evaluate`` for a composed command, its own pinned flag left out."""
    return evaluate(calc, {f.name: f.values for f in flags if f.name != calc.pins},
                    dict(e.split("=", 1) for e in env), pd, avg_len)


def field(value: Any) -> str:
    """A value as the calculator's explanation texts show it: thousands separated, at most one
    decimal ("27,648", "13,824.5", "0.5"); text as it is."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    text = f"{value:,.1f}"
    return text[:-2] if text.endswith(".0") else text


def fmt(value: float) -> str:
    """One decimal from 10 up; below that two decimals or two significant digits, zeros trimmed."""
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        text = f"{value:.2f}"
    else:
        digits = 1 - math.floor(math.log10(value))
        text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
