"""Benchmarks for the docs team (`make bench`), printed as a table. Not part of the tests.

(a) full two-language build against a plain Material build of the same pages with every macro
    already expanded (the overhead ratio; same run, several repeats interleaved, median): ours as
    `recipes build` runs (languages at once) and with --jobs 1, plain Material one language
    after the other and both at once, wall and CPU seconds;
(b) build time, CPU time and peak memory for synthetic databases of 1, 10 and 50 models (the
    PSS of the build and its worker summed, sampled every 20 ms, and each one's peak RSS);
(c) time to resolve and check every reachable selection of each model in recipes/, and
    selections per second per model and over the whole catalogue: in one walk that enumerates
    and resolves together (``selections.resolve_all``, what the tests use), and one
    ``resolve()`` per selection; and each selection printed as the site prints it (command,
    docker and curl texts, both languages); ``--only selections`` runs this part alone;
(d) Playground payload per page (gzip) and click-to-command time (needs Chromium);
(r) what a reader waits for (bench/reader.py, needs Chromium): each model page with everything
    it loads (gzip), click to next painted frame at normal speed and with the CPU throttled 4x,
    and three reader tasks from page load to a copied command;
(e) `recipes check` on one line of 1k, 10k and 100k flags (it must grow linearly);
(g) `recipes check DIR` over a folder of 1,000 shell blocks in every format it reads
    (Markdown, MDX, reStructuredText, notebooks, scripts; server, router, docker run, curl and
    benchmark commands), through the CLI with start-up and database load: blocks per second (target
    at least 500) and findings per block; ``--only check-tree`` runs just this part;
(h) `recipes check` on docs nobody here wrote (bench/check_docs.py): precision and recall over
    the upstream-shaped corpus, and a 1,000-block tree through the CLI (blocks per second,
    findings per block); ``--only check-docs`` runs this part alone;
(f) the full test suite's wall and CPU time: run with ``--suite`` (``CI=1``, the pytest line of
    ``make test``) and recorded in .build/bench-suite.json; without the flag the last
    recorded run of this checkout is shown, with its date and commit;
(i) growth per model (bench/growth.py, ``--growth`` or ``--only growth``): copies of the project
    with 2, 3 and 4 of its models: the build and the first model's page weight in each, and
    with ``--suite`` also each copy's whole suite (three suite runs: long).

Every build runs in a fresh subprocess so times include start-up and memory is per build.

Size: over 600 lines as the one table of every measure (its rows and their order); each
browser, docs-corpus and growth part lives in a module of its own beside it (click.py,
reader.py, check_docs.py, growth.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


_PEAK = ("\nimport resource as _r; _s, _c = _r.getrusage(_r.RUSAGE_SELF), "
         "_r.getrusage(_r.RUSAGE_CHILDREN); print('PEAK', _s.ru_maxrss, _c.ru_maxrss, "
         "_s.ru_utime + _s.ru_stime + _c.ru_utime + _c.ru_stime)")


def _pss_kib(pid: int) -> int:
    """A process's proportional set size: its private pages plus its share of shared ones."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:  # ended meanwhile
        return 0
    m = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
    return int(m.group(1)) if m else 0


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def run_child(code: str, cwd: Path, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh Python: its wall seconds; its peak RSS and the largest peak RSS
    of the processes it forked (MiB, pages they share counted in each); the peak of the PSS
    summed over it and its processes, sampled every 20 ms (MiB, shared pages counted once);
    and the CPU seconds (user + system) of all of them."""
    start = time.perf_counter()
    proc = subprocess.Popen([PY, "-c", code + _PEAK], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    pss = 0
    while proc.poll() is None:
        pss = max(pss, sum(_pss_kib(p) for p in _tree(proc.pid)))
        time.sleep(0.02)
    out, err = proc.communicate()
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark step failed:\n{out}\n{err}")
    m = re.search(r"^PEAK (\d+) (\d+) ([\d.]+)$", out, re.M)
    return {"wall_s": elapsed, "peak_mib": int(m.group(1)) // 1024,
            "worker_mib": int(m.group(2)) // 1024, "pss_mib": pss // 1024,
            "cpu_s": float(m.group(3))}


def _project(tmp: Path) -> Path:
    root = tmp / "project"
    root.mkdir()
    for name in ("mkdocs.yml", "mkdocs.ko.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, root / name)
    for name in ("docs", "overrides", "recipes"):
        shutil.copytree(ROOT / name, root / name)
    shutil.copytree(ROOT / "macros", root / "macros")
    return root


BUILD = ("import sys; sys.path.insert(0, '.');"
         "from macros.site.build import build_site; from pathlib import Path;"
         "build_site(out=Path('site'), root=Path('.'), quiet=True)")


def plain_material(root: Path, tmp: Path) -> Path:
    """The same pages, macros already expanded, as a plain Material project (no macros, no
    hooks, no Playground assets)."""
    plain = tmp / "plain"
    for lang, src in (("en", root / "site"), ("ko", root / "site" / "ko")):
        docs = plain / "docs" / lang
        for md in src.rglob("index.md"):
            rel = md.relative_to(src)
            if lang == "en" and rel.parts[0] == "ko":
                continue
            page = rel.parent.as_posix()
            target = docs / ("index.md" if page == "." else page + ".md")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(md.read_text(encoding="utf-8"), encoding="utf-8")
    import yaml

    base = yaml.safe_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    for key in ("hooks", "extra_css", "extra_javascript", "nav"):
        base.pop(key, None)
    base["theme"].pop("custom_dir", None)
    base["plugins"] = [p for p in base["plugins"] if not (isinstance(p, dict) and "macros" in p)]
    base["extra"].pop("alternate", None)
    base["strict"] = False
    for name, lang, site in (("mkdocs.yml", "en", "site"), ("mkdocs.ko.yml", "ko", "site/ko"),
                             ("mkdocs.ko-apart.yml", "ko", "site-ko")):
        cfg = json.loads(json.dumps(base))
        cfg["docs_dir"], cfg["site_dir"] = f"docs/{lang}", site
        cfg["theme"]["language"] = lang
        if lang == "ko":
            cfg["plugins"] = [{"search": {"lang": ["ko", "en"]}}]
        (plain / name).write_text(yaml.safe_dump(cfg, allow_unicode=True), encoding="utf-8")
    return plain


PLAIN_BUILD = ("from mkdocs.commands.build import build; from mkdocs.config import load_config;"
               "build(load_config('mkdocs.yml', strict=False));"
               "build(load_config('mkdocs.ko.yml', strict=False))")
# The peer of a build with workers: both languages at once, Korean in a forked process (into a
# folder of its own, since the English build empties its site folder first).
PLAIN_AT_ONCE = ("import os; from mkdocs.commands.build import build;"
                 "from mkdocs.config import load_config\n"
                 "pid = os.fork()\n"
                 "if pid == 0:\n build(load_config('mkdocs.ko-apart.yml', strict=False)); "
                 "os._exit(0)\n"
                 "build(load_config('mkdocs.yml', strict=False)); os.waitpid(pid, 0)\n")
SEQUENTIAL = {"RECIPES_BUILD_JOBS": "1"}


def bench_overhead(repeats: int) -> dict:
    """Each variant ``repeats`` times, interleaved (so load changes hit all alike); medians."""
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        root = _project(tmp)
        run_child(BUILD, root)  # warm caches, and produce the expanded pages
        plain = plain_material(root, tmp)
        variants = {"ours": (BUILD, root, None), "ours_one_by_one": (BUILD, root, SEQUENTIAL),
                    "plain": (PLAIN_BUILD, plain, None), "plain_at_once": (PLAIN_AT_ONCE, plain,
                                                                          None)}
        runs: dict[str, list[dict]] = {k: [] for k in variants}
        for _ in range(repeats):
            for key, (code, cwd, env) in variants.items():
                runs[key].append(run_child(code, cwd, env))
        out = {}
        for key, rows in runs.items():
            out[key] = {m: statistics.median(r[m] for r in rows) for m in ("wall_s", "cpu_s")}
        out["ratio"] = out["ours"]["wall_s"] / out["plain"]["wall_s"]
        out["jobs"] = len(os.sched_getaffinity(0))
        return out


def _synthetic(root: Path, count: int) -> None:
    """Add ``count - 1`` copies of the Kimi-K3 model (and its page) under new ids."""
    src = root / "recipes" / "kimi-k3"
    for i in range(1, count):
        mid = f"model-{i:02d}"
        dst = root / "recipes" / mid
        shutil.copytree(src, dst)
        model = dst / "model.yaml"
        model.write_text(model.read_text().replace("id: kimi-k3", f"id: {mid}", 1))
        for lang in ("en", "ko"):
            page = root / "docs" / lang / "models" / "kimi-k3.md"
            text = page.read_text().replace('"kimi-k3"', f'"{mid}"')
            (root / "docs" / lang / "models" / f"{mid}.md").write_text(text)


def bench_models(sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as t:
            root = _project(Path(t))
            _synthetic(root, n)
            r = run_child(BUILD, root)
            rows.append({"models": n, "build_s": r["wall_s"], "peak_mib": r["peak_mib"],
                         "worker_mib": r["worker_mib"], "pss_mib": r["pss_mib"],
                         "cpu_s": r["cpu_s"]})
    return rows


SELECTIONS = """
import json, time, sys
sys.path.insert(0, '.')
from macros.engine.selection import Selection
from macros.engine.database import load_database
from macros.engine.resolve import resolve
from macros.engine.selections import deployment_selections, resolve_all
from macros.site import render, runmodes
t0 = time.perf_counter(); db = load_database(); t1 = time.perf_counter()
out = {'load_s': t1 - t0, 'models': {}}
for mid in db.models:
    model = db.model(mid)
    row = out['models'][mid] = {}
    for key, large in (('overlays', False), ('all', True)):
        t1 = time.perf_counter()
        walked = [res for _, res in resolve_all(db, mid, large_scale=large)]
        row[key] = {'resolve_check_s': time.perf_counter() - t1, 'walked': len(walked)}
    t1 = time.perf_counter()  # every selection printed as the site prints it, both languages
    for res in walked:
        for lang in ('en', 'ko'):
            render.command_text(db, model, res, lang); runmodes.docker_text(db, model, res, lang)
            runmodes.curl_text(db, model, res, lang)
    row['all']['print_s'] = time.perf_counter() - t1
    model.cache.clear()  # the model's memo tables start empty again (the releases' stay)
    for key, large in (('overlays', False), ('all', True)):
        t1 = time.perf_counter()
        sels = list(deployment_selections(db, mid, large_scale=large)); t2 = time.perf_counter()
        errors = 0
        for s in sels:
            res = resolve(db, Selection.flat(model, s))
            errors += sum(d.severity.value == 'error' for d in res.diagnostics)
        row[key].update(enumerate_s=t2 - t1, each_s=time.perf_counter() - t2,
                        selections=len(sels), errors=errors)
print(json.dumps(out))
"""


def bench_selections() -> dict:
    proc = subprocess.run([PY, "-c", SELECTIONS], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout)


def bench_payload() -> dict:
    sys.path.insert(0, str(ROOT))
    from macros.engine.database import load_database
    from macros.site.export import export_model

    db = load_database()
    assets = ROOT / "overrides/assets/recipes"
    # the entry module and every module it loads: each one a file of its own, gzipped alone
    js = [p.read_bytes() for p in [assets / "playground.js",
                                   *sorted((assets / "playground").glob("*.js"))]]
    css = (assets / "playground.css").read_bytes()
    out = {"js_files": len(js), "js_bytes": sum(map(len, js)),
           "js_gzip": sum(len(gzip.compress(b, 9)) for b in js),
           "css_gzip": len(gzip.compress(css, 9))}
    out["shipped"] = _shipped(assets)
    out["json"] = {}
    for mid in db.models:
        for lang in ("en", "ko"):
            data = json.dumps(export_model(db, mid, lang), ensure_ascii=False,
                              separators=(",", ":"), sort_keys=True).encode()
            out["json"][f"{mid}.{lang}"] = (len(data), len(gzip.compress(data, 9)))
    return out


def _shipped(assets: Path) -> dict | None:
    """The Playground as the site ships it (macros/site/bundle.py): each file esbuild makes,
    gzipped alone, and which of them a model page loads before the reader asks for more."""
    from macros.site.bundle import bundle_assets

    with tempfile.TemporaryDirectory() as t:
        site = Path(t) / "recipes"
        shutil.copytree(assets, site)
        if not bundle_assets(assets, site):
            return None
        files = {p.relative_to(site).as_posix(): p.read_bytes()
                 for p in [site / "playground.js", site / "playground.css",
                           *sorted((site / "playground").glob("*.js"))]}
        loaded, todo = set(), ["playground.js", "app"]
        while todo:  # the entry, then app.js's chunk and every chunk it imports
            name = todo.pop()
            hits = [n for n in files if n in (name, f"playground/{name}.js")
                    or n.startswith(f"playground/{name}-")]
            for hit in hits:
                if hit in loaded:
                    continue
                loaded.add(hit)
                if hit != "playground.js":
                    todo += re.findall(r'from\s*"\./(chunk-[^"]+)\.js"', files[hit].decode())
        packed = {n: len(gzip.compress(b, 6)) for n, b in files.items()}
        return {"files": packed, "first_screen": sorted(loaded | {"playground.css"})}


def bench_reader() -> dict | None:
    if not _bench().chromium_binary().exists():
        return None
    proc = subprocess.run([PY, str(ROOT / "bench" / "reader.py")], cwd=ROOT, capture_output=True,
                          text=True)
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout)


def reader_rows(r: dict | None) -> list[str]:
    if r is None:
        return ["| (r) reader measures | skipped (Chromium not installed) |"]
    if "error" in r:
        return [f"| (r) reader measures | failed: {r['error']} |"]
    detail = r.get("transfer_detail_kb", {})
    rows = [f"| (r) {page} with everything it loads (gzip) | {kb:.1f} KB"
            + (" (" + ", ".join(f"{k} {v:.1f}" for k, v in detail[page].items()) + ")"
               if page in detail else "") + " |"
            for page, kb in r["transfer_kb"].items()]
    for key, what in (("click_normal", "normal speed"), ("click_throttled_4x", "CPU 4× slower")):
        c = r[key]
        rows.append(f"| (r) click to the next frame (the one painting its result), {what} | "
                    f"median {c['median_ms']} ms, p95 "
                    f"{c['p95_ms']} ms ({c['clicks']} clicks, load {c.get('load', '?')}); the "
                    f"page's main-thread CPU time in it: median {c.get('cpu_median_ms')} ms, "
                    f"p95 {c.get('cpu_p95_ms')} ms |")
    for t in r["tasks"]:
        rows.append(f"| (r) task: {t['task']} | {t['clicks']} clicks, {t['seconds']} s from page "
                    f"load to the copied command |")
    return rows


def bench_click(site_root: Path | None = None) -> dict | None:
    if not _bench().chromium_binary().exists():
        return None
    script = ROOT / "bench" / "click.py"
    if not script.exists():
        return None
    proc = subprocess.run([PY, str(script)], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout)


# Known, abbreviated, unknown and repeated flags, so every per-flag path of the checker runs.
CHECK_FLAGS = ("--tp-size 8", "--dcp-size 8", "--mem-fraction-static 0.85", "--enable-symm-mem",
               "--tp 8", "--tp-sizee 8", "--kv-cache-dtype fp8_e4m3", "--page-size 64")


def bench_check_line(sizes: list[int]) -> list[dict]:
    """Wall time of `recipes check --file` (start-up and database load included) on a file
    holding one command of ``n`` flags on one line."""
    rows = []
    with tempfile.TemporaryDirectory() as t:
        for n in sizes:
            path = Path(t) / f"flags-{n}.sh"
            flags = " ".join(CHECK_FLAGS[i % len(CHECK_FLAGS)] for i in range(n))
            path.write_text(f"sglang serve --model-path m {flags}\n", encoding="utf-8")
            start = time.perf_counter()
            proc = subprocess.run([PY, "-m", "macros.cli", "check", "--file", str(path)],
                                  cwd=ROOT, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if proc.returncode != 1:  # the unknown flag is an error: anything else is a failure
                raise SystemExit(f"recipes check failed:\n{proc.stderr}")
            rows.append({"flags": n, "check_s": seconds})
    return rows


def check_line_rows(rows: list[dict]) -> list[str]:
    sizes = " / ".join(f"{r['flags'] // 1000}k" for r in rows)
    times = " / ".join(f"{r['check_s']:.2f} s" for r in rows)
    out = [f"| (e) recipes check, {sizes} flags on one line | {times} |"]
    if len(rows) >= 2:
        first, last = rows[0], rows[-1]
        per = (last["check_s"] - first["check_s"]) / (last["flags"] - first["flags"])
        out.append(f"| (e) marginal cost per flag | {per * 1e6:.0f} µs |")
    return out


# Commands of every program the checker reads (server, router, router launch_server, docker
# run, curl, the benchmark entry points), some with findings (an abbreviation, a bad value):
# one block each, written into every format.
TREE_COMMANDS = (
    "sglang serve --model-path Qwen/Qwen3-8B --tp-size 2 --port 30000",
    "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 4 \\\n"
    "  --mem-fraction-static 0.85 --kv-cache-dtype fp8_e4m3",
    "python3 -m sglang_router.launch_router --worker-urls http://a:30000 http://b:30000 "
    "--policy cache_aware",
    "docker run --gpus all -p 30000:30000 lmsysorg/sglang:latest \\\n"
    "  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000",
    "sglang serve --model-path Qwen/Qwen3-8B \\\n  --reasoning-parser nonsense --port 30000",
    "curl http://localhost:30000/v1/models",
    "python3 -m sglang.benchmark.serving --backend sglang --num-prompts 100 --port 30000",
    "python3 -m sglang_router.launch_server --model-path Qwen/Qwen3-8B --dp-size 2",
    "python3 -m sglang.benchmark.one_batch --model-path Qwen/Qwen3-8B --batch-size 1",
)


def _tree(root: Path, blocks: int) -> int:
    """A docs folder of ``blocks`` shell blocks in every format (files of 5 blocks; a script
    is one block); returns the number of blocks written."""
    cmds = iter(TREE_COMMANDS[i % len(TREE_COMMANDS)] for i in range(blocks))
    written, n = 0, 0
    kinds = ("md", "mdx", "rst", "ipynb", "sh")
    while written < blocks:
        kind = kinds[n % len(kinds)]
        take = 1 if kind == "sh" else min(5, blocks - written)
        batch = [next(cmds) for _ in range(take)]
        path = root / f"sub{n % 7}" / f"page{n}.{kind}"
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind in ("md", "mdx"):
            text = "".join(f"## Step {i}\n\n```bash\n{c}\n```\n\n" for i, c in enumerate(batch))
        elif kind == "rst":
            text = "Title\n=====\n\n" + "".join(
                ".. code-block:: bash\n\n" + "".join(f"   {line}\n" for line in c.split("\n"))
                + "\n" for c in batch)
        elif kind == "ipynb":
            cells = []
            for i, c in enumerate(batch):
                src = (f'launch_server_cmd("""\n{c}\n""")' if i % 2 else f"%%bash\n{c}")
                cells.append({"cell_type": "code", "execution_count": None, "metadata": {},
                              "outputs": [], "source": src.splitlines(keepends=True)})
            text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                               "nbformat_minor": 5}, indent=1)
        else:
            text = "#!/bin/bash\n" + "\n".join(batch) + "\n"
        path.write_text(text, encoding="utf-8")
        written += take
        n += 1
    return written


def bench_check_tree(blocks: int = 1000, repeats: int = 3) -> dict:
    """Wall time of `recipes check DIR --format json` on a tree of ``blocks`` blocks (median
    of ``repeats``; start-up and database load included), and what it found."""
    import resource

    def timed(folder: Path) -> tuple[float, float, dict]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([PY, "-m", "macros.cli", "check", "--format", "json", str(folder)],
                              cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"recipes check failed:\n{proc.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, json.loads(proc.stdout)

    with tempfile.TemporaryDirectory() as t:
        root, empty = Path(t) / "docs", Path(t) / "empty"
        _tree(root, blocks)
        empty.mkdir()
        runs = [timed(root) for _ in range(repeats)]
        start_up = [timed(empty) for _ in range(repeats)]
        data = runs[-1][2]
        code = ("import sys, time, json; sys.path.insert(0, '.');"
                "from macros.engine.database import cached_database;"
                "from macros.checkdocs.run import check_paths; db = cached_database();"
                "t = time.process_time(); r = check_paths(db, [sys.argv[1]]);"
                "print(json.dumps({'cpu': time.process_time() - t, 'blocks': r.blocks}))")
        alone = json.loads(subprocess.run([PY, "-c", code, str(root)], cwd=ROOT, check=True,
                                          capture_output=True, text=True).stdout)
        checked = data["checked"]["blocks"]
        findings = data["diagnostics"]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        return {"blocks": checked, "files": data["checked"]["files"], "check_s": wall,
                "cpu_s": cpu, "per_s": checked / wall, "per_cpu_s": checked / cpu,
                "start_s": statistics.median(r[0] for r in start_up),
                "start_cpu_s": statistics.median(r[1] for r in start_up),
                "blocks_cpu_s": alone["cpu"],
                "findings": len(findings),
                "errors": sum(1 for d in findings if d["severity"] == "error")}


def check_tree_rows(g: dict) -> list[str]:
    return [f"| (g) `recipes check DIR`, {g['blocks']:,} blocks in {g['files']} files of 5 "
            f"formats (CLI, start-up included, median) | {g['check_s']:.2f} s wall, "
            f"{g['per_s']:,.0f} blocks/s; {g['cpu_s']:.2f} s CPU, {g['per_cpu_s']:,.0f} blocks "
            "per CPU second |",
            f"| (g) of which start-up and database load (an empty folder) | {g['start_s']:.2f} s "
            f"wall, {g['start_cpu_s']:.2f} s CPU |",
            f"| (g) the blocks alone (reading, checking, placing; in process, database loaded) | "
            f"{g['blocks_cpu_s']:.2f} s CPU, {g['blocks_cpu_s'] / g['blocks'] * 1000:.2f} ms "
            f"each ({g['blocks'] / g['blocks_cpu_s']:,.0f} blocks per CPU second) |",
            f"| (g) findings per block on that tree | {g['findings'] / max(g['blocks'], 1):.2f} "
            f"({g['errors']} errors) |"]


def selection_rows(c: dict) -> list[str]:
    """Per model and over every model: selections enumerated, resolved and checked per second
    by ``resolve_all``, and the whole catalogue one ``resolve()`` per selection."""
    out, count, seconds, each = [], 0, 0.0, 0.0
    for mid, row in c["models"].items():
        s = row["all"]
        count, seconds = count + s["walked"], seconds + s["resolve_check_s"]
        each += s["each_s"]
        out.append(f"| (c) {mid}: enumerate + resolve + check per second (resolve_all) | "
                   f"{s['walked'] / max(s['resolve_check_s'], 1e-9):,.0f} selections/s |")
    out.append(f"| (c) whole catalogue ({len(c['models'])} models, {count:,} selections): "
               f"enumerate + resolve + check (resolve_all) | {seconds:.2f} s, "
               f"{count / max(seconds, 1e-9):,.0f} selections/s "
               f"({seconds / max(count, 1) * 1000:.3f} ms each) |")
    out.append(f"| (c) whole catalogue, one resolve() per enumerated selection | {each:.2f} s "
               f"({each / max(count, 1) * 1000:.3f} ms each) |")
    printed = sum(row["all"]["print_s"] for row in c["models"].values())
    out.append(f"| (c) whole catalogue: each selection's command, docker and curl text printed in "
               f"both languages | {printed:.2f} s ({printed / max(count, 1) * 1000:.3f} ms each) |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--models", default="1,10,50")
    ap.add_argument("--quick", action="store_true", help="1 repeat, models 1,10")
    ap.add_argument("--suite", action="store_true",
                    help="also run the full test suite (about 7 minutes) and record its time")
    ap.add_argument("--growth", action="store_true",
                    help="also measure growth per model with 2, 3 and 4 models (i); with "
                         "--suite each copy's whole suite too")
    ap.add_argument("--only", choices=["selections", "check-tree", "check-docs", "growth"],
                    help="run one measurement alone: selections is (c), check-tree (g), "
                         "check-docs (h), growth (i)")
    args = ap.parse_args()
    if args.only == "check-docs":
        return print_check_docs()
    if args.only:  # one part alone: its rows under the machine's line
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load "
              f"{os.getloadavg()[0]:.1f}", flush=True)
        print("| measurement | value |\n|---|---|")
        rows = {"growth": lambda: _growth(args.suite),
                "selections": lambda: selection_rows(bench_selections()),
                "check-tree": lambda: check_tree_rows(bench_check_tree())}[args.only]()
        for row in rows:
            print(row)
        return 0
    repeats = 1 if args.quick else args.repeats
    sizes = [1, 10] if args.quick else [int(x) for x in args.models.split(",")]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start", flush=True)
    print("(a) build overhead against plain Material …", file=sys.stderr, flush=True)
    a = bench_overhead(repeats)
    print("(b) builds with 1 / 10 / 50 models …", file=sys.stderr, flush=True)
    b = bench_models(sizes)
    print("(c) every reachable selection …", file=sys.stderr, flush=True)
    c = bench_selections()
    print("(d) Playground payload and click time …", file=sys.stderr, flush=True)
    d = bench_payload()
    click = bench_click()
    print("(r) what a reader waits for …", file=sys.stderr, flush=True)
    r = bench_reader()
    print("(e) recipes check on one long line …", file=sys.stderr, flush=True)
    e = bench_check_line([1_000, 10_000, 100_000])
    print("(g) recipes check over a folder of 1,000 blocks …", file=sys.stderr, flush=True)
    g = bench_check_tree()
    print("(h) recipes check on upstream-shaped docs …", file=sys.stderr, flush=True)
    h = _check_docs()
    if args.suite:
        print("(f) the full test suite …", file=sys.stderr, flush=True)
    f = _bench().bench_suite(args.suite)
    if args.growth:
        print("(i) growth per model …", file=sys.stderr, flush=True)
    i = _growth(args.suite) if args.growth else []
    print()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end "
          "(the times above are wall times on this machine, shared or not)")
    print("| measurement | value |")
    print("|---|---|")
    ours, alone, plain, plain2 = a["ours"], a["ours_one_by_one"], a["plain"], a["plain_at_once"]
    print(f"| (a) two-language build, ours, languages at once ({a['jobs']} CPUs; median of "
          f"{repeats}) | {ours['wall_s']:.2f} s wall, {ours['cpu_s']:.2f} s CPU |")
    print(f"| (a) ours, one language after the other (--jobs 1) | {alone['wall_s']:.2f} s wall, "
          f"{alone['cpu_s']:.2f} s CPU |")
    print(f"| (a) same pages, plain Material, one after the other | {plain['wall_s']:.2f} s wall, "
          f"{plain['cpu_s']:.2f} s CPU |")
    print(f"| (a) same pages, plain Material, both at once | {plain2['wall_s']:.2f} s wall, "
          f"{plain2['cpu_s']:.2f} s CPU |")
    print(f"| (a) ratio: `recipes build` / plain `mkdocs build` of both | {a['ratio']:.2f} |")
    print(f"| (a) ratio like for like: at once / at once; one by one / one by one | "
          f"{ours['wall_s'] / plain2['wall_s']:.2f}; {alone['wall_s'] / plain['wall_s']:.2f} |")
    print(f"| (a) ratio of CPU time, ours / plain (one by one) | "
          f"{alone['cpu_s'] / plain['cpu_s']:.2f} |")
    for row in b:
        print(f"| (b) build with {row['models']} model(s) | {row['build_s']:.1f} s, "
              f"{row['cpu_s']:.1f} s CPU; peak memory {row['pss_mib']} MiB (PSS of the build and "
              f"its worker); peak RSS {row['peak_mib']} MiB build, {row['worker_mib']} MiB "
              "worker |")
    if len(b) >= 2:
        per = (b[-1]["build_s"] - b[0]["build_s"]) / (b[-1]["models"] - b[0]["models"])
        print(f"| (b) marginal cost per extra model | {per:.2f} s |")
    print(f"| (c) load database | {c['load_s'] * 1000:.0f} ms |")
    for mid, row in c["models"].items():
        for key, what in (("overlays", "cells × overlays"), ("all", "cells × settings × presets")):
            s = row[key]
            print(f"| (c) {mid}, {what}: enumerate {s['selections']:,} selections | "
                  f"{s['enumerate_s']:.2f} s |")
            print(f"| (c) {mid}, {what}: resolve + check each, one resolve() per selection | "
                  f"{s['each_s']:.2f} s ({s['each_s'] / max(s['selections'], 1) * 1000:.3f} ms "
                  f"each, {s['errors']} errors) |")
            print(f"| (c) {mid}, {what}: enumerate + resolve + check all in one walk "
                  f"(resolve_all) | {s['resolve_check_s']:.2f} s "
                  f"({s['resolve_check_s'] / max(s['walked'], 1) * 1000:.3f} ms each) |")
    for row in selection_rows(c):
        print(row)
    print(f"| (d) sources: playground.js and the {d['js_files'] - 1} modules it imports | {d['js_bytes']:,} B "
          f"({d['js_gzip']:,} B gzip, each file alone) |")
    if d.get("shipped"):
        sh = d["shipped"]
        first = sum(sh["files"][n] for n in sh["first_screen"])
        print(f"| (d) as the site ships it (esbuild, {len(sh['files'])} files, gzip level 6 each) "
              f"| {sum(sh['files'].values()):,} B; a model page loads {first:,} B of it ("
              + ", ".join(f"{n} {sh['files'][n]:,}" for n in sh["first_screen"]) + ") |")
    code = d["js_gzip"] + d["css_gzip"]
    if d.get("shipped"):
        code = sum(d["shipped"]["files"][n] for n in d["shipped"]["first_screen"])
    for name, (raw, packed) in d["json"].items():
        print(f"| (d) {name}.json | {raw:,} B ({packed:,} B gzip) |")
        if name.endswith(".en"):
            print(f"| (d) {name[:-3]}: Playground JS + CSS + JSON per page (gzip, as shipped) | "
                  f"{code + packed:,} B |")
    if click:
        for key, value in click.items():
            print(f"| (d) {key} | {value} |")
    else:
        print("| (d) click-to-command | skipped (Chromium not installed) |")
    for row in reader_rows(r):
        print(row)
    for row in check_line_rows(e):
        print(row)
    for row in check_tree_rows(g):
        print(row)
    for row in h:
        print(row)
    if f is None:
        print("| (f) full test suite | not recorded in this checkout: run bench/run.py --suite |")
    else:
        how = "this run" if args.suite else f"recorded {f['date']} at {f['commit']}"
        cpu = f" wall, {f['cpu_s']:.0f} s CPU" if "cpu_s" in f else ""
        print(f"| (f) full test suite (CI=1; {how}) | {f['seconds']:.0f} s{cpu}, {f['summary']}"
              + ("" if f["passed"] else " (FAILED)") + " |")
    for row in i:
        print(row)
    return 0


def _bench():
    """bench/growth.py: the suite's time (f) and growth per model (i)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import growth

    return growth


def _growth(suite: bool) -> list[str]:
    """(i): bench/growth.py in a process of its own (it copies the project three times)."""
    growth = _bench()
    argv = [PY, str(Path(growth.__file__))] + (["--suite"] if suite else [])
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        return [f"| (i) growth per model | failed: "
                f"{(proc.stderr.strip().splitlines() or ['no output'])[-1]} |"]
    return growth.table_rows(json.loads(proc.stdout.strip().splitlines()[-1]))


def _check_docs() -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import check_docs

    return check_docs.rows(check_docs.quality(), check_docs.bench_tree())


def print_check_docs() -> int:
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    print("| measurement | value |\n|---|---|")
    for row in _check_docs():
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
