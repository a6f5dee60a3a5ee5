/* Playground: verification records (mirrors macros/engine/records.py).
 *
 * Owns a cell's record (its round: release, image, digest, date, hardware, who ran it, how
 * many benchmark results it produced; null where the data is silent) and whether it is stale:
 * its release more than `behind` releases behind the newest, or a flag the cell gives whose
 * meaning the flag history changes after it (export: releases.staleness). Pure: no DOM.
 */
import { list } from './python.js';

export function recordOf(data, cell) {  // records.record
  if (cell.status !== 'verified' && cell.status !== 'in-progress') return null;
  var round = list(data.model.rounds).filter(function (r) { return r.id === cell.verified_in; })[0];
  if (!round) return { round: null, build: null, release: null, image: null, digest: null, date: null,
                       hardware: [], by: null, results: 0, stale: [] };
  var facts = (data.round_results || {})[round.id] || { hardware: [], results: 0 };
  var release = data.releases.order.indexOf(round.sglang) >= 0 ? round.sglang : null;
  return { round: round.id, build: round.version, release: release, image: round.image || null,
           digest: round.digest || null, date: round.date || null,
           hardware: list(round.hardware).length ? list(round.hardware) : facts.hardware,
           by: round.by || null, results: facts.results, stale: staleOf(data, cell, release) };
}

function staleOf(data, cell, release) {  // records.stale
  var rule = data.releases.staleness, order = data.releases.order, out = [];
  if (!release || !rule) return out;
  var count = order.length - 1 - order.indexOf(release), at = order.indexOf(release);
  if (count > rule.behind) {
    out.push({ kind: 'behind', fields: { release: release, newest: order[order.length - 1],
                                         count: String(count), most: String(rule.behind) } });
  }
  var last = {}, names = [];  // each flag once, where it first stands, as its last value
  cell.flags.forEach(function (f) {
    if (!Object.prototype.hasOwnProperty.call(last, f[0])) names.push(f[0]);
    last[f[0]] = f[1];
  });
  names.forEach(function (name) {
    var changes = (last[name].length ? rule.meaning : rule['switch'])[name] || [];
    for (var i = 0; i < changes.length; i++) {
      if (order.indexOf(changes[i][0]) > at) {
        out.push({ kind: 'meaning', fields: { flag: name, fact: changes[i][1], changed: changes[i][0], release: release } });
        break;
      }
    }
  });
  return out;
}

/** render.record_fields: the record's fields as text, `unknown` where the data is silent. */
export function recordFields(data, rec, unknown) {
  var labels = {};
  data.platforms.forEach(function (p) { labels[p.id] = p.label; });
  return { round: rec.round || unknown, build: rec.build || unknown,
           release: rec.release || rec.build || unknown, image: rec.image || unknown,
           digest: rec.digest || unknown, date: rec.date || unknown,
           hardware: rec.hardware.map(function (h) { return labels[h] || h; }).join(', ') || unknown,
           by: rec.by || unknown, results: String(rec.results) };
}
