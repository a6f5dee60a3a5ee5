"""Sybil over the hand-written Markdown in docs/en and docs/ko (see tests/helpers/sybil_docs.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.sybil_docs import make_sybil, print_summary, register_counts  # noqa: E402

# One Sybil per language folder: Sybil matches a pattern against the end of a path, so a
# pattern such as "ko/*/*.md" given from docs/ would also collect docs/translated-from/ko/
# (the English text each Korean page was stamped against, kept for i18n-check, not a page).
_DOCS = Path(__file__).resolve().parent
pytest_collect_file = (make_sybil(path=str(_DOCS / "en"), patterns=["*.md"])
                       + make_sybil(path=str(_DOCS / "ko"), patterns=["*.md"])).pytest()


def pytest_configure(config):
    register_counts(config)


def pytest_terminal_summary(terminalreporter):
    print_summary(terminalreporter)
