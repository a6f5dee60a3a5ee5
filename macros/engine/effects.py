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

from typing import Any

from macros.engine.model import Database
from macros.engine.resolve import resolve
from macros.engine.results import AxisState, OptionState, Resolution, TextRef
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


def memo_key(flat: dict) -> tuple:
    """A flat selection's key in a probe's ``memo`` (probe_options): its sorted items."""
    return tuple(sorted(flat.items()))


def probe_options(db: Database, sel: Selection, res: Resolution,
                  only: set[str] | None = None,
                  memo: dict | None = None) -> dict[str, dict[str, str]]:
    """Setting id -> {option: reason} for its enabled options that would show the reader the
    same result (NO_EFFECT) or add an error finding (REFUSED); ``only``: these settings.
    ``memo``: a dict a caller probing many selections passes to each call, so a selection one
    setting away from several others is resolved once (keyed by ``memo_key``)."""
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
            near = {**flat, axis.axis: option.id}
            key = memo_key(near)
            other = memo.get(key) if memo is not None else None
            if other is None:
                other = resolve(db, Selection.flat(model, near), strict=False)
                if memo is not None:
                    memo[key] = other
            if other.picks.get(axis.axis) != option.id:
                continue
            if signature(other) == mine:
                out.setdefault(axis.axis, {})[option.id] = NO_EFFECT
            elif _errors(other) - errors:
                out.setdefault(axis.axis, {})[option.id] = REFUSED
    return out


def explain(db: Database, sel: Selection, res: Resolution, axis_id: str, option: str,
            reason: str) -> tuple[str, dict[str, Any]]:
    """What a probed option's reason names, as (text id, fields): for an idle one, the setting
    of its card that would give it an effect (gate.no-effect.with), else the platforms where it
    has one (gate.no-effect.on), else the current choice it equals (gate.no-effect.same); for a
    refused one, the finding SGLang's check would add (gate.refused.why). Mirrored by
    playground/effects.js explainOption; asked only where a reader reads the reason."""
    model = db.model(sel.model)
    flat = {**res.match, **{k: v for k, v in res.picks.items() if v is not None}}
    if res.avg_len is not None:
        flat["avg_len"] = res.avg_len
    labels = {a.id: a for a in model.axes}
    if reason == REFUSED:
        other = resolve(db, Selection.flat(model, {**flat, axis_id: option}), strict=False)
        new = [d for d in other.diagnostics
               if d.severity.value == "error" and d.rule not in _errors(res)]
        return ("gate.refused.why", {"why": new[0].message}) if new else (REFUSED, {})
    card = labels[axis_id].card if axis_id in labels else None
    mates = [(a, o.id) for a in labels.values() if card is not None and a.card == card
             and a.id != axis_id for o in a.options]  # the settings of its card, all options
    for a, o in mates:
        if o != flat.get(a.id) and _changes(db, model, {**flat, a.id: o}, a.id, o, axis_id, option):
            return "gate.no-effect.with", {"setting": f"@{a.label}",
                                           "value": _option_label(model, a.id, o)}
    here = flat.get("hw")
    others = [h for h in model.info.hardware if h != here]
    platforms = [db.platforms[h].label for h in others
                 if _changes(db, model, {**flat, "hw": h}, "hw", h, axis_id, option)]
    if platforms:
        return "gate.no-effect.on", {"platforms": ", ".join(platforms)}
    for a, o in mates:  # a setting of its card on another platform
        platforms = [db.platforms[h].label for h in others
                     if _changes(db, model, {**flat, "hw": h, a.id: o}, a.id, o, axis_id, option)]
        if platforms:
            return "gate.no-effect.with-on", {"setting": f"@{a.label}", "platforms": ", ".join(
                platforms), "value": _option_label(model, a.id, o)}
    current = next(a.value for a in res.axes if a.axis == axis_id)
    return "gate.no-effect.same", {"current": _option_label(model, axis_id, current)}


def command_key(res: Resolution) -> tuple:
    """What a reader copies and runs: the flags, the environment and the router."""
    return (tuple((f.name, tuple(f.values)) for f in res.flags), tuple(res.env),
            tuple(tuple((f.name, tuple(f.values)) for f in group) for group in res.router or ()))


def same_command(db: Database, sel: Selection, res: Resolution,
                 release: str | None = None) -> dict[str, list[str]]:
    """Cell dimension (not the hardware) -> its other options that give this very command here:
    the same platform, the other dimensions and the reader's settings as they are, and the same
    flags, environment and router. Cells a reader could tell apart by their names only (Kimi-K3's
    H200 Balanced is its Low-Latency); the Playground says so under the status
    (playground/effects.js sameCommand), ``recipes command --format json`` lists them.
    ``release``: the release the reader chose, as ``res`` was resolved."""
    model = db.model(sel.model)
    mine, out = command_key(res), {}
    for dim in model.dimensions[1:]:
        for option, _, _ in model.dimension_options[dim]:
            if option == res.match[dim]:
                continue
            want = {**res.match, dim: option}
            other = resolve(db, Selection(model.id, want, sel.picks, sel.avg_len), strict=False,
                            release=release)
            if other.match == want and command_key(other) == mine:
                out.setdefault(dim, []).append(option)
    return out


def _option_label(model, axis_id: str, option: str) -> TextRef:
    found = next(o for o in model.axis_index[axis_id].options if o.id == option)
    return TextRef(id=found.label, fields={"value": option})


def _changes(db, model, flat: dict, fixed: str, value: str, axis_id: str, option: str) -> bool:
    """Whether picking ``option`` of ``axis_id`` changes what the reader sees once ``fixed``
    is ``value`` (both picks kept as asked: a snapped one does not count)."""
    base = resolve(db, Selection.flat(model, flat), strict=False)
    if base.picks.get(fixed, base.match.get(fixed)) != value:
        return False
    other = resolve(db, Selection.flat(model, {**flat, axis_id: option}), strict=False)
    return other.picks.get(axis_id) == option and \
        other.picks.get(fixed, other.match.get(fixed)) == value and \
        signature(other) != signature(base) and not _errors(other) - _errors(base)


def with_probed(res: Resolution, probed: dict[str, dict[str, str]],
                explained: dict[tuple[str, str], tuple[str, dict[str, Any]]] | None = None
                ) -> list[AxisState]:
    """The selection's settings with each probed option greyed for its reason (``explained``:
    the reason with what it names, by (setting, option))."""
    explained = explained or {}

    def greyed(axis_id: str, o: OptionState) -> OptionState:
        reason, fields = explained.get((axis_id, o.id), (probed[axis_id][o.id], {}))
        return OptionState(id=o.id, state="disabled", reason=reason, fields=fields)
    return [a.model_copy(update={"options": [
        greyed(a.axis, o) if o.id in probed.get(a.axis, {}) else o for o in a.options]})
        for a in res.axes]
