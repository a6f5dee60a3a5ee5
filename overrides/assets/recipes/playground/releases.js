/* Playground: SGLang releases (mirrors macros/engine/releases.py).
 *
 * Owns the release a command is written for (releaseOf), rewriting the flags a release renamed
 * both ways (migrate), what a release takes (accepts, taking, ranges) and reading a command
 * back in the rules' spelling (legacy). Pure: no DOM.
 */
import { get, has, list } from './python.js';
import { flagText } from './flags.js';
import { valueProblem } from './check.js';
import { needLater } from './later.js';

export function releaseOf(data, given) {  // Releases.resolve
  var r = data.releases;
  if (given === null || given === undefined) return r.pinned;
  return given === 'latest' ? r.newest : given;
}

export function migrate(data, flags, release) {  // Releases.migrate, read both ways
  var out = flags.slice(), rewrites = [];
  list(data.releases.migrations).forEach(function (m) {
    var names = out.map(function (f) { return f.name; }), at = names.indexOf(m.flag);
    var applies = m.applies_in.indexOf(release) >= 0;
    if (at >= 0 && applies) {
      var r = forward(m, out, names, at, release);
      out = r[0]; rewrites.push(r[1]);
    } else if (at < 0 && !applies && Object.keys(m.lacking || {}).some(function (n) {
      return names.indexOf(n) >= 0 && m.lacking[n].indexOf(release) >= 0;
    })) {
      var b = back(m, out);
      out = b[0]; rewrites.push(b[1]);
    }
  });
  return { flags: out, rewrites: rewrites };
}

function forward(m, out, names, at, release) {
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
  return [out, { flag: m.flag, old: order.map(function (k) { return flagText(old[k]); }).join(' '),
                 'new': renamed.concat(added).map(flagText).join(' '), since: m.since,
                 removal: get(m.removal || {}, release), back: false }];
}

function back(m, out) {  // Releases._back: the replacement in the old spelling
  var partnerOf = {}, dflt = m['default'] || {}, result = [], olds = [], news = [], at = -1;
  Object.keys(m.rename).forEach(function (p) { partnerOf[m.rename[p]] = p; });
  out.forEach(function (f) {
    if (has(partnerOf, f.name) || has(dflt, f.name)) {
      news.push(f);
      if (at < 0) at = result.length;
      if (has(partnerOf, f.name) && !(f.values.length === 1 && has(dflt, f.name) && f.values[0] === dflt[f.name])) {
        result.push({ name: partnerOf[f.name], values: f.values.slice() });
        olds.push(result[result.length - 1]);
      }
      return;
    }
    result.push(f);
  });
  var flag = { name: m.flag, values: [] }, where = olds.length ? result.indexOf(olds[0]) + 1 : at;
  result.splice(where, 0, flag);
  olds.push(flag);
  return [result, { flag: m.flag, old: olds.map(flagText).join(' '), 'new': news.map(flagText).join(' '),
                    since: m.since, removal: null, back: true }];
}

/** The catalog slice of a release: the pinned one (data.catalog), or another release's, which
 *  the export gives as its changes against the pinned one (export._catalog_changes: the flags
 *  it has otherwise or only, the flags it lacks, and below, env, env_deprecated where they
 *  differ), put together once. The catalogs of the releases no image of the model runs come
 *  with the export's later part: asked for before it is in, it throws (later.js). */
export function catalogOf(data, release) {
  var changes = get(data.release_catalogs || {}, release);
  if (!changes) {
    // a release no image runs, with the export's later part not in yet (later.js)
    if (data.later && release !== data.catalog.version) needLater(data, release);
    return data.catalog;
  }
  if (!changes.__whole) Object.defineProperty(changes, '__whole', { value: wholeCatalog(data.catalog, changes) });
  return changes.__whole;
}

function wholeCatalog(base, changes) {
  var missing = list(changes.missing), own = changes.flags || {}, flags = {};
  Object.keys(base.flags).concat(Object.keys(own)).sort().forEach(function (name) {
    if (has(own, name)) flags[name] = own[name];
    else if (missing.indexOf(name) < 0) flags[name] = base.flags[name];
  });
  var out = { flags: flags };
  ['below', 'config', 'env', 'env_deprecated'].forEach(function (k) { out[k] = has(changes, k) ? changes[k] : base[k]; });
  return out;
}

/** Releases.accepts: does `release` know the flag by this name and take its values (or values
 *  the model's branch reads)? */
export function accepts(data, release, flag, branch) {
  var spec = get(catalogOf(data, release).flags, flag.name);
  if (!spec) return false;
  var added = get(branch || {}, flag.name);
  if (valueProblem(flag.name, spec, flag.values, null) === null) return true;
  return !!(added && flag.values.length && flag.values.every(function (v) { return has(added, v); }));
}

/** Releases.taking: the releases that take the flag as written, oldest first. */
export function taking(data, flag, branch) {
  return data.releases.order.filter(function (v) { return accepts(data, v, flag, branch); });
}

/** model.branch_in: the model's branch values that hold in a command for `image` (null: a
 *  stock release chosen, where none holds): those naming that image, and those naming none. */
export function branchIn(data, image) {
  var info = data.model, out = {};
  if (image === null) return out;
  Object.keys(info.branch_values || {}).forEach(function (flag) {
    var values = info.branch_values[flag];
    Object.keys(values).forEach(function (value) {
      var reader = values[value], named = reader && typeof reader === 'object' ? reader.image : null;
      if (!named || named === image) (out[flag] = out[flag] || {})[value] = reader;
    });
  });
  return out;
}

/** Releases.ranges: releases as runs in release order ("0.5.12–0.5.17, 0.5.23"). */
export function ranges(data, versions) {
  var order = data.releases.order, runs = [], start = -1;
  for (var i = 0; i <= order.length; i++) {
    var present = i < order.length && versions.indexOf(order[i]) >= 0;
    if (present && start < 0) start = i;
    else if (!present && start >= 0) {
      runs.push(start === i - 1 ? order[start] : order[start] + '\u2013' + order[i - 1]);
      start = -1;
    }
  }
  return runs.join(', ');
}

export function legacy(data, flags) {  // Releases.legacy: the replacement read in the rules' spelling
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
