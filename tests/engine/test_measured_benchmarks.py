"""Benchmark tables of any kind as data: a model's ``benchmarks.yaml`` declares the metrics its
runs measure (``metrics``: a label worded in both languages, a unit, which way is better) and a
result gives ``measured`` rows of them. The ``benchmarks`` macro, the one the speed and accuracy
tables go through, prints them as a table headed with each metric's label, unit and an arrow
(explained under it); a value a row lacks is a dash and a range is low–high. What the data gets
wrong is a ``recipes validate`` error at its line with the valid choices. Holds for every model
with benchmarks, on a copy given the data."""

from __future__ import annotations

import pytest
from helpers.models import BENCHMARKED, edit_yaml

from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.site.pages import Site

LABELS = {"en": ("Test latency", "Test memory"), "ko": ("시험 지연", "시험 메모리")}


def _with_metrics(recipes, model_id: str, rows: list[dict], metrics: dict | None = None,
                  labels: bool = True) -> None:
    def change(d):
        d["metrics"] = {**d.get("metrics", {}), **(metrics if metrics is not None else {
            "t_lat_s": {"label": "metric.t-lat", "unit": "s", "better": "lower"},
            "t_mem_gb": {"label": "metric.t-mem", "unit": "gb", "better": "higher"}})}
        d["results"].append({"match": dict(d["results"][0]["match"]),
                             "round": d["results"][0].get("round"),
                             "sglang": d["results"][0].get("sglang"),
                             "measured": rows})
        if d["results"][-1]["round"] is None:
            del d["results"][-1]["round"]
        if d["results"][-1]["sglang"] is None:
            del d["results"][-1]["sglang"]
    edit_yaml(recipes / model_id / "benchmarks.yaml", change)
    if labels:
        for lang, (lat, mem) in LABELS.items():
            edit_yaml(recipes / model_id / f"text.{lang}.yaml",
                      lambda d, lat=lat, mem=mem: d.update({"metric.t-lat": lat,
                                                            "metric.t-mem": mem}))


def _table(text: str, first_header: str) -> list[str]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if first_header in line and line.startswith("|"))
    end = next(i for i in range(at, len(lines)) if not lines[i].startswith("|"))
    return lines[at:end + 2]


@pytest.mark.parametrize("model_id", BENCHMARKED)
def test_measured_rows_render_as_a_table_of_their_metrics_in_both_languages(recipes_copy,
                                                                             model_id):
    _with_metrics(recipes_copy, model_id, [
        {"value": "run A", "values": {"t_lat_s": 12.5, "t_mem_gb": 80}},
        {"value": "run B", "values": {"t_lat_s": [3.25, 4.5]}}])
    copy = load_database(recipes_copy)
    for lang, (lat, mem) in LABELS.items():
        out = Site(copy, lang).benchmarks(model_id)
        s, gb = copy.t(lang, "bench.unit.s"), copy.t(lang, "bench.unit.gb")
        table = _table(out, lat)
        assert table[0] == f"| {copy.t(lang, 'table.setup')} | {lat} ({s}) ↓ | {mem} ({gb}) ↑ |"
        assert table[1] == "|---|---:|---:|"
        assert table[2] == "| run A | 12.5 | 80 |"
        assert table[3] == "| run B | 3.25–4.5 | — |"  # a range, a metric the row lacks
        assert table[5] == f"↓ {copy.t(lang, 'bench.better.lower')} · " \
                           f"↑ {copy.t(lang, 'bench.better.higher')}"


@pytest.mark.parametrize("model_id", BENCHMARKED)
def test_a_measured_figure_shows_the_digits_its_file_writes(recipes_copy, model_id):
    """YAML reads 12.1250 as the number 12.125; the table shows what was measured as the file
    writes it, trailing zeros kept and thousands grouped, in a range too."""
    _with_metrics(recipes_copy, model_id, [
        {"value": "run A", "values": {"t_lat_s": 12.125, "t_mem_gb": 80125.5}},
        {"value": "run B", "values": {"t_lat_s": [3.375, 4.875]}}])
    path = recipes_copy / model_id / "benchmarks.yaml"
    text = path.read_text(encoding="utf-8")
    for number, written in (("12.125", "12.1250"), ("80125.5", "80125.50"),
                            ("3.375", "3.3750"), ("4.875", "4.8750")):
        assert text.count(number) == 1, number
        text = text.replace(number, written)
    path.write_text(text, encoding="utf-8")
    copy = load_database(recipes_copy)
    for lang, (lat, _) in LABELS.items():
        table = _table(Site(copy, lang).benchmarks(model_id), lat)
        assert table[2:4] == ["| run A | 12.1250 | 80,125.50 |", "| run B | 3.3750–4.8750 | — |"]


@pytest.mark.parametrize("model_id", BENCHMARKED)
def test_a_measured_tables_columns_are_the_metrics_its_rows_give(recipes_copy, model_id):
    _with_metrics(recipes_copy, model_id, [{"text": "metric.t-lat", "values": {"t_lat_s": 1.0}}])
    copy = load_database(recipes_copy)
    table = _table(Site(copy, "ko").benchmarks(model_id), LABELS["ko"][0])
    # the row's label is a text id worded per language; the unused metric has no column
    assert table[0].count("|") == 3 and LABELS["ko"][1] not in table[0]
    assert table[2] == f"| {LABELS['ko'][0]} | 1.0 |"  # as the copy's file writes it


BAD = [
    ([{"value": "x", "values": {"t_lat": 1.0}}], None, "unknown metric 't_lat'", "t_lat_s"),
    ([{"value": "x", "values": {"t_lat_s": [5.0, 2.0]}}], None, "from low to high", None),
    ([{"value": "x", "values": {"p": 120.0}}],
     {"p": {"label": "metric.t-lat", "unit": "percent", "better": "higher"}}, "percentage", None),
    ([{"value": "x", "values": {"t_lat_s": 1.0}}],
     {"t_lat_s": {"label": "metric.t-lat", "unit": "seconds", "better": "lower"}}, "unit",
     "'s-per-step'"),
    ([{"value": "x", "values": {"t_lat_s": 1.0}}],
     {"t_lat_s": {"label": "metric.t-lat", "unit": "s", "better": "faster"}}, "better",
     "'lower'"),
    ([{"value": "x", "text": "metric.t-lat", "values": {"t_lat_s": 1.0}}], None,
     "exactly one of 'text'", None),
]


@pytest.mark.parametrize(("rows", "metrics", "said", "choice"), BAD,
                         ids=["unknown-metric", "range", "percent", "unit", "better", "label"])
def test_bad_measured_data_is_a_validate_error_at_its_line(recipes_copy, rows, metrics, said,
                                                           choice):
    model_id = BENCHMARKED[0]
    _with_metrics(recipes_copy, model_id, rows, metrics)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    [problem] = [p for p in exc.value.problems if said in p.message]
    assert problem.file.endswith(f"{model_id}/benchmarks.yaml") and problem.line is not None
    if choice is not None:
        assert choice in problem.message


def test_a_metric_label_without_its_text_is_a_validate_error(recipes_copy):
    model_id = BENCHMARKED[0]
    _with_metrics(recipes_copy, model_id, [{"value": "x", "values": {"t_lat_s": 1.0}}],
                  labels=False)
    with pytest.raises(RecipeError) as exc:
        load_database(recipes_copy)
    assert any("metric.t-lat" in p.message and p.file.endswith("benchmarks.yaml")
               for p in exc.value.problems)
