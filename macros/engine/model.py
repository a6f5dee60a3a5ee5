"""The loaded database as the engine reads it: ``Database`` (platforms, catalogs, text,
releases, models) and ``Model`` (a model's files parsed, its cells' flags, its indexes); the
text ids and context keys the engine reserves, and the judgements of a flag or a value both the
loader and the cross-file checks apply.

Owns nothing that reads files: ``macros.engine.database`` builds these records and hands each
model to ``macros.engine.validate``; everything that reads the database (resolution, checking,
the site) imports this module, never the loader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from macros.engine import bench_serving, conditions, josa
from macros.engine.catalog import Catalog, FlagSpec, value_problem
from macros.engine.errors import Problem, RecipeError, choices_hint
from macros.engine.flags import Flag
from macros.engine.releases import Releases
from macros.engine.schema import (Axis, BenchmarksFile, Calculator, Cell, Containers, ModelFile, Platform,
                                  ReaderValue, RulesFile)

LANGS = ("en", "ko")
# What the export ships and the Playground looks up: a kind and a name, "role.unified".
EXPORTED_TEXT_ID = re.compile(r"^[a-z0-9_]+(?:[.-][a-z0-9_]+)+$")
HINT_FIELDS = {"nodes", "last_rank"}  # what resolve fills into every hint
# Context keys the engine itself answers; a dimension or an axis cannot take their names.
RESERVED_KEYS = {"calculator", "program", "router_bootstrap", "server_bootstrap", "pd"}


@dataclass
class Model:
    id: str
    dir: Path
    info: ModelFile
    cells: list[Cell]
    cell_flags: list[list[Flag]]
    axes: list[Axis]
    overlay_ids: tuple[str, ...]
    rules: RulesFile
    benchmarks: BenchmarksFile | None
    text: dict[str, dict[str, str]]
    cell_index: dict[tuple[str, ...], int] = field(default_factory=dict)
    axis_index: dict[str, Axis] = field(default_factory=dict)
    # Indexes and memo tables the engine builds from this (immutable) model and rebuilds on use;
    # a build drops them after each page (site.py), so they never hold more than a page needs.
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def dimensions(self) -> tuple[str, ...]:
        """The ordered keys of a cell: the hardware, then the dimensions model.yaml declares."""
        return ("hw",) + tuple(d.id for d in self.info.dimensions)

    @cached_property
    def dimension_options(self) -> dict[str, list[tuple[str, str, conditions.Node]]]:
        """Each dimension's options as (id, label text id, where it is offered)."""
        out: dict[str, list[tuple[str, str, conditions.Node]]] = {
            "hw": [(h, "", conditions.ALWAYS) for h in self.info.hardware]}
        for d in self.info.dimensions:
            out[d.id] = [(o.id, o.label, o.when) for o in d.options]
        return out

    def calculator(self, calc_id: str) -> Calculator | None:
        return next((c for c in self.info.calculators if c.id == calc_id), None)

    def key(self, match: dict[str, Any]) -> tuple[str, ...]:
        return tuple(str(match.get(d)) for d in self.dimensions)

    def cell(self, match: dict[str, Any]) -> Cell | None:
        i = self.cell_index.get(self.key(match))
        return None if i is None else self.cells[i]


def _flag_problem(name: str, catalog: Catalog) -> str:
    """Why ``name``, which is not exactly a flag of ``catalog``, cannot be written."""
    hit = catalog.lookup(name)
    if hit.kind == "negated":
        return (f"'{name}' is the negation of '{hit.spec.name}': it sets it false and takes "
                "no value")
    if hit.kind == "alias":
        return (f"flag '{name}' is an alias; write '{hit.spec.name}' so every command spells "
                "it one way")
    if hit.kind == "abbreviated":
        return f"'{name}' is an abbreviation of '{hit.spec.name}'; write the full name"
    if hit.kind == "ambiguous":
        shown = ", ".join(hit.candidates[:6]) + (", …" if len(hit.candidates) > 6 else "")
        return f"'{name}' is an ambiguous abbreviation (of {shown}); write the full name"
    return (f"flag '{name}' is not in the {catalog.package} {catalog.version} catalog "
            f"({choices_hint(name, catalog.flags)})")


# A branch value is judged as a placeholder is: it counts toward the flag's number of values,
# and nothing else about it is checked.
_BRANCH_VALUE = "{{BRANCH_VALUE}}"


def branch_value_problem(spec: FlagSpec, values: tuple[str, ...],
                         branch: dict[str, dict[str, str | None]]) -> str | None:
    """``value_problem`` for a model whose ``branch_values`` are ``branch``: the values it adds
    to this flag pass; every other value is judged by the pinned release's catalog."""
    added = branch.get(spec.name)
    if not added or not any(v in added for v in values):
        return value_problem(spec, values)
    judged = value_problem(spec, tuple(_BRANCH_VALUE if v in added else v for v in values))
    # a message about the number of values quotes them: quote the ones written
    return value_problem(spec, values) if judged and _BRANCH_VALUE in judged else judged


def branch_in(model, image: str | None) -> dict[str, dict]:
    """The model's branch values that hold in a command for ``image`` (None: a stock release
    chosen instead of the image's, where none holds): those naming that image, and those that
    name none (the model's branch, wherever it runs). One object per model and image."""
    table = model.cache.setdefault("branch_in", {})
    if image not in table:
        out: dict[str, dict] = {}
        for flag, values in model.info.branch_values.items():
            for value, reader in values.items():
                named = getattr(reader, "image", None)
                if image is not None and named in (None, image):
                    out.setdefault(flag, {})[value] = reader
        table[image] = out
    return table[image]


def likely_typo(value: str, known) -> str | None:
    """The id of ``known`` that ``value`` is a slip of the keyboard for, or None. Hardware ids
    a digit or a letter apart name different products (mi300x and mi350x, h20 and h200, b200
    and gb200), so closeness says nothing; only slips that make no other id count: case and
    separators, a key pressed twice, two neighbouring keys swapped."""
    def squash(text: str) -> str:
        return re.sub(r"[-_. ]", "", text.lower())

    typed = squash(value)
    for choice in known:
        want = squash(choice)
        doubled = len(typed) == len(want) + 1 and any(
            typed[i] == typed[i + 1] and typed[:i] + typed[i + 1:] == want
            for i in range(len(typed) - 1))
        swapped = len(typed) == len(want) and any(
            typed[:i] + typed[i + 1] + typed[i] + typed[i + 2:] == want
            for i in range(len(typed) - 1))
        if typed == want or doubled or swapped:
            return choice
    return None


_FIELD = re.compile(r"\{([a-z_]+)\}")


def fill(raw: str, fields: dict[str, Any], lang: str) -> str:
    """``raw`` with each ``{field}`` it names in ``fields`` filled in; in Korean, a particle
    written right after a field takes the form its value calls for (josa.attach: `{old}는`
    gives `--dp-size 8`는 but `--enable-dp-attention`은)."""
    out, at = [], 0
    for m in _FIELD.finditer(raw):
        if m.group(1) not in fields:
            continue
        value = str(fields[m.group(1)])
        out += [raw[at:m.start()], value]
        at = m.end()
        written = josa.PARTICLE.match(raw, at) if lang == "ko" else None
        if written:
            out.append(josa.form(value, written.group(1)))
            at = written.end(1)
    out.append(raw[at:])
    return "".join(out)


@dataclass
class Database:
    root: Path
    platforms: dict[str, Platform]
    containers: Containers
    catalog: Catalog
    router_catalog: Catalog
    text: dict[str, dict[str, str]]
    models: dict[str, Model]
    releases: Releases
    bench_releases: bench_serving.BenchReleases
    # what the reader fills into commands (<rank> …), each declared once for every model
    reader_values: list[ReaderValue] = field(default_factory=list)
    # every CLI a model may declare (model.yaml ``cli``) -> its pinned catalog and releases;
    # ``catalog`` and ``releases`` above are the LLM server's, the default CLI
    clis: dict[str, tuple[Catalog, Releases]] = field(default_factory=dict)
    _views: dict[str, "Database"] = field(default_factory=dict, repr=False)

    def serving(self, model: Model) -> "Database":
        """This database as ``model``'s CLI sees it: ``catalog`` and ``releases`` are that
        CLI's (the diffusion server's for a diffusion model), everything else is shared."""
        kind = model.info.cli
        if kind not in self.clis or self.clis[kind][0] is self.catalog:
            return self
        view = self._views.get(kind)
        if view is None:
            catalog, releases = self.clis[kind]
            view = self._views[kind] = replace(self, catalog=catalog, releases=releases,
                                               _views={})
            view._views[kind] = view
        return view

    def model(self, model_id: str) -> Model:
        if model_id not in self.models:
            raise RecipeError([Problem("<command line>", None, None,
                                       f"unknown model '{model_id}' ("
                                       f"{choices_hint(model_id, self.models)})")])
        return self.models[model_id]

    def t(self, lang: str, text_id: str, model: Model | None = None, **fields: Any) -> str:
        """The reader-visible text for ``text_id`` in ``lang``, with ``{fields}`` filled in."""
        table = model.text[lang] if model is not None else {}
        raw = table.get(text_id)
        if raw is None:
            raw = self.text[lang][text_id]
        if fields:
            raw = fill(raw, fields, lang)
        return raw
