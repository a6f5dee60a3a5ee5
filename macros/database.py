"""Loading the recipe database: every file parsed, validated and cross-referenced once.

Owns the ``Database`` object the engine, the CLI and the mkdocs macros share, and every load
error a maintainer can see (``file:line:col: what (valid choices)``). Must not compose commands
(``resolve.py``) or print anything.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from . import conditions, yamlfile
from .catalog import Catalog, value_problem
from .errors import Problem, RecipeError, choices_hint
from .flags import READER_PLACEHOLDERS, Flag, parse_flag_text
from .schema import (AxesFile, Axis, BenchmarksFile, Cell, CellsFile, HardwareFile, ModelFile,
                     Platform, RulesFile)

LANGS = ("en", "ko")
ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "recipes"
_TEXT_ID = re.compile(r"^[a-z0-9_.-]+$")
_FIELD = re.compile(r"\{([a-z_]+)\}")


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
    cell_index: dict[tuple[str, str, str], int] = field(default_factory=dict)
    axis_index: dict[str, Axis] = field(default_factory=dict)
    # Indexes and memo tables the engine builds from this (immutable) model; see resolve.py.
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def cell(self, hw: str, role: str, strategy: str) -> Cell | None:
        i = self.cell_index.get((hw, role, strategy))
        return None if i is None else self.cells[i]


@dataclass
class Database:
    root: Path
    platforms: dict[str, Platform]
    catalog: Catalog
    router_catalog: Catalog
    text: dict[str, dict[str, str]]
    models: dict[str, Model]

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
            raw = _FIELD.sub(lambda m: str(fields.get(m.group(1), m.group(0))), raw)
        return raw


class _Collector:
    """Gathers problems from every file so one run reports them all."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, doc: yamlfile.Marked, path: tuple, message: str) -> None:
        self.problems.append(doc.problem(path, message))

    def parse(self, doc: yamlfile.Marked, model: type[BaseModel]):
        try:
            return model.model_validate(doc.data if doc.data is not None else {})
        except ValidationError as exc:
            for err in exc.errors():
                self.problems.append(doc.problem(tuple(err["loc"]), _explain(err, model)))
            return None

    def load(self, path: Path, root: Path) -> yamlfile.Marked | None:
        try:
            return yamlfile.load(path, display=_rel(path, root))
        except RecipeError as exc:
            self.problems.extend(exc.problems)
            return None


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _explain(err: dict, model: type[BaseModel]) -> str:
    loc = ".".join(str(p) for p in err["loc"]) or "file"
    kind = err["type"]
    if kind == "extra_forbidden":
        allowed = _fields_at(model, err["loc"][:-1])
        return f"unknown field '{err['loc'][-1]}' (valid fields: {', '.join(allowed)})"
    if kind == "missing":
        return f"'{loc}' is required"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
    return f"'{loc}': {err['msg']} (got {shown})"


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field_info = getattr(current, "model_fields", {}).get(part)
        if field_info is None:
            break
        ann = field_info.annotation
        for arg in getattr(ann, "__args__", ()) or (ann,):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                current = arg
                break
            for sub in getattr(arg, "__args__", ()):
                if isinstance(sub, type) and issubclass(sub, BaseModel):
                    current = sub
                    break
    names = []
    for name, info in getattr(current, "model_fields", {}).items():
        names.append(info.alias or name)
    return names


def load_database(root: Path | str = RECIPES) -> Database:
    """Load and validate everything under ``root``; raise RecipeError listing every problem."""
    root = Path(root)
    if not root.is_dir():
        raise RecipeError([Problem(str(root), None, None, "recipes folder not found")])
    base = root.parent
    out = _Collector()
    catalog_dir = root / "catalog"
    platforms: dict[str, Platform] = {}
    hw_doc = out.load(catalog_dir / "hardware.yaml", base)
    if hw_doc:
        hw = out.parse(hw_doc, HardwareFile)
        if hw:
            for i, p in enumerate(hw.platforms):
                if p.id in platforms:
                    out.add(hw_doc, ("platforms", i, "id"), f"duplicate platform id '{p.id}'")
                platforms[p.id] = p
    try:
        catalog = Catalog.load(catalog_dir / "sglang.json", "sglang")
        router = Catalog.load(catalog_dir / "sglang-router.json", "sglang-router")
    except (OSError, ValueError, KeyError) as exc:
        raise RecipeError([Problem(_rel(catalog_dir, base), None, None,
                                   f"flag catalog unreadable ({exc}); run 'recipes catalog'")]) from None
    shared_text = _load_text(out, catalog_dir, base)
    models: dict[str, Model] = {}
    for model_dir in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "catalog"):
        model = _load_model(out, model_dir, base, platforms, catalog, router, shared_text)
        if model:
            models[model.id] = model
    if out.problems:
        raise RecipeError(out.problems)
    for model in models.values():  # placeholders the reader fills in print unquoted
        texts = list(model.info.placeholders.values()) + list(model.info.pd.router.flags)
        for text in texts:
            READER_PLACEHOLDERS.update(re.findall(r"<[a-z0-9][a-z0-9.-]*>", text))
    return Database(root, platforms, catalog, router, shared_text, models)


def cached_database(root: str | None = None) -> Database:
    """One load per process for the mkdocs build and the test-suite. ``RECIPES_ROOT`` points
    a build at another recipes folder (tests with hostile data, benchmarks)."""
    return _cached(root or os.environ.get("RECIPES_ROOT") or str(RECIPES))


@lru_cache(maxsize=4)
def _cached(root: str) -> Database:
    return load_database(Path(root))


def _load_text(out: _Collector, folder: Path, base: Path) -> dict[str, dict[str, str]]:
    tables: dict[str, dict[str, str]] = {}
    docs: dict[str, yamlfile.Marked] = {}
    for lang in LANGS:
        doc = out.load(folder / f"text.{lang}.yaml", base)
        tables[lang] = {}
        if doc is None:
            continue
        docs[lang] = doc
        if not isinstance(doc.data, dict):
            out.add(doc, (), "a text file is a mapping of text id to text")
            continue
        for key, value in doc.data.items():
            if not isinstance(key, str) or not _TEXT_ID.match(key):
                out.add(doc, (key,), f"text id '{key}' must use a-z, 0-9, '.', '_' or '-'")
            elif not isinstance(value, str) or not value.strip():
                out.add(doc, (key,), f"text '{key}' must be a non-empty string")
            else:
                tables[lang][key] = value
    if len(docs) == len(LANGS):
        for lang in LANGS:
            other = [x for x in LANGS if x != lang][0]
            for key in tables[lang]:
                if key not in tables[other] and isinstance(docs[other].data, dict):
                    name = {"en": "English", "ko": "Korean"}[other]
                    out.problems.append(Problem(docs[other].file, None, None,
                        f"text '{key}' has no {name} text (it is in {docs[lang].file}:"
                        f"{docs[lang].where((key,))[0]})"))
                elif key in tables[other]:
                    _check_fields(out, docs, key, tables)
    return tables


def _check_fields(out, docs, key, tables) -> None:
    en, ko = set(_FIELD.findall(tables["en"][key])), set(_FIELD.findall(tables["ko"][key]))
    if en != ko:
        out.add(docs["ko"], (key,), f"text '{key}' uses fields {sorted(ko)} but the English "
                f"text uses {sorted(en)}; keep the {{names}} the same")


def _load_model(out, model_dir, base, platforms, catalog, router, shared_text) -> Model | None:
    docs = {}
    for name in ("model", "cells", "overlays", "playground", "rules", "benchmarks"):
        path = model_dir / f"{name}.yaml"
        if name == "benchmarks" and not path.exists():
            continue
        docs[name] = out.load(path, base)
    if any(d is None for d in docs.values()):
        return None
    info = out.parse(docs["model"], ModelFile)
    cells = out.parse(docs["cells"], CellsFile)
    overlays = out.parse(docs["overlays"], AxesFile)
    playground = out.parse(docs["playground"], AxesFile)
    rules = out.parse(docs["rules"], RulesFile)
    bench = out.parse(docs["benchmarks"], BenchmarksFile) if "benchmarks" in docs else None
    text = _load_text(out, model_dir, base)
    if None in (info, cells, overlays, playground, rules):
        return None
    if info.id != model_dir.name:
        out.add(docs["model"], ("id",), f"model id '{info.id}' must equal its folder name "
                f"'{model_dir.name}'")
    merged = {lang: {**shared_text.get(lang, {}), **text.get(lang, {})} for lang in LANGS}
    axes = list(overlays.axes) + list(playground.axes)
    model = Model(info.id, model_dir, info, cells.cells, [], axes,
                  tuple(a.id for a in overlays.axes), rules, bench, merged)
    _Validator(out, model, docs, platforms, catalog, router).run()
    return model


class _Validator:
    """Cross-file checks for one model; every finding points into the file that is wrong."""

    def __init__(self, out, model: Model, docs, platforms, catalog, router):
        self.out, self.m, self.docs = out, model, docs
        self.platforms, self.catalog, self.router = platforms, catalog, router
        self.text_used: set[str] = set()
        self.reported: set[str] = set()

    def run(self) -> None:
        m = self.m
        self._model_file()
        self._axes()
        self._cells()
        self._rules()
        self._benchmarks()
        m.axis_index = {a.id: a for a in m.axes}

    # -- helpers
    def text(self, doc: str, path: tuple, text_id: str | None) -> None:
        if text_id is None:
            return
        self.text_used.add(text_id)
        missing = [lang for lang in LANGS if text_id not in self.m.text[lang]]
        if len(missing) == len(LANGS):
            self.out.add(self.docs[doc], path, f"unknown text id '{text_id}' "
                         f"({choices_hint(text_id, self.m.text['en'])})")
        elif missing and text_id not in self.reported:
            self.reported.add(text_id)  # once per id; the text file names it too
            name = {"en": "English", "ko": "Korean"}[missing[0]]
            folder = self.docs["model"].file.rsplit("/", 1)[0]
            self.out.add(self.docs[doc], path, f"text id '{text_id}' has no {name} text "
                         f"(add it to {folder}/text.{missing[0]}.yaml)")

    def flag_name(self, doc: str, path: tuple, name: str, catalog: Catalog | None = None) -> None:
        catalog = catalog or self.catalog
        hit = catalog.lookup(name)
        if hit.kind == "exact":
            return
        if hit.kind in ("alias", "negated"):
            self.out.add(self.docs[doc], path, f"flag '{name}' is an alias; write "
                         f"'{hit.spec.name}' so every command spells it one way")
        else:
            self.out.add(self.docs[doc], path, f"flag '{name}' is not in the {catalog.package} "
                         f"{catalog.version} catalog ({choices_hint(name, catalog.flags)})")

    def flag_text(self, doc: str, path: tuple, text: str, *, one: bool = True,
                  catalog: Catalog | None = None) -> list[Flag]:
        try:
            flags = parse_flag_text(text)
        except ValueError as exc:
            self.out.add(self.docs[doc], path, f"cannot read flag '{text}': {exc}")
            return []
        if one and len(flags) != 1:
            self.out.add(self.docs[doc], path, f"'{text}' holds {len(flags)} flags; write one "
                         "flag per list entry")
        catalog = catalog or self.catalog
        for f in flags:
            self.flag_name(doc, path, f.name, catalog)
            spec = catalog.lookup(f.name).spec
            if spec is not None and not conditions.TEMPLATE.search(" ".join(f.values)):
                bad = value_problem(spec, f.values)
                if bad:
                    self.out.add(self.docs[doc], path, bad)
        return flags

    def option_of(self, doc: str, path: tuple, axis_id: str, option: str) -> None:
        choices = self.axis_options(axis_id)
        if choices is None:
            self.out.add(self.docs[doc], path, f"unknown axis '{axis_id}' "
                         f"({choices_hint(axis_id, self.axis_ids())})")
        elif str(option) not in choices:
            self.out.add(self.docs[doc], path, f"axis '{axis_id}' has no option '{option}' "
                         f"({choices_hint(str(option), choices)})")

    def axis_ids(self) -> list[str]:
        return ["hw", "role", "strategy"] + [a.id for a in self.m.axes]

    def axis_options(self, axis_id: str) -> list[str] | None:
        if axis_id == "hw":
            return list(self.m.info.hardware)
        if axis_id == "role":
            return [r.id for r in self.m.info.roles]
        if axis_id == "strategy":
            return [s.id for s in self.m.info.strategies]
        for a in self.m.axes:
            if a.id == axis_id:
                return [o.id for o in a.options]
        return None

    def condition(self, doc: str, path: tuple, cond: dict) -> None:
        if not isinstance(cond, dict):
            self.out.add(self.docs[doc], path, "a condition is a mapping")
            return
        self._condition(doc, path, cond)

    def _condition(self, doc: str, path: tuple, cond: dict) -> None:
        known_hw = set(Platform.model_fields)
        for key, spec in cond.items():
            p = path + (key,)
            if key in ("any", "all"):
                if not isinstance(spec, list):
                    self.out.add(self.docs[doc], p, f"'{key}' takes a list of conditions")
                    continue
                for i, c in enumerate(spec):
                    self.condition(doc, p + (i,), c)
            elif key == "not":
                self.condition(doc, p, spec)
            elif key in conditions.FLAG_KEYS:
                names = spec if isinstance(spec, list) else list(spec) if isinstance(spec, dict) else None
                if names is None:
                    self.out.add(self.docs[doc], p, f"'{key}' takes a list of names")
                    continue
                if not key.startswith("env"):
                    for n in names:
                        if self.catalog.lookup(n).kind != "exact" and \
                                self.router.lookup(n).kind != "exact":
                            self.flag_name(doc, p, n)
            elif key.startswith("hw."):
                if key[3:] not in known_hw:
                    self.out.add(self.docs[doc], p, f"unknown hardware attribute '{key[3:]}' "
                                 f"({choices_hint(key[3:], sorted(known_hw))})")
            elif key.startswith("cell."):
                if key[5:] not in ("collapse_pp", "nodes", "status"):
                    self.out.add(self.docs[doc], p, f"unknown cell attribute '{key[5:]}' "
                                 "(known: collapse_pp, nodes, status)")
            elif key in ("nodes", "calculator", "program", "router_bootstrap", "server_bootstrap"):
                pass
            else:
                choices = self.axis_options(key)
                if choices is None:
                    self.out.add(self.docs[doc], p, f"condition names unknown axis '{key}' "
                                 f"({choices_hint(key, self.axis_ids() + ['hw.<attribute>', 'nodes'])})")
                    continue
                values = spec if isinstance(spec, list) else [spec] if not isinstance(spec, dict) \
                    else list(spec.get("in", [])) + ([spec["eq"]] if "eq" in spec else [])
                for v in values:
                    if str(v) not in choices:
                        self.out.add(self.docs[doc], p, f"axis '{key}' has no option '{v}' "
                                     f"({choices_hint(str(v), choices)})")
            if isinstance(spec, dict) and key not in ("not",) and key not in conditions.FLAG_KEYS:
                for op in spec:
                    if op not in conditions.OPS:
                        self.out.add(self.docs[doc], p, f"unknown test '{op}' "
                                     f"(known: {', '.join(sorted(conditions.OPS))})")

    # -- files
    def _model_file(self) -> None:
        info, d = self.m.info, "model"
        for i, hw in enumerate(info.hardware):
            if self.platforms and hw not in self.platforms:
                self.out.add(self.docs[d], ("hardware", i), f"hw '{hw}' is not a known platform "
                             f"({choices_hint(hw, self.platforms)})")
        strategy_ids = [s.id for s in info.strategies]
        for i, role in enumerate(info.roles):
            self.text(d, ("roles", i, "label"), role.label)
            for j, s in enumerate(role.strategies):
                if s not in strategy_ids:
                    self.out.add(self.docs[d], ("roles", i, "strategies", j),
                                 f"strategy '{s}' is not declared ({choices_hint(s, strategy_ids)})")
        for i, s in enumerate(info.strategies):
            self.text(d, ("strategies", i, "label"), s.label)
        for i, r in enumerate(info.rounds):
            for j, n in enumerate(r.notes):
                self.text(d, ("rounds", i, "notes", j), n)
        self.text(d, ("summary",), info.summary)
        axis_ids = [a.id for a in self.m.axes]
        for i, axis_id in enumerate(info.enumerate):
            if axis_id not in axis_ids:
                self.out.add(self.docs[d], ("enumerate", i), f"unknown axis '{axis_id}' "
                             f"({choices_hint(axis_id, axis_ids)})")
        for i, rule in enumerate(info.model_names):
            self.condition(d, ("model_names", i, "when"), rule.when)
        for i, rule in enumerate(info.docker_images):
            self.condition(d, ("docker_images", i, "when"), rule.when)
        for i, f in enumerate(info.pd.router.flags):
            self.flag_text(d, ("pd", "router", "flags", i), f, one=False, catalog=self.router)

    def _axes(self) -> None:
        seen: dict[str, int] = {}
        for ai, axis in enumerate(self.m.axes):
            doc = "overlays" if axis.id in self.m.overlay_ids else "playground"
            base = ("axes", ai - (0 if doc == "overlays" else len(self.m.overlay_ids)))
            if axis.id in seen or axis.id in ("hw", "role", "strategy"):
                self.out.add(self.docs[doc], base + ("id",), f"duplicate axis id '{axis.id}'")
            seen[axis.id] = ai
            self.text(doc, base + ("label",), axis.label)
            ids = [o.id for o in axis.options]
            if axis.default is None and not axis.default_by:
                self.out.add(self.docs[doc], base, f"axis '{axis.id}' needs 'default' or 'default_by'")
            if axis.default is not None and axis.default not in ids:
                self.out.add(self.docs[doc], base + ("default",), f"default '{axis.default}' is "
                             f"not an option of '{axis.id}' ({choices_hint(axis.default, ids)})")
            for di, rule in enumerate(axis.default_by):
                if rule.value not in ids:
                    self.out.add(self.docs[doc], base + ("default_by", di, "value"),
                                 f"'{rule.value}' is not an option of '{axis.id}' "
                                 f"({choices_hint(rule.value, ids)})")
                self.condition(doc, base + ("default_by", di, "when"), rule.when)
            self.condition(doc, base + ("show_when",), axis.show_when)
            opt_seen = set()
            for oi, opt in enumerate(axis.options):
                p = base + ("options", oi)
                if opt.id in opt_seen:
                    self.out.add(self.docs[doc], p + ("id",), f"duplicate option '{opt.id}' in "
                                 f"axis '{axis.id}'")
                opt_seen.add(opt.id)
                self.text(doc, p + ("label",), opt.label)
                for i, name in enumerate(opt.strip):
                    self.flag_name(doc, p + ("strip", i), name)
                for i, f in enumerate(opt.add):
                    self.flag_text(doc, p + ("add", i), f)
                for i, h in enumerate(opt.hints):
                    self.text(doc, p + ("hints", i), h)
                for i, e in enumerate(opt.env):
                    if "=" not in e:
                        self.out.add(self.docs[doc], p + ("env", i), f"env entry '{e}' is not NAME=VALUE")

    def _cells(self) -> None:
        before = len(self.out.problems)
        self._cells_inner()
        self.cell_problems = len(self.out.problems) - before

    def _cells_inner(self) -> None:
        info, d = self.m.info, "cells"
        roles = {r.id: r for r in info.roles}
        rounds = [r.id for r in info.rounds]
        for i, cell in enumerate(self.m.cells):
            p = ("cells", i)
            mt = cell.match
            if mt.hw not in info.hardware:
                self.out.add(self.docs[d], p + ("match", "hw"), f"hw '{mt.hw}' is not a platform "
                             f"of this model ({choices_hint(mt.hw, info.hardware)})")
            if mt.role not in roles:
                self.out.add(self.docs[d], p + ("match", "role"), f"role '{mt.role}' is not "
                             f"known ({choices_hint(mt.role, roles)})")
            elif mt.strategy not in roles[mt.role].strategies:
                self.out.add(self.docs[d], p + ("match", "strategy"), f"strategy "
                             f"'{mt.strategy}' is not one of role '{mt.role}' "
                             f"({choices_hint(mt.strategy, roles[mt.role].strategies)})")
            key = (mt.hw, mt.role, mt.strategy)
            if key in self.m.cell_index:
                first = self.m.cell_index[key]
                line = self.docs[d].where(("cells", first))[0]
                self.out.add(self.docs[d], p + ("match",), f"duplicate cell {'/'.join(key)} "
                             f"(first defined at line {line})")
            else:
                self.m.cell_index[key] = i
            if cell.status.value == "verified" and not cell.verified_in:
                self.out.add(self.docs[d], p + ("status",), "a verified cell names the round "
                             f"that verified it in 'verified_in' (known: {', '.join(rounds)})")
            if cell.verified_in and cell.verified_in not in rounds:
                self.out.add(self.docs[d], p + ("verified_in",), f"unknown round "
                             f"'{cell.verified_in}' ({choices_hint(cell.verified_in, rounds)})")
            self.text(d, p + ("redirect",), cell.redirect)
            self.text(d, p + ("warn",), cell.warn)
            flags: list[Flag] = []
            for j, text in enumerate(cell.flags):
                parsed = self.flag_text(d, p + ("flags", j), text)
                flags.extend(parsed)
            names = [f.name for f in flags]
            for name in {n for n in names if names.count(n) > 1}:
                self.out.add(self.docs[d], p + ("flags", names.index(name)),
                             f"flag '{name}' appears twice in one cell")
            for name, reason in cell.pins.items():
                if name not in names:
                    self.out.add(self.docs[d], p + ("pins", name), f"pin '{name}' is not a flag "
                                 f"of this cell ({choices_hint(name, names)})")
                self.text(d, p + ("pins", name), reason)
            self.m.cell_flags.append(flags)

    def _rules(self) -> None:
        d, r = "rules", self.m.rules
        for i, g in enumerate(r.gates):
            p = ("gates", i)
            self.condition(d, p + ("when",), g.when)
            if not g.disable and not g.hide:
                self.out.add(self.docs[d], p, f"gate '{g.id}' neither disables nor hides anything")
            if g.disable and not g.reason:
                self.out.add(self.docs[d], p, f"gate '{g.id}' disables options but gives no reason")
            self.text(d, p + ("reason",), g.reason)
            for kind in ("disable", "hide"):
                for axis_id, options in getattr(g, kind).items():
                    for option in options:
                        self.option_of(d, p + (kind, axis_id), axis_id, option)
        axis_ids = {a.id for a in self.m.axes}
        for i, t in enumerate(r.transforms):
            p = ("transforms", i)
            self.condition(d, p + ("when",), t.when)
            for axis_id, options in (t.for_ or {}).items():
                for option in options if isinstance(options, list) else [options]:
                    if axis_id not in axis_ids:
                        self.out.add(self.docs[d], p + ("for",), f"'for' names unknown axis "
                                     f"'{axis_id}' ({choices_hint(axis_id, sorted(axis_ids))})")
                    else:
                        self.option_of(d, p + ("for", axis_id), axis_id, option)
            for j, name in enumerate(t.strip + t.insert_after):
                self.flag_name(d, p + ("strip" if j < len(t.strip) else "insert_after",), name)
            for j, f in enumerate(t.add):
                self.flag_text(d, p + ("add", j), f)
            for j, h in enumerate(t.hints):
                self.text(d, p + ("hints", j), h)
        for i, c in enumerate(r.calculator):
            self.condition(d, ("calculator", i, "when"), c.when)
            self.text(d, ("calculator", i, "reason"), c.reason)
        for i, c in enumerate(r.checks):
            p = ("checks", i)
            self.condition(d, p + ("when",), c.when)
            self.text(d, p + ("message",), c.message)
            for j, name in enumerate(c.flags):
                if self.catalog.lookup(name).kind != "exact" and self.router.lookup(name).kind != "exact":
                    self.flag_name(d, p + ("flags", j), name)
        knob_ids = [k.id for k in r.knobs]
        for i, k in enumerate(r.knobs):
            self.text(d, ("knobs", i, "label"), k.label)
            if k.flag:
                self.flag_name(d, ("knobs", i, "flag"), k.flag)
            self.condition(d, ("knobs", i, "show_when"), k.show_when)
        for i, e in enumerate(r.effective):
            p = ("effective", i)
            if e.knob not in knob_ids:
                self.out.add(self.docs[d], p + ("knob",), f"unknown knob '{e.knob}' "
                             f"({choices_hint(e.knob, knob_ids)})")
            if (e.value is None) == (e.value_text is None):
                self.out.add(self.docs[d], p, "give exactly one of 'value' or 'value_text'")
            self.text(d, p + ("value_text",), e.value_text)
            self.text(d, p + ("because",), e.because)
            self.condition(d, p + ("when",), e.when)

    def _benchmarks(self) -> None:
        if self.m.benchmarks is None or self.cell_problems:
            return  # a broken cells file would only make every benchmark look orphaned
        rounds = [r.id for r in self.m.info.rounds]
        for i, res in enumerate(self.m.benchmarks.results):
            p = ("results", i)
            if res.round not in rounds:
                self.out.add(self.docs["benchmarks"], p + ("round",), f"unknown round "
                             f"'{res.round}' ({choices_hint(res.round, rounds)})")
            for key, value in res.match.items():
                self.option_of("benchmarks", p + ("match", key), key, value)
            mt = res.match
            if (mt.get("hw"), mt.get("role"), mt.get("strategy")) not in self.m.cell_index:
                self.out.add(self.docs["benchmarks"], p + ("match",), "no cell matches "
                             f"{mt.get('hw')}/{mt.get('role')}/{mt.get('strategy')}")
