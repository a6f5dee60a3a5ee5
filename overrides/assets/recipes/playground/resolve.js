/* Playground: the resolver (mirrors macros/engine/resolve.py; compose = resolve(..., strict=False)).
 *
 * Owns composing a selection into a command: the per-export indexes (cells, gates,
 * transforms), the dimension and setting gates (an impossible pick snaps to the nearest valid
 * one), the flag and env edits of the picks and the rules, the placeholders, the release
 * rewrite, the derived-status check against the cell's verified commands, and the result's
 * shape. The state it edits is state.js, the findings check.js, the caveats and the effective
 * configuration explain.js. Pure: no DOM; Node imports it for the parity tests
 * (tests/js/parity.mjs).
 */
import { attr, get, has, list, num } from './python.js';
import { evalExpr, evaluate, fill } from './conditions.js';
import { flagMap, flagText, parseFlagText, readerPlaceholdersOf, sameFlag } from './flags.js';
import { fmt } from './calculator.js';
import { accepts, branchIn, migrate, releaseOf } from './releases.js';
import { checkState } from './check.js';
import { State } from './state.js';
import { recordOf } from './records.js';
import { branchElsewhere, caveats, effective, migratedCaveats, releaseCaveats } from './explain.js';

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


// The ordered keys of a cell: the hardware, then the dimensions the model declares.
export function dimensionsOf(data) {
  return ['hw'].concat(list(data.model.dimensions).map(function (d) { return d.id; }));
}

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
    var state = gateState(data, ctx, dim, o.id, has(ix.prefixes, earlier.concat([o.id]).join('|')));
    return state.reason === 'gate.no-cell' ? noCell(data, ix, prefix, dim, o.id) : state;
  });
}

// resolve._no_cell: the platforms where a cell has the option, with the same choices between
// the platform and it (gate.no-cell.on), else with any (gate.no-cell.with)
function noCell(data, ix, prefix, dim, option) {
  var at = ix.dims.indexOf(dim), between = ix.dims.slice(1, at).map(function (d) { return has(prefix, d) ? prefix[d] : null; });
  var keys = data.cells.map(function (c) { return ix.dims.map(function (d) { return String(c.match[d]); }); })
    .filter(function (k) { return k[at] === option; });
  var tries = [['gate.no-cell.on', keys.filter(function (k) { return k.slice(1, at).join('|') === between.join('|'); })],
               ['gate.no-cell.with', keys]];
  for (var i = 0; i < tries.length; i++) {
    var hits = tries[i][1], platforms = list(data.model.hardware).filter(function (h) {
      return hits.some(function (k) { return k[0] === h; });
    }).map(function (h) { return ix.platforms[h].label; });
    if (platforms.length) return { id: option, state: 'disabled', reason: tries[i][0], fields: { platforms: platforms.join(', ') } };
  }
  return { id: option, state: 'disabled', reason: 'gate.no-cell' };
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
    st.toks = splice(st.toks, strip, added, listenFlags(st.data), destOf(st.data));
  }
  if (env.length || stripEnv.length) editEnv(st, env, stripEnv);
  hints.forEach(function (h) {
    if (!st.hints.some(function (x) { return x.id === h; })) st.hints.push({ id: h, fields: {} });
  });
}

// resolve._listen_flags: the flags of the host and port roles (flag-bounds.yaml).
function listenFlags(data) {
  var roles = data.catalog.roles || {};
  return list(roles.host).concat(list(roles.port));
}

// The flag a word sets (catalog.dest): a --no-X form sets X, so the two are one setting.
function destOf(data) {
  var flags = (data.catalog || {}).flags || {};
  return function (name) {
    var spec = Object.prototype.hasOwnProperty.call(flags, name) ? flags[name] : null;
    return spec && spec.negates ? spec.negates : name;
  };
}

// Stripped flags make room: added flags of a stripped name take the first stripped flag's
// place as a block; an added flag whose name is already present replaces it where it is;
// the rest go before the first flag of `listen` (where the server listens). Names compare by
// dest (resolve._splice).
function splice(toks, strip, added, listen, dest) {
  strip = strip.map(dest);
  var block = added.filter(function (f) { return strip.indexOf(dest(f.name)) >= 0; });
  var rest = added.filter(function (f) { return strip.indexOf(dest(f.name)) < 0; });
  var out = [], placed = false, used = {};
  toks.forEach(function (t) {
    var name = dest(t.flag.name);
    if (strip.indexOf(name) >= 0) {
      if (!placed) {
        block.forEach(function (f) { out.push({ flag: f, origin: 'sel' }); });
        placed = true;
      }
      return;
    }
    var hit = -1;
    for (var i = 0; i < rest.length; i++) if (dest(rest[i].name) === name && !used[i]) { hit = i; break; }
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
    for (var j = 0; j < out.length; j++) if (listen.indexOf(out[j].flag.name) >= 0) { at = j; break; }
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
export function compose(data, selection) {
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
  st.release = chosenRelease(data, sel.sglang);
  return finish(st, axisStates, dimStates);
}

/** The release a selection asks for (`sglang`: one of the history's, or 'latest'), else null:
 *  the cell's image's. Anything else a URL carries is ignored. */
export function chosenRelease(data, given) {
  if (given === 'latest') return data.releases.newest;
  return typeof given === 'string' && data.releases.order.indexOf(given) >= 0 ? given : null;
}

// resolve._verified_commands: the commands the cell's verifying round ran, once per cell.
function verifiedCommands(st) {
  var ix = st.ix, key = ix.dims.map(function (d) { return st.match[d]; }).join('|') + '@' + st.release;
  ix.verified = ix.verified || {};
  if (!has(ix.verified, key)) {
    ix.verified[key] = [{}].concat(list(st.cell.verified_with)).map(function (picks) {
      var sel = { sglang: st.release };  // spelt for the same release as the command compared
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

function itemName(x) { var first = x.split(' ')[0]; return first.indexOf('=') >= 0 ? first.split('=')[0] : first; }

// resolve.derived_fields: what the command adds, removes and changes, for a reader
export function derivedFields(changes) {
  if (changes.length === 1 && changes[0] === 'flag order')
    return { added: '@ui.diff.nothing', removed: '@ui.diff.nothing', changed: '@ui.diff.order' };
  var added = [], removed = [], was = {}, changed = [], plainAdded = [];
  changes.forEach(function (c) { (c.charAt(0) === '+' ? added : removed).push(c.slice(1)); });
  removed.forEach(function (x) { was[itemName(x)] = x; });
  added.forEach(function (x) {
    var name = itemName(x);
    if (!has(was, name)) { plainAdded.push(x); return; }
    var old = was[name], sep = x.split(' ')[0].indexOf('=') >= 0 ? '=' : ' ', at = x.indexOf(sep);
    delete was[name];
    changed.push(old + ' → ' + (at >= 0 ? x.slice(at + 1) : x));
  });
  removed = removed.filter(function (x) { return has(was, itemName(x)); });
  var out = {};
  [['added', plainAdded], ['removed', removed], ['changed', changed]].forEach(function (p) {
    out[p[0]] = p[1].length ? p[1].join(', ') : '@ui.diff.nothing';
  });
  return out;
}

function finish(st, axisStates, dimStates) {
  var info = st.data.model;
  var modelName = firstMatch(info.model_names, st).name;
  var imageRule = firstMatch(info.docker_images, st), image = imageRule.image || null;
  // no image published here (the Python form only): the model's install route
  var installRule = image === null ? firstMatch(list(info.install), st) : null;
  // a diffusion model's request: the first kind of request this selection's server takes
  var requestTask = info.request ? firstMatch(list(info.request.tasks), st) : null;
  var fallback = releaseOf(st.data, imageRule.sglang), release = st.release || fallback;
  var branch = branchIn(st.data, release === fallback ? image : null);  // the image's own values
  // a release chosen other than the image's runs in that release's image (hardware.yaml release_image)
  var run = st.data.containers.vendors[st.ix.platforms[st.hw].vendor];
  // (none where no image is published for the recipe: the Python form, never a made-up one)
  var own = release !== fallback && run.release_image && image !== null ? run.release_image.split('{release}').join(release) : null;
  var values = placeholders(st, modelName);
  var composed = st.toks.map(function (t) {
    return { name: t.flag.name, values: t.flag.values.map(function (v) { return fillPlaceholders(v, values); }) };
  });
  var migrated = migrate(st.data, composed, release), flags = migrated.flags;
  var only = flags.filter(function (f) {  // a branch build's own values: that image only
    return f.values.length && has(branch, f.name) && !accepts(st.data, release, f, null) && accepts(st.data, release, f, branch);
  });
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
  var status = st.cell.status, cav = caveats(st, calculations).concat(migratedCaveats(st, migrated.rewrites, release),
    releaseCaveats(st, flags, release, fallback, image, imageRule.sglang, branch, only, own));
  var rec = recordOf(st.data, st.cell);
  if (rec && rec.stale.length) {  // the record no longer vouches for the command
    rec.stale.forEach(function (x) {
      cav.push({ kind: 'stale', text: { id: 'stale.' + x.kind, fields: x.fields }, flag: x.fields.flag || null });
    });
    if (status === 'verified') status = 'stale';
  }
  if (status === 'verified' && st.checkShape) {
    var changes = derivedChanges(st, flags.map(flagText), env);
    if (changes !== null) {
      status = 'derived';
      cav.unshift({ kind: 'derived', text: { id: 'status.derived.caveat', fields: derivedFields(changes) }, flag: null });
    }
  }
  return {
    model: info.id, hw: st.hw, match: st.match, pd: pd,
    status: status, cell_status: st.cell.status, verified_in: st.cell.verified_in || null, nodes: st.nodes,
    gpus_per_node: st.cell.gpus_per_node || indexOf(st.data).platforms[st.hw].gpus_per_node,
    picks: picks, avg_len: st.avgLen, model_name: modelName, docker_image: own || image,
    docker_args: list(imageRule.args).slice(),
    install: installRule ? list(installRule.commands).slice() : [],
    request: requestTask ? requestTask.id : null,
    hints: hints, env: env, program: 'sglang serve', flags: flags, router: router,
    calculations: calculations,
    caveats: cav,
    diagnostics: checkState(st, flagsNow, envNow, release).concat(branchElsewhere(st, flags, release, branch)),
    sglang: release, sglang_default: fallback,
    sglang_image: only.length ? image : null, branch_only: only.map(flagText), record: rec,
    effective: effective(st, composed),
    axes: axisStates, dimensions: dimStates,
    cell: st.cell
  };
}
