"""A small static evaluator for constant-like Python expressions across one wheel's modules.

Owns name lookup (imports, module and class constants, enums, zero-argument helpers) and the
value types it returns (:class:`ClassRef`, :class:`EnumMember`, …). Must not execute wheel code:
anything it cannot work out from the syntax raises :class:`Unresolved`.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from macros.catalog_build.wheels import SourceTree

ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}


class Unresolved(Exception):
    """The expression depends on something a static read cannot know."""


@dataclasses.dataclass(frozen=True)
class EnumMember:
    cls: str
    name: str
    value: Any


@dataclasses.dataclass(frozen=True)
class Builtin:
    name: str


@dataclasses.dataclass(frozen=True)
class External:
    """A name from outside the wheel (stdlib, torch, …), kept as a dotted path."""

    path: str


# Standard-library constants whose values argparse code passes around.
STDLIB_CONSTANTS = {
    "argparse.SUPPRESS": "==SUPPRESS==",
    "argparse.OPTIONAL": "?",
    "argparse.ZERO_OR_MORE": "*",
    "argparse.ONE_OR_MORE": "+",
    "argparse.REMAINDER": "...",
}


def external(path: str) -> Any:
    """A name from outside the wheel: its value when it is a known stdlib constant."""
    return STDLIB_CONSTANTS.get(path, External(path))


@dataclasses.dataclass
class ClassRef:
    node: ast.ClassDef
    module: ModuleScope

    @property
    def is_enum(self) -> bool:
        return any(dotted(b).rsplit(".", 1)[-1] in ENUM_BASES for b in self.node.bases)


@dataclasses.dataclass
class FuncRef:
    node: ast.FunctionDef
    module: ModuleScope


@dataclasses.dataclass
class ModuleRef:
    name: str


@dataclasses.dataclass
class LambdaRef:
    """A ``lambda`` without parameters (``field(default_factory=lambda: [...])``)."""

    node: ast.Lambda
    scope: Scope


@dataclasses.dataclass(frozen=True)
class BoundMethod:
    """A read-only method of a plain value, e.g. ``"x".lower`` or ``{...}.keys``."""

    obj: Any
    name: str


BUILTINS = {
    "list",
    "tuple",
    "set",
    "frozenset",
    "sorted",
    "dict",
    "int",
    "str",
    "float",
    "bool",
    "len",
    "reversed",
}


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for Name/Attribute chains; the unparsed text otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return dotted(node.value) + "." + node.attr
    return ast.unparse(node)


def collect_bindings(body: Iterable[ast.stmt], package: str) -> dict[str, tuple]:
    """Top-level names of a module/class/function body; the last binding wins.

    ``package`` is the dotted package used to resolve relative imports.
    """
    out: dict[str, tuple] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = ("value", stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.value is not None:
                out[stmt.target.id] = ("value", stmt.value)
        elif isinstance(stmt, ast.ClassDef):
            out[stmt.name] = ("class", stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[stmt.name] = ("func", stmt)
        elif isinstance(stmt, ast.ImportFrom):
            base = stmt.module or ""
            if stmt.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (stmt.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            for alias in stmt.names:
                out[alias.asname or alias.name] = ("from", base, alias.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    out[alias.asname] = ("module", alias.name)
                else:
                    top = alias.name.split(".")[0]
                    out[top] = ("module", top)
    return out


class Scope:
    """Name lookup for the evaluator: local bindings, then the parent scope."""

    def __init__(self, bindings: dict[str, tuple], parent: Scope | None, module: ModuleScope):
        self.bindings = bindings
        self.parent = parent
        self.module = module
        self.values: dict[str, Any] = {}

    def lookup(self, name: str, ev: Evaluator) -> Any:
        if name in self.values:
            return self.values[name]
        if name in self.bindings:
            value = ev.bind(self.bindings[name], self)
            self.values[name] = value
            return value
        if self.parent is not None:
            return self.parent.lookup(name, ev)
        if name in BUILTINS:
            return Builtin(name)
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        raise Unresolved(f"name {name!r}")


class ModuleScope(Scope):
    def __init__(self, name: str, tree: ast.Module, is_package: bool):
        package = name if is_package else name.rpartition(".")[0]
        super().__init__(collect_bindings(tree.body, package), None, self)
        self.name = name


class Evaluator:
    """Evaluate constant-like expressions across the modules of one wheel.

    Follows imports, module/class constants, ``X + [...]``, ``set()``/``list()``,
    enums, comprehensions and zero-argument helper functions (their final
    ``return``). Anything else raises :class:`Unresolved`.
    """

    def __init__(self, src: SourceTree, call_hooks: dict[str, Callable[..., Any]] | None = None):
        self.src = src
        self.modules: dict[str, ModuleScope] = {}
        self.call_hooks = call_hooks or {}
        self._depth = 0

    # -- modules and bindings ------------------------------------------------
    def module(self, name: str) -> ModuleScope:
        if name not in self.modules:
            path = self.src.module_path(name)
            if path is None:
                raise Unresolved(f"module {name!r} is not in the wheel")
            self.modules[name] = ModuleScope(
                name, self.src.tree(path), path.endswith("__init__.py")
            )
        return self.modules[name]

    def module_or_external(self, name: str) -> ModuleRef | External:
        return ModuleRef(name) if self.src.module_path(name) else External(name)

    def bind(self, binding: tuple, scope: Scope) -> Any:
        kind = binding[0]
        if kind == "value":
            return self.eval(binding[1], scope)
        if kind == "class":
            return ClassRef(binding[1], scope.module)
        if kind == "func":
            return FuncRef(binding[1], scope.module)
        if kind == "module":
            return self.module_or_external(binding[1])
        if kind == "from":
            _, base, attr = binding
            if self.src.module_path(base) is None:
                return external(f"{base}.{attr}")
            if self.src.module_path(f"{base}.{attr}") is not None:
                mod = self.module(base)
                if attr not in mod.bindings:
                    return ModuleRef(f"{base}.{attr}")
            return self.module(base).lookup(attr, self)
        if kind == "const":
            return binding[1]
        raise Unresolved(f"binding {kind}")

    # -- attributes ------------------------------------------------------------
    def getattr(self, obj: Any, attr: str) -> Any:
        if isinstance(obj, (FuncRef, ClassRef)) and attr == "__doc__":
            return ast.get_docstring(obj.node) or ""
        if isinstance(obj, ModuleRef):
            sub = f"{obj.name}.{attr}"
            mod = self.module(obj.name)
            if attr in mod.bindings:
                return mod.lookup(attr, self)
            if self.src.module_path(sub):
                return ModuleRef(sub)
            raise Unresolved(f"{sub}")
        if isinstance(obj, External):
            return external(f"{obj.path}.{attr}")
        if isinstance(obj, ClassRef):
            if obj.is_enum and attr in self.enum_members(obj):
                return self.enum_members(obj)[attr]
            scope = self.class_scope(obj)
            if attr in scope.bindings:
                return scope.lookup(attr, self)
            raise Unresolved(f"{obj.node.name}.{attr}")
        if isinstance(obj, EnumMember):
            if attr == "name":
                return obj.name
            if attr == "value":
                return obj.value
        if isinstance(obj, str) and attr in ("lower", "upper", "strip", "replace", "format"):
            return BoundMethod(obj, attr)
        if isinstance(obj, dict) and attr in ("keys", "values", "items"):
            return BoundMethod(obj, attr)
        raise Unresolved(f"attribute {attr!r} of {type(obj).__name__}")

    def class_scope(self, ref: ClassRef) -> Scope:
        package = ref.module.name
        scope = Scope(collect_bindings(ref.node.body, package), ref.module, ref.module)
        return scope

    def enum_members(self, ref: ClassRef) -> dict[str, EnumMember]:
        """Enum members in definition order; ``auto()`` counts from 1."""
        cache = getattr(ref, "_members", None)
        if cache is not None:
            return cache
        members: dict[str, EnumMember] = {}
        scope = self.class_scope(ref)
        last = 0
        str_enum = any(dotted(b).endswith("StrEnum") for b in ref.node.bases)
        for stmt in ref.node.body:
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                continue
            name = stmt.targets[0].id
            if name.startswith("_"):
                continue
            if isinstance(stmt.value, ast.Call) and dotted(stmt.value.func).endswith("auto"):
                value = name.lower() if str_enum else last + 1
            else:
                value = self.eval(stmt.value, scope)
            if isinstance(value, int) and not isinstance(value, bool):
                last = value
            members[name] = EnumMember(ref.node.name, name, value)
        ref._members = members  # type: ignore[attr-defined]
        return members

    # -- calls -----------------------------------------------------------------
    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        if isinstance(func, Builtin):
            return self.call_builtin(func.name, args)
        if isinstance(func, BoundMethod):
            result = getattr(func.obj, func.name)(*args, **kwargs)
            return list(result) if isinstance(func.obj, dict) else result
        if isinstance(func, LambdaRef):
            if args or kwargs:
                raise Unresolved("call of a lambda with arguments")
            return self.eval(func.node.body, func.scope)
        if isinstance(func, FuncRef):
            if func.node.name in self.call_hooks:
                return self.call_hooks[func.node.name](*args, **kwargs)
            if args or kwargs:
                raise Unresolved(f"call of {func.node.name} with arguments")
            return self.call_helper(func)
        if isinstance(func, External):
            short = func.path.rsplit(".", 1)[-1]
            if func.path in ("os.getenv", "os.environ.get"):
                # Flag defaults read from the environment: record the value seen
                # when the variable is unset.
                return args[1] if len(args) > 1 else kwargs.get("default")
            if short == "field" and func.path.split(".")[0] in ("dataclasses", "msgspec"):
                if "default" in kwargs:
                    return kwargs["default"]
                factory = kwargs.get("default_factory")
                if isinstance(factory, Builtin):
                    return self.call_builtin(factory.name, [])
                if isinstance(factory, LambdaRef):
                    return self.call(factory, [], {}, node)
        raise Unresolved(f"call {ast.unparse(node.func)}")

    def call_builtin(self, name: str, args: list[Any]) -> Any:
        if name in ("list", "tuple", "set", "frozenset", "sorted", "reversed"):
            items = self.iterate(args[0]) if args else []
            if name == "sorted":
                return sorted(items)
            if name == "reversed":
                return list(reversed(items))
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[name](items)
        if name == "dict" and not args:
            return {}
        if name in ("int", "str", "float", "bool") and len(args) == 1:
            return {"int": int, "str": str, "float": float, "bool": bool}[name](args[0])
        if name == "len" and len(args) == 1:
            return len(self.iterate(args[0]))
        raise Unresolved(f"builtin {name}")

    def iterate(self, value: Any) -> list:
        if isinstance(value, ClassRef) and value.is_enum:
            return list(self.enum_members(value).values())
        if isinstance(value, (list, tuple, set, frozenset, dict, str)):
            if isinstance(value, (set, frozenset)):
                return sorted(value, key=repr)
            return list(value)
        raise Unresolved(f"iterate {type(value).__name__}")

    def call_helper(self, func: FuncRef) -> Any:
        """A zero-argument helper's value is its final top-level ``return``."""
        if self._depth > 20:
            raise Unresolved("helper recursion")
        returns = [s for s in func.node.body if isinstance(s, ast.Return)]
        if not returns or returns[-1].value is None:
            raise Unresolved(f"helper {func.node.name} has no final return")
        scope = Scope(collect_bindings(func.node.body, func.module.name), func.module, func.module)
        self._depth += 1
        try:
            return self.eval(returns[-1].value, scope)
        finally:
            self._depth -= 1

    # -- expressions -------------------------------------------------------------
    def eval(self, node: ast.AST, scope: Scope) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return scope.lookup(node.id, self)
        if isinstance(node, ast.Attribute):
            return self.getattr(self.eval(node.value, scope), node.attr)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items: list = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    items.extend(self.iterate(self.eval(elt.value, scope)))
                else:
                    items.append(self.eval(elt, scope))
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Unresolved("dict unpacking")
            return {
                self.eval(k, scope): self.eval(v, scope) for k, v in zip(node.keys, node.values)
            }
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.eval(node.left, scope), self.eval(node.right, scope))
        if isinstance(node, ast.UnaryOp):
            val = self.eval(node.operand, scope)
            if isinstance(node.op, ast.USub):
                return -val
            if isinstance(node.op, ast.UAdd):
                return +val
            if isinstance(node.op, ast.Not):
                return not val
            raise Unresolved("unary op")
        if isinstance(node, ast.IfExp):
            return self.eval(node.body if self.eval(node.test, scope) else node.orelse, scope)
        if isinstance(node, ast.Call):
            func = self.eval(node.func, scope)
            if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords
            ):
                raise Unresolved("star arguments")
            args = [self.eval(a, scope) for a in node.args]
            kwargs = {k.arg: self.eval(k.value, scope) for k in node.keywords}
            return self.call(func, args, kwargs, node)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            values = self.comprehension(node, scope)
            return set(values) if isinstance(node, ast.SetComp) else values
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    parts.append(str(part.value))
                else:
                    val = self.eval(part.value, scope)
                    parts.append(repr(val) if part.conversion == ord("r") else str(val))
            return "".join(parts)
        if isinstance(node, ast.Subscript):
            container = self.eval(node.value, scope)
            if isinstance(container, (list, tuple, dict, str)):
                return container[self.eval(node.slice, scope)]
            raise Unresolved("subscript")
        if isinstance(node, ast.Lambda):
            params = node.args
            named = params.args or params.posonlyargs or params.kwonlyargs
            if named or params.vararg or params.kwarg:
                raise Unresolved("lambda with parameters")
            return LambdaRef(node, scope)
        if isinstance(node, ast.BoolOp):
            vals = [self.eval(v, scope) for v in node.values]
            if isinstance(node.op, ast.And):
                return all(vals)
            return any(vals)
        raise Unresolved(type(node).__name__)

    @staticmethod
    def binop(op: ast.operator, left: Any, right: Any) -> Any:
        ops = {
            ast.Add: lambda a, b: a + b,
            ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b,
            ast.Div: lambda a, b: a / b,
            ast.FloorDiv: lambda a, b: a // b,
            ast.Mod: lambda a, b: a % b,
            ast.Pow: lambda a, b: a**b,
            ast.BitOr: lambda a, b: a | b,
            ast.LShift: lambda a, b: a << b,
        }
        fn = ops.get(type(op))
        if fn is None or isinstance(left, (ClassRef, FuncRef, External, ModuleRef)):
            raise Unresolved("binary op")
        try:
            return fn(left, right)
        except TypeError:
            raise Unresolved("binary op types") from None

    def comprehension(self, node: ast.AST, scope: Scope) -> list:
        if len(node.generators) != 1:
            raise Unresolved("nested comprehension")
        gen = node.generators[0]
        if not isinstance(gen.target, ast.Name):
            raise Unresolved("comprehension target")
        out = []
        for item in self.iterate(self.eval(gen.iter, scope)):
            inner = Scope({}, scope, scope.module)
            inner.values[gen.target.id] = item
            if all(self.eval(cond, inner) for cond in gen.ifs):
                out.append(self.eval(node.elt, inner))
        return out
