"""Released wheels: download with pip into a cache, then read their Python sources.

Owns the wheel cache (``.build/wheels/``), the pip invocation and :class:`SourceTree`.
Must not import or install anything from a wheel: sources are read as text and parsed.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_WHEEL_DIR = REPO_ROOT / ".build" / "wheels"


class CatalogError(Exception):
    """A problem the user can act on; printed as one line, never a traceback."""


class DownloadError(CatalogError):
    """pip could not fetch a wheel (typically: no network)."""


# Pin the wheel tags so the chosen file (and so ``wheel_sha256``) does not
# depend on the Python that runs the build: sglang ships per-CPython wheels.
_PIP_TAGS = {
    "--python-version": ["3.11"],
    "--implementation": ["cp"],
    "--abi": ["cp311", "abi3", "none"],
    "--platform": [
        "manylinux_2_34_x86_64",
        "manylinux_2_17_x86_64",
        "manylinux2014_x86_64",
        "any",
    ],
}
PIP_TAG_ARGS = [arg for opt, values in _PIP_TAGS.items() for v in values for arg in (opt, v)]
WHEEL_TAG_OK = re.compile(r"-(cp311-cp311|cp3\d+-abi3|py3-none)-")


def wheel_prefix(package: str, version: str) -> str:
    """Wheel file names use the normalized project name with underscores."""
    return f"{re.sub(r'[-_.]+', '_', package).lower()}-{version}-"


def find_cached_wheel(wheel_dir: Path, package: str, version: str) -> Path | None:
    prefix = wheel_prefix(package, version)
    hits = sorted(
        p
        for p in wheel_dir.glob("*.whl")
        if p.name.lower().startswith(prefix) and WHEEL_TAG_OK.search(p.name)
    )
    return hits[0] if hits else None


NETWORK_ERROR = re.compile(
    r"Failed to establish a new connection: [^\"')]+|Temporary failure in name resolution"
    r"|Name or service not known|Network is unreachable|No route to host|Connection refused"
    r"|Read timed out|connect timeout|ProxyError|SSLError|ConnectionResetError"
)


def pip_failure(stderr: str) -> tuple[bool, str]:
    """(is it a network failure?, the most telling line) of pip's output."""
    match = NETWORK_ERROR.search(stderr)
    if match:
        return True, match.group(0).strip()
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR")]
    return False, (errors[-1] if errors else (lines[-1] if lines else "pip failed"))[:200]


def download_wheel(package: str, version: str, wheel_dir: Path, log: Callable[[str], None]) -> Path:
    """Return the cached wheel, downloading it with pip when missing."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    cached = find_cached_wheel(wheel_dir, package, version)
    if cached is not None:
        log(f"using cached {cached.name}")
        return cached
    log(f"downloading {package}=={version} …")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-input",
        "--timeout",
        "30",
        "--retries",
        "2",
        *PIP_TAG_ARGS,
        "-d",
        str(wheel_dir),
        f"{package}=={version}",
    ]
    try:
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise DownloadError(f"{package}=={version}: pip timed out") from None
    except OSError as exc:
        raise CatalogError(f"cannot run pip: {exc}") from None
    if proc.returncode != 0:
        network, reason = pip_failure(proc.stderr)
        if network:
            raise DownloadError(f"{package}=={version}: {reason}")
        raise CatalogError(f"pip download {package}=={version} failed: {reason}")
    found = find_cached_wheel(wheel_dir, package, version)
    if found is None:
        raise DownloadError(f"{package}=={version}: pip succeeded but no wheel in {wheel_dir}")
    return found


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


COMMENT = re.compile(r"^\s*#\s?(.*)$")


# (path, text) -> its tree, while ``parsing()`` runs; None outside it (each tree then lives only
# as long as its SourceTree)
_SHARED: dict[tuple[str, str], ast.Module] | None = None


def _parsed(path: str, text: str) -> ast.Module:
    """``text`` parsed, once per (path, text) however many wheels ship it while ``parsing()``
    runs: most of a release's modules are those of the release before, byte for byte, the
    sglang and the diffusion extraction read the same wheels, and parsing is most of what an
    extraction costs. The readers only read the trees (nothing here edits a node), so one tree
    serves every wheel."""
    if _SHARED is None:
        return ast.parse(text, filename=path)
    tree = _SHARED.get((path, text))
    if tree is None:
        tree = _SHARED[path, text] = ast.parse(text, filename=path)
    return tree


@contextmanager
def parsing():
    """A run of extractions: trees kept across wheels (``_parsed``) and Python's cycle collector
    paused, then both let go. The trees are millions of small objects the collector would scan
    again and again while they live, for nothing: a tree holds no cycle. ``recipes catalog
    --check`` over the cached wheels, one run after the other on an idle machine: 14.1 s (85 MB
    at most) without the shared trees, 19.3 s with them and the collector running, 9.7 s (590 MB
    at most, let go at the end) as here."""
    global _SHARED
    enabled = gc.isenabled()
    outer, _SHARED = _SHARED, {} if _SHARED is None else _SHARED
    gc.disable()
    try:
        yield
    finally:
        _SHARED = outer
        if enabled:
            gc.enable()
        gc.collect()


class SourceTree:
    """Python sources of a wheel (or a dict, in tests), parsed on demand."""

    def __init__(self, files: dict[str, str] | None = None, zip_path: Path | None = None):
        self._files = files
        self._zip = zipfile.ZipFile(zip_path) if zip_path else None
        self._names = set(self._zip.namelist()) if self._zip else set(files or {})
        self._trees: dict[str, ast.Module] = {}
        self._lines: dict[str, list[str]] = {}
        self.parsed = 0

    def has(self, path: str) -> bool:
        return path in self._names

    def names(self) -> set[str]:
        return self._names

    def read(self, path: str) -> str:
        if self._zip is not None:
            return self._zip.read(path).decode("utf-8")
        return self._files[path]

    def tree(self, path: str) -> ast.Module:
        if path not in self._trees:
            try:
                self._trees[path] = _parsed(path, self.read(path))
            except SyntaxError as exc:
                raise CatalogError(f"cannot parse {path}: {exc}") from None
            self.parsed += 1
        return self._trees[path]

    def comment_above(self, path: str, lineno: int) -> str:
        """The ``#`` comment block directly above line ``lineno`` (1-based), joined.

        Planned removal dates live in such comments ("TODO: remove … after
        2026-12-31"), which the AST drops.
        """
        if path not in self._lines:
            self._lines[path] = self.read(path).splitlines()
        lines = self._lines[path]
        out: list[str] = []
        index = lineno - 2
        while index >= 0:
            match = COMMENT.match(lines[index])
            if not match:
                break
            out.insert(0, match.group(1).strip())
            index -= 1
        return " ".join(out)

    def module_path(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for cand in (base + ".py", base + "/__init__.py"):
            if cand in self._names:
                return cand
        return None
