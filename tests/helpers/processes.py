"""Whether a process still runs, for tests that check nothing outlives a command."""

from __future__ import annotations

import time
from pathlib import Path


def running(pid: int) -> bool:
    """Whether ``pid`` still runs; an ended process nobody has reaped yet (a zombie) does not
    (Linux: read from /proc)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def ended(pid: int, timeout: float = 10) -> bool:
    """Wait up to ``timeout`` seconds for ``pid`` to end; whether it did."""
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
