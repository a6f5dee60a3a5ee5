"""Build the committed SGLang flag catalog from the released wheels.

This module owns ``recipes/catalog/sglang.json`` and
``recipes/catalog/sglang-router.json``: the list of every command-line flag
(and SGLang's registered environment variables) that recipe commands are
checked against.

It downloads the pinned ``sglang`` and ``sglang-router`` wheels with
``pip download`` into ``.build/wheels/``, opens them as zip files and reads
the source with :mod:`ast`. Nothing from the wheels is installed or imported:
a plain ``import sglang`` needs torch, and reading the source keeps the build
fast, offline once the wheels are cached, and safe.

What is read (SGLang 0.5.23 layout):

* ``sglang/srt/server_args.py``: ``_INPUT_NAMESPACES`` names the field classes
  in ``sglang/srt/arg_groups/fields/*.py``; each annotated field becomes a flag
  following the rules of ``arg_utils.add_cli_args_from_dataclass``. The
  hand-written ``parser.add_argument`` calls in ``ServerArgs.add_cli_args``
  are read as well.
* ``sglang/cli/serve.py``: the ``--model-type`` selector that ``sglang serve``
  strips before argparse runs.
* ``sglang/srt/environ.py``: ``class Envs``, the environment-variable registry.
* ``sglang_router/router_args.py``: ``RouterArgs.add_cli_args``.

Each flag entry has the same keys: ``name`` (canonical option string),
``aliases`` (every other option string, ``--no-*`` forms included; those are
also listed in ``negations``), ``takes_value``, ``nargs`` (null = one value,
0 = none, "?", "*", "+" or an int), ``type``, ``choices``, ``default``,
``required``, ``deprecated``, ``help`` (first sentence), ``action``,
``late_choices`` (+ ``late_choices_case_insensitive``) for values checked after
parsing, ``choices_source``/``notes`` saying where hand-supplied facts came
from, ``default_env`` (an env var that overrides the default) and ``programs``
(null = every program of the file). Env entries: ``name``, ``type``,
``default``, ``default_expr`` (set when the default is computed at run time)
and ``deprecated_alias``.

Usage::

    python -m macros.catalog_build            # regenerate the JSON files
    python -m macros.catalog_build --check    # compare with the committed ones
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import math
import re
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WHEEL_DIR = REPO_ROOT / ".build" / "wheels"
DEFAULT_CATALOG_DIR = REPO_ROOT / "recipes" / "catalog"

SGLANG = ("sglang", "0.5.23")
ROUTER = ("sglang-router", "0.3.2")

# Pin the wheel tags so the chosen file (and so ``wheel_sha256``) does not
# depend on the Python that runs the build: sglang ships per-CPython wheels.
_PIP_TAGS = {
    "--python-version": ["3.11"],
    "--implementation": ["cp"],
    "--abi": ["cp311", "abi3", "none"],
    "--platform": [
        "manylinux_2_34_x86_64",
        "manylinux_2_17_x86_64",
        "manylinux2014_x86_64",
        "any",
    ],
}
PIP_TAG_ARGS = [arg for opt, values in _PIP_TAGS.items() for v in values for arg in (opt, v)]
WHEEL_TAG_OK = re.compile(r"-(cp311-cp311|cp3\d+-abi3|py3-none)-")

# The router's --tool-call-parser choices come from the Rust extension
# (get_available_tool_call_parsers), which cannot be read statically.
ROUTER_TOOL_CALL_PARSERS = [
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
]
ROUTER_TOOL_CALL_PARSERS_SOURCE = "reference (Rust, not visible statically)"

# Facts about values that argparse does not check; they come from reading
# the code that consumes the parsed value, so they are notes, not rules.
FLAG_NOTES = {
    ("sglang", "--sampling-backend"): (
        "'token_oracle' is also accepted when SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE is set."
    ),
    ("sglang", "--speculative-algorithm"): (
        "No argparse choices; the name is checked case-insensitively after parsing "
        "(SpeculativeAlgorithm.from_string). NEXTN becomes EAGLE; NONE means disabled; "
        "plugins may register more names."
    ),
    ("sglang", "--speculative-draft-attention-backend"): (
        "No argparse choices; values outside DRAFT_ATTENTION_BACKEND_CHOICES fall back "
        "with a warning."
    ),
    ("sglang", "--enable-dp-attention"): (
        "Resolution turns --dp-size N --enable-dp-attention into --attn-dp-size N."
    ),
    ("sglang-router", "--prefill"): (
        "Repeatable (action=append). Format: URL [PORT|none]; a port that is neither an "
        "int nor 'none' raises ValueError after parsing (_parse_prefill_urls)."
    ),
    ("sglang-router", "--decode"): "Repeatable (action=append), one URL each time.",
    ("sglang-router", "--control-plane-api-keys"): (
        "Each value is id:name:role:key with role admin or user (checked after parsing)."
    ),
}

ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}


class CatalogError(Exception):
    """A problem the user can act on; printed as one line, never a traceback."""


class DownloadError(CatalogError):
    """pip could not fetch a wheel (typically: no network)."""


# ---------------------------------------------------------------------------
# Wheels
# ---------------------------------------------------------------------------


def wheel_prefix(package: str, version: str) -> str:
    """Wheel file names use the normalized project name with underscores."""
    return f"{re.sub(r'[-_.]+', '_', package).lower()}-{version}-"


def find_cached_wheel(wheel_dir: Path, package: str, version: str) -> Path | None:
    prefix = wheel_prefix(package, version)
    hits = sorted(
        p
        for p in wheel_dir.glob("*.whl")
        if p.name.lower().startswith(prefix) and WHEEL_TAG_OK.search(p.name)
    )
    return hits[0] if hits else None


NETWORK_ERROR = re.compile(
    r"Failed to establish a new connection: [^\"')]+|Temporary failure in name resolution"
    r"|Name or service not known|Network is unreachable|No route to host|Connection refused"
    r"|Read timed out|connect timeout|ProxyError|SSLError|ConnectionResetError"
)


def pip_failure(stderr: str) -> tuple[bool, str]:
    """(is it a network failure?, the most telling line) of pip's output."""
    match = NETWORK_ERROR.search(stderr)
    if match:
        return True, match.group(0).strip()
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR")]
    return False, (errors[-1] if errors else (lines[-1] if lines else "pip failed"))[:200]


def download_wheel(package: str, version: str, wheel_dir: Path, log: Callable[[str], None]) -> Path:
    """Return the cached wheel, downloading it with pip when missing."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    cached = find_cached_wheel(wheel_dir, package, version)
    if cached is not None:
        log(f"using cached {cached.name}")
        return cached
    log(f"downloading {package}=={version} …")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-input",
        "--timeout",
        "30",
        "--retries",
        "2",
        *PIP_TAG_ARGS,
        "-d",
        str(wheel_dir),
        f"{package}=={version}",
    ]
    try:
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise DownloadError(f"{package}=={version}: pip timed out") from None
    except OSError as exc:
        raise CatalogError(f"cannot run pip: {exc}") from None
    if proc.returncode != 0:
        network, reason = pip_failure(proc.stderr)
        if network:
            raise DownloadError(f"{package}=={version}: {reason}")
        raise CatalogError(f"pip download {package}=={version} failed: {reason}")
    found = find_cached_wheel(wheel_dir, package, version)
    if found is None:
        raise DownloadError(f"{package}=={version}: pip succeeded but no wheel in {wheel_dir}")
    return found


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class SourceTree:
    """Python sources of a wheel (or a dict, in tests), parsed on demand."""

    def __init__(self, files: dict[str, str] | None = None, zip_path: Path | None = None):
        self._files = files
        self._zip = zipfile.ZipFile(zip_path) if zip_path else None
        self._names = set(self._zip.namelist()) if self._zip else set(files or {})
        self._trees: dict[str, ast.Module] = {}
        self.parsed = 0

    def has(self, path: str) -> bool:
        return path in self._names

    def names(self) -> set[str]:
        return self._names

    def read(self, path: str) -> str:
        if self._zip is not None:
            return self._zip.read(path).decode("utf-8")
        return self._files[path]

    def tree(self, path: str) -> ast.Module:
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self.read(path), filename=path)
            except SyntaxError as exc:
                raise CatalogError(f"cannot parse {path}: {exc}") from None
            self.parsed += 1
        return self._trees[path]

    def module_path(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for cand in (base + ".py", base + "/__init__.py"):
            if cand in self._names:
                return cand
        return None


# ---------------------------------------------------------------------------
# A small static evaluator
# ---------------------------------------------------------------------------


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


@dataclasses.dataclass
class ClassRef:
    node: ast.ClassDef
    module: ModuleScope

    @property
    def is_enum(self) -> bool:
        return any(_dotted(b).rsplit(".", 1)[-1] in ENUM_BASES for b in self.node.bases)


@dataclasses.dataclass
class FuncRef:
    node: ast.FunctionDef
    module: ModuleScope


@dataclasses.dataclass
class ModuleRef:
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


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for Name/Attribute chains; the unparsed text otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
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
                return External(f"{base}.{attr}")
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
            return External(f"{obj.path}.{attr}")
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
            return ("strmethod", obj, attr)
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
        str_enum = any(_dotted(b).endswith("StrEnum") for b in ref.node.bases)
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
            if isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func).endswith("auto"):
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
        if isinstance(func, tuple) and func[0] == "strmethod":
            _, text, meth = func
            return getattr(text, meth)(*args, **kwargs)
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


# ---------------------------------------------------------------------------
# Flag records
# ---------------------------------------------------------------------------


SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?](?=\s+[A-Z(\"'`\[])")


def first_sentence(text: str) -> str:
    """The first sentence of a help text, whitespace collapsed."""
    text = " ".join(str(text or "").split())
    end = 0
    # A lone "Deprecated." says too little; keep going to the sentence that
    # names the replacement.
    while end < 20:
        match = SENTENCE_END.search(text, end)
        if not match:
            return text
        end = match.end()
    return text[:end]


def deprecation_from_help(text: str) -> str | None:
    """``"Deprecated. Use --x instead."`` / ``"(Deprecated: use --x) …"`` → message."""
    text = " ".join(str(text or "").split())
    m = re.match(r"^\(?\s*deprecated\b[.:,;]?\s*(.*)$", text, re.IGNORECASE)
    if not m:
        return None
    rest = m.group(1)
    use = re.match(
        r"(?:please\s+)?use\s+(.+?)(?:\s+instead\b.*|\).*|\.\s.*|\.?$)", rest, re.IGNORECASE
    )
    return f"deprecated: use {use.group(1)} instead" if use else "deprecated"


def static_text(node: ast.AST) -> str:
    """The literal parts of a string expression whose other parts do not resolve."""
    return "".join(
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )


def to_json(value: Any) -> Any:
    """Plain JSON value; sets are sorted so the output is deterministic."""
    if isinstance(value, EnumMember):
        return to_json(value.value)
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json(v) for v in value), key=lambda v: (type(v).__name__, repr(v)))
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no inf/nan
        return repr(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise Unresolved(f"value of type {type(value).__name__}")


def make_flag(
    names: list[str],
    *,
    takes_value: bool,
    nargs: Any = None,
    type_: str | None = "str",
    choices: Any = None,
    default: Any = None,
    required: bool = False,
    help_: str = "",
    action: str = "store",
    negations: list[str] | None = None,
    deprecated: str | None = None,
) -> dict:
    """One catalog entry; every entry has the same keys.

    ``aliases`` holds every other option string that selects this flag,
    including ``--no-*`` forms; ``negations`` says which of them store False.
    """
    return {
        "action": action,
        "aliases": list(names[1:]) + list(negations or []),
        "choices": None if choices is None else to_json(choices),
        "choices_source": None,
        "default": to_json(default),
        "default_env": None,
        "deprecated": deprecated,
        "help": first_sentence(help_),
        "late_choices": None,
        "late_choices_case_insensitive": False,
        "name": names[0],
        "nargs": nargs,
        "negations": list(negations or []),
        "notes": None,
        "programs": None,
        "required": bool(required),
        "takes_value": bool(takes_value),
        "type": type_ if takes_value else "bool",
    }


# ---------------------------------------------------------------------------
# Annotated dataclass fields (arg_utils.add_cli_args_from_dataclass rules)
# ---------------------------------------------------------------------------

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
    if not (isinstance(node, ast.Call) and _dotted(node.func).rsplit(".", 1)[-1] == "Arg"):
        return None
    raw: dict[str, ast.AST] = dict(zip(order, node.args))
    raw.update({k.arg: k.value for k in node.keywords if k.arg})
    meta = ArgMeta()
    for key, value in raw.items():
        if key == "type_parser":
            meta.type_parser = _dotted(value)
        elif key == "action":
            meta.action = _dotted(value)
        elif key == "action_kwargs":
            kw = {}
            for k, v in zip(value.keys, value.values):  # type: ignore[attr-defined]
                name = ev.eval(k, scope)
                kw[name] = _dotted(v) if name == "type" else ev.eval(v, scope)
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
        name = _dotted(node).rsplit(".", 1)[-1]
        if name == "List":  # typing.List alone still has origin list
            return ("list", ("name", "str"))
        return ("name", name)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return ("union", [parse_type(node.left, ev, scope), parse_type(node.right, ev, scope)])
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value).rsplit(".", 1)[-1]
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


def negations_for(names: list[str]) -> list[str]:
    """``BooleanOptionalAction`` adds ``--no-X`` for every ``--X``."""
    return ["--no-" + n[2:] for n in names if n.startswith("--")]


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
    """Flags of one field class, plus every field's default (for manual registrations)."""
    scope = ev.class_scope(cls)
    flags: list[dict] = []
    defaults: dict[str, Any] = {}
    for stmt in cls.node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        name = stmt.target.id
        ann = stmt.annotation
        if isinstance(ann, ast.Subscript) and _dotted(ann.value).rsplit(".", 1)[-1] == "ClassVar":
            continue
        has_default = stmt.value is not None
        try:
            default = ev.eval(stmt.value, scope) if has_default else None
        except Unresolved as exc:
            raise CatalogError(f"{cls.node.name}.{name}: unresolved default ({exc})") from None
        defaults[name] = default
        if not (
            isinstance(ann, ast.Subscript)
            and _dotted(ann.value).rsplit(".", 1)[-1] in ("A", "Annotated")
        ):
            continue  # not annotated with CLI metadata: registered by hand, if at all
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        meta = None
        for extra in elts[1:]:
            meta = parse_arg_meta(extra, ev, scope, order)
            if meta is not None:
                break
        if meta is None:
            continue
        try:
            tp = parse_type(elts[0], ev, scope)
        except Unresolved as exc:
            raise CatalogError(f"{cls.node.name}.{name}: unresolved type ({exc})") from None
        flag = field_to_flag(name, tp, meta, default, has_default)
        if flag is not None:
            flags.append(flag)
    return flags, defaults


# ---------------------------------------------------------------------------
# Hand-written add_argument calls
# ---------------------------------------------------------------------------


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
    return _dotted(node) if node is not None else "str"


def add_argument_to_flag(call: ast.Call, ev: Evaluator, scope: Scope) -> dict:
    """A literal ``parser.add_argument(...)`` call → catalog entry."""
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
    help_ = get("help", "") or ""
    if info.deprecated:
        new_flag = get("new_flag")
        error_message = get("error_message")
        deprecated = (
            f"deprecated: use {new_flag} instead" if new_flag else error_message or "deprecated"
        )
    else:
        deprecated = deprecation_from_help(help_)
    choices = None
    if "choices" in kwnodes:
        try:
            choices = ev.eval(kwnodes["choices"], scope)
        except Unresolved:
            choices = Unresolved  # the caller may fill these from a known source
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
    )
    if choices is Unresolved:
        flag["choices_source"] = "UNRESOLVED:" + ast.unparse(kwnodes["choices"])
    if "default" in kwnodes:
        env = [
            n
            for n in ast.walk(kwnodes["default"])
            if isinstance(n, ast.Call)
            and _dotted(n.func) in ("os.getenv", "os.environ.get")
            and n.args
            and isinstance(n.args[0], ast.Constant)
        ]
        if env:
            flag["default_env"] = env[0].args[0].value
    return flag


def walk_add_arguments(func: FuncRef, ev: Evaluator, params: dict[str, Any]) -> list[dict]:
    """Walk a function body in order, collecting ``*.add_argument(...)`` calls.

    Local assignments are tracked so choices built in locals resolve; an ``if``
    whose test resolves follows its branch, one that does not (it reads the
    environment at parse time) is skipped unless it registers flags itself.
    """
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
    flags: list[dict] = []

    def walk(body: list[ast.stmt]) -> None:
        for stmt in body:
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
                flags.append(add_argument_to_flag(stmt.value, ev, scope))
            elif isinstance(stmt, ast.If):
                try:
                    taken = ev.eval(stmt.test, scope)
                except Unresolved:
                    if _registers_flags(stmt):
                        raise CatalogError(
                            f"{func.node.name}: flags registered under an unresolvable "
                            f"condition: if {ast.unparse(stmt.test)}"
                        ) from None
                    continue
                walk(stmt.body if taken else stmt.orelse)
            elif _registers_flags(stmt):
                raise CatalogError(
                    f"{func.node.name}: cannot follow {type(stmt).__name__} "
                    f"at line {stmt.lineno} that registers flags"
                )

    walk(func.node.body)
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


def parser_allow_abbrev(func: ast.FunctionDef) -> bool:
    """``allow_abbrev`` of the ``ArgumentParser(...)`` built in ``func`` (argparse default True)."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _dotted(node.func).endswith("ArgumentParser"):
            for kw in node.keywords:
                if kw.arg == "allow_abbrev" and isinstance(kw.value, ast.Constant):
                    return bool(kw.value.value)
            return True
    raise CatalogError(f"{func.name}: no ArgumentParser(...) call")


# ---------------------------------------------------------------------------
# SGLang
# ---------------------------------------------------------------------------

SERVER_ARGS = "sglang/srt/server_args.py"


def sglang_namespace_classes(src: SourceTree, ev: Evaluator) -> list[ClassRef]:
    """The field classes listed in ``_INPUT_NAMESPACES``, in order."""
    mod = ev.module("sglang.srt.server_args")
    if "_INPUT_NAMESPACES" not in mod.bindings:
        raise CatalogError("_INPUT_NAMESPACES not found in server_args.py (layout changed?)")
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
    aliases = ev.module("sglang.srt.speculative.spec_registry").lookup("_RESERVED_ALIASES", ev)
    source = (
        "SpeculativeAlgorithm members except NONE (sglang/srt/speculative/spec_info.py) "
        "+ _RESERVED_ALIASES (sglang/srt/speculative/spec_registry.py)"
    )
    return sorted(set(names) | set(aliases)), source


def model_type_flag(ev: Evaluator) -> dict:
    """``sglang serve --model-type``: stripped from argv before argparse runs."""
    serve = ev.module("sglang.cli.serve")
    func = serve.lookup("_create_backend_registry", ev)
    backends: list[str] = []
    for node in ast.walk(func.node):
        if isinstance(node, ast.Dict):
            backends = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            break
    reserved = ev.module("sglang.cli.serve_backends").lookup("RESERVED_SERVE_BACKEND_NAMES", ev)
    flag = make_flag(
        ["--model-type"],
        takes_value=True,
        choices=sorted(reserved) + backends,
        default="auto",
        help_="Serving backend override for `sglang serve` (default: auto-detect).",
    )
    flag["programs"] = ["sglang serve"]
    flag["notes"] = (
        "Handled by sglang serve before argparse (not an abbreviation target); "
        "installed plugins may add backends."
    )
    return flag


def extract_sglang(src: SourceTree) -> dict:
    flags: list[dict] = []
    field_defaults: dict[str, Any] = {}
    ev = Evaluator(src, call_hooks={"_declared_default": lambda name: field_defaults[name]})
    order = arg_positional_order(src)
    for cls in sglang_namespace_classes(src, ev):
        cls_flags, defaults = class_fields_to_flags(cls, ev, order)
        flags.extend(cls_flags)
        for name, value in defaults.items():
            if name in field_defaults:
                raise CatalogError(f"field {name} is declared by two namespaces")
            field_defaults[name] = value

    server_args = ev.module("sglang.srt.server_args")
    # The module later rebinds ServerArgs to a msgspec.defstruct(...) result;
    # the hand-written registrations live on the class statement.
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
    apply_notes(flags, "sglang")
    unresolved = [
        f["name"] for f in flags if str(f["choices_source"] or "").startswith("UNRESOLVED")
    ]
    if unresolved:
        raise CatalogError(f"unresolved choices for {', '.join(unresolved)}")
    return {"flags": flags, "env": extract_env(src), "allow_abbrev": allow_abbrev}


def index_flags(flags: list[dict]) -> dict[str, dict]:
    """Map every option string to its entry; a duplicate is an extraction bug."""
    out: dict[str, dict] = {}
    for flag in flags:
        for opt in [flag["name"], *flag["aliases"]]:
            if opt in out:
                raise CatalogError(f"option {opt} registered twice")
            out[opt] = flag
    return out


def apply_notes(flags: list[dict], package: str) -> None:
    for flag in flags:
        note = FLAG_NOTES.get((package, flag["name"]))
        if note:
            flag["notes"] = note


ENV_PATH = "sglang/srt/environ.py"


def extract_env(src: SourceTree, path: str = ENV_PATH) -> list[dict]:
    """``class Envs`` entries: ``NAME = EnvBool(default)`` and friends."""
    if not src.has(path):
        raise CatalogError(f"{path} not found in the wheel")
    ev = Evaluator(src)
    module_name = path[:-3].replace("/", ".")
    scope = ev.module(module_name)
    envs = find_class(src.tree(path), "Envs")
    out = []
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
        kind = _dotted(value.func).rsplit(".", 1)[-1]
        m = re.fullmatch(r"Env([A-Za-z]+?)(?:WithAlias)?", kind)
        if not m:
            continue
        out.append(env_entry(target, m.group(1), value, ev, scope))
    return sorted(out, key=lambda e: e["name"])


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


# ---------------------------------------------------------------------------
# sglang-router
# ---------------------------------------------------------------------------

ROUTER_ARGS = "sglang_router/router_args.py"
ROUTER_LAUNCH = "sglang_router/launch_router.py"


def extract_router(src: SourceTree) -> dict:
    if not src.has(ROUTER_ARGS):
        raise CatalogError(f"{ROUTER_ARGS} not found in the wheel")
    ev = Evaluator(src)
    module = ev.module("sglang_router.router_args")
    cls = module.lookup("RouterArgs", ev)
    func = FuncRef(find_method(cls.node, "add_cli_args"), module)
    flags = walk_add_arguments(func, ev, {"use_router_prefix": False})
    for flag in flags:
        if flag["name"] == "--tool-call-parser" and str(flag["choices_source"]).startswith(
            "UNRESOLVED"
        ):
            flag["choices"] = list(ROUTER_TOOL_CALL_PARSERS)
            flag["choices_source"] = ROUTER_TOOL_CALL_PARSERS_SOURCE
    apply_notes(flags, "sglang-router")
    index_flags(flags)
    unresolved = [
        f["name"] for f in flags if str(f["choices_source"] or "").startswith("UNRESOLVED")
    ]
    if unresolved:
        raise CatalogError(f"router: unresolved choices for {', '.join(unresolved)}")
    allow_abbrev = parser_allow_abbrev(find_function(src.tree(ROUTER_LAUNCH), "parse_router_args"))
    return {"flags": flags, "env": [], "allow_abbrev": allow_abbrev}


# ---------------------------------------------------------------------------
# Catalog documents
# ---------------------------------------------------------------------------

TARGETS = [
    # (package, version, output file, programs, extractor)
    (
        SGLANG[0],
        SGLANG[1],
        "sglang.json",
        ["sglang serve", "python3 -m sglang.launch_server"],
        extract_sglang,
    ),
    (
        ROUTER[0],
        ROUTER[1],
        "sglang-router.json",
        ["python3 -m sglang_router.launch_router"],
        extract_router,
    ),
]


def build_document(
    package: str,
    version: str,
    wheel: Path,
    programs: list[str],
    extractor: Callable[[SourceTree], dict],
    log: Callable[[str], None],
) -> dict:
    src = SourceTree(zip_path=wheel)
    started = time.perf_counter()
    try:
        result = extractor(src)
    except Unresolved as exc:
        raise CatalogError(f"{package}: could not resolve {exc}") from None
    except RecursionError:
        raise CatalogError(f"{package}: circular definition while resolving constants") from None
    elapsed = time.perf_counter() - started
    log(f"{package}: parsed {src.parsed} files in {elapsed:.2f}s")
    flags = sorted(result["flags"], key=lambda f: f["name"])
    return {
        "allow_abbrev": result["allow_abbrev"],
        "env": result["env"],
        "flags": flags,
        "package": package,
        "programs": programs,
        "version": version,
        "wheel": wheel.name,
        "wheel_sha256": sha256_of(wheel),
    }


def render(doc: dict) -> str:
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def option_strings(doc: dict) -> int:
    return sum(1 + len(f["aliases"]) for f in doc["flags"])


def summarize_diff(old: dict | None, new: dict, label: str) -> list[str]:
    """Which flags / env vars were added, removed or changed, unified-diff style."""
    lines = [f"--- {label} (committed)", f"+++ {label} (regenerated from {new['wheel']})"]
    if old is None:
        return lines + ["+ (whole file: committed copy missing or unreadable)"]
    for key in ("package", "version", "wheel", "wheel_sha256", "programs", "allow_abbrev"):
        if old.get(key) != new.get(key):
            lines.append(f"~ {key}: {json.dumps(old.get(key))} -> {json.dumps(new.get(key))}")
    for section, key in (("flags", "name"), ("env", "name")):
        before = {e[key]: e for e in old.get(section, [])}
        after = {e[key]: e for e in new.get(section, [])}
        for name in sorted(set(before) | set(after)):
            if name not in before:
                lines.append(f"+ {section[:-1] if section == 'flags' else 'env'} {name}")
            elif name not in after:
                lines.append(f"- {section[:-1] if section == 'flags' else 'env'} {name}")
            elif before[name] != after[name]:
                for field in sorted(set(before[name]) | set(after[name])):
                    a, b = before[name].get(field), after[name].get(field)
                    if a != b:
                        lines.append(
                            f"~ {name}.{field}: {json.dumps(a)[:120]} -> {json.dumps(b)[:120]}"
                        )
    if len(lines) == 2:
        lines.append("~ formatting only (same content, different bytes); regenerate to fix")
    return lines


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m macros.catalog_build",
        description="Extract the SGLang / sglang-router flag catalog from the released wheels.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare a fresh extraction with the committed catalog; exit 1 on drift",
    )
    parser.add_argument(
        "--allow-offline",
        action="store_true",
        help="with --check: exit 0 (skipped) when the wheels cannot be downloaded",
    )
    parser.add_argument(
        "--wheel-dir",
        type=Path,
        default=DEFAULT_WHEEL_DIR,
        help="wheel cache (default: .build/wheels)",
    )
    parser.add_argument(
        "--catalog-dir",
        type=Path,
        default=DEFAULT_CATALOG_DIR,
        help="where the JSON catalog lives (default: recipes/catalog)",
    )
    return parser.parse_args(argv)


def log(message: str) -> None:
    print(f"catalog: {message}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        wheels = [download_wheel(pkg, ver, args.wheel_dir, log) for pkg, ver, *_ in TARGETS]
    except DownloadError as exc:
        if args.check:
            print(f"catalog check skipped: cannot download wheels ({exc})")
            return 0 if args.allow_offline else 2
        print(f"catalog: error: cannot download wheels ({exc})", file=sys.stderr)
        return 2

    status = 0
    for (package, version, filename, programs, extractor), wheel in zip(TARGETS, wheels):
        doc = build_document(package, version, wheel, programs, extractor, log)
        text = render(doc)
        out = args.catalog_dir / filename
        counts = (
            f"{len(doc['flags'])} flags ({option_strings(doc)} option strings)"
            f" / {len(doc['env'])} env vars"
        )
        if args.check:
            committed = out.read_text(encoding="utf-8") if out.exists() else None
            if committed == text:
                log(f"{filename}: up to date ({counts})")
                continue
            try:
                old = json.loads(committed) if committed is not None else None
            except ValueError:
                old = None
            print(
                "\n".join(
                    summarize_diff(
                        old,
                        doc,
                        str(out.relative_to(REPO_ROOT) if out.is_relative_to(REPO_ROOT) else out),
                    )
                )
            )
            status = 1
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            log(f"wrote {out.name}: {counts}")
    if args.check and status:
        print("catalog is stale: run `python -m macros.catalog_build` and commit the result")
    return status


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return run(args)
    except CatalogError as exc:
        print(f"catalog: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, zipfile.BadZipFile) as exc:
        print(f"catalog: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
