"""Reading the flag history (``recipes/catalog/sglang-history.json``) release by release.

Owns what an entry of the history means for one release: which releases its ranges cover
(``A..B`` inclusive, in release order, or one release ``A``), its facts there (``facts`` with the
``changes`` span that holds it), one section or a whole release as it had them. The engine
(``releases.py``, ``catalog.py``, ``bench_serving.py``) and the extractor's diff read the history
through this one reader. Must not write the history (``catalog_build/history.py`` folds it) or
decide what a command may use (the checker does).
"""

from __future__ import annotations

from typing import Any


class UnknownRelease(ValueError):
    """A package or release the history does not cover."""


class History:
    """One package of a history document: its releases in order and its sections."""

    def __init__(self, doc: dict, package: str):
        pkg = doc["packages"].get(package)
        if pkg is None:
            raise UnknownRelease(
                f"unknown package '{package}' (known: {', '.join(doc['packages'])})")
        self.package = package
        self.data = pkg
        self.order = tuple(r["version"] for r in pkg["releases"])
        self._index = {v: i for i, v in enumerate(self.order)}
        self._covered: dict[tuple[str, ...], frozenset[int]] = {}

    def at(self, version: str) -> int:
        """The position of ``version`` in release order."""
        at = self._index.get(version)
        if at is None:
            raise UnknownRelease(f"unknown {self.package} release '{version}' "
                                 f"(known releases: {', '.join(self.order)})")
        return at

    def covered(self, ranges) -> frozenset[int]:
        """The positions of the releases ``ranges`` cover; the same ranges recur across
        entries, so each spelling is unfolded once."""
        key = tuple(ranges)
        hit = self._covered.get(key)
        if hit is None:
            out: set[int] = set()
            for text in key:
                first, _, last = text.partition("..")
                out.update(range(self._index[first], self._index[last or first] + 1))
            hit = self._covered[key] = frozenset(out)
        return hit

    def entry(self, name: str, item: dict, at: int) -> dict[str, Any] | None:
        """Item ``name`` as the release at position ``at`` has it, or None where it lacks it."""
        if at not in self.covered(item["in"]):
            return None
        entry = {"name": name, **item["facts"]}
        for key, spans in item.get("changes", {}).items():
            entry[key] = next(value for span, value in spans if at in self.covered((span,)))
        return entry

    def fact(self, section: str, name: str, key: str, at: int) -> Any:
        """One fact of one item at one release (None where the release lacks the item): a
        single lookup need not unfold the whole item."""
        item = self.data[section].get(name)
        if item is None or at not in self.covered(item["in"]):
            return None
        for span, value in item.get("changes", {}).get(key, ()):
            if at in self.covered((span,)):
                return value
        return item["facts"].get(key)

    def section(self, section: str, version: str) -> dict[str, dict[str, Any]]:
        """Every item of ``section`` the release has, by name, in the history's order."""
        at = self.at(version)
        out = {}
        for name, item in self.data.get(section, {}).items():
            entry = self.entry(name, item, at)
            if entry is not None:
                out[name] = entry
        return out

    def meta(self, version: str) -> dict[str, Any]:
        """What the history records of the release itself (its wheel, ``allow_abbrev`` …)."""
        return self.data["releases"][self.at(version)]

    def snapshot(self, version: str) -> dict[str, Any]:
        """``{"meta": {...}, section: [entries sorted by name, keys sorted]}`` as the release
        had it: the form the extractor's diff and catalog files are written from."""
        meta = {k: v for k, v in self.meta(version).items() if k != "version"}
        out: dict[str, Any] = {"meta": meta}
        for section in self.data:
            if section in ("programs", "releases"):
                continue
            out[section] = [dict(sorted(e.items()))
                            for e in self.section(section, version).values()]
        return out


def releases_of(doc: dict, package: str) -> list[str]:
    return list(History(doc, package).order)


def release_snapshot(doc: dict, package: str, version: str) -> dict[str, Any]:
    return History(doc, package).snapshot(version)
