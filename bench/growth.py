"""The suite's time (bench/run.py's (f), ``--suite``) and growth per model (issue #22 item 7:
bench/run.py's (i), ``--only growth`` or ``--growth``).

For 2, 3 and 4 of the repository's models (the first two models, then one more each time, in
the order of ``MODELS`` below) it makes a temporary copy of the project holding only those
models (their recipes/<model>/ folders, their pages in both languages with the stamps of the
Korean ones, their nav lines) and measures in that copy:

- build: the two-language build (``recipes build``, a fresh process), wall and CPU seconds:
  each copy is built once first (its own ``macros`` compiled, its files read once), then
  ``--repeat`` times (3), the copies in turn, so a change in the machine's load falls on
  every size alike; the median of each copy's builds;
- weight: the model page of the first model with everything it loads, both languages, each
  response gzip-compressed as a web server would send it (bench/reader.py's ``transfer``, the
  median of three loads; needs Chromium), and the page's own HTML alone (gzip);
- suite (``--suite``, long): the copy's whole test suite as ``make test`` runs it (``CI=1``, the
  Makefile's pytest options), wall and CPU seconds, and its summary line.

Then the cost of each added model: the difference between two rows divided by the models added.
The guides name the four models in their worked examples; a copy without a model keeps the
guide as it is, so the few guide tests about that model fail there (counted in the summary):
their time stays in every row alike and the difference per model is not changed by it.

Prints one JSON object on stdout. Usage: .venv/bin/python bench/growth.py [--suite] [--sizes 2,3,4]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable
# The order models are added in: the two the project started with, then the two of issue #22.
MODELS = ["kimi-k3", "deepseek-v4", "qwen3.8-flash-next", "minimax-h3"]


def chromium_binary() -> Path:
    """The browser the browser tests drive (tests/helpers/browser.py); bench/run.py asks here
    too."""
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))
    from helpers.browser import CHROMIUM

    return CHROMIUM


def project_with(models: list[str], tmp: Path) -> Path:
    """A copy of the project (code, tests, docs, data) holding only ``models``."""
    root = tmp / "project"
    root.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", ".build", "node_modules")
    for name in ("mkdocs.yml", "mkdocs.ko.yml", "pyproject.toml", "package.json", "Makefile"):
        shutil.copy(ROOT / name, root / name)
    for name in ("docs", "overrides", "recipes", "macros", "tests"):
        shutil.copytree(ROOT / name, root / name, ignore=ignore)
    modules = ROOT / "tests" / "js" / "node_modules"
    if modules.exists():  # axe-core for the accessibility tests
        (root / "tests" / "js" / "node_modules").symlink_to(modules.resolve())
    every = sorted(p.name for p in (ROOT / "recipes").iterdir()
                   if (p / "model.yaml").is_file())
    for gone in set(every) - set(models):
        shutil.rmtree(root / "recipes" / gone)
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.project import drop_models  # the tests' one-model copies drop them alike

    drop_models(root, models)
    return root


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(argv: list[str], cwd: Path, env: dict | None = None) -> dict:
    """Run ``argv`` in ``cwd`` (its own ``macros`` first on the path): wall and CPU seconds of
    it and its children, its exit code and the last line it printed."""
    env = {**os.environ, "PYTHONPATH": str(cwd), **(env or {})}
    env.pop("RECIPES_ROOT", None)
    before, start = _cpu_children(), time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = (proc.stdout.strip() or proc.stderr.strip()).splitlines() or ["no output"]
    return {"wall_s": round(wall, 2), "cpu_s": round(_cpu_children() - before, 2),
            "code": proc.returncode, "last": lines[-1]}


def build(root: Path) -> dict:
    out = timed([PY, "-m", "macros.cli", "build", "--out", str(root / "site"), "--quiet"], root)
    if out["code"]:
        raise SystemExit(f"the build of {root} failed: {out['last']}")
    return out


def weight(root: Path, model: str) -> dict:
    """The model page with everything it loads (gzip, KB), both languages; and its HTML."""
    site = root / "site"
    out = {f"{lang}_html_kb": round(len(gzip.compress(
        (site / prefix / "models" / model / "index.html").read_bytes(), 6)) / 1024, 1)
        for lang, prefix in (("en", ""), ("ko", "ko"))}
    if not chromium_binary().exists():
        return {**out, "skipped": "Chromium's headless shell not installed"}
    code = ("import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/tests'];"
            "import importlib.util as u; s = u.spec_from_file_location('r', sys.argv[2]);"
            "r = u.module_from_spec(s); s.loader.exec_module(r);"
            "import statistics\nfrom helpers.browser import chromium, serve\n"
            "with serve(sys.argv[3]) as base, chromium() as b:\n"
            " runs = [r.transfer(b, base, sys.argv[4:])[0] for _ in range(3)]\n"
            " print(json.dumps({p: statistics.median(x[p] for x in runs) for p in runs[0]}))")
    pages = [f"/models/{model}/", f"/ko/models/{model}/"]
    proc = subprocess.run([PY, "-c", code, str(ROOT), str(HERE / "reader.py"), str(site), *pages],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        return {**out, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    kb = json.loads(proc.stdout.strip().splitlines()[-1])
    return {**out, "en_kb": kb[pages[0]], "ko_kb": kb[pages[1]]}


def suite(root: Path) -> dict:
    """The copy's suite as ``make test`` runs it (CI=1; this Python, no install step; the
    caller's ``TEST_JOBS``, if any, passed on)."""
    jobs = [f"TEST_JOBS={os.environ['TEST_JOBS']}"] if "TEST_JOBS" in os.environ else []
    return timed(["make", "-s", "test", f"PY={PY}", "STAMP=", *jobs], root, {"CI": "1"})


SUITE_RECORD = ROOT / ".build" / "bench-suite.json"


def bench_suite(run: bool) -> dict | None:
    """(f) the repository's whole suite as ``make test`` runs it: measured now (``run``) and
    recorded in .build/bench-suite.json, else the last record."""
    if not run:
        try:
            return json.loads(SUITE_RECORD.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
    done = suite(ROOT)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    record = {"seconds": done["wall_s"], "cpu_s": done["cpu_s"], "summary": done["last"],
              "passed": done["code"] == 0, "load": os.getloadavg()[0],
              "date": time.strftime("%Y-%m-%d %H:%M"), "commit": commit or "unknown"}
    SUITE_RECORD.parent.mkdir(exist_ok=True)
    SUITE_RECORD.write_text(json.dumps(record), encoding="utf-8")
    return record


def per_model(rows: list[dict], key: str, field: str) -> list[float]:
    """The cost of each added model: between consecutive rows, the difference over the models
    added."""
    out = []
    for a, b in zip(rows, rows[1:]):
        if key in a and key in b and field in a[key] and field in b[key]:
            out.append(round((b[key][field] - a[key][field]) / (b["models"] - a["models"]), 2))
    return out


def table_rows(g: dict) -> list[str]:
    """The growth measures as rows of bench/run.py's table."""
    out = []
    rows = g["rows"]
    names = ", ".join(f"{r['models']} (+{r['added']})" for r in rows[1:])
    builds = " / ".join(f"{r['build']['wall_s']:.1f} s" for r in rows)
    cpus = " / ".join(f"{r['build']['cpu_s']:.1f}" for r in rows)
    sizes = " / ".join(str(r["models"]) for r in rows)
    turns = len(rows[0]["build"].get("runs", [])) or 1
    out.append(f"| (i) build with {sizes} models (a copy of the project holding the first "
               f"models; median of {turns}, the copies in turn; load {g['load']:.1f}) | "
               f"{builds} wall ({cpus} s CPU) |")
    out.append(f"| (i) build time per added model ({names}) | "
               + ", ".join(f"{x:+.2f} s" for x in g["build_per_model_s"])
               + " wall; " + ", ".join(f"{x:+.2f} s" for x in g["build_cpu_per_model_s"])
               + " CPU |")
    if all("en_kb" in r["weight"] for r in rows):
        page = MODELS[0]
        kb = " / ".join(f"{r['weight']['en_kb']:.1f}, {r['weight']['ko_kb']:.1f}" for r in rows)
        out.append(f"| (i) {page} page with everything it loads, gzip (en, ko), with {sizes} "
                   f"models | {kb} KB |")
        out.append(f"| (i) its weight per added model (en; ko) | "
                   + ", ".join(f"{x:+.1f}" for x in g["page_en_kb_per_model"]) + "; "
                   + ", ".join(f"{x:+.1f}" for x in g["page_ko_kb_per_model"]) + " KB |")
    else:
        why = rows[0]["weight"].get("skipped") or rows[0]["weight"].get("error", "")
        out.append(f"| (i) page weight per model | skipped ({why}) |")
    if "suite_per_model_s" in g:
        suites = " / ".join(f"{r['suite']['wall_s']:.0f} s ({r['suite']['cpu_s']:.0f} s CPU)"
                            for r in rows)
        out.append(f"| (i) the copy's whole suite (`make test`'s pytest line, CI=1) with {sizes} "
                   f"models | {suites} |")
        out.append(f"| (i) suite time per added model ({names}) | "
                   + ", ".join(f"{x:+.0f} s" for x in g["suite_per_model_s"]) + " wall; "
                   + ", ".join(f"{x:+.0f} s" for x in g["suite_cpu_per_model_s"]) + " CPU |")
        for r in rows:
            out.append(f"| (i) suite summary with {r['models']} models | {r['suite']['last']} |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2,3,4")
    ap.add_argument("--suite", action="store_true",
                    help="also run each copy's whole test suite (several minutes each)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed builds of each copy, taken in turn (the median is kept)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    if args.repeat < 1:
        ap.error("--repeat: at least 1")
    if len(set(sizes)) != len(sizes) or not all(1 <= n <= len(MODELS) for n in sizes):
        ap.error(f"--sizes: different numbers of models from 1 to {len(MODELS)}, e.g. 2,3,4")
    with contextlib.ExitStack() as stack:
        roots = {n: project_with(MODELS[:n], Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="bench-growth-")))) for n in sizes}
        for root in roots.values():
            build(root)  # its macros compiled and its files read: the timed builds are alike
        runs: dict[int, list[dict]] = {n: [] for n in sizes}
        for turn in range(args.repeat):
            for n in sizes:
                runs[n].append(build(roots[n]))
            print(f"growth: builds, turn {turn + 1} of {args.repeat}", file=sys.stderr,
                  flush=True)
        rows = []
        for n in sizes:
            row = {"models": n, "added": MODELS[n - 1], "build": {
                "wall_s": statistics.median(r["wall_s"] for r in runs[n]),
                "cpu_s": statistics.median(r["cpu_s"] for r in runs[n]),
                "runs": runs[n]}, "weight": weight(roots[n], MODELS[0])}
            if args.suite:
                row["suite"] = suite(roots[n])
            rows.append(row)
            print(f"growth: {n} models done", file=sys.stderr, flush=True)
    out = {"rows": rows, "load": os.getloadavg()[0],
           "build_per_model_s": per_model(rows, "build", "wall_s"),
           "build_cpu_per_model_s": per_model(rows, "build", "cpu_s"),
           "page_en_kb_per_model": per_model(rows, "weight", "en_kb"),
           "page_ko_kb_per_model": per_model(rows, "weight", "ko_kb")}
    if args.suite:
        out["suite_per_model_s"] = per_model(rows, "suite", "wall_s")
        out["suite_cpu_per_model_s"] = per_model(rows, "suite", "cpu_s")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
