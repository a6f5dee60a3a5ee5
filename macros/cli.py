"""The ``recipes`` command: one CLI for every docs chore.

Owns argument parsing, reading files and stdin, printing, and exit codes (0 ok, 1 findings or
bad input, 2 usage). Every error a user can cause is printed as a message, never a traceback;
set RECIPES_DEBUG=1 to see one for a genuine bug.

Size: the parser of every subcommand is one ``build_parser`` so ``recipes --help`` and the
README's table read from one place; the work behind ``--as`` and ``mcp`` lives in
``site/deploy.py`` and ``mcp_server.py``, this module only wires them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from pathlib import Path

from macros.engine.errors import Problem, RecipeError, choices_hint

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


def _db(args):
    from macros.engine.database import RECIPES, load_database

    return load_database(Path(args.root) if args.root else RECIPES)


def _avg_len(text: str, what: str) -> int:
    """A request length as the Playground's URL hash reads one: decimal digits only, within the
    bounds the schema sets (and the export carries)."""
    from macros.engine.schema import AVG_LEN_MAX as hi, AVG_LEN_MIN as lo

    if not re.fullmatch(r"[0-9]+", text):
        shown = f"'{text}'" if len(text) <= 40 else f"'{text[:40]}…'"
        raise RecipeError([Problem("<command line>", None, None, f"{what} must be a whole "
                                   f"number of tokens in decimal digits (got {shown})")])
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(hi)) or not lo <= int(digits) <= hi:
        shown = digits if len(digits) <= 20 else f"a {len(digits):,}-digit number"
        raise RecipeError([Problem("<command line>", None, None, f"{what} must be from {lo:,} "
                                   f"to {hi:,} tokens (got {shown})")])
    return int(digits)


def _picks(pairs: list[str]) -> tuple[dict[str, str], int | None]:
    """``--set`` pairs; a key given twice with two values is refused (which one was meant is
    unknown), the same value twice is no problem."""
    picks: dict[str, str] = {}
    given: dict[str, str] = {}  # each key's first value, as written
    avg_len = None
    problems = []
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key or not value:
            raise RecipeError([Problem("<command line>", None, None,
                                       f"--set expects KEY=VALUE (got '{pair}')")])
        if key == "avg_len":
            length = _avg_len(value, "avg_len")
            if avg_len is not None and length != avg_len:
                problems.append(f"--set avg_len={given[key]} and --set avg_len={value} "
                                "disagree; give avg_len once")
            avg_len = length
        elif picks.get(key, value) != value:
            problems.append(f"--set {key}={given[key]} and --set {key}={value} disagree; "
                            f"give {key} once")
        else:
            picks[key] = value
        given.setdefault(key, value)
    if problems:
        raise RecipeError([Problem("<command line>", None, None, p)
                           for p in dict.fromkeys(problems)])
    return picks, avg_len


def _context_args(args) -> tuple[dict[str, str], int | None]:
    """``--set`` pairs and the ``--hw/--role/--strategy`` shortcuts as one mapping; a shortcut
    that disagrees with a ``--set`` of the same key is refused."""
    picks, avg_len = _picks(args.set)
    shortcuts = {k: v for k in ("hw", "role", "strategy") if (v := getattr(args, k)) is not None}
    for key, value in shortcuts.items():
        if picks.get(key, value) != value:
            raise RecipeError([Problem("<command line>", None, None, f"--{key} {value} and "
                                       f"--set {key}={picks[key]} disagree")])
    return {**shortcuts, **picks}, avg_len


def cmd_validate(args) -> int:
    db = _db(args)
    cells = sum(len(m.cells) for m in db.models.values())
    print(f"ok: {len(db.models)} model(s), {cells} cells, {len(db.platforms)} platforms, "
          f"{len(db.catalog.flags)} sglang flags, {len(db.router_catalog.flags)} router flags")
    return EXIT_OK


def _resolution_json(db, model, res, lang: str) -> dict:
    from macros.site import render, runmodes

    return {
        "model": res.model, "hw": res.hw, "match": res.match, "pd": res.pd,
        "status": res.status,
        "cell_status": res.cell_status,
        "status_label": render.status_label(db, res.status, lang),
        "verified_in": res.verified_in,
        "record": render.record_json(db, model, res.record, lang),
        "nodes": res.nodes,
        "selection": {k: v for k, v in res.picks.items() if v is not None},
        "avg_len": res.avg_len,
        "model_name": res.model_name,
        "docker_image": res.docker_image,
        "install": list(res.install),
        "sglang": {"release": res.sglang, "default": res.sglang_default, "chosen": res.sglang
                   != res.sglang_default, "valid_in": list(res.sglang_span or ()) or None, "image": res.sglang_image},
        "hints": [render.text(db, model, h, lang) for h in res.hints],
        "env": list(res.env),
        "flags": res.flag_texts,
        "command": render.command_text(db, model, res, lang),
        "router": render.router_text(res),
        "docker": runmodes.docker_text(db, model, res, lang),
        "curl": runmodes.curl_text(db, model, res, lang),
        "python": runmodes.python_text(db, model, res, lang),
        "calculations": [{
            "id": c.id, "pins": c.pins,
            "value": float(c.value) if c.value is not None else None,  # as pinned
            "text": c.value, "exact": c.exact,
            "reason": render.text(db, model, c.reason, lang) if c.reason else None}
            for c in res.calculations],
        "caveats": [{"kind": c.kind, "flag": c.flag, "text": render.text(db, model, c.text, lang)}
                    for c in res.caveats],
        "diagnostics": [{"severity": d.severity.value, "rule": d.rule, "flags": d.flags,
                         "message": render.diagnostic_text(db, model, d, lang)}
                        for d in res.diagnostics],
        "effective": [{"knob": e.knob, "label": render.label(db, model, e.label, lang),
                       "value": e.value if e.value is not None else
                       render.label(db, model, e.value_text, lang),
                       "source": e.source.value, "flag": e.flag,
                       "because": render.label(db, model, e.because, lang) if e.because else None}
                      for e in res.effective],
    }


def _settings_json(db, model, sel, res, lang: str) -> list[dict]:
    """The visible settings with the state of each option as the Playground shows it: an
    option that would change nothing or give a refused command is greyed (macros/engine/effects.py)."""
    from macros.site import render
    from macros.engine.effects import explain, probe_options, with_probed
    from macros.engine.results import TextRef

    probed = probe_options(db, sel, res)
    explained = {(axis, option): explain(db, sel, res, axis, option, reason)
                 for axis, options in probed.items() for option, reason in options.items()}
    return [{"id": a.axis, "value": a.value, "options": [
        {"id": o.id, "state": o.state,
         "reason": render.text(db, model, TextRef(id=o.reason, fields={}), lang, **o.fields)
         if o.reason else None}
        for o in a.options if o.state != "hidden"]}
        for a in with_probed(res, probed, explained) if a.visible]


def _selection(args, model):
    """``--set`` pairs and the ``--hw/--role/--strategy`` shortcuts as one selection."""
    from macros.engine.selection import Selection

    values, avg_len = _context_args(args)
    return Selection.flat(model, values, avg_len)


def command_json(db, model, sel, res, lang: str, release) -> dict:
    """``recipes command --format json``'s object (the MCP server's ``command`` answers it)."""
    from macros.engine.effects import same_command

    out = _resolution_json(db, model, res, lang)
    out["settings"] = _settings_json(db, model, sel, res, lang)
    out["same_command"] = same_command(db, sel, res, release)
    return out


def cmd_command(args) -> int:
    from macros.site import render
    from macros.engine.resolve import resolve

    db = _db(args)
    model = db.model(args.model)
    sel = _selection(args, model)
    release = db.releases.chosen(args.sglang, "--sglang")
    res = resolve(db, sel, release=release)
    if args.as_ != "command":
        from macros.site.deploy import files, files_text

        found = files(db, model, res, args.as_, args.lang, release)
        if not found:  # no image published for the selection (the Python form only)
            from macros.site.deploy import no_image

            print(f"error: {no_image(db, res, args.as_)}", file=sys.stderr)
            return 1
        print(files_text(found, args.format), end="")
    elif args.format == "json":
        print(json.dumps(command_json(db, model, sel, res, args.lang, release),
                         ensure_ascii=False, indent=2))
    else:
        from macros.site.deploy import command_output

        print(command_output(db, model, res, args.lang), end="")
        if args.verbose and res.record is not None:  # the round behind the badge
            print(f"# {render.record_text(db, model, res.record, args.lang)}", file=sys.stderr)
        for c in (c for c in res.caveats if c.kind in ("release", "stale")):
            print(f"note: {render.text(db, model, c.text, args.lang)}", file=sys.stderr)
    return _command_errors(db, model, res)


def _command_errors(db, model, res) -> int:
    """A composed command its own check finds an error in is not one to run: each error goes
    to stderr (stdout keeps the command or the JSON, to see what is wrong) and the exit is 1."""
    from macros.site import render

    errors = [d for d in res.diagnostics if d.severity.value == "error"]
    for d in errors:
        flags = f" [{', '.join(d.flags)}]" if d.flags else ""
        print(f"error: {render.diagnostic_text(db, model, d, 'en')} ({d.rule}){flags}",
              file=sys.stderr)
    return EXIT_FINDINGS if errors else EXIT_OK


def cmd_check(args) -> int:
    from macros.engine.yamlfile import read_text


    def place(text: str, i: int) -> tuple[int, int]:
        return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)

    db = _db(args)
    sources: list[tuple[str, str]] = []
    if args.file:
        if args.file == "-":
            name = "<stdin>"
            # bytes, not a text stream: the stream would turn CRLF into LF and hide it
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") \
                else sys.stdin.read().encode("utf-8", "surrogatepass")
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                good = data[:exc.start].decode("utf-8")  # worded as yamlfile.read_text words it
                raise RecipeError([Problem(name, *place(good, len(good)),
                                           f"not UTF-8 text: byte 0x{data[exc.start]:02x} "
                                           f"({exc.reason}); save the file as UTF-8")]) from None
        else:
            name = args.file
            text = read_text(args.file, name)  # every OS and encoding problem, with its place
        if "\0" in text:
            raise RecipeError([Problem(name, *place(text, text.index("\0")),
                                       "not text: a NUL byte (is this a binary file?)")])
        sources.append((name, text))
    words = args.words
    if words:
        sources.append(("<command line>", words[0] if len(words) == 1 else shlex.join(words)))
    if not sources and not args.paths:
        raise RecipeError([Problem("<command line>", None, None,
                                   "give PATH… (files or folders of docs), a command after "
                                   "'--', or --file PATH (or - for stdin)")])
    if any(pair.partition("=")[0] == "avg_len" for pair in args.set or []):
        raise RecipeError([Problem("<command line>", None, None, "avg_len does not change what "
                                   "a command must look like; check takes dimensions and "
                                   "settings only")])
    from macros.checkdocs.cli import check
    from macros.report import bounded

    return check(db, args, sources, _context_args(args)[0], bounded)


def _calculator_arg(model, given: str | None):
    """The calculator ``--calculator`` names; a model's only one needs no name."""
    calcs = model.info.calculators
    ids = [c.id for c in calcs]
    if not calcs:
        raise RecipeError([Problem("<command line>", None, None, f"{model.info.name} declares no "
                                   "calculator (model.yaml 'calculators')")])
    if given is None:
        if len(calcs) == 1:
            return calcs[0]
        raise RecipeError([Problem("<command line>", None, None, f"{model.info.name} declares "
                                   f"{len(calcs)} calculators; name one with --calculator "
                                   f"(known: {', '.join(ids)})")])
    calc = model.calculator(given)
    if calc is None:
        raise RecipeError([Problem("<command line>", None, None, f"--calculator: {model.info.name}"
                                   f" declares no calculator '{given}' "
                                   f"({choices_hint(given, ids)})")])
    return calc


def cmd_calc(args) -> int:
    from macros.engine import calculator
    from macros.engine.resolve import resolve

    db = _db(args)
    model = db.model(args.model)
    consts = _calculator_arg(model, args.calculator)
    sel = _selection(args, model)
    table = [_avg_len(text, "--avg-len") for text in args.avg_len or []]
    if table and model.info.request_length is None:
        raise RecipeError([Problem("<command line>", None, None, "--avg-len does not apply: no "
                                   f"calculator of {model.info.name} reads a request length")])
    res = resolve(db, sel)
    reason = res.calculation(consts.id).reason
    if reason is not None:
        text = db.t(args.lang, reason.id, model)
        if args.format == "json":
            print(json.dumps({"calculator": consts.id, "pins": consts.pins, "applicable": False,
                              "reason": text, "value": None}, ensure_ascii=False))
        else:
            print(text)
        return EXIT_OK
    lengths = table or [res.avg_len]
    rows = []
    values: dict = {}
    for length in lengths:
        values, value = calculator.of_command(consts, res.flags, res.env, res.pd, length)
        rows.append({"avg_len": length, "value": value,
                     "text": calculator.fmt(value) if value is not None else None})
    if args.format == "json":
        print(json.dumps({"calculator": consts.id, "pins": consts.pins, "applicable": True,
                          "values": values, "rows": rows}, indent=2))
    else:
        fields = {k: calculator.field(v) for k, v in values.items() if v is not None}
        for text_id in consts.explain:
            print(db.t(args.lang, text_id, model, **fields))
        for row in rows:
            print(f"L={row['avg_len']:>7}  {consts.pins} {row['text'] or '—'}")
    return EXIT_OK


def cmd_verify_report(args) -> int:
    from macros.site import verification

    print(verification.printed(_db(args), args.format, args.lang))
    return EXIT_OK


def cmd_export(args) -> int:
    from macros.site.build import export_target, write_export
    from macros.site.export import export_model

    # Judged before the export is made, so a refused path costs nothing and touches nothing.
    out = None
    if args.out and args.out != "-":  # "-" is standard output, as for `check --file -`
        out = export_target(Path(args.out), Path(args.root) if args.root else None, args.model)
    db = _db(args)
    data = export_model(db, args.model, args.lang)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    if out:
        write_export(out, text)
        print(f"wrote {args.out} ({len(text):,} bytes)", file=sys.stderr)
    else:
        print(text)
    return EXIT_OK


def cmd_catalog(args) -> int:
    from macros.catalog_build import command, history

    if args.diff:
        if args.check:
            raise RecipeError([Problem("<command line>", None, None,
                                       "--diff reads the committed history; drop --check")])
        try:
            lines = command.diff(*args.diff)
        except history.UnknownRelease as exc:
            raise RecipeError([Problem("<command line>", None, None, f"--diff: {exc}")]) from None
        except command.HistoryUnreadable as exc:
            raise RecipeError([Problem(exc.path, None, None, exc.reason)]) from None
        print("\n".join(lines))
        return EXIT_OK
    argv = ["--check"] if args.check else []
    if args.allow_offline:
        argv.append("--allow-offline")
    return command.main(argv)


def cmd_build(args) -> int:
    from macros.site.build import BuildFailed, Terminated, build_site

    try:
        out = build_site(Path(args.out) if args.out else None, quiet=args.quiet,
                         engine=args.engine, jobs=args.jobs)
    except BuildFailed as exc:
        print(f"error: build failed, the previous site is untouched: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except Terminated as exc:
        print("terminated", file=sys.stderr)
        return exc.code
    print(f"built {out} (English) and {out / 'ko'} (Korean)", file=sys.stderr)
    return EXIT_OK


def cmd_serve(args) -> int:
    from macros.site.build import Terminated
    from macros.site.preview import serve

    try:
        return serve(args.lang, host=args.host, port=args.port)
    except Terminated as exc:
        print("terminated", file=sys.stderr)
        return exc.code


def cmd_i18n_check(args) -> int:
    from macros.engine.database import RECIPES
    from macros.i18n.pages import DOCS
    from macros.i18n.contract import check

    findings = check(Path(args.docs) if args.docs else DOCS,
                     recipes=Path(args.root) if args.root else RECIPES)
    if args.format == "json":
        print(json.dumps({"findings": [f.__dict__ for f in findings]}, ensure_ascii=False, indent=2))
    else:
        from macros.report import bounded

        for line in bounded(findings):  # a mistake repeated a million times: 20 and a count
            print(line)
        count = {kind: sum(1 for f in findings if f.severity == kind)
                 for kind in ("error", "todo", "style")}
        print(f"{count['error']} contract error(s), {count['todo']} translation to-do(s), "
              f"{count['style']} glossary or register problem(s)", file=sys.stderr)
    failing = [f for f in findings if f.severity != "todo" or args.strict]
    return EXIT_FINDINGS if failing else EXIT_OK


def cmd_i18n_stamp(args) -> int:
    from macros.i18n.pages import DOCS
    from macros.i18n.stamp import stamp, stamp_target
    from macros.i18n.contract import compare

    docs = Path(args.docs) if args.docs else DOCS
    # every page is judged before any is written: one refusal writes nothing
    uris, problems = [], []
    for page in args.pages:
        try:
            uris.append(stamp_target(page, docs))
        except RecipeError as exc:
            problems += exc.problems
    for uri in uris:
        problems += [Problem(f.file, f.line, f.col, f.message)
                     for f in compare(docs / "en" / uri, docs / "ko" / uri,
                                      f"docs/en/{uri}", f"docs/ko/{uri}")]
    if problems:
        if uris:
            problems.append(Problem("<command line>", None, None,
                                    "nothing stamped: fix the pages above first (recipes i18n-check "
                                    "lists the same problems)"))
        raise RecipeError(problems)
    for uri in dict.fromkeys(uris):
        digest = stamp(uri, docs)
        print(f"docs/ko/{uri}: source_hash set to {digest} (docs/en/{uri} as it is now, "
              f"kept in docs/translated-from/ko/{uri})")
    return EXIT_OK


def _whole(lo: int, hi: int, what: str):
    """An argparse type: a whole number in decimal digits from ``lo`` to ``hi``, else a usage
    error that says so (never a traceback, never a value the command cannot use)."""
    def parse(text: str) -> int:
        digits = text.lstrip("0") or "0"
        if not re.fullmatch(r"[0-9]+", text) or len(digits) > len(str(hi)) \
                or not lo <= int(digits) <= hi:
            shown = f"'{text}'" if len(text) <= 40 else f"'{text[:40]}…'"
            raise argparse.ArgumentTypeError(f"{shown} is not a whole number of at least {lo} "
                                             f"and at most {hi}")
        return int(digits)
    parse.__name__ = what  # argparse names the type in its own messages
    return parse


JOBS_MAX = 1024  # far above any machine's languages; a bigger number is a typo
_positive = _whole(1, JOBS_MAX, "--jobs")
_port = _whole(1, 65535, "--port")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="recipes", description="Recipe database, commands and checks.")
    p.add_argument("--root", help="recipes folder (default: the repository's recipes/)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", default=argparse.SUPPRESS,
                        help="recipes folder (default: the repository's recipes/)")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    _add = sub.add_parser
    sub.add_parser = lambda *a, **k: _add(*a, parents=[common], **k)  # every subcommand

    s = sub.add_parser("validate", help="load and validate the whole database")
    s.set_defaults(func=cmd_validate)

    def selection(s):
        s.add_argument("model", help="model id, e.g. kimi-k3")
        s.add_argument("--hw", help="hardware id, e.g. b300 (same as --set hw=…)")
        s.add_argument("--role", help="shortcut for --set role=… (models with a role dimension)")
        s.add_argument("--strategy", help="shortcut for --set strategy=…")
        s.add_argument("--set", action="append", metavar="ID=VALUE",
                       help="any cell dimension or Playground setting of the model, e.g. "
                       "role=unified, spec=none, hicache=l3, avg_len=16384; repeat for each")

    s = sub.add_parser("command", help="print the command for a selection")
    selection(s)
    s.add_argument("--lang", choices=["en", "ko"], default="en")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.add_argument("--sglang", metavar="VERSION", help="spell it for this release (or latest)")
    s.add_argument("--as", dest="as_", choices=["command", "config", "compose", "k8s"],
                   default="command", help="SGLang's config file and its env file, a Docker "
                   "Compose file or Kubernetes manifests instead of the command")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="also print the cell's verification record on stderr (text format)")
    s.set_defaults(func=cmd_command)
    s = sub.add_parser("mcp", help="serve the recipes to agents: an MCP server over stdio")
    s.set_defaults(func=lambda args: __import__("macros.mcp_server").mcp_server.main(args))

    s = sub.add_parser("check", help="check commands against the catalog and the rules")
    s.add_argument("--model", help="model id whose rules apply (default: the only model, or "
                                   "the one whose served name --model-path gives)")
    s.add_argument("--hw", help="hardware id (same as --set hw=…)")
    s.add_argument("--role", help="shortcut for --set role=…")
    s.add_argument("--strategy", help="shortcut for --set strategy=…")
    s.add_argument("--set", action="append", metavar="ID=VALUE",
                   help="a cell dimension or Playground setting the command is meant for")
    s.add_argument("--file", help="file of commands to check, or - for stdin")
    s.add_argument("--sglang", metavar="VERSION",
                   help="judge server flags as this sglang release parses them (a release of "
                        "recipes/catalog/sglang-history.json; default: the pinned one)")
    s.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders of docs: Markdown, MDX, reStructuredText, notebooks, "
                        "shell scripts (folders are walked, .gitignore respected); after them, "
                        "-- COMMAND (words or one string) checks a command")
    from macros.checkdocs.cli import add_arguments
    add_arguments(s)
    s.set_defaults(func=cmd_check, words=[])

    s = sub.add_parser("calc", help="a calculator's value for a selection and request lengths")
    selection(s)
    s.add_argument("--calculator", metavar="ID",
                   help="which of the model's calculators (needed when it declares several)")
    s.add_argument("--avg-len", action="append", metavar="TOKENS",
                   help="average request length (input + output); repeat for a table")
    s.add_argument("--lang", choices=["en", "ko"], default="en")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(func=cmd_calc)

    s = sub.add_parser("verify-report", help="every cell's verification record, stale first")
    s.add_argument("--lang", choices=["en", "ko"], default="en")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(func=cmd_verify_report)

    s = sub.add_parser("export", help="the JSON the Playground reads")
    s.add_argument("model")
    s.add_argument("--lang", choices=["en", "ko"], default="en")
    s.add_argument("--out", help="write to this file instead of stdout")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("i18n-check", help="compare every Korean page with its English source")
    s.add_argument("--docs", help="docs folder (default: the repository's docs/)")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.add_argument("--strict", action="store_true", help="also fail on missing/outdated pages")
    s.set_defaults(func=cmd_i18n_check)

    s = sub.add_parser("i18n-stamp", help="record that a Korean page matches its English source")
    s.add_argument("pages", nargs="+", help="page path, e.g. models/kimi-k3.md")
    s.add_argument("--docs", help="docs folder (default: the repository's docs/)")
    s.set_defaults(func=cmd_i18n_stamp)

    s = sub.add_parser("build", help="build both languages into site/ (swapped in on success)")
    s.add_argument("--out", help="output folder (default: site/)")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--engine", choices=["mkdocs", "zensical"], default="mkdocs",
                   help="the site engine (default: mkdocs, MkDocs + Material; zensical needs "
                        "pip install -e '.[zensical]')")
    s.add_argument("--jobs", type=_positive, metavar="N",
                   help="languages built at the same time, each in its own process (default: "
                        "RECIPES_BUILD_JOBS, else the number of CPUs; 1: one after the other)")
    s.set_defaults(func=cmd_build)

    s = sub.add_parser("serve", help="serve one language with live reload while you edit "
                                     "(rebuilds what changed; never writes into docs/)")
    s.add_argument("--lang", choices=["en", "ko"], default="ko")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=_port, default=8000, help="1 to 65535 (default: 8000)")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("catalog", help="regenerate the flag catalogs and their history from "
                                       "the released wheels")
    s.add_argument("--check", action="store_true", help="only compare with the committed files")
    s.add_argument("--allow-offline", action="store_true",
                   help="with --check: skip (exit 0) when PyPI cannot be reached")
    s.add_argument("--diff", nargs=2, metavar=("A", "B"),
                   help="what changed between sglang releases A and B (committed history, offline)")
    s.set_defaults(func=cmd_catalog)
    return p


def _split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``check``'s words after the first ``--`` are a command, not paths or options."""
    if "check" in argv and "--" in argv and argv.index("check") < argv.index("--"):
        at = argv.index("--")
        return argv[:at], argv[at + 1:]
    return argv, None


def main(argv: list[str] | None = None) -> int:
    try:
        argv, command = _split_command(list(sys.argv[1:] if argv is None else argv))
        args = build_parser().parse_args(argv)
        if command is not None:
            args.words = command
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130  # 128 + SIGINT, what a shell reports for Ctrl-C
    except RecipeError as exc:  # validate's findings, and every command's bad input
        from macros.report import bounded

        for line in bounded(exc.problems):
            print(f"error: {line}", file=sys.stderr)
        return EXIT_FINDINGS
    except BrokenPipeError:
        # The reader stopped reading (`| head`): what was found is unknown to it, so the exit
        # is the shell's for a broken pipe, never a pass; stdout is closed quietly.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # the system refused (disk full, permissions): not a bug
        where = exc.filename if exc.filename is not None else "<system>"
        print(f"error: {where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except Exception as exc:  # a bug, not bad input: say so plainly
        if os.environ.get("RECIPES_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {exc} (set RECIPES_DEBUG=1 for details)",
              file=sys.stderr)
        return EXIT_BUG


if __name__ == "__main__":
    sys.exit(main())
