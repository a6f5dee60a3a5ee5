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
from macros.engine.errors import Problem, RecipeError
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


# The largest result a calculator may pin: a flag value of more digits is no setting anyone
# means, and a longer number would flood the command.
MAX_RESULT = 1e15


class CalculatorError(RecipeError):
    """A calculator gave a command an absurd value (``Absurd``): raised where it is composed."""

    def __init__(self, problems, calc_id: str, why: str):
        super().__init__(problems)
        self.calc_id, self.why = calc_id, why


class Absurd(str):
    """A reason a calculator gives no value that no command may meet quietly: a number too large
    for a float, not finite, or longer than MAX_RESULT allows. At run time it is an error."""


def evaluate(calc: Calculator, flags: dict[str, tuple[str, ...]], env: dict[str, str],
             pd: str | None, avg_len: int | None) -> tuple[Values, float | None]:
    """Every value of ``calc`` for one command, and the formula's result (None when a value
    cannot be worked out, ``applies_when`` fails, or the result is not a positive number)."""
    values, result, _ = outcome(calc, flags, env, pd, avg_len)
    return values, result


def outcome(calc: Calculator, flags: dict[str, tuple[str, ...]], env: dict[str, str],
            pd: str | None, avg_len: int | None) -> tuple[Values, float | None, str | None]:
    """``evaluate`` and why the formula gives no value: None when it gives one or when
    ``applies_when`` fails (the calculator does not apply), else the reason (a division by
    zero, a value too large, a result that is not a positive number)."""
    values, result, why, _ = _outcome(calc, flags, env, pd, avg_len)
    return values, result, why


def _outcome(calc: Calculator, flags, env, pd, avg_len):
    """``outcome`` and whether the reason arose in working out a value (True: the command's
    shape gives none) rather than in the formula."""
    values: Values = {}
    ctx = _Context(flags, env, pd, values)
    in_values = True

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
            return values, None, None, False
        in_values = False
        result = templates.eval_expr(calc.formula, lookup)
    except ExprError as exc:  # a value the command cannot give (a division by zero, say)
        why = str(exc)
        return values, None, Absurd(why) if "too large" in why else why, in_values
    except (OverflowError, ValueError, TypeError):  # a number too large to meet a float
        return values, None, Absurd("a value is too large"), in_values
    if not isinstance(result, (int, float)) or isinstance(result, bool):
        return values, None, f"the formula gives no number ({result!r})", False
    try:
        number = float(result)
    except OverflowError:
        return values, None, Absurd("the result is too large"), False
    if not math.isfinite(number):
        return values, None, Absurd("the result is not a finite number"), False
    if number <= 0:
        return values, None, f"the result {number:g} is not a positive number", False
    if number >= MAX_RESULT:
        return values, None, Absurd(f"the result {number:.6g} is too large (at most "
                                     f"{MAX_RESULT:g})"), False
    return values, number, None, False


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
    """One decimal from 10 up; below that two decimals or two significant digits, zeros trimmed.
    A value no calculator can give (not finite, not positive, too large) is an error, never a
    long or odd number in a command."""
    if not isinstance(value, (int, float)) or not math.isfinite(value) or not 0 < value < MAX_RESULT:
        raise RecipeError([Problem("<calculator>", None, None, f"a calculator gave {value!r}, "
                                   f"not a positive number below {MAX_RESULT:g}")])
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


def dry_run(calc: Calculator, flags: dict[str, tuple[str, ...]], env: dict[str, str],
            pd: str | None, lengths: list[int | None], bounds: dict, pinned_bound) -> str | None:
    """Why ``calc`` gives a command no value it can pin, tried on that command (``flags``
    without the pinned one, ``env``, ``pd``) at each request length of ``lengths`` and with each
    flag it reads at the extremes ``bounds`` declares for it (flag -> Bound); None when every
    try gives a value ``pinned_bound`` (the pinned flag's Bound, or None) accepts, or the
    calculator does not apply there."""
    tries: list[tuple[str, dict, int | None]] = [
        (f"avg_len={n}" if n is not None else "", flags, n) for n in lengths]
    for v in calc.values:
        bound = bounds.get(v.flag) if v.flag and not v.text else None
        for end in (getattr(bound, "min", None), getattr(bound, "max", None)):
            if end is not None and flags.get(v.flag, ("",))[0] != str(end):
                tries.append((f"{v.flag} {end:g}", {**flags, v.flag: (f"{end:g}",)}, lengths[0]))
    for k, (where, given, n) in enumerate(tries):
        _, result, why, shape = _outcome(calc, given, env, pd, n)
        if shape and k >= len(lengths):  # flags moved apart make a command of no shape
            continue
        if why is None and result is not None and pinned_bound is not None:
            bad = pinned_bound.problem(result)
            why = f"the result {result:g} is out of {calc.pins}'s bounds: {bad}" if bad else None
        if why:
            return why + (f" (at {where})" if where else "")
    return None
