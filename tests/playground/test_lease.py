"""The kept tabs the browser tests borrow (``helpers.browser.lease``): a tab given back comes
out again blank, with nothing of the test before it, or is not lent at all."""

from __future__ import annotations

import pytest
from helpers.browser import lease

pytestmark = pytest.mark.browser
SIZE = {"width": 1280, "height": 900}


def test_a_tab_given_back_is_lent_again_with_nothing_of_the_test_before(browser, site):
    first = lease(browser, site, SIZE)
    page, seen = first.page, []
    first.on("console", lambda m: seen.append(m.text))
    page.goto(site + "/")
    page.evaluate("""() => { localStorage.setItem('left', '1'); sessionStorage.setItem('left', '1');
                             document.cookie = 'left=1; path=/'; }""")
    page.set_viewport_size({"width": 390, "height": 844})
    first.close()

    again = lease(browser, site, SIZE)
    assert again.page is page and page.url == "about:blank"  # the same tab, blank
    assert page.viewport_size == SIZE
    page.goto(site + "/")
    assert page.evaluate("() => [localStorage.getItem('left'), sessionStorage.getItem('left'),"
                         " document.cookie.includes('left=')]") == [None, None, False]
    page.evaluate("() => console.log('after')")
    assert seen == []  # the first test's handler is gone
    beside = lease(browser, site, SIZE, beside=again)
    assert beside.context is again.context and beside.page is not page  # one profile
    beside.close()
    again.close()


def test_a_tab_that_cannot_be_cleaned_is_not_lent_again(browser, site):
    broken = lease(browser, site, SIZE)
    page = broken.page
    page.close()  # as a test that broke its tab
    broken.close()
    fresh = lease(browser, site, SIZE)
    assert fresh.page is not page and not fresh.page.is_closed()
    fresh.close()
