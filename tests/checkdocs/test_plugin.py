"""Another project checks the SGLang commands in its own docs (issue #21 item 7): a throwaway
project in tmp_path, with its own pyproject.toml and conftest.py, enables the pytest plugin
(ini option ``sglang_check``) for its Markdown and the Sybil parser for its reStructuredText;
pytest runs there in a subprocess, and each bad command fails with its file, line and rule
while the good ones pass."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOOD = "sglang serve --model-path Qwen/Qwen3-8B --port 30000"
BAD = "sglang serve --model-path Qwen/Qwen3-8B --no-such-flag"


def _plugin_option() -> str:
    """Installed (``pip install`` of this package), pytest loads the plugin by its pytest11 entry
    point, as it would in the other project; from a source tree without that install, the
    project names it with ``-p`` (naming it both ways would register it twice)."""
    from importlib.metadata import entry_points

    installed = any(e.value == "macros.checkdocs.pytest_plugin"
                    for e in entry_points(group="pytest11"))
    return "" if installed else "-p macros.checkdocs.pytest_plugin "


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "their-project"
    (project / "docs").mkdir(parents=True)
    (project / "guides").mkdir()
    (project / "pyproject.toml").write_text(textwrap.dedent("""\
        [project]
        name = "their-project"
        version = "1.0"

        [tool.pytest.ini_options]
        addopts = "PLUGIN-p no:cacheprovider"
        sglang_check = ["docs/*.md"]
        """).replace("PLUGIN", _plugin_option()), encoding="utf-8")
    (project / "conftest.py").write_text(textwrap.dedent("""\
        from sybil import Sybil
        from macros.checkdocs.sybil_parser import SGLangCheckParser

        pytest_collect_file = Sybil(parsers=[SGLangCheckParser()], patterns=["*.rst"],
                                    path="guides").pytest()
        """), encoding="utf-8")
    (project / "docs" / "serve.md").write_text(
        f"# Serve\n\n```bash\n{GOOD}\n```\n\nThen:\n\n```bash\n{BAD}\n```\n", encoding="utf-8")
    (project / "guides" / "serve.rst").write_text(
        f"Serve\n=====\n\n.. code-block:: bash\n\n   {GOOD}\n\n.. code-block:: bash\n\n   {BAD}\n",
        encoding="utf-8")
    return project


def test_a_project_checks_its_own_docs_with_the_plugin_and_the_sybil_parser(tmp_path):
    project = _project(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "2 failed, 2 passed" in out
    assert "docs/serve.md:10: error: unknown flag --no-such-flag" in out
    assert "(catalog.unknown-flag)" in out
    assert "guides/serve.rst:10: error: unknown flag --no-such-flag" in out


def test_without_its_ini_option_the_plugin_collects_nothing(tmp_path):
    project = _project(tmp_path)
    (project / "conftest.py").unlink()
    toml = (project / "pyproject.toml").read_text(encoding="utf-8")
    (project / "pyproject.toml").write_text(toml.replace('sglang_check = ["docs/*.md"]\n', ""),
                                            encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 5, done.stdout + done.stderr  # no tests collected


def test_the_plugin_is_this_packages_pytest11_entry_point():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["entry-points"]["pytest11"] == \
        {"recipes-check": "macros.checkdocs.pytest_plugin"}
