/* Playground: findings for the generated command (mirrors macros/engine/check.py and the value
 * checks of macros/engine/catalog.py).
 *
 * Owns judging each flag against the command's release catalog (unknown, deprecated, a value
 * SGLang refuses: valueProblem), the env variables against the env registry, and the model's
 * own check rules, read in the rules' spelling (checkState). Pure: no DOM.
 */
import { attr, get, has, list, num, pyInt, pyStr } from './python.js';
import { evaluate } from './conditions.js';
import { PLACEHOLDER } from './flags.js';
import { catalogOf, legacy } from './releases.js';

function CheckContext(st, flags, env) { this.st = st; this._flags = flags; this._env = env; }
CheckContext.prototype.value = function (key) {
  var st = this.st;
  if (has(st.match, key)) return st.match[key];
  if (key === 'program') return 'server';
  if (key.indexOf('hw.') === 0) return attr(st.platform, key.slice(3));
  if (key.indexOf('cell.') === 0) return get(st.cell, key.slice(5));
  return get(st.picks, key);
};
CheckContext.prototype.flags = function () { return this._flags; };
CheckContext.prototype.cellFlags = function () { return this.st.cellFlagMap; };
CheckContext.prototype.env = function () { return this._env; };

var HUMAN_INT = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)$/;
var DECIMAL_SHIFT = { k: 3, M: 6, G: 9, T: 12 };
var IEC = { Ki: 1024, Mi: 1048576, Gi: 1073741824, Ti: 1099511627776 };

function numberOf(kind, v) {  // catalog._number: the value as the flag's type reads it, or null
  if (kind === 'float') return num(v);
  if (kind === 'human_readable_int') {
    var m = HUMAN_INT.exec(v.trim());
    if (m && has(IEC, m[2])) {  // a decimal IEC size ("1.5Mi") is refused, as SGLang does
      var whole = pyInt(m[1]);
      return whole === null ? null : whole * IEC[m[2]];
    }
    if (m) {  // exact decimal shift, then truncation: int(Decimal(number) * 10**k)
      var parts = m[1].split('.'), shift = DECIMAL_SHIFT[m[2]];
      return parseInt(parts[0] + ((parts[1] || '') + '000000000000').slice(0, shift), 10);
    }
  }
  return pyInt(v);
}

function describeBound(b) {  // catalog.Bound.describe
  var text = b.min !== null && b.max !== null ? 'from ' + pyStr(b.min) + ' to ' + pyStr(b.max)
    : [b.min !== null ? 'at least ' + pyStr(b.min) : null,
       b.above !== null ? 'above ' + pyStr(b.above) : null,
       b.max !== null ? 'at most ' + pyStr(b.max) : null].filter(Boolean).join(' and ');
  return text + list(b.also).map(function (a) { return ' or ' + pyStr(a); }).join('');
}

function boundProblem(b, n) {  // catalog.Bound.problem
  if (list(b.also).indexOf(n) >= 0) return null;
  if ((b.min !== null && n < b.min) || (b.above !== null && n <= b.above) || (b.max !== null && n > b.max))
    return 'must be ' + describeBound(b) + ' (' + b.means + ')';
  return null;
}

function typeProblem(kind, v) {
  var size = kind === 'human_readable_int' ? HUMAN_INT.exec(v.trim()) : null;
  if (size && has(IEC, size[2]) && size[1].indexOf('.') >= 0)  // catalog._number's own reason
    return "'" + v + "' has a decimal with an IEC suffix, which SGLang refuses: write an integer IEC size such as '" +
      size[1].split('.')[0].replace(/^0+(?=\d)/, '') + size[2] + "' or an SI size such as '" + size[1] + size[2][0].replace('K', 'k') + "'";
  if (kind === 'int' || kind === 'float' || kind === 'human_readable_int') {
    var n = numberOf(kind, v);
    if (n === null) return "'" + v + "' " + { int: 'is not an integer', float: 'is not a number',
      human_readable_int: 'is not a size like 65536, 128k or 1Mi' }[kind];
    if (!isFinite(n)) return "'" + v + "' is not a finite number";
  }
  if (kind === 'json') {
    try { JSON.parse(v); } catch (e) { return "'" + v + "' is not valid JSON"; }
  }
  return null;
}

// catalog.value_problem, or database.branch_value_problem with the values the model's branch
// adds to this flag (`added`, its branch_values entry): those are judged as placeholders are.
export function valueProblem(name, spec, values, added) {
  if (!spec.takes_value) return values.length ? name + " takes no value (got '" + values.join(' ') + "')" : null;
  if (!values.length && spec.nargs !== '*' && spec.nargs !== '?') return name + ' needs a value';
  if ((spec.nargs === null || spec.nargs === undefined || spec.nargs === 1 || spec.nargs === '?') && values.length > 1)
    return name + ' takes one value (got ' + values.length + ': ' + values.join(' ') + ')';
  if (typeof spec.nargs === 'number' && spec.nargs > 1 && values.length !== spec.nargs)
    return name + ' takes ' + spec.nargs + ' values (got ' + values.length + ')';
  for (var i = 0; i < values.length; i++) {
    var v = values[i];
    if (PLACEHOLDER.test(v) || (added && has(added, v))) continue;
    if (spec.choices && spec.choices.indexOf(v) < 0)
      return name + ' ' + v + ": '" + v + "' is not a valid choice (valid: " + spec.choices.join(', ') + ')';
    if (spec.late_choices && !spec.late_choices.some(function (c) { return String(c).toUpperCase() === v.toUpperCase(); }))
      return name + ' ' + v + ": SGLang rejects '" + v + "' at startup (valid: " + spec.late_choices.join(', ') + ')';
    var bad = typeProblem(spec.type, v);
    if (!bad && spec.bound) bad = boundProblem(spec.bound, numberOf(spec.type, v));
    if (bad) return name + ' ' + v + ': ' + bad;
  }
  return null;
}

function finding(severity, rule, flags, fields, textId) {
  return { severity: severity, rule: rule, message: { id: textId || rule, fields: fields || {} }, flags: flags };
}

// catalog.below_problems: a flag bounded by another (strictly below it, or at most it); the
// bounding flag counts with its default when the command leaves it out.
function belowProblems(catalog, given) {
  var below = catalog.below || {}, out = [];
  Object.keys(below).forEach(function (name) {
    var other = below[name][0], means = below[name][1], strict = below[name][2], dflt = below[name][3];
    var spec = get(catalog.flags, name), ospec = get(catalog.flags, other);
    var one = function (s, values) {  // catalog._one_number
      return !s || !values || values.length !== 1 || PLACEHOLDER.test(values[0]) ? null : numberOf(s.type, values[0]);
    };
    var value = one(spec, get(given, name)), absent = !has(given, other);
    var limit = absent ? (typeof dflt === 'number' ? dflt : null) : one(ospec, given[other]);
    if (value === null || limit === null || value < limit || (value === limit && !strict)) return;
    var shown = absent ? pyStr(limit) + ', its default' : given[other][0];
    out.push([name, other, name + ' ' + given[name][0] + ': must be ' + (strict ? 'less than' : 'at most') +
              ' ' + other + ' (' + shown + '): ' + means]);
  });
  return out;
}

export function checkState(st, flags, env, release) {  // as the command's release parses it
  var data = st.data, catalog = catalogOf(data, release), out = [];
  var branchValues = data.model.branch_values || {}, given = {};
  Object.keys(flags).forEach(function (name) {
    var spec = get(catalog.flags, name);
    if (!spec) return out.push(finding('error', 'catalog.unknown-flag', [name], { flag: name }));
    if (spec.deprecated) out.push(finding('warning', 'catalog.deprecated-flag', [name],
                                          { flag: name, why: spec.deprecated.replace(/^deprecated:\s*/, '') }));
    var problem = valueProblem(name, spec, flags[name], get(branchValues, name));
    if (problem) out.push(finding('error', 'catalog.bad-value', [name], { problem: problem }));
    else given[name] = flags[name];
  });
  belowProblems(catalog, given).forEach(function (p) {
    out.push(finding('error', 'catalog.bad-value', [p[0], p[1]], { problem: p[2] }));
  });
  if (!has(flags, '--model-path')) out.push(finding('error', 'catalog.missing-model', ['--model-path']));
  var branch = data.model.branch_env || {}, deprecated = catalog.env_deprecated || {};
  Object.keys(env).forEach(function (name) {
    if (has(deprecated, name))
      out.push(finding('warning', 'catalog.deprecated-env', [name], { env: name, why: deprecated[name] }));
    else if (name.indexOf('SGLANG_') === 0 && catalog.env.indexOf(name) < 0 && !has(branch, name))
      out.push(finding('warning', 'catalog.unknown-env', [name], { env: name }));
  });
  var ruleFlags = legacy(data, flags), ctx = new CheckContext(st, ruleFlags, env);  // the rules' spelling
  list(data.rules.checks).forEach(function (rule) {
    if (evaluate(rule.when, ctx) !== true) return;
    var involved = list(rule.flags).filter(function (f) { return has(ruleFlags, f); });
    if (!involved.length) involved = list(rule.flags).slice();
    involved = involved.concat(list(rule.flags_from_env).filter(function (e) { return has(env, e); }));
    out.push(finding(rule.severity, rule.id, involved, {}, rule.message));
  });
  return out;
}
