/* Playground: SGLang releases (mirrors macros/engine/releases.py).
 *
 * Owns the release a command is written for (releaseOf), rewriting the flags a release renamed
 * (migrate) and reading a command back in the rules' spelling (legacy). Pure: no DOM.
 */
import { get, has, list } from './python.js';
import { flagText } from './flags.js';

export function releaseOf(data, given) {  // Releases.resolve
  var r = data.releases;
  if (given === null || given === undefined) return r.pinned;
  return given === 'latest' ? r.newest : given;
}

export function migrate(data, flags, release) {  // Releases.migrate
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
