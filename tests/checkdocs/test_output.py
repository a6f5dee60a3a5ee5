"""`recipes check --format text|json|github|sarif` and `--severity` (issue #21 items 4, 5):
SARIF validated against the published 2.1.0 schema (tests/checkdocs/data, see its README),
GitHub annotations escaped as the Actions runner reads them, the exit code from errors
whatever is shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

CORPUS = Path(__file__).parent / "corpus"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))


@pytest.fixture
def in_corpus(monkeypatch):
    monkeypatch.chdir(CORPUS)


def _validate(log: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(log)


def test_the_schema_is_the_published_sarif_2_1_0_schema():
    assert SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(SCHEMA)


def test_sarif_output_is_valid_sarif_2_1_0_with_every_finding_placed(cli, in_corpus):
    r = cli("check", "--format", "sarif", ".")
    assert r.code == 1
    log = json.loads(r.out)
    _validate(log)
    [run] = log["runs"]
    results = run["results"]
    assert len(results) == len(json.loads(cli("check", "--format", "json", ".").out)
                               ["diagnostics"])
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    for res in results:
        assert rules[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
    nb = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
          == "docs/serve.ipynb" and r["ruleId"] == "catalog.unknown-flag"]
    assert [(r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["properties"]["cell"], r["properties"]["cellLine"]) for r in nb] == [(66, 6, 4)]


def test_the_schema_check_would_catch_a_broken_log(cli, in_corpus):
    log = json.loads(cli("check", "--format", "sarif", "docs/serve.sh").out)
    log["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        _validate(log)


def test_sarif_uris_are_percent_encoded_and_a_command_has_no_location(cli, tmp_path,
                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my docs").mkdir()
    (tmp_path / "my docs" / "a#b.md").write_text(
        "```bash\nsglang serve --model-path Qwen/Qwen3-8B --no-such-flag\n```\n", encoding="utf-8")
    log = json.loads(cli("check", "--format", "sarif", "my docs", "--",
                         "sglang serve --model-path Qwen/Qwen3-8B --nope").out)
    _validate(log)
    located = [r["locations"][0]["physicalLocation"]["artifactLocation"]
               for r in log["runs"][0]["results"] if "locations" in r]
    assert {"uri": "my%20docs/a%23b.md", "uriBaseId": "%SRCROOT%"} in located
    assert any("locations" not in r for r in log["runs"][0]["results"])


def test_github_annotations_name_file_line_and_rule(cli, in_corpus):
    r = cli("check", "--format", "github", "--severity", "error", "docs/serve.sh")
    assert r.code == 1
    assert r.out.splitlines() == [
        "::error file=docs/serve.sh,line=9,title=catalog.bad-value::--kv-cache-dtype fp9: "
        "'fp9' is not a valid choice (valid: auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, "
        "nvfp4, fp4_mx_block16) (catalog.bad-value) [--kv-cache-dtype]"]


def test_github_annotations_escape_what_would_end_or_start_a_command(cli, tmp_path,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "a,b:c%.md"
    page.write_text("```bash\nsglang serve --model-path m --kv-cache-dtype 'x%0A::error::y\n"
                    "z'\n```\n", encoding="utf-8")
    lines = cli("check", "--format", "github", "--severity", "error", page.name).out.splitlines()
    [line] = [line for line in lines if "catalog.bad-value" in line]
    assert line.startswith("::error file=a%2Cb%3Ac%25.md,line=2,title=catalog.bad-value::")
    message = line.split("::", 2)[2]
    assert "x%250A::error::y%0Az" in message  # '%' and a newline escaped: one command only
    assert "\n" not in line


def test_severity_filters_what_is_shown_and_errors_still_set_the_exit_code(cli, in_corpus):
    every = json.loads(cli("check", "--format", "json", ".").out)["diagnostics"]
    assert {d["severity"] for d in every} >= {"error", "warning"}
    for level, allowed in (("error", {"error"}), ("warning", {"error", "warning"}),
                           ("info", {"error", "warning", "info"})):
        r = cli("check", "--format", "json", "--severity", level, ".")
        shown = r.json()["diagnostics"]
        assert r.code == 1
        assert shown == [d for d in every if d["severity"] in allowed]


def test_severity_error_on_warnings_only_shows_nothing_and_exits_0(cli, tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```bash\nsglang serve --model-path Qwen/Qwen3-8B --tp 2\n```\n",
                    encoding="utf-8")
    warned = cli("check", str(page))
    assert warned.code == 0 and "catalog.abbreviated-flag" in warned.out
    quiet = cli("check", "--severity", "error", str(page))
    assert (quiet.code, quiet.out) == (0, "")
    assert re.match(r"0 error\(s\), \d+ warning\(s\)", quiet.err)


def test_the_json_report_keeps_its_keys_and_counts_blocks(cli, in_corpus):
    data = cli("check", "--format", "json", ".").json()
    d = data["diagnostics"][0]
    assert {"severity", "rule", "message", "flags", "source", "line"} <= set(d)
    assert data["checked"] == {"files": 5, "blocks": 15, "other_blocks": 1, "skipped_blocks": 3}
