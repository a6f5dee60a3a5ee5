"""The mamba-ratio calculator: how to split static memory between the KDA state pool and the
paged MLA KV pool (``--mamba-full-memory-ratio``).

ratio = (S + D) × state_bytes / (L × (mla_kv_bytes / DCP + draft_kv_bytes))

S is state slots per request, D draft states per request, L the average request length
(input + output). Owns the formula and its number formatting; reads only the flags, env and
PD server kind (prefill, decode or none) of a command, never the rules or the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .schema import CalculatorConsts


# Bytes per KV element by --kv-cache-dtype; auto, bf16 and bfloat16 are 16-bit.
KV_BYTES = {"fp8_e4m3": 1, "fp8_e5m2": 1, "mxfp8": 1, "nvfp4": 0.5, "fp4_mx_block16": 0.5}


@dataclass(frozen=True)
class Inputs:
    """Everything the ratio depends on, as read from one command."""

    tp: int
    attn_dp: int
    attn_tp: float
    dcp: int
    pp: int
    slots: int
    drafts: int
    ssm_bytes: int
    kv_bytes: float
    spec: bool
    state_bytes: float
    kv_bytes_per_token: float


def _int(flags: dict, name: str, default: int) -> int:
    values = flags.get(name)
    try:
        return int(values[0]) if values else default
    except ValueError:
        return default


def read_inputs(flags: dict[str, tuple[str, ...]], env: dict[str, str], pd: str | None,
                c: CalculatorConsts) -> Inputs:
    tp = _int(flags, "--tp-size", 8)
    attn_dp = _int(flags, "--dp-size", 1) if "--enable-dp-attention" in flags else 1
    attn_tp = tp / attn_dp if attn_dp else float(tp)
    attn_tp = float(round(attn_tp))
    dcp = _int(flags, "--dcp-size", 1)
    pp = _int(flags, "--pp-size", 1)
    strategy = (flags.get("--mamba-radix-cache-strategy") or ("extra_buffer",))[0]
    if pd == "decode" or "--disable-radix-cache" in flags:
        slots = 1  # PD decode keeps a chunk cache; no radix cache means one slot per request
    elif strategy == "no_buffer":
        slots = 3
    else:
        skip_lock = 1 if env.get("SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK") == "1" else 0
        track = 1 if ("--disable-overlap-schedule" in flags or pp > 1
                      or strategy == "extra_buffer_lazy") else 2
        slots = 3 - skip_lock + track
    algo = (flags.get("--speculative-algorithm") or ("",))[0].upper()
    spec = bool(algo)
    drafts = 0
    if spec and "--enable-linear-replayssm-spec" not in flags and pd != "prefill":
        block_flag = "--speculative-dflash-block-size" if algo == "DFLASH" \
            else "--speculative-dspark-block-size"
        drafts = _int(flags, block_flag, 8 if algo == "DFLASH" else 7) + 1
    ssm = (flags.get("--mamba-ssm-dtype") or ("float32",))[0]
    ssm_bytes = 2 if ssm in ("bfloat16", "float16") else 4
    kv = (flags.get("--kv-cache-dtype") or ("auto",))[0]
    kv_bytes = KV_BYTES.get(kv, 2)
    heads = c.kda_heads / attn_tp if attn_tp else 0
    state = c.kda_layers * (heads * c.head_dim * c.head_dim * ssm_bytes
                            + c.conv_kernel * 3 * heads * c.head_dim * 2)
    kv_token = c.mla_layers * c.mla_kv_width * kv_bytes / dcp + (c.draft_kv_bytes if spec else 0)
    return Inputs(tp, attn_dp, attn_tp, dcp, pp, slots, drafts, ssm_bytes, kv_bytes, spec,
                  state, kv_token)


def ratio(inputs: Inputs, avg_len: int, c: CalculatorConsts) -> float | None:
    """The ratio, or None when the inputs cannot give one (attention-TP does not divide heads)."""
    if avg_len <= 0 or inputs.attn_tp <= 0 or c.kda_heads % int(inputs.attn_tp):
        return None
    value = (inputs.slots + inputs.drafts) * inputs.state_bytes / (inputs.kv_bytes_per_token * avg_len)
    return value if math.isfinite(value) and value > 0 else None


def fmt(value: float) -> str:
    """One decimal from 10 up; below that two decimals or two significant digits, zeros trimmed."""
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        text = f"{value:.2f}"
    else:
        digits = 1 - math.floor(math.log10(value))
        text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def inputs_of(flags, env: list[str], pd: str | None, c: CalculatorConsts) -> Inputs:
    """The calculator inputs of a composed command (its own ratio flag left out)."""
    return read_inputs({f.name: f.values for f in flags if f.name != "--mamba-full-memory-ratio"},
                       dict(e.split("=", 1) for e in env), pd, c)
