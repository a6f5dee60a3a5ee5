"""The per-model JSON export: everything the Playground needs to compose commands itself.

Owns the export's shape (documented in docs/en/guides/add-a-model.md). It carries the raw
database (cells, axes, rules) for the JavaScript interpreter, the slice of the flag catalog the
model's commands can contain (the pinned release's whole, every other release's as its changes
against it), and the text of one language. Must not pre-compute commands:
the Playground composes them from the same rules, and a parity test compares the two.

The site ships each export in two files (``split_export``): what a page needs to mount the
Playground and answer every click on the recipe's own releases, and the rest: what only a later
action reads (another release's catalog, the deployment files' keys and texts), which the
Playground fetches the first time it needs it, and what no module of the page reads (the
pages' own texts and prose). ``recipes export`` prints the two together.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Any

from macros.engine import check_config, docker
from macros.engine.model import Database

from macros.engine.model import EXPORTED_TEXT_ID
from macros.engine.flags import parse_flag_text
from macros.engine.releases import LATEST

_TEXT_ID = EXPORTED_TEXT_ID
EXPORT_VERSION = 1


def _flag_names(model, releases) -> set[str]:
    names: set[str] = set()
    for m in releases.migrations:  # a command may be printed in the replacement's spelling
        names |= m.new_flags()
    for flags in model.cell_flags:
        names |= {f.name for f in flags}
    for axis in model.axes:
        for o in axis.options:
            names |= set(o.strip)
            for text in o.add:
                names |= {f.name for f in parse_flag_text(text)}
    for t in model.rules.transforms:
        names |= set(t.strip) | set(t.insert_after)
        for text in t.add:
            names |= {f.name for f in parse_flag_text(text.replace("{", "").replace("}", ""))}
    return names


def _strings(value: Any, out: set[str]) -> None:
    if isinstance(value, str):
        if _TEXT_ID.match(value):
            out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _strings(v, out)


def export_model(db: Database, model_id: str, lang: str) -> dict:
    model = db.model(model_id)
    db = db.serving(model)  # the model's CLI: its catalog and releases
    info = model.info.model_dump(mode="json")
    cells = []
    for cell, flags in zip(model.cells, model.cell_flags):
        data = cell.model_dump(mode="json", exclude={"flags"})
        data["flags"] = [[f.name, list(f.values)] for f in flags]
        cells.append(data)
    axes = [a.model_dump(mode="json", exclude_defaults=True) for a in model.axes]
    rules = model.rules.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    names = sorted(_flag_names(model, db.releases))
    env_names: set[str] = set()
    for cell in model.cells:
        env_names |= {e.split("=", 1)[0] for e in cell.env}
    for axis in model.axes:
        for o in axis.options:
            env_names |= {e.split("=", 1)[0] for e in o.env}
    for t in model.rules.transforms:
        env_names |= {e.split("=", 1)[0] for e in t.env}
    # every release of the history but the pinned one, each judged by its own catalog
    # (check_state): the reader may spell the command for any of them
    releases = [v for v in db.releases.order if v != db.catalog.version]
    pinned = _catalog_slice(db.catalog, names, env_names)
    platforms = [db.platforms[h].model_dump(mode="json") for h in model.info.hardware]
    used: set[str] = set()
    for part in (info, cells, axes, rules):
        _strings(part, used)
    used |= {k for k in db.text[lang] if k.split(".")[0] in
             ("status", "source", "severity", "table", "ui", "catalog", "opt", "eff", "gate", "hint",
              "migrate", "release", "stale", "record", "deploy")}
    text = {k: v for k, v in sorted(model.text[lang].items()) if k in used}
    return {
        "version": EXPORT_VERSION,
        "lang": lang,
        "model": info,
        "platforms": platforms,
        "containers": db.containers.model_dump(mode="json"),
        "compose_keys": {name: list(how) for name, how in docker.COMPOSE.items()},
        "cells": cells,
        "overlays": list(model.overlay_ids),
        "axes": axes,
        "rules": rules,
        "catalog": {"package": db.catalog.package, "version": db.catalog.version,
                    "roles": {k: list(v) for k, v in db.catalog.roles.items()}, **pinned},
        # every other release as its changes against the pinned slice (most of a release's
        # flags are the pinned release's; releases.js catalogOf puts each back together)
        "release_catalogs": {v: _catalog_changes(pinned, _catalog_slice(
            db.releases.catalog(v), names, env_names)) for v in releases},
        "releases": {**_releases(db), "staleness": _staleness(db, model)},
        "round_results": _round_results(model),
        # the placeholders a reader fills and what a deployment file fills them with
        # (site/servers.py, playground/deploy.js)
        "reader_values": [v.model_dump(mode="json") for v in db.reader_values],
        "text": text,
    }


# The part of an export only a later action reads (split_export): the deployment files'
# (playground/deploy.js, loaded at the first "Deploy as" format) Compose keys, the container
# keys only they write (run_flags: the docker options each one takes; kubernetes: the pod's
# names), and their texts. The release catalogs the recipe's images do not run are the rest.
LATER_KEYS = ("compose_keys",)
LATER_CONTAINERS = ("run_flags", "kubernetes")
# the model's fields no module of the Playground reads (the pages' prose and the Python side's:
# the API inputs, the CLI, what recipes enumerate lists): the rest of the export, with them
LATER_MODEL = ("about", "api", "cli", "enumerate", "summary")
LATER_TEXT = "deploy."
LATER = "later"  # the mounted part's key: the later file's name, beside it
# The Playground's modules (the theme's assets in this checkout) and the one a page loads on
# first use: a text the others name, by its id or by the prefix they build an id from, or that
# the mounted data or such a text names, is a text the page needs to mount; the others (the
# pages' own text, the deployment files') come with the later part.
PLAYGROUND = Path(__file__).resolve().parents[2] / "overrides" / "assets" / "recipes" / "playground"
LATER_MODULES = ("deploy.js",)
_NAMED = re.compile(r"'([a-z][a-z0-9_]*(?:\.[a-z0-9_-]+)+)'")
_PREFIX = re.compile(r"'([a-z][a-z0-9_]*(?:\.[a-z0-9_-]+)*\.)'\s*\+")


@functools.cache
def module_texts(folder: Path = PLAYGROUND) -> tuple[frozenset[str], tuple[str, ...]]:
    """The text ids and id prefixes the mounted Playground's modules write in their source."""
    names: set[str] = set()
    prefixes: set[str] = set()
    for module in sorted(folder.glob("*.js")):
        if module.name in LATER_MODULES:
            continue
        source = module.read_text(encoding="utf-8")
        names.update(_NAMED.findall(source))
        prefixes.update(_PREFIX.findall(source))
    return frozenset(names), tuple(sorted(prefixes))


def _mount_texts(now: dict, text: dict) -> set[str]:
    """The texts of ``text`` the mounted part needs: named by a module (module_texts), by the
    mounted data, or as an '@id' field of a text it needs."""
    names, prefixes = module_texts()
    found: set[str] = set()

    def walk(value: Any) -> None:  # every string and key of the data, an '@id' as its id
        if isinstance(value, str):
            found.add(value.removeprefix("@"))
        elif isinstance(value, dict):
            found.update(k.removeprefix("@") for k in value)
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk({k: v for k, v in now.items() if k != "text"})
    need = {k for k in text if k in names or k.startswith(prefixes) or k in found}
    todo = list(need)
    while todo:  # a text's '@id' fields
        for ref in re.findall(r"@([a-z0-9_.-]+)", text[todo.pop()]):
            if ref in text and ref not in need:
                need.add(ref)
                todo.append(ref)
    return need


def later_name(model_id: str, lang: str) -> str:
    return f"{model_id}.{lang}.later.json"


def image_releases(data: dict) -> set[str]:
    """The releases the model's images run (resolve: an image naming none runs the pinned
    release, ``latest`` the newest): the releases a selection is spelt for until the reader
    picks another."""
    releases = data["releases"]
    return {releases["newest"] if rule["sglang"] == LATEST else rule["sglang"]
            for rule in data["model"]["docker_images"] if rule.get("sglang")} \
        | {releases["pinned"]}


def split_export(data: dict, name: str) -> tuple[dict, dict]:
    """An export (export_model) as the site ships it: the part a page fetches to mount the
    Playground, which names the other part's file ``name`` under ``later``, and that part:
    the catalogs of the releases no image of the model runs (needed once the reader picks one,
    or a link names one), what only the deployment files read and what no module reads
    (LATER_*, the texts no mounted module needs: _mount_texts). Each value of the
    later part is a key of the export, or a mapping whose keys join that key's (join_export)."""
    keep = image_releases(data)
    now = {k: v for k, v in data.items() if k not in LATER_KEYS}
    later: dict = {k: data[k] for k in LATER_KEYS if k in data}
    catalogs = data["release_catalogs"]
    now["release_catalogs"] = {v: c for v, c in catalogs.items() if v in keep}
    later["release_catalogs"] = {v: c for v, c in catalogs.items() if v not in keep}
    now["containers"] = {k: v for k, v in data["containers"].items()
                         if k not in LATER_CONTAINERS}
    later["containers"] = {k: v for k, v in data["containers"].items() if k in LATER_CONTAINERS}
    now["model"] = {k: v for k, v in data["model"].items() if k not in LATER_MODEL}
    later["model"] = {k: v for k, v in data["model"].items() if k in LATER_MODEL}
    mount = _mount_texts(now, data["text"])
    now["text"] = {k: v for k, v in data["text"].items() if k in mount}
    later["text"] = {k: v for k, v in data["text"].items() if k not in mount}
    now[LATER] = name
    return now, later


def join_export(now: dict, later: dict) -> dict:
    """The two parts of split_export as one export again (what the Playground's addLater
    does in the browser)."""
    out = {k: v for k, v in now.items() if k != LATER}
    for key, value in later.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def _catalog_slice(catalog, names: list[str], env_names: set[str]) -> dict:
    """The part of a release's catalog the model's commands can use: its flags by the names
    the data writes (an alias of an older release included), its registered and deprecated
    variables."""
    flags = {}
    fields = check_config.style(catalog) == check_config.FIELDS
    for name in names:
        hit = catalog.lookup(name)
        spec = hit.spec if hit.kind in ("exact", "alias", "negated") else None
        if spec is None:
            continue
        flags[name] = {"name": spec.name,
                       "takes_value": spec.takes_value, "nargs": spec.nargs, "type": spec.type,
                       "choices": list(spec.choices) if spec.choices else None,
                       "late_choices": list(spec.late_choices) if spec.late_choices else None,
                       "deprecated": spec.deprecated, "default": spec.default,
                       "action": spec.action,
                       "bound": dataclasses.asdict(spec.bound) if spec.bound else None}
        if hit.kind == "negated":  # --no-X sets X false: one setting with X (resolve.splice)
            flags[name]["negates"] = spec.name
        if fields:  # the key a config file gives it under (deploy.config_split)
            flags[name]["field"] = spec.stored_as
    # each flag bounded by another (catalog.below_problems): the bound, why, strictly below,
    # and the bounding flag's default (it counts when the command leaves that flag out)
    below = {name: [other, means, strict, catalog.flags[other].default]
             for name, (other, means, strict) in sorted(catalog.below.items()) if name in flags}
    return {"flags": flags, "below": below, "config": check_config.style(catalog),
            "env": sorted(n for n in env_names if n in catalog.env),
            "env_deprecated": {n: catalog.deprecated_env[n] for n in sorted(env_names)
                               if n in catalog.deprecated_env}}


def _catalog_changes(pinned: dict, other: dict) -> dict:
    """A release's catalog slice as its changes against the pinned one: ``flags`` it has
    otherwise or only, ``missing`` (the pinned flags it lacks), and ``below``, ``config`` (how
    its server reads a config file), ``env`` and ``env_deprecated`` whole where they differ."""
    out: dict = {}
    flags = {n: spec for n, spec in other["flags"].items() if pinned["flags"].get(n) != spec}
    missing = [n for n in pinned["flags"] if n not in other["flags"]]
    if flags:
        out["flags"] = flags
    if missing:
        out["missing"] = missing
    for key in ("below", "config", "env", "env_deprecated"):
        if other[key] != pinned[key]:
            out[key] = other[key]
    return out


def _staleness(db: Database, model) -> dict | None:
    """What the Playground needs to judge a record stale (records.stale): how far behind a
    record may fall, and where each flag of the model's cells changes meaning, as a valued
    flag and as a switch."""
    rule = db.releases.staleness
    if rule is None:
        return None
    behind, meaning, switch = rule
    names = sorted({f.name for flags in model.cell_flags for f in flags})
    return {"behind": behind,
            "meaning": {n: db.releases.meaning_changes(n, meaning) for n in names},
            "switch": {n: db.releases.meaning_changes(n, meaning + switch) for n in names}}


def _round_results(model) -> dict:
    """Each round's benchmark results: how many, and the platforms they ran on."""
    out: dict[str, dict] = {}
    for r in model.benchmarks.results if model.benchmarks else ():
        if r.round is not None:
            entry = out.setdefault(r.round, {"hardware": [], "results": 0})
            entry["results"] += 1
            if "hw" in r.match and r.match["hw"] not in entry["hardware"]:
                entry["hardware"].append(r.match["hw"])
    return out


def _releases(db: Database) -> dict:
    """What the Playground needs to spell a command for its release (releases.Releases)."""
    r = db.releases
    return {"pinned": r.pinned.version, "newest": r.newest, "order": list(r.order),
            "migrations": [
        {"id": m.id, "flag": m.flag, "rename": m.rename, "default": m.default,
         "since": r.deprecated_since(m.flag),
         "applies_in": [v for v in r.order if r.applies(m, v)],
         # the releases that lack each replacement flag: there it is read back (migrate)
         "lacking": {n: [v for v in r.order if not r.has(v, n)] for n in sorted(m.new_flags())},
         "removal": {v: r.removal(v, m.flag) for v in r.order if r.removal(v, m.flag)}}
        for m in r.migrations]}
