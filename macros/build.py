"""Building both language sites into site/ (English) and site/ko/ (Korean), atomically.

Owns the build order and the swap: everything is built into a fresh folder under .build/ and
moved into place only when both languages built cleanly, so a failed build leaves the previous
site untouched. Must not write anywhere else.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class BuildFailed(Exception):
    pass


def _front_matter_lines(path: Path) -> int:
    """Lines MkDocs strips before the macros see a page (front matter and blank lines after)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return 0
    m = re.match(r"-{3}[ \t]*\n.*?\n(?:\.{3}|-{3})[ \t]*\n", text, re.S)
    if not m:
        return 0
    rest = text[m.end():]
    return text.count("\n", 0, m.end()) + (len(rest) - len(rest.lstrip("\n")))


class _Capture(logging.Handler):
    """Keeps the build's warnings and errors so a failure can say what went wrong."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    docs_dir = ""
    root = "."

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "[macros]" in message and "_File_" in message:
            message = self._macro_error(message)
        self.messages.append(message if message.startswith(self.docs_dir) and self.docs_dir
                             else f"{record.levelname}: {message}")

    def _macro_error(self, text: str) -> str:
        """mkdocs-macros reports page errors as Markdown with a traceback; keep file:line and
        the error itself, never the traceback."""
        page = re.search(r"_File_: `([^`]+)`", text)
        line = re.search(r"Line (\d+) in Markdown file|File \"<template>\", line (\d+)", text)
        what = re.search(r"\*\*(.+?)\*\*", text)
        last = [ln for ln in text.strip().splitlines() if re.match(r"^[\w.]+(Error|Exception): ", ln)]
        message = last[-1].split(": ", 1)[1] if last else (what.group(1) if what else text)
        number = next((g for g in (line.groups() if line else ()) if g), None)
        where = f"{self.docs_dir}/{page.group(1)}" if page else self.docs_dir
        if number and page:
            number = int(number) + _front_matter_lines(Path(self.root) / where)
        return f"{where}:{number}: {message}" if number else f"{where}: {message}"

    def summary(self, limit: int = 12) -> str:
        shown = self.messages[:limit]
        more = len(self.messages) - len(shown)
        return "\n".join(shown) + (f"\n… and {more} more" if more > 0 else "")


def build_site(out: Path | None = None, root: Path = ROOT, quiet: bool = False) -> Path:
    """Build English then Korean into a scratch folder and swap it in as ``out``."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    out = (out or root / "site").resolve()
    # Build next to the target so the final swap is a rename on one file system.
    scratch_root = out.parent / ".build"
    scratch_root.mkdir(parents=True, exist_ok=True)
    scratch = scratch_root / f"site-{os.getpid()}-{int(time.time() * 1000)}"
    log = logging.getLogger("mkdocs")
    capture = _Capture()
    log.addHandler(capture)
    propagate = log.propagate
    if quiet:  # keep strict mode's warning counter working: silence output, not records
        log.propagate = False
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for name, target in (("mkdocs.yml", scratch), ("mkdocs.ko.yml", scratch / "ko")):
            started = time.perf_counter()
            if not quiet:
                print(f"building {name} → {target}", file=sys.stderr)
            try:
                cfg = load_config(str(root / name), site_dir=str(target), strict=True)
                capture.docs_dir = os.path.relpath(cfg["docs_dir"], root)
                capture.root = str(root)
                build(cfg)
            except (MkDocsException, SystemExit, Exception) as exc:
                why = capture.summary() or f"{type(exc).__name__}: {exc}"
                raise BuildFailed(f"{name}: {why}") from None
            if not quiet:
                print(f"  done in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    finally:
        os.chdir(cwd)
        log.removeHandler(capture)
        log.propagate = propagate
    old = scratch_root / (scratch.name + "-old")
    try:
        if out.exists():
            out.rename(old)
        scratch.rename(out)
    except OSError as exc:  # e.g. out on another file system: keep the old site
        if old.exists() and not out.exists():
            old.rename(out)
        shutil.rmtree(scratch, ignore_errors=True)
        raise BuildFailed(f"could not move the new site into {out}: {exc}") from None
    shutil.rmtree(old, ignore_errors=True)
    return out
