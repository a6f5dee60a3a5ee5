"""The SGLang and sglang-router flag catalogs extracted from the pinned wheels.

Owns looking a flag up the way argparse would (exact name, alias, ``--no-`` form, unique
abbreviation; a flag one program reads before argparse is no abbreviation target) and checking
one flag's values against its type, its choices and the bounds of ``flag-bounds.yaml``; what the
pinned release reads of the environment: its registry, its deprecated set (from
``sglang-history.json``, with the text the release warns with) and the variables it reads
outside the registry; the flags' roles. ``macros.engine.bounds`` reads ``flag-bounds.yaml`` into
it, which holds what the extracted catalogs do not record. The JSON files are written by
``catalog_build``;
this module only reads them. Must not decide bounds, choices or env facts in code: they are
data.
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

from macros.engine.history import History

_PLACEHOLDER = re.compile(r"\{\{[A-Z0-9_]+\}\}|<[^<>]+>")
# SGLang's own human_readable_int: case-sensitive SI (decimals allowed) or IEC suffixes, else int()
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_MULTIPLIER = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
               "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
NUMERIC_TYPES = ("int", "float", "human_readable_int")
HISTORY = "sglang-history.json"
DIFFUSION_HISTORY = "sglang-diffusion-history.json"  # the diffusion CLI's own history
# How the release's _DeprecatedEnv forwards an old value to its replacement (environ.py).
_TRANSFORMS = {"invert_bool": "inverted", "ms_to_s": "converted from milliseconds to seconds"}
# What sglang's EnvBool.parse reads as true (sglang/srt/environ.py); any other value is false
# or, when it is no boolean at all, the default with a warning.
_ENV_TRUE = ("true", "1", "yes", "y")


class _SizeError(ValueError):
    """A size SGLang's human_readable_int refuses with a reason of its own."""


@dataclass(frozen=True)
class Bound:
    """The values a numeric flag can take: ``min``/``max`` inclusive, ``above`` exclusive."""

    means: str
    min: int | float | None = None
    above: int | float | None = None
    max: int | float | None = None
    also: tuple[int | float, ...] = ()  # values outside the range that mean something (-1: off)

    def problem(self, number: int | float) -> str | None:
        if number in self.also:
            return None
        if (self.min is not None and number < self.min) \
                or (self.above is not None and number <= self.above) \
                or (self.max is not None and number > self.max):
            return f"must be {self.describe()} ({self.means})"
        return None

    def describe(self) -> str:
        if self.min is not None and self.max is not None:
            text = f"from {self.min} to {self.max}"
        else:
            parts = [f"at least {self.min}" if self.min is not None else None,
                     f"above {self.above}" if self.above is not None else None,
                     f"at most {self.max}" if self.max is not None else None]
            text = " and ".join(p for p in parts if p)
        return text + "".join(f" or {a}" for a in self.also)


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
    programs: tuple[str, ...] | None = None  # None: every program of the catalog reads it
    env_choices: tuple[tuple[str, str], ...] = ()  # (choice, the variable that adds it)
    # where argparse stores the value (the flag history records it; a pinned catalog file
    # does not): "" means argparse's default, the name without "--", dashes to underscores
    dest: str = ""

    @property
    def stored_as(self) -> str:
        """The name the parser stores the flag under (its ``dest``)."""
        return self.dest or self.name[2:].replace("-", "_")

    @classmethod
    def from_json(cls, d: dict, source: str) -> "FlagSpec":
        choices = d.get("choices")
        late = d.get("late_choices")
        programs = d.get("programs")
        return cls(
            name=d["name"], aliases=tuple(d.get("aliases") or ()),
            takes_value=bool(d.get("takes_value", True)), nargs=d.get("nargs"),
            type=str(d.get("type") or "str"),
            choices=tuple(str(c) for c in choices) if choices else None,
            default=d.get("default"), deprecated=d.get("deprecated"), help=d.get("help") or "",
            late_choices=tuple(str(c) for c in late) if late else None, source=source,
            action=str(d.get("action") or "store"), negations=tuple(d.get("negations") or ()),
            programs=tuple(programs) if programs else None, dest=str(d.get("dest") or ""))


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
    env: dict[str, dict]  # what the release reads: its registry, and env_read of flag-bounds.yaml
    allow_abbrev: bool = True
    programs: tuple[str, ...] = ()
    # name -> what the release does with it, in the words of its deprecation warning
    deprecated_env: dict[str, str] = field(default_factory=dict)
    # flag -> (the flag that bounds its value, what the two mean together, True: strictly
    # below it (``below``), False: at most it (``at_most``))
    below: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    # role -> the flags that carry it, first given wins (flag-bounds.yaml's ``roles``)
    roles: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _names: dict[str, tuple[FlagSpec, str]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: Path, source: str, history: dict | None = None,
             text: str | None = None) -> "Catalog":
        """The catalog file at ``path`` (its ``text``, if the caller read it); a release with an
        env registry has a deprecated set too, which the flag history (``history``, parsed by
        the caller) holds."""
        path = Path(path)
        data = json.loads(path.read_text(encoding="utf-8") if text is None else text)
        flags = {f["name"]: FlagSpec.from_json(f, source) for f in data["flags"]}
        env = {e["name"]: e for e in data.get("env", [])}
        cat = cls(data["package"], data["version"], flags, env,
                  bool(data.get("allow_abbrev", True)), tuple(data.get("programs") or ()))
        if env:
            if history is None:
                raise ValueError(f"{HISTORY}, which holds the release's deprecated environment "
                                 "variables, was not read")
            cat.deprecated_env = _deprecated_env(History(history, cat.package), cat)
        cat._index()
        return cat

    def copy(self) -> "Catalog":
        """A catalog to complete (bounds, roles, a release's facts): its tables copied, the
        specs (frozen) shared."""
        return replace(self, flags=dict(self.flags), env=dict(self.env),
                       deprecated_env=dict(self.deprecated_env),
                       below=dict(self.below), roles=dict(self.roles),
                       _names=dict(self._names))

    def _index(self) -> None:
        self._names.clear()
        self.__dict__.pop("sorted_names", None)
        self.__dict__.pop("settings", None)
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
        self.__dict__.pop("settings", None)

    def set_bounds(self, bounds: dict[str, Bound]) -> None:
        for name, bound in bounds.items():
            self.flags[name] = replace(self.flags[name], bound=bound)
        self._index()

    @cached_property
    def sorted_names(self) -> tuple[str, ...]:
        # a flag one program takes out before argparse runs is matched by its full name only
        return tuple(sorted(n for n, (spec, _) in self._names.items() if spec.programs is None))

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

    def role_flags(self, role: str) -> tuple[str, ...]:
        """The flags that carry ``role`` (one of ``ROLES``), newest spelling first."""
        return self.roles[role]

    def role_value(self, flags: dict[str, Any], role: str, default: Any = None) -> Any:
        """The value ``flags`` (name -> value) gives ``role``: the first of its flags present,
        else ``default``."""
        for name in self.roles[role]:
            if name in flags:
                return flags[name]
        return default

    def canonical(self, written: str) -> str | None:
        """The name ``written`` stands for: the flag's own name for an alias; a ``--no-X``
        form of a ``BooleanOptionalAction`` flag stays itself (it sets X false, so a rule
        that asks for ``--X`` must not see it)."""
        hit = self._names.get(written)
        if hit is None:
            return None
        return written if hit[1] == "negated" else hit[0].name

    @cached_property
    def settings(self) -> dict[str, str]:
        """Every spelling the catalog knows -> the flag it sets (``--no-X`` and ``--X`` both set
        X; a word it does not know sets itself: read it with ``.get(word, word)``). Two words
        with one setting are one setting, the later one wins. A table, as the resolver's inner
        loop reads it for every flag of every edit."""
        return {written: spec.name for written, (spec, _) in self._names.items()}

    def stock_read(self, name: str) -> str | None:
        """How the release reads environment variable ``name`` (words that follow "read"),
        or None if it does not."""
        if name in self.deprecated_env:
            return "to warn that it is deprecated"
        entry = self.env.get(name)
        if entry is None:
            return None
        if "read" in entry:
            return f"straight from the environment ({entry['read']})"
        return "through its environment registry"

    def below_problems(self, given: dict[str, tuple[str, ...]]) -> list[tuple[str, str, str]]:
        """(flag, the flag it must stay below, why) for each ``below`` pair that the flags
        ``given`` (full name -> values, each sound for its flag) break; a flag left out counts
        with its default, a placeholder is never judged."""
        out = []
        for name, (other, means, strict) in self.below.items():
            if other not in self.flags:  # a release that spells the bounding flag otherwise
                continue
            value = _one_number(self.flags[name], given.get(name))
            absent = other not in given
            default = self.flags[other].default
            limit = (default if isinstance(default, (int, float)) and not isinstance(default, bool)
                     else None) if absent else _one_number(self.flags[other], given[other])
            if value is None or limit is None or value < limit or (value == limit and not strict):
                continue
            shown = f"{limit}, its default" if absent else given[other][0]
            bound = "less than" if strict else "at most"
            out.append((name, other, f"{name} {given[name][0]}: must be {bound} {other} "
                                     f"({shown}): {means}"))
        return out

    def spec_under_env(self, spec: FlagSpec, env: dict[str, str]) -> FlagSpec:
        """``spec`` with the choices that ``env`` adds (a variable set to a true value)."""
        added = tuple(choice for choice, var in spec.env_choices
                      if var in env and (is_placeholder(env[var])
                                         or env[var].lower() in _ENV_TRUE))
        return _with_choices(spec, added) if added else spec


@lru_cache(maxsize=256)
def _with_choices(spec: FlagSpec, added: tuple[str, ...]) -> FlagSpec:
    return replace(spec, choices=(spec.choices or ()) + added)


def _deprecated_env(history: History, catalog: Catalog) -> dict[str, str]:
    """The release's deprecated variables (``env_deprecated`` of the history at its version)
    and the old names its registry still reads under a new one (``deprecated_alias``)."""
    where = f"{catalog.package} {catalog.version}"
    out: dict[str, str] = {}
    for name, facts in history.section("env_deprecated", catalog.version).items():
        replacement, note = facts.get("replacement"), facts.get("note")
        if replacement:
            how = _TRANSFORMS.get(facts.get("transform"), facts.get("transform"))
            text = (f"{where} warns at start and hands its value to {replacement}"
                    + (f" ({how})" if how else "") + f"; set {replacement} instead")
        else:
            text = f"{where} warns at start and ignores it"
        out[name] = text + (f". {note}" if note else "")
    for entry in catalog.env.values():
        old = entry.get("deprecated_alias")
        if old:
            out[old] = (f"{where} reads it only while {entry['name']} is unset, with a "
                        f"deprecation warning; set {entry['name']} instead")
    return out


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
        bad = _type_problem(spec.type, v, _infinite(spec.default))
        if bad is None and spec.bound is not None:
            bad = spec.bound.problem(_number(spec.type, v))
        if bad:
            return f"{spec.name} {v}: {bad}"
    return None


def _one_number(spec: FlagSpec, values: tuple[str, ...] | None) -> int | float | None:
    """The flag's one value as its type reads it; None when absent or a placeholder."""
    if not values or len(values) != 1 or is_placeholder(values[0]):
        return None
    return _number(spec.type, values[0])


def _infinite(default: Any) -> bool:
    """Whether a flag's default is itself infinite (bench_serving's ``--request-rate inf``):
    then ``inf`` is one of its values, not a slip."""
    try:
        return not math.isfinite(float(default))
    except (TypeError, ValueError):
        return False


def _type_problem(kind: str, v: str, infinite_ok: bool = False) -> str | None:
    if kind in NUMERIC_TYPES:
        try:
            number = _number(kind, v)
        except _SizeError as exc:
            return str(exc)
        except ValueError:
            return {"int": f"'{v}' is not an integer", "float": f"'{v}' is not a number",
                    "human_readable_int": f"'{v}' is not a size like 65536, 128k or 1Mi"}[kind]
        if isinstance(number, float) and not math.isfinite(number) \
                and not (infinite_ok and not math.isnan(number)):  # float() takes them
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
                if "." in number:  # SGLang's own hint for Ki says '1.5K', which it refuses
                    raise _SizeError(f"'{v}' has a decimal with an IEC suffix, which SGLang "
                                     f"refuses: write an integer IEC size such as "
                                     f"'{int(Decimal(number))}{suffix}' or an SI size such as "
                                     f"'{number}{suffix[0].replace('K', 'k')}'")
                return int(number) * _MULTIPLIER[suffix]
            return int(Decimal(number) * _MULTIPLIER[suffix])
    return int(v)
