/* The Recipe Playground: composes an SGLang command in the browser from a model's JSON export
 * (macros/site/export.py), with the same algorithm as the Python engine.
 *
 * Part 1 is a pure interpreter with no DOM access; Node loads it for the parity test
 * (tests/js/parity.mjs), which proves it prints what `recipes command` prints for every
 * reachable selection. It mirrors, function by function:
 *   macros/engine/conditions.py  evaluate, fill, evalExpr (three-valued conditions, {expression})
 *   macros/engine/flags.py       quote, parseFlagText
 *   macros/engine/calculator.py  calcEvaluate, calcField, fmt
 *   macros/engine/resolve.py     compose (= resolve(..., strict=False)), effective configuration
 *   macros/engine/check.py       catalog and rule findings for the generated command
 *   macros/site/render.py      commandText, routerText
 *   macros/site/runmodes.py    dockerText, curlText, pythonText
 *   macros/cli.py         wholeNumber (= _avg_len: request lengths in the URL hash and input)
 * Part 2 is a thin DOM layer: controls, output blocks, copy buttons and the URL hash. It builds
 * every node with createElement/textContent and makes no request beyond the page's own JSON.
 */
(function () {
  'use strict';

  // ===== Part 1: the interpreter ==============================================================

  // --- Python value semantics (str(), float(), int(), round()) ---

  function pyStr(v) {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    return String(v);
  }

  function norm(v) {  // conditions._norm
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v === null || v === undefined) return 'null';
    return String(v);
  }

  function num(v) {  // conditions._num: float(value), or null
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'number') return v;
    if (typeof v !== 'string') return null;
    var s = v.trim().replace(/(\d)_(?=\d)/g, '$1');
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return parseFloat(s);
    var m = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
    if (!m) return null;
    if (m[2].toLowerCase() === 'nan') return NaN;
    return m[1] === '-' ? -Infinity : Infinity;
  }

  function pyInt(s) {  // int(str) or null (ValueError)
    if (typeof s !== 'string' || !/^\s*[+-]?\d+(_\d+)*\s*$/.test(s)) return null;
    return parseInt(s.replace(/_/g, ''), 10);
  }

  function roundHalfEven(x) {
    var f = Math.floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return f % 2 === 0 ? f : f + 1;
  }

  function toFixedPy(x, digits) {  // f"{x:.{digits}f}": exact binary value, ties to even
    if (!isFinite(x)) return String(x);
    var B = BigInt, view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, Math.abs(x));
    var hi = view.getUint32(0), exp = (hi >>> 20) & 0x7ff;
    var mant = B(hi & 0xfffff) * B(4294967296) + B(view.getUint32(4));
    if (exp) mant += B(1) << B(52); else exp = 1;  // normal or subnormal
    var e = exp - 1075, n = mant * B(10) ** B(digits), q;  // |x| = mant * 2^e exactly
    if (e >= 0) q = n << B(e);
    else {
      var den = B(1) << B(-e), twice = (n % den) * B(2);
      q = n / den;
      if (twice > den || (twice === den && q % B(2) === B(1))) q += B(1);
    }
    var t = q.toString();
    while (t.length <= digits) t = '0' + t;
    if (digits) t = t.slice(0, t.length - digits) + '.' + t.slice(t.length - digits);
    return (x < 0 || Object.is(x, -0) ? '-' : '') + t;
  }

  function splitLines(text) {  // str.splitlines()
    var parts = String(text).split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
    if (parts.length && parts[parts.length - 1] === '') parts.pop();
    return parts;
  }

  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }
  function get(obj, key) { return obj && has(obj, key) ? obj[key] : null; }
  function attr(obj, key) {  // conditions.attr: a known object's absent or null field reads as ""
    var v = get(obj, key);
    return v === null || v === undefined ? '' : v;
  }

  // --- conditions.py: the parsed tree (Node.json) ---

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
  function evaluate(node, ctx) {
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

  function evalExpr(text, lookup) {
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

  function fill(text, lookup) {  // conditions.fill: {{PLACEHOLDER}} is left alone
    return text.replace(TEMPLATE, function (m, pre, expr, post) {
      if (pre || post) return m;
      var v = evalExpr(expr, lookup);
      if (v === null || v === undefined || v === '') throw new Error("'{" + expr + "}' has no value here");
      return pyStr(v);
    });
  }

  // --- flags.py ---

  // Bare characters, as in flags.py; reader placeholders the database declares (<rank>,
  // <node0-ip> …) also stay unquoted, like the upstream page prints them.
  var BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;
  var READER = {}, READER_FROM = null;

  function setReaderPlaceholders(list) {
    READER = {};
    list.forEach(function (p) { READER[p] = true; });
  }

  function readerPlaceholdersOf(data) {
    if (READER_FROM === data) return;
    var found = [];
    var texts = Object.keys(data.model.placeholders).map(function (k) { return data.model.placeholders[k]; })
      .concat(data.model.pd ? data.model.pd.router.flags : []);
    texts.forEach(function (text) { found = found.concat(text.match(/<[a-z0-9][a-z0-9.-]*>/g) || []); });
    setReaderPlaceholders(found);
    READER_FROM = data;
  }

  function quote(value) {
    if (!value) return "''";  // shlex.quote
    if (BARE.test(value)) return value;
    if (value.indexOf('<') >= 0) {
      var tokens = value.match(/<[^<>]*>/g) || [];
      var rest = value.replace(/<[^<>]*>/g, '');
      if (tokens.length && tokens.every(function (tok) { return READER[tok] === true; }) &&
          (!rest || BARE.test(rest))) return value;
    }
    return "'" + value.replace(/'/g, "'\"'\"'") + "'";
  }

  function flagText(f) { return [f.name].concat(f.values.map(quote)).join(' '); }
  function sameFlag(a, b) { return a.name === b.name && a.values.join('\0') === b.values.join('\0') && a.values.length === b.values.length; }

  function envText(assignment) {
    var i = assignment.indexOf('=');
    var name = i < 0 ? assignment : assignment.slice(0, i), value = i < 0 ? '' : assignment.slice(i + 1);
    return value ? name + '=' + quote(value) : name + '=';
  }

  function shlexSplit(text) {  // shlex.split(text, posix=True)
    var words = [], word = null, q = null;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (q === "'") { if (c === "'") q = null; else word += c; continue; }
      if (q === '"') {
        if (c === '"') q = null;
        else if (c === '\\' && i + 1 < text.length && '\\"$`\n'.indexOf(text[i + 1]) >= 0) word += text[++i];
        else word += c;
        continue;
      }
      if (/\s/.test(c)) { if (word !== null) { words.push(word); word = null; } continue; }
      if (word === null) word = '';
      if (c === "'" || c === '"') q = c;
      else if (c === '\\' && i + 1 < text.length) word += text[++i];
      else word += c;
    }
    if (q) throw new Error('No closing quotation');
    if (word !== null) words.push(word);
    return words;
  }

  function parseFlagText(text) {
    var flags = [];
    shlexSplit(text).forEach(function (word) {
      if (word.indexOf('--') === 0) {
        var i = word.indexOf('=');
        flags.push(i < 0 ? { name: word, values: [] } : { name: word.slice(0, i), values: [word.slice(i + 1)] });
      } else if (flags.length) {
        flags[flags.length - 1].values.push(word);
      } else {
        throw new Error("'" + word + "' does not start with --");
      }
    });
    return flags;
  }

  function flagMap(flags) {  // {f.name: f.values for f in flags}
    var out = {};
    flags.forEach(function (f) { out[f.name] = f.values; });
    return out;
  }

  // --- calculator.py ---

  // calculator.evaluate: one of the model's calculators, read from its data.
  function CalcContext(flags, env, pd, values) { this._flags = flags; this._env = env; this.pd = pd; this.values = values; }
  CalcContext.prototype.value = function (key) {
    if (key === 'pd') return this.pd || '';
    return has(this.values, key) ? this.values[key] : null;
  };
  CalcContext.prototype.flags = function () { return this._flags; };
  CalcContext.prototype.cellFlags = function () { return null; };
  CalcContext.prototype.env = function () { return this._env; };

  function calcEvaluate(calc, flags, env, pd, avgLen) {  // returns {values, value}
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
  function calcField(value) {
    if (typeof value !== 'number') return String(value);
    var text = toFixedPy(value, 1).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return /\.0$/.test(text) ? text.slice(0, -2) : text;
  }

  function fmt(value) {
    if (value >= 10) return toFixedPy(value, 1);
    var text = value >= 1 ? toFixedPy(value, 2) : toFixedPy(value, 1 - Math.floor(Math.log10(value)));
    if (text.indexOf('.') >= 0) text = text.replace(/0+$/, '').replace(/\.$/, '');
    return text;
  }

  // --- releases.py: the release a command is written for, and the spellings it replaces ---

  function releaseOf(data, given) {  // Releases.resolve
    var r = data.releases;
    if (given === null || given === undefined) return r.pinned;
    return given === 'latest' ? r.newest : given;
  }

  function migrate(data, flags, release) {  // Releases.migrate
    var out = flags.slice(), rewrites = [];
    list(data.releases.migrations).forEach(function (m) {
      var names = out.map(function (f) { return f.name; }), at = names.indexOf(m.flag);
      if (at < 0 || m.applies_in.indexOf(release) < 0) return;
      var old = {}, renamed = [], added = [], dflt = m['default'] || {};
      old[at] = out[at];
      Object.keys(m.rename).forEach(function (partner) {
        var to = m.rename[partner], i = names.indexOf(partner);
        if (i >= 0) {
          old[i] = out[i];
          out[i] = { name: to, values: out[i].values.slice() };
          renamed.push(out[i]);
        } else {
          added.push({ name: to, values: has(dflt, to) ? [dflt[to]] : [] });
        }
      });
      out.splice.apply(out, [at, 1].concat(added));
      var order = Object.keys(old).map(Number).sort(function (a, b) { return a - b; });
      rewrites.push({ flag: m.flag, old: order.map(function (k) { return flagText(old[k]); }).join(' '),
                      'new': renamed.concat(added).map(flagText).join(' '), since: m.since,
                      removal: get(m.removal || {}, release) });
    });
    return { flags: out, rewrites: rewrites };
  }

  function legacy(data, flags) {  // Releases.legacy: the replacement read in the rules' spelling
    var out = {};
    Object.keys(flags).forEach(function (k) { out[k] = flags[k]; });
    list(data.releases.migrations).forEach(function (m) {
      var partners = Object.keys(m.rename);
      if (has(out, m.flag) || !partners.some(function (p) { return has(out, m.rename[p]); })) return;
      partners.forEach(function (partner) {
        var to = m.rename[partner];
        if (has(out, to) && !has(out, partner)) { out[partner] = out[to]; delete out[to]; }
      });
      out[m.flag] = [];
    });
    return out;
  }

  // --- resolve.py: indexes built once per export ---

  var INDEX = typeof WeakMap !== 'undefined' ? new WeakMap() : null;

  function indexOf(data) {
    var ix = INDEX && INDEX.get(data);
    if (ix) return ix;
    ix = { cells: {}, prefixes: {}, platforms: {}, gates: {}, transforms: {}, dims: dimensionsOf(data) };
    data.cells.forEach(function (cell) {
      var key = ix.dims.map(function (d) { return cell.match[d]; });
      ix.cells[key.join('|')] = cell;
      for (var i = 1; i <= key.length; i++) ix.prefixes[key.slice(0, i).join('|')] = true;
    });
    data.platforms.forEach(function (p) { ix.platforms[p.id] = p; });
    (data.rules.gates || []).forEach(function (g) {
      [['hide', 0], ['disable', 1]].forEach(function (kind) {
        var byAxis = g[kind[0]] || {};
        Object.keys(byAxis).forEach(function (axisId) {
          byAxis[axisId].forEach(function (o) {
            var k = axisId + '|' + String(o);
            (ix.gates[k] = ix.gates[k] || [[], []])[kind[1]].push(g);
          });
        });
      });
    });
    (data.rules.transforms || []).forEach(function (t) {
      Object.keys(t['for'] || {}).forEach(function (axisId) {
        var bound = t['for'][axisId];
        (Array.isArray(bound) ? bound : [bound]).forEach(function (o) {
          var k = axisId + '|' + String(o);
          (ix.transforms[k] = ix.transforms[k] || []).push(t);
        });
      });
    });
    if (INDEX) INDEX.set(data, ix);
    return ix;
  }

  function list(x) { return x || []; }

  // The ordered keys of a cell: the hardware, then the dimensions the model declares.
  function dimensionsOf(data) {
    return ['hw'].concat(list(data.model.dimensions).map(function (d) { return d.id; }));
  }

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

  function State(data, ix, cell, match, avgLen) {
    this.data = data; this.ix = ix; this.cell = cell;
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

  // Context for gating the dimensions, before a cell is chosen (_GateContext).
  function GateContext(platform, prefix) { this.platform = platform; this.prefix = prefix; }
  GateContext.prototype.value = function (key) {
    if (has(this.prefix, key)) return this.prefix[key];
    if (key.indexOf('hw.') === 0 && this.platform) return attr(this.platform, key.slice(3));
    return null;
  };
  GateContext.prototype.flags = GateContext.prototype.cellFlags = GateContext.prototype.env =
    function () { return null; };

  function gateState(data, ctx, axisId, option, exists) {
    var gates = list(data.rules.gates), i;
    for (i = 0; i < gates.length; i++) {
      if (list((gates[i].hide || {})[axisId]).indexOf(option) >= 0 && evaluate(gates[i].when, ctx) === true)
        return { id: option, state: 'hidden', reason: null };
    }
    for (i = 0; i < gates.length; i++) {
      if (list((gates[i].disable || {})[axisId]).indexOf(option) >= 0 && evaluate(gates[i].when, ctx) === true)
        return { id: option, state: 'disabled', reason: gates[i].reason || null };
    }
    if (!exists) return { id: option, state: 'disabled', reason: 'gate.no-cell' };
    return { id: option, state: 'enabled', reason: null };
  }

  function dimensionStates(data, dim, prefix) {  // resolve.dimension_states
    var ix = indexOf(data), ctx = new GateContext(ix.platforms[prefix.hw], prefix);
    var earlier = ix.dims.slice(0, ix.dims.indexOf(dim)).map(function (d) { return prefix[d]; });
    var options = list(data.model.dimensions).filter(function (d) { return d.id === dim; })[0].options;
    return options.map(function (o) {
      if (evaluate(o.when, ctx) !== true)
        return { id: o.id, state: 'hidden', reason: null };
      return gateState(data, ctx, dim, o.id, has(ix.prefixes, earlier.concat([o.id]).join('|')));
    });
  }

  function choose(value, states) {
    var enabled = states.filter(function (s) { return s.state === 'enabled'; });
    if (enabled.some(function (s) { return s.id === value; })) return value;
    if (!enabled.length) throw new Error('nothing is available');
    return enabled[0].id;
  }

  function optionState(st, axisId, option) {
    var gates = st.ix.gates[axisId + '|' + option] || [[], []], i;
    for (i = 0; i < gates[0].length; i++) if (evaluate(gates[0][i].when, st) === true) return { id: option, state: 'hidden', reason: null };
    for (i = 0; i < gates[1].length; i++) {
      if (evaluate(gates[1][i].when, st) === true) return { id: option, state: 'disabled', reason: gates[1][i].reason || null };
    }
    return { id: option, state: 'enabled', reason: null };
  }

  function pickAxis(st, axis, wanted) {
    var visible = evaluate(axis.show_when, st) === true;
    var states = axis.options.map(function (o) { return optionState(st, axis.id, o.id); });
    if (visible && states.every(function (s) { return s.state === 'hidden'; })) visible = false;
    if (!visible) return { axis: axis.id, visible: false, value: null, options: states };
    var dflt = axis.default === undefined ? null : axis.default;
    var rules = list(axis.default_by);
    for (var i = 0; i < rules.length; i++) {
      if (evaluate(rules[i].when, st) === true) { dflt = rules[i].value; break; }
    }
    var byId = {};
    states.forEach(function (s) { byId[s.id] = s; });
    var enabled = states.filter(function (s) { return s.state === 'enabled'; });
    var value = wanted !== null && wanted !== undefined ? String(wanted) : dflt;
    var chosen = value === null ? null : get(byId, value);
    if (!chosen || chosen.state !== 'enabled') {
      if (!enabled.length) return { axis: axis.id, visible: false, value: null, options: states };
      var d = dflt === null ? null : get(byId, dflt);
      value = d && d.state === 'enabled' ? dflt : enabled[0].id;
    }
    return { axis: axis.id, visible: true, value: value, options: states };
  }

  function applyOption(st, axis, option) {
    var strip = list(option.strip).slice(), add = list(option.add).slice(), env = list(option.env).slice();
    var stripEnv = list(option.strip_env).slice(), hints = list(option.hints).slice(), nodes = null;
    (st.ix.transforms[axis.id + '|' + option.id] || []).forEach(function (t) {
      if (evaluate(t.when, st) !== true) return;
      strip = strip.concat(list(t.strip)); add = add.concat(list(t.add)); env = env.concat(list(t.env));
      stripEnv = stripEnv.concat(list(t.strip_env)); hints = hints.concat(list(t.hints));
      nodes = t.nodes || nodes;
    });
    applyEdit(st, strip, add, env, stripEnv, hints, [], nodes);
  }

  function applyEdit(st, strip, add, env, stripEnv, hints, insertAfter, nodes) {
    var lookup = st.lookup.bind(st);
    if (nodes) st.nodes = Math.trunc(num(evalExpr(nodes.replace(/^[{} ]+|[{} ]+$/g, ''), lookup)));
    var added = [];
    add.forEach(function (text) { added = added.concat(parseFlagText(fill(text, lookup))); });
    if (insertAfter.length) {
      var last = -1;
      st.toks.forEach(function (t, i) { if (insertAfter.indexOf(t.flag.name) >= 0) last = i; });
      var at = last < 0 ? st.toks.length : last + 1;
      var toks = added.map(function (f) { return { flag: f, origin: 'sel' }; });
      st.toks = st.toks.slice(0, at).concat(toks, st.toks.slice(at));
    } else if (strip.length || added.length) {
      st.toks = splice(st.toks, strip, added);
    }
    if (env.length || stripEnv.length) editEnv(st, env, stripEnv);
    hints.forEach(function (h) {
      if (!st.hints.some(function (x) { return x.id === h; })) st.hints.push({ id: h, fields: {} });
    });
  }

  // Stripped flags make room: added flags of a stripped name take the first stripped flag's
  // place as a block; an added flag whose name is already present replaces it where it is;
  // the rest go before --host/--port.
  function splice(toks, strip, added) {
    var block = added.filter(function (f) { return strip.indexOf(f.name) >= 0; });
    var rest = added.filter(function (f) { return strip.indexOf(f.name) < 0; });
    var out = [], placed = false, used = {};
    toks.forEach(function (t) {
      if (strip.indexOf(t.flag.name) >= 0) {
        if (!placed) {
          block.forEach(function (f) { out.push({ flag: f, origin: 'sel' }); });
          placed = true;
        }
        return;
      }
      var hit = -1;
      for (var i = 0; i < rest.length; i++) if (rest[i].name === t.flag.name && !used[i]) { hit = i; break; }
      if (hit >= 0) {
        used[hit] = true;
        out.push({ flag: rest[hit], origin: sameFlag(rest[hit], t.flag) ? t.origin : 'sel' });
      } else {
        out.push(t);
      }
    });
    var tail = (placed ? [] : block).concat(rest.filter(function (f, i) { return !used[i]; }));
    if (tail.length) {
      var at = out.length;
      for (var j = 0; j < out.length; j++) if (out[j].flag.name === '--host' || out[j].flag.name === '--port') { at = j; break; }
      out = out.slice(0, at).concat(tail.map(function (f) { return { flag: f, origin: 'sel' }; }), out.slice(at));
    }
    return out;
  }

  function editEnv(st, env, stripEnv) {
    var current = st.envItems.filter(function (kv) { return stripEnv.indexOf(kv[0]) < 0; });
    env.forEach(function (item) {
      var i = item.indexOf('=');
      var name = i < 0 ? item : item.slice(0, i), value = i < 0 ? '' : item.slice(i + 1);
      var at = -1;
      for (var j = 0; j < current.length; j++) if (current[j][0] === name) { at = j; break; }
      if (at < 0) current.push([name, value]); else current[at] = [name, value];
    });
    st.envItems = current;
  }

  function firstMatch(rules, ctx) {
    for (var i = 0; i < rules.length; i++) if (evaluate(rules[i].when, ctx) === true) return rules[i];
    return null;
  }

  function placeholders(st, modelName) {
    var info = st.data.model, values = {};
    Object.keys(info.placeholders).forEach(function (k) { values[k] = info.placeholders[k]; });
    values.MODEL_NAME = modelName;
    if (info.pd) {
      values.PREFILL_PORT = String(info.pd.prefill.port);
      values.DECODE_PORT = String(info.pd.decode.port);
      values.ROUTER_PORT = String(info.pd.router.port);
      values.BOOTSTRAP_PORT = String(info.pd.bootstrap_port);
    }
    return values;
  }

  function fillPlaceholders(text, values) {
    if (text.indexOf('{{') < 0) return text;
    Object.keys(values).forEach(function (k) { text = text.split('{{' + k + '}}').join(values[k]); });
    return text;
  }

  /** Compose the command for a selection ({hw, <dimension>: option, avg_len, <axis>: option}).
   *  Same as resolve(db, model, ..., strict=False): an impossible selection snaps to the
   *  nearest valid one. Unknown keys are ignored (a URL hash may carry anything). */
  function compose(data, selection) {
    return composeWith(data, selection, true);
  }

  function composeWith(data, selection, checkShape) {
    readerPlaceholdersOf(data);
    var sel = selection || {}, info = data.model, ix = indexOf(data);
    var match = { hw: info.hardware.indexOf(sel.hw) >= 0 ? sel.hw : info.hardware[0] };
    var dimStates = {};
    ix.dims.slice(1).forEach(function (dim) {
      dimStates[dim] = dimensionStates(data, dim, match);
      match[dim] = choose(has(sel, dim) ? sel[dim] : null, dimStates[dim]);
    });
    var cell = ix.cells[ix.dims.map(function (d) { return match[d]; }).join('|')];
    var avgLen = null;  // only a model whose calculators read a request length has one
    if (info.request_length) {
      avgLen = sel.avg_len === undefined || sel.avg_len === null ? info.request_length['default'] : Number(sel.avg_len);
      if (!(avgLen > 0) || !Number.isInteger(avgLen)) throw new Error('avg_len must be a positive whole number of tokens');
    }
    var st = new State(data, ix, cell, match, avgLen);
    // Pick every axis first (gates read the cell and earlier picks), then edit the command.
    var axisStates = data.axes.map(function (axis) {
      var s = pickAxis(st, axis, has(sel, axis.id) ? sel[axis.id] : null);
      st.picks[axis.id] = s.value;
      return s;
    });
    data.axes.forEach(function (axis) {
      var value = st.picks[axis.id];
      if (value !== null) applyOption(st, axis, axis.options.filter(function (o) { return o.id === value; })[0]);
    });
    list(data.rules.transforms).forEach(function (t) {
      if (!t['for'] && evaluate(t.when, st) === true) {
        applyEdit(st, list(t.strip), list(t.add), list(t.env), list(t.strip_env), list(t.hints), list(t.insert_after), t.nodes || null);
      }
    });
    st.checkShape = checkShape;
    return finish(st, axisStates, dimStates);
  }

  // resolve._verified_commands: the commands the cell's verifying round ran, once per cell.
  function verifiedCommands(st) {
    var ix = st.ix, key = ix.dims.map(function (d) { return st.match[d]; }).join('|');
    ix.verified = ix.verified || {};
    if (!has(ix.verified, key)) {
      ix.verified[key] = [{}].concat(list(st.cell.verified_with)).map(function (picks) {
        var sel = {};
        Object.keys(st.match).forEach(function (k) { sel[k] = st.match[k]; });
        Object.keys(picks).forEach(function (k) { sel[k] = picks[k]; });
        var res = composeWith(st.data, sel, false);
        return { flags: res.flags.map(flagText), env: res.env };
      });
    }
    return ix.verified[key];
  }

  // resolve._derived: null when the command is one its cell was verified with, else the changes
  function derivedChanges(st, flags, env) {
    var shapes = verifiedCommands(st), same = function (a, b) { return a.join('\0') === b.join('\0') && a.length === b.length; };
    if (shapes.some(function (s) { return same(s.flags, flags) && same(s.env, env); })) return null;
    var base = shapes[0], out = [];
    flags.forEach(function (x) { if (base.flags.indexOf(x) < 0) out.push('+' + x); });
    base.flags.forEach(function (x) { if (flags.indexOf(x) < 0) out.push('-' + x); });
    env.forEach(function (x) { if (base.env.indexOf(x) < 0) out.push('+' + x); });
    base.env.forEach(function (x) { if (env.indexOf(x) < 0) out.push('-' + x); });
    return out.length ? out : ['flag order'];
  }

  function finish(st, axisStates, dimStates) {
    var info = st.data.model;
    var modelName = firstMatch(info.model_names, st).name;
    var imageRule = firstMatch(info.docker_images, st), image = imageRule.image;
    var release = releaseOf(st.data, imageRule.sglang);
    var values = placeholders(st, modelName);
    var composed = st.toks.map(function (t) {
      return { name: t.flag.name, values: t.flag.values.map(function (v) { return fillPlaceholders(v, values); }) };
    });
    var migrated = migrate(st.data, composed, release), flags = migrated.flags;
    var env = st.envItems.map(function (kv) { return kv[0] + '=' + fillPlaceholders(kv[1], values); });
    var calculations = list(info.calculators).map(function (calc) {  // resolve.Calculation
      var reason = st.calcReason(calc), result = reason === null ? st.calcResult(calc) : null;
      var value = result ? result.value : null;
      return { id: calc.id, pins: calc.pins, value: value === null ? null : fmt(value), exact: value,
               reason: reason ? { id: reason, fields: {} } : null, values: result ? result.values : null };
    });
    var pd = st.pd();
    var router = null, hints = [];
    if (pd) {
      router = info.pd.router.flags.map(function (text) {
        return parseFlagText(text).map(function (f) {
          return { name: f.name, values: f.values.map(function (v) { return fillPlaceholders(v, values); }) };
        });
      });
      hints.push({ id: 'ui.pd-banner', fields: { nodes: String(st.nodes), last_rank: String(st.nodes - 1),
                                                 role: '@' + info.pd[pd].label, router_port: String(info.pd.router.port) } });
    }
    // Every hint may use {nodes} and {last_rank}; '@id' field values are text ids.
    st.hints.forEach(function (h) {
      hints.push({ id: h.id, fields: { nodes: String(st.nodes), last_rank: String(st.nodes - 1) } });
    });
    var flagsNow = flagMap(flags), envNow = st.env();
    var picks = {};
    Object.keys(st.picks).forEach(function (k) { picks[k] = st.picks[k]; });
    var status = st.cell.status, cav = caveats(st, calculations).concat(migratedCaveats(st, migrated.rewrites, release));
    if (status === 'verified' && st.checkShape) {
      var changes = derivedChanges(st, flags.map(flagText), env);
      if (changes !== null) {
        status = 'derived';
        cav.unshift({ kind: 'derived', text: { id: 'status.derived.caveat', fields: { changes: changes.join('; ') } }, flag: null });
      }
    }
    return {
      model: info.id, hw: st.hw, match: st.match, pd: pd,
      status: status, cell_status: st.cell.status, verified_in: st.cell.verified_in || null, nodes: st.nodes,
      picks: picks, avg_len: st.avgLen, model_name: modelName, docker_image: image,
      hints: hints, env: env, program: 'sglang serve', flags: flags, router: router,
      calculations: calculations,
      caveats: cav,
      diagnostics: checkState(st, flagsNow, envNow, release),
      sglang: release,
      effective: effective(st, composed),
      axes: axisStates, dimensions: dimStates,
      cell: st.cell
    };
  }

  function caveats(st, calculations) {
    var out = [], present = {};
    if (st.cell.redirect) out.push({ kind: 'redirect', text: { id: st.cell.redirect, fields: {} }, flag: null });
    if (st.cell.warn) out.push({ kind: 'warn', text: { id: st.cell.warn, fields: {} }, flag: null });
    st.toks.forEach(function (t) { present[t.flag.name] = t; });  // the last of a name wins
    var pins = st.cell.pins || {};
    Object.keys(pins).forEach(function (name) {
      var tok = get(present, name);
      if (tok && tok.origin === 'cell') out.push({ kind: 'pin', text: { id: pins[name], fields: {} }, flag: name });
    });
    calculations.forEach(function (c) {
      if (c.reason) out.push({ kind: 'calculator', text: c.reason, flag: c.pins });
    });
    return out;
  }

  function migratedCaveats(st, rewrites, release) {  // resolve._migrated
    var out = [], cellRound = list(st.data.model.rounds).filter(function (r) { return r.id === st.cell.verified_in; })[0];
    rewrites.forEach(function (r) {
      var fields = { release: release, 'new': r['new'], old: r.old, since: r.since }, id = 'migrate.caveat';
      if (r.removal) { fields.removal = r.removal; id = 'migrate.caveat.removal'; }
      var flag = r['new'].split(' ')[0];
      out.push({ kind: 'migrated', text: { id: id, fields: fields }, flag: flag });
      if (cellRound && has(st.cellFlagMap, r.flag))
        out.push({ kind: 'migrated', text: { id: 'migrate.round', fields: { old: r.old, round: cellRound.version } }, flag: flag });
    });
    return out;
  }

  var PLACEHOLDER = /\{\{[A-Z0-9_]+\}\}|<[^<>]+>/;

  function effective(st, flags) {
    var rules = st.data.rules, catalog = st.data.catalog.flags, present = {}, out = [];
    st.toks.forEach(function (t) { present[t.flag.name] = t; });
    var pins = st.cell.pins || {};
    list(rules.knobs).forEach(function (knob) {
      if (evaluate(knob.show_when, st) !== true) return;
      var candidates = list(rules.effective).filter(function (r) { return r.knob === knob.id; });
      var forced = candidates.filter(function (r) { return r.override && evaluate(r.when, st) === true; })[0];
      var row = { knob: knob.id, label: knob.label, value: null, value_text: null, source: null, because: null, flag: knob.flag || null };
      if (forced) {
        row.value = forced.value === undefined ? null : forced.value;
        row.value_text = forced.value_text || null;
        row.source = 'forced'; row.because = forced.because;
        return out.push(row);
      }
      var names = (knob.flag ? [knob.flag] : []).concat(list(knob.also)), tok = null;
      for (var i = 0; i < names.length; i++) if (has(present, names[i])) { tok = present[names[i]]; break; }
      if (tok) {
        var spec = get(catalog, tok.flag.name);
        var value = !spec || spec.takes_value ? (tok.flag.values.length ? tok.flag.values[0] : null) : 'on';
        if (value && PLACEHOLDER.test(value)) {
          var filled = flags.filter(function (f) { return f.name === tok.flag.name; })[0];
          if (filled) value = filled.values.length ? filled.values[0] : null;
        }
        var pinned = tok.origin === 'cell' && has(pins, tok.flag.name);
        row.value = value; row.flag = tok.flag.name;
        row.source = pinned ? 'pinned' : 'explicit'; row.because = pinned ? pins[tok.flag.name] : null;
        return out.push(row);
      }
      var rule = candidates.filter(function (r) { return evaluate(r.when, st) === true; })[0];
      if (rule) {
        row.value = rule.value === undefined ? null : rule.value;
        row.value_text = rule.value_text || null;
        row.source = rule.source; row.because = rule.because;
        return out.push(row);
      }
      var fspec = knob.flag ? get(catalog, knob.flag) : null;
      var dflt = fspec ? fspec['default'] : null;
      if (dflt === undefined) dflt = null;
      if (fspec && !fspec.takes_value) dflt = dflt ? 'on' : 'off';
      row.value = dflt === null ? null : pyStr(dflt);
      row.value_text = dflt === null ? 'eff.value.unset' : null;
      row.source = 'default'; row.because = 'eff.default';
      out.push(row);
    });
    return out;
  }

  // --- check.py: findings for the generated command ---

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
  function valueProblem(name, spec, values, added) {
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

  function checkState(st, flags, env, release) {  // as the command's release parses it
    var data = st.data, catalog = get(data.release_catalogs || {}, release) || data.catalog, out = [];
    var branchValues = data.model.branch_values || {};
    Object.keys(flags).forEach(function (name) {
      var spec = get(catalog.flags, name);
      if (!spec) return out.push(finding('error', 'catalog.unknown-flag', [name], { flag: name }));
      if (spec.deprecated) out.push(finding('warning', 'catalog.deprecated-flag', [name],
                                            { flag: name, why: spec.deprecated.replace(/^deprecated:\s*/, '') }));
      var problem = valueProblem(name, spec, flags[name], get(branchValues, name));
      if (problem) out.push(finding('error', 'catalog.bad-value', [name], { problem: problem }));
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

  // --- render.py ---

  function text(data, ref, extra) {
    if (typeof ref === 'string') ref = { id: ref, fields: {} };
    var fields = {}, k;
    for (k in ref.fields || {}) fields[k] = ref.fields[k];
    for (k in extra || {}) fields[k] = extra[k];
    Object.keys(fields).forEach(function (name) {
      var v = String(fields[name]);
      if (v.charAt(0) === '@') fields[name] = text(data, v.slice(1));
    });
    var raw = has(data.text, ref.id) ? data.text[ref.id] : undefined;
    if (raw === undefined) raw = ref.id;
    if (Object.keys(fields).length) {
      raw = raw.replace(/\{([a-z_]+)\}/g, function (m, name) { return has(fields, name) ? String(fields[name]) : m; });
    }
    return raw;
  }

  function continued(body) {
    return body.map(function (line, i) { return i < body.length - 1 ? line + ' \\' : line; });
  }

  // render.wrap: greedy word wrap of a comment line; indented (code-like) lines stay whole.
  var WRAP = 78;
  var WIDE = [[0x1100, 0x115F], [0x2E80, 0xA4CF], [0xAC00, 0xD7A3], [0xF900, 0xFAFF],
              [0xFE30, 0xFE4F], [0xFF00, 0xFF60], [0xFFE0, 0xFFE6]];
  function width(s) {  // render.width: two columns for Hangul, CJK and full-width forms
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var cp = s.codePointAt(i);
      if (cp > 0xFFFF) i++;
      n += WIDE.some(function (r) { return cp >= r[0] && cp <= r[1]; }) ? 2 : 1;
    }
    return n;
  }
  function wrap(line) {
    if (width(line) <= WRAP || line.slice(0, 2) === '  ') return [line];
    var out = [], cur = '', curWidth = 0;
    line.split(' ').forEach(function (word) {
      var w = width(word);
      if (cur && curWidth + 1 + w > WRAP) { out.push(cur); cur = word; curWidth = w; }
      else if (cur) { cur = cur + ' ' + word; curWidth += 1 + w; }
      else { cur = word; curWidth = w; }
    });
    out.push(cur);
    return out;
  }

  function hintLines(data, res) {
    var lines = [];
    res.hints.forEach(function (ref) {
      splitLines(text(data, ref)).forEach(function (line) {
        wrap(line).forEach(function (part) { lines.push(('# ' + part).replace(/\s+$/, '')); });
      });
    });
    return lines;
  }

  function commandText(data, res) {
    var body = res.env.map(envText).concat([res.program], res.flags.map(function (f) { return '  ' + flagText(f); }));
    return hintLines(data, res).concat(continued(body)).join('\n');
  }

  function routerText(data, res) {
    if (!res.router) return null;
    var body = [data.model.pd.router.program].concat(res.router.map(function (group) {
      return '  ' + group.map(flagText).join(' ');
    }));
    return continued(body).join('\n');
  }

  // runmodes.py: the selection inside docker run, a curl request and an OpenAI client call.
  var HOST = 'localhost', PER_LINE = 4;
  function dockerWord(text) {  // a leading ~/ stays bare, for the shell to expand
    if (text.slice(0, 2) === '~/' && quote(text.slice(1)) === text.slice(1)) return text;
    return quote(text);
  }
  function dockerOption(text) { return shlexSplit(text).map(dockerWord).join(' '); }
  function serverPort(data, res) {
    var given = res.flags.filter(function (f) { return f.name === '--port' && f.values.length && f.values[0]; });
    return given.length ? given[given.length - 1].values[0] : String(data.catalog.flags['--port']['default']);
  }
  function clientPort(data, res) { return res.pd ? String(data.model.pd.router.port) : serverPort(data, res); }
  function platformOf(data, hw) { return data.platforms.filter(function (p) { return p.id === hw; })[0]; }
  function dockerOptions(data, res) {
    var c = data.containers, platform = platformOf(data, res.hw), run = c.vendors[platform.vendor];
    var lines = run.args.map(dockerOption);
    if (run.per_device) {
      var each = [], devices = platform.gpus_per_node * (platform.devices_per_card || 1);
      for (var i = 0; i < devices; i++) each.push(dockerOption(run.per_device.split('{index}').join(String(i))));
      for (var j = 0; j < each.length; j += PER_LINE) lines.push(each.slice(j, j + PER_LINE).join(' '));
    }
    lines = lines.concat(c.shared.map(dockerOption));
    if (res.nodes > 1 || res.pd || run.host_network) lines.push(dockerOption(c.host_network));
    else lines.push(dockerOption(c.publish.split('{port}').join(serverPort(data, res))));
    lines = lines.concat(list(c.cache).map(dockerOption));
    return lines.concat(res.env.map(function (e) { return dockerOption(c.env) + ' ' + envText(e); }));
  }
  function dockerText(data, res) {
    var body = ['docker run'].concat(dockerOptions(data, res).map(function (l) { return '  ' + l; }),
      ['  ' + dockerWord(res.docker_image), '  ' + res.program], res.flags.map(function (f) { return '    ' + flagText(f); }));
    return hintLines(data, res).concat(continued(body)).join('\n');
  }
  function runMessage(data) { return JSON.stringify(text(data, 'ui.run.message')); }
  function curlText(data, res) {
    var url = 'http://' + HOST + ':' + clientPort(data, res) + '/v1/chat/completions';
    var body = '{"model": ' + JSON.stringify(res.model_name) + ', "messages": [{"role": "user", "content": ' +
      runMessage(data) + '}]}';
    return continued(['curl ' + quote(url), '  -H ' + quote('Content-Type: application/json'), '  -d ' + quote(body)]).join('\n');
  }
  function pythonText(data, res) {
    var base = 'http://' + HOST + ':' + clientPort(data, res) + '/v1';
    return ['from openai import OpenAI', '',
      'client = OpenAI(base_url=' + JSON.stringify(base) + ', api_key="EMPTY")',
      'response = client.chat.completions.create(',
      '    model=' + JSON.stringify(res.model_name) + ',',
      '    messages=[{"role": "user", "content": ' + runMessage(data) + '}],',
      ')', 'print(response.choices[0].message.content)'].join('\n');
  }

  // Flags and env that the selection changed relative to the cell's own flags and env.
  /** What the reader's settings change in the cell's command: against the command of the cell
   *  alone (its defaults, as the static page shows it), so choosing nothing lists nothing, and
   *  what the engine adds for every command of the cell (multi-node flags, ports) is no change. */
  /** The Deploy settings the cell's own command is built with (what diff compares against),
   *  as [{axis, option}]: the settings without a card that the cell shows. */
  function cellDefaults(data, res) {
    var plain = compose(data, res.match), out = [];
    data.axes.forEach(function (axis) {
      var state = plain.axes.filter(function (a) { return a.axis === axis.id; })[0];
      if (axis.card || !state || !state.visible || state.value === null) return;
      var option = axis.options.filter(function (o) { return o.id === state.value; })[0];
      if (option) out.push({ axis: axis, option: option });
    });
    return out;
  }

  function diff(data, res) {
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

  // --- URL hash and request-length input (what a reader or a link may type) ---

  // A selection link is a few hundred characters; reading a longer hash whole only costs time.
  var HASH_MAX = 8192;

  /** The key=value pairs of a URL hash, read from its first HASH_MAX characters only (a pair
   *  the cut splits is dropped, so a shortened value is never read as a real one). */
  function parseHash(raw) {
    var out = Object.create(null), text = String(raw || '').replace(/^#/, '');
    if (text.length > HASH_MAX) text = text.slice(0, Math.max(text.lastIndexOf('&', HASH_MAX), 0));
    text.split('&').forEach(function (pair) {
      if (!pair) return;
      var i = pair.indexOf('='), key, value;
      try {
        key = decodeURIComponent(i < 0 ? pair : pair.slice(0, i));
        value = decodeURIComponent(i < 0 ? '' : pair.slice(i + 1));
      } catch (e) { return; }
      if (key && value) out[key] = value;
    });
    return out;
  }

  /** A request length as `recipes calc --avg-len` reads one (cli._avg_len): decimal digits
   *  only, within [lo, hi]; null for anything else ('1e300', '0x10', '-5', '16384abc'). */
  function wholeNumber(text, lo, hi) {
    var s = String(text);
    if (!/^[0-9]+$/.test(s)) return null;
    s = s.replace(/^0+(?=.)/, '');
    if (s.length > String(hi).length) return null;
    var n = Number(s);
    return n >= lo && n <= hi ? n : null;
  }

  // --- effects.py: options that would change nothing ---

  var NO_EFFECT = 'gate.no-effect', REFUSED = 'gate.refused';

  function signatureOf(res) {  // effects.signature: what a reader can see change
    return JSON.stringify([res.flags.map(flagText), res.env,
      res.hints.map(function (h) { return [h.id, Object.keys(h.fields).sort().map(function (k) { return [k, h.fields[k]]; })]; }),
      res.router ? res.router.map(function (g) { return g.map(flagText); }) : null,
      res.calculations.map(function (c) { return [c.id, c.value, c.reason ? c.reason.id : null]; }),
      res.diagnostics.map(function (d) { return [d.rule, d.severity]; })]);
  }

  /** The enabled, unpicked options of the visible settings ``wanted`` keeps, as [axis, option]. */
  function probeQueue(res, wanted) {
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
  function optionProbe(data, res) {
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

  function probeOptions(data, res) {  // effects.probe_options, all at once (for Node)
    var probe = optionProbe(data, res), out = {};
    probeQueue(res, function () { return true; }).forEach(function (q) {
      var reason = probe(q[0], q[1]);
      if (reason) (out[q[0]] = out[q[0]] || {})[q[1]] = reason;
    });
    return out;
  }

  var api = { compose: compose, probeOptions: probeOptions, cellDefaults: cellDefaults, commandText: commandText, routerText: routerText, text: text,
              dockerText: dockerText, curlText: curlText, pythonText: pythonText,
              diff: diff, fmt: fmt, calcEvaluate: calcEvaluate, calcField: calcField, evaluate: evaluate,
              fill: fill, quote: quote, parseFlagText: parseFlagText,
              setReaderPlaceholders: setReaderPlaceholders, parseHash: parseHash,
              wholeNumber: wholeNumber, valueProblem: valueProblem };

  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  if (typeof document === 'undefined') return;

  // ===== Part 2: the DOM layer ================================================================

  // Our language links already point at the same page (and carry the selection). Material's
  // own handler would re-map them through the other site's sitemap.xml, which is empty without
  // a site_url, and send the reader to the other language's home page; keep it out.
  document.addEventListener('click', function (event) {
    var target = event.target;
    if (target && target.closest && target.closest('a[data-recipes-lang]')) event.stopPropagation();
  }, true);

  var SCRIPT = document.currentScript || document.querySelector('script[src*="assets/recipes/playground.js"]');
  var SCRIPT_SRC = SCRIPT && SCRIPT.src;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'className') node.className = attrs[k];
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function readHash() { return parseHash(location.hash); }

  function copyText(value, button, label, done) {
    function ok() {
      button.textContent = done;
      button.classList.add('rp-copied');
      setTimeout(function () { button.textContent = label; button.classList.remove('rp-copied'); }, 1500);
    }
    function fallback() {
      var area = el('textarea', { readonly: 'readonly', className: 'rp-offscreen' });
      area.value = value;
      document.body.appendChild(area);
      area.select();
      try { if (document.execCommand('copy')) ok(); } catch (e) { /* nothing more to try */ }
      document.body.removeChild(area);
    }
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(value).then(ok, fallback);
    else fallback();
  }

  function Playground(root, data) {
    this.root = root; this.data = data; this.lang = data.lang;
    this.dims = dimensionsOf(data);  // the cell's keys: the Deploy card's first rows
    this.groups = {};  // axis key -> {box, buttons: {option: button}, tips: {option: span}}
    this.explicit = {};
    this.avgLen = data.model.request_length ? data.model.request_length['default'] : null;
    this.build();
  }

  Playground.prototype.t = function (id, fields) { return text(this.data, id, fields); };

  Playground.prototype.optionLabel = function (axisId, option) {
    if (axisId === 'hw') return option.label;
    return this.t(option.label, { value: option.id });
  };

  Playground.prototype.group = function (key, labelId, options, parent) {
    var self = this, id = 'rp-' + key + '-' + Math.random().toString(36).slice(2, 8);
    var row = el('div', { className: 'rp-axis', 'data-axis': key, role: 'group', 'aria-labelledby': id });
    row.appendChild(el('div', { className: 'rp-axis__label', id: id, text: this.t(labelId) }));
    var box = el('div', { className: 'rp-options' }), line = box;
    var g = { row: row, buttons: {}, tips: {} };
    var vendor = null;
    if (key === 'hw') box.className = 'rp-vendors';
    options.forEach(function (o) {
      if (key === 'hw' && o.vendor !== vendor) {  // one line per vendor: its name, its platforms
        vendor = o.vendor;
        line = el('div', { className: 'rp-options' });
        box.appendChild(el('div', { className: 'rp-vendor-line' }, [el('span', { className: 'rp-vendor', text: self.t('ui.vendor.' + vendor) }), line]));
      }
      var tipId = id + '-' + o.id.replace(/[^A-Za-z0-9_-]/g, '_');
      var b = el('button', { type: 'button', className: 'rp-option', 'data-option': o.id, 'aria-pressed': 'false' });
      b.appendChild(el('span', { className: 'rp-option__label', text: self.optionLabel(key, o) }));
      var tip = el('span', { className: 'rp-tip', role: 'tooltip', id: tipId, hidden: 'hidden' });
      b.addEventListener('click', function () {
        if (b.getAttribute('aria-disabled') === 'true') return;  // greyed: nothing changes
        self.choose(key, o.id);
      });
      g.buttons[o.id] = b; g.tips[o.id] = tip;
      line.appendChild(el('span', { className: 'rp-opt' }, [b, tip]));
    });
    row.appendChild(box);
    parent.appendChild(row);
    this.groups[key] = g;
  };

  Playground.prototype.block = function (testid, titleId, parent) {
    var self = this, wrap = el('div', { className: 'rp-block rp-block--' + testid });
    var head = el('div', { className: 'rp-block__head' }, [el('span', { className: 'rp-block__title', text: this.t(titleId) })]);
    var copy = el('button', { type: 'button', className: 'rp-copy', text: this.t('ui.copy'), 'data-copy': testid });
    // focusable, so a keyboard can scroll a long line (as Material does for its code blocks)
    var pre = el('pre', { className: 'rp-code' }), code = el('code', { 'data-testid': testid, tabindex: '0', 'aria-label': this.t(titleId) });
    pre.appendChild(code);
    copy.addEventListener('click', function () { copyText(code.textContent, copy, self.t('ui.copy'), self.t('ui.copied')); });
    head.appendChild(copy);
    wrap.appendChild(head); wrap.appendChild(pre);
    parent.appendChild(wrap);
    return { wrap: wrap, code: code };
  };

  Playground.prototype.build = function () {
    var self = this, data = this.data, root = this.root;
    clear(root);
    root.classList.add('rp');
    // The main selectors and the output side by side (one column on a phone: the output right
    // under the selectors); the finer cards folded below the selectors until opened.
    var main = el('div', { className: 'rp-main' });
    var controls = el('div', { className: 'rp-controls' });
    var deploy = el('fieldset', { className: 'rp-card rp-card--deploy' }, [el('legend', { text: this.t('ui.deploy') })]);
    this.group('hw', 'table.hardware', data.platforms, deploy);
    list(data.model.dimensions).forEach(function (d) { self.group(d.id, d.label, d.options, deploy); });
    var cards = {};
    this.cardOf = {};
    data.axes.forEach(function (axis) {
      var parent = deploy;
      if (axis.card) {
        if (!cards[axis.card]) {
          cards[axis.card] = el('fieldset', { className: 'rp-card', 'data-card': axis.card }, [el('legend', { text: self.t('ui.card.' + axis.card) })]);
        }
        parent = cards[axis.card];
        self.cardOf[axis.id] = axis.card;
      }
      self.group(axis.id, axis.label, axis.options, parent);
    });
    controls.appendChild(deploy);
    var names = Object.keys(cards);
    if (names.length) {
      this.more = el('details', { className: 'rp-more', 'data-testid': 'more' });
      this.more.appendChild(el('summary', { text: this.t('ui.more', { cards: names.map(function (k) { return self.t('ui.card.' + k); }).join(', ') }) }));
      var grid = el('div', { className: 'rp-cards' });
      names.forEach(function (k) { grid.appendChild(cards[k]); });
      this.more.appendChild(grid);
      controls.appendChild(this.more);
      this.more.addEventListener('toggle', function () { if (self.more.open && self.res) self.probeIdle(self.res); });
    }

    var out = el('div', { className: 'rp-output', 'data-testid': 'output' });
    var head = el('div', { className: 'rp-status' });
    this.badge = el('span', { 'data-testid': 'status' });
    this.footprint = el('span', { className: 'rp-footprint', 'data-testid': 'footprint' });
    this.meta = el('span', { className: 'rp-meta' });
    head.appendChild(this.badge); head.appendChild(this.footprint); head.appendChild(this.meta);
    out.appendChild(head);
    this.command = this.block('command', 'ui.command', out);
    this.release = el('p', { className: 'rp-release', 'data-testid': 'release' });
    this.command.wrap.appendChild(this.release);
    this.router = this.block('router', 'ui.router', out);
    this.buildRunModes(out);
    this.caveatBox = el('ul', { className: 'rp-caveats', 'data-testid': 'caveats' });
    out.appendChild(this.caveatBox);

    if (list(data.model.calculators).length) this.buildCalculator(out);

    this.diagBox = el('div', { className: 'rp-diagnostics' }, [el('div', { className: 'rp-block__title', text: this.t('ui.diagnostics') })]);
    this.diagList = el('ul', { 'data-testid': 'diagnostics' });
    this.diagBox.appendChild(this.diagList);
    out.appendChild(this.diagBox);

    this.diffBox = el('div', { className: 'rp-diff' }, [el('div', { className: 'rp-block__title', text: this.t('ui.diff') })]);
    this.diffList = el('ul', { 'data-testid': 'diff' });
    this.diffBox.appendChild(this.diffList);
    // what the cell's own command carries before the reader changes anything
    this.defaults = el('p', { className: 'rp-defaults', 'data-testid': 'cell-defaults' });
    this.diffBox.appendChild(this.defaults);
    out.appendChild(this.diffBox);

    var effBox = el('div', { className: 'rp-effective' }, [el('div', { className: 'rp-block__title', text: this.t('ui.effective') })]);
    var table = el('table', { 'data-testid': 'effective', tabindex: '0', 'aria-label': this.t('ui.effective') });  // scrolls on a phone
    var headRow = el('tr');
    ['table.knob', 'table.value', 'table.source', 'table.why'].forEach(function (id) { headRow.appendChild(el('th', { text: self.t(id) })); });
    table.appendChild(el('thead', {}, [headRow]));
    this.effBody = el('tbody');
    table.appendChild(this.effBody);
    effBox.appendChild(table);
    out.appendChild(effBox);
    this.effBox = effBox;

    main.appendChild(controls);
    main.appendChild(out);
    root.appendChild(main);
  };

  /** The run modes of the command: a pip / Docker switch (the Docker block takes the command
   *  block's place), then a curl request and the Python client call against the server. */
  Playground.prototype.buildRunModes = function (out) {
    var self = this, modes = el('div', { className: 'rp-runmodes', role: 'group', 'aria-label': this.t('ui.run.mode') });
    this.runMode = 'pip';
    this.runButtons = {};
    ['pip', 'docker'].forEach(function (mode) {
      var b = el('button', { type: 'button', className: 'rp-option', 'data-runmode': mode, 'aria-pressed': 'false', text: self.t('ui.run.' + mode) });
      b.addEventListener('click', function () {
        self.runMode = mode;
        if (self.runRes) self.renderRunModes(self.runRes);
      });
      self.runButtons[mode] = b;
      modes.appendChild(b);
    });
    out.insertBefore(modes, this.command.wrap);
    this.docker = this.block('docker', 'ui.run.docker', out);
    out.insertBefore(this.docker.wrap, this.command.wrap.nextSibling);
    this.curl = this.block('curl', 'ui.run.curl', out);
    this.pythonClient = this.block('python-client', 'ui.run.python', out);
  };

  Playground.prototype.renderRunModes = function (res) {
    var self = this, docker = this.runMode === 'docker';
    this.runRes = res;
    this.docker.code.textContent = fillValues(dockerText(this.data, res));
    this.curl.code.textContent = fillValues(curlText(this.data, res));
    this.pythonClient.code.textContent = fillValues(pythonText(this.data, res));
    this.docker.wrap.hidden = !docker;
    this.command.wrap.hidden = docker;
    Object.keys(this.runButtons).forEach(function (mode) {
      self.runButtons[mode].setAttribute('aria-pressed', mode === self.runMode ? 'true' : 'false');
    });
  };

  /** The calculator panel, for a model that declares calculators: the request length they
   *  read (when one does), then each calculator's pinned flag, value and explanation. */
  Playground.prototype.buildCalculator = function (out) {
    var self = this, data = this.data, length = data.model.request_length;
    var box = el('div', { className: 'rp-calc', 'data-testid': 'calculator' });
    var inputId = 'rp-avg-' + Math.random().toString(36).slice(2, 8);
    if (length) {
      this.avgInput = el('input', { type: 'number', id: inputId, step: '1', inputmode: 'numeric',
                                    min: String(length.min), max: String(length.max),
                                    value: String(this.avgLen), 'data-testid': 'avg-len', list: inputId + '-list' });
      var options = el('datalist', { id: inputId + '-list' });
      length.common.forEach(function (n) { options.appendChild(el('option', { value: String(n) })); });
      var lengthRow = el('div', { className: 'rp-calc__row' });
      lengthRow.appendChild(el('label', { 'for': inputId, text: this.t('table.avg_len') }));
      lengthRow.appendChild(this.avgInput);
      lengthRow.appendChild(options);
      box.appendChild(lengthRow);
      this.avgInput.addEventListener('input', function () {
        var n = wholeNumber(self.avgInput.value, length.min, length.max);
        self.avgInput.setAttribute('aria-invalid', n === null ? 'true' : 'false');
        if (n === null) return;
        self.avgLen = n;
        self.update(true);
      });
    }
    this.calcRows = list(data.model.calculators).map(function (calc) {
      var part = el('div', { className: 'rp-calc__one', 'data-calculator': calc.id });
      part.appendChild(el('div', { className: 'rp-block__title', text: self.t(calc.label) }));
      var row = el('div', { className: 'rp-calc__row' });
      row.appendChild(el('span', { className: 'rp-calc__eq', text: calc.pins }));
      var output = el('output', length ? { 'data-testid': 'calc-value', 'for': inputId, className: 'rp-calc__ratio' }
                                       : { 'data-testid': 'calc-value', className: 'rp-calc__ratio' });
      row.appendChild(output);
      part.appendChild(row);
      var explain = list(calc.explain).map(function (id) {  // one line per explanation text
        var line = el('p', { className: 'rp-calc__inputs' });
        part.appendChild(line);
        return { id: id, node: line };
      });
      box.appendChild(part);
      return { id: calc.id, output: output, explain: explain };
    });
    out.appendChild(box);
  };

  Playground.prototype.renderCalculator = function (res) {
    var self = this;
    this.calcRows.forEach(function (row) {
      var c = res.calculations.filter(function (x) { return x.id === row.id; })[0];
      if (c.value !== null) row.output.textContent = c.value;
      else row.output.textContent = c.reason ? self.t(c.reason) : self.t('ui.calc.na');
      var fields = {};
      Object.keys(c.values || {}).forEach(function (k) { if (c.values[k] !== null) fields[k] = calcField(c.values[k]); });
      row.explain.forEach(function (line) { line.node.textContent = c.values ? self.t(line.id, fields) : ''; });
    });
  };

  Playground.prototype.choose = function (key, value) {
    if (this.dims.indexOf(key) >= 0) this.top[key] = value;
    else this.explicit[key] = value;
    this.update(true);
    this.reveal();
  };

  /** After a click, bring the command's top edge on screen if it is not (a phone's single
   *  column, where the output sits above the folded cards and below the selectors). */
  Playground.prototype.reveal = function () {
    var r = this.command.wrap.getBoundingClientRect(), bar = document.querySelector('.md-header');
    var top = (bar ? bar.getBoundingClientRect().bottom : 0) + 8, bottom = window.innerHeight;
    if (r.top >= top && r.top <= bottom - 48) return;
    window.scrollBy(0, r.top - Math.max(top, Math.min(bottom - r.height - 16, bottom - 160)));
  };

  /** Is this hash a Playground selection (and not a heading anchor)? */
  Playground.prototype.owns = function (hash) {
    var keys = this.dims.concat(['avg_len'], this.data.axes.map(function (a) { return a.id; }));
    return Object.keys(hash).some(function (k) { return keys.indexOf(k) >= 0; });
  };

  Playground.prototype.load = function (hash) {
    var self = this, top = {}, explicit = {}, length = this.data.model.request_length;
    var axisIds = this.data.axes.map(function (a) { return a.id; });
    this.avgLen = length ? length['default'] : null;
    Object.keys(hash).forEach(function (k) {
      if (self.dims.indexOf(k) >= 0) top[k] = hash[k];
      else if (k === 'avg_len' && length) {
        var n = wholeNumber(hash[k], length.min, length.max);
        if (n !== null) self.avgLen = n;
      } else if (axisIds.indexOf(k) >= 0) explicit[k] = hash[k];
    });
    this.top = top;
    this.explicit = explicit;
    if (this.more && Object.keys(explicit).some(function (k) { return self.cardOf[k]; })) this.more.open = true;
    if (this.avgInput) {
      this.avgInput.value = String(this.avgLen);
      this.avgInput.removeAttribute('aria-invalid');
    }
    if (this.owns(hash)) this.forgetDefaults();
    this.update(this.owns(hash));
  };

  /** A link lists every visible axis; keep as chosen only the picks that differ from the
   *  defaults, so that later clicks move the untouched axes with their defaults. */
  Playground.prototype.forgetDefaults = function () {
    var self = this, full, plain, trimmed = {};
    try {
      full = compose(this.data, this.selection());
      var top = { avg_len: this.avgLen };
      self.dims.forEach(function (k) { top[k] = full.match[k]; });
      plain = compose(this.data, top);
    } catch (e) { return; }
    Object.keys(this.explicit).forEach(function (k) {
      if (plain.picks[k] !== self.explicit[k]) trimmed[k] = self.explicit[k];
    });
    var saved = this.explicit;
    this.explicit = trimmed;
    var again = compose(this.data, this.selection());
    if (JSON.stringify(again.picks) !== JSON.stringify(full.picks)) this.explicit = saved;
  };

  Playground.prototype.selection = function () {
    var sel = { avg_len: this.avgLen }, self = this;
    this.dims.forEach(function (k) { if (self.top[k]) sel[k] = self.top[k]; });
    Object.keys(this.explicit).forEach(function (k) { sel[k] = self.explicit[k]; });
    return sel;
  };

  Playground.prototype.update = function (writeHash) {
    var self = this, data = this.data, res;
    try {
      res = compose(data, this.selection());
    } catch (e) {
      if (typeof console !== 'undefined') console.warn('recipe playground:', e);
      return;
    }
    this.res = res;
    // The state is what the reader sees: snapped picks are forgotten, defaults stay implicit.
    this.dims.forEach(function (k) { self.top[k] = res.match[k]; });
    Object.keys(this.explicit).forEach(function (k) { if (res.picks[k] !== self.explicit[k]) delete self.explicit[k]; });
    this.renderControls(res);
    this.renderOutput(res);
    if (writeHash || this.hash) this.writeHash(res);
    this.probeIdle(res);
  };

  /** effects.probe_options, in the background after a render (a few probes per task, so the
   *  click paints first): an enabled option of a visible setting whose pick shows the same
   *  result (gate.no-effect) or a command SGLang refuses (gate.refused) is greyed. Settings folded under More settings are probed
   *  when it opens. The root's data-probed counts finished rounds (for tests). */
  Playground.prototype.probeIdle = function (res) {
    var self = this, round = (this.round = (this.round || 0) + 1);
    var open = !this.more || this.more.open, probe = optionProbe(this.data, res);
    var queue = probeQueue(res, function (axis) { return open || !self.cardOf[axis]; });
    function step() {
      if (round !== self.round) return;  // a newer selection took over
      var started = Date.now();
      while (queue.length && Date.now() - started < 8) {
        var q = queue.shift(), reason = probe(q[0], q[1]);
        if (reason) self.setOption(q[0], { id: q[1], state: 'disabled', reason: reason }, false);
      }
      if (queue.length) setTimeout(step, 0);
      else self.root.setAttribute('data-probed', String(round));
    }
    setTimeout(step, 0);
  };

  Playground.prototype.setOption = function (key, state, chosen) {
    var g = this.groups[key];
    var b = g.buttons[state.id], tip = g.tips[state.id];
    b.parentNode.hidden = state.state === 'hidden';
    var disabled = state.state === 'disabled';
    b.setAttribute('aria-pressed', chosen ? 'true' : 'false');
    b.classList.toggle('rp-option--disabled', disabled);
    if (disabled) {
      var reason = this.t(state.reason || 'gate.not-shown');
      b.setAttribute('aria-disabled', 'true');
      b.title = reason;
      tip.textContent = reason;
      tip.hidden = false;
      b.setAttribute('aria-describedby', tip.id);
    } else {
      b.removeAttribute('aria-disabled');
      b.removeAttribute('title');
      b.removeAttribute('aria-describedby');
      tip.textContent = '';
      tip.hidden = true;
    }
  };

  Playground.prototype.renderControls = function (res) {
    var self = this;
    this.data.model.hardware.forEach(function (hw) {
      self.setOption('hw', { id: hw, state: 'enabled' }, hw === res.hw);
    });
    this.dims.slice(1).forEach(function (dim) {
      res.dimensions[dim].forEach(function (s) { self.setOption(dim, s, s.id === res.match[dim]); });
    });
    res.axes.forEach(function (a) {
      self.groups[a.axis].row.hidden = !a.visible;
      a.options.forEach(function (o) { self.setOption(a.axis, o, a.visible && o.id === a.value); });
    });
    Object.keys(this.groups).forEach(function (k) {  // a card with no visible row is hidden too
      var card = self.groups[k].row.parentNode;
      if (card && card.getAttribute('data-card')) {
        card.hidden = !Array.prototype.some.call(card.querySelectorAll('.rp-axis'), function (r) { return !r.hidden; });
      }
    });
  };

  Playground.prototype.renderOutput = function (res) {
    var self = this, data = this.data;
    this.badge.className = 'recipe-badge recipe-badge--' + res.status;
    this.badge.textContent = this.t('status.' + res.status);
    this.badge.title = this.t('status.' + res.status + '.title');
    var platform = data.platforms.filter(function (p) { return p.id === res.hw; })[0];
    this.footprint.textContent = this.t(platform.vendor === 'huawei' ? 'ui.footprint.npu' : 'ui.footprint', {
      total: String(res.nodes * platform.gpus_per_node), nodes: String(res.nodes), per_node: String(platform.gpus_per_node) }) +
      (platform.hbm_gb ? ' · ' + this.t('ui.hbm', { gb: String(platform.hbm_gb) }) : '');
    this.meta.textContent = [this.t('ui.model-path', { name: res.model_name }), this.t('ui.docker-image', { image: res.docker_image })].join(' · ');

    clear(this.caveatBox);
    res.caveats.forEach(function (c) {
      var li = el('li', { className: 'rp-caveat rp-caveat--' + c.kind });
      if (c.flag) li.appendChild(el('code', { text: c.flag }));
      li.appendChild(document.createTextNode((c.flag ? ' ' : '') + self.t(c.text)));
      self.caveatBox.appendChild(li);
    });
    this.caveatBox.hidden = !res.caveats.length;

    this.command.code.textContent = fillValues(commandText(data, res));
    this.release.textContent = this.t('ui.sglang-release', { release: res.sglang });
    var router = routerText(data, res);
    this.router.code.textContent = router ? fillValues(router) : '';
    this.router.wrap.hidden = !router;
    this.renderRunModes(res);

    if (this.calcRows) this.renderCalculator(res);

    clear(this.diagList);
    res.diagnostics.forEach(function (d) {
      var li = el('li', { className: 'rp-diag rp-diag--' + d.severity, 'data-rule': d.rule });
      li.appendChild(el('span', { className: 'rp-diag__severity', text: self.t('severity.' + d.severity) }));
      li.appendChild(document.createTextNode(' ' + self.t(d.message) + ' '));
      li.appendChild(el('code', { className: 'rp-diag__rule', text: d.rule }));
      self.diagList.appendChild(li);
    });
    if (!res.diagnostics.length) this.diagList.appendChild(el('li', { className: 'rp-diag--none', text: this.t('ui.diagnostics.none') }));

    clear(this.diffList);
    var changes = diff(data, res);
    changes.forEach(function (c) {
      var li = el('li', { className: 'rp-diff--' + c.kind });
      li.appendChild(el('span', { className: 'rp-diff__kind', text: self.t('ui.diff.' + c.kind) }));
      if (c.was) li.appendChild(el('code', { className: 'rp-diff__was', text: c.was }));
      if (c.was && c.now) li.appendChild(document.createTextNode(' → '));
      if (c.now) li.appendChild(el('code', { className: 'rp-diff__now', text: c.now }));
      self.diffList.appendChild(li);
    });
    if (!changes.length) this.diffList.appendChild(el('li', { text: this.t('ui.diff.none') }));
    this.defaults.textContent = this.t('ui.cell-defaults', { settings: cellDefaults(data, res).map(function (d) {
      return self.t(d.axis.label) + ': ' + self.t(d.option.label, { value: d.option.id });
    }).join(', ') });

    clear(this.effBody);
    this.effBox.hidden = !res.effective.length;  // a model that declares no knobs shows no table
    res.effective.forEach(function (e) {
      var value = e.value !== null ? el('code', { text: e.value }) : el('em', { text: self.t(e.value_text) });
      var tr = el('tr', { 'data-knob': e.knob }, [
        el('td', { text: self.t(e.label) }),
        el('td', {}, [value]),
        el('td', {}, [el('span', { className: 'rp-source rp-source--' + e.source, text: self.t('source.' + e.source) })]),
        el('td', { text: e.because ? self.t(e.because) : '' })
      ]);
      self.effBody.appendChild(tr);
    });
  };

  Playground.prototype.writeHash = function (res) {
    var parts = this.dims.map(function (k) { return k + '=' + encodeURIComponent(res.match[k]); });
    res.axes.forEach(function (a) { if (a.visible) parts.push(a.axis + '=' + encodeURIComponent(a.value)); });
    if (res.avg_len !== null) parts.push('avg_len=' + res.avg_len);
    var hash = '#' + parts.join('&');
    this.hash = hash;
    if (location.hash !== hash) history.replaceState(history.state, '', hash);
    // The language switch lands on the same page with the same selection.
    Array.prototype.forEach.call(document.querySelectorAll('a[data-recipes-lang]'), function (a) {
      a.setAttribute('href', a.getAttribute('href').split('#')[0] + hash);
    });
  };

  // --- the reader's values: the "Your values" panel (site.py values) fills the placeholders of
  // every command on the page, the Playground's included; kept in localStorage for every model.

  var VALUES_KEY = 'recipes.values.v1';
  var valueDefs = null;  // [{id, tokens, pattern, kind}] as the page's panel declares them
  var stillBlocks = [];  // the page's own code blocks that hold a placeholder, as built

  function storedValues() {
    try {
      var v = JSON.parse(window.localStorage.getItem(VALUES_KEY) || '{}');
      return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
    } catch (e) { return {}; }
  }

  function saveValues(values) {
    try { window.localStorage.setItem(VALUES_KEY, JSON.stringify(values)); } catch (e) { /* private mode: this page only */ }
  }

  /** A value is used only when it has its kind's shape (none needs shell quoting). */
  function usable(def, value) {
    return typeof value === 'string' && value.length <= 255 && new RegExp(def.pattern).test(value);
  }

  function fillValues(text) {
    if (!valueDefs) return text;
    var values = storedValues();
    valueDefs.forEach(function (d) {
      if (usable(d, values[d.id])) d.tokens.forEach(function (t) { text = text.split(t).join(values[d.id]); });
    });
    return text;
  }

  function refreshStill() {
    stillBlocks.forEach(function (b) {
      var filled = fillValues(b.text);
      clear(b.code);
      if (filled === b.text) b.nodes.forEach(function (n) { b.code.appendChild(n.cloneNode(true)); });
      else b.code.textContent = filled;  // filled in: plain text, without the highlighting
    });
  }

  function valuesChanged() {
    refreshStill();
    document.dispatchEvent(new CustomEvent('recipes:values'));
  }

  function mountValues(panel) {
    if (panel.getAttribute('data-mounted')) return;
    panel.setAttribute('data-mounted', 'ready');
    try { valueDefs = JSON.parse(panel.getAttribute('data-values')); } catch (e) { return; }
    var tokens = [];
    valueDefs.forEach(function (d) { tokens = tokens.concat(d.tokens); });
    Array.prototype.forEach.call(document.querySelectorAll('article pre > code'), function (code) {
      if (code.closest('.recipe-playground')) return;
      var text = code.textContent;
      if (tokens.some(function (t) { return text.indexOf(t) >= 0; })) {
        stillBlocks.push({ code: code, text: text, nodes: Array.prototype.map.call(code.childNodes, function (n) { return n.cloneNode(true); }) });
      }
    });
    var rows = panel.querySelectorAll('tbody tr'), values = storedValues();
    valueDefs.forEach(function (d, i) {
      var cell = rows[i] && rows[i].cells[2];
      if (!cell) return;
      var note = el('span', { className: 'rp-value__invalid', role: 'status' });
      var input = el('input', { type: 'text', className: 'rp-value', 'data-value': d.id, autocomplete: 'off', spellcheck: 'false',
                                'aria-label': rows[i].cells[1].textContent, placeholder: d.tokens[0] });
      input.value = typeof values[d.id] === 'string' ? values[d.id] : '';
      function judge() {
        var bad = input.value !== '' && !usable(d, input.value);
        input.setAttribute('aria-invalid', bad ? 'true' : 'false');
        note.textContent = bad ? panel.getAttribute('data-invalid').split('{kind}').join(d.kind) : '';
      }
      judge();
      input.addEventListener('input', function () {
        var now = storedValues();
        if (input.value === '') delete now[d.id]; else now[d.id] = input.value;
        saveValues(now);
        judge();
        valuesChanged();
      });
      cell.appendChild(input);
      cell.appendChild(note);
    });
    var reset = el('button', { type: 'button', className: 'rp-copy rp-values__clear', text: panel.getAttribute('data-clear') });
    reset.addEventListener('click', function () {
      var now = storedValues();
      valueDefs.forEach(function (d) { delete now[d.id]; });
      saveValues(now);
      Array.prototype.forEach.call(panel.querySelectorAll('input.rp-value'), function (i) { i.value = ''; i.setAttribute('aria-invalid', 'false'); });
      Array.prototype.forEach.call(panel.querySelectorAll('.rp-value__invalid'), function (n) { n.textContent = ''; });
      valuesChanged();
    });
    panel.appendChild(reset);
    window.addEventListener('storage', function (e) { if (e.key === VALUES_KEY) valuesChanged(); });
    refreshStill();
  }

  function mount(root) {
    if (root.getAttribute('data-mounted')) return;
    root.setAttribute('data-mounted', 'loading');
    var lang = root.getAttribute('data-lang') || 'en', model = root.getAttribute('data-model');
    var base = SCRIPT_SRC || document.baseURI;
    var url = new URL(model + '.' + lang + '.json', base);
    root.setAttribute('aria-busy', 'true');
    root.appendChild(el('p', { className: 'rp-loading', text: root.getAttribute('data-loading') || '' }));
    fetch(url.href, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error(url.href + ': HTTP ' + r.status);
      return r.json();
    }).then(function (data) {
      var pg = new Playground(root, data);
      root.playground = pg;
      pg.load(readHash());
      document.addEventListener('recipes:values', function () { if (pg.res) pg.renderOutput(pg.res); });
      window.addEventListener('hashchange', function () {
        var hash = readHash();
        if (location.hash !== pg.hash && pg.owns(hash)) pg.load(hash);
      });
      root.setAttribute('data-mounted', 'ready');
      root.removeAttribute('aria-busy');
    }).catch(function (e) {
      clear(root);
      root.appendChild(el('p', { className: 'rp-error', text: root.getAttribute('data-failed') || '' }));
      root.setAttribute('data-mounted', 'failed');
      root.removeAttribute('aria-busy');
      if (typeof console !== 'undefined') console.warn('recipe playground:', e);
    });
  }

  function mountAll() {
    Array.prototype.forEach.call(document.querySelectorAll('details.recipe-values'), mountValues);
    Array.prototype.forEach.call(document.querySelectorAll('.recipe-playground'), mount);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
  else mountAll();
  if (window.document$ && typeof window.document$.subscribe === 'function') window.document$.subscribe(mountAll);
})();
