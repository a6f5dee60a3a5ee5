"""`recipes check --fix` / `--diff` (issue #21 item 6): deprecated spellings (migrations.yaml)
and abbreviated flags rewritten in the files given, every other byte kept; a file with no fix
is never touched; nothing is written through a link, into a read-only file, or over a file that
vanished or changed. The flags used come from the catalog and migrations.yaml, not from here."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from macros.checkdocs import fix
from macros.checkdocs.run import check_paths
from macros.engine.errors import RecipeError


@pytest.fixture(scope="module")
def abbrev(db):
    """An abbreviation argparse accepts and its full name, as the pinned catalog reads it."""
    for name in ("--tp", "--mem-frac"):
        hit = db.catalog.lookup(name)
        if hit.kind == "abbreviated":
            return name, hit.spec.name
    pytest.fail("the catalog has none of the abbreviations this test knows")


@pytest.fixture(scope="module")
def migration(db):
    applying = [m for m in db.releases.migrations
                if db.releases.applies(m, db.catalog.version) and m.rename]
    assert applying, "no migration of migrations.yaml applies to the pinned release"
    return applying[0]


def _serve(rest: str) -> str:
    return f"sglang serve --model-path Qwen/Qwen3-8B {rest}"


def test_an_abbreviation_is_spelled_out_and_every_other_byte_stays(cli, tmp_path, abbrev):
    short, full = abbrev
    page = tmp_path / "p.md"
    before = ("\ufeff# Title\r\n\r\n- step\r\n\r\n    ```bash\r\n"
              f"    {_serve(short)} 8 \\\r\n"
              "      --port \"30000\" --host '0.0.0.0'\t# keep  this\r\n    ```\r\n").encode()
    page.write_bytes(before)
    r = cli("check", "--fix", str(page))
    assert r.code == 0, r.out + r.err
    assert page.read_bytes() == before.replace(f" {short} ".encode(), f" {full} ".encode())
    assert f"fixed {page}: 1 change(s)" in r.err


def test_abbreviations_in_a_comment_or_a_quote_are_not_flags_and_stay(tmp_path, db, abbrev):
    short, full = abbrev
    script = tmp_path / "s.sh"
    script.write_text(f"{_serve(short)} 2 --served-model-name '{short} 2'  # {short} 2\n",
                      encoding="utf-8")
    [change] = fix.plan(db, check_paths(db, [str(script)]))
    assert change.after() == f"{_serve(full)} 2 --served-model-name '{short} 2'  # {short} 2\n"


def test_a_migration_renames_its_partner_and_drops_the_deprecated_flag(tmp_path, db, migration):
    (partner, renamed), = list(migration.rename.items())[:1]
    script = tmp_path / "serve.sh"
    script.write_bytes((f"{_serve(partner)} 4 \\\r\n  {migration.flag} \\\r\n"
                        "  --port 30000\r\n").encode())
    r = fix.plan(db, check_paths(db, [str(script)]))
    [change] = r
    assert change.after() == f"{_serve(renamed)} 4 \\\r\n  --port 30000\r\n"


def test_a_migration_without_its_partner_writes_the_default(tmp_path, db, migration):
    script = tmp_path / "serve.sh"
    script.write_text(f"{_serve(migration.flag)} --port 30000\n", encoding="utf-8")
    [change] = fix.plan(db, check_paths(db, [str(script)]))
    defaults = " ".join(f"{k} {v}" for k, v in migration.default.items())
    assert change.after() == f"{_serve(defaults)} --port 30000\n"


def test_a_notebook_is_fixed_inside_its_json_and_keeps_its_escapes(cli, tmp_path, abbrev):
    short, full = abbrev
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": ["# caf\u00e9\n", f"!{_serve(short)} 2\n", "x = \"\\t\""]}
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "n.ipynb"
    before = json.dumps(nb, indent=1) + "\n"  # \u00e9 escaped as Jupyter's writer does not
    path.write_text(before, encoding="utf-8")
    assert cli("check", "--fix", str(path)).code == 0
    after = path.read_text(encoding="utf-8")
    assert after == before.replace(f" {short} 2", f" {full} 2")
    assert "caf\\u00e9" in after
    assert json.loads(after)["cells"][0]["source"][1] == f"!{_serve(full)} 2\n"


def test_diff_prints_the_change_and_writes_nothing(cli, tmp_path, abbrev):
    short, full = abbrev
    page = tmp_path / "p.md"
    page.write_text(f"```bash\n{_serve(short)} 2\n```\n", encoding="utf-8")
    stat = page.stat()
    r = cli("check", "--diff", str(page))
    assert r.code == 0
    assert f"-{_serve(short)} 2\n+{_serve(full)} 2\n" in r.out
    assert r.out.startswith(f"--- {page}\n+++ {page}\n@@ ")
    assert page.read_text(encoding="utf-8") == f"```bash\n{_serve(short)} 2\n```\n"
    assert page.stat().st_mtime_ns == stat.st_mtime_ns


def test_a_file_with_nothing_to_fix_is_never_touched(cli, tmp_path, abbrev):
    short, _ = abbrev
    fixable = tmp_path / "a.md"
    fixable.write_text(f"```bash\n{_serve(short)} 2\n```\n", encoding="utf-8")
    other = tmp_path / "b.md"
    other.write_text("```bash\n" + _serve("--no-such-flag") + "\n```\n", encoding="utf-8")
    os.utime(other, ns=(1_000_000_000, 1_000_000_000))
    r = cli("check", "--fix", str(tmp_path))
    assert r.code == 1  # b.md's error is still reported after the fixes
    assert "catalog.unknown-flag" in r.out
    assert other.stat().st_mtime_ns == 1_000_000_000
    assert f"fixed {fixable}" in r.err and "b.md" not in r.err


def test_fix_never_writes_through_a_link_out_of_the_given_files(cli, tmp_path, abbrev):
    short, _ = abbrev
    outside = tmp_path / "outside.md"
    content = f"```bash\n{_serve(short)} 2\n```\n"
    outside.write_text(content, encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "link.md").symlink_to(outside)
    r = cli("check", "--fix", str(docs))
    assert r.code == 1
    assert f"{docs / 'link.md'}: is a symlink" in r.err
    assert outside.read_text(encoding="utf-8") == content


def test_a_read_only_file_is_a_clear_error_and_nothing_is_written(cli, tmp_path, abbrev):
    short, _ = abbrev
    content = f"```bash\n{_serve(short)} 2\n```\n"
    writable, locked = tmp_path / "a.md", tmp_path / "b.md"
    for p in (writable, locked):
        p.write_text(content, encoding="utf-8")
    locked.chmod(0o444)
    r = cli("check", "--fix", str(tmp_path))
    assert r.code == 1
    assert f"error: {locked}: is read-only" in r.err
    assert writable.read_text(encoding="utf-8") == content  # all or nothing


def test_a_file_that_vanished_or_changed_after_it_was_read_is_a_clear_error(tmp_path, db,
                                                                            abbrev):
    short, _ = abbrev
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    for p in (a, b):
        p.write_text(f"```bash\n{_serve(short)} 2\n```\n", encoding="utf-8")
    changes = fix.plan(db, check_paths(db, [str(tmp_path)]))
    a.unlink()
    b.write_text("edited meanwhile\n", encoding="utf-8")
    with pytest.raises(RecipeError) as err:
        fix.write(changes)
    messages = [str(p) for p in err.value.problems]
    assert any(f"{a}" in m and "no longer exists" in m for m in messages)
    assert any(f"{b}" in m and "changed while it was checked" in m for m in messages)
    assert not a.exists() and b.read_text(encoding="utf-8") == "edited meanwhile\n"


def test_fix_needs_paths(cli):
    r = cli("check", "--fix", "--", "sglang serve --tp 2")
    assert r.code == 1 and "--fix and --diff rewrite files" in r.err


def test_every_block_and_every_command_is_fixed_though_the_report_says_it_once(tmp_path, db,
                                                                             abbrev):
    short, full = abbrev
    page = tmp_path / "p.md"
    block = f"```bash\n{_serve(short)} 2\n{_serve(short)} 4\n```\n"
    page.write_text(block + "\ntext\n\n" + block, encoding="utf-8")
    report = check_paths(db, [str(page)])
    assert sum(f.rule == "catalog.abbreviated-flag" for f in report.findings) == 1
    [change] = fix.plan(db, report)
    assert change.after() == page.read_text(encoding="utf-8").replace(f" {short} ", f" {full} ")
