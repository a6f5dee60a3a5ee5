"""How ``sglang serve`` chooses between its two CLIs, as one release's wheel says.

Owns the dispatch facts of ``sglang/cli/serve.py`` and ``sglang/cli/utils.py``: the
``--model-type`` values (read as the LLM reader reads them), what decides "diffusion" when the
type is ``auto`` (the detectors ``get_is_diffusion_model`` consults, in order, and the
``--pipeline-class-name`` signal), the index files that mark a Diffusers folder and the model
names the diffusion registry knows without a download (its dict of patterns needs the
diffusion reader's evaluator, which understands ``**`` entries). Must not import or run wheel
code.
"""

from __future__ import annotations

import ast

from macros.catalog_build.evaluator import Evaluator, Unresolved, dotted
from macros.catalog_build.registrations import find_function
from macros.catalog_build.sglang import model_type_flag
from macros.catalog_build.wheels import CatalogError, SourceTree

CLI_UTILS = "sglang/cli/utils.py"




def dispatch_facts(src: SourceTree, ev: Evaluator) -> dict:
    """The ``--model-type`` values and, for ``auto``, what decides "diffusion" in order."""
    model_type = model_type_flag(ev)
    utils = src.tree(CLI_UTILS)
    detect = find_function(utils, "get_is_diffusion_model")
    called = [dotted(n.func) for n in ast.walk(detect) if isinstance(n, ast.Call)]
    detectors = []
    if "_is_overlay_diffusion_model" in called:
        detectors.append("overlay")  # an overlay registry named by an environment variable
    if any(c in called for c in ("_is_diffusion_model_from_registry",
                                 "_is_registered_diffusion_model")):
        detectors.append("registry")
    if "_is_diffusers_model_dir" in called:
        detectors.append("index-file")
    if any("hf_hub_download" in c or "model_file_download" in c for c in called):
        detectors.append("hub-index-file")
    if "_is_gated_diffusion_repo" in called:
        detectors.append("hub-library-name")
    serve = src.read("sglang/cli/serve.py")
    if "is_registered_native_pipeline" in serve:
        detectors.append("pipeline-class-name")
    index = find_function(utils, "_is_diffusers_model_dir")
    files = sorted({n.value for n in ast.walk(index) if isinstance(n, ast.Constant)
                    and isinstance(n.value, str) and n.value.endswith(".json")})
    marker = sorted({n.value for n in ast.walk(index) if isinstance(n, ast.Constant)
                     and isinstance(n.value, str) and n.value.startswith("_diffusers")})
    registry = registry_names(src, ev)
    return {
        "model_type_choices": model_type["choices"],
        "model_type_default": "auto",
        "fallback": "llm",
        "detectors": detectors,
        "index_files": files,
        "index_marker": marker[0] if marker else None,
        "registry_paths": registry["paths"],
        "registry_patterns": registry["patterns"],
        "generate_refuses_llm": "not yet supported" in src.read("sglang/cli/generate.py"),
    }


def registry_names(src: SourceTree, ev: Evaluator) -> dict:
    """The model names the diffusion registry knows by name alone: the Hugging Face ids each
    pipeline config registers (``register_configs(hf_model_paths=[...])``) and the patterns
    of native pipelines without a Diffusers index (``KNOWN_NON_DIFFUSERS_…_PATTERNS``)."""
    paths: set[str] = set()
    for path in sorted(src.names()):
        if not (path.startswith("sglang/multimodal_gen/configs/pipeline_configs/")
                or path == "sglang/multimodal_gen/registry.py") or not path.endswith(".py"):
            continue
        if "hf_model_paths" not in src.read(path):
            continue
        module = ev.module(path[:-3].replace("/", ".").removesuffix(".__init__"))
        for n in ast.walk(src.tree(path)):
            if isinstance(n, ast.Call) and dotted(n.func).rsplit(".", 1)[-1] in (
                    "register_configs", "register_pipeline"):
                for kw in n.keywords:
                    if kw.arg == "hf_model_paths" and isinstance(kw.value, ast.List):
                        try:
                            paths.update(str(v) for v in ev.eval(kw.value, module))
                        except Unresolved as exc:
                            raise CatalogError(f"{path}:{kw.value.lineno}: unresolved "
                                               f"hf_model_paths ({exc})") from None
    patterns: dict[str, str] = {}
    registry = ev.module("sglang.multimodal_gen.registry")
    name = "KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS"
    try:
        found = registry.lookup(name, ev)
    except Unresolved as exc:
        raise CatalogError(f"sglang/multimodal_gen/registry.py: cannot resolve {name} "
                           f"({exc})") from None
    if not isinstance(found, dict):
        raise CatalogError(f"{name} is not a dict")
    patterns = {str(k): str(v) for k, v in found.items()}
    return {"paths": sorted(paths), "patterns": dict(sorted(patterns.items()))}
