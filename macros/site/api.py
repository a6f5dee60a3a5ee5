"""The static JSON API under the built site's ``api/``: one file per cell of every model, for
agents and scripts that read the recipes without running anything.

Owns the files' shape: ``api/index.json`` lists every model and its cells (the match and the
file), and ``api/<model>/<cell>.json`` holds the cell's default selection as the page shows it
(status, release, image, env, flags, the command and router text, ``docker run``) with its
deployment files (``deploy.py``: the config file and its env file, Compose, Kubernetes) and the
placeholders each leaves to fill. Written by the stage (``stage.py``) into the root language's
site, in English. Must not compose commands (``resolve.py``) or print them (``render.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from macros.engine.model import Database
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site import deploy, render, runmodes

API_VERSION = 1
LANG = "en"


def cell_name(values: list[str], taken: set[str]) -> str:
    """A file name from a cell's options in dimension order; a second cell that would get
    the same name (ids may hold dashes) gets a number after it."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", "-".join(values))
    name, n = base, 2
    while name in taken:
        name, n = f"{base}~{n}", n + 1
    taken.add(name)
    return name


def cell_json(db: Database, model, res) -> dict:
    lang = LANG
    return {
        "version": API_VERSION, "model": model.id, "match": res.match, "pd": res.pd,
        "status": res.status, "cell_status": res.cell_status, "nodes": res.nodes,
        "sglang": res.sglang, "model_name": res.model_name, "docker_image": res.docker_image,
        "install": list(res.install), "env": list(res.env), "flags": res.flag_texts,
        "command": render.command_text(db, model, res, lang),
        "router": render.router_text(res),
        "docker": runmodes.docker_text(db, model, res, lang),
        "caveats": [render.text(db, model, c.text, lang) for c in res.caveats],
        "files": {fmt: [{"name": f.name, "text": f.text, "placeholders": f.placeholders}
                        for f in deploy.files(db, model, res, fmt, lang)]
                  for fmt in deploy.FORMATS},
    }


def write_api(db: Database, site: Path) -> list[str]:
    """Write ``api/`` into ``site``; the lines ``llms.txt`` lists it with."""
    root = site / "api"
    index: dict = {"version": API_VERSION, "lang": LANG, "models": []}
    for model_id in sorted(db.models):
        model = db.model(model_id)
        taken: set[str] = set()
        cells = []
        for cell in model.cells:
            match = dict(cell.match)
            res = resolve(db, Selection(model_id, match, {}), strict=False)
            name = cell_name([match[d] for d in model.dimensions], taken)
            path = root / model_id / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(cell_json(db, model, res), ensure_ascii=False, indent=1),
                            encoding="utf-8")
            cells.append({"match": match, "file": f"{model_id}/{name}.json"})
        index["models"].append({"id": model_id, "name": model.info.name,
                                "dimensions": list(model.dimensions), "cells": cells})
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.json").write_text(json.dumps(index, ensure_ascii=False, indent=1),
                                     encoding="utf-8")
    lines = ["", "## API", "",
             "- [Every cell of every model, with its command and deployment files "
             "(config file, Compose, Kubernetes)](api/index.json)"]
    lines += [f"- [{m['name']}: {len(m['cells'])} cells](api/{m['cells'][0]['file']})"
              for m in index["models"] if m["cells"]]
    return lines
