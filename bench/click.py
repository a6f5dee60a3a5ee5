"""Click-to-command time of the Playground in Debian Chromium (called by bench/run.py).

Builds both languages into a temporary folder (quietly), serves it on a loopback port, opens the
English Kimi-K3 page and clicks through a fixed sequence of selector buttons. For every click the
page records performance.now() just before it dispatches the click (button.click() from page
JavaScript), when the [data-testid=command] text has changed (a MutationObserver resolving a
promise) and at the next animation frame. Prints one JSON object on stdout:

  {"click_to_command_ms_median": …, "click_to_command_ms_p95": …,
   "click_to_next_frame_ms_median": …, "clicks": N}

or {"skipped": "chromium not installed"} when /usr/bin/chromium is missing. Never downloads a
browser. Usage: .venv/bin/python bench/click.py [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# Python puts this folder first on sys.path, where this file would shadow the `click` package
# that MkDocs imports: drop it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from helpers.browser import CHROMIUM, chromium, serve  # noqa: E402  (the browser tests' helpers)

PAGE = "/models/kimi-k3/"
START = "#hw=b300&role=unified&strategy=balanced"

# One round: every click changes the command (checked while measuring). Hardware, role,
# strategy, speculation, HiCache, presets, precision and the other selector groups.
SEQUENCE = [
    ("spec", "none"), ("spec", "dspark"), ("hicache", "l2"), ("hicache", "off"),
    ("preset", "serving"), ("preset", "off"), ("kv_dtype", "fp8"), ("kv_dtype", "auto"),
    ("quant", "nvfp4"), ("quant", "mxfp4"), ("strategy", "high-throughput"),
    ("hw", "b200"), ("strategy", "low-latency"),
    ("hw", "gb200"), ("role", "decode"), ("hicache", "l3"), ("role", "unified"),
    ("hw", "mi355x"), ("hw", "a3"), ("hw", "b300"),
]

MEASURE = """async ([axis, option]) => {
    const root = document.querySelector('.recipe-playground');
    // a button, or an option of a long setting's drop-down list (ui.js LONG_ROW)
    const button = root.querySelector(`[data-axis="${axis}"] button[data-option="${option}"]`);
    const select = root.querySelector(`[data-axis="${axis}"] select`);
    const listed = select && select.querySelector(`option[data-option="${option}"]`);
    if (button ? (button.closest('[hidden]') || button.getAttribute('aria-disabled') === 'true'
                  || button.getAttribute('aria-pressed') === 'true')
               : (!listed || listed.hidden || listed.disabled || select.value === option))
        return {skipped: true};
    const code = root.querySelector('[data-testid="command"]');
    const before = code.textContent;
    let observer;
    const changed = new Promise(resolve => {
        observer = new MutationObserver(() => {
            if (code.textContent !== before) resolve(performance.now());
        });
        observer.observe(code, {childList: true, characterData: true, subtree: true});
    });
    const timeout = new Promise(resolve => setTimeout(() => resolve(null), 2000));
    const start = performance.now();
    if (button) button.click();
    else { select.value = option; select.dispatchEvent(new Event('change')); }
    const frame = new Promise(resolve => requestAnimationFrame(() => resolve(performance.now())));
    const done = await Promise.race([changed, timeout]);
    observer.disconnect();
    const painted = await frame;
    return {command: done === null ? null : done - start, frame: painted - start};
}"""


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def measure(base: str, rounds: int) -> dict:
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(base + PAGE + START)
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        command, frame, skipped, unchanged = [], [], [], []
        for _ in range(rounds):
            for axis, option in SEQUENCE:
                result = page.evaluate(MEASURE, [axis, option])
                if result.get("skipped"):
                    skipped.append(f"{axis}={option}")
                elif result["command"] is None:
                    unchanged.append(f"{axis}={option}")
                else:
                    command.append(result["command"])
                    frame.append(result["frame"])
    if skipped or unchanged:
        print(f"click.py: skipped {skipped}, command unchanged after {unchanged}",
              file=sys.stderr)
    if not command:
        raise SystemExit("click.py: no click changed the command")
    return {
        "click_to_command_ms_median": round(statistics.median(command), 2),
        "click_to_command_ms_p95": round(percentile(command, 95), 2),
        "click_to_command_ms_max": round(max(command), 2),
        "click_to_next_frame_ms_median": round(statistics.median(frame), 2),
        "clicks": len(command),
    }


@contextlib.contextmanager
def served_site(prefix: str):
    """Both languages built quietly into a scratch folder and served on loopback; yields the
    base URL and removes the folder afterwards."""
    from macros.site.build import build_site

    # The build renames its scratch folder under .build/ into place: stay on that file system.
    (ROOT / ".build").mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=ROOT / ".build"))
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries only the JSON
            site = build_site(out=tmp / "site", quiet=True)
        with serve(site) as base:
            yield base
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2,
                    help=f"passes over the {len(SEQUENCE)}-click sequence (default 2)")
    args = ap.parse_args()
    if not CHROMIUM.exists():
        print(json.dumps({"skipped": "chromium not installed"}))
        return 0
    with served_site("bench-click-") as base:
        result = measure(base, args.rounds)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
