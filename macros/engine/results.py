"""The result types of the engine: what ``resolve`` answers and ``check`` finds.

Owns the shapes that travel from the composer to the CLI, the pages, the export and the tests
(``Resolution`` and its parts, ``Diagnostic``, ``TextRef``), so the composer and the checker
both import them from here and neither imports the other's module for a type. Must not
compute anything.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from macros.engine.errors import RecipeError
from macros.engine.flags import Flag
from macros.engine.schema import Severity, Source


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextRef(Frozen):
    """A reader-visible message by id, with the fields to fill in."""

    id: str
    fields: dict[str, str] = {}


class Diagnostic(Frozen):
    severity: Severity
    rule: str
    message: TextRef
    flags: list[str] = []


class EffectiveValue(Frozen):
    knob: str
    label: str
    value: str | None
    value_text: str | None = None
    source: Source
    because: str | None = None
    flag: str | None = None


class OptionState(Frozen):
    id: str
    state: str  # enabled | disabled | hidden
    reason: str | None = None
    # what the reason's text names (the platforms with a cell …); a TextRef is rendered first
    fields: dict[str, Any] = {}


class AxisState(Frozen):
    axis: str
    visible: bool
    value: str | None
    options: list[OptionState]


class Caveat(Frozen):
    kind: str  # derived | redirect | warn | pin | calculator | round | migrated | release | stale
    text: TextRef
    flag: str | None = None


class Calculation(Frozen):
    """One calculator's answer for a command: the value it pins ``pins`` to, or why it does
    not apply (``reason``, a text) — or neither, when the command's own shape gives no value
    (an attention TP that does not divide the heads, say)."""

    id: str
    pins: str
    value: str | None  # as pinned into the command
    exact: float | None
    reason: TextRef | None


class Resolution(Frozen):
    model: str
    hw: str
    match: dict[str, str]  # the cell: the hardware and one option per dimension
    pd: str | None  # "prefill" or "decode" for a PD server, else None
    # The status the reader is shown: the cell's, or "derived" where the cell is verified but
    # this command is none of the commands its verifying round ran (``Cell.verified_with``).
    status: str
    cell_status: str
    verified_in: str | None
    nodes: int
    gpus_per_node: int  # the cell's GPUs on each node (its platform's unless it uses fewer)
    picks: dict[str, str | None]
    avg_len: int | None  # the request length the calculators read (None: the model has none)
    model_name: str
    docker_image: str | None  # None: none is published for the selection (Python only)
    docker_args: list[str]  # the image's own docker run options here (after the vendor's)
    install: list[str] = []  # where no image is published: the commands that install SGLang
    # a diffusion model's request: the first of its request tasks this selection's server takes
    request: str | None = None
    requests: list[str] = []  # every request task the selection's server takes, in order
    sglang: str  # the release the command is written for: its image's, else the pinned one
    # the consecutive releases around it that accept every flag (None: it refuses one)
    sglang_span: tuple[str, str] | None
    sglang_default: str | None = None  # the release of the cell's image (when another is chosen)
    # a branch build's own values the command uses (then valid in that image only, no range)
    sglang_image: str | None = None
    branch_only: list[str] = []
    record: Any = None  # records.Record of a verified or in-progress cell (its round)
    hints: list[TextRef]
    env: list[str]
    program: str
    flags: list[Flag]
    router: list[list[Flag]] | None
    router_program: str | None
    calculations: list[Calculation]  # one per calculator of the model, in its order
    caveats: list[Caveat]
    diagnostics: list[Diagnostic]
    effective: list[EffectiveValue]
    axes: list[AxisState]

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    @property
    def flag_texts(self) -> list[str]:
        return [f.text() for f in self.flags]

    def calculation(self, calc_id: str) -> Calculation:
        return next(c for c in self.calculations if c.id == calc_id)


class SelectionError(RecipeError):
    """An impossible selection, with what would be possible."""
