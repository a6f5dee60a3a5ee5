"""Tests for the flag-catalog extractor and the committed catalog it produced.

Two layers: facts about the committed JSON (checked against the SGLang
reference notes) and the AST extraction on small synthetic sources (offline,
fast). The ``network`` check against PyPI, which covers these files and the
history together, is in test_catalog_history.py.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from macros.catalog_build import command, evaluator, records, wheels
from macros.catalog_build import router as router_reader
from macros.catalog_build import sglang as sglang_reader

CATALOG_DIR = Path(__file__).resolve().parents[2] / "recipes" / "catalog"


@pytest.fixture(scope="module")
def sglang() -> dict:
    return json.loads((CATALOG_DIR / "sglang.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def router() -> dict:
    return json.loads((CATALOG_DIR / "sglang-router.json").read_text(encoding="utf-8"))


def by_option(doc: dict) -> dict[str, dict]:
    out = {}
    for flag in doc["flags"]:
        for opt in [flag["name"], *flag["aliases"]]:
            out[opt] = flag
    return out


def env_by_name(doc: dict) -> dict[str, dict]:
    return {e["name"]: e for e in doc["env"]}


# ---------------------------------------------------------------------------
# (a) The committed catalog
# ---------------------------------------------------------------------------


def test_files_are_deterministic_renderings(sglang, router):
    for name, doc in (("sglang.json", sglang), ("sglang-router.json", router)):
        text = (CATALOG_DIR / name).read_text(encoding="utf-8")
        assert text == command.render(doc), f"{name} is not in canonical form"
        names = [f["name"] for f in doc["flags"]]
        assert names == sorted(names)
        assert [e["name"] for e in doc["env"]] == sorted(e["name"] for e in doc["env"])
        keys = {frozenset(f) for f in doc["flags"]}
        assert len(keys) == 1, "every flag entry has the same keys"
        assert doc["allow_abbrev"] is True


def test_top_level_shape(sglang, router):
    assert sglang["package"] == "sglang" and sglang["version"] == "0.5.23"
    assert sglang["programs"] == ["sglang serve", "python3 -m sglang.launch_server"]
    assert sglang["wheel"].startswith("sglang-0.5.23-") and len(sglang["wheel_sha256"]) == 64
    assert router["package"] == "sglang-router" and router["version"] == "0.3.2"
    assert router["programs"] == ["python3 -m sglang_router.launch_router"]
    assert router["env"] == []


def test_counts_match_the_reference(sglang, router):
    # Reference: 531 registrations + --model-type, 560 option strings,
    # 770 env vars, 98 router flags.
    assert 525 <= len(sglang["flags"]) <= 540
    assert 550 <= command.option_strings(sglang) <= 570
    assert 760 <= len(sglang["env"]) <= 780
    assert 95 <= len(router["flags"]) <= 100
    for doc in (sglang, router):
        records.index_flags(doc["flags"])  # raises on a duplicated option string


def test_sglang_choices(sglang):
    f = by_option(sglang)
    assert f["--kv-cache-dtype"]["choices"] == [
        "auto",
        "fp8_e5m2",
        "fp8_e4m3",
        "mxfp8",
        "bf16",
        "bfloat16",
        "nvfp4",
        "fp4_mx_block16",
    ]
    assert "fp8" not in f["--kv-cache-dtype"]["choices"]
    assert f["--kv-cache-dtype"]["default"] == "auto"
    assert f["--moe-a2a-backend"]["choices"] == [
        "none",
        "deepep",
        "mooncake",
        "nixl",
        "mori",
        "ascend_fuseep",
        "flashinfer",
        "megamoe",
        "deepep_v2",
        "pplx",
        "ascend_tp",
        "flashinfer_megamoe",
    ]
    assert f["--moe-a2a-backend"]["default"] == "none"
    assert f["--mamba-radix-cache-strategy"]["choices"] == [
        "auto",
        "no_buffer",
        "extra_buffer",
        "extra_buffer_lazy",
    ]
    assert f["--mamba-ssm-dtype"]["choices"] == ["float32", "bfloat16", "float16"]
    assert f["--mm-feature-transport"]["choices"] == ["cpu", "cuda_ipc", "cuda_vmm"]
    assert f["--disaggregation-mode"]["choices"] == ["null", "prefill", "decode"]
    assert len(f["--attention-backend"]["choices"]) == 25
    assert len(f["--moe-runner-backend"]["choices"]) == 22
    assert (
        f["--reasoning-parser"]["choices"][0] == "auto"
        and len(f["--reasoning-parser"]["choices"]) == 37
    )
    assert (
        f["--tool-call-parser"]["choices"][0] == "auto"
        and len(f["--tool-call-parser"]["choices"]) == 45
    )
    assert f["--kv-canary-real-data"]["choices"] == ["none", "partial", "all"]


def test_sglang_names_types_defaults(sglang):
    f = by_option(sglang)
    assert f["--tp-size"]["aliases"] == ["--tensor-parallel-size"]
    assert f["--tensor-parallel-size"]["name"] == "--tp-size"
    assert {"--expert-parallel-size", "--ep"} <= set(f["--ep-size"]["aliases"])
    hicache = f["--enable-hierarchical-cache"]
    assert hicache["aliases"] == ["--enable-hicache"] and hicache["takes_value"] is False
    port = f["--disaggregation-bootstrap-port"]
    assert (port["type"], port["default"], port["takes_value"]) == ("int", 8998, True)
    assert f["--context-length"]["type"] == "human_readable_int"
    model = f["--model-path"]
    assert model["required"] is True and model["aliases"] == ["--model"]
    assert f["--port"]["default"] == 30000 and f["--host"]["default"] == "127.0.0.1"
    assert f["--dist-init-addr"]["aliases"] == ["--nccl-init-addr"]
    neg = f["--no-dcp-replicate-q-proj"]
    assert neg["name"] == "--dcp-replicate-q-proj" and neg["negations"] == [
        "--no-dcp-replicate-q-proj"
    ]
    assert f["--cuda-graph-bs-decode"]["nargs"] == "+"


def test_sglang_deprecations_and_late_choices(sglang):
    f = by_option(sglang)
    dp = f["--enable-dp-attention"]
    assert dp["deprecated"] and "--attn-dp-size" in dp["deprecated"]
    assert dp["takes_value"] is False
    assert "--attn-dp-size" in f and f["--attn-dp-size"]["deprecated"] is None
    spec = f["--speculative-algorithm"]
    assert spec["choices"] is None and spec["late_choices_case_insensitive"] is True
    assert set(spec["late_choices"]) == {
        "EAGLE",
        "EAGLE3",
        "NEXTN",
        "STANDALONE",
        "NGRAM",
        "DFLASH",
        "DSPARK",
        "UNO",
        "FROZEN_KV_MTP",
    }
    assert "SpeculativeAlgorithm" in spec["choices_source"]
    model_type = f["--model-type"]
    assert model_type["programs"] == ["sglang serve"]
    assert model_type["choices"] == ["auto", "llm", "diffusion"]


@pytest.mark.parametrize(
    "flag",
    [
        "--speculative-dspark-block-size",
        "--speculative-dflash-block-size",
        "--enable-linear-replayssm-spec",
        "--weight-loader-prefetch-checkpoints",
        "--enable-w4a4-mxfp4-megamoe",
        "--cuda-graph-backend-prefill",
        "--linear-attn-verify-backend",
        "--enable-shared-experts-attn-tp",
        "--enable-dense-mlp-attn-tp",
        "--shared-experts-tp-size",
        "--cuda-graph-max-bs-decode",
        "--cuda-graph-bs-decode",
        "--disaggregation-decode-enable-radix-cache",
        "--disaggregation-decode-extra-slots",
        "--deepep-mode",
        "--mm-feature-transport",
        "--max-mamba-cache-size",
        "--model-loader-extra-config",
        "--disable-flashinfer-autotune",
        "--watchdog-timeout",
        "--dist-timeout",
        "--tokenizer-path",
        "--device",
        "--quantization",
        "--speculative-draft-model-quantization",
        "--speculative-eagle-topk",
        "--attn-dp-size",
    ],
)
def test_flags_present_in_0_5_23(sglang, flag):
    assert flag in by_option(sglang)


def test_sglang_env_registry(sglang):
    env = env_by_name(sglang)
    assert env["SGLANG_USE_AITER"] == {
        "name": "SGLANG_USE_AITER",
        "type": "Bool",
        "default": False,
        "default_expr": None,
        "deprecated_alias": None,
    }
    assert (
        env["SGLANG_MM_FEATURE_CACHE_MB"]["type"],
        env["SGLANG_MM_FEATURE_CACHE_MB"]["default"],
    ) == ("Int", 1024)
    assert (env["SGLANG_SIMULATE_ACC_LEN"]["type"], env["SGLANG_SIMULATE_ACC_LEN"]["default"]) == (
        "Float",
        -1,
    )
    assert env["SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"]["default"] == 8192
    assert env["SGLANG_VIT_ENABLE_CUDA_GRAPH"]["default"] is False
    assert env["SGLANG_CACHE_DIR"]["default_expr"]  # computed from $HOME at run time
    # Read straight from os.environ in 0.5.23, not registered in Envs:
    for absent in ("SGLANG_HOST_IP", "SGLANG_AITER_K3_OPT", "SGLANG_K3_ATTN_RES_MODE"):
        assert absent not in env
    assert {e["type"] for e in sglang["env"]} <= {"Bool", "Int", "Float", "Str", "JSON", "Tuple"}


def test_router_flags(router):
    f = by_option(router)
    prefill, decode = f["--prefill"], f["--decode"]
    assert (prefill["nargs"], prefill["action"]) == ("+", "append")
    assert "URL [PORT|none]" in prefill["notes"]
    assert (decode["nargs"], decode["action"]) == (1, "append")
    assert f["--pd-disaggregation"]["takes_value"] is False
    assert (f["--host"]["default"], f["--port"]["default"]) == ("0.0.0.0", 30000)
    assert f["--policy"]["choices"] == [
        "random",
        "round_robin",
        "cache_aware",
        "power_of_two",
        "manual",
    ]
    assert f["--policy"]["default"] == "cache_aware"
    assert "bucket" in f["--prefill-policy"]["choices"]
    assert f["--worker-urls"]["nargs"] == "*"
    assert f["--health-check-interval-secs"]["default"] == 60
    tcp = f["--tool-call-parser"]
    assert tcp["choices"] == router_reader.ROUTER_TOOL_CALL_PARSERS["0.3.2"]
    assert tcp["choices_source"] == "reference (Rust, not visible statically)"
    assert "kimi_k2" not in tcp["choices"]
    assert f["--reasoning-parser"]["choices"] is None


# ---------------------------------------------------------------------------
# (b) Extraction on synthetic sources
# ---------------------------------------------------------------------------

FAKE_SGLANG = {
    "sglang/__init__.py": "import torch  # never executed: we only parse\n",
    "sglang/srt/arg_groups/arg_utils.py": textwrap.dedent("""
        class Arg(msgspec.Struct):
            help: str = ""
            choices: list | None = None
            aliases: list | None = None
            cli_name: str | None = None
            type_parser: object = None
            nargs: str | None = None
            required: bool | None = None
            action: object = None
            action_kwargs: dict | None = None
            const: object = None
            no_cli: bool = False
    """),
    "sglang/srt/arg_groups/choices.py": textwrap.dedent("""
        BASE = ["a", "b"]
        BACKENDS = BASE + ["c"]
        SAMPLING = set(frozenset({"y", "x"}))
    """),
    "sglang/srt/arg_groups/argparse_actions.py": textwrap.dedent("""
        import argparse
        class DeprecatedStoreTrueAction(argparse.Action):
            def __init__(self, option_strings, dest, new_flag=None, nargs=0, default=False, **kw):
                pass
    """),
    "sglang/srt/arg_groups/fields/ns.py": textwrap.dedent("""
        from __future__ import annotations
        import argparse, json
        from typing import List, Literal, Optional
        from sglang.srt.arg_groups.arg_utils import A, Arg
        from sglang.srt.arg_groups.choices import BACKENDS
        from sglang.srt.utils.common import human_readable_int
        from .modes import Mode

        class Ns(msgspec.Struct):
            _NS_PATH = "ns"
            model_path: A[str, Arg(help="Path of the weights. More text.", aliases=["--model"])]
            tp_size: A[int, Arg(help="TP size.", aliases=["--tensor-parallel-size"])] = 1
            backend: A[Optional[str], Arg(help="Backend.", choices=BACKENDS)] = None
            dtype: A[Literal["auto", "bf16"], "Dtype."] = "auto"
            levels: A[Literal[1, 2], "Level."] = 1
            sizes: A[Optional[List[int]], "Sizes."] = None
            flag: A[bool, "A switch."] = False
            tri: A[Optional[bool], Arg(help="Tri.", action=argparse.BooleanOptionalAction)] = None
            hidden: A[bool, Arg(no_cli=True)] = False
            renamed: A[int, Arg(help="Renamed.", cli_name="--new-name")] = 2 ** 4
            ctx: A[Optional[int], Arg(help="Ctx.", type_parser=human_readable_int)] = None
            cfg: A[Optional[dict], Arg(help="Cfg.", type_parser=json.loads)] = None
            mode: A[str, Arg(help="Mode.", choices=[m.name.lower() for m in Mode])] = "off"
            plain: int = 3
            legacy: A[bool, "Deprecated. Use --flag instead."] = False
    """),
    "sglang/srt/arg_groups/fields/modes.py": textwrap.dedent("""
        from enum import IntEnum, auto
        class Mode(IntEnum):
            OFF = auto()
            ON = auto()
    """),
    "sglang/srt/parser/names.py": 'NAMES = ["p1", "p2"]\n',
    "sglang/srt/server_args.py": textwrap.dedent("""
        import argparse
        from sglang.srt.arg_groups.fields.ns import Ns
        from sglang.srt.arg_groups.choices import SAMPLING
        from sglang.srt.arg_groups.argparse_actions import DeprecatedStoreTrueAction
        from sglang.srt.environ import envs

        def _declared_default(name):
            return next(f.default for f in msgspec.structs.fields(ServerArgs) if f.name == name)

        def _parser_choices():
            module = sys.modules.get("x")
            if module is not None:
                return list(module.Thing)
            from sglang.srt.parser.names import NAMES
            return list(NAMES)

        class ServerArgs:
            @staticmethod
            def add_cli_args(parser):
                add_cli_args_from_dataclass(parser, ServerArgs)
                sampling = set(SAMPLING)
                if envs.SOMETHING.get():
                    sampling.add("z")
                parser.add_argument("--sampling", type=str, choices=sampling,
                                    default=_declared_default("backend"), help="Sampling.")
                names = _parser_choices()
                parser.add_argument("--parser", choices=["auto"] + names, help=f"Options: {names}.")
                parser.add_argument("--old", action=DeprecatedStoreTrueAction,
                                    new_flag="--new-name 3", help="Deprecated. Use --new-name.")

        _INPUT_NAMESPACES = [Ns]
        ServerArgs = msgspec.defstruct("ServerArgs", [])

        def prepare_server_args(argv):
            parser = argparse.ArgumentParser(prog="sglang serve")
            ServerArgs.add_cli_args(parser)
    """),
    "sglang/srt/environ.py": textwrap.dedent("""
        import os
        from enum import IntEnum
        class Level(IntEnum):
            OFF = 0
            HIGH = 2
        def _probe():
            return False
        class Envs:
            SGLANG_A = EnvBool(False)
            SGLANG_B = EnvInt(1 * 1024)
            SGLANG_C = EnvFloat(-1)
            SGLANG_D = EnvStr(os.path.expanduser("~/x"))
            SGLANG_E = EnvTuple(tuple())
            SGLANG_F = EnvInt(Level.HIGH)
            SGLANG_G = EnvBool(_probe)
            SGLANG_H = EnvBoolWithAlias(True, deprecated_name="SGLANG_OLD_H")
            def helper(self):
                return 1
        envs = Envs()
    """),
    "sglang/cli/serve_backends.py": 'RESERVED_SERVE_BACKEND_NAMES = frozenset({"auto"})\n',
    "sglang/cli/serve.py": textwrap.dedent("""
        def _create_backend_registry():
            return ServeBackendRegistry({"llm": 1, "diffusion": 2})
    """),
    "sglang/srt/speculative/spec_registry.py": '_RESERVED_ALIASES = frozenset({"NEXTN"})\n',
    "sglang/bench_serving.py": textwrap.dedent("""
        from argparse import ArgumentParser
        if __name__ == "__main__":
            parser = ArgumentParser(description="Benchmark.")
            parser.add_argument("--num-prompts", type=int, default=1000)
            args = parser.parse_args()
    """),
    "sglang/srt/speculative/spec_info.py": textwrap.dedent("""
        from enum import Enum, auto
        class SpeculativeAlgorithm(Enum):
            EAGLE = auto()
            NGRAM = auto()
            NONE = auto()
    """),
}


@pytest.fixture(scope="module")
def fake() -> dict:
    result = sglang_reader.extract_sglang(wheels.SourceTree(files=FAKE_SGLANG))
    result["by"] = {o: f for f in result["flags"] for o in [f["name"], *f["aliases"]]}
    return result


def test_fake_field_rules(fake):
    f = fake["by"]
    assert f["--model"]["name"] == "--model-path" and f["--model-path"]["required"] is True
    assert f["--model-path"]["help"] == "Path of the weights."
    assert (
        f["--tp-size"]["aliases"] == ["--tensor-parallel-size"] and f["--tp-size"]["default"] == 1
    )
    assert f["--backend"]["choices"] == ["a", "b", "c"] and f["--backend"]["default"] is None
    assert (f["--dtype"]["choices"], f["--dtype"]["type"], f["--dtype"]["nargs"]) == (
        ["auto", "bf16"],
        "str",
        None,
    )
    assert f["--levels"]["type"] == "int"
    assert (f["--sizes"]["nargs"], f["--sizes"]["type"]) == ("+", "int")
    assert (f["--flag"]["takes_value"], f["--flag"]["action"], f["--flag"]["nargs"]) == (
        False,
        "store_true",
        0,
    )
    assert f["--no-tri"]["name"] == "--tri" and f["--tri"]["negations"] == ["--no-tri"]
    assert "--hidden" not in f and "--plain" not in f
    assert f["--new-name"]["default"] == 16 and "--renamed" not in f
    assert f["--ctx"]["type"] == "human_readable_int"
    assert f["--cfg"]["type"] == "json"
    assert f["--mode"]["choices"] == ["off", "on"]
    assert f["--legacy"]["deprecated"] == "deprecated: use --flag instead"


def test_fake_manual_registrations(fake):
    f = fake["by"]
    # set() choices are sorted; the env-gated .add("z") is not applied.
    assert f["--sampling"]["choices"] == ["x", "y"]
    assert f["--sampling"]["default"] is None  # _declared_default("backend")
    assert f["--parser"]["choices"] == ["auto", "p1", "p2"]
    old = f["--old"]
    assert (
        old["takes_value"] is False and old["deprecated"] == "deprecated: use --new-name 3 instead"
    )
    assert fake["allow_abbrev"] is True


def test_fake_model_type_and_late_choices(fake):
    f = fake["by"]
    assert f["--model-type"]["choices"] == ["auto", "llm", "diffusion"]
    assert f["--model-type"]["programs"] == ["sglang serve"]
    # No --speculative-algorithm field in the fake, so nothing is attached.
    assert "--speculative-algorithm" not in f
    ev = evaluator.Evaluator(wheels.SourceTree(files=FAKE_SGLANG))
    names, source = sglang_reader.late_speculative_choices(ev)
    assert names == ["EAGLE", "NEXTN", "NGRAM"] and "spec_info.py" in source


def test_fake_env_registry(fake):
    env = {e["name"]: e for e in fake["env"]}
    assert [e["name"] for e in fake["env"]] == sorted(env)
    assert (env["SGLANG_A"]["type"], env["SGLANG_A"]["default"]) == ("Bool", False)
    assert env["SGLANG_B"]["default"] == 1024
    assert (env["SGLANG_C"]["type"], env["SGLANG_C"]["default"]) == ("Float", -1)
    assert env["SGLANG_D"]["default"] is None and "expanduser" in env["SGLANG_D"]["default_expr"]
    assert (env["SGLANG_E"]["type"], env["SGLANG_E"]["default"]) == ("Tuple", [])
    assert env["SGLANG_F"]["default"] == 2
    assert env["SGLANG_G"]["default_expr"] == "_probe"
    assert (env["SGLANG_H"]["type"], env["SGLANG_H"]["deprecated_alias"]) == (
        "Bool",
        "SGLANG_OLD_H",
    )


FAKE_ROUTER = {
    "sglang_router/router_args.py": textwrap.dedent("""
        import argparse, dataclasses, os
        from sglang_router.sglang_router_rs import get_available_tool_call_parsers

        @dataclasses.dataclass
        class RouterArgs:
            host: str = "0.0.0.0"
            max_tree_size: int = 2**26
            urls: list = dataclasses.field(default_factory=list)

            @staticmethod
            def add_cli_args(parser, use_router_prefix=False, exclude_host_port=False):
                prefix = "router-" if use_router_prefix else ""
                group = parser.add_argument_group("g")
                if not exclude_host_port:
                    group.add_argument("--host", type=str, default=RouterArgs.host)
                group.add_argument(f"--{prefix}max-tree-size", type=int,
                                   default=RouterArgs.max_tree_size)
                group.add_argument(f"--{prefix}prefill", nargs="+", action="append")
                group.add_argument(f"--{prefix}decode", nargs=1, action="append")
                group.add_argument(f"--{prefix}pool", type=int, default=int(os.getenv("POOL", 4)))
                parsers = get_available_tool_call_parsers()
                group.add_argument(f"--{prefix}tool-call-parser", choices=parsers)
    """),
    "sglang_router/launch_router.py": textwrap.dedent("""
        def parse_router_args(args):
            parser = argparse.ArgumentParser(description="x", allow_abbrev=False)
            RouterArgs.add_cli_args(parser, use_router_prefix=False)
    """),
}


def test_fake_router():
    result = router_reader.extract_router(wheels.SourceTree(files=FAKE_ROUTER))
    f = {x["name"]: x for x in result["flags"]}
    assert set(f) == {
        "--host",
        "--max-tree-size",
        "--prefill",
        "--decode",
        "--pool",
        "--tool-call-parser",
    }
    assert f["--host"]["default"] == "0.0.0.0" and f["--max-tree-size"]["default"] == 2**26
    assert (f["--prefill"]["nargs"], f["--prefill"]["action"]) == ("+", "append")
    assert (f["--decode"]["nargs"], f["--decode"]["action"]) == (1, "append")
    assert (f["--pool"]["default"], f["--pool"]["default_env"]) == (4, "POOL")
    assert f["--tool-call-parser"]["choices_source"] == router_reader.ROUTER_TOOL_CALL_PARSERS_SOURCE
    assert result["allow_abbrev"] is False


def test_unresolvable_choices_are_an_error():
    files = dict(FAKE_ROUTER)
    files["sglang_router/router_args.py"] = files["sglang_router/router_args.py"].replace(
        "tool-call-parser", "other-parser"
    )
    with pytest.raises(wheels.CatalogError, match="unresolved choices for --other-parser"):
        router_reader.extract_router(wheels.SourceTree(files=files))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Short. Second sentence.", "Short. Second sentence."),
        ("The host address (e.g., `1.2.3.4:5`). More.", "The host address (e.g., `1.2.3.4:5`)."),
        ("A longer first sentence here. Second.", "A longer first sentence here."),
        ("Deprecated. Use --x instead. Old text.", "Deprecated. Use --x instead."),
        ("", ""),
    ],
)
def test_first_sentence(text, expected):
    assert records.first_sentence(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Deprecated. Use --image-processor-backend=pil instead.",
            "deprecated: use --image-processor-backend=pil instead",
        ),
        ("(Deprecated, use --smg-grpc-mode) Legacy.", "deprecated: use --smg-grpc-mode instead"),
        ("(Deprecated: use --x=auto) Enable.", "deprecated: use --x=auto instead"),
        ("Deprecated.", "deprecated"),
        ("Replaces the deprecated --grpc-mode.", None),
    ],
)
def test_deprecation_from_help(text, expected):
    assert records.deprecation_from_help(text) == expected


def test_summarize_diff_names_changes():
    old = {
        "wheel": "w",
        "flags": [{"name": "--a", "default": 1}, {"name": "--b"}],
        "env": [{"name": "X"}],
    }
    new = {"wheel": "w", "flags": [{"name": "--a", "default": 2}, {"name": "--c"}], "env": []}
    lines = command.summarize_diff(old, new, "cat.json")
    assert "~ --a.default: 1 -> 2" in lines
    assert "- flag --b" in lines and "+ flag --c" in lines and "- env X" in lines


def test_pip_failure_classification():
    offline = (
        'WARNING: Retrying ... NewConnectionError("...: Failed to establish a new connection: '
        '[Errno -3] Temporary failure in name resolution")'
    )
    assert wheels.pip_failure(offline)[0] is True
    missing = "ERROR: Could not find a version\nERROR: No matching distribution found for x==9"
    assert wheels.pip_failure(missing) == (False, "ERROR: No matching distribution found for x==9")


@pytest.mark.parametrize("extra, code", [([], 2), (["--allow-offline"], 0)])
def test_check_offline(monkeypatch, capsys, tmp_path, extra, code):
    def no_network(package, version, wheel_dir, log):
        raise wheels.DownloadError(f"{package}=={version}: Network is unreachable")

    monkeypatch.setattr(command, "download_wheel", no_network)
    assert command.main(["--check", "--wheel-dir", str(tmp_path), *extra]) == code
    out = capsys.readouterr().out
    assert out.startswith("catalog check skipped: cannot download wheels (")


def test_error_is_one_line_not_traceback(monkeypatch, capsys, tmp_path):
    def broken(package, version, wheel_dir, log):
        raise wheels.CatalogError("pip download sglang==0.5.23 failed: ERROR: nope")

    monkeypatch.setattr(command, "download_wheel", broken)
    assert command.main(["--check", "--wheel-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "catalog: error: pip download" in err


def test_a_module_two_wheels_ship_alike_is_parsed_once_within_a_run():
    """Within ``wheels.parsing()`` (a run of ``recipes catalog``) a file two wheels ship with the
    same text is one tree, the readers' results unchanged; a file whose text differs is parsed
    anew; after the run the trees are let go and the cycle collector runs again."""
    import gc

    changed = {**FAKE_SGLANG, "sglang/srt/server_args.py":
               FAKE_SGLANG["sglang/srt/server_args.py"] + "\n# a later release\n"}
    alone = sglang_reader.extract_sglang(wheels.SourceTree(files=FAKE_SGLANG))
    with wheels.parsing():
        assert not gc.isenabled()
        first, again, later = (wheels.SourceTree(files=f) for f in (FAKE_SGLANG, FAKE_SGLANG,
                                                                    changed))
        assert sglang_reader.extract_sglang(first) == alone
        assert sglang_reader.extract_sglang(again) == alone  # read from the shared trees
        path = "sglang/srt/server_args.py"
        assert again.tree(path) is first.tree(path)
        assert later.tree(path) is not first.tree(path)
    assert gc.isenabled() and wheels._SHARED is None
    # outside a run each tree is its wheel's own: a process that reads one wheel keeps none
    assert wheels.SourceTree(files=FAKE_SGLANG).tree(path) is not first.tree(path)
    assert wheels.SourceTree(files=FAKE_SGLANG).tree(path) is not \
        wheels.SourceTree(files=FAKE_SGLANG).tree(path)
