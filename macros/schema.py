"""Pydantic models of the recipe database files (the shape maintainers write).

Owns field names, types and the per-file structural checks (``extra="forbid"``). References
between files (a cell naming a hardware id, a text id with no Korean) are checked in
``database.py``, which has all files at hand. Must not do I/O.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Condition = dict[str, Any]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Vendor(str, Enum):
    nvidia = "nvidia"
    amd = "amd"
    huawei = "huawei"


class Status(str, Enum):
    verified = "verified"
    in_progress = "in-progress"
    unverified = "unverified"


class Severity(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


class Source(str, Enum):
    explicit = "explicit"
    pinned = "pinned"
    auto = "auto"
    forced = "forced"
    default = "default"


# --- recipes/catalog/hardware.yaml

class Platform(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    label: str
    vendor: Vendor
    arch: str
    sm: int | None = None
    gfx: str | None = None
    hbm_gb: int | None = None
    devices_per_card: int | None = None
    gpus_per_node: int = Field(ge=1)
    fabric: str


class HardwareFile(Strict):
    platforms: list[Platform]


# --- recipes/<model>/model.yaml

class Role(Strict):
    id: str
    label: str
    strategies: list[str]


class StrategyDef(Strict):
    id: str
    label: str


class Round(Strict):
    id: str
    version: str
    notes: list[str] = []


class NameRule(Strict):
    when: Condition
    name: str


class ImageRule(Strict):
    when: Condition
    image: str


class Router(Strict):
    program: str
    port: int
    flags: list[str]


class PD(Strict):
    ports: dict[str, int]
    bootstrap_port: int
    router: Router


class CalculatorConsts(Strict):
    default_avg_len: int = Field(gt=0)
    common_lengths: list[int]
    kda_layers: int
    kda_heads: int
    head_dim: int
    conv_kernel: int
    mla_layers: int
    mla_kv_width: int
    draft_kv_bytes: int


class ModelFile(Strict):
    id: str
    name: str
    summary: str
    hardware: list[str]
    roles: list[Role]
    strategies: list[StrategyDef]
    rounds: list[Round] = []
    enumerate: list[str] = []
    model_names: list[NameRule]
    docker_images: list[ImageRule]
    placeholders: dict[str, str]
    pd: PD
    calculator: CalculatorConsts
    branch_env: dict[str, str] = {}


# --- recipes/<model>/cells.yaml

class Match(Strict):
    hw: str
    role: str
    strategy: str


class Cell(Strict):
    match: Match
    nodes: int = Field(ge=1)
    status: Status
    verified_in: str | None = None
    collapse_pp: bool = False
    redirect: str | None = None
    warn: str | None = None
    env: list[str] = []
    flags: list[str]
    pins: dict[str, str] = {}

    @field_validator("env")
    @classmethod
    def _env_is_assignment(cls, value: list[str]) -> list[str]:
        for item in value:
            if "=" not in item or not item.split("=", 1)[0]:
                raise ValueError(f"env entry '{item}' is not NAME=VALUE")
        return value


class CellsFile(Strict):
    cells: list[Cell]


# --- recipes/<model>/overlays.yaml and playground.yaml

class Option(Strict):
    id: str
    label: str
    strip: list[str] = []
    add: list[str] = []
    env: list[str] = []
    strip_env: list[str] = []
    hints: list[str] = []


class DefaultRule(Strict):
    when: Condition
    value: str


class Axis(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: str
    card: str | None = None
    default: str | None = None
    default_by: list[DefaultRule] = []
    show_when: Condition = {}
    options: list[Option] = Field(min_length=1)


class AxesFile(Strict):
    axes: list[Axis]


# --- recipes/<model>/rules.yaml

class Gate(Strict):
    id: str
    when: Condition
    disable: dict[str, list[str]] = {}
    hide: dict[str, list[str]] = {}
    reason: str | None = None


class Transform(Strict):
    id: str
    when: Condition = {}
    for_: dict[str, str | list[str]] | None = Field(default=None, alias="for")
    strip: list[str] = []
    strip_env: list[str] = []
    add: list[str] = []
    env: list[str] = []
    hints: list[str] = []
    insert_after: list[str] = []
    nodes: str | None = None


class CalcRule(Strict):
    id: str
    when: Condition
    reason: str


class Check(Strict):
    id: str
    severity: Severity
    when: Condition
    message: str
    flags: list[str] = []
    flags_from_env: list[str] = []


class Knob(Strict):
    id: str
    label: str
    flag: str | None = None
    also: list[str] = []
    show_when: Condition = {}


class Effective(Strict):
    knob: str
    source: Literal["auto", "forced", "default"]
    value: str | None = None
    value_text: str | None = None
    because: str
    override: bool = False
    when: Condition


class RulesFile(Strict):
    gates: list[Gate] = []
    transforms: list[Transform] = []
    calculator: list[CalcRule] = []
    checks: list[Check] = []
    knobs: list[Knob] = []
    effective: list[Effective] = []


# --- recipes/<model>/benchmarks.yaml

class BenchRow(Strict):
    isl: int
    osl: int
    concurrency: int
    ttft_ms: float
    tpot_ms: float
    tok_s_gpu: float


class BenchResult(Strict):
    match: dict[str, str]
    round: str
    rows: list[BenchRow]


class BenchmarksFile(Strict):
    command: str
    num_prompts_by_concurrency: dict[int, int]
    results: list[BenchResult]
