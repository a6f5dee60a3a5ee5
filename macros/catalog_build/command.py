"""``recipes catalog`` / ``python -m macros.catalog_build``: regenerate, check or compare.

Owns which releases are extracted (:data:`RELEASES`), which of them the pinned catalog files
describe (:data:`PINNED`), and the three committed outputs under ``recipes/catalog/``:
``sglang.json`` and ``sglang-router.json`` (the pinned releases, read by the engine and the
checker) and ``sglang-history.json`` (every release). The pinned files are written from the
history, so they can never disagree with it. Must not write anywhere else; ``--diff`` reads
only the committed history and needs no network.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from pathlib import Path

from macros.engine.history import UnknownRelease
from macros.catalog_build.diffusion_history import diffusion_outputs, extract_diffusion_history
from macros.catalog_build.history import (build_history, catalog_document, diff_releases, render_history)
from macros.catalog_build.bench_tools import bench_tool_facts
from macros.catalog_build.router import extract_router
from macros.catalog_build.sglang import extract_sglang
from macros.catalog_build.wheels import (DEFAULT_WHEEL_DIR, REPO_ROOT, CatalogError,
                                          DownloadError, SourceTree, download_wheel,
                                          parsing, sha256_of)

DEFAULT_CATALOG_DIR = REPO_ROOT / "recipes" / "catalog"
HISTORY_FILE = "sglang-history.json"

# Every sglang release on PyPI from 0.5.12 to 0.5.23 (post releases included), and the
# router releases the pages use (0.3.2 is the newest; it predates all of these sglang
# releases, so pip resolves it for every one of them).
RELEASES = {
    "sglang": [
        "0.5.12",
        "0.5.12.post1",
        "0.5.13",
        "0.5.13.post1",
        "0.5.14",
        "0.5.15",
        "0.5.15.post1",
        "0.5.16",
        "0.5.17",
        "0.5.18",
        "0.5.19",
        "0.5.20",
        "0.5.21",
        "0.5.22",
        "0.5.23",
    ],
    "sglang-router": ["0.3.2"],
}
PINNED = {"sglang": "0.5.23", "sglang-router": "0.3.2"}
CATALOG_FILES = {"sglang": "sglang.json", "sglang-router": "sglang-router.json"}
PROGRAMS = {
    "sglang": ["sglang serve", "python3 -m sglang.launch_server"],
    "sglang-router": ["python3 -m sglang_router.launch_router"],
}


def log(message: str) -> None:
    print(f"catalog: {message}", file=sys.stderr, flush=True)


def snapshot(package: str, version: str, wheel: Path) -> tuple[dict, dict]:
    """(per-release facts, sections) of one wheel."""
    src = SourceTree(zip_path=wheel)
    started = time.perf_counter()
    if package == "sglang":
        result = extract_sglang(src, notes=version == PINNED[package])
        meta = {
            "allow_abbrev": result["allow_abbrev"],
            "bench_allow_abbrev": result["bench"]["allow_abbrev"],
            "bench_programs": result["bench"]["programs"],
            "layout": result["layout"],
        }
        sections = {
            "bench": result["bench"]["flags"],
            "env": result["env"],
            "env_deprecated": result["env_deprecated"],
            "flags": result["flags"],
        }
        bench_tool_facts(src, meta, sections)
    else:
        result = extract_router(src, version)
        meta = {"allow_abbrev": result["allow_abbrev"]}
        sections = {"flags": result["flags"], "launch_server": result["launch_server"]}
    log(f"{package} {version}: parsed {src.parsed} files in {time.perf_counter() - started:.2f}s")
    meta.update(wheel=wheel.name, wheel_sha256=sha256_of(wheel))
    return meta, sections


def extract_history(wheel_dir: Path) -> dict:
    """Download (or reuse) every release's wheel and fold the extractions into the history."""
    wheels = {
        (package, version): download_wheel(package, version, wheel_dir, log)
        for package, versions in RELEASES.items()
        for version in versions
    }
    packages = {}
    for package, versions in RELEASES.items():
        releases = []
        for version in versions:
            try:
                meta, sections = snapshot(package, version, wheels[package, version])
            except RecursionError:
                raise CatalogError(
                    f"{package} {version}: circular definition while resolving constants"
                ) from None
            except CatalogError as exc:
                raise CatalogError(f"{package} {version}: {exc}") from None
            releases.append((version, meta, sections))
        packages[package] = {"programs": PROGRAMS[package], "releases": releases}
    return build_history(packages)


def render(doc: dict) -> str:
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def option_strings(doc: dict) -> int:
    return sum(1 + len(f["aliases"]) for f in doc["flags"])


def summarize_diff(old: dict | None, new: dict, label: str) -> list[str]:
    """Which flags / env vars were added, removed or changed, unified-diff style."""
    lines = [f"--- {label} (committed)", f"+++ {label} (regenerated from {new['wheel']})"]
    if old is None:
        return lines + ["+ (whole file: committed copy missing or unreadable)"]
    for key in ("package", "version", "wheel", "wheel_sha256", "programs", "allow_abbrev"):
        if old.get(key) != new.get(key):
            lines.append(f"~ {key}: {json.dumps(old.get(key))} -> {json.dumps(new.get(key))}")
    for section in ("flags", "env"):
        kind = "flag" if section == "flags" else "env"
        before = {e["name"]: e for e in old.get(section, [])}
        after = {e["name"]: e for e in new.get(section, [])}
        for name in sorted(set(before) | set(after)):
            if name not in before:
                lines.append(f"+ {kind} {name}")
            elif name not in after:
                lines.append(f"- {kind} {name}")
            elif before[name] != after[name]:
                for field in sorted(set(before[name]) | set(after[name])):
                    a, b = before[name].get(field), after[name].get(field)
                    if a != b:
                        lines.append(
                            f"~ {name}.{field}: {json.dumps(a)[:120]} -> {json.dumps(b)[:120]}"
                        )
    if len(lines) == 2:
        lines.append("~ formatting only (same content, different bytes); regenerate to fix")
    return lines


def history_drift(old: dict | None, new: dict, label: str) -> list[str]:
    """Which releases and items of the history differ from a fresh extraction."""
    lines = [f"--- {label} (committed)", f"+++ {label} (regenerated from the wheels)"]
    if old is None or old.get("format") != new["format"]:
        return lines + ["+ (whole file: committed copy missing, unreadable or of another format)"]
    for package, pkg in new["packages"].items():
        before = old["packages"].get(package, {})
        if before.get("releases") != pkg["releases"]:
            lines.append(f"~ {package} releases (list, wheels or per-release facts)")
        for section in sorted(set(pkg) - {"programs", "releases"}):
            a, b = before.get(section, {}), pkg[section]
            for name in sorted(set(a) | set(b)):
                if a.get(name) != b.get(name):
                    sign = "+" if name not in a else "-" if name not in b else "~"
                    lines.append(f"{sign} {package} {section} {name}")
    if len(lines) == 2:
        lines.append("~ formatting only (same content, different bytes); regenerate to fix")
    return lines


def outputs(history: dict, catalog_dir: Path) -> list[tuple[Path, str, dict]]:
    """(file, text, document) for the two pinned catalogs and the history."""
    out = []
    for package, filename in CATALOG_FILES.items():
        doc = catalog_document(history, package, PINNED[package])
        out.append((catalog_dir / filename, render(doc), doc))
    out.append((catalog_dir / HISTORY_FILE, render_history(history), history))
    return out


def describe(doc: dict) -> str:
    if "packages" in doc:
        return ", ".join(
            f"{package} {len(pkg['releases'])} release(s)"
            for package, pkg in doc["packages"].items()
        )
    return (
        f"{len(doc['flags'])} flags ({option_strings(doc)} option strings)"
        f" / {len(doc['env'])} env vars"
    )


def relative(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)


def run(args: argparse.Namespace) -> int:
    try:
        with parsing():  # a module two wheels ship alike is parsed once
            history = extract_history(args.wheel_dir)
            # the diffusion CLI of the same wheels: its own files (diffusion_history.py)
            diffusion = extract_diffusion_history(RELEASES["sglang"], args.wheel_dir, log)
    except DownloadError as exc:
        if args.check:
            print(f"catalog check skipped: cannot download wheels ({exc})")
            return 0 if args.allow_offline else 2
        print(f"catalog: error: cannot download wheels ({exc})", file=sys.stderr)
        return 2
    status = 0
    files = outputs(history, args.catalog_dir) + diffusion_outputs(
        diffusion, args.catalog_dir, PINNED["sglang"], render)
    for path, text, doc in files:
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            log(f"wrote {path.name}: {describe(doc)}")
            continue
        committed = path.read_text(encoding="utf-8") if path.exists() else None
        if committed == text:
            log(f"{path.name}: up to date ({describe(doc)})")
            continue
        try:
            old = json.loads(committed) if committed is not None else None
        except ValueError:
            old = None
        drift = history_drift if "packages" in doc else summarize_diff
        print("\n".join(drift(old, doc, relative(path))))
        status = 1
    if args.check and status:
        print("catalog is stale: run `recipes catalog` and commit the result")
    return status


class HistoryUnreadable(CatalogError):
    """The committed history file is missing or not JSON."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def load_history(catalog_dir: Path = DEFAULT_CATALOG_DIR) -> dict:
    path = catalog_dir / HISTORY_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HistoryUnreadable(relative(path), f"cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise HistoryUnreadable(relative(path), f"not valid JSON ({exc})") from None


def diff(a: str, b: str, catalog_dir: Path = DEFAULT_CATALOG_DIR) -> list[str]:
    """``recipes catalog --diff A B``: sglang changes between two releases, from the history."""
    return diff_releases(load_history(catalog_dir), "sglang", a, b)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m macros.catalog_build",
        description="Extract the SGLang / sglang-router flag catalogs and their history "
        "from the released wheels.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare a fresh extraction with the committed files; exit 1 on drift",
    )
    parser.add_argument(
        "--allow-offline",
        action="store_true",
        help="with --check: exit 0 (skipped) when the wheels cannot be downloaded",
    )
    parser.add_argument(
        "--diff",
        nargs=2,
        metavar=("A", "B"),
        help="list what changed between two sglang releases (reads the committed history)",
    )
    parser.add_argument(
        "--wheel-dir",
        type=Path,
        default=DEFAULT_WHEEL_DIR,
        help="wheel cache (default: .build/wheels)",
    )
    parser.add_argument(
        "--catalog-dir",
        type=Path,
        default=DEFAULT_CATALOG_DIR,
        help="where the JSON files live (default: recipes/catalog)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.diff:
            print("\n".join(diff(*args.diff, catalog_dir=args.catalog_dir)))
            return 0
        return run(args)
    except (CatalogError, UnknownRelease) as exc:
        print(f"catalog: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, zipfile.BadZipFile) as exc:
        print(f"catalog: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
