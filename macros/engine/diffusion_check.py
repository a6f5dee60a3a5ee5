"""The diffusion CLI's programs for the checker: ``sglang serve`` when it serves a diffusion
model, and ``sglang generate``; and the choice ``sglang serve`` makes between its two CLIs.

Owns registering both programs with ``programs.py`` (imported by ``check.py`` for that), their
parsers per release (the diffusion history's ``flags`` and ``generate`` sections, plus
``--model-type``, which ``sglang serve`` takes out before either CLI parses, and the option
families ``ServerArgs.from_cli_args`` reads after argparse: ``--component-paths.<component>``,
``--<component>-path`` …) and :func:`cli_of`, the checker's reading of the dispatch facts the
catalog records (``dispatch`` and ``registry`` of ``recipes/catalog/sglang-diffusion.json``):

1. ``--model-type llm`` or ``diffusion`` decides, as in ``sglang serve``;
2. else the model path (``--model-path`` or the positional model): a name the diffusion
   registry knows (a Hugging Face id a pipeline config registers, matched exactly or by its
   short name, or a pattern of a native pipeline) is diffusion;
3. else a served name of a model of the recipes is served by the CLI its model.yaml names
   (``cli``; ``use`` reads them from the database checked), and ``--pipeline-class-name`` /
   ``--pipeline`` naming a registered native pipeline is diffusion;
4. what the real command would still ask (an overlay registry named by an environment
   variable, a local folder's ``model_index.json``, the Hub) the checker cannot see: it then
   reads the flags. A command every flag of which the LLM server knows is the LLM server's (the
   real fallback); one whose flags only the diffusion server knows is the diffusion server's,
   with a note saying so and how to make it explicit (``--model-type diffusion``).

Must not read shell text (``shell.py``) or judge values (``catalog.py``, ``check.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from macros.engine.catalog import Catalog, FlagSpec, Lookup
from macros.engine.history import History
from macros.engine.programs import BENCH, SERVER, Program, register

DIFFUSION = "diffusion"
LLM = "llm"
CATALOG_DIR = Path(__file__).resolve().parents[2] / "recipes" / "catalog"
PACKAGE = "sglang-diffusion"
GENERATE = "sglang generate"


@dataclass(frozen=True)
class Choice:
    """Which CLI judges a ``sglang serve`` command, and what decided it (for the note)."""

    cli: str  # llm | diffusion
    by: str  # model-type | registry | recipes | pipeline | flags | fallback


@lru_cache(maxsize=4)
def _facts(catalog_dir: str = str(CATALOG_DIR)) -> dict:
    """The dispatch facts, the registry and the option names of both server catalogs."""
    folder = Path(catalog_dir)
    diffusion = json.loads((folder / "sglang-diffusion.json").read_text(encoding="utf-8"))
    llm = json.loads((folder / "sglang.json").read_text(encoding="utf-8"))

    def names(doc: dict) -> frozenset[str]:
        return frozenset(o for f in doc["flags"] for o in [f["name"], *f["aliases"]])
    paths = [r["name"][5:] for r in diffusion["registry"] if r["kind"] == "path"]
    patterns = {r["name"][8:]: r["pipeline"] for r in diffusion["registry"]
                if r["kind"] == "pattern"}
    return {"dispatch": diffusion["dispatch"], "paths": paths, "patterns": patterns,
            "families": diffusion["families"], "llm": names(llm),
            "diffusion": names(diffusion) | {"--model-type"}}


def _short(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def registry_pipeline(model_path: str, facts: dict | None = None) -> str | None:
    """The diffusion registry's answer for a model path, by name alone: the pipeline (or
    ``registered``) it resolves to, or None. Mirrors ``is_registered_diffusion_model_path``:
    a registered id matches exactly or when its short name is part of the path's short name;
    a pattern without ``/`` when it is part of the path, one with ``/`` when the path or its
    short name equals it (both lower-cased)."""
    facts = facts or _facts()
    lower = model_path.lower()
    if model_path in facts["paths"]:
        return "registered"
    for registered in sorted(facts["paths"], key=len, reverse=True):
        if _short(registered.lower()) in _short(lower):
            return "registered"
    for pattern, pipeline in facts["patterns"].items():
        pattern = pattern.lower()
        if "/" not in pattern and pattern in lower:
            return pipeline
        if "/" in pattern and (lower == pattern or _short(lower) == _short(pattern)
                               or f"models--{pattern.replace('/', '--')}" in lower):
            return pipeline
    return None


def _value(args: Sequence[str], *names: str) -> str | None:
    for i, word in enumerate(args):
        for name in names:
            if word == name and i + 1 < len(args):
                return args[i + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def model_path(args: Sequence[str]) -> str | None:
    """The model a ``sglang serve`` command names: ``--model-path`` or the positional model."""
    if args and not args[0].startswith("-"):
        return args[0]
    return _value(args, "--model-path")


def _family_of(name: str, families: list[dict]) -> dict | None:
    for family in sorted(families, key=lambda f: f["order"]):
        if any(name.startswith(p) and len(name) > len(p) for p in family["prefixes"]):
            return family
        suffix = family.get("suffix")
        if suffix and name.startswith("--") and name.endswith(suffix) \
                and len(name) > len(suffix) + 2:
            return family
    return None


# served name -> the CLI of the recipe model that serves it (``use``: the database checked)
_SERVED: dict[str, str] = {}


def use(db) -> None:
    """Remember which CLI serves each served name of ``db``'s models: a model the recipes
    know is served as its model.yaml says (``cli``), before any guess from its flags."""
    _SERVED.clear()
    for model in db.models.values():
        for rule in model.info.model_names:
            _SERVED.setdefault(rule.name, model.info.cli)


def cli_of(args: Sequence[str], facts: dict | None = None) -> Choice:
    """The CLI ``sglang serve ARGS`` runs, as the module docstring says it is decided."""
    facts = facts or _facts()
    kind = _value(args, "--model-type")
    if kind in (LLM, DIFFUSION):
        return Choice(kind, "model-type")
    if kind is not None and kind != "auto":  # a backend a plugin adds: not ours to judge
        return Choice(LLM, "model-type")
    path = model_path(args)
    if path is not None and registry_pipeline(path, facts) is not None:
        return Choice(DIFFUSION, "registry")
    if path in _SERVED:  # a served name of a recipe model: its cli
        return Choice(_SERVED[path], "recipes")
    pipeline = _value(args, "--pipeline-class-name", "--pipeline")
    if pipeline is not None and "pipeline-class-name" in facts["dispatch"]["detectors"] \
            and pipeline in set(facts["patterns"].values()):
        return Choice(DIFFUSION, "pipeline")
    flags = [a.split("=", 1)[0] for a in args if a.startswith("--")]
    if all(f in facts["llm"] for f in flags):
        return Choice(LLM, "fallback")
    if all(f in facts["diffusion"] or _family_of(f, facts["families"]) for f in flags):
        return Choice(DIFFUSION, "flags")
    return Choice(LLM, "fallback")


# --- parsers -------------------------------------------------------------------------------

class DiffusionCatalog(Catalog):
    """A diffusion parser: argparse's flags, then the option families ``from_cli_args`` takes
    out of what argparse left over (each spelling a flag of its own, taking its values)."""

    families: tuple[dict, ...] = ()

    def lookup(self, written: str) -> Lookup:
        hit = super().lookup(written)
        if hit.kind != "unknown":
            return hit
        family = _family_of(written, list(self.families))
        if family is None:
            return hit
        nargs = {"one": None, "optional-bool": "?", "one-or-more": "+"}[family["values"]]
        spec = FlagSpec(name=written, aliases=(), takes_value=True, nargs=nargs, type="str",
                        choices=None, default=None, deprecated=None,
                        help=f"read by ServerArgs.{family['name']} after argparse",
                        late_choices=("true", "false") if nargs == "?" else None,
                        source=self.package)
        return Lookup(spec, written, "exact")


def _cache(db) -> dict:
    return db.__dict__.setdefault("_diffusion_parsers", {})


def _build(db, release: str, section: str, abbrev_key: str, name: str) -> Catalog | None:
    key = (section, release)
    cache = _cache(db)
    if key in cache:
        return cache[key]
    pinned, releases = db.clis[DIFFUSION]
    history = History(releases.history, PACKAGE)
    if release not in history.order:
        cache[key] = None
        return None
    flags = {e["name"]: FlagSpec.from_json(e, PACKAGE)
             for e in history.section(section, release).values()}
    for spec_name, spec in pinned.flags.items():  # what flag-bounds.yaml gives the pinned one
        if spec_name in flags:
            flags[spec_name] = replace(flags[spec_name], bound=spec.bound)
    model_type = db.catalog.flags.get("--model-type")  # taken out before either CLI parses
    if model_type is not None and section == "flags":
        flags["--model-type"] = model_type
    env = {e["name"]: e for e in history.section("env", release).values()}
    meta = history.meta(release)
    cat = DiffusionCatalog(PACKAGE, release, flags, env, bool(meta.get(abbrev_key, True)),
                           (name,), below=dict(pinned.below), roles=dict(pinned.roles))
    cat.families = tuple(history.section("families", release).values())
    cat._index()
    cache[key] = cat
    return cat


def serve_parser(db, release: str) -> Catalog | None:
    return _build(db, release, "flags", "allow_abbrev", "sglang serve")


def generate_parser(db, release: str) -> Catalog | None:
    return _build(db, release, "generate", "generate_allow_abbrev", GENERATE)


def _claims(args: Sequence[str]) -> bool:
    return cli_of(list(args)).cli == DIFFUSION


def notes(cmd) -> list[tuple[str, str, str]]:
    """(severity, rule, message) for a ``sglang serve`` command whose CLI the checker told by
    its flags alone (the model is none the registry knows): what it did, and how to say it."""
    if cmd.entry != "sglang serve":
        return []
    args = ([cmd.model] if cmd.model else []) + [w for name, values in cmd.flags
                                                 for w in (name, *values)]
    choice = cli_of(args)
    if choice.by != "flags":
        return []
    path = model_path(args) or "no model"
    return [("info", "check.cli-by-flags",
             f"cannot tell whether {path} is a diffusion model: sglang serve would look for "
             "its model_index.json, locally or on the Hub; judged by the diffusion CLI, whose "
             "flags it uses (add --model-type diffusion to say so)")]


register(Program("sglang serve", (("sglang", "serve"),), SERVER, serve_parser,
                 positional_model=True, claims=_claims, family="sglang serve", config=True,
                 model_on_command_line=True))
register(Program(GENERATE, (("sglang", "generate"),), BENCH, generate_parser))
