"""Local stand-in for SGLang servers of the recipe database's models (see
:mod:`standin.server`).

This package owns the fake OpenAI-compatible endpoint that the docs test
suite points the real ``openai`` client at, so the Python snippets in the
docs run without GPUs or network access; :mod:`standin.served` reads what it
serves from each model's ``api`` block.
"""

from .server import CREATED, RecordedRequest, ServedModel, StandInServer, schema_errors
from .served import served_models

__all__ = [
    "CREATED",
    "RecordedRequest",
    "ServedModel",
    "StandInServer",
    "schema_errors",
    "served_models",
]
