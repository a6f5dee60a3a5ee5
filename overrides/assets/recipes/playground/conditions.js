/* Playground: the condition interpreter (mirrors macros/engine/conditions.py).
 *
 * Owns the three-valued evaluation of an exported condition tree (evaluate: true, false or
 * null for "not known yet") and the {expression} templates (evalExpr, fill: integers,
 * + - * / //, parentheses, dotted names). A context is any object with value(key), flags(),
 * cellFlags() and env(). Pure: no DOM; Node imports it for the parity tests.
 */
import { has, norm, num, pyStr } from './python.js';

function testValue(actual, ops, ctx) {  // conditions.Test.holds
  if (actual === null || actual === undefined) return null;
  var result = true;
  for (var i = 0; i < ops.length; i++) {
    var outcome = testOp(actual, ops[i][0], ops[i][1], ctx);
    if (outcome === false) return false;
    if (outcome === null) result = null;
  }
  return result;
}

function testOp(actual, op, want, ctx) {  // conditions.Op.holds
  var a = norm(actual);
  switch (op) {
    case 'eq': return a === norm(want);
    case 'ne': return a !== norm(want);
    case 'ieq': return a.toLowerCase() === norm(want).toLowerCase();
    case 'in': return want.some(function (w) { return norm(w) === a; });
    case 'not_in': return !want.some(function (w) { return norm(w) === a; });
    case 'ne_var':
      var other = ctx.value(want);
      return other === null || other === undefined ? null : a !== norm(other);
    case 'gt_flag':
      var flags = ctx.flags();
      if (flags === null || flags === undefined) return null;
      var mine = num(actual), theirs = has(flags, want) ? num(flags[want].length ? flags[want][0] : 'true') : null;
      return mine !== null && theirs !== null && mine > theirs;
  }
  var x = num(actual), w = num(want);
  if (x === null || w === null) return false;
  return op === 'gt' ? x > w : op === 'ge' ? x >= w : op === 'lt' ? x < w : x <= w;
}

function and3(results) {
  var out = true;
  for (var i = 0; i < results.length; i++) {
    if (results[i] === false) return false;
    if (results[i] === null) out = null;
  }
  return out;
}

function source(ctx, name) {
  return name === 'flags' ? ctx.flags() : name === 'cell_flags' ? ctx.cellFlags() : ctx.env();
}

// One case per node kind of conditions.py; an absent condition (a default the export
// leaves out) holds, a 'bad' node (never exported from validated data) is unknown.
export function evaluate(node, ctx) {
  if (node === null || node === undefined) return true;
  var i, r;
  switch (node[0]) {
    case 'all':
      var out = true;
      for (i = 0; i < node[1].length; i++) {
        r = evaluate(node[1][i], ctx);
        if (r === false) return false;
        if (r === null) out = null;
      }
      return out;
    case 'any':
      var rs = node[1].map(function (c) { return evaluate(c, ctx); });
      if (rs.indexOf(true) >= 0) return true;
      return rs.indexOf(null) >= 0 ? null : false;
    case 'not':
      r = evaluate(node[1], ctx);
      return r === null ? null : !r;
    case 'key':
      return testValue(ctx.value(node[1]), node[2], ctx);
    case 'names':
      var present = source(ctx, node[1]);
      if (present === null) return null;
      var found = node[3].map(function (n) { return has(present, n); });
      if (node[2] === 'all') return found.indexOf(false) < 0;
      if (node[2] === 'none') return found.indexOf(true) < 0;
      return found.indexOf(true) >= 0;
    case 'tests':
      var given = source(ctx, node[1]);
      if (given === null) return null;
      var env = node[1] === 'env';
      return and3(node[2].map(function (entry) {  // a name that is absent fails its test
        if (!has(given, entry[0])) return false;
        var v = given[entry[0]];
        return testValue(env ? v : (v.length ? v[0] : 'true'), entry[1], ctx);
      }));
  }
  return null;
}

// {expression} templates: integers, + - * / //, parentheses and dotted names.
var TOKEN = /\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(\/\/|[-+*/()]))/y;
// Python's (?<!\{)\{([^{}]+)\}(?!\}) without lookbehind (older Safari lacks it): a match
// with an extra brace on either side is a {{PLACEHOLDER}} and stays as it is.
var TEMPLATE = /(\{*)\{([^{}]+)\}(\}*)/g;

export function evalExpr(text, lookup) {
  var tokens = [], pos = 0;
  text = text.trim();
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    var m = TOKEN.exec(text);
    if (!m || TOKEN.lastIndex === pos) throw new Error("cannot read '" + text.slice(pos) + "'");
    tokens.push(m[1] ? ['n', m[1]] : m[2] ? ['id', m[2]] : ['op', m[3]]);
    pos = TOKEN.lastIndex;
  }
  if (tokens.length === 1 && tokens[0][0] === 'id') return lookup(tokens[0][1]);
  var p = { t: tokens, i: 0 };
  var v = sum(p, lookup);
  if (p.i < tokens.length) throw new Error("unexpected '" + tokens[p.i][1] + "'");
  return v;
}

function atom(p, lookup) {
  var tok = p.t[p.i++];
  if (!tok) throw new Error('expression ends too early');
  if (tok[0] === 'n') return parseInt(tok[1], 10);
  if (tok[0] === 'id') {
    var v = lookup(tok[1]), n = num(v);
    if (n === null) throw new Error("'" + tok[1] + "' is not a number here");
    return n;
  }
  if (tok[1] === '(') {
    var inner = sum(p, lookup);
    if (!p.t[p.i] || p.t[p.i][1] !== ')') throw new Error("missing ')'");
    p.i++;
    return inner;
  }
  throw new Error("unexpected '" + tok[1] + "'");
}

function product(p, lookup) {
  var v = atom(p, lookup);
  while (p.i < p.t.length && ['*', '/', '//'].indexOf(p.t[p.i][1]) >= 0) {
    var op = p.t[p.i++][1], w = atom(p, lookup);
    if (op === '*') v = v * w;
    else if (w === 0) throw new Error('division by zero');
    else v = op === '//' ? Math.floor(v / w) : v / w;
  }
  return v;
}

function sum(p, lookup) {
  var v = product(p, lookup);
  while (p.i < p.t.length && (p.t[p.i][1] === '+' || p.t[p.i][1] === '-')) {
    var op = p.t[p.i++][1], w = product(p, lookup);
    v = op === '+' ? v + w : v - w;
  }
  return v;
}

export function fill(text, lookup) {  // conditions.fill: {{PLACEHOLDER}} is left alone
  return text.replace(TEMPLATE, function (m, pre, expr, post) {
    if (pre || post) return m;
    var v = evalExpr(expr, lookup);
    if (v === null || v === undefined || v === '') throw new Error("'{" + expr + "}' has no value here");
    return pyStr(v);
  });
}
