"""The checker reads shell text as bash does (tests/corpus/shell.yaml), through ``check_text``
and through ``recipes check --file``; a file that is not text is refused at its first bad byte;
numeric bounds come from recipes/catalog/flag-bounds.yaml, whose mistakes are reported at their
line like any recipe file's."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from helpers import yamlc
from macros.engine.check import check_text, parse
from macros.engine.database import load_database
from macros.engine.errors import RecipeError

ROOT = Path(__file__).resolve().parents[2]
CORPUS = yamlc.load((ROOT / "tests" / "corpus" / "shell.yaml").read_text(encoding="utf-8"))
COMMANDS, FILES, BOUNDS = CORPUS["commands"], CORPUS["files"], CORPUS["bounds"]
CLASSES = ("line-ends", "backslash-space", "comments", "numeric", "quoting")


def ids(cases):
    return [c["name"] for c in cases]


def test_the_corpus_has_several_cases_of_every_class_and_unique_names():
    counts = Counter(c["class"] for c in COMMANDS)
    assert set(counts) == set(CLASSES)
    assert min(counts.values()) >= 5, counts
    assert len(FILES) >= 5 and len(BOUNDS) >= 8
    names = ids(COMMANDS) + ids(FILES) + ids(BOUNDS)
    assert len(set(names)) == len(names)


def _about_the_shell(findings):
    """The cases are about reading shell text and the flag catalog; which model's rules apply
    to a command naming no model is tested in test_cli_many_models.py."""
    return [f for f in findings if f.rule != "check.model-unknown"]


@pytest.mark.parametrize("case", COMMANDS, ids=ids(COMMANDS))
def test_each_shell_case_gives_exactly_its_findings(db, case):
    found = _about_the_shell(check_text(db, case["text"], **case.get("context", {})))
    assert [[f.line, f.rule, f.message] for f in found] == case["expect"]


@pytest.mark.parametrize("case", [c for c in COMMANDS if "flags" in c],
                         ids=ids([c for c in COMMANDS if "flags" in c]))
def test_each_shell_case_parses_to_the_words_bash_would_pass(db, case):
    [cmd] = parse(case["text"], {"server": db.catalog, "router": db.router_catalog})
    assert [[name, list(values)] for name, values in cmd.flags] == case["flags"]


@pytest.mark.parametrize("case", COMMANDS, ids=ids(COMMANDS))
def test_recipes_check_file_gives_the_same_findings_and_exits_1_on_an_error(db, cli, tmp_path,
                                                                            case):
    path = tmp_path / "commands.sh"
    path.write_bytes(case["text"].encode("utf-8"))  # bytes: a CRLF must reach the checker
    context = [arg for key, value in case.get("context", {}).items()
               for arg in (f"--{key}", value)]
    r = cli("check", "--format", "json", *context, "--file", str(path))
    diagnostics = [d for d in r.json()["diagnostics"] if d["rule"] != "check.model-unknown"]
    assert [[d["line"], d["rule"], d["message"]] for d in diagnostics] == case["expect"]
    assert {d["source"] for d in diagnostics} <= {str(path)}
    errors = [f for f in check_text(db, case["text"], **case.get("context", {}))
              if f.severity.value == "error"]
    assert r.code == (1 if errors else 0)


@pytest.mark.parametrize("case", FILES, ids=ids(FILES))
def test_a_file_that_is_not_text_is_refused_at_its_first_bad_byte(cli, tmp_path, case):
    path = tmp_path / "commands.sh"
    path.write_bytes(case["bytes"].encode("latin-1"))
    r = cli("check", "--file", str(path))
    assert (r.code, r.out, r.err.strip()) == (1, "", case["expect"].replace("FILE", str(path)))


def run_check_on_stdin(data: bytes) -> subprocess.CompletedProcess:
    """A real process: the in-process CLI fixture's stdin is text and cannot carry bytes."""
    return subprocess.run([sys.executable, "-m", "macros.cli", "check", "--file", "-"],
                          input=data, cwd=ROOT, capture_output=True, timeout=120)


@pytest.mark.parametrize("case", FILES, ids=ids(FILES))
def test_the_same_bytes_on_stdin_are_refused_at_the_same_place(case):
    proc = run_check_on_stdin(case["bytes"].encode("latin-1"))
    assert (proc.returncode, proc.stdout, proc.stderr.decode("utf-8").strip()) \
        == (1, b"", case["expect"].replace("FILE", "<stdin>"))


def test_crlf_on_stdin_reaches_the_checker(db):
    [case] = [c for c in COMMANDS if c["name"] == "crlf-continued-command"]
    proc = run_check_on_stdin(case["text"].encode("utf-8"))
    [(line, rule, message)] = case["expect"]
    assert proc.returncode == 1
    printed = [ln for ln in proc.stdout.decode("utf-8").splitlines(keepends=True)
               if "(check.model-unknown)" not in ln]
    assert printed == [f"<stdin>:{line}: error: {message} ({rule})\n"]


def test_a_folder_given_to_check_file_is_refused(cli, tmp_path):
    r = cli("check", "--file", str(tmp_path))
    assert (r.code, r.err.strip()) == (1, f"error: {tmp_path}: is a folder, not a file")


# --- recipes/catalog/flag-bounds.yaml -------------------------------------------------------

@pytest.mark.parametrize("case", BOUNDS, ids=ids(BOUNDS))
def test_a_mistake_in_the_bounds_file_is_reported_at_its_place(recipes_copy, case):
    path = recipes_copy / "catalog" / "flag-bounds.yaml"
    text = path.read_text(encoding="utf-8")
    assert case["find"] in text, f"{case['name']} no longer matches flag-bounds.yaml"
    path.write_text(text.replace(case["find"], case["replace"], 1), encoding="utf-8")
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert [str(p) for p in exc.value.problems] == [case["expect"]]


def test_a_recipe_flag_outside_its_bound_is_a_load_error_in_every_model(db, recipes_copy):
    """-2 is below every bound the file defines, and no kind allows it as a sentinel; the loader
    checks recipe flags as the checker checks commands, so the message is the checker's, at the
    flag's place."""
    for model in db.models:
        cells = recipes_copy / model / "cells.yaml"
        text = cells.read_text(encoding="utf-8")
        found = None
        for m in re.finditer(r"^( *- )(--[a-z0-9-]+) (\d+)$", text, re.M):
            spec = db.catalog.flags.get(m.group(2))
            if spec is not None and spec.bound is not None:
                found = m
                break
        assert found is not None, f"{model}: no bounded flag with a number in cells.yaml"
        flag = found.group(2)
        cells.write_text(text[:found.start(3)] + "-2" + text[found.end(3):], encoding="utf-8")
        with pytest.raises(RecipeError) as exc:
            load_database(recipes_copy)
        cells.write_text(text, encoding="utf-8")
        bound = db.catalog.flags[flag].bound
        line = text.count("\n", 0, found.start()) + 1
        want = (f"recipes/{model}/cells.yaml:{line}:{len(found.group(1)) + 1}: {flag} -2: "
                f"must be {bound.describe()} ({bound.means})")
        assert want in [str(p) for p in exc.value.problems]
