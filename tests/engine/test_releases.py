"""Every printed command knows the SGLang release it is written for (its image's, else the
pinned one), says which releases accept all its flags, and is spelt for that release: a flag the
release deprecates is replaced where the release has the replacement (migrations.yaml), the old
spelling stays visible, and the build refuses a command that still depends on a flag within 30
days of its planned removal. ``recipes check --sglang`` judges a command as any release does."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest
from helpers.models import MODELS, ROOT, edit_yaml
from helpers.project import project_copy, recipes_root
from helpers.walks import walked

from macros.engine.check import Command, catalog_findings, check_text, model_env, model_values
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.flags import Flag
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import resolve_all
from macros.site.pages import MacroError, Site, expiring

DEPRECATED = "--enable-dp-attention"


def _printed(db, model_id):
    return (res for _, res in walked(db, model_id))


def _migration(db):
    return next(m for m in db.releases.migrations if m.flag == DEPRECATED)


@pytest.mark.parametrize("model_id", MODELS)
def test_no_printed_command_for_a_release_with_the_replacement_uses_the_deprecated_flag(
        db, model_id):
    m, seen = _migration(db), 0
    for res in _printed(db, model_id):
        names = [f.name for f in res.flags]
        if db.releases.applies(m, res.sglang):
            assert DEPRECATED not in names, (res.match, res.sglang)
            seen += "--attn-dp-size" in names
    assert seen or not _names(model_id, DEPRECATED)


def _names(model_id: str, flag: str) -> bool:
    """Does the model's data write ``flag`` anywhere (cells, settings, rules)?"""
    return any(flag in p.read_text(encoding="utf-8")
               for p in (ROOT / "recipes" / model_id).glob("*.yaml"))


@pytest.mark.parametrize("model_id", MODELS)
def test_a_command_for_a_release_without_the_replacement_keeps_the_old_spelling(
        recipes_copy, model_id):
    branch: set[str] = set()  # an image a branch value names stays a branch build

    def old_images(data: dict) -> None:
        branch.update(r["image"] for values in (data.get("branch_values") or {}).values()
                      for r in values.values() if isinstance(r, dict))
        for rule in data["docker_images"]:  # a rule without an image ships no release
            if rule.get("image") is not None and rule["image"] not in branch:
                rule["sglang"] = "0.5.21"  # before --attn-dp-size
    edit_yaml(recipes_copy / model_id / "model.yaml", old_images)
    db = load_database(recipes_copy)
    model = db.model(model_id)
    for cell, flags in zip(model.cells, model.cell_flags):
        res = resolve(db, Selection(model_id, dict(cell.match)))
        if res.docker_image in branch or res.docker_image is None:
            continue
        assert res.sglang == "0.5.21"
        assert [f.name for f in res.flags if f.name == DEPRECATED] == \
            [f.name for f in flags if f.name == DEPRECATED]
        assert "--attn-dp-size" not in [f.name for f in res.flags]
        assert [c for c in res.caveats if c.kind == "migrated"] == []


@pytest.mark.parametrize("model_id", MODELS)
def test_the_replaced_spelling_is_named_beside_the_command(db, model_id):
    since = db.releases.deprecated_since(DEPRECATED)
    named = 0
    for res in _printed(db, model_id):
        migrated = [c for c in res.caveats if c.kind == "migrated"
                    and c.text.id.startswith("migrate.caveat")]
        if "--attn-dp-size" not in [f.name for f in res.flags]:
            assert migrated == []
            continue
        [caveat] = migrated
        fields = caveat.text.fields
        assert DEPRECATED in fields["old"] and fields["new"].startswith("--attn-dp-size")
        assert (fields["release"], fields["since"], fields.get("removal")) == \
            (res.sglang, since, db.releases.removal(res.sglang, DEPRECATED))
        assert caveat.flag == "--attn-dp-size"
        named += 1
    assert named or not _names(model_id, DEPRECATED)


def test_a_migration_keeps_the_partner_value_and_its_place(db):
    flags = [Flag("--tp-size", ("8",)), Flag(DEPRECATED, ()), Flag("--dp-size", ("4",)),
             Flag("--port", ("1",))]
    out, [rewrite] = db.releases.migrate(flags, "0.5.23")
    assert [f.text() for f in out] == ["--tp-size 8", "--attn-dp-size 4", "--port 1"]
    assert (rewrite.old, rewrite.new) == ("--enable-dp-attention --dp-size 4", "--attn-dp-size 4")


def test_a_migration_without_the_partner_writes_its_default(db):
    out, _ = db.releases.migrate([Flag(DEPRECATED, ()), Flag("--port", ("1",))], "0.5.23")
    assert [f.text() for f in out] == ["--attn-dp-size 1", "--port 1"]


def test_the_rules_read_the_replacement_in_their_own_spelling(db):
    assert db.releases.legacy({"--attn-dp-size": ("8",), "--tp-size": ("8",)}) == {
        "--dp-size": ("8",), DEPRECATED: (), "--tp-size": ("8",)}
    assert db.releases.legacy({"--dp-size": ("8",)}) == {"--dp-size": ("8",)}


@pytest.mark.parametrize("model_id", MODELS)
def test_every_printed_command_names_its_release_and_the_releases_that_accept_it(db, model_id):
    """The span agrees with the checker run against each release's catalog: no error at its
    first release, some error at the release before it."""
    model = db.model(model_id)
    db = db.serving(model)  # the releases of the CLI that serves the model
    order = db.releases.order

    def errors(res, version):
        cmd = Command("server", 0, env=[tuple(e.split("=", 1)) for e in res.env],
                      flags=[(f.name, f.values) for f in res.flags])
        return [f for f in catalog_findings(cmd, db.releases.catalog(version), model_env(model),
                                            model_values(model))
                if f.severity.value == "error"]
    seen = set()
    for res in _printed(db, model_id):
        if res.branch_only:  # a branch image's own value: that image, no range (issue #24)
            assert res.sglang_span is None and res.sglang_image == res.docker_image
            continue
        first, last = res.sglang_span
        assert order.index(first) <= order.index(res.sglang) <= order.index(last)
        if (first, res.sglang) in seen:
            continue  # one command per span keeps the catalog runs few
        seen.add((first, res.sglang))
        assert errors(res, first) == []
        if order.index(first) > 0:
            assert errors(res, order[order.index(first) - 1]), (res.match, first)


def test_the_command_json_names_the_release(cli, db):
    model_id = MODELS[0]
    match = db.model(model_id).cells[0].match
    r = cli("command", model_id, *[w for k, v in match.items() for w in ("--set", f"{k}={v}")],
            "--format", "json")
    res = resolve(db, Selection(model_id, dict(match)))
    assert r.json()["sglang"] == {"release": res.sglang, "valid_in": list(res.sglang_span),
                                  "default": res.sglang, "chosen": False, "image": None}


def test_check_judges_a_command_as_the_named_release_parses_it(cli):
    cmd = ["--", "sglang", "serve", "--model-path", "org/model", "--attn-dp-size", "8"]
    old = cli("check", "--sglang", "0.5.21", *cmd)
    assert old.code == 1
    assert "unknown flag --attn-dp-size for sglang 0.5.21" in old.out
    assert cli("check", "--sglang", "0.5.23", *cmd).code == 0


def test_check_refuses_a_release_the_history_lacks(cli, db):
    r = cli("check", "--sglang", "0.9", "--", "sglang", "serve", "--model-path", "x")
    assert (r.code, r.err) == (1, "error: <command line>: --sglang: '0.9' is no release of the "
                                  f"flag history (known: {', '.join(db.releases.order)}, latest)\n")


def test_an_image_release_the_history_lacks_is_a_load_error(recipes_copy):
    model_id = MODELS[0]

    def bad(data: dict) -> None:
        data["docker_images"][0]["sglang"] = "0.5.99"
    edit_yaml(recipes_copy / model_id / "model.yaml", bad)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert any("sglang '0.5.99' is no release of the flag history" in p.message
               and "a build that is no release leaves 'sglang' out" in p.message
               for p in exc.value.problems)


def test_a_migration_naming_a_flag_no_release_has_is_a_load_error(recipes_copy):
    def bad(data: dict) -> None:
        data["migrations"][0]["rename"] = {"--dp-size": "--atn-dp-size"}
        data["migrations"][0]["default"] = {}
    edit_yaml(recipes_copy / "catalog" / "migrations.yaml", bad)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert any("flag '--atn-dp-size' is in no release of the history (did you mean "
               "'--attn-dp-size'" in p.message for p in exc.value.problems)


def test_a_planned_removal_is_refused_30_days_ahead():
    assert not expiring("2026-12-31", date(2026, 11, 30))
    assert expiring("2026-12-31", date(2026, 12, 1))
    assert expiring("2026-12-31", date(2027, 1, 5))


def _without_migrations(recipes: Path) -> None:
    edit_yaml(recipes / "catalog" / "migrations.yaml", lambda data: data.update(migrations=[]))


def _dependent(db):
    """A printed command that depends on a flag its release plans to remove."""
    for model_id in MODELS:  # a copy's walk, read only up to the first such command
        for _, res in resolve_all(db, model_id):
            if any(db.releases.removal(res.sglang, f.name) for f in res.flags):
                return model_id, res
    pytest.fail("no printed command depends on a planned removal without the migrations")


def test_a_page_command_that_depends_on_an_expiring_flag_fails_the_macro(recipes_copy,
                                                                       monkeypatch):
    _without_migrations(recipes_copy)
    db = load_database(recipes_copy)
    model_id, res = _dependent(db)
    site = Site(db, "en")
    monkeypatch.setenv("RECIPES_TODAY", "2026-11-30")
    site.command(model_id, **res.match, **{k: v for k, v in res.picks.items() if v})
    monkeypatch.setenv("RECIPES_TODAY", "2026-12-01")
    with pytest.raises(MacroError) as exc:
        site.command(model_id, **res.match, **{k: v for k, v in res.picks.items() if v})
    assert f"depends on {DEPRECATED}, which sglang {res.sglang} plans to remove after " \
        "2026-12-31; from 2026-12-01 no printed command may" in str(exc.value)


def test_the_build_fails_on_a_printed_command_that_depends_on_an_expiring_flag(
        tmp_path, monkeypatch):
    from macros.site.build import BuildFailed, build_site

    recipes = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", recipes)
    _without_migrations(recipes)
    project = project_copy(tmp_path)
    monkeypatch.setenv("RECIPES_TODAY", "2026-12-01")
    with recipes_root(recipes), pytest.raises(BuildFailed) as exc:
        build_site(out=project / "site", root=project, quiet=True)
    assert "plans to remove after 2026-12-31; from 2026-12-01 no printed command may" \
        in str(exc.value)
    assert not (project / "site").exists()


@pytest.mark.parametrize("model_id", MODELS)
def test_a_rule_about_the_old_spelling_holds_for_a_hand_written_new_one(recipes_copy, model_id):
    loaded = load_database(recipes_copy)
    if not any(m.flag == DEPRECATED
               for m in loaded.serving(loaded.model(model_id)).releases.migrations):
        pytest.skip(f"the CLI serving {model_id} ({loaded.model(model_id).info.cli}) has no "
                    f"migration of {DEPRECATED} (recipes/catalog/migrations.yaml is the LLM "
                    "server's)")
    message = next(iter(loaded.model(model_id).rules.checks)).message

    def rule(data: dict) -> None:
        data.setdefault("checks", []).append({"id": "dp-attention-seen", "severity": "warning",
                                              "when": {"has": [DEPRECATED]}, "message": message})
    edit_yaml(recipes_copy / model_id / "rules.yaml", rule)
    db = load_database(recipes_copy)
    name = db.model(model_id).info.model_names[-1].name
    fired = lambda text: "dp-attention-seen" in [  # noqa: E731
        f.rule for f in check_text(db, text, model_id=model_id)]
    assert fired(f"sglang serve --model-path {name} --tp-size 8 --attn-dp-size 2")
    assert fired(f"sglang serve --model-path {name} --tp-size 8 --dp-size 2 {DEPRECATED}")
    assert not fired(f"sglang serve --model-path {name} --tp-size 8 --dp-size 2")
