/* The language switch keeps the reader's place, from the moment the page starts to load.
 *
 * Our language links already point at the same page (and carry the selection). Material's own
 * handler would re-map them through the other site's sitemap.xml, which is empty without a
 * site_url, and send the reader to the other language's home page; keep it out, and keep it
 * from fetching every language's sitemap.xml with each page: it reads the sites to map from
 * the head's <link rel="alternate" hreflang> tags, which leave the page's DOM here (this
 * script runs in the head after them, before Material's bundle; the HTML keeps them for
 * crawlers). The switch
 * also keeps the reader's place: a page anchor (#cell-…, a heading) rides along when the link
 * carries no selection of its own, and the heading above the top of the screen, with how far
 * past it the reader was, is handed to the other page (sessionStorage), which scrolls there once
 * its Playground is up (playground.js sends "recipes:settled"). Headings keep their ids across
 * languages (the translators' contract), so the place exists on the other side.
 *
 * A classic script in the page's head, not part of the Playground's modules: a module runs only
 * once the whole page is parsed, and a reader who switches before that (a long page, a slow
 * device) would land without the anchor.
 */
(function () {
  var PLACE = 'recipes:place';
  Array.prototype.forEach.call(document.querySelectorAll('link[rel="alternate"][hreflang]'), function (link) {
    link.parentNode.removeChild(link);
  });
  document.addEventListener('click', function (event) {
    var target = event.target, link = target && target.closest && target.closest('a[data-recipes-lang]');
    if (!link) return;
    event.stopPropagation();
    Array.prototype.forEach.call(document.querySelectorAll('.recipe-playground'), function (root) {
      if (root.playground && root.playground.flushHash) root.playground.flushHash();  // a click's hash not yet in the address
    });
    var href = link.getAttribute('href');
    if (href.indexOf('#') < 0 && location.hash) link.setAttribute('href', href + location.hash);
    var place = placeNow();
    try {
      if (place) sessionStorage.setItem(PLACE, JSON.stringify({ path: new URL(link.href, location.href).pathname, id: place.id, offset: place.offset }));
    } catch (e) { /* no storage: the switch lands at the top, as before */ }
  }, true);

  function headerBottom() {
    var bar = document.querySelector('.md-header');
    return bar ? bar.getBoundingClientRect().bottom : 0;
  }

  function placeNow() {
    var top = headerBottom() + 1, found = null;
    Array.prototype.forEach.call(document.querySelectorAll('.md-content [id]'), function (e) {
      if (!/^H[1-6]$/.test(e.tagName)) return;
      if (e.getBoundingClientRect().top <= top) found = e;
    });
    if (!found || window.scrollY < 1) return null;
    return { id: found.id, offset: Math.round(top - found.getBoundingClientRect().top) };
  }

  function anchored() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) { return false; }
    return !!id && !!document.getElementById(id);
  }

  function restorePlace() {
    var raw = null;
    try { raw = sessionStorage.getItem(PLACE); sessionStorage.removeItem(PLACE); } catch (e) { return; }
    if (!raw || anchored()) return;  // an anchor in the address is the place already
    var place = JSON.parse(raw), target = document.getElementById(place.id);
    if (place.path !== location.pathname || !target) return;
    window.scrollTo(0, window.scrollY + target.getBoundingClientRect().top - headerBottom() - 1 + place.offset);
  }

  // once the page has its height: its Playgrounds are up, or it has none
  document.addEventListener('recipes:settled', restorePlace);
})();
