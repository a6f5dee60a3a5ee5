"""The benchmark tools of a release and the router flags of ``sglang_router.launch_server``,
read from source trees written here (never a wheel): where each tool's parser is built, its
``BenchArgs`` arguments wherever they are imported from, the warning an old module prints, and
the router's flags as ``launch_server`` registers them (``--router-`` prefix, no host or port)."""

from __future__ import annotations

import textwrap

from macros.catalog_build import bench_tools, router, wheels

BENCH_ARGS = textwrap.dedent("""
    import argparse

    class BenchArgs:
        @staticmethod
        def add_cli_args(parser):
            parser.add_argument("--batch-size", type=int, nargs="+", default=[1])
            parser.add_argument("--input-len", type=int, nargs="+", default=[1024])
""")
OLD_MAIN = BENCH_ARGS + textwrap.dedent("""
    if __name__ == "__main__":
        parser = argparse.ArgumentParser()
        ServerArgs.add_cli_args(parser)
        BenchArgs.add_cli_args(parser)
""")
NEW_MAIN = BENCH_ARGS + textwrap.dedent("""
    def cli_main():
        parser = argparse.ArgumentParser()
        ServerArgs.add_cli_args(parser)
        BenchArgs.add_cli_args(parser)

    if __name__ == "__main__":
        cli_main()
""")
SHIM = textwrap.dedent("""
    import warnings
    from sglang.benchmark.one_batch import *
    from sglang.benchmark.one_batch import cli_main

    warnings.warn(
        "`sglang.bench_one_batch` is deprecated; "
        "use `sglang.benchmark.one_batch`.",
        FutureWarning,
    )

    if __name__ == "__main__":
        cli_main()
""")


def test_a_tool_before_the_move_builds_its_parser_in_its_main_block():
    src = wheels.SourceTree(files={"sglang/__init__.py": "", "sglang/bench_one_batch.py": OLD_MAIN})
    tool = bench_tools.extract_tool(src, "bench_one_batch")
    assert tool["programs"] == ["python3 -m sglang.bench_one_batch"]
    assert tool["deprecated"] == {} and tool["server_args"] is True
    assert [f["name"] for f in tool["flags"]] == ["--batch-size", "--input-len"]


def test_a_moved_tool_keeps_its_old_path_with_the_warning_it_prints():
    src = wheels.SourceTree(files={"sglang/__init__.py": "", "sglang/benchmark/__init__.py": "",
                                   "sglang/bench_one_batch.py": SHIM,
                                   "sglang/benchmark/one_batch.py": NEW_MAIN})
    tool = bench_tools.extract_tool(src, "bench_one_batch")
    assert tool["programs"] == ["python3 -m sglang.bench_one_batch",
                                "python3 -m sglang.benchmark.one_batch"]
    assert tool["deprecated"] == {"python3 -m sglang.bench_one_batch": (
        "`sglang.bench_one_batch` is deprecated; use `sglang.benchmark.one_batch`.")}
    assert [f["name"] for f in tool["flags"]] == ["--batch-size", "--input-len"]


def test_a_release_without_the_tool_has_none():
    src = wheels.SourceTree(files={"sglang/__init__.py": ""})
    assert bench_tools.extract_tool(src, "bench_offline_throughput") is None


ROUTER_ARGS = textwrap.dedent("""
    class RouterArgs:
        host: str = "0.0.0.0"
        port: int = 30000

        @staticmethod
        def add_cli_args(parser, use_router_prefix=False, exclude_host_port=False):
            prefix = "router-" if use_router_prefix else ""
            if not exclude_host_port:
                parser.add_argument("--host", type=str, default=RouterArgs.host)
                parser.add_argument("--port", type=int, default=RouterArgs.port)
            parser.add_argument("--worker-urls", type=str, nargs="*", default=[])
            parser.add_argument(f"--{prefix}policy", type=str, default="cache_aware",
                                choices=["random", "round_robin", "cache_aware"])
            parser.add_argument(f"--{prefix}prefill", nargs="+", action="append")
""")
ROUTER_FILES = {
    "sglang_router/__init__.py": "",
    "sglang_router/router_args.py": ROUTER_ARGS,
    "sglang_router/launch_router.py": textwrap.dedent("""
        import argparse
        def parse_router_args(args):
            parser = argparse.ArgumentParser()
    """),
    "sglang_router/launch_server.py": textwrap.dedent("""
        import argparse
        from sglang_router.router_args import RouterArgs
        def main():
            parser = argparse.ArgumentParser()
            ServerArgs.add_cli_args(parser)
            RouterArgs.add_cli_args(parser, use_router_prefix=True, exclude_host_port=True)
            parser.add_argument("--router-dp-worker-base-port", type=int, default=31000)
    """),
}


def test_router_launch_server_registers_the_router_flags_with_their_prefix():
    result = router.extract_router(wheels.SourceTree(files=ROUTER_FILES))
    assert [f["name"] for f in result["flags"]] == ["--host", "--port", "--worker-urls",
                                                    "--policy", "--prefill"]
    got = {f["name"]: f["router_flag"] for f in result["launch_server"]}
    assert got == {"--worker-urls": "--worker-urls", "--router-policy": "--policy",
                   "--router-prefill": "--prefill", "--router-dp-worker-base-port": None}
