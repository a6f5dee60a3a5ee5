"""Flags registered by hand: ``parser.add_argument(...)`` calls read in program order.

Owns the argparse rules for one call (actions, nargs, types, defaults, deprecations) and the
walk over a function body that finds the calls, following branches whose test resolves.
Must not know where a program's parser is built: the layout readers pass the function.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from macros.catalog_build.evaluator import (Builtin, ClassRef, Evaluator, External, FuncRef, ModuleScope, Scope, Unresolved, collect_bindings, dotted)
from macros.catalog_build.fields import type_parser_name
from macros.catalog_build.records import (deprecation_from_help, make_flag, negations_for, removal_date, static_text)
from macros.catalog_build.wheels import CatalogError


@dataclasses.dataclass
class ActionInfo:
    """What an argparse action class does to nargs/defaults (read from its __init__)."""

    nargs: Any = None
    default: Any = None
    const: Any = None
    deprecated: bool = False


def action_info(action: Any, ev: Evaluator) -> tuple[str, ActionInfo]:
    """Normalize ``action=`` to a short name and its effect on value-taking."""
    if isinstance(action, str):
        fixed = {
            "store_true": ActionInfo(0, False),
            "store_false": ActionInfo(0, True),
            "store_const": ActionInfo(0),
            "append_const": ActionInfo(0),
            "count": ActionInfo(0),
            "help": ActionInfo(0),
            "version": ActionInfo(0),
        }
        return action, fixed.get(action, ActionInfo())
    if isinstance(action, External):
        short = action.path.rsplit(".", 1)[-1]
        if short == "BooleanOptionalAction":
            return "boolean_optional", ActionInfo(0)
        return f"custom:{short}", ActionInfo()
    if isinstance(action, ClassRef):
        info = ActionInfo(deprecated=action.node.name.startswith("Deprecated"))
        for stmt in action.node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                args = stmt.args
                pos = args.args[len(args.args) - len(args.defaults) :]
                pairs = list(zip(pos, args.defaults)) + [
                    (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None
                ]
                scope = Scope({}, action.module, action.module)
                for arg, dflt in pairs:
                    if arg.arg in ("nargs", "default", "const"):
                        try:
                            setattr(info, arg.arg, ev.eval(dflt, scope))
                        except Unresolved:
                            pass
        return f"custom:{action.node.name}", info
    return "store", ActionInfo()


def type_name_of(value: Any, node: ast.AST | None) -> str:
    if isinstance(value, Builtin):
        return value.name
    if isinstance(value, External):
        return type_parser_name(value.path)
    if isinstance(value, FuncRef):
        return value.node.name
    return dotted(node) if node is not None else "str"


def add_argument_to_flag(call: ast.Call, ev: Evaluator, scope: Scope, comment: str = "") -> dict:
    """A literal ``parser.add_argument(...)`` call → catalog entry.

    ``comment`` is the comment block above the call, where a planned removal
    date may be written.
    """
    try:
        names = [ev.eval(a, scope) for a in call.args]
    except Unresolved as exc:
        raise CatalogError(f"unresolved option name in {ast.unparse(call)[:80]} ({exc})") from None
    kwnodes = {k.arg: k.value for k in call.keywords if k.arg}
    label = names[0] if names else "?"

    def get(key: str, default: Any = None) -> Any:
        if key not in kwnodes:
            return default
        try:
            return ev.eval(kwnodes[key], scope)
        except Unresolved as exc:
            raise CatalogError(
                f"{label}: unresolved {key}={ast.unparse(kwnodes[key])[:60]} ({exc})"
            ) from None

    action_name, info = action_info(get("action", "store"), ev)
    nargs = get("nargs", info.nargs) if "nargs" in kwnodes else info.nargs
    takes_value = nargs != 0
    type_node = kwnodes.get("type")
    type_name = type_name_of(get("type"), type_node) if type_node is not None else "str"
    default = get("default", info.default)
    try:
        help_ = get("help", "") or ""
    except CatalogError:  # help is informational: keep its literal parts
        help_ = static_text(kwnodes["help"])
    if info.deprecated:
        new_flag = get("new_flag")
        error_message = get("error_message")
        deprecated = (
            f"deprecated: use {new_flag} instead"
            if new_flag
            else error_message or deprecation_from_help(help_, always=True)
        )
    else:
        deprecated = deprecation_from_help(help_)
    choices = None
    if "choices" in kwnodes:
        try:
            choices = ev.eval(kwnodes["choices"], scope)
        except Unresolved:
            choices = Unresolved  # the caller may fill these from a known source
    try:
        flag = make_flag(
            names,
            takes_value=takes_value,
            nargs=nargs,
            type_=type_name,
            choices=None if choices is None or choices is Unresolved else choices,
            default=default,
            required=get("required", False),
            help_=help_,
            action=action_name,
            negations=negations_for(names) if action_name == "boolean_optional" else None,
            deprecated=deprecated,
            dest=get("dest"),
            removal=removal_date(comment, help_),
        )
    except Unresolved as exc:
        raise CatalogError(f"{label}: {exc} in {ast.unparse(call)[:100]}") from None
    if choices is Unresolved:
        flag["choices_source"] = "UNRESOLVED:" + ast.unparse(kwnodes["choices"])
    if "default" in kwnodes:
        env = [
            n
            for n in ast.walk(kwnodes["default"])
            if isinstance(n, ast.Call)
            and dotted(n.func) in ("os.getenv", "os.environ.get")
            and n.args
            and isinstance(n.args[0], ast.Constant)
        ]
        if env:
            flag["default_env"] = env[0].args[0].value
    return flag


def walk_add_arguments(func: FuncRef, ev: Evaluator, params: dict[str, Any]) -> list[dict]:
    """The ``add_argument`` calls of a function body, with its parameter defaults bound."""
    module = func.module
    local_imports = {
        k: v
        for k, v in collect_bindings(func.node.body, module.name).items()
        if v[0] in ("from", "module")
    }
    scope = Scope(local_imports, module, module)
    args = func.node.args
    positional = args.posonlyargs + args.args
    for arg, dflt in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
        try:
            scope.values[arg.arg] = ev.eval(dflt, module)
        except Unresolved:
            pass
    scope.values.update(params)
    return walk_statements(func.node.body, scope, ev, func.node.name)


def walk_statements(body: list[ast.stmt], scope: Scope, ev: Evaluator, label: str) -> list[dict]:
    """Walk statements in order, collecting ``*.add_argument(...)`` calls.

    Local assignments are tracked so choices built in locals resolve; an ``if``
    whose test resolves follows its branch, one that does not (it reads the
    environment at parse time) is skipped unless it registers flags itself.
    """
    module: ModuleScope = scope.module
    path = ev.src.module_path(module.name)
    flags: list[dict] = []

    def walk(stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                scope.bindings[stmt.targets[0].id] = ("value", stmt.value)
                scope.values.pop(stmt.targets[0].id, None)
            elif (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Attribute)
                and stmt.value.func.attr == "add_argument"
            ):
                comment = ev.src.comment_above(path, stmt.lineno) if path else ""
                flags.append(add_argument_to_flag(stmt.value, ev, scope, comment))
            elif isinstance(stmt, ast.If):
                try:
                    taken = ev.eval(stmt.test, scope)
                except Unresolved:
                    if _registers_flags(stmt):
                        raise CatalogError(
                            f"{label}: flags registered under an unresolvable "
                            f"condition: if {ast.unparse(stmt.test)}"
                        ) from None
                    continue
                walk(stmt.body if taken else stmt.orelse)
            elif _registers_flags(stmt):
                raise CatalogError(
                    f"{label}: cannot follow {type(stmt).__name__} "
                    f"at line {stmt.lineno} that registers flags"
                )

    walk(body)
    return flags


def _registers_flags(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "add_argument" for n in ast.walk(stmt))


def find_class(tree: ast.Module, name: str) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise CatalogError(f"class {name} not found")


def find_method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise CatalogError(f"method {cls.name}.{name} not found")


def find_function(tree: ast.Module, name: str) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise CatalogError(f"function {name} not found")


def parser_allow_abbrev(func: ast.FunctionDef | ast.If) -> bool:
    """``allow_abbrev`` of the ``ArgumentParser(...)`` built in ``func`` (argparse default True)."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and dotted(node.func).endswith("ArgumentParser"):
            for kw in node.keywords:
                if kw.arg == "allow_abbrev" and isinstance(kw.value, ast.Constant):
                    return bool(kw.value.value)
            return True
    raise CatalogError(f"{getattr(func, 'name', 'main block')}: no ArgumentParser(...) call")
