"""`recipes check` on docs nobody here wrote (bench/run.py part (h); not part of the tests).

Reads the corpus of upstream-shaped blocks (tests/corpus/upstream/blocks.yaml) and measures:
precision (true errors / all errors) and recall (errors found / errors the blocks must raise)
over it, in process; then writes a tree of 1,000 mixed blocks (the corpus's blocks in turn, ten
to a Markdown page, pages in nested folders, each folder with the config files its blocks read)
and runs `recipes check FOLDER --format json` through the CLI on it: blocks per second (start-up
and database load included) and findings per block.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "upstream" / "blocks.yaml"


def blocks() -> list[dict]:
    return yaml.safe_load(CORPUS.read_text(encoding="utf-8"))["blocks"]


def quality() -> dict:
    """Precision and recall of the errors over the corpus, with the blocks that miss."""
    sys.path.insert(0, str(ROOT))
    from macros.engine.check import check_text
    from macros.engine.database import RECIPES, load_database

    db = load_database(RECIPES)
    true = false = missed = 0
    wrong = []
    with tempfile.TemporaryDirectory() as t:
        for block in blocks():
            folder = Path(t) / block["id"]
            folder.mkdir()
            for name, text in (block.get("files") or {}).items():
                (folder / name).write_text(text, encoding="utf-8")
            found = Counter(f.rule for f in check_text(db, block["text"],
                                                       sglang=block.get("sglang"),
                                                       base_dir=folder)
                            if f.severity.value == "error")
            expected = Counter(block["errors"])
            hit = sum((found & expected).values())
            true += hit
            false += sum(found.values()) - hit
            missed += sum(expected.values()) - hit
            if found != expected:
                wrong.append(block["id"])
    return {"blocks": len(blocks()), "true": true, "false": false, "missed": missed,
            "precision": true / (true + false) if true + false else 1.0,
            "recall": true / (true + missed) if true + missed else 1.0, "wrong": wrong}


def write_tree(root: Path, count: int = 1000, per_page: int = 10) -> int:
    """``count`` blocks of the corpus in turn, ``per_page`` to a page; returns the pages."""
    corpus = [b for b in blocks() if not b.get("sglang")]  # a page is judged as one release
    pages = 0
    for start in range(0, count, per_page):
        folder = root / f"part{start // 200}" / f"section{start // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        parts = [f"# Page {pages}\n"]
        for i in range(start, min(start + per_page, count)):
            block = corpus[i % len(corpus)]
            for name, text in (block.get("files") or {}).items():
                (folder / name).write_text(text, encoding="utf-8")
            parts.append(f"\nStep {i}.\n\n```bash\n{block['text'].rstrip()}\n```\n")
        (folder / f"page{pages}.md").write_text("".join(parts), encoding="utf-8")
        pages += 1
    return pages


def bench_tree(count: int = 1000, repeats: int = 3) -> dict:
    """`recipes check FOLDER --format json` through the CLI on a tree of ``count`` blocks:
    the median wall time of ``repeats`` runs, blocks per second, findings per block."""
    with tempfile.TemporaryDirectory() as t:
        tree = Path(t) / "docs"
        pages = write_tree(tree, count)
        times, cpu, report = [], [], None
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "macros.cli", "check", str(tree),
                                   "--format", "json"], cwd=ROOT, capture_output=True,
                                  text=True)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if proc.returncode not in (0, 1):
                raise SystemExit(f"recipes check failed:\n{proc.stderr}")
            report = json.loads(proc.stdout)
    seconds = sorted(times)[len(times) // 2]
    cpu_s = sorted(cpu)[len(cpu) // 2]
    findings = report["diagnostics"]
    checked = report.get("blocks", count)
    by = Counter(d["severity"] for d in findings)
    return {"pages": pages, "blocks": checked, "seconds": seconds, "cpu_s": cpu_s,
            "blocks_per_s": checked / seconds, "blocks_per_cpu_s": checked / cpu_s, "findings": len(findings),
            "per_block": len(findings) / checked, "errors": by["error"],
            "warnings": by["warning"], "info": by["info"]}


def rows(q: dict, tree: dict) -> list[str]:
    return [
        f"| (h) `recipes check` on {q['blocks']} upstream-shaped blocks: precision (true errors "
        f"/ all errors) | {q['precision']:.3f} ({q['true']} of {q['true'] + q['false']}) |",
        f"| (h) recall (errors found / errors the blocks must raise) | {q['recall']:.3f} "
        f"({q['true']} of {q['true'] + q['missed']}) |",
        f"| (h) `recipes check FOLDER` through the CLI, {tree['blocks']:,} mixed blocks on "
        f"{tree['pages']} pages (median of 3, start-up included) | {tree['seconds']:.2f} s "
        f"wall, {tree['cpu_s']:.2f} s CPU: {tree['blocks_per_s']:,.0f} blocks/s wall, "
        f"{tree['blocks_per_cpu_s']:,.0f} per CPU second |",
        f"| (h) findings per block on that tree (errors / warnings / notes) | "
        f"{tree['per_block']:.2f} ({tree['errors'] / tree['blocks']:.2f} / "
        f"{tree['warnings'] / tree['blocks']:.2f} / {tree['info'] / tree['blocks']:.2f}) |",
    ]
