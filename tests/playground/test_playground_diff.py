"""The Playground's "changes against the recipe cell" list names what the reader's settings
change in the cell's command: nothing for the cell alone, and exactly the flags and variables
that differ from the cell's own command otherwise. Every model, through Node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.models import MODELS
from macros.site.export import export_model
from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.engine.selections import sample_playground

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None,
                                reason="node is not installed (apt-get install nodejs)")

RUNNER = """
const { pathToFileURL } = require('url');
const fs = require('fs');
const dir = process.argv[1];
Promise.all(['resolve.js', 'effects.js'].map((m) => import(pathToFileURL(dir + '/' + m).href)))
  .then(([{ compose }, { diff }]) => {
    const [data, sels] = JSON.parse(fs.readFileSync(0, 'utf8'));
    console.log(JSON.stringify(sels.map((s) => diff(data, compose(data, s))
      .map((c) => [c.kind, c.was || null, c.now || null]))));
  });
"""


def _js_diffs(data, selections):
    proc = subprocess.run([NODE, "-e", RUNNER, str(ROOT / "overrides/assets/recipes/playground")],
                          input=json.dumps([data, selections]), capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(proc.stdout)


@pytest.mark.parametrize("model_id", MODELS)
def test_the_cell_alone_changes_nothing_and_a_setting_shows_what_it_changes(db, model_id):
    model = db.model(model_id)
    cells = [dict(c.match) for c in model.cells]
    sampled = sample_playground(db, model_id, 60, seed=23)
    got = _js_diffs(export_model(db, model_id, "en"), cells + sampled)
    assert got[:len(cells)] == [[]] * len(cells)
    changed = 0
    for sel, diff in zip(sampled, got[len(cells):]):
        res = resolve(db, Selection.flat(model, sel), strict=False)
        base = resolve(db, Selection(model_id, res.match), strict=False)
        names = lambda texts: {t.split(" ")[0].split("=")[0] for t in texts}  # noqa: E731
        differs = names(set(res.flag_texts) ^ set(base.flag_texts)) | \
            names(set(res.env) ^ set(base.env))
        listed = {(c[1] or c[2]).split(" ")[0].split("=")[0] for c in diff}
        assert listed == differs, sel
        changed += bool(diff)
    assert changed  # the sample holds settings that change a command
