/* Playground: what a pick changes (mirrors macros/engine/effects.py).
 *
 * Owns the "changes against the recipe cell" list (diff, against the cell's own command) with
 * the settings that command is built with (cellDefaults), and the probe of the options that
 * would change nothing (gate.no-effect) or give a command SGLang refuses (gate.refused):
 * optionProbe and probeQueue for the page, probeOptions all at once for Node. Pure: no DOM.
 */
import { has, list } from './python.js';
import { envText, flagText, sameFlag } from './flags.js';
import { compose } from './resolve.js';
import { isLater } from './later.js';

/** The cell alone (its keys, nothing chosen): composed once per cell and export, since every
 *  click compares against it. Kept beside the export, out of its enumerable keys. */
function plainOf(data, match) {
  if (!data.__plain) Object.defineProperty(data, '__plain', { value: {} });
  var key = JSON.stringify(match);
  if (!has(data.__plain, key)) data.__plain[key] = compose(data, match);
  return data.__plain[key];
}

/** The Deploy settings the cell's own command is built with (what diff compares against),
 *  as [{axis, option}]: the settings without a card that the cell shows. */
export function cellDefaults(data, res) {
  var plain = plainOf(data, res.match), out = [];
  data.axes.forEach(function (axis) {
    var state = plain.axes.filter(function (a) { return a.axis === axis.id; })[0];
    if (axis.card || !state || !state.visible || state.value === null) return;
    var option = axis.options.filter(function (o) { return o.id === state.value; })[0];
    if (option) out.push({ axis: axis, option: option });
  });
  return out;
}

/** What the reader's settings change in the cell's command: against the command of the cell
 *  alone (its defaults, as the static page shows it), so choosing nothing lists nothing, and
 *  what the engine adds for every command of the cell (multi-node flags, ports) is no change.
 *  Flags and env, as [{kind: added|changed|removed, was, now}]. */
export function diff(data, res) {
  var plain = plainOf(data, res.match);
  var base = {}, now = {}, out = [];
  plain.flags.forEach(function (f) { if (!has(base, f.name)) base[f.name] = f; });
  res.flags.forEach(function (f) { if (!has(now, f.name)) now[f.name] = f; });
  res.flags.forEach(function (f) {
    if (now[f.name] !== f) return;
    if (!has(base, f.name)) out.push({ kind: 'added', now: flagText(f) });
    else if (!sameFlag(base[f.name], f)) out.push({ kind: 'changed', was: flagText(base[f.name]), now: flagText(f) });
  });
  Object.keys(base).forEach(function (n) { if (!has(now, n)) out.push({ kind: 'removed', was: flagText(base[n]) }); });
  var baseEnv = {}, nowEnv = {};
  plain.env.forEach(function (e) { baseEnv[e.split('=')[0]] = envText(e); });
  res.env.forEach(function (e) { nowEnv[e.split('=')[0]] = envText(e); });
  Object.keys(nowEnv).forEach(function (n) {
    if (!has(baseEnv, n)) out.push({ kind: 'added', now: nowEnv[n] });
    else if (baseEnv[n] !== nowEnv[n]) out.push({ kind: 'changed', was: baseEnv[n], now: nowEnv[n] });
  });
  Object.keys(baseEnv).forEach(function (n) { if (!has(nowEnv, n)) out.push({ kind: 'removed', was: baseEnv[n] }); });
  return out;
}

/** effects.same_command: dimension id (not the hardware) -> its other options that give this
 *  very command here (the same platform, the other dimensions and the reader's settings
 *  ``sel`` as they are; the same flags, env and router). All at once (Node); the page runs
 *  sameQueue through sameProbe a few at a time. */
export function sameCommand(data, res, sel) {
  var probe = sameProbe(data, res, sel), out = {};
  sameQueue(data, res).forEach(function (q) { if (probe(q[0], q[1])) (out[q[0]] = out[q[0]] || []).push(q[1]); });
  return out;
}

/** The [dimension, option] pairs sameCommand tries: every other option of each dimension. */
export function sameQueue(data, res) {
  var out = [];
  list(data.model.dimensions).forEach(function (d) {
    d.options.forEach(function (o) { if (o.id !== res.match[d.id]) out.push([d.id, o.id]); });
  });
  return out;
}

/** Does picking ``option`` of dimension ``dim`` land on that cell and give ``res``'s command? */
export function sameProbe(data, res, sel) {
  var mine = commandKey(res);
  return function (dim, option) {
    var want = {}, asked = {};
    Object.keys(res.match).forEach(function (k) { want[k] = res.match[k]; });
    want[dim] = option;
    Object.keys(sel).forEach(function (k) { asked[k] = sel[k]; });
    Object.keys(want).forEach(function (k) { asked[k] = want[k]; });
    var other = compose(data, asked);
    return Object.keys(want).every(function (k) { return other.match[k] === want[k]; }) &&
      commandKey(other) === mine;
  };
}

function commandKey(res) {  // effects.command_key: what a reader copies and runs
  return JSON.stringify([res.flags.map(flagText), res.env,
    res.router ? res.router.map(function (g) { return g.map(flagText); }) : null]);
}

// --- options that would change nothing ---

export var NO_EFFECT = 'gate.no-effect', REFUSED = 'gate.refused';

function signatureOf(res) {  // effects.signature: what a reader can see change
  return JSON.stringify([res.flags.map(flagText), res.env,
    res.hints.map(function (h) { return [h.id, Object.keys(h.fields).sort().map(function (k) { return [k, h.fields[k]]; })]; }),
    res.router ? res.router.map(function (g) { return g.map(flagText); }) : null,
    res.calculations.map(function (c) { return [c.id, c.value, c.reason ? c.reason.id : null]; }),
    res.diagnostics.map(function (d) { return [d.rule, d.severity]; })]);
}

/** The enabled, unpicked options of the visible settings ``wanted`` keeps, as [axis, option]. */
export function probeQueue(res, wanted) {
  var queue = [];
  res.axes.forEach(function (a) {
    if (!a.visible || !wanted(a.axis)) return;
    a.options.forEach(function (o) { if (o.state === 'enabled' && o.id !== a.value) queue.push([a.axis, o.id]); });
  });
  return queue;
}

function errorRules(res) {
  var out = {};
  res.diagnostics.forEach(function (d) { if (d.severity === 'error') out[d.rule] = true; });
  return out;
}

/** (axis, option) -> null, NO_EFFECT (picking it shows the same result as ``res``) or
 *  REFUSED (its command has an error finding ``res`` has not): effects.probe_options. */
export function optionProbe(data, res) {
  var base = { avg_len: res.avg_len }, mine = signatureOf(res), errors = errorRules(res);
  Object.keys(res.match).forEach(function (k) { base[k] = res.match[k]; });
  Object.keys(res.picks).forEach(function (k) { if (res.picks[k] !== null) base[k] = res.picks[k]; });
  return function (axis, option) {
    var sel = {}, other;
    Object.keys(base).forEach(function (k) { sel[k] = base[k]; });
    sel[axis] = option;
    try { other = compose(data, sel); } catch (e) { if (isLater(e)) throw e; return null; }
    if (other.picks[axis] !== option) return null;
    if (signatureOf(other) === mine) return NO_EFFECT;
    var now = errorRules(other);
    return Object.keys(now).some(function (r) { return !errors[r]; }) ? REFUSED : null;
  };
}

// effects.explain: what a greyed option's reason names, as {reason, fields}; asked only when a
// reader points at the option (it composes up to a few dozen selections)
export function explainOption(data, res, axisId, option, reason) {
  var flat = { avg_len: res.avg_len };
  Object.keys(res.match).forEach(function (k) { flat[k] = res.match[k]; });
  Object.keys(res.picks).forEach(function (k) { if (res.picks[k] !== null) flat[k] = res.picks[k]; });
  function withPicks(extra) {
    var sel = {};
    Object.keys(flat).forEach(function (k) { sel[k] = flat[k]; });
    Object.keys(extra).forEach(function (k) { sel[k] = extra[k]; });
    return sel;
  }
  function picked(r, key) { return has(r.picks, key) && r.picks[key] !== null && r.picks[key] !== undefined ? r.picks[key] : r.match[key]; }
  function changes(sel, fixed, value) {
    var base, other;
    try { base = compose(data, sel); } catch (e) { if (isLater(e)) throw e; return false; }
    if (picked(base, fixed) !== value) return false;
    var sel2 = {};
    Object.keys(sel).forEach(function (k) { sel2[k] = sel[k]; });
    sel2[axisId] = option;
    try { other = compose(data, sel2); } catch (e) { if (isLater(e)) throw e; return false; }
    if (other.picks[axisId] !== option || picked(other, fixed) !== value) return false;
    if (signatureOf(other) === signatureOf(base)) return false;
    var was = errorRules(base), now = errorRules(other);
    return !Object.keys(now).some(function (r) { return !was[r]; });
  }
  function optionLabel(axis, id) {
    var found = axis.options.filter(function (o) { return o.id === id; })[0];
    return { id: found.label, fields: { value: id } };
  }
  if (reason === REFUSED) {
    var other = compose(data, withPicks((function () { var o = {}; o[axisId] = option; return o; })()));
    var errors = errorRules(res), fresh = other.diagnostics.filter(function (d) { return d.severity === 'error' && !errors[d.rule]; });
    return fresh.length ? { reason: 'gate.refused.why', fields: { why: fresh[0].message } } : { reason: REFUSED, fields: {} };
  }
  var axes = {}, axis;
  data.axes.forEach(function (a) { axes[a.id] = a; });
  axis = axes[axisId];
  var card = axis ? axis.card : null, mates = [];
  if (card) data.axes.forEach(function (a) {
    if (a.card === card && a.id !== axisId) a.options.forEach(function (o) { mates.push([a, o.id]); });
  });
  var i, extra;
  for (i = 0; i < mates.length; i++) {
    if (mates[i][1] === flat[mates[i][0].id]) continue;
    extra = {}; extra[mates[i][0].id] = mates[i][1];
    if (changes(withPicks(extra), mates[i][0].id, mates[i][1]))
      return { reason: 'gate.no-effect.with', fields: { setting: '@' + mates[i][0].label, value: optionLabel(mates[i][0], mates[i][1]) } };
  }
  var platforms = {}, others = list(data.model.hardware).filter(function (h) { return h !== flat.hw; });
  data.platforms.forEach(function (p) { platforms[p.id] = p.label; });
  var on = others.filter(function (h) { return changes(withPicks({ hw: h }), 'hw', h); });
  if (on.length) return { reason: 'gate.no-effect.on', fields: { platforms: on.map(function (h) { return platforms[h]; }).join(', ') } };
  for (i = 0; i < mates.length; i++) {
    var mate = mates[i];
    on = others.filter(function (h) { var x = { hw: h }; x[mate[0].id] = mate[1]; return changes(withPicks(x), mate[0].id, mate[1]); });
    if (on.length) return { reason: 'gate.no-effect.with-on', fields: { setting: '@' + mate[0].label, platforms: on.map(function (h) { return platforms[h]; }).join(', '), value: optionLabel(mate[0], mate[1]) } };
  }
  var current = res.axes.filter(function (a) { return a.axis === axisId; })[0].value;
  return { reason: 'gate.no-effect.same', fields: { current: optionLabel(axis, current) } };
}

export function probeOptions(data, res) {  // effects.probe_options, all at once (for Node)
  var probe = optionProbe(data, res), out = {};
  probeQueue(res, function () { return true; }).forEach(function (q) {
    var reason = probe(q[0], q[1]);
    if (reason) (out[q[0]] = out[q[0]] || {})[q[1]] = reason;
  });
  return out;
}
