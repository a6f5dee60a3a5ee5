"""Flags declared as annotated fields (``x: A[int, Arg(...)] = 1``).

Owns the registration rules of sglang's ``arg_utils.add_cli_args_from_dataclass``, read
from the field syntax: names, Optional/Literal/list/bool handling, defaults. Must not walk
``add_argument`` calls (registrations.py) or know which classes hold the fields (sglang.py).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from macros.catalog_build.evaluator import ClassRef, Evaluator, Scope, Unresolved, dotted
from macros.catalog_build.records import (deprecation_from_help, make_flag, negations_for, removal_date, static_text)
from macros.catalog_build.wheels import CatalogError, SourceTree

TYPE_PARSER_NAMES = {"json.loads": "json", "loads": "json"}


@dataclasses.dataclass
class ArgMeta:
    """The ``Arg(...)`` metadata of one field, partly evaluated."""

    help: str = ""
    choices: Any = None
    aliases: list[str] | None = None
    cli_name: str | None = None
    type_parser: str | None = None
    nargs: Any = None
    required: bool | None = None
    action: str | None = None
    action_kwargs: dict | None = None
    const: Any = None
    no_cli: bool = False


def arg_positional_order(
    src: SourceTree, path: str = "sglang/srt/arg_groups/arg_utils.py"
) -> list[str]:
    """Field order of ``class Arg`` so positional ``Arg(...)`` arguments map right."""
    default = [f.name for f in dataclasses.fields(ArgMeta)]
    if not src.has(path):
        return default
    for node in src.tree(path).body:
        if isinstance(node, ast.ClassDef) and node.name == "Arg":
            return [
                s.target.id
                for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            ]
    return default


def parse_arg_meta(node: ast.AST, ev: Evaluator, scope: Scope, order: list[str]) -> ArgMeta | None:
    """``"help"`` or ``Arg(...)`` → ArgMeta; anything else → None (not CLI metadata)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ArgMeta(help=node.value)
    if isinstance(node, (ast.BinOp, ast.JoinedStr)):
        try:
            value = ev.eval(node, scope)
        except Unresolved:
            return None
        return ArgMeta(help=value) if isinstance(value, str) else None
    if not (isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] == "Arg"):
        return None
    raw: dict[str, ast.AST] = dict(zip(order, node.args))
    raw.update({k.arg: k.value for k in node.keywords if k.arg})
    meta = ArgMeta()
    for key, value in raw.items():
        if key == "type_parser":
            meta.type_parser = dotted(value)
        elif key == "action":
            meta.action = dotted(value)
        elif key == "action_kwargs":
            kw = {}
            for k, v in zip(value.keys, value.values):  # type: ignore[attr-defined]
                name = ev.eval(k, scope)
                kw[name] = dotted(v) if name == "type" else ev.eval(v, scope)
            meta.action_kwargs = kw
        elif hasattr(meta, key):
            try:
                setattr(meta, key, ev.eval(value, scope))
            except Unresolved as exc:
                if key == "help":  # help is informational: keep its literal parts
                    meta.help = static_text(value)
                    continue
                raise CatalogError(f"unresolved {key}={ast.unparse(value)} ({exc})") from None
    return meta


# Type annotations are modelled as small tuples:
#   ("name", "int") | ("literal", [values]) | ("list", elem) | ("union", [types])
#   ("optional", inner) | ("other", text)


def parse_type(node: ast.AST, ev: Evaluator, scope: Scope) -> tuple:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return parse_type(ast.parse(node.value, mode="eval").body, ev, scope)
    if isinstance(node, ast.Constant) and node.value is None:
        return ("name", "None")
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = dotted(node).rsplit(".", 1)[-1]
        if name == "List":  # typing.List alone still has origin list
            return ("list", ("name", "str"))
        return ("name", name)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return ("union", [parse_type(node.left, ev, scope), parse_type(node.right, ev, scope)])
    if isinstance(node, ast.Subscript):
        base = dotted(node.value).rsplit(".", 1)[-1]
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base == "Optional":
            return ("union", [parse_type(elts[0], ev, scope), ("name", "None")])
        if base == "Union":
            return ("union", [parse_type(e, ev, scope) for e in elts])
        if base == "Literal":
            return ("literal", [ev.eval(e, scope) for e in elts])
        if base in ("List", "list"):
            return ("list", parse_type(elts[0], ev, scope))
        if base == "Annotated":
            return parse_type(elts[0], ev, scope)
        return ("other", ast.unparse(node))
    return ("other", ast.unparse(node))


def flatten_union(tp: tuple) -> list[tuple]:
    if tp[0] != "union":
        return [tp]
    out: list[tuple] = []
    for member in tp[1]:
        for t in flatten_union(member):
            if t not in out:
                out.append(t)
    return out


def unwrap_optional(tp: tuple) -> tuple:
    """``Optional[X]`` → X; a union of several non-None types stays a union."""
    if tp[0] != "union":
        return tp
    non_none = [t for t in flatten_union(tp) if t != ("name", "None")]
    if len(non_none) == 1:
        return non_none[0]
    return ("union", non_none)


def infer_type_name(tp: tuple) -> str:
    """Mirror ``_infer_type_func``: str/int/float map to themselves, all else str."""
    if tp[0] == "name" and tp[1] in ("str", "int", "float"):
        return tp[1]
    return "str"


def type_parser_name(dotted: str) -> str:
    return TYPE_PARSER_NAMES.get(dotted, dotted.rsplit(".", 1)[-1])


def literal_value_type(value: Any) -> str:
    for pytype, name in ((bool, "str"), (int, "int"), (float, "float"), (str, "str")):
        if isinstance(value, pytype):
            return name
    return "str"


def field_to_flag(
    field: str, tp: tuple, meta: ArgMeta, default: Any, has_default: bool
) -> dict | None:
    """One annotated field → one catalog entry, following the registration rules."""
    if meta.no_cli:
        return None
    cli_name = meta.cli_name or "--" + field.replace("_", "-")
    names = [cli_name] + list(meta.aliases or [])
    value = default if has_default else None

    if meta.action is not None:
        action_name = meta.action.rsplit(".", 1)[-1]
        kw = meta.action_kwargs or {}
        if action_name == "BooleanOptionalAction":
            return make_flag(
                names,
                takes_value=False,
                nargs=0,
                default=value,
                help_=meta.help,
                action="boolean_optional",
                negations=negations_for(names),
                deprecated=deprecation_from_help(meta.help),
            )
        nargs = kw.get("nargs")
        type_name = infer_type_name(("name", kw["type"])) if "type" in kw else "str"
        return make_flag(
            names,
            takes_value=nargs != 0,
            nargs=nargs,
            type_=type_name,
            choices=kw.get("choices"),
            default=value,
            help_=meta.help,
            action=f"custom:{action_name}",
            deprecated=deprecation_from_help(meta.help),
        )

    inner = unwrap_optional(tp)
    deprecated = deprecation_from_help(meta.help)
    if inner[0] == "literal":
        literal = inner[1]
        choices = meta.choices or literal
        type_name = (
            type_parser_name(meta.type_parser)
            if meta.type_parser
            else literal_value_type(literal[0])
            if literal
            else "str"
        )
        return make_flag(
            names,
            takes_value=True,
            type_=type_name,
            choices=choices,
            default=value,
            help_=meta.help,
            deprecated=deprecated,
        )
    if inner[0] == "list" and meta.type_parser is None:
        return make_flag(
            names,
            takes_value=True,
            nargs=meta.nargs or "+",
            type_=infer_type_name(inner[1]),
            choices=meta.choices or None,
            default=value,
            help_=meta.help,
            deprecated=deprecated,
        )
    if inner == ("name", "bool"):
        return make_flag(
            names,
            takes_value=False,
            nargs=0,
            default=value if has_default else False,
            help_=meta.help,
            action="store_true",
            deprecated=deprecated,
        )
    type_name = type_parser_name(meta.type_parser) if meta.type_parser else infer_type_name(inner)
    required = (meta.required is True or (meta.required is None and not has_default)) and any(
        n.startswith("-") for n in names
    )
    return make_flag(
        names,
        takes_value=True,
        nargs=meta.nargs,
        type_=type_name,
        choices=meta.choices or None,
        default=value,
        required=required,
        help_=meta.help,
        deprecated=deprecated,
    )


def class_fields_to_flags(
    cls: ClassRef, ev: Evaluator, order: list[str]
) -> tuple[list[dict], dict[str, Any]]:
    """Flags of one field class, plus every field's default (for manual registrations).

    A default that does not resolve is an error only for a field that becomes a
    flag; for the others it is kept as the :class:`Unresolved` it raised, so a
    registration that really reads it fails with that reason.
    """
    scope = ev.class_scope(cls)
    path = ev.src.module_path(cls.module.name)
    # A field declared twice is one field, in the first one's place with the
    # last one's annotation (the class's __annotations__ dict works that way).
    flags: dict[str, dict | None] = {}
    defaults: dict[str, Any] = {}
    for stmt in cls.node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        name = stmt.target.id
        ann = stmt.annotation
        if isinstance(ann, ast.Subscript) and dotted(ann.value).rsplit(".", 1)[-1] == "ClassVar":
            continue
        meta = None
        elts: list[ast.expr] = []
        if isinstance(ann, ast.Subscript) and dotted(ann.value).rsplit(".", 1)[-1] in (
            "A",
            "Annotated",
        ):
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            for extra in elts[1:]:
                meta = parse_arg_meta(extra, ev, scope, order)
                if meta is not None:
                    break
        has_default = stmt.value is not None
        try:
            default = ev.eval(stmt.value, scope) if has_default else None
        except Unresolved as exc:
            if meta is not None and not meta.no_cli:
                raise CatalogError(f"{cls.node.name}.{name}: unresolved default ({exc})") from None
            default = exc
        defaults[name] = default
        if meta is None:
            flags[name] = None  # not annotated with CLI metadata: registered by hand, if at all
            continue
        try:
            tp = parse_type(elts[0], ev, scope)
        except Unresolved as exc:
            raise CatalogError(f"{cls.node.name}.{name}: unresolved type ({exc})") from None
        flag = field_to_flag(name, tp, meta, default, has_default)
        if flag is not None:
            flag["dest"] = name
            if flag["deprecated"] and path is not None:
                flag["removal"] = removal_date(ev.src.comment_above(path, stmt.lineno), meta.help)
        flags[name] = flag
    return [f for f in flags.values() if f is not None], defaults
