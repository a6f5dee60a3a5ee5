"""Every file problem a find/replace edit cannot make (tests/corpus/broken_db.yaml has those)
ends as ``file[:line:col]: what`` with exit 1, never a hang or an internal error; request
lengths are read the same way by the CLI and the Playground, within the bounds the export
carries."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from macros.engine import yamlfile
from macros.cli import _avg_len
from macros.engine.database import load_database
from macros.engine.errors import RecipeError
from macros.site.export import export_model
from macros.engine.schema import AVG_LEN_MAX, AVG_LEN_MIN

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
# the Playground's URL state: the hash and request-length readers (an ES module)
URLSTATE = ROOT / "overrides" / "assets" / "recipes" / "playground" / "urlstate.js"
from helpers.models import MEASURED, MODELS  # noqa: E402


def problems(recipes: Path) -> list[str]:
    with pytest.raises(RecipeError) as exc:
        load_database(recipes)
    return [str(p) for p in exc.value.problems]


def first_cell(db, model_id: str) -> list[str]:
    match = db.model(model_id).cells[0].match
    return [model_id] + [f"--set={k}={v}" for k, v in match.items()]


# --- OS problems where a YAML file belongs

@pytest.mark.parametrize("model", MODELS)
def test_a_symlink_loop_where_a_yaml_file_belongs_is_reported(recipes_copy, model):
    cells = recipes_copy / model / "cells.yaml"
    cells.unlink()
    cells.symlink_to(cells.name)
    assert problems(recipes_copy) == [
        f"recipes/{model}/cells.yaml: cannot read: symbolic link loop"]


@pytest.mark.parametrize("model", MODELS)
def test_a_folder_where_a_yaml_file_belongs_is_reported(recipes_copy, model):
    rules = recipes_copy / model / "rules.yaml"
    rules.unlink()
    rules.mkdir()
    assert problems(recipes_copy) == [f"recipes/{model}/rules.yaml: is a folder, not a file"]


@pytest.mark.parametrize("model", MODELS)
def test_a_fifo_where_a_yaml_file_belongs_is_reported_without_waiting_for_a_writer(
        recipes_copy, model):
    overlays = recipes_copy / model / "overlays.yaml"
    overlays.unlink()
    os.mkfifo(overlays)
    # In a child with a timeout: a reader that opens the FIFO the plain way never returns.
    run = subprocess.run([sys.executable, "-m", "macros.cli", "--root", str(recipes_copy),
                          "validate"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (
        1, f"error: recipes/{model}/overlays.yaml: is not a regular file\n")


@pytest.mark.parametrize("model", MODELS)
def test_a_benchmarks_link_to_nowhere_is_reported_not_skipped(recipes_copy, model):
    bench = recipes_copy / model / "benchmarks.yaml"
    bench.unlink(missing_ok=True)
    bench.symlink_to("moved-away.yaml")
    assert problems(recipes_copy) == [f"recipes/{model}/benchmarks.yaml: file not found"]


def test_an_unreadable_file_is_reported(recipes_copy):
    """Root reads any file, so as root the child runs without the two capabilities that let
    it ignore file modes (util-linux setpriv)."""
    hardware = recipes_copy / "catalog" / "hardware.yaml"
    hardware.chmod(0)
    command = [sys.executable, "-m", "macros.cli", "--root", str(recipes_copy), "validate"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and setpriv (util-linux) is missing, so no file is "
                        "unreadable")
        caps = "-dac_override,-dac_read_search"
        command = [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}", *command]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (
        1, "error: recipes/catalog/hardware.yaml: cannot read: Permission denied\n")


def test_the_cli_reports_a_file_problem_with_exit_1_and_no_internal_error(cli, recipes_copy):
    hardware = recipes_copy / "catalog" / "hardware.yaml"
    hardware.unlink()
    hardware.symlink_to(hardware.name)
    r = cli("--root", str(recipes_copy), "validate")
    assert (r.code, r.err) == (1, "error: recipes/catalog/hardware.yaml: cannot read: "
                                  "symbolic link loop\n")


# --- Bytes that are not YAML text

def test_a_nul_byte_is_reported_at_its_line_and_column(recipes_copy):
    text = recipes_copy / "catalog" / "text.en.yaml"
    data = text.read_bytes()
    line = data.split(b"\n").index(b"status.verified: Verified") + 1
    text.write_bytes(data.replace(b"status.verified: Verified", b"status.verified: Veri\0fied", 1))
    assert problems(recipes_copy) == [
        f"recipes/catalog/text.en.yaml:{line}:22: a NUL byte is not allowed in a YAML file"]


def test_invalid_utf8_is_reported_at_the_first_bad_byte_counted_in_characters(recipes_copy):
    text = recipes_copy / "catalog" / "text.ko.yaml"
    data = text.read_bytes()
    first, rest = data.split(b"\n", 1)
    assert first.startswith(b"# ") and not first.isascii(), "the test needs a Korean first line"
    before = first[:first.rindex(b" ") + 1]  # multi-byte characters before the bad byte
    text.write_bytes(before + b"\xff" + first[len(before):] + b"\n" + rest)
    col = len(before.decode("utf-8")) + 1
    assert problems(recipes_copy) == [
        f"recipes/catalog/text.ko.yaml:1:{col}: not UTF-8 text: byte 0xff (invalid start byte); "
        "save the file as UTF-8"]


def test_a_file_saved_as_utf16_is_reported_as_not_utf8(recipes_copy):
    hardware = recipes_copy / "catalog" / "hardware.yaml"
    hardware.write_bytes(hardware.read_text(encoding="utf-8").encode("utf-16"))
    assert problems(recipes_copy) == [
        "recipes/catalog/hardware.yaml:1:1: not UTF-8 text: byte 0xff (invalid start byte); "
        "save the file as UTF-8"]


# --- YAML that cannot be written as one find/replace of a real file

def test_an_alias_bomb_is_refused_showing_the_first_ten_places_and_counting_the_rest(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    bomb.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecipeError) as exc:
        yamlfile.load(bomb, display="bomb.yaml")
    shown = [str(p) for p in exc.value.problems]
    assert shown[2] == ("bomb.yaml:2:10: alias '*a0': aliases are not supported in recipe files; "
                        "write the value out")
    assert len(shown) == 11
    assert shown[-1] == "bomb.yaml: 71 more anchors or aliases not shown; write every value out"


def test_a_number_longer_than_python_converts_is_refused(tmp_path):
    path = tmp_path / "n.yaml"
    path.write_text("nodes: " + "9" * 5000 + "\n")
    with pytest.raises(RecipeError) as exc:
        yamlfile.load(path, display="n.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "n.yaml:1:8: a number of 5,000 digits is too large"]


def test_a_file_read_again_is_a_fresh_copy_and_an_edit_is_seen(tmp_path):
    """What ``load`` keeps of a file read before is handed out as a copy: a caller that
    changes its tree changes nothing the next reader gets; the same text under another name
    is reported under that name; an edited file is parsed anew."""
    path = tmp_path / "f.yaml"
    path.write_text("a:\n  b: [1, 2]\n  c: 0.50\n")
    first = yamlfile.load(path, display="f.yaml")
    first.data["a"]["b"].append(3)
    first.marks.clear()
    again = yamlfile.load(path, display="f.yaml")
    assert again.data == {"a": {"b": [1, 2], "c": 0.5}}
    assert again.where(("a", "b", 1)) == (2, 10) and again.spelled == {("a", "c"): "0.50"}
    path.write_text("a:\n  b: [1, 2]\n  b: 3\n")
    with pytest.raises(RecipeError) as exc:
        yamlfile.load(path, display="other.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "other.yaml:3:3: duplicate key 'b' (the first one is kept by YAML, so this one would "
        "be lost)"]


@pytest.mark.parametrize("model", MODELS)
def test_a_file_holding_one_plain_value_is_reported_as_not_a_mapping(recipes_copy, model):
    (recipes_copy / model / "playground.yaml").write_text("just some text\n")
    assert problems(recipes_copy) == [
        f"recipes/{model}/playground.yaml:1:1: the file must be a mapping of field names to "
        "values at the top level (found the value 'just some text')"]


def test_a_truncated_flag_catalog_is_reported_at_its_line_and_column(recipes_copy):
    catalog = recipes_copy / "catalog" / "sglang-router.json"
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text(text[:len(text) // 2], encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text[:len(text) // 2])
    assert problems(recipes_copy) == [
        f"recipes/catalog/sglang-router.json:{want.value.lineno}:{want.value.colno}: not valid "
        f"JSON ({want.value.msg}); run 'recipes catalog'"]


# --- Request lengths: one reading, one set of bounds (CLI, hash reader, input box)

NOT_DIGITS = ["1e300", "0x10", "-5", "16384abc", "+16", " 16384", "16_384", "1.0", "١٢"]


@pytest.mark.parametrize("model", MEASURED)
@pytest.mark.parametrize("text", NOT_DIGITS)
def test_avg_len_that_is_not_decimal_digits_is_refused(cli, db, model, text):
    r = cli("calc", *first_cell(db, model), f"--avg-len={text}")
    assert (r.code, r.err) == (1, "error: <command line>: --avg-len must be a whole number of "
                                  f"tokens in decimal digits (got '{text}')\n")
    r = cli("command", *first_cell(db, model), "--set", f"avg_len={text}")
    assert (r.code, r.err) == (1, "error: <command line>: avg_len must be a whole number of "
                                  f"tokens in decimal digits (got '{text}')\n")


@pytest.mark.parametrize("model", MEASURED)
@pytest.mark.parametrize("text, shown", [("0", "0"), (str(AVG_LEN_MAX + 1), str(AVG_LEN_MAX + 1)),
                                         ("9" * 400, "a 400-digit number")])
def test_avg_len_outside_the_bounds_is_refused(cli, db, model, text, shown):
    r = cli("calc", *first_cell(db, model), "--avg-len", text)
    assert (r.code, r.err) == (1, f"error: <command line>: --avg-len must be from "
                                  f"{AVG_LEN_MIN:,} to {AVG_LEN_MAX:,} tokens (got {shown})\n")


@pytest.mark.parametrize("model", MEASURED)
def test_the_export_carries_the_request_length_bounds_the_cli_applies(db, model):
    length = export_model(db, model, "en")["model"]["request_length"]
    assert (length["min"], length["max"]) == (AVG_LEN_MIN, AVG_LEN_MAX)


def _node(script: str, payload) -> object:
    """Run ``script`` in Node with ``pg``, the module urlstate.js exports, and ``payload`` on stdin."""
    script = ("import(require('url').pathToFileURL(process.argv[1]).href).then((pg) => {"
              + script + "});")
    run = subprocess.run([NODE, "-e", script, str(URLSTATE)], input=json.dumps(payload),
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(run.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("model", MEASURED)
def test_the_playground_reads_avg_len_exactly_as_the_cli_does(db, model):
    length = db.model(model).info.request_length
    texts = NOT_DIGITS + ["", "0", "1", "016384", "16384", str(AVG_LEN_MAX), str(AVG_LEN_MAX + 1),
                          "9" * 400, "0" * 30 + "7"]
    got = _node("const c = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                "console.log(JSON.stringify(c.texts.map((t) => pg.wholeNumber(t, c.lo, c.hi))));",
                {"texts": texts, "lo": length.min, "hi": length.max})

    def cli_reads(text):
        try:
            return _avg_len(text, "avg_len")
        except RecipeError:
            return None

    assert got == [cli_reads(t) for t in texts]
    assert got[texts.index("016384")] == 16384  # not every answer is "refused"


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_playground_reads_only_the_first_8_kb_of_a_url_hash_and_drops_the_cut_pair():
    filler = "&x=" + "y" * 97  # 100 characters a pair
    head = "hw=b300" + filler * 81 + "&p=" + "q" * 70
    assert len(head) == 8180  # so character 8,192 falls inside the value 16384
    cut = "#" + head + "&avg_len=16384"
    huge = "#avg_len=2048" + filler * 20_000  # 2 MB
    got = _node("const c = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                "console.log(JSON.stringify(c.map((h) => Object.assign({}, pg.parseHash(h)))));",
                [cut, huge])
    assert got == [{"hw": "b300", "x": "y" * 97, "p": "q" * 70}, {"avg_len": "2048", "x": "y" * 97}]


def test_a_recipes_folder_without_any_model_is_an_error(cli, recipes_copy):
    for model_id in MODELS:
        shutil.rmtree(recipes_copy / model_id)
    r = cli("--root", str(recipes_copy), "validate")
    assert (r.code, r.err) == (1, "error: recipes/: no model to publish: a model is a folder "
                                  "here with its model.yaml (see docs/en/guides/add-a-model.md)\n")
