/* Playground: the output side of the page (what the result shows).
 *
 * Owns the output panel: the status badge, footprint and model line; the command block with
 * its pip / Docker switch, the router, curl and Python client blocks and their copy buttons;
 * the caveats; the calculator panel with its request-length input (which hands the length to
 * the Playground, ui.js); the findings; the changes against the recipe cell; the effective
 * configuration table. render(res) fills them all from one result. DOM.
 *
 * Layout (playground.css): the status line, the run modes and the command (with Copy and the
 * pointer to "Your values") are the output's top, beside the controls and sticky on a wide
 * screen; everything else (router, client calls, caveats, calculator, findings, changes,
 * effective settings) is the output's rest, full width under both. Nothing scrolls inside.
 */
import { recordFields } from './records.js';
import { list } from './python.js';
import { quiet } from './later.js';
import { commandText, curlText, dockerText, footprintText, pythonText, routerText } from './render.js';
import { calcField } from './calculator.js';
import { cellDefaults, diff } from './effects.js';
import { wholeNumber } from './urlstate.js';
import { fillValues } from './values.js';
import { clear, copyText, el } from './dom.js';

export function Output(pg, main) {
  this.pg = pg; this.data = pg.data;
  this.build(main);
}

Output.prototype.t = function (id, fields) { return this.pg.t(id, fields); };

Output.prototype.block = function (testid, titleId, parent) {
  var self = this, wrap = el('div', { className: 'rp-block rp-block--' + testid });
  var head = el('div', { className: 'rp-block__head' }, [el('span', { className: 'rp-block__title', text: this.t(titleId) })]);
  var copy = el('button', { type: 'button', className: 'rp-copy', text: this.t('ui.copy'), 'data-copy': testid });
  var values = document.querySelector('details.recipe-values');
  if (values && (testid === 'command' || testid === 'docker')) {
    // the placeholders (<rank>, <node0-ip> …) are filled in "Your values": point to it
    var link = el('a', { className: 'rp-values-link', href: '#' + (values.id || 'your-values'), text: this.t('ui.values-link'), 'data-testid': testid + '-values-link' });
    if (!values.id) values.id = 'your-values';
    link.addEventListener('click', function (e) {
      e.preventDefault();
      values.open = true;
      values.scrollIntoView({ block: 'start' });
      var first = values.querySelector('input');
      if (first) first.focus({ preventScroll: true });
    });
    head.appendChild(link);
  }
  // focusable, so a keyboard can scroll a long line (as Material does for its code blocks)
  var pre = el('pre', { className: 'rp-code' }), code = el('code', { 'data-testid': testid, tabindex: '0', 'aria-label': this.t(titleId) });
  pre.appendChild(code);
  copy.addEventListener('click', function () { copyText(code.textContent, copy, self.t('ui.copy'), self.t('ui.copied')); });
  head.appendChild(copy);
  wrap.appendChild(head); wrap.appendChild(pre);
  parent.appendChild(wrap);
  return { wrap: wrap, code: code };
};

/** The output side, after the controls in ``main``: the status line, the command and its run
 *  modes, the router, the caveats, the calculator, the findings, the diff and the effective
 *  configuration. */
Output.prototype.build = function (main) {
  var self = this, data = this.data;
  var top = el('div', { className: 'rp-output', 'data-testid': 'output' });
  var out = top;
  var head = el('div', { className: 'rp-status' });
  this.badge = el('span', { 'data-testid': 'status' });
  this.footprint = el('span', { className: 'rp-footprint', 'data-testid': 'footprint' });
  this.meta = el('span', { className: 'rp-meta' });
  head.appendChild(this.badge); head.appendChild(this.footprint); head.appendChild(this.meta);
  out.appendChild(head);
  // another option of a dimension that gives this very command here (effects.sameCommand)
  this.same = el('p', { className: 'rp-same', 'data-testid': 'same-command', hidden: 'hidden' });
  out.appendChild(this.same);
  this.command = this.block('command', 'ui.command', out);
  this.release = el('p', { className: 'rp-release', 'data-testid': 'release' });
  this.command.wrap.appendChild(this.release);
  this.buildRunModes(top);
  out = el('div', { className: 'rp-output-rest', 'data-testid': 'output-rest' });
  this.router = this.block('router', 'ui.router', out);
  this.curl = this.block('curl', 'ui.run.curl', out);
  this.pythonClient = this.block('python-client', 'ui.run.python', out);
  this.caveatBox = el('ul', { className: 'rp-caveats', 'data-testid': 'caveats' });
  out.appendChild(this.caveatBox);

  if (list(data.model.calculators).length) this.buildCalculator(out);

  this.diagBox = el('div', { className: 'rp-diagnostics' }, [el('div', { className: 'rp-block__title', text: this.t('ui.diagnostics') })]);
  this.diagList = el('ul', { 'data-testid': 'diagnostics' });
  this.diagBox.appendChild(this.diagList);
  out.appendChild(this.diagBox);

  this.diffBox = el('div', { className: 'rp-diff' }, [el('div', { className: 'rp-block__title', text: this.t('ui.diff') })]);
  this.diffList = el('ul', { 'data-testid': 'diff' });
  this.diffBox.appendChild(this.diffList);
  // what the cell's own command carries before the reader changes anything
  this.defaults = el('p', { className: 'rp-defaults', 'data-testid': 'cell-defaults' });
  this.diffBox.appendChild(this.defaults);
  out.appendChild(this.diffBox);

  var effBox = el('div', { className: 'rp-effective' }, [el('div', { className: 'rp-block__title', text: this.t('ui.effective') })]);
  var table = el('table', { 'data-testid': 'effective', tabindex: '0', 'aria-label': this.t('ui.effective') });  // scrolls on a phone
  var headRow = el('tr');
  ['table.knob', 'table.value', 'table.source', 'table.why'].forEach(function (id) { headRow.appendChild(el('th', { text: self.t(id) })); });
  table.appendChild(el('thead', {}, [headRow]));
  this.effBody = el('tbody');
  table.appendChild(this.effBody);
  effBox.appendChild(table);
  out.appendChild(effBox);
  this.effBox = effBox;

  // the top's own column: sticky inside it, so it never rides over the rest below
  main.appendChild(el('div', { className: 'rp-side' }, [top]));
  main.appendChild(out);
  this.top = top;
  this.buildJump(main);
};

/** Where the output is not beside the selectors (a phone), a click keeps the tapped option
 *  where it is; when that leaves the command off the screen, a bar at the screen's bottom says
 *  the command changed, with a button to go to it and its Copy. It goes once the command's
 *  head is on the screen again. */
Output.prototype.buildJump = function (main) {
  var self = this;
  var show = el('button', { type: 'button', className: 'rp-option', 'data-testid': 'jump-show', text: this.t('ui.jump.show') });
  var copy = el('button', { type: 'button', className: 'rp-copy', 'data-testid': 'jump-copy', text: this.t('ui.copy') });
  this.jump = el('div', { className: 'rp-jump', role: 'status', 'data-testid': 'jump', hidden: 'hidden' },
    [el('span', { className: 'rp-jump__text', text: this.t('ui.jump.text') }), show, copy]);
  show.addEventListener('click', function () {
    self.jump.hidden = true;
    var r = self.visibleBlock().wrap.getBoundingClientRect();  // just under the theme's header
    window.scrollTo({ top: window.scrollY + r.top - self.headerHeight() - 8, behavior: 'instant' });
  });
  copy.addEventListener('click', function () {
    copyText(self.visibleBlock().code.textContent, copy, self.t('ui.copy'), self.t('ui.copied'));
  });
  main.appendChild(this.jump);
  var pending = false;
  window.addEventListener('scroll', function () {
    if (self.jump.hidden || pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; if (self.headInView()) self.jump.hidden = true; });
  }, { passive: true });
};

/** The options that give the same command as the chosen cell (``same``: dimension -> option
 *  ids, effects.sameCommand), a sentence per dimension; nothing when there are none. */
Output.prototype.renderSame = function (res, same) {
  var self = this, data = this.data, dims = list(data.model.dimensions);
  var platform = data.platforms.filter(function (p) { return p.id === res.hw; })[0];
  var label = function (d, id) {
    var o = d.options.filter(function (x) { return x.id === id; })[0];
    return self.t(o.label, { value: o.id });
  };
  var lines = dims.filter(function (d) { return same[d.id]; }).map(function (d) {
    return self.t('ui.same-command', { platform: platform ? platform.label : res.hw,
      option: label(d, res.match[d.id]),
      others: same[d.id].map(function (id) { return label(d, id); }).join(', ') });
  });
  this.same.textContent = lines.join(' ');
  this.same.hidden = !lines.length;
};

Output.prototype.visibleBlock = function () { return this.runMode === 'docker' ? this.docker : this.command; };

Output.prototype.headerHeight = function () {
  var header = document.querySelector('.md-header');
  return header ? header.getBoundingClientRect().bottom : 0;
};

Output.prototype.headInView = function () {
  var r = this.visibleBlock().wrap.getBoundingClientRect();
  return r.top >= this.headerHeight() && r.top < window.innerHeight - 40;
};

/** After a click on ``control`` (ui.js choose): the bar, if the output is not sticky and its
 *  command is off the screen; at the screen's bottom, or under the header where the tapped
 *  control is near the bottom (the bar never covers what the reader just tapped). */
Output.prototype.afterChoice = function (control) {
  var beside = getComputedStyle(this.top).position === 'sticky';
  this.jump.hidden = beside || this.headInView();
  if (this.jump.hidden) return;
  var r = control.getBoundingClientRect(), bar = this.jump.getBoundingClientRect();
  var low = r.bottom > window.innerHeight - bar.height - 24;
  this.jump.classList.toggle('rp-jump--top', low);
  this.jump.style.top = low ? this.headerHeight() + 8 + 'px' : '';
};

/** The run modes of the command: a pip / Docker switch (the Docker block takes the command
 *  block's place), then a curl request and the Python client call against the server. */
Output.prototype.buildRunModes = function (out) {
  var self = this, modes = el('div', { className: 'rp-runmodes', role: 'group', 'aria-label': this.t('ui.run.mode') });
  this.runMode = 'pip';
  this.runButtons = {};
  ['pip', 'docker'].forEach(function (mode) {
    var b = el('button', { type: 'button', className: 'rp-option', 'data-runmode': mode, 'aria-pressed': 'false', text: self.t('ui.run.' + mode) });
    b.addEventListener('click', function () {
      self.runMode = mode;
      if (self.runRes) self.renderRunModes(self.runRes);
    });
    self.runButtons[mode] = b;
    modes.appendChild(b);
  });
  out.insertBefore(modes, this.command.wrap);
  this.docker = this.block('docker', 'ui.run.docker', out);
  out.insertBefore(this.docker.wrap, this.command.wrap.nextSibling);
};

Output.prototype.renderRunModes = function (res) {
  var self = this, docker = this.runMode === 'docker';
  this.runRes = res;
  this.docker.code.textContent = fillValues(dockerText(this.data, res));
  // where no image is published the second mode is the install route, named so
  var mode = res.docker_image === null ? 'ui.run.install' : 'ui.run.docker';
  this.runButtons.docker.textContent = this.t(mode);
  this.docker.wrap.querySelector('.rp-block__title').textContent = this.t(mode);
  this.curl.code.textContent = fillValues(curlText(this.data, res));
  this.pythonClient.code.textContent = fillValues(pythonText(this.data, res));
  this.docker.wrap.hidden = !docker;
  this.command.wrap.hidden = docker;
  Object.keys(this.runButtons).forEach(function (mode) {
    self.runButtons[mode].setAttribute('aria-pressed', mode === self.runMode ? 'true' : 'false');
  });
};

/** The calculator panel, for a model that declares calculators: the request length they
 *  read (when one does), then each calculator's pinned flag, value and explanation. */
Output.prototype.buildCalculator = function (out) {
  var self = this, data = this.data, length = data.model.request_length;
  var box = el('div', { className: 'rp-calc', 'data-testid': 'calculator' });
  var inputId = 'rp-avg-' + Math.random().toString(36).slice(2, 8);
  if (length) {
    this.avgInput = el('input', { type: 'number', id: inputId, step: '1', inputmode: 'numeric',
                                  min: String(length.min), max: String(length.max),
                                  value: String(this.pg.avgLen), 'data-testid': 'avg-len', list: inputId + '-list' });
    var options = el('datalist', { id: inputId + '-list' });
    length.common.forEach(function (n) { options.appendChild(el('option', { value: String(n) })); });
    var lengthRow = el('div', { className: 'rp-calc__row' });
    lengthRow.appendChild(el('label', { 'for': inputId, text: this.t('table.avg_len') }));
    lengthRow.appendChild(this.avgInput);
    lengthRow.appendChild(options);
    box.appendChild(lengthRow);
    this.avgInput.addEventListener('input', function () {
      var n = wholeNumber(self.avgInput.value, length.min, length.max);
      self.avgInput.setAttribute('aria-invalid', n === null ? 'true' : 'false');
      if (n === null) return;
      self.pg.avgLen = n;
      quiet(self.pg.update(true));
    });
  }
  this.calcRows = list(data.model.calculators).map(function (calc) {
    var part = el('div', { className: 'rp-calc__one', 'data-calculator': calc.id });
    part.appendChild(el('div', { className: 'rp-block__title', text: self.t(calc.label) }));
    var row = el('div', { className: 'rp-calc__row' });
    row.appendChild(el('span', { className: 'rp-calc__eq', text: calc.pins }));
    var output = el('output', length ? { 'data-testid': 'calc-value', 'for': inputId, className: 'rp-calc__ratio' }
                                     : { 'data-testid': 'calc-value', className: 'rp-calc__ratio' });
    row.appendChild(output);
    part.appendChild(row);
    var explain = list(calc.explain).map(function (id) {  // one line per explanation text
      var line = el('p', { className: 'rp-calc__inputs' });
      part.appendChild(line);
      return { id: id, node: line };
    });
    box.appendChild(part);
    return { id: calc.id, output: output, explain: explain };
  });
  out.appendChild(box);
};

Output.prototype.renderCalculator = function (res) {
  var self = this;
  this.calcRows.forEach(function (row) {
    var c = res.calculations.filter(function (x) { return x.id === row.id; })[0];
    if (c.value !== null) row.output.textContent = c.value;
    else row.output.textContent = c.reason ? self.t(c.reason) : self.t('ui.calc.na');
    var fields = {};
    Object.keys(c.values || {}).forEach(function (k) { if (c.values[k] !== null) fields[k] = calcField(c.values[k]); });
    row.explain.forEach(function (line) { line.node.textContent = c.values ? self.t(line.id, fields) : ''; });
  });
};

/** Empty ``box`` and return true when ``items`` differ from what it shows: a list is drawn
 *  again only when its content changed (a click mostly changes the command and little else). */
function shows(box, items) {
  var key = JSON.stringify(items);
  if (box.__shown === key) return false;
  box.__shown = key;
  clear(box);
  return true;
}

Output.prototype.render = function (res) {
  var self = this, data = this.data;
  this.badge.className = 'recipe-badge recipe-badge--' + res.status;
  this.badge.textContent = this.t('status.' + res.status);
  this.badge.title = this.t('status.' + res.status + '.title') + (res.record  // its round
    ? ' ' + this.t('record.on', recordFields(data, res.record, this.t('record.unknown'))) : '');
  this.footprint.textContent = footprintText(data, res);
  this.meta.textContent = [this.t('ui.model-path', { name: res.model_name }), res.docker_image === null
    ? this.t('ui.no-image') : this.t('ui.docker-image', { image: res.docker_image })].join(' · ');

  if (shows(this.caveatBox, res.caveats)) res.caveats.forEach(function (c) {
    var li = el('li', { className: 'rp-caveat rp-caveat--' + c.kind });
    if (c.flag) li.appendChild(el('code', { text: c.flag }));
    li.appendChild(document.createTextNode((c.flag ? ' ' : '') + self.t(c.text)));
    self.caveatBox.appendChild(li);
  });
  this.caveatBox.hidden = !res.caveats.length;

  this.command.code.textContent = fillValues(commandText(data, res));
  this.release.textContent = res.branch_only.length  // a branch build's own value: its image
    ? this.t('ui.sglang-image', { image: res.sglang_image, flags: res.branch_only.join(', '), release: res.sglang })
    : this.t('ui.sglang-release', { release: res.sglang });
  var router = routerText(data, res);
  this.router.code.textContent = router ? fillValues(router) : '';
  this.router.wrap.hidden = !router;
  this.renderRunModes(res);

  if (this.calcRows) this.renderCalculator(res);

  if (shows(this.diagList, res.diagnostics)) res.diagnostics.forEach(function (d) {
    var li = el('li', { className: 'rp-diag rp-diag--' + d.severity, 'data-rule': d.rule });
    li.appendChild(el('span', { className: 'rp-diag__severity', text: self.t('severity.' + d.severity) }));
    li.appendChild(document.createTextNode(' ' + self.t(d.message) + ' '));
    li.appendChild(el('code', { className: 'rp-diag__rule', text: d.rule }));
    self.diagList.appendChild(li);
  });
  if (!res.diagnostics.length && !this.diagList.firstChild) this.diagList.appendChild(el('li', { className: 'rp-diag--none', text: this.t('ui.diagnostics.none') }));

  var changes = diff(data, res);
  if (shows(this.diffList, changes)) changes.forEach(function (c) {
    var li = el('li', { className: 'rp-diff--' + c.kind });
    li.appendChild(el('span', { className: 'rp-diff__kind', text: self.t('ui.diff.' + c.kind) }));
    if (c.was) li.appendChild(el('code', { className: 'rp-diff__was', text: c.was }));
    if (c.was && c.now) li.appendChild(document.createTextNode(' → '));
    if (c.now) li.appendChild(el('code', { className: 'rp-diff__now', text: c.now }));
    self.diffList.appendChild(li);
  });
  if (!changes.length && !this.diffList.firstChild) this.diffList.appendChild(el('li', { text: this.t('ui.diff.none') }));
  var own = cellDefaults(data, res);  // a model whose Deploy card has no setting says nothing here
  this.defaults.hidden = !own.length;
  this.defaults.textContent = own.length ? this.t('ui.cell-defaults', { settings: own.map(function (d) {
    return self.t(d.axis.label) + ': ' + self.t(d.option.label, { value: d.option.id });
  }).join(', ') }) : '';

  this.effBox.hidden = !res.effective.length;  // a model that declares no knobs shows no table
  if (shows(this.effBody, res.effective)) res.effective.forEach(function (e) {
    var value = e.value !== null ? el('code', { text: e.value }) : el('em', { text: self.t(e.value_text) });
    var tr = el('tr', { 'data-knob': e.knob }, [
      el('td', { text: self.t(e.label) }),
      el('td', {}, [value]),
      el('td', {}, [el('span', { className: 'rp-source rp-source--' + e.source, text: self.t('source.' + e.source) })]),
      el('td', { text: e.because ? self.t(e.because) : '' })
    ]);
    self.effBody.appendChild(tr);
  });
};
