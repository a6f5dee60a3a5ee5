"""Editing a copy of recipes/ model by model, for tests that loop over every model."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Callable

from helpers import yamlc

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted(p.name for p in (ROOT / "recipes").iterdir()
                if p.is_dir() and p.name != "catalog")
_INFO = {m: yamlc.load((ROOT / "recipes" / m / "model.yaml").read_text(encoding="utf-8"))
         for m in MODELS}
# The models whose ids the home page's macro calls name (its quick start), else the first
# model: a copy of the project holding only these still builds (helpers.project_copy), since a
# build needs a model and the home page's macros need theirs.
HOME_MODELS = sorted({m for m in MODELS for lang in ("en", "ko")
                      if re.search(r"\{\{[^}]*['\"]" + re.escape(m) + r"['\"]",
                                   (ROOT / "docs" / lang / "index.md").read_text(encoding="utf-8"))}
                     ) or MODELS[:1]
# Models that publish benchmark results (benchmarks.yaml, optional): the results' pages are
# tested on these; a model without the file has no results to show.
BENCHMARKED = [m for m in MODELS if (ROOT / "recipes" / m / "benchmarks.yaml").is_file()]


def _speed_rows(model_id: str) -> bool:
    data = yamlc.load((ROOT / "recipes" / model_id / "benchmarks.yaml").read_text(
        encoding="utf-8")) or {}
    return any(result.get("rows") for result in data.get("results") or [])


# Models that publish speed rows (a serving benchmark with a reproduce command beside each
# row); a model may publish only measured rows of its own metrics (a diffusion model's).
SPEED = [m for m in BENCHMARKED if _speed_rows(m)]

# Models that declare calculators: their properties are tested on these.
CALCULATED = [m for m in MODELS if _INFO[m].get("calculators")]
# Models whose calculators read a request length: the avg_len inputs are tested on these.
MEASURED = [m for m in MODELS if _INFO[m].get("request_length")]
BRANCH_VALUE = "branch-only-value"


def subpages(model_id: str) -> list[str]:
    """The model's pages under its recipe page, relative to it, as the site serves them: the
    commands page, the benchmarks page of a model that publishes results, and any other page
    its English docs keep beside them (docs/en/models/<model>/: advanced usage)."""
    folder = ROOT / "docs" / "en" / "models" / model_id
    pages = {f"{page.stem}/" for page in folder.glob("*.md")} | {"commands/"}
    return sorted(pages | ({"benchmarks/"} if model_id in BENCHMARKED else set()))


def edit_yaml(path: Path, change: Callable[[dict], None]) -> None:
    """Rewrite one YAML file of a copy through ``change`` (comments are lost; data is not)."""
    data = yamlc.load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yamlc.dump(data, sort_keys=False, allow_unicode=True, width=1000),
                    encoding="utf-8")


def add_twin(root: Path, model_id: str) -> str:
    """A second model: ``model_id``'s folder under another id, with served names of its own."""
    twin = f"{model_id}-twin"
    shutil.copytree(root / model_id, root / twin)

    def rename(data: dict) -> None:
        data["id"] = twin
        for rule in data["model_names"]:
            rule["name"] += "-twin"
        by_name = (data.get("api") or {}).get("inputs_by_name") or {}
        for name in list(by_name):
            by_name[name + "-twin"] = by_name.pop(name)
    edit_yaml(root / twin / "model.yaml", rename)
    return twin


def unused_choice_flag(db, model_id: str) -> str:
    """A one-value flag with choices that no file of the model names, so no rule reads it."""
    text = "".join(p.read_text(encoding="utf-8")
                   for p in sorted((ROOT / "recipes" / model_id).glob("*.yaml")))
    catalog = db.serving(db.model(model_id)).catalog  # the CLI that serves the model
    return next(name for name, spec in sorted(catalog.flags.items())
                if spec.choices and spec.nargs is None and spec.takes_value
                and BRANCH_VALUE not in spec.choices and name not in text)


def add_branch_value(root: Path, model_id: str, flag: str, declare: bool = True) -> None:
    """The model's first cell sets ``flag`` to BRANCH_VALUE; ``declare`` lists the value in
    the model's branch_values."""
    def cell(data: dict) -> None:
        data["cells"][0]["flags"].append(f"{flag} {BRANCH_VALUE}")
    edit_yaml(root / model_id / "cells.yaml", cell)
    if declare:
        edit_yaml(root / model_id / "model.yaml", lambda data: data.setdefault(
            "branch_values", {}).setdefault(flag, {}).update({BRANCH_VALUE: "a test branch"}))


def cell_selection(model) -> dict[str, str]:
    """The model's first cell as a selection."""
    return dict(model.cells[0].match)


# A float flag no model's data names, of each CLI a model may declare (model.yaml cli).
EXTRA_CALC_FLAGS = {"llm": "--schedule-conservativeness", "diffusion": "--dit-offload-prefetch-size"}


# Another number flag of each CLI that no model's data names (a second calculator's pin).
OTHER_CALC_FLAGS = {"llm": "--max-total-tokens", "diffusion": "--dist-timeout"}


def other_calc_flag(model_id: str) -> str:
    return OTHER_CALC_FLAGS[_INFO[model_id].get("cli", "llm")]


def extra_calc_flag(model_id: str) -> str:
    """The float flag ``add_calculator`` pins for ``model_id`` (its CLI's)."""
    return EXTRA_CALC_FLAGS[_INFO[model_id].get("cli", "llm")]


def add_calculator(root: Path, model_id: str, not_on: str) -> None:
    """One more calculator, ``extra``, on a copy: it pins extra_calc_flag to avg_len / 8192,
    does not apply on hardware ``not_on`` (reason ``ui.calc.na``), and a rule pins it."""
    def model(data: dict) -> None:
        data.setdefault("request_length", {"default": 16384, "common": [8192, 16384]})
        data.setdefault("calculators", []).append({
            "id": "extra", "label": "ui.calc.na", "pins": extra_calc_flag(model_id),
            "values": [{"id": "unit", "default": 8192}], "formula": "avg_len / unit"})
    edit_yaml(root / model_id / "model.yaml", model)

    def rules(data: dict) -> None:
        data.setdefault("calculator", []).append(
            {"id": "extra-off", "calculator": "extra", "when": {"hw": not_on},
             "reason": "ui.calc.na"})
        data.setdefault("transforms", []).append(
            {"id": "pin-extra", "when": {"calculator.extra": "applicable"},
             "add": [f"{extra_calc_flag(model_id)} {{calc.extra}}"]})
    edit_yaml(root / model_id / "rules.yaml", rules)


# A real port flag of each server catalog that stands in for a later release's new spelling.
OTHER_PORT = {"sglang": "--grpc-port", "sglang-diffusion": "--master-port"}


def rename_port(root: Path, new: dict[str, str] | None = None) -> dict[str, str]:
    """A copy where each server catalog's port flag is spelt ``new[package]`` (its role in
    flag-bounds.yaml lists it first) and the cells give no --host: only the port role then
    says where a command ends (resolve._splice) and which port a benchmark aims at
    (served._port). Returns each model's new spelling (by the package of its CLI)."""
    from macros.engine.database import load_database
    new = new or OTHER_PORT
    db = load_database(root)
    package = {m: db.serving(db.model(m)).catalog.package for m in MODELS}

    def roles(data: dict) -> None:
        for name, flag in new.items():
            if name in data["roles"]:
                data["roles"][name]["port"] = [flag, *data["roles"][name]["port"]]
    edit_yaml(root / "catalog" / "flag-bounds.yaml", roles)
    for model_id in MODELS:
        flag = new[package[model_id]]

        def cells(data: dict) -> None:
            for cell in data["cells"]:
                cell["flags"] = [f.replace("--port ", flag + " ", 1) if f.startswith("--port ")
                                 else f for f in cell["flags"] if not f.startswith("--host ")]
        edit_yaml(root / model_id / "cells.yaml", cells)
    return {m: new[package[m]] for m in MODELS}
