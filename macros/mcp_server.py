"""``recipes mcp``: the recipes as a Model Context Protocol server over stdio, for agents.

Built on the official SDK (the ``mcp`` package, ``MCPServer``). Owns the tools and their
arguments: ``list_models``, ``options`` (a model's dimensions and settings with their valid
values, the releases the project knows and the formats), ``command`` (a selection as the
command ``recipes command`` prints, its JSON, or a deployment file of ``site/deploy.py``, for
the selection's own release or another the flag history knows) and ``check`` (a command or a
file's text, answered as ``recipes check --format json`` answers, by running it); and each
page's Markdown, macros rendered, as a resource (``recipes://LANG/PATH``, staged by
``site/stage.py`` the first time one is read). Bad input is a tool error naming what was
wrong and what would be valid, never a traceback. Nothing here composes or checks a command.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from macros.engine.errors import RecipeError

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("command", "json", "config", "compose", "k8s")
LANGS = ("en", "ko")


try:
    from mcp.server.mcpserver.exceptions import ToolError as _Answered
except ImportError:  # the SDK is a dependency; without it only `recipes mcp` is missing
    _Answered = ValueError


class ToolError(_Answered):
    """What the agent asked for cannot be answered; the message says why and what is valid
    (the SDK hands its text to the agent as the tool's error)."""


def _db():
    from macros.engine.database import cached_database

    return cached_database()


def _model(db, model: str):
    if model not in db.models:
        raise ToolError(f"unknown model '{model}' (models: {', '.join(sorted(db.models))})")
    return db.model(model)


def _lang(lang: str) -> str:
    if lang not in LANGS:
        raise ToolError(f"unknown language '{lang}' (languages: {', '.join(LANGS)})")
    return lang


def list_models() -> dict:
    """Every model with its name, summary and the dimensions that key its cells."""
    db = _db()
    return {"models": [{"id": m.id, "name": m.info.name,
                        "summary": db.t("en", m.info.summary, m), "dimensions": list(m.dimensions)}
                       for m in (db.model(i) for i in sorted(db.models))]}


def options(model: str, lang: str = "en") -> dict:
    """A model's dimensions (the hardware first) and Playground settings, each with its valid
    values and default; the sglang releases a command can be written for; the formats."""
    db = _db()
    m = _model(db, model)
    lang = _lang(lang)
    dims = [{"id": "hw", "label": "hardware", "values": list(m.info.hardware)}]
    dims += [{"id": d.id, "label": db.t(lang, d.label, m),
              "values": [o.id for o in d.options]} for d in m.info.dimensions]
    settings = [{"id": a.id, "label": db.t(lang, a.label, m) if a.label else a.id,
                 "default": a.default, "values": [o.id for o in a.options]} for a in m.axes]
    return {"model": m.id, "dimensions": dims, "settings": settings,
            "releases": list(db.releases.order), "pinned_release": db.catalog.version,
            "formats": list(FORMATS),
            "cells": [dict(c.match) for c in m.cells]}


def command(model: str, selection: dict[str, str] | None = None, format: str = "command",
            release: str | None = None, lang: str = "en") -> str:
    """The selection (``{"hw": "b300", …}``, any dimension or setting id) in ``format``:
    ``command`` (as ``recipes command`` prints it), ``json`` (``--format json``), ``config``,
    ``compose`` or ``k8s`` (as ``recipes command --as`` prints them); ``release`` spells it
    for that sglang release (``latest`` too), as ``recipes command --sglang`` does."""
    from macros.engine.resolve import resolve
    from macros.engine.selection import Selection
    from macros.site import deploy

    db = _db()
    m = _model(db, model)
    lang = _lang(lang)
    if format not in FORMATS:
        raise ToolError(f"unknown format '{format}' (formats: {', '.join(FORMATS)})")
    picks = {str(k): str(v) for k, v in (selection or {}).items()}
    try:
        release = db.releases.chosen(release, "release")
        res = resolve(db, Selection.flat(m, picks), release=release)
    except RecipeError as exc:
        raise ToolError("; ".join(str(p) for p in exc.problems)) from None
    if format == "command":
        return deploy.command_output(db, m, res, lang)
    if format == "json":
        from macros.cli import command_json

        out = command_json(db, m, Selection.flat(m, picks), res, lang, release)
        return json.dumps(out, ensure_ascii=False, indent=2)
    found = deploy.files(db, m, res, format, lang, release)
    return deploy.files_text(found) if found else f"error: {deploy.no_image(db, res, format)}"


def check(command: str | None = None, text: str | None = None, model: str | None = None,
          selection: dict[str, str] | None = None, sglang: str | None = None) -> dict:
    """``recipes check --format json`` of one command or of a file's text (every command in
    it), with the model, selection and sglang release it would take; ``exit`` is its code."""
    if (command is None) == (text is None):
        raise ToolError("give either command (one command) or text (a file's contents)")
    argv = [sys.executable, "-m", "macros.cli", "check", "--format", "json"]
    if model is not None:
        argv += ["--model", model]
    if sglang is not None:
        argv += ["--sglang", sglang]
    for key, value in (selection or {}).items():
        argv += ["--set", f"{key}={value}"]
    argv += ["--file", "-"] if text is not None else ["--", command]
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, input=(text or "").encode("utf-8"), capture_output=True,
                          cwd=ROOT, env=env, timeout=300)
    out = done.stdout.decode("utf-8", "replace")
    if done.returncode not in (0, 1) or not out.strip():
        raise ToolError(done.stderr.decode("utf-8", "replace").strip() or "check failed")
    return {**json.loads(out), "exit": done.returncode}


# --- the pages as resources -------------------------------------------------------------------

class Pages:
    """Each language's pages, macros rendered, staged once on first read."""

    def __init__(self, root: Path):
        self.root = root
        self.lock = threading.Lock()
        self.texts: dict[str, dict[str, str]] = {}
        self.work = tempfile.TemporaryDirectory(prefix="recipes-mcp-")

    def uris(self) -> list[str]:
        docs = self.root / "docs" / "en"
        if not docs.is_dir():
            return []
        return sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
                      if not any(part.startswith(".") for part in p.parts))

    def text(self, lang: str, uri: str) -> str:
        with self.lock:
            if lang not in self.texts:
                self.texts[lang] = self._stage(lang)
        if uri not in self.texts[lang]:
            raise ToolError(f"no page {lang}/{uri}")
        return self.texts[lang][uri]

    def _stage(self, lang: str) -> dict[str, str]:
        from macros.site.stage import Stage

        stage = Stage(self.root, Path(self.work.name), langs=(lang,))
        language = stage.language(lang)
        stage.stage(language)
        staged = stage.dir / language.config["docs_dir"]
        return {uri: (staged / uri).read_text(encoding="utf-8")[front:]
                for uri, (_, front) in language.pages.items()}


def build_server(root: Path = ROOT):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.resources import FunctionResource

    server = MCPServer("recipes", instructions=(
        "SGLang serving recipes: list_models, then options for a model's valid selections, "
        "then command (a command, its JSON, a config file, a Compose file or Kubernetes "
        "manifests) and check (a command or a file). Pages are resources, as Markdown."))
    for fn in (list_models, options, command, check):
        server.add_tool(_guarded(fn), name=fn.__name__, description=fn.__doc__)
    pages = Pages(root)
    for lang in LANGS:
        for uri in pages.uris():
            server.add_resource(FunctionResource.from_function(
                _reader(pages, lang, uri), uri=f"recipes://{lang}/{uri}",
                name=f"{lang}/{uri}", mime_type="text/markdown",
                description=f"The page {uri} ({lang}) as Markdown, every command rendered"))
    return server


def _guarded(fn):
    """The tool with RecipeError and ToolError as the tool's error text."""
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RecipeError as exc:
            raise ToolError("; ".join(str(p) for p in exc.problems)) from None
    return run


def _reader(pages: Pages, lang: str, uri: str):
    def read() -> str:
        return pages.text(lang, uri)
    read.__name__ = f"page_{lang}_{uri}".replace("/", "_").replace(".", "_").replace("-", "_")
    return read


def main(args=None) -> int:
    _db()  # a broken database is reported before the server starts, as every command does
    build_server().run("stdio")
    return 0
