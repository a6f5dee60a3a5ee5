"""Defects found by the last full run of stop 28 and left open, each named in the issue note.

Every entry is a test that fails today for the reason given; it is marked xfail (not strict:
the day it passes, delete its line) so that the rest of the suite keeps guarding main. The list
is data for ``tests/conftest.py``; it only ever shrinks. ``SKIPPED`` holds tests whose
failure would crash pytest's own reporting (an AST recursion error while it prints the
failure); none today.
"""

KNOWN: dict[str, str] = {}

SKIPPED: dict[str, str] = {}
