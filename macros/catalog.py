"""The SGLang and sglang-router flag catalogs extracted from the pinned wheels.

Owns looking a flag up the way argparse would (exact name, alias, ``--no-`` form, unique
abbreviation) and checking one flag's values against its type and choices. The JSON files are
written by ``catalog_build.py``; this module only reads them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{[A-Z0-9_]+\}\}|<[^<>]+>")
_HUMAN_INT = re.compile(r"^\d+(\.\d+)?([kKmMgG]i?)?$")


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

    @cached_property
    def sorted_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._names))

    def lookup(self, written: str) -> Lookup:
        hit = self._names.get(written)
        if hit:
            return Lookup(hit[0], written, hit[1])
        if self.allow_abbrev:
            matches = [n for n in self.sorted_names if n.startswith(written)]
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
        if bad:
            return f"{spec.name} {v}: {bad}"
    return None


def _type_problem(kind: str, v: str) -> str | None:
    if kind == "int":
        try:
            int(v)
        except ValueError:
            return f"'{v}' is not an integer"
    elif kind == "float":
        try:
            float(v)
        except ValueError:
            return f"'{v}' is not a number"
    elif kind == "human_readable_int":
        if not _HUMAN_INT.match(v):
            return f"'{v}' is not a size like 65536, 128k or 1Mi"
    elif kind == "json":
        try:
            json.loads(v)
        except ValueError:
            return f"'{v}' is not valid JSON"
    return None
