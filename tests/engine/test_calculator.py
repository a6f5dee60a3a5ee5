"""Kimi-K3's mamba-ratio calculator (data in its model.yaml, evaluated by macros.engine.calculator)
against values worked out by hand from the formula

    ratio = (S + D) × state_bytes / (L × (mla_kv_bytes / DCP + draft_kv_bytes))

with state_bytes = 69 × ((96/attn_tp)·128·128·ssm_bytes + 3·3·(96/attn_tp)·128·2) and
mla_kv_bytes = 24 · 576 · kv_bytes; draft KV adds 1400 bytes per token under speculation.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from macros.engine.selection import Selection
from macros.engine import calculator
from macros.engine.resolve import resolve

L = 11264
STATE_TP8_FP32 = 69 * (12 * 128 * 128 * 4 + 9 * 12 * 128 * 2)  # 56,171,520 bytes


def test_state_bytes_at_attention_tp8_match_the_hand_computation(db):
    c = db.model("kimi-k3").calculator("mamba_ratio")
    values, _ = calculator.evaluate(c, {"--tp-size": ("8",)}, {}, None, L)
    assert values["state_bytes"] == STATE_TP8_FP32 == 56_171_520
    assert values["kv_bytes_per_token"] == 24 * 576 * 2


@pytest.mark.parametrize("hw,role,strategy,picks,expected", [
    # S=5 (extra_buffer, overlap on), D=0 (ReplaySSM), KV 27648 + 1400 draft → 5·56171520/(29048·11264)
    ("b300", "unified", "low-latency", {}, "0.86"),
    # DCP8: KV 27648/8 + 1400 = 4856 → 5.134
    ("b300", "unified", "balanced", {}, "5.13"),
    # no spec: 5·56171520/(3456·11264) = 7.21
    ("b300", "unified", "balanced", {"spec": "none"}, "7.21"),
    # B200 DSPARK collapse to TP16/DCP16: attn_tp 16 halves the state, KV 1728 + 1400
    ("b200", "unified", "balanced", {}, "3.99"),
    # MI35x: fp8 KV (1 byte) / DCP8 + draft = 3128 → 7.97
    ("mi350x", "unified", "balanced", {}, "7.97"),
    # PD decode: one chunk-cache slot, DCP8 → 1·56171520/(4856·11264) = 1.03
    ("b300", "decode", "balanced", {}, "1.03"),
    # GB200 decode Low-Latency is pipelined, so NOSPEC: 1·56171520/(27648·11264) = 0.18
    ("gb200", "decode", "low-latency", {}, "0.18"),
    # H100 TP32: attn_tp 32 → state/4; 5·14042880/(29048·11264) = 0.2146
    ("h100", "unified", "low-latency", {}, "0.21"),
    # H100 High-Throughput runs extra_buffer_lazy: S=4 → 0.17
    ("h100", "unified", "high-throughput", {}, "0.17"),
    # B200 decode Low-Latency TP16, DSPARK: 1·28085760/(29048·11264) = 0.0858
    ("b200", "decode", "low-latency", {}, "0.086"),
])
def test_deploy_default_ratios(db, hw, role, strategy, picks, expected):
    res = resolve(db, Selection("kimi-k3", {"hw": hw, "role": role, "strategy": strategy}, picks))
    assert res.calculation("mamba_ratio").value == expected
    assert f"--mamba-full-memory-ratio {expected}" in res.flag_texts


def test_ratio_above_one_is_legal_and_pinned(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {"spec": "none"}))
    assert res.calculation("mamba_ratio").exact > 1


def test_replayssm_off_adds_block_plus_one_draft_states(db):
    on = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "low-latency"}))
    off = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "low-latency"}, {"replay_ssm": "off"}))
    # D = 7 + 1 = 8 intermediate states: (5 + 8) / 5 times the ratio
    assert off.calculation("mamba_ratio").exact == pytest.approx(on.calculation("mamba_ratio").exact * 13 / 5)


@pytest.mark.parametrize("picks,slots", [
    ({}, 5), ({"radix": "lazy"}, 4), ({"radix": "nobuf"}, 3), ({"prefix_cache": "off"}, 1),
    ({"slot_saving": "on"}, 4), ({"slot_saving": "on", "radix": "lazy"}, 3),
])
def test_slots_per_request_follow_the_cache_strategy(db, picks, slots):
    res = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "low-latency"}, {"spec": "none", **picks}))
    values, _ = calculator.of_command(db.model("kimi-k3").calculator("mamba_ratio"), res.flags, res.env,
                                      res.pd, L)
    assert values["slots"] == slots


def test_bf16_state_and_fp8_kv_move_the_ratio_as_the_formula_says(db):
    base = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "low-latency"}, {"spec": "none"})).calculation("mamba_ratio").exact
    bf16 = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "low-latency"}, {"spec": "none", "ssm_dtype": "bf16"})).calculation("mamba_ratio").exact
    fp8 = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "low-latency"}, {"spec": "none", "kv_dtype": "fp8"})).calculation("mamba_ratio").exact
    assert bf16 < base < fp8
    assert fp8 == pytest.approx(base * 2)


def test_the_ratio_follows_the_average_request_length(db):
    short = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {}, 4096))
    long = resolve(db, Selection("kimi-k3", {"hw": "b300", "role": "unified", "strategy": "balanced"}, {}, 65536))
    assert short.calculation("mamba_ratio").exact == pytest.approx(long.calculation("mamba_ratio").exact * 16)


def test_no_ratio_where_the_cell_pins_the_state_pool(db):
    res = resolve(db, Selection("kimi-k3", {"hw": "a3", "role": "unified", "strategy": "balanced"}))
    assert res.calculation("mamba_ratio").value is None and res.calculation("mamba_ratio").exact is None
    assert all(f.name != "--mamba-full-memory-ratio" for f in res.flags)


@pytest.mark.parametrize("value,text", [
    (12.04, "12.0"), (5.134, "5.13"), (1.0269, "1.03"), (2.5, "2.5"), (1.0, "1"),
    (0.9018, "0.9"), (0.0858, "0.086"), (0.2146, "0.21"), (0.000123, "0.00012"),
])
def test_formatting(value, text):
    assert calculator.fmt(value) == text


SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(short=st.integers(1, 10**6), extra=st.integers(1, 10**6))
def test_ratio_falls_as_requests_get_longer(db, short, extra):
    c = db.model("kimi-k3").calculator("mamba_ratio")
    flags = {"--tp-size": ("8",), "--dcp-size": ("8",)}
    ratio = lambda n: calculator.evaluate(c, flags, {}, None, n)[1]  # noqa: E731
    assert ratio(short + extra) < ratio(short)


@SETTINGS
@given(tp=st.sampled_from(["1", "2", "4", "8", "16", "32"]), dcp=st.sampled_from(["1", "8", "16"]),
       length=st.integers(256, 10**6), pd=st.sampled_from([None, "prefill", "decode"]))
def test_ratio_moves_with_the_dtypes_as_the_formula_says(db, tp, dcp, length, pd):
    c = db.model("kimi-k3").calculator("mamba_ratio")
    base = {"--tp-size": (tp,), "--dcp-size": (dcp,)}

    def r(**extra):
        flags = dict(base)
        flags.update({k: (v,) for k, v in extra.items()})
        return calculator.evaluate(c, flags, {}, pd, length)[1]
    plain = r()
    assert r(**{"--kv-cache-dtype": "fp8_e4m3"}) == pytest.approx(plain * 2)  # KV bytes halve
    assert r(**{"--mamba-ssm-dtype": "bfloat16"}) < plain  # the SSM part halves
    assert r(**{"--mamba-ssm-dtype": "bfloat16"}) > plain / 2  # the conv part does not
