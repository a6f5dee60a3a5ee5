/* Playground: the URL state (the hash a selection link carries) and the request length a
 * reader may type.
 *
 * Owns reading a hash into key=value pairs (parseHash, from its first HASH_MAX characters
 * only), telling a selection's hash from a heading anchor (ownsHash), splitting one into the
 * cell's keys, the settings, avg_len and the SGLang release (readSelection), writing a result back as a hash
 * (hashOf), and reading a request length as the CLI does (wholeNumber). Pure: the page reads
 * and writes location itself (ui.js, ../playground.js).
 */

// A selection link is a few hundred characters; reading a longer hash whole only costs time.
export var HASH_MAX = 8192;

/** The key=value pairs of a URL hash, read from its first HASH_MAX characters only (a pair
 *  the cut splits is dropped, so a shortened value is never read as a real one). */
export function parseHash(raw) {
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
export function wholeNumber(text, lo, hi) {
  var s = String(text);
  if (!/^[0-9]+$/.test(s)) return null;
  s = s.replace(/^0+(?=.)/, '');
  if (s.length > String(hi).length) return null;
  var n = Number(s);
  return n >= lo && n <= hi ? n : null;
}

/** Is this hash a Playground selection (and not a heading anchor)? */
export function ownsHash(data, dims, hash) {
  var keys = dims.concat(['avg_len', 'sglang'], data.axes.map(function (a) { return a.id; }));
  return Object.keys(hash).some(function (k) { return keys.indexOf(k) >= 0; });
}

/** A hash as a selection: {top: the cell's keys, explicit: the settings, avgLen: the request
 *  length (the model's default unless the hash carries one it accepts; null for a model whose
 *  calculators read none), release: the SGLang release chosen (null: the recipe's)}. Keys of neither kind are ignored. */
export function readSelection(data, dims, hash) {
  var top = {}, explicit = {}, length = data.model.request_length, release = null;
  var axisIds = data.axes.map(function (a) { return a.id; });
  var avgLen = length ? length['default'] : null;
  Object.keys(hash).forEach(function (k) {
    if (dims.indexOf(k) >= 0) top[k] = hash[k];
    else if (k === 'avg_len' && length) {
      var n = wholeNumber(hash[k], length.min, length.max);
      if (n !== null) avgLen = n;
    } else if (k === 'sglang') {
      if (data.releases.order.indexOf(hash[k]) >= 0 || hash[k] === 'latest') release = hash[k];
    } else if (axisIds.indexOf(k) >= 0) explicit[k] = hash[k];
  });
  return { top: top, explicit: explicit, avgLen: avgLen, release: release };
}

/** The pairs of a selection hash this page cannot honour, as 'key=value' (spec=banana, a
 *  platform the model has no recipe for, a request length out of range, a release the flag
 *  history does not know): the Playground names them instead of snapping in silence. */
export function unknownPairs(data, dims, hash) {
  var out = [], length = data.model.request_length, choices = {};
  choices.hw = list(data.model.hardware);
  list(data.model.dimensions).forEach(function (d) { choices[d.id] = d.options.map(function (o) { return o.id; }); });
  data.axes.forEach(function (a) { choices[a.id] = a.options.map(function (o) { return o.id; }); });
  Object.keys(hash).forEach(function (k) {
    var v = hash[k], bad;
    if (k === 'avg_len') bad = !length || wholeNumber(v, length.min, length.max) === null;
    else if (k === 'sglang') bad = data.releases.order.indexOf(v) < 0 && v !== 'latest';
    else if (Object.prototype.hasOwnProperty.call(choices, k)) bad = choices[k].indexOf(v) < 0;
    if (bad) out.push(k + '=' + v);
  });
  return out;
}

function list(x) { return x || []; }

/** The hash of a result: the cell's keys, every visible setting, then the request length. */
export function hashOf(dims, res) {
  var parts = dims.map(function (k) { return k + '=' + encodeURIComponent(res.match[k]); });
  res.axes.forEach(function (a) { if (a.visible) parts.push(a.axis + '=' + encodeURIComponent(a.value)); });
  if (res.avg_len !== null) parts.push('avg_len=' + res.avg_len);
  if (res.sglang !== res.sglang_default) parts.push('sglang=' + encodeURIComponent(res.sglang));
  return '#' + parts.join('&');
}
