"""Outputs only where outputs belong: the build replaces only a folder it made, swaps it in
atomically and cleans up after killed builds; export writes only its own file; Ctrl-C ends any
command with one line; no command changes a file outside its declared output."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.models import MODELS
from helpers.project import project_copy
from macros.site import build as build_module
from macros.site.build import MARKER, BuildFailed, Terminated, build_site, check_out_folder, mark
from macros.engine.errors import RecipeError

ROOT = Path(__file__).resolve().parents[2]
OWN = "give a folder of its own, e.g. site/"
MODEL = MODELS[0]  # any model: these tests are about where the commands write


def snapshot(path: Path) -> dict[str, object]:
    """Every name under ``path`` with its bytes (files) or target (links); links not followed."""
    found: dict[str, object] = {}
    if path.is_symlink() or path.is_file():
        return {".": os.readlink(path) if path.is_symlink() else path.read_bytes()}
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            full = Path(folder, name)
            key = str(full.relative_to(path))
            if full.is_symlink():
                found[key] = ("link", os.readlink(full))
            elif full.is_file():
                found[key] = full.read_bytes()
            else:
                found[key] = "dir"
    return found


def raise_(exc: BaseException):
    def then():
        raise exc
    return then


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def scratch_folders(out: Path) -> list[str]:
    scratch = out.parent / ".build"
    return sorted(p.name for p in scratch.iterdir()) if scratch.is_dir() else []


@pytest.fixture
def project(tmp_path):
    root = project_copy(tmp_path)
    # A copy, not project_copy's link: a refusal that regressed must hit no real source.
    (root / "macros").unlink()
    shutil.copytree(ROOT / "macros", root / "macros", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("recipes", "tests", ".git"):  # the copy lacks them; guarded all the same
        (root / name).mkdir()
        (root / name / "keep.txt").write_text(f"{name} belongs to a person\n")
    (root / "notes.txt").write_text("a person's notes\n")
    (root / "drafts").mkdir()
    (root / "drafts" / "ko-draft.md").write_text("# 초안\n")
    return root


@pytest.fixture
def fake_mkdocs(monkeypatch):
    """Stand-in for mkdocs' build: writes one page ("new"), then runs ``state['then']`` if set
    (to fail or be killed) — the build's own logic (checks, swap, cleanup) runs unchanged; the
    stage writes only its configs (the pages and post-build files are not the point here)."""
    import mkdocs.commands.build as mkdocs_build

    from macros.site.stage import Stage

    state = {"then": None, "calls": 0}
    monkeypatch.setattr(Stage, "stage", lambda self, language: self.write_config(language))
    monkeypatch.setattr(Stage, "finish", lambda self, language, engine: None)

    def build(cfg):
        state["calls"] += 1
        site = Path(cfg["site_dir"])
        site.mkdir(parents=True, exist_ok=True)
        (site / "index.html").write_text("new", encoding="utf-8")
        if state["then"] is not None:
            state["then"]()
    monkeypatch.setattr(mkdocs_build, "build", build)
    return state


def previous_site(out: Path) -> dict[str, object]:
    """A site as a previous build left it (both languages, its marker listing them), and its
    snapshot."""
    (out / "ko").mkdir(parents=True)
    (out / "index.html").write_text("old")
    (out / "ko" / "index.html").write_text("옛 사이트")
    mark(out, out)
    return snapshot(out)


# --- build --out refusals -------------------------------------------------------------------

# (case, output, message); {root} is the project copy, {tmp} the folder holding it
REFUSALS = [
    ("project root", "{root}", "refusing to build into the project root ({root}); " + OWN),
    ("ancestor of the project root", "{tmp}",
     "refusing to build into a folder that contains the project root ({root}); " + OWN),
    ("inside docs", "{root}/docs/en/site",
     "refusing to build inside the project's docs/ folder ({root}/docs); " + OWN),
    ("symlink to docs", "{tmp}/link-to-docs",
     "refusing to build into the project's docs/ folder ({root}/docs); " + OWN),
    ("a file", "{root}/notes.txt", "is a file, not a folder; " + OWN),
    ("unmarked folder", "{root}/drafts",
     f"is a folder the build did not make (no {MARKER} inside) and is not empty (it holds "
     "ko-draft.md); " + OWN),
    ("missing parent", "{root}/no/such/site", "folder {root}/no/such does not exist"),
    ("scratch folder", "{root}/.build",
     "refusing to build into the builds' scratch folder; " + OWN),
] + [(name, "{root}/" + name,
      f"refusing to build into the project's {name}/ folder ({{root}}/{name}); " + OWN)
     for name in ("docs", "recipes", "macros", "overrides", "tests", ".git")]


@pytest.mark.parametrize("out,message", [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_build_refuses_an_output_it_does_not_own_and_touches_nothing(project, tmp_path, out,
                                                                    message, fake_mkdocs):
    (tmp_path / "link-to-docs").symlink_to(project / "docs")
    out = Path(out.format(root=project, tmp=tmp_path))
    message = message.format(root=project, tmp=tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(RecipeError) as exc:
        build_site(out=out, root=project, quiet=True)
    assert [str(p) for p in exc.value.problems] == [f"{out}: {message}"]
    assert snapshot(tmp_path) == before
    assert fake_mkdocs["calls"] == 0


def test_build_refuses_the_home_folder_and_touches_nothing(project, tmp_path, monkeypatch,
                                                           fake_mkdocs):
    home = tmp_path / "home"
    (home / "photos").mkdir(parents=True)
    (home / "photos" / "cat.jpg").write_bytes(b"\xff\xd8")
    monkeypatch.setenv("HOME", str(home))
    before = snapshot(tmp_path)
    with pytest.raises(RecipeError) as exc:
        build_site(out=home, root=project, quiet=True)
    assert str(exc.value) == f"{home}: refusing to build into the home folder ({home}); {OWN}"
    assert snapshot(tmp_path) == before


def test_the_file_system_root_is_refused_as_an_output(project):
    # Asked of the check alone: a build that regressed must never be pointed at the real /.
    with pytest.raises(RecipeError) as exc:
        check_out_folder(Path("/"), project)
    assert str(exc.value) == f"/: refusing to build into the file-system root (/); {OWN}"


def test_build_cli_refusal_is_one_error_line_and_exit_1(cli, project):
    before = snapshot(project)
    r = cli("build", "--out", str(project / "drafts"), "--quiet")
    assert (r.code, r.err) == (1, f"error: {project / 'drafts'}: is a folder the build did not "
                                  f"make (no {MARKER} inside) and is not empty (it holds "
                                  f"ko-draft.md); {OWN}\n")
    assert snapshot(project) == before


# --- build --out acceptance -----------------------------------------------------------------

def test_a_real_build_replaces_a_folder_it_made_before_and_marks_the_new_one(project, tmp_path):
    out = tmp_path / "site"
    previous_site(out)
    (out / "stale.html").write_text("from an older build")
    mark(out, out)  # the older build wrote it
    assert build_site(out=out, root=project, quiet=True) == out
    assert not (out / "stale.html").exists()
    assert (out / MARKER).is_file()
    assert (out / "models" / MODEL / "index.html").is_file()
    assert (out / "ko/models" / MODEL / "index.html").is_file()
    assert scratch_folders(out) == []


def test_an_empty_folder_is_accepted_and_marked(project, tmp_path, fake_mkdocs):
    out = tmp_path / "empty"
    out.mkdir()
    build_site(out=out, root=project, quiet=True)
    assert (out / "index.html").read_text() == "new" and (out / MARKER).is_file()


# --- the swap and recovery ------------------------------------------------------------------

@pytest.mark.parametrize("parked_name", ["site-{pid}-1700000000000-old-site",
                                         "site-{pid}-1700000000000-old"],
                         ids=["parked by this build", "parked by a build before the marker"])
def test_a_site_parked_by_a_killed_build_is_restored_at_the_next_start(project, tmp_path,
                                                                      fake_mkdocs, parked_name):
    out = tmp_path / "site"
    parked = tmp_path / ".build" / parked_name.format(pid=dead_pid())
    old = previous_site(parked)
    fake_mkdocs["then"] = raise_(RuntimeError("this build fails"))  # the restored site stays
    with pytest.raises(BuildFailed):
        build_site(out=out, root=project, quiet=True)
    assert snapshot(out) == old
    assert scratch_folders(out) == []


def test_a_site_parked_for_another_output_is_left_for_that_output(project, tmp_path, fake_mkdocs):
    parked = tmp_path / ".build" / f"site-{dead_pid()}-1700000000000-old-public"
    old = previous_site(parked)
    build_site(out=tmp_path / "site", root=project, quiet=True)
    assert snapshot(parked) == old and not (tmp_path / "public").exists()


def test_stale_scratch_of_a_dead_build_is_removed_and_a_live_ones_kept(project, tmp_path,
                                                                       fake_mkdocs):
    scratch = tmp_path / ".build"
    dead = scratch / f"site-{dead_pid()}-1700000000000"
    live = scratch / f"site-{os.getpid()}-1700000000000"
    other = scratch / "wheels"
    for folder in (dead, live, other):
        (folder / "ko").mkdir(parents=True)
    build_site(out=tmp_path / "site", root=project, quiet=True)
    assert scratch_folders(tmp_path / "site") == sorted([live.name, "wheels"])


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), RuntimeError("macro crashed")],
                         ids=["Ctrl-C", "an error"])
def test_an_interrupted_build_leaves_the_previous_site_and_no_scratch(project, tmp_path,
                                                                     fake_mkdocs, failure):
    out = tmp_path / "site"
    old = previous_site(out)
    fake_mkdocs["then"] = raise_(failure)
    with pytest.raises((KeyboardInterrupt, BuildFailed)):
        build_site(out=out, root=project, quiet=True)
    assert snapshot(out) == old
    assert scratch_folders(out) == []


def test_sigterm_during_a_build_removes_the_scratch_and_restores_the_handler(project, tmp_path,
                                                                            fake_mkdocs):
    out = tmp_path / "site"
    old = previous_site(out)
    before = signal.getsignal(signal.SIGTERM)
    fake_mkdocs["then"] = lambda: os.kill(os.getpid(), signal.SIGTERM)
    with pytest.raises(Terminated) as exc:
        build_site(out=out, root=project, quiet=True)
    assert exc.value.code == 143
    assert snapshot(out) == old and scratch_folders(out) == []
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_failure_right_after_the_exchange_cannot_leave_the_target_missing(project, tmp_path,
                                                                            fake_mkdocs,
                                                                            monkeypatch):
    out = tmp_path / "site"
    previous_site(out)
    real = build_module._exchange

    def exchange_then_interrupt(a, b):
        assert real(a, b)
        raise KeyboardInterrupt
    monkeypatch.setattr(build_module, "_exchange", exchange_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        build_site(out=out, root=project, quiet=True)
    assert (out / "index.html").read_text() == "new" and (out / MARKER).is_file()
    assert scratch_folders(out) == []


def test_without_the_exchange_the_two_step_swap_replaces_the_site(project, tmp_path, fake_mkdocs,
                                                                  monkeypatch):
    out = tmp_path / "site"
    previous_site(out)
    monkeypatch.setattr(build_module, "_RENAMEAT2", None)
    build_site(out=out, root=project, quiet=True)
    assert (out / "index.html").read_text() == (out / "ko" / "index.html").read_text() == "new"
    assert scratch_folders(out) == []


def test_a_failed_second_step_of_the_two_step_swap_puts_the_old_site_back(project, tmp_path,
                                                                          fake_mkdocs,
                                                                          monkeypatch):
    out = tmp_path / "site"
    old = previous_site(out)
    monkeypatch.setattr(build_module, "_RENAMEAT2", None)
    real = os.rename

    def rename(src, dst):
        if Path(dst) == out and Path(src).parent.name == "stage":  # the new site, not the parked
            raise OSError(28, "No space left on device")
        real(src, dst)
    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(BuildFailed) as exc:
        build_site(out=out, root=project, quiet=True)
    assert str(exc.value) == f"could not move the new site into {out}: No space left on device"
    assert snapshot(out) == old and scratch_folders(out) == []


# --- export --out ---------------------------------------------------------------------------

@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A stand-in for the repository root, so a refusal that regressed writes into tmp only."""
    root = tmp_path / "repo"
    for name in ("docs", "recipes", "macros", ".git"):
        (root / name).mkdir(parents=True)
        (root / name / "keep.txt").write_text(f"{name} belongs to a person\n")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    monkeypatch.setattr(build_module, "ROOT", root)
    return root


def test_export_refuses_a_missing_folder(cli, tmp_path):
    out = tmp_path / "nope" / "k3.json"
    r = cli("export", MODEL, "--out", str(out))
    assert (r.code, r.err) == (1, f"error: {out}: folder {tmp_path / 'nope'} does not exist\n")
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("folder", ["docs", "recipes", "macros", ".git"])
def test_export_refuses_a_path_inside_the_project_sources(cli, repo, folder):
    out = repo / folder / "k3.json"
    before = snapshot(repo)
    r = cli("export", MODEL, "--out", str(out))
    assert (r.code, r.err) == (1, f"error: {out}: refusing to write inside the project's {folder}/ "
                                  f"folder ({repo / folder}); give a path outside the project's "
                                  f"sources\n")
    assert snapshot(repo) == before


def test_export_refuses_a_path_inside_the_recipes_folder_in_use(cli, recipes_copy):
    out = recipes_copy / "k3.json"
    before = snapshot(recipes_copy)
    r = cli("export", MODEL, "--root", str(recipes_copy), "--out", str(out))
    assert (r.code, r.err) == (1, f"error: {out}: refusing to write inside the recipes folder in "
                                  f"use ({recipes_copy}); give a path outside the project's "
                                  f"sources\n")
    assert snapshot(recipes_copy) == before


@pytest.mark.parametrize("name,content", [("pyproject.toml", None), ("notes.json", b'{"a": 1}'),
                                          ("k3.json", b'{"version": "1", "lang": "en"}')],
                         ids=["the project's own file", "someone's JSON", "almost an export"])
def test_export_refuses_to_overwrite_a_file_that_is_not_a_previous_export(cli, repo, tmp_path,
                                                                          name, content):
    out = repo / name if content is None else tmp_path / name
    if content is not None:
        out.write_bytes(content)
    before = out.read_bytes()
    r = cli("export", MODEL, "--out", str(out))
    assert (r.code, r.err) == (1, f"error: {out}: exists and is not a previous export (a JSON "
                                  f"object with catalog, cells, lang, model, rules, text, "
                                  f"version); refusing to overwrite it\n")
    assert out.read_bytes() == before


def test_export_to_dash_writes_standard_output_and_no_file(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = cli("export", MODEL, "--out", "-")
    assert r.code == 0 and json.loads(r.out)["model"]["id"] == MODEL
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_a_folder(cli, tmp_path):
    r = cli("export", MODEL, "--out", str(tmp_path))
    assert (r.code, r.err) == (1, f"error: {tmp_path}: is a folder; give a file name, "
                                  f"e.g. {MODEL}.json\n")


def test_export_replaces_a_previous_export_and_leaves_nothing_beside_it(cli, tmp_path):
    out = tmp_path / "k3.json"
    assert cli("export", MODEL, "--out", str(out)).code == 0
    r = cli("export", MODEL, "--lang", "ko", "--out", str(out))
    assert r.code == 0, r.err
    assert json.loads(out.read_text(encoding="utf-8"))["lang"] == "ko"
    assert sorted(os.listdir(tmp_path)) == ["k3.json"]


# --- interruptions and system errors in the CLI ---------------------------------------------

@pytest.mark.parametrize("argv", [["validate"], ["export", MODEL],
                                  ["check", "--", "sglang", "serve"],
                                  ["command", MODEL, "--hw", "b300", "--role", "unified",
                                   "--strategy", "balanced"]], ids=lambda a: a[0])
def test_ctrl_c_in_any_command_ends_with_one_line_and_exit_130(cli, monkeypatch, argv):
    import macros.cli as cli_module

    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli_module, "_db", interrupted)
    r = cli(*argv)
    assert (r.code, r.out, r.err) == (130, "", "interrupted\n")


def test_ctrl_c_during_a_build_ends_with_one_line_and_exit_130(cli, monkeypatch, tmp_path):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(build_module, "build_site", interrupted)
    r = cli("build", "--out", str(tmp_path / "site"))
    assert (r.code, r.err) == (130, "interrupted\n")


def test_sigterm_during_a_cli_build_ends_with_one_line_and_exit_143(cli, monkeypatch, tmp_path):
    def terminated(*args, **kwargs):
        raise Terminated()
    monkeypatch.setattr(build_module, "build_site", terminated)
    r = cli("build", "--out", str(tmp_path / "site"))
    assert (r.code, r.err) == (143, "terminated\n")


def test_a_system_error_is_reported_with_its_path_not_as_an_internal_error(cli, monkeypatch):
    import macros.cli as cli_module

    def denied(args):
        raise PermissionError(13, "Permission denied", "/srv/recipes/cells.yaml")
    monkeypatch.setattr(cli_module, "_db", denied)
    r = cli("validate")
    assert (r.code, r.err) == (1, "error: /srv/recipes/cells.yaml: Permission denied\n")


# --- no command changes a file outside its declared output ----------------------------------

@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """recipes/ and docs/ copied, a previous export, a person's files and a link to docs."""
    from macros.cli import main

    root = tmp_path_factory.mktemp("sandbox")
    shutil.copytree(ROOT / "recipes", root / "recipes")
    shutil.copytree(ROOT / "docs", root / "docs")
    (root / "notes.txt").write_text("a person's notes\n")
    (root / "person.json").write_text('{"mine": true}\n')
    (root / "link-to-docs").symlink_to(root / "docs")
    assert main(["--root", str(root / "recipes"), "export", MODEL, "--out",
                 str(root / "previous.json")]) == 0
    return root


PATHS = ["out.json", "previous.json", "person.json", "notes.txt", "docs/en/index.md",
         "docs/en/new.json", f"recipes/{MODEL}/cells.yaml", "recipes/new.json", "recipes", "docs",
         "link-to-docs/en/index.md", "missing/x.json", ".", "/nonexistent/x.json", "-"]
_text = st.sampled_from([MODEL, "b300", "a3", "unified", "decode", "balanced", "nope", "",
                         "0", "-8", "1e300", "9" * 400, "../recipes", "spec=none", "avg_len=-1",
                         "quant=zzz", "x", "en", "ko"])


@st.composite
def invocations(draw, root: Path) -> list[str]:
    def path() -> str:
        p = draw(st.sampled_from(PATHS))
        return p if p == "-" or p.startswith("/") else str(root / p)

    cmd = draw(st.sampled_from(["export", "command", "check", "validate", "i18n-check", "calc"]))
    argv = ["--root", str(root / "recipes"), cmd]
    if cmd in ("export", "command", "calc"):
        argv.append(draw(st.sampled_from([MODEL, "nope", ""])))
    if cmd in ("command", "calc") or (cmd == "check" and draw(st.booleans())):
        for option in ("--hw", "--role", "--strategy"):
            argv += [option, draw(_text)]
    if cmd in ("command", "calc"):
        for value in draw(st.lists(_text, max_size=2)):
            argv += ["--set", value]
    if cmd == "calc":
        for value in draw(st.lists(_text, max_size=2)):
            argv += ["--avg-len", value]
    if cmd == "export" and draw(st.booleans()):
        argv += ["--out", path()]
    if cmd in ("export", "command", "calc") and draw(st.booleans()):
        argv += ["--lang", draw(st.sampled_from(["en", "ko", "fr"]))]
    if cmd == "i18n-check":
        argv += ["--docs", draw(st.sampled_from([str(root / "docs"), path()]))]
    if cmd == "check":
        if draw(st.booleans()):
            argv += ["--file", path()]
        else:
            argv += ["--"] + draw(st.lists(_text, min_size=1, max_size=4))
    return argv


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_command_changes_a_file_outside_its_declared_output(cli, sandbox, data):
    argv = data.draw(invocations(sandbox))
    before = snapshot(sandbox)
    r = cli(*argv, stdin="sglang serve --tp-size 8\n")
    after = snapshot(sandbox)
    out = argv[argv.index("--out") + 1] if "--out" in argv else "-"  # "-": standard output
    if argv[2] == "export" and out != "-" and r.code == 0:
        declared = Path(out).resolve().relative_to(sandbox.resolve())
        for files in (before, after):
            files.pop(str(declared), None)
    assert after == before, (argv, r.err)


def test_a_scratch_folder_that_is_a_link_is_refused_and_nothing_is_written_through_it(
        project, tmp_path, fake_mkdocs):
    target = tmp_path / "a-persons-folder"
    target.mkdir()
    (target / "notes.md").write_text("mine\n")
    before = snapshot(target)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / ".build").symlink_to(target)
    with pytest.raises(BuildFailed) as exc:
        build_site(out=tmp_path / "w" / "site", root=project, quiet=True)
    assert str(exc.value) == (f"{tmp_path / 'w' / '.build'} is a symbolic link; the build keeps "
                              "its scratch there and follows no link: remove it")
    assert snapshot(target) == before and fake_mkdocs["calls"] == 0


def test_a_build_leaves_no_empty_scratch_folder_beside_its_output(project, tmp_path, fake_mkdocs):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    build_site(out=folder / "site", root=project, quiet=True)
    assert sorted(p.name for p in folder.iterdir()) == ["site"]
