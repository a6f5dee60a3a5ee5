"""The package's shape (issue #23): no import circle, no import against the layers, and every
module over the size limit says why it stays one module (``python -m macros.layout_check``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from macros import layout_check

ROOT = Path(__file__).resolve().parents[2]


def test_the_package_has_no_circle_no_import_against_the_layers_and_no_unexplained_size():
    lines, ok = layout_check.report(layout_check.read())
    assert ok, "\n".join(lines)


def test_the_check_runs_as_a_module_and_prints_the_graph():
    done = subprocess.run([sys.executable, "-m", "macros.layout_check"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Imports between subpackages" in done.stdout
    assert "site -> engine" in done.stdout
    assert "Import circles between modules: none" in done.stdout


def _package(tmp_path, files: dict[str, str]):
    root = tmp_path / "macros"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return layout_check.read(root)


def test_a_circle_through_a_lazy_import_is_found(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "", "engine/__init__.py": "",
        "engine/a.py": "from macros.engine import b\n",
        "engine/b.py": "def f():\n    from . import a\n",
    })
    assert layout_check.circles(modules) == [["macros.engine.a", "macros.engine.b"]]
    assert not layout_check.report(modules)[1]


def test_an_import_up_the_layers_is_found(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "", "engine/__init__.py": "", "site/__init__.py": "",
        "site/pages.py": "x = 1\n",
        "engine/resolve.py": "from macros.site.pages import x\n",
    })
    assert layout_check.against_layers(modules) == [("macros.engine.resolve",
                                                      "macros.site.pages")]


def test_a_long_module_needs_its_reason(tmp_path):
    body = "x = 1\n" * (layout_check.LIMIT + 1)
    modules = _package(tmp_path, {"__init__.py": "", "engine/__init__.py": "",
                                  "engine/big.py": '"""Big."""\n' + body})
    lines, ok = layout_check.report(modules)
    assert not ok and any("no reason given" in line for line in lines)
    modules = _package(tmp_path, {"engine/big.py": '"""Big.\n\nSize: one walk.\n"""\n' + body})
    lines, ok = layout_check.report(modules)
    assert ok and any("one walk" in line for line in lines)


def test_no_two_test_modules_share_a_basename():
    """pytest imports the test folders without packages (rootdir mode): two ``test_x.py`` in two
    groups stop the whole run at collection, so a new group's file needs a name of its own."""
    from collections import defaultdict

    seen = defaultdict(list)
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if "node_modules" not in path.parts:
            seen[path.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
