/* The Recipe Playground: composes an SGLang command in the browser from a model's JSON export
 * (macros/site/export.py), with the same algorithm as the Python engine. ES modules with relative
 * imports (<script type="module">), as the sources and Node read them.
 *
 * This entry module owns mounting: it finds the page's Playgrounds and "Your values" panel,
 * fetches each model's export (the page's only request beyond its own files), starts the
 * Playground with the selection in the URL hash and follows later hash changes. The export's
 * later part (export.split_export: the catalogs of the releases the model's images do not run,
 * what only the deployment files read) is fetched when the Playground first needs it. The modules it
 * loads from playground/:
 *   python.js      Python value semantics (str(), float(), int(), f"{x:.Nf}")
 *   conditions.js  macros/engine/conditions.py: evaluate, fill, evalExpr
 *   flags.js       macros/engine/flags.py: quote, parseFlagText, shlex
 *   calculator.js  macros/engine/calculator.py: calcEvaluate, calcField, fmt
 *   releases.js    macros/engine/releases.py: the release a command is for, renamed flags
 *   later.js       the export's later part: asking for it, joining it in
 *   state.js       resolve._State: the command while it is composed
 *   resolve.js     macros/engine/resolve.py: compose (= resolve(..., strict=False))
 *   explain.js     the caveats and the effective configuration of a result
 *   check.js       macros/engine/check.py: findings for the generated command
 *   render.js      macros/site/render.py, macros/site/runmodes.py: command, router, docker, curl, Python
 *   deploy.js      macros/site/servers.py, deploy.py, kube.py: config file, Compose, Kubernetes
 *   effects.js     macros/engine/effects.py and the diff against the cell's own command
 *   urlstate.js    the URL hash and the request length a reader may type (cli._avg_len)
 *   dom.js, values.js, output.js, ui.js, deployui.js: the page (the only modules that touch
 *                  the DOM; deployui.js is "Deploy as" under the output, which loads deploy.js
 *                  when the reader first asks for a file); app.js gathers what mounting needs
 * The pure ones (all but the last two lines) never touch document or window; Node imports them for
 * the parity tests (tests/js/parity.mjs, helpers.mjs, idle.mjs), which prove they print what
 * `recipes command` prints for every reachable selection. Every node is built with
 * createElement/textContent. The built site ships them bundled and minified (macros/site/bundle.py,
 * esbuild): this entry, the chunk a Playground needs, and chunks loaded on first use.
 */
// A page loads the Playground's modules only when it has a Playground or a "Your values" panel
// (import() below): the home page and the guides load this file alone.

// The language switch and the reader's place it hands over are lang-switch.js's (a classic
// script in the head, so that it works before this module runs); this module tells it when
// the page has its height ("recipes:settled"), and it scrolls to the place then.
function settled() { document.dispatchEvent(new Event('recipes:settled')); }

var modules = null;
function load() {  // the modules a Playground needs, fetched at the same time as its export
  if (!modules) modules = import('./playground/app.js');
  return modules;
}

function fetchJSON(name) {  // a file beside this one (assets/recipes/)
  var url = new URL(name, import.meta.url);
  return fetch(url.href, { credentials: 'same-origin' }).then(function (r) {
    if (!r.ok) throw new Error(url.href + ': HTTP ' + r.status);
    return r.json();
  });
}

function mount(root) {
  if (root.getAttribute('data-mounted')) return;
  root.setAttribute('data-mounted', 'loading');
  var lang = root.getAttribute('data-lang') || 'en', model = root.getAttribute('data-model');
  var data = fetchJSON(model + '.' + lang + '.json');
  load().then(function (m) { start(root, m, data); }, function (e) {
    root.setAttribute('data-mounted', 'failed');
    if (typeof console !== 'undefined') console.warn('recipe playground:', e);
  });
}

function start(root, m, data) {
  var clear = m.clear, el = m.el, Playground = m.Playground;
  function readHash() { return m.parseHash(location.hash); }
  root.setAttribute('aria-busy', 'true');
  root.appendChild(el('p', { className: 'rp-loading', text: root.getAttribute('data-loading') || '' }));
  data.then(function (data) {
    var pg = new Playground(root, data, fetchJSON);
    root.playground = pg;
    m.mountDeploy(pg, root);
    // listening before the first load: a link followed while that one waits for its release's
    // catalog is the one shown once it is in (ui.js load)
    // (the Playground writes its own hash with replaceState, which fires no hashchange, and so
    // do our other scripts; the theme's code-line anchors would fire one, and are off in
    // mkdocs.yml, anchor_linenums: false: every one is the reader's, and overtakes a link
    // still waiting)
    window.addEventListener('hashchange', function () {
      var hash = readHash();
      if (root.getAttribute('data-mounted') === 'failed') return;
      if (location.hash !== pg.hash && pg.owns(hash)) m.quiet(pg.load(hash));
      else pg.overtake();  // a heading's link, or Back to what is shown: the reader stays there
    });
    return Promise.resolve(pg.load(readHash())).then(function () { return pg; });  // a link's release: its catalog first
  }).then(function (pg) {
    document.addEventListener('recipes:values', function () { if (pg.res) pg.renderOutput(pg.res); });
    root.setAttribute('data-mounted', 'ready');
    root.removeAttribute('aria-busy');
    settled();
  }).catch(function (e) {
    clear(root);
    root.appendChild(el('p', { className: 'rp-error', text: root.getAttribute('data-failed') || '' }));
    root.setAttribute('data-mounted', 'failed');
    root.removeAttribute('aria-busy');
    if (typeof console !== 'undefined') console.warn('recipe playground:', e);
  });
}

function mountAll() {
  var panels = document.querySelectorAll('details.recipe-values');
  if (panels.length) import('./playground/values.js').then(function (m) {
    Array.prototype.forEach.call(panels, m.mountValues);
  });
  var playgrounds = document.querySelectorAll('.recipe-playground');
  Array.prototype.forEach.call(playgrounds, mount);
  if (!playgrounds.length) settled();  // else once the Playground has its height
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
else mountAll();
if (window.document$ && typeof window.document$.subscribe === 'function') window.document$.subscribe(mountAll);
