"""Building both language sites into site/ (English) and site/ko/ (Korean), atomically, and
deciding where the tools may write.

Owns the build order, the choice of site engine (MkDocs + Material, the default, or Zensical:
both read the same staged input, ``macros.site.stage``), the swap, and the rules for every output
path a command is given (the build's folder, the export's file). Must not write anywhere but the
output and its own scratch folders under ``<output's parent>/.build/`` (``site-<pid>-<ms>``,
removed when the build ends), and must not touch anything before the output path has been
accepted.

The output folder. The build marks each site it makes with a ``.recipes-site`` file (JSON:
the folder it is for, by resolved path and by device and inode, which the swap's renames keep,
and every path the build wrote), and replaces only: a missing folder (its parent must exist),
an empty folder, or a folder whose marker is a regular file written for it (its path or its
inode: a copied marker is not) and which holds nothing the marker does not list. Anything
else is refused, naming what it found, since the swap deletes what the folder held: a .git, a
CNAME or any other file a person put there, any symlink, a linked or unreadable marker, the
plain-text marker of builds before the listing (remove such a site once by hand), a file, any
other non-empty folder, the project root, its sources (``docs/``, ``recipes/``, ``macros/``,
``overrides/``, ``tests/``, ``.git``) and anything inside them, the home folder, ``/``, and any
folder containing one of those. Paths are compared resolved, so a symlink to a source is
refused like the source. The folder is judged again just before the swap. ``make clean``
applies the same rule (``python -m macros.site.build clean site``).

The swap. Both languages are staged and built inside a scratch folder beside the output (one
file system; the site is its ``stage/site``), then one ``renameat2(RENAME_EXCHANGE)`` swaps the
two folders: at every instant the output is either the whole old site or the whole new one, and
the old one ends up in the scratch folder, which is removed. A symlink flipped by one rename
would do the same, but it turns ``site/`` into a link, which a web server or ``cp -r`` may treat
differently from the folder people expect. Where the exchange is unavailable (not Linux, old
glibc, a file system without it) the output is parked under ``.build/`` and the new site renamed
into place; a kill between those two renames leaves the parked site behind, and the next build
of that output restores it before anything else. Every build also removes the scratch folders of
builds whose process has died. While the build runs, SIGTERM raises ``Terminated`` so the
scratch folder is removed like on any failure or Ctrl-C.

Languages at once. With more than one CPU (``--jobs``, ``RECIPES_BUILD_JOBS``) the root site is
built in this process while each other language is built by a forked worker in its own folder
of the scratch (``lang-<lang>``), after the database and the engine are loaded once and shared;
the worker's language is moved into the site when both are done, so the site is the same as one
built language after language (a test compares them byte for byte), and so are the messages of
a failure. A failure or interruption on either side ends the other: the worker is killed and
reaped before the scratch is removed. A fork copies only the calling thread, so with other
threads running (a test's web server, the live preview) the languages are built one after the
other.

Checked before built. Every language's sources are checked (the files it publishes, and each
page against the translation contract and the template sandbox: ``Stage.check``) before any
engine runs: the root site is checked and staged, then the other languages are checked, one
after the other; at once, the root site's engine starts only when each worker has said its
language passed (it checks while the root site is staged, so a build that succeeds waits for
nothing). A failure reads the same either way. A page that breaks these rules
fails the build in seconds, not after the languages before it were built; what only rendering
finds is reported when the language is staged.

The export file. ``recipes export --out FILE`` writes one file in an existing folder outside the
project's sources and the recipes folder in use. An existing file is replaced only if it is a
previous export (a JSON object with the export's top-level keys and an integer ``version``);
anything else there is a person's file and is refused. The new file is written beside the old
one and renamed over it, so an interrupted export leaves the previous one whole.

Size: the output rules, the swap, the workers and the signal handling make one guarantee
together (a failed or killed build leaves the previous site), which depends on their order
within one build; kept together so it can be read as one.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import json
import logging
import os
import re
import shutil
import signal
import stat
import sys
import threading
import time
from pathlib import Path

from macros.engine.errors import Problem, RecipeError

ROOT = Path(__file__).resolve().parents[2]
MARKER = ".recipes-site"
SOURCES = ("docs", "recipes", "macros", "overrides", "tests", ".git")
EXPORT_KEYS = {"version", "lang", "model", "cells", "rules", "catalog", "text"}
EXPORT_MAX_BYTES = 64 << 20  # far above any export; bigger files are not read to be judged
# site-<pid>-<ms> is a build's scratch; -old[-<name>] a site parked by the two-step swap for the
# output <name> (no name: parked by builds from before this rule, which only ever built site/).
_SCRATCH = re.compile(r"site-(?P<pid>\d+)-(?P<ms>\d+)(?P<old>-old(?:-(?P<name>.+))?)?")
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
_PR_SET_PDEATHSIG = 1


class BuildFailed(Exception):
    pass


class Terminated(SystemExit):
    """SIGTERM during a build: unwinds like Ctrl-C (scratch removed), exits 143 if uncaught."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


class _Capture(logging.Handler):
    """Keeps the build's warnings and errors so a failure can say what went wrong."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname}: {record.getMessage()}")

    def summary(self, limit: int = 12) -> str:
        shown = self.messages[:limit]
        more = len(self.messages) - len(shown)
        return "\n".join(shown) + (f"\n… and {more} more" if more > 0 else "")


# --- where outputs may go -------------------------------------------------------------------

def _resolved(given: Path) -> Path:
    try:
        return Path(given).expanduser().resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop is a RuntimeError before 3.13
        raise _problem(given, f"cannot resolve the path: {exc}") from None


def _sources(roots: list[Path]) -> list[tuple[Path, str]]:
    """(resolved path, how to name it) for every folder no output may be in or contain."""
    found = []
    for root in roots:
        for name in SOURCES:
            found.append(((root / name).resolve(), f"the project's {name}/ folder ({root / name})"))
    recipes = os.environ.get("RECIPES_ROOT")
    if recipes:
        found.append((Path(recipes).resolve(), f"the recipes folder in use ({recipes})"))
    return found


def _project_roots(root: Path) -> list[Path]:
    return list(dict.fromkeys([root.resolve(), ROOT]))


def _problem(given: Path, message: str) -> RecipeError:
    return RecipeError([Problem(str(given), None, None, message)])


def check_out_folder(given: Path, root: Path = ROOT) -> Path:
    """The resolved output folder, or a RecipeError saying why the build may not replace it."""
    out = _resolved(given)
    roots = _project_roots(root)
    own = "give a folder of its own, e.g. site/"
    guarded = [(r, f"the project root ({r})") for r in roots] + _sources(roots)
    guarded += [(Path.home().resolve(), f"the home folder ({Path.home()})"),
                (Path("/"), "the file-system root (/)")]
    for path, what in guarded:
        if out == path:
            raise _problem(given, f"refusing to build into {what}; {own}")
    for path, what in guarded:
        if path.is_relative_to(out):
            raise _problem(given, f"refusing to build into a folder that contains {what}; {own}")
    for path, what in _sources(roots):
        if out.is_relative_to(path):
            raise _problem(given, f"refusing to build inside {what}; {own}")
    if out.name == ".build":
        raise _problem(given, f"refusing to build into the builds' scratch folder; {own}")
    if not out.parent.is_dir():
        raise _problem(given, f"folder {out.parent} does not exist")
    if out.exists() and not out.is_dir():
        raise _problem(given, f"is a file, not a folder; {own}")
    if out.is_dir():
        why = not_ours(out)
        if why:
            raise _problem(given, f"{why}; {own}")
    return out


MARKER_FORMAT = "recipes-site 2"
MARKER_MAX_BYTES = 64 << 20  # a site of thousands of pages lists a few MB
_OLD_MARKER = "Made by `recipes build`"  # the plain-text marker of builds before the listing
_SHOWN = 8


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def _listing(folder: Path) -> list[str]:
    """Every entry under ``folder`` as a relative path (a folder's with a trailing /), symlinks
    not followed; the marker left out."""
    found = []
    for top, dirs, files in os.walk(folder, onerror=_raise):
        rel = Path(top).relative_to(folder)
        for name in dirs + files:
            path = (rel / name).as_posix()
            linked = os.path.islink(os.path.join(top, name))
            found.append(path + "/" if name in dirs and not linked else path)
    return sorted(p for p in found if p != MARKER)


def _raise(exc: OSError) -> None:
    raise exc


def mark(site: Path, out: Path) -> None:
    """Write the marker into ``site``, the folder the swap makes ``out`` (a rename keeps its
    device and inode): it lists everything the build wrote and names the folder it is for."""
    st = os.stat(site)
    data = {"format": MARKER_FORMAT,
            "note": "Made by `recipes build`: the next build replaces this folder whole, and "
                    "only while it holds nothing but what is listed here.",
            "folder": str(out), "device": st.st_dev, "inode": st.st_ino,
            "entries": _listing(site)}
    (site / MARKER).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                               encoding="utf-8")


def _read_marker(folder: Path) -> tuple[dict | None, str | None]:
    """(the marker's data, None) or (None, why it is not a marker this build wrote)."""
    path = folder / MARKER
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, f"its {MARKER} is a symbolic link, not the marker a build writes"
        return None, f"its {MARKER} cannot be read ({exc.strerror})"
    with open(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None, f"its {MARKER} is not a file"
        if st.st_size > MARKER_MAX_BYTES:
            return None, f"its {MARKER} is far too big to be a marker a build wrote"
        try:
            raw = f.read()
        except OSError as exc:
            return None, f"its {MARKER} cannot be read ({exc.strerror})"
    if raw.startswith(_OLD_MARKER.encode()):
        return None, (f"was made by an older `recipes build`, whose {MARKER} does not list "
                      "what it wrote, so nothing says the folder holds only that: look "
                      f"through it, remove it yourself (rm -r {folder}) and build again")
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    good = (isinstance(data, dict) and data.get("format") == MARKER_FORMAT
            and isinstance(data.get("folder"), str)
            and all(type(data.get(k)) is int for k in ("device", "inode"))
            and isinstance(data.get("entries"), list)
            and all(isinstance(e, str) for e in data["entries"]))
    if not good:
        return None, f"its {MARKER} is not a marker a build wrote (format {MARKER_FORMAT!r})"
    return data, None


def not_ours(folder: Path) -> str | None:
    """Why the build may not replace the existing folder ``folder`` (resolved), or None: it is
    empty, or its marker was written for this folder and it holds nothing the marker does not
    list (a person's file, a .git, a CNAME, any symlink)."""
    try:
        names = sorted(os.listdir(folder))
        if not names:
            return None
        data, why = _read_marker(folder)
        if why:
            return why
        if data is None:
            shown = _names([n + "/" if (folder / n).is_dir() and not (folder / n).is_symlink()
                            else n for n in names])
            return (f"is a folder the build did not make (no {MARKER} inside) and is not "
                    f"empty (it holds {shown})")
        st = os.stat(folder)
        if data["folder"] != str(folder) and (data["device"], data["inode"]) != \
                (st.st_dev, st.st_ino):
            return (f"its {MARKER} was written for another folder ({data['folder']}); a "
                    "copied marker does not make a folder the build's")
        listed = set(data["entries"])
        strangers = []
        for top, dirs, files in os.walk(folder, onerror=_raise):
            rel = Path(top).relative_to(folder)
            keep = []
            for name in sorted(dirs + files):
                path = (rel / name).as_posix()
                if os.path.islink(os.path.join(top, name)):
                    strangers.append(path + " (a symbolic link)")
                elif name in dirs:
                    if path + "/" in listed:
                        keep.append(name)
                    else:
                        strangers.append(path + "/")  # named once, not entered
                elif path not in listed and path != MARKER:
                    strangers.append(path)
            dirs[:] = keep
    except OSError as exc:
        raise _problem(folder, f"cannot read the folder: {exc.strerror}") from None
    if strangers:
        return (f"holds what the build did not write ({_names(strangers)}), which replacing "
                "the folder would delete")
    return None


def export_target(given: Path, recipes: Path | None = None, model: str = "") -> Path:
    """The resolved file ``recipes export --out`` may write for ``model``, or a RecipeError
    saying why not."""
    out = _resolved(given)
    guarded = _sources([ROOT])
    if recipes is not None:
        guarded.append((_resolved(recipes), f"the recipes folder in use ({recipes})"))
    for path, what in guarded:
        if out.is_relative_to(path):
            raise _problem(given, f"refusing to write inside {what}; give a path outside the "
                                  f"project's sources")
    if not out.parent.is_dir():
        raise _problem(given, f"folder {out.parent} does not exist")
    if out.is_dir():
        raise _problem(given, f"is a folder; give a file name, e.g. {model or 'model'}.json")
    if out.exists() and not _is_export(out):
        raise _problem(given, "exists and is not a previous export (a JSON object with "
                              f"{', '.join(sorted(EXPORT_KEYS))}); refusing to overwrite it")
    return out


def _is_export(path: Path) -> bool:
    try:
        if not path.is_file() or path.stat().st_size > EXPORT_MAX_BYTES:
            return False
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return (isinstance(data, dict) and EXPORT_KEYS <= data.keys()
            and type(data["version"]) is int)


def write_export(out: Path, text: str) -> None:
    """Write beside ``out`` and rename over it: a killed export leaves the previous one whole."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    made = False
    try:
        # O_EXCL: never take over a file someone else put at the scratch name; 0o666 less the
        # umask gives the file the mode a plain write would.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        made = True
        with open(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
        made = False
    except OSError as exc:
        raise _problem(out, f"cannot write: {exc.strerror}") from None
    finally:
        if made:
            tmp.unlink(missing_ok=True)


# --- the swap -------------------------------------------------------------------------------

def _renameat2():
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or glibc before 2.28
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _renameat2()


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step; False where the system cannot, so the caller falls back."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap(new: Path, out: Path, parked: Path) -> None:
    """Put ``new`` at ``out``; afterwards ``new`` holds the previous site, if there was one.
    ``parked`` is where the two-step fallback keeps the previous site meanwhile."""
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    if _exchange(new, out):
        return
    os.rename(out, parked)
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(parked, out)
        raise
    os.rename(parked, new)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _recover(scratch_root: Path, out: Path) -> None:
    """Restore a site parked for ``out`` by a killed build; remove dead builds' scratch."""
    if not scratch_root.is_dir():
        return
    entries = []
    for entry in scratch_root.iterdir():
        m = _SCRATCH.fullmatch(entry.name)
        if m and not _alive(int(m["pid"])):
            entries.append((int(m["ms"]), entry, m))
    for _, entry, m in sorted(entries, key=lambda e: e[0], reverse=True):
        if m["old"]:
            owner = scratch_root.parent / (m["name"] or "site")
            if not os.path.lexists(owner):
                if owner == out:
                    entry.rename(out)
                continue  # another output's parked site: its own next build restores it
        shutil.rmtree(entry, ignore_errors=True)


def _on_sigterm(signum, frame):
    raise Terminated()


ENGINES = ("mkdocs", "zensical")


def build_site(out: Path | None = None, root: Path = ROOT, quiet: bool = False,
               engine: str = "mkdocs", jobs: int | None = None) -> Path:
    """Stage both languages, build them with ``engine`` in a scratch folder (``jobs`` languages
    at a time, see ``build_jobs``) and swap the site in as ``out``."""
    if engine not in ENGINES:
        raise _problem(Path(engine), f"is not a site engine ({', '.join(ENGINES)})")
    jobs = build_jobs(jobs)
    root = Path(root).resolve()
    out = check_out_folder(out if out is not None else root / "site", root)
    # Next to the target so the swap stays on one file system.
    scratch_root = out.parent / ".build"
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    scratch = scratch_root / f"site-{os.getpid()}-{int(time.time() * 1000)}"
    try:
        if scratch_root.is_symlink():  # it could lead the scratch site anywhere
            raise BuildFailed(f"{scratch_root} is a symbolic link; the build keeps its scratch "
                              "there and follows no link: remove it")
        try:
            scratch_root.mkdir(exist_ok=True)
        except OSError as exc:
            raise BuildFailed(f"cannot make the scratch folder {scratch_root}: "
                              f"{exc.strerror}") from None
        _recover(scratch_root, out)
        from macros.site.bundle import bundle_note

        if note := bundle_note():  # the site still works: say it once, quiet or not
            print(f"note: {note}", file=sys.stderr)
        site = _build_both(root, scratch, quiet, engine, jobs)
        mark(site, out)
        if out.is_dir() and (why := not_ours(out)):  # something put there while building
            raise BuildFailed(f"{out}: {why}; nothing was replaced")
        try:
            _swap(site, out, scratch_root / f"{scratch.name}-old-{out.name}")
        except OSError as exc:  # e.g. out on another file system: the old site stays
            raise BuildFailed(f"could not move the new site into {out}: {exc.strerror}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # the failed build, or the replaced site
        try:
            scratch_root.rmdir()  # only when empty: another build's scratch or caches stay
        except OSError:
            pass
        if in_main:  # None: a handler set outside Python, which cannot be put back
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
    return out


def _build_both(root: Path, scratch: Path, quiet: bool, engine: str, jobs: int) -> Path:
    """Every language staged, built by ``engine`` and finished (the root site first, so no
    engine's cleaning of its output removes another language). With ``jobs`` > 1 the other
    languages are built at the same time by forked workers, each in its own folder under the
    scratch, and moved into the site once the root site is done. Returns the site."""
    from macros.site.stage import Stage, StageFailed

    try:
        stage = Stage(root, scratch, engine_checks=engine == "mkdocs")
    except StageFailed as exc:
        raise BuildFailed(str(exc)) from None
    first, *others = stage.languages
    if not others or not _may_fork(jobs):
        # in the order a build at once reports failures in: the root site's checks and
        # staging, then the other languages' checks, then the engines
        spent = [_check_language(stage, first, quiet) + _stage_language(stage, first)]
        spent += [_check_language(stage, language, quiet) for language in others]
        for n, (language, seconds) in enumerate(zip(stage.languages, spent)):
            if n:
                seconds += _stage_language(stage, language)
            _engine_language(stage, language, quiet, engine, seconds)
        return stage.site
    _preload(engine)
    # Every object so far is shared with the workers; the collector writes to each object it
    # scans, which would copy its page into both processes. Scan only what comes after.
    gc.freeze()
    # An ignored SIGCHLD (inherited from whatever started us) reaps children by itself, and
    # waitpid would find no worker to report on.
    chld = signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    workers: list[_Worker] = []
    try:
        forked, after = others[:jobs - 1], others[jobs - 1:]  # the parent builds one itself
        for language in forked:
            workers.append(_Worker(language, scratch / f"lang-{language.lang}"))
            workers[-1].start(root, quiet, engine)
        seconds = _check_language(stage, first, quiet) + _stage_language(stage, first)
        # the root site's engine waits until every worker's language passed its check, or
        # fails with the first failure among them; then the languages no worker builds are
        # checked (in the order a build one after the other checks them all)
        for worker in workers:
            worker.checked()
        later = [_check_language(stage, language, quiet) for language in after]
        _engine_language(stage, first, quiet, engine, seconds)
        for language, seconds in zip(after, later):  # more languages than jobs: one by one
            seconds += _stage_language(stage, language)
            _engine_language(stage, language, quiet, engine, seconds)
        for worker, language in zip(workers, forked):
            worker.wait()
            target = stage.site_dir(language)
            # Built one after the other, the language's engine would empty its folder first
            # (the root site's theme files can land there): the same here.
            shutil.rmtree(target, ignore_errors=True)
            try:
                os.rename(worker.site, target)
            except OSError as exc:
                raise BuildFailed(f"{language.config_name}: cannot move its site into "
                                  f"{target}: {exc.strerror}") from None
    finally:
        for worker in workers:
            worker.stop()
        signal.signal(signal.SIGCHLD, chld)
        gc.unfreeze()
    return stage.site


def _build_language(stage, language, quiet: bool, engine: str, on_checked=None) -> None:
    """Check a language, call ``on_checked`` (a worker tells the parent), stage and build it."""
    seconds = _check_language(stage, language, quiet)
    if on_checked is not None:
        on_checked()
    seconds += _stage_language(stage, language)
    _engine_language(stage, language, quiet, engine, seconds)


def _check_language(stage, language, quiet: bool) -> float:
    """Check a language's sources (``Stage.check``; BuildFailed: what they break, each line
    naming its page and line); the seconds it took."""
    from macros.site.stage import StageFailed

    started = time.perf_counter()
    if not quiet:
        print(f"checking {language.config_name}", file=sys.stderr)
    try:
        stage.check(language)
    except StageFailed as exc:
        raise BuildFailed(str(exc)) from None
    return time.perf_counter() - started


def _stage_language(stage, language) -> float:
    """Stage a language's pages (BuildFailed: what rendering them finds); the seconds it took."""
    from macros.site.stage import StageFailed

    started = time.perf_counter()
    try:
        stage.stage(language)
    except StageFailed as exc:  # each line names its page (and line)
        raise BuildFailed(str(exc)) from None
    return time.perf_counter() - started


def _engine_language(stage, language, quiet: bool, engine: str, spent: float) -> None:
    """Build a staged language with ``engine`` and finish its site (``spent``: the seconds
    its check and staging took, for the time it reports)."""
    from macros.site.stage import StageFailed

    started = time.perf_counter() - spent
    if not quiet:
        print(f"building {language.config_name} with {engine} → {stage.site_dir(language)}",
              file=sys.stderr)
    run = _mkdocs if engine == "mkdocs" else _zensical
    run(stage.config_path(language), quiet, language.config_name)
    try:
        stage.check_published(language)
    except StageFailed as exc:
        raise BuildFailed(str(exc)) from None
    try:
        stage.finish(language, engine)
    except StageFailed as exc:
        raise BuildFailed(str(exc)) from None
    if not quiet:
        print(f"  {language.config_name} done in {time.perf_counter() - started:.1f}s",
              file=sys.stderr)


def build_jobs(given: int | None = None) -> int:
    """How many languages a build makes at once: ``given``, else ``RECIPES_BUILD_JOBS``, else
    the number of CPUs this process may use."""
    if given is not None:
        return max(1, given)
    value = os.environ.get("RECIPES_BUILD_JOBS", "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise BuildFailed(f"RECIPES_BUILD_JOBS={value!r} is not a whole number of at least 1")
        return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)


def _may_fork(jobs: int) -> bool:
    """A fork copies only the calling thread: with other threads running (a test's server,
    the live preview) a lock one of them holds would stay locked in the worker forever."""
    return (jobs > 1 and hasattr(os, "fork") and threading.active_count() == 1
            and threading.current_thread() is threading.main_thread())  # signals: main only


def _preload(engine: str) -> None:
    """What every language needs, loaded once before the fork so the workers share it: the
    recipe database (a load error is reported by the root site's stage, as without workers)
    and the engine's modules."""
    from macros.site import export, pages as site
    from macros.engine.database import cached_database

    try:
        cached_database()
    except RecipeError:
        pass
    if engine == "mkdocs":
        import mkdocs.commands.build
        import mkdocs.config  # noqa: F401


def _prctl():
    """Linux's prctl(2), or None elsewhere."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None


def _die_with(parent: int, prctl=None) -> None:
    """A worker whose build is killed outright (SIGKILL, the OOM killer) must not go on
    writing into a scratch folder the next build removes: Linux ends it with its parent (and
    a worker's Zensical with the worker, ``_zensical``, which looks ``prctl`` up before it
    forks: between fork and exec nothing is loaded)."""
    prctl = prctl or _prctl()
    if prctl is None:
        return
    prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


_CHECKED = b"\0"  # a worker's first byte on its pipe: its language passed its check


class _Worker:
    """One language built in a forked process. The worker's result comes back through a pipe:
    one byte (``_CHECKED``) once its language passed its check, then nothing when it succeeded; else
    the message a build of that language alone would fail with. Made before the fork and
    listed by the caller, so a failure at any point after it still finds the worker to
    stop."""

    def __init__(self, language, work: Path):
        self.language, self.work = language, work
        site = work / "stage" / "site"
        self.site = site / language.sub if language.sub else site
        self.pid, self.fd = 0, None  # 0 / None: not started or reaped / closed

    def start(self, root: Path, quiet: bool, engine: str) -> None:
        """Fork the worker that stages and builds the language under ``work``. Ctrl-C and
        SIGTERM wait until both sides know where they stand: the parent with the pid noted,
        the worker inside the code that reports and exits (never the parent's own cleanup)."""
        from macros.site.stage import Stage, StageFailed

        read, write = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # or the worker would print it a second time
            stream.flush()
        parent = os.getpid()
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            raise
        if pid:
            self.pid, self.fd = pid, read
            os.close(write)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            return
        code, message = 1, ""
        try:
            os.close(read)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            _die_with(parent)
            language = self.language
            stage = Stage(root, self.work, langs=(language.lang,),
                          engine_checks=engine == "mkdocs")
            _build_language(stage, stage.languages[0], quiet, engine,
                            on_checked=lambda: _write_all(write, _CHECKED))
            code = 0
        except (StageFailed, BuildFailed) as exc:
            message = str(exc)
        except BaseException as exc:  # Ctrl-C, SIGTERM or a bug: the parent reports it
            message = f"{self.language.config_name}: {type(exc).__name__}: {exc}"
        finally:
            try:
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
                _write_all(write, message.encode("utf-8", "replace"))
            finally:
                os._exit(code)

    def checked(self) -> None:
        """Wait until the worker's language passed its check; if it failed before (its pages,
        or it died), reap it and raise its failure as the build's."""
        first = os.read(self.fd, 1)
        if first == _CHECKED:
            return
        self.wait(first)
        raise BuildFailed(f"{self.language.config_name}: its build process ended before its "
                          "pages were checked")  # exit 0 without a word: not a worker's way

    def wait(self, first: bytes = b"") -> None:
        """Wait for the worker (after ``checked``); raise its failure as the build's.
        ``first``: what ``checked`` read of its message."""
        chunks = [first]
        while chunk := os.read(self.fd, 1 << 16):
            chunks.append(chunk)
        os.close(self.fd)
        self.fd = None
        pid, self.pid = self.pid, 0
        _, status = os.waitpid(pid, 0)
        message = b"".join(chunks).decode("utf-8", "replace")
        if os.waitstatus_to_exitcode(status) != 0:
            raise BuildFailed(message or f"{self.language.config_name}: its build process "
                              f"ended without a word (exit status "
                              f"{os.waitstatus_to_exitcode(status)})")

    def stop(self) -> None:
        """End a worker still running (the build failed or was interrupted) and reap it."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid:
            pid, self.pid = self.pid, 0
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):  # already gone, or reaped
                pass


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _mkdocs(config: Path, quiet: bool, name: str) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    log = logging.getLogger("mkdocs")
    capture = _Capture()
    log.addHandler(capture)
    propagate = log.propagate
    if quiet:  # keep strict mode's warning counter working: silence output, not records
        log.propagate = False
    try:
        cfg = load_config(str(config), strict=True)
        build(cfg)
    except Terminated:
        raise
    except (MkDocsException, SystemExit, Exception) as exc:
        why = capture.summary() or f"{type(exc).__name__}: {exc}"
        raise BuildFailed(f"{name}: {why}") from None
    finally:
        log.removeHandler(capture)
        log.propagate = propagate


def _zensical(config: Path, quiet: bool, name: str) -> None:
    """Zensical's Rust runtime calls back into Python: run it in a child process, in the stage
    folder (it builds only below its config and keeps its cache there)."""
    import importlib.util
    import subprocess

    if importlib.util.find_spec("zensical") is None:
        raise BuildFailed("the zensical engine is not installed: pip install -e '.[zensical]'")
    # Zensical ends with this process: a worker killed because the root site failed must not
    # leave it writing its cache into the scratch folder after it was removed. Set between
    # fork and exec, which is safe only with no other thread (a worker never has one).
    me, prctl = os.getpid(), _prctl()
    ends_with_us = (lambda: _die_with(me, prctl)) \
        if prctl is not None and threading.active_count() == 1 else None
    try:
        done = subprocess.run([sys.executable, "-m", "zensical", "build", "--strict", "-f",
                               str(config)], cwd=config.parent, capture_output=True, text=True,
                              env={**os.environ, "NO_COLOR": "1"}, preexec_fn=ends_with_us)
    except OSError as exc:
        raise BuildFailed(f"{name}: cannot run zensical: {exc.strerror}") from None
    if not quiet:
        sys.stderr.write(done.stdout + done.stderr)
    if done.returncode != 0:
        raise BuildFailed(f"{name}: " + _zensical_problems(done.stdout + done.stderr))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ZENSICAL_WARNING = re.compile(  # "Warning: what", then the box "╭─[ page.md:line:col ]"
    r"Warning:\s*(?P<what>.+?)\s*\n\s*╭─\[\s*(?P<where>[^\]]+?)\s*\]")


def _zensical_problems(output: str) -> str:
    """Zensical's warnings as ``page:line:col: what`` (positions in the page as rendered), or
    the end of its output when it failed otherwise."""
    text = _ANSI.sub("", output)
    found = [f"{m['where']}: {m['what']}" for m in _ZENSICAL_WARNING.finditer(text)]
    return "\n".join(found) if found else "\n".join(text.strip().splitlines()[-12:])


def clean(given: Path, root: Path = ROOT) -> int:
    """``make clean``'s removal of the site: only a folder the build may replace (the rule of
    ``check_out_folder``: its marker written for it, nothing in it the marker does not list),
    and never through a symlink. Says what it did; exit 0, or 1 when it left the folder."""
    if given.is_symlink():
        print(f"{given} is a symbolic link, not a site the build made: left alone",
              file=sys.stderr)
        return 1
    if not given.exists():
        return 0
    try:
        out = check_out_folder(given, root)
    except RecipeError as exc:
        print(f"{exc}: left alone", file=sys.stderr)
        return 1
    shutil.rmtree(out)
    print(f"removed {given}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # python -m macros.site.build clean site (make clean; no venv needed)
    if sys.argv[1:2] != ["clean"] or len(sys.argv) != 3:
        sys.exit("usage: python -m macros.site.build clean FOLDER")
    sys.exit(clean(Path(sys.argv[2])))
