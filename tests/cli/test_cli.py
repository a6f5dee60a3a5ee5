"""The `recipes` CLI contract: output shapes, exit codes and messages, never a traceback."""

from __future__ import annotations

import json

import pytest

from helpers.models import MODELS
from macros.site import render
from macros.engine.model import likely_typo
from macros.engine.resolve import resolve
from macros.engine.selection import Selection


def test_command_text_is_exactly_what_the_page_shows(cli, db):
    r = cli("command", "kimi-k3", "--hw", "b300", "--role", "unified", "--strategy", "balanced")
    assert r.code == 0
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}))
    assert r.out == render.command_text(db, db.model("kimi-k3"), res, "en") + "\n"


def test_command_json_has_the_contract_keys(cli):
    r = cli("command", "kimi-k3", "--hw", "gb200", "--role", "decode", "--strategy", "balanced",
            "--set", "hicache=l3", "--format", "json")
    assert r.code == 0
    data = r.json()
    for key in ("status", "env", "flags", "command", "router", "diagnostics", "effective",
                "calculations"):
        assert key in data
    assert data["status"] == "in-progress"
    assert data["env"] == ["SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0",
                           "SGLANG_HICACHE_MOONCAKE_CONFIG_PATH=<mooncake.json>"]
    assert "--hicache-storage-backend mooncake" in data["flags"]
    assert data["router"].startswith("python3 -m sglang_router.launch_router")
    assert [(c["id"], c["pins"], type(c["value"])) for c in data["calculations"]] == \
        [("mamba_ratio", "--mamba-full-memory-ratio", float)]
    assert {"severity", "rule", "message", "flags"} <= set(data["diagnostics"][0])
    assert {"knob", "value", "source"} <= set(data["effective"][0])


def test_command_in_korean_translates_hints_and_labels(cli):
    r = cli("command", "kimi-k3", "--hw", "b300", "--role", "decode", "--strategy", "balanced",
            "--lang", "ko", "--format", "json")
    data = r.json()
    assert data["command"].startswith("# PD 역할")
    assert data["status_label"] == "Final Verification In Progress"
    assert any("48" in d["message"] for d in data["diagnostics"])


def test_text_output_prints_the_router_after_the_command(cli):
    r = cli("command", "kimi-k3", "--hw", "b300", "--role", "prefill", "--strategy", "default")
    assert "\n\n# Router\npython3 -m sglang_router.launch_router \\\n" in r.out


def test_impossible_selection_is_an_error_naming_what_is_possible(cli):
    r = cli("command", "kimi-k3", "--hw", "a3", "--role", "prefill", "--strategy", "default")
    assert r.code == 1
    assert r.out == ""
    assert "role 'prefill' is not available on a3" in r.err and "(available: unified)" in r.err
    assert "Traceback" not in r.err


def test_bad_set_syntax_and_unknown_model(cli):
    r = cli("command", "kimi-k3", "--hw", "b300", "--role", "unified", "--strategy", "balanced",
            "--set", "spec")
    assert r.code == 1 and "--set expects KEY=VALUE" in r.err
    r = cli("command", "kimi-k4", "--hw", "b300", "--role", "unified", "--strategy", "balanced")
    assert r.code == 1 and "unknown model 'kimi-k4' (did you mean 'kimi-k3'?" in r.err


def test_a_missing_dimension_is_an_error_naming_the_choices(cli):
    r = cli("command", "kimi-k3", "--hw", "b300")
    assert r.code == 1 and r.out == ""
    assert "error: <selection>: no role given (available: unified, prefill, decode)" in r.err


def test_calc_prints_inputs_and_a_row_per_length(cli):
    r = cli("calc", "kimi-k3", "--hw", "b300", "--role", "unified", "--strategy", "balanced",
            "--avg-len", "11264", "--avg-len", "22528")
    assert r.code == 0
    assert "attention TP 8" in r.out and "DCP 8" in r.out
    assert "L=  11264  --mamba-full-memory-ratio 5.13" in r.out
    assert "L=  22528  --mamba-full-memory-ratio 2.57" in r.out


def test_calc_says_when_it_does_not_apply(cli):
    r = cli("calc", "kimi-k3", "--hw", "a3", "--role", "unified", "--strategy", "balanced",
            "--format", "json")
    assert r.json()["applicable"] is False


def test_export_is_compact_json_with_the_language_text(cli, tmp_path):
    out = tmp_path / "k3.json"
    r = cli("export", "kimi-k3", "--lang", "ko", "--out", str(out))
    assert r.code == 0
    data = json.loads(out.read_text())
    assert data["lang"] == "ko"
    assert data["text"]["status.verified"] == "Verified"
    assert data["text"]["role.decode"] == "Decode"
    assert "--kv-cache-dtype" in data["catalog"]["flags"]
    assert len(data["cells"]) == 50 and len(data["axes"]) >= 30


def test_i18n_check_passes_on_the_repository(cli):
    r = cli("i18n-check")
    assert r.code == 0, r.out
    assert r.err == ("0 contract error(s), 0 translation to-do(s), 0 glossary or register "
                     "problem(s)\n")


def test_unexpected_bugs_are_reported_without_a_traceback(cli, monkeypatch):
    import macros.cli as cli_module

    def boom(args):
        raise KeyError("x")
    monkeypatch.setattr(cli_module, "cmd_validate", boom)
    parser = cli_module.build_parser()
    parser._subparsers._group_actions[0].choices["validate"].set_defaults(func=boom)
    monkeypatch.setattr(cli_module, "build_parser", lambda: parser)
    r = cli("validate")
    assert r.code == 3 and r.err.startswith("internal error: KeyError") and "Traceback" not in r.err


@pytest.mark.parametrize("model_id", MODELS)
def test_an_unknown_platform_is_not_answered_with_another_gpu(cli, db, model_id):
    hws = db.model(model_id).info.hardware
    other = next(p for p in db.platforms if p not in hws and likely_typo(p, hws) is None)
    r = cli("command", model_id, "--set", f"hw={other}")
    assert r.code == 1
    assert f"hw '{other}' is not a platform of {db.model(model_id).info.name} (known: " in r.err
    assert "did you mean" not in r.err


@pytest.mark.parametrize("model_id", MODELS)
def test_a_slip_of_the_keyboard_in_a_platform_is_answered(cli, db, model_id):
    hw = db.model(model_id).info.hardware[0]
    r = cli("command", model_id, "--set", f"hw={hw}{hw[-1]}")
    assert r.code == 1 and f"(did you mean '{hw}'? known: " in r.err


def test_a_reader_that_stops_reading_never_sees_a_pass(tmp_path):
    """`recipes check … | head -1` under `set -o pipefail` must not look like a clean check."""
    import subprocess
    import sys

    path = tmp_path / "many.sh"
    path.write_text("".join(f"sglang serve --model-path m --unknown-{i} 1\n" for i in range(3000)),
                    encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "macros.cli", "check", "--file", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(str(path).encode())
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err
