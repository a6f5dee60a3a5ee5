"""A selection as deployment files a reader applies as they are: SGLang's own config file with
its env file, a Docker Compose file, Kubernetes manifests (``kube.py``); what ``recipes command
--as`` prints and the MCP server answers.

Owns which flags a ``--config`` YAML can carry (as SGLang's ``ConfigArgumentMerger`` reads one:
a ``store`` flag as its value or list of values, a ``store_true`` flag as ``true``; every other
action, a ``--no-X`` form, a flag given twice, a value left to the node and a flag the catalog
does not know stay on the command line), the docker options of hardware.yaml and of the
model's image as Compose keys (``docker.COMPOSE``; a service per node, its rank filled in;
for a PD selection the prefill, decode and router services), and the dispatch over the formats. What the files share (the YAML style, the
servers, the placeholders a file fills) is ``servers.py``; the Playground's ``deploy.js``
mirrors both. Must not compose or check a command (``resolve.py``, ``check.py``).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import yaml

from macros.engine import check_config, docker
from macros.engine.flags import Flag
from macros.engine.model import Database, Model
from macros.engine.results import Resolution
from macros.site import kube, render
from macros.site.servers import (  # noqa: F401  (the names tests and callers read from here)
    File, Group, Raw, _file, comment_lines, devices, env_pairs, fill, fills, groups,
    hosts_for, left_tokens, missing_texts, option_sources, pd_pair, release_texts, router_words,
    scalar, selection_of, server_words, yaml_lines)

FORMATS = ("config", "compose", "k8s")


# --- SGLang's config file ---------------------------------------------------------------------

def _catalog(db: Database, res: Resolution):
    try:
        return db.releases.catalog(res.sglang)
    except Exception:  # a release the history does not hold: the pinned catalog
        return db.catalog


def _config_value(values: tuple[str, ...], spec, fields: bool):
    typed = _field_value if fields else _typed
    if spec.nargs in ("+", "*"):
        return [typed(v, spec) for v in values]
    return typed(values[0], spec)


def _typed(text: str, spec=None):
    """A number YAML reads back to the same text stays a number; anything else a string (the
    LLM server's merger hands the text to argparse, which converts it)."""
    return Raw(text) if _number_kind(text) is not None else text


@lru_cache(maxsize=8192)
def _number_kind(text: str) -> type | None:
    """``int`` or ``float`` where YAML reads ``text`` back as that number with the same text,
    else None. Kept per text: it depends on nothing else, and the files of every selection ask
    about the same few values."""
    try:
        parsed = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if isinstance(parsed, (int, float)) and not isinstance(parsed, bool) and str(parsed) == text:
        return type(parsed)
    return None


# the flag types whose YAML value the diffusion server's ServerArgs takes as argparse would
# have converted it: the file's value is the field's, with no argparse in between
_FIELD_TYPES = ("int", "float", "str")


def _field_value(text: str, spec):
    """The value of a diffusion server's field as YAML must give it: a number for a number
    flag (when the text is one the file reads back the same), else the text."""
    if spec.type in ("int", "float"):
        value = _typed(text)
        if isinstance(value, Raw) and (spec.type == "float" or _number_kind(text) is int):
            return value
    return text


def _field_ready(spec, values: tuple[str, ...]) -> bool:
    """Whether a file can give the diffusion server this flag's value as its field: a type
    the file writes as argparse would convert it, each value of that type."""
    if spec.type not in _FIELD_TYPES and spec.takes_value:
        return False
    return spec.type == "str" or all(isinstance(_field_value(v, spec), Raw) for v in values)


def config_split(db: Database, res: Resolution) -> tuple[dict, list[Flag]]:
    """The flags a ``--config`` YAML carries (key → value) and those that stay on the command
    line, in the command's order. A flag goes into the file only where both the command's
    release and the pinned one read it as a plain option (a file outlives its release). The
    model stays on the command line: ``sglang serve`` picks its server by it before any server
    reads the file. Each key is spelt as the model's server reads its file
    (``check_config.STYLES``): the flag without ``--`` for the LLM server, the field it stores
    for the diffusion server."""
    release = _catalog(db, res)
    catalogs = {id(c): c for c in (release, db.catalog)}.values()
    fields = check_config.style(release) == check_config.FIELDS
    model_flags = set(db.catalog.roles.get("model", ()))
    per_node = {t for v in db.reader_values if v.deploy in ("rank", "self") for t in v.tokens}
    counts: dict[str, int] = {}
    for f in res.flags:
        counts[f.name] = counts.get(f.name, 0) + 1
    config: dict = {}
    stay: list[Flag] = []
    for f in res.flags:
        hits = [c.lookup(f.name) for c in catalogs]
        specs = [h.spec if h.kind == "exact" else None for h in hits]
        spec = specs[0]
        keep = (any(s is None or (s.action, s.nargs) != (spec.action, spec.nargs) for s in specs)
                or counts[f.name] > 1 or spec.action not in ("store", "store_true")
                or spec.name in model_flags
                or (fields and (not _field_ready(spec, f.values)
                                or len({s.stored_as for s in specs}) > 1))
                or any(t in v for v in f.values for t in per_node))
        key = (spec.stored_as if fields else f.name[2:]) if spec is not None else ""
        if not keep and spec.action == "store_true" and not f.values:
            config[key] = True
        elif not keep and spec.action == "store" and f.values and (
                spec.nargs in ("+", "*") or len(f.values) == 1):
            config[key] = _config_value(f.values, spec, fields)
        else:
            stay.append(f)
    return config, stay


def config_names(model: Model, res: Resolution) -> tuple[str, str]:
    stem = res.pd or "server"
    return f"{model.id}-{stem}.yaml", f"{model.id}-{stem}.env"


def config_files(db: Database, model: Model, res: Resolution, lang: str) -> list[File]:
    """``MODEL-ROLE.yaml`` (the flags, under the command's hints and how to run it) and, when
    the command sets variables, ``MODEL-ROLE.env`` (``NAME=value`` lines)."""
    config, stay = config_split(db, res)
    yaml_name, env_name_ = config_names(model, res)
    run = [f"{res.program} --config {yaml_name}"] + [f"  {f.text()}" for f in stay]
    run = [line + " \\" for line in run[:-1]] + [run[-1]]
    head = render.hint_lines(db, model, res, lang) + comment_lines(
        release_texts(db, model, res, lang))
    if res.env:
        intro = render.text(db, model, "deploy.config.env", lang, file=env_name_)
        run = [f"set -a; . ./{env_name_}; set +a"] + run
    else:
        intro = render.text(db, model, "deploy.config.run", lang)
    head += comment_lines([intro]) + [f"#   {line}" for line in run]
    files = [_file(db, yaml_name, head, yaml_lines(config))]
    if res.env:
        files.append(_file(db, env_name_, [], [f"{n}={v}" for n, v in env_pairs(res)]))
    return files


def compose_service(db: Database, res: Resolution, words: list[str], gpus: bool,
                    table: dict[str, str] | None = None) -> dict:
    """One Compose service: the image, the command's words, and the docker options of the
    selection as Compose keys (docker.COMPOSE); ``gpus``: the accelerators and the image's own
    options too (a router takes neither)."""
    vendor = db.containers.vendors[db.platforms[res.hw].vendor.value]
    svc: dict = {"image": res.docker_image, "command": [w.replace("$", "$$") for w in words]}
    env = []
    for source, o in option_sources(db, res):
        if not gpus and source in ("vendor", "image"):
            continue
        problem = docker.compose_problem(o)
        if problem:  # validate reports it at the data's line; a caller gets no half file
            raise ValueError(f"{source} docker option: {problem}")
        key, how = docker.COMPOSE[o.name]
        if how == "gpus":
            entry = {k: v for k, v in (vendor.gpus or {}).items() if k != "capabilities"}
            entry["count"] = int(o.value) if o.value.isdigit() else o.value
            if vendor.gpus and "capabilities" in vendor.gpus:
                entry["capabilities"] = vendor.gpus["capabilities"]
            svc.setdefault("deploy", {"resources": {"reservations": {"devices": []}}})
            svc["deploy"]["resources"]["reservations"]["devices"].append(entry)
        elif how == "switch":
            svc[key] = True
        elif how == "one":
            svc[key] = o.value
        elif how == "ulimit":
            name, limit = docker.ulimit(o.value)
            svc.setdefault(key, {})[name] = limit
        elif how == "env":
            env.append(o.value)
        else:
            svc.setdefault(key, []).append(o.value)
    if gpus:  # the command's environment is the server's, not the router's
        env += [fill(f"{n}={v}", table or {}).replace("$", "$$") for n, v in env_pairs(res)]
    if env:
        svc["environment"] = env
    return svc


def service_names(g: Group) -> list[str]:
    n = g.res.nodes
    return [g.role] if n == 1 else [f"{g.role}-{i}" for i in range(n)]


def compose_file(db: Database, model: Model, res: Resolution, lang: str,
                 release: str | None = None) -> File:
    """``compose.yaml``: a service per node of each server (its rank filled in, the leader's
    address the group's), and for a PD selection the prefill, decode and router services."""
    gs = groups(db, model, res, release)
    services: dict = {}
    hosts = {}
    for g in gs:
        for i, name in enumerate(service_names(g)):
            table = fills(db, g.role, i if g.res.nodes > 1 else None, hosts_for(db, g.role))
            words = [fill(w, table) for w in server_words(g.res)]
            services[name] = compose_service(db, g.res, words, True, table)
        hosts[g.role] = service_names(g)[0]
    if res.pd is not None:
        router = compose_service(db, res, router_words(res), gpus=False)
        for key in ("volumes", "shm_size", "ipc"):
            router.pop(key, None)
        router["depends_on"] = list(hosts.values())
        services["router"] = router
    texts = [render.text(db, model, "deploy.compose.head", lang, name=model.info.name)]
    texts += release_texts(db, model, res, lang)
    if res.pd is not None:
        texts.append(render.text(db, model, "deploy.compose.pd", lang))
        texts += missing_texts(db, model, gs, lang)
    elif res.nodes > 1:
        texts.append(render.text(db, model, "deploy.compose.nodes", lang,
                                 first=service_names(gs[0])[0]))
    name = re.sub(r"[^a-z0-9_-]", "-", model.id.lower())
    return _file(db, "compose.yaml", comment_lines(texts),
                 yaml_lines({"name": name, "services": services}))


# --- every format -----------------------------------------------------------------------------

def files(db: Database, model: Model, res: Resolution, fmt: str, lang: str,
          release: str | None = None) -> list[File]:
    db = db.serving(model)  # the model's own CLI decides what a config file can carry
    if fmt in ("compose", "k8s") and res.docker_image is None:
        return []  # no image is published for the selection: nothing a container could run
    if fmt == "config":
        return config_files(db, model, res, lang)
    if fmt == "compose":
        return [compose_file(db, model, res, lang, release)]
    if fmt == "k8s":
        return [kube.manifest_file(db, model, res, lang, release)]
    raise ValueError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")


def no_image(db: Database, res: Resolution, fmt: str) -> str:
    """Why ``files`` gave no ``fmt`` file: no image is published for the selection."""
    return (f"no image is published for {db.platforms[res.hw].label} "
            f"({'/'.join(res.match.values())}): this recipe runs from a Python install (the "
            f"model's 'install' route), so there is no container for --as {fmt}; "
            "'recipes command' prints the install route and the command")


def command_output(db: Database, model: Model, res: Resolution, lang: str) -> str:
    """What ``recipes command`` prints: the command, then the router of a PD server."""
    out = render.command_text(db, model, res, lang) + "\n"
    router = render.router_text(res)
    if router:
        out += f"\n# {db.t(lang, 'ui.router')}\n{router}\n"
    return out


def files_text(found: list[File], fmt: str = "text") -> str:
    """What ``recipes command --as`` prints: one file as it is; several, each under a
    ``# ==> NAME <==`` line (as ``head`` shows files); ``json``: name, text, placeholders."""
    if fmt == "json":
        return json.dumps({"files": [{"name": f.name, "text": f.text,
                                      "placeholders": f.placeholders} for f in found]},
                          ensure_ascii=False, indent=2) + "\n"
    if len(found) == 1:
        return found[0].text
    return "\n".join(f"# ==> {f.name} <==\n{f.text}" for f in found)
