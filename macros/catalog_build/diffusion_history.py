"""The diffusion CLI's catalog files: its history over every release and the pinned slices.

Owns ``recipes/catalog/sglang-diffusion-history.json`` (package ``sglang-diffusion``: for each
sglang release from 0.5.12 to 0.5.23, the flags of ``sglang serve`` for a diffusion model
(section ``flags``, as the LLM history names its server's) and of ``sglang generate``
(``generate``), the option families
``ServerArgs.from_cli_args`` reads from the words argparse leaves over (``families``), the
model names the diffusion registry knows without a download (``registry``), and per release
how ``sglang serve`` chooses its CLI (``dispatch``)), and the two pinned catalogs the engine
and the checker read: ``sglang-diffusion.json`` (``sglang serve``) and
``sglang-generate.json`` (``sglang generate``), each with the families and the dispatch facts.
The history is folded by the LLM history's own code (``history.py``), so both histories read
back through ``macros/engine/history.py``. Must not read the LLM CLI (``sglang.py``) nor write
any other file.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable
from pathlib import Path

from macros.catalog_build.diffusion import extract_diffusion
from macros.catalog_build.history import build_history, release_snapshot, render_history
from macros.catalog_build.records import HISTORY_ONLY_KEYS
from macros.catalog_build.registrations import parser_allow_abbrev
from macros.catalog_build.wheels import CatalogError, SourceTree, download_wheel, sha256_of

PACKAGE = "sglang-diffusion"
WHEEL_PACKAGE = "sglang"  # the diffusion CLI ships in the sglang wheel
HISTORY_FILE = "sglang-diffusion-history.json"
PROGRAMS = ["sglang serve", "sglang generate"]
# program -> (pinned catalog file, its section of the history, the file that parses its words,
# the release fact that holds its allow_abbrev). As in the LLM history, the server's flags are
# the section ``flags`` (what ``macros/engine/releases.py`` reads release by release).
CATALOGS = {
    "sglang serve": ("sglang-diffusion.json", "flags", "sglang/cli/serve.py", "allow_abbrev"),
    "sglang generate": ("sglang-generate.json", "generate", "sglang/cli/generate.py",
                        "generate_allow_abbrev"),
}


def _allow_abbrev(src: SourceTree, path: str) -> bool:
    """``allow_abbrev`` of the parser that reads the diffusion CLI's words in ``path``: the last
    ``ArgumentParser(...)`` built before the ``parse_known_args`` call of the same function."""
    for func in ast.walk(src.tree(path)):
        if not isinstance(func, ast.FunctionDef):
            continue
        parses = [n.lineno for n in ast.walk(func) if isinstance(n, ast.Attribute)
                  and n.attr == "parse_known_args"]
        if not parses:
            continue
        builds = [n for n in ast.walk(func) if isinstance(n, ast.Call)
                  and ast.unparse(n.func).endswith("ArgumentParser") and n.lineno < parses[0]]
        if not builds:
            raise CatalogError(f"{path}: {func.name} parses without an ArgumentParser")
        last = max(builds, key=lambda n: n.lineno)
        holder = ast.Module(body=[ast.Expr(value=last)], type_ignores=[])
        return parser_allow_abbrev(holder)  # type: ignore[arg-type]
    raise CatalogError(f"{path}: no parse_known_args call (the diffusion CLI's parser)")


def snapshot(src: SourceTree) -> tuple[dict, dict]:
    """(per-release facts, sections) of one wheel's diffusion CLI."""
    result = extract_diffusion(src)
    dispatch = result["dispatch"]
    registry = [{"name": f"path:{p}", "kind": "path"} for p in dispatch.pop("registry_paths")]
    registry += [{"name": f"pattern:{p}", "kind": "pattern", "pipeline": pipeline}
                 for p, pipeline in dispatch.pop("registry_patterns").items()]
    meta = {
        **{CATALOGS[program][3]: _allow_abbrev(src, CATALOGS[program][2])
           for program in PROGRAMS},
        "dispatch": dispatch,
        "hooks": result["hooks"],
        "pipeline_flag_classes": result["pipeline_flags"],
    }
    # from_cli_args tries the families in this order (a weights path before a path)
    families = [{"name": f.pop("method"), "order": i, **f}
                for i, f in enumerate(result["families"])]
    sections = {"flags": result["serve"], "generate": result["generate"], "env": result["env"],
                "families": families, "registry": registry}
    return meta, sections


def extract_diffusion_history(versions: list[str], wheel_dir: Path,
                              log: Callable[[str], None]) -> dict:
    """Every release's diffusion CLI folded into one history document."""
    releases = []
    for version in versions:
        wheel = download_wheel(WHEEL_PACKAGE, version, wheel_dir, log)
        src = SourceTree(zip_path=wheel)
        started = time.perf_counter()
        try:
            meta, sections = snapshot(src)
        except RecursionError:
            raise CatalogError(f"{PACKAGE} {version}: circular definition while resolving "
                               "constants") from None
        except CatalogError as exc:
            raise CatalogError(f"{PACKAGE} {version}: {exc}") from None
        log(f"{PACKAGE} {version}: parsed {src.parsed} files in "
            f"{time.perf_counter() - started:.2f}s")
        meta.update(wheel=wheel.name, wheel_sha256=sha256_of(wheel))
        releases.append((version, meta, sections))
    return build_history({PACKAGE: {"programs": PROGRAMS, "releases": releases}})


def catalog_document(history: dict, program: str, version: str) -> dict:
    """The pinned catalog of one program (the engine's ``Catalog.load`` reads it)."""
    filename, section, _, abbrev = CATALOGS[program]
    snap = release_snapshot(history, PACKAGE, version)
    meta = snap["meta"]
    return {
        "allow_abbrev": meta[abbrev],
        "dispatch": meta["dispatch"],
        "env": snap["env"],
        "families": snap["families"],
        "flags": [{k: v for k, v in f.items() if k not in HISTORY_ONLY_KEYS}
                  for f in snap[section]],
        "package": PACKAGE,
        "parse": "known-then-families",  # argparse's known words, then from_cli_args
        "programs": [program],
        "registry": snap["registry"],
        "version": version,
        "wheel": meta["wheel"],
        "wheel_sha256": meta["wheel_sha256"],
    }


def diffusion_outputs(history: dict, catalog_dir: Path, pinned: str,
                      render: Callable[[dict], str]) -> list[tuple[Path, str, dict]]:
    """(file, text, document) for the two pinned diffusion catalogs and their history."""
    out = []
    for program, (filename, _, _, _) in CATALOGS.items():
        doc = catalog_document(history, program, pinned)
        out.append((catalog_dir / filename, render(doc), doc))
    out.append((catalog_dir / HISTORY_FILE, render_history(history), history))
    return out
