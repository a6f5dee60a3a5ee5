"""The SGLang and sglang-router flag catalogs extracted from the pinned wheels.

Owns looking a flag up the way argparse would (exact name, alias, ``--no-`` form, unique
abbreviation) and checking one flag's values against its type, its choices and the bounds of
``flag-bounds.yaml`` (reading and validating that file too). The JSON files are written by
``catalog_build.py``; this module only reads them. Must not decide bounds in code: which flags
are counts, ports or fractions is data.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from .errors import Problem, choices_hint
from .yamlfile import Marked

_PLACEHOLDER = re.compile(r"\{\{[A-Z0-9_]+\}\}|<[^<>]+>")
# SGLang's own human_readable_int: case-sensitive SI (decimals allowed) or IEC suffixes, else int()
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_MULTIPLIER = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
               "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
NUMERIC_TYPES = ("int", "float", "human_readable_int")


@dataclass(frozen=True)
class Bound:
    """The values a numeric flag can take: ``min``/``max`` inclusive, ``above`` exclusive."""

    means: str
    min: int | float | None = None
    above: int | float | None = None
    max: int | float | None = None

    def problem(self, number: int | float) -> str | None:
        if (self.min is not None and number < self.min) \
                or (self.above is not None and number <= self.above) \
                or (self.max is not None and number > self.max):
            return f"must be {self.describe()} ({self.means})"
        return None

    def describe(self) -> str:
        if self.min is not None and self.max is not None:
            return f"from {self.min} to {self.max}"
        parts = [f"at least {self.min}" if self.min is not None else None,
                 f"above {self.above}" if self.above is not None else None,
                 f"at most {self.max}" if self.max is not None else None]
        return " and ".join(p for p in parts if p)


@dataclass(frozen=True, eq=False)  # identity: specs are unique, and hashable for caching
class FlagSpec:
    name: str
    aliases: tuple[str, ...]
    takes_value: bool
    nargs: Any
    type: str
    choices: tuple[str, ...] | None
    default: Any
    deprecated: str | None
    help: str = ""
    late_choices: tuple[str, ...] | None = None
    source: str = "sglang"
    action: str = "store"
    negations: tuple[str, ...] = ()
    bound: Bound | None = None

    @classmethod
    def from_json(cls, d: dict, source: str) -> "FlagSpec":
        choices = d.get("choices")
        late = d.get("late_choices")
        return cls(
            name=d["name"], aliases=tuple(d.get("aliases") or ()),
            takes_value=bool(d.get("takes_value", True)), nargs=d.get("nargs"),
            type=str(d.get("type") or "str"),
            choices=tuple(str(c) for c in choices) if choices else None,
            default=d.get("default"), deprecated=d.get("deprecated"), help=d.get("help") or "",
            late_choices=tuple(str(c) for c in late) if late else None, source=source,
            action=str(d.get("action") or "store"), negations=tuple(d.get("negations") or ()))


@dataclass(frozen=True)
class Lookup:
    spec: FlagSpec | None
    written: str
    kind: str  # exact | alias | negated | abbreviated | ambiguous | unknown
    candidates: tuple[str, ...] = ()


@dataclass
class Catalog:
    package: str
    version: str
    flags: dict[str, FlagSpec]
    env: dict[str, dict]
    allow_abbrev: bool = True
    _names: dict[str, tuple[FlagSpec, str]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: Path, source: str) -> "Catalog":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        flags = {f["name"]: FlagSpec.from_json(f, source) for f in data["flags"]}
        env = {e["name"]: e for e in data.get("env", [])}
        cat = cls(data["package"], data["version"], flags, env, bool(data.get("allow_abbrev", True)))
        cat._index()
        return cat

    def _index(self) -> None:
        self._names.clear()
        self.__dict__.pop("sorted_names", None)
        for spec in self.flags.values():
            self._names[spec.name] = (spec, "exact")
            for negation in spec.negations:
                self._names.setdefault(negation, (spec, "negated"))
            for alias in spec.aliases:
                self._names.setdefault(alias, (spec, "alias"))

    def add(self, spec: FlagSpec) -> None:
        self.flags[spec.name] = spec
        self._names[spec.name] = (spec, "exact")
        for alias in spec.aliases:
            self._names.setdefault(alias, (spec, "alias"))
        self.__dict__.pop("sorted_names", None)

    def set_bounds(self, bounds: dict[str, Bound]) -> None:
        for name, bound in bounds.items():
            self.flags[name] = replace(self.flags[name], bound=bound)
        self._index()

    @cached_property
    def sorted_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._names))

    def lookup(self, written: str) -> Lookup:
        hit = self._names.get(written)
        if hit:
            return Lookup(hit[0], written, hit[1])
        if self.allow_abbrev:  # the names sharing a prefix sit together in sorted order
            names = self.sorted_names
            i = end = bisect_left(names, written)
            while end < len(names) and names[end].startswith(written):
                end += 1
            matches = names[i:end]
            specs = {self._names[n][0].name for n in matches}
            if len(specs) == 1:
                return Lookup(self._names[matches[0]][0], written, "abbreviated", tuple(matches))
            if len(specs) > 1:
                return Lookup(None, written, "ambiguous", tuple(sorted(specs)))
        return Lookup(None, written, "unknown")

    def canonical(self, written: str) -> str | None:
        hit = self._names.get(written)
        return hit[0].name if hit else None


def is_placeholder(value: str) -> bool:
    """Values the reader fills in (``<rank>``) or the renderer fills in (``{{PORT}}``)."""
    return bool(_PLACEHOLDER.search(value))


@lru_cache(maxsize=16384)
def value_problem(spec: FlagSpec, values: tuple[str, ...]) -> str | None:
    """Why ``values`` are not acceptable for ``spec`` (argparse-level), or None."""
    if not spec.takes_value:
        if values:
            return f"{spec.name} takes no value (got '{' '.join(values)}')"
        return None
    if not values and spec.nargs not in ("*", "?"):
        return f"{spec.name} needs a value"
    if spec.nargs in (None, 1, "?") and len(values) > 1:
        return f"{spec.name} takes one value (got {len(values)}: {' '.join(values)})"
    if isinstance(spec.nargs, int) and spec.nargs > 1 and len(values) != spec.nargs:
        return f"{spec.name} takes {spec.nargs} values (got {len(values)})"
    for v in values:
        if is_placeholder(v):
            continue
        if spec.choices and v not in spec.choices:
            return (f"{spec.name} {v}: '{v}' is not a valid choice "
                    f"(valid: {', '.join(spec.choices)})")
        if spec.late_choices and v.upper() not in {c.upper() for c in spec.late_choices}:
            return (f"{spec.name} {v}: SGLang rejects '{v}' at startup "
                    f"(valid: {', '.join(spec.late_choices)})")
        bad = _type_problem(spec.type, v)
        if bad is None and spec.bound is not None:
            bad = spec.bound.problem(_number(spec.type, v))
        if bad:
            return f"{spec.name} {v}: {bad}"
    return None


def _type_problem(kind: str, v: str) -> str | None:
    if kind in NUMERIC_TYPES:
        try:
            number = _number(kind, v)
        except ValueError:
            return {"int": f"'{v}' is not an integer", "float": f"'{v}' is not a number",
                    "human_readable_int": f"'{v}' is not a size like 65536, 128k or 1Mi"}[kind]
        if isinstance(number, float) and not math.isfinite(number):  # float() takes them
            return f"'{v}' is not a finite number"
    elif kind == "json":
        try:
            json.loads(v)
        except ValueError:
            return f"'{v}' is not valid JSON"
    return None


def _number(kind: str, v: str) -> int | float:
    """The value as the flag's argparse type reads it; ValueError when it does not."""
    if kind == "float":
        return float(v)
    if kind == "human_readable_int":
        m = _HUMAN_INT.fullmatch(v.strip())
        if m:
            number, suffix = m.groups()
            if suffix.endswith("i"):
                return int(number) * _MULTIPLIER[suffix]  # a decimal IEC size is refused here
            return int(Decimal(number) * _MULTIPLIER[suffix])
    return int(v)


# --- flag-bounds.yaml --------------------------------------------------------------------------

_KIND_FIELDS = ("means", "min", "above", "max")


def load_bounds(doc: Marked, catalogs: dict[str, Catalog]) -> list[Problem]:
    """Give the catalogs' specs the bounds ``doc`` lists; every mistake with its place. The
    catalogs are keyed by package name (``sglang``, ``sglang-router``)."""
    data = doc.data
    if not isinstance(data, dict) or set(data) != {"kinds", "flags"}:
        return [doc.problem((), "a bounds file is a mapping with exactly the keys 'kinds' "
                                "and 'flags'")]
    problems: list[Problem] = []
    declared = data["kinds"] if isinstance(data["kinds"], dict) else {}
    if not isinstance(data["kinds"], dict):
        problems.append(doc.problem(("kinds",), "'kinds' maps a kind's name to its bound"))
    kinds: dict[Any, Bound] = {}  # the declared kinds whose bound is sound
    for kind, fields in declared.items():
        bound, why = _bound_of(fields)
        if why:
            problems.append(doc.problem(("kinds", kind), f"kind '{kind}': {why}"))
        else:
            kinds[kind] = bound
    if not isinstance(data["flags"], dict):
        return problems + [doc.problem(("flags",), "'flags' maps a catalog's package name to "
                                                   "its kinds")]
    for package, by_kind in data["flags"].items():
        catalog = catalogs.get(package)
        if catalog is None:
            problems.append(doc.problem(("flags", package), f"'{package}' is not a flag catalog "
                                        f"({choices_hint(str(package), catalogs)})"))
        elif not isinstance(by_kind, dict):
            problems.append(doc.problem(("flags", package), f"'{package}' maps a kind to a list "
                                        "of flag names"))
        else:
            problems += _catalog_bounds(doc, catalog, package, by_kind, kinds, declared)
    return problems


def _catalog_bounds(doc: Marked, catalog: Catalog, package, by_kind: dict, kinds: dict,
                    declared: dict) -> list[Problem]:
    problems: list[Problem] = []
    bounds: dict[str, Bound] = {}
    listed: dict[str, Any] = {}
    for kind, names in by_kind.items():
        where = ("flags", package, kind)
        if kind not in declared:
            problems.append(doc.problem(where, f"unknown kind '{kind}' "
                                        f"({choices_hint(str(kind), declared)})"))
            continue
        if not isinstance(names, list):
            problems.append(doc.problem(where, f"kind '{kind}' takes a list of flag names"))
            continue
        for i, name in enumerate(names):
            spec = catalog.flags.get(name) if isinstance(name, str) else None
            if spec is None:
                problems.append(doc.problem(where + (i,), f"'{name}' is not a flag of "
                                            f"{catalog.package} {catalog.version} "
                                            f"({choices_hint(str(name), catalog.flags)})"))
            elif spec.type not in NUMERIC_TYPES:
                problems.append(doc.problem(where + (i,), f"{name} takes {spec.type} values, so "
                                            "it has no numeric bound"))
            elif name in listed:
                problems.append(doc.problem(where + (i,), f"{name} is listed twice (first under "
                                            f"'{listed[name]}')"))
            elif kind in kinds:  # a kind with a broken bound is reported once, above
                bound = kinds[kind]
                default = spec.default
                outside = isinstance(default, (int, float)) and not isinstance(default, bool) \
                    and bound.problem(default)
                if outside:  # a sentinel default ("-1: unlimited") means the bound is wrong
                    problems.append(doc.problem(where + (i,), f"{name}'s default {default} "
                                                f"{outside}: it is not a '{kind}' flag"))
                else:
                    bounds[name] = bound
                listed[name] = kind
    catalog.set_bounds(bounds)
    return problems


def _bound_of(fields: Any) -> tuple[Bound | None, str | None]:
    if not isinstance(fields, dict):
        return None, f"give the bound as a mapping of {', '.join(_KIND_FIELDS)}"
    unknown = [k for k in fields if k not in _KIND_FIELDS]
    if unknown:
        return None, f"unknown field '{unknown[0]}' (valid fields: {', '.join(_KIND_FIELDS)})"
    means = fields.get("means")
    if not isinstance(means, str) or not means.strip():
        return None, "'means' names what such a value is (a count, a port …)"
    numbers = {k: fields[k] for k in ("min", "above", "max") if k in fields}
    for key, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or (isinstance(value, float) and not math.isfinite(value)):
            return None, f"'{key}' must be a finite number (got {value!r})"
    if not numbers:
        return None, "give at least one of 'min', 'above' and 'max'"
    if "min" in numbers and "above" in numbers:
        return None, "give 'min' or 'above', not both"
    low = numbers.get("min", numbers.get("above"))
    if low is not None and "max" in numbers and not (
            low < numbers["max"] or ("min" in numbers and low == numbers["max"])):
        return None, f"no value satisfies the bound (lower {low}, max {numbers['max']})"
    return Bound(means.strip(), **numbers), None
