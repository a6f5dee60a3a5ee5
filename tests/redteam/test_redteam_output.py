"""Issue #20, second hardening pass: what the build's output and the live preview may touch.

An output folder is the build's only when everything in it is the build's (its marker names the
folder and lists what the build wrote): a GitHub Pages worktree with a copied or linked marker,
or one that merely looks like an old site, keeps its .git, CNAME and notes. A symlink to a
folder or out of docs/ or recipes/ is refused before anything walks it, by the build and the
preview. The preview binds its port before it says it serves, bounds its numbers, and ends on
Ctrl-C and SIGTERM within a second, its temporary folder removed, whatever it was doing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.models import HOME_MODELS
from helpers.project import recipes_root, standalone_copy
from macros.site.build import MARKER, build_site

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def snapshot(path: Path) -> dict[str, object]:
    """Every name under ``path`` with its bytes (files) or target (links); links not followed."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            full = Path(folder, name)
            key = full.relative_to(path).as_posix()
            found[key] = (("link", os.readlink(full)) if full.is_symlink() else
                          full.read_bytes() if full.is_file() else "dir")
    return found


@pytest.fixture
def fake_engine(monkeypatch):
    """The build's own checks, marker and swap run unchanged; the engine writes two pages and
    the stage only its configs (the pages themselves are not the point here)."""
    import mkdocs.commands.build as mkdocs_build

    from macros.site.stage import Stage

    monkeypatch.setattr(Stage, "stage", lambda self, language, only=None:
                        self.write_config(language))
    monkeypatch.setattr(Stage, "finish", lambda self, language, engine: None)

    def build(cfg):
        site = Path(cfg["site_dir"])
        site.mkdir(parents=True, exist_ok=True)
        (site / "index.html").write_text("new", encoding="utf-8")
    monkeypatch.setattr(mkdocs_build, "build", build)


def deploy_folder(tmp_path: Path) -> Path:
    """A GitHub Pages worktree: a .git, a CNAME and a person's notes beside a published site."""
    deploy = tmp_path / "gh-pages"
    (deploy / ".git").mkdir(parents=True)
    (deploy / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    (deploy / "CNAME").write_text("recipes.example.org\n")
    (deploy / "notes.md").write_text("# what to check before publishing\n")
    (deploy / "index.html").write_text("the published site")
    return deploy


def refused(cli, out: Path) -> str:
    """``recipes build --out`` refuses ``out`` with one error line and changes nothing there."""
    before = snapshot(out.parent)
    r = cli("build", "--out", str(out), "--quiet", "--jobs", "1")
    assert r.code == 1 and r.err.count("\n") == 1 and "Traceback" not in r.err, r.err
    assert snapshot(out.parent) == before
    return r.err


# --- 1. an output folder is the build's only when all in it is ----------------------------

def test_a_copied_marker_does_not_make_a_deploy_folder_the_builds(cli, tmp_path, fake_engine):
    site = build_site(out=tmp_path / "site", quiet=True, jobs=1)
    deploy = deploy_folder(tmp_path)
    shutil.copy(site / MARKER, deploy / MARKER)
    err = refused(cli, deploy)
    assert f"its {MARKER} was written for another folder ({site})" in err


def test_a_linked_marker_is_refused_and_the_deploy_folder_keeps_git_and_cname(cli, tmp_path,
                                                                              fake_engine):
    site = build_site(out=tmp_path / "site", quiet=True, jobs=1)
    deploy = deploy_folder(tmp_path)
    (deploy / MARKER).symlink_to(site / MARKER)
    assert f"its {MARKER} is a symbolic link, not the marker a build writes" in \
        refused(cli, deploy)


def test_a_folder_that_looks_like_an_old_site_is_refused_naming_what_it_holds(cli, tmp_path,
                                                                             fake_engine):
    deploy = deploy_folder(tmp_path)
    (deploy / "ko").mkdir()
    (deploy / "assets" / "recipes").mkdir(parents=True)
    (deploy / "llms.txt").write_text("# llms\n")
    err = refused(cli, deploy)
    assert (f"is a folder the build did not make (no {MARKER} inside) and is not empty (it "
            "holds .git/, CNAME, assets/, index.html, ko/, llms.txt, notes.md)") in err


def test_a_site_of_ours_with_a_persons_file_added_is_refused_naming_the_file(cli, tmp_path,
                                                                             fake_engine):
    site = build_site(out=tmp_path / "site", quiet=True, jobs=1)
    (site / "CNAME").write_text("recipes.example.org\n")
    (site / "ko" / "notes").mkdir()
    (site / "ko" / "notes" / "todo.md").write_text("translate the guide\n")
    (site / "photo.jpg").symlink_to(tmp_path / "elsewhere.jpg")
    err = refused(cli, site)
    assert ("holds what the build did not write (CNAME, photo.jpg (a symbolic link), "
            "ko/notes/), which replacing the folder would delete") in err


def test_a_copy_of_a_site_with_its_marker_is_not_the_builds(cli, tmp_path, fake_engine):
    site = build_site(out=tmp_path / "site", quiet=True, jobs=1)
    copy = tmp_path / "copy"
    shutil.copytree(site, copy)
    assert f"its {MARKER} was written for another folder ({site})" in refused(cli, copy)


@pytest.mark.parametrize("content,why", [
    (b"Made by `recipes build`; the next build replaces this folder whole.\n",
     "was made by an older `recipes build`, whose .recipes-site does not list what it wrote, "
     "so nothing says the folder holds only that: look through it, remove it yourself "
     "(rm -r {out}) and build again"),
    (b'{"format": "recipes-site 2", "folder": 1}',
     "its .recipes-site is not a marker a build wrote (format 'recipes-site 2')"),
    (b"\xff\xfe not json", "its .recipes-site is not a marker a build wrote (format "
                           "'recipes-site 2')"),
], ids=["older build's marker", "wrong fields", "not JSON"])
def test_a_marker_that_is_not_ours_is_refused_with_what_to_do(cli, tmp_path, fake_engine,
                                                            content, why):
    out = tmp_path / "site"
    (out / "ko").mkdir(parents=True)
    (out / "index.html").write_text("old")
    (out / MARKER).write_bytes(content)
    assert refused(cli, out) == f"error: {out}: {why.format(out=out)}; give a folder of its " \
                                "own, e.g. site/\n"


def test_the_marker_lists_what_the_build_wrote_and_names_its_folder(tmp_path, fake_engine):
    out = tmp_path / "site"
    assert not out.exists()  # as in a fresh clone
    build_site(out=out, quiet=True, jobs=1)
    marker = json.loads((out / MARKER).read_text(encoding="utf-8"))
    st = os.stat(out)
    assert (marker["folder"], marker["device"], marker["inode"]) == (str(out), st.st_dev,
                                                                      st.st_ino)
    assert {"index.html", "ko/", "ko/index.html"} <= set(marker["entries"])
    assert MARKER not in marker["entries"]
    (out / "index.html").write_text("edited by hand")  # the build's own file: replaced
    build_site(out=out, quiet=True, jobs=1)
    assert (out / "index.html").read_text() == "new"


def test_make_clean_removes_only_a_site_the_build_made_and_never_through_a_linked_marker(
        tmp_path, fake_engine):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "Makefile", project / "Makefile")
    shutil.copytree(ROOT / "macros", project / "macros",
                    ignore=shutil.ignore_patterns("__pycache__"))
    made = build_site(out=tmp_path / "made", quiet=True, jobs=1)

    def make_clean() -> subprocess.CompletedProcess:
        return subprocess.run(["make", "-s", "clean", f"PYTHON={PYTHON}"], cwd=project,
                              capture_output=True, text=True, timeout=60)

    site = project / "site"
    deploy = deploy_folder(tmp_path)
    deploy.rename(site)
    (site / MARKER).symlink_to(made / MARKER)
    before = snapshot(site)
    run = make_clean()
    assert run.returncode == 0 and snapshot(site) == before
    assert "symbolic link" in run.stderr and "left alone" in run.stderr
    shutil.rmtree(site)
    shutil.copytree(made, site)  # a copy: its marker names another folder
    before = snapshot(site)
    run = make_clean()
    assert snapshot(site) == before and "written for another folder" in run.stderr
    shutil.rmtree(site)
    made.rename(site)  # the folder the build made (moved: its inode says it is the same)
    run = make_clean()
    assert run.returncode == 0 and not site.exists(), run.stderr


# --- 3. symlinks to folders or out of docs/ and recipes/ ----------------------------------

def child_env(tmp: Path) -> dict[str, str]:
    """The environment of a child run in a project copy: its own recipes, its own TMPDIR (so
    what it leaves behind is seen)."""
    tmp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "RECIPES_ROOT"}
    env["TMPDIR"] = str(tmp)
    return env


LINK_TO_ROOT = ("docs/ko/root: is a symbolic link to a folder outside docs/ (/); the site is "
                "made only from what is inside docs/ itself, following no link to a folder or "
                "out of it: put the files themselves there instead")


def test_a_link_to_the_file_system_root_in_docs_ko_fails_the_build_at_once(tmp_path):
    root = standalone_copy(tmp_path, HOME_MODELS)  # the link is the subject, not a model
    (root / "docs/ko/root").symlink_to("/")
    site = tmp_path / "site"
    started = time.monotonic()
    run = subprocess.run([PYTHON, "-m", "macros.cli", "build", "--out", str(site), "--quiet"],
                         cwd=root, capture_output=True, text=True, timeout=60,
                         env=child_env(tmp_path / "tmp"))
    assert time.monotonic() - started < 30
    assert (run.returncode, run.stderr) == (
        1, f"error: build failed, the previous site is untouched: {LINK_TO_ROOT}\n")
    assert not site.exists() and not (tmp_path / ".build").exists()


def test_a_linked_folder_inside_docs_is_refused_naming_the_link(tmp_path):
    from macros.site.build import BuildFailed
    from helpers.project import project_copy as linked_copy

    root = linked_copy(tmp_path)
    (root / "docs/ko/more-guides").symlink_to(root / "docs/ko/guides")
    with pytest.raises(BuildFailed) as exc:
        build_site(out=tmp_path / "site", root=root, quiet=True)
    assert str(exc.value) == (
        f"docs/ko/more-guides: is a symbolic link to a folder ({root / 'docs/ko/guides'}); "
        "the site is made only from what is inside docs/ itself, following no link to a "
        "folder or out of it: put the files themselves there instead")


def test_a_link_out_of_the_recipes_folder_is_refused_before_the_database_loads(
        tmp_path, recipes_copy):
    from macros.site.build import BuildFailed

    (recipes_copy / "everything").symlink_to("/")
    (recipes_copy / "catalog" / "passwd.yaml").symlink_to("/etc/passwd")
    with recipes_root(recipes_copy), pytest.raises(BuildFailed) as exc:
        build_site(out=tmp_path / "site", quiet=True)
    tail = (f"; the site is made only from what is inside {recipes_copy}/ itself, following "
            "no link to a folder or out of it: put the files themselves there instead")
    assert str(exc.value).splitlines() == [
        f"{recipes_copy}/everything: is a symbolic link to a folder outside {recipes_copy}/ "
        "(/)" + tail,
        f"{recipes_copy}/catalog/passwd.yaml: is a symbolic link to a file outside "
        f"{recipes_copy}/ (/etc/passwd)" + tail]


# --- the live preview ---------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Preview:
    """``recipes serve --lang ko`` run in a project copy, its stderr collected."""

    def __init__(self, root: Path, tmp: Path, port: int | None = None,
                 env: dict[str, str] | None = None):
        self.port = port or free_port()
        self.tmp = tmp
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "macros.cli", "serve", "--lang", "ko", "--port", str(self.port)],
            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=child_env(tmp) | (env or {}))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 120) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(text in line for line in self.lines):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no line with {text!r} in:\n" + "\n".join(self.lines))

    def work(self) -> list[Path]:
        return sorted(self.tmp.glob("recipes-preview-ko-*"))

    def end(self, timeout: float = 30) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def preview_copy(tmp_path):
    """A copy holding only the models its home page shows (``HOME_MODELS``): how the preview
    starts, rebuilds and ends is the subject, the same for any model."""
    root = standalone_copy(tmp_path, HOME_MODELS)
    started: list[Preview] = []

    def start(port: int | None = None, env: dict[str, str] | None = None) -> Preview:
        started.append(Preview(root, tmp_path / f"tmp{len(started)}", port, env))
        return started[-1]
    yield root, start
    for p in started:
        if p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait()


def test_the_preview_refuses_a_link_to_the_root_at_once_and_leaves_nothing(preview_copy):
    root, start = preview_copy
    (root / "docs/ko/root").symlink_to("/")
    server = start()
    assert server.end(timeout=60) == 1
    assert server.lines == [f"error: {LINK_TO_ROOT}"]
    assert server.work() == []


def test_a_link_made_while_previewing_is_refused_and_the_preview_goes_on(preview_copy):
    root, start = preview_copy
    server = start()
    server.wait_for("serving ko on ")
    (root / "docs/ko/root").symlink_to("/")
    server.wait_for(f"error: {LINK_TO_ROOT}", timeout=120)
    assert server.proc.poll() is None
    server.proc.send_signal(signal.SIGINT)
    assert server.end() == 130


def staged_config(server: Preview) -> Path:
    (work,) = server.work()
    return work / "stage" / "mkdocs.ko.yml"


@pytest.mark.parametrize("during", ["serving", "a rebuild"])
@pytest.mark.parametrize("signum,code,said", [(signal.SIGINT, 130, "interrupted"),
                                              (signal.SIGTERM, 143, "terminated")],
                         ids=["Ctrl-C", "SIGTERM"])
def test_ctrl_c_and_sigterm_end_the_preview_at_once_and_remove_its_folder(
        preview_copy, signum, code, said, during):
    root, start = preview_copy
    server = start()
    server.wait_for("serving ko on ")
    assert len(server.work()) == 1
    if during == "a rebuild":  # a database edit restages every page: seconds of work
        config = staged_config(server)
        written = config.stat().st_mtime_ns
        text = root / "recipes/catalog/text.ko.yaml"
        text.write_text(text.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        end = time.monotonic() + 120
        while config.stat().st_mtime_ns == written:  # the rebuild has begun staging
            assert time.monotonic() < end, "no rebuild began"
            time.sleep(0.02)
    server.proc.send_signal(signum)
    assert server.end() == code
    # at once: a rebuild under way is abandoned, not finished first (no "rebuilt" line); the
    # time it takes is make bench's to measure, not a test's (a busy machine stretches it)
    assert not any(line.startswith("rebuilt ") for line in server.lines)
    assert server.lines[-1] == said
    assert server.work() == []


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_the_preview_alone_while_a_rebuild_runs_a_tool_ends_the_tool_too(
        preview_copy, tmp_path, signum, code):
    """A supervisor (systemd, Docker, a test) signals the preview's process only, not its
    process group as a terminal's Ctrl-C does: a rebuild waiting for esbuild is woken, the
    tool is ended with it, so nothing it would write later brings the removed folder back.
    The stand-in esbuild says its process id and waits, once the test asks it to; otherwise
    it runs the real one."""
    from helpers.browser import require_esbuild
    from helpers.processes import ended
    from macros.site.bundle import esbuild

    require_esbuild()
    root, start = preview_copy
    flags = tmp_path / "flags"
    flags.mkdir()
    slow = tmp_path / "slow-esbuild"
    slow.write_text(f'#!/bin/sh\nif [ -e "{flags}/slow" ]; then echo $$ > "{flags}/pid"; '
                    f'exec sleep 60; fi\nexec "{esbuild()}" "$@"\n', encoding="utf-8")
    slow.chmod(0o755)
    server = start(env={"RECIPES_ESBUILD": str(slow)})
    server.wait_for("serving ko on ")
    (flags / "slow").touch()
    text = root / "recipes/catalog/text.ko.yaml"
    text.write_text(text.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    end = time.monotonic() + 120
    while not (flags / "pid").exists() or not (flags / "pid").read_text().strip():
        assert time.monotonic() < end and server.proc.poll() is None, server.lines
        time.sleep(0.02)
    tool = int((flags / "pid").read_text())
    server.proc.send_signal(signum)
    assert server.end() == code
    assert ended(tool), ("the tool outlived the preview", server.lines)
    assert server.work() == []


_STOPPER = """
import os, signal, sys, tempfile, time
from pathlib import Path
from macros.site.preview import _Stopper
# Ctrl-C handled as Python handles it when its parent leaves it on: a script's background job
# (how a test run may be started) inherits it ignored, and Python then leaves it so
signal.signal(signal.SIGINT, signal.default_int_handler)
work = Path(tempfile.mkdtemp())
try:
    with _Stopper(work):
        time.sleep(0.3)  # the watcher waits for a signal
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))  # and it comes as the block ends
except KeyboardInterrupt:
    print("interrupted", flush=True)
time.sleep(0.5)
print("went on", flush=True)
"""


@pytest.mark.parametrize("name,code,said", [("SIGINT", 0, "interrupted\nwent on\n"),
                                            ("SIGTERM", -signal.SIGTERM, "")],
                         ids=["SIGINT", "SIGTERM"])
def test_a_signal_as_the_preview_leaves_its_watch_is_handled_as_usual(tmp_path, name, code,
                                                                      said):
    """A signal the watcher takes while the preview leaves the watched block (a port in use,
    a restart, a failed first build) is not acted on by the watcher then: it is sent again and
    handled once the handlers are back (Ctrl-C: KeyboardInterrupt; SIGTERM: the default,
    which ends the process). Before, the watcher's wake-up signal could arrive after its
    handler was gone and kill the process with SIGUSR1."""
    done = subprocess.run([PYTHON, "-c", _STOPPER, name], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=child_env(tmp_path))
    assert (done.returncode, done.stdout) == (code, said), done.stderr


def test_the_preview_ends_its_children_and_waits_for_them(tmp_path):
    """``_end_children``, the watcher's last resort (run in a child process: it ends every
    child of the process it runs in): a child that would go on writing is killed, and
    ended by the time the call returns."""
    script = ("import subprocess\n"
              "from macros.site.preview import _end_children, _running\n"
              "kids = [subprocess.Popen(['sleep', '60']) for _ in range(2)]\n"
              "_end_children()\n"
              "print([_running(k.pid) for k in kids], [k.wait() for k in kids])\n")
    done = subprocess.run([PYTHON, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env=child_env(tmp_path))
    assert done.stdout == f"[False, False] [{-signal.SIGKILL}, {-signal.SIGKILL}]\n", done.stderr


# --- 5. numbers on the command line, and the port ----------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["serve", "--port", "99999"], "argument --port: '99999' is not a whole number of at "
                                   "least 1 and at most 65535"),
    (["serve", "--port", "-1"], "argument --port: '-1' is not a whole number of at least 1 "
                                "and at most 65535"),
    (["serve", "--port", "0"], "argument --port: '0' is not a whole number of at least 1 and "
                               "at most 65535"),
    (["build", "--jobs", "100000"], "argument --jobs: '100000' is not a whole number of at "
                                    "least 1 and at most 1024"),
    (["build", "--jobs", "٣"], "argument --jobs: '٣' is not a whole number of at least 1 and "
                               "at most 1024"),
], ids=["port above 65535", "negative port", "port 0", "a huge --jobs", "non-ASCII digits"])
def test_numbers_on_the_command_line_are_bounded_with_a_usage_error(tmp_path, argv, message):
    where = ["--out", str(tmp_path / "site")] if argv[0] == "build" else ["--lang", "ko"]
    run = subprocess.run([PYTHON, "-m", "macros.cli", *argv, *where], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env=child_env(tmp_path / "tmp"))
    assert run.returncode == 2 and run.stderr.endswith(f"error: {message}\n"), run.stderr
    assert "serving" not in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "site").exists() and list((tmp_path / "tmp").iterdir()) == []


def test_a_port_in_use_is_one_error_line_before_any_build_and_never_serving(preview_copy):
    root, start = preview_copy
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = start(port)
        assert server.end(timeout=60) == 1
    assert server.lines == [f"error: 127.0.0.1:{port}: the port is in use; give another --port"]
    assert server.work() == []
