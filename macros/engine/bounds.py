"""``recipes/catalog/flag-bounds.yaml``, read into the flag catalogs: the bounds of numeric
flags (by kind), one flag bounded by another (``below``, ``at_most``), the choices an environment variable
adds (``env_choices``), the variables a release reads outside its registry (``env_read``) and
the flags' roles (``roles``: what generic code reads a flag for, so that it never spells one).

Owns ``load_bounds`` and ``ROLES``; every mistake in the file is a Problem at its place. Must not
read files: the loader hands over the parsed document (``yamlfile.Marked``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from macros.engine.catalog import NUMERIC_TYPES, Bound, Catalog
from macros.engine.errors import Problem, choices_hint
from macros.engine.yamlfile import Marked

_KIND_FIELDS = ("means", "min", "above", "max", "also")
_FACTS = ("below", "at_most", "env_choices", "env_read")  # the optional sections, one reader each below
# What generic code asks a flag for, by meaning: each catalog that takes part names the flags
# that carry each role in flag-bounds.yaml's ``roles`` (so a rename in the flag history is an
# edit there, never in the code); the server catalog must give every role.
# The server catalogs (a model's cli serves through one of them): each gives every role.
SERVERS = ("sglang", "sglang-diffusion")
ROLES = {
    "tensor-parallel": "the tensor-parallel size (GPUs one copy of the weights spans)",
    "data-parallel": "the data-parallel size (attention DP groups or replicas)",
    "pipeline-parallel": "the pipeline-parallel size (stages the layers are split into)",
    "host": "the address the server listens on",
    "port": "the port the server listens on",
    "model": "the model the server loads",
}
# Roles only the router's catalog gives (a router flag the checker reads for its meaning).
ROUTER_ROLES = {
    "prefill-url": "the flag naming a prefill server: its URL, then an optional bootstrap port "
                   "that the router reads after parsing, a number or 'none'",
}


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) \
        and not (isinstance(value, float) and not math.isfinite(value))


def load_bounds(doc: Marked, catalogs: dict[str, Catalog]) -> list[Problem]:
    """Give the catalogs' specs the bounds and facts ``doc`` lists; every mistake with its
    place. The catalogs are keyed by package name (``sglang``, ``sglang-router``)."""
    data = doc.data
    if not isinstance(data, dict) or not {"kinds", "flags", "roles"} <= set(data) \
            or set(data) - {"kinds", "flags", "roles", *_FACTS}:
        return [doc.problem((), "a bounds file is a mapping with the keys 'kinds', 'flags' and "
                                f"'roles', and optionally {', '.join(repr(k) for k in _FACTS)}")]
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
    problems += _roles(doc, data.get("roles"), catalogs)
    readers = {"below": _below, "at_most": _at_most, "env_choices": _env_choices,
               "env_read": _env_read}
    for section in _FACTS:
        given = data.get(section, {})
        if not isinstance(given, dict):
            problems.append(doc.problem((section,), f"'{section}' maps a catalog's package name "
                                        "to its entries"))
            continue
        for package, entries in given.items():
            catalog = catalogs.get(package)
            where = (section, package)
            if catalog is None:
                problems.append(doc.problem(where, f"'{package}' is not a flag catalog "
                                            f"({choices_hint(str(package), catalogs)})"))
            elif not isinstance(entries, dict):
                problems.append(doc.problem(where, f"'{package}' maps a name to its entry"))
            else:
                for name, entry in entries.items():
                    found = readers[section](catalog, name, entry)
                    if found:
                        problems.append(doc.problem(where + (name, *found[0]), found[1]))
    for catalog in catalogs.values():  # env_choices replaced specs
        catalog._index()
    return problems


def _roles(doc: Marked, given: Any, catalogs: dict[str, Catalog]) -> list[Problem]:
    """``roles: {package: {role: [flag, …]}}``: the flags that carry each of ``ROLES``."""
    if not isinstance(given, dict):
        return [doc.problem(("roles",), "'roles' maps a catalog's package name to its roles")]
    problems: list[Problem] = []
    for package, roles in given.items():
        catalog = catalogs.get(package)
        if catalog is None:
            problems.append(doc.problem(("roles", package), f"'{package}' is not a flag catalog "
                                        f"({choices_hint(str(package), catalogs)})"))
            continue
        if not isinstance(roles, dict):
            problems.append(doc.problem(("roles", package), f"'{package}' maps a role to the "
                                        "list of flags that carry it"))
            continue
        for role, names in roles.items():
            where = ("roles", package, role)
            allowed = ROLES if package == "sglang" else {**ROLES, **ROUTER_ROLES}
            if role not in allowed:
                problems.append(doc.problem(where, f"'{role}' is not a role the engine asks for "
                                            f"({choices_hint(str(role), allowed)})"))
                continue
            if not isinstance(names, list):
                problems.append(doc.problem(where, f"{role}: give the flags that carry it as a "
                                            "list, the newest spelling first ([] for a server "
                                            "that has no such flag)"))
                continue
            bad = next(((i, why) for i, n in enumerate(names)
                        if (why := _flag_problem(catalog, n))), None)
            if bad:
                problems.append(doc.problem(where + (bad[0],), bad[1]))
                continue
            catalog.roles[role] = tuple(names)
    for package in SERVERS:  # a model's commands are one of these servers'; generic code
        server = catalogs.get(package)  # reads every role of it
        if server is not None and isinstance(given.get(package), dict):
            missing = [r for r in ROLES if r not in given[package]]
            if missing:
                problems.append(doc.problem(("roles", package), "the server catalog gives no "
                                            f"flag for {', '.join(missing)} (every role: "
                                            + "; ".join(f"{k}: {v}" for k, v in ROLES.items())
                                            + ")"))
        elif server is not None:
            problems.append(doc.problem(("roles",), f"'roles' has no entry for '{package}', a "
                                        "server catalog"))
    return problems


def _flag_problem(catalog: Catalog, name: Any, numeric: bool = False) -> str | None:
    spec = catalog.flags.get(name) if isinstance(name, str) else None
    if spec is None:
        return (f"'{name}' is not a flag of {catalog.package} {catalog.version} "
                f"({choices_hint(str(name), catalog.flags)})")
    if numeric and spec.type not in NUMERIC_TYPES:
        return f"{name} takes {spec.type} values, not numbers"
    return None


def _at_most(catalog: Catalog, name: Any, entry: Any) -> tuple[tuple, str] | None:
    """``flag: {flag: other, means: …}``: the value may equal the other flag's, not exceed it."""
    return _below(catalog, name, entry, strict=False)


def _below(catalog: Catalog, name: Any, entry: Any, strict: bool = True
           ) -> tuple[tuple, str] | None:
    """``flag: {flag: other, means: …}``: the value must be less than the other flag's."""
    bad = _flag_problem(catalog, name, numeric=True)
    if bad:
        return (), bad
    if name in catalog.below:
        return (), f"{name} is bounded by {catalog.below[name][0]} already; one bound per flag"
    if not isinstance(entry, dict) or set(entry) != {"flag", "means"}:
        return (), f"{name}: give the entry as {{flag: the flag it stays below, means: why}}"
    other, means = entry["flag"], entry["means"]
    bad = _flag_problem(catalog, other, numeric=True) or (
        f"{name} cannot be bounded by itself" if other == name else None)
    if bad:
        return ("flag",), bad
    if not isinstance(means, str) or not means.strip():
        return ("means",), f"{name}: 'means' says why the value stays below {other}"
    catalog.below[name] = (other, means.strip(), strict)
    return None


def _env_choices(catalog: Catalog, name: Any, entry: Any) -> tuple[tuple, str] | None:
    """``flag: {choice: VARIABLE}``: argparse offers the choice while the variable is true."""
    bad = _flag_problem(catalog, name)
    if bad:
        return (), bad
    spec = catalog.flags[name]
    if not spec.choices:
        return (), f"{name} has no choices to add to"
    if not isinstance(entry, dict) or not entry:
        return (), f"{name}: give the choices it gains as {{choice: the variable that adds it}}"
    for choice, var in entry.items():
        if choice in spec.choices:
            return (choice,), f"'{choice}' is already a choice of {name}; delete it"
        registered = catalog.env.get(var) if isinstance(var, str) else None
        if registered is None or "read" in registered:
            return (choice,), (f"'{var}' is not in the environment registry of "
                               f"{catalog.package} {catalog.version} "
                               f"({choices_hint(str(var), catalog.env)})")
        if registered.get("type") != "Bool":
            return (choice,), (f"{var} holds {registered.get('type')} values; only a Bool "
                               "variable adds a choice")
    catalog.flags[name] = replace(spec, env_choices=tuple(entry.items()))
    return None


def _env_read(catalog: Catalog, name: Any, entry: Any) -> tuple[tuple, str] | None:
    """``VARIABLE: where the release reads it``: read outside the registry, so not in it."""
    where = f"{catalog.package} {catalog.version}"
    if name in catalog.env:
        return (), f"{name} is in the environment registry of {where} already; delete it here"
    if name in catalog.deprecated_env:
        return (), f"{name} is in the deprecated set of {where}; delete it here"
    if not isinstance(entry, str) or not entry.strip():
        return (), f"{name}: say where {where} reads it (file and call)"
    catalog.env[name] = {"name": name, "read": entry.strip()}
    return None


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
                problems.append(doc.problem(where + (i,), _flag_problem(catalog, name)))
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
        if not _is_number(value):
            return None, f"'{key}' must be a finite number (got {value!r})"
    also = fields.get("also", [])
    if not isinstance(also, list) or not all(_is_number(v) for v in also):
        return None, f"'also' lists the finite numbers allowed outside the bound (got {also!r})"
    if not numbers:
        return None, "give at least one of 'min', 'above' and 'max'"
    if "min" in numbers and "above" in numbers:
        return None, "give 'min' or 'above', not both"
    low = numbers.get("min", numbers.get("above"))
    if low is not None and "max" in numbers and not (
            low < numbers["max"] or ("min" in numbers and low == numbers["max"])):
        return None, f"no value satisfies the bound (lower {low}, max {numbers['max']})"
    return Bound(means.strip(), **numbers, also=tuple(also)), None
