"""Each resolution rule in recipes/kimi-k3/rules.yaml, seen through the command it produces."""

from __future__ import annotations

import pytest

from macros.engine.selection import Selection
from macros.engine.resolve import resolve


def flags(db, hw, role, strategy, **picks):
    return resolve(db, Selection("kimi-k3", {"hw": hw, "role": role, "strategy": strategy}, picks)).flag_texts


def names(db, hw, role, strategy, **picks):
    return [f.split()[0] for f in flags(db, hw, role, strategy, **picks)]


def option(res, axis, value):
    state = next(a for a in res.axes if a.axis == axis)
    return next(o for o in state.options if o.id == value)


# --- strip / splice ----------------------------------------------------------------------------

def test_nvfp4_replaces_the_pinned_moe_runner_in_place_on_b200(db):
    base = flags(db, "b200", "unified", "balanced", spec="none")
    nv = flags(db, "b200", "unified", "balanced", spec="none", quant="nvfp4")
    i = base.index("--moe-runner-backend flashinfer_mxfp4")
    assert nv[i] == "--moe-runner-backend flashinfer_trtllm"
    assert len(nv) == len(base)


def test_nvfp4_appends_the_runner_before_host_where_the_cell_has_none(db):
    nv = flags(db, "b300", "unified", "balanced", spec="none", quant="nvfp4")
    assert nv[-5:-2] == ["--tool-call-parser kimi_k3", "--moe-runner-backend flashinfer_trtllm",
                         "--mamba-full-memory-ratio 7.21"]
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"quant": "nvfp4"}))
    assert res.model_name == "nvidia/Kimi-K3-NVFP4"
    assert res.docker_image == "lmsysorg/sglang:dev-dev-kimi-k3-nvfp4"


def test_overlay_flags_go_before_host_and_port(db):
    out = flags(db, "b300", "unified", "low-latency", vlm="cpu", spec="none")
    assert out[-4:] == ["--mm-feature-transport cpu", "--mamba-full-memory-ratio 0.9",
                        "--host 0.0.0.0", "--port 30000"]


# --- speculative decoding ---------------------------------------------------------------------

def test_dspark_collapses_b200_pp2_into_flat_tp16_dcp16_ep16_in_place(db):
    out = flags(db, "b200", "unified", "balanced")
    assert out[2:5] == ["--tp-size 16", "--dcp-size 16", "--ep-size 16"]
    assert "--pp-size 2" not in out


def test_dspark_collapse_of_low_latency_gives_tp16_only(db):
    out = flags(db, "b200", "unified", "low-latency")
    assert out[2:3] == ["--tp-size 16"] and "--pp-size 2" not in out


def test_dspark_is_greyed_on_pipelined_cells_without_collapse(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "gb200", "role": "decode", "strategy": "low-latency"}))
    assert res.picks["spec"] == "none"  # the default reseats
    assert option(res, "spec", "dspark").reason == "gate.dspark-pipelined"


def test_replayssm_is_added_for_gpu_decode_roles_but_not_prefill(db):
    assert "--enable-linear-replayssm-spec" in flags(db, "b300", "decode", "balanced")
    assert "--enable-linear-replayssm-spec" not in flags(db, "b300", "prefill", "default")
    assert "--enable-linear-replayssm-spec" not in flags(db, "b300", "unified", "balanced",
                                                         replay_ssm="off")


def test_dflash_uses_its_draft_and_block_size(db):
    out = flags(db, "b300", "unified", "balanced", spec="dflash")
    assert "--speculative-algorithm DFLASH" in out
    assert "--speculative-draft-model-path modal-labs/Kimi-K3-DFlash" in out
    assert "--speculative-dflash-block-size 8" in out


@pytest.mark.parametrize("hw,role,strategy,reason", [
    ("h200", "unified", "balanced", "gate.dflash-hw"),
    ("b200", "unified", "balanced", "gate.dflash-pp-dp-attention"),
    ("gb200", "decode", "high-throughput", "gate.dflash-pp-dp-attention"),
    ("a3", "unified", "balanced", "gate.npu-dspark-only"),
])
def test_dflash_gating(db, hw, role, strategy, reason):
    res = resolve(db, Selection("kimi-k3", {"hw": hw, "role": role, "strategy": strategy}))
    assert option(res, "spec", "dflash").reason == reason


def test_amd_non_spec_adds_the_mla_decode_tune_env(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "mi355x", "role": "unified", "strategy": "balanced"}, {"spec": "none"}))
    assert res.env[-1] == "SGLANG_MLA_DECODE_TUNE=1"
    assert res.env[:4] == ["SGLANG_USE_AITER=1", "SGLANG_AITER_K3_OPT=1", "AITER_FLYDSL_FORCE=1",
                           "AITER_SITUV2_A8W4=1"]


def test_draft_token_slider_replaces_the_block_size(db):
    out = flags(db, "b300", "unified", "low-latency", draft_tokens="3")
    assert "--speculative-dspark-block-size 3" in out
    assert "--speculative-dspark-block-size 7" not in out


# --- HiCache ------------------------------------------------------------------------------------

def test_hicache_l2_keeps_dcp_with_dspark(db):
    out = flags(db, "b300", "unified", "balanced", hicache="l2")
    assert "--dcp-size 8" in out and "--enable-hierarchical-cache" in out


def test_hicache_l2_with_dflash_drops_dcp(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"hicache": "l2", "spec": "dflash"}))
    assert "--dcp-size 8" not in res.flag_texts
    assert any(h.id == "hint.hicache.l2-dflash-dcp" for h in res.hints)


def test_hicache_l3_drops_dcp_and_needs_mooncake(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"hicache": "l3", "spec": "none"}))
    assert "--dcp-size 8" not in res.flag_texts
    assert res.flag_texts[2] == "--tp-size 8"
    assert "--hicache-storage-backend mooncake" in res.flag_texts
    assert res.env == ["SGLANG_HICACHE_MOONCAKE_CONFIG_PATH=<mooncake.json>"]
    ids = [h.id for h in res.hints]
    assert ids.index("hint.hicache.l3-master") + 1 == ids.index("hint.hicache.l3-dcp")


def test_auto_vlm_hint_follows_the_final_node_count(db):
    one = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}))
    four = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"preset": "serving", "cluster": "32"}))
    assert "hint.vlm.auto-ipc" in [h.id for h in one.hints]
    assert "hint.vlm.auto-cpu" in [h.id for h in four.hints]


def test_hicache_l3_on_b200_keeps_pp_and_ep_without_spec(db):
    out = flags(db, "b200", "unified", "balanced", hicache="l3", spec="none")
    assert out[2:5] == ["--tp-size 8", "--pp-size 2", "--ep-size 8"]


def test_hicache_l3_with_dspark_on_b200_collapses_without_dcp(db):
    out = flags(db, "b200", "unified", "balanced", hicache="l3")
    assert out[2:4] == ["--tp-size 16", "--ep-size 16"] and "--dcp-size 16" not in out


def test_low_latency_takes_every_tier_unchanged(db):
    out = flags(db, "b300", "unified", "low-latency", hicache="l3", spec="none")
    assert "--tp-size 8" in out and "--hicache-storage-backend mooncake" in out


def test_hicache_is_greyed_on_npu(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "a5", "role": "unified", "strategy": "balanced"}))
    assert option(res, "hicache", "l2").reason == "gate.npu-hicache"


def test_storage_backends_are_greyed_under_dcp_with_l2(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"hicache": "l2"}))
    assert option(res, "hicache_backend", "file").reason == "gate.dcp-storage"


# --- PD, multi-node, presets ---------------------------------------------------------------

def test_pd_ports(db):
    assert flags(db, "gb300", "prefill", "default")[-1] == "--port 30000"
    assert flags(db, "gb300", "decode", "balanced")[-1] == "--port 30100"
    assert flags(db, "gb300", "unified", "balanced")[-1] == "--port 30000"


def test_pd_transport_switches_in_place(db):
    base = flags(db, "b300", "decode", "balanced")
    moon = flags(db, "b300", "decode", "balanced", pd_transport="mooncake")
    i = base.index("--disaggregation-transfer-backend nixl")
    assert moon[i] == "--disaggregation-transfer-backend mooncake"


def test_single_node_cells_have_no_rank_flags(db):
    assert "--nnodes" not in names(db, "b300", "unified", "balanced")


def test_preset_is_blackwell_only_and_capacity_excludes_l3(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "h200", "role": "unified", "strategy": "balanced"}))
    assert option(res, "preset", "serving").reason == "gate.preset-blackwell"
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"hicache": "l3"}))
    assert option(res, "preset", "capacity").reason == "gate.capacity-l3"


@pytest.mark.parametrize("cluster,nodes8,nodes4,dp", [("8", 1, 2, None), ("16", 2, 4, "2"),
                                                       ("32", 4, 8, "4"), ("64", 8, 16, "8")])
def test_preset_shape_scales_with_cluster_size(db, cluster, nodes8, nodes4, dp):
    a = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"preset": "serving", "cluster": cluster, "spec": "none"}))
    b = resolve(db, Selection("kimi-k3", {"hw": "gb300", "role": "unified", "strategy": "balanced"}, {"preset": "serving", "cluster": cluster, "spec": "none"}))
    assert (a.nodes, b.nodes) == (nodes8, nodes4)
    assert f"--tp-size {cluster}" in a.flag_texts and f"--ep-size {cluster}" in a.flag_texts
    # attention DP as the pinned release spells it (--dp-size N --enable-dp-attention before 0.5.22)
    assert (f"--attn-dp-size {dp}" in a.flag_texts) if dp else \
        not any(f.name in ("--attn-dp-size", "--enable-dp-attention") for f in a.flags)


def test_preset_owns_the_parallel_shape(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"preset": "serving"}))
    assert option(res, "tp", "8").reason == "gate.preset-owns-shape"


def test_finer_knobs_override_the_preset(db):
    out = flags(db, "b300", "unified", "balanced", preset="serving", ssm_dtype="fp16", spec="none")
    assert "--mamba-ssm-dtype float16" in out and "--mamba-ssm-dtype bfloat16" not in out


# --- role and strategy gating ------------------------------------------------------------------

def test_npu_offers_only_unified_balanced(db):
    from macros.engine.resolve import dimension_states

    model = db.model("kimi-k3")
    roles = {s.id: (s.state, s.reason) for s in dimension_states(db, model, "role", {"hw": "a3"})}
    assert roles == {"unified": ("enabled", None), "prefill": ("disabled", "gate.npu-unified-only"),
                     "decode": ("disabled", "gate.npu-unified-only")}
    strategies = {s.id: s.state for s in dimension_states(db, model, "strategy",
                                                            {"hw": "a5", "role": "unified"})}
    assert strategies == {"low-latency": "disabled", "balanced": "enabled",
                          "high-throughput": "disabled", "default": "hidden",
                          "long-context": "hidden"}


def test_prefill_is_greyed_where_no_cell_exists(db):
    from macros.engine.resolve import dimension_states

    roles = {s.id: s for s in dimension_states(db, db.model("kimi-k3"), "role", {"hw": "h100"})}
    assert roles["prefill"].reason == "gate.no-cell.on"  # named: where a Prefill cell is
    assert roles["prefill"].fields["platforms"].split(", ") == [
        db.platforms[h].label for h in db.model("kimi-k3").info.hardware
        if db.model("kimi-k3").cell({"hw": h, "role": "prefill", "strategy": "default"})]


# --- effective configuration --------------------------------------------------------------------

def effective(db, hw, role, strategy, **picks):
    res = resolve(db, Selection("kimi-k3", {"hw": hw, "role": role, "strategy": strategy}, picks))
    return {e.knob: (e.value, e.source.value) for e in res.effective}


def test_blackwell_attention_auto_resolves_and_dcp_takes_decode(db):
    eff = effective(db, "b300", "unified", "balanced")
    assert eff["prefill_attention"] == ("trtllm_mla", "auto")
    assert eff["decode_attention"] == ("cutedsl_mla", "auto")
    assert eff["verify_attention"] == ("cutedsl_mla", "auto")
    assert eff["dcp_comm"] == ("a2a", "auto")
    assert eff["symm_mem"] == ("off", "forced")
    assert eff["max_running_requests"] == ("48", "auto")
    assert eff["moe_runner"] == ("flashinfer_mxfp4", "auto")


def test_gb200_dcp_comm_backend_resolves_to_fi_a2a(db):
    assert effective(db, "gb200", "unified", "balanced")["dcp_comm"] == ("fi_a2a", "auto")


def test_pins_carry_their_reason(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b200", "role": "unified", "strategy": "balanced"}))
    eff = {e.knob: e for e in res.effective}
    assert eff["moe_runner"].source.value == "pinned"
    assert eff["moe_runner"].because == "pin.b200-moe-runner"
    assert eff["decode_attention"].value == "cutedsl_mla"
    pins = [(c.flag, c.text.id) for c in res.caveats if c.kind == "pin"]
    assert ("--moe-runner-backend", "pin.b200-moe-runner") in pins


def test_hopper_pins_marlin_and_flashmla(db):
    eff = effective(db, "h200", "unified", "balanced")
    assert eff["moe_runner"] == ("marlin", "pinned")
    assert eff["decode_attention"] == ("flashmla", "pinned")


def test_nvfp4_runner_is_explicit_not_pinned(db):
    eff = effective(db, "b200", "unified", "balanced", quant="nvfp4")
    assert eff["moe_runner"] == ("flashinfer_trtllm", "explicit")


def test_no_spec_leaves_max_running_requests_to_the_default(db):
    assert effective(db, "b300", "unified", "balanced", spec="none")["max_running_requests"][1] \
        == "default"


def test_redirect_and_warn_cells_carry_their_caveat(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "high-throughput"}))
    assert [c.text.id for c in res.caveats if c.kind == "redirect"] == ["warn.ht-large-scale-lane"]
    res = resolve(db, Selection("kimi-k3", {"hw": "gb200", "role": "decode", "strategy": "low-latency"}))
    assert [c.text.id for c in res.caveats if c.kind == "warn"] == \
        ["warn.gb200-decode-ll-prefill-pairing"]
