"""Loading the recipe database: every file parsed, validated and cross-referenced once.

Owns the ``Database`` object the engine, the CLI and the mkdocs macros share, reading every
file against its schema (hardware.yaml's container options against its own docker vocabulary
too), and gathering every load error a maintainer can see (``file:line:col: what (valid
choices)``); the cross-file checks of a model are ``validate.py``'s. Must not
compose commands (``resolve.py``) or print anything.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from macros.engine import bench_serving, kept, yamlfile
from macros.engine.docker import option_problem
from macros.engine.bounds import load_bounds
from macros.engine.catalog import DIFFUSION_HISTORY, HISTORY, Catalog
from macros.engine.errors import Problem, RecipeError, choices_hint
from macros.engine.flags import READER_PLACEHOLDERS
from macros.engine.model import _FIELD, LANGS, Database, Model
from macros.engine.releases import Migration, Releases
from macros.engine.schema import (AxesFile, BenchmarksFile, CellsFile, HardwareFile, MigrationsFile, ModelFile, PlaceholdersFile, Platform, RulesFile, VerificationFile)

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "recipes"
_TEXT_ID = re.compile(r"^[a-z0-9_.-]+$")


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
            doc = yamlfile.load(path, display=_rel(path, root))
        except RecipeError as exc:
            self.problems.extend(exc.problems)
            return None
        if doc.data is not None and not isinstance(doc.data, dict):
            kind = "a list" if isinstance(doc.data, list) else f"the value {doc.data!r}"
            self.add(doc, (), f"the file must be a mapping of field names to values at the top "
                     f"level (found {kind})")
            return None
        return doc


def _rel(path: Path, root: Path) -> str:
    """``path`` as the maintainer named it, relative to ``root``. Nothing is resolved: the
    file may be a symlink loop, and a symlinked file is reported where it sits."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return str(path) if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


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
    shared = kept.folder_digest(catalog_dir)  # what the models and releases are kept by
    platforms: dict[str, Platform] = {}
    containers = None
    hw_doc = out.load(catalog_dir / "hardware.yaml", base)
    if hw_doc:
        hw = out.parse(hw_doc, HardwareFile)
        if hw:
            for i, p in enumerate(hw.platforms):
                if p.id in platforms:
                    out.add(hw_doc, ("platforms", i, "id"), f"duplicate platform id '{p.id}'")
                platforms[p.id] = p
            containers = hw.containers
            _check_containers(out, hw_doc, hw)
    history = _load_history(catalog_dir / HISTORY, base)
    catalog = _load_catalog(catalog_dir / "sglang.json", "sglang", base, history)
    router = _load_catalog(catalog_dir / "sglang-router.json", "sglang-router", base)
    # the diffusion server's CLI (sglang serve for a diffusion model), with its own history
    diffusion_history = _load_history(catalog_dir / DIFFUSION_HISTORY, base)
    diffusion = _load_catalog(catalog_dir / "sglang-diffusion.json", "sglang-diffusion", base,
                              diffusion_history)
    bounds_doc = out.load(catalog_dir / "flag-bounds.yaml", base)
    if bounds_doc:
        out.problems += load_bounds(bounds_doc, {c.package: c for c in (catalog, router,
                                                                         diffusion)})
    shared_text = _load_text(out, catalog_dir, base)
    values_doc, reader_values = _load_reader_values(out, catalog_dir, base, shared_text) \
        if not out.problems else (None, [])  # a broken text file: its ids would all be unknown
    releases = _load_releases(out, catalog_dir, base, catalog, history, shared)
    bench = _load_bench_releases(catalog_dir / HISTORY, base, releases)
    try:
        clis = {"llm": (catalog, releases),
                "diffusion": (diffusion, Releases(diffusion_history, diffusion, [], shared))}
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise RecipeError([Problem(_rel(catalog_dir / DIFFUSION_HISTORY, base), None, None,
                                   f"not a flag history ({type(exc).__name__}: {exc}); run "
                                   "'recipes catalog'")]) from None
    # Every model is checked against the shared files; with one of them broken, that check
    # would only bury the real problem under follow-on errors.
    if out.problems:
        raise RecipeError(out.problems)
    models: dict[str, Model] = {}
    try:
        entries = sorted(root.iterdir())
    except OSError as exc:
        raise RecipeError([Problem(str(root), None, None,
                                   f"cannot list the recipes folder: {exc.strerror}")]) from None
    keys: dict[str, bytes | None] = {}  # by model id: what the model is kept by
    for model_dir in (p for p in entries if p.is_dir() and p.name != "catalog"):
        key = kept.model_key(model_dir, MODEL_FILES, shared)
        model = kept.kept_model(key, model_dir)
        if model is None:
            before = len(out.problems)
            model = _load_model(out, model_dir, base, platforms, clis, router, shared_text,
                                bench, containers)
            # kept only if clean, and if no file changed while it was read
            if model and key is not None and len(out.problems) == before \
                    and kept.model_key(model_dir, MODEL_FILES, shared) == key:
                kept.keep_model(key, shared, model)
        if model:
            models[model.id] = model
            keys[model.id] = key
    if shared is not None and kept.folder_digest(catalog_dir) != shared:  # edited meanwhile
        kept.forget(shared)
        keys.clear()
    if not out.problems and not models:
        out.problems.append(Problem(_rel(root, base) + "/", None, None, "no model to publish: a "
                                    "model is a folder here with its model.yaml (see "
                                    "docs/en/guides/add-a-model.md)"))
    if out.problems:
        raise RecipeError(out.problems)
    declared = {t: v for v in reader_values for t in v.tokens}
    for model in models.values():  # placeholders the reader fills in print unquoted
        for path, text in reader_texts(model):
            for token in re.findall(READER_TOKEN, text):
                READER_PLACEHOLDERS.add(token)
                if token not in declared:  # an error: read the file again for its lines
                    doc = out.load(root / model.id / "model.yaml", base)
                    where = values_doc.file if values_doc else "recipes/catalog/placeholders.yaml"
                    out.add(doc, path, f"the reader placeholder {token} is not declared in "
                            f"{where} (declared: {', '.join(sorted(declared)) or 'none'}): "
                            "say what it stands for and what a value looks like there")
    if out.problems:
        raise RecipeError(out.problems)
    db = Database(root, platforms, containers, catalog, router, shared_text, models, releases,
                  bench, reader_values, clis)
    from macros.engine.validate import check_calculator_cells  # it composes commands: needs the database
    check_calculator_cells(db, out, base, keys)
    if out.problems:
        raise RecipeError(out.problems)
    return db


READER_TOKEN = r"<[a-z0-9][a-z0-9.-]*>"


def reader_texts(model) -> list[tuple[tuple, str]]:
    """Where a model's commands get the words the reader fills in: its placeholder values and
    its PD router's flags, each with its place in model.yaml. (Hint texts are prose: a word in
    angle brackets there is filled in when declared, and never changes how a value is quoted.)"""
    out = [(("placeholders", k), v) for k, v in model.info.placeholders.items()]
    if model.info.pd:
        out += [(("pd", "router", "flags", i), f) for i, f in enumerate(model.info.pd.router.flags)]
    return out


def _load_reader_values(out: _Collector, catalog_dir: Path, base: Path,
                        text: dict[str, dict[str, str]]):
    """recipes/catalog/placeholders.yaml: each id and spelling once, each text in every
    language. A recipes folder without the file declares none."""
    path = catalog_dir / "placeholders.yaml"
    if not path.exists():
        return None, []
    doc = out.load(path, base)
    parsed = out.parse(doc, PlaceholdersFile) if doc else None
    if parsed is None:
        return doc, []
    ids: set[str] = set()
    tokens: set[str] = set()
    for i, v in enumerate(parsed.placeholders):
        if v.id in ids:
            out.add(doc, ("placeholders", i, "id"), f"duplicate placeholder id '{v.id}'")
        ids.add(v.id)
        for j, token in enumerate(v.tokens):
            if token in tokens:
                out.add(doc, ("placeholders", i, "tokens", j), f"{token} is declared twice")
            tokens.add(token)
        missing = [lang for lang in LANGS if v.text not in text[lang]]
        if missing:
            out.add(doc, ("placeholders", i, "text"), f"unknown text id '{v.text}' in "
                    f"{', '.join(f'text.{lang}.yaml' for lang in missing)} of the catalog "
                    f"({choices_hint(v.text, text[missing[0]])})")
    return doc, parsed.placeholders


def _check_containers(out: _Collector, doc: yamlfile.Marked, hw: HardwareFile) -> None:
    """Every option a docker run line is built from is one ``run_flags`` knows, written as it
    takes a value; every vendor of a platform says how its accelerators reach a container."""
    c = hw.containers
    known = ", ".join(c.run_flags)
    places = [(("containers", "shared", i), text) for i, text in enumerate(c.shared)]
    places += [(("containers", "cache", i), text) for i, text in enumerate(c.cache)]
    places += [(("containers", key), getattr(c, key)) for key in ("publish", "host_network")]
    places.append((("containers", "env"), c.env + " NAME=value"))
    for vendor, run in c.vendors.items():
        places += [(("containers", "vendors", vendor, "args", i), text)
                   for i, text in enumerate(run.args)]
        if run.per_device:
            places.append((("containers", "vendors", vendor, "per_device"), run.per_device))
    for path, text in places:
        problem = option_problem(text.replace("{port}", "1").replace("{index}", "0"),
                                 c.run_flags)
        if problem:
            out.add(doc, path, f"{problem} (run_flags: {known})")
    for i, p in enumerate(hw.platforms):
        if p.vendor.value not in c.vendors:
            out.add(doc, ("platforms", i, "vendor"), f"vendor '{p.vendor.value}' has no entry "
                    f"under containers.vendors (entries: {', '.join(c.vendors)})")


def _load_history(path: Path, base: Path) -> dict:
    """The flag history, parsed once: the pinned catalog's deprecated env, the releases and
    the bench_serving arguments all read it."""
    name = _rel(path, base)
    try:
        text = yamlfile.read_text(path, name)
    except RecipeError as exc:
        raise RecipeError([Problem(p.file, p.line, p.col, f"{p.message} (it holds every "
                                   "release's flags, environment registry and deprecated "
                                   "variables); run 'recipes catalog'")
                           for p in exc.problems]) from None
    history = kept.histories.get((name, text))
    if history is not None:
        return history
    try:
        history = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecipeError([Problem(name, exc.lineno, exc.colno, f"not valid JSON ({exc.msg}); "
                                   "run 'recipes catalog'")]) from None
    kept.keep(kept.histories, (name, text), history)
    return history


def _load_releases(out: _Collector, catalog_dir: Path, base: Path, catalog: Catalog,
                   history: dict, shared: bytes | None = None) -> Releases:
    """The releases of the flag history and the migrations: each migration's flags are checked
    against the releases, so a misspelt one cannot silently rewrite nothing."""
    try:
        releases = Releases(history, catalog, [], shared)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        name = _rel(catalog_dir / HISTORY, base)
        raise RecipeError([Problem(name, None, None, f"not a flag history "
                                   f"({type(exc).__name__}: {exc}); run 'recipes catalog'")]) \
            from None
    _load_staleness(out, catalog_dir, base, releases)
    doc = out.load(catalog_dir / "migrations.yaml", base) \
        if (catalog_dir / "migrations.yaml").exists() else None
    parsed = out.parse(doc, MigrationsFile) if doc else None
    if parsed is None:
        return releases
    known = releases.flag_names()
    ids: set[str] = set()
    for i, m in enumerate(parsed.migrations):
        p = ("migrations", i)
        if m.id in ids:
            out.add(doc, p + ("id",), f"migration id '{m.id}' is used twice")
        ids.add(m.id)
        for where, name in [(p + ("flag",), m.flag)] + \
                [(p + ("rename", k), n) for k, v in m.rename.items() for n in (k, v)]:
            if name not in known:
                out.add(doc, where, f"flag '{name}' is in no release of the history "
                        f"({choices_hint(name, sorted(known))})")
        for name in m.default:
            if name not in m.rename.values():
                out.add(doc, p + ("default", name), f"'{name}' is no new name of 'rename' "
                        f"(known: {', '.join(m.rename.values())})")
        if releases.deprecated_since(m.flag) is None and m.flag in known:
            out.add(doc, p + ("flag",), f"no release deprecates '{m.flag}', so nothing "
                    "replaces it")
        releases.migrations.append(Migration(m.id, m.flag, dict(m.rename), dict(m.default)))
    return releases


def _load_staleness(out: _Collector, catalog_dir: Path, base: Path, releases: Releases) -> None:
    """verification.yaml: how far behind the newest release a record may fall, and which facts
    of a flag make its meaning (each one the flag history records)."""
    path = catalog_dir / "verification.yaml"
    doc = out.load(path, base) if path.exists() else None
    parsed = out.parse(doc, VerificationFile) if doc else None
    if parsed is None:
        return
    facts = releases.fact_keys()
    for section in ("meaning", "switch_meaning"):
        for i, key in enumerate(getattr(parsed, section)):
            if key not in facts:
                out.add(doc, (section, i), f"'{key}' is not a fact the flag history records "
                        f"({choices_hint(key, sorted(facts))})")
    releases.staleness = (parsed.releases_behind, tuple(parsed.meaning),
                          tuple(parsed.switch_meaning))


def _load_catalog(path: Path, source: str, base: Path, history: dict | None = None) -> Catalog:
    """A flag catalog; it is generated, so any problem means: regenerate it."""
    name = _rel(path, base)
    text = yamlfile.read_text(path, name)  # OS and encoding problems, reported like any file's
    # the history the catalog read is kept with it: a history read again from the same bytes
    # is the same object (_load_history), another one is read again
    hit = kept.catalogs.get((name, source, text))
    if hit is not None and hit[0] is history:
        return hit[1].copy()
    try:
        catalog = Catalog.load(path, source, history, text)
    except json.JSONDecodeError as exc:
        raise RecipeError([Problem(name, exc.lineno, exc.colno, f"not valid JSON ({exc.msg}); "
                                   "run 'recipes catalog'")]) from None
    except (OSError, KeyError, TypeError, AttributeError, ValueError) as exc:
        raise RecipeError([Problem(name, None, None, f"not a flag catalog ({type(exc).__name__}: "
                                   f"{exc}); run 'recipes catalog'")]) from None
    kept.keep(kept.catalogs, (name, source, text), (history, catalog))
    return catalog.copy()


def _load_bench_releases(path: Path, base: Path, releases: Releases
                         ) -> bench_serving.BenchReleases:
    """The bench_serving arguments of every release, from the history ``releases`` read."""
    name = _rel(path, base)
    hit = kept.bench.get(id(releases.history))  # the entry holds the history: its id stays
    if hit is not None and hit[0] is releases.history:
        return hit[1]
    try:
        bench = bench_serving.load_releases(releases.history)
    except (KeyError, TypeError, AttributeError, ValueError, StopIteration) as exc:
        raise RecipeError([Problem(name, None, None, "not a flag history with bench_serving "
                                   f"arguments ({type(exc).__name__}: {exc}); run "
                                   "'recipes catalog'")]) from None
    kept.keep(kept.bench, id(releases.history), (releases.history, bench))
    return bench


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


def _keep_spelling(bench: BenchmarksFile, doc: yamlfile.Marked) -> None:
    """Each measured figure as its file writes it ("33.10", "64.0"): YAML reads the number, and
    a table shows what was measured, trailing zeros included (schema.Figures)."""
    def keep(record, at, names):
        for name in names:
            value = record._value(name)
            if isinstance(value, list):
                record._written[name] = [doc.spelled.get(at + (name, k))
                                         for k in range(len(value))]
            elif at + (name,) in doc.spelled:
                record._written[name] = doc.spelled[at + (name,)]

    def figures(record):  # its fields that hold a number with a fraction (BenchRow's, a score)
        return [name for name, value in record if isinstance(value, float)]

    for i, result in enumerate(bench.results):
        for j, row in enumerate(result.rows):
            keep(row, ("results", i, "rows", j), figures(row))
        for j, item in enumerate(result.accuracy):
            keep(item, ("results", i, "accuracy", j), figures(item))
        for j, row in enumerate(result.measured):
            keep(row, ("results", i, "measured", j, "values"), row.values)


MODEL_DOCS = ("model", "cells", "overlays", "playground", "rules", "benchmarks")
# every file a model's reading opens (_load_model, _load_text): a model is kept by their bytes
MODEL_FILES = tuple(f"{name}.yaml" for name in (*MODEL_DOCS, *(f"text.{lang}" for lang in LANGS)))


def _load_model(out, model_dir, base, platforms, clis, router, shared_text,
                bench_releases, containers=None) -> Model | None:
    docs = {}
    for name in MODEL_DOCS:
        path = model_dir / f"{name}.yaml"
        if name == "benchmarks" and not os.path.lexists(path):  # a broken link is reported
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
    if bench is not None:
        _keep_spelling(bench, docs["benchmarks"])
    text = _load_text(out, model_dir, base)
    if None in (info, cells, overlays, playground, rules):
        return None
    if info.id != model_dir.name:
        out.add(docs["model"], ("id",), f"model id '{info.id}' must equal its folder name "
                f"'{model_dir.name}'")
    merged = {lang: {**shared_text.get(lang, {}), **text.get(lang, {})} for lang in LANGS}
    # a badge's tooltip and the home page's table say what a status means for this model:
    # each team verifies in its own way, so the model words every status its cells carry
    unworded: set[str] = set()
    for i, cell in enumerate(cells.cells):
        key = f"status.{cell.status.value}.title"
        if key not in text.get("en", {}) and key not in unworded:
            unworded.add(key)  # reported once per status
            out.add(docs["cells"], ("cells", i, "status"), f"no model text says what "
                    f"'{cell.status.value}' means for {info.id}: add '{key}' to "
                    f"{model_dir.name}/text.en.yaml and text.ko.yaml (the badge's tooltip and "
                    "the home page's table of statuses read it)")
    axes = list(overlays.axes) + list(playground.axes)
    model = Model(info.id, model_dir, info, cells.cells, [], axes,
                  tuple(a.id for a in overlays.axes), rules, bench, merged)
    from macros.engine.validate import Validator  # validate.py reads this module's types and helpers
    catalog, releases = clis[info.cli]  # the CLI the model declares judges its flags
    Validator(out, model, docs, platforms, catalog, router, releases, bench_releases,
              containers).run()
    return model
