"""The flag history over sglang releases: the committed file, its layout readers, `--diff`.

Offline: the committed ``recipes/catalog/sglang-history.json`` read back, the pinned catalog
files reproduced from it, ``recipes catalog --diff`` on real changes between releases, and
the per-release layout readers on small synthetic sources. One ``network`` test extracts
every release's wheel and checks that all three committed files are what the wheels say.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from macros import cli
from macros.catalog_build import command, history, sglang, wheels
from macros.catalog_build.router import extract_router
from macros.engine.history import History

CATALOG_DIR = Path(__file__).resolve().parents[2] / "recipes" / "catalog"


@pytest.fixture(scope="module")
def hist() -> dict:
    return json.loads((CATALOG_DIR / command.HISTORY_FILE).read_text(encoding="utf-8"))


def diff(a: str, b: str) -> list[str]:
    return command.diff(a, b)


def section(lines: list[str], title: str) -> list[str]:
    """The item lines under ``title (N):`` in a ``--diff`` output."""
    heads = [i for i, line in enumerate(lines) if line.startswith(f"{title} (")]
    if not heads:
        return []
    out = []
    for line in lines[heads[0] + 1 :]:
        if not line.startswith("  "):
            break
        out.append(line.strip())
    return out


# ---------------------------------------------------------------------------
# The committed history
# ---------------------------------------------------------------------------


def test_history_covers_every_release_from_0_5_12_to_0_5_23_and_the_pinned_router(hist):
    assert history.releases_of(hist, "sglang") == command.RELEASES["sglang"]
    assert history.releases_of(hist, "sglang-router") == ["0.3.2"]
    for package in ("sglang", "sglang-router"):
        for release in hist["packages"][package]["releases"]:
            assert len(release["wheel_sha256"]) == 64
            assert release["wheel"].startswith(wheels.wheel_prefix(package, release["version"]))


def test_history_file_is_in_canonical_form(hist):
    text = (CATALOG_DIR / command.HISTORY_FILE).read_text(encoding="utf-8")
    assert history.render_history(hist) == text


@pytest.mark.parametrize("package", ["sglang", "sglang-router"])
def test_pinned_catalog_file_is_the_history_slice_of_the_pinned_release(hist, package):
    text = (CATALOG_DIR / command.CATALOG_FILES[package]).read_text(encoding="utf-8")
    doc = history.catalog_document(hist, package, command.PINNED[package])
    assert command.render(doc) == text


def test_the_0_5_23_slice_has_exactly_the_flags_of_sglang_json(hist):
    catalog = json.loads((CATALOG_DIR / "sglang.json").read_text(encoding="utf-8"))
    in_catalog = {f["name"] for f in catalog["flags"]}
    flags = hist["packages"]["sglang"]["flags"]
    only_in_0_5_23 = {name for name, item in flags.items() if item["in"] == ["0.5.23"]}
    assert {f["name"] for f in history.release_snapshot(hist, "sglang", "0.5.23")["flags"]} == (
        in_catalog
    )
    assert only_in_0_5_23 and only_in_0_5_23 <= in_catalog
    for release in command.RELEASES["sglang"][:-1]:
        names = {f["name"] for f in history.release_snapshot(hist, "sglang", release)["flags"]}
        assert not names & only_in_0_5_23, release


def test_every_release_has_the_three_server_layouts_named(hist):
    layouts = {r["version"]: r["layout"] for r in hist["packages"]["sglang"]["releases"]}
    assert layouts["0.5.12"] == layouts["0.5.13.post1"] == "add_argument"
    assert layouts["0.5.14"] == layouts["0.5.19"] == "dataclass"
    assert layouts["0.5.20"] == layouts["0.5.23"] == "namespaces"


def test_enable_dp_attention_records_its_replacement_and_planned_removal(hist):
    item = hist["packages"]["sglang"]["flags"]["--enable-dp-attention"]
    snap = {f["name"]: f for f in history.release_snapshot(hist, "sglang", "0.5.23")["flags"]}
    flag = snap["--enable-dp-attention"]
    assert (flag["replacement"], flag["removal"]) == ("--attn-dp-size <dp-size>", "2026-12-31")
    assert item["changes"]["removal"] == [
        ["0.5.12..0.5.21", None],
        ["0.5.22..0.5.23", "2026-12-31"],
    ]


def test_env_deprecated_set_of_0_5_23_includes_dspark_folded_sampling(hist):
    snap = history.release_snapshot(hist, "sglang", "0.5.23")
    entry = {e["name"]: e for e in snap["env_deprecated"]}["SGLANG_DSPARK_FOLDED_SAMPLING"]
    assert entry["replacement"] is None and entry["note"].startswith("A folded DSpark draft")
    assert "SGLANG_DSPARK_FOLDED_SAMPLING" not in {e["name"] for e in snap["env"]}


def test_bench_serving_arguments_moved_module_in_0_5_15(hist):
    programs = {r["version"]: r["bench_programs"] for r in hist["packages"]["sglang"]["releases"]}
    assert programs["0.5.14"] == ["python3 -m sglang.bench_serving"]
    assert programs["0.5.15"] == [
        "python3 -m sglang.bench_serving",
        "python3 -m sglang.benchmark.serving",
    ]
    bench = {f["name"]: f for f in history.release_snapshot(hist, "sglang", "0.5.18")["bench"]}
    for name in ("--random-range-ratio", "--warmup-requests", "--flush-cache"):
        assert name in bench


# ---------------------------------------------------------------------------
# recipes catalog --diff A B
# ---------------------------------------------------------------------------


def test_diff_starts_with_the_counts_of_both_releases():
    assert diff("0.5.18", "0.5.23")[0] == (
        "sglang 0.5.18 -> 0.5.23: 489 -> 532 server flags, 543 -> 770 env vars, "
        "84 -> 87 bench_serving arguments"
    )


def test_diff_lists_a_new_deprecation_with_replacement_and_removal_date():
    assert section(diff("0.5.21", "0.5.22"), "flags deprecated") == [
        "--enable-dp-attention: use --attn-dp-size <dp-size> (removal planned after 2026-12-31)"
    ]


def test_diff_lists_a_removed_flag_with_the_replacement_its_deprecation_named():
    removed = section(diff("0.5.18", "0.5.23"), "flags removed")
    assert "--stream-output (was deprecated: use --incremental-streaming-output)" in removed
    assert "--prefill-round-robin-balance (was deprecated)" in removed


def test_diff_lists_a_rename_that_keeps_the_old_spelling_as_an_alias():
    assert section(diff("0.5.15", "0.5.16"), "flags renamed") == [
        "--grpc-http-sidecar-port -> --smg-http-sidecar-port "
        "(--grpc-http-sidecar-port kept as an alias)"
    ]


def test_diff_does_not_call_reordered_spellings_a_rename():
    lines = diff("0.5.13", "0.5.14")
    assert section(lines, "flags renamed") == []
    assert "--tp-size" not in section(lines, "flags added")


def test_diff_lists_choices_added_and_removed():
    changed = section(diff("0.5.18", "0.5.23"), "flags choices changed")
    assert "--kv-cache-dtype: - fp4_e2m1" in changed
    assert "--moe-a2a-backend: + deepep_v2, flashinfer_megamoe" in changed
    assert "--speculative-algorithm (checked after parsing): + UNO" in changed


def test_diff_lists_type_changes():
    assert (
        '--cuda-graph-backend-decode: type "str" -> "parse_cuda_graph_backend_arg"'
        in section(diff("0.5.18", "0.5.23"), "flags type or nargs changed")
    )


def test_diff_lists_env_vars_entering_the_deprecated_set():
    deprecated = section(diff("0.5.18", "0.5.23"), "env deprecated")
    assert "SGLANG_TRACE_QWEN35_FINAL_NORM: no replacement" in deprecated
    assert (
        "SGLANG_USE_TRITON_ROUTER_SUM: renamed to SGLANG_USE_CUSTOM_ROUTER_SUM "
        "(old name still read, with a warning)"
    ) in deprecated


def test_diff_lists_bench_serving_changes():
    assert section(diff("0.5.12", "0.5.13"), "bench_serving choices changed") == [
        "--dataset-name: + speed-bench"
    ]


def test_diff_sections_come_in_a_fixed_order():
    titles = [line.split(" (")[0] for line in diff("0.5.12", "0.5.23") if line.endswith("):")]
    order = [
        "flags added",
        "flags removed",
        "flags renamed",
        "flags deprecated",
        "flags choices changed",
        "flags type or nargs changed",
        "flags default changed",
        "env added",
        "env removed",
        "env deprecated",
        "bench_serving added",
        "bench_serving removed",
        "bench_serving renamed",
        "bench_serving deprecated",
        "bench_serving choices changed",
        "bench_serving type or nargs changed",
        "bench_serving default changed",
    ]
    assert titles == [t for t in order if t in titles]
    assert diff("0.5.12", "0.5.23") == diff("0.5.12", "0.5.23")


def test_diff_needs_no_network(monkeypatch, capsys):
    def no_network(*args, **kwargs):
        raise AssertionError("--diff must not download anything")

    monkeypatch.setattr(command, "download_wheel", no_network)
    assert cli.main(["catalog", "--diff", "0.5.18", "0.5.23"]) == 0
    assert capsys.readouterr().out.startswith("sglang 0.5.18 -> 0.5.23: ")


def test_diff_of_an_unknown_release_names_the_known_ones(capsys):
    assert cli.main(["catalog", "--diff", "0.5.18", "0.5.99"]) == 1
    known = ", ".join(command.RELEASES["sglang"])
    assert capsys.readouterr().err == (
        "error: <command line>: --diff: unknown sglang release '0.5.99' "
        f"(known releases: {known})\n"
    )


def test_diff_cannot_be_combined_with_check(capsys):
    assert cli.main(["catalog", "--check", "--diff", "0.5.18", "0.5.23"]) == 1
    assert capsys.readouterr().err == (
        "error: <command line>: --diff reads the committed history; drop --check\n"
    )


def test_diff_without_a_history_file_says_which_file(tmp_path):
    with pytest.raises(command.HistoryUnreadable) as caught:
        command.diff("0.5.18", "0.5.23", catalog_dir=tmp_path)
    assert caught.value.reason == "cannot read: No such file or directory"


# ---------------------------------------------------------------------------
# Folding snapshots into the history and reading them back
# ---------------------------------------------------------------------------

ORDER = ["1.0", "1.1", "1.2", "1.3"]


def fold(*snapshots: dict | None) -> dict:
    return history.fold_section(list(snapshots), ORDER)


def test_a_fact_that_never_changes_is_stored_once():
    item = fold(*[{"--a": {"name": "--a", "type": "int"}}] * 4)["--a"]
    assert item == {"in": ["1.0..1.3"], "facts": {"type": "int"}}


def test_a_changing_value_is_stored_per_span_of_releases():
    snaps = [{"--a": {"name": "--a", "choices": c}} for c in (["x"], ["x"], ["x", "y"], ["x", "y"])]
    assert fold(*snaps)["--a"]["changes"] == {
        "choices": [["1.0..1.1", ["x"]], ["1.2..1.3", ["x", "y"]]]
    }


def test_an_item_missing_from_a_release_has_a_gap_in_its_ranges():
    snaps = [{"--a": {"name": "--a"}}, {}, {"--a": {"name": "--a"}}, {"--a": {"name": "--a"}}]
    assert fold(*snaps)["--a"]["in"] == ["1.0", "1.2..1.3"]


def test_zero_and_false_are_different_facts():
    snaps = [{"X": {"name": "X", "default": v}} for v in (False, False, 0, 0)]
    assert fold(*snaps)["X"]["changes"]["default"] == [["1.0..1.1", False], ["1.2..1.3", 0]]


def test_every_release_reads_back_as_it_was_folded():
    releases = [
        (v, {"allow_abbrev": True, "wheel": f"w-{v}", "wheel_sha256": "0" * 64}, sections)
        for v, sections in zip(
            ORDER,
            [
                {"flags": [{"name": "--a", "nargs": None}, {"name": "--b", "nargs": 0}]},
                {"flags": [{"name": "--a", "nargs": "+"}]},
                {"flags": []},
                {"flags": [{"name": "--a", "nargs": "+"}, {"name": "--b", "nargs": 1}]},
            ],
        )
    ]
    doc = history.build_history({"pkg": {"programs": ["prog"], "releases": releases}})
    for version, meta, sections in releases:
        snap = history.release_snapshot(doc, "pkg", version)
        assert snap["flags"] == sorted(sections["flags"], key=lambda f: f["name"])
        assert snap["meta"] == meta


def test_one_fact_read_alone_is_that_fact_in_its_release_snapshot(hist):
    reader = History(hist, "sglang")
    for version in reader.order:
        snap = {f["name"]: f for f in history.release_snapshot(hist, "sglang", version)["flags"]}
        at = reader.at(version)
        for name in reader.data["flags"]:
            for key in ("deprecated", "removal", "choices"):
                assert reader.fact("flags", name, key, at) == snap.get(name, {}).get(key), \
                    (version, name, key)


def test_loading_the_database_imports_nothing_of_the_wheel_extractor():
    code = ("import sys; from macros.engine.database import load_database; load_database(); "
            "print(sorted(m for m in sys.modules if m.startswith('macros.catalog_build')))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=CATALOG_DIR.parent.parent,
                          capture_output=True, text=True, check=True)
    assert proc.stdout == "[]\n"


# ---------------------------------------------------------------------------
# Per-release layout readers on synthetic sources
# ---------------------------------------------------------------------------

COMMON = {
    "sglang/srt/environ.py": textwrap.dedent("""
        import os
        class Envs:
            SGLANG_A = EnvInt(0)
            SGLANG_A = EnvBool(False)
        def _print_deprecated_env(old_name, new_name=None):
            pass
        def _warn_deprecated_env_to_cli_flag(env_name, suggestion):
            pass
        def _convert_SGL_to_SGLANG():
            _print_deprecated_env("SGLANG_OLD", "SGLANG_NEW")
            _print_deprecated_env("SGLANG_GONE")
            _deprecated_ms_to_s = {"SGLANG_T_MS": "SGLANG_T"}
        _warn_deprecated_env_to_cli_flag("SGLANG_IDLE", "Please use '--idle' instead.")
    """),
    "sglang/cli/serve.py": textwrap.dedent("""
        def _extract_model_type_override(extra_argv):
            model_type = "auto"
            if model_type not in ("auto", "llm", "diffusion"):
                raise SystemExit(1)
    """),
    "sglang/bench_serving.py": textwrap.dedent("""
        from argparse import ArgumentParser
        if __name__ == "__main__":
            parser = ArgumentParser(description="Benchmark.")
            parser.add_argument("--dataset-name", choices=["sharegpt", "random"])
            args = parser.parse_args()
    """),
}

ADD_ARGUMENT_LAYOUT = {
    **COMMON,
    "sglang/srt/server_args.py": textwrap.dedent("""
        import argparse, dataclasses
        from typing import List

        @dataclasses.dataclass
        class ServerArgs:
            model_path: str
            port: int = 30000
            prefixes: List[str] = dataclasses.field(default_factory=lambda: ["/health"])

            @staticmethod
            def add_cli_args(parser):
                parser.add_argument("--model-path", "--model", type=str, required=True)
                parser.add_argument("--port", type=int, default=ServerArgs.port)
                # The old spelling. TODO: remove the flag after 2027-03-31.
                parser.add_argument("--old-port", action=DeprecatedStoreTrueAction,
                                    new_flag="--port", help="[Deprecated] Use --port instead.")

        class DeprecatedStoreTrueAction(argparse.Action):
            def __init__(self, option_strings, dest, new_flag=None, nargs=0, **kwargs):
                pass

        def prepare_server_args(argv):
            parser = argparse.ArgumentParser(prog="sglang serve")
            ServerArgs.add_cli_args(parser)
    """),
}

DATACLASS_LAYOUT = {
    **COMMON,
    "sglang/srt/server_args.py": textwrap.dedent("""
        import argparse, dataclasses
        from sglang.srt.arg_groups.arg_utils import A, Arg, add_cli_args_from_dataclass

        @dataclasses.dataclass
        class ServerArgs:
            tp_size: A[int, Arg(help="TP.", aliases=["--tensor-parallel-size"])] = 1
            plain: int = 2
            tp_size: A[int, Arg(help="TP size.", aliases=["--tensor-parallel-size"])] = 1

            @staticmethod
            def add_cli_args(parser):
                add_cli_args_from_dataclass(parser, ServerArgs)
                parser.add_argument("--plain", type=int, default=ServerArgs.plain)

        def prepare_server_args(argv):
            parser = argparse.ArgumentParser(prog="sglang serve")
            ServerArgs.add_cli_args(parser)
    """),
    "sglang/srt/arg_groups/arg_utils.py": "class Arg:\n    help: str = ''\n",
}


def by_name(flags: list[dict]) -> dict[str, dict]:
    return {f["name"]: f for f in flags}


def test_add_argument_layout_reads_defaults_from_the_dataclass():
    result = sglang.extract_sglang(wheels.SourceTree(files=ADD_ARGUMENT_LAYOUT))
    flags = by_name(result["flags"])
    assert result["layout"] == "add_argument"
    assert (flags["--port"]["default"], flags["--model-path"]["aliases"]) == (30000, ["--model"])
    assert flags["--model-type"]["choices"] == ["auto", "llm", "diffusion"]


def test_planned_removal_is_read_from_the_comment_above_the_registration():
    flag = by_name(sglang.extract_sglang(wheels.SourceTree(files=ADD_ARGUMENT_LAYOUT))["flags"])[
        "--old-port"
    ]
    assert (flag["deprecated"], flag["replacement"], flag["removal"]) == (
        "deprecated: use --port instead",
        "--port",
        "2027-03-31",
    )


def test_dataclass_layout_registers_a_field_declared_twice_once_with_the_last_annotation():
    result = sglang.extract_sglang(wheels.SourceTree(files=DATACLASS_LAYOUT))
    flags = [f for f in result["flags"] if f["name"] == "--tp-size"]
    assert result["layout"] == "dataclass"
    assert [(f["help"], f["dest"]) for f in flags] == [("TP size.", "tp_size")]
    assert by_name(result["flags"])["--plain"]["default"] == 2


def test_env_registry_keeps_the_last_binding_of_a_name():
    env = sglang.extract_env(wheels.SourceTree(files=COMMON))
    assert [(e["name"], e["type"], e["default"]) for e in env] == [("SGLANG_A", "Bool", False)]


def test_env_deprecations_before_the_table_come_from_the_warning_calls():
    found = sglang.extract_env_deprecations(wheels.SourceTree(files=COMMON))
    assert found == [
        {"name": "SGLANG_GONE", "note": None, "replacement": None, "transform": None},
        {"name": "SGLANG_IDLE", "note": "Please use '--idle' instead.", "replacement": None,
         "transform": None},
        {"name": "SGLANG_OLD", "note": None, "replacement": "SGLANG_NEW", "transform": None},
        {"name": "SGLANG_T_MS", "note": None, "replacement": "SGLANG_T", "transform": "ms_to_s"},
    ]


def test_env_deprecations_table_gives_replacement_note_and_transform():
    files = {
        "sglang/srt/environ.py": textwrap.dedent("""
            def _ms_to_s(v):
                return v
            _DEPRECATED_ENVS = {
                "SGLANG_Q_MS": _DeprecatedEnv(replacement="SGLANG_Q", transform=_ms_to_s,
                                              note="Note the unit change."),
                "SGLANG_X": _DeprecatedEnv(),
            }
        """)
    }
    assert sglang.extract_env_deprecations(wheels.SourceTree(files=files)) == [
        {"name": "SGLANG_Q_MS", "note": "Note the unit change.", "replacement": "SGLANG_Q",
         "transform": "ms_to_s"},
        {"name": "SGLANG_X", "note": None, "replacement": None, "transform": None},
    ]


def test_bench_arguments_before_0_5_15_come_from_the_main_block():
    bench = sglang.extract_bench(wheels.SourceTree(files=COMMON))
    assert bench["programs"] == ["python3 -m sglang.bench_serving"]
    assert by_name(bench["flags"])["--dataset-name"]["choices"] == ["sharegpt", "random"]


def test_bench_arguments_from_0_5_15_come_from_cli_main():
    files = {
        "sglang/benchmark/serving.py": textwrap.dedent("""
            from argparse import ArgumentParser
            def cli_main():
                parser = ArgumentParser(description="Benchmark.")
                parser.add_argument("--flush-cache", action="store_true")
                args = parser.parse_args()
        """)
    }
    bench = sglang.extract_bench(wheels.SourceTree(files=files))
    assert bench["programs"][1] == "python3 -m sglang.benchmark.serving"
    assert by_name(bench["flags"])["--flush-cache"]["takes_value"] is False


def test_router_release_without_a_checked_tool_parser_list_is_an_error():
    files = {
        "sglang_router/router_args.py": textwrap.dedent("""
            from sglang_router.sglang_router_rs import get_available_tool_call_parsers
            class RouterArgs:
                @staticmethod
                def add_cli_args(parser, use_router_prefix=False):
                    names = get_available_tool_call_parsers()
                    parser.add_argument("--tool-call-parser", choices=names)
        """),
        "sglang_router/launch_router.py": (
            "def parse_router_args(args):\n    parser = argparse.ArgumentParser()\n"
        ),
    }
    with pytest.raises(wheels.CatalogError) as caught:
        extract_router(wheels.SourceTree(files=files), "0.2.4")
    assert str(caught.value) == (
        "sglang-router 0.2.4: --tool-call-parser choices come from Rust; add the release's list "
        "to ROUTER_TOOL_CALL_PARSERS (known: 0.3.2)"
    )


# ---------------------------------------------------------------------------
# Against PyPI
# ---------------------------------------------------------------------------


@pytest.mark.network
def test_committed_catalogs_and_history_are_what_the_wheels_say(capsys):
    """Extract every release (wheels cached in .build/wheels, about 340 MB the first time).

    The cache is shared with ``recipes catalog``; a cached wheel that differs from the one the
    history records fails through its wheel_sha256.
    """
    code = command.main(["--check"])
    captured = capsys.readouterr()
    if code == 2 and "catalog check skipped: cannot download wheels" in captured.out:
        pytest.skip(f"no network to PyPI: {captured.out.strip()}")
    assert code == 0, captured.out + captured.err


@pytest.mark.parametrize(("a", "b", "same"), [
    ("x", "x", True), ("x", "y", False), (None, None, True), (0, 0, True),
    (0, False, False), (1, 1.0, False), (True, 1, False), (None, "", False),
    (float("nan"), float("nan"), True), (0.5, 0.5, True), ([1, "a"], (1, "a"), True),
    ({"a": 1, "b": [0]}, {"b": [0], "a": 1}, True), ({"a": 0}, {"a": False}, False)])
def test_facts_are_the_same_exactly_when_their_json_is(a, b, same):
    """The history folds a fact over releases when it is the same in each, compared as JSON
    (``history._same``; strings, integers, booleans and None of one type without JSON)."""
    assert history._same(a, b) is same
    assert same == (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))
