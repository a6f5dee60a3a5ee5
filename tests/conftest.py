"""Shared fixtures for the suite; Sybil wiring for the docs lives in docs/conftest.py."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/standin, tests/helpers


@pytest.fixture(scope="session")
def db():
    from macros.engine.database import cached_database

    return cached_database()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """Both languages built once per run into a temporary folder (English at the root); one
    build for all xdist workers (helpers/shared.py). Its readers only read it."""
    from helpers.shared import once_per_run
    from macros.site.build import build_site

    return once_per_run(tmp_path_factory, "site",
                        lambda folder: build_site(out=folder / "site", quiet=True))


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory):
    """(recipes, site, flags file): the database poisoned (helpers/hostile.py) and both
    languages built from it, once per run for all xdist workers; its readers only read it."""
    from helpers.hostile import build_poisoned
    from helpers.shared import once_per_run

    return once_per_run(tmp_path_factory, "hostile", build_poisoned)


@pytest.fixture(scope="session")
def outdated_site(tmp_path_factory):
    """(project, site): a copy of the project whose Korean translate guide is missing and whose
    English home gained a sentence (so the Korean home is outdated), built once per run with
    MkDocs (one build for all xdist workers). Its readers (test_site, test_engines) only read
    it."""
    from helpers.shared import once_per_run

    return once_per_run(tmp_path_factory, "outdated", _outdated_project)


def _outdated_project(folder: Path) -> tuple[Path, Path]:
    from helpers.project import project_copy
    from macros.site.build import build_site

    root = project_copy(folder)
    (root / "docs/ko/guides/translate.md").unlink()  # shown from English, with its notice
    home = root / "docs/en/index.md"
    home.write_text(home.read_text(encoding="utf-8") + "\nA new English sentence.\n",
                    encoding="utf-8")  # the Korean home is now outdated
    return root, build_site(out=root / "site", root=root, quiet=True)


def pytest_configure(config):
    from helpers.sybil_docs import register_counts

    register_counts(config)


def pytest_sessionfinish(session):
    from helpers.browser import stop_chromium

    stop_chromium()  # the run's one Chromium (helpers/browser.py), if a test started it


def pytest_terminal_summary(terminalreporter):
    from helpers.sybil_docs import print_summary

    print_summary(terminalreporter)


@pytest.fixture
def recipes_copy(tmp_path):
    """A private copy of recipes/ a test may break on purpose."""
    target = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", target)
    return target


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(monkeypatch):
    """Run the ``recipes`` CLI in-process: cli("command", "kimi-k3", ...).

    A command without ``--root`` reads the repository's own recipes/, which no test changes:
    it gets this process's one loaded database (``database._cached``, as ``db`` and the page
    macros do) instead of loading and validating every file again for each call (0.4 CPU-s a
    call, and the suite makes thousands). ``--root`` (a copy a test may break) loads as the
    real command does."""
    from macros import cli as cli_module
    from macros.cli import main
    from macros.engine.database import RECIPES, _cached

    load = cli_module._db
    monkeypatch.setattr(cli_module, "_db",
                        lambda args: load(args) if args.root else _cached(str(RECIPES)))

    def run(*argv: str, stdin: str | None = None) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        old_stdin = sys.stdin
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(list(argv))
                except SystemExit as exc:  # argparse usage errors
                    code = exc.code if isinstance(exc.code, int) else 2
        finally:
            sys.stdin = old_stdin
        return CliResult(code, out.getvalue(), err.getvalue())

    return run


def pytest_collection_modifyitems(config, items):
    """The defects left open (tests/known_defects.py): xfail, not strict; one skip. Under
    ``--dist loadgroup`` a worker also writes down each test's group (``_module_group``)."""
    from known_defects import KNOWN, SKIPPED

    for item in items:
        if item.nodeid in KNOWN:
            item.add_marker(pytest.mark.xfail(reason=KNOWN[item.nodeid], strict=False))
        elif item.nodeid in SKIPPED:
            item.add_marker(pytest.mark.skip(reason=SKIPPED[item.nodeid]))
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and config.getvalue("loadgroup") and config.option.basetemp:
        groups = {item.nodeid: group for item in items if (group := _module_group(item))}
        shared = Path(config.option.basetemp).parent  # the controller's base folder
        (shared / f"xdist-groups-{worker}.json").write_text(json.dumps(groups),
                                                            encoding="utf-8")


def _module_group(item) -> str | None:
    """Under ``make test`` (``-n auto --dist loadgroup``) tests are handed to the workers one
    by one, and a module-scoped fixture (a site built from poisoned data, a project copy, a
    stand-in per model) would be set up again by every worker that runs one of its tests. A
    test that uses one joins the group of its module (and of the fixture's parameter), which
    one worker runs whole; every other test goes to whichever worker is free. The tests that
    read pages as they open (marker ``page_visits``: helpers/visits.py) form one group, so each
    page is visited once for all of them."""
    if item.get_closest_marker("page_visits"):
        return "group:page-visits"
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    params = getattr(getattr(item, "callspec", None), "params", {})
    scoped = sorted(name for name in info.names_closure
                    for fixturedef in info.name2fixturedefs.get(name, ())[-1:]
                    if fixturedef.scope in ("module", "class"))
    if not scoped:
        return None
    keys = [str(params[name]) for name in scoped if name in params]
    return "group:" + "::".join([item.nodeid.split("::")[0], *keys])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` by the groups the workers wrote down (``_module_group``).

    pytest-xdist 3.8 marks a test's group by appending ``@group`` to its node id, which pytest
    9.2's node ids no longer take (pytest-xdist issue #1386): every test would go alone. So the
    workers write each test's group into the run's base folder as they collect, and this
    scheduler (xdist's own, one lookup changed) reads them once all have collected."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    folder = config._tmp_path_factory.getbasetemp()  # where xdist puts the workers' folders

    class FixtureGroups(LoadGroupScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = {}
                for path in sorted(folder.glob("xdist-groups-*.json")):
                    self.groups.update(json.loads(path.read_text(encoding="utf-8")))
            return self.groups.get(nodeid) or super()._split_scope(nodeid)

    return FixtureGroups(config, log)
