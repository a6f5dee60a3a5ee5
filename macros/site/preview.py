"""Live preview of one language while a translator edits: ``recipes serve --lang ko``.

Owns the preview loop: the language is staged (``macros.site.stage``) into a temporary folder and
built there by MkDocs, served by MkDocs' own live-reload server (the page in the browser reloads
by itself after each rebuild). On a change it rebuilds only what changed: an edited page is
staged again alone (a change to an English page also re-stages the translated page it is the
source of: its notice or its stand-in), a change to the recipe database reloads the database and
stages every page, a change to the configs or the theme overrides stages everything anew, and a
change to the engine's code (``macros/``) restarts the whole process so the new code runs. A
page or database error is printed (``file:line: what``) and the last good site stays served. The
search of the preview lists only the pages built since its last full build (MkDocs' dirty build
indexes those). The port is bound before anything says the preview serves; a symlink to a
folder or out of docs/ or recipes/ is refused (``Stage.check_links``) at the start and at every
rebuild, and the watcher does not follow links. Ctrl-C and SIGTERM end it within a second,
whatever it is doing (``_Stopper``). Must not write anywhere but its temporary folder (never
docs/ or recipes/), which it removes on exit.
"""

from __future__ import annotations

import _thread
import errno
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from macros.site.build import Terminated
from macros.site.stage import CONFIGS, Stage, StageFailed

ROOT = Path(__file__).resolve().parents[2]


def _snapshot(paths: list[Path]) -> dict[Path, tuple[int, int]]:
    """Every file under ``paths`` with its modification time and size."""
    found = {}
    for path in paths:
        files = [path] if path.is_file() else path.rglob("*") if path.is_dir() else []
        for f in files:
            try:
                if f.is_file() and "__pycache__" not in f.parts:
                    st = f.stat()
                    found[f] = (st.st_mtime_ns, st.st_size)
            except OSError:  # removed while we looked: the next look sees it gone
                pass
    return found


class Preview:
    """One language staged and built in ``work``; ``rebuild`` brings it up to date."""

    def __init__(self, lang: str, root: Path, work: Path):
        self.lang, self.root, self.work = lang, Path(root).resolve(), work
        from macros.engine.database import RECIPES

        # the folder the database loads (macros.engine.database.cached_database's rule)
        self.recipes = Path(os.environ.get("RECIPES_ROOT") or RECIPES).resolve()
        self.code = Path(__file__).resolve().parents[1]
        self.stage = Stage(self.root, work, langs=(lang,))
        self.language = self.stage.languages[0]
        self.config = [self.root / name for name in CONFIGS] + [self.root / "overrides"]
        self.pages = [self.language.docs, self.stage.en_docs]
        self.seen = self._look()

    @property
    def site(self) -> Path:
        return self.stage.site_dir(self.language)

    @property
    def mount(self) -> str:
        return f"/{self.language.sub}/" if self.language.sub else "/"

    def watched(self) -> list[Path]:
        return [p for p in [*self.pages, self.recipes, self.code, *self.config] if p.exists()]

    def _look(self) -> dict[Path, tuple[int, int]]:
        return _snapshot(self.watched())

    def build(self, only: set[str] | None = None, serve_url: str | None = None) -> None:
        """Stage everything and build, or stage the page uris in ``only`` and rebuild only
        their pages (MkDocs' dirty build: the pages whose staged file is newer)."""
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        self.stage.stage(self.language, only)
        # a warning is printed, not fatal: the translator is in the middle of an edit
        config = load_config(str(self.stage.config_path(self.language)), strict=False)
        if serve_url:
            config.site_url = serve_url
        build(config, serve_url=serve_url, dirty=only is not None)
        self.stage.finish(self.language, "mkdocs", purge=False)

    def changes(self) -> tuple[str, set[str]]:
        """What changed since the last look: ("code" | "config" | "database" | "pages",
        the page uris to stage again), or ("", set()) when nothing did."""
        now = self._look()
        changed = {p for p in now.keys() | self.seen.keys() if now.get(p) != self.seen.get(p)}
        added_or_removed = now.keys() ^ self.seen.keys()
        self.seen = now
        if not changed:
            return "", set()
        if any(p.is_relative_to(self.code) for p in changed):
            return "code", set()
        if any(p == c or p.is_relative_to(c) for p in changed for c in self.config):
            return "config", set()
        if any(p.is_relative_to(self.recipes) for p in changed):
            return "database", set()
        pages = set()
        for p in changed:
            for docs in self.pages:
                if p.is_relative_to(docs):
                    pages.add(p.relative_to(docs).as_posix())
        if any(p.suffix == ".md" for p in added_or_removed):  # a stand-in appears or goes
            return "pages", set()
        return "pages", pages

    def rebuild(self, serve_url: str | None = None) -> str | None:
        """Bring the site up to date; what was rebuilt (for the log), or None if nothing."""
        from macros.engine.database import _cached

        self.stage.check_links()  # a link made while previewing: refused before it is walked
        kind, pages = self.changes()
        if not kind:
            return None
        if kind == "code":
            raise _Restart()
        if kind == "config":
            self.stage = Stage(self.root, self.work, langs=(self.lang,))
            self.language = self.stage.languages[0]
        if kind == "database":
            _cached.cache_clear()
        self.build(pages or None, serve_url)
        return ", ".join(sorted(pages)) if pages else f"every page ({kind} changed)"


def _error_page(site: Path, code: int) -> bytes | None:
    """The site's own 404 page for a missing path, as ``mkdocs serve`` answers."""
    page = site / f"{code}.html"
    return page.read_bytes() if page.is_file() else None


class _NotDirtyWarning(logging.Filter):
    """MkDocs warns at every dirty build that other pages' navigation may be stale: in the
    preview only a page's own text changes, so that warning says nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "'dirty' build" not in record.getMessage()


class _Restart(Exception):
    """The engine's code changed: only a new process runs it."""


GRACE = 0.8  # seconds the main thread gets to unwind after Ctrl-C or SIGTERM
WAKE = signal.SIGUSR1  # sent to the main thread only, by the preview itself; its handler does
# nothing: what ends the wait is the signal's arrival, what unwinds is the raised one


class _Stopper:
    """Ctrl-C and SIGTERM end the preview within a second and remove its temporary folder,
    whatever it is doing. Both signals are held in every thread and taken by one watcher
    thread, which raises them in the main thread (KeyboardInterrupt, ``Terminated``: the
    preview unwinds and cleans up as on any error) and sends that thread ``WAKE``: a real
    signal ends the system call it may be waiting in, such as a rebuild's wait for esbuild,
    which the raised exception then ends too (``subprocess`` kills its child on the way out).
    Raised alone, the exception would wait for the call, and the tool, left running, would
    write into the folder after it was removed: a supervisor's signal reaches the preview
    alone, not the tool beside it as a terminal's Ctrl-C does. Should the main thread still
    not be done within ``GRACE`` (a rebuild that does not give way, a machine too busy to let
    it), the watcher ends this process's children (``_end_children``: the tool a rebuild
    runs), removes the folder itself and ends the process with the signal's exit code.

    A signal taken while the block is being left is not acted on by the watcher: it is sent
    again, to be handled as usual once the handlers and the mask are back as they were."""

    SIGNALS = {signal.SIGINT, signal.SIGTERM}

    def __init__(self, work: Path):
        self.work = work
        self.done = threading.Event()
        self.stopped = False

    def __enter__(self) -> "_Stopper":
        self.held = signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)  # before any thread
        self.previous = signal.signal(signal.SIGTERM, _on_sigterm)
        self.previous_wake = signal.signal(WAKE, _woken)
        self.main = threading.main_thread().ident
        self.watcher = threading.Thread(target=self._watch, name="preview-signals", daemon=True)
        self.watcher.start()
        return self

    def _watch(self) -> None:
        while not self.stopped:
            got = signal.sigtimedwait(self.SIGNALS, 0.2)
            if got is None:
                continue
            if self.stopped:  # the block is being left: pending again until the mask is back
                os.kill(os.getpid(), got.si_signo)
                return
            _thread.interrupt_main(got.si_signo)
            signal.pthread_kill(self.main, WAKE)
            if self.done.wait(GRACE):
                return
            _end_children()  # a tool a rebuild runs would write on into the folder
            shutil.rmtree(self.work, ignore_errors=True)
            print("interrupted" if got.si_signo == signal.SIGINT else "terminated",
                  file=sys.stderr, flush=True)
            os._exit(128 + got.si_signo)

    def __exit__(self, *exc) -> None:
        self.stopped = True
        self.done.set()
        try:  # the watcher may be sending WAKE: its handler stays until the watcher is done
            self.watcher.join()
        finally:
            signal.signal(signal.SIGTERM, self.previous if self.previous is not None
                          else signal.SIG_DFL)
            signal.signal(WAKE, self.previous_wake if self.previous_wake is not None
                          else signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, self.held)


def _end_children(wait: float = 2.0) -> None:
    """Kill every child of this process (Linux: read from /proc) and wait up to ``wait``
    seconds until each has ended (a killed process may finish the system call it is in)."""
    me = os.getpid()
    children = []
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc: nothing to find them by
        return
    for entry in entries:
        fields = _stat(int(entry)) if entry.isdigit() else None
        if fields and int(fields[1]) == me:
            children.append(int(entry))
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(_running(pid) for pid in children):
        time.sleep(0.01)


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command's name (state, parent, ...); None
    when the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _running(pid: int) -> bool:
    """Whether ``pid`` runs: it ended once it is gone or a zombie (ended, not yet reaped)."""
    fields = _stat(pid)
    return bool(fields) and fields[0] != "Z"


def _on_sigterm(signum, frame):
    raise Terminated()


def _woken(signum, frame) -> None:
    """``WAKE``'s handler: nothing to do (the signal raised beside it unwinds)."""


class _Server:
    """MkDocs' live-reload server, bound before anything says it serves, watching without
    following symlinks (a link to / would otherwise have its poller walk the whole machine)."""

    def __init__(self, builder, host: str, port: int, root: Path, mount: str):
        from mkdocs.livereload import LiveReloadServer
        from watchdog.observers.polling import PollingObserverVFS

        self.server = server = LiveReloadServer(builder=builder, host=host, port=port,
                                                root=str(root), mount_path=mount)
        server.observer = PollingObserverVFS(os.lstat, os.scandir, polling_interval=0.5)
        try:
            server.server_bind()
            server.server_activate()
        except OverflowError:  # a port past 65535 given through the API
            server.server_close()
            raise PortProblem(f"{host}:{port}: not a port (1 to 65535)") from None
        except OSError as exc:
            server.server_close()
            why = {errno.EADDRINUSE: "the port is in use; give another --port",
                   errno.EACCES: "not allowed to listen there; give a --port above 1023"}
            raise PortProblem(f"{host}:{port}: "
                              f"{why.get(exc.errno, f'cannot listen: {exc.strerror or exc}')}"
                              ) from None
        server.server_bind = server.server_activate = lambda: None  # serve() does them again


class PortProblem(Exception):
    """The server cannot listen where it was asked to."""


def serve(lang: str, root: Path = ROOT, host: str = "127.0.0.1", port: int = 8000) -> int:
    """Serve ``lang`` with live reload until Ctrl-C or SIGTERM; the exit code."""
    logging.getLogger("mkdocs").setLevel(logging.WARNING)  # its per-build chatter, not warnings
    logging.getLogger("mkdocs.commands.build").addFilter(_NotDirtyWarning())
    work = Path(tempfile.mkdtemp(prefix=f"recipes-preview-{lang}-"))
    restart = False
    server = None
    try:
        with _Stopper(work):
            try:
                try:
                    preview = Preview(lang, root, work)
                except StageFailed as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    return 1
                url = f"http://{host}:{port}{preview.mount}"

                def builder():
                    nonlocal restart
                    started = time.perf_counter()
                    try:
                        what = preview.rebuild(serve_url=url)
                    except StageFailed as exc:  # the last good site stays served
                        print(f"error: {exc}", file=sys.stderr)
                        return
                    except _Restart:
                        restart = True
                        server.shutdown()
                        return
                    if what:
                        print(f"rebuilt {what} in {time.perf_counter() - started:.1f}s",
                              file=sys.stderr)

                try:  # bound first: a port in use is said before a build, not after it
                    server = _Server(builder, host, port, preview.site, preview.mount).server
                except PortProblem as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    return 1
                started = time.perf_counter()
                try:
                    preview.build(serve_url=url)
                except StageFailed as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    return 1
                print(f"built {preview.language.docs.relative_to(preview.root)} in "
                      f"{time.perf_counter() - started:.1f}s", file=sys.stderr)
                server.error_handler = lambda code: _error_page(preview.site, code)
                for path in preview.watched():
                    server.watch(str(path))
                # the watcher's first look at the files is taken here, before "serving": a save
                # made right after it is a change (serve() would start the watcher later)
                server.observer.start()
                server.observer.start = lambda: None
                print(f"serving {lang} on {url} (live reload; Ctrl-C stops)", file=sys.stderr)
                server.serve()
            finally:
                if server is not None:
                    server.shutdown()
                shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # a signal before the inner block began
    if restart:
        print("macros/ changed: restarting", file=sys.stderr)
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    return 0
