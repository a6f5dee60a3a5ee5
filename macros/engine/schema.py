"""Pydantic models of the recipe database files (the shape maintainers write).

Owns field names, types, the per-file structural checks (``extra="forbid"``) and every value
domain: categorical attributes are closed sets, counts, sizes, ports and lengths have bounds,
ints, floats and bools are strict (no ``"8"`` for 8, no NaN). The request-length bounds are
exported with the calculator constants, so the CLI and the Playground read the same ones.
References between files (a cell naming a hardware id, a text id with no Korean) are checked
in ``database.py``, which has all files at hand. Must not do I/O.

Size: one model class per file of the database, and the value domains they share (bounds,
closed sets, the condition type); split by file, every part would import the shared domains
back, and a maintainer reads one file's shape in one place.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, PrivateAttr,
                      computed_field, field_validator, model_validator)

from macros.engine.conditions import ALWAYS, Node, parse

# A ``when`` mapping, parsed into its tree as the file loads; its shape and names are checked
# in validate.py (condition_check.check), the export ships ``Node.json``.
Condition = Annotated[Node, PlainValidator(parse), PlainSerializer(lambda n: n.json(),
                                                                   return_type=list)]

# Request lengths (tokens) the calculator accepts: from --avg-len, --set avg_len=, a page's
# macro call and the Playground's URL hash and input box (via the export).
AVG_LEN_MIN = 1
AVG_LEN_MAX = 10_000_000
MAX_NODES = 1024  # far above any deployment a recipe documents; 10**24 is a typo

Count = Annotated[int, Field(ge=1)]
Port = Annotated[int, Field(ge=1, le=65535)]
AvgLen = Annotated[int, Field(ge=AVG_LEN_MIN, le=AVG_LEN_MAX)]
Measured = Annotated[float, Field(gt=0, allow_inf_nan=False)]  # a benchmark figure
NonEmpty = Annotated[str, Field(min_length=1)]


class Strict(BaseModel):
    # strict: YAML already gives ints, floats and bools their own types, so a quoted "8" or a
    # float where a count belongs is a mistake, not something to coerce.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


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

# Closed sets: a rule tests these by value, so a new or misspelt one ("Blackwell") would switch
# rules off in silence. A new family is added here, with the rules that need it.
Arch = Literal[
    "blackwell",  # SM100/103 data-centre parts and the SM120/121 workstation ones (tell by sm)
    "hopper",
    "ada", "ampere",  # SM89 cards (RTX 4090, RTX 6000 Ada …), SM86 cards (RTX 3090, RTX 3060)
    "cdna3",  # MI300X (gfx942)
    "cdna4",
    "ascend",
]
Fabric = Literal[
    "nvlink",  # one 8-GPU NVLink box
    "mnnvl",  # a multi-node NVLink rack (GB200, GB300)
    "pcie",  # cards with no GPU-to-GPU link: they reach each other over the PCIe bus
    "roce",  # one GPU per node: nodes pair up over RDMA Ethernet (DGX Spark's ConnectX-7)
    "xgmi",  # AMD Infinity Fabric
    "hccs",  # Huawei Ascend
]


class Platform(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    label: NonEmpty
    vendor: Vendor = Field(strict=False)  # strict mode would want an Enum object, not its value
    arch: Arch
    sm: int | None = Field(default=None, ge=10, le=999)
    gfx: str | None = Field(default=None, pattern=r"^gfx[0-9a-f]{3,4}$")
    hbm_gb: int | None = Field(default=None, ge=1, le=4096)
    devices_per_card: int | None = Field(default=None, ge=1, le=16)
    gpus_per_node: int = Field(ge=1, le=128)
    fabric: Fabric
    resource: str | None = Field(default=None, pattern=r"^[a-z0-9.-]+/[A-Za-z0-9._-]+$")  # the
    # device plugin's resource where it is not the vendor's (containers.vendors.*.resource)


class VendorRun(Strict):
    """How ``docker run`` hands one vendor's accelerators to a container."""

    args: list[NonEmpty] = Field(min_length=1)  # docker run options, as a shell reads them
    # One option per accelerator device of a node, ``{index}`` counting from 0 (Ascend maps
    # every die: gpus_per_node × devices_per_card of them).
    per_device: str | None = Field(default=None, pattern=r"\{index\}")
    host_network: bool = False  # the vendor's transport needs the host's network (RDMA)
    # site/deploy.py: the device-plugin resource a pod asks (one per device), the Compose
    resource: str = Field(pattern=r"^[a-z0-9.-]+/[A-Za-z0-9._-]+$")
    gpus: dict[str, str | list[str]] | None = None  # device reservation standing for --gpus
    release_image: str | None = Field(default=None, pattern=r"\{release\}")  # a release's image


class Kubernetes(Strict):
    """What the Kubernetes manifests name that no command does (site/kube.py): the claim
    holding the model cache, which every pod mounts, and the Secret a passed-through variable
    (``--env NAME``) is read from, under the key NAME."""

    cache_claim: str = Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)
    cache_size: str = Field(pattern=r"^[0-9]+(Ki|Mi|Gi|Ti|Pi)?$")
    cache_access: Literal["ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteOncePod"]
    token_secret: str = Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=253)


class Containers(Strict):
    """What every ``docker run`` line of a recipe is made of (macros/site/runmodes.py): the shared
    options, how the server's port reaches the host, the Hugging Face cache and token, the
    command's environment, and each vendor's own options."""

    shared: list[NonEmpty] = Field(min_length=1)
    publish: str = Field(pattern=r"\{port\}")  # a one-node server that is no PD server
    host_network: NonEmpty  # instead, for multi-node and PD servers and vendors that need it
    cache: list[NonEmpty] = []
    env: NonEmpty  # the option that passes one NAME=value of the command's environment
    vendors: dict[Literal["nvidia", "amd", "huawei"], VendorRun] = Field(min_length=1)
    # Every docker run option a recipe line may use (generated or hand-written), with whether
    # it takes a value; `recipes check` refuses any other.
    run_flags: dict[Annotated[str, Field(pattern=r"^--?[a-z][a-z0-9-]*$")], bool] = Field(
        min_length=1)
    kubernetes: Kubernetes


class HardwareFile(Strict):
    platforms: list[Platform] = Field(min_length=1)
    containers: Containers


# --- recipes/catalog/placeholders.yaml

# What a reader's value for a placeholder may look like, as a JavaScript-compatible pattern. None
# of them admits a character the shell treats specially, so a command with the reader's values
# filled in is still the command bash reads (checked in tests/test_reader_values.py).
READER_KINDS = {
    "host": r"^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$",  # an IPv4 address or a host name
    "rank": r"^[0-9]{1,4}$",
    "nic": r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}$",  # an interface name (Linux: 15 characters)
    "path": r"^[A-Za-z0-9_./~-]{1,255}$",
    "list": r"^[A-Za-z0-9_.:-]+(?:,[A-Za-z0-9_.:-]+)*$",  # names joined by commas (mlx5_0:1,mlx5_1:1)
}
ReaderKind = Literal[tuple(READER_KINDS)]
_TOKEN = r"^<[a-z0-9][a-z0-9.-]*>$"


class ReaderValue(Strict):
    """One thing the reader fills into commands, under every spelling the data gives it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    tokens: list[Annotated[str, Field(pattern=_TOKEN)]] = Field(min_length=1)
    text: str  # what it stands for (a text id of the catalog)
    kind: ReaderKind
    # what a deployment file fills in (site/servers.py; None: the reader's value)
    deploy: Literal["leader", "rank", "self", "prefill", "decode"] | None = None


class PlaceholdersFile(Strict):
    placeholders: list[ReaderValue] = []


# --- recipes/<model>/model.yaml

class DimensionOption(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    label: str
    # Offered only where this holds, read over the earlier dimensions (a strategy that exists
    # for one role only, say); hidden elsewhere, never greyed out.
    when: Condition = ALWAYS


class Dimension(Strict):
    """One of the ordered keys of a model's cells, after the hardware (which every model has)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: str
    options: list[DimensionOption] = Field(min_length=1)


_DATE = r"^20[0-9]{2}-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?$"  # 2026-11 or 2026-11-30


class Round(Strict):
    """A verification record: what ran, on which build, when, where and by whom; a field the
    reference does not say is left out and shown as unknown (issue #24)."""

    id: str
    version: str  # as the round's notes name the build ("v0.5.18 @ 71de97b2", "PR #25820")
    sglang: str | None = None  # the release it ran on, when the build is one (0.5.18)
    # a text id that names the build in prose, in each language, when ``version`` is words
    # rather than a build ("not recorded upstream")
    text: str | None = None
    notes: list[str] = []
    image: NonEmpty | None = None  # the image it ran in
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None
    date: Annotated[str, Field(pattern=_DATE)] | None = None
    hardware: list[str] = []  # the platforms it ran on (else those of its results)
    by: NonEmpty | None = None  # who ran it: a team, or a link to the run


class NameRule(Strict):
    when: Condition
    name: str


class BranchValue(Strict):
    """A flag value only one branch image has: valid in a command for that image only."""

    image: NonEmpty  # one of the model's docker_images that names no release (a branch build)
    why: NonEmpty  # what in that image reads it


class ImageRule(Strict):
    when: Condition
    # the published image; left out where none is published (a platform given the Python form
    # only: its pages print the model's ``install`` route in place of a docker command)
    image: NonEmpty | None = None
    # the SGLang release the image ships ("0.5.19"; "latest" for a tag that follows the newest
    # release); left out for a branch build, whose commands are written for the pinned release
    sglang: str | None = None
    # docker run options the image needs where this rule matches (a platform's, say), printed
    # after the vendor's; each one an option of hardware.yaml's containers.run_flags
    args: list[str] = []


class InstallRule(Strict):
    """How to install what the server command runs, where no image is published for the
    selection: the shell commands, in order (``pip install …``), as the reference gives them."""

    when: Condition
    commands: list[NonEmpty] = Field(min_length=1)


class Fact(Strict):
    """One line of what the model is (the quick start's facts): a label and its value, as a
    text id (``text``, worded per language) or a literal kept as written (``value``)."""

    label: str
    text: str | None = None
    value: NonEmpty | None = None

    @model_validator(mode="after")
    def _one_value(self):
        if (self.text is None) == (self.value is None):
            raise ValueError("a fact has exactly one of 'text' (a text id) and 'value' (a "
                             "literal kept as written)")
        return self


class Router(Strict):
    program: str
    port: Port
    flags: list[str]


class PDServer(Strict):
    """What makes a command a prefill or a decode server, and how it serves."""

    when: Condition
    port: Port
    label: str  # text id naming the server in the PD banner


class PD(Strict):
    """PD disaggregation as a capability a model declares: which selections are prefill and
    decode servers (any dimension or Playground option may say so), their ports, the bootstrap
    port and the router in front of both. A model without PD leaves ``pd`` out."""

    prefill: PDServer
    decode: PDServer
    bootstrap_port: Port
    router: Router

    @property
    def ports(self) -> dict[str, int]:
        return {"prefill": self.prefill.port, "decode": self.decode.port}

    def servers(self) -> dict[str, PDServer]:
        return {"prefill": self.prefill, "decode": self.decode}


class CalcCase(Strict):
    when: Condition
    value: str | int | float  # an expression over constants and earlier values (text: as is)


class CalcValue(Strict):
    """One value a calculator works out for a command, in order: the first value of ``flag``
    when the command sets it (a whole number, or any text for a ``text`` value), else the first
    case whose ``when`` holds, else ``default``."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    flag: str | None = None
    text: bool = False
    cases: list[CalcCase] = []
    default: str | int | float


CalcId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]


class Calculator(Strict):
    """One calculator of a model, as data: what it reads from a command, its constants, the
    formula and the flag its result is pinned as (by a rule using ``{calc.<id>}``)."""

    id: CalcId  # rules name it: calculator.<id> in a when, {calc.<id>} in a template
    label: str  # text id of its title
    pins: str
    explain: list[str] = []  # text ids whose {fields} are value ids, shown with the result
    constants: dict[str, Annotated[float, Field(allow_inf_nan=False, strict=False)]] = {}
    values: list[CalcValue] = Field(min_length=1)
    applies_when: Condition = ALWAYS
    formula: str  # an expression over constants, values and avg_len


# A calculator's constant is a physical size or count of the model: finite, positive, written
# with at most 15 significant digits (what a float holds exactly) and between these magnitudes.
CONSTANT_DIGITS = 15
CONSTANT_RANGE = (1e-15, 1e15)


def constant_problem(number: float) -> str | None:
    """Why ``number`` cannot be a calculator's constant, or None."""
    import math
    if not math.isfinite(number):
        return "a constant must be a finite number"
    if number <= 0:
        return "a constant must be a positive number (a size, a count or a ratio of the model)"
    lo, hi = CONSTANT_RANGE
    if not lo <= number <= hi:
        return f"a constant must be from {lo:g} to {hi:g}"
    mantissa = repr(float(number)).lower().split("e")[0].replace(".", "").replace("-", "")
    if len(mantissa.strip("0")) > CONSTANT_DIGITS:
        return f"a constant has at most {CONSTANT_DIGITS} significant digits"
    return None


class RequestLength(Strict):
    """The average request length (tokens) a model's calculators read as ``avg_len``: the
    Playground's input, ``--set avg_len=`` and a page's macro argument."""

    default: AvgLen
    common: list[AvgLen] = Field(min_length=1)  # offered in the Playground's input list

    @computed_field  # exported: the Playground's hash reader and input box use these
    @property
    def min(self) -> int:
        return AVG_LEN_MIN

    @computed_field
    @property
    def max(self) -> int:
        return AVG_LEN_MAX


# Content kinds the docs stand-in can take apart (tests/standin); video or audio needs its part
# parser there first.
InputKind = Literal["text", "image"]
Effort = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]


class Reasoning(Strict):
    """How the model's thinking reaches an OpenAI client once its reasoning parser has split it
    off (into ``reasoning_content``)."""

    parser: NonEmpty  # a choice of --reasoning-parser (checked in database.py)
    efforts: list[Effort] = Field(min_length=1)  # the values ``reasoning_effort`` takes
    default_effort: Effort  # applied when a request names none
    # A ``chat_template_kwargs`` key a request sets to true to turn thinking on (off is the
    # model's non-thinking mode); without one the model always thinks.
    switch: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")


class Api(Strict):
    """What a server of the model accepts and answers through the OpenAI API: the docs
    stand-in serves every served name this way, so a page's client examples run as written."""

    inputs: list[InputKind] = Field(min_length=1)
    # Served names (of model_names) that take other inputs, such as a vision variant's.
    inputs_by_name: dict[str, list[InputKind]] = {}
    reasoning: Reasoning | None = None  # None: the model never thinks
    tool_call_parser: NonEmpty | None = None  # a choice of --tool-call-parser; None: no tool calls


Cli = Literal["llm", "diffusion"]  # served through sglang.json's CLI or sglang-diffusion.json's


class RequestTask(Strict):
    """One kind of request the server takes (text to video, first frame to video, a video
    reference …): its fields over the shared body (a key it gives replaces the shared one), the
    selections whose server takes it (``when``: a checkpoint partition, say) and its label."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    label: str  # a text id, worded in both languages
    when: Condition = ALWAYS
    body: dict[str, Any] = Field(min_length=1)


class MediaRequest(Strict):
    """A diffusion job (video-job): POST body+model to endpoint, poll endpoint/<id>, get content.
    ``body`` is what every request carries; each of ``tasks`` a kind of request with its own
    fields. A selection's request is the first task its server takes (the body alone without
    tasks)."""
    kind: Literal["video-job"]
    endpoint: str = Field(pattern=r"^/v1/[a-z][a-z0-9/_-]*[a-z0-9]$")
    body: dict[str, Any] = Field(min_length=1)
    tasks: list[RequestTask] = []

    def body_of(self, task: str | None) -> dict[str, Any]:
        """The full body of ``task`` (None: the shared body alone)."""
        own = next((t.body for t in self.tasks if t.id == task), {}) if task else {}
        return {**self.body, **own}


class ModelFile(Strict):
    id: str
    cli: Cli = "llm"  # the CLI that serves it: its cells' flags are checked by that catalog
    name: str
    summary: str
    about: list[Fact] = []  # what the model is, above the quick start; checkpoints are added
    hardware: list[str] = Field(min_length=1)
    # The ordered keys of a cell after the hardware: a cell is one value per dimension.
    dimensions: list[Dimension] = []
    rounds: list[Round] = []
    enumerate: list[str] = []
    model_names: list[NameRule]
    api: Api | None = None  # an LLM's OpenAI API (validate.py: required for cli llm)
    request: MediaRequest | None = None  # a diffusion model's request (required for diffusion)
    docker_images: list[ImageRule]
    install: list[InstallRule] = []  # needed by a selection whose image rule names no image
    placeholders: dict[str, str]
    pd: PD | None = None
    calculators: list[Calculator] = []  # a model without one shows no panel or caveat
    request_length: RequestLength | None = None  # needed when a calculator reads avg_len
    branch_env: dict[str, str] = {}
    # flag -> value -> who reads it: values the pinned release refuses but the model's branch
    # (or image) accepts. A missing reason (None) is told apart in database.py, which says
    # what to write; it checks the rest against the catalog too.
    branch_values: dict[str, dict[str, str | BranchValue | None]] = {}


# --- recipes/<model>/cells.yaml

class Cell(Strict):
    match: dict[str, str]  # the hardware and one option of every dimension the model declares
    nodes: int = Field(ge=1, le=MAX_NODES)
    # the GPUs the recipe uses on each node, when fewer than its platform has (4 of a B200
    # node's 8, say); the footprint is nodes × this (validate.py: at most the platform's)
    gpus_per_node: int | None = Field(default=None, ge=1, le=128)
    status: Status = Field(strict=False)
    verified_in: str | None = None
    collapse_pp: bool = False
    redirect: str | None = None
    warn: str | None = None
    env: list[str] = []
    flags: list[str]
    pins: dict[str, str] = {}
    # Settings (axis → option) of the runs that verified this cell beyond its defaults; a
    # verified cell's command with other settings is shown as derived from it.
    verified_with: list[dict[str, str]] = []

    @field_validator("env")
    @classmethod
    def _env_is_assignment(cls, value: list[str]) -> list[str]:
        for item in value:
            if "=" not in item or not item.split("=", 1)[0]:
                raise ValueError(f"env entry '{item}' is not NAME=VALUE")
        return value


class CellsFile(Strict):
    cells: list[Cell] = Field(min_length=1)


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
    show_when: Condition = ALWAYS
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
    when: Condition = ALWAYS
    for_: dict[str, str | list[str]] | None = Field(default=None, alias="for")
    strip: list[str] = []
    strip_env: list[str] = []
    add: list[str] = []
    env: list[str] = []
    hints: list[str] = []
    insert_after: list[str] = []
    nodes: str | None = None


class CalcRule(Strict):
    """Where a calculator does not apply, and the reason a reader is shown."""

    id: str
    calculator: CalcId
    when: Condition
    reason: str


class Check(Strict):
    id: str
    severity: Severity = Field(strict=False)
    when: Condition
    message: str
    flags: list[str] = []
    flags_from_env: list[str] = []


class Knob(Strict):
    id: str
    label: str
    flag: str | None = None
    also: list[str] = []
    show_when: Condition = ALWAYS


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

# Which statistic a result's TTFT and TPOT figures are (bench_serving prints both).
Percentile = Literal["p50", "mean"]
# How a score reads; "percent" scores lie in 0-100 (database.py checks it against the unit a
# benchmark declares), "points" is any finite score on the benchmark's own scale.
ScoreUnit = Literal["percent", "points"]


def _plain(value: float) -> str:
    """A figure the loader saw no spelling for (built in code): every digit it has."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class Figures(Strict):
    """A record of measured figures that keeps each one as its file writes it: YAML reads
    "33.10" and "64.0" as numbers (33.1, 64), and a table shows what was measured, trailing
    zeros included. The loader fills the spellings in (database._keep_spelling); a record built
    in code has none and shows every digit its number has."""

    _written: dict[str, str | list[str | None]] = PrivateAttr(default_factory=dict)

    def _value(self, name: str):
        return getattr(self, name, None)

    def written(self, name: str) -> str | list[str] | None:
        """The figure ``name`` as its file writes it (a range: its two ends; None: no figure)."""
        value = self._value(name)
        if value is None:
            return None
        spelled = self._written.get(name)
        if isinstance(value, list):
            spelled = spelled if isinstance(spelled, list) else [None] * len(value)
            return [w or _plain(v) for w, v in zip(spelled, value)]
        return spelled if isinstance(spelled, str) else _plain(value)


class BenchRow(Figures):
    isl: AvgLen
    osl: AvgLen
    concurrency: int = Field(ge=1, le=1_000_000)
    num_prompts: Count | None = None  # when not the file's count for this concurrency
    ttft_ms: Measured
    tpot_ms: Measured
    tok_s_gpu: Measured


class BenchWorkload(Strict):
    """How bench_serving sent the requests of every speed row; with a row's lengths,
    concurrency and prompt count it is that row's reproduce command."""

    # the datasets whose requests have exactly the row's lengths (at a range ratio of 1.0)
    dataset: Literal["random", "random-ids"]
    random_range_ratio: float = Field(ge=0, le=1, allow_inf_nan=False)
    # None: the command leaves --warmup-requests out (bench_serving's own default ran)
    warmup_requests: int | None = Field(default=None, ge=0, le=1_000_000)
    flush_cache: bool


class AccuracyBenchmark(Strict):
    label: str
    unit: ScoreUnit


class AccuracyScore(Figures):
    benchmark: str
    score: float = Field(allow_inf_nan=False)
    unit: ScoreUnit | None = None  # when given, the unit its benchmark declares


# The units a measured metric is given in: each has a symbol (``bench.unit.<unit>``, the same in
# both languages) the table's header prints after the metric's label.
MetricUnit = Literal["s", "ms", "s-per-step", "mb", "gb", "gib", "db", "ratio", "times", "percent"]
# A measured value: a number, or the [low, high] of a range the source gives ("18.03–18.04 s")
MetricValue = Annotated[float, Field(allow_inf_nan=False)] | Annotated[
    list[Annotated[float, Field(allow_inf_nan=False)]], Field(min_length=2, max_length=2)]


class Metric(Strict):
    """A quantity a model's results measure (end-to-end seconds, peak memory per GPU, SSIM …):
    its label (a text id, worded in both languages), its unit and which way is better."""

    label: str
    unit: MetricUnit
    better: Literal["lower", "higher"]


class MeasuredRow(Figures):
    """One row of a result's measured table: what was run (a text id in ``text``, or a literal
    kept as written in ``value``: "TP2 + Ulysses2") and its value of each metric it measured
    (a metric it did not measure is left out and shown as a dash)."""

    text: str | None = None
    value: NonEmpty | None = None
    values: dict[str, MetricValue] = Field(min_length=1)

    def _value(self, name: str):
        return self.values.get(name)

    @model_validator(mode="after")
    def _one_label(self):
        if (self.text is None) == (self.value is None):
            raise ValueError("a measured row names what ran with exactly one of 'text' (a text "
                             "id) and 'value' (a literal kept as written)")
        return self


class BenchResult(Strict):
    match: dict[str, str]  # the cell's dimensions and the Playground settings it ran with
    round: str | None = None
    # The release it ran on, one of the flag history's; none for a round on a build between
    # releases (its reproduce commands then hold on every release).
    sglang: NonEmpty | None = None
    # What the run set on top of the recipe command of its selection: a flag replaces the
    # recipe's value of that flag or is added; NAME=VALUE likewise.
    extra_flags: list[str] = []
    extra_env: list[str] = []
    latency_percentile: Percentile | None = None  # when not the file's
    rows: list[BenchRow] = []
    accuracy: list[AccuracyScore] = []
    # rows of the metrics the file declares (``metrics``): any kind of model's measurements
    measured: list[MeasuredRow] = []
    notes: list[str] = []
    # announced upstream with no numbers yet: no rows, no scores, no build; shown as pending
    pending: bool = False


class BenchmarksFile(Strict):
    workload: BenchWorkload | None = None  # needed once a result has speed rows
    num_prompts_by_concurrency: dict[Count, Count] = {}
    latency_percentile: Percentile | None = None  # needed once a result has speed rows
    accuracy_benchmarks: dict[str, AccuracyBenchmark] = {}
    # the metrics the results' measured rows give, in the order their columns are shown
    metrics: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], Metric] = {}
    results: list[BenchResult] = Field(min_length=1)


# --- recipes/catalog/migrations.yaml

class MigrationEntry(Strict):
    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]
    flag: str  # the deprecated flag (one without a value)
    rename: dict[str, str] = Field(min_length=1)  # partner flag -> its new name
    default: dict[str, str] = {}  # new name -> value when the partner is absent


class VerificationFile(Strict):
    """recipes/catalog/verification.yaml: when a verification record goes stale."""

    releases_behind: int = Field(ge=0, le=1000)
    meaning: list[str] = Field(min_length=1)
    switch_meaning: list[str] = []


class MigrationsFile(Strict):
    migrations: list[MigrationEntry] = []
