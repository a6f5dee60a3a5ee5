"""The commands the engine prints for the selections a new user tries first."""

from __future__ import annotations

import pytest

from macros.engine.selection import Selection
from macros.site import render
from macros.engine.resolve import resolve
from macros.engine.results import SelectionError


def text(db, hw, role, strategy, lang="en", **picks):
    res = resolve(db, Selection("kimi-k3", {"hw": hw, "role": role, "strategy": strategy}, picks))
    return render.command_text(db, db.model("kimi-k3"), res, lang), res


def test_b300_low_latency_nospec_is_the_verified_cell_plus_the_ratio(db):
    out, res = text(db, "b300", "unified", "low-latency", spec="none")
    assert res.status == "verified"
    assert res.verified_in == "b300-speed-round"
    assert out == "\n".join([
        "# VLM transport: Auto means CUDA IPC here (up to 1 GiB of HBM; falls back to CPU",
        "# when full).",
        "sglang serve \\",
        "  --trust-remote-code \\",
        "  --model-path moonshotai/Kimi-K3 \\",
        "  --tp-size 8 \\",
        "  --mem-fraction-static 0.85 \\",
        "  --reasoning-parser kimi_k3 \\",
        "  --tool-call-parser kimi_k3 \\",
        "  --mamba-full-memory-ratio 0.9 \\",
        "  --host 0.0.0.0 \\",
        "  --port 30000",
    ])


def test_b300_balanced_default_is_dspark_on_top_of_dcp8(db):
    out, res = text(db, "b300", "unified", "balanced")
    assert res.status == "verified"
    assert res.flag_texts == [
        "--trust-remote-code", "--model-path moonshotai/Kimi-K3", "--tp-size 8", "--dcp-size 8",
        "--mem-fraction-static 0.85", "--reasoning-parser kimi_k3", "--tool-call-parser kimi_k3",
        "--speculative-algorithm DSPARK", "--speculative-draft-model-path RadixArk/Kimi-K3-DSpark",
        "--speculative-dspark-block-size 7", "--enable-linear-replayssm-spec",
        "--mamba-full-memory-ratio 5.13", "--host 0.0.0.0", "--port 30000"]
    rules = {d.rule: d.severity.value for d in res.diagnostics}
    assert rules == {"spec-caps-running-requests": "warning"}


def test_multinode_gb200_unified_gets_rank_flags_and_platform_hints(db):
    out, res = text(db, "gb200", "unified", "balanced", spec="none")
    assert res.nodes == 4
    assert res.flag_texts[2:8] == ["--tp-size 16", "--dcp-size 16", "--nnodes 4",
                                   "--node-rank <rank>", "--dist-init-addr <node0-ip>:20000",
                                   "--mem-fraction-static 0.85"]
    lines = out.splitlines()
    assert "# Multi-node (4 nodes): run this command on every node with its own --node-rank" in lines
    assert "# (0 … 3)." in lines
    assert max(len(line) for line in lines if line.startswith("#") and not line.startswith("#  ")) <= 80
    assert "# Allocate all 4 nodes inside one NVL72 domain." in lines
    assert "#   NCCL_MNNVL_ENABLE=1" in lines
    assert lines[lines.index("sglang serve \\") - 1] == "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0 \\"


def test_pd_decode_cell_uses_the_decode_port_and_prints_the_router(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "decode", "strategy": "balanced"}, {"spec": "none"}))
    assert res.flag_texts[-1] == "--port 30100"
    assert "--disaggregation-mode decode" in res.flag_texts
    assert render.router_text(res) == "\n".join([
        "python3 -m sglang_router.launch_router \\",
        "  --pd-disaggregation \\",
        "  --prefill http://<prefill-host>:30000 8998 \\",
        "  --decode http://<decode-host>:30100 \\",
        "  --host 0.0.0.0 --port 8000 \\",
        "  --disable-circuit-breaker \\",
        "  --health-check-interval-secs 999999",
    ])


def test_pd_prefill_keeps_port_30000_and_its_bootstrap_port(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "prefill", "strategy": "default"}))
    assert "--disaggregation-bootstrap-port 8998" in res.flag_texts
    assert res.flag_texts[-1] == "--port 30000"
    assert res.picks["spec"] == "dspark"
    assert "--enable-linear-replayssm-spec" not in res.flag_texts  # prefill rejects it


def test_ascend_a3_cell_has_npu_draft_flags_no_tool_parser_and_no_ratio(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "a3", "role": "unified", "strategy": "balanced"}))
    assert res.model_name == "sgl-npu/Kimi-K3-W4A8"
    assert res.picks["quant"] == "modelslim"
    calc = res.calculation("mamba_ratio")
    assert (calc.value, calc.reason.id) == (None, "calc.na-npu")
    names = [f.name for f in res.flags]
    assert "--tool-call-parser" not in names
    assert "--mamba-full-memory-ratio" not in names
    assert res.flag_texts[-6:-2] == ["--speculative-dspark-block-size 7",
                                     "--speculative-draft-attention-backend ascend",
                                     "--speculative-eagle-topk 1",
                                     "--speculative-draft-model-quantization unquant"]
    assert "--enable-linear-replayssm-spec" not in names
    # the main-branch image names no release, so the command is spelt for the pinned one
    at = names.index("--attn-dp-size")  # --dp-size N --enable-dp-attention, as 0.5.22+ spells it
    assert res.flag_texts[at + 2:at + 5] == [
        "--nnodes 4", "--node-rank <rank>", "--dist-init-addr <node0-ip>:20000"]


def test_peak_throughput_preset_matches_the_32_gpu_shape(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"spec": "none", "preset": "serving", "cluster": "32"}))
    assert res.env == ["SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK=20480"]
    assert res.nodes == 4
    assert res.flag_texts == [
        "--trust-remote-code", "--model-path moonshotai/Kimi-K3",
        # the seed's --enable-dp-attention --dp-size 4, as sglang 0.5.22+ spells it
        "--tp-size 32", "--ep-size 32", "--attn-dp-size 4",
        "--enable-dp-lm-head", "--nnodes 4", "--node-rank <rank>",
        "--dist-init-addr <node0-ip>:20000", "--moe-a2a-backend megamoe",
        "--moe-runner-backend deep_gemm", "--kv-cache-dtype fp8_e4m3",
        "--mamba-ssm-dtype bfloat16", "--mamba-radix-cache-strategy extra_buffer_lazy",
        "--mem-fraction-static 0.92", "--reasoning-parser kimi_k3", "--tool-call-parser kimi_k3",
        f"--mamba-full-memory-ratio {res.calculation('mamba_ratio').value}", "--host 0.0.0.0", "--port 30000"]


def test_peak_capacity_on_gb200_adds_dcp8_and_uses_eight_nodes_of_four(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "gb200", "role": "unified", "strategy": "balanced"}, {"spec": "none", "preset": "capacity", "cluster": "32"}))
    assert res.nodes == 8
    i = res.flag_texts.index("--enable-dp-lm-head")
    assert res.flag_texts[i + 1:i + 3] == ["--dcp-size 8", "--nnodes 8"]


def test_korean_command_translates_only_the_comments(db):
    en, _ = text(db, "gb200", "decode", "balanced", hicache="l3")
    ko, _ = text(db, "gb200", "decode", "balanced", "ko", hicache="l3")
    code = lambda s: [line for line in s.splitlines() if not line.startswith("#")]  # noqa: E731
    assert code(en) == code(ko)
    assert [line for line in ko.splitlines() if line.startswith("#")] != \
        [line for line in en.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("hw,role,strategy,picks,needle", [
    ("a3", "decode", "balanced", {}, "role 'decode' is not available on a3"),
    ("b3000", "unified", "balanced", {}, "hw 'b3000' is not a platform"),
    ("b300", "prefill", "balanced", {}, "'balanced' is not a strategy"),
    ("h100", "prefill", "default", {}, "role 'prefill' is not available on h100"),
    ("b300", "prefill", "long-context", {"spec": "dspark"}, "spec=dspark is not available"),
    ("h200", "unified", "balanced", {"spec": "dflash"}, "not been validated on this hardware"),
    ("b300", "unified", "balanced", {"quant": "nvfp5"}, "'nvfp5' is not an option of 'quant'"),
    ("b300", "decode", "balanced", {"vlm": "cpu"}, "'vlm' does not apply"),
    ("b300", "unified", "balanced", {"colour": "red"}, "unknown setting 'colour'"),
])
def test_impossible_selections_are_refused_with_what_is_possible(db, hw, role, strategy, picks, needle):
    with pytest.raises(SelectionError) as exc:
        resolve(db, Selection("kimi-k3", {"hw": hw, "role": role, "strategy": strategy}, picks))
    assert needle in str(exc.value)
    assert any(word in str(exc.value) for word in ("available:", "known:", "that apply:"))


def test_non_strict_resolution_snaps_to_the_nearest_real_cell(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "a3", "role": "decode", "strategy": "low-latency"}, {"spec": "none"}), strict=False)
    assert (res.match["role"], res.match["strategy"], res.picks["spec"]) == ("unified", "balanced", "dspark")
