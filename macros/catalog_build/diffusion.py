"""What one sglang release's diffusion CLI defines: ``sglang serve`` for a diffusion model and
``sglang generate``, and how ``sglang serve`` chooses between its two CLIs.

Owns the reader of the multimodal-generation entry points of a wheel
(``sglang/multimodal_gen/runtime/entrypoints/cli/serve.py`` and ``generate.py``): the parser
each builds, followed call by call into the helpers that register flags (``ServerArgs``,
``PipelineConfig``, ``VAEConfig`` … ``add_cli_args``, a local ``add_argument`` wrapper, prefixes
given as f-strings); the option families ``ServerArgs.from_cli_args`` takes out of the words
argparse left over (``--component-paths.<component>`` and the like, read from its
``_extract_component_*`` helpers); and the dispatch facts of ``sglang serve``
(``sglang/cli/serve.py``, ``sglang/cli/utils.py``): the ``--model-type`` values, the
detectors ``get_is_diffusion_model`` consults in order, the index files that mark a Diffusers
folder and the model names its registry knows without a download.

Must not import or run wheel code, and must not guess: a registration it cannot follow is a
:class:`CatalogError` naming the place. The LLM server's reader is ``sglang.py``; the two
share the evaluator and the ``add_argument`` rules (``registrations.py``).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from macros.catalog_build.evaluator import (ClassRef, EnumMember, Evaluator, FuncRef, ModuleScope,
                                            Scope, Unresolved, collect_bindings, dotted)
from macros.catalog_build.diffusion_dispatch import dispatch_facts
from macros.catalog_build.records import index_flags, unresolved_choices
from macros.catalog_build.registrations import add_argument_to_flag
from macros.catalog_build.wheels import CatalogError, SourceTree

CLI = "sglang.multimodal_gen.runtime.entrypoints.cli"
# Each program, the entry function that builds its parser, and the module that holds it.
ENTRY = {
    "sglang serve": (f"{CLI}.serve", "add_multimodal_gen_serve_args"),
    "sglang generate": (f"{CLI}.generate", "add_multimodal_gen_generate_args"),
}
SERVER_ARGS_MODULE = "sglang.multimodal_gen.runtime.server_args"
# The hook a pipeline config implements to add flags of its own once the model is known.
PIPELINE_HOOK = "add_pipeline_cli_args"


class DiffusionEvaluator(Evaluator):
    """The shared evaluator plus what the diffusion CLI's prefixes and tables need:
    comparisons (``prefix.strip() != ""``) and ``**`` entries in a dict literal."""

    def eval(self, node: ast.AST, scope: Scope) -> Any:
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = self.eval(node.left, scope)
            right = self.eval(node.comparators[0], scope)
            op = type(node.ops[0])
            table = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                     ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
                     ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}
            if op not in (ast.Is, ast.IsNot) and not all(_plain(v) for v in (left, right)):
                raise Unresolved("comparison")
            if op not in table:
                raise Unresolved("comparison")
            return table[op](left, right)
        if isinstance(node, ast.Dict) and any(k is None for k in node.keys):
            out: dict = {}
            for key, value in zip(node.keys, node.values):
                if key is None:
                    inner = self.eval(value, scope)
                    if not isinstance(inner, dict):
                        raise Unresolved("dict unpacking of a non-dict")
                    out.update(inner)
                else:
                    out[self.eval(key, scope)] = self.eval(value, scope)
            return out
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "isinstance" and len(node.args) == 2:
            value, kind = self.eval(node.args[0], scope), self.eval(node.args[1], scope)
            if isinstance(kind, ClassRef) and isinstance(value, EnumMember):
                return value.cls == kind.node.name
            if isinstance(kind, ClassRef) and _plain(value):
                return False  # a plain constant is no instance of a class of the wheel
            raise Unresolved("isinstance")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and not node.args and not node.keywords:
            holder = self.eval(node.func.value, scope)
            method = self.getattr(holder, node.func.attr)
            params = method.node.args.args if isinstance(method, FuncRef) else []
            if isinstance(holder, ClassRef) and params and params[0].arg == "cls":
                # ``Backend.choices()``: a classmethod's final return, with cls bound
                returns = [s for s in method.node.body if isinstance(s, ast.Return)]
                if not returns or returns[-1].value is None:
                    raise Unresolved(f"classmethod {node.func.attr} has no final return")
                inner = Scope(collect_bindings(method.node.body, method.module.name),
                              method.module, method.module)
                inner.values["cls"] = holder
                return self.eval(returns[-1].value, inner)
        if isinstance(node, ast.DictComp) and len(node.generators) == 1:
            gen = node.generators[0]
            if not isinstance(gen.target, ast.Name):
                raise Unresolved("comprehension target")
            out = {}
            for item in self.iterate(self.eval(gen.iter, scope)):
                inner = Scope({}, scope, scope.module)
                inner.values[gen.target.id] = item
                if all(self.eval(cond, inner) for cond in gen.ifs):
                    out[self.eval(node.key, inner)] = self.eval(node.value, inner)
            return out
        return super().eval(node, scope)

    def getattr(self, obj: Any, attr: str) -> Any:
        """A class attribute the class does not define is looked up in its bases, in order."""
        try:
            return super().getattr(obj, attr)
        except Unresolved:
            if not isinstance(obj, ClassRef):
                raise
            for base in obj.node.bases:
                try:
                    parent = self.eval(base, obj.module)
                except Unresolved:
                    continue
                if isinstance(parent, ClassRef):
                    try:
                        return self.getattr(parent, attr)
                    except Unresolved:
                        continue
            raise


_WRAPPER = object()  # a parameter bound to an add_argument wrapper: never None


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, tuple, list, set,
                                               frozenset, dict))


# ---------------------------------------------------------------------------
# Following a parser through the helpers that fill it
# ---------------------------------------------------------------------------


class ParserWalk:
    """Every flag one program's parser gets, in registration order, and the hooks it meets."""

    def __init__(self, ev: DiffusionEvaluator):
        self.ev = ev
        self.flags: list[dict] = []
        self.hooks: list[str] = []  # functions that hand the parser to a model's own config
        self._depth = 0

    def function(self, func: FuncRef, args: list[ast.AST], keywords: list[ast.keyword],
                 caller: Scope | None, caller_parsers: set[str],
                 owner: ClassRef | None = None,
                 caller_wrappers: dict[str, dict[str, ast.AST]] | None = None) -> None:
        """Walk ``func`` called with ``args``/``keywords`` from ``caller``."""
        if self._depth > 12:
            raise CatalogError(f"{func.node.name}: helpers nested too deeply")
        label = f"{func.module.name}.{func.node.name}"
        if _calls_attribute(func.node, PIPELINE_HOOK):
            self.hooks.append(label)  # decided per model at run time: recorded, not walked
            return
        module = func.module
        local_imports = {k: v for k, v in collect_bindings(func.node.body, module.name).items()
                         if v[0] in ("from", "module")}
        scope = Scope(local_imports, module, module)
        params = func.node.args.posonlyargs + func.node.args.args
        if params and params[0].arg in ("self", "cls") and _is_method_call(func):
            if owner is not None:  # cls.x reads the class the method was reached through
                scope.values[params[0].arg] = owner
            params = params[1:]
        parsers: set[str] = set()
        wrappers: dict[str, dict[str, ast.AST]] = {}
        defaults = func.node.args.defaults
        for param, default in zip(params[len(params) - len(defaults):], defaults):
            try:
                scope.values[param.arg] = self.ev.eval(default, module)
            except Unresolved:
                pass
        for kw_param, default in zip(func.node.args.kwonlyargs, func.node.args.kw_defaults):
            if default is not None:
                try:
                    scope.values[kw_param.arg] = self.ev.eval(default, module)
                except Unresolved:
                    pass
        given = list(zip(params, args)) + [
            (next((p for p in params + func.node.args.kwonlyargs if p.arg == k.arg), None),
             k.value) for k in keywords]
        for param, node in given:
            if param is None:
                raise CatalogError(f"{label}: called with an argument it has no parameter for")
            if isinstance(node, ast.Name) and node.id in caller_parsers:
                parsers.add(param.arg)
                continue
            if isinstance(node, ast.Name) and node.id in (caller_wrappers or {}):
                wrappers[param.arg] = caller_wrappers[node.id]  # a wrapper handed down
                scope.values[param.arg] = _WRAPPER
                continue
            try:
                scope.values[param.arg] = self.ev.eval(node, caller) if caller else None
            except Unresolved as exc:
                raise CatalogError(f"{label}: cannot resolve the value passed for "
                                   f"'{param.arg}' ({exc})") from None
        if not parsers and params:
            parsers.add(params[0].arg)
        self._depth += 1
        try:
            self.body(func.node.body, scope, parsers, func, label, wrappers)
        finally:
            self._depth -= 1

    def body(self, stmts: list[ast.stmt], scope: Scope, parsers: set[str], func: FuncRef,
             label: str, wrappers: dict[str, dict[str, ast.AST]]) -> None:
        path = self.ev.src.module_path(func.module.name) or ""
        for stmt in stmts:
            if isinstance(stmt, ast.FunctionDef):
                wrapped = _wrapper_defaults(stmt)
                if wrapped is not None:
                    wrappers[stmt.name] = wrapped
                continue
            if isinstance(stmt, ast.Return):
                if isinstance(stmt.value, ast.Call) and _passes_parser(stmt.value, parsers):
                    self.call(stmt.value, scope, parsers, func, label, wrappers, path)
                return
            if isinstance(stmt, ast.Try):
                self.body(stmt.body, scope, parsers, func, label, wrappers)
                continue
            if isinstance(stmt, ast.If):
                try:
                    if _reads_environment(stmt.test):  # known only when the program runs
                        raise Unresolved("reads the environment")
                    taken = self.ev.eval(stmt.test, scope)
                except Unresolved:
                    if _registers(stmt, parsers, wrappers):
                        raise CatalogError(f"{label}: flags registered under an unresolvable "
                                           f"condition: if {ast.unparse(stmt.test)}") from None
                    continue
                self.body(stmt.body if taken else stmt.orelse, scope, parsers, func, label,
                          wrappers)
                continue
            call = None
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                    and _passes_parser(stmt.value, parsers):
                call = stmt.value
                for target in stmt.targets:  # parser = X.add_cli_args(parser): still the parser
                    if isinstance(target, ast.Name):
                        parsers.add(target.id)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name):
                scope.bindings[stmt.targets[0].id] = ("value", stmt.value)
                scope.values.pop(stmt.targets[0].id, None)
                continue
            if call is None:
                if _registers(stmt, parsers, wrappers):
                    raise CatalogError(f"{label}: cannot follow {type(stmt).__name__} at line "
                                       f"{stmt.lineno} that registers flags")
                continue
            self.call(call, scope, parsers, func, label, wrappers, path)

    def call(self, call: ast.Call, scope: Scope, parsers: set[str], func: FuncRef, label: str,
             wrappers: dict[str, dict[str, ast.AST]], path: str) -> None:
        f = call.func
        comment = self.ev.src.comment_above(path, call.lineno) if path else ""
        if isinstance(f, ast.Attribute) and f.attr == "add_argument" \
                and isinstance(f.value, ast.Name) and f.value.id in parsers:
            self.flags.append(add_argument_to_flag(call, self.ev, scope, comment))
            return
        if isinstance(f, ast.Name) and f.id in wrappers:
            given = {k.arg for k in call.keywords}
            extra = [ast.keyword(arg=k, value=v) for k, v in wrappers[f.id].items()
                     if k not in given]
            wrapped = ast.Call(func=ast.Attribute(value=ast.Name(id="parser"),
                                                  attr="add_argument"),
                               args=call.args, keywords=call.keywords + extra)
            ast.copy_location(wrapped, call)
            self.flags.append(add_argument_to_flag(wrapped, self.ev, scope, comment))
            return
        if not _passes_parser(call, parsers):
            return
        owner = None
        try:
            if isinstance(f, ast.Attribute):
                holder = self.ev.eval(f.value, scope)
                owner = holder if isinstance(holder, ClassRef) else None
            callee = self.ev.eval(f, scope)
        except Unresolved as exc:
            raise CatalogError(f"{label}: cannot follow {ast.unparse(f)}(...), which is given "
                               f"the parser ({exc})") from None
        if isinstance(callee, ClassRef):
            raise CatalogError(f"{label}: {ast.unparse(f)} builds an object from the parser")
        if not isinstance(callee, FuncRef):
            raise CatalogError(f"{label}: {ast.unparse(f)} is not a function of the wheel")
        self.function(callee, call.args, call.keywords, scope, parsers, owner, wrappers)


def _is_method_call(func: FuncRef) -> bool:
    decorators = {dotted(d) for d in func.node.decorator_list}
    return "staticmethod" not in decorators


def _reads_environment(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and dotted(n.func) in ("os.getenv", "os.environ.get")
               for n in ast.walk(node))


def _calls_attribute(node: ast.AST, attr: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == attr for n in ast.walk(node))


def _passes_parser(call: ast.Call, parsers: set[str]) -> bool:
    values = list(call.args) + [k.value for k in call.keywords]
    return any(isinstance(v, ast.Name) and v.id in parsers for v in values)


def _registers(stmt: ast.stmt, parsers: set[str], wrappers: dict) -> bool:
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument":
                return True
            if isinstance(n.func, ast.Name) and n.func.id in wrappers:
                return True
            if _passes_parser(n, parsers):
                return True
    return False


def _wrapper_defaults(node: ast.FunctionDef) -> dict[str, ast.AST] | None:
    """A local ``def add_argument(*names, **kwargs)`` that forwards to the parser, with the
    keyword defaults it fills in (``kwargs.setdefault("default", SUPPRESS)``); else None."""
    forwards = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr == "add_argument" and any(isinstance(a, ast.Starred)
                                                             for a in n.args)
                   for n in ast.walk(node))
    if not forwards or node.args.vararg is None:
        return None
    out: dict[str, ast.AST] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr == "setdefault" and len(n.args) == 2 \
                and isinstance(n.args[0], ast.Constant):
            out[n.args[0].value] = n.args[1]
    return out


# ---------------------------------------------------------------------------
# Values argparse takes that a custom action reads itself
# ---------------------------------------------------------------------------


def custom_action_values(src: SourceTree, ev: DiffusionEvaluator, flags: list[dict]) -> None:
    """A ``custom:X`` action that fixes ``nargs``/``const`` in its ``super().__init__`` call
    (``StoreBoolean``: ``nargs="?"``) and compares the value it gets with constants
    (``values.lower() == "true"``): record that nargs and those values, matched ignoring case."""
    cache: dict[str, tuple[Any, list[str] | None]] = {}
    for flag in flags:
        action = flag["action"]
        if not action.startswith("custom:"):
            continue
        name = action.split(":", 1)[1]
        if name not in cache:
            cache[name] = _action_facts(src, name)
        nargs, values = cache[name]
        if nargs is not None:
            flag["nargs"] = nargs
            flag["takes_value"] = nargs != 0
            flag["type"] = "str" if flag["takes_value"] else "bool"
        if values:
            flag["late_choices"] = values
            flag["late_choices_case_insensitive"] = True
            flag["choices_source"] = f"late: the values {name}.__call__ accepts"


def _action_facts(src: SourceTree, name: str) -> tuple[Any, list[str] | None]:
    for path in sorted(p for p in src.names() if p.startswith("sglang/multimodal_gen/")
                       and p.endswith(".py")):
        if f"class {name}" not in src.read(path):
            continue
        for node in src.tree(path).body:
            if not (isinstance(node, ast.ClassDef) and node.name == name):
                continue
            nargs, values = None, []
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                for n in ast.walk(item):
                    if item.name == "__init__" and isinstance(n, ast.Call) \
                            and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__":
                        for kw in n.keywords:
                            if kw.arg == "nargs" and isinstance(kw.value, ast.Constant):
                                nargs = kw.value.value
                    if item.name == "__call__" and isinstance(n, ast.Compare) \
                            and isinstance(n.ops[0], ast.Eq) \
                            and isinstance(n.left, ast.Call) \
                            and isinstance(n.left.func, ast.Attribute) \
                            and n.left.func.attr == "lower":
                        for c in n.comparators:
                            if isinstance(c, ast.Constant) and isinstance(c.value, str):
                                values.append(c.value)
            return nargs, (values or None)
    return None, None


# ---------------------------------------------------------------------------
# Option families from_cli_args takes from the words argparse did not know
# ---------------------------------------------------------------------------


def leftover_families(src: SourceTree, ev: DiffusionEvaluator) -> list[dict]:
    """``ServerArgs.from_cli_args`` hands what argparse left over to its ``_extract_*``
    helpers in order, then refuses whatever remains: each helper is one family of options,
    a prefix (``--component-paths.``) followed by a component name, or ``--<component>`` and
    a suffix (``--text-encoder-path``); how many values it takes is read from its body."""
    mod = ev.module(SERVER_ARGS_MODULE)
    server_args = mod.lookup("ServerArgs", ev)
    if not isinstance(server_args, ClassRef):
        raise CatalogError("ServerArgs is not a class")
    methods = {n.name: n for n in server_args.node.body if isinstance(n, ast.FunctionDef)}
    entry = methods.get("from_cli_args")
    if entry is None:
        raise CatalogError("ServerArgs.from_cli_args not found")
    families: list[dict] = []
    refuses = False
    for node in ast.walk(entry):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "cls" \
                and node.func.attr.startswith("_extract_"):
            method = methods.get(node.func.attr)
            if method is None:
                raise CatalogError(f"ServerArgs.{node.func.attr} not found")
            owner = ClassRef(server_args.node, server_args.module)
            families.append(_family(method, methods, ev, owner))
        if isinstance(node, ast.Raise) and "unrecognized arguments" in ast.unparse(node):
            refuses = True
    families.sort(key=lambda f: f["order"])
    for f in families:
        del f["order"]
    if families and not refuses:
        raise CatalogError("ServerArgs.from_cli_args: words left over are not refused; "
                           "the families would not be the whole story")
    return families


def _family(method: ast.FunctionDef, methods: dict, ev: DiffusionEvaluator,
            cls: ClassRef) -> dict:
    scope = Scope({}, cls.module, cls.module)
    prefixes: list[str] = []
    suffix = None
    body = method
    for n in ast.walk(method):  # a thin wrapper around the shared map reader
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in methods and n.func.attr != method.name:
            for kw in n.keywords:
                if kw.arg == "option_prefixes":
                    prefixes = list(ev.eval(kw.value, scope))
                elif kw.arg == "alias_suffix":
                    suffix = ev.eval(kw.value, scope)
            body = methods[n.func.attr]
    if not prefixes:
        for n in ast.walk(method):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "prefixes":
                prefixes = list(ev.eval(n.value, scope))
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr == "startswith" and n.args \
                    and isinstance(n.args[0], ast.Constant) \
                    and str(n.args[0].value).startswith("--") and n.args[0].value != "--":
                prefixes.append(n.args[0].value)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr == "endswith" and n.args \
                    and isinstance(n.args[0], ast.Constant) and suffix is None:
                suffix = n.args[0].value  # --<component>-path
    if not prefixes:
        raise CatalogError(f"ServerArgs.{method.name}: no option prefix found")
    text = ast.unparse(body)
    if '("true", "false")' in text or "('true', 'false')" in text:
        values = "optional-bool"  # nothing, or true / false (either case)
    elif ".append(unknown_args[i])" in text.replace(" ", "") or "values.append" in text:
        values = "one-or-more"
    else:
        values = "one"
    return {"order": _position(method, methods),
            "method": method.name, "prefixes": sorted(dict.fromkeys(prefixes)),
            "suffix": suffix, "values": values}


def _position(method: ast.FunctionDef, methods: dict) -> int:
    entry = methods["from_cli_args"]
    for n in ast.walk(entry):
        if isinstance(n, ast.Attribute) and n.attr == method.name:
            return n.lineno * 1000 + n.col_offset
    return 0


# ---------------------------------------------------------------------------
# One release
# ---------------------------------------------------------------------------


def extract_diffusion(src: SourceTree) -> dict:
    """Both programs' flags, the option families, the dispatch facts and the hooks."""
    ev = DiffusionEvaluator(src)
    programs: dict[str, dict] = {}
    for program, (module_name, func_name) in ENTRY.items():
        try:
            module: ModuleScope = ev.module(module_name)
        except Unresolved as exc:
            raise CatalogError(f"{program}: {exc}") from None
        func = module.lookup(func_name, ev)
        if not isinstance(func, FuncRef):
            raise CatalogError(f"{program}: {func_name} is not a function")
        walk = ParserWalk(ev)
        walk.function(func, [ast.Name(id="parser")], [], None, {"parser"})
        custom_action_values(src, ev, walk.flags)
        index_flags(walk.flags)  # raises on an option string registered twice
        unresolved = unresolved_choices(walk.flags)
        if unresolved:
            raise CatalogError(f"{program}: unresolved choices for {', '.join(unresolved)}")
        programs[program] = {"flags": walk.flags, "hooks": sorted(set(walk.hooks))}
    return {
        "serve": programs["sglang serve"]["flags"],
        "generate": programs["sglang generate"]["flags"],
        "hooks": sorted(set(programs["sglang serve"]["hooks"])
                        | set(programs["sglang generate"]["hooks"])),
        "pipeline_flags": pipeline_hook_classes(src),
        "families": leftover_families(src, ev),
        "env": extract_env(src, ev),
        "dispatch": dispatch_facts(src, ev),  # diffusion_dispatch.py
    }


ENV_REGISTRY = "sglang/multimodal_gen/envs.py"
# A variable read where it is needed rather than through the registry: the first argument of
# one of these calls (the diffusion code and the platform helpers it shares with the LLM side).
# The lookahead names the letters the calls start with: without it the engine tries the whole
# alternation at every position of 14 MB of source per release (2.5 times as long).
_DIRECT_READ = re.compile(r"(?=[ge])\b(get_bool_env_var|get_int_env_var|getenv|environ\.get)"
                          r"\(\s*[\"']([A-Z][A-Z0-9_]{2,})[\"']")


def extract_env(src: SourceTree, ev: DiffusionEvaluator) -> list[dict]:
    """What the diffusion server reads of the environment: the keys of its registry
    (``environment_variables`` in ``sglang/multimodal_gen/envs.py``, typed by the ``_lazy_X``
    helper that reads each) and the variables its code reads directly, each with where."""
    out: dict[str, dict] = {}
    if src.has(ENV_REGISTRY):
        module = ev.module(ENV_REGISTRY[:-3].replace("/", "."))
        table = module.bindings.get("environment_variables")
        if table is None or not isinstance(table[1], ast.Dict):
            raise CatalogError(f"{ENV_REGISTRY}: environment_variables is not a dict literal")
        for key, value in zip(table[1].keys, table[1].values):
            if not isinstance(key, ast.Constant):
                raise CatalogError(f"{ENV_REGISTRY}:{value.lineno}: a key that is no string")
            kind = dotted(value.func).lstrip("_") if isinstance(value, ast.Call) else "lambda"
            out[key.value] = {"default": None, "default_expr": None, "deprecated_alias": None,
                              "name": key.value, "type": kind.removeprefix("lazy_") or "str"}
    for path in sorted(src.names()):
        if not path.endswith(".py") or "/test/" in path or not (
                path.startswith("sglang/multimodal_gen/") or path.startswith("sglang/srt/utils")):
            continue
        for match in _DIRECT_READ.finditer(src.read(path)):
            name = match.group(2)
            if name not in out:
                out[name] = {"default": None, "default_expr": None, "deprecated_alias": None,
                             "name": name, "read": f"{path}, {match.group(1)}", "type": "str"}
    return sorted(out.values(), key=lambda e: e["name"])


def pipeline_hook_classes(src: SourceTree) -> list[str]:
    """The pipeline configs that implement the hook (their flags exist only for their model)."""
    out = []
    for path in sorted(src.names()):
        if path.startswith("sglang/multimodal_gen/") and path.endswith(".py") \
                and f"def {PIPELINE_HOOK}" in src.read(path):
            for node in ast.walk(src.tree(path)):
                if isinstance(node, ast.ClassDef) and any(
                        isinstance(b, ast.FunctionDef) and b.name == PIPELINE_HOOK
                        for b in node.body):
                    out.append(f"{path[:-3].replace('/', '.')}.{node.name}")
    return out
