/* Playground: "Deploy as" — the result as the command, SGLang's config file, a Docker Compose
 * file or Kubernetes manifests (deploy.js), each file with Copy and Download.
 *
 * Owns its own section under the output panel: the format switch, a block per file with the
 * reader's values filled in (values.js), and, next to Copy, the placeholders still left to fill
 * with a link to the "Your values" panel, so a file is never copied with one in silence.
 * Mounted by playground.js after the Playground; follows each result the Playground renders.
 * The file writers (deploy.js), and the export's later part with what only they read, load
 * when the reader first picks a format other than the command: the first screen needs none
 * of them. DOM.
 */
import { commandText, routerText, text } from './render.js';
import { fillValues } from './values.js';
import { clear, copyText, el } from './dom.js';
import { list } from './python.js';

var FORMATS = ['command', 'config', 'compose', 'k8s'];
var writers = null;  // deploy.js, once a format needs it (a promise of the module)

function commandFiles(data, res) {
  var body = commandText(data, res), router = routerText(data, res);
  if (router) body += '\n\n# ' + text(data, 'ui.router') + '\n' + router;
  return [{ name: data.model.id + '.sh', text: body + '\n' }];
}

function unfilled(data, txt) {
  var out = [];
  list(data.reader_values).forEach(function (v) {
    v.tokens.forEach(function (t) { if (txt.indexOf(t) >= 0 && out.indexOf(t) < 0) out.push(t); });
  });
  return out;
}

function valuesPanel() {
  var panel = document.querySelector('details.recipe-values');
  if (panel && !panel.id) panel.id = 'recipe-values';
  return panel;
}

function download(name, txt) {
  var url = URL.createObjectURL(new Blob([txt], { type: 'text/plain;charset=utf-8' }));
  var a = el('a', { href: url, download: name, className: 'rp-offscreen' });
  document.body.appendChild(a);
  a.click();
  document.body.removeChild(a);
  setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
}

function DeployAs(pg, parent) {
  var self = this;
  this.pg = pg; this.data = pg.data; this.format = 'command'; this.res = null;
  this.box = el('section', { className: 'rp-deploy', 'data-testid': 'deploy' });
  var label = el('span', { className: 'rp-block__title', id: 'rp-deploy-label', text: this.t('ui.deploy.as') });
  var group = el('div', { className: 'rp-deploy__formats', role: 'group', 'aria-labelledby': 'rp-deploy-label' });
  this.buttons = FORMATS.map(function (fmt) {
    var b = el('button', { type: 'button', className: 'rp-option', 'data-deploy-format': fmt,
      'aria-pressed': fmt === self.format ? 'true' : 'false', text: self.t('ui.deploy.' + fmt) });
    b.addEventListener('click', function () { self.format = fmt; self.render(); });
    group.appendChild(b);
    return b;
  });
  this.files = el('div', { className: 'rp-deploy__files' });
  this.box.appendChild(el('div', { className: 'rp-block__head' }, [label]));
  this.box.appendChild(group);
  this.box.appendChild(this.files);
  parent.appendChild(this.box);
}

DeployAs.prototype.t = function (id, fields) { return text(this.data, id, fields); };

DeployAs.prototype.update = function (res) { this.res = res; this.render(); };

DeployAs.prototype.render = function () {
  var self = this, data = this.data, res = this.res;
  if (!res) return;
  this.buttons.forEach(function (b) {
    b.setAttribute('aria-pressed', b.getAttribute('data-deploy-format') === self.format ? 'true' : 'false');
  });
  var found;
  if (this.format === 'command') found = commandFiles(data, res);
  else if (this.writers) found = this.writers.deployFiles(data, res, this.format);
  else {  // the writers and the later part arrive, then the current result is drawn (the reader may have moved on)
    if (!writers) writers = import('./deploy.js');
    if (!this.ready) {
      this.ready = Promise.all([writers, this.pg.later()]).then(function (m) { self.writers = m[0]; },
        function (e) { self.ready = null; throw e; });
    }
    this.box.setAttribute('aria-busy', 'true');
    this.ready.then(function () { self.box.removeAttribute('aria-busy'); self.render(); }, function (e) {
      self.box.removeAttribute('aria-busy');
      if (typeof console !== 'undefined') console.warn('recipe playground:', e);
    });
    return;
  }
  clear(this.files);
  found.forEach(function (f) { self.files.appendChild(self.fileBlock(f)); });
  if (!found.length) {  // no image published here: say so, never an empty panel
    self.files.appendChild(el('p', { className: 'rp-deploy__none', 'data-testid': 'deploy-no-image',
      text: this.t('ui.deploy.no-image') }));
  }
};

DeployAs.prototype.fileBlock = function (f) {
  var self = this, txt = fillValues(f.text), left = unfilled(this.data, txt);
  var wrap = el('div', { className: 'rp-block rp-deploy__file', 'data-testid': 'deploy-file', 'data-name': f.name });
  var head = el('div', { className: 'rp-block__head' }, [el('span', { className: 'rp-block__title', text: f.name })]);
  var tools = el('span', { className: 'rp-deploy__tools' });
  if (left.length) {
    var note = el('span', { className: 'rp-deploy__unfilled', 'data-testid': 'deploy-unfilled',
      text: this.t('ui.deploy.unfilled', { tokens: left.join(', ') }) + ' ' });
    var panel = valuesPanel();
    if (panel) {
      var link = el('a', { href: '#' + panel.id, text: panel.querySelector('summary') ?
        panel.querySelector('summary').textContent : '' });
      link.addEventListener('click', function () { panel.open = true; });
      note.appendChild(link);
    }
    tools.appendChild(note);
  }
  var copy = el('button', { type: 'button', className: 'rp-copy', 'data-copy': 'deploy', text: this.t('ui.copy') });
  copy.addEventListener('click', function () { copyText(txt, copy, self.t('ui.copy'), self.t('ui.copied')); });
  var save = el('button', { type: 'button', className: 'rp-copy', 'data-download': f.name, text: this.t('ui.deploy.download') });
  save.addEventListener('click', function () { download(f.name, txt); });
  tools.appendChild(copy); tools.appendChild(save);
  head.appendChild(tools);
  var pre = el('pre', { className: 'rp-code' });
  pre.appendChild(el('code', { 'data-testid': 'deploy-code', tabindex: '0', 'aria-label': f.name, text: txt }));
  wrap.appendChild(head); wrap.appendChild(pre);
  return wrap;
};

/** Add "Deploy as" under the Playground's output and follow every result it renders. */
export function mountDeploy(pg, root) {
  // the output's full-width rest (output.js layout), so the sticky command beside the cards
  // stays short
  var parent = root.querySelector('[data-testid="output-rest"]') || root.querySelector('[data-testid="output"]') || root;
  var deploy = new DeployAs(pg, parent);
  var render = pg.renderOutput;
  pg.renderOutput = function (res) {
    render.call(pg, res);
    deploy.update(res);
  };
  if (pg.res) deploy.update(pg.res);
  return deploy;
}
