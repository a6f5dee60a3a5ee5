"""``recipes verify-report`` (issue #24 item 5): every model's recorded cells with their records,
stale ones first, as text and JSON; the same as a page in both languages, in both navs."""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers.models import MODELS, edit_yaml

from macros.engine.database import load_database
from macros.engine.records import RECORDED, record
from macros.site.pages import Site

ROOT = Path(__file__).resolve().parents[2]


def test_the_json_lists_every_recorded_cell_stale_first_with_a_summary_per_model(cli, db):
    out = cli("verify-report", "--format", "json")
    assert out.code == 0, out.err
    data = out.json()
    assert set(data["summary"]) == set(MODELS)  # a model without records is listed too
    for model_id in MODELS:
        model = db.model(model_id)
        recs = [record(db, model, c) for c in model.cells if c.status.value in RECORDED]
        assert data["summary"][model_id] == {
            "records": len(recs), "rounds": sum(r.round is not None for r in recs),
            "stale": sum(bool(r.stale) for r in recs)}
    stale = [bool(c["record"]["stale"]) for c in data["cells"]]
    assert stale == sorted(stale, reverse=True)  # stale ones first
    for cell in data["cells"]:
        assert (cell["status"] == "stale") == (bool(cell["record"]["stale"])
                                               and cell["status"] != "in-progress")
        assert len(cell["why"]) == len(cell["record"]["stale"])


def test_the_text_report_follows_the_language(cli):
    en, ko = cli("verify-report"), cli("verify-report", "--lang", "ko")
    assert en.code == ko.code == 0
    assert "Verification record" in en.out and "검증 기록" in ko.out
    for model_id in MODELS:  # each model's summary line is in the reader's language too
        line = next(line for line in ko.out.splitlines() if line.startswith(f"{model_id}: "))
        assert "기록이 있는 셀" in line and "cell(s)" not in line, line


def test_a_stale_record_is_reported_first_with_why(recipes_copy, cli):
    """With no release allowed behind the newest, every record on an older release is stale
    and the report leads with them, each with its reason."""
    edit_yaml(recipes_copy / "catalog" / "verification.yaml",
              lambda data: data.update(releases_behind=0))
    db = load_database(recipes_copy)
    out = cli("--root", str(recipes_copy), "verify-report", "--format", "json").json()
    older = sum(1 for m in db.models.values() for c in m.cells
                if (r := record(db, m, c)) and r.release and r.release != db.releases.newest)
    assert sum(n["stale"] for n in out["summary"].values()) >= older
    assert all(c["why"] for c in out["cells"][:older])


def test_the_page_exists_in_both_languages_and_both_navs(db):
    for config, lang in (("mkdocs.yml", "en"), ("mkdocs.ko.yml", "ko")):
        text = (ROOT / config).read_text(encoding="utf-8")
        assert "verification.md" in text
        page = (ROOT / "docs" / lang / "verification.md").read_text(encoding="utf-8")
        assert "{{ verify_report() }}" in page
        table = Site(db, lang).verify_report()
        assert table.count("recipe-badge--") == sum(
            1 for m in db.models.values() for c in m.cells if c.status.value in RECORDED)
    assert yaml
