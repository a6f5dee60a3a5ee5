"""The commands bound to a benchmark result: the serve command its run ran and, for each of its
speed rows, the bench_serving command that sends the row's requests again.

Owns composing the serve command from the result's data (its cell and settings through
``resolve``, then the flags and environment the run set on top: a flag or variable the recipe
command has takes the run's value in place, any other is added after the recipe's), what it
changes against the recipe command, its check (``check_state``, as every composed command) and
the reproduce commands aimed at the port and served name of that command. Must not format
reader text (``render.py``, ``site.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from macros.engine import bench_serving
from macros.engine.check import check_state
from macros.engine.model import Database
from macros.engine.model import Model
from macros.engine.flags import Flag, env_name, env_text, parse_flag_text
from macros.engine.resolve import resolve
from macros.engine.results import Resolution
from macros.engine.schema import BenchResult
from macros.engine.selection import Selection


class ServedError(ValueError):
    """A result's data does not describe a run: an extra that changes nothing."""


@dataclass(frozen=True)
class Change:
    """One difference from the recipe command, as shell text: ``was`` is None when added."""

    now: str
    was: str | None = None


@dataclass(frozen=True)
class Served:
    recipe: Resolution  # the recipe command of the result's cell and settings
    command: Resolution  # what the run served
    changes: list[Change]
    # flags of today's recipe command the run's release refuses: the recipe has moved on
    # since the run, whose own command is not on record (then judged by the pinned release)
    refused: tuple[str, ...] = ()


def served(db: Database, model: Model, result: BenchResult) -> Served:
    """The serve command ``result`` ran. Raises RecipeError for a selection that resolve
    refuses, ServedError for an extra flag or variable the recipe command already has."""
    sel = Selection.flat(model, result.match)
    # spelt for the release the run ran on (a build between releases: the recipe's own)
    recipe = resolve(db, sel, release=result.sglang)
    flags, changes = list(recipe.flags), []
    for text in result.extra_flags:
        for flag in parse_flag_text(text):
            _apply(flags, flag, lambda f: f.name, Flag.text, changes, "flag")
    env = list(recipe.env)
    for entry in result.extra_env:
        _apply(env, entry, env_name, env_text, changes, "variable")
    known = {k: ("" if v is None else v) for k, v in recipe.picks.items()}
    known["nodes"] = recipe.nodes
    def judged(release):
        return check_state(db, model, recipe.match, known, {f.name: f.values for f in flags},
                           dict(e.split("=", 1) for e in env), model.cell(recipe.match), release)
    diagnostics = judged(recipe.sglang)
    refused = tuple(sorted({f for d in diagnostics if d.severity.value == "error"
                            and d.rule in ("catalog.bad-value", "catalog.unknown-flag")
                            for f in d.flags}))
    if refused:
        diagnostics = judged(None)
    command = recipe.model_copy(update={"flags": flags, "env": env, "diagnostics": diagnostics})
    return Served(recipe, command, changes, refused)


def _apply(items: list, item, key, text, changes: list[Change], what: str) -> None:
    """Give ``item`` its place among ``items`` (the recipe command's): in place of the one
    with its key, else after them; note the change."""
    at = next((i for i, old in enumerate(items) if key(old) == key(item)), None)
    if at is None:
        items.append(item)
        changes.append(Change(text(item)))
    elif items[at] == item:
        raise ServedError(f"the run's {what} {text(item)} is already in the recipe command; "
                          "drop it from the result")
    else:
        changes.append(Change(text(item), text(items[at])))
        items[at] = item


def reproduce(db: Database, result: BenchResult, bench, command: Resolution
              ) -> list[list[Flag]]:
    """Each speed row's bench_serving arguments, aimed at the served name of ``command`` and
    the port clients reach (its router's when it is a PD server)."""
    port = _port(db, command)
    return [bench_serving.reproduce(bench.workload, row, bench_serving.num_prompts(
                row, bench.num_prompts_by_concurrency), command.model_name, port)
            for row in result.rows]


def _port(db: Database, command: Resolution) -> str | None:
    """The port the server (or its router) is given, by the flags of the ``port`` role."""
    router = command.router is not None
    names = (db.router_catalog if router else db.catalog).role_flags("port")
    groups = command.router if router else [command.flags]
    ports = [f.value for group in groups for f in group if f.name in names]
    return ports[-1] if ports else None
