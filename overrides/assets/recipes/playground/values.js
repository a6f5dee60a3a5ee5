/* Playground: the reader's values, the "Your values" panel (macros/site/pages.py values).
 *
 * Owns the panel's inputs, their check against each value's pattern, their storage in
 * localStorage (one set for every model), filling the placeholders of the page's own code
 * blocks, and fillValues for the Playground's blocks; a change is announced to the page as
 * the recipes:values event. DOM: the page's panel and code blocks only.
 */
import { clear, el } from './dom.js';

var VALUES_KEY = 'recipes.values.v1';
var valueDefs = null;  // [{id, tokens, pattern, kind}] as the page's panel declares them
var stillBlocks = [];  // the page's own code blocks that hold a placeholder, as built

function storedValues() {
  try {
    var v = JSON.parse(window.localStorage.getItem(VALUES_KEY) || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch (e) { return {}; }
}

function saveValues(values) {
  try { window.localStorage.setItem(VALUES_KEY, JSON.stringify(values)); } catch (e) { /* private mode: this page only */ }
}

/** A value is used only when it has its kind's shape (none needs shell quoting). */
function usable(def, value) {
  return typeof value === 'string' && value.length <= 255 && new RegExp(def.pattern).test(value);
}

export function fillValues(text) {
  if (!valueDefs) return text;
  var values = storedValues();
  valueDefs.forEach(function (d) {
    if (usable(d, values[d.id])) d.tokens.forEach(function (t) { text = text.split(t).join(values[d.id]); });
  });
  return text;
}

function refreshStill() {
  stillBlocks.forEach(function (b) {
    var filled = fillValues(b.text);
    clear(b.code);
    if (filled === b.text) b.nodes.forEach(function (n) { b.code.appendChild(n.cloneNode(true)); });
    else b.code.textContent = filled;  // filled in: plain text, without the highlighting
  });
}

function valuesChanged() {
  refreshStill();
  document.dispatchEvent(new CustomEvent('recipes:values'));
}

export function mountValues(panel) {
  if (panel.getAttribute('data-mounted')) return;
  panel.setAttribute('data-mounted', 'ready');
  try { valueDefs = JSON.parse(panel.getAttribute('data-values')); } catch (e) { return; }
  var tokens = [];
  valueDefs.forEach(function (d) { tokens = tokens.concat(d.tokens); });
  Array.prototype.forEach.call(document.querySelectorAll('article pre > code'), function (code) {
    if (code.closest('.recipe-playground')) return;
    var text = code.textContent;
    if (tokens.some(function (t) { return text.indexOf(t) >= 0; })) {
      stillBlocks.push({ code: code, text: text, nodes: Array.prototype.map.call(code.childNodes, function (n) { return n.cloneNode(true); }) });
    }
  });
  var rows = panel.querySelectorAll('tbody tr'), values = storedValues();
  valueDefs.forEach(function (d, i) {
    var cell = rows[i] && rows[i].cells[2];
    if (!cell) return;
    var note = el('span', { className: 'rp-value__invalid', role: 'status' });
    var input = el('input', { type: 'text', className: 'rp-value', 'data-value': d.id, autocomplete: 'off', spellcheck: 'false',
                              'aria-label': rows[i].cells[1].textContent, placeholder: d.tokens[0] });
    input.value = typeof values[d.id] === 'string' ? values[d.id] : '';
    function judge() {
      var bad = input.value !== '' && !usable(d, input.value);
      input.setAttribute('aria-invalid', bad ? 'true' : 'false');
      note.textContent = bad ? panel.getAttribute('data-invalid').split('{kind}').join(d.kind) : '';
    }
    judge();
    input.addEventListener('input', function () {
      var now = storedValues();
      if (input.value === '') delete now[d.id]; else now[d.id] = input.value;
      saveValues(now);
      judge();
      valuesChanged();
    });
    cell.appendChild(input);
    cell.appendChild(note);
  });
  var reset = el('button', { type: 'button', className: 'rp-copy rp-values__clear', text: panel.getAttribute('data-clear') });
  reset.addEventListener('click', function () {
    var now = storedValues();
    valueDefs.forEach(function (d) { delete now[d.id]; });
    saveValues(now);
    Array.prototype.forEach.call(panel.querySelectorAll('input.rp-value'), function (i) { i.value = ''; i.setAttribute('aria-invalid', 'false'); });
    Array.prototype.forEach.call(panel.querySelectorAll('.rp-value__invalid'), function (n) { n.textContent = ''; });
    valuesChanged();
  });
  panel.appendChild(reset);
  window.addEventListener('storage', function (e) { if (e.key === VALUES_KEY) valuesChanged(); });
  refreshStill();
}
