"""Hostile strings planted in a copy of recipes/: shared by the static-page and the browser
tests of the same poison. Nothing here names a model: every model of the copy is poisoned the
same way, through what its data and its CLI's catalog say."""

from __future__ import annotations

import shlex
from pathlib import Path

from helpers import yamlc


EVIL = ('<script>alert("x")</script> "><img src=x onerror=alert(2)> '
        '[click](javascript:alert(3)) <div onclick=alert(4)> ``` | --')
# a flag value with shell metacharacters (valid JSON, so a flag that reads JSON takes it too)
EVIL_VALUE = '{"load": true, "x": "$(touch /tmp/pwned); `id`"}'
# markup that would set window.__pwned if parsed as HTML anywhere (an element's handler or a
# script): every poisoned text ends with it
SENTINEL = ('<img src=x onerror=window.__pwned=1>'
            '<svg onload="window.__pwned=2"></svg><script>window.__pwned=3</script>')
# markup a hardware label carries
EVIL_LABEL = "<script>alert(5)</script><img src=x onerror=window.__pwned=5>"


def poison(recipes: Path, extra: str = "") -> dict[str, str]:
    """Poison the copy at ``recipes``; the flag whose value each model's first cell that can
    carry one now carries as ``EVIL_VALUE``, by model id.

    - every reader-visible string of the shared catalog and of every model, each one marked
      with its own id so a test can see that it reached the page (and ``extra`` after it);
    - every hardware label of the catalog (``EVIL_LABEL`` after it);
    - in each model, one free-text flag value (``EVIL_VALUE``)."""
    for path in sorted(recipes.glob("*/text.*.yaml")):
        data = yamlc.load(path.read_text(encoding="utf-8"))
        for key in data:
            data[key] = " ".join(filter(None, (str(data[key]), key, EVIL, extra)))
        path.write_text(yamlc.dump(data, allow_unicode=True), encoding="utf-8")
    hw = recipes / "catalog" / "hardware.yaml"
    doc = yamlc.load(hw.read_text(encoding="utf-8"))
    labelled = 0
    for entry in _walk(doc):
        if isinstance(entry.get("label"), str) and "id" in entry:
            entry["label"] += EVIL_LABEL
            labelled += 1
    assert labelled, f"{hw}: no hardware label found to poison"
    hw.write_text(yamlc.dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return {path.parent.name: _poison_a_value(path)
            for path in sorted(recipes.glob("*/cells.yaml"))}


def build_poisoned(folder: Path) -> tuple[Path, Path, Path]:
    """(the poisoned recipes, the site built from them with both languages, a JSON file of the
    flag each model's poisoned value went to), made in ``folder``: the run's one hostile
    build, which the static and the browser tests only read (conftest's ``hostile_site``)."""
    import json
    import shutil

    from helpers.project import project_copy, recipes_root
    from macros.site.build import build_site

    recipes = folder / "recipes"
    shutil.copytree(Path(__file__).resolve().parents[2] / "recipes", recipes)
    flags = folder / "poisoned-flags.json"
    flags.write_text(json.dumps(poison(recipes, extra=SENTINEL)), encoding="utf-8")
    project = project_copy(folder)
    with recipes_root(recipes):
        site = build_site(out=project / "site", root=project, quiet=True)
    return recipes, site, flags


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _poison_a_value(cells_file: Path) -> str:
    """The first flag of the model's cells that its CLI's catalog reads as one free-text word
    (no choices, no number, no list; not a placeholder) gets ``EVIL_VALUE``: the flag."""
    from macros.engine.catalog import is_placeholder
    from macros.engine.database import cached_database

    db = cached_database()
    model = db.model(cells_file.parent.name)
    catalog = db.serving(model).catalog
    doc = yamlc.load(cells_file.read_text(encoding="utf-8"))
    for cell in doc["cells"]:
        for i, line in enumerate(cell.get("flags") or []):
            if not isinstance(line, str):
                continue
            words = shlex.split(line)
            spec = catalog.flags.get(words[0])
            if (len(words) == 2 and not is_placeholder(words[1]) and spec is not None
                    and spec.takes_value and spec.type == "str" and not spec.choices
                    and not spec.late_choices
                    and spec.nargs is None):
                cell["flags"][i] = f"{words[0]} {shlex.quote(EVIL_VALUE)}"
                cells_file.write_text(yamlc.dump(doc, allow_unicode=True, sort_keys=False),
                                      encoding="utf-8")
                return words[0]
    raise AssertionError(f"{cells_file}: no cell has a free-text flag value to poison")
