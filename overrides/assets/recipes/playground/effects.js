/* Playground: what a pick changes (mirrors macros/engine/effects.py).
 *
 * Owns the "changes against the recipe cell" list (diff, against the cell's own command) with
 * the settings that command is built with (cellDefaults), and the probe of the options that
 * would change nothing (gate.no-effect) or give a command SGLang refuses (gate.refused):
 * optionProbe and probeQueue for the page, probeOptions all at once for Node. Pure: no DOM.
 */
import { has } from './python.js';
import { envText, flagText, sameFlag } from './flags.js';
import { compose } from './resolve.js';

/** The Deploy settings the cell's own command is built with (what diff compares against),
 *  as [{axis, option}]: the settings without a card that the cell shows. */
export function cellDefaults(data, res) {
  var plain = compose(data, res.match), out = [];
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
  var plain = compose(data, res.match);
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
    try { other = compose(data, sel); } catch (e) { return null; }
    if (other.picks[axis] !== option) return null;
    if (signatureOf(other) === mine) return NO_EFFECT;
    var now = errorRules(other);
    return Object.keys(now).some(function (r) { return !errors[r]; }) ? REFUSED : null;
  };
}

export function probeOptions(data, res) {  // effects.probe_options, all at once (for Node)
  var probe = optionProbe(data, res), out = {};
  probeQueue(res, function () { return true; }).forEach(function (q) {
    var reason = probe(q[0], q[1]);
    if (reason) (out[q[0]] = out[q[0]] || {})[q[1]] = reason;
  });
  return out;
}
