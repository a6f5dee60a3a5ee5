"""Shell as people write it: values the shell fills in at run time are judged by what they can
become, placeholders are never errors, a shell error hides no other command, a comment after
``\\`` is named as what breaks the continuation; and the checker is quiet (one note per text
for the model it cannot tell, one warning per abbreviation)."""

from __future__ import annotations

import pytest

from macros.engine.check import check_text


def found(db, text, **ctx):
    return [(f.severity.value, f.rule, f.message) for f in check_text(db, text, **ctx)
            if f.rule != "check.model-unknown"]


def rules(db, text, **ctx):
    return [rule for _, rule, _ in found(db, text, **ctx)]


@pytest.mark.parametrize("value", ["$i", "${RANK}", "$((i + 1))", "\"$RANK\"", "${RANK:-0}",
                                   "$(cat rank.txt)"])
def test_a_number_flag_takes_what_the_shell_fills_in(db, value):
    text = f"sglang serve --model-path m --nnodes 2 --node-rank {value}"
    assert [r for r in rules(db, text) if r != "check.command-substitution"] == []


def test_arithmetic_expansion_is_no_command_substitution(db):
    assert rules(db, "sglang serve --model-path m --port $((30000 + $i))") == []


def test_text_written_around_an_expansion_is_still_judged(db):
    [(_, rule, message)] = found(db, "sglang serve --model-path m --tp-size x$N")
    assert rule == "catalog.bad-value" and "no int" in message


def test_the_default_of_a_parameter_expansion_is_checked(db):
    assert rules(db, "sglang serve --model-path m --port ${PORT:-30000}") == []
    [(_, rule, message)] = found(db, "sglang serve --model-path m --kv-cache-dtype ${KV:-fp8}")
    assert rule == "catalog.bad-value"
    assert "the default of ${KV:-fp8}" in message and "fp8_e4m3" in message


def test_a_choice_flag_takes_an_expansion_that_can_become_a_choice(db):
    assert rules(db, "sglang serve --model-path m --kv-cache-dtype fp8_$KIND") == []
    [(_, rule, message)] = found(db, "sglang serve --model-path m --kv-cache-dtype int4_$KIND")
    assert rule == "catalog.bad-value" and "whatever the shell puts in place of $KIND" in message


@pytest.mark.parametrize("text", [
    "sglang serve --model-path <model path> --tp-size 8",
    "sglang serve --model-path <model> <other args>",
    "sglang serve --model-path m [args]",
    "sglang serve --model-path m ...",
    "sglang serve --model-path m --tp-size 8 [...]",
])
def test_placeholders_are_no_errors(db, text):
    assert [f for f in found(db, text) if f[0] == "error"] == []


def test_a_placeholder_value_of_a_choice_flag_is_a_warning_naming_the_choices(db):
    [(severity, rule, message)] = found(
        db, "sglang serve --model-path m --grammar-backend [xgrammar|outlines]")
    assert (severity, rule) == ("warning", "check.placeholder")
    assert "llguidance" in message
    [(_, _, message)] = found(db, "sglang serve --model-path m --grammar-backend [xgrammar|foo]")
    assert "'foo' is not one of them" in message


def test_a_shell_error_is_reported_and_the_next_command_is_checked(db):
    text = ("sglang serve --model-path 'unterminated --tp-size 8\n"
            "sglang serve --model-path m --no-such-flag\n")
    assert rules(db, text) == ["parse.shell", "catalog.unknown-flag"]


def test_a_flag_line_without_its_continuation_hides_no_later_command(db):
    text = ("python -m sglang.launch_server --model-path m --tp-size 2\n"
            "  --page-size\n"
            "python -m sglang.launch_server --model-path m --enable-dp-attention\n")
    got = found(db, text)
    assert [r for _, r, _ in got] == ["parse.shell", "catalog.deprecated-flag"]
    assert "--page-size" in got[0][2]


def test_a_comment_after_a_backslash_is_named_and_its_apostrophe_is_no_quote(db):
    text = ("sglang serve --model-path m \\ # don't forget the model\n"
            "  --tp-size 8\n")
    [(severity, rule, message)] = found(db, text)
    assert (severity, rule) == ("error", "parse.comment-after-backslash")
    assert "move the comment above the command" in message


def test_the_model_nobody_can_tell_is_said_once_per_text(db):
    text = "sglang serve --model-path nobody/knows\n" * 3
    notes = [f for f in check_text(db, text) if f.rule == "check.model-unknown"]
    assert len(notes) == 1 and notes[0].severity.value == "info"
    assert "and 2 more commands" in notes[0].message


def test_an_abbreviation_is_said_once_per_flag_with_its_fix(db):
    text = "sglang serve --model-path m --tp 2\nsglang serve --model-path m --tp 4 --dp 2\n"
    got = [f for f in check_text(db, text) if f.rule == "catalog.abbreviated-flag"]
    assert [f.flags for f in got] == [["--tp", "--tp-size"], ["--dp", "--dp-size"]]
    assert "write --tp-size" in got[0].message


def test_a_page_says_each_note_once_however_many_blocks_repeat_it(cli, tmp_path):
    """``recipes check PAGE``: the model nobody can tell and an abbreviation are said once per
    file, not once per block."""
    block = "```bash\nsglang serve --model-path nobody/knows --tp 2\n```\n\n"
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n" + block * 3, encoding="utf-8")
    r = cli("check", str(page), "--format", "json")
    rules = [d["rule"] for d in r.json()["diagnostics"]]
    assert rules.count("check.model-unknown") == 1
    assert rules.count("catalog.abbreviated-flag") == 1


def test_a_backslash_that_runs_on_into_the_next_command_is_named_and_both_are_checked(db):
    text = ("python -m sglang.launch_server --model-path m --page-size \\\n"
            "python -m sglang.launch_server --model-path m --enable-dp-attention\n")
    got = found(db, text)
    assert [r for _, r, _ in got] == ["parse.continued-into-command", "catalog.bad-value",
                                      "catalog.deprecated-flag"]
    assert "end line 1 without" in got[0][2] and "--page-size needs a value" in got[1][2]
