"""The Playground's deployment files (playground/deploy.js) are the Python's (macros/site/
deploy.py, kube.py) byte for byte: every PD and multi-node selection of every model and a
spread of the others, in both languages, each format with its placeholders; a spread of them
again with a release chosen in the release select."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from macros.engine.resolve import resolve
from macros.engine.selection import Selection
from macros.site import deploy
from macros.site.export import export_model

from helpers.models import MODELS
from helpers.walks import walked

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "js" / "deploy_parity.mjs"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None,
                                reason="node is not installed (apt-get install nodejs)")


def _batch(db, model_id: str) -> list[tuple[dict, object]]:
    """One selection per distinct (PD role, nodes, hardware, command), the rest thinned."""
    seen: dict = {}
    for flat, res in walked(db, model_id):
        key = (res.hw, res.pd, res.nodes, tuple(res.flag_texts), tuple(res.env))
        seen.setdefault(key, (flat, res))
    special = [v for v in seen.values() if v[1].pd or v[1].nodes > 1]
    plain = [v for v in seen.values() if not (v[1].pd or v[1].nodes > 1)]
    return special[:: max(1, len(special) // 150)] + plain[:: max(1, len(plain) // 60)]


@pytest.mark.parametrize("model_id", MODELS)
def test_playground_writes_the_deployment_files_python_writes(db, model_id, tmp_path):
    model = db.model(model_id)
    paths = {}
    for lang in ("en", "ko"):
        paths[lang] = tmp_path / f"{model_id}.{lang}.json"
        paths[lang].write_text(json.dumps(export_model(db, model_id, lang), ensure_ascii=False),
                               encoding="utf-8")
    batch = _batch(db, model_id)
    # the same files for a release the reader chose (the release select, sglang= in the URL):
    # the oldest release other than the image's, every server spelt for it
    chosen = []
    for flat, res in batch[:: max(1, len(batch) // 12)]:
        release = next(v for v in db.releases.order if v != res.sglang_default)
        chosen.append(({**flat, "sglang": release}, resolve(
            db, Selection.flat(model, flat, res.avg_len), release=release)))
    assert any(res.sglang != res.sglang_default for _, res in chosen)
    batch += chosen
    sels = tmp_path / "selections.json"
    sels.write_text(json.dumps([flat for flat, _ in batch]), encoding="utf-8")
    out = tmp_path / "out.json"
    subprocess.run([NODE, str(RUNNER), str(paths["en"]), str(paths["ko"]), str(sels), str(out)],
                   check=True, cwd=ROOT, capture_output=True, timeout=600)
    got = json.loads(out.read_text(encoding="utf-8"))
    assert any(res.pd for _, res in batch) or not model.info.pd
    for (flat, res), row in zip(batch, got):
        assert "error" not in row, (flat, row.get("error"))
        for lang in ("en", "ko"):
            for fmt in deploy.FORMATS:
                want = [{"name": f.name, "text": f.text, "placeholders": f.placeholders}
                        for f in deploy.files(db, model, res, fmt, lang)]
                assert row[lang][fmt] == want, (flat, lang, fmt)
