"""``recipes mcp`` started as an agent starts it (a subprocess on stdio), driven through the
official ``mcp`` client: its tools, a command equal to ``recipes command``'s (each format), a
check equal to ``recipes check``'s, a page as a resource, bad input as a tool error."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters


from helpers import walks
from helpers.models import MODELS

ROOT = Path(__file__).resolve().parents[2]


def _server() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "macros.cli", "mcp"],
                                 env={"PYTHONPATH": str(ROOT), "PATH": os.environ["PATH"]},
                                 cwd=str(ROOT))


def run_apart(session) -> None:
    """Runs the client's session to its end in a thread of its own: a browser test earlier in
    this process leaves Playwright's event loop running in the main thread (its sync API keeps
    one there), and a second loop may not start in a thread that has one."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, session).result()


def _text(result) -> str:
    assert not result.is_error, result.content
    return "".join(c.text for c in result.content if c.type == "text")


def _selections(db):
    """Per model: its first enumerated selection and a PD or multi-node one where it has one."""
    out = []
    for model_id in MODELS:
        walked = walks.walked(db, model_id)
        out.append((model_id, walked[0][0]))
        special = next((flat for flat, res in walked if res.pd or res.nodes > 1), None)
        if special:
            out.append((model_id, special))
    return out


def test_mcp_server_answers_as_the_cli_does(db, cli):
    picks = _selections(db)
    answers: dict = {}

    async def session():
        async with Client(_server()) as client:
            tools = await client.list_tools()
            answers["tools"] = sorted(t.name for t in tools.tools)
            answers["models"] = json.loads(_text(await client.call_tool("list_models", {})))
            answers["options"] = json.loads(_text(await client.call_tool(
                "options", {"model": MODELS[0]})))
            for model_id, flat in picks:
                for fmt in ("command", "json", "config", "compose", "k8s"):
                    answers[(model_id, json.dumps(flat), fmt)] = _text(await client.call_tool(
                        "command", {"model": model_id, "selection": flat, "format": fmt}))
            release = answers["options"]["releases"][0]
            answers["release"] = _text(await client.call_tool("command", {
                "model": picks[0][0], "selection": picks[0][1], "release": release}))
            for model_id, flat in picks[1:2]:  # a PD or multi-node one: files follow it too
                for fmt in ("config", "compose", "k8s"):
                    answers[("release", fmt)] = _text(await client.call_tool("command", {
                        "model": model_id, "selection": flat, "format": fmt,
                        "release": release}))
            answers["bad"] = await client.call_tool("command", {"model": "no-such-model"})
            answers["check"] = json.loads(_text(await client.call_tool("check", {
                "command": "sglang serve --model-path x --tp-size 0 --no-such-flag"})))
            answers["check_file"] = json.loads(_text(await client.call_tool("check", {
                "text": answers[(picks[0][0], json.dumps(picks[0][1]), "command")]})))
            resources = await client.list_resources()
            answers["resources"] = [str(r.uri) for r in resources.resources]
            page = next(u for u in answers["resources"] if u.startswith("recipes://en/models/"))
            answers["page"] = page
            read = await client.read_resource(page)
            answers["page_text"] = read.contents[0].text

    run_apart(session)
    assert answers["tools"] == ["check", "command", "list_models", "options"]
    assert [m["id"] for m in answers["models"]["models"]] == MODELS
    assert {d["id"] for d in answers["options"]["dimensions"]} >= {"hw"}
    for model_id, flat in picks:
        sets = [a for k, v in flat.items() for a in ("--set", f"{k}={v}")]
        for fmt, extra in (("command", []), ("json", ["--format", "json"]),
                           ("config", ["--as", "config"]), ("compose", ["--as", "compose"]),
                           ("k8s", ["--as", "k8s"])):
            want = cli("command", model_id, *sets, *extra).out
            got = answers[(model_id, json.dumps(flat), fmt)]
            assert got.rstrip("\n") == want.rstrip("\n"), (model_id, flat, fmt)
    release = answers["options"]["releases"][0]
    sets = [a for k, v in picks[0][1].items() for a in ("--set", f"{k}={v}")]
    want = cli("command", picks[0][0], *sets, "--sglang", release).out
    assert answers["release"].rstrip("\n") == want.rstrip("\n")
    for model_id, flat in picks[1:2]:
        sets = [a for k, v in flat.items() for a in ("--set", f"{k}={v}")]
        for fmt in ("config", "compose", "k8s"):
            want = cli("command", model_id, *sets, "--as", fmt, "--sglang", release).out
            got = answers[("release", fmt)]
            assert got.rstrip("\n") == want.rstrip("\n") and f"sglang {release}" in got, fmt
    assert answers["bad"].is_error
    assert "no-such-model" in _text_any(answers["bad"]) and MODELS[0] in _text_any(answers["bad"])
    want = cli("check", "--format", "json", "--",
               "sglang serve --model-path x --tp-size 0 --no-such-flag")
    assert answers["check"]["diagnostics"] == want.json()["diagnostics"]
    assert answers["check"]["exit"] == want.code == 1
    first = answers[(picks[0][0], json.dumps(picks[0][1]), "command")]
    want = cli("check", "--format", "json", "--file", "-", stdin=first)
    assert answers["check_file"]["diagnostics"] == want.json()["diagnostics"]
    docs = sorted(p.relative_to(ROOT / "docs" / "en").as_posix()
                  for p in (ROOT / "docs" / "en").rglob("*.md"))
    assert answers["resources"] == [f"recipes://{lang}/{uri}" for lang in ("en", "ko")
                                    for uri in docs]
    assert "{{" not in answers["page_text"] and "```" in answers["page_text"]


def _text_any(result) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


@pytest.mark.parametrize("args", [{"model": "x"}, {"model": MODELS[0], "format": "yaml"},
                                  {"model": MODELS[0], "release": "0.0.1"},
                                  {"model": MODELS[0], "selection": {"hw": "no-such-hw"}}])
def test_mcp_command_refuses_bad_input_with_the_valid_choices(args):
    from macros import mcp_server

    with pytest.raises(mcp_server.ToolError) as exc:
        mcp_server.command(**args)
    assert "(" in str(exc.value) or "available" in str(exc.value)
