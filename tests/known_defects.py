"""Defects found by the last full run of stop 28 and left open, each named in the issue note.

Every entry is a test that fails today for the reason given; it is marked xfail (not strict:
the day it passes, delete its line) so that the rest of the suite keeps guarding main. The list
is data for ``tests/conftest.py``; it only ever shrinks. ``SKIPPED`` holds tests whose
failure would crash pytest's own reporting (an AST recursion error while it prints the
failure); none today.
"""

KNOWN = {
    "tests/site/test_engines.py::test_korean_search_finds_every_model_page_for_a_korean_term[zensical]":
        "Zensical's Korean search lists nothing on the four-model site; not yet known why (#23)",
    **{f"tests/site/test_engines.py::test_korean_search_finds_a_flag_of_the_model_{how}[{m}-zensical]":
       "Zensical's Korean search lists nothing on the four-model site; not yet known why (#23)"
       for how in ("without_its_dashes", "as_written")
       for m in ("deepseek-v4", "kimi-k3", "minimax-h3", "qwen3.8-flash-next")},
}

SKIPPED: dict[str, str] = {}
