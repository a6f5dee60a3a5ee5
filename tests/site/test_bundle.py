"""The Playground's bundle (macros/site/bundle.py) is the same files, names and bytes, for the
same sources wherever the checkout is and whatever folder the build is started from: esbuild
names its chunks by a hash of the paths it is given, so a site built in CI's checkout and one
built on a laptop would otherwise differ by every chunk's name, and a deploy would invalidate
every cached script for nothing. Since esbuild runs in the sources' folder, a binary named by a
relative path (``RECIPES_ESBUILD``) is read from the folder the build started in."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.browser import require_esbuild
from macros.site.bundle import MODULES, bundle_assets

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "overrides" / "assets" / "recipes"


def _bundled(checkout: Path, cwd: Path, monkeypatch) -> dict[str, bytes]:
    """The sources copied into ``checkout``, bundled from there into a site's copy of them
    with the build started in ``cwd``: the site's files, by path."""
    source = checkout / "overrides" / "assets" / "recipes"
    shutil.copytree(SOURCE, source)
    assets = checkout / "site" / "assets" / "recipes"
    shutil.copytree(SOURCE, assets)  # as the engine copies the theme's files
    cwd.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(cwd)
    assert bundle_assets(source, assets)
    return {p.relative_to(assets).as_posix(): p.read_bytes()
            for p in sorted(assets.rglob("*")) if p.is_file()}


def test_the_same_sources_bundle_into_the_same_files_from_any_checkout(tmp_path, monkeypatch):
    require_esbuild()
    monkeypatch.delenv("RECIPES_ESBUILD", raising=False)  # this checkout's npm install
    one = _bundled(tmp_path / "a", tmp_path / "a", monkeypatch)
    other = _bundled(tmp_path / "b" / "deeper" / "checkout", tmp_path / "elsewhere", monkeypatch)
    assert any(name.startswith(MODULES + "/") for name in one)  # chunks were made
    assert sorted(one) == sorted(other)
    assert one == other


def test_a_relative_esbuild_path_is_read_from_the_builds_folder(tmp_path, monkeypatch):
    """``RECIPES_ESBUILD`` written relative to the folder the build is started in still names
    that binary, though esbuild then runs in the sources' folder."""
    require_esbuild()
    from macros.site.bundle import esbuild

    monkeypatch.delenv("RECIPES_ESBUILD", raising=False)
    real = esbuild()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "esbuild").symlink_to(real)
    monkeypatch.setenv("RECIPES_ESBUILD", "tools/esbuild")
    monkeypatch.chdir(tmp_path)
    assert esbuild() == tmp_path / "tools" / "esbuild"
    assert _bundled(tmp_path / "checkout", tmp_path, monkeypatch)


def test_sources_named_relative_to_the_builds_folder_bundle_alike(tmp_path, monkeypatch):
    """The stage gives the theme's folder as the config names it (``custom_dir``, often
    relative): bundled from inside the checkout with relative paths, the same files again."""
    require_esbuild()
    monkeypatch.delenv("RECIPES_ESBUILD", raising=False)
    whole = _bundled(tmp_path / "a", tmp_path / "a", monkeypatch)
    checkout = tmp_path / "b"
    shutil.copytree(SOURCE, checkout / "overrides" / "assets" / "recipes")
    shutil.copytree(SOURCE, checkout / "site" / "assets" / "recipes")
    monkeypatch.chdir(checkout)
    assert bundle_assets(Path("overrides/assets/recipes"), Path("site/assets/recipes"))
    assets = checkout / "site" / "assets" / "recipes"
    assert {p.relative_to(assets).as_posix(): p.read_bytes()
            for p in sorted(assets.rglob("*")) if p.is_file()} == whole
