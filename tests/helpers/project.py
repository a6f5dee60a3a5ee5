"""A throwaway copy of the project that a test may break (pages, config) and build."""

from __future__ import annotations

import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# A model's nav entry in a config: its heading line, then its pages' lines.
NAV_MODEL = re.compile(r"^(?P<indent>\s*)- [^\n]*:\n"
                       r"(?P=indent)\s+- models/(?P<id>[^/\s]+?)(?:\.md|/\S+\.md)\n"
                       r"(?:(?P=indent)\s+- models/(?P=id)(?:\.md|/\S+\.md)\n)*", re.M)


def project_copy(tmp_path: Path, models: list[str] | None = None) -> Path:
    """mkdocs configs, docs/ and overrides/ copied; macros/ linked (the code under test). With
    ``models``, a project of those models only: the others' pages and nav lines are left out
    and ``recipes/`` holds only theirs (a build reads it under ``recipes_root``). For tests of
    the build's mechanics, whose subject is no model, so their time does not grow with the
    number of models."""
    root = tmp_path / "project"
    root.mkdir()
    for name in ("mkdocs.yml", "mkdocs.ko.yml"):
        shutil.copy(ROOT / name, root / name)
    for name in ("docs", "overrides"):
        shutil.copytree(ROOT / name, root / name)
    (root / "macros").symlink_to(ROOT / "macros")
    if models is not None:
        _copy_recipes(root, models)
        drop_models(root, models)
    return root


def standalone_copy(tmp_path: Path, models: list[str] | None = None) -> Path:
    """The whole project with its own copy of macros/ and recipes/, so a child process run in
    it (``recipes build``, ``recipes serve``) builds and watches the copy's; with ``models``,
    only those models' recipes, pages and nav lines."""
    root = tmp_path / "project"
    root.mkdir()
    for name in ("mkdocs.yml", "mkdocs.ko.yml"):
        shutil.copy(ROOT / name, root / name)
    for name in ("docs", "overrides", "macros"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    _copy_recipes(root, models)
    if models is not None:
        drop_models(root, models)
    modules = ROOT / "tests" / "js" / "node_modules"  # the npm tools the build bundles with
    if modules.is_dir():
        (root / "tests" / "js").mkdir(parents=True)
        (root / "tests" / "js" / "node_modules").symlink_to(modules.resolve())
    return root


def _copy_recipes(root: Path, models: list[str] | None) -> None:
    """recipes/ into the copy at ``root``: every model's folder, or only those of ``models``."""
    source = ROOT / "recipes"
    others = set() if models is None else {p.name for p in source.iterdir()
                                           if (p / "model.yaml").is_file()
                                           and p.name not in models}
    shutil.copytree(source, root / "recipes",  # the other models' folders, and only those
                    ignore=lambda folder, names: (others & set(names)
                                                  if Path(folder) == source else set())
                    | set(shutil.ignore_patterns("__pycache__")(folder, names)))


def drop_models(root: Path, keep: list[str]) -> None:
    """Leave out of the project at ``root`` every model's pages (both languages and the
    Korean pages' stamps) and nav lines but ``keep``'s."""
    every = {p.name for p in (ROOT / "recipes").iterdir() if (p / "model.yaml").is_file()}
    for gone in sorted(every - set(keep)):
        for docs in ("docs/en", "docs/ko", "docs/translated-from/ko"):
            folder = root / docs / "models"
            (folder / f"{gone}.md").unlink(missing_ok=True)
            shutil.rmtree(folder / gone, ignore_errors=True)
        for config in ("mkdocs.yml", "mkdocs.ko.yml"):
            path = root / config
            text = path.read_text(encoding="utf-8")
            text = NAV_MODEL.sub(lambda m: "" if m["id"] == gone else m[0], text)
            path.write_text(text, encoding="utf-8")


@contextmanager
def recipes_root(path: Path):
    """Point builds in this process at another recipes folder for the duration."""
    from macros.engine.database import _cached

    old = os.environ.get("RECIPES_ROOT")
    os.environ["RECIPES_ROOT"] = str(path)
    _cached.cache_clear()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("RECIPES_ROOT", None)
        else:
            os.environ["RECIPES_ROOT"] = old
        _cached.cache_clear()


@contextmanager
def small_project(tmp_path: Path, also: tuple[str, ...] = ()):
    """A project copy holding only the models its home page shows (``HOME_MODELS``) and those
    a test's page names (``also``), builds in this process reading its own recipes while the
    block runs: for a test whose subject is a page or the build's mechanics, never a model, so
    its time does not grow with the models."""
    from helpers.models import HOME_MODELS

    root = project_copy(tmp_path, sorted({*HOME_MODELS, *also}))
    with recipes_root(root / "recipes"):
        yield root
