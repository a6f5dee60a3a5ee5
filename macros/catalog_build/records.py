"""One flag record: the dict shape every catalog and history entry has, and text helpers.

Owns the keys of a flag entry (:func:`make_flag`), the help-text readers (first sentence,
deprecation, planned removal) and JSON-safe values. Must not read wheels or decide which
flags exist: the layout readers do that.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from macros.catalog_build.evaluator import STDLIB_CONSTANTS, EnumMember, Unresolved
from macros.catalog_build.wheels import CatalogError

# ``help=argparse.SUPPRESS`` (a flag hidden from --help). The pinned catalog
# spells it this way and must stay byte-identical while the engine and checker
# read it, so every release records it the same way.
HIDDEN_HELP = "External(path='argparse.SUPPRESS')"

# Facts the history keeps about a flag that the pinned catalogs (sglang.json,
# sglang-router.json) do not carry; the catalog projection drops them.
HISTORY_ONLY_KEYS = ("dest", "removal", "replacement")

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


def deprecation_from_help(text: str, always: bool = False) -> str | None:
    """``"Deprecated. Use --x instead."`` / ``"(Deprecated: use --x) …"`` → message.

    ``always``: the flag is deprecated whatever its help says (a ``Deprecated*``
    action); the help only supplies the replacement.
    """
    text = " ".join(str(text or "").split())
    m = re.match(r"^[(\[]?\s*deprecated\b\]?[.:,;]?\s*(.*)$", text, re.IGNORECASE)
    if not m:
        if not always:
            return None
        # "Note: --x is deprecated now. Please use --y instead."
        use = re.search(r"\b(?:please\s+)?use\s+(\S.*?)\s+instead\b", text, re.IGNORECASE)
        return f"deprecated: use {use.group(1)} instead" if use else "deprecated"
    rest = m.group(1)
    use = re.match(
        r"(?:please\s+)?(?:use|alias\s+for)\s+(.+?)(?:\s+instead\b.*|\).*|\.\s.*|\.?$)",
        rest,
        re.IGNORECASE,
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
    dest: str | None = None,
    removal: str | None = None,
) -> dict:
    """One catalog entry; every entry has the same keys.

    ``aliases`` holds every other option string that selects this flag,
    including ``--no-*`` forms; ``negations`` says which of them store False.
    ``dest`` is where argparse stores the value (a renamed flag keeps it),
    ``replacement`` what a deprecation says to use, ``removal`` the date after
    which the release plans to drop the flag.
    """
    return {
        "action": action,
        "aliases": list(names[1:]) + list(negations or []),
        "choices": None if choices is None else to_json(choices),
        "choices_source": None,
        "default": to_json(default),
        "default_env": None,
        "deprecated": deprecated,
        "dest": dest or default_dest(names),
        "help": (
            HIDDEN_HELP if help_ == STDLIB_CONSTANTS["argparse.SUPPRESS"] else first_sentence(help_)
        ),
        "late_choices": None,
        "late_choices_case_insensitive": False,
        "name": names[0],
        "nargs": nargs,
        "negations": list(negations or []),
        "notes": None,
        "programs": None,
        "removal": removal if deprecated else None,
        "replacement": replacement_of(deprecated),
        "required": bool(required),
        "takes_value": bool(takes_value),
        "type": type_ if takes_value else "bool",
    }



def default_dest(names: list[str]) -> str:
    """argparse's ``dest``: the first long option (else the first name), dashes to underscores."""
    long = [n for n in names if n.startswith("--")]
    return (long[0] if long else names[0]).lstrip("-").replace("-", "_")


USE = re.compile(r"^deprecated: use (.+) instead$")


def replacement_of(deprecated: str | None) -> str | None:
    """``"deprecated: use --x instead"`` → ``"--x"``; no replacement named → None."""
    match = USE.match(deprecated or "")
    return match.group(1) if match else None


REMOVAL = re.compile(
    r"\b(?:remove[sd]?|removal|drop(?:ped)?|rejected)\b[^.;]{0,80}?\bafter (\d{4}-\d{2}-\d{2})",
    re.IGNORECASE,
)


def removal_date(*texts: str) -> str | None:
    """The planned removal date a comment or help text states ("remove … after 2026-12-31")."""
    for text in texts:
        match = REMOVAL.search(text or "")
        if match:
            return match.group(1)
    return None


def negations_for(names: list[str]) -> list[str]:
    """``BooleanOptionalAction`` adds ``--no-X`` for every ``--X``."""
    return ["--no-" + n[2:] for n in names if n.startswith("--")]


def index_flags(flags: list[dict]) -> dict[str, dict]:
    """Map every option string to its entry; a duplicate is an extraction bug."""
    out: dict[str, dict] = {}
    for flag in flags:
        for opt in [flag["name"], *flag["aliases"]]:
            if opt in out:
                raise CatalogError(f"option {opt} registered twice")
            out[opt] = flag
    return out


def unresolved_choices(flags: list[dict]) -> list[str]:
    return [f["name"] for f in flags if str(f["choices_source"] or "").startswith("UNRESOLVED")]
