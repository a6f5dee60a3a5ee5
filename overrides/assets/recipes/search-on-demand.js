/* The search loads when the reader searches: the theme fetches its search index and starts its
 * search worker (which loads the language's stemmers) as soon as a page opens, the largest part
 * of a page's weight. Run before the theme's bundle, this holds back that one request and that
 * one worker until the reader opens the search box (a click on it, the keyboard shortcut or a
 * search in the page's address), then lets both go as the theme asked. Everything else the
 * theme does is untouched; without JavaScript there is no search either way.
 */
(function () {
  var wanted = false, waiting = [];
  function want() {
    if (wanted) return;
    wanted = true;
    waiting.splice(0).forEach(function (go) { go(); });
  }
  function later(go) { if (wanted) go(); else waiting.push(go); }

  // the index: the theme asks for search/search_index.json with XMLHttpRequest
  var open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__recipesSearch = /\/search\/search_index\.json(\?|$)/.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var xhr = this, args = arguments;
    if (!xhr.__recipesSearch) return send.apply(xhr, args);
    later(function () { send.apply(xhr, args); });
  };

  // the worker: a stand-in that starts the real one at the first message (the index)
  var Real = window.Worker;
  if (Real) {
    window.Worker = function (url, options) {
      if (!/\/workers\/search\.[^/]*\.js(\?|$)/.test(String(url))) return new Real(url, options);
      var self = new EventTarget(), real = null, queue = [], ended = false;
      function start() {
        if (ended) return;  // closed before the reader wanted it
        real = new Real(url, options);
        ['message', 'messageerror', 'error'].forEach(function (kind) {
          real.addEventListener(kind, function (event) {
            var copy = kind === 'message' ? new MessageEvent(kind, { data: event.data }) : new Event(kind);
            self.dispatchEvent(copy);
            // a theme may listen through the on… properties (Zensical's search sets onmessage,
            // onerror, onmessageerror), not addEventListener (Material's): both hear it
            var handler = self['on' + kind];
            if (typeof handler === 'function') handler.call(self, copy);
          });
        });
        queue.splice(0).forEach(function (m) { real.postMessage(m); });
      }
      self.postMessage = function (message) {
        if (real) real.postMessage(message);
        else { queue.push(message); later(function () { if (!real) start(); }); }
      };
      self.terminate = function () { ended = true; if (real) real.terminate(); };
      return self;
    };
    window.Worker.prototype = Real.prototype;
  }

  // what opens the search: its box (Material's, or Zensical's in its dialog), its toggle (click
  // or shortcut), a search in the address
  document.addEventListener('focusin', function (e) {
    if (e.target && e.target.matches
        && e.target.matches('[data-md-component="search-query"], dialog input[role="combobox"]')) want();
  }, true);
  document.addEventListener('change', function (e) {
    if (e.target && e.target.id === '__search' && e.target.checked) want();
  }, true);
  document.addEventListener('pointerdown', function (e) {
    if (e.target && e.target.closest && e.target.closest('label[for="__search"], .md-search')) want();
  }, true);
  if (/[?&]q=/.test(location.search)) want();
})();
