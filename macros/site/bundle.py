"""The project's own scripts and styles as a built site ships them: bundled and minified by
esbuild, so a model page downloads a few compact files instead of two dozen commented ones;
and the theme's style sheets without the rules nothing on the site can match (PurgeCSS).

Owns the step after an engine has copied ``overrides/assets/recipes/`` into a language's site
(``stage.finish``): the Playground's entry ``playground.js`` and every module it imports are
bundled into the entry and the chunks under ``playground/`` (``--splitting``: what a Playground
needs to mount is one chunk, what loads on first use, such as the deployment files' writers,
another; a page without a Playground still loads the entry alone), and the classic script and
the style sheets are minified in place. The sources in ``overrides/`` stay as they are (Node
imports them for the parity tests); the site gets the bundle, the preview's included. esbuild
runs in the sources' folder and is given their names from there: it names chunks by a hash of
the paths it sees, so the same sources give the same files from any checkout.

Material's style sheets style every feature it has (blogs, annotations, cards, versions,
tags …); a site uses a few. ``purge_theme_css`` keeps a rule when every word of its selector
appears in the language site's pages, the theme's bundle (which draws search results,
tooltips and copy buttons at run time) or the Playground's scripts; the rest goes. So do the
custom properties (``--md-…``) and keyframes no kept rule reads, unless a page, a script, our
own style sheets name it or a later theme sheet reads it (PurgeCSS's ``variables`` judges each
sheet when it is done with it). The bundle names every component it can draw, whether the
site turns the feature on or not: the rules of a component it draws only for a feature the
site's config leaves off (``SCRIPT_DRAWN``), and that no page holds, go as well; so do the
rules for a text direction no page is written in (``DIRECTIONS``). The theme's files are not
edited: the build's copies are.

esbuild and PurgeCSS come from npm (``tests/js/package.json``, installed by ``make install``);
esbuild's binary ships inside its npm package, nothing is downloaded at build time. Without
them the site keeps the source files and the theme's whole style sheets, and the build says so
once (``bundle_note``): the pages work the same, only heavier. ``RECIPES_ESBUILD`` and
``RECIPES_PURGECSS`` name other binaries: a path (a relative one read from the folder the build
started in, since esbuild runs in the sources'), or a name looked up on PATH.
"""

from __future__ import annotations

import json
import os
import re
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


def _tool(name: str) -> Path | None:
    """An npm tool: ``RECIPES_<NAME>``, else this checkout's npm install, else PATH."""
    given = os.environ.get(f"RECIPES_{name.upper()}")
    if given:  # a path, a relative one read from the build's folder; or a name, on PATH
        found = given if os.sep in given else shutil.which(given)
        return Path(found).absolute() if found else Path(given)
    local = HOME / "tests" / "js" / "node_modules" / ".bin" / name
    if local.is_file():
        return local.absolute()
    found = shutil.which(name)  # a relative PATH entry gives a relative path
    return Path(found).absolute() if found else None


def esbuild() -> Path | None:
    return _tool("esbuild")


def purgecss() -> Path | None:
    return _tool("purgecss")


def bundle_note() -> str | None:
    """What a build without the npm tools should tell (None when both are there)."""
    missing = [name for name, find in (("esbuild", esbuild), ("purgecss", purgecss))
               if find() is None]
    if not missing:
        return None
    return (f"{' and '.join(missing)} not found (npm ci --prefix tests/js, or "
            f"RECIPES_{missing[0].upper()}=…): the site ships "
            + ("the Playground's source modules unbundled and unminified" if "esbuild" in missing
               else "") + (", and " if len(missing) == 2 else "")
            + ("the theme's whole style sheets" if "purgecss" in missing else ""))


def _run(exe: Path, args: list[str], cwd: Path | None = None) -> None:
    try:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=cwd)
    except OSError as exc:
        raise BundleFailed(f"{exe}: cannot run: {exc.strerror}") from None
    if proc.returncode:
        where = f" (in {cwd}, which the paths below are read from)" if cwd else ""
        raise BundleFailed(f"{exe.name} failed{where}:\n"
                           f"{proc.stderr.strip() or proc.stdout.strip()}")


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
        out = Path(tmp).absolute()  # esbuild runs in the sources' folder
        # run in the sources' folder and named from it: esbuild's chunk names hash the paths
        # as it sees them, so the same sources give the same files from any checkout
        _run(exe, [ENTRY, "--bundle", "--splitting", "--format=esm", "--minify",
                   "--charset=utf8", f"--target={TARGET}", f"--outdir={out / 'js'}",
                   "--entry-names=[name]", f"--chunk-names={MODULES}/[name]-[hash]",
                   "--log-level=error"], source)
        plain = [name for name in PLAIN if (source / name).is_file()]
        if plain:
            _run(exe, [*plain, "--minify", "--charset=utf8",
                       f"--target={TARGET}", f"--outdir={out / 'plain'}",
                       "--entry-names=[name]", "--log-level=error"], source)
        shutil.rmtree(assets / MODULES, ignore_errors=True)
        for made in sorted((out / "js").rglob("*")):
            if made.is_file():
                target = assets / made.relative_to(out / "js")
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(made, target)
        for name in plain:
            os.replace(out / "plain" / name, assets / name)
    return True


# The theme's style sheets, and where a rule's words may appear: the site's pages and every
# script that draws (the theme's, whose search results, tooltips and copy buttons are made at
# run time, and ours).
THEME_CSS = ("assets/stylesheets/main.*.css", "assets/stylesheets/palette.*.css")
CONTENT = ("**/*.html", "assets/javascripts/bundle.*.js", "assets/recipes/**/*.js")
OWN_CSS = "assets/recipes/*.css"
# The theme's components drawn only for a feature a site turns on (a theme feature, or another
# key of the config: "extra.version", "plugins.tags"), or only where a template drew one on a
# page (none listed: the pages show whether there is one): (class prefix, what turns it on).
# A prefix is letters and dashes (a blocked word's regular expression is made of it).
SCRIPT_DRAWN = (
    ("md-annotation", ("content.code.annotate",)),  # code annotations and their list
    # tooltips drawn by the bundle (without them a title is the browser's own)
    ("md-tooltip", ("content.tooltips", "content.footnote.tooltips", "content.code.annotate",
                    "navigation.instant.preview")),
    ("md-version", ("extra.version",)),  # the version selector (mike's versions.json)
    ("md-source", ()),  # the repository's name and facts: repo_url, in the header
    ("md-status", ()),  # a page's status icon: its front matter, in the navigation
    ("md-tag", ("plugins.tags",)),  # tags: on a page, and in search results
)
_PROPERTY = re.compile(r"--[A-Za-z0-9_-]+")
_READ = re.compile(r"var\(\s*(--[A-Za-z0-9_-]+)")


def _named_properties(content: list[Path], own: list[Path], sheets: list[Path]) -> list[str]:
    """The custom properties a purge must keep beyond what each sheet's kept rules read: every
    one the pages and scripts name (set or read at run time, in a style attribute), our own
    style sheets name, or a theme sheet reads of what an earlier one declares."""
    found: set[str] = set()
    for path in [*content, *own]:
        found.update(_PROPERTY.findall(path.read_text(encoding="utf-8", errors="replace")))
    # PurgeCSS reads the sheets in turn and drops a sheet's unread properties when done with
    # it: what a later sheet reads of an earlier one's is kept here (what an earlier sheet's
    # kept rules read of a later one's, it has seen by then)
    declared: set[str] = set()
    for sheet in sheets:
        text = sheet.read_text(encoding="utf-8")
        found.update(set(_READ.findall(text)) & declared)
        declared.update(re.findall(r"(--[A-Za-z0-9_-]+)\s*:", text))
    return sorted(found)


# A page's text direction is its template's (<body dir="ltr">): a direction word in a script
# (the theme's bundle reads the page's) never makes a [dir=…] rule match, only a page does.
DIRECTIONS = ("ltr", "rtl")
_DIRECTION = re.compile(r"""\bdir\s*=\s*["']?(ltr|rtl)\b""", re.I)
_WORDS = "/[A-Za-z0-9_-]+/g"  # PurgeCSS's own default extractor's words


def directions_unwritten(content: list[Path]) -> list[str]:
    """The DIRECTIONS no page of ``content`` is written in."""
    used: set[str] = set()
    for p in content:
        if p.suffix == ".html":
            used.update(d.lower() for d in
                        _DIRECTION.findall(p.read_text(encoding="utf-8", errors="replace")))
    return [d for d in DIRECTIONS if d not in used]


def _turned_on(config: dict, switch: str) -> bool:
    where, _, name = switch.partition(".")
    if where == "extra":
        return bool((config.get("extra") or {}).get(name))
    if where == "plugins":
        plugins = config.get("plugins") or []
        return any(name in (p if isinstance(p, dict) else {p: None}) for p in plugins)
    return switch in ((config.get("theme") or {}).get("features") or [])


def script_drawn_off(config: dict, content: list[Path]) -> list[str]:
    """The SCRIPT_DRAWN prefixes whose feature ``config`` leaves off and no page holds."""
    pages = [p.read_text(encoding="utf-8", errors="replace") for p in content
             if p.suffix == ".html"]
    return [prefix for prefix, switches in SCRIPT_DRAWN
            if not any(_turned_on(config, s) for s in switches)
            and not any(prefix in page for page in pages)]


def purge_theme_css(site: Path, skip: tuple[str, ...] = (), config: dict | None = None) -> bool:
    """Drop the rules of the theme's style sheets that nothing in ``site`` can match (PurgeCSS:
    a selector stays when every class, id, tag and attribute in it appears among the words of
    the pages and scripts), in place. ``skip``: folders of ``site`` that are other languages'
    sites. ``config``: the language's MkDocs config (which features are on: SCRIPT_DRAWN).
    False when PurgeCSS is missing or there is no theme style sheet."""
    exe = purgecss()
    sheets = [p for pattern in THEME_CSS for p in sorted(site.glob(pattern))]
    if exe is None or not sheets:
        return False
    content = [p for pattern in CONTENT for p in sorted(site.glob(pattern))
               if not (skip and p.relative_to(site).parts[0] in skip)]
    keep = _named_properties(content, sorted(site.glob(OWN_CSS)), sheets)
    off = script_drawn_off(config, content) if config is not None else []
    unwritten = directions_unwritten(content)
    with tempfile.TemporaryDirectory(prefix=".purge-", dir=site) as tmp:
        # the file lists go in a config file: a catalogue's pages would overflow a command line;
        # a blocked word is a JavaScript regular expression (what starts with the prefix)
        options = json.dumps({"content": [str(p) for p in content],
                              "css": [str(p) for p in sheets], "output": tmp,
                              "variables": True, "keyframes": True,
                              "safelist": {"variables": keep}})
        blocked = ", ".join(f"/^{prefix}/" for prefix in off)
        # a script's words without the directions no page is written in
        scripts = ("{extensions: ['js'], extractor: (text) => (text.match(" + _WORDS + ") || [])"
                   f".filter((w) => !{json.dumps(unwritten)}.includes(w))}}")
        settings = Path(tmp) / "purgecss.config.cjs"
        settings.write_text(f"module.exports = {options[:-1]}, \"blocklist\": [{blocked}], "
                            f"\"extractors\": [{scripts}]}};\n", encoding="utf-8")
        _run(exe, ["--config", str(settings)])
        for sheet in sheets:
            os.replace(Path(tmp) / sheet.name, sheet)
    return True
