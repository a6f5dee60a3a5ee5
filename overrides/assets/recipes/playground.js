/* The Recipe Playground: composes an SGLang command in the browser from a model's JSON export
 * (macros/site/export.py), with the same algorithm as the Python engine. ES modules, loaded as the
 * browser loads them (<script type="module">, relative imports, no bundler).
 *
 * This entry module owns mounting: it finds the page's Playgrounds and "Your values" panel,
 * fetches each model's export (the page's only request beyond its own files), starts the
 * Playground with the selection in the URL hash and follows later hash changes. The modules it
 * loads from playground/:
 *   python.js      Python value semantics (str(), float(), int(), f"{x:.Nf}")
 *   conditions.js  macros/engine/conditions.py: evaluate, fill, evalExpr
 *   flags.js       macros/engine/flags.py: quote, parseFlagText, shlex
 *   calculator.js  macros/engine/calculator.py: calcEvaluate, calcField, fmt
 *   releases.js    macros/engine/releases.py: the release a command is for, renamed flags
 *   state.js       resolve._State: the command while it is composed
 *   resolve.js     macros/engine/resolve.py: compose (= resolve(..., strict=False))
 *   explain.js     the caveats and the effective configuration of a result
 *   check.js       macros/engine/check.py: findings for the generated command
 *   render.js      macros/site/render.py, macros/site/runmodes.py: command, router, docker, curl, Python
 *   deploy.js      macros/site/servers.py, deploy.py, kube.py: config file, Compose, Kubernetes
 *   effects.js     macros/engine/effects.py and the diff against the cell's own command
 *   urlstate.js    the URL hash and the request length a reader may type (cli._avg_len)
 *   dom.js, values.js, output.js, ui.js, deployui.js: the page (the only modules that touch
 *                  the DOM; deployui.js is "Deploy as" under the output)
 * The pure ones (all but the last line) never touch document or window; Node imports them for
 * the parity tests (tests/js/parity.mjs, helpers.mjs, idle.mjs), which prove they print what
 * `recipes command` prints for every reachable selection. Every node is built with
 * createElement/textContent.
 */
import { parseHash } from './playground/urlstate.js';
import { clear, el } from './playground/dom.js';
import { mountValues } from './playground/values.js';
import { Playground } from './playground/ui.js';
import { mountDeploy } from './playground/deployui.js';

// Our language links already point at the same page (and carry the selection). Material's
// own handler would re-map them through the other site's sitemap.xml, which is empty without
// a site_url, and send the reader to the other language's home page; keep it out.
document.addEventListener('click', function (event) {
  var target = event.target;
  if (target && target.closest && target.closest('a[data-recipes-lang]')) event.stopPropagation();
}, true);

function readHash() { return parseHash(location.hash); }

function mount(root) {
  if (root.getAttribute('data-mounted')) return;
  root.setAttribute('data-mounted', 'loading');
  var lang = root.getAttribute('data-lang') || 'en', model = root.getAttribute('data-model');
  // The export sits beside this file (assets/recipes/), in the site of the page's language.
  var url = new URL(model + '.' + lang + '.json', import.meta.url);
  root.setAttribute('aria-busy', 'true');
  root.appendChild(el('p', { className: 'rp-loading', text: root.getAttribute('data-loading') || '' }));
  fetch(url.href, { credentials: 'same-origin' }).then(function (r) {
    if (!r.ok) throw new Error(url.href + ': HTTP ' + r.status);
    return r.json();
  }).then(function (data) {
    var pg = new Playground(root, data);
    root.playground = pg;
    mountDeploy(pg, root);
    pg.load(readHash());
    document.addEventListener('recipes:values', function () { if (pg.res) pg.renderOutput(pg.res); });
    window.addEventListener('hashchange', function () {
      var hash = readHash();
      if (location.hash !== pg.hash && pg.owns(hash)) pg.load(hash);
    });
    root.setAttribute('data-mounted', 'ready');
    root.removeAttribute('aria-busy');
  }).catch(function (e) {
    clear(root);
    root.appendChild(el('p', { className: 'rp-error', text: root.getAttribute('data-failed') || '' }));
    root.setAttribute('data-mounted', 'failed');
    root.removeAttribute('aria-busy');
    if (typeof console !== 'undefined') console.warn('recipe playground:', e);
  });
}

function mountAll() {
  Array.prototype.forEach.call(document.querySelectorAll('details.recipe-values'), mountValues);
  Array.prototype.forEach.call(document.querySelectorAll('.recipe-playground'), mount);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
else mountAll();
if (window.document$ && typeof window.document$.subscribe === 'function') window.document$.subscribe(mountAll);
