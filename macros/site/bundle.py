"""The project's own scripts and styles as a built site ships them: bundled and minified by
esbuild, so a model page downloads a few compact files instead of two dozen commented ones.

Owns the step after an engine has copied ``overrides/assets/recipes/`` into a language's site
(``stage.finish``): the Playground's entry ``playground.js`` and every module it imports are
bundled into the entry and the chunks under ``playground/`` (``--splitting``: what a Playground
needs to mount is one chunk, what loads on first use, such as the deployment files' writers,
another; a page without a Playground still loads the entry alone), and the classic script and
the style sheets are minified in place. The sources in ``overrides/`` stay as they are (Node
imports them for the parity tests); the site gets the bundle, the preview's included.

esbuild comes from npm (``tests/js/package.json``, installed by ``make install``); its binary
ships inside the npm package, nothing is downloaded at build time. Without it the site keeps
the source files and the build says so once (``bundle_note``): the pages work the same, only
heavier. ``RECIPES_ESBUILD`` names another esbuild binary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ENTRY = "playground.js"
MODULES = "playground"
# minified where they are: the search-on-demand and language-switch scripts are classic
# scripts (not modules)
PLAIN = ("search-on-demand.js", "lang-switch.js", "playground.css", "recipes.css")
# Browsers with ES modules, import.meta and import(): what the Playground needs anyway.
TARGET = "es2020"


class BundleFailed(Exception):
    """esbuild refused the sources; the message is its own."""


# the checkout this code runs from: its npm install holds the tool, whichever project it builds
HOME = Path(__file__).resolve().parents[2]


def esbuild() -> Path | None:
    """The esbuild binary: ``RECIPES_ESBUILD``, else this checkout's npm install, else PATH."""
    given = os.environ.get("RECIPES_ESBUILD")
    if given:
        return Path(given)
    local = HOME / "tests" / "js" / "node_modules" / ".bin" / "esbuild"
    if local.is_file():
        return local
    found = shutil.which("esbuild")
    return Path(found) if found else None


def bundle_note() -> str | None:
    """What a build without esbuild should tell (None when esbuild is there)."""
    if esbuild() is not None:
        return None
    return ("esbuild not found (npm ci --prefix tests/js, or RECIPES_ESBUILD=…): the site ships "
            "the Playground's source modules unbundled and unminified")


def _run(exe: Path, args: list[str]) -> None:
    try:
        proc = subprocess.run([str(exe), *args, "--log-level=error"], capture_output=True,
                              text=True)
    except OSError as exc:
        raise BundleFailed(f"{exe}: cannot run: {exc.strerror}") from None
    if proc.returncode:
        raise BundleFailed(f"esbuild failed:\n{proc.stderr.strip() or proc.stdout.strip()}")


def bundle_assets(source: Path, assets: Path) -> bool:
    """Bundle and minify the project's files from ``source`` (the theme's
    ``overrides/assets/recipes``) into a site's copy of that folder, ``assets``, replacing the
    copies the engine made. Read from the sources, not the copies: a preview's rebuild finds
    the copies bundled already. False (nothing changed) when there is no esbuild or no
    Playground in the site."""
    exe = esbuild()
    if exe is None or not (source / ENTRY).is_file() or not (assets / ENTRY).is_file():
        return False
    with tempfile.TemporaryDirectory(prefix=".bundle-", dir=assets) as tmp:
        out = Path(tmp)
        _run(exe, [str(source / ENTRY), "--bundle", "--splitting", "--format=esm", "--minify",
                   "--charset=utf8", f"--target={TARGET}", f"--outdir={out / 'js'}",
                   "--entry-names=[name]", f"--chunk-names={MODULES}/[name]-[hash]"])
        plain = [name for name in PLAIN if (source / name).is_file()]
        if plain:
            _run(exe, [*(str(source / name) for name in plain), "--minify", "--charset=utf8",
                       f"--target={TARGET}", f"--outdir={out / 'plain'}",
                       "--entry-names=[name]"])
        shutil.rmtree(assets / MODULES, ignore_errors=True)
        for made in sorted((out / "js").rglob("*")):
            if made.is_file():
                target = assets / made.relative_to(out / "js")
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(made, target)
        for name in plain:
            os.replace(out / "plain" / name, assets / name)
    return True
