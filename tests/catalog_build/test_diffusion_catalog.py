"""The diffusion CLI in the catalog: ``sglang serve`` for a diffusion model and ``sglang
generate``, their history over every release, and how ``sglang serve`` picks its CLI.

Offline: the committed files read back (slices of the history, facts of the pinned release
checked against the wheel's code as read by hand) and the reader on small synthetic sources
(each registration pattern the wheels use). The ``network`` test of test_catalog_history.py
regenerates these files from the wheels with ``recipes catalog --check``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from macros.catalog_build import command, diffusion, diffusion_history
from macros.catalog_build.wheels import CatalogError, SourceTree
from macros.engine.catalog import Catalog
from macros.engine.history import History

CATALOG_DIR = Path(__file__).resolve().parents[2] / "recipes" / "catalog"


@pytest.fixture(scope="module")
def hist() -> dict:
    return json.loads((CATALOG_DIR / diffusion_history.HISTORY_FILE).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def serve() -> dict:
    return json.loads((CATALOG_DIR / "sglang-diffusion.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def generate() -> dict:
    return json.loads((CATALOG_DIR / "sglang-generate.json").read_text(encoding="utf-8"))


def by_option(doc: dict) -> dict[str, dict]:
    return {opt: f for f in doc["flags"] for opt in [f["name"], *f["aliases"]]}


# ---------------------------------------------------------------------------
# The committed files
# ---------------------------------------------------------------------------


def test_history_covers_every_release_the_llm_history_covers(hist):
    reader = History(hist, diffusion_history.PACKAGE)
    assert list(reader.order) == command.RELEASES["sglang"]
    assert hist["packages"]["sglang-diffusion"]["programs"] == ["sglang serve", "sglang generate"]
    llm = json.loads((CATALOG_DIR / command.HISTORY_FILE).read_text(encoding="utf-8"))
    for ours, theirs in zip(hist["packages"]["sglang-diffusion"]["releases"],
                            llm["packages"]["sglang"]["releases"]):
        assert (ours["wheel"], ours["wheel_sha256"]) == (theirs["wheel"], theirs["wheel_sha256"])


def test_history_file_is_in_canonical_form(hist):
    from macros.catalog_build.history import render_history
    text = (CATALOG_DIR / diffusion_history.HISTORY_FILE).read_text(encoding="utf-8")
    assert render_history(hist) == text


@pytest.mark.parametrize("program", diffusion_history.PROGRAMS)
def test_pinned_files_are_the_history_slice_of_the_pinned_release(hist, program):
    filename = diffusion_history.CATALOGS[program][0]
    text = (CATALOG_DIR / filename).read_text(encoding="utf-8")
    doc = diffusion_history.catalog_document(hist, program, command.PINNED["sglang"])
    assert command.render(doc) == text
    assert doc["programs"] == [program] and doc["version"] == "0.5.23"


@pytest.mark.parametrize("filename", ["sglang-diffusion.json", "sglang-generate.json"])
def test_the_engine_reads_the_pinned_files_as_catalogs(filename, hist):
    catalog = Catalog.load(CATALOG_DIR / filename, "sglang-diffusion", hist)
    assert "SGLANG_USE_AITER" in catalog.env  # read directly by the diffusion platform code
    assert catalog.package == "sglang-diffusion" and catalog.allow_abbrev is True
    assert catalog.lookup("--num-gpus").kind == "exact"
    assert catalog.lookup("--num-gpu").kind == "abbreviated"  # argparse's default abbrev


def test_serve_flags_of_0_5_23(serve):
    f = by_option(serve)
    # facts read by hand in sglang/multimodal_gen/runtime/server_args/server_args.py
    assert f["--performance-mode"]["choices"] == ["manual", "auto", "speed", "memory"]
    assert f["--performance-mode"]["aliases"] == ["--mode"]
    assert f["--encoder-parallel"]["choices"] == ["auto", "fold", "dp", "replicate"]
    assert f["--num-gpus"]["type"] == "int" and f["--num-gpus"]["default"] == 1
    assert f["--layerwise-offload-components"]["nargs"] == "+"
    assert f["--vae-config.parallel-decode-mode"]["choices"] == [
        "tiled", "patch", "spatial_shard", "spatial", "auto"]
    assert "--model-variant" in f and "--minimax-h3-adaln-online" in f
    # the LLM server's flags are not the diffusion server's
    assert "--mem-fraction-static" not in f and "--model-type" not in f
    # generation-only flags are not served
    assert "--prompt" not in f and "--save-output" not in f


def test_store_boolean_flags_take_an_optional_true_or_false(serve):
    flag = by_option(serve)["--use-fsdp-inference"]
    assert flag["action"] == "custom:StoreBoolean"
    assert flag["nargs"] == "?" and flag["takes_value"] is True
    assert flag["late_choices"] == ["true", "false"]
    assert flag["late_choices_case_insensitive"] is True


def test_generate_has_the_server_flags_and_the_sampling_flags(serve, generate):
    g = by_option(generate)
    for name in ("--prompt", "--save-output", "--num-outputs-per-prompt", "--perf-dump-path"):
        assert name in g, name
    assert {f["name"] for f in serve["flags"]} - {f["name"] for f in generate["flags"]} == set()


def test_families_are_the_words_from_cli_args_takes(serve):
    families = {f["name"]: f for f in serve["families"]}
    paths = families["_extract_component_paths"]
    assert paths["prefixes"] == ["--component-paths.", "--component_paths."]
    assert paths["suffix"] == "-path" and paths["values"] == "one"
    assert families["_extract_component_weights_paths"]["suffix"] == "-weights-path"
    assert families["_extract_component_quantization_ignored_layers"]["values"] == "one-or-more"
    assert families["_extract_component_direct_gpu_weight_loading"]["values"] == "optional-bool"
    order = [f["name"] for f in sorted(serve["families"], key=lambda f: f["order"])]
    assert order.index("_extract_component_weights_paths") < order.index(
        "_extract_component_paths")  # a weights path is not read as a path


def test_dispatch_says_how_sglang_serve_picks_its_cli(serve, hist):
    d = serve["dispatch"]
    assert d["model_type_choices"] == ["auto", "llm", "diffusion"]
    assert d["model_type_default"] == "auto" and d["fallback"] == "llm"
    assert d["detectors"] == ["overlay", "registry", "index-file", "hub-index-file",
                              "hub-library-name", "pipeline-class-name"]
    assert d["index_files"] == ["model_index.json", "modular_model_index.json"]
    assert d["index_marker"] == "_diffusers_version"
    names = {r["name"]: r for r in serve["registry"]}
    assert names["pattern:minimaxai/minimax-h3"]["pipeline"] == "MiniMaxH3Pipeline"
    assert "path:Qwen/Qwen-Image" in names
    # 0.5.12 had no modular index, no gated-repo fallback and no --pipeline-class-name signal
    first = History(hist, diffusion_history.PACKAGE).meta("0.5.12")["dispatch"]
    assert first["index_files"] == ["model_index.json"]
    assert "pipeline-class-name" not in first["detectors"]


def test_history_records_flags_added_between_releases(hist):
    reader = History(hist, diffusion_history.PACKAGE)
    old = reader.section("flags", "0.5.12")
    new = reader.section("flags", "0.5.23")
    assert "--model-variant" in new and "--model-variant" not in old
    assert len(old) < len(new)


# ---------------------------------------------------------------------------
# The reader on synthetic sources
# ---------------------------------------------------------------------------

PKG = "sglang/multimodal_gen"
BASE = {
    "sglang/__init__.py": "",
    "sglang/cli/__init__.py": "",
    "sglang/cli/serve_backends.py": 'RESERVED_SERVE_BACKEND_NAMES = frozenset({"auto"})\n',
    "sglang/cli/serve.py": textwrap.dedent('''
        import argparse
        def _create_backend_registry():
            return ServeBackendRegistry({"llm": 1, "diffusion": 2})
        def _run_diffusion(request):
            parser = argparse.ArgumentParser(description="x")
            parsed, rest = parser.parse_known_args(list(request.argv))
        '''),
    "sglang/cli/generate.py": textwrap.dedent('''
        import argparse
        def generate(args, extra_argv):
            parser = argparse.ArgumentParser(description="x", allow_abbrev=False)
            parsed, rest = parser.parse_known_args(extra_argv)
            raise Exception("Generate subcommand is not yet supported for model")
        '''),
    "sglang/cli/utils.py": textwrap.dedent('''
        import os
        def _is_diffusers_model_dir(d):
            for filename in ("model_index.json",):
                return "_diffusers_version" in open(os.path.join(d, filename)).read()
        def get_is_diffusion_model(model_path):
            if _is_diffusion_model_from_registry(model_path):
                return True
            if os.path.isdir(model_path):
                return _is_diffusers_model_dir(model_path)
            from huggingface_hub import hf_hub_download
            return _is_diffusers_model_dir(hf_hub_download(model_path, "model_index.json"))
        '''),
    f"{PKG}/__init__.py": "",
    f"{PKG}/registry.py": textwrap.dedent('''
        _EXTRA = {"b-pattern": "BPipeline"}
        KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS = {"org/a": "APipeline", **_EXTRA}
        '''),
    f"{PKG}/configs/__init__.py": "",
    f"{PKG}/configs/pipeline_configs/__init__.py": "",
    f"{PKG}/configs/pipeline_configs/one.py": textwrap.dedent('''
        register_configs(sampling_param_cls=1, pipeline_config_cls=2,
                         hf_model_paths=["Org/Model-One", "Org/Model-Two"])
        '''),
    f"{PKG}/runtime/__init__.py": "",
    f"{PKG}/runtime/utils.py": textwrap.dedent('''
        import argparse
        class StoreBoolean(argparse.Action):
            def __init__(self, option_strings, dest, default=False, help=None):
                super().__init__(option_strings=option_strings, dest=dest, nargs="?",
                                 const=True, default=default, help=help)
            def __call__(self, parser, namespace, values, option_string=None):
                if values.lower() == "true":
                    pass
                elif values.lower() == "false":
                    pass
        '''),
    f"{PKG}/runtime/vae.py": textwrap.dedent('''
        class VAEConfig:
            @staticmethod
            def add_cli_args(parser, prefix: str = "vae-config"):
                parser.add_argument(f"--{prefix}.tile-size", type=int, dest=f"{prefix}.t")
                return parser
        '''),
    f"{PKG}/runtime/mixin.py": textwrap.dedent('''
        from enum import Enum
        class Role(str, Enum):
            A = "a"
            B = "b"
            @classmethod
            def choices(cls):
                return [r.value for r in cls]
        class Mixin:
            role = Role.A
            @classmethod
            def add_mixin_args(cls, parser):
                default = cls.role.value if isinstance(cls.role, Role) else cls.role
                parser.add_argument("--role", default=default, choices=Role.choices())
        '''),
    f"{PKG}/runtime/server_args.py": textwrap.dedent('''
        import argparse
        from sglang.multimodal_gen.runtime.utils import StoreBoolean
        from sglang.multimodal_gen.runtime.mixin import Mixin
        class ServerArgs(Mixin):
            port = 30000
            @staticmethod
            def add_cli_args(parser):
                parser.add_argument("--port", type=int, default=ServerArgs.port)
                parser.add_argument("--use-fsdp-inference", action=StoreBoolean)
                ServerArgs.add_mixin_args(parser)
                from sglang.multimodal_gen.runtime.vae import VAEConfig
                prefix = ""
                dot = f"{prefix}." if prefix.strip() != "" else ""
                VAEConfig.add_cli_args(parser, prefix=f"{dot}vae-config")
                return parser
            @classmethod
            def _extract_map(cls, unknown_args, *, option_prefixes, alias_suffix):
                return {}, unknown_args
            @classmethod
            def _extract_component_paths(cls, unknown_args):
                return cls._extract_map(unknown_args, option_prefixes=("--component-paths.",),
                                        alias_suffix="-path")
            @staticmethod
            def _extract_component_flags(unknown_args):
                prefixes = ("--component-flags.",)
                next_value = ""
                if next_value in ("true", "false"):
                    pass
                return {}, unknown_args
            @classmethod
            def from_cli_args(cls, args, unknown_args=None):
                flags, remaining = cls._extract_component_flags(unknown_args)
                paths, remaining = cls._extract_component_paths(remaining)
                if remaining:
                    raise SystemExit(f"error: unrecognized arguments: {remaining}")
        '''),
    f"{PKG}/runtime/sampling.py": textwrap.dedent('''
        import argparse
        class Extra:
            @staticmethod
            def add_cli_args(parser, add_argument=None):
                if add_argument is None:
                    def _add(*names, **kwargs):
                        return parser.add_argument(*names, **kwargs)
                    add_argument = _add
                add_argument("--rollout", action="store_true")
        class SamplingParams:
            @staticmethod
            def add_cli_args(parser):
                def add_argument(*name_or_flags, **kwargs):
                    kwargs.setdefault("default", argparse.SUPPRESS)
                    return parser.add_argument(*name_or_flags, **kwargs)
                add_argument("--prompt", type=str)
                Extra.add_cli_args(parser, add_argument)
                return parser
        '''),
    f"{PKG}/runtime/entrypoints/__init__.py": "",
    f"{PKG}/runtime/entrypoints/cli/__init__.py": "",
    f"{PKG}/runtime/entrypoints/cli/serve.py": textwrap.dedent('''
        from sglang.multimodal_gen.runtime.server_args import ServerArgs
        def add_multimodal_gen_serve_args(parser):
            parser.add_argument("--config", type=str, default="")
            return ServerArgs.add_cli_args(parser)
        '''),
    f"{PKG}/runtime/entrypoints/cli/generate.py": textwrap.dedent('''
        from sglang.multimodal_gen.runtime.server_args import ServerArgs
        from sglang.multimodal_gen.runtime.sampling import SamplingParams
        def hook(parser):
            classes = lookup()
            if classes:
                classes[0].add_pipeline_cli_args(parser)
        def add_multimodal_gen_generate_args(parser):
            parser = ServerArgs.add_cli_args(parser)
            parser = SamplingParams.add_cli_args(parser)
            hook(parser)
            return parser
        '''),
}


def names(flags: list[dict]) -> list[str]:
    return [f["name"] for f in flags]


def test_reader_follows_helpers_prefixes_wrappers_and_inherited_classmethods():
    result = diffusion.extract_diffusion(SourceTree(files=BASE))
    assert names(result["serve"]) == ["--config", "--port", "--use-fsdp-inference", "--role",
                                      "--vae-config.tile-size"]
    role = next(f for f in result["serve"] if f["name"] == "--role")
    assert role["default"] == "a" and role["choices"] == ["a", "b"]
    fsdp = next(f for f in result["serve"] if f["name"] == "--use-fsdp-inference")
    assert fsdp["nargs"] == "?" and fsdp["late_choices"] == ["true", "false"]
    assert names(result["generate"]) == ["--port", "--use-fsdp-inference", "--role",
                                         "--vae-config.tile-size", "--prompt", "--rollout"]
    prompt = next(f for f in result["generate"] if f["name"] == "--prompt")
    assert prompt["default"] == "==SUPPRESS=="  # the wrapper's setdefault
    assert result["hooks"] == ["sglang.multimodal_gen.runtime.entrypoints.cli.generate.hook"]


def test_reader_reads_families_in_the_order_from_cli_args_tries_them():
    result = diffusion.extract_diffusion(SourceTree(files=BASE))
    assert result["families"] == [
        {"method": "_extract_component_flags", "prefixes": ["--component-flags."],
         "suffix": None, "values": "optional-bool"},
        {"method": "_extract_component_paths", "prefixes": ["--component-paths."],
         "suffix": "-path", "values": "one"},
    ]


def test_reader_reads_the_dispatch_and_the_registry():
    d = diffusion.extract_diffusion(SourceTree(files=BASE))["dispatch"]
    assert d["model_type_choices"] == ["auto", "llm", "diffusion"]
    assert d["detectors"] == ["registry", "index-file", "hub-index-file"]
    assert d["index_files"] == ["model_index.json"] and d["index_marker"] == "_diffusers_version"
    assert d["registry_paths"] == ["Org/Model-One", "Org/Model-Two"]
    assert d["registry_patterns"] == {"b-pattern": "BPipeline", "org/a": "APipeline"}


def test_reader_reads_allow_abbrev_of_the_parser_that_parses():
    src = SourceTree(files=BASE)
    meta, _ = diffusion_history.snapshot(src)
    assert (meta["allow_abbrev"], meta["generate_allow_abbrev"]) == (True, False)


def test_a_registration_it_cannot_follow_is_an_error_naming_the_place():
    files = dict(BASE)
    files[f"{PKG}/runtime/entrypoints/cli/serve.py"] = textwrap.dedent('''
        import os
        def add_multimodal_gen_serve_args(parser):
            if os.environ.get("X"):
                parser.add_argument("--hidden")
        ''')
    with pytest.raises(CatalogError, match="unresolvable condition: if os.environ.get"):
        diffusion.extract_diffusion(SourceTree(files=files))


def test_a_flag_registered_twice_is_an_error():
    files = dict(BASE)
    files[f"{PKG}/runtime/entrypoints/cli/serve.py"] = textwrap.dedent('''
        from sglang.multimodal_gen.runtime.server_args import ServerArgs
        def add_multimodal_gen_serve_args(parser):
            parser.add_argument("--port", type=int)
            return ServerArgs.add_cli_args(parser)
        ''')
    with pytest.raises(CatalogError, match="option --port registered twice"):
        diffusion.extract_diffusion(SourceTree(files=files))
