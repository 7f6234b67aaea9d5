"""Every kind of agent works a cross-server task end to end: the built-in ``openai`` loop (its tools
named ``<server>__<tool>``, as OpenAI function names allow), a hosted ``http:`` agent (given one URL
per server as well), and the ``interactive`` agent through ``mcpbench run``; each call recorded with
the server it went to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpbench.agents._mcp_http import MCPHttpClient
from runstore.store import open_store
from tasks_catalog.loader import load_valid_tasks
from tasks_catalog.schema import CROSS_SERVER
from tests.agents.conftest import run, settings
from tests.agents.test_openai_agent import solving
from tests.agents.upstream import Reply, ScriptedUpstream, completion
from tests.harness.conftest import run as run_beside
from tests.harness.test_host_agents import _Server

ROOT = Path(__file__).resolve().parents[2]
CROSS = ROOT / "tests" / "cross_server_tasks"
OPENAI_NAME = r"^[a-zA-Z0-9_-]{1,64}$"


@pytest.fixture(scope="module")
def cross_tasks():
    return {t.id: t for t in load_valid_tasks([CROSS])}


def test_the_openai_loop_solves_a_cross_server_task_with_its_servers_tools_named_by_server(cross_tasks):
    import re

    task = cross_tasks["x-refund-duplicate-and-report"]  # a fault on stripe: the loop's model must retry it
    retried = [task.reference_solution[0], task.reference_solution[1], *task.reference_solution[1:]]
    with ScriptedUpstream(solving(task.model_copy(update={"reference_solution": retried}))) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.passed, (result.run.stderr_tail, [c.error_message for c in result.calls])
    names = [t["function"]["name"] for t in upstream.requests[0]["tools"]]
    assert sorted(names) == sorted(task.available_tools) and all(re.match(OPENAI_NAME, n) for n in names)
    assert (result.run.server, result.run.servers) == (CROSS_SERVER, ["stripe", "slack"])
    assert [(c.server, c.tool, c.error_kind) for c in result.calls] == [
        ("stripe", "list_charges", None), ("stripe", "create_refund", "injected_fault"),
        ("stripe", "create_refund", None), ("slack", "post_message", None)]


def test_a_malformed_call_the_model_emits_is_recorded_with_the_server_its_name_names(cross_tasks):
    task = cross_tasks["x-incident-handover"]

    def answer(body, n):
        if n == 0:
            return Reply(body=completion(calls=[("slack__post_message", "{not json")]))
        return Reply(body=completion("Giving up."))

    with ScriptedUpstream(answer) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert [(c.server, c.tool, c.error_kind) for c in result.calls] == [("slack", "post_message", "malformed_call")]
    assert upstream.requests


def test_a_hosted_agent_gets_one_url_per_server_and_works_the_task_there(cross_tasks):
    """The hosted agent lists each server's tools at that server's own URL and makes the reference calls there."""
    task = cross_tasks["x-close-fixed-bug"]
    listed: dict[str, list[str]] = {}

    def hosted(path, job):
        clients = {s: MCPHttpClient(url) for s, url in job["mcp_urls"].items()}
        for server, client in clients.items():
            client.initialize()
            listed[server] = sorted(t["name"] for t in client.list_tools())
        for call in task.reference_solution:
            server, tool = task.route(call.tool)
            clients[server].call_tool(tool, call.arguments)
        for client in clients.values():
            client.close()
        return 200, {"status": "done"}

    with _Server(hosted) as agent:
        (result,) = run_beside([task], f"http:{agent.url}/run")
    assert result.run.passed and result.run.sandbox == "host", result.run.stderr_tail
    (job,) = [r["body"] for r in agent.requests]
    assert sorted(job["mcp_urls"]) == ["github", "linear", "slack"]
    assert all(url.endswith(f"/{s}/mcp") and url.startswith(job["mcp_url"][:-len("mcp")])
               for s, url in job["mcp_urls"].items())
    assert listed["slack"] == ["list_channels", "post_message"]
    assert [(c.server, c.tool) for c in result.calls] == [task.route(c.tool) for c in task.reference_solution]


def test_the_interactive_agent_shows_the_servers_and_passes_a_cross_server_task(tmp_path, cross_tasks):
    task = cross_tasks["x-close-fixed-bug"]
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join([*(json.dumps({"tool": c.tool, "arguments": c.arguments})
                                  for c in task.reference_solution), "done", ""]))
    with open(tmp_path / "out.txt", "w") as out:
        process = subprocess.run(
            [sys.executable, "-m", "mcpbench", "run", "--agent", f"interactive:{calls}", "--tasks-dir", str(CROSS),
             "--tasks", task.id, "--store", str(tmp_path / "store"), "--submission-id", "solver-x", "--json"],
            stdout=out, stderr=subprocess.PIPE, text=True, timeout=300, env=dict(os.environ), check=False)
    text = (tmp_path / "out.txt").read_text()
    assert process.returncode == 0, (process.stderr, text)
    assert "SERVERS: github, linear, slack: each tool is named <server>__<tool>" in text
    assert "- github__update_issue:" in text and "- slack__post_message:" in text
    assert "[3] slack__post_message: ok" in text
    (landed,) = open_store(str(tmp_path / "store")).read_runs("solver-x").to_pylist()
    assert landed["passed"] and landed["server"] == CROSS_SERVER and landed["servers"] == ["github", "linear", "slack"]
    stored = open_store(str(tmp_path / "store")).read_calls("solver-x").to_pylist()
    assert [(c["server"], c["tool"]) for c in stored] == [("github", "update_issue"), ("linear", "update_issue"),
                                                         ("slack", "post_message")]
