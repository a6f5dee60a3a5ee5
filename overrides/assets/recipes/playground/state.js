/* Playground: the command while it is being composed (mirrors resolve._State).
 *
 * Owns State: the chosen cell and picks, the flag and env edits so far (with where each flag
 * came from), and the context the rules read of them: value(key), flags(), env(), the PD role
 * (pd), each calculator's reason and value, and lookup(name) for {expression} templates.
 * Pure: no DOM.
 */
import { attr, get, has, list, pyInt } from './python.js';
import { evaluate } from './conditions.js';
import { flagMap } from './flags.js';
import { calcEvaluate, fmt } from './calculator.js';

function pdServer(info, ctx) {  // resolve.pd_server
  if (!info.pd) return null;
  var kinds = ['prefill', 'decode'];
  for (var i = 0; i < kinds.length; i++) if (evaluate(info.pd[kinds[i]].when, ctx) === true) return kinds[i];
  return null;
}

// The command while it is being composed, and the context rules read (_State).
function calculatorOf(data, id) {
  return list(data.model.calculators).filter(function (c) { return c.id === id; })[0] || null;
}

export function State(data, ix, cell, match, avgLen) {
  this.data = data; this.ix = ix; this.cell = cell;
  this.release = null;  // the release the reader chose (null: the cell's image's)
  this.match = match; this.hw = match.hw; this.avgLen = avgLen;
  this.platform = ix.platforms[match.hw];
  this.cellFlagMap = flagMap(cell.flags.map(function (f) { return { name: f[0], values: f[1] }; }));
  this.picks = {};
  this.toks = cell.flags.map(function (f) { return { flag: { name: f[0], values: f[1].slice() }, origin: 'cell' }; });
  this.envItems = list(cell.env).map(function (e) {
    var i = e.indexOf('=');
    return [e.slice(0, i), e.slice(i + 1)];
  });
  this.hints = [];
  this.nodes = cell.nodes;
}

State.prototype.value = function (key) {
  if (has(this.match, key)) return this.match[key];
  if (key.indexOf('hw.') === 0) return attr(this.platform, key.slice(3));
  if (key.indexOf('cell.') === 0) return get(this.cell, key.slice(5));
  if (key === 'nodes') return this.nodes;
  if (key.indexOf('calculator.') === 0) {
    var calc = calculatorOf(this.data, key.slice(11));
    if (!calc) return null;
    return this.calcReason(calc) === null && this.calcValue(calc) !== null ? 'applicable' : 'not_applicable';
  }
  if (key === 'program') return 'server';
  if (key === 'router_bootstrap' || key === 'server_bootstrap') return null;
  if (has(this.picks, key)) return this.picks[key] === null ? '' : this.picks[key];  // hidden axis: ""
  return null;  // not picked yet: unknown
};
// Edits replace st.toks and st.envItems with new arrays, so a map is cached per array.
State.prototype.flags = function () {
  if (this._flagsOf !== this.toks) {
    this._flagsOf = this.toks;
    this._flags = flagMap(this.toks.map(function (t) { return t.flag; }));
  }
  return this._flags;
};
State.prototype.cellFlags = function () { return this.cellFlagMap; };
State.prototype.env = function () {
  if (this._envOf !== this.envItems) {
    var out = {};
    this.envItems.forEach(function (kv) { out[kv[0]] = kv[1]; });
    this._envOf = this.envItems;
    this._env = out;
  }
  return this._env;
};
State.prototype.calcReason = function (calc) {  // why calc does not apply here, or null
  var rules = list(this.data.rules.calculator);
  for (var i = 0; i < rules.length; i++) {
    if (rules[i].calculator === calc.id && evaluate(rules[i].when, this) === true) return rules[i].reason;
  }
  return null;
};
State.prototype.calcResult = function (calc) {  // calc on the command as it is now
  var flags = {}, all = this.flags();
  Object.keys(all).forEach(function (k) { if (k !== calc.pins) flags[k] = all[k]; });
  return calcEvaluate(calc, flags, this.env(), this.pd(), this.avgLen);
};
State.prototype.pd = function () {  // read once the axes are picked, as in _State.pd
  if (this._pd === undefined) this._pd = pdServer(this.data.model, this);
  return this._pd;
};
State.prototype.calcValue = function (calc) {
  return this.calcReason(calc) !== null ? null : this.calcResult(calc).value;
};
State.prototype.lookup = function (name) {
  if (name.indexOf('cell.') === 0 && /_size$/.test(name)) {
    var values = get(this.cellFlagMap, '--' + name.slice(5).replace(/_/g, '-'));
    if (!values || !values.length) return 1;
    var n = pyInt(values[0]);
    if (n === null) throw new Error('not an integer: ' + values[0]);
    return n;
  }
  if (name.indexOf('sel.') === 0) return get(this.picks, name.slice(4));
  if (name.indexOf('hw.') === 0) {
    if (!has(this.platform, name.slice(3))) throw new Error('unknown name ' + name);
    return this.platform[name.slice(3)];
  }
  if (name.indexOf('pd.ports.') === 0 && this.data.model.pd) {
    var server = get(this.data.model.pd, name.slice(9));
    if (server && (name === 'pd.ports.prefill' || name === 'pd.ports.decode')) return server.port;
  }
  if (name === 'nodes') return this.nodes;
  if (name.indexOf('calc.') === 0) {
    var calc = calculatorOf(this.data, name.slice(5));
    var v = calc ? this.calcValue(calc) : null;
    return v === null ? null : fmt(v);
  }
  throw new Error("unknown name '" + name + "'");
};
