"""The command checker: catalog findings and rule findings, on good and bad commands."""

from __future__ import annotations

import pytest

from macros.engine.check import check_text, parse
from macros.engine.shell import logical_lines

GOOD_B300 = """\
sglang serve \\
  --trust-remote-code \\
  --model-path moonshotai/Kimi-K3 \\
  --tp-size 8 \\
  --dcp-size 8 \\
  --mem-fraction-static 0.85 \\
  --reasoning-parser kimi_k3 \\
  --tool-call-parser kimi_k3 \\
  --host 0.0.0.0 --port 30000
"""


# These commands and rules are Kimi-K3's (the seed's checks); every check names its model.
MODEL = "kimi-k3"


def findings(db, text, **ctx):
    ctx.setdefault("model_id", MODEL)
    return [(f.severity.value, f.rule, tuple(f.flags)) for f in check_text(db, text, **ctx)]


def errors(db, text, **ctx):
    ctx.setdefault("model_id", MODEL)
    return [f for f in check_text(db, text, **ctx) if f.severity.value == "error"]


def test_a_verified_cell_command_checks_clean(db):
    assert findings(db, GOOD_B300, hw="b300") == []


def test_continuations_env_prefixes_and_comments_are_understood(db):
    text = "# a hint\nSGLANG_USE_AITER=1 AITER_FLYDSL_FORCE=1 \\\npython3 -m sglang.launch_server \\\n  --model-path m --tp-size 8  # trailing comment\n"
    [cmd] = parse(text, {"server": db.catalog, "router": db.router_catalog})
    assert cmd.env == [("SGLANG_USE_AITER", "1"), ("AITER_FLYDSL_FORCE", "1")]
    assert cmd.flags == [("--model-path", ("m",)), ("--tp-size", ("8",))]
    assert cmd.line == 2


def test_logical_lines_keep_the_first_line_number():
    assert logical_lines("\n# c\na \\\n b\nc\n") == [(3, "a   b"), (5, "c")]


def test_symmetric_memory_under_dcp_is_refused(db):
    bad = GOOD_B300.replace("--tp-size 8 \\", "--tp-size 8 \\\n  --enable-symm-mem \\")
    [e] = errors(db, bad, hw="b300")
    assert e.rule == "symm-mem-under-dcp"
    assert e.flags == ["--enable-symm-mem", "--dcp-size"]


def test_dspark_with_two_pipeline_stages_is_refused(db):
    text = ("sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8 --pp-size 2 "
            "--speculative-algorithm DSPARK")
    [e] = errors(db, text)
    assert e.rule == "dspark-needs-single-stage"
    assert "--pp-size" in e.flags


def test_bare_fp8_kv_cache_dtype_is_not_a_valid_choice(db):
    [e] = errors(db, "sglang serve --model-path m --kv-cache-dtype fp8")
    assert e.rule == "catalog.bad-value"
    assert e.flags == ["--kv-cache-dtype"]
    assert "fp8_e4m3" in e.message  # the valid choices are listed


def test_a_misspelt_flag_is_refused_with_a_suggestion(db):
    [e] = errors(db, "sglang serve --model-path m --tp-sizee 8")
    assert e.rule == "catalog.unknown-flag"
    assert e.flags == ["--tp-sizee"]
    assert "did you mean '--tp-size'" in e.message


def test_aiter_env_on_b300_is_refused(db):
    [e] = errors(db, "SGLANG_USE_AITER=1 sglang serve --model-path m --tp-size 8", hw="b300")
    assert e.rule == "aiter-env-off-gfx950"
    assert e.flags == ["SGLANG_USE_AITER"]


def test_aiter_env_on_mi355x_is_fine(db):
    assert errors(db, "SGLANG_USE_AITER=1 sglang serve --model-path m --tp-size 8", hw="mi355x") == []


def test_aiter_rule_needs_the_hardware_to_judge(db):
    assert errors(db, "SGLANG_USE_AITER=1 sglang serve --model-path m") == []


def test_tool_call_parser_on_ascend_is_refused(db):
    [e] = errors(db, "sglang serve --model-path m --tool-call-parser kimi_k3", hw="a3")
    assert e.rule == "tool-parser-on-ascend"
    assert e.flags == ["--tool-call-parser"]


def test_abbreviations_are_accepted_with_a_warning_and_ambiguity_is_an_error(db):
    out = findings(db, "sglang serve --model-path m --tp 2 --mem-frac 0.8")
    assert ("warning", "catalog.abbreviated-flag", ("--tp", "--tp-size")) in out
    assert ("warning", "catalog.abbreviated-flag", ("--mem-frac", "--mem-fraction-static")) in out
    [e] = errors(db, "sglang serve --model-path m --pp 2")
    assert e.rule == "catalog.ambiguous-flag"


def test_deprecated_dp_attention_flag_warns_with_the_replacement(db):
    out = check_text(db, "sglang serve --model-path m --enable-dp-attention --dp-size 2")
    [w] = [f for f in out if f.rule == "catalog.deprecated-flag"]
    assert "--attn-dp-size" in w.message


def test_boolean_flag_given_a_value_is_an_error(db):
    [e] = errors(db, "sglang serve --model-path m --enable-dp-attention true")
    assert e.rule == "catalog.stray-word"
    assert e.message == ("unexpected word 'true': --enable-dp-attention takes no value, so "
                         "argparse refuses 'true' as an unrecognized argument")


def test_model_type_is_an_unknown_flag_for_launch_server_which_never_strips_it(db):
    [e] = errors(db, "python3 -m sglang.launch_server --model-path m --model-type llm")
    assert (e.rule, e.flags) == ("catalog.unknown-flag", ["--model-type"])
    assert e.message == ("unknown flag --model-type for python3 -m sglang.launch_server: only "
                         "sglang serve reads it, before argparse runs, so argparse refuses it "
                         "here")


def test_model_type_is_read_by_sglang_serve(db):
    assert findings(db, "sglang serve --model-path m --model-type llm") == []


def test_sglang_serve_takes_the_positional_model_after_model_type(db):
    """serve takes --model-type out of the words before it looks for a positional model."""
    assert findings(db, "sglang serve --model-type llm m --tp-size 8") == []


def test_model_type_is_no_abbreviation_target(db):
    [e] = errors(db, "sglang serve --model-path m --model-typ llm")
    assert (e.rule, e.flags) == ("catalog.unknown-flag", ["--model-typ"])


def test_an_extra_word_after_the_routers_decode_url_is_an_unrecognized_argument(db):
    text = ROUTER.format(port=8998).replace("--decode http://<decode-host>:30100",
                                            "--decode http://<decode-host>:30100 extra")
    [e] = errors(db, text)
    assert (e.rule, e.line) == ("catalog.stray-word", 4)
    assert e.message == ("unexpected word 'extra': --decode takes one value, so argparse "
                         "refuses 'extra' as an unrecognized argument")


@pytest.mark.parametrize("value", ["1", "true", "YES", "y"])
def test_token_oracle_sampling_backend_passes_while_its_variable_is_true(db, value):
    text = (f"SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE={value} sglang serve --model-path m "
            "--sampling-backend token_oracle")
    assert findings(db, text) == []


@pytest.mark.parametrize("env", ["", "SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE=0 "])
def test_token_oracle_sampling_backend_is_refused_without_its_variable_true(db, env):
    [e] = errors(db, f"{env}sglang serve --model-path m --sampling-backend token_oracle")
    assert (e.rule, e.flags) == ("catalog.bad-value", ["--sampling-backend"])
    assert e.message == ("--sampling-backend token_oracle: 'token_oracle' is not a valid "
                         "choice (valid: ascend, flashinfer, intel_xpu, pytorch); sglang 0.5.23 "
                         "adds 'token_oracle' while SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE is set "
                         "to 1")


def test_unknown_sglang_env_var_warns_but_model_branch_vars_do_not(db):
    out = findings(db, "SGLANG_NOT_A_THING=1 SGLANG_K3_ATTN_RES_MODE=jit sglang serve --model-path m")
    assert out == [("warning", "catalog.unknown-env", ("SGLANG_NOT_A_THING",))]


def test_sglang_serve_takes_the_model_as_a_positional(db):
    assert errors(db, "sglang serve moonshotai/Kimi-K3 --tp-size 8") == []
    [e] = errors(db, "sglang serve --tp-size 8")
    assert e.rule == "catalog.missing-model"


def test_speculative_algorithm_names_are_checked_case_insensitively(db):
    assert errors(db, "sglang serve --model-path m --speculative-algorithm dspark") == []
    [e] = errors(db, "sglang serve --model-path m --speculative-algorithm DSPRAK")
    assert e.rule == "catalog.bad-value"


ROUTER = """\
python3 -m sglang_router.launch_router \\
  --pd-disaggregation \\
  --prefill http://<prefill-host>:30000 {port} \\
  --decode http://<decode-host>:30100 \\
  --host 0.0.0.0 --port 8000 \\
  --disable-circuit-breaker \\
  --health-check-interval-secs 999999
"""


def test_router_with_the_servers_bootstrap_port_checks_clean(db):
    assert findings(db, ROUTER.format(port=8998)) == []


def test_router_bootstrap_port_must_match_the_prefill_server(db):
    [e] = errors(db, ROUTER.format(port=9000))
    assert e.rule == "router-bootstrap-port"
    assert "9000" in e.message and "8998" in e.message


def test_router_bootstrap_port_is_compared_with_a_prefill_command_in_the_same_text(db):
    prefill = ("sglang serve --model-path m --disaggregation-mode prefill "
               "--disaggregation-bootstrap-port 9000\n")
    assert errors(db, prefill + ROUTER.format(port=9000)) == []


def test_router_flags_use_the_router_catalog(db):
    [e] = errors(db, ROUTER.format(port=8998).replace("--pd-disaggregation", "--pd-disagregation"))
    assert e.rule == "catalog.unknown-flag"


def test_radix_strategy_on_decode_role_warns(db):
    out = findings(db, "sglang serve --model-path m --disaggregation-mode decode "
                       "--mamba-radix-cache-strategy extra_buffer_lazy")
    assert ("warning", "radix-strategy-on-decode", ("--mamba-radix-cache-strategy",)) in out


def test_replayssm_on_prefill_role_is_an_error(db):
    [e] = errors(db, "sglang serve --model-path m --disaggregation-mode prefill "
                     "--speculative-algorithm DSPARK --enable-linear-replayssm-spec")
    assert e.rule == "replayssm-on-prefill"


def test_storage_backend_under_dcp_is_an_error(db):
    [e] = errors(db, "sglang serve --model-path m --dcp-size 8 --enable-hierarchical-cache "
                     "--hicache-storage-backend mooncake")
    assert e.rule == "storage-backend-under-dcp"


def test_shell_that_cannot_be_split_is_reported_not_raised(db):
    [e] = errors(db, "sglang serve --model-path 'unterminated")
    assert e.rule == "parse.shell"


def test_text_without_any_sglang_command_is_reported(db):
    [e] = errors(db, "echo hello")
    assert e.rule == "parse.no-command"


@pytest.mark.parametrize("argv", [
    ["--", "sglang", "serve", "--model-path", "m", "--kv-cache-dtype", "fp8"],
    ["--", "sglang serve --model-path m --kv-cache-dtype fp8"],
])
def test_cli_check_accepts_words_or_one_string_and_exits_1_on_errors(cli, argv):
    r = cli("check", "--model", MODEL, "--format", "json", *argv)
    assert r.code == 1
    [d] = r.json()["diagnostics"]
    assert (d["severity"], d["rule"], d["flags"]) == ("error", "catalog.bad-value", ["--kv-cache-dtype"])


def test_cli_check_reads_a_file_of_commands(cli, tmp_path):
    path = tmp_path / "cmds.sh"
    path.write_text(GOOD_B300 + "\n" + ROUTER.format(port=8998))
    r = cli("check", "--model", MODEL, "--hw", "b300", "--file", str(path))
    assert r.code == 0, r.out + r.err
    assert "0 error(s), 0 warning(s)" in r.err


def test_cli_check_reads_stdin(cli):
    r = cli("check", "--model", MODEL, "--hw", "b300", "--file", "-",
            stdin="SGLANG_USE_AITER=1 " + GOOD_B300)
    assert r.code == 1
    assert "aiter-env-off-gfx950" in r.out


def test_a_command_ends_at_a_shell_operator(db):
    # `echo ok > /tmp/log` is no argument of the server: the one error is the chain itself
    assert [e.rule for e in errors(db, "sglang serve --model-path m --tp-size 8 && echo ok "
                                       "> /tmp/log")] == ["check.chained-command"]


def test_a_flag_line_without_the_continuation_above_is_an_error(db):
    [e] = errors(db, "sglang serve --model-path m --tp-size 8\n  --enable-symm-mem\n")
    assert e.rule == "parse.shell" and e.line == 2


def test_an_unknown_context_is_refused_with_the_choices(db):
    from macros.engine.errors import RecipeError

    with pytest.raises(RecipeError) as exc:
        check_text(db, GOOD_B300, hw="b3000")
    assert "did you mean 'b300'?" in str(exc.value)
