"""`recipes check PATH…` reads Markdown, MDX, reStructuredText, notebooks and shell scripts,
walks folders as git sees them, and reports each finding at its line in the original file
(issue #21 item 5). The corpus under corpus/ is written for these tests; expected.yaml says
what each file must give."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import yamlc
from macros.checkdocs import sources

CORPUS = Path(__file__).parent / "corpus"
EXPECTED = yamlc.load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))["files"]


def _errors(diagnostics):
    out = {}
    for d in diagnostics:
        if d["severity"] != "error":
            continue
        key = {"line": d["line"], "rule": d["rule"]}
        if "cell" in d:
            key.update(cell=d["cell"], cell_line=d["cell_line"])
        out.setdefault(d["source"], []).append(key)
    return out


@pytest.fixture
def in_corpus(monkeypatch):
    monkeypatch.chdir(CORPUS)


def test_the_corpus_gives_exactly_the_expected_errors_at_their_lines(cli, in_corpus):
    r = cli("check", "--format", "json", ".")
    assert r.code == 1, r.err
    got = _errors(r.json()["diagnostics"])
    want = {path: [{k: v for k, v in e.items() if k != "why"} for e in spec["errors"]]
            for path, spec in EXPECTED.items()}
    assert {p: sorted(json.dumps(e, sort_keys=True) for e in v) for p, v in got.items()} == \
        {p: sorted(json.dumps(e, sort_keys=True) for e in v) for p, v in want.items()}


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_each_file_holds_the_blocks_expected(db, path):
    from macros.checkdocs.run import check_paths

    report = check_paths(db, [str(CORPUS / path)])
    spec = EXPECTED[path]
    assert (report.blocks, report.other, report.skipped) == \
        (spec["checked"], spec["other"], spec["skipped"])


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_a_file_given_alone_gives_the_same_errors_as_in_its_folder(cli, in_corpus, path):
    r = cli("check", "--format", "json", path)
    assert len(_errors(r.json()["diagnostics"]).get(path, [])) == len(EXPECTED[path]["errors"])


def test_the_text_report_names_file_line_and_a_notebooks_cell(cli, in_corpus):
    r = cli("check", "--severity", "error", "docs/serve.ipynb")
    assert "docs/serve.ipynb:66: error: cell 6, line 4: unknown flag --no-such-flag" in r.out
    assert r.err.strip().endswith("in 5 block(s) of 1 file(s)")


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(CORPUS / "docs", root / "docs")
    (root / ".git").mkdir()
    bad = "```bash\nsglang serve --model-path Qwen/Qwen3-8B --no-such-flag\n```\n"
    (root / ".gitignore").write_text("build/\n*.log.md\n/docs/private-*\n", encoding="utf-8")
    for name in ("build/page.md", "docs/build/page.md", "docs/run.log.md",
                 "docs/private-notes.md", "docs/sub/drafts/x.md", "docs/sub/old.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(bad, encoding="utf-8")
    (root / "docs/sub/.gitignore").write_text("drafts/\n*.md\n!old.md\n", encoding="utf-8")
    (root / "docs/notes.txt").write_text(bad, encoding="utf-8")
    return root


def test_the_folder_walk_skips_what_git_ignores(cli, tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root / "docs")  # the rules of the repository's root apply below it too
    r = cli("check", "--format", "json", ".")
    files = {d["source"] for d in r.json()["diagnostics"]}
    assert "sub/old.md" in files  # a negated rule of a deeper .gitignore wins
    assert not files & {"build/page.md", "run.log.md", "private-notes.md",
                        "sub/drafts/x.md", "notes.txt"}
    assert r.json()["checked"]["files"] == len(EXPECTED) + 1


def test_a_file_named_on_the_command_line_is_read_though_git_ignores_it(cli, tmp_path,
                                                                         monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    r = cli("check", "--format", "json", "build/page.md")
    assert [d["rule"] for d in r.json()["diagnostics"] if d["severity"] == "error"] == \
        ["catalog.unknown-flag"]


def test_a_file_of_no_known_format_and_a_missing_path_are_clear_errors(cli, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("sglang serve --no-such-flag\n", encoding="utf-8")
    r = cli("check", str(notes))
    assert r.code == 1
    assert f"{notes}:1: error: not a format recipes check reads" in r.out
    assert "use --file PATH" in r.out
    r = cli("check", str(tmp_path / "gone.md"))
    assert (r.code, r.err) == (1, f"error: {tmp_path / 'gone.md'}: no such file or folder\n")


def test_a_script_without_a_suffix_is_read_by_its_shebang(cli, tmp_path):
    script = tmp_path / "serve"
    script.write_text("#!/bin/bash\nsglang serve --model-path Qwen/Qwen3-8B --no-such-flag\n",
                      encoding="utf-8")
    r = cli("check", "--format", "json", str(script))
    assert [(d["line"], d["rule"]) for d in r.json()["diagnostics"]
            if d["severity"] == "error"] == [(2, "catalog.unknown-flag")]


def test_a_file_that_cannot_be_read_is_a_finding_and_the_others_are_still_checked(
        cli, tmp_path):
    (tmp_path / "bad.md").write_bytes(b"```bash\nsglang serve \xff\n```\n")
    (tmp_path / "broken.ipynb").write_text('{"cells": [\n  {"cell_type": "code",,}]}',
                                           encoding="utf-8")
    (tmp_path / "good.md").write_text(
        "```bash\nsglang serve --model-path Qwen/Qwen3-8B --no-such-flag\n```\n",
        encoding="utf-8")
    r = cli("check", "--format", "json", str(tmp_path))
    rules = {(Path(d["source"]).name, d["line"], d["rule"]) for d in r.json()["diagnostics"]
             if d["severity"] == "error"}
    assert rules == {("bad.md", 2, "input.not-utf8"), ("broken.ipynb", 2, "input.bad-notebook"),
                     ("good.md", 2, "catalog.unknown-flag")}


def test_file_and_command_inputs_keep_working_beside_paths(cli, tmp_path):
    cmd = tmp_path / "cmd.txt"
    cmd.write_text("sglang serve --model-path Qwen/Qwen3-8B --no-such-flag\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("```bash\nsglang serve --model-path Qwen/Qwen3-8B --kv-cache-dtype fp9\n```\n",
                    encoding="utf-8")
    r = cli("check", "--format", "json", "--file", str(cmd), str(page), "--",
            "sglang", "serve", "--model-path", "Qwen/Qwen3-8B", "--policy", "x")
    got = {(d["source"], d["rule"]) for d in r.json()["diagnostics"] if d["severity"] == "error"}
    assert got == {(str(cmd), "catalog.unknown-flag"), (str(page), "catalog.bad-value"),
                   ("<command line>", "catalog.unknown-flag")}
    # a text given whole with no command in it is still said to have none
    assert cli("check", "--", "pip install sglang").code == 1


# --- the readers, on what the corpus does not show -----------------------------------------

def test_markdown_lines_keep_their_place_with_crlf_a_bom_and_an_indented_fence():
    text = "\ufeff# t\r\n\r\n1. step\r\n\r\n   ```sh\r\n   sglang serve \\\r\n     --tp 8\r\n   ```\r\n"
    [block] = sources.markdown_blocks("p.md", text)
    assert block.text == "sglang serve \\\n  --tp 8"  # CR is a line end here, the fence indent goes
    assert [w.file_line for w in block.lines] == [6, 7]
    second = block.at(2)
    assert text[second.offset(2):second.offset(6)] == "--tp"


def test_a_notebook_character_is_placed_in_the_json_whatever_its_escapes():
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": ["# caf\u00e9 \U0001F600 \"quoted\"\n",
                                "!sglang serve --model-path m --tp 8\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(nb, indent=1)  # ensure_ascii: \u00e9 and a surrogate pair in the file
    [block] = sources.notebook_blocks("n.ipynb", text)
    assert block.text == "sglang serve --model-path m --tp 8"
    where = block.at(1)
    col = block.text.index("--tp")
    assert text[where.offset(col):where.offset(col + 4)] == "--tp"
    assert (where.cell, where.cell_line) == (1, 2)
    assert text.splitlines()[where.file_line - 1].strip().startswith('"!sglang')


def test_an_fstring_value_is_read_as_a_shell_variable_and_keeps_its_columns():
    src = ('launch_server_cmd(f"python3 -m sglang.launch_server --model-path {model} '
           '--port {port} --tp 2")\n')
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": [src]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(nb)
    [block] = sources.notebook_blocks("n.ipynb", text)
    assert block.text == "python3 -m sglang.launch_server --model-path $model --port $port --tp 2"
    col = block.text.index("--tp")
    where = block.at(1)
    assert text[where.offset(col):where.offset(col + 4)] == "--tp"


def test_a_bash_kernel_notebook_is_read_whole_and_a_cell_directive_skips():
    nb = {"cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["sglang serve --model-path m\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["# check: skip\n", "sglang serve --nope\n"]}],
        "metadata": {"kernelspec": {"language": "bash", "name": "bash"}},
        "nbformat": 4, "nbformat_minor": 5}
    first, second = sources.notebook_blocks("n.ipynb", json.dumps(nb))
    assert (first.text, first.skip, second.skip) == ("sglang serve --model-path m\n", False, True)


def test_a_directive_gives_a_blocks_context_and_a_bad_one_is_a_finding(cli, tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- check: model=no-such-model -->\n```bash\nsglang serve --model-path m\n```\n",
                    encoding="utf-8")
    r = cli("check", "--format", "json", str(page))
    [d] = [d for d in r.json()["diagnostics"] if d["severity"] == "error"]
    assert (d["line"], d["rule"]) == (1, "input.bad-directive")
    assert "no-such-model" in d["message"]


def test_a_bang_lines_python_value_is_read_as_known_at_run_time_and_keeps_its_columns():
    src = "!python3 -m sglang.launch_server --model-path {model} --port {port} --tp 2\n"
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": [src]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(nb)
    [block] = sources.notebook_blocks("n.ipynb", text)
    assert block.text == "python3 -m sglang.launch_server --model-path $model --port $port --tp 2"
    col = block.text.index("--tp")
    where = block.at(1)
    assert text[where.offset(col):where.offset(col + 4)] == "--tp"


def test_this_projects_own_pages_pass_the_file_reader(cli):
    """The docs' own check directives (``skip=true``, ``generated``, a model and its cell) are
    read as the docs' Sybil run reads them, and no page has an error."""
    root = Path(__file__).resolve().parents[2]
    r = cli("check", "--severity", "error", str(root / "docs" / "en"), str(root / "docs" / "ko"))
    assert (r.code, r.out) == (0, ""), r.out


def test_a_bash_cells_directive_may_follow_its_magic_line():
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": ["%%bash\n", "# check: skip\n", "sglang serve --nope\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    [block] = sources.notebook_blocks("n.ipynb", json.dumps(nb))
    assert block.skip


def test_an_untagged_fence_is_read_when_it_holds_a_command_or_a_shell_script():
    """Upstream pages leave many fences untagged (```` ``` ```` with no language): one holding
    an SGLang command or starting with a shell's ``#!`` line is read, other text is not."""
    page = ("```\npython3 -m sglang.bench_serving --backend sglang\n```\n\n"
            "```\n#!/bin/bash\nsrun --nodes=2 \\\n    python3 -m sglang.launch_server --model-path m\n```\n\n"
            "```\n$ sglang serve --model-path m\nserver ready\n```\n\n"
            "```\npci=realloc=off iommu=pt\n```\n\n"
            "```text\npython3 -m sglang.launch_server --model-path m\n```\n")
    blocks = sources.markdown_blocks("page.md", page)
    assert [b.text.splitlines()[0] for b in blocks] == [
        "python3 -m sglang.bench_serving --backend sglang", "#!/bin/bash",
        "sglang serve --model-path m"]
    assert [b.lines[0].file_line for b in blocks] == [2, 6, 12]
    assert blocks[2].text.split("\n")[1] == ""  # a console block keeps its '$' lines only


def test_a_launcher_string_is_one_command_whatever_its_line_ends():
    """SGLang's ``launch_server_cmd`` and ``execute_shell_command`` run no shell: they split the
    whole string at whitespace, so a line without a trailing '\\' still continues the command;
    a ``subprocess`` call with a shell keeps the shell's reading."""
    cell = ('server, port = launch_server_cmd("""\n'
            "python3 -m sglang.launch_server --model-path m\n"
            "    --max-lora-rank 256\n"
            '    --log-level warning\n""")\n'
            'subprocess.check_output("""python3 -m sglang.launch_server --model-path m\n'
            '    --log-level warning""", shell=True)')
    nb = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                "execution_count": None, "source": cell}],
                     "metadata": {"language_info": {"name": "python"}}, "nbformat": 4,
                     "nbformat_minor": 5})
    launcher, shell = sources.notebook_blocks("nb.ipynb", nb)
    assert launcher.text.split("\n")[1:4] == [
        "python3 -m sglang.launch_server --model-path m \\", "    --max-lora-rank 256 \\",
        "    --log-level warning \\"]
    assert shell.text.split("\n") == ["python3 -m sglang.launch_server --model-path m",
                                      "    --log-level warning"]
