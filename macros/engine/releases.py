"""The SGLang releases the flag history covers, and what each of them makes of a command.

Owns reading recipes/catalog/sglang-history.json into one ``Catalog`` per release (the pinned
release's bounds given to the flags it shares with it), the release a command is meant for (its
image's, else the pinned one), the span of releases that accept every flag of a command, the
removal a release plans for a flag, and the deprecated spellings a release replaces
(recipes/catalog/migrations.yaml): ``migrate`` rewrites a command for its release, ``legacy``
reads the replacement back in the spelling the rules are written in. Must not compose
commands (``resolve.py``) or print them (``render.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from macros.engine import kept
from macros.engine.catalog import Catalog, FlagSpec, value_problem
from macros.engine.errors import Problem, RecipeError
from macros.engine.flags import Flag
from macros.engine.history import History

LATEST = "latest"  # an image tag that follows the newest release (or runs ahead of it)


@dataclass(frozen=True)
class Migration:
    """A deprecated flag and its replacement: ``rename`` moves a partner flag's value to a new
    name; ``default`` is written when the partner is absent."""

    id: str
    flag: str
    rename: dict[str, str]
    default: dict[str, str] = field(default_factory=dict)

    def new_flags(self) -> set[str]:
        return set(self.rename.values()) | set(self.default)


@dataclass(frozen=True)
class Rewrite:
    """What a migration changed in one command, as the reader sees both spellings."""

    flag: str  # the deprecated flag
    old: str  # the flags as the rules and the rounds spell them
    new: str  # the flags as the command's release spells them
    deprecated_in: str  # the first release that deprecates the old spelling
    removal: str | None  # the date after which a release plans to drop it
    back: bool = False  # read back: the release lacks the new spelling, so the old one stands


class Releases:
    """Every release of the history, oldest first, with the pinned catalog among them."""

    def __init__(self, history: dict, pinned: Catalog, migrations: list[Migration],
                 shared: bytes | None = None):
        """``shared``: a digest of every byte the history and ``pinned`` were read from (the
        loader's), under which the other releases' catalogs and what ``accepts`` answers for
        them are shared with every other Releases read from the same bytes; None: kept by this
        one only. They are made from a copy of ``pinned`` taken here, so what a caller later
        does to its database's catalog stays in that database."""
        self.history = history
        self.reader = History(history, pinned.package)
        self.pinned = pinned
        self.order = list(self.reader.order)
        self.migrations = migrations
        # every release's catalog but the pinned one (``pinned``, this load's own object), and
        # what accepts answers for them: shared; the pinned release's answers and the masks
        # (which read them): this load's
        self._catalogs: dict[str, Catalog]
        self._accepts: dict[tuple, bool]
        self._catalogs, self._accepts, completed = kept.release_memo(shared, pinned.package)
        self._own: dict[tuple, bool] = {}
        self._masks: dict[tuple, int] = {}
        if pinned.version in self.reader.order:  # the pinned file leaves out where argparse
            at = self.reader.at(pinned.version)  # stores a flag; the history records it
            for name, spec in list(pinned.flags.items()):
                # a spec completed for an earlier load of the same bytes (specs are frozen):
                # the same object again, unless the bounds made this load's a new one
                done = completed.get(name)
                if done is not None and done[0] is spec:
                    pinned.flags[name] = done[1]
                    continue
                dest = self.reader.fact("flags", name, "dest", at)
                if dest and not spec.dest:
                    pinned.flags[name] = dataclasses.replace(spec, dest=dest)
                completed[name] = (spec, pinned.flags[name])
            pinned._index()
        self._base = pinned.copy()  # what the other releases' catalogs take from the pinned one
        self._facts: dict[tuple, object] = {}  # every command asks the same few facts again
        # when a verification record goes stale (verification.yaml): the releases it may fall
        # behind the newest, and the facts of a flag that make its meaning
        self.staleness: tuple[int, tuple[str, ...], tuple[str, ...]] | None = None

    @property
    def newest(self) -> str:
        return self.order[-1]

    def named(self, given: str) -> str | None:
        """A release as a reader names it (``latest``: the newest), or None if unknown."""
        if given == LATEST:
            return self.newest
        return given if given in self.order else None

    def chosen(self, given: str | None, where: str) -> str | None:
        """A release a reader asks for (None: none asked), or a RecipeError naming them all."""
        if given is None:
            return None
        named = self.named(given)
        if named is None:
            raise RecipeError([Problem("<command line>", None, None, f"{where} {given}: not a "
                                       "release of the flag history (releases: "
                                       f"{', '.join(self.order)}, {LATEST})")])
        return named

    def resolve(self, release: str | None) -> str:
        """The release a command is checked against: an image's release (``latest``: the
        newest), or the pinned one for a build that names none (a branch image)."""
        if release is None:
            return self.pinned.version
        return self.newest if release == LATEST else release

    def flag_names(self) -> set[str]:
        """Every flag any release of the history has."""
        return set(self.reader.data["flags"])

    def catalog(self, version: str) -> Catalog:
        """The catalog of one release, as argparse there reads flags."""
        if version == self.pinned.version:
            return self.pinned
        if version not in self._catalogs:
            flags: dict[str, FlagSpec] = {}
            base = self._base
            for name, entry in self.reader.section("flags", version).items():
                spec = FlagSpec.from_json(entry, base.package)
                pinned = base.flags.get(name)
                if pinned is not None:  # what flag-bounds.yaml adds to the pinned catalog
                    spec = dataclasses.replace(spec, bound=pinned.bound,
                                               env_choices=pinned.env_choices)
                flags[name] = spec
            env = self.reader.section("env", version)
            # the variables read outside the registry (env_read), known for the pinned release
            env.update({n: e for n, e in base.env.items() if "read" in e})
            cat = Catalog(base.package, version, flags, env,
                          bool(self.reader.meta(version).get("allow_abbrev", True)),
                          base.programs,
                          below={k: v for k, v in base.below.items() if k in flags},
                          roles={role: tuple(n for n in names if n in flags)
                                 for role, names in base.roles.items()})
            cat._index()
            self._catalogs[version] = cat
        return self._catalogs[version]

    def accepts(self, version: str, flag: Flag, branch: dict | None = None) -> bool:
        """Does release ``version`` know ``flag`` by this name and take its values (or values
        the model's branch reads, ``branch_values``)?"""
        key = (version, flag.name, flag.values)
        table = self._own if version == self.pinned.version else self._accepts
        if key not in table:
            spec = self._spec(version, flag.name)
            table[key] = spec is not None and value_problem(spec, flag.values) is None
        if not table[key] and branch and flag.values \
                and all(v in branch.get(flag.name, {}) for v in flag.values):
            return self._spec(version, flag.name) is not None
        return table[key]

    def _spec(self, version: str, name: str) -> FlagSpec | None:
        """The flag as argparse in ``version`` reads ``name``: by its name, an alias (0.5.13
        knows --tp-size as an alias of --tensor-parallel-size) or its ``--no-`` form (a
        release where the flag is a BooleanOptionalAction)."""
        hit = self.catalog(version).lookup(name)
        return hit.spec if hit.kind in ("exact", "alias", "negated") else None

    def _mask(self, flag: Flag, branch: dict | None) -> int:
        """The releases that accept ``flag``, one bit per release (oldest first); a flag
        repeats across commands, so each is worked out once."""
        # keyed by what ``accepts`` reads of the branch (whether it reads every value), never
        # by the dict's identity: a freed dict's id is reused by another with other values
        read = bool(branch and flag.values
                    and all(v in branch.get(flag.name, {}) for v in flag.values))
        key = (flag.name, flag.values, read)
        mask = self._masks.get(key)
        if mask is None:
            mask = sum(1 << i for i, v in enumerate(self.order) if self.accepts(v, flag, branch))
            self._masks[key] = mask
        return mask

    def span(self, flags: list[Flag], release: str, branch: dict | None = None
             ) -> tuple[str, str] | None:
        """The run of consecutive releases around ``release`` that accept every flag, or None
        when ``release`` itself refuses one."""
        ok = (1 << len(self.order)) - 1
        for f in flags:
            ok &= self._mask(f, branch)
        at = self.order.index(release)
        if not ok >> at & 1:
            return None
        lo = hi = at
        while lo > 0 and ok >> (lo - 1) & 1:
            lo -= 1
        while hi + 1 < len(self.order) and ok >> (hi + 1) & 1:
            hi += 1
        return self.order[lo], self.order[hi]

    def _fact(self, name: str, key: str, version: str):
        """One fact of flag ``name`` in release ``version`` (None where it lacks the flag)."""
        memo = ("fact", name, key, version)
        if memo not in self._facts:
            self._facts[memo] = self.reader.fact("flags", name, key, self.reader.at(version))
        return self._facts[memo]

    def fact_keys(self) -> set[str]:
        """Every fact the history records of a flag."""
        keys: set[str] = set()
        for entry in self.reader.data["flags"].values():
            keys |= set(entry.get("facts", {})) | set(entry.get("changes", {}))
        return keys

    def meaning_changes(self, name: str, keys) -> list[tuple[str, str]]:
        """Each release (after the first) where flag ``name`` gains, loses or changes one of the
        facts ``keys`` against the release before: ``(release, fact)``; a flag that leaves the
        history is ``(release, "removed")``."""
        memo = ("meaning", name, tuple(keys))
        if memo not in self._facts:
            out = []
            for before, after in zip(self.order, self.order[1:]):
                had, has = self.has(before, name), self.has(after, name)
                if had and not has:
                    out.append((after, "removed"))
                elif had and has:
                    out += [(after, k) for k in keys if self._fact(name, k, before)
                            != self._fact(name, k, after)]
            self._facts[memo] = out
        return self._facts[memo]

    def has(self, version: str, name: str) -> bool:
        entry = self.reader.data["flags"].get(name)
        return entry is not None and self.reader.at(version) in self.reader.covered(entry["in"])

    def removal(self, version: str, name: str) -> str | None:
        """The date after which ``version`` plans to remove flag ``name`` (its deprecation)."""
        return self._fact(name, "removal", version)

    def deprecated_since(self, name: str) -> str | None:
        """The first release that deprecates flag ``name``."""
        memo = ("since", name)
        if memo not in self._facts:
            self._facts[memo] = next((v for v in self.order
                                      if self._fact(name, "deprecated", v)), None)
        return self._facts[memo]

    def applies(self, migration: Migration, version: str) -> bool:
        """A release rewrites a spelling it deprecates, once it has every replacement flag."""
        memo = ("applies", migration.id, version)
        if memo not in self._facts:
            self._facts[memo] = bool(self._fact(migration.flag, "deprecated", version)) \
                and all(self.has(version, name) for name in migration.new_flags())
        return self._facts[memo]

    def migrate(self, flags: list[Flag], version: str) -> tuple[list[Flag], list[Rewrite]]:
        """``flags`` as release ``version`` spells them, and what changed, read both ways: where
        the release deprecates a spelling and has its replacement, the deprecated flag goes,
        each partner takes its new name in place, and a replacement for an absent partner
        stands where the deprecated flag stood; where the release lacks a replacement the
        command gives, the replacement is read back in the old spelling (``--attn-dp-size 4``
        as ``--dp-size 4 --enable-dp-attention`` for 0.5.21)."""
        out, rewrites = list(flags), []
        for m in self.migrations:
            names = [f.name for f in out]
            if m.flag in names and self.applies(m, version):
                out, rewrite = self._forward(m, out, names, version)
                rewrites.append(rewrite)
            elif m.flag not in names and not self.applies(m, version) and any(
                    n in names and not self.has(version, n) for n in m.new_flags()):
                out, rewrite = self._back(m, out, version)
                rewrites.append(rewrite)
        return out, rewrites

    def _forward(self, m: Migration, out: list[Flag], names: list[str], version: str):
        at = names.index(m.flag)
        old = {at: out[at]}
        new, added = [], []
        for partner, renamed in m.rename.items():
            if partner in names:
                i = names.index(partner)
                old[i] = out[i]
                out[i] = Flag(renamed, out[i].values)
                new.append(out[i])
            else:
                value = m.default.get(renamed)
                added.append(Flag(renamed, (value,) if value is not None else ()))
        out[at:at + 1] = added
        return out, Rewrite(m.flag, " ".join(old[i].text() for i in sorted(old)),
                            " ".join(f.text() for f in new + added),
                            self.deprecated_since(m.flag) or version,
                            self.removal(version, m.flag))

    def _back(self, m: Migration, out: list[Flag], version: str):
        """The replacement in the spelling ``version`` has: each renamed flag takes its
        partner's name in place, a replacement that only carries its default value goes, and
        the deprecated flag follows the first of them."""
        back = {renamed: partner for partner, renamed in m.rename.items()}
        new, old, at = [], [], None
        result: list[Flag] = []
        for f in out:
            if f.name in back or f.name in m.default:
                new.append(f)
                if at is None:
                    at = len(result)
                if f.name in back and f.values != (m.default.get(f.name),):
                    result.append(Flag(back[f.name], f.values))
                    old.append(result[-1])
                continue
            result.append(f)
        flag = Flag(m.flag)
        where = at if not old else result.index(old[0]) + 1
        result.insert(where, flag)
        old.append(flag)
        return result, Rewrite(m.flag, " ".join(f.text() for f in old),
                               " ".join(f.text() for f in new),
                               self.deprecated_since(m.flag) or version, None, back=True)

    def taking(self, flag: Flag, branch: dict | None = None) -> list[str]:
        """The releases that take ``flag`` as written, oldest first."""
        mask = self._mask(flag, branch)
        return [v for i, v in enumerate(self.order) if mask >> i & 1]

    def ranges(self, versions) -> str:
        """Releases as runs in release order: ``0.5.12–0.5.17, 0.5.23``."""
        have, runs, start = set(versions), [], None
        for i, v in enumerate([*self.order, None]):
            if v in have and start is None:
                start = i
            elif v not in have and start is not None:
                first, last = self.order[start], self.order[i - 1]
                runs.append(first if first == last else f"{first}–{last}")
                start = None
        return ", ".join(runs)

    def legacy(self, flags: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        """A command's flags in the spelling the rules are written in: a replacement read
        back as the deprecated flag and its partner (``--attn-dp-size 8`` as ``--dp-size 8
        --enable-dp-attention``), so a rule about the old spelling holds for the new one."""
        out = dict(flags)
        for m in self.migrations:
            if m.flag in out or not any(new in out for new in m.rename.values()):
                continue
            for partner, renamed in m.rename.items():
                if renamed in out and partner not in out:
                    out[partner] = out.pop(renamed)
            out[m.flag] = ()
        return out
