"""One visit per page and viewport for the browser tests that read a page as it opens.

Several tests look at the same pages without touching them: whether they rendered (no raw
template, badges and tabs drawn, fonts), whether anything is wider than a phone, whether a theme
icon covers text, whether Korean words break, how many columns the command box shows, what the
first screen holds, where the matrix's badges are. Each used to load the page itself, so a model
page was loaded a dozen times for reads that do not change it. ``visit`` loads a page once per
(built site, path, viewport) in this process, waits until it is finished (the Playground
mounted, the theme's code buttons added), runs every probe below on it and keeps the answers;
each test still asserts on its own answer, so a finding fails the test it belongs to.

The tests that read visits carry the ``page_visits`` marker: under ``make test`` they form one
xdist group (tests/conftest.py), so one worker makes each visit once. A test run alone makes
its visits itself. What the probes read is the page as a reader first sees it, so a probe that
changes the page (the phone's navigation drawer, opened to read its links) runs last.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from helpers.browser import Watch, lease, picture, served_folder

VIEWPORTS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}

# Each probe is a function of no argument returning JSON; they run in this order, in one call.
PROBES = {
    # rendering finished: no raw Jinja, badges, tabs and code drawn with text, a real font
    "rendered": """() => {
  const box = (e) => e.getBoundingClientRect();
  const badges = [...document.querySelectorAll('article .recipe-badge')];
  const tabs = [...document.querySelectorAll('article .tabbed-labels > label')];
  const code = [...document.querySelectorAll('article pre code')];
  const h1 = document.querySelector('article h1');
  const text = document.body.innerText;
  return {
    jinja: text.includes('{{') || text.includes('{%'),
    badges: badges.length,
    // a badge in a hidden tab has no box; every visible one must be drawn
    emptyBadges: badges.filter(b => !b.textContent.trim() ||
                                    (b.offsetParent !== null && box(b).width < 20)).length,
    visibleBadges: badges.filter(b => b.offsetParent !== null).length,
    tabs: tabs.length,
    emptyTabs: tabs.filter(l => !l.textContent.trim()).length,
    code: code.length,
    // a hidden block (the router of a selection that has none) may be empty
    emptyCode: code.filter(c => c.offsetParent !== null && !c.textContent.trim()).length,
    headingWidth: h1 ? box(h1).width : 0,
    fonts: document.fonts.check('16px sans-serif', '서버'),
  };
}""",
    # what the first screen holds (the page has not scrolled): every deployment setting's row
    # of the Playground's Deploy card, the status, the GPU count, the Copy button, the command's
    # top edge, and the model's facts above it
    "first_screen": """() => {
  const box = (e) => e ? e.getBoundingClientRect() : null;
  const inside = (e) => { const r = box(e); return !!r && r.top >= 0 && r.bottom <= innerHeight; };
  const command = document.querySelector('.rp-block--command');
  if (!command) return null;
  const rows = {};
  for (const row of document.querySelectorAll('.rp-card--deploy [data-axis]'))
    if (!(row.dataset.axis in rows)) rows[row.dataset.axis] = inside(row);
  const about = document.querySelectorAll('article .recipe-about');
  return {
    rows,
    status: inside(document.querySelector('[data-testid=status]')),
    footprint: inside(document.querySelector('[data-testid=footprint]')),
    copy: inside(document.querySelector('.rp-block--command .rp-copy')),
    commandTop: box(command).top,
    height: innerHeight,
    about: about.length,
    aboutTop: about.length ? box(about[0]).top : null,
  };
}""",
    # how many monospace columns the command box shows on one line, and the lines of at most 80
    # columns that the box wraps all the same
    "columns": """() => {
  const code = document.querySelector('.rp-block--command code');
  if (!code) return null;
  const probe = document.createElement('span');
  probe.style.whiteSpace = 'pre';
  probe.textContent = 'x'.repeat(100);
  code.appendChild(probe);
  const column = probe.getBoundingClientRect().width / 100;
  probe.remove();
  const s = getComputedStyle(code);
  const inner = code.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  const wrapped = [];
  const node = code.firstChild, text = node ? node.data : '';
  let start = 0;
  const wide = c => [[0x1100, 0x115F], [0x2E80, 0xA4CF], [0xAC00, 0xD7A3], [0xF900, 0xFAFF],
    [0xFE30, 0xFE4F], [0xFF00, 0xFF60], [0xFFE0, 0xFFE6]].some(([a, b]) => c >= a && c <= b);
  const width = line => [...line].reduce((n, ch) => n + (wide(ch.codePointAt(0)) ? 2 : 1), 0);
  for (const line of text.split('\\n')) {
    if (line.length && width(line) <= 80) {
      const range = document.createRange();
      range.setStart(node, start); range.setEnd(node, start + line.length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                           .map(r => Math.round(r.top)));
      if (tops.size > 1) wrapped.push(line);
    }
    start += line.length + 1;
  }
  return {columns: Math.floor(inner / column), wrapped};
}""",
    # the deployment matrix's status badges: where each is drawn (null: not drawn)
    "matrix_badges": """() => [...document.querySelectorAll('.recipe-matrix .recipe-badge')]
  .map(b => { const r = b.getBoundingClientRect();
              return b.getClientRects().length ? {x: r.x, right: r.right} : null; })""",
    # nothing pushes the page sideways: an element past the screen's edge is fine inside a box
    # that scrolls within it; one that a box clips is cut off for the reader
    "widest": """() => {
  const limit = document.documentElement.clientWidth;
  const boxed = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if ((o === 'auto' || o === 'scroll') && p.getBoundingClientRect().right <= limit + 1)
        return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > limit + 1 && r.width > 0 && !boxed(el))
      out.push(el.tagName + '.' + el.className + ' ' + Math.round(r.right));
  }
  return {page: document.documentElement.scrollWidth, screen: limit, wide: out.slice(0, 5)};
}""",
    # Material's copy button over a code block's first line; its icon over a summary's label
    "overlaps": """() => {
  const out = [];
  const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom
                       && b.top < a.bottom;
  for (const pre of document.querySelectorAll('.md-typeset pre')) {
    const nav = pre.querySelector('.md-code__nav'), code = pre.querySelector('code');
    if (!nav || !code || !code.firstChild || !pre.getClientRects().length) continue;
    const range = document.createRange();
    range.selectNodeContents(code);
    const first = [...range.getClientRects()].filter(r => r.width > 0)[0];
    const line = code.getBoundingClientRect();  // the first line, across the whole block
    const row = new DOMRect(line.left, first.top, line.width, first.height);
    if (hit(nav.getBoundingClientRect(), row))
      out.push('copy button over: ' + code.textContent.slice(0, 40));
  }
  for (const summary of document.querySelectorAll('.md-typeset details > summary')) {
    if (!summary.getClientRects().length) continue;
    const icon = getComputedStyle(summary, '::before'), box = summary.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(summary);
    const text = [...range.getClientRects()].filter(r => r.width > 0)[0];
    const right = box.left + parseFloat(icon.left) + parseFloat(icon.width);
    if (icon.content !== 'none' && text && text.left < right)
      out.push('icon over: ' + summary.textContent.trim());
  }
  return out;
}""",
}

# Korean words drawn across two lines in the navigation, links, tables and the header: read on
# a Korean page, with the phone's navigation drawer opened first, as a reader opens it
SPLIT_WORDS = """() => {
  const out = [], word = /[가-힣A-Za-z0-9]*[가-힣][가-힣A-Za-z0-9]*/g;
  const places = '.md-nav__link, .md-typeset a, .md-typeset td, .md-typeset th, .md-header__topic';
  for (const box of document.querySelectorAll(places)) {
    if (!box.getClientRects().length || box.closest('pre, code, .md-nav[hidden]')) continue;
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('pre, code')) continue;
      for (const m of node.data.matchAll(word)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                             .map(r => Math.round(r.top)));
        if (tops.size > 1)
          out.push(m[0] + ' in ' + box.tagName + ': ' + box.textContent.trim().slice(0, 40));
      }
    }
  }
  return [...new Set(out)];
}"""

# every probe, each on its own: one that throws answers {error} and the others still answer,
# so only the test reading that probe fails
_GUARDED = "(() => {{ try {{ return ({js})(); }} catch (e) {{ return {{error: String(e)}}; }} }})()"
_ALL = "() => ({" + ", ".join(f"{name}: " + _GUARDED.format(js=js)
                              for name, js in PROBES.items()) + "})"
# every animation and transition running now has ended (one frame on, so a transition the last
# input started is among them); one that repeats for ever is not waited for, and two seconds at
# most in all
_SETTLED = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const ending = document.getAnimations()
    .filter(a => a.effect && a.effect.getTiming().iterations !== Infinity)
    .map(a => a.finished.catch(() => null));
  await Promise.race([Promise.all(ending), new Promise(r => setTimeout(r, 2000))]);
}"""


@dataclass(frozen=True)
class Visit:
    """What one load of ``path`` showed: each probe's answer (``seen``; ``split_words`` on a
    Korean page), the page's problems (page errors, console errors and warnings, requests to
    another host) and how many requests it made to the local server."""

    path: str
    viewport: str
    seen: dict
    problems: tuple[str, ...]
    local_requests: int


_VISITS: dict[tuple, Visit] = {}


def visit(browser, base: str, path: str, viewport: str = "desktop") -> Visit:
    """The page ``path`` of the site served at ``base`` at ``viewport`` (``VIEWPORTS``: a
    phone's with touch), visited once per built site in this process (``helpers.browser``
    knows which folder ``base`` serves, so every module's server of the run's site shares the
    visits). A visit that fails raises in the test that asked for it and is not kept."""
    key = (served_folder(base), path, viewport)
    found = _VISITS.get(key)
    if found is None:
        found = _VISITS[key] = _load(browser, base, path, viewport)
    return found


def _load(browser, base: str, path: str, viewport: str) -> Visit:
    held = lease(browser, base, VIEWPORTS[viewport], touch=viewport == "phone")
    watch = Watch(base)
    watch.attach(held)
    try:
        page = held.page
        page.goto(base + path)
        if page.locator(".recipe-playground").count():
            page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=20000)
        # the theme adds each code block's buttons once its script has run (later on a busy
        # machine than a fixed wait allows)
        if page.locator(".md-typeset pre").count():
            page.wait_for_selector(".md-code__nav", state="attached", timeout=15000)
        seen = page.evaluate(_ALL)
        korean = path.startswith("/ko/")
        if korean and viewport != "phone":
            seen["split_words"] = page.evaluate(SPLIT_WORDS)
        # pictures once every probe of the page as it opens has run (a full-page picture
        # resizes the page for a moment)
        name = re.sub(r"[^a-z0-9.]+", "-", path.strip("/")) or "home"
        picture(page, f"{name}.{viewport}.png")
        picture(page, f"{name}.{viewport}.full.jpeg", full_page=True, type="jpeg", quality=80)
        if korean and viewport == "phone":  # the navigation drawer, opened as a reader would
            page.locator('label.md-header__button[for="__drawer"]').tap()
            page.evaluate(_SETTLED)
            seen["split_words"] = page.evaluate(SPLIT_WORDS)
        return Visit(path, viewport, seen, tuple(watch.problems), watch.local_requests)
    finally:
        held.close()
