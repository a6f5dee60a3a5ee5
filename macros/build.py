"""Building both language sites into site/ (English) and site/ko/ (Korean), atomically.

Owns the build order and the swap: everything is built into a fresh folder under .build/ and
moved into place only when both languages built cleanly, so a failed build leaves the previous
site untouched. Must not write anywhere else.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class BuildFailed(Exception):
    pass


def build_site(out: Path | None = None, root: Path = ROOT, quiet: bool = False) -> Path:
    """Build English then Korean into a scratch folder and swap it in as ``out``."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    out = out or root / "site"
    scratch_root = root / ".build"
    scratch_root.mkdir(exist_ok=True)
    scratch = scratch_root / f"site-{os.getpid()}-{int(time.time() * 1000)}"
    log = logging.getLogger("mkdocs")
    level = log.level
    if quiet:
        log.setLevel(logging.ERROR)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for name, target in (("mkdocs.yml", scratch), ("mkdocs.ko.yml", scratch / "ko")):
            started = time.perf_counter()
            if not quiet:
                print(f"building {name} → {target.relative_to(root)}", file=sys.stderr)
            try:
                cfg = load_config(str(root / name), site_dir=str(target), strict=True)
                build(cfg)
            except (MkDocsException, SystemExit) as exc:
                raise BuildFailed(f"{name}: {exc}") from None
            except Exception as exc:  # macro errors reach us as plain exceptions
                raise BuildFailed(f"{name}: {type(exc).__name__}: {exc}") from None
            if not quiet:
                print(f"  done in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    finally:
        os.chdir(cwd)
        log.setLevel(level)
    old = scratch_root / (scratch.name + "-old")
    if out.exists():
        out.rename(old)
    scratch.rename(out)
    shutil.rmtree(old, ignore_errors=True)
    return out
