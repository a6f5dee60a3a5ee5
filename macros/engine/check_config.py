"""SGLang's ``--config FILE``: the file whose keys a server reads as its options.

Owns finding the file a command names (beside the checked text: relative to the checked file,
or to the working folder for a command given on the command line) and turning it into the
arguments the server takes from it, as each CLI reads its file (``STYLES``, 0.5.23):

* the LLM server (``ARGS``): SGLang's ``ConfigArgumentMerger``
  (``sglang/srt/utils/server_args_config_parser.py``) puts the file's arguments in front of the
  command's own: each key ``k`` becomes ``--k`` as written; ``true`` gives a flag that takes no
  value alone and ``false`` leaves it out (any other boolean is ``--k true|false``); a list
  gives its items as the values, a mapping its JSON, anything else its text; a flag argparse
  would take more than one way (an append or ``--no-`` action) is an option the merger
  refuses; only ``.yaml``/``.yml`` files;
* the diffusion server (``FIELDS``): ``ServerArgs.from_cli_args``
  (``sglang/multimodal_gen/runtime/server_args/server_args.py``) loads a YAML or JSON mapping
  and lays the command's own options over it as the fields they set: a key is the field a flag
  stores (its argparse ``dest``: ``model_path`` for ``--model-path``); ``ServerArgs.from_dict``
  takes only the fields it has, so any other key (``model-path``) is silently ignored, which
  is reported here.

``sglang serve`` picks its server (``sglang/cli/serve.py``) by the model path on the command
line before either server reads the file: the checker reads the file only once the program
is known. Must not judge the flags (the checker does, as for any command) or run anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from macros.engine.catalog import Catalog


ARGS = "args"  # the LLM server's merger: a key is the flag --key
FIELDS = "fields"  # the diffusion server's ServerArgs: a key is the field a flag stores
STYLES = {"sglang": ARGS, "sglang-diffusion": FIELDS}  # by the catalog's package


def style(catalog: Catalog) -> str:
    """How the server of ``catalog``'s package reads a ``--config`` file."""
    return STYLES.get(catalog.package, ARGS)


def key_of(spec, catalog: Catalog) -> str:
    """The key a config file gives ``spec`` under, as the server of ``catalog`` reads it."""
    return spec.stored_as if style(catalog) == FIELDS else spec.name[2:]


@dataclass
class Config:
    """What a ``--config`` file gives: the arguments (name, values, the key's line in the
    file), the model it names, and the problems the server would stop at."""

    path: Path
    shown: str  # the file as the command names it
    args: list[tuple[str, tuple[str, ...], int]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line in the file, why)


def locate(value: str, base: Path | None) -> Path | None:
    """The file ``--config value`` names, when it lies beside the checked text; else None."""
    if base is None or not value or "$" in value or value.startswith("<"):
        return None
    path = Path(value).expanduser()
    path = path if path.is_absolute() else base / path
    return path if path.is_file() else None


def _text(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


# a page's blocks name the same file again and again
_READ: dict[tuple, tuple[Catalog, Config]] = {}


def read(path: Path, shown: str, catalog: Catalog) -> Config:
    """The arguments ``path`` adds to a command, as the release's server reads the file."""
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size, shown, id(catalog))
    except OSError:
        key = None
    # the catalog is kept with its result: while the entry lives no other catalog (another
    # database's) can take its id, and so its reading; the identity check says so outright
    held = _READ.get(key) if key is not None else None
    if held is not None and held[0] is catalog:
        return held[1]
    hit = _read(path, shown, catalog)
    if key is not None:
        if len(_READ) > 256:
            _READ.clear()
        _READ[key] = (catalog, hit)
    return hit


def _read(path: Path, shown: str, catalog: Catalog) -> Config:
    out = Config(path, shown)
    fields = style(catalog) == FIELDS
    suffixes = (".yaml", ".yml", ".json") if fields else (".yaml", ".yml")
    if path.suffix.lower() not in suffixes:
        kinds = "YAML or JSON config files" if fields else "YAML config files"
        out.problems.append((1, f"SGLang reads only {kinds} ({', '.join(suffixes)}), not "
                                f"'{path.suffix}'"))
        return out
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=yaml.SafeLoader)  # JSON is YAML to this reader
        data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        out.problems.append((getattr(getattr(exc, "problem_mark", None), "line", 0) + 1,
                             f"SGLang cannot read it: {str(exc).splitlines()[0]}"))
        return out
    if data is None:
        return out
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        out.problems.append((node.start_mark.line + 1, "SGLang wants a mapping of options at "
                                                      "the top of the file"))
        return out
    lines = {k.value: k.start_mark.line + 1 for k, _ in node.value}  # the last one counts
    by_field = {spec.stored_as: spec for spec in catalog.flags.values()} if fields else {}
    for key, value in data.items():
        key = str(key)
        line = lines.get(key, 1)
        if fields:
            spec = by_field.get(key)
            if spec is None:
                out.problems.append((line, _ignored(key, catalog, by_field)))
                continue
            name = spec.name
        else:
            name = f"--{key}"
            spec = catalog.lookup(name).spec
        if not fields and spec is not None and spec.action not in ("store", "store_true") \
                and spec.nargs is not None:
            out.problems.append((line, f"'{key}': SGLang refuses this option in a config file "
                                       f"(Unsupported config option with action "
                                       f"'{spec.action}'); give {spec.name} on the command "
                                       "line"))
            continue
        if isinstance(value, bool):
            if spec is not None and spec.action == "store_true":
                if value:
                    out.args.append((name, (), line))
                continue
            out.args.append((name, (_text(value),), line))
        elif isinstance(value, list):
            if value:
                out.args.append((name, tuple(_text(v) for v in value), line))
        elif isinstance(value, dict):
            out.args.append((name, (json.dumps(value),), line))
        else:
            out.args.append((name, (_text(value),), line))
    return out


def _ignored(key: str, catalog: Catalog, by_field: dict) -> str:
    """Why the diffusion server does nothing with ``key``, and the key it would read."""
    hit = catalog.lookup("--" + key.lstrip("-")).spec if key.lstrip("-") else None
    if hit is not None and hit.stored_as in by_field:
        return (f"'{key}': the diffusion server reads a config key as the field its flag "
                f"stores and ignores '{key}'; write {hit.stored_as} (for {hit.name})")
    return (f"'{key}': no option of the diffusion server is stored as '{key}', so the server "
            "ignores it (a key is the field a flag stores, e.g. model_path for --model-path)")
