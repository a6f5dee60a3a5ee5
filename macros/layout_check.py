"""The package's shape, checked: ``python -m macros.layout_check``.

Reads every module of ``macros`` with ``ast`` (nothing is imported or run) and prints the
import graph between the subpackages, the import circles between modules (none is allowed:
an import inside a function counts too, since it runs back up the layers all the same), the
imports that go against the layer order, and the modules over the size limit, each with the
reason its docstring gives (a paragraph that starts with ``Size:``). Exit 1 when there is a
circle, an import against the layers, or a module over the limit without a reason.

The layers, bottom to top: ``engine`` (the database and everything that reads it),
``catalog_build`` (the wheel extractor, which reads the flag history's format from the
engine), ``i18n`` (the translators' tools), ``site`` (page macros, the build, the preview),
``checkdocs`` (``recipes check PATH…``: doc formats, reports, fixes, the pytest plugin),
then the top-level modules (the CLI and this check). A module may import its own layer and
those below it.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
LAYERS = ("engine", "catalog_build", "i18n", "site", "checkdocs", "")  # "" = the top-level modules
LIMIT = 600  # lines


@dataclass
class Module:
    name: str  # dotted, e.g. macros.engine.resolve
    path: Path
    lines: int
    reason: str | None  # the docstring's "Size:" paragraph
    imports: set[str] = field(default_factory=set)

    @property
    def layer(self) -> str:
        parts = self.name.split(".")
        return parts[1] if len(parts) > 2 else ""


def _name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _size_reason(tree: ast.Module) -> str | None:
    doc = ast.get_docstring(tree) or ""
    for para in doc.split("\n\n"):
        if para.lstrip().startswith("Size:"):
            return " ".join(para.split())[len("Size:"):].strip()
    return None


def read(root: Path = PACKAGE) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    trees = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        name = _name(path, root)
        trees[name] = tree
        modules[name] = Module(name, path, len(path.read_text(encoding="utf-8").splitlines()),
                               _size_reason(tree))
    for name, tree in trees.items():
        is_pkg = modules[name].path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".")
                    base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod
                           for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target != root.name:
                    modules[name].imports.add(target)
    return modules


def circles(modules: dict[str, Module]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(modules):
        if start in index:
            continue
        work = [(start, iter(sorted(modules[start].imports)))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(modules[w].imports))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def against_layers(modules: dict[str, Module]) -> list[tuple[str, str]]:
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    bad = []
    for m in modules.values():
        for target in sorted(m.imports):
            t = modules[target]
            if m.layer not in rank or t.layer not in rank:
                bad.append((m.name, target))
            elif rank[t.layer] > rank[m.layer]:
                bad.append((m.name, target))
    return bad


def report(modules: dict[str, Module]) -> tuple[list[str], bool]:
    out: list[str] = []
    edges: dict[tuple[str, str], int] = {}
    for m in modules.values():
        for target in m.imports:
            a, b = m.layer or "(top)", modules[target].layer or "(top)"
            if a != b:
                edges[(a, b)] = edges.get((a, b), 0) + 1
    out.append("Imports between subpackages (importer -> imported: module imports):")
    for (a, b), n in sorted(edges.items()):
        out.append(f"  {a} -> {b}: {n}")
    ok = True
    found = circles(modules)
    out.append(f"Import circles between modules: {len(found) or 'none'}")
    for comp in found:
        ok = False
        out.append("  " + " <-> ".join(comp))
    bad = against_layers(modules)
    out.append(f"Imports against the layer order ({' < '.join(l or 'top' for l in LAYERS)}): "
               f"{len(bad) or 'none'}")
    for a, b in bad:
        ok = False
        out.append(f"  {a} imports {b}")
    big = sorted((m for m in modules.values() if m.lines > LIMIT), key=lambda m: -m.lines)
    out.append(f"Modules over {LIMIT} lines: {len(big) or 'none'}")
    for m in big:
        rel = m.path.relative_to(PACKAGE.parent) if m.path.is_relative_to(PACKAGE.parent) else m.path
        if m.reason:
            out.append(f"  {rel} ({m.lines} lines): {m.reason}")
        else:
            ok = False
            out.append(f"  {rel} ({m.lines} lines): no reason given (a 'Size:' paragraph in "
                       "its docstring says why it stays one module)")
    return out, ok


def main(argv: list[str] | None = None) -> int:
    lines, ok = report(read())
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
