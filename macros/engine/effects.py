"""Which options of a selection would change nothing, or give a command SGLang refuses, so the
reader is not offered a control that looks active and does nothing or breaks the command.

Owns what "an effect" is: picking an option changes the command (its flags, env, hint lines
or router), a calculator's value or a check's findings. An enabled option of a visible setting
whose pick (as the Playground makes it: an impossible combination snaps) keeps all of those is
*idle* (``gate.no-effect``); one whose command has an error finding the current one has not is
*refused* (``gate.refused``). The Playground greys both with their reason (playground/effects.js
mirrors ``probe_options``), and ``recipes command --format json`` lists them so. Cell
dimensions are not probed: another option always names another cell. Must not change what
resolve decides.
"""

from __future__ import annotations

from macros.engine.model import Database
from macros.engine.resolve import resolve
from macros.engine.results import AxisState, OptionState, Resolution
from macros.engine.selection import Selection

NO_EFFECT = "gate.no-effect"
REFUSED = "gate.refused"


def signature(res: Resolution) -> tuple:
    """What a reader can see change when they pick an option."""
    return (tuple((f.name, tuple(f.values)) for f in res.flags), tuple(res.env),
            tuple((h.id, tuple(sorted(h.fields.items()))) for h in res.hints),
            tuple(tuple((f.name, tuple(f.values)) for f in group) for group in res.router or ()),
            tuple((c.id, c.value, c.reason.id if c.reason else None) for c in res.calculations),
            tuple((d.rule, d.severity.value) for d in res.diagnostics))


def _errors(res: Resolution) -> set[str]:
    return {d.rule for d in res.diagnostics if d.severity.value == "error"}


def probe_options(db: Database, sel: Selection, res: Resolution,
                  only: set[str] | None = None) -> dict[str, dict[str, str]]:
    """Setting id -> {option: reason} for its enabled options that would show the reader the
    same result (NO_EFFECT) or add an error finding (REFUSED); ``only``: these settings."""
    model = db.model(sel.model)
    flat = {**res.match, **{k: v for k, v in res.picks.items() if v is not None}}
    if res.avg_len is not None:
        flat["avg_len"] = res.avg_len
    mine, errors = signature(res), _errors(res)
    out: dict[str, dict[str, str]] = {}
    for axis in res.axes:
        if not axis.visible or (only is not None and axis.axis not in only):
            continue
        for option in axis.options:
            if option.state != "enabled" or option.id == axis.value:
                continue
            other = resolve(db, Selection.flat(model, {**flat, axis.axis: option.id}),
                            strict=False)
            if other.picks.get(axis.axis) != option.id:
                continue
            if signature(other) == mine:
                out.setdefault(axis.axis, {})[option.id] = NO_EFFECT
            elif _errors(other) - errors:
                out.setdefault(axis.axis, {})[option.id] = REFUSED
    return out


def with_probed(res: Resolution, probed: dict[str, dict[str, str]]) -> list[AxisState]:
    """The selection's settings with each probed option greyed for its reason."""
    return [a.model_copy(update={"options": [
        OptionState(id=o.id, state="disabled", reason=probed[a.axis][o.id])
        if o.id in probed.get(a.axis, {}) else o for o in a.options]}) for a in res.axes]
