"""What a parsed condition may name: the load-time check of a ``conditions`` tree against a
model's vocabulary.

Owns ``Domain`` (the values a context key or a flag's first value can take), ``Vocabulary``
(every key a model's conditions may read, built by ``database.py`` from the data) and
``check``, which reports a tree's shape problems (found by ``conditions.parse``) and every test
that names something unknown or can never hold, each at its path inside the mapping. Must not
read files or know a model's data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from macros.engine.conditions import (ENV_NAME, All, AnyOf, Bad, Found, Key, Names, Node, Not, Op, Path, Test, Tests, clip, norm, num)
from macros.engine.errors import choices_hint
from macros.engine.templates import show


@dataclass(frozen=True)
class Domain:
    """The values a context key (or a flag's first value) can take at evaluation time.

    ``values`` closes the set; the tests compare through ``norm`` as evaluation does (``fold``:
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
            return "one of " + ", ".join(f"'{norm(v)}'" for v in self.values)
        if not self.number:
            return "any text"
        kind = "a whole number" if self.whole else "a number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {show(self.low)} to {show(self.high)}"
        if self.low is not None:
            return f"{kind} ≥ {show(self.low)}"
        return kind

    def admits(self, value: Any) -> bool:
        if self.values is not None:
            fold = (lambda s: s.lower()) if self.fold else (lambda s: s)
            return fold(norm(value)) in {fold(norm(v)) for v in self.values}
        if not self.number:
            return True
        n = None if isinstance(value, bool) else num(value)
        return n is not None and math.isfinite(n) and (not self.whole or n.is_integer()) \
            and (self.low is None or n >= self.low) and (self.high is None or n <= self.high)


@dataclass(frozen=True)
class Vocabulary:
    """What a model's conditions may read: every plain context key with its domain, and for a
    flag name (``of_cell`` for cell_has / cell_flag) its value domain or why the name is wrong."""

    keys: Mapping[str, Domain]
    flag: Callable[[str, bool], "Domain | str"]


def check(node: Node, vocab: Vocabulary) -> Found:
    """Every problem of one parsed condition, each at its path inside the mapping."""
    if isinstance(node, Bad):
        if node.near is not None:
            return [(node.path, f"{node.message} ({_key_hint(node.near, vocab)})")]
        return [(node.path, node.message)]
    if isinstance(node, (All, AnyOf)):
        return [f for part in node.parts for f in check(part, vocab)]
    if isinstance(node, Not):
        return check(node.part, vocab)
    if isinstance(node, Names):
        return _check_names(node, vocab)
    if isinstance(node, Tests):
        return _check_tests(node, vocab)
    assert isinstance(node, Key)
    return _check_key(node, vocab)


def _check_key(node: Key, vocab: Vocabulary) -> Found:
    key, p = node.key, node.path
    if key in vocab.keys:
        return _check_test(key, node.test, vocab.keys[key], vocab)
    if key.startswith("hw."):
        known = [k[3:] for k in vocab.keys if k.startswith("hw.")]
        return [(p, f"unknown hardware attribute '{clip(key[3:])}' "
                    f"({choices_hint(clip(key[3:]), known)})")]
    if key.startswith("cell."):
        known = [k[5:] for k in vocab.keys if k.startswith("cell.")]
        return [(p, f"unknown cell attribute '{clip(key[5:])}' (known: {', '.join(known)})")]
    if key == "calculator":
        known = [k for k in vocab.keys if k.startswith("calculator.")]
        return [(p, "'calculator' names no calculator: write calculator.<id> "
                    f"({'known: ' + ', '.join(known) if known else 'the model declares none'})")]
    if key.startswith("calculator."):
        known = [k[11:] for k in vocab.keys if k.startswith("calculator.")]
        hint = choices_hint(clip(key[11:]), known) if known else "the model declares none"
        return [(p, f"unknown calculator '{clip(key[11:])}' ({hint})")]
    return [(p, f"condition names unknown axis '{clip(key)}' ({_key_hint(clip(key), vocab)})")]


def _key_hint(key: str, vocab: Vocabulary) -> str:
    plain = [k for k in vocab.keys if "." not in k]
    calculators = [k for k in vocab.keys if k.startswith("calculator.")]
    return choices_hint(key, plain + ["hw.<attribute>", "cell.<attribute>"] + calculators)


def _check_names(node: Names, vocab: Vocabulary) -> Found:
    out: Found = []
    for i, name in enumerate(node.names):
        if node.source == "env":
            if not _env_name(name):
                out.append((node.path + (i,), f"'{name}' is not an environment variable name"))
        elif isinstance(problem := vocab.flag(name, node.source == "cell_flags"), str):
            out.append((node.path + (i,), problem))
    return out


def _env_name(name: Any) -> bool:
    return isinstance(name, str) and bool(ENV_NAME.match(name))


def _check_tests(node: Tests, vocab: Vocabulary) -> Found:
    out: Found = []
    for name, test in node.entries:
        if node.source == "env":
            if not _env_name(name):
                out.append((node.path + (name,), f"'{name}' is not an environment variable name"))
                continue
            domain: Domain | str = Domain(f"environment variable {name}")
        else:
            domain = vocab.flag(name, node.source == "cell_flags")
        if isinstance(domain, str):
            out.append((node.path + (name,), domain))
        else:
            out += _check_test(name, test, domain, vocab)
    return out


def _check_test(key: str, test: Test, domain: Domain, vocab: Vocabulary) -> Found:
    """Problems of one value test: its shape, each operand against ``domain``, and (when the
    test is well-formed) whether any value of the domain passes it."""
    out: Found = list(test.problems)
    for op in test.ops:
        out += _check_op(key, op, domain, vocab)
    if not out and not _can_hold(test, domain):
        out.append((test.path, f"this test on '{key}' never holds: {domain.what} is "
                               f"{domain.describe()}" + (f" ({domain.note})" if domain.note else "")))
    return out


def _check_value(key: str, want: Any, domain: Domain, path: Path, fold: bool = False) -> Found:
    folded = Domain(domain.what, domain.values, fold=True) if fold and domain.values else domain
    if folded.admits(want):
        return []
    if domain.values is not None:
        shown, choices = clip(norm(want)), [norm(v) for v in domain.values]
        # a value in the wrong case is the likeliest slip (AMD for amd): name the right one
        near = next((c for c in choices if c.lower() == shown.lower()), shown)
        note = f"; {domain.note}" if domain.note else ""
        hint = choices_hint(near, [c or "''" for c in choices])
        return [(path, f"{domain.what} has no {domain.noun} '{shown}' ({hint}{note})")]
    return [(path, f"{domain.what} is {domain.describe()} (got {clip(repr(want))})")]


def _check_op(key: str, op: Op, domain: Domain, vocab: Vocabulary) -> Found:
    name, want, path = op.name, op.want, op.path
    if name in ("eq", "ne"):
        return _check_value(key, want, domain, path)
    if name == "ieq":
        return _check_value(key, want, domain, path, fold=True)
    if name in ("in", "not_in"):
        # a list written as the whole test is one 'in' whose items sit at the test's path; an
        # item that is a mapping or a list is the parser's problem, reported already
        return [f for i, w in enumerate(want) if not isinstance(w, (dict, list))
                for f in _check_value(key, w, domain, path + (i,))]
    if name == "ne_var":
        if want not in vocab.keys:
            return [(path, f"'ne_var' names unknown context key '{clip(want)}' "
                           f"({choices_hint(clip(want), list(vocab.keys))})")]
        return []
    if domain.values is not None and all(num(v) is None for v in domain.values):
        return [(path, f"'{name}' compares numbers, but {domain.what} is never a number "
                       f"({domain.describe()})")]
    return []


class _Unknown:
    """The context of a dry run: ``ne_var`` and ``gt_flag`` compare with a value that is not
    known yet."""

    def value(self, key: str) -> Any:
        return None

    def flags(self) -> None:
        return None


def _can_hold(test: Test, domain: Domain) -> bool:
    """Does some value of ``domain`` pass ``test``? Open text domains always might."""
    if domain.fold:
        return True  # the command may spell the choice in any case
    if domain.values is not None:
        candidates: list[Any] = list(domain.values)
    elif domain.number:
        candidates = _number_candidates(test, domain)
    else:
        return True
    return any(test.holds(c, _Unknown()) is not False for c in candidates)


def _number_candidates(test: Test, domain: Domain) -> list[Any]:
    """Numbers that reach every region the test's constants cut the domain into: the
    constants, their neighbours, a point between any two, and the bounds."""
    consts = [c for op in test.ops if op.name not in ("ne_var", "gt_flag")
              for c in (op.want if isinstance(op.want, tuple) else (op.want,))]
    numbers = sorted({n for c in consts if (n := num(c)) is not None and math.isfinite(n)})
    out = [b for b in (domain.low, domain.high) if b is not None]
    for n in numbers:
        out += [math.floor(n) + d for d in (-1, 0, 1, 2)] + [n]
    out += [(a + b) / 2 for a, b in zip(numbers, numbers[1:])]
    if not out:
        out = [0, 1]
    return [c for c in out if domain.admits(c)]
