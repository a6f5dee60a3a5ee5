"""Every benchmark result is bound to the commands of its run: the serve command it ran (its
cell and settings, plus the flags and environment the run set) with its difference from the
recipe command, and beside each speed row the ``bench_serving`` command that reproduces it,
generated from the row and checked against the bench_serving arguments of the result's
release, at load and in the rendered pages' docs tests. Every test runs over every model."""

from __future__ import annotations

import html

import json
import re
import shutil
from pathlib import Path

import pytest

from helpers import yamlc
from helpers.models import SPEED as MODELS, ROOT, edit_yaml, unused_choice_flag  # noqa: N811
from helpers.sybil_docs import COUNTS, run_document
from macros.site import render
from macros.engine import yamlfile
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.engine.served import served
from macros.site.pages import MacroError, Site

RECIPE = {"en": "Served with this selection's recipe command, unchanged.",
          "ko": "이 선택의 레시피 명령을 바꾸지 않고 서빙했어요."}
CHANGED = {"en": "Served with this selection's recipe command, with these changes:",
           "ko": "이 선택의 레시피 명령에서 다음을 바꿔 서빙했어요:"}
SERVE_TITLE = {"en": "Serve command", "ko": "서빙 명령"}
REPRODUCE_TITLE = {"en": "Reproduce: input {isl}, output {osl}, concurrency {c}",
                   "ko": "재현: 입력 {isl}, 출력 {osl}, 동시성 {c}"}


def in_page_order(db, model: str) -> list:
    """The results as the page shows them: by round in the rounds' order, then the rest."""
    m = db.model(model)
    results = m.benchmarks.results
    return [r for rnd in m.info.rounds for r in results if r.round == rnd.id] + \
        [r for r in results if r.round is None]


def result_blocks(page: str) -> list[list[str]]:
    """Each result's lines, from its title to the next title."""
    lines = page.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("**")] + [len(lines)]
    return [lines[a:b] for a, b in zip(starts, starts[1:])]


def fences(lines: list[str]) -> list[tuple[str | None, str]]:
    """(the label above it, code) of each bash block in a result's lines (indented alike);
    a result with no speed rows has one block and no label."""
    out, label, fence, code = [], None, None, []
    for line in lines:
        text = line.strip()
        if fence is None and text.startswith("```") and text.lstrip("`") == "bash":
            fence, code = text[:text.index("bash")], []
        elif fence is not None and text == fence:
            out.append((label, "\n".join(code)))
            fence = label = None
        elif fence is not None:
            code.append(line[4:])
        elif text.startswith("*") and text.endswith("*"):
            label = text.strip("*")
    return out


def first_result_with_rows(data: dict) -> dict:
    return next(r for r in data["results"] if r.get("rows"))


def edit_bench(recipes: Path, model: str, change) -> None:
    edit_yaml(recipes / model / "benchmarks.yaml", change)


def position(recipes: Path, model: str, path: tuple) -> str:
    doc = yamlfile.load(recipes / model / "benchmarks.yaml",
                        display=f"recipes/{model}/benchmarks.yaml")
    line, col = doc.where(path)
    return f"recipes/{model}/benchmarks.yaml:{line}:{col}"


def load_messages(recipes: Path) -> list[str]:
    with pytest.raises(RecipeError) as exc:
        load_database(recipes)
    return [str(p) for p in exc.value.problems]


def first_index(data: dict, pred) -> int:
    return next(i for i, r in enumerate(data["results"]) if pred(r))


NEW_MODULE = "python3 -m sglang.benchmark.serving"  # where bench_serving moved (issue #24)


def module_of(db, release: str | None) -> str:
    """The module a reproduce command for ``release`` runs: the new one from the first release
    that starts bench_serving as it, the old one before and for a build between releases."""
    programs = db.bench_releases.programs
    if release is not None and NEW_MODULE in programs[release]:
        return NEW_MODULE
    return "python3 -m sglang.bench_serving"


def is_bench(code: str) -> bool:
    return code.startswith(("python3 -m sglang.bench_serving", NEW_MODULE))


def expected_reproduce(model, run, row, prompts: int, db, release: str | None) -> str:
    """The reproduce command a speed row must have, written out as the spec says it."""
    w = model.benchmarks.workload
    port = next(f.value for f in run.command.flags if f.name == "--port")
    lines = [module_of(db, release), "  --backend sglang", "  --host localhost",
             f"  --port {port}", f"  --model {run.command.model_name}",
             f"  --dataset-name {w.dataset}", f"  --random-input-len {row.isl}",
             f"  --random-output-len {row.osl}", f"  --random-range-ratio {w.random_range_ratio}",
             f"  --num-prompts {prompts}", f"  --max-concurrency {row.concurrency}"] + \
        ([f"  --warmup-requests {w.warmup_requests}"] if w.warmup_requests is not None else []) \
        + (["  --flush-cache"] if w.flush_cache else [])
    return " \\\n".join(lines)


# --- the page ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_every_result_shows_the_serve_command_its_run_served(db, model, lang):
    m = db.model(model)
    blocks = result_blocks(Site(db, lang).benchmarks(model))
    results = in_page_order(db, model)
    assert len(blocks) == len(results)
    for result, lines in zip(results, blocks):
        if result.pending:  # announced, no run yet: nothing was served
            assert fences(lines) == []
            continue
        text = render.command_text(db, m, served(db, m, result).command, lang)
        assert fences(lines)[0] == (SERVE_TITLE[lang] if result.rows else None, text)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_a_run_that_added_nothing_is_said_to_have_served_the_recipe_command(db, model, lang):
    results = in_page_order(db, model)
    m = db.model(model)
    plain = [i for i, r in enumerate(results) if not r.extra_flags and not r.extra_env
             and not r.pending and not served(db, m, r).refused]
    blocks = result_blocks(Site(db, lang).benchmarks(model))
    assert plain and all(RECIPE[lang] in blocks[i] for i in plain)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_a_run_whose_release_refuses_the_recipe_command_says_its_command_is_not_on_record(
        db, model, lang):
    """A result on a release that refuses a flag of today's recipe command cannot have
    served it: the page says so instead of claiming the recipe command."""
    m = db.model(model)
    results = in_page_order(db, model)
    blocks = result_blocks(Site(db, lang).benchmarks(model))
    for result, lines in zip(results, blocks):
        if result.pending:
            continue
        run = served(db, m, result)
        refused = [f for f in run.refused
                   if not db.releases.accepts(run.command.sglang,
                                              next(x for x in run.command.flags if x.name == f))]
        assert refused == list(run.refused)  # each named flag is refused by the run's release
        said = db.t(lang, "bench.serve.refused", release=run.command.sglang,
                    flags=", ".join(run.refused))
        assert (said in html.unescape("\n".join(lines)).replace("`", "")) == bool(run.refused)
        if run.refused:
            assert RECIPE[lang] not in lines


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_an_extra_flag_the_recipe_command_lacks_is_added_after_its_flags(recipes_copy, db,
                                                                         model, lang):
    name = unused_choice_flag(db, model)
    flag = f"{name} {db.catalog.flags[name].choices[0]}"
    edit_bench(recipes_copy, model, lambda d: first_result_with_rows(d).update(
        extra_flags=[flag], extra_env=[]))
    copy = load_database(recipes_copy)
    m = copy.model(model)
    run = served(copy, m, next(r for r in m.benchmarks.results if r.rows))
    recipe = render.command_text(copy, m, run.recipe, lang)
    (lines,) = [b for b in result_blocks(Site(copy, lang).benchmarks(model))
                if f"+ ` {flag} `" in " ".join(b)]
    assert f"{CHANGED[lang]} + ` {flag} `" in lines
    (_, text) = fences(lines)[0]
    assert text == recipe + f" \\\n  {flag}"


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_an_extra_flag_the_recipe_command_has_takes_the_runs_value_in_place(recipes_copy,
                                                                           model, lang):
    edit_bench(recipes_copy, model, lambda d: first_result_with_rows(d).update(
        extra_flags=["--port 30001"], extra_env=[]))
    copy = load_database(recipes_copy)
    m = copy.model(model)
    run = served(copy, m, next(r for r in m.benchmarks.results if r.rows))
    recipe = render.command_text(copy, m, run.recipe, lang)
    (lines,) = [b for b in result_blocks(Site(copy, lang).benchmarks(model))
                if "` --port 30001 `" in " ".join(b)]
    assert f"{CHANGED[lang]} ` --port 30000 ` → ` --port 30001 `" in lines
    (_, text) = fences(lines)[0]
    assert text == recipe.replace("  --port 30000", "  --port 30001")


def unused_env(db, model: str) -> str:
    """A registered SGLANG_* integer variable that no file of the model names."""
    text = "".join(p.read_text(encoding="utf-8")
                   for p in sorted((ROOT / "recipes" / model).glob("*.yaml")))
    return next(name for name, entry in sorted(db.catalog.env.items())
                if name.startswith("SGLANG_") and entry.get("type") == "Int" and name not in text)


@pytest.mark.parametrize("model", MODELS)
def test_an_extra_variable_is_set_in_front_of_the_recipe_command(recipes_copy, db, model):
    name = unused_env(db, model)
    edit_bench(recipes_copy, model, lambda d: first_result_with_rows(d).update(
        extra_flags=[], extra_env=[f"{name}=7"]))
    copy = load_database(recipes_copy)
    m = copy.model(model)
    run = served(copy, m, next(r for r in m.benchmarks.results if r.rows))
    recipe = render.command_text(copy, m, run.recipe, "en").splitlines()
    text = render.command_text(copy, m, run.command, "en").splitlines()
    program = recipe.index("sglang serve \\")
    assert text == recipe[:program] + [f"{name}=7 \\"] + recipe[program:]
    assert [(c.now, c.was) for c in run.changes] == [(f"{name}=7", None)]


@pytest.mark.parametrize("model", MODELS)
def test_an_extra_flag_the_recipe_command_already_has_fails_the_build(recipes_copy, model):
    edit_bench(recipes_copy, model, lambda d: first_result_with_rows(d).update(
        extra_flags=["--port 30000"], extra_env=[]))
    with pytest.raises(MacroError) as exc:
        Site(load_database(recipes_copy), "en").benchmarks(model)
    assert str(exc.value).endswith("the run's flag --port 30000 is already in the recipe "
                                   "command; drop it from the result")


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_every_speed_row_has_its_generated_reproduce_command_beside_it(db, model, lang):
    m = db.model(model)
    bench = m.benchmarks
    blocks = result_blocks(Site(db, lang).benchmarks(model))
    rows = 0
    for result, lines in zip(in_page_order(db, model), blocks):
        run = served(db, m, result)
        want = [(REPRODUCE_TITLE[lang].format(
                    isl=f"{row.isl:,}", osl=f"{row.osl:,}", c=f"{row.concurrency:,}"),
                 expected_reproduce(m, run, row, row.num_prompts or
                                    bench.num_prompts_by_concurrency[row.concurrency],
                                    db, result.sglang))
                for row in result.rows]
        assert [f for f in fences(lines) if is_bench(f[1])] == want
        rows += len(want)
    assert rows == sum(len(r.rows) for r in bench.results) > 0


@pytest.mark.parametrize("model", MODELS)
def test_each_reproduce_command_names_its_release_for_the_docs_check(db, model):
    blocks = result_blocks(Site(db, "en").benchmarks(model))
    for result, lines in zip(in_page_order(db, model), blocks):
        marker = "    <!-- bench: sglang=" + result.sglang + " generated -->" \
            if result.sglang else "    <!-- bench: generated -->"
        assert [line for line in lines if "<!-- bench:" in line] == [marker] * len(result.rows)


@pytest.mark.parametrize("model", MODELS)
def test_a_rows_own_prompt_count_wins_over_the_files(recipes_copy, model):
    edit_bench(recipes_copy, model,
               lambda d: first_result_with_rows(d)["rows"][0].update(num_prompts=7))
    copy = load_database(recipes_copy)
    page = Site(copy, "en").benchmarks(model)
    m = copy.model(model)
    result = next(r for r in m.benchmarks.results if r.rows)
    expected = expected_reproduce(m, served(copy, m, result), result.rows[0], 7, copy,
                                  result.sglang)
    assert "  --num-prompts 7 \\" in expected
    assert expected in "\n".join(line[4:] for line in page.splitlines())


@pytest.mark.parametrize("model", MODELS)
def test_the_cache_flush_is_left_out_when_the_workload_does_not_flush(recipes_copy, model):
    edit_bench(recipes_copy, model, lambda d: d["workload"].update(flush_cache=False))
    copy = load_database(recipes_copy)
    page = Site(copy, "en").benchmarks(model)
    commands = [code for b in result_blocks(page) for _, code in fences(b)
                if is_bench(code)]
    warmup = copy.model(model).benchmarks.workload.warmup_requests  # the model's own workload
    last = "  --max-concurrency" if warmup is None else f"  --warmup-requests {warmup}"
    assert commands and all(c.rsplit("\n", 1)[-1].startswith(last) for c in commands)
    assert not any("--flush-cache" in c for c in commands)


@pytest.mark.parametrize("model", MODELS)
def test_a_workload_without_warmup_requests_leaves_the_argument_out(recipes_copy, model):
    """A run on bench_serving's own warm-up default declares none; its commands say none."""
    edit_bench(recipes_copy, model, lambda d: d["workload"].pop("warmup_requests", None))
    page = Site(load_database(recipes_copy), "en").benchmarks(model)
    commands = [code for b in result_blocks(page) for _, code in fences(b)
                if is_bench(code)]
    assert commands and not any("--warmup-requests" in c for c in commands)


@pytest.mark.parametrize("model", MODELS)
def test_the_reproduce_command_reaches_the_port_the_run_served_on(recipes_copy, model):
    edit_bench(recipes_copy, model, lambda d: first_result_with_rows(d).update(
        extra_flags=["--port 30001"], extra_env=[]))
    page = Site(load_database(recipes_copy), "en").benchmarks(model)
    (lines,) = [b for b in result_blocks(page) if "` --port 30001 `" in " ".join(b)]
    commands = [code for _, code in fences(lines) if is_bench(code)]
    assert commands and all("\n  --port 30001 \\\n" in c for c in commands)


# --- load errors ------------------------------------------------------------------------------

RELEASES = ("0.5.12, 0.5.12.post1, 0.5.13, 0.5.13.post1, 0.5.14, 0.5.15, 0.5.15.post1, 0.5.16, "
            "0.5.17, 0.5.18, 0.5.19, 0.5.20, 0.5.21, 0.5.22, 0.5.23")


@pytest.mark.parametrize("model", MODELS)
def test_an_unknown_release_is_a_load_error_with_the_histories_releases(recipes_copy, model):
    def change(d):
        result = first_result_with_rows(d)
        result.pop("round", None)
        result["sglang"] = "v0.5.18"  # a round's version, not a release id
    edit_bench(recipes_copy, model, change)
    i = first_index(yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text()),
                    lambda r: r.get("rows"))
    assert load_messages(recipes_copy) == [
        f"{position(recipes_copy, model, ('results', i, 'sglang'))}: unknown sglang release "
        f"'v0.5.18' (the flag history's: did you mean '0.5.18'? known: {RELEASES})"]


def release_round(recipes: Path, db, model: str, rows: bool = False) -> int:
    """The first result whose round ran a release of the flag history; a model whose results
    all ran branch builds gets one in the copy: its first result with rows, on a round of the
    release its first row's command is written for (valid data either way)."""
    rounds = {r.id: r.version for r in db.model(model).info.rounds}
    data = yamlc.load((recipes / model / "benchmarks.yaml").read_text())
    found = [i for i, r in enumerate(data["results"]) if r.get("round") and r.get("sglang")
             and r["sglang"] in rounds[r["round"]] and (r.get("rows") or not rows)]
    if found:
        return found[0]
    release = db.catalog.version
    edit_yaml(recipes / model / "model.yaml", lambda d: d["rounds"].append(
        {"id": "test-release", "version": f"v{release}", "sglang": release}))
    i = first_index(data, lambda r: r.get("rows"))
    edit_bench(recipes, model, lambda d: d["results"][i].update(round="test-release",
                                                               sglang=release))
    return i


@pytest.mark.parametrize("model", MODELS)
def test_a_release_other_than_its_rounds_is_a_load_error(recipes_copy, db, model):
    i = release_round(recipes_copy, db, model)
    other = next(v for v in reversed(db.releases.order)
                 if v != yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())
                 ["results"][i]["sglang"])
    edit_bench(recipes_copy, model, lambda d: d["results"][i].update(sglang=other))
    copy = yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())["results"][i]
    rounds = yamlc.load((recipes_copy / model / "model.yaml").read_text())["rounds"]
    version = next(r["version"] for r in rounds if r["id"] == copy["round"])
    assert load_messages(recipes_copy) == [
        f"{position(recipes_copy, model, ('results', i, 'sglang'))}: round '{copy['round']}' "
        f"ran SGLang {version}, not release {other}"]


@pytest.mark.parametrize("model", MODELS)
def test_a_result_in_a_round_that_ran_a_release_must_name_it(recipes_copy, db, model):
    i = release_round(recipes_copy, db, model)
    result = yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())["results"][i]
    edit_bench(recipes_copy, model, lambda d: d["results"][i].pop("sglang"))
    rounds = yamlc.load((recipes_copy / model / "model.yaml").read_text())["rounds"]
    version = next(r["version"] for r in rounds if r["id"] == result["round"])
    assert load_messages(recipes_copy) == [
        f"{position(recipes_copy, model, ('results', i, 'round'))}: round '{result['round']}' "
        f"ran SGLang {version}: name its release with 'sglang: {result['sglang']}'"]


def _extra_refused(recipes_copy, model: str, key: str, value: str) -> tuple[str, list[str]]:
    """The first result with speed rows given ``value`` as its one ``key`` entry: the entry's
    position and the load errors."""
    edit_bench(recipes_copy, model, lambda d: first_result_with_rows(d).update({key: [value]}))
    i = first_index(yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text()),
                    lambda r: r.get("rows"))
    return position(recipes_copy, model, ("results", i, key, 0)), load_messages(recipes_copy)


@pytest.mark.parametrize("model", MODELS)
def test_an_unknown_extra_flag_is_a_load_error_with_the_nearest_flag(recipes_copy, model):
    where, messages = _extra_refused(recipes_copy, model, "extra_flags",
                                     "--max-runing-requests 256")
    assert messages == [f"{where}: flag '--max-runing-requests' is not in the sglang 0.5.23 "
                        "catalog (did you mean '--max-running-requests' or "
                        "'--max-queued-requests'?)"]


@pytest.mark.parametrize("model", MODELS)
def test_an_extra_flag_with_a_value_the_catalog_refuses_is_a_load_error(recipes_copy, model):
    where, messages = _extra_refused(recipes_copy, model, "extra_flags",
                                     "--max-running-requests many")
    assert messages == [f"{where}: --max-running-requests many: 'many' is not an integer"]


@pytest.mark.parametrize("model", MODELS)
def test_an_extra_variable_the_registry_lacks_is_a_load_error(recipes_copy, model):
    where, messages = _extra_refused(recipes_copy, model, "extra_env",
                                     "SGLANG_SIMULATE_ACC_LNE=4")
    assert messages == [f"{where}: SGLANG_SIMULATE_ACC_LNE is not in the sglang 0.5.23 "
                        "environment registry nor the model's branch_env (did you mean "
                        "'SGLANG_SIMULATE_ACC_LEN' or 'SGLANG_SIMULATE_ACC_METHOD' or "
                        "'SGLANG_SIMULATE_ACC_GREEDY'?)"]


@pytest.mark.parametrize("model", MODELS)
def test_a_row_without_a_prompt_count_is_a_load_error(recipes_copy, model):
    edit_bench(recipes_copy, model,
               lambda d: first_result_with_rows(d)["rows"][0].update(concurrency=3))
    data = yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())
    i = first_index(data, lambda r: r.get("rows"))
    given = ", ".join(map(str, data["num_prompts_by_concurrency"]))
    assert load_messages(recipes_copy) == [
        f"{position(recipes_copy, model, ('results', i, 'rows', 0, 'concurrency'))}: no prompt "
        "count for concurrency 3: give the row 'num_prompts' or add 3 to "
        f"num_prompts_by_concurrency (given: {given})"]


@pytest.mark.parametrize("model", MODELS)
def test_speed_rows_without_a_workload_are_a_load_error(recipes_copy, model):
    edit_bench(recipes_copy, model, lambda d: d.pop("workload"))
    data = yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())
    with_rows = [i for i, r in enumerate(data["results"]) if r.get("rows")]
    assert load_messages(recipes_copy) == [
        f"{position(recipes_copy, model, ('results', i, 'rows'))}: speed rows need the file's "
        "'workload' (the dataset, range ratio, warm-up and cache flush bench_serving ran with)"
        for i in with_rows]


def drop_from_history(recipes: Path, argument: str, keep: list[str]) -> None:
    """The copy's history says only the releases ``keep`` have bench_serving ``argument``."""
    path = recipes / "catalog" / "sglang-history.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["packages"]["sglang"]["bench"][argument]["in"] = keep
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize("model", MODELS)
def test_a_reproduce_argument_its_release_lacks_is_a_load_error(recipes_copy, db, model):
    i = release_round(recipes_copy, db, model, rows=True)
    data = yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())
    release = data["results"][i]["sglang"]
    others = [v for v in db.bench_releases.order if v != release]
    drop_from_history(recipes_copy, "--max-concurrency", others)
    lacking = [j for j, r in enumerate(data["results"]) if r.get("rows")
               and r.get("sglang") in (release, None)]
    messages = [m for m in load_messages(recipes_copy) if m.startswith(f"recipes/{model}/")]
    assert messages[0] == (
        f"{position(recipes_copy, model, ('results', i, 'sglang'))}: the reproduce command of "
        f"row 1: bench_serving of sglang {release} has no argument --max-concurrency (the "
        f"releases that have it: {db.bench_releases.ranges(others)})")
    assert len(messages) == sum(len(data["results"][j]["rows"]) for j in lacking)


@pytest.mark.parametrize("model", MODELS)
def test_a_result_on_a_build_between_releases_is_checked_against_every_release(
        recipes_copy, db, model):
    edit_yaml(recipes_copy / model / "model.yaml", lambda d: d["rounds"].append(
        {"id": "nightly", "version": "main @ 0123456789"}))

    def change(d):
        result = first_result_with_rows(d)
        result.update(round="nightly", rows=result["rows"][:1])
        result.pop("sglang", None)
    edit_bench(recipes_copy, model, change)
    keep = list(db.bench_releases.order[1:])
    drop_from_history(recipes_copy, "--max-concurrency", keep)
    data = yamlc.load((recipes_copy / model / "benchmarks.yaml").read_text())
    i = first_index(data, lambda r: r.get("round") == "nightly")
    first = db.bench_releases.order[0]
    wanted = (f"{position(recipes_copy, model, ('results', i))}: the reproduce command of row "
              f"1: bench_serving of sglang {first} has no argument --max-concurrency (the "
              f"releases that have it: {db.bench_releases.ranges(keep)})")
    assert wanted in load_messages(recipes_copy)


# --- the docs tests ---------------------------------------------------------------------------

def benchmarks_page(site: Path, model: str, lang: str) -> Path:
    """The rendered Markdown of a model's benchmarks page (docs/<lang>/models/<model>/
    benchmarks.md), where its results are published, off the model page."""
    return (site / "ko" if lang == "ko" else site) / "models" / model / "benchmarks" / "index.md"


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("model", MODELS)
def test_the_docs_tests_check_both_commands_of_every_benchmark_row(built_site, tmp_path, db,
                                                                   model, lang):
    text = benchmarks_page(built_site, model, lang).read_text(encoding="utf-8")
    # a rendered page of its language, as the counts tell them apart
    section = (tmp_path / "site" / "ko" if lang == "ko" else tmp_path / "site") / model / \
        "index.md"
    section.parent.mkdir(parents=True)
    section.write_text(text, encoding="utf-8")
    kinds = ("bench", "shell")
    before = [COUNTS[("rendered", lang, k)] for k in kinds]
    _, failures = run_document(section)
    bench, shell = (COUNTS[("rendered", lang, k)] - n for k, n in zip(kinds, before))
    results = db.model(model).benchmarks.results
    assert failures == []
    # one serve command per result that ran (a pending one has none yet)
    assert (bench, shell) == (sum(len(r.rows) for r in results),
                              len([r for r in results if not r.pending]))


def rendered_copy(built_site: Path, tmp_path: Path, model: str) -> Path:
    page = tmp_path / "site" / "models" / model / "index.md"
    page.parent.mkdir(parents=True)
    shutil.copy(benchmarks_page(built_site, model, "en"), page)
    return page


@pytest.mark.parametrize("model", MODELS)
def test_a_reproduce_argument_its_release_lacks_fails_the_docs_check(built_site, tmp_path,
                                                                     db, model):
    """The first reproduce command gets an argument only the newest release has: the check
    names the release its result ran (every release, for a build between releases)."""
    page = rendered_copy(built_site, tmp_path, model)
    text = page.read_text(encoding="utf-8")
    at = text.index("<!-- bench:")
    said = text[at + len("<!-- bench:"):text.index("-->", at)].split()
    release = next((w.split("=", 1)[1] for w in said if w.startswith("sglang=")), None)
    last = re.compile(r"\n([ \t]*)(--\S[^\n]*)\n[ \t]*```").search(text, at)  # its last line
    page.write_text(text[:last.start(2)] + "--goodput ttft:300 \\\n" + last.group(1)
                    + text[last.start(2):], encoding="utf-8")
    block = text[:text.index("```bash", at)].count("\n") + 1
    bench = db.bench_releases
    having = [v for v in bench.order if "--goodput" in bench.arguments[v].flags]
    lacking = [release] if release else [v for v in bench.order if v not in having]
    _, failures = run_document(page)
    assert len(failures) == 1
    assert f"index.md:{block}: bench_serving of sglang {bench.ranges(lacking)} has no argument " \
           f"--goodput (the releases that have it: {bench.ranges(having)})" in failures[0]


@pytest.mark.parametrize("model", MODELS)
def test_a_bench_directive_naming_a_release_the_history_lacks_fails_the_docs_check(
        built_site, tmp_path, model):
    page = rendered_copy(built_site, tmp_path, model)
    text = page.read_text(encoding="utf-8")
    at = text.index("<!-- bench:")
    page.write_text(text[:at] + "<!-- bench: sglang=0.4.0 generated -->" +
                    text[text.index("-->", at) + 3:], encoding="utf-8")
    _, failures = run_document(page)
    assert len(failures) == 1
    assert "the bench directive names sglang 0.4.0, which the flag history does not cover" \
        in failures[0]


@pytest.mark.parametrize("model", MODELS)
def test_each_release_reproduces_with_its_own_module_and_its_parser_takes_it(db, model):
    """The module per release: the new one from the first release that has it (0.5.15 in the
    history), the old one before; each command is one that release's bench parser takes. The
    model's own results cover what they cover; every release of the history is tried too."""
    from macros.engine import bench_serving

    releases = db.bench_releases
    first_new = next(v for v in releases.order if NEW_MODULE in releases.programs[v])
    assert first_new != releases.order[0]
    m = db.model(model)
    results = [r for r in m.benchmarks.results if r.rows] if m.benchmarks else []
    for result in results:
        run = served(db, m, result)
        for version in [*releases.order, None]:
            way = bench_serving.program(releases, version)
            assert way == module_of(db, version), version
            for flags in served_reproduce(db, result, m, run):
                assert bench_serving.problems(releases, way, flags, version) == [], version
            if version is not None:
                before = releases.order.index(version) < releases.order.index(first_new)
                assert (way == NEW_MODULE) is not before
    blocks = result_blocks(Site(db, "en").benchmarks(model))
    for result, lines in zip(in_page_order(db, model), blocks):
        for _, code in fences(lines):
            if is_bench(code):
                assert code.startswith(module_of(db, result.sglang) + " \\\n"), result.sglang


def served_reproduce(db, result, m, run):
    from macros.engine import served as served_module

    return served_module.reproduce(db, result, m.benchmarks, run.command)
