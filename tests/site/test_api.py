"""The static JSON API of the built site (macros/site/api.py): one file per cell of every
model, listed in api/index.json and in llms.txt, each the cell's command and deployment files
as ``recipes command`` gives them."""

from __future__ import annotations

import json

from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site import deploy, render

from helpers.models import MODELS


def test_api_has_one_file_per_cell_as_the_cli_gives_it(db, built_site):
    site = built_site
    index = json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))
    assert [m["id"] for m in index["models"]] == MODELS
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    assert "(api/index.json)" in llms
    for entry in index["models"]:
        model = db.model(entry["id"])
        assert [c["match"] for c in entry["cells"]] == [dict(c.match) for c in model.cells]
        files = [c["file"] for c in entry["cells"]]
        assert len(set(files)) == len(files)
        for cell in entry["cells"]:
            data = json.loads((site / "api" / cell["file"]).read_text(encoding="utf-8"))
            res = resolve(db, Selection(model.id, cell["match"], {}), strict=False)
            assert data["command"] == render.command_text(db, model, res, "en"), cell["file"]
            for fmt in deploy.FORMATS:
                assert [f["text"] for f in data["files"][fmt]] == [
                    f.text for f in deploy.files(db, model, res, fmt, "en")], cell["file"]
    assert not (site / "ko" / "api").exists()
