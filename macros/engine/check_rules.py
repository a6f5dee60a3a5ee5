"""Every rule ``recipes check`` reports that is the checker's own (a model's rules are its
``rules.yaml``): its id, severity, what it means, an example it fires on and how to fix it.

Owns ``RULES`` and ``markdown`` (the README's rules table is this table printed: ``python -m
macros.engine.check_rules``, or ``--json``; a test holds the two together, and runs each
example through the checker to see that it raises its rule). A rule added to the checker is added here. Must not decide
findings (``check.py``, ``shell.py``, ``check_config.py`` do).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    means: str
    example: str  # a command the rule fires on (shell text)
    fix: str
    context: dict[str, str] = field(default_factory=dict)  # what ``check_text`` needs for it


RULES: tuple[Rule, ...] = (
    # --- how bash reads the text (shell.py)
    Rule("parse.shell", "error", "Bash cannot read the line as written (an unclosed quote or "
         "substitution, a redirection without a file, a line of flags the line above does "
         "not continue); that line is dropped and the next command is read.",
         "sglang serve --model-path 'm --tp-size 8", "Close the quote; end each continued "
         "line with `\\`."),
    Rule("parse.crlf", "error", "Windows line ends: bash keeps the `\\r` in the last word.",
         "sglang serve --model-path m --tp-size 8\r\n", "Save the text with LF line ends."),
    Rule("parse.bom", "error", "A byte-order mark before the first word.",
         "\ufeffsglang serve --model-path m", "Save the text without the BOM."),
    Rule("parse.backslash-space", "error", "Spaces after the `\\` that was meant to continue "
         "the line: the command ends there.", "sglang serve --model-path m \\ \n  --tp-size 8",
         "Delete the spaces after `\\`."),
    Rule("parse.comment-after-backslash", "error", "A `# comment` after the `\\`: the "
         "backslash escapes a space, not the line end, so the command ends there.",
         "sglang serve --model-path m \\ # the model\n  --tp-size 8",
         "Move the comment above the command."),
    Rule("parse.comment-in-command", "error", "A comment line inside a continued command, or "
         "a `\\` inside a comment: the command ends there.",
         "sglang serve --model-path m \\\n# the size\n  --tp-size 8",
         "Move the comment above the command."),
    Rule("parse.continued-into-command", "error", "A `\\` ends a command's last line, so "
         "the next line's program runs as its arguments; the two are then read as the two "
         "commands they were meant to be.", "sglang serve --model-path m --page-size 64 \\\n"
         "sglang serve --model-path m --tp-size 8", "Remove the last `\\`."),
    Rule("parse.no-command", "error", "No command of a known program and no curl request.",
         "echo hello", "Check the right text, or name the program as the docs run it."),
    # --- each program's parser (check.py, programs.py)
    Rule("catalog.unknown-flag", "error", "The program's parser has no such flag in this "
         "release (or only another program reads it).", "sglang serve --model-path m "
         "--tp-sizee 8", "Use the flag the message suggests, or the release that has it."),
    Rule("catalog.ambiguous-flag", "error", "An abbreviation of more than one flag: argparse "
         "refuses it.", "sglang serve --model-path m --pp 2", "Write the full name."),
    Rule("catalog.abbreviated-flag", "warning", "An abbreviation argparse accepts today "
         "(said once per flag per text).", "sglang serve --model-path m --tp 8",
         "Write the full name the message gives."),
    Rule("catalog.deprecated-flag", "warning", "A flag the release still takes but warns "
         "about.", "sglang serve --model-path m --grpc-mode", "Use its replacement."),
    Rule("catalog.bad-value", "error", "A value the program refuses: not a choice, not a "
         "number, out of its bounds, or a router bootstrap port that is neither a number nor "
         "`none`; a shell value that cannot become a valid one.",
         "sglang serve --model-path m --kv-cache-dtype fp8", "Use one of the valid values "
         "the message lists."),
    Rule("catalog.repeated-flag", "warning", "A flag given twice; the last one wins.",
         "sglang serve --model-path m --tp-size 8 --tp-size 4", "Give it once."),
    Rule("catalog.missing-model", "error", "The server command names no model (`sglang serve` "
         "looks for it on its command line alone, to pick its server, before it reads "
         "`--config`).", "sglang serve --tp-size 8", "Add `--model-path`."),
    Rule("catalog.stray-word", "error", "A word no flag takes: argparse refuses it.",
         "sglang serve --model-path m --trust-remote-code yes", "Remove it, or give it to "
         "the flag that takes it."),
    Rule("catalog.deprecated-env", "warning", "An environment variable the release warns "
         "about.", "SGLANG_ENABLE_CP_V2=1 sglang serve --model-path m",
         "Set the variable the message names."),
    Rule("catalog.unknown-env", "warning", "An `SGLANG_*` variable the release does not read.",
         "SGLANG_NO_SUCH_VAR=1 sglang serve --model-path m", "Check its spelling."),
    Rule("check.program-missing", "error", "The release has no such program: python stops "
         "with 'No module named …'.", "python3 -m sglang.bench_one_batch --model-path m",
         "Run the module the message names."),
    Rule("check.deprecated-program", "warning", "The release warns when this entry point "
         "starts (a FutureWarning; said once per text).",
         "python3 -m sglang.bench_serving --backend sglang", "Run the new module."),
    Rule("check.placeholder", "warning", "A placeholder (`<…>`, `[a|b]`) where the flag takes "
         "one of a few values.", "sglang serve --model-path m --grammar-backend "
         "[xgrammar|outlines]", "Fill in one of the values the message lists."),
    Rule("check.config", "error", "The `--config` file cannot be read as SGLang reads it, or "
         "holds an option SGLang refuses or ignores there (the diffusion server reads a key as "
         "the field its flag stores: `model_path`).", "sglang serve --config serve.yaml",
         "Fix the file at the line the message gives.", {"config": "- model-path\n"}),
    Rule("check.config-unread", "info", "The `--config` file is not beside the checked text: "
         "its options were not checked (said once per text).",
         "sglang serve --config missing.yaml", "Keep the file beside the page."),
    Rule("check.model-unknown", "info", "No model's rules can be told (said once per text): "
         "only the flag catalog was checked.", "sglang serve --model-path someone/else",
         "Pass `--model ID`."),
    Rule("check.chained-command", "error", "Another command on the server's line.",
         "sglang serve --model-path m && echo ok", "Put each command on a line of its own."),
    Rule("check.command-substitution", "warning", "A `$(…)` in the server's words runs a "
         "command first; its value is known only then.",
         "sglang serve --model-path m --host $(hostname -I)", "Write the value itself."),
    Rule("check.background", "warning", "`&` starts the server in the background.",
         "sglang serve --model-path m &", "Start it in a terminal of its own."),
    # --- the requests and the container around the server
    Rule("curl.port", "error", "A curl request to a port the server (or router) does not "
         "listen on.", "sglang serve --model-path m --port 30000\n"
         "curl http://localhost:8000/health", "Send to the server's port."),
    Rule("docker.unknown-flag", "error", "A `docker run` option no recipe line uses "
         "(hardware.yaml `run_flags`).", "docker run --gpu all lmsysorg/sglang:latest "
         "sglang serve --model-path m", "Use the option the message suggests."),
    Rule("docker.no-image", "error", "`docker run` names no image.",
         "docker run --gpus all sglang serve --model-path m", "Name the image."),
    Rule("docker.foreign-image", "error", "An image that is neither a model's `docker_images` "
         "nor a release image of their repositories.",
         "docker run --gpus all example/other:1 sglang serve --model-path m",
         "Use the image the message lists."),
    Rule("docker.foreign-vendor-option", "error", "An option of another vendor's containers.",
         "docker run --gpus all --device=/dev/kfd lmsysorg/sglang:latest "
         "sglang serve --model-path m", "Drop it.", {"hw": "b300"}),
    Rule("docker.vendor-options", "warning", "The options the platform's containers need are "
         "missing.", "docker run lmsysorg/sglang:latest sglang serve --model-path m",
         "Add the options the message lists.", {"hw": "b300"}),
    Rule("docker.host-mount", "error", "A mount of `/` or a home folder.",
         "docker run --gpus all -v /:/host lmsysorg/sglang:latest sglang serve --model-path m",
         "Mount only the folders the server needs."),
    Rule("docker.publish", "error", "A published port docker refuses, or one the server "
         "does not listen on.", "docker run --gpus all -p 8000:8000 lmsysorg/sglang:latest "
         "sglang serve --model-path m", "Publish the server's `--port`."),
)

BY_ID = {rule.id: rule for rule in RULES}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    shown = text.replace("\ufeff", "<BOM>").replace("\r", "<CR>").replace("\n", " ⏎ ")
    shown = _cell(shown)
    ticks = "``" if "`" in shown else "`"
    pad = " " if ticks == "``" else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def markdown() -> str:
    """The rules as the README's table."""
    lines = ["| rule | severity | what it means | example | how to fix |",
             "|---|---|---|---|---|"]
    for rule in RULES:
        lines.append(f"| `{rule.id}` | {rule.severity} | {_cell(rule.means)} | "
                     f"{_code(rule.example)} | {_cell(rule.fix)} |")
    return "\n".join(lines) + "\n"


def render(fmt: str) -> str:
    """The rules as ``python -m macros.engine.check_rules`` prints them: the Markdown table,
    or JSON (``fmt`` "json")."""
    if fmt != "json":
        return markdown()
    return json.dumps({"rules": [{"id": r.id, "severity": r.severity, "means": r.means,
                                  "example": r.example, "fix": r.fix} for r in RULES]},
                      ensure_ascii=False, indent=2) + "\n"


if __name__ == "__main__":
    import sys

    print(render("json" if "--json" in sys.argv[1:] else "text"), end="")
