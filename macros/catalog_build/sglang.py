"""What one sglang release defines: server flags, the env registry, the bench_serving arguments.

Owns the per-release layout readers. Server flags live in three layouts across 0.5.12–0.5.23:

* ``add_argument`` (0.5.12–0.5.13.post1): every flag is a ``parser.add_argument`` call in
  ``ServerArgs.add_cli_args``; ``ServerArgs`` is a plain dataclass holding the defaults.
* ``dataclass`` (0.5.14–0.5.19): ``ServerArgs`` fields annotated ``A[T, Arg(...)]`` are
  registered by ``add_cli_args_from_dataclass``; the rest are still hand-written calls.
* ``namespaces`` (0.5.20 on): the fields moved to the classes named by ``_INPUT_NAMESPACES``
  (``sglang/srt/arg_groups/fields/*.py``); a few hand-written calls remain.

The env registry is ``class Envs`` in ``sglang/srt/environ.py``; its deprecated set is the
``_DEPRECATED_ENVS`` table (0.5.18 on) or, before, the ``_print_deprecated_env`` /
``_warn_deprecated_env_to_cli_flag`` calls and the ``_deprecated_ms_to_s`` table.
``python3 -m sglang.bench_serving`` builds its parser in ``if __name__ == "__main__"`` (before
0.5.15) or in ``sglang.benchmark.serving.cli_main``.

Must not guess: a layout it does not recognise, a value it cannot resolve, or a flag registered
twice is a :class:`CatalogError` naming the place.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from macros.catalog_build.evaluator import ClassRef, Evaluator, FuncRef, Scope, Unresolved, dotted
from macros.catalog_build.fields import arg_positional_order, class_fields_to_flags
from macros.catalog_build.records import index_flags, make_flag, to_json, unresolved_choices
from macros.catalog_build.registrations import (find_class, find_function, find_method, parser_allow_abbrev, walk_add_arguments, walk_statements)
from macros.catalog_build.wheels import CatalogError, SourceTree

SERVER_ARGS = "sglang/srt/server_args.py"
ENV_PATH = "sglang/srt/environ.py"
BENCH_OLD = "sglang/bench_serving.py"
BENCH_NEW = "sglang/benchmark/serving.py"

# Facts about values that argparse does not check; they come from reading the
# code of the pinned release that consumes the parsed value, so they are notes,
# not rules, and are attached to that release only.
FLAG_NOTES = {
    "--sampling-backend": (
        "'token_oracle' is also accepted when SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE is set."
    ),
    "--speculative-algorithm": (
        "No argparse choices; the name is checked case-insensitively after parsing "
        "(SpeculativeAlgorithm.from_string). NEXTN becomes EAGLE; NONE means disabled; "
        "plugins may register more names."
    ),
    "--speculative-draft-attention-backend": (
        "No argparse choices; values outside DRAFT_ATTENTION_BACKEND_CHOICES fall back "
        "with a warning."
    ),
    "--enable-dp-attention": (
        "Resolution turns --dp-size N --enable-dp-attention into --attn-dp-size N."
    ),
}


# ---------------------------------------------------------------------------
# Server flags
# ---------------------------------------------------------------------------


def server_layout(src: SourceTree, ev: Evaluator) -> str:
    """Which of the three layouts (module docstring) this release uses."""
    if not src.has(SERVER_ARGS):
        raise CatalogError(f"{SERVER_ARGS} not found in the wheel")
    if "_INPUT_NAMESPACES" in ev.module("sglang.srt.server_args").bindings:
        return "namespaces"
    add_cli = find_method(find_class(src.tree(SERVER_ARGS), "ServerArgs"), "add_cli_args")
    calls = {dotted(n.func) for n in ast.walk(add_cli) if isinstance(n, ast.Call)}
    return "dataclass" if "add_cli_args_from_dataclass" in calls else "add_argument"


def field_classes(src: SourceTree, ev: Evaluator, layout: str) -> list[ClassRef]:
    """The classes whose annotated fields become flags, in registration order."""
    mod = ev.module("sglang.srt.server_args")
    if layout == "add_argument":
        return []
    if layout == "dataclass":
        return [ClassRef(find_class(src.tree(SERVER_ARGS), "ServerArgs"), mod)]
    try:
        classes = ev.eval(mod.bindings["_INPUT_NAMESPACES"][1], mod)
    except Unresolved as exc:
        raise CatalogError(f"cannot resolve _INPUT_NAMESPACES ({exc})") from None
    if not all(isinstance(c, ClassRef) for c in classes):
        raise CatalogError("_INPUT_NAMESPACES holds something other than classes")
    return classes


def late_speculative_choices(ev: Evaluator) -> tuple[list[str], str]:
    """Names ``SpeculativeAlgorithm.from_string`` accepts (upper-cased input)."""
    enum = ev.module("sglang.srt.speculative.spec_info").lookup("SpeculativeAlgorithm", ev)
    names = [m for m in ev.enum_members(enum) if m != "NONE"]
    source = "SpeculativeAlgorithm members except NONE (sglang/srt/speculative/spec_info.py)"
    registry = ev.module("sglang.srt.speculative.spec_registry")
    if "_RESERVED_ALIASES" in registry.bindings:
        aliases = set(registry.lookup("_RESERVED_ALIASES", ev))
        source += " + _RESERVED_ALIASES (sglang/srt/speculative/spec_registry.py)"
    else:
        aliases = alias_names_compared(ev, names)
        if aliases:
            source += " + the aliases _resolve_speculative_algorithm_alias rewrites"
    return sorted(set(names) | aliases), source


def alias_names_compared(ev: Evaluator, members: list[str]) -> set[str]:
    """Before ``_RESERVED_ALIASES``, server_args rewrote aliases by ``name == "NEXTN"`` tests."""
    tree = ev.src.tree(SERVER_ARGS)
    try:
        func = find_function(tree, "_resolve_speculative_algorithm_alias")
    except CatalogError:
        return set()
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.Eq):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    out.add(side.value)
    return {name for name in out if name.isupper() and name not in members}


def model_type_flag(ev: Evaluator) -> dict:
    """``sglang serve --model-type``: stripped from argv before argparse runs."""
    serve = ev.module("sglang.cli.serve")
    if "_create_backend_registry" in serve.bindings:
        func = serve.lookup("_create_backend_registry", ev)
        backends: list[str] = []
        for node in ast.walk(func.node):
            if isinstance(node, ast.Dict):
                backends = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                break
        reserved = ev.module("sglang.cli.serve_backends").lookup(
            "RESERVED_SERVE_BACKEND_NAMES", ev
        )
        choices = sorted(reserved) + backends
        notes = (
            "Handled by sglang serve before argparse (not an abbreviation target); "
            "installed plugins may add backends."
        )
    else:
        # Before the backend registry: a fixed ``model_type not in (...)`` test.
        func = serve.lookup("_extract_model_type_override", ev)
        choices = []
        for node in ast.walk(func.node):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.ops[0], ast.NotIn)
                and isinstance(node.comparators[0], ast.Tuple)
            ):
                choices = [e.value for e in node.comparators[0].elts if isinstance(e, ast.Constant)]
                break
        if not choices:
            raise CatalogError("sglang/cli/serve.py: --model-type choices not found")
        notes = "Handled by sglang serve before argparse (not an abbreviation target)."
    flag = make_flag(
        ["--model-type"],
        takes_value=True,
        choices=choices,
        default="auto",
        help_="Serving backend override for `sglang serve` (default: auto-detect).",
    )
    flag["programs"] = ["sglang serve"]
    flag["notes"] = notes
    return flag


def extract_sglang(src: SourceTree, notes: bool = True) -> dict:
    """Server flags, env registry (with its deprecated set) and bench arguments of one release.

    ``notes``: attach :data:`FLAG_NOTES` (true for the pinned release they were read from).
    """
    flags: list[dict] = []
    field_defaults: dict[str, Any] = {}

    def declared_default(name: str) -> Any:
        value = field_defaults[name]
        if isinstance(value, Unresolved):
            raise value
        return value

    ev = Evaluator(src, call_hooks={"_declared_default": declared_default})
    layout = server_layout(src, ev)
    order = arg_positional_order(src)
    for cls in field_classes(src, ev, layout):
        cls_flags, defaults = class_fields_to_flags(cls, ev, order)
        flags.extend(cls_flags)
        for name, value in defaults.items():
            if name in field_defaults:
                raise CatalogError(f"field {name} is declared by two namespaces")
            field_defaults[name] = value

    server_args = ev.module("sglang.srt.server_args")
    # 0.5.20 on, the module later rebinds ServerArgs to a msgspec.defstruct(...)
    # result; the hand-written registrations live on the class statement.
    server_cls = find_class(src.tree(SERVER_ARGS), "ServerArgs")
    add_cli = FuncRef(find_method(server_cls, "add_cli_args"), server_args)
    flags.extend(walk_add_arguments(add_cli, ev, {}))
    flags.append(model_type_flag(ev))

    prepare = find_function(src.tree(SERVER_ARGS), "prepare_server_args")
    allow_abbrev = parser_allow_abbrev(prepare)

    by_name = index_flags(flags)
    spec = by_name.get("--speculative-algorithm")
    if spec is not None and spec["choices"] is None:
        spec["late_choices"], source = late_speculative_choices(ev)
        spec["late_choices_case_insensitive"] = True
        spec["choices_source"] = "late: " + source
    if notes:
        for flag in flags:
            flag["notes"] = FLAG_NOTES.get(flag["name"], flag["notes"])
    unresolved = unresolved_choices(flags)
    if unresolved:
        raise CatalogError(f"unresolved choices for {', '.join(unresolved)}")
    return {
        "allow_abbrev": allow_abbrev,
        "bench": extract_bench(src),
        "env": extract_env(src),
        "env_deprecated": extract_env_deprecations(src),
        "flags": flags,
        "layout": layout,
    }


# ---------------------------------------------------------------------------
# Environment registry
# ---------------------------------------------------------------------------


def extract_env(src: SourceTree, path: str = ENV_PATH) -> list[dict]:
    """``class Envs`` entries: ``NAME = EnvBool(default)`` and friends."""
    if not src.has(path):
        raise CatalogError(f"{path} not found in the wheel")
    ev = Evaluator(src)
    scope = ev.module(path[:-3].replace("/", "."))
    envs = find_class(src.tree(path), "Envs")
    out: dict[str, dict] = {}  # a name bound twice in the class body keeps the last binding
    for stmt in envs.body:
        target, value = None, None
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            target, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            target, value = stmt.target.id, stmt.value
        if target is None or not isinstance(value, ast.Call):
            continue
        kind = dotted(value.func).rsplit(".", 1)[-1]
        m = re.fullmatch(r"Env([A-Za-z]+?)(?:WithAlias)?", kind)
        if not m:
            continue
        out[target] = env_entry(target, m.group(1), value, ev, scope)
    return sorted(out.values(), key=lambda e: e["name"])


def env_entry(name: str, type_: str, call: ast.Call, ev: Evaluator, scope: Scope) -> dict:
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    node = call.args[0] if call.args else kw.get("default")
    default, expr = None, None
    if node is not None:
        try:
            default = to_json(ev.eval(node, scope))
        except Unresolved:
            # Computed when first read (platform probes, other env vars, paths
            # under $HOME): keep the expression rather than guess a value.
            expr = ast.unparse(node)
    alias = kw.get("deprecated_name")
    return {
        "default": default,
        "default_expr": expr,
        "deprecated_alias": alias.value if isinstance(alias, ast.Constant) else None,
        "name": name,
        "type": type_,
    }


def deprecated_env(name: str, replacement: Any, note: Any, transform: str | None) -> dict:
    return {"name": name, "note": note, "replacement": replacement, "transform": transform}


def extract_env_deprecations(src: SourceTree, path: str = ENV_PATH) -> list[dict]:
    """The variables a release warns about at start, with what to use instead."""
    ev = Evaluator(src)
    scope = ev.module(path[:-3].replace("/", "."))
    tree = src.tree(path)

    def value(node: ast.AST | None) -> Any:
        if node is None:
            return None
        try:
            return ev.eval(node, scope)
        except Unresolved as exc:
            raise CatalogError(
                f"{path}:{node.lineno}: unresolved {ast.unparse(node)} ({exc})"
            ) from None

    out: dict[str, dict] = {}
    if "_DEPRECATED_ENVS" in scope.bindings:
        table = scope.bindings["_DEPRECATED_ENVS"][1]
        if not isinstance(table, ast.Dict):
            raise CatalogError(f"{path}: _DEPRECATED_ENVS is not a dict literal")
        for key, call in zip(table.keys, table.values):
            if not isinstance(call, ast.Call):
                raise CatalogError(f"{path}:{call.lineno}: _DEPRECATED_ENVS value is not a call")
            args = dict(zip(("replacement", "transform", "note"), call.args))
            args.update({k.arg: k.value for k in call.keywords if k.arg})
            transform = args.get("transform")
            name = value(key)
            out[name] = deprecated_env(
                name,
                value(args.get("replacement")),
                value(args.get("note")),
                dotted(transform).lstrip("_") if transform is not None else None,
            )
        return sorted(out.values(), key=lambda e: e["name"])
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and dotted(node.func) == "_print_deprecated_env":
            name = value(node.args[0])
            replacement = value(node.args[1]) if len(node.args) > 1 else None
            out[name] = deprecated_env(name, replacement, None, None)
        elif isinstance(node, ast.Call) and dotted(node.func) == "_warn_deprecated_env_to_cli_flag":
            name = value(node.args[0])
            out[name] = deprecated_env(name, None, value(node.args[1]), None)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "_deprecated_ms_to_s"
        ):
            for old, new in value(node.value).items():
                out[old] = deprecated_env(old, new, None, "ms_to_s")
    return sorted(out.values(), key=lambda e: e["name"])


# ---------------------------------------------------------------------------
# python3 -m sglang.bench_serving
# ---------------------------------------------------------------------------


def extract_bench(src: SourceTree) -> dict:
    """The benchmark client's arguments, wherever this release builds its parser."""
    ev = Evaluator(src)
    if src.has(BENCH_NEW) and "cli_main" in ev.module("sglang.benchmark.serving").bindings:
        module = ev.module("sglang.benchmark.serving")
        func = module.lookup("cli_main", ev)
        flags = walk_add_arguments(func, ev, {})
        allow_abbrev = parser_allow_abbrev(func.node)
        programs = ["python3 -m sglang.bench_serving", "python3 -m sglang.benchmark.serving"]
    elif src.has(BENCH_OLD):
        module = ev.module("sglang.bench_serving")
        main = main_block(src.tree(BENCH_OLD))
        flags = walk_statements(main.body, Scope({}, module, module), ev, "bench_serving")
        allow_abbrev = parser_allow_abbrev(main)
        programs = ["python3 -m sglang.bench_serving"]
    else:
        raise CatalogError(f"neither {BENCH_NEW} nor {BENCH_OLD} in the wheel")
    index_flags(flags)
    unresolved = unresolved_choices(flags)
    if unresolved:
        raise CatalogError(f"bench_serving: unresolved choices for {', '.join(unresolved)}")
    return {"allow_abbrev": allow_abbrev, "flags": flags, "programs": programs}


def main_block(tree: ast.Module) -> ast.If:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return node
    raise CatalogError(f"{BENCH_OLD}: no `if __name__ == \"__main__\"` block")
