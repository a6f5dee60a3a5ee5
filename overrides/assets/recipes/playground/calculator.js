/* Playground: the model's calculators (mirrors macros/engine/calculator.py).
 *
 * Owns evaluating one calculator on a command (calcEvaluate: its values, its applies_when,
 * its formula), and the two number formats it prints: fmt (the pinned value) and calcField
 * (an explanation's field: thousands separated, at most one decimal). Pure: no DOM.
 */
import { get, has, list, pyInt, toFixedPy } from './python.js';
import { evalExpr, evaluate } from './conditions.js';

// calculator.evaluate: one of the model's calculators, read from its data.
function CalcContext(flags, env, pd, values) { this._flags = flags; this._env = env; this.pd = pd; this.values = values; }
CalcContext.prototype.value = function (key) {
  if (key === 'pd') return this.pd || '';
  return has(this.values, key) ? this.values[key] : null;
};
CalcContext.prototype.flags = function () { return this._flags; };
CalcContext.prototype.cellFlags = function () { return null; };
CalcContext.prototype.env = function () { return this._env; };

export function calcEvaluate(calc, flags, env, pd, avgLen) {  // returns {values, value}
  var values = {}, ctx = new CalcContext(flags, env, pd, values);
  function lookup(name) {
    if (has(values, name)) return values[name];
    if (has(calc.constants || {}, name)) return calc.constants[name];
    if (name === 'avg_len' && avgLen !== null && avgLen !== undefined) return avgLen;
    throw new Error("unknown name '" + name + "'");
  }
  function worth(given, isText) {
    return isText || typeof given !== 'string' ? given : evalExpr(given, lookup);
  }
  var result;
  try {
    list(calc.values).forEach(function (v) {
      var read = v.flag ? get(flags, v.flag) || [] : [];
      if (read.length && (v.text || pyInt(read[0]) !== null)) {
        values[v.id] = v.text ? read[0] : pyInt(read[0]);
        return;
      }
      var cs = list(v.cases).filter(function (c) { return evaluate(c.when, ctx) === true; })[0];
      values[v.id] = worth(cs ? cs.value : v['default'], v.text);
    });
    if (evaluate(calc.applies_when, ctx) !== true) return { values: values, value: null };
    result = evalExpr(calc.formula, lookup);
  } catch (e) {
    return { values: values, value: null };
  }
  if (typeof result !== 'number' || !isFinite(result) || result <= 0) return { values: values, value: null };
  return { values: values, value: result };
}

// calculator.field: thousands separated, at most one decimal.
export function calcField(value) {
  if (typeof value !== 'number') return String(value);
  var text = toFixedPy(value, 1).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return /\.0$/.test(text) ? text.slice(0, -2) : text;
}

export function fmt(value) {
  if (value >= 10) return toFixedPy(value, 1);
  var text = value >= 1 ? toFixedPy(value, 2) : toFixedPy(value, 1 - Math.floor(Math.log10(value)));
  if (text.indexOf('.') >= 0) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return text;
}
