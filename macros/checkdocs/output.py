"""What ``recipes check`` prints: ``text`` (``file:line: severity: message (rule) [flags]``),
``json``, ``github`` (workflow commands that annotate the lines of a pull request) and
``sarif`` (SARIF 2.1.0, for code-scanning tools).

Owns the formats only: which findings are shown (``--severity``) and the exit code are the
caller's. GitHub's workflow commands are escaped as the Actions runner reads them (``%``, CR
and LF in the message; also ``:`` and ``,`` in a property), so a message can never end the
command early or start another one. SARIF locations are URIs relative to the folder the
check ran in (``%SRCROOT%``), percent-encoded.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from macros.checkdocs.rules import describe
from macros.checkdocs.run import Placed, Report

TOOL = "recipes check"
_NOT_FILES = ("<stdin>", "<command line>")
_GH_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/" \
               "sarif-schema-2.1.0.json"


def _where(f: Placed) -> str:
    cell = f"cell {f.cell}, line {f.cell_line}: " if f.cell is not None else ""
    return cell


def text_lines(findings: list[Placed]):
    for f in findings:
        flags = f" [{', '.join(f.flags)}]" if f.flags else ""
        yield f"{f.path}:{f.line}: {f.severity}: {_where(f)}{f.message} ({f.rule}){flags}"


def as_json(findings: list[Placed], report: Report) -> str:
    return json.dumps({
        "diagnostics": [
            {"severity": f.severity, "rule": f.rule, "message": f.message, "flags": f.flags,
             "source": f.path, "line": f.line,
             **({"cell": f.cell, "cell_line": f.cell_line} if f.cell is not None else {})}
            for f in findings],
        "checked": {"files": report.files, "blocks": report.blocks, "other_blocks": report.other,
                    "skipped_blocks": report.skipped}}, ensure_ascii=False, indent=2)


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github_lines(findings: list[Placed]):
    """One workflow command per finding: ``::error file=F,line=N,title=RULE::MESSAGE``."""
    for f in findings:
        props = []
        if f.path not in _NOT_FILES:
            props += [f"file={_gh_property(Path(f.path).as_posix())}", f"line={f.line}"]
        props.append(f"title={_gh_property(f.rule)}")
        flags = f" [{', '.join(f.flags)}]" if f.flags else ""
        message = f"{_where(f)}{f.message} ({f.rule}){flags}"
        yield f"::{_GH_LEVEL[f.severity]} {','.join(props)}::{_gh_data(message)}"


def _uri(path: str) -> tuple[str, bool]:
    """(URI, relative to %SRCROOT%)."""
    p = Path(path)
    if p.is_absolute():
        return p.as_uri(), False
    return quote(p.as_posix(), safe="/"), True


def as_sarif(findings: list[Placed], version: str = "0.1.0") -> str:
    rules: dict[str, int] = {}
    results = []
    for f in findings:
        index = rules.setdefault(f.rule, len(rules))
        result = {"ruleId": f.rule, "ruleIndex": index, "level": _SARIF_LEVEL[f.severity],
                  "message": {"text": f.message}}
        if f.path not in _NOT_FILES:
            uri, relative = _uri(f.path)
            location = {"uri": uri, **({"uriBaseId": "%SRCROOT%"} if relative else {})}
            result["locations"] = [{"physicalLocation": {
                "artifactLocation": location, "region": {"startLine": max(f.line, 1)}}}]
        props = {}
        if f.flags:
            props["flags"] = list(f.flags)
        if f.cell is not None:
            props.update(cell=f.cell, cellLine=f.cell_line)
        if props:
            result["properties"] = props
        results.append(result)
    def descriptor(rule_id: str) -> dict:
        rule = describe(rule_id)
        if rule is None:  # a model's own rule (rules.yaml): its id is all a report has
            return {"id": rule_id}
        return {"id": rule_id, "shortDescription": {"text": rule.means},
                "help": {"text": rule.fix},
                "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]}}

    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL, "version": version,
                                "rules": [descriptor(rule) for rule in rules]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, ensure_ascii=False, indent=2)
