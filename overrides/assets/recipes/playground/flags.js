/* Playground: shell words and flags (mirrors macros/engine/flags.py).
 *
 * Owns quoting (quote, with the reader placeholders such as <node0-ip> left bare), shlex
 * splitting, reading flag text into {name, values} (parseFlagText), printing a flag or an env
 * assignment, and PLACEHOLDER (a {{NAME}} or <name> inside a value). Keeps one piece of state:
 * the reader placeholders of the export last composed (readerPlaceholdersOf). Pure otherwise;
 * no DOM.
 */

// Bare characters, as in flags.py; reader placeholders the database declares (<rank>,
// <node0-ip> …) also stay unquoted, like the upstream page prints them.
var BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;
var READER = {}, READER_FROM = null;

export function setReaderPlaceholders(list) {
  READER = {};
  list.forEach(function (p) { READER[p] = true; });
}

export function readerPlaceholdersOf(data) {
  if (READER_FROM === data) return;
  var found = [];
  var texts = Object.keys(data.model.placeholders).map(function (k) { return data.model.placeholders[k]; })
    .concat(data.model.pd ? data.model.pd.router.flags : []);
  texts.forEach(function (text) { found = found.concat(text.match(/<[a-z0-9][a-z0-9.-]*>/g) || []); });
  setReaderPlaceholders(found);
  READER_FROM = data;
}

export function quote(value) {
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

export function flagText(f) { return [f.name].concat(f.values.map(quote)).join(' '); }
export function sameFlag(a, b) { return a.name === b.name && a.values.join('\0') === b.values.join('\0') && a.values.length === b.values.length; }

export function envText(assignment) {
  var i = assignment.indexOf('=');
  var name = i < 0 ? assignment : assignment.slice(0, i), value = i < 0 ? '' : assignment.slice(i + 1);
  return value ? name + '=' + quote(value) : name + '=';
}

export function shlexSplit(text) {  // shlex.split(text, posix=True)
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

export function parseFlagText(text) {
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

export function flagMap(flags) {  // {f.name: f.values for f in flags}
  var out = {};
  flags.forEach(function (f) { out[f.name] = f.values; });
  return out;
}

// A placeholder inside a value: {{NAME}} (filled when the command is composed) or <name>.
export var PLACEHOLDER = /\{\{[A-Z0-9_]+\}\}|<[^<>]+>/;
