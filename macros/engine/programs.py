"""The programs SGLang docs run, as one registry the checker reads: the words that start each,
what it is (a server, a router, a benchmark) and the parser that judges its arguments.

Owns the registry (``PROGRAMS``, ``register``), finding where a program starts in a command's
words (``find``), each program's parser for a release (an argparse catalog built from the flag
history: the server flags, the router flags, under ``python3 -m sglang_router.launch_server``
the router's flags as that program registers them (``--router-`` prefix, no host and port),
and the benchmark entry points' own arguments) and what a release prints when it starts one
(``notice``: the FutureWarning of a deprecated entry point). Another part of the checker adds a
program by calling ``register`` with a ``Program`` of its own (the diffusion server, say, with a
``claims`` test that tells its command from the LLM server's). Must not read shell text
(``shell.py``) or judge values (``catalog.py``, ``check.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from macros.engine.catalog import Catalog, FlagSpec
from macros.engine.history import History

# what the checker does with each kind: the model's rules and the curl port read servers and
# routers; a benchmark is judged by its parser alone
SERVER, ROUTER, BENCH = "server", "router", "bench"
# The benchmark tools besides bench_serving, by their flag history section: the module before
# the move to sglang.benchmark and the module after it (the extractor reads these too)
BENCH_TOOLS = {
    "bench_one_batch": ("sglang.bench_one_batch", "sglang.benchmark.one_batch"),
    "bench_one_batch_server": ("sglang.bench_one_batch_server",
                               "sglang.benchmark.one_batch_server"),
    "bench_offline_throughput": ("sglang.bench_offline_throughput",
                                 "sglang.benchmark.offline_throughput"),
}


@dataclass(frozen=True)
class Program:
    """One program: ``starts`` are the word sequences that start it (``("sglang", "serve")``,
    ``("-m", "sglang.launch_server")``); ``parser(db, release)`` is its argparse catalog in
    that sglang release (None: the release has no such program); ``claims(args)``, when set,
    decides between programs that start with the same words (the one registered last asks
    first); ``notice(db, release)`` is what the release prints when it starts (a deprecation),
    or None."""

    name: str
    starts: tuple[tuple[str, ...], ...]
    kind: str
    parser: Callable[[Any, str], Catalog | None]
    positional_model: bool = False
    claims: Callable[[Sequence[str]], bool] | None = None
    notice: Callable[[Any, str], str | None] | None = None
    family: str = ""  # programs that are one tool under several names (a module that moved)
    config: bool = False  # reads SGLang's --config FILE (check_config.py: how, per server)
    # takes its model from the command line alone: ``sglang serve`` picks its server (LLM or
    # diffusion) by the model path there before any server reads --config, and stops with
    # "Error: --model-path is required" without one (sglang/cli/serve.py, 0.5.12-0.5.23)
    model_on_command_line: bool = False


PROGRAMS: list[Program] = []


def register(program: Program) -> None:
    """Add ``program``; it is asked before every program registered earlier."""
    PROGRAMS.insert(0, program)


def find(words: Sequence[str]) -> tuple[Program, int, int] | None:
    """The first program in ``words``: (it, the index of its first word, the index of its
    first argument), or None."""
    for i, word in enumerate(words):
        for program in PROGRAMS:
            for start in program.starts:
                if word == start[0] and tuple(words[i:i + len(start)]) == start:
                    end = i + len(start)
                    if program.claims is None or program.claims(words[end:]):
                        return program, i, end
    return None


def names(kind: str | None = None) -> list[str]:
    """The registered programs' names (of one kind), in the order they were registered."""
    return list(dict.fromkeys(p.name for p in reversed(PROGRAMS)  # one name, several CLIs
                              if kind is None or p.kind == kind))


def instead(db, program: Program, release: str) -> list[str]:
    """The names ``release`` runs the tool ``program`` is under (its family), else every
    program of its kind the release has."""
    def have(p: Program) -> bool:
        return p.parser(db, release) is not None
    same = [p.name for p in reversed(PROGRAMS) if program.family and p.family == program.family
            and p is not program and have(p)]
    return same or [p.name for p in reversed(PROGRAMS)
                    if p.kind == program.kind and p is not program and have(p)]


def _cache(db) -> dict:
    return db.__dict__.setdefault("_program_parsers", {})


def server_catalog(db, release: str) -> Catalog:
    return db.catalog if release == db.catalog.version else db.releases.catalog(release)


def _router_server(db, release: str) -> Catalog | None:
    """``python3 -m sglang_router.launch_server``: the server's flags of the release plus the
    router's as that program registers them (the history's ``launch_server`` section of the
    router)."""
    key = ("router-server", release)
    hit = _cache(db).get(key)
    if hit is None:
        server = server_catalog(db, release)
        router = db.router_catalog
        section = History(db.releases.history, "sglang-router").section("launch_server",
                                                                        router.version)
        flags = dict(server.flags)
        roles = dict(server.roles)
        for name, entry in section.items():
            spec = FlagSpec.from_json(entry, "sglang-router")
            plain = router.flags.get(entry.get("router_flag") or "")
            if plain is not None:  # what flag-bounds.yaml adds to the router's own flag
                spec = dataclasses.replace(spec, bound=plain.bound)
                for role, carriers in router.roles.items():  # the router's roles of its own
                    if plain.name in carriers and role not in server.roles:
                        roles[role] = roles.get(role, ()) + (name,)
            flags[name] = spec
        hit = Catalog(server.package, server.version, flags, server.env, server.allow_abbrev,
                      server.programs, dict(server.deprecated_env), dict(server.below), roles)
        hit._index()
        _cache(db)[key] = hit
    return hit


def _facts(db, section: str, release: str) -> dict:
    """What the history records of a benchmark tool in a release: ``programs``,
    ``deprecated`` (each program's start-up warning), ``allow_abbrev`` and ``server_args``
    (its parser takes the server's flags too)."""
    meta = History(db.releases.history, "sglang").meta(release)
    if section == "bench":  # bench_serving's facts sit at the top of the release's
        return {"programs": meta.get("bench_programs", ()),
                "deprecated": meta.get("bench_deprecated") or {},
                "allow_abbrev": meta.get("bench_allow_abbrev", True), "server_args": False}
    return (meta.get("bench_tools") or {}).get(section, {})


def _bench(section: str, program: str):
    """The parser of a benchmark entry point: its arguments in the history's ``section`` (and
    the release's server flags when the tool builds a ``ServerArgs`` from them); None in a
    release that lacks ``program``."""
    def parser(db, release: str) -> Catalog | None:
        key = (section, program, release)
        if key in _cache(db):
            return _cache(db)[key]
        facts = _facts(db, section, release)
        hit = None
        if program in facts.get("programs", ()):
            server = server_catalog(db, release)
            with_server = bool(facts.get("server_args"))
            flags = dict(server.flags) if with_server else {}
            for entry in History(db.releases.history, "sglang").section(section,
                                                                       release).values():
                flags[entry["name"]] = FlagSpec.from_json(entry, section)
            hit = Catalog(program.split()[-1], release, flags, server.env,
                          bool(facts.get("allow_abbrev", True)), (),
                          dict(server.deprecated_env),
                          roles=dict(server.roles) if with_server else {})
            hit._index()
        _cache(db)[key] = hit
        return hit
    return parser


def _bench_notice(section: str, program: str):
    def notice(db, release: str) -> str | None:
        return (_facts(db, section, release).get("deprecated") or {}).get(program)
    return notice


def _module(name: str) -> tuple[str, ...]:
    return ("-m", name)


def _defaults() -> None:
    register(Program("sglang serve", (("sglang", "serve"),), SERVER,
                     lambda db, r: server_catalog(db, r), positional_model=True, config=True,
                     model_on_command_line=True))
    register(Program("python3 -m sglang.launch_server", (_module("sglang.launch_server"),),
                     SERVER, lambda db, r: server_catalog(db, r), config=True))
    register(Program("python3 -m sglang_router.launch_router",
                     (_module("sglang_router.launch_router"),), ROUTER,
                     lambda db, r: db.router_catalog))
    register(Program("python3 -m sglang_router.launch_server",
                     (_module("sglang_router.launch_server"),), SERVER, _router_server))
    for module in ("sglang.bench_serving", "sglang.benchmark.serving"):
        name = f"python3 -m {module}"
        register(Program(name, (_module(module),), BENCH, _bench("bench", name),
                         notice=_bench_notice("bench", name), family="bench"))
    for section, modules in BENCH_TOOLS.items():
        for module in modules:
            name = f"python3 -m {module}"
            register(Program(name, (_module(module),), BENCH, _bench(section, name),
                             notice=_bench_notice(section, name), family=section))


_defaults()
CORE = tuple(names())  # the programs registered here; another part of the checker adds its own
