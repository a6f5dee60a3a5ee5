"""What many tests only read, made once per run however many pytest-xdist workers there are."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Callable

from filelock import FileLock


def once_per_run(tmp_path_factory, name: str, make: Callable[[Path], Path | tuple[Path, ...]]):
    """``make(folder)`` fills an empty ``folder`` and returns a path (or a tuple of paths) in it.

    Without xdist it runs once into a fresh temporary folder (the caller is a session
    fixture). Under xdist every worker is a process with its own session: the first worker to
    ask makes it, under a file lock, in the run's shared temporary folder (the parent of the
    workers' own, the pattern pytest-xdist documents), and the others wait for it and read
    the same folder. A ``make`` that raised is tried again by the next worker."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent
    folder, done = shared / name, shared / f"{name}.json"
    with FileLock(str(shared / f"{name}.lock")):
        if done.is_file():
            made = json.loads(done.read_text(encoding="utf-8"))
        else:
            shutil.rmtree(folder, ignore_errors=True)  # a worker's make that raised
            folder.mkdir()
            result = make(folder)
            made = [str(p) for p in result] if isinstance(result, tuple) else str(result)
            done.write_text(json.dumps(made), encoding="utf-8")
    return tuple(Path(p) for p in made) if isinstance(made, list) else Path(made)
