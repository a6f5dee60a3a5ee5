"""The flag history: every release's flags, env registry and bench arguments in one file.

Owns ``recipes/catalog/sglang-history.json``: how per-release snapshots are folded into it
(:func:`build_history`), projected onto the pinned catalog files (:func:`catalog_document`) and
compared between two releases (:func:`diff_releases`); a release is read back by the engine's
one reader (``macros/engine/history.py``). Must not read wheels (extraction happens before) nor decide
what a command may use (the checker does that).

Layout, per package: ``releases`` lists the releases in order with their wheel and per-release
facts; each section (``flags``, ``env``, ``env_deprecated``, ``bench``) maps an item's name to
``{"in": [ranges], "facts": {...}, "changes": {key: [[range, value], …]}}``. ``in`` says which
releases have the item; ``facts`` holds what is the same in all of them; ``changes`` holds,
for each key that differs, its value over consecutive spans of those releases. A range is
``"A..B"`` (inclusive, in release order) or a single release ``"A"``.
"""

from __future__ import annotations

import json
from typing import Any

# the command and the tests reach the engine's reader under the extractor's names too
from macros.engine.history import UnknownRelease, release_snapshot, releases_of  # noqa: F401
from macros.catalog_build.records import HISTORY_ONLY_KEYS, replacement_of

FORMAT = 1


# ---------------------------------------------------------------------------
# Folding snapshots into the history
# ---------------------------------------------------------------------------


def _ranges(indices: list[int], order: list[str]) -> list[str]:
    """Consecutive runs of release indices as ``"A..B"`` / ``"A"`` strings."""
    out: list[str] = []
    start = prev = None
    for i in indices:
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            out.append(_span(start, prev, order))
            start = prev = i
    if start is not None:
        out.append(_span(start, prev, order))
    return out


def _span(a: int, b: int, order: list[str]) -> str:
    return order[a] if a == b else f"{order[a]}..{order[b]}"


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: ``0``, ``False`` and ``0.0`` are different facts. Two strings, two
    integers, two booleans or two ``None`` of one type are equal as JSON exactly when they are
    equal (most facts are such, and this is called hundreds of thousands of times); anything
    else (floats, whose NaN is equal to itself only as JSON, lists, mappings, mixed types) is
    compared as JSON."""
    if type(a) is type(b) and (a is None or type(a) in (str, int, bool)):
        return a == b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def fold_section(per_release: list[dict[str, dict] | None], order: list[str]) -> dict[str, dict]:
    """``[{name: entry} per release]`` → ``{name: {"in", "facts", "changes"}}``."""
    names = sorted({n for snap in per_release if snap for n in snap})
    out: dict[str, dict] = {}
    for name in names:
        present = [i for i, snap in enumerate(per_release) if snap and name in snap]
        entries = [per_release[i][name] for i in present]
        keys = sorted({k for e in entries for k in e} - {"name"})
        facts: dict[str, Any] = {}
        changes: dict[str, list] = {}
        for key in keys:
            values = [e.get(key) for e in entries]
            if all(_same(v, values[0]) for v in values):
                facts[key] = values[0]
                continue
            spans: list[list] = []
            start = 0
            for j in range(1, len(values) + 1):
                if j == len(values) or not _same(values[j], values[start]):
                    spans.append([_span(present[start], present[j - 1], order), values[start]])
                    start = j
            changes[key] = spans
        item: dict[str, Any] = {"in": _ranges(present, order), "facts": facts}
        if changes:
            item["changes"] = changes
        out[name] = item
    return out


def build_history(packages: dict[str, dict]) -> dict:
    """``{package: {"programs", "releases": [(version, meta, sections)]}}`` → history document.

    ``sections`` maps a section name to its list of entries (each with a ``name``).
    """
    doc: dict[str, Any] = {"format": FORMAT, "packages": {}}
    for package, data in packages.items():
        order = [version for version, _, _ in data["releases"]]
        section_names = sorted({s for _, _, sections in data["releases"] for s in sections})
        folded = {}
        for section in section_names:
            per_release = [
                {e["name"]: e for e in sections[section]} if section in sections else None
                for _, _, sections in data["releases"]
            ]
            folded[section] = fold_section(per_release, order)
        doc["packages"][package] = {
            "programs": data["programs"],
            "releases": [{"version": v, **meta} for v, meta, _ in data["releases"]],
            **folded,
        }
    return doc


# ---------------------------------------------------------------------------
# Projecting a release onto a catalog file
# ---------------------------------------------------------------------------


def catalog_document(history: dict, package: str, version: str) -> dict:
    """The pinned catalog file (sglang.json / sglang-router.json) for one release."""
    snap = release_snapshot(history, package, version)
    meta = snap["meta"]
    return {
        "allow_abbrev": meta["allow_abbrev"],
        "env": snap.get("env", []),
        "flags": [
            {k: v for k, v in f.items() if k not in HISTORY_ONLY_KEYS} for f in snap["flags"]
        ],
        "package": package,
        "programs": history["packages"][package]["programs"],
        "version": version,
        "wheel": meta["wheel"],
        "wheel_sha256": meta["wheel_sha256"],
    }


def render_history(history: dict) -> str:
    """Deterministic JSON with one line per release and per item, so diffs stay readable."""

    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    lines = ["{", f' "format": {one(history["format"])},', ' "packages": {']
    packages = list(history["packages"].items())
    for p_index, (package, pkg) in enumerate(packages):
        lines.append(f"  {one(package)}: {{")
        lines.append(f'   "programs": {one(pkg["programs"])},')
        lines.append('   "releases": [')
        releases = pkg["releases"]
        for i, release in enumerate(releases):
            lines.append(f"    {one(release)}{',' if i < len(releases) - 1 else ''}")
        sections = sorted(k for k in pkg if k not in ("programs", "releases"))
        lines.append("   ]" + ("," if sections else ""))
        for s_index, section in enumerate(sections):
            lines.append(f"   {one(section)}: {{")
            items = list(pkg[section].items())
            for i, (name, item) in enumerate(items):
                lines.append(f"    {one(name)}: {one(item)}{',' if i < len(items) - 1 else ''}")
            lines.append("   }" + ("," if s_index < len(sections) - 1 else ""))
        lines.append("  }" + ("," if p_index < len(packages) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Comparing two releases
# ---------------------------------------------------------------------------


def _options(flag: dict) -> list[str]:
    return [flag["name"], *flag["aliases"]]


def _fmt(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _deprecation(flag: dict) -> str:
    text = flag["deprecated"]
    replacement = flag.get("replacement") or replacement_of(text)
    out = f"use {replacement}" if replacement else text
    if flag.get("removal"):
        out += f" (removal planned after {flag['removal']})"
    return out


def _choice_change(old: list | None, new: list | None) -> str:
    if old is None:
        return f"now limited to {', '.join(map(str, new))}"
    if new is None:
        return "no longer limited (any value)"
    added = [c for c in new if c not in old]
    removed = [c for c in old if c not in new]
    parts = []
    if added:
        parts.append("+ " + ", ".join(map(str, added)))
    if removed:
        parts.append("- " + ", ".join(map(str, removed)))
    return "; ".join(parts) or "same values, new order"


def diff_flags(old: list[dict], new: list[dict]) -> dict[str, list[str]]:
    """Flag changes from ``old`` to ``new``, one line per flag, grouped by kind."""
    before = {f["name"]: f for f in old}
    after = {f["name"]: f for f in new}
    new_options = {o: f for f in new for o in _options(f)}
    old_options = {o: f for f in old for o in _options(f)}
    groups: dict[str, list[str]] = {
        "added": [],
        "removed": [],
        "renamed": [],
        "deprecated": [],
        "choices changed": [],
        "type or nargs changed": [],
        "default changed": [],
    }
    gone = sorted(n for n in before if n not in after)
    fresh = sorted(n for n in after if n not in before)
    renamed_to: dict[str, str] = {}
    for name in gone:
        if name in new_options:  # still accepted: it became an alias of another name
            target = new_options[name]["name"]
            renamed_to[name] = target
            # A new spelling; the same spellings with another one first is no change.
            if target not in old_options:
                groups["renamed"].append(f"{name} -> {target} ({name} kept as an alias)")
            continue
        promoted = [o for o in _options(before[name])[1:] if o in after and o in fresh]
        if promoted:
            renamed_to[name] = promoted[0]
            groups["renamed"].append(f"{name} -> {promoted[0]} (its alias, now the name)")
            continue
        dest = before[name].get("dest")
        taken = set(renamed_to.values())
        same_dest = [n for n in fresh if dest and after[n].get("dest") == dest and n not in taken]
        if len(same_dest) == 1:
            renamed_to[name] = same_dest[0]
            groups["renamed"].append(
                f"{name} -> {same_dest[0]} (same destination, old name dropped)"
            )
            continue
        flag = before[name]
        note = ""
        if flag["deprecated"]:
            said = _deprecation(flag)
            note = " (was deprecated)" if said == "deprecated" else f" (was deprecated: {said})"
        groups["removed"].append(f"{name}{note}")
    for name in fresh:
        if name in renamed_to.values() or name in old_options:
            continue
        flag = after[name]
        note = f" (deprecated from the start: {_deprecation(flag)})" if flag["deprecated"] else ""
        groups["added"].append(f"{name}{note}")
    pairs = [(n, before[n], after[n]) for n in sorted(set(before) & set(after))]
    pairs += [(f"{o} -> {n}", before[o], after[n]) for o, n in sorted(renamed_to.items())]
    for label, a, b in pairs:
        if b["deprecated"] and not a["deprecated"]:
            groups["deprecated"].append(f"{label}: {_deprecation(b)}")
        elif a["deprecated"] and not b["deprecated"]:
            groups["deprecated"].append(f"{label}: no longer deprecated")
        elif a["deprecated"] and _deprecation(a) != _deprecation(b):
            groups["deprecated"].append(f"{label}: now {_deprecation(b)} (was {_deprecation(a)})")
        if not _same(a["choices"], b["choices"]):
            change = _choice_change(a["choices"], b["choices"])
            groups["choices changed"].append(f"{label}: {change}")
        if not _same(a.get("late_choices"), b.get("late_choices")):
            change = _choice_change(a.get("late_choices"), b.get("late_choices"))
            groups["choices changed"].append(f"{label} (checked after parsing): {change}")
        # Becoming (or ceasing to be) deprecated swaps in a Deprecated* action;
        # the deprecated group already says so.
        newly = bool(a["deprecated"]) != bool(b["deprecated"])
        for key in ("takes_value", "type", "nargs") + (() if newly else ("action",)):
            if not _same(a[key], b[key]):
                groups["type or nargs changed"].append(
                    f"{label}: {key} {_fmt(a[key])} -> {_fmt(b[key])}"
                )
        if not _same(a["default"], b["default"]):
            groups["default changed"].append(
                f"{label}: {_fmt(a['default'])[:80]} -> {_fmt(b['default'])[:80]}"
            )
    return groups


def diff_env(old: dict, new: dict) -> dict[str, list[str]]:
    """Registry changes: names added or removed, variables newly deprecated."""
    before = {e["name"]: e for e in old.get("env", [])}
    after = {e["name"]: e for e in new.get("env", [])}
    dep_before = {e["name"]: e for e in old.get("env_deprecated", [])}
    dep_after = {e["name"]: e for e in new.get("env_deprecated", [])}
    deprecated = []
    for name in sorted(set(dep_after) - set(dep_before)):
        entry = dep_after[name]
        said = [f"use {entry['replacement']}"] if entry["replacement"] else []
        said += [entry["note"]] if entry["note"] else []
        said += [f"value converted ({entry['transform']})"] if entry["transform"] else []
        deprecated.append(f"{name}: {'; '.join(said) or 'no replacement'}")
    for name in sorted(set(dep_before) - set(dep_after)):
        where = "still registered" if name in after else "no longer read at all"
        deprecated.append(f"{name}: left the deprecated set ({where})")
    aliases_before = {e["deprecated_alias"]: n for n, e in before.items() if e["deprecated_alias"]}
    for name, entry in sorted(after.items()):
        alias = entry["deprecated_alias"]
        if alias and alias not in aliases_before:
            deprecated.append(f"{alias}: renamed to {name} (old name still read, with a warning)")
    return {
        "env added": sorted(set(after) - set(before)),
        "env removed": sorted(set(before) - set(after)),
        "env deprecated": deprecated,
    }


def diff_releases(history: dict, package: str, a: str, b: str) -> list[str]:
    """What changed between two releases, grouped, one line per item, in a fixed order."""
    old = release_snapshot(history, package, a)
    new = release_snapshot(history, package, b)
    lines = [
        f"{package} {a} -> {b}: {len(old['flags'])} -> {len(new['flags'])} server flags, "
        f"{len(old.get('env', []))} -> {len(new.get('env', []))} env vars, "
        f"{len(old.get('bench', []))} -> {len(new.get('bench', []))} bench_serving arguments"
    ]
    groups = {f"flags {k}": v for k, v in diff_flags(old["flags"], new["flags"]).items()}
    if "env" in old or "env" in new:
        groups.update(diff_env(old, new))
    if "bench" in old or "bench" in new:
        bench = diff_flags(old.get("bench", []), new.get("bench", []))
        groups.update({f"bench_serving {k}": v for k, v in bench.items()})
    lines.append("summary: " + ", ".join(f"{k} {len(v)}" for k, v in groups.items()))
    for title, items in groups.items():
        if not items:
            continue
        lines.append("")
        lines.append(f"{title} ({len(items)}):")
        lines.extend(f"  {item}" for item in items)
    return lines
