"""The benchmark entry points of one sglang release besides bench_serving, and the warning an
entry point prints when it starts.

Owns reading, for each tool of ``TOOLS`` (the engine's ``programs.BENCH_TOOLS``: its history
section and the module names it has had, ``sglang.bench_X`` before the move and
``sglang.benchmark.X`` after it), per release: which of those modules run as ``python3 -m`` (an ``if __name__ == "__main__"`` block), the arguments of the
``BenchArgs.add_cli_args`` their parser registers (wherever ``BenchArgs`` is imported from),
whether that parser also registers the server's flags (``ServerArgs.add_cli_args(parser)``), its
``allow_abbrev``, and the module-level ``warnings.warn(…, FutureWarning)`` an old path prints.
Must not guess: a tool module whose parser it cannot find is a :class:`CatalogError`.
"""

from __future__ import annotations

import ast

from macros.catalog_build.evaluator import ClassRef, Evaluator, FuncRef, Unresolved, dotted
from macros.catalog_build.records import index_flags, unresolved_choices
from macros.catalog_build.registrations import find_method, parser_allow_abbrev, walk_add_arguments
from macros.catalog_build.wheels import CatalogError, SourceTree

from macros.engine.programs import BENCH_TOOLS as TOOLS

_WARNINGS = ("FutureWarning", "DeprecationWarning")


def _path(module: str) -> str:
    return module.replace(".", "/") + ".py"


def _main(tree: ast.Module) -> ast.If | None:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return node
    return None


def start_warning(src: SourceTree, module: str) -> str | None:
    """The text a module warns with when it is imported (a module-level ``warnings.warn`` of a
    FutureWarning or DeprecationWarning), or None."""
    for node in src.tree(_path(module)).body:
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and dotted(call.func).endswith("warn") and call.args:
            kinds = [dotted(a) for a in call.args[1:2]] + \
                [dotted(k.value) for k in call.keywords if k.arg == "category"]
            if any(k.rsplit(".", 1)[-1] in _WARNINGS for k in kinds):
                text = call.args[0]
                if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
                    raise CatalogError(f"{_path(module)}: the warning's text is not a string")
                return " ".join(text.value.split())
    return None


def _parser_body(src: SourceTree, module: str) -> ast.AST | None:
    """Where ``module`` builds its parser: its main block when that makes the
    ``ArgumentParser``, else the function of this module the main block calls that does
    (``main``, ``cli_main``); None for a module that forwards to another's."""
    tree = src.tree(_path(module))
    main = _main(tree)
    if main is None:
        return None
    if "ArgumentParser" in ast.unparse(main):
        return main
    called = {dotted(n.func) for n in ast.walk(main) if isinstance(n, ast.Call)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in called \
                and "ArgumentParser" in ast.unparse(node):
            return node
    return None


def extract_tool(src: SourceTree, section: str) -> dict | None:
    """One tool of ``TOOLS`` in this release: ``{"programs", "deprecated", "server_args",
    "allow_abbrev", "flags"}``, or None when the release has neither module."""
    ev = Evaluator(src)
    programs, deprecated = [], {}
    for module in TOOLS[section]:
        if not src.has(_path(module)) or _main(src.tree(_path(module))) is None:
            continue
        name = f"python3 -m {module}"
        programs.append(name)
        warning = start_warning(src, module)
        if warning:
            deprecated[name] = warning
    if not programs:
        return None
    found = [(m, body) for m in TOOLS[section][::-1] if src.has(_path(m))
             and (body := _parser_body(src, m)) is not None]
    if not found:
        raise CatalogError(f"{section}: no module of {', '.join(TOOLS[section])} builds a parser")
    impl, body = found[0]
    try:
        cls = ev.module(impl).lookup("BenchArgs", ev)
    except Unresolved as exc:
        raise CatalogError(f"{section}: BenchArgs not found from {impl} ({exc})") from None
    if not isinstance(cls, ClassRef):
        raise CatalogError(f"{section}: BenchArgs in {impl} is not a class")
    flags = walk_add_arguments(FuncRef(find_method(cls.node, "add_cli_args"), cls.module), ev,
                               {})
    index_flags(flags)
    unresolved = unresolved_choices(flags)
    if unresolved:
        raise CatalogError(f"{section}: unresolved choices for {', '.join(unresolved)}")
    return {"programs": programs, "deprecated": deprecated,
            "server_args": "ServerArgs.add_cli_args(" in ast.unparse(body),
            "allow_abbrev": parser_allow_abbrev(body), "flags": flags}


def bench_tool_facts(src: SourceTree, meta: dict, sections: dict) -> None:
    """Add to a release's facts (``meta``) the warning its bench_serving entry points print when
    they start (``bench_deprecated``) and what it has of each tool (``bench_tools``: its
    programs, their warnings, whether the parser takes the server's flags, ``allow_abbrev``),
    and each tool's arguments to its ``sections``."""
    meta["bench_deprecated"] = {
        name: text for name in meta["bench_programs"]
        if (text := start_warning(src, name.split()[-1])) is not None}
    tools = {}
    for section in TOOLS:
        tool = extract_tool(src, section)
        if tool is None:
            continue
        tools[section] = {k: v for k, v in tool.items() if k != "flags"}
        sections[section] = tool["flags"]
    meta["bench_tools"] = tools
