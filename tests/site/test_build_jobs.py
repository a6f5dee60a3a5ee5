"""Languages built at the same time (``recipes build --jobs``): the root site in the build's
own process, every other language in a forked worker; the same site as one after the other,
the same failure messages, and no worker or scratch left behind whatever happens."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from helpers.models import HOME_MODELS
from helpers.project import project_copy, recipes_root
from macros.site import build as build_module
from macros.site.build import MARKER, BuildFailed, build_jobs, build_site


def site_files(site: Path) -> dict[str, bytes]:
    """Every file's bytes (a gzip file's content: its header holds the time it was written;
    the marker's list of what was written: the rest names the folder it is in)."""
    out = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            out[path.relative_to(site).as_posix()] = gzip.decompress(data) \
                if path.suffix == ".gz" else json.loads(data)["entries"] \
                if path.name == MARKER else data
    return out


def children() -> set[int]:
    """This process's child processes (Linux: from /proc)."""
    found = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        text = (task / "children").read_text()
        found |= {int(pid) for pid in text.split()}
    return found


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The whole project: for what every model's pages take part in (the same bytes either
    way, a page of results per model)."""
    return project_copy(tmp_path_factory.mktemp("jobs"))


@pytest.fixture(scope="module")
def small_copy(tmp_path_factory):
    return project_copy(tmp_path_factory.mktemp("jobs-small"), HOME_MODELS)


@pytest.fixture
def small(small_copy):
    """A copy holding only the models its home page shows (``HOME_MODELS``), built from its own
    recipes folder while the test runs: for how the build runs its languages (workers, threads,
    signals, failures), which no model changes; so these tests' time does not grow with the
    number of models."""
    with recipes_root(small_copy / "recipes"):
        yield small_copy


@pytest.fixture
def alone():
    """This process with its main thread only, as the fork path needs. A browser test earlier in
    the same process leaves the shared Playwright running, and asyncio keeps a thread waiting on
    its driver: the browser is stopped (the next browser test launches another) and its threads
    are given a moment to end. Whatever thread is still running is named, not built around."""
    from helpers.browser import _Shared

    _Shared.stop()
    deadline = time.monotonic() + 15
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    others = [t.name for t in threading.enumerate() if t is not threading.current_thread()]
    assert not others, f"other threads run in this process, the build would not fork: {others}"


@pytest.fixture
def forks(monkeypatch, alone):
    """Counts the build's forks (in this process: the workers never return here)."""
    calls = []
    real = os.fork

    def fork():
        calls.append(1)
        return real()
    monkeypatch.setattr(build_module.os, "fork", fork)
    return calls


def test_languages_built_at_once_make_byte_for_byte_the_site_built_one_after_the_other(
        project, tmp_path, forks):
    """Also with a theme file in a ko/ folder: the root site's engine copies the theme's files,
    that folder among them; the Korean site's engine would empty it first, and so does the
    move of the worker's site (one pair of builds for both: each costs seconds a model)."""
    extra = project / "overrides" / "ko" / "stray.txt"
    extra.parent.mkdir()
    extra.write_text("a theme file\n", encoding="utf-8")
    try:
        together = build_site(out=tmp_path / "together", root=project, quiet=True, jobs=2)
        assert len(forks) == 1  # the Korean site came from a worker
        apart = build_site(out=tmp_path / "apart", root=project, quiet=True, jobs=1)
    finally:
        shutil.rmtree(extra.parent)
    assert len(forks) == 1
    files = site_files(together)
    assert any(name.startswith("ko/") for name in files) and "llms.txt" in files
    assert files == site_files(apart)
    assert "ko/stray.txt" not in files


def broken(project: Path, page: str):
    """A page whose macro call names no model: the build fails on it."""
    path = project / page
    original = path.read_text(encoding="utf-8")
    path.write_text(original + '\n{{ matrix("no-such-model") }}\n', encoding="utf-8")
    return path, original


def test_a_failure_reads_the_same_either_way_and_leaves_no_worker_and_no_scratch(
        small, tmp_path, forks):
    """A page that fails in the worker (Korean) and one that fails in the root site (English),
    each built one after the other and at once, over the same previous site."""
    out = tmp_path / "site"
    before = build_site(out=out, root=small, quiet=True, jobs=1)
    kept = site_files(before)
    running = children()
    for n, page in enumerate(("docs/ko/index.md", "docs/en/index.md"), start=1):
        path, original = broken(small, page)
        try:
            messages = []
            for jobs in (1, 2):
                with pytest.raises(BuildFailed) as exc:
                    build_site(out=out, root=small, quiet=True, jobs=jobs)
                messages.append(str(exc.value))
        finally:
            path.write_text(original, encoding="utf-8")
        assert len(forks) == n, page
        assert messages[0] == messages[1]
        assert messages[0].startswith(f"{page}:") and "no-such-model" in messages[0]
        assert children() <= running
        assert site_files(out) == kept
        assert not list((tmp_path / ".build").glob("site-*"))


def test_a_worker_that_dies_fails_the_build_with_its_exit_status(small, tmp_path, monkeypatch,
                                                                  alone):
    parent = os.getpid()

    def killed(stage, language, quiet):
        if language.lang != "en":
            assert os.getpid() != parent, "built in the test's own process: no worker to kill"
            os._exit(9)
        return real(stage, language, quiet)
    real = build_module._check_language
    monkeypatch.setattr(build_module, "_check_language", killed)
    with pytest.raises(BuildFailed) as exc:
        build_site(out=tmp_path / "site", root=small, quiet=True, jobs=2)
    assert str(exc.value) == "mkdocs.ko.yml: its build process ended without a word (exit status 9)"
    assert not (tmp_path / "site").exists()


def test_with_another_thread_running_the_languages_are_built_one_after_the_other(
        small, tmp_path, forks):
    """A fork copies only the calling thread; a lock another thread holds would never open."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        site = build_site(out=tmp_path / "site", root=small, quiet=True, jobs=2)
    finally:
        stop.set()
        other.join()
    assert forks == []
    assert (site / "ko" / "index.html").is_file()


def test_the_number_of_jobs_comes_from_the_call_then_the_environment_then_the_cpus(monkeypatch):
    monkeypatch.setenv("RECIPES_BUILD_JOBS", "3")
    assert (build_jobs(1), build_jobs(None)) == (1, 3)
    monkeypatch.delenv("RECIPES_BUILD_JOBS")
    assert build_jobs(None) == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_jobs_setting_that_is_not_a_whole_number_is_refused(cli, monkeypatch, tmp_path, value):
    monkeypatch.setenv("RECIPES_BUILD_JOBS", value)
    r = cli("build", "--out", str(tmp_path / "site"))
    assert (r.code, r.err) == (1, f"error: build failed, the previous site is untouched: "
                                  f"RECIPES_BUILD_JOBS='{value}' is not a whole number of at "
                                  "least 1\n")
    monkeypatch.delenv("RECIPES_BUILD_JOBS")
    r = cli("build", "--out", str(tmp_path / "site"), "--jobs", value)
    assert r.code == 2 and f"argument --jobs: '{value}' is not a whole number of at least 1" \
        in r.err
    assert not (tmp_path / "site").exists()


def test_the_build_help_names_the_jobs_option(cli):
    r = cli("build", "--help")
    assert "--jobs N" in r.out and "RECIPES_BUILD_JOBS" in r.out


def test_without_fork_the_languages_are_built_one_after_the_other(small, tmp_path,
                                                                  monkeypatch):
    monkeypatch.delattr(build_module.os, "fork")
    site = build_site(out=tmp_path / "site", root=small, quiet=True, jobs=2)
    assert (site / "ko" / "index.html").is_file()
    shutil.rmtree(site)


SLOW_BUILD = """
import os, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from macros.site import build

def slow(stage, language, quiet):
    print(os.getpid(), language.lang, flush=True)
    time.sleep(120)
build._check_language = slow
build.build_site(out=Path({out!r}), root=Path({project!r}), quiet=True, jobs=2)
"""


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in state  # ended, waiting for a parent to reap it


def test_a_worker_ends_when_its_build_is_killed_outright(project, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    code = SLOW_BUILD.format(root=str(Path(build_module.__file__).parents[2]),
                             out=str(tmp_path / "site"), project=str(project))
    build = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        pids = dict(reversed(build.stdout.readline().split()) for _ in range(2))
        build.send_signal(signal.SIGKILL)
        build.wait()
        deadline = time.monotonic() + 10
        while not gone(int(pids["ko"])) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(int(pids["ko"]))
    finally:
        build.kill()
        build.wait()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_root_site_file_where_another_language_goes_is_refused_either_way(small, tmp_path,
                                                                           jobs):
    page = small / "docs/en/ko/index.md"
    page.parent.mkdir()
    page.write_text("# In the way { #in-the-way }\n", encoding="utf-8")
    try:
        with pytest.raises(BuildFailed) as exc:
            build_site(out=tmp_path / "site", root=small, quiet=True, jobs=jobs)
    finally:
        shutil.rmtree(page.parent)
    assert str(exc.value) == ("docs/en/ko/index.md: the folder ko/ of this site is where "
                              "another language's site goes; move the file")


def test_an_ignored_sigchld_does_not_lose_the_workers_report(small, tmp_path, forks):
    import signal

    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # as a launcher may leave it
    try:
        site = build_site(out=tmp_path / "site", root=small, quiet=True, jobs=2)
        assert signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN  # given back as it was
    finally:
        signal.signal(signal.SIGCHLD, before)
    assert len(forks) == 1 and (site / "ko" / "index.html").is_file()


@pytest.mark.parametrize("suffix", [".markdown", ".mdown", ".mkdn", ".mkd"])
def test_a_page_mkdocs_would_read_without_its_checks_is_refused(small, tmp_path, suffix):
    page = small / f"docs/en/other{suffix}"
    page.write_text("# Other\n\n[x](javascript:alert(1))\n", encoding="utf-8")
    try:
        with pytest.raises(BuildFailed) as exc:
            build_site(out=tmp_path / "site", root=small, quiet=True)
    finally:
        page.unlink()
    assert str(exc.value) == (f"docs/en/other{suffix}: MkDocs reads a {suffix} file as a page, "
                              "but the site's pages are .md files (their macros, notices and "
                              "checks run only on those); rename it to .md")


def test_results_no_page_publishes_fail_the_build(project, tmp_path):
    """Every model with benchmarks.yaml: its benchmarks page left without the macro (in both
    languages, as a maintainer who moved it away might) fails the build, naming the file and the
    page to write, and no site is made."""
    from macros.engine.database import cached_database

    db = cached_database()
    for model_id in [m for m in db.models if db.model(m).benchmarks is not None]:
        pages = [project / "docs" / lang / "models" / model_id / "benchmarks.md"
                 for lang in ("en", "ko")]
        kept = [page.read_text(encoding="utf-8") for page in pages]
        call = f'{{{{ benchmarks("{model_id}") }}}}'
        try:
            for page, text in zip(pages, kept):
                assert call in text
                page.write_text(text.replace(call, ""), encoding="utf-8")
            with pytest.raises(BuildFailed) as exc:
                build_site(out=tmp_path / model_id, root=project, quiet=True)
        finally:
            for page, text in zip(pages, kept):
                page.write_text(text, encoding="utf-8")
        assert (f"recipes/{model_id}/benchmarks.yaml: no page of the en site publishes these "
                f"results: write docs/en/models/{model_id}/benchmarks.md with {call}"
                in str(exc.value))
        assert not (tmp_path / model_id).exists()
