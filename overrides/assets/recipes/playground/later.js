/* Playground: the export's later part (macros/site/export.py split_export).
 *
 * The site ships a model's export in two files: the part a page fetches to mount the
 * Playground, which names the other under `later`, and that other part: the catalogs of the
 * releases no image of the model runs and what only the deployment files read. Owns the
 * signal that a result needs the later part (needLater, isLater: the page fetches it and asks
 * again), putting the two parts together (addLater, as export.join_export), and a reader's
 * action left waiting for it (quiet). Pure: no DOM.
 */

/** Thrown where a result reads what is in the later part and that part is not in yet. */
export function needLater(data, what) {
  var e = new Error('needs ' + data.later + ' (' + what + ')');
  e.later = data.later;
  throw e;
}

export function isLater(e) { return !!(e && e.later); }

/** The later part joined into the export, once: each key of a mapping added to the export's
 *  mapping of that key, any other value set; `later` gone. */
export function addLater(data, part) {
  Object.keys(part).forEach(function (key) {
    var value = part[key], mine = data[key];
    if (value && typeof value === 'object' && !Array.isArray(value) && mine && typeof mine === 'object' && !Array.isArray(mine)) {
      Object.keys(value).forEach(function (k) { mine[k] = value[k]; });
    } else data[key] = value;
  });
  delete data.later;
  return data;
}

/** A reader's action that may wait for the later part: a failed fetch is said by the page
 *  (ui.js later), nothing more to do with it here. */
export function quiet(pending) {
  if (pending && typeof pending.then === 'function') pending.then(null, function () {});
  return pending;
}
