"""``recipes check``'s options for files and reports (``--format``, ``--severity``, ``--fix``,
``--diff``) and what the command does with them once ``macros/cli.py`` has read its input.

Owns the printing and the exit code of ``recipes check``: 1 when an error is found (whatever
``--severity`` shows), 0 otherwise; with ``--fix``, files are rewritten before the findings of
what is left are printed.
"""

from __future__ import annotations

import sys

from macros.checkdocs import output
from macros.checkdocs.run import SEVERITIES, check_paths, shown

FORMATS = ("text", "json", "github", "sarif")


def add_arguments(s) -> None:
    s.add_argument("--format", choices=FORMATS, default="text",
                   help="text (default), json, github (workflow annotations) or sarif "
                        "(SARIF 2.1.0)")
    s.add_argument("--severity", choices=SEVERITIES, default="info",
                   help="show findings of this severity and above (default: info, all); the "
                        "exit code still comes from errors")
    s.add_argument("--fix", action="store_true",
                   help="rewrite deprecated spellings (recipes/catalog/migrations.yaml) and "
                        "abbreviated flags in the given files, every other byte kept")
    s.add_argument("--diff", action="store_true",
                   help="print what --fix would change as a unified diff; write nothing")


def check(db, args, texts: list[tuple[str, str]], context: dict[str, str],
          bounded=lambda lines: lines) -> int:
    """``bounded`` shapes the text report (``macros.report.bounded``, a layer above)."""
    from macros.engine.errors import Problem, RecipeError

    if (args.fix or args.diff) and not args.paths:
        raise RecipeError([Problem("<command line>", None, None,
                                   "--fix and --diff rewrite files: give PATH… (a command "
                                   "after '--' or --file is only checked)")])
    report = check_paths(db, args.paths, texts, model_id=args.model, sglang=args.sglang,
                         context=context)
    if args.fix or args.diff:
        from macros.checkdocs import fix

        changes = fix.plan(db, report, sglang=args.sglang)
        if args.diff:
            sys.stdout.write(fix.diff(changes))
            return 0
        fix.write(changes)
        for change in changes:
            print(f"fixed {change.path}: {len(change.edits)} change(s)", file=sys.stderr)
        if changes:  # what is left after the fixes
            report = check_paths(db, args.paths, texts, model_id=args.model,
                                 sglang=args.sglang, context=context)
    findings = shown(report.findings, args.severity)
    errors = report.errors()
    if args.format == "json":
        print(output.as_json(findings, report))
    elif args.format == "sarif":
        print(output.as_sarif(findings))
    elif args.format == "github":
        for line in output.github_lines(findings):
            print(line)
    else:
        for line in bounded(output.text_lines(findings)):
            print(line)
        warnings = sum(1 for f in report.findings if f.severity == "warning")
        where = f" in {report.blocks} block(s) of {report.files} file(s)" if args.paths else ""
        print(f"{errors} error(s), {warnings} warning(s){where}", file=sys.stderr)
    return 1 if errors else 0
