/* Playground: the DOM helpers the page modules share.
 *
 * Owns building an element (el: every text through textContent, never HTML), emptying one
 * (clear) and the copy buttons' copy (copyText: the clipboard API, or a selected textarea
 * where there is none). Touches document and navigator; Node never loads it.
 */

export function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === 'text') node.textContent = attrs[k];
    else if (k === 'className') node.className = attrs[k];
    else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) { if (c) node.appendChild(c); });
  return node;
}

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

export function copyText(value, button, label, done) {
  function ok() {
    button.textContent = done;
    button.classList.add('rp-copied');
    clearTimeout(button.rpCopied);  // a second copy within the time: the first's reset waits
    button.rpCopied = setTimeout(function () { button.textContent = label; button.classList.remove('rp-copied'); }, 1500);
  }
  function fallback() {
    var area = el('textarea', { readonly: 'readonly', className: 'rp-offscreen' });
    area.value = value;
    document.body.appendChild(area);
    area.select();
    try { if (document.execCommand('copy')) ok(); } catch (e) { /* nothing more to try */ }
    document.body.removeChild(area);
  }
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(value).then(ok, fallback);
  else fallback();
}
