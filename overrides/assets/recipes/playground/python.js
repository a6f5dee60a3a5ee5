/* Playground: Python value semantics, the small helpers every pure module shares.
 *
 * Owns how a value reads as Python reads it: str() (pyStr), float() (num), int() (pyInt),
 * f"{x:.Nf}" (toFixedPy), str.splitlines(), and the guarded object reads (has, get, attr,
 * list). No DOM, no state; Node imports it for the parity tests.
 */

export function pyStr(v) {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}

export function norm(v) {  // conditions._norm
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null || v === undefined) return 'null';
  return String(v);
}

export function num(v) {  // conditions._num: float(value), or null
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

export function pyInt(s) {  // int(str) or null (ValueError)
  if (typeof s !== 'string' || !/^\s*[+-]?\d+(_\d+)*\s*$/.test(s)) return null;
  return parseInt(s.replace(/_/g, ''), 10);
}

export function toFixedPy(x, digits) {  // f"{x:.{digits}f}": exact binary value, ties to even
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

export function splitLines(text) {  // str.splitlines()
  var parts = String(text).split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
  if (parts.length && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

export function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }
export function get(obj, key) { return obj && has(obj, key) ? obj[key] : null; }
export function attr(obj, key) {  // conditions.attr: a known object's absent or null field reads as ""
  var v = get(obj, key);
  return v === null || v === undefined ? '' : v;
}
export function list(x) { return x || []; }  // an absent list reads as empty
