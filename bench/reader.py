"""What a reader waits for, in Debian Chromium (called by bench/run.py; issue #10's measures).

Builds both languages into a temporary folder, serves it on a loopback port and measures:

- transfer: every model page (both languages) with everything it loads, each response
  gzip-compressed as a web server would send it (level 6), in KB, and what kind of file each
  KB is (the page, the model's data, the Playground, the theme); beside it, not in the total,
  the model data's later part (export.split_export), which the page loads only when the reader
  picks a release no image of the model runs, or a "Deploy as" format;
- click: Playground click -> the next animation frame (the frame that paints the result: the
  click's work and any layout it forces come before it; what the Playground leaves until after
  that paint, the address and the greying probes, does not), median and p95, at normal speed
  and with the CPU throttled 4x (DevTools Emulation.setCPUThrottlingRate);
- tasks: from page load to the command on the clipboard, clicking as a reader would
  (Playwright's real input events), for three tasks; clicks counted, the copy included.

Prints one JSON object on stdout, or {"skipped": …} without Chromium. Never downloads a browser.
Usage: .venv/bin/python bench/reader.py
"""

from __future__ import annotations

import gzip
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # see click.py
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from helpers.browser import CHROMIUM, chromium  # noqa: E402


def _click_module():
    """bench/click.py's click sequence and timing script, loaded under another name (as
    ``click`` it would shadow the package MkDocs imports)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_click", HERE / "click.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CLICK = _click_module()
MEASURE, SEQUENCE, START, percentile = _CLICK.MEASURE, _CLICK.SEQUENCE, _CLICK.START, \
    _CLICK.percentile

# (name, page, [(axis, option) clicked in order]); every task ends with the Copy click.
TASKS = [
    ("8×H200 (DeepSeek-V4 Flash, one node)", "/models/deepseek-v4/", [("hw", "h200")]),
    ("GB200 decode side (Kimi-K3)", "/models/kimi-k3/", [("hw", "gb200"), ("role", "decode")]),
    ("B300 Balanced + DSPARK (Kimi-K3)", "/models/kimi-k3/",
     [("strategy", "balanced"), ("spec", "dspark")]),
]


# What each response is, for the breakdown: the first pattern its path matches.
KINDS = (("page HTML", re.compile(r"/$|\.html$")),
         ("model data (JSON)", re.compile(r"/assets/recipes/[^/]+\.json$")),
         ("Playground JS", re.compile(r"/assets/recipes/playground(\.js$|/)")),
         ("our CSS", re.compile(r"/assets/recipes/[^/]+\.css$")),
         ("theme JS (Material)", re.compile(r"/assets/javascripts/")),
         ("theme CSS (Material)", re.compile(r"/assets/stylesheets/")),
         ("other", re.compile(r"")))


LATER_KIND = "later model data, on first need (not in the total)"


def transfer(browser, base: str, pages: list[str]) -> tuple[dict, dict]:
    """Each page with everything it loads once the Playground is up, gzipped response by
    response: the total and the KB of each kind (KINDS), and LATER_KIND apart."""
    out, detail = {}, {}
    for path in pages:
        context = browser.new_context()
        page = context.new_page()
        bodies: list[tuple[str, bytes]] = []
        page.on("response", lambda r: bodies.append((r.url[len(base):].split("?")[0], r.body()))
                if r.ok and r.url.startswith(base) else None)
        page.goto(base + path, wait_until="networkidle")
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        page.wait_for_load_state("networkidle")
        kinds: dict[str, float] = {}
        for url, body in bodies:
            kind = next(k for k, pattern in KINDS if pattern.search(url))
            kinds[kind] = kinds.get(kind, 0) + len(gzip.compress(body, 6)) / 1024
        out[path] = round(sum(kinds.values()), 1)
        detail[path] = {k: round(v, 1) for k, v in kinds.items()}
        data = [url for url, _ in bodies if KINDS[1][1].search(url)]
        if data:  # the export's later part: loaded on first need, not in the total
            later = context.request.get(base + data[0].removesuffix(".json") + ".later.json")
            if later.ok:
                detail[path][LATER_KIND] = round(len(gzip.compress(later.body(), 6)) / 1024, 1)
        context.close()
    return out, detail


def clicks(browser, base: str, throttle: float, rounds: int = 2) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    page.goto(base + "/models/kimi-k3/" + START)
    page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    frames = []
    # the page's main thread's CPU time from each click to its frame (the trace's thread clock,
    # between two marks): what the wall time would be on an idle machine, near enough
    marked = MEASURE.replace("const start = performance.now();",
                             "performance.mark('rp-click'); const start = performance.now();")
    marked = marked.replace("requestAnimationFrame(() => resolve(performance.now()))",
                            "requestAnimationFrame(() => { performance.mark('rp-frame'); "
                            "resolve(performance.now()); })")
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.json"
        browser.start_tracing(page=page, path=str(trace), categories=["blink.user_timing"])
        for _ in range(rounds):
            for axis, option in SEQUENCE:
                result = page.evaluate(marked, [axis, option])
                if not result.get("skipped") and result.get("command") is not None:
                    frames.append(result["frame"])
        browser.stop_tracing()
        events = json.loads(trace.read_text(encoding="utf-8"))
    marks = sorted((e for e in events.get("traceEvents", events) if e.get("name") in
                    ("rp-click", "rp-frame") and "tts" in e), key=lambda e: e["ts"])
    cpu = [(b["tts"] - a["tts"]) / 1000 for a, b in zip(marks, marks[1:])
           if a["name"] == "rp-click" and b["name"] == "rp-frame"]
    context.close()
    return {"median_ms": round(statistics.median(frames), 1),
            "p95_ms": round(percentile(frames, 95), 1), "clicks": len(frames),
            "cpu_median_ms": round(statistics.median(cpu), 1) if cpu else None,
            "cpu_p95_ms": round(percentile(cpu, 95), 1) if cpu else None,
            "load": round(os.getloadavg()[0], 1)}


def tasks(browser, base: str) -> list[dict]:
    out = []
    for name, path, steps in TASKS:
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        page = context.new_page()
        started = time.perf_counter()
        page.goto(base + path)
        page.wait_for_selector(".recipe-playground[data-mounted=ready]", timeout=15000)
        for axis, option in steps:
            listed = page.locator(f'.rp-card--deploy [data-axis="{axis}"] select')
            if listed.count():  # a long setting's drop-down list (ui.js LONG_ROW)
                listed.select_option(option)
            else:
                page.click(f'.rp-card--deploy [data-axis="{axis}"] [data-option="{option}"]')
        page.click('.rp-block--command [data-copy="command"]')
        page.wait_for_function("() => navigator.clipboard.readText().then(t => t.length > 0)")
        elapsed = time.perf_counter() - started
        copied = page.evaluate("() => navigator.clipboard.readText()")
        shown = page.locator('[data-testid="command"]').text_content()
        out.append({"task": name, "clicks": len(steps) + 1, "seconds": round(elapsed, 2),
                    "copied_is_shown": copied == shown})
        context.close()
    return out


def main() -> int:
    if not CHROMIUM.exists():
        print(json.dumps({"skipped": "chromium not installed"}))
        return 0
    from macros.engine.database import load_database

    models = list(load_database().models)
    pages = [p for m in models for p in (f"/models/{m}/", f"/ko/models/{m}/")]
    with _CLICK.served_site("bench-reader-") as base, chromium() as browser:
        sizes, detail = transfer(browser, base, pages)
        result = {"transfer_kb": sizes, "transfer_detail_kb": detail,
                  "click_normal": clicks(browser, base, 1),
                  "click_throttled_4x": clicks(browser, base, 4),
                  "tasks": tasks(browser, base)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
