"""A throwaway copy of the project that a test may break (pages, config) and build."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def project_copy(tmp_path: Path) -> Path:
    """mkdocs configs, docs/ and overrides/ copied; macros/ linked (the code under test)."""
    root = tmp_path / "project"
    root.mkdir()
    for name in ("mkdocs.yml", "mkdocs.ko.yml"):
        shutil.copy(ROOT / name, root / name)
    for name in ("docs", "overrides"):
        shutil.copytree(ROOT / name, root / name)
    (root / "macros").symlink_to(ROOT / "macros")
    return root


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
