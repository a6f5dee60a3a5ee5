"""Generic code reads a flag's meaning, not its spelling: the tables that report a command's
parallel sizes read the flags the command prints, through the catalog's roles (flag-bounds.yaml).
Over every model and every scaling table its pages show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.models import MODELS, rename_port
from macros.site.pages import Site

ROOT = Path(__file__).resolve().parents[2]
CALL = re.compile(r"\{\{\s*scaling_table\((.*?)\)\s*\}\}")


def _calls():
    for page in sorted((ROOT / "docs" / "en").rglob("*.md")):
        for m in CALL.finditer(page.read_text(encoding="utf-8")):
            yield page.relative_to(ROOT).as_posix(), m.group(1)


CALLS = list(_calls())


def _args(text: str):
    args, kwargs = [], {}
    for part in (p.strip() for p in text.split(",")):
        if "=" in part:
            k, v = part.split("=", 1)
            kwargs[k.strip()] = v.strip().strip("\"'")
        else:
            args.append(part.strip("\"'"))
    return args, kwargs


def test_every_role_is_given_by_the_server_catalog(db):
    from macros.engine.bounds import ROLES

    assert set(db.catalog.roles) == set(ROLES)
    for role, names in db.catalog.roles.items():
        assert all(n in db.catalog.flags for n in names), role


@pytest.mark.parametrize("page,call", CALLS, ids=[f"{p}:{c.split(',')[0]}" for p, c in CALLS])
def test_scaling_table_shows_the_sizes_its_commands_print(db, page, call):
    args, kwargs = _args(call)
    model_id, axis, *dims = args
    assert model_id in MODELS
    site = Site(db, "en")
    table = site.scaling_table(model_id, axis, *dims, **kwargs).splitlines()[2:]
    model = db.model(model_id)
    options = model.axis_index[axis].options
    assert len(table) == len(options)
    for option, row in zip(options, table):
        cells = [c.strip() for c in row.strip("|").split("|")]
        tp, dp = cells[-2], cells[-1]
        # the command the first platform of the table prints for this option
        hw = next(h for h in model.info.hardware if _offers(site, model_id, h, dims, kwargs))
        res = site.resolve(model_id, hw, *dims, **{**kwargs, axis: option.id})
        printed = {f.name: f.value for f in res.flags}
        for role, shown in (("tensor-parallel", tp), ("data-parallel", dp)):
            given = [printed[n] for n in db.catalog.role_flags(role) if n in printed]
            assert shown == (given[0] if given else "1"), (option.id, role, printed)


def _offers(site, model_id, hw, dims, kwargs) -> bool:
    from macros.site.pages import MacroError

    try:
        site.resolve(model_id, hw, *dims, **kwargs)
    except MacroError:
        return False
    return True


@pytest.mark.parametrize("model_id", MODELS)
def test_added_flags_and_the_bench_port_follow_a_renamed_port_flag(recipes_copy, model_id):
    """resolve._splice puts added flags before the flags of the host and port roles, and
    served._port reads the port role: a port flag spelt otherwise (a later release's rename)
    still ends every command, and the reproduce commands aim at its value."""
    from macros.engine.database import load_database
    from macros.engine.selections import resolve_all
    from macros.engine import served

    # a real port flag of the model's catalog stands in for the new spelling
    new = rename_port(recipes_copy)[model_id]
    db = load_database(recipes_copy)
    assert new in db.serving(db.model(model_id)).catalog.role_flags("port")
    ended = 0
    for _, res in resolve_all(db, model_id):
        names = [f.name for f in res.flags]
        if new in names:
            assert names[-1] == new, (res.match, res.picks, names)
            ended += 1
    assert ended
    model = db.model(model_id)
    for result in model.benchmarks.results if model.benchmarks else []:
        if not result.rows:
            continue
        run = served.served(db, model, result)
        if run.command.router is not None:
            continue
        port = next(f.value for f in run.command.flags if f.name == new)
        for flags in served.reproduce(db, result, model.benchmarks, run.command):
            assert ("--port", (port,)) in [(f.name, f.values) for f in flags]
