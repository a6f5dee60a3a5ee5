"""Flag values the shell fills in when the command runs, and placeholders the reader fills in.

Owns telling them apart from plain values and judging them by what they can become: a value
holding ``$VAR``, ``${VAR}``, ``$((…))``, ``$(…)`` or a backquoted command is known only at run
time, so a number flag given ``$i`` is fine and ``abc$i`` is not; ``${VAR:-x}`` is judged by its
default ``x``; a placeholder (``<path>``, ``<other args>``, ``[args]``, ``[a|b]``, ``...``) is
never a value to refuse, at most one to fill in from the flag's choices. Must not read shell
syntax (``shell.py`` keeps these as word text) or run anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from macros.engine.catalog import FlagSpec, value_problem

# what bash expands in a word: parameters, arithmetic, command substitution
_EXPANSION = re.compile(r"""
    \$\{[^}]*\}
  | \$\(\((?:[^()]|\([^()]*\))*\)\)
  | \$\((?:[^()]|\([^()]*\))*\)
  | `[^`]*`
  | \$[A-Za-z_][A-Za-z0-9_]*
  | \$[0-9@*#?$!-]
""", re.VERBOSE)
_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]([^}]*)\}")
_PLACEHOLDER = re.compile(r"<[^<>]+>|\[[^\[\]]*\]|\.\.\.|…|\{\{[A-Z0-9_]+\}\}")
# the text a number can hold once the expansions are filled in (run-time parts removed)
_NUMBER_TEXT = {"int": re.compile(r"[+-]?[0-9_]*"),
                "float": re.compile(r"[+-]?[0-9._eE+-]*|[+-]?(inf|nan)", re.IGNORECASE),
                "human_readable_int": re.compile(r"[0-9.]*(Ki|Mi|Gi|Ti|k|M|G|T)?")}
# a stand-in that value_problem never judges (catalog.is_placeholder)
SKIP = "<value>"


def expands(value: str) -> bool:
    """Whether the shell fills in part of ``value`` when the command runs."""
    return ("$" in value or "`" in value) and bool(_EXPANSION.search(value))


def placeholder(value: str) -> bool:
    """A value the reader fills in: the whole word is ``<…>``, ``[…]``, ``...`` or ``{{X}}``."""
    return bool(_PLACEHOLDER.fullmatch(value))


def alternatives(value: str) -> list[str]:
    """The choices a ``[a|b]`` or ``<a|b>`` placeholder offers."""
    inner = value[1:-1] if value[:1] in "[<" else ""
    return [a.strip() for a in inner.split("|")] if "|" in inner else []


@dataclass(frozen=True)
class Judged:
    """What the checker does with one value: judge ``value`` as argparse would (``SKIP``:
    nothing to judge), having said ``problem`` (an error) or ``note`` (a warning) already."""

    value: str
    problem: str | None = None
    note: str | None = None


def judge(spec: FlagSpec, value: str) -> Judged:
    """One value of ``spec`` as the shell and the reader may fill it in."""
    if placeholder(value):
        return Judged(SKIP, note=_placeholder_note(spec, value))
    if not expands(value):
        return Judged(value)
    whole = _DEFAULT.fullmatch(value)
    if whole:
        name, default = whole.groups()
        if default == "" or expands(default):
            return Judged(SKIP)
        bad = value_problem(spec, (default,))
        if bad:
            return Judged(SKIP, f"{bad} (the default of {value}, which the shell uses while "
                                f"{name} is unset or empty)")
        return Judged(SKIP)
    return Judged(SKIP, _cannot_become(spec, value))


def _cannot_become(spec: FlagSpec, value: str) -> str | None:
    """Why no run-time value can make ``value`` acceptable to ``spec``, or None."""
    choices = spec.choices or spec.late_choices
    if choices:
        parts = _EXPANSION.split(value)
        pattern = re.compile(".*".join(re.escape(p) for p in parts),
                             0 if spec.choices else re.IGNORECASE)
        if any(pattern.fullmatch(c) for c in choices):
            return None
        return (f"{spec.name} {value}: whatever the shell puts in place of "
                f"{', '.join(_EXPANSION.findall(value))}, '{value}' is no valid choice "
                f"(valid: {', '.join(choices)})")
    shape = _NUMBER_TEXT.get(spec.type)
    literal = _EXPANSION.sub("", value)
    if shape is not None and not shape.fullmatch(literal):
        return (f"{spec.name} {value}: whatever the shell puts in place of "
                f"{', '.join(_EXPANSION.findall(value))}, '{value}' is no {spec.type} "
                f"('{literal}' is written around it)")
    return None


def _placeholder_note(spec: FlagSpec, value: str) -> str | None:
    choices = spec.choices or spec.late_choices
    if not choices:
        return None
    offered = alternatives(value)
    wrong = [a for a in offered if a not in choices and a.upper() not in
             {c.upper() for c in (spec.late_choices or ())}]
    extra = f"; {', '.join(repr(a) for a in wrong)} is not one of them" if wrong else ""
    return (f"{spec.name} {value} is a placeholder: fill in one of {', '.join(choices)}"
            f"{extra}")


def stray_placeholder(word: str) -> bool:
    """A word argparse would refuse that stands for more arguments (``[args]``, ``...``,
    ``<other args>``): the reader fills it in, so it is no stray word."""
    return placeholder(word)
