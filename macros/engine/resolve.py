"""The one command composer: (cell, overlay picks, playground picks) → Resolution.

Owns selection validation and snapping, option gating, the strip/splice edit of the cell's
flags, the rule transforms, the calculators' pinned values, placeholder filling and the effective
configuration. Every caller (CLI, macros, export, tests) goes through ``resolve``, or through
``walk`` for every selection of a model at once (``selections.resolve_all``): the same results,
with the work the selections of a cell share done once. Must not format text for readers
(``render.py``) or parse shell text (``check.py``).

Size: one module on purpose: ``resolve`` and ``walk`` share the private state (``_State``,
``_Tok``), the memo tables and the order of the edits, and the Playground's resolver is kept
equal to this algorithm; split, each half would reach into the other's internals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Collection, Iterator, Mapping

from macros.engine import calculator, records, templates
from macros.engine.conditions import attr as _attr
from macros.engine.catalog import is_placeholder
from macros.engine.check import cell_rules, check_state
from macros.engine.model import Database
from macros.engine.model import Model, branch_in, likely_typo
from macros.engine.errors import Problem, RecipeError, choices_hint
from macros.engine.flags import Flag, env_name, parse_flag_text
from macros.engine.results import (AxisState, Calculation, Caveat, Diagnostic, EffectiveValue, OptionState, Resolution, SelectionError, TextRef)
from macros.engine.schema import Severity
from macros.engine.schema import AVG_LEN_MAX, AVG_LEN_MIN, Axis, Calculator, Cell, Source
from macros.engine.selection import Selection


# The keys the engine answers itself, before a setting of the same name would be read.
_ENGINE_KEYS = frozenset({"nodes", "program", "router_bootstrap", "server_bootstrap"})


@dataclass
class _Tok:
    flag: Flag
    origin: str  # "cell" or "sel"


@dataclass
class _State:
    """The command while it is being composed, and the context rules read."""

    db: Database
    model: Model
    cell: Cell
    cell_flag_map: dict[str, tuple[str, ...]]
    match: dict[str, str]
    picks: dict[str, str | None]
    avg_len: int | None
    toks: list[_Tok] = field(default_factory=list)
    env_items: list[tuple[str, str]] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)  # hint text ids, in the order added
    nodes: int = 1
    not_applicable: list[str] = field(default_factory=list)
    _flag_cache: Any = None
    _calc_cache: dict = field(default_factory=dict)
    _pd: Any = ()
    cell_key: tuple[str, ...] = ()
    cell_rules: Any = None  # check.CellRules: the rules that can hold for the cell
    check_shape: bool = True  # off while composing the verified shapes themselves
    release: str | None = None  # the release to spell the command for, instead of its image's

    @property
    def hw(self) -> str:
        return self.match["hw"]

    def _rules(self, name, rules, when=lambda rule: rule.when) -> tuple:
        """Those of ``rules`` that can hold for this cell (``check.CellRules``)."""
        return self.cell_rules.of(name, rules, when)

    @property
    def pd(self) -> str | None:
        """Which PD server this selection is, by the model's declaration (read once the axes
        are picked: a declaration may name a Playground setting)."""
        if self._pd == ():
            self._pd = pd_server(self.model, self)
        return self._pd

    # -- conditions.Context
    def value(self, key: str) -> Any:
        if key in self.match:
            return self.match[key]
        if key in self.picks and "." not in key and key not in _ENGINE_KEYS:
            value = self.picks[key]  # the most read keys: answered before the engine's own
            return "" if value is None else value
        if key.startswith("hw."):
            return _attr(self.db.platforms[self.hw], key[3:])
        if key.startswith("cell."):
            return _attr(self.cell, key[5:])
        if key == "nodes":
            return self.nodes
        if key.startswith("calculator."):
            calc = self.model.calculator(key[11:])
            if calc is None:
                return None
            applicable = self.calc_reason(calc) is None and self.calc_value(calc) is not None
            return "applicable" if applicable else "not_applicable"
        if key == "program":
            return "server"
        if key in ("router_bootstrap", "server_bootstrap"):
            return None
        if key in self.picks:  # a hidden axis is known to have no value: ""
            value = self.picks[key]
            return "" if value is None else value
        return None  # not picked yet: unknown

    def flags(self) -> dict[str, tuple[str, ...]]:
        cached = self._flag_cache
        if cached is None or cached[0] is not self.toks:
            cached = self._flag_cache = (self.toks, {t.flag.name: t.flag.values for t in self.toks})
        return cached[1]

    def cell_flags(self) -> dict[str, tuple[str, ...]]:
        return self.cell_flag_map

    def env(self) -> dict[str, str]:
        return dict(self.env_items)

    # -- calculators
    def calc_reason(self, calc: Calculator) -> str | None:
        """Why ``calc`` does not apply here: the reason of its first rule that holds."""
        for rule in self._rules("calculator", self.model.rules.calculator):
            if rule.calculator == calc.id and rule.when.holds(self) is True:
                return rule.reason
        return None

    def calc_value(self, calc: Calculator) -> float | None:
        """The value ``calc`` works out for the command as it is now (its own pinned flag left
        out), once per command state, and once per distinct command of the model: selections
        that differ elsewhere often compose the same command."""
        cached = self._calc_cache.get(calc.id)
        if cached is not None and cached[0] is self.toks and cached[1] is self.env_items:
            return cached[2]
        value = None
        if self.calc_reason(calc) is None:
            flags = {k: v for k, v in self.flags().items() if k != calc.pins}
            memo = self.model.cache.setdefault("calc_values", {})
            key = (calc.id, tuple(sorted(flags.items())), tuple(sorted(self.env_items)),
                   self.pd, self.avg_len)
            if key not in memo:
                _, exact, why = calculator.outcome(calc, flags, dict(self.env_items), self.pd,
                                                   self.avg_len)
                if isinstance(why, calculator.Absurd):
                    raise calculator.CalculatorError([Problem(
                        f"{self.model.dir.parent.name}/{self.model.dir.name}/model.yaml", None,
                        None,
                        f"calculator '{calc.id}' gives no value to pin as {calc.pins} for this "
                        f"command (avg_len={self.avg_len}): {why}; bound its formula and "
                        "constants")], calc.id, f"{why} (at avg_len={self.avg_len})")
                memo[key] = exact
            value = memo[key]
        self._calc_cache[calc.id] = (self.toks, self.env_items, value)
        return value

    # -- {expression} names
    def lookup(self, name: str) -> Any:
        if name.startswith("cell.") and name.endswith("_size"):
            flag = "--" + name[5:].replace("_", "-")
            values = self.cell_flag_map.get(flag)
            return int(values[0]) if values else 1
        if name.startswith("sel."):
            return self.picks.get(name[4:])
        if name.startswith("hw."):
            return _attr(self.db.platforms[self.hw], name[3:])  # an enum as its id, as in JSON
        if name.startswith("pd.ports.") and self.model.info.pd:
            return self.model.info.pd.ports[name[9:]]
        if name == "nodes":
            return self.nodes
        if name.startswith("calc."):
            calc = self.model.calculator(name[5:])
            value = self.calc_value(calc) if calc is not None else None
            return calculator.fmt(value) if value is not None else None
        raise templates.ExprError(f"unknown name '{name}'")


def pd_server(model: Model, ctx) -> str | None:
    """"prefill" or "decode" when the model declares PD and ``ctx`` is such a server."""
    if model.info.pd is None:
        return None
    return next((kind for kind, server in model.info.pd.servers().items()
                 if server.when.holds(ctx) is True), None)


def resolve(db: Database, sel: Selection, *, strict: bool = True,
            release: str | None = None) -> Resolution:
    """Compose the command for a selection. ``strict`` raises SelectionError on anything
    impossible; otherwise the selection snaps to the nearest valid one (the Playground's way).
    ``release`` spells it for that sglang release instead of its image's (a benchmark run's)."""
    return _resolve(db, sel, strict, shapes=True, release=release)


def _resolve(db: Database, sel: Selection, strict: bool, shapes: bool,
             release: str | None = None) -> Resolution:
    st, axis_states = _select(db, sel, strict)
    st.check_shape = shapes
    st.release = release
    _compose(st, 0)
    return _finish(st, axis_states)


def _compose(st: _State, start: int) -> None:
    """The option edits of the axes from index ``start`` on, in axis order, then the
    transforms bound to no option."""
    options, (editing, free) = _option_index(st.model), _editing(st.model)
    picks = st.picks
    for axis in st.model.axes[start:]:
        if (axis.id, picks[axis.id]) in editing:  # most picks are options that edit nothing
            _edit_axis(st, options, axis)
    for t in st._rules("free transforms", free):
        if t.when.holds(st) is True:
            _apply_edit(st, t.strip, t.add, t.env, t.strip_env, t.hints, t.insert_after, t.nodes)


def _editing(model: Model) -> tuple[frozenset, tuple]:
    """The (axis, option) pairs whose pick may edit the command (its own edit or transforms
    bound to it), and the transforms bound to no option, in file order."""
    hit = model.cache.get("editing")
    if hit is None:
        hit = model.cache["editing"] = (
            frozenset(k for k, (_, bound, edits) in _option_index(model).items()
                      if bound or edits),
            tuple(t for t in model.rules.transforms if t.for_ is None))
    return hit


def _edit_axis(st: _State, options, axis: Axis) -> None:
    value = st.picks[axis.id]
    if value is None:
        return
    option, bound, edits = options[axis.id, value]
    if bound:
        bound = st._rules(("for", axis.id, value), bound)
    if bound or edits:  # "inherit"/"auto"/"off" options change nothing
        _apply_option(st, option, bound)


def axis_states(db: Database, sel: Selection) -> list[AxisState]:
    """Only the selection step of ``resolve`` (snapping, never raising): what each axis
    offers for this selection. Cheaper than a full resolve when no command is needed."""
    return _select(db, Selection(sel.model, sel.match, sel.picks), False)[1]


def walk(db: Database, model_id: str, branch: Collection[str], compose: bool = True
         ) -> Iterator[tuple[dict[str, str], Resolution | None]]:
    """On every cell, every selection that picks each enabled option of the ``branch`` axes
    (as the cell and the earlier picks gate it; every other axis at its default), as a flat
    mapping, with what ``resolve`` (strict) gives it when ``compose``. The selections of one
    cell share a prefix of picks: the cell's start, the states of the axes picked so far and
    the edits of options that read nothing picked later (``_prefix_safe``) are worked out once
    per prefix, not once per selection."""
    model = db.model(model_id)
    db = db.serving(model)  # the model's CLI: its catalog and releases
    deps, cache = _pick_memo(model)
    safe, options, axes = _prefix_safe(model), _option_index(model), model.axes
    # The axes after the last branch axis: per selection, so picked in one step, memoized by
    # the earlier picks they read (their edits are left to _leaf, which makes them anyway).
    tail = max((i + 1 for i, a in enumerate(axes) if a.id in branch), default=0)
    tail_deps = tuple(sorted({d for a in axes[tail:] for d in deps[a.id]}
                             - {a.id for a in axes[tail:]}))
    tails = model.cache.setdefault("tails", {})
    for cell in model.cells:
        match = _pick_cell(db, model, dict(cell.match), True)
        picker = _cell_state(db, model, match, None, True)  # its command stays the cell's
        composer = _cell_state(db, model, match, None, True)  # the edits made along the prefix
        composer.picks = picker.picks
        states: list[AxisState] = []
        seen: dict = {}  # this cell's results by what they read (_leaf)

        def take(i: int, wanted: str | None, upto: int) -> tuple[tuple, int]:
            """Pick axis ``i`` and, while every edit before it is made, make its edit too;
            the composer's state before it, and the first axis whose edit it now lacks."""
            axis = axes[i]
            state = _pick(picker, axis, wanted, True, deps, cache)
            picker.picks[axis.id] = state.value
            states.append(state)
            saved = composer.toks, composer.env_items, composer.hints, composer.nodes
            if compose and upto == i and safe.get((axis.id, state.value), True):
                composer.hints = list(composer.hints)
                _edit_axis(composer, options, axis)
                upto = i + 1
            return saved, upto

        def undo(i: int, saved: tuple) -> None:
            composer.toks, composer.env_items, composer.hints, composer.nodes = saved
            states.pop()
            del picker.picks[axes[i].id]

        def down(i: int, flat: dict[str, str], upto: int):
            """Pick the axes from ``i`` on; ``upto``: the first axis whose edit ``composer``
            lacks. Each selection is handed on as soon as it is made: results kept for a
            whole cell would set off the collector's full passes over every memo table."""
            if i == tail and i < len(axes):
                yield flat, (tail_leaf(i, upto) if compose else None)
                return
            taken = []
            while i < len(axes) and axes[i].id not in branch:
                saved, upto = take(i, None, upto)
                taken.append((i, saved))
                i += 1
            if i == len(axes):
                yield flat, (_leaf(picker, composer, upto, states, seen) if compose else None)
            else:
                axis = axes[i]
                wanted: list[str | None] = [None]
                state = _pick(picker, axis, None, True, deps, cache)
                if state.visible:
                    wanted = [o.id for o in state.options if o.state == "enabled"]
                for w in wanted:
                    saved, after = take(i, w, upto)
                    yield from down(i + 1, flat if w is None else {**flat, axis.id: w}, after)
                    undo(i, saved)
            for at, saved in reversed(taken):
                undo(at, saved)

        def tail_leaf(i: int, upto: int) -> Resolution:
            """Pick the axes after the last branch axis at once (memoized), then the leaf."""
            key = (picker.cell_key, tuple(map(picker.picks.get, tail_deps)))
            run = tails.get(key)
            if run is None:
                run = []
                for axis in axes[i:]:
                    state = _pick(picker, axis, None, True, deps, cache)
                    picker.picks[axis.id] = state.value
                    run.append(state)
                run = tails[key] = tuple(run)
            else:
                for axis, state in zip(axes[i:], run):
                    picker.picks[axis.id] = state.value
            states.extend(run)
            res = _leaf(picker, composer, upto, states, seen)
            del states[i:]
            for axis in axes[i:]:
                del picker.picks[axis.id]
            return res

        yield from down(0, dict(match), 0)


def _leaf(picker: _State, composer: _State, upto: int, states: list[AxisState],
          seen: dict) -> Resolution:
    """One selection of a walk: the edits ``composer`` made along its prefix, the rest of its
    edits and its transforms, then the finish. What follows the composer's state reads only
    the options of the axes from ``upto`` on, the picks those edits and the finish read
    (``_option_reads``, ``_finish_reads``) and that state: a selection of the cell that agrees
    on all of them (another cluster size where nothing reads it, say) differs only in its
    picks and settings, so it takes the earlier one's result with its own (``seen``)."""
    model, picks = picker.model, picker.picks
    deferred = tuple([picks[a.id] for a in model.axes[upto:]])
    read = _leaf_reads(model, upto, deferred)
    key = (id(composer.toks), id(composer.env_items), tuple(composer.hints), composer.nodes,
           upto, deferred, tuple(map(picks.get, read)))
    hit = seen.get(key)
    if hit is not None:
        return hit[0].model_copy(update={"picks": dict(picks), "axes": list(states)})
    st = _State(picker.db, picker.model, picker.cell, picker.cell_flag_map, picker.match,
                dict(picker.picks), picker.avg_len, toks=composer.toks,
                env_items=composer.env_items, hints=list(composer.hints), nodes=composer.nodes,
                cell_key=picker.cell_key, cell_rules=picker.cell_rules)
    _compose(st, upto)
    # composed alike by other edits (a speculative method that adds nothing here, say): the
    # finish reads the command, its env, hints and nodes, and the picks _finish_reads names
    done = (tuple([(t.flag.name, t.flag.values, t.origin) for t in st.toks]),
            tuple(st.env_items), tuple(st.hints), st.nodes,
            tuple(map(picks.get, _leaf_reads(model, len(model.axes), ()))))
    hit = seen.get(done)
    if hit is not None:
        res = hit[0].model_copy(update={"picks": dict(picks), "axes": list(states)})
    else:
        res = _finish(st, list(states))
        seen[done] = (res,)
    # the composer's lists are kept with the result, so no other list takes their ids
    seen[key] = (res, composer.toks, composer.env_items)
    while len(seen) > _SEEN:
        del seen[next(iter(seen))]
    return res


# Results a walk keeps for the selections after them (_leaf): the alike ones are a few
# selections apart (the options of the last axes vary fastest), and results kept longer
# outlive the collector's young generations, whose full passes then cost more than they save.
_SEEN = 16


def _leaf_reads(model: Model, upto: int, deferred: tuple) -> tuple[str, ...]:
    """The picks a walk's selection reads after its composer's state: those the finish reads
    and those the deferred options' edits read (a calculator: the PD declaration's)."""
    table = model.cache.setdefault("leaf_reads", {})
    hit = table.get((upto, deferred))
    if hit is None:
        read, reads = set(_finish_reads(model)), _option_reads(model)
        for axis, value in zip(model.axes[upto:], deferred):
            if value is not None:
                picks, opaque = reads[axis.id, value]
                read |= picks | (_pd_reads(model) if opaque else set())
        hit = table[upto, deferred] = tuple(sorted(read))
    return hit


def _prefix_safe(model: Model) -> dict[tuple[str, str], bool]:
    """(axis, option) → whether the option's edit (its own and its bound transforms') reads
    only the cell, the command as edited so far and the picks of its own and earlier axes, so
    every selection that shares those picks gets the same edit. A calculator's value reads the
    whole command and the PD server every pick may decide: never safe."""
    table = model.cache.get("prefix_safe")
    if table is None:
        at = {a.id: i for i, a in enumerate(model.axes)}
        table = model.cache["prefix_safe"] = {
            (axis_id, value): not opaque and all(at[p] <= at[axis_id] for p in picks)
            for (axis_id, value), (picks, opaque) in _option_reads(model).items()}
    return table


def _option_reads(model: Model) -> dict[tuple[str, str], tuple[frozenset[str], bool]]:
    """(axis, option) → the picks its edit reads (conditions and templates of the option and
    its bound transforms), and whether it reads a calculator or a name it cannot tell."""
    table = model.cache.get("option_reads")
    if table is None:
        table = model.cache["option_reads"] = {
            key: _reads(model, bound, option.add)
            for key, (option, bound, _) in _option_index(model).items()}
    return table


def _reads(model: Model, rules, adds=()) -> tuple[frozenset[str], bool]:
    """The picks ``rules`` (transforms, or any rules with a ``when``) and the templates of
    their adds and node counts read, and whether they read a calculator (the whole command
    and the PD server) or a name this cannot tell."""
    keys = set().union(*(r.when.keys() for r in rules))
    texts = [*adds, *(a for r in rules for a in getattr(r, "add", ()))]
    names = {n for text in texts for m in templates.TEMPLATE.finditer(text)
             for n in _expr_names(m.group(1))}
    names |= {n for r in rules if getattr(r, "nodes", None)
              for n in _expr_names(r.nodes.strip("{} "))}
    picks = {k for k in keys if k in model.axis_index}
    picks |= {n[4:] for n in names if n.startswith("sel.") and n[4:] in model.axis_index}
    opaque = any(k.startswith("calculator.") for k in keys) or any(
        not (n == "nodes" or n.startswith(("cell.", "hw.", "pd.ports."))
             or (n.startswith("sel.") and n[4:] in model.axis_index)) for n in names)
    return frozenset(picks), opaque


def _finish_reads(model: Model) -> frozenset[str]:
    """The picks what follows the option edits reads: the transforms bound to no option, the
    calculators' rules, the knobs and effective rules, the served name and image rules, the
    PD declaration (a calculator's value depends on it) and the checks."""
    hit = model.cache.get("finish_reads")
    if hit is None:
        rules, info = model.rules, model.info
        free = [t for t in rules.transforms if t.for_ is None]
        picks, _ = _reads(model, [*free, *rules.calculator, *rules.effective, *info.model_names,
                                  *info.docker_images, *info.install, *rules.checks,
                                  *(info.request.tasks if info.request else ())])
        picks |= {k for knob in rules.knobs for k in knob.show_when.keys()
                  if k in model.axis_index}
        hit = model.cache["finish_reads"] = picks | _pd_reads(model)
    return hit


def _pd_reads(model: Model) -> frozenset[str]:
    pd = model.info.pd
    servers = pd.servers().values() if pd is not None else ()
    return frozenset(k for s in servers for k in s.when.keys() if k in model.axis_index)


def _expr_names(text: str) -> set[str]:
    try:
        return templates.expr_names(templates.parse_expr(text))
    except templates.ExprError:
        return {"?"}  # unreadable: the edit's own error, raised where it is made


def _where(match: dict[str, str]) -> str:
    return " ".join(match.values())


def _select(db, sel: Selection, strict):
    model = db.model(sel.model)
    db = db.serving(model)  # the model's CLI: its catalog and releases
    picks = dict(sel.picks)
    st = _cell_state(db, model, _pick_cell(db, model, sel.match, strict), sel.avg_len, strict)
    unknown = [k for k in picks if k not in model.axis_index]
    if unknown:
        raise SelectionError([Problem("<selection>", None, None,
                                      f"unknown setting '{k}' "
                                      f"({choices_hint(k, [*model.dimensions, *model.axis_index])})")
                              for k in unknown])
    # Pick every axis first (gates read the cell and earlier picks), then edit the command, so
    # a transform may depend on any pick, earlier or later.
    axis_states: list[AxisState] = []
    deps, cache = _pick_memo(model)
    for axis in model.axes:
        state = _pick(st, axis, picks.get(axis.id), strict, deps, cache)
        axis_states.append(state)
        st.picks[axis.id] = state.value
    if st.not_applicable:
        applies = ", ".join(a.axis for a in axis_states if a.visible)
        raise SelectionError([Problem("<selection>", None, None,
                                      f"'{a}' does not apply to {_where(st.match)} with the "
                                      f"other settings chosen (settings that apply: {applies})")
                              for a in st.not_applicable])
    return st, axis_states


def _cell_state(db, model: Model, match: dict[str, str], avg_len: int | None,
                strict: bool) -> _State:
    """The command of a cell before anything is picked: its flags, env and nodes, the rules
    that can hold for it, and the request length the calculators read."""
    key_of_cell = model.key(match)
    cell = model.cells[model.cell_index[key_of_cell]]
    rules = cell_rules(db, model, cell, key_of_cell)
    length = model.info.request_length
    if avg_len is not None and length is None:
        if strict:
            raise SelectionError([Problem("<selection>", None, None,
                                          f"avg_len does not apply: no calculator of "
                                          f"{model.info.name} reads a request length")])
        avg_len = None  # the Playground's way: nothing reads it
    if avg_len is None:
        avg_len = length.default if length else None
    elif not AVG_LEN_MIN <= avg_len <= AVG_LEN_MAX:
        raise SelectionError([Problem("<selection>", None, None,
                                      f"avg_len must be from {AVG_LEN_MIN:,} to "
                                      f"{AVG_LEN_MAX:,} tokens (got {avg_len})")])
    # the cell's flags as a mapping are read, never written: one per cell, shared
    st = _State(db, model, cell, rules.context.flag_map, dict(match), {}, avg_len,
                cell_key=key_of_cell, cell_rules=rules)
    st.toks = list(_cell_toks(model, key_of_cell))
    st.env_items = [(env_name(e), e.split("=", 1)[1]) for e in cell.env]
    st.nodes = cell.nodes
    return st


def _pick_memo(model: Model) -> tuple[dict, dict]:
    cache = model.cache.setdefault("picks", {})
    if len(cache) > 200_000:
        cache.clear()
    return _axis_deps(model), cache


def _pick(st: _State, axis: Axis, wanted: str | None, strict: bool, deps, cache) -> AxisState:
    """The state of ``axis`` after the picks already in ``st``. It depends only on the cell
    and the picks its gates read: memoized."""
    key = (st.cell_key, axis.id, wanted, strict, tuple(map(st.picks.get, deps[axis.id])))
    state = cache.get(key)
    if state is None:
        before = len(st.not_applicable)
        state = cache[key] = _pick_axis(st, axis, wanted, strict)
        if len(st.not_applicable) > before:
            cache[key, "not applicable"] = True
    elif (key, "not applicable") in cache:
        st.not_applicable.append(axis.id)
    return state


def _cell_toks(model: Model, key: tuple[str, ...]) -> tuple[_Tok, ...]:
    """The command a cell starts from; tokens are never changed in place, only replaced, so
    every selection of the cell starts from the same ones."""
    table = model.cache.setdefault("cell_toks", {})
    hit = table.get(key)
    if hit is None:
        hit = table[key] = tuple(_Tok(f, "cell")
                                 for f in model.cell_flags[model.cell_index[key]])
    return hit


def _axis_deps(model: Model) -> dict[str, tuple[str, ...]]:
    """For each axis, the other axes its visibility, default and gates read."""
    deps = model.cache.get("axis_deps")
    if deps is None:
        axis_ids = set(model.axis_index)
        deps = {}
        for axis in model.axes:
            keys = axis.show_when.keys()
            for rule in axis.default_by:
                keys |= rule.when.keys()
            for g in model.rules.gates:
                if axis.id in g.disable or axis.id in g.hide:
                    keys |= g.when.keys()
            deps[axis.id] = tuple(sorted(keys & axis_ids))
        model.cache["axis_deps"] = deps
    return deps


# --- selection -----------------------------------------------------------------------------

def dimension_states(db: Database, model: Model, dim: str,
                     prefix: dict[str, str]) -> list[OptionState]:
    """The options of dimension ``dim`` given the earlier dimensions in ``prefix``: those whose
    ``when`` fails are hidden; the rest are disabled by a gate (with its reason), disabled when
    no cell has them, or enabled."""
    ctx = _GateContext(db, model, prefix)
    at = model.dimensions.index(dim)
    earlier = model.dimensions[:at]
    keys = model.cache.get("cell_prefixes")
    if keys is None:
        keys = model.cache["cell_prefixes"] = {k[:i] for k in model.cell_index
                                               for i in range(1, len(k) + 1)}
    out = []
    for option, _, when in model.dimension_options[dim]:
        if when.holds(ctx) is not True:
            out.append(OptionState(id=option, state="hidden"))
            continue
        exists = tuple(prefix[d] for d in earlier) + (option,) in keys
        state = _gate_state(model, ctx, dim, option, exists)
        if state.reason == "gate.no-cell":
            state = _no_cell(db, model, prefix, dim, option)
        out.append(state)
    return out


def _no_cell(db, model: Model, prefix: dict[str, str], dim: str, option: str) -> OptionState:
    """A dimension option no cell has after the earlier choices, with the platforms where one
    does: with the same choices between the platform and it (gate.no-cell.on), else with any
    (gate.no-cell.with). playground/resolve.js noCell mirrors it."""
    at = model.dimensions.index(dim)
    between = tuple(prefix.get(d) for d in model.dimensions[1:at])
    keys = [k for k in model.cell_index if k[at] == option]
    for reason, hits in (("gate.no-cell.on", [k for k in keys if k[1:at] == between]),
                         ("gate.no-cell.with", keys)):
        platforms = [db.platforms[h].label for h in model.info.hardware
                     if any(k[0] == h for k in hits)]
        if platforms:
            return OptionState(id=option, state="disabled", reason=reason,
                               fields={"platforms": ", ".join(platforms)})
    return OptionState(id=option, state="disabled", reason="gate.no-cell")


class _GateContext:
    """Context for gating the dimensions, before a cell is chosen: the earlier dimensions and
    the platform are known."""

    def __init__(self, db, model, prefix: dict[str, str]):
        self.db, self.model, self.prefix = db, model, prefix

    def value(self, key):
        if key in self.prefix:
            return self.prefix[key]
        if key.startswith("hw.") and "hw" in self.prefix:
            return _attr(self.db.platforms[self.prefix["hw"]], key[3:])
        return None

    def flags(self):
        return None

    def cell_flags(self):
        return None

    def env(self):
        return None


def _gate_state(model: Model, ctx, axis_id: str, option: str, exists: bool) -> OptionState:
    state = _gated(model, ctx, axis_id, option)
    if state.state == "enabled" and not exists:
        return OptionState(id=option, state="disabled", reason="gate.no-cell")
    return state


def _reason_text(db: Database, model: Model, reason: str | None) -> str:
    return db.t("en", reason, model) if reason else "not available"


def _pick_cell(db, model, wanted: dict[str, str], strict) -> dict[str, str]:
    cache = model.cache.setdefault("cells", {})
    key = (tuple(wanted.get(d) for d in model.dimensions), strict)
    if key in cache:
        return cache[key]
    result = _pick_cell_uncached(db, model, wanted, strict)
    if wanted.get("hw") in model.info.hardware:  # only real hardware ids (a small key space)
        cache[key] = result
    return result


def _pick_cell_uncached(db, model, wanted: dict[str, str], strict) -> dict[str, str]:
    extra = [k for k in wanted if k not in model.dimensions]
    if extra and strict:
        raise SelectionError([Problem("<selection>", None, None, f"'{k}' is not a dimension of "
                                      f"{model.info.name} (dimensions: "
                                      f"{', '.join(model.dimensions)})") for k in extra])
    hws = list(model.info.hardware)
    hw = wanted.get("hw")
    if hw not in hws:
        if strict:
            near = likely_typo(str(hw), hws)  # the closest id is often another GPU
            raise SelectionError([Problem("<selection>", None, None,
                                          f"hw '{hw}' is not a platform of {model.info.name} ("
                                          + (f"did you mean '{near}'? " if near else "")
                                          + f"known: {', '.join(hws)})")])
        hw = hws[0]
    match = {"hw": hw}
    for dim in model.dimensions[1:]:
        states = dimension_states(db, model, dim, match)
        where = f"on {hw}" if len(match) == 1 else "for " + " ".join(match.values())
        match[dim] = _choose(dim, wanted.get(dim), states, strict, db, model, where)
    return match


def _choose(what, value, states: list[OptionState], strict, db, model, where):
    enabled = [s.id for s in states if s.state == "enabled"]
    match = next((s for s in states if s.id == value and s.state != "hidden"), None)
    if match is not None and match.state == "enabled":
        return value
    if strict:
        if value is None:
            why = f"no {what} given"
        elif match is None:
            why = f"'{value}' is not a {what} offered {where}"
        else:
            why = f"{what} '{value}' is not available {where}: {_reason_text(db, model, match.reason)}"
        raise SelectionError([Problem("<selection>", None, None,
                                      f"{why} (available: {', '.join(enabled)})")])
    return enabled[0]


def _pick_axis(st: _State, axis: Axis, wanted: str | None, strict: bool) -> AxisState:
    visible = axis.show_when.holds(st) is True
    states = [_option_state(st, axis.id, o.id) for o in axis.options]
    if visible and all(s.state == "hidden" for s in states):
        visible = False
    if not visible:
        if wanted is not None and strict:
            st.not_applicable.append(axis.id)
        return _axis_state(st.model, axis.id, False, None, states)
    default = axis.default
    for rule in axis.default_by:
        if rule.when.holds(st) is True:
            default = rule.value
            break
    by_id = {s.id: s for s in states}
    enabled = [s.id for s in states if s.state == "enabled"]
    value = wanted if wanted is not None else default
    chosen = by_id.get(value)
    if chosen is None or chosen.state != "enabled":
        if wanted is not None and strict:
            if chosen is None:
                why = f"'{wanted}' is not an option of '{axis.id}'"
            else:
                why = (f"{axis.id}={wanted} is not available for {_where(st.match)}: "
                       f"{_reason_text(st.db, st.model, chosen.reason)}")
            raise SelectionError([Problem("<selection>", None, None,
                                          f"{why} (available: {', '.join(enabled) or 'none'})")])
        if not enabled:
            return _axis_state(st.model, axis.id, False, None, states)
        value = default if by_id.get(default) and by_id[default].state == "enabled" else enabled[0]
    return _axis_state(st.model, axis.id, True, value, states)


def _axis_state(model: Model, axis_id: str, visible: bool, value: str | None,
                options: list[OptionState]) -> AxisState:
    """One frozen AxisState per distinct state, per model, as its options (``_interned``,
    so one object each and their ids stand for them): the pick memo holds a state for every
    combination of the picks its gates read, and most of them are alike."""
    table = model.cache.setdefault("axis_states", {})
    key = (axis_id, visible, value, tuple(map(id, options)))
    hit = table.get(key)
    if hit is None:
        hit = table[key] = AxisState(axis=axis_id, visible=visible, value=value, options=options)
    return hit


def _gate_index(model: Model) -> dict[tuple[str, str], tuple[list, list]]:
    """(axis, option) → (gates that may hide it, gates that may disable it), built once."""
    index = model.cache.get("gate_index")
    if index is None:
        index = {}
        for g in model.rules.gates:
            for axis_id, options in g.hide.items():
                for o in options:
                    index.setdefault((axis_id, str(o)), ([], []))[0].append(g)
            for axis_id, options in g.disable.items():
                for o in options:
                    index.setdefault((axis_id, str(o)), ([], []))[1].append(g)
        model.cache["gate_index"] = index
    return index


def _option_state(st: _State, axis_id: str, option: str) -> OptionState:
    return _gated(st.model, st, axis_id, option)


def _gated(model: Model, ctx, axis_id: str, option: str) -> OptionState:
    """The one reading of the gates: hidden, disabled (with the reason) or enabled."""
    hide, disable = _gate_index(model).get((axis_id, option), ((), ()))
    for g in hide:
        if g.when.holds(ctx) is True:
            return _interned(model, option, "hidden", None)
    for g in disable:
        if g.when.holds(ctx) is True:
            return _interned(model, option, "disabled", g.reason)
    return _interned(model, option, "enabled", None)


def _interned(model: Model, option: str, state: str, reason: str | None) -> OptionState:
    """One frozen object per distinct state: the axis states memoized for every selection
    hold them, and every object they hold is one more the collector walks."""
    table = model.cache.setdefault("option_states", {})
    hit = table.get((option, state, reason))
    if hit is None:
        hit = table[option, state, reason] = OptionState(id=option, state=state) \
            if reason is None else OptionState(id=option, state=state, reason=reason)
    return hit


# --- composing -----------------------------------------------------------------------------

def _option_index(model: Model) -> dict[tuple[str, str], tuple]:
    """(axis, option) → (the option, the transforms bound to it with ``for`` in file order,
    whether the option edits the command itself), built once."""
    index = model.cache.get("option_index")
    if index is None:
        bound: dict[tuple[str, str], list] = {}
        for t in model.rules.transforms:
            for axis_id, given in (t.for_ or {}).items():
                for o in given if isinstance(given, list) else [given]:
                    bound.setdefault((axis_id, str(o)), []).append(t)
        index = model.cache["option_index"] = {
            (axis.id, o.id): (o, tuple(bound.get((axis.id, o.id), ())),
                              bool(o.strip or o.add or o.env or o.strip_env or o.hints))
            for axis in model.axes for o in axis.options}
    return index


def _apply_option(st: _State, option, bound: tuple) -> None:
    """The option's own edit and those of its bound transforms that hold, as one edit."""
    strip, add, env = list(option.strip), list(option.add), list(option.env)
    strip_env, hints = list(option.strip_env), list(option.hints)
    nodes = None
    for t in bound:
        if t.when.holds(st) is True:
            strip += t.strip
            add += t.add
            env += t.env
            strip_env += t.strip_env
            hints += t.hints
            nodes = t.nodes or nodes
    _apply_edit(st, strip, add, env, strip_env, hints, [], nodes)


def _apply_edit(st: _State, strip, add, env, strip_env, hints, insert_after, nodes) -> None:
    if nodes:
        count = _filled(st, nodes, lambda: templates.eval_expr(nodes.strip("{} "), st.lookup))
        st.nodes = int(count)
    new: list[Flag] = []
    for text in add:
        new.extend(parse_flag_text(_filled(st, text, lambda: templates.fill(text, st.lookup))))
    if insert_after:
        last = max((i for i, t in enumerate(st.toks) if t.flag.name in insert_after), default=None)
        at = len(st.toks) if last is None else last + 1
        st.toks = st.toks[:at] + [_Tok(f, "sel") for f in new] + st.toks[at:]
    elif strip or new:
        st.toks = _splice(st.toks, set(strip), new, _listen_flags(st.db),
                          st.db.catalog.settings)
    if env or strip_env:
        _edit_env(st, env, strip_env)
    for h in hints:
        if h not in st.hints:
            st.hints.append(h)


def _filled(st: _State, text: str, fill):
    """Load-time checks prove every template's names and divisors; what they cannot see is
    whether a ``{sel.<axis>}`` axis is shown for this selection. Say so, not a traceback."""
    try:
        return fill()
    except templates.ExprError as exc:
        raise RecipeError([Problem("<selection>", None, None, f"cannot fill '{text}' for "
                                   f"{_where(st.match)}: {exc}")]) from None


def _listen_flags(db: Database) -> frozenset[str]:
    """The flags that say where the server listens (the ``host`` and ``port`` roles of
    flag-bounds.yaml): a command ends with them."""
    return frozenset(db.catalog.role_flags("host") + db.catalog.role_flags("port"))


def _splice(toks: list[_Tok], strip: set[str], new: list[Flag], listen: Collection[str],
            dest: Mapping[str, str] | None = None) -> list[_Tok]:
    """Stripped flags make room: added flags of a stripped name take the first stripped flag's
    place as a block; an added flag whose name is already present replaces it where it is;
    the rest go before the first flag of ``listen`` (where the server listens). Names compare
    by ``dest`` (spelling -> the flag it sets, ``Catalog.settings``; a spelling it lacks sets
    itself), so ``--no-X`` and ``--X`` are one setting: stripping one strips the other, adding
    one replaces the other. A table, not a function: this runs for every edit of every
    resolution, over every flag of the command."""
    d = dest if dest is not None else {}
    strip = {d.get(n, n) for n in strip}
    block: list[Flag] = []
    rest: list[Flag] = []
    for f in new:
        (block if d.get(f.name, f.name) in strip else rest).append(f)
    touched = strip.union([d.get(f.name, f.name) for f in rest])
    if touched.isdisjoint([d.get(t.flag.name, t.flag.name) for t in toks]):
        # the common edit, nothing to take out or replace: the new flags go in as one block
        at = next((i for i, t in enumerate(toks) if t.flag.name in listen), len(toks))
        return toks[:at] + [_Tok(f, "sel") for f in block + rest] + toks[at:]
    waiting: dict[str, list[int]] = {}
    for i, f in enumerate(rest):
        waiting.setdefault(d.get(f.name, f.name), []).append(i)
    out: list[_Tok] = []
    placed = False
    used: set[int] = set()
    for t in toks:
        name = d.get(t.flag.name, t.flag.name)
        if name in strip:
            if not placed:
                out.extend(_Tok(f, "sel") for f in block)
                placed = True
            continue
        queue = waiting.get(name)
        if queue:
            hit = queue.pop(0)
            used.add(hit)
            out.append(_Tok(rest[hit], "sel" if rest[hit] != t.flag else t.origin))
        else:
            out.append(t)
    tail = ([] if placed else block) + [f for i, f in enumerate(rest) if i not in used]
    if tail:
        at = next((i for i, t in enumerate(out) if t.flag.name in listen), len(out))
        out[at:at] = [_Tok(f, "sel") for f in tail]
    return out


def _edit_env(st: _State, env: list[str], strip_env: list[str]) -> None:
    current = [(k, v) for k, v in st.env_items if k not in set(strip_env)]
    for item in env:
        name, _, value = item.partition("=")
        idx = next((i for i, (k, _) in enumerate(current) if k == name), None)
        if idx is None:
            current.append((name, value))
        else:
            current[idx] = (name, value)
    st.env_items = current


# --- finishing -----------------------------------------------------------------------------

def _first_match(rules, st) -> Any:
    for rule in rules:
        if rule.when.holds(st) is True:
            return rule
    return None


def _placeholders(st: _State, model_name: str) -> dict[str, str]:
    info = st.model.info
    values = dict(info.placeholders)
    values["MODEL_NAME"] = model_name
    if info.pd:
        values.update(PREFILL_PORT=str(info.pd.prefill.port), DECODE_PORT=str(info.pd.decode.port),
                      ROUTER_PORT=str(info.pd.router.port),
                      BOOTSTRAP_PORT=str(info.pd.bootstrap_port))
    return values


_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")


def _fill(text: str, values: dict[str, str]) -> str:
    if "{{" not in text:
        return text
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _finish(st: _State, axis_states: list[AxisState]) -> Resolution:
    info = st.model.info
    model_name = _first_match(st._rules("model_names", info.model_names), st).name
    image_rule = _first_match(st._rules("docker_images", info.docker_images), st)
    image = image_rule.image  # None: no image is published here (the Python form only)
    install_rule = _first_match(st._rules("install", info.install), st) if image is None \
        else None
    # the kinds of request this selection's server takes; its own request is the first
    tasks = [t for t in st._rules("request_tasks", info.request.tasks)
             if t.when.holds(st) is True] if info.request is not None else []
    task = tasks[0] if tasks else None
    default = st.db.releases.resolve(image_rule.sglang)
    release = st.release or default
    # the branch values that hold: the image's own, and none for a stock release chosen
    branch = branch_in(st.model, image if release == default else None)
    composed, flags, rewrites, env, span, changes, by_name = _command(st, model_name, release,
                                                                     branch)
    only = [f for f in flags if f.values and f.name in branch and not st.db.releases.accepts(
        release, f) and st.db.releases.accepts(release, f, branch)]
    if only:  # a branch build's own value: that image, never a stock range
        span = None
    calculations = []
    for calc in info.calculators:
        reason, value = st.calc_reason(calc), st.calc_value(calc)
        calculations.append(Calculation(
            id=calc.id, pins=calc.pins, value=calculator.fmt(value) if value is not None else None,
            exact=value, reason=_text(st.model, reason) if reason else None))
    router = None
    pd = st.pd
    if pd:
        values = _placeholders(st, model_name)
        router = [[Flag(f.name, tuple(_fill(v, values) for v in f.values))
                   for f in parse_flag_text(text)] for text in info.pd.router.flags]
    # Every hint may use {nodes} and {last_rank}; a field value "@id" is a text id.
    common = {"nodes": str(st.nodes), "last_rank": str(st.nodes - 1)}
    hints = []
    if pd:
        hints.append(TextRef(id="ui.pd-banner", fields={
            **common, "role": "@" + info.pd.servers()[pd].label,
            "router_port": str(info.pd.router.port)}))
    hints += [_text(st.model, h, common) for h in st.hints]
    # a release chosen other than the image's runs in that release's image, where the vendor
    # names one (hardware.yaml release_image); else in the recipe's, with a caveat saying so
    run = st.db.containers.vendors[st.db.platforms[st.hw].vendor.value]
    # (none where no image is published for the recipe: the Python form, never a made-up one)
    own = run.release_image.replace("{release}", release) if release != default and \
        run.release_image and image is not None else None
    caveats = _caveats(st, calculations) + _migrated(st, rewrites, release) + \
        _release_caveats(st, flags, span, release, default, image, image_rule.sglang, branch,
                         only, own)
    status = st.cell.status.value
    rec = records.record(st.db, st.model, st.cell)
    if rec is not None and rec.stale:  # the record no longer vouches for the command
        caveats += [Caveat(kind="stale", text=TextRef(id=f"stale.{s.kind}", fields=s.fields),
                           flag=s.fields.get("flag")) for s in rec.stale]
        status = "stale" if status == "verified" else status
    if changes is not None and status == "verified":
        status = "derived"
        caveats.insert(0, Caveat(kind="derived", text=TextRef(
            id="status.derived.caveat", fields=derived_fields(changes))))
    known = {k: ("" if v is None else v) for k, v in st.picks.items()}
    known["nodes"] = st.nodes
    diagnostics = check_state(st.db, st.model, st.match, known, by_name, dict(st.env_items),
                              st.cell, release) + _branch_elsewhere(st, flags, release, branch)
    return Resolution(
        model=st.model.id, hw=st.hw, match=dict(st.match), pd=pd,
        status=status, cell_status=st.cell.status.value, verified_in=st.cell.verified_in,
        nodes=st.nodes,
        gpus_per_node=st.cell.gpus_per_node or st.db.platforms[st.hw].gpus_per_node,
        picks=dict(st.picks), avg_len=st.avg_len, model_name=model_name, docker_image=own or image,
        docker_args=list(image_rule.args),
        install=list(install_rule.commands) if install_rule is not None else [],
        request=task.id if task is not None else None, requests=[t.id for t in tasks],
        hints=hints, env=env, program="sglang serve", flags=flags, router=router,
        router_program=info.pd.router.program if router is not None else None,
        calculations=calculations,
        sglang=release,
        sglang_span=span,
        sglang_default=default,
        sglang_image=image if only else None, record=rec,
        branch_only=[f.text() for f in only],
        caveats=caveats, diagnostics=diagnostics, effective=_effective(st, composed),
        axes=axis_states)


def _command(st: _State, model_name: str, release: str, branch: dict) -> tuple:
    """What depends only on the composed command, its cell, served name and release: the
    flags with placeholders filled (``composed``), as the release spells them, the rewrites,
    the env, the span of releases, what differs from the verified commands (None: nothing,
    or the cell is not verified) and the flags by name. Not memoized: a table of every
    distinct command costs the collector more than the work it saves."""
    values = _placeholders(st, model_name)
    composed = []
    for t in st.toks:
        f = t.flag
        for v in f.values:
            if "{{" in v:  # most flags hold no placeholder: the same flag, not a copy
                f = Flag(f.name, tuple(_fill(x, values) for x in f.values))
                break
        composed.append(f)
    flags, rewrites = st.db.releases.migrate(composed, release)
    env = [f"{k}={_fill(v, values)}" for k, v in st.env_items]
    span = st.db.releases.span(flags, release, branch)
    changes = _derived(st, [f.text() for f in flags], env) \
        if st.cell.status.value == "verified" and st.check_shape else None
    return composed, flags, rewrites, env, span, changes, {f.name: f.values for f in flags}


def _text(model: Model, text_id: str, fields: dict[str, str] | None = None) -> TextRef:
    """One frozen TextRef per distinct text and fields, per model (``_shared``)."""
    return _shared(model, TextRef, (text_id, None if fields is None else tuple(fields.items())),
                   lambda: TextRef(id=text_id) if fields is None
                   else TextRef(id=text_id, fields=fields))


def _effective_value(model: Model, **fields) -> EffectiveValue:
    """One frozen EffectiveValue per distinct value, per model (``_shared``)."""
    return _shared(model, EffectiveValue, tuple(fields.items()), lambda: EffectiveValue(**fields))


def _shared(model: Model, kind: type, key: tuple, build):
    """The result object for ``key``, built once per model: the selections of a model repeat
    the same few hints, texts and effective values, and every object built is validated and
    then walked by the collector as long as a memo holds it."""
    table = model.cache.setdefault("shared", {})
    hit = table.get((kind, key))
    if hit is None:
        hit = table[kind, key] = build()
    return hit


def _verified_commands(st: _State) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The commands (flags, env) the cell's verifying round ran: its defaults and each set of
    settings ``verified_with`` lists, at the model's default request length. Once per cell."""
    cache = st.model.cache.setdefault("verified_commands", {})
    key = (st.cell_key, st.release)  # spelt for the same release as the command compared
    if key not in cache:
        out = []
        for picks in [{}, *st.cell.verified_with]:
            res = _resolve(st.db, Selection(st.model.id, dict(st.match), picks), False, False,
                           st.release)
            out.append((tuple(res.flag_texts), tuple(res.env)))
        cache[key] = out
    return cache[key]


def _derived(st: _State, flags: list[str], env: list[str]) -> list[str] | None:
    """None when the command is one its cell was verified with; else what differs from the
    cell's default command, flag by flag and variable by variable."""
    shapes = _verified_commands(st)
    if (tuple(flags), tuple(env)) in shapes:
        return None
    base_flags, base_env = shapes[0]
    changes = [f"+{x}" for x in flags if x not in base_flags] + \
        [f"-{x}" for x in base_flags if x not in flags] + \
        [f"+{x}" for x in env if x not in base_env] + [f"-{x}" for x in base_env if x not in env]
    return changes or ["flag order"]


def _name(item: str) -> str:
    """A flag's or a variable's name in its printed text (``--tp-size 8``, ``X=1``)."""
    return item.split("=", 1)[0] if "=" in item.split(" ", 1)[0] else item.split(" ", 1)[0]


def derived_fields(changes: list[str]) -> dict[str, str]:
    """The derived caveat's fields, for a reader: what the command adds, removes and changes
    against the verified one (a flag in both with other values as ``--tp-size 8 → 32``), each
    a comma-separated list or the text id of "nothing"."""
    if changes == ["flag order"]:
        return {"added": "@ui.diff.nothing", "removed": "@ui.diff.nothing",
                "changed": "@ui.diff.order"}
    added = [c[1:] for c in changes if c[0] == "+"]
    removed = [c[1:] for c in changes if c[0] == "-"]
    was = {_name(x): x for x in removed}
    changed, plain_added = [], []
    for x in added:
        old = was.pop(_name(x), None)
        if old is None:
            plain_added.append(x)
        else:
            sep = "=" if "=" in x.split(" ", 1)[0] else " "
            changed.append(f"{old} → {x.split(sep, 1)[1] if sep in x else x}")
    removed = [x for x in removed if _name(x) in was]
    return {k: ", ".join(v) if v else "@ui.diff.nothing"
            for k, v in (("added", plain_added), ("removed", removed), ("changed", changed))}


def _caveats(st: _State, calculations: list[Calculation]) -> list[Caveat]:
    out: list[Caveat] = []
    if st.cell.redirect:
        out.append(Caveat(kind="redirect", text=_text(st.model, st.cell.redirect)))
    if st.cell.warn:
        out.append(Caveat(kind="warn", text=_text(st.model, st.cell.warn)))
    present = {t.flag.name: t for t in st.toks}
    for name, reason in st.cell.pins.items():
        tok = present.get(name)
        if tok is not None and tok.origin == "cell":
            out.append(Caveat(kind="pin", text=_text(st.model, reason), flag=name))
    out += [Caveat(kind="calculator", text=c.reason, flag=c.pins) for c in calculations if c.reason]
    return out


def _migrated(st: _State, rewrites, release: str) -> list[Caveat]:
    """The deprecated spellings a command's release replaced, with the old one kept visible,
    and the round that ran it where the cell itself is verified in the old spelling."""
    out = []
    for r in rewrites:
        fields = {"release": release, "new": r.new, "old": r.old, "since": r.deprecated_in}
        if r.back:  # the release before the replacement: the old spelling stands
            out.append(Caveat(kind="migrated", text=TextRef(id="migrate.back", fields=fields),
                              flag=r.flag))
            continue
        text = "migrate.caveat"
        if r.removal:
            fields["removal"], text = r.removal, "migrate.caveat.removal"
        out.append(Caveat(kind="migrated", text=TextRef(id=text, fields=fields),
                          flag=r.new.split()[0]))
        round_ = next((x for x in st.model.info.rounds if x.id == st.cell.verified_in), None)
        if round_ is not None and r.flag in st.cell_flag_map:
            out.append(Caveat(kind="migrated", text=TextRef(id="migrate.round", fields={
                "old": r.old, "round": f"@{round_.text}" if round_.text else round_.version}),
                flag=r.new.split()[0]))
    return out


def _branch_elsewhere(st: _State, flags: list[Flag], release: str, branch: dict
                      ) -> list[Diagnostic]:
    """A value only a branch image has, in a command for another image or a stock release."""
    out = []
    for f in flags:
        readers = st.model.info.branch_values.get(f.name, {})
        if not f.values or not all(v in readers for v in f.values) or f.name in branch \
                or st.db.releases.accepts(release, f):
            continue
        images = sorted({getattr(readers[v], "image", None) or "" for v in f.values} - {""})
        out.append(Diagnostic(severity=Severity.error, rule="release.branch-only",
                              flags=[f.name], message=TextRef(id="release.branch-only", fields={
                                  "flag": f.text(), "release": release,
                                  "images": ", ".join(images) or "?"})))
    return out


def _release_caveats(st: _State, flags: list[Flag], span, release: str, default: str,
                     image: str, image_release: str | None, branch: dict,
                     only: list[Flag], own: str | None = None) -> list[Caveat]:
    """A release other than the image's: which image it is not; a value only the image has;
    and each flag the release refuses, with the releases that take it (a value SGLang checks
    at start-up included)."""
    out: list[Caveat] = [Caveat(kind="release", flag=f.name, text=TextRef(
        id="release.branch", fields={"flag": f.text(), "image": image})) for f in only]
    if release != default:
        fields = {"release": release, "image": image, "default": default}
        which = "release.chosen" if image_release is not None else "release.chosen.branch"
        if own is not None:  # run in the chosen release's own image
            which, fields["release_image"] = "release.chosen.image", own
        elif image is None:  # no image published: the Python form, installed for the release
            which = "release.chosen.install"
            fields.pop("image")
        out.append(Caveat(kind="release", text=TextRef(id=which, fields=fields)))
    if span is None:
        releases = st.db.releases
        for f in flags:
            if releases.accepts(release, f, branch):
                continue
            taking = releases.taking(f, branch)
            fields = {"flag": f.text(), "release": release}
            if not taking:
                text = "release.refused.none"
            elif taking == releases.order[releases.order.index(taking[0]):]:
                text, fields["first"] = "release.refused", taking[0]
            else:
                text, fields["releases"] = "release.refused.ranges", releases.ranges(taking)
            out.append(Caveat(kind="release", text=TextRef(id=text, fields=fields), flag=f.name))
    return out


def _effective(st: _State, flags: list[Flag]) -> list[EffectiveValue]:
    present = {t.flag.name: t for t in st.toks}
    out: list[EffectiveValue] = []
    for knob, forcing, rules, names, unset in _knob_plan(st):
        if knob.show_when.holds(st) is not True:
            continue
        forced = None
        for r in forcing:
            if r.when.holds(st) is True:
                forced = r
                break
        if forced is not None:
            out.append(_effective_value(st.model, knob=knob.id, label=knob.label,
                                        value=forced.value, value_text=forced.value_text,
                                        source=Source.forced, because=forced.because,
                                        flag=knob.flag))
            continue
        tok = None
        for n in names:
            tok = present.get(n)
            if tok is not None:
                break
        if tok is not None:
            name = tok.flag.name
            reads = names[name]  # True: a value; False: on when given; "off": a --no- form
            value = tok.flag.value if reads is True else "off" if reads == "off" else "on"
            value = next((f.value for f in flags if f.name == name), value) \
                if value and is_placeholder(value) else value
            pinned = tok.origin == "cell" and name in st.cell.pins
            out.append(_effective_value(
                st.model, knob=knob.id, label=knob.label, value=value,
                source=Source.pinned if pinned else Source.explicit,
                because=st.cell.pins.get(name) if pinned else None, flag=name))
            continue
        # an override rule that held would have forced the value: only the others can hold
        rule = None
        for r in rules:
            if r.when.holds(st) is True:
                rule = r
                break
        if rule is not None:
            out.append(_effective_value(st.model, knob=knob.id, label=knob.label,
                                        value=rule.value, value_text=rule.value_text,
                                        source=Source(rule.source), because=rule.because,
                                        flag=knob.flag))
            continue
        out.append(unset)
    return out


def _knob_plan(st: _State) -> tuple:
    """Per cell, for each knob that can show: the knob, its override rules and its other rules
    that can hold for the cell (in file order), its flag names (each: does the flag take a
    value), and what it shows when nothing sets it (the flag's default)."""
    plans = st.model.cache.setdefault("knob_plans", {})
    plan = plans.get(st.cell_key)
    if plan is None:
        by_knob: dict[str, list] = {}
        for r in st.model.rules.effective:
            by_knob.setdefault(r.knob, []).append(r)
        catalog, plan = st.db.catalog, []
        for knob in st._rules("knobs", st.model.rules.knobs, lambda k: k.show_when):
            candidates = st._rules(("effective", knob.id), by_knob.get(knob.id, ()))
            names = {}
            for n in ([knob.flag] if knob.flag else []) + knob.also:
                spec = catalog.lookup(n).spec
                names.setdefault(n, spec is None or spec.takes_value)
                for negation in spec.negations if spec is not None else ():
                    names.setdefault(negation, "off")
            spec = catalog.flags.get(knob.flag) if knob.flag else None
            default = None if spec is None else spec.default
            if spec is not None and not spec.takes_value:
                default = "on" if default else "off"
            unset = _effective_value(
                st.model, knob=knob.id, label=knob.label,
                value=None if default is None else str(default),
                value_text=None if default is not None else "eff.value.unset",
                source=Source.default, because="eff.default", flag=knob.flag)
            plan.append((knob, tuple(r for r in candidates if r.override),
                         tuple(r for r in candidates if not r.override), names, unset))
        plan = plans[st.cell_key] = tuple(plan)
    return plan