"""What a reader picks: a model, one option per cell dimension, and Playground settings.

Owns the ``Selection`` type every caller hands to ``resolve`` (the CLI, the macros, the
enumeration for tests and the parity runner), and the one way to split a flat mapping
(``{"hw": …, "role": …, "quant": …}``, as in a URL hash, a check directive or ``--set``) into
cell dimensions and settings by the model's declared dimensions. Must not resolve anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Selection:
    model: str
    match: Mapping[str, str] = field(default_factory=dict)  # dimension id → option id
    picks: Mapping[str, str] = field(default_factory=dict)  # axis id → option id
    avg_len: int | None = None

    @classmethod
    def flat(cls, model, values: Mapping[str, Any], avg_len: int | None = None) -> "Selection":
        """Split ``values`` by ``model.dimensions``; ``avg_len`` may be one of the values."""
        values = dict(values)
        if "avg_len" in values:
            avg_len = int(values.pop("avg_len"))
        return cls(model.id,
                   {k: str(v) for k, v in values.items() if k in model.dimensions},
                   {k: str(v) for k, v in values.items() if k not in model.dimensions},
                   avg_len)

    def as_flat(self) -> dict[str, str]:
        return {**self.match, **self.picks}
