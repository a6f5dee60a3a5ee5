"""Defects found by the last full run of stop 28 and left open, each named in the issue note.

Every entry is a test that fails today for the reason given; it is marked xfail (not strict:
the day it passes, delete its line) so that the rest of the suite keeps guarding main. The list
is data for ``tests/conftest.py``; it only ever shrinks. ``SKIPPED`` holds tests whose
failure would crash pytest's own reporting (an AST recursion error while it prints the
failure); none today.
"""

KNOWN = {
    **{f"tests/playground/test_browser.py::test_the_quick_start_shows_selectors_and_command_on_the_first_screen[minimax-h3-{lang}]":
       "MiniMax-H3's 24-platform hardware row pushes its other selectors below the first screen (#25)"
       for lang in ("en", "ko")},
    **{f"tests/playground/test_browser.py::test_after_every_click_the_commands_top_edge_is_on_screen[phone-{lang}]":
       "on a phone the new output layout scrolls the command's top edge away after a click (#25)"
       for lang in ("en", "ko")},
    **{f"tests/playground/test_reader_path.py::test_on_a_desktop_nothing_in_the_output_scrolls_and_the_command_stays_in_view[minimax-h3-{lang}]":
       "MiniMax-H3's summary line is not in view on a desktop (#25)" for lang in ("en", "ko")},
    **{f"tests/playground/test_reader_path.py::test_on_a_phone_a_tap_keeps_the_tapped_option_on_screen_and_tips_stay_inside[minimax-h3-{lang}]":
       "on a phone a tap in MiniMax-H3's long hardware row scrolls the option away (#25)"
       for lang in ("en", "ko")},
}

SKIPPED: dict[str, str] = {}
