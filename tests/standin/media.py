"""The stand-in's diffusion server: a media job, as a served name's ``request`` describes it.

Owns the ``video-job`` request shape of ``model.yaml`` (``MediaRequest``): ``POST <endpoint>``
submits a job whose body must carry ``model`` and every field of the declared body with a value
of the same JSON kind (a number for a number, a list for a list …), for a request with kinds
(``tasks``) every field of one kind's full body (the kind its ``task`` field names); ``GET <endpoint>/<id>`` is
the job (status ``completed``: the stand-in does the work at once); ``GET <endpoint>/<id>/content``
is the file it made (a few fixed bytes of an MP4 header). A chat request to such a name, or a
job for a name that serves chat, is refused as the real servers refuse them. Standard library
only, like the rest of the stand-in.
"""

from __future__ import annotations

import threading
from typing import Any

# what a real diffusion server's download starts with (an MP4 'ftyp' box); enough for a client
CONTENT = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def body_errors(declared: dict[str, Any], body: Any) -> list[str]:
    """Why ``body`` is not a job of the declared shape (empty: it is)."""
    if not isinstance(body, dict):
        return ["Request body must be a JSON object"]
    errors = []
    for key, value in declared.items():
        if key not in body:
            errors.append(f"'{key}' is required")
        elif _kind(body[key]) != _kind(value):
            errors.append(f"'{key}' must be a {_kind(value)} (got a {_kind(body[key])})")
        elif isinstance(value, dict):
            errors += [f"{key}.{e}" for e in body_errors(value, body[key])]
    return errors


def task_errors(request: dict[str, Any], body: Any) -> list[str]:
    """Why ``body`` is none of the request's kinds (``tasks``: each the shared body with its
    own fields, by its ``task`` field when the kinds name one), empty when it is one; a request
    without kinds is its body alone."""
    tasks = request.get("tasks") or []
    if not tasks:
        return body_errors(request["body"], body)
    named = [t for t in tasks if isinstance(body, dict) and "task" in t["body"]
             and t["body"]["task"] == body.get("task")]
    if not named and isinstance(body, dict) and any("task" in t["body"] for t in tasks):
        kinds = sorted({str(t["body"]["task"]) for t in tasks if "task" in t["body"]})
        return [f"'task' must be one of {', '.join(kinds)} (got {body.get('task')!r})"]
    found = [body_errors(t["body"], body) for t in (named or tasks)]
    return [] if any(not e for e in found) else min(found, key=len)


class Jobs:
    """The jobs one stand-in has accepted, by id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, dict[str, Any]] = {}

    def submit(self, model: str, endpoint: str) -> dict[str, Any]:
        with self._lock:
            job_id = f"video_{len(self._jobs) + 1:04d}"
            job = {"id": job_id, "object": "video", "model": model, "status": "completed",
                   "progress": 100, "endpoint": endpoint}
            self._jobs[job_id] = job
            return {k: v for k, v in job.items() if k != "endpoint"}

    def get(self, endpoint: str, job_id: str) -> dict[str, Any] | None:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or job["endpoint"] != endpoint:
            return None
        return {k: v for k, v in job.items() if k != "endpoint"}
