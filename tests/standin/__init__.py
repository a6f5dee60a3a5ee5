"""Local stand-in for an SGLang server running Kimi-K3 (see :mod:`tests.standin.server`).

This package owns the fake OpenAI-compatible endpoint that the docs test
suite points the real ``openai`` client at, so the Python snippets in the
docs run without GPUs or network access.
"""

from .server import CREATED, DEFAULT_MODEL, RecordedRequest, StandInServer, schema_errors

__all__ = ["CREATED", "DEFAULT_MODEL", "RecordedRequest", "StandInServer", "schema_errors"]
