"""Every program SGLang docs run is judged by its own parser (``macros/engine/programs.py``):
the servers, the router under ``launch_router`` and under ``sglang_router.launch_server`` (its
flags with the ``--router-`` prefix), and the benchmark entry points of each release, with the
warning a release prints when a deprecated one starts."""

from __future__ import annotations

import pytest

from macros.engine import programs
from macros.engine.check import check_text
from macros.engine.history import History


def found(db, text, **ctx):
    return [(f.severity.value, f.rule, f.message) for f in check_text(db, text, **ctx)
            if f.rule != "check.model-unknown"]


def rules(db, text, **ctx):
    return [rule for _, rule, _ in found(db, text, **ctx)]


def test_the_router_refuses_a_bootstrap_port_that_is_no_number_or_none(db):
    """Regression: router 0.3.2 raises "Invalid bootstrap port: eighty. Must be a number or
    'none'" after parsing --prefill URL PORT (router_args._parse_prefill_urls)."""
    text = ("python -m sglang_router.launch_router --pd-disaggregation "
            "--prefill http://p:30000 eighty --decode http://d:30001")
    [(severity, rule, message)] = found(db, text)
    assert (severity, rule) == ("error", "catalog.bad-value")
    assert "Invalid bootstrap port: eighty. Must be a number or 'none'" in message


@pytest.mark.parametrize("port", ["8998", "none", "NONE", "$BOOTSTRAP_PORT", "<bootstrap-port>"])
def test_the_router_takes_a_bootstrap_port_number_none_or_one_the_shell_fills_in(db, port):
    text = ("python -m sglang_router.launch_router --pd-disaggregation "
            f"--prefill http://p:30000 {port} --decode http://d:30001")
    assert [r for r in rules(db, text) if r == "catalog.bad-value"] == []


def test_the_bootstrap_port_role_is_data(db):
    # the router's flag that carries it is named in flag-bounds.yaml, not in the checker
    assert db.router_catalog.roles["prefill-url"] == ("--prefill",)


def test_router_launch_server_takes_server_flags_and_router_flags_with_their_prefix(db):
    good = ("python -m sglang_router.launch_server --model-path m --dp-size 2 "
            "--router-policy cache_aware --router-dp-worker-base-port 31000")
    assert found(db, good) == []
    # the router's own spelling is not this program's: launch_server registers --router-policy
    assert rules(db, good.replace("--router-policy", "--policy")) == ["catalog.unknown-flag"]
    [(_, rule, message)] = found(db, good.replace("cache_aware", "rr"))
    assert rule == "catalog.bad-value" and "round_robin" in message


def test_router_launch_server_validates_prefixed_bootstrap_ports(db):
    text = ("python -m sglang_router.launch_server --model-path m "
            "--router-pd-disaggregation --router-prefill http://p:30000 eighty")
    [(_, rule, message)] = found(db, text)
    assert rule == "catalog.bad-value" and "Invalid bootstrap port: eighty" in message


def test_router_launch_server_has_no_router_host_or_port(db):
    # exclude_host_port=True: the router listens where the server's --host/--port say
    assert rules(db, "python -m sglang_router.launch_server --model-path m --router-port 1") \
        == ["catalog.unknown-flag"]


def test_bench_serving_arguments_are_judged_by_bench_serving(db):
    text = "python3 -m sglang.benchmark.serving --backend sglang --dataset-name randomm"
    [(_, rule, message)] = found(db, text)
    assert rule == "catalog.bad-value" and "random-ids" in message
    # a server flag is no argument of the benchmark client
    assert rules(db, "python3 -m sglang.benchmark.serving --tp-size 8") \
        == ["catalog.unknown-flag"]


def test_the_old_bench_serving_path_warns_as_the_release_does(db):
    history = History(db.releases.history, "sglang")
    warned = [v for v in history.order
              if history.meta(v)["bench_deprecated"].get("python3 -m sglang.bench_serving")]
    assert warned and warned[0] == "0.5.15"  # the FutureWarning since 0.5.15
    text = "python3 -m sglang.bench_serving --backend sglang --num-prompts 10"
    [(severity, rule, message)] = found(db, text)
    assert (severity, rule) == ("warning", "check.deprecated-program")
    assert "sglang.benchmark.serving" in message
    assert found(db, text, sglang="0.5.14") == []


def test_a_deprecated_program_is_said_once_per_text(db):
    line = "python3 -m sglang.bench_serving --backend sglang\n"
    assert rules(db, line * 3) == ["check.deprecated-program"]


@pytest.mark.parametrize("section", list(programs.BENCH_TOOLS))
def test_each_benchmark_tool_takes_its_own_arguments_and_the_servers(db, section):
    history = History(db.releases.history, "sglang")
    tool = history.meta(db.catalog.version)["bench_tools"][section]
    args = list(history.section(section, db.catalog.version))
    assert args, section
    for program in tool["programs"]:
        text = f"{program} --model-path m {args[0]} 1 --tp-size 2"
        if history.section(section, db.catalog.version)[args[0]]["takes_value"] is False:
            text = f"{program} --model-path m {args[0]} --tp-size 2"
        assert [r for r in rules(db, text) if r != "check.deprecated-program"] == [], text
        assert "catalog.unknown-flag" in rules(db, f"{program} --model-path m --no-such-arg")


def test_a_program_the_release_lacks_is_an_error_naming_its_new_name(db):
    # sglang.bench_one_batch moved to sglang.benchmark.one_batch: the old module is gone
    history = History(db.releases.history, "sglang")
    have = history.meta(db.catalog.version)["bench_tools"]["bench_one_batch"]["programs"]
    assert "python3 -m sglang.bench_one_batch" not in have
    [(_, rule, message)] = found(db, "python -m sglang.bench_one_batch --model-path m")
    assert rule == "check.program-missing"
    assert "No module named sglang.bench_one_batch" in message
    assert "python3 -m sglang.benchmark.one_batch" in message
    assert found(db, "python -m sglang.bench_one_batch --model-path m", sglang="0.5.12") == []


def test_grpc_mode_is_reported_as_deprecated(db):
    [(severity, rule, message)] = found(db, "sglang serve --model-path m --grpc-mode")
    assert (severity, rule) == ("warning", "catalog.deprecated-flag")
    assert "--smg-grpc-mode" in message


def test_a_program_registered_later_can_claim_a_command_first(db):
    """The hook another checker part uses (a diffusion ``sglang serve``): a program with a
    ``claims`` test is asked before the programs registered earlier."""
    seen = []
    other = programs.Program("sglang serve (test)", (("sglang", "serve"),), programs.BENCH,
                             lambda db, release: db.bench_releases.arguments[release],
                             claims=lambda args: seen.append(list(args)) or "--claim" in args)
    programs.register(other)
    try:
        assert rules(db, "sglang serve --model-path m --tp-size 2") == []
        assert rules(db, "sglang serve --claim --tp-size 2") \
            == ["catalog.unknown-flag", "catalog.unknown-flag"]
        assert seen[0] == ["--model-path", "m", "--tp-size", "2"]
    finally:
        programs.PROGRAMS.remove(other)
