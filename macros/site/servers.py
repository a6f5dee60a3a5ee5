"""What every deployment file of a selection is made of (``deploy.py`` writes the config and
Compose files, ``kube.py`` the Kubernetes manifests).

Owns one YAML style, written by hand so the Playground writes the same bytes (a scalar plain
only where no YAML reader takes it for anything but a string, else a JSON string, which YAML
reads as a double-quoted one); the servers of a selection (one, or the prefill and decode pair
of a PD selection, the other role resolved from the same selection); what fills a placeholder
(placeholders.yaml ``deploy``: a group's leader, a node's rank or address, a PD server's host);
the docker options of hardware.yaml with where each comes from. Must not compose or check a
command (``resolve.py``, ``check.py``): every word of a server comes from its Resolution.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from macros.engine import docker
from macros.engine.flags import env_name, split_words
from macros.engine.model import Database, Model
from macros.engine.results import Resolution
from macros.engine.selection import Selection
from macros.site import render, runmodes

# a plain scalar: a word no YAML reader takes for anything but a string (no number, no
# indicator, no ``: ``); an option's ``--name`` included
_PLAIN = re.compile(r"^(?:[A-Za-z_/]|--?[A-Za-z])[A-Za-z0-9_./@+-]*$")
# words YAML 1.1 (PyYAML, Compose's older readers) reads as booleans or null
_KEYWORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


# --- one YAML style ---------------------------------------------------------------------------

class Raw(str):
    """A scalar written as it is (a number the YAML reader reads back to the same text)."""


def scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Raw)):
        return str(value)
    if _PLAIN.match(value) and value.lower() not in _KEYWORDS:
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted one


def yaml_lines(value, indent: str = "") -> list[str]:
    """Block mappings and sequences; an empty one in flow style; scalars by ``scalar``."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{indent}{key}:")
                lines += yaml_lines(item, indent + ("" if isinstance(item, list) else "  "))
            else:
                lines.append(f"{indent}{key}: {_flow(item)}")
    else:
        for item in value:
            if isinstance(item, dict) and item:
                inner = yaml_lines(item, indent + "  ")
                lines.append(f"{indent}- {inner[0][len(indent) + 2:]}")
                lines += inner[1:]
            else:
                lines.append(f"{indent}- {_flow(item)}")
    return lines


def _flow(item) -> str:
    if isinstance(item, dict):
        return "{}"
    if isinstance(item, list):
        return "[]"
    return scalar(item)


def comment_lines(texts: list[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        for line in text.splitlines():
            out.extend(f"# {part}".rstrip() for part in render.wrap(line))
    return out


@dataclass(frozen=True)
class File:
    name: str
    text: str
    placeholders: list[str] = field(default_factory=list)  # tokens left for the reader


def _file(db: Database, name: str, head: list[str], body: list[str]) -> File:
    text = "\n".join(head + body) + "\n"
    return File(name, text, left_tokens(db, text))


def left_tokens(db: Database, text: str) -> list[str]:
    """The placeholder tokens a text still holds, in placeholders.yaml's order."""
    return [t for v in db.reader_values for t in v.tokens if t in text]


# --- the servers of a selection ---------------------------------------------------------------

@dataclass(frozen=True)
class Group:
    role: str  # "server", "prefill" or "decode"
    res: Resolution


def selection_of(model: Model, res: Resolution) -> Selection:
    picks = {k: v for k, v in res.picks.items() if v is not None}
    return Selection.flat(model, {**res.match, **picks}, res.avg_len)


def chosen_release(res: Resolution) -> str | None:
    """The release the reader chose for the selection (``--sglang``, the Playground's release
    select), or None where it is the image's own: every server of its files is spelt for it."""
    return res.sglang if res.sglang != res.sglang_default else None


def release_texts(db: Database, model: Model, res: Resolution, lang: str) -> list[str]:
    """What the command says of a chosen release (the release it is written for and the image
    it runs in), for a file's header."""
    return [render.text(db, model, c.text, lang) for c in res.caveats
            if c.kind == "release" and c.flag is None]


def pd_pair(db: Database, model: Model, res: Resolution, release: str | None = None
            ) -> dict[str, Resolution]:
    """The prefill and decode servers of a PD selection: this one, and the first option of the
    keys the other server's ``when`` reads that makes the same selection the other server
    (none on hardware without a cell for the other role: that server is the reader's), spelt
    for the release chosen for this one (``release``, else the one ``res`` was spelt for)."""
    from macros.engine.resolve import resolve

    if res.pd is None:
        return {}
    release = release or chosen_release(res)
    other = "decode" if res.pd == "prefill" else "prefill"
    pair = {res.pd: res}
    sel = selection_of(model, res)
    flat = sel.as_flat()
    options = {d.id: [o.id for o in d.options] for d in model.info.dimensions}
    options.update({a.id: [o.id for o in a.options] for a in model.axes})
    for key in sorted(model.info.pd.servers()[other].when.keys()):
        for option in options.get(key, []):
            try_sel = Selection.flat(model, {**flat, key: option}, res.avg_len)
            found = resolve(db, try_sel, strict=False, release=release)
            if found.pd == other and found.hw == res.hw:
                pair[other] = found
                return {k: pair[k] for k in ("prefill", "decode")}
    return pair


def groups(db: Database, model: Model, res: Resolution, release: str | None = None
           ) -> list[Group]:
    if res.pd is None:
        return [Group("server", res)]
    return [Group(role, r) for role, r in pd_pair(db, model, res, release).items()]


def fills(db: Database, role: str, node: int | None, target: dict[str, str]) -> dict[str, str]:
    """Token → text for one node of a group: ``target`` maps a placeholder's ``deploy`` to what
    replaces it (a missing one stays); ``rank`` is the node's index when ``node`` is given."""
    out: dict[str, str] = {}
    for v in db.reader_values:
        put = target.get(v.deploy or "")
        if v.deploy == "rank" and node is not None:
            put = str(node)
        if v.deploy == "leader" and role in target:  # a PD group's leader is its server's host
            put = target[role]
        if put is not None:
            out.update({t: put for t in v.tokens})
    return out


def fill(text: str, table: dict[str, str]) -> str:
    for token, value in table.items():
        text = text.replace(token, value)
    return text


def server_words(res: Resolution) -> list[str]:
    return split_words(res.program) + [w for f in res.flags for w in f.words()]


def router_words(res: Resolution) -> list[str]:
    return split_words(res.router_program) + [w for group in res.router for f in group
                                              for w in f.words()]


def env_pairs(res: Resolution) -> list[tuple[str, str]]:
    return [(env_name(e), e.split("=", 1)[1]) for e in res.env]


def option_sources(db: Database, res: Resolution) -> list[tuple[str, docker.Option]]:
    """Every docker run option of the selection's data, in the order the page's ``docker run``
    line gives them, with where it comes from: ``vendor``, ``image`` (the model's docker_images
    ``args`` for the platform), ``shared``, ``cache`` (the model cache and token) or ``net``
    (port or host network)."""
    c = db.containers
    platform = db.platforms[res.hw]
    run = c.vendors[platform.vendor.value]
    texts = [("vendor", a) for a in run.args] + [("image", a) for a in res.docker_args]
    if run.per_device:
        texts += [("vendor", run.per_device.replace("{index}", str(i)))
                  for i in range(devices(db, res))]
    texts += [("shared", a) for a in c.shared] + [("cache", a) for a in c.cache]
    texts.append(("net", c.host_network if runmodes.host_network(db, res) else
                  c.publish.replace("{port}", runmodes.server_port(db, res))))
    out = []
    for source, text in texts:
        found = docker.read(split_words(text), c.run_flags)
        out += [(source, o) for o in found.options]
    return out


def resource(db: Database, res: Resolution) -> str:
    """The device plugin's resource a pod of the selection asks for: the platform's own, else
    its vendor's (hardware.yaml)."""
    platform = db.platforms[res.hw]
    return platform.resource or db.containers.vendors[platform.vendor.value].resource


def devices(db: Database, res: Resolution) -> int:
    platform = db.platforms[res.hw]
    return platform.gpus_per_node * (platform.devices_per_card or 1)


def missing_texts(db: Database, model: Model, gs: list[Group], lang: str) -> list[str]:
    """A PD file on hardware with no cell for the other role says whose server is missing."""
    have = {g.role for g in gs}
    if "server" in have:
        return []
    return [render.text(db, model, "deploy.pd.missing", lang, role=role,
                        token=hosts_for(db, role)[role])
            for role in ("prefill", "decode") if role not in have]


def hosts_for(db: Database, role: str) -> dict[str, str]:
    """In a PD Compose file a group's leader is the host its role's placeholder names."""
    if role not in ("prefill", "decode"):
        return {}
    token = next(v.tokens[0] for v in db.reader_values if v.deploy == role)
    return {role: token}
