"""Every server runs standalone (`mcpbench serve`) for any MCP client: over stdio and over streamable
HTTP, each in its own process, driven by the official Python SDK client and by a third party's, the
official TypeScript SDK's (which checks what it reads against its own schemas)."""

import json
import socket
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from mcpbench.cli import main
from servers import SERVER_NAMES
from tasks_catalog.loader import load_valid_tasks
from tests.clients import ts_sdk

DEV = Path(__file__).resolve().parents[2] / "tasks_catalog" / "dev"


def first_task(server: str):
    return load_valid_tasks([DEV / server])[0]


def state_file(tmp_path: Path, server: str) -> tuple[Path, object]:
    task = first_task(server)
    path = tmp_path / f"{server}.json"
    path.write_text(json.dumps(task.initial_state))
    return path, task


async def exercise(client: Client, task) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(task.available_tools) <= set(tools)
    assert all(t.description and t.annotations is not None for t in tools.values())
    call = task.reference_solution[0]
    result = await client.call_tool(call.tool, call.arguments)
    assert not result.is_error, result.content
    missing = await client.call_tool("no_such_tool", {})
    assert missing.is_error


def ts_sdk_exercise(tmp_path: Path, server: str, task, *target: str) -> dict:
    """The TypeScript SDK's client against one server: what `exercise` checks, seen by another client."""
    call = task.reference_solution[0]
    report = ts_sdk.exercise(tmp_path, {"tool": call.tool, "arguments": call.arguments}, *target)
    assert report["server"] == {"name": f"mcpbench-{server}", "version": version("mcpbench")}
    tools = {t["name"]: t for t in report["tools"]}
    assert set(task.available_tools) <= set(tools)
    assert all(t["described"] and t["inputIsObject"] and t["annotated"] for t in tools.values()), tools
    assert not report["call"]["isError"], report["call"]["text"]
    assert report["call"]["contentTypes"] == ["text"] and report["call"]["text"].strip()
    assert report["unknownTool"] == {"isError": True, "threw": None}
    return report


def test_mcpbench_servers_lists_the_ten_servers_and_their_tools():
    result = CliRunner().invoke(main, ["servers", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["name"] for r in rows] == list(SERVER_NAMES)
    assert all(6 <= len(r["tools"]) <= 25 for r in rows), {r["name"]: len(r["tools"]) for r in rows}
    table = CliRunner().invoke(main, ["servers"])
    assert table.exit_code == 0 and "read-only" in table.output and "destructive" in table.output


@pytest.mark.parametrize("server", SERVER_NAMES)
def test_each_server_answers_an_mcp_client_over_stdio(server, tmp_path):
    path, task = state_file(tmp_path, server)
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcpbench", "serve", server, "--state", str(path)])

    async def go():
        with anyio.fail_after(60):
            async with Client(params) as client:
                await exercise(client, task)

    anyio.run(go)


#: stdio framing is the kit's, the same for every server; the servers' own answers are checked over HTTP
#: by both clients, so two servers here (one more process each) are enough for the TypeScript client
@pytest.mark.parametrize("server", ["postgres", "notion"])
def test_a_server_answers_the_typescript_sdk_client_over_stdio(server, tmp_path):
    path, task = state_file(tmp_path, server)
    ts_sdk_exercise(tmp_path, server, task, "stdio", sys.executable, "-m", "mcpbench", "serve", server,
                    "--state", str(path))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("server", SERVER_NAMES)
def test_each_server_answers_an_mcp_client_over_streamable_http(server, tmp_path):
    path, task = state_file(tmp_path, server)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mcpbench", "serve", server, "--state", str(path),
                             "--transport", "http", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening within 60 s"
                time.sleep(0.05)

        async def go():
            with anyio.fail_after(60):
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    await exercise(client, task)

        anyio.run(go)
        # the same server process, a third party's client: the session above is closed, this is a new one
        report = ts_sdk_exercise(tmp_path, server, task, "http", f"http://127.0.0.1:{port}/mcp")
        assert report["protocolVersion"]  # negotiated, and the client sends it on every later request
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


def test_a_bad_state_file_is_refused_naming_the_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"channels": [{"id": "C1", "nmae": "general"}]}))
    result = CliRunner().invoke(main, ["serve", "slack", "--state", str(bad)])
    assert result.exit_code != 0
    assert "channels[0]" in result.output and "nmae" in result.output
    unknown = CliRunner().invoke(main, ["serve", "jira"])
    assert unknown.exit_code != 0 and "unknown server 'jira'" in unknown.output


@pytest.mark.parametrize("server", ["filesystem", "postgres"])
def test_a_state_file_nested_100000_levels_deep_is_refused_naming_the_file_and_path(tmp_path, server):
    """Python's json recurses once per level: without the bound, `serve` died of RecursionError."""
    deep = tmp_path / "deep.json"
    deep.write_text('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    result = CliRunner().invoke(main, ["serve", server, "--state", str(deep)])
    assert result.exit_code == 1 and not isinstance(result.exception, RecursionError), result.exception
    assert f"bad state for server {server}" in result.output
    assert "deep.json: at $.files[0][0]" in result.output and "nested more than 100 levels" in result.output
