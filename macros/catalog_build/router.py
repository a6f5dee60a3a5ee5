"""What one sglang-router release defines: ``RouterArgs.add_cli_args``.

Owns the router reader and the facts about router values that cannot be read statically.
Must not guess them for a release nobody checked: a release without a hand-verified
``--tool-call-parser`` list is an error.
"""

from __future__ import annotations

from macros.catalog_build.evaluator import Evaluator, FuncRef
from macros.catalog_build.records import index_flags, unresolved_choices
from macros.catalog_build.registrations import (find_function, find_method, parser_allow_abbrev, walk_add_arguments)
from macros.catalog_build.wheels import CatalogError, SourceTree

ROUTER_ARGS = "sglang_router/router_args.py"
ROUTER_LAUNCH = "sglang_router/launch_router.py"
ROUTER_SERVER = "sglang_router/launch_server.py"

# The router's --tool-call-parser choices come from the Rust extension
# (get_available_tool_call_parsers), which cannot be read statically; they were
# listed by running each release's installed router.
ROUTER_TOOL_CALL_PARSERS = {
    "0.3.2": [
        "kimik2",
        "json",
        "pythonic",
        "qwen_coder",
        "deepseek",
        "qwen",
        "llama",
        "glm45_moe",
        "mistral",
        "glm47_moe",
        "step3",
        "minimax_m2",
        "passthrough",
    ],
}
ROUTER_TOOL_CALL_PARSERS_SOURCE = "reference (Rust, not visible statically)"

# Facts about values that argparse does not check, read from the code that
# consumes the parsed value (_parse_prefill_urls and friends).
FLAG_NOTES = {
    "--prefill": (
        "Repeatable (action=append). Format: URL [PORT|none]; a port that is neither an "
        "int nor 'none' raises ValueError after parsing (_parse_prefill_urls)."
    ),
    "--decode": "Repeatable (action=append), one URL each time.",
    "--control-plane-api-keys": (
        "Each value is id:name:role:key with role admin or user (checked after parsing)."
    ),
}


def _router_flags(func: FuncRef, ev: Evaluator, params: dict, version: str) -> list[dict]:
    """``RouterArgs.add_cli_args`` walked with ``params``, its Rust-made choices filled in."""
    flags = walk_add_arguments(func, ev, params)
    for flag in flags:
        plain = flag["name"].replace("--router-", "--", 1)
        if plain == "--tool-call-parser" and str(flag["choices_source"]).startswith(
            "UNRESOLVED"
        ):
            if version not in ROUTER_TOOL_CALL_PARSERS:
                raise CatalogError(
                    f"sglang-router {version}: --tool-call-parser choices come from Rust; "
                    f"add the release's list to ROUTER_TOOL_CALL_PARSERS "
                    f"(known: {', '.join(ROUTER_TOOL_CALL_PARSERS)})"
                )
            flag["choices"] = list(ROUTER_TOOL_CALL_PARSERS[version])
            flag["choices_source"] = ROUTER_TOOL_CALL_PARSERS_SOURCE
        flag["notes"] = FLAG_NOTES.get(plain, flag["notes"])
    index_flags(flags)
    unresolved = unresolved_choices(flags)
    if unresolved:
        raise CatalogError(f"router: unresolved choices for {', '.join(unresolved)}")
    return flags


def extract_router(src: SourceTree, version: str = "0.3.2") -> dict:
    """The router's flags under ``launch_router`` and, under ``python3 -m
    sglang_router.launch_server`` (``launch_server``), the flags that program adds to the
    server's: ``RouterArgs.add_cli_args(parser, use_router_prefix=True,
    exclude_host_port=True)`` and its own ``add_argument`` calls, each with the
    ``launch_router`` flag it is (``router_flag``, None for a flag of its own)."""
    if not src.has(ROUTER_ARGS):
        raise CatalogError(f"{ROUTER_ARGS} not found in the wheel")
    ev = Evaluator(src)
    module = ev.module("sglang_router.router_args")
    cls = module.lookup("RouterArgs", ev)
    func = FuncRef(find_method(cls.node, "add_cli_args"), module)
    flags = _router_flags(func, ev, {"use_router_prefix": False}, version)
    allow_abbrev = parser_allow_abbrev(find_function(src.tree(ROUTER_LAUNCH), "parse_router_args"))
    launch_server = []
    if src.has(ROUTER_SERVER):
        params = {"use_router_prefix": True, "exclude_host_port": True}
        launch_server = _router_flags(func, ev, params, version)
        server_module = ev.module("sglang_router.launch_server")
        main = FuncRef(find_function(src.tree(ROUTER_SERVER), "main"), server_module)
        launch_server += _router_flags(main, ev, {}, version)
        plain = {f["name"] for f in flags}
        for flag in launch_server:
            name = flag["name"].replace("--router-", "--", 1)
            flag["router_flag"] = name if name in plain else None
        index_flags(launch_server)
    return {"allow_abbrev": allow_abbrev, "flags": flags, "launch_server": launch_server}
