"""What the ``benchmarks`` macro shows of a model's published results, in both languages:
speed rows headed with their latency percentile, accuracy scores with their unit, each
result's notes and the SGLang build it ran on (tests/test_benchmark_commands.py has its
commands). Every test runs over every model in recipes/;
the accuracy tests add a result to a copy of each model, with DeepSeek-V4 Flash's upstream
default accuracy (GPQA Diamond 88.1 %, AIME25 95 %, GSM8K 96.13 %)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers import yamlc
from macros.engine.database import load_database
from macros.site.pages import Site

ROOT = Path(__file__).resolve().parents[2]
# the models that publish benchmark results (benchmarks.yaml is optional)
MODELS = sorted(p.name for p in (ROOT / "recipes").iterdir()
                if p.is_dir() and p.name != "catalog" and (p / "benchmarks.yaml").is_file())
FLASH = {"gpqa_diamond": ("bench.gpqa-diamond", "GPQA Diamond", 88.1),
         "aime25": ("bench.aime25", "AIME25", 95),
         "gsm8k": ("bench.gsm8k", "GSM8K (1-shot)", 96.13)}
VERSION = "0.5.21"  # a release no round of any model names: one title only


def add_result(recipes: Path, model: str, result: dict, declare: dict | None = None,
               text: dict[str, dict[str, str]] | None = None) -> None:
    """Append ``result`` to the copy's benchmarks file (made if the model has none), declare
    the benchmarks it scores and add the text ids it uses."""
    path = recipes / model / "benchmarks.yaml"
    data = yamlc.load(path.read_text(encoding="utf-8")) if path.exists() else {
        "latency_percentile": "p50", "results": []}
    data.setdefault("accuracy_benchmarks", {}).update(declare or {})
    data["results"].append(result)
    path.write_text(yamlc.dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    for lang, entries in (text or {}).items():
        file = recipes / model / f"text.{lang}.yaml"
        lines = "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in entries.items())
        file.write_text(file.read_text(encoding="utf-8").rstrip("\n") + "\n" + lines,
                        encoding="utf-8")


def cell_match(db, model: str) -> dict:
    return dict(db.model(model).cells[0].match)


def with_flash_accuracy(recipes: Path, db, model: str, **extra) -> None:
    """An accuracy-only result on the model's first cell, with no round."""
    add_result(recipes, model,
               {"match": cell_match(db, model), "sglang": VERSION,
                "accuracy": [{"benchmark": b, "score": s} for b, (_, _, s) in FLASH.items()],
                **extra},
               declare={b: {"label": label, "unit": "percent"}
                        for b, (label, _, _) in FLASH.items()},
               text={lang: {label: name for label, name, _ in FLASH.values()}
                     for lang in ("en", "ko")})


def titles(page: str) -> list[str]:
    return [line for line in page.splitlines() if line.startswith("**")]


def block(page: str, version: str) -> list[str]:
    """The lines under the one result whose title names ``version``, up to the next title."""
    lines = page.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("**")]
    (start,) = [i for i in starts if lines[i].endswith(f" SGLang {version})")]
    end = next((i for i in starts if i > start), len(lines))
    return [line for line in lines[start + 1:end] if line]


def tables(page: str, version: str) -> list[str]:
    """The table lines of that result (its commands and notes follow them)."""
    return [line for line in block(page, version) if line.startswith("|")]


def render(recipes: Path, model: str, lang: str) -> str:
    return Site(load_database(recipes), lang).benchmarks(model)


@pytest.mark.parametrize("model", MODELS)
def test_accuracy_scores_render_as_benchmark_and_score_rows_in_english(recipes_copy, db, model):
    with_flash_accuracy(recipes_copy, db, model)
    assert tables(render(recipes_copy, model, "en"), VERSION) == [
        "| Benchmark | Score |",
        "|---|---:|",
        "| GPQA Diamond | 88.1% |",
        "| AIME25 | 95% |",
        "| GSM8K (1-shot) | 96.13% |",
    ]


@pytest.mark.parametrize("model", MODELS)
def test_accuracy_scores_render_as_benchmark_and_score_rows_in_korean(recipes_copy, db, model):
    with_flash_accuracy(recipes_copy, db, model)
    assert tables(render(recipes_copy, model, "ko"), VERSION) == [
        "| 벤치마크 | 점수 |",
        "|---|---:|",
        "| GPQA Diamond | 88.1% |",
        "| AIME25 | 95% |",
        "| GSM8K (1-shot) | 96.13% |",
    ]


@pytest.mark.parametrize("model", MODELS)
def test_a_result_without_a_round_is_titled_with_its_cell_and_the_version_it_names(
        recipes_copy, db, model):
    with_flash_accuracy(recipes_copy, db, model)
    platform = db.platforms[cell_match(db, model)["hw"]].label
    (title,) = [t for t in titles(render(recipes_copy, model, "en")) if VERSION in t]
    assert title.startswith(f"**{platform} · ") and title.endswith(f" SGLang {VERSION})")


@pytest.mark.parametrize("model", MODELS)
def test_results_without_a_round_come_after_every_round(recipes_copy, db, model):
    with_flash_accuracy(recipes_copy, db, model)
    assert titles(render(recipes_copy, model, "en"))[-1].endswith(f" SGLang {VERSION})")


@pytest.mark.parametrize("lang, expected", [
    ("en", ["!!! note \"\"", "    Scored with sgl-eval, temperature 0."]),
    ("ko", ["!!! note \"\"", "    sgl-eval로 temperature 0에서 채점했어요."]),
])
@pytest.mark.parametrize("model", MODELS)
def test_a_results_notes_follow_its_tables(recipes_copy, db, model, lang, expected):
    with_flash_accuracy(recipes_copy, db, model, notes=["bench.note.sgl-eval"])
    add_result(recipes_copy, model, {"match": cell_match(db, model), "sglang": "0.5.17",
                                     "accuracy": [{"benchmark": "gsm8k", "score": 96.4}]},
               text={"en": {"bench.note.sgl-eval": "Scored with sgl-eval, temperature 0."},
                     "ko": {"bench.note.sgl-eval": "sgl-eval로 temperature 0에서 채점했어요."}})
    assert block(render(recipes_copy, model, lang), VERSION)[-2:] == expected


@pytest.mark.parametrize("lang, expected", [("en", "1,234.5 points"), ("ko", "1,234.5점")])
@pytest.mark.parametrize("model", MODELS)
def test_a_points_score_reads_as_points_and_may_exceed_100(recipes_copy, db, model, lang,
                                                           expected):
    add_result(recipes_copy, model, {"match": cell_match(db, model), "sglang": VERSION,
                                     "accuracy": [{"benchmark": "arena", "score": 1234.5}]},
               declare={"arena": {"label": "bench.arena", "unit": "points"}},
               text={"en": {"bench.arena": "Arena"}, "ko": {"bench.arena": "Arena"}})
    assert tables(render(recipes_copy, model, lang), VERSION)[-1] == f"| Arena | {expected} |"


@pytest.mark.parametrize("model", MODELS)
def test_a_score_shows_every_digit_the_data_gives(recipes_copy, db, model):
    add_result(recipes_copy, model, {"match": cell_match(db, model), "sglang": VERSION,
                                     "accuracy": [{"benchmark": "gsm8k", "score": 99.9999}]},
               declare={"gsm8k": {"label": "bench.gsm8k", "unit": "percent"}},
               text={"en": {"bench.gsm8k": "GSM8K"}, "ko": {"bench.gsm8k": "GSM8K"}})
    assert tables(render(recipes_copy, model, "en"), VERSION)[-1] == "| GSM8K | 99.9999% |"


@pytest.mark.parametrize("model", MODELS)
def test_a_benchmark_label_is_inert_text_in_its_table_cell(recipes_copy, db, model):
    label = "GPQA *Diamond* | [x](javascript:1) <b>"
    add_result(recipes_copy, model, {"match": cell_match(db, model), "sglang": VERSION,
                                     "accuracy": [{"benchmark": "gpqa", "score": 88.1}]},
               declare={"gpqa": {"label": "bench.gpqa", "unit": "percent"}},
               text={"en": {"bench.gpqa": label}, "ko": {"bench.gpqa": label}})
    assert tables(render(recipes_copy, model, "en"), VERSION)[-1] == \
        r"| GPQA \*Diamond\* \| \[x\](javascript:1) &lt;b&gt; | 88.1% |"


SPEED_HEAD = {
    "en": "| Input length | Output length | Concurrency | TTFT {p} (ms) | TPOT {p} (ms) | "
          "Throughput (tok/s/GPU) |",
    "ko": "| 입력 길이 | 출력 길이 | 동시성 | TTFT {p} (ms) | TPOT {p} (ms) | 처리량 (tok/s/GPU) |",
}
PERCENTILE = {"en": {"p50": "P50", "mean": "mean"}, "ko": {"p50": "P50", "mean": "평균"}}


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_every_speed_table_names_the_latency_percentile_of_its_figures(db, model, lang):
    bench = db.model(model).benchmarks
    page = Site(db, lang).benchmarks(model)
    results = bench.results if bench else []
    # the page's order: results by round, in the rounds' order, then those without a round
    in_order = [r for rnd in db.model(model).info.rounds for r in results if r.round == rnd.id] \
        + [r for r in results if r.round is None]
    expected = [SPEED_HEAD[lang].format(p=PERCENTILE[lang][r.latency_percentile or
                                                           bench.latency_percentile])
                for r in in_order if r.rows]
    assert [line for line in page.splitlines() if line.startswith("| ")
            and "(tok/s/GPU)" in line] == expected


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_a_result_may_state_its_own_latency_percentile(recipes_copy, db, model, lang):
    path = recipes_copy / model / "benchmarks.yaml"
    data = yamlc.load(path.read_text(encoding="utf-8")) if path.exists() else None
    if data is None or not any(r.get("rows") for r in data["results"]):
        pytest.skip(f"{model} publishes no speed rows")
    other = {"p50": "mean", "mean": "p50"}[data["latency_percentile"]]
    result = next(r for r in data["results"] if r.get("rows"))
    result.pop("round", None)  # titled with its release alone, so the block is found by it
    result.update(latency_percentile=other, sglang=VERSION)
    path.write_text(yamlc.dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    page = render(recipes_copy, model, lang)
    assert block(page, VERSION)[0] == SPEED_HEAD[lang].format(p=PERCENTILE[lang][other])


@pytest.mark.parametrize("model", MODELS)
def test_a_result_in_a_round_is_titled_with_its_rounds_build(db, model):
    bench = db.model(model).benchmarks
    rounds = {r.id: r.version for r in db.model(model).info.rounds}
    in_rounds = [r for rnd in db.model(model).info.rounds
                 for r in (bench.results if bench else []) if r.round == rnd.id]
    page_titles = titles(Site(db, "en").benchmarks(model))[:len(in_rounds)]
    assert [t.rsplit(" SGLang ", 1)[1] for t in page_titles] == \
        [f"{rounds[r.round]})" for r in in_rounds]


def _typed_results(model: str):
    """The file's ``results`` as YAML's node tree: each scalar as the file writes it ("64.0"
    stays "64.0", where a loaded number would be 64)."""
    path = ROOT / "recipes" / model / "benchmarks.yaml"
    if not path.exists():
        return []
    root = yaml.compose(path.read_text(encoding="utf-8"))
    return _field(root, "results").value


def _field(node, key):
    return next((v for k, v in node.value if k.value == key), None)


def _entries(result, key) -> list[dict]:
    """A result's list ``key`` (rows, accuracy) as mappings of the scalars as written."""
    items = _field(result, key)
    return [{k.value: v.value for k, v in item.value} for item in (items.value if items else [])]


@pytest.mark.parametrize("model", MODELS)
def test_every_published_speed_row_shows_every_digit_of_its_figures(db, model):
    """Each speed row is one table line with every figure as the file writes it, thousands
    grouped and trailing zeros kept ("tpot_ms: 64.0" shows 64.0)."""
    page = Site(db, "en").benchmarks(model).splitlines()
    rows = [row for r in _typed_results(model) for row in _entries(r, "rows")]
    if not rows:
        pytest.skip(f"{model} publishes no speed rows")
    missing = [row for row in rows if "| " + " | ".join(_grouped(row[k]) for k in (
        "isl", "osl", "concurrency", "ttft_ms", "tpot_ms", "tok_s_gpu")) + " |" not in page]
    assert missing == []


@pytest.mark.parametrize("model", MODELS)
def test_every_published_accuracy_score_shows_every_digit_the_file_writes(db, model):
    """An accuracy score is shown as written ("score: 97.0" shows 97.0, in its unit's words)."""
    bench, site = db.model(model).benchmarks, Site(db, "en")
    page = site.benchmarks(model)
    scores = [(item["benchmark"], item["score"]) for r in _typed_results(model)
              for item in _entries(r, "accuracy")]
    if not scores:
        pytest.skip(f"{model} publishes no accuracy scores")
    for name, written in scores:
        decl = bench.accuracy_benchmarks[name]
        shown = site.th(f"unit.{decl.unit}", score=_grouped(written))  # the words around it
        line = f"| {site.th(decl.label, db.model(model))} | {shown} |"
        assert line in page, line


def _as_typed(model: str) -> list:
    """Each result's measured rows as the file's text writes each figure (YAML's own node
    tree: "33.10" stays "33.10", where a loaded number would be 33.1)."""
    out = []
    for result in _typed_results(model):
        measured = _field(result, "measured")
        out.append([{k.value: [x.value for x in v.value] if isinstance(v, yaml.SequenceNode)
                     else v.value for k, v in _field(row, "values").value}
                    for row in (measured.value if measured is not None else [])])
    return out


def _grouped(text: str) -> str:
    """A figure as written, its whole part with thousands separated."""
    whole, dot, fraction = text.partition(".")
    return f"{int(whole):,}{dot}{fraction}"


@pytest.mark.parametrize("model", MODELS)
def test_every_measured_row_shows_every_figure_in_its_metrics_columns(db, model):
    """A measured row (any kind of model's metrics) is one table line: what ran, then each
    metric of its table's columns, every digit as the file writes it (trailing zeros too; a
    range low–high), a dash where the row measured nothing."""
    bench = db.model(model).benchmarks
    if not any(r.measured for r in bench.results):
        pytest.skip(f"{model} publishes no measured rows")
    page = Site(db, "en").benchmarks(model).splitlines()
    for res, typed in zip(bench.results, _as_typed(model)):
        used = [m for m in bench.metrics if any(m in row.values for row in res.measured)]
        for row, written in zip(res.measured, typed):
            label = db.t("en", row.text, db.model(model)) if row.text else row.value
            figures = ["—" if m not in written else "–".join(map(_grouped, written[m]))
                       if isinstance(written[m], list) else _grouped(written[m])
                       for m in used]
            line = "| " + " | ".join([label.replace("_", "\\_"), *figures]) + " |"
            assert line in page, line
