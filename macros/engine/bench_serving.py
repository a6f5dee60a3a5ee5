"""``python3 -m sglang.bench_serving`` (``sglang.benchmark.serving`` in the releases that have it):
the command that reproduces a published speed row.

Owns the bench_serving arguments of every release the flag history covers (read from the
``bench`` section of ``recipes/catalog/sglang-history.json``), composing a row's reproduce
command from the row and its file's workload, reading such a command back from shell text, and
judging its arguments against the release it ran on. Must not compose or check serve commands
(``resolve.py``, ``check.py``) nor format reader text.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from macros.engine.catalog import Catalog, FlagSpec, value_problem
from macros.engine.errors import choices_hint
from macros.engine.flags import Flag, parse_flag_text
from macros.engine.history import History
from macros.engine.schema import BenchRow, BenchWorkload

PROGRAM = "python3 -m sglang.bench_serving"  # every release has it; ``program`` picks per release
BACKEND = "sglang"
HOST = "localhost"  # the reproduce command runs next to the server it measures
INDENT = "  "


@dataclass(frozen=True)
class BenchReleases:
    """Each release's bench_serving arguments, in release order."""

    order: tuple[str, ...]
    arguments: dict[str, Catalog]
    programs: dict[str, tuple[str, ...]]  # how each release's bench_serving can be started

    def ranges(self, versions) -> str:
        """Releases as runs in release order: ``0.5.12..0.5.17, 0.5.23``."""
        have = [v in set(versions) for v in self.order]
        runs, start = [], None
        for i, present in enumerate(have + [False]):
            if present and start is None:
                start = i
            elif not present and start is not None:
                first, last = self.order[start], self.order[i - 1]
                runs.append(first if first == last else f"{first}..{last}")
                start = None
        return ", ".join(runs)


def load_releases(history: dict) -> BenchReleases:
    """The history's ``bench`` section (the flag history as ``releases.Releases`` read it),
    unfolded release by release. Raises ValueError or KeyError when it is not such a
    history."""
    reader = History(history, "sglang")
    arguments, programs = {}, {}
    for version in reader.order:
        release = reader.meta(version)
        catalog = Catalog("sglang.bench_serving", version, {}, {},
                          bool(release["bench_allow_abbrev"]))
        for entry in reader.section("bench", version).values():
            catalog.add(FlagSpec.from_json(entry, "bench_serving"))
        arguments[version] = catalog
        programs[version] = tuple(release["bench_programs"])
    return BenchReleases(reader.order, arguments, programs)


def num_prompts(row: BenchRow, by_concurrency: dict[int, int]) -> int | None:
    """The row's own prompt count, else its file's count for the row's concurrency."""
    return row.num_prompts if row.num_prompts is not None else by_concurrency.get(row.concurrency)


def reproduce(workload: BenchWorkload, row: BenchRow, prompts: int, model_name: str,
              port: str | None) -> list[Flag]:
    """The arguments that send ``row``'s requests again: its lengths, concurrency and prompt
    count under the file's workload, to the served name on ``port`` (None: bench_serving's
    default port for the sglang backend, as the server's)."""
    flags = [Flag("--backend", (BACKEND,)), Flag("--host", (HOST,))]
    flags += [Flag("--port", (port,))] if port is not None else []
    flags += [Flag("--model", (model_name,)),
              Flag("--dataset-name", (workload.dataset,)),
              Flag("--random-input-len", (str(row.isl),)),
              Flag("--random-output-len", (str(row.osl),)),
              Flag("--random-range-ratio", (str(workload.random_range_ratio),)),
              Flag("--num-prompts", (str(prompts),)),
              Flag("--max-concurrency", (str(row.concurrency),))]
    if workload.warmup_requests is not None:
        flags.append(Flag("--warmup-requests", (str(workload.warmup_requests),)))
    return flags + ([Flag("--flush-cache")] if workload.flush_cache else [])


def program(releases: BenchReleases, release: str | None) -> str:
    """How a reproduce command for ``release`` starts: of the ways that release's bench_serving
    can be started, the one the history adds last (the module a release moves it to; the old
    one then warns that it is going), so each release gets its own module from the first
    release that has it on. A build between releases gets one every release has."""
    first: dict[str, int] = {}
    for i, version in enumerate(releases.order):
        for way in releases.programs[version]:
            first.setdefault(way, i)
    if release is None:
        every = set.intersection(*(set(releases.programs[v]) for v in releases.order))
        ways = every or set(releases.programs[releases.order[-1]])
    else:
        ways = set(releases.programs[release])
    return max(ways, key=lambda way: (first[way], way))


def command_text(flags: list[Flag], program: str = PROGRAM) -> str:
    """The reproduce command as pages print it: the program, then one argument per line."""
    body = [program] + [INDENT + f.text() for f in flags]
    return "\n".join([line + " \\" for line in body[:-1]] + [body[-1]])


def problems(releases: BenchReleases, program: str, flags: list[Flag],
             release: str | None) -> list[str]:
    """What keeps bench_serving of ``release`` from taking this command, one message each;
    with no release, of every release the history covers (a build between releases may be
    like any of them), each message naming the releases it holds for."""
    found: dict[str, list[str]] = {}
    for version in (release,) if release is not None else releases.order:
        for message in _release_problems(releases, version, program, flags):
            found.setdefault(message, []).append(version)
    return [f"bench_serving of sglang {releases.ranges(versions)} {message}"
            for message, versions in found.items()]


def _release_problems(releases: BenchReleases, version: str, program: str,
                      flags: list[Flag]) -> list[str]:
    out: list[str] = []
    if program not in releases.programs[version]:
        out.append(f"starts as {' or '.join(releases.programs[version])}, not {program}")
    catalog = releases.arguments[version]
    seen: set[str] = set()
    for flag in flags:
        hit = catalog.lookup(flag.name)
        if hit.kind in ("abbreviated", "alias", "negated"):
            out.append(f"reads {flag.name} as {hit.spec.name}; write {hit.spec.name}")
        elif hit.kind != "exact":
            have = [v for v in releases.order if flag.name in releases.arguments[v].flags]
            known = sorted({n for c in releases.arguments.values() for n in c.flags})
            out.append(f"has no argument {flag.name} (" + (
                f"the releases that have it: {releases.ranges(have)}" if have else
                f"no release has it; {choices_hint(flag.name, known)}") + ")")
            continue
        if hit.spec.name in seen:
            out.append(f"takes {hit.spec.name} once; it is given twice")
        seen.add(hit.spec.name)
        bad = value_problem(hit.spec, flag.values)
        if bad:
            out.append(f"refuses {bad}")
    return out


_JOIN = re.compile(r"\\\n")


def read_command(text: str) -> tuple[str, list[Flag]]:
    """A page's bench_serving command (one command, its lines joined by ``\\``) as its
    program (``python3 -m MODULE``) and arguments; ValueError when it is no such command."""
    words = shlex.split(_JOIN.sub(" ", text), comments=True)
    if len(words) < 3 or words[1] != "-m":
        raise ValueError(f"not a 'python3 -m MODULE' command: {' '.join(words[:3]) or 'empty'}")
    rest = words[3:]
    if rest and not rest[0].startswith("--"):
        raise ValueError(f"unexpected word '{rest[0]}' after {' '.join(words[:3])}")
    return " ".join(words[:3]), parse_flag_text(shlex.join(rest))
