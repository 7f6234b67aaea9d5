"""The gateway decides and records every call itself: listing, hallucinations, faults, budget."""

import json

import anyio
import pytest
from mcp import Client

from mcpbench.agents._mcp_http import MCPHttpClient
from mcpbench.gateway import Gateway, GatewayHost
from servers import get_spec
from tasks_catalog.schema import Fault, Task

STATE = {"files": {"notes/plan.md": "ship on Friday\n", "notes/old.md": "obsolete\n"}, "directories": ["archive"]}


def make_task(**changes) -> Task:
    doc = {
        "id": "fs-gateway-probe", "server": "filesystem", "difficulty": "easy", "category": "standard",
        "nonce": "5f0c2a9e41d87b3c6e1f09a2d4b7c853",
        "goal": "Move notes/old.md to archive/old.md.", "initial_state": STATE,
        "available_tools": ["list_directory", "read_text_file", "move_file"], "max_steps": 5, "timeout_s": 30,
        "success": {"filesystem.fileExists": {"path": "archive/old.md"}},
        "reference_solution": [{"tool": "move_file", "arguments": {"source": "notes/old.md", "destination": "archive/old.md"}}],
        "wrong_solutions": [{"why": "does nothing useful", "calls": [{"tool": "list_directory", "arguments": {}}]}],
        "frame": [{"entity": "filesystem.file", "change": ["create"], "ids": ["archive/old.md"]},
                  {"entity": "filesystem.file", "change": ["delete"], "ids": ["notes/old.md"]}],
    }
    doc.update(changes)
    return Task.model_validate(doc)


def with_gateway(task: Task, body):
    """Serve ``task``'s gateway on a real loopback host and run ``body(url, gateway)`` in a thread."""
    spec = get_spec(task.server)

    async def go():
        with anyio.fail_after(30):
            async with GatewayHost().running() as host:
                with spec.open(task.initial_state) as tools:
                    gateway = Gateway(task, tools, run_id="run-1", submission_id="sub-1")
                    async with host.serve(gateway) as path:
                        url = f"http://127.0.0.1:{host.port}{path}"
                        out = await anyio.to_thread.run_sync(body, url, gateway)
                    return out, gateway, tools.snapshot()

    return anyio.run(go)


def test_only_the_available_tools_are_listed():
    def body(url, gw):
        with MCPHttpClient(url) as c:
            return sorted(t["name"] for t in c.list_tools())

    names, _, _ = with_gateway(make_task(), body)
    assert names == ["list_directory", "move_file", "read_text_file"]


def test_an_unlisted_tool_is_refused_recorded_and_not_executed():
    def body(url, gw):
        with MCPHttpClient(url) as c:
            return c.call_tool("write_file", {"path": "notes/plan.md", "content": "wiped"})

    (is_error, text), gw, final = with_gateway(make_task(), body)
    assert is_error and "unknown tool 'write_file'" in text
    assert final.files["notes/plan.md"] == "ship on Friday\n"
    (call,) = gw.calls
    assert (call.listed, call.is_error, call.error_kind, call.seq) == (False, True, "unlisted_tool", 1)
    assert json.loads(call.arguments_json) == {"path": "notes/plan.md", "content": "wiped"}


def test_every_call_is_recorded_in_order_with_its_outcome():
    def body(url, gw):
        with MCPHttpClient(url) as c:
            c.call_tool("list_directory", {"path": "notes"})
            c.call_tool("read_text_file", {"path": "nope.md"})
            c.call_tool("move_file", {"source": "notes/old.md", "destination": "archive/old.md"})

    _, gw, final = with_gateway(make_task(), body)
    assert [c.seq for c in gw.calls] == [1, 2, 3]
    assert [(c.tool, c.is_error, c.error_kind) for c in gw.calls] == [
        ("list_directory", False, None), ("read_text_file", True, "tool_error"), ("move_file", False, None)]
    assert gw.calls[1].error_message and "no such file" in gw.calls[1].error_message
    assert all(c.latency_ms > 0 and c.result_bytes > 0 and c.run_id == "run-1" for c in gw.calls)
    assert "archive/old.md" in final.files and gw.counted_calls == 3 and not gw.over_budget


def test_a_fault_answers_the_named_call_with_an_error_without_executing_it():
    task = make_task(category="recovery", faults=[Fault(tool="move_file", on_call=1, times=2, kind="unavailable")])

    def body(url, gw):
        with MCPHttpClient(url) as c:
            args = {"source": "notes/old.md", "destination": "archive/old.md"}
            return [c.call_tool("move_file", args) for _ in range(3)]

    answers, gw, final = with_gateway(task, body)
    assert [a[0] for a in answers] == [True, True, False]
    assert "HTTP 503" in answers[0][1]
    assert [c.error_kind for c in gw.calls] == ["injected_fault", "injected_fault", None]
    assert gw.faults_injected == 2 and "archive/old.md" in final.files


def test_calls_past_max_steps_are_refused_and_mark_the_run_over_budget():
    def body(url, gw):
        with MCPHttpClient(url) as c:
            return [c.call_tool("list_directory", {"path": "notes"})[0] for _ in range(7)]

    errors, gw, _ = with_gateway(make_task(max_steps=5), body)
    assert errors == [False] * 5 + [True, True]
    assert gw.over_budget and gw.counted_calls == 5
    assert [c.error_kind for c in gw.calls[5:]] == ["over_budget", "over_budget"]


def test_the_gateway_speaks_to_the_official_sdk_client_too():
    async def go():
        with anyio.fail_after(30):
            async with GatewayHost().running() as host:
                task = make_task()
                with get_spec("filesystem").open(task.initial_state) as tools:
                    gw = Gateway(task, tools, run_id="r", submission_id="s")
                    async with host.serve(gw) as path, Client(f"http://127.0.0.1:{host.port}{path}") as client:
                        listed = await client.list_tools()
                        result = await client.call_tool("read_text_file", {"path": "notes/plan.md"})
                    return listed, result

    listed, result = anyio.run(go)
    assert len(listed.tools) == 3 and result.content[0].text == "ship on Friday\n"


def test_an_unknown_or_finished_gateway_path_is_not_found():
    import http.client

    async def go():
        async with GatewayHost().running() as host:
            task = make_task()
            with get_spec("filesystem").open(task.initial_state) as tools:
                async with host.serve(Gateway(task, tools, run_id="r", submission_id="s")) as path:
                    pass

            def probe(p):
                conn = http.client.HTTPConnection("127.0.0.1", host.port, timeout=5)
                conn.request("POST", p, body=b"{}", headers={"Content-Type": "application/json"})
                status = conn.getresponse().status
                conn.close()
                return status

            return await anyio.to_thread.run_sync(probe, path), await anyio.to_thread.run_sync(probe, "/r/guess/mcp")

    assert anyio.run(go) == (404, 404)


@pytest.mark.parametrize("size", [300_000])
def test_an_oversized_argument_is_a_recorded_tool_error(size):
    def body(url, gw):
        with MCPHttpClient(url) as c:
            return c.call_tool("read_text_file", {"path": "x" * size})

    (is_error, text), gw, _ = with_gateway(make_task(), body)
    assert is_error and "limit" in text
    assert gw.calls[0].truncated and gw.calls[0].arguments_bytes > size


def test_a_partial_failure_commits_the_change_and_still_answers_an_error():
    task = make_task(category="recovery", faults=[Fault(tool="write_file", kind="timeout_after_commit")],
                     available_tools=["read_text_file", "write_file"])

    def body(url, gw):
        with MCPHttpClient(url) as c:
            first = c.call_tool("write_file", {"path": "notes/log.md", "content": "one entry\n"})
            check = c.call_tool("read_text_file", {"path": "notes/log.md"})
            return first, check

    (first, check), gw, final = with_gateway(task, body)
    assert first[0] is True and "may or may not have been applied" in first[1]
    assert check == (False, "one entry\n"), "the change went through although the call answered an error"
    assert [c.error_kind for c in gw.calls] == ["injected_fault", None] and gw.faults_injected == 1
    assert final.files["notes/log.md"] == "one entry\n"


def test_a_blind_retry_after_a_partial_failure_posts_twice_and_the_frame_names_both_messages():
    from tasks_catalog.frames import frame_violations

    state = {"channels": [{"id": "C05INC2052", "name": "incident-2052", "members": ["UBOT0001"]}]}
    task = make_task(id="slack-partial-probe", server="slack", category="recovery", initial_state=state,
                     goal="Post 'mitigated' in #incident-2052.", available_tools=["post_message"],
                     faults=[Fault(tool="post_message", kind="timeout_after_commit")],
                     success={"slack.messagePosted": {"channel": "incident-2052", "pattern": "mitigated"}},
                     reference_solution=[{"tool": "post_message", "arguments": {"channel_id": "C05INC2052",
                                                                                "text": "mitigated"}}],
                     wrong_solutions=[{"why": "posts elsewhere", "calls": []}])

    def body(url, gw):
        with MCPHttpClient(url) as c:
            args = {"channel_id": "C05INC2052", "text": "mitigated"}
            return [c.call_tool("post_message", args) for _ in range(2)]

    answers, gw, final = with_gateway(task, body)
    assert [a[0] for a in answers] == [True, False]
    assert [m.text for m in final.channels[0].messages] == ["mitigated", "mitigated"]
    frame = [{"entity": "slack.message", "change": ["create"], "where": {"channel": "C05INC2052"}, "max": 1}]
    initial = get_spec("slack").load_state(state).dump()
    violations = frame_violations("slack", frame, initial, final.dump())
    assert [v.change.change for v in violations] == ["create", "create"]
    assert all(v.reason == "frame[0] allows at most 1, 2 matched" for v in violations)


def test_a_partial_failure_on_a_call_the_backend_refuses_is_that_error():
    task = make_task(category="recovery", faults=[Fault(tool="move_file", kind="timeout_after_commit")])

    def body(url, gw):
        with MCPHttpClient(url) as c:
            return c.call_tool("move_file", {"source": "notes/missing.md", "destination": "archive/x.md"})

    answer, gw, _ = with_gateway(task, body)
    assert answer[0] is True and "may or may not" not in answer[1]
    assert [c.error_kind for c in gw.calls] == ["tool_error"] and gw.faults_injected == 0
