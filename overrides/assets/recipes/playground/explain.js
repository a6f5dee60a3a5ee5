/* Playground: what a result says beside its command (mirrors the caveats and the effective
 * configuration of macros/engine/resolve.py).
 *
 * Owns the caveats (the cell's redirect and warning, its pinned flags, a calculator that does
 * not apply, a flag a release renamed, a release the reader chose and what it refuses) and the effective configuration (each knob's value and
 * where it comes from: forced, pinned, explicit, a rule, the flag's default). Pure: no DOM.
 */
import { get, has, list, pyStr } from './python.js';
import { evaluate } from './conditions.js';
import { PLACEHOLDER, flagText } from './flags.js';
import { accepts, ranges, taking } from './releases.js';

export function caveats(st, calculations) {
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

export function migratedCaveats(st, rewrites, release) {  // resolve._migrated
  var out = [], cellRound = list(st.data.model.rounds).filter(function (r) { return r.id === st.cell.verified_in; })[0];
  rewrites.forEach(function (r) {
    var fields = { release: release, 'new': r['new'], old: r.old, since: r.since }, id = 'migrate.caveat';
    if (r.back) return out.push({ kind: 'migrated', text: { id: 'migrate.back', fields: fields }, flag: r.flag });
    if (r.removal) { fields.removal = r.removal; id = 'migrate.caveat.removal'; }
    var flag = r['new'].split(' ')[0];
    out.push({ kind: 'migrated', text: { id: id, fields: fields }, flag: flag });
    if (cellRound && has(st.cellFlagMap, r.flag))
      out.push({ kind: 'migrated', text: { id: 'migrate.round', fields: { old: r.old, round: cellRound.text ? '@' + cellRound.text : cellRound.version } }, flag: flag });
  });
  return out;
}

export function releaseCaveats(st, flags, release, fallback, image, imageRelease, branch, only, own) {  // resolve._release_caveats
  var data = st.data, out = only.map(function (f) {
    return { kind: 'release', flag: f.name, text: { id: 'release.branch', fields: { flag: flagText(f), image: image } } };
  });
  if (release !== fallback) {
    var fields = { release: release, image: image, 'default': fallback }, id;
    if (own) { fields.release_image = own; id = 'release.chosen.image'; }
    else if (image === null) { delete fields.image; id = 'release.chosen.install'; }  // no image: the Python form
    else id = imageRelease ? 'release.chosen' : 'release.chosen.branch';
    out.push({ kind: 'release', flag: null, text: { id: id, fields: fields } });
  }
  flags.forEach(function (f) {
    if (accepts(data, release, f, branch)) return;
    var took = taking(data, f, branch), fields = { flag: flagText(f), release: release }, id;
    var order = data.releases.order;
    if (!took.length) id = 'release.refused.none';
    else if (took.join('|') === order.slice(order.indexOf(took[0])).join('|')) { id = 'release.refused'; fields.first = took[0]; }
    else { id = 'release.refused.ranges'; fields.releases = ranges(data, took); }
    out.push({ kind: 'release', flag: f.name, text: { id: id, fields: fields } });
  });
  return out;
}

export function branchElsewhere(st, flags, release, branch) {  // resolve._branch_elsewhere
  var data = st.data, all = data.model.branch_values || {}, out = [];
  flags.forEach(function (f) {
    var readers = get(all, f.name) || {};
    if (!f.values.length || !f.values.every(function (v) { return has(readers, v); }) || has(branch, f.name) ||
        accepts(data, release, f, null)) return;
    var images = [];
    f.values.forEach(function (v) {
      var r = readers[v], named = r && typeof r === 'object' ? r.image : '';
      if (named && images.indexOf(named) < 0) images.push(named);
    });
    images.sort();
    out.push({ severity: 'error', rule: 'release.branch-only', flags: [f.name],
               message: { id: 'release.branch-only', fields: { flag: flagText(f), release: release, images: images.join(', ') || '?' } } });
  });
  return out;
}

// --- the effective configuration: each knob's value and where it comes from ---

export function effective(st, flags) {
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
    var names = [], tok = null;
    (knob.flag ? [knob.flag] : []).concat(list(knob.also)).forEach(function (n) {
      names.push(n);  // then its --no- forms, which read 'off' (resolve._knob_plan)
      Object.keys(catalog).forEach(function (k) { if (catalog[k].negates === n) names.push(k); });
    });
    for (var i = 0; i < names.length; i++) if (has(present, names[i])) { tok = present[names[i]]; break; }
    if (tok) {
      var spec = get(catalog, tok.flag.name);
      var value = spec && spec.negates ? 'off'
        : !spec || spec.takes_value ? (tok.flag.values.length ? tok.flag.values[0] : null) : 'on';
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
