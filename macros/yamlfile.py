"""YAML reading that remembers where every value came from.

Owns turning a YAML file into plain Python data plus a map from each value's path (a tuple of
keys and list indexes) to its line and column, so later validation can point at the exact spot.
Rejects duplicate mapping keys, which plain PyYAML silently overwrites. Knows nothing about
recipes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import Problem, RecipeError

try:  # the C loader is several times faster on the cell database
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

Path_ = tuple[Any, ...]


class Marked:
    """Data of one YAML file and the (line, col) of every node, keyed by path."""

    def __init__(self, file: str, data: Any, marks: dict[Path_, tuple[int, int]]):
        self.file = file
        self.data = data
        self.marks = marks

    def where(self, path: Path_) -> tuple[int | None, int | None]:
        """Line and column of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.marks:
                return self.marks[path]
            path = path[:-1]
        return self.marks.get((), (None, None))

    def problem(self, path: Path_, message: str) -> Problem:
        line, col = self.where(path)
        return Problem(self.file, line, col, message)


def _construct(node: yaml.Node, path: Path_, marks: dict, problems: list, file: str) -> Any:
    marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, path + ("<key>",), {}, problems, file)
            if key in out:
                problems.append(Problem(file, key_node.start_mark.line + 1,
                                        key_node.start_mark.column + 1,
                                        f"duplicate key '{key}' (the first one is kept by YAML, "
                                        "so this one would be lost)"))
                continue
            out[key] = _construct(value_node, path + (key,), marks, problems, file)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(child, path + (i,), marks, problems, file)
                for i, child in enumerate(node.value)]
    return yaml.SafeLoader.construct_object(_scalar_loader, node, deep=True)


# A loader instance only used to resolve scalar values (ints, bools, nulls …).
_scalar_loader = yaml.SafeLoader("")


def load(path: Path | str, display: str | None = None) -> Marked:
    """Read ``path``; raise RecipeError with file:line:col for syntax errors and duplicate keys."""
    path = Path(path)
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecipeError([Problem(name, None, None, "file not found")]) from None
    except UnicodeDecodeError as exc:
        raise RecipeError([Problem(name, None, None, f"not UTF-8 text ({exc.reason})")]) from None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "YAML syntax error"
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        raise RecipeError([Problem(name, line, col, f"YAML syntax error: {what}")]) from None
    marks: dict[Path_, tuple[int, int]] = {}
    problems: list[Problem] = []
    data = None if node is None else _construct(node, (), marks, problems, name)
    if problems:
        raise RecipeError(problems)
    return Marked(name, data, marks)
