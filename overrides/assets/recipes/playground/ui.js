/* Playground: the controls and the selection state (the Playground object the page mounts).
 *
 * Owns the Deploy card (hardware, the cell's dimensions, the settings without a card, the SGLang
 * release) and the folded cards under More settings; the selection (the cell's keys, the settings the reader
 * chose, the request length, the release) read from a hash (load) and written back to it (scheduleHash,
 * with the language links, once the click's frame is painted); composing on every change (update) and
 * greying, in the background after that frame, the options that would change nothing (probeIdle); the
 * export's later part fetched the first time a result needs it (later), and the newest of the reader's
 * actions waiting for it composed again then. The output side is output.js. DOM.
 */
import { list } from './python.js';
import { compose, dimensionsOf } from './resolve.js';
import { text } from './render.js';
import { NO_EFFECT, REFUSED, explainOption, optionProbe, probeQueue, sameProbe, sameQueue } from './effects.js';
import { hashOf, ownsHash, readSelection, unknownPairs } from './urlstate.js';
import { clear, el } from './dom.js';
import { Output } from './output.js';
import { addLater, isLater, quiet } from './later.js';

/** `fetchLater(name)`: a promise of the export's later part named `name` (playground.js
 *  fetches it beside the export). */
export function Playground(root, data, fetchLater) {
  this.root = root; this.data = data; this.lang = data.lang;
  this.fetchLater = fetchLater;
  this.dims = dimensionsOf(data);  // the cell's keys: the Deploy card's first rows
  this.groups = {};  // axis key -> {box, buttons: {option: button}, tips: {option: span}}
  this.explicit = {};
  this.avgLen = data.model.request_length ? data.model.request_length['default'] : null;
  this.build();
}

Playground.prototype.t = function (id, fields) { return text(this.data, id, fields); };

/** A promise that the export's later part is in (at once when it is, or there is none):
 *  fetched once, on the first result that needs it (another release's catalog) or the first
 *  deployment file; the Playground is busy meanwhile. A failed fetch is said in the notice,
 *  and the next need tries again. */
Playground.prototype.later = function () {
  var self = this, data = this.data;
  if (!data.later) return Promise.resolve();
  if (!this.laterPart) {
    this.root.setAttribute('aria-busy', 'true');
    this.laterPart = Promise.resolve().then(function () { return self.fetchLater(data.later); }).then(function (part) {
      if (data.later) addLater(data, part);
      self.root.removeAttribute('aria-busy');
    }, function (e) {
      self.laterPart = null;
      self.root.removeAttribute('aria-busy');
      self.notice.hidden = false;
      self.notice.textContent = self.root.getAttribute('data-failed') || '';
      throw e;
    });
  }
  return this.laterPart;
};

Playground.prototype.optionLabel = function (axisId, option) {
  if (axisId === 'hw') return option.label;
  return this.t(option.label, { value: option.id });
};

/** More options than this in one setting (MiniMax-H3's 24 platforms) are a drop-down list, not
 *  a row of buttons: the row would fill the first screen and push the other selectors below it,
 *  and a tap in it would move the page. */
export var LONG_ROW = 12;

Playground.prototype.group = function (key, labelId, options, parent) {
  if (options.length > LONG_ROW) return this.selectGroup(key, labelId, options, parent);
  var self = this, id = 'rp-' + key + '-' + Math.random().toString(36).slice(2, 8);
  var row = el('div', { className: 'rp-axis', 'data-axis': key, role: 'group', 'aria-labelledby': id });
  row.appendChild(el('div', { className: 'rp-axis__label', id: id, text: this.t(labelId) }));
  var box = el('div', { className: 'rp-options' }), line = box;
  var g = { row: row, buttons: {}, tips: {} };
  var vendor = null;
  if (key === 'hw') box.className = 'rp-vendors';
  options.forEach(function (o) {
    if (key === 'hw' && o.vendor !== vendor) {  // one line per vendor: its name, its platforms
      vendor = o.vendor;
      line = el('div', { className: 'rp-options' });
      box.appendChild(el('div', { className: 'rp-vendor-line' }, [el('span', { className: 'rp-vendor', text: self.t('ui.vendor.' + vendor) }), line]));
    }
    var tipId = id + '-' + o.id.replace(/[^A-Za-z0-9_-]/g, '_');
    var b = el('button', { type: 'button', className: 'rp-option', 'data-option': o.id, 'aria-pressed': 'false' });
    b.appendChild(el('span', { className: 'rp-option__label', text: self.optionLabel(key, o) }));
    var tip = el('span', { className: 'rp-tip', role: 'tooltip', id: tipId, hidden: 'hidden' });
    b.addEventListener('click', function () {
      if (b.getAttribute('aria-disabled') === 'true') return;  // greyed: nothing changes
      self.choose(key, o.id, b);
    });
    g.buttons[o.id] = b; g.tips[o.id] = tip;
    var opt = el('span', { className: 'rp-opt' }, [b, tip]);
    // a greyed option says what would make it count once the reader points at it (explainOption)
    ['mouseenter', 'focusin', 'touchstart'].forEach(function (kind) {
      opt.addEventListener(kind, function () { self.explain(key, o.id); }, { passive: true });
    });
    line.appendChild(opt);
  });
  row.appendChild(box);
  parent.appendChild(row);
  this.groups[key] = g;
};

/** A long setting as a native drop-down list (LONG_ROW): platforms under their vendor (one
 *  group per vendor, in the order of first appearance), a greyed option disabled with its
 *  reason in its title and under the list while it is the chosen one. */
Playground.prototype.selectGroup = function (key, labelId, options, parent) {
  var self = this, id = 'rp-' + key + '-' + Math.random().toString(36).slice(2, 8);
  var row = el('div', { className: 'rp-axis rp-axis--select', 'data-axis': key });
  row.appendChild(el('label', { className: 'rp-axis__label', 'for': id, text: this.t(labelId) }));
  var select = el('select', { id: id, className: 'rp-select rp-select--options', 'data-testid': 'select-' + key });
  var g = { row: row, select: select, buttons: {}, tips: {} }, vendors = {};
  options.forEach(function (o) {
    var parentNode = select;
    if (key === 'hw') {
      if (!vendors[o.vendor]) select.appendChild(vendors[o.vendor] = el('optgroup', { label: self.t('ui.vendor.' + o.vendor) }));
      parentNode = vendors[o.vendor];
    }
    var option = el('option', { value: o.id, 'data-option': o.id, text: self.optionLabel(key, o) });
    parentNode.appendChild(option);
    g.buttons[o.id] = option;
  });
  var tip = el('p', { className: 'rp-select__why', id: id + '-why', hidden: 'hidden' });
  g.why = tip;
  select.addEventListener('change', function () { self.choose(key, select.value, select); });
  row.appendChild(el('div', { className: 'rp-options' }, [select]));
  row.appendChild(tip);
  parent.appendChild(row);
  this.groups[key] = g;
};

Playground.prototype.build = function () {
  var self = this, data = this.data, root = this.root;
  clear(root);
  root.classList.add('rp');
  // The main selectors and the output side by side (one column on a phone: the output right
  // under the selectors); the finer cards folded below the selectors until opened.
  var main = el('div', { className: 'rp-main' });
  var controls = el('div', { className: 'rp-controls' });
  var deploy = el('fieldset', { className: 'rp-card rp-card--deploy' }, [el('legend', { text: this.t('ui.deploy') })]);
  this.group('hw', 'table.hardware', data.platforms, deploy);
  list(data.model.dimensions).forEach(function (d) { self.group(d.id, d.label, d.options, deploy); });
  var cards = {};
  this.cardOf = {};
  data.axes.forEach(function (axis) {
    var parent = deploy;
    if (axis.card) {
      if (!cards[axis.card]) {
        cards[axis.card] = el('fieldset', { className: 'rp-card', 'data-card': axis.card }, [el('legend', { text: self.t('ui.card.' + axis.card) })]);
      }
      parent = cards[axis.card];
      self.cardOf[axis.id] = axis.card;
    }
    self.group(axis.id, axis.label, axis.options, parent);
  });
  this.releaseControl(deploy);
  controls.appendChild(deploy);
  var names = Object.keys(cards);
  if (names.length) {
    this.more = el('details', { className: 'rp-more', 'data-testid': 'more' });
    this.more.appendChild(el('summary', { text: this.t('ui.more', { cards: names.map(function (k) { return self.t('ui.card.' + k); }).join(', ') }) }));
    var grid = el('div', { className: 'rp-cards' });
    names.forEach(function (k) { grid.appendChild(cards[k]); });
    this.more.appendChild(grid);
    controls.appendChild(this.more);
    this.more.addEventListener('toggle', function () { if (self.more.open && self.res) self.probeIdle(self.res); });
  }

  main.appendChild(controls);
  this.notice = el('p', { className: 'rp-notice', role: 'status', 'data-testid': 'hash-notice', hidden: 'hidden' });
  root.appendChild(this.notice);
  this.output = new Output(this, main);
  root.appendChild(main);
};

/** The SGLang release the command is spelt for: the recipe's (the cell's image's) unless the
 *  reader picks another of the flag history (resolve(..., release=)); kept in the URL. */
Playground.prototype.releaseControl = function (parent) {
  var self = this, id = 'rp-sglang-' + Math.random().toString(36).slice(2, 8);
  var row = el('div', { className: 'rp-axis rp-release-choice', 'data-axis': 'sglang' });
  row.appendChild(el('label', { className: 'rp-axis__label', 'for': id, text: this.t('ui.sglang-choose') }));
  var select = el('select', { id: id, className: 'rp-select', 'data-testid': 'sglang' });
  select.appendChild(el('option', { value: '' }));
  this.data.releases.order.slice().reverse().forEach(function (v) {
    select.appendChild(el('option', { value: v, text: v }));
  });
  select.addEventListener('change', function () {
    self.release = select.value || null;
    quiet(self.update(true));
  });
  row.appendChild(el('div', { className: 'rp-options' }, [select]));
  parent.appendChild(row);
  this.releaseSelect = select;
};

/** A click on an option: the new result, with the clicked option kept where the reader's
 *  finger or pointer is (the output above it may grow or shrink; the page must not jump). On
 *  a wide screen the command stays in view beside the cards (sticky, playground.css). */
Playground.prototype.choose = function (key, value, button) {
  var before = button ? button.getBoundingClientRect().top : null;
  this.notice.hidden = true;  // the reader has moved on from the link
  if (this.dims.indexOf(key) >= 0) this.top[key] = value;
  else this.explicit[key] = value;
  quiet(this.update(true));
  if (before !== null) {
    var moved = button.getBoundingClientRect().top - before;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
    this.output.afterChoice(button);
  }
};

/** Is this hash a Playground selection (and not a heading anchor)? */
Playground.prototype.owns = function (hash) { return ownsHash(this.data, this.dims, hash); };

/** The selection of a hash, composed; a promise when the result waits for the export's later
 *  part (a link naming another release), kept once it is drawn, or once a newer action is. */
Playground.prototype.load = function (hash) {
  var self = this, before = this.res ? this.state() : null;
  try {
    return this.loadNow(hash);
  } catch (e) {
    if (!isLater(e)) throw e;
    // loaded again once the part is in, unless the reader has since chosen something or
    // followed another link (loadNow and update count them in this.asked): the newer action's
    // state is the one drawn then, not this link's over it
    var asked = this.asked;
    this.waiting = { asked: asked, before: before };
    return this.later().then(function () {
      if (self.asked === asked) return self.load(hash);
      // overtaken while nothing was drawn yet (the page opened from this link): the link is
      // drawn, and the address stays the reader's (no hash of its own yet: none is written)
      if (!self.res) return self.update(false, true);
    });
  }
};

/** The reader went to an address that names no other selection (a heading's link, or Back to
 *  the one shown): a link still waiting for the later part is not drawn over it, and what its
 *  reading set (release, picks, request length, notice) goes back to what is shown, so the
 *  next choice starts from there. */
Playground.prototype.overtake = function () {
  var waiting = this.waiting;
  if (waiting && waiting.asked === this.asked && waiting.before) this.restore(waiting.before);
  this.waiting = null;
  this.asked = (this.asked || 0) + 1;
};

/** What reading a link sets (loadNow), for ``restore``. */
Playground.prototype.state = function () {
  var input = this.output.avgInput;
  return { avgLen: this.avgLen, release: this.release, top: Object.assign({}, this.top),
           explicit: Object.assign({}, this.explicit), input: input ? input.value : null,
           notice: [this.notice.hidden, this.notice.textContent] };
};

Playground.prototype.restore = function (state) {
  var input = this.output.avgInput;
  this.avgLen = state.avgLen;
  this.release = state.release;
  this.top = state.top;
  this.explicit = state.explicit;
  this.notice.hidden = state.notice[0];
  this.notice.textContent = state.notice[1];
  if (input && state.input !== null) input.value = state.input;
};

Playground.prototype.loadNow = function (hash) {
  this.asked = (this.asked || 0) + 1;  // a link followed (load's wait for the later part)
  var self = this, read = readSelection(this.data, this.dims, hash), input = this.output.avgInput;
  var unknown = unknownPairs(this.data, this.dims, hash);
  this.notice.hidden = !unknown.length;  // a link's value this page does not offer, named
  this.notice.textContent = unknown.length ? this.t('ui.hash-unknown', { pairs: unknown.join(', ') }) : '';
  this.avgLen = read.avgLen;
  this.release = read.release;
  this.top = read.top;
  this.explicit = read.explicit;
  if (this.more && Object.keys(read.explicit).some(function (k) { return self.cardOf[k]; })) this.more.open = true;
  if (input) {
    input.value = String(this.avgLen);
    input.removeAttribute('aria-invalid');
  }
  if (this.owns(hash)) this.forgetDefaults();
  return this.update(this.owns(hash));
};

/** A link lists every visible axis; keep as chosen only the picks that differ from the
 *  defaults, so that later clicks move the untouched axes with their defaults. */
Playground.prototype.forgetDefaults = function () {
  var self = this, full, plain, trimmed = {};
  try {
    full = compose(this.data, this.selection());
    var top = { avg_len: this.avgLen };
    self.dims.forEach(function (k) { top[k] = full.match[k]; });
    plain = compose(this.data, top);
  } catch (e) {
    if (isLater(e)) throw e;  // load asks again once the later part is in (unless overtaken)
    return;
  }
  Object.keys(this.explicit).forEach(function (k) {
    if (plain.picks[k] !== self.explicit[k]) trimmed[k] = self.explicit[k];
  });
  var saved = this.explicit;
  this.explicit = trimmed;
  var again = compose(this.data, this.selection());
  if (JSON.stringify(again.picks) !== JSON.stringify(full.picks)) this.explicit = saved;
};

Playground.prototype.selection = function () {
  var sel = { avg_len: this.avgLen }, self = this;
  if (this.release) sel.sglang = this.release;
  this.dims.forEach(function (k) { if (self.top[k]) sel[k] = self.top[k]; });
  Object.keys(this.explicit).forEach(function (k) { sel[k] = self.explicit[k]; });
  return sel;
};

/** Compose the selection and draw it; a promise when the result needs the export's later
 *  part first (it is drawn once that is in: the selection as it is then). ``again``: that
 *  second draw, which is no new action of the reader's (this.asked, read by load); ``at``:
 *  the address when the action was taken, which its hash may replace (scheduleHash). */
Playground.prototype.update = function (writeHash, again, at) {
  var self = this, data = this.data, res;
  if (!again) this.asked = (this.asked || 0) + 1;  // a choice or a link, drawn now or once the part is in
  try {
    res = compose(data, this.selection());
  } catch (e) {
    if (isLater(e)) {
      // the address as the action left it: if the reader goes elsewhere on the page before
      // the part is in (a heading's link), the result is drawn and the address stays theirs
      var address = location.hash;
      return this.later().then(function () { return self.update(writeHash, true, address); });
    }
    if (typeof console !== 'undefined') console.warn('recipe playground:', e);
    return;
  }
  this.res = res;
  // a new selection: the greying and same-command tasks queued for the one before stop here
  // (left running until this one's begin after the paint, they drew the old result's verdicts
  // over the new choices and unpressed a chosen option)
  var updated = (this.updated = (this.updated || 0) + 1);
  if (res.sglang === res.sglang_default) this.release = null;  // the recipe's own: implicit
  // The state is what the reader sees: snapped picks are forgotten, defaults stay implicit.
  this.dims.forEach(function (k) { self.top[k] = res.match[k]; });
  Object.keys(this.explicit).forEach(function (k) { if (res.picks[k] !== self.explicit[k]) delete self.explicit[k]; });
  this.renderControls(res);
  this.renderOutput(res);
  if (writeHash || this.hash) this.scheduleHash(res, at);
  // after the paint: the probes that grey options and the options that give this very command
  // (both a few composes per task)
  this.output.same.hidden = true;
  afterPaint(function () {
    if (updated !== self.updated) return;  // a later change took over
    self.probeIdle(res);
    self.sameIdle(res);
  });
};

/** effects.same_command after the paint, a few composes per task (as probeIdle): which other
 *  options of a dimension give this very command here, said under the status. The root's
 *  data-same names the selection (this.updated) whose line is worked out, shown or not (for
 *  tests). */
Playground.prototype.sameIdle = function (res) {
  var self = this, updated = this.updated, probe = sameProbe(this.data, res, this.selection());
  var queue = sameQueue(this.data, res), same = {};
  this.output.same.hidden = true;
  function step() {
    if (updated !== self.updated) return;  // a newer selection took over
    var started = Date.now();
    try {
      while (queue.length && Date.now() - started < 8) {
        var q = queue[0];
        if (probe(q[0], q[1])) (same[q[0]] = same[q[0]] || []).push(q[1]);
        queue.shift();
      }
    } catch (e) {  // none shown, unless the later part was missing: then on once it is in
      if (isLater(e)) self.later().then(step, function () {});
      else self.root.setAttribute('data-same', String(updated));
      return;
    }
    if (queue.length) setTimeout(step, 0);
    else {
      self.output.renderSame(res, same);
      self.root.setAttribute('data-same', String(updated));
    }
  }
  setTimeout(step, 0);
};

/** Run ``fn`` once the next frame is painted: work the reader does not see on screen (the
 *  address, the language links, the greying probes) never delays the frame that shows a
 *  click's result. A hidden tab paints no frame: then after 100 ms. */
function afterPaint(fn) {
  var done = false;
  function go() { if (!done) { done = true; fn(); } }
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(function () { setTimeout(go, 0); });
  setTimeout(go, 100);
}

/** effects.probe_options, in the background after a render (a few probes per task, so the
 *  click paints first): an enabled option of a visible setting whose pick shows the same
 *  result (gate.no-effect) or a command SGLang refuses (gate.refused) is greyed. Settings folded under More settings are probed
 *  when it opens. The root's data-probed counts finished rounds (for tests). */
Playground.prototype.probeIdle = function (res) {
  var self = this, round = (this.round = (this.round || 0) + 1), updated = this.updated;
  var open = !this.more || this.more.open, probe = optionProbe(this.data, res);
  var queue = probeQueue(res, function (axis) { return open || !self.cardOf[axis]; });
  function step() {
    if (round !== self.round || updated !== self.updated) return;  // a newer round or selection
    var started = Date.now();
    while (queue.length && Date.now() - started < 8) {
      var q = queue[0], reason;
      try { reason = probe(q[0], q[1]); } catch (e) {
        if (!isLater(e)) throw e;
        self.later().then(step, function () {});  // this option again once the later part is in
        return;
      }
      queue.shift();
      if (reason) self.setOption(q[0], { id: q[1], state: 'disabled', reason: reason }, false);
    }
    if (queue.length) setTimeout(step, 0);
    else self.root.setAttribute('data-probed', String(round));
  }
  setTimeout(step, 0);
};

/** Put what a probed option's reason names into its tip (effects.explainOption), once per
 *  selection: the setting, platform or release that would give it an effect, or the finding
 *  that SGLang would refuse. */
Playground.prototype.explain = function (key, option) {
  if (this.groups[key].select) return;  // a drop-down list's options say theirs in their title
  var b = this.groups[key].buttons[option], tip = this.groups[key].tips[option];
  var reason = b.getAttribute('data-reason');
  if ((reason !== NO_EFFECT && reason !== REFUSED) || !this.res || b.getAttribute('data-explained') === String(this.round)) return;
  var why;
  try { why = explainOption(this.data, this.res, key, option, reason); } catch (e) {
    var self = this;
    if (isLater(e)) this.later().then(function () { self.explain(key, option); }, function () {});
    return;
  }
  var words = this.t(why.reason, why.fields);
  b.title = words;
  tip.textContent = words;
  b.setAttribute('data-explained', String(this.round));
};

Playground.prototype.setOption = function (key, state, chosen) {
  var g = this.groups[key];
  if (g.select) return this.setListOption(g, state, chosen);
  var b = g.buttons[state.id], tip = g.tips[state.id];
  var shown = JSON.stringify([state.state, !!chosen, state.reason || '', state.fields || null]);
  if (b.__shown === shown) return;  // drawn so already (a tip's explanation is redone on hover)
  b.__shown = shown;
  b.parentNode.hidden = state.state === 'hidden';
  var disabled = state.state === 'disabled';
  b.setAttribute('aria-pressed', chosen ? 'true' : 'false');
  b.classList.toggle('rp-option--disabled', disabled);
  if (disabled) {
    var reason = this.t(state.reason || 'gate.not-shown', state.fields);
    b.setAttribute('aria-disabled', 'true');
    b.setAttribute('data-reason', state.reason || '');
    b.removeAttribute('data-explained');
    b.title = reason;
    tip.textContent = reason;
    tip.hidden = false;
    b.setAttribute('aria-describedby', tip.id);
  } else {
    b.removeAttribute('aria-disabled');
    b.removeAttribute('data-reason');
    b.removeAttribute('title');
    b.removeAttribute('aria-describedby');
    tip.textContent = '';
    tip.hidden = true;
  }
};

Playground.prototype.setListOption = function (g, state, chosen) {
  var option = g.buttons[state.id], disabled = state.state === 'disabled';
  option.hidden = state.state === 'hidden';
  option.disabled = disabled && !chosen;  // the chosen one stays chosen, its reason shown below
  option.title = disabled ? this.t(state.reason || 'gate.not-shown', state.fields) : '';
  if (chosen) {
    g.select.value = state.id;
    g.why.hidden = !disabled;
    g.why.textContent = disabled ? option.title : '';
  }
};

Playground.prototype.renderControls = function (res) {
  var self = this, select = this.releaseSelect;
  select.options[0].textContent = this.t('ui.sglang-choose.default', { release: res.sglang_default });
  select.value = res.sglang !== res.sglang_default ? res.sglang : '';
  this.data.model.hardware.forEach(function (hw) {
    self.setOption('hw', { id: hw, state: 'enabled' }, hw === res.hw);
  });
  this.dims.slice(1).forEach(function (dim) {
    res.dimensions[dim].forEach(function (s) { self.setOption(dim, s, s.id === res.match[dim]); });
  });
  res.axes.forEach(function (a) {
    self.groups[a.axis].row.hidden = !a.visible;
    a.options.forEach(function (o) { self.setOption(a.axis, o, a.visible && o.id === a.value); });
  });
  Object.keys(this.groups).forEach(function (k) {  // a card with no visible row is hidden too
    var card = self.groups[k].row.parentNode;
    if (card && card.getAttribute('data-card')) {
      card.hidden = !Array.prototype.some.call(card.querySelectorAll('.rp-axis'), function (r) { return !r.hidden; });
    }
  });
};

Playground.prototype.renderOutput = function (res) { this.output.render(res); };

/** The selection's hash is the Playground's at once (this.hash); the address and the language
 *  links get it after the next paint (history.replaceState is a navigation, several ms in
 *  Chromium), the latest of several clicks only, and not over an address the reader changed
 *  meanwhile (a heading's link): since the draw, or since ``at`` (an action drawn once the
 *  later part is in). flushHash writes a pending one now (the language switch). */
Playground.prototype.scheduleHash = function (res, at) {
  var self = this, hash = hashOf(this.dims, res), seen = at === undefined ? location.hash : at;
  this.hash = hash;
  var pending = this.pendingHash = function () {
    if (self.pendingHash !== pending) return;  // done already, or a later click's
    self.pendingHash = null;
    if (location.hash === seen) self.writeHash(hash);
  };
  afterPaint(pending);
};

Playground.prototype.flushHash = function () { if (this.pendingHash) this.pendingHash(); };

Playground.prototype.writeHash = function (hash) {
  if (location.hash !== hash) history.replaceState(history.state, '', hash);
  // The language switch lands on the same page with the same selection.
  Array.prototype.forEach.call(document.querySelectorAll('a[data-recipes-lang]'), function (a) {
    a.setAttribute('href', a.getAttribute('href').split('#')[0] + hash);
  });
};
