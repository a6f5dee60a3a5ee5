"""The export as the site ships it, in two files (macros/site/export.py split_export): the
part a page fetches to mount the Playground, and the later part it fetches on first need
(another release's catalog, the deployment files). Over every model, both languages: the two
parts are the export again; the mounted part holds no release catalog an image of the model
does not run and nothing only the deployment files read; with it alone the Playground
(Node, tests/js/later.mjs) composes every cell, prints it, words it, greys its options and finds
its same commands exactly as with the whole export, and never asks for the later part; a release only the later
part holds asks for it, and once joined the result is the whole export's. (What the mounted
part leaves out and the tests above do not read, the page's own modules, is the browser's:
test_browser_weight.py and the Playground's browser tests, on the site as built.)"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from macros.site.export import (LATER, LATER_KEYS, LATER_MODEL, LATER_TEXT, export_model,
                                image_releases, join_export, later_name, module_texts,
                                split_export)

from helpers.models import MODELS

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "js" / "later.mjs"
NODE = shutil.which("node")


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model_id", MODELS)
def test_the_two_parts_are_the_export(db, model_id, lang):
    whole = export_model(db, model_id, lang)
    now, later = split_export(whole, later_name(model_id, lang))
    assert join_export(now, later) == whole
    assert now[LATER] == f"{model_id}.{lang}.later.json"
    kept = image_releases(whole)
    assert set(now["release_catalogs"]) == kept & set(whole["release_catalogs"])
    assert set(later["release_catalogs"]) == set(whole["release_catalogs"]) - kept
    assert later["release_catalogs"]  # the history has releases no image runs
    assert not any(k in now for k in LATER_KEYS)
    assert not any(k.startswith(LATER_TEXT) for k in now["text"])
    assert any(k.startswith(LATER_TEXT) for k in later["text"])
    assert {"run_flags", "kubernetes"} <= set(later["containers"])
    assert not {"run_flags", "kubernetes"} & set(now["containers"])
    assert not set(LATER_MODEL) & set(now["model"])
    names, _ = module_texts()  # what the mounted modules name is there, whatever the model
    assert {k for k in whole["text"] if k in names} <= set(now["text"])


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model_id", MODELS)
def test_the_mounted_part_composes_every_cell_and_asks_for_the_rest_only_when_needed(
        db, model_id, tmp_path):
    whole = export_model(db, model_id, "en")
    now, later = split_export(whole, later_name(model_id, "en"))
    paths = []
    for name, part in (("now", now), ("later", later), ("whole", whole)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(part, ensure_ascii=False), encoding="utf-8")
    subprocess.run([NODE, str(RUNNER), *map(str, paths), str(tmp_path / "out.json")],
                   check=True, capture_output=True, timeout=300)
    out = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert len(out["cells"]) == len(whole["cells"])
    for cell in out["cells"]:
        assert not cell["later"] and not cell["error"] and cell["same"], cell
    assert {r["release"] for r in out["releases"]} == set(later["release_catalogs"])
    for release in out["releases"]:
        assert release["asked"] and not release["error"] and release["same"], release
    assert out["deploy"] and not out["left"]
