/* Playground: Korean particles after a filled-in value (mirrors macros/engine/josa.py).
 *
 * Owns final-consonant reading (finalSound) and the particle form that follows a word (form);
 * render.text applies it to every particle a Korean text writes right after a {field}.
 * Pure: no DOM; Node imports it for the parity tests.
 */
export var PAIRS = [['이에요', '예요'], ['이었어요', '였어요'], ['으로', '로'], ['이나', '나'],
  ['이라', '라'], ['이고', '고'], ['이면', '면'], ['을', '를'], ['은', '는'], ['과', '와'],
  ['이', '가']];
var FORMS = [];
PAIRS.forEach(function (p) { p.forEach(function (f) { if (FORMS.indexOf(f) < 0) FORMS.push(f); }); });
FORMS.sort(function (a, b) { return b.length - a.length; });
export var PARTICLE = new RegExp('^(' + FORMS.join('|') + ')(?=(?:는|도|만|의|부터)?(?:[^가-힣]|$))');
var DIGIT = { 0: 'ㅇ', 1: 'ㄹ', 2: '', 3: 'ㅁ', 4: '', 5: '', 6: 'ㄱ', 7: 'ㄹ', 8: 'ㄹ', 9: '' };
var UNIT = { 1: 'ㅂ', 2: 'ㄱ', 3: 'ㄴ', 4: 'ㄴ' };
var CLOSING = "`'\"*_ ]}»”’.,:;!?";

function rstrip(text) {
  var end = text.length;
  while (end > 0 && CLOSING.indexOf(text.charAt(end - 1)) >= 0) end--;
  return text.slice(0, end);
}

export function finalSound(word) {
  var text = rstrip(word);
  while (text.charAt(text.length - 1) === ')' && text.indexOf('(') >= 0) text = rstrip(text.slice(0, text.lastIndexOf('(')));
  if (!text) return null;
  var c = text.charAt(text.length - 1);
  if (c >= '가' && c <= '힣') {
    var jong = (c.charCodeAt(0) - 0xAC00) % 28;
    return jong === 0 ? '' : (jong === 8 ? 'ㄹ' : 'ㄴ');
  }
  if (c >= '0' && c <= '9') {
    var digits = /[0-9]+$/.exec(text)[0], trimmed = digits.replace(/0+$/, '');
    var zeros = digits.length - trimmed.length, decimal = text.slice(0, text.length - digits.length).slice(-1) === '.';
    if (zeros && digits.replace(/^0+/, '') && !decimal) return UNIT[zeros] !== undefined ? UNIT[zeros] : 'ㄴ';
    return DIGIT[c];
  }
  if (c === '%') return '';
  if (/[A-Za-z]/.test(c)) return latin(/[A-Za-z]+$/.exec(text)[0]);
  return null;
}

var LETTER = { l: 'ㄹ', m: 'ㅁ', n: 'ㄴ', r: 'ㄹ' }, VOWELS = 'aeiouy';
var STOP = { k: 'ㄱ', c: 'ㄱ', p: 'ㅂ', b: 'ㅂ', t: 'ㅅ' };
var SAID = { ok: '', check: '' };
function isVowel(ch) { return ch !== '' && VOWELS.indexOf(ch) >= 0; }

function latin(word) {  // josa._latin
  var caps = /[A-Z]{2,}$/.exec(word), w = word.toLowerCase();
  if ((caps && (word.length <= 3 || caps.index > 0)) || !/[aeiouy]/.test(w)) return LETTER[w.charAt(w.length - 1)] || '';
  if (Object.prototype.hasOwnProperty.call(SAID, w)) return SAID[w];
  if (/ng$/.test(w)) return 'ㅇ';
  var n = w.length;
  if (n > 2 && w.charAt(n - 1) === 'e' && !isVowel(w.charAt(n - 2))) {
    if (w.charAt(n - 2) === 'l' && !isVowel(w.charAt(n - 3))) return 'ㄹ';
    return { m: 'ㅁ', n: 'ㄴ', p: 'ㅂ', l: 'ㄹ' }[w.charAt(n - 2)] || '';
  }
  var last = w.charAt(n - 1);
  if (last !== 'r' && LETTER[last]) return LETTER[last];
  if (last === 'k' && /ck$/.test(w)) { w = w.slice(0, -1); last = 'c'; n = w.length; }
  if (STOP[last] && n > 1 && isVowel(w.charAt(n - 2))) {
    if (last === 't' && n > 2 && isVowel(w.charAt(n - 3))) return '';
    return STOP[last];
  }
  return '';
}

export function form(word, particle) {
  var pair = PAIRS.filter(function (p) { return p.indexOf(particle) >= 0; })[0], sound = finalSound(word);
  if (!pair || sound === null) return particle;
  if (pair[0] === '으로') return sound === '' || sound === 'ㄹ' ? pair[1] : pair[0];
  return sound ? pair[0] : pair[1];
}
