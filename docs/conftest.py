"""Sybil over the hand-written Markdown in docs/en and docs/ko (see tests/helpers/sybil_docs.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.sybil_docs import make_sybil, print_summary, register_counts  # noqa: E402

pytest_collect_file = make_sybil(path=str(Path(__file__).resolve().parent),
                                 patterns=["en/**/*.md", "ko/**/*.md", "en/*.md", "ko/*.md"]).pytest()


def pytest_configure(config):
    register_counts(config)


def pytest_terminal_summary(terminalreporter):
    print_summary(terminalreporter)
