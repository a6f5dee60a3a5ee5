"""The reader's release (issue #24 item 1): ``resolve(..., release=V)``, ``recipes command
--sglang V`` and the Playground (its parity test samples every release) give the command for any
release of the flag history. Spellings migrate both ways (``migrations.yaml``), a flag or value
the release refuses is named with the releases that take it, and the default stays the cell's
image's release. Every model, every migration, read from the data."""

from __future__ import annotations

import pytest
from helpers.models import MODELS

from macros.engine.flags import Flag
from macros.engine.resolve import resolve
from macros.engine.selection import Selection

READER = "0.5.18"  # the release the reader runs


def _cells(db, model_id):
    model = db.model(model_id)
    for cell in model.cells:
        yield Selection(model_id, dict(cell.match))


def _catalog_errors(res) -> list:
    return [d for d in res.diagnostics if d.severity.value == "error"
            and d.rule.startswith("catalog.")]


def _before(db, migration) -> list[str]:
    """The releases before the first that applies ``migration``, the reader's among them."""
    first = next(v for v in db.releases.order if db.releases.applies(migration, v))
    return db.releases.order[:db.releases.order.index(first)]


@pytest.mark.parametrize("model_id", MODELS)
def test_each_migrated_flag_reads_in_the_older_release_and_differs_only_by_spelling(db, model_id):
    """For every migration a cell's newest command applies, the command for an older release
    parses in that release's history (no catalog error, the release inside its span) and,
    spelt forward again, is exactly the newest one."""
    newest = db.releases.newest
    for m in db.releases.migrations:
        older = [v for v in _before(db, m) if v in (READER, _before(db, m)[-1])]
        assert older, f"migration {m.id} applies from the first release on: nothing to read back"
        checked = 0
        for sel in _cells(db, model_id):
            now = resolve(db, sel, release=newest)
            if not any(c.kind == "migrated" for c in now.caveats):
                continue
            checked += 1
            for version in older:
                then = resolve(db, sel, release=version)
                assert m.flag in [f.name for f in then.flags], (sel.match, version)
                # the old spelling parses there; a flag the release lacks for another reason
                # (newer than it) is refused, and named with the releases that take it
                mine = {m.flag, *m.rename}
                refused = {f for d in _catalog_errors(then) for f in d.flags}
                assert not refused & mine, (sel.match, version, then.diagnostics)
                assert all(db.releases.accepts(version, f) for f in then.flags if f.name in mine)
                said = {c.flag for c in then.caveats if c.kind == "release" and c.flag}
                assert refused <= said, (sel.match, version, refused, said)
                if not refused:
                    assert then.sglang_span is not None
                    assert db.releases.order.index(then.sglang_span[0]) \
                        <= db.releases.order.index(version) \
                        <= db.releases.order.index(then.sglang_span[1])
                again, _ = db.releases.migrate(list(then.flags), newest)
                assert again == list(now.flags), (sel.match, version)
                assert then.env == now.env
                assert then.status == now.status  # the same command: a verified cell stays so
        written = any(f.name == m.flag for flags in db.model(model_id).cell_flags for f in flags)
        assert checked or not written, f"{model_id} writes {m.flag} but no cell was read back"


def test_a_replacement_spelling_is_read_back_for_a_release_before_it(db):
    """Read the other way: a command in the new spelling, for a release that lacks it, is
    spelt the old way, and spelt forward again gives the command back."""
    newest = db.releases.newest
    checked = 0
    for m in db.releases.migrations:
        for partner, renamed in m.rename.items():
            for version in _before(db, m):
                if all(db.releases.has(version, n) for n in m.new_flags()):
                    continue
                flags = [Flag("--trust-remote-code"), Flag(renamed, ("4",)), Flag("--host", ("x",))]
                back, rewrites = db.releases.migrate(flags, version)
                assert [f.name for f in back] == ["--trust-remote-code", partner, m.flag, "--host"]
                assert rewrites and rewrites[0].back
                assert db.releases.migrate(back, newest)[0] == flags
                checked += 1
    assert checked or not db.releases.migrations


@pytest.mark.parametrize("model_id", MODELS)
def test_a_flag_the_release_refuses_is_named_with_the_first_release_that_takes_it(db, model_id):
    """Spelt for the release just before the first that takes one of its flags (or values,
    a value SGLang checks at start-up included), the command says which flag, and from which
    release; the check refuses it."""
    order, found = db.releases.order, 0
    for sel in _cells(db, model_id):
        now = resolve(db, sel, release=db.releases.newest)
        branch = db.model(model_id).info.branch_values
        for flag in now.flags:
            taking = db.releases.taking(flag, branch)
            if not taking or taking[0] == order[0] or taking != order[order.index(taking[0]):]:
                continue
            before = order[order.index(taking[0]) - 1]
            res = resolve(db, sel, release=before)
            said = [c.text for c in res.caveats if c.kind == "release" and c.flag == flag.name]
            if flag.name not in [f.name for f in res.flags]:
                continue  # spelt another way there (a migration)
            assert said and said[0].id == "release.refused", (sel.match, flag, res.caveats)
            assert said[0].fields["first"] == taking[0]
            assert res.sglang_span is None
            assert [d for d in res.diagnostics if d.severity.value == "error"]
            found += 1
            break
    # a model whose every flag every release takes has nothing to refuse (a valid model)
    assert found or not any(
        (t := db.releases.taking(f, db.model(model_id).info.branch_values)) and t[0] != order[0]
        and t == order[order.index(t[0]):]
        for s in _cells(db, model_id) for f in resolve(db, s, release=db.releases.newest).flags)


@pytest.mark.parametrize("model_id", MODELS)
def test_the_default_is_the_cells_release_and_a_choice_names_the_image_it_is_not(db, model_id):
    for sel in list(_cells(db, model_id))[:5]:
        res = resolve(db, sel)
        assert res.sglang == res.sglang_default
        assert not [c for c in res.caveats if c.text.id.startswith("release.chosen")]
        other = next(v for v in reversed(db.releases.order) if v != res.sglang)
        chosen = resolve(db, sel, release=other)
        assert (chosen.sglang, chosen.sglang_default) == (other, res.sglang)
        said = [c for c in chosen.caveats if c.text.id.startswith("release.chosen")]
        assert len(said) == 1 and said[0].text.fields.get("image") == res.docker_image
        # no image published: the caveat says to install the release, naming no image
        assert (said[0].text.id == "release.chosen.install") == (res.docker_image is None)


def test_the_cli_spells_the_command_for_the_release_and_refuses_an_unknown_one(cli, db):
    model_id = MODELS[0]
    match = db.model(model_id).cells[0].match
    sets = [w for k, v in match.items() for w in ("--set", f"{k}={v}")]
    oldest = db.releases.order[0]
    r = cli("command", model_id, *sets, "--sglang", oldest, "--format", "json")
    out = r.json()
    assert out["sglang"]["release"] == oldest and out["sglang"]["chosen"] is True
    want = resolve(db, Selection(model_id, dict(match)), release=oldest)
    assert out["flags"] == want.flag_texts
    assert (r.code == 1) == bool([d for d in want.diagnostics if d.severity.value == "error"])
    latest = cli("command", model_id, *sets, "--sglang", "latest", "--format", "json").json()
    assert latest["sglang"]["release"] == db.releases.newest
    bad = cli("command", model_id, *sets, "--sglang", "0.4.0")
    assert bad.code != 0 and "Traceback" not in bad.err
    assert "--sglang 0.4.0: not a release" in bad.err and oldest in bad.err
