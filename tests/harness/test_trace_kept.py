"""The trace keeps what happened: each call's result text as the agent saw it (capped, the cap and the
cut recorded) and the fault injected on it, outside private months; on a private month none of it."""

from __future__ import annotations

import anyio

from mcpbench.agents._mcp_http import MCPHttpClient
from mcpbench.gateway import Gateway, GatewayHost
from runstore.records import RESULT_TEXT_KEPT
from servers import get_spec
from tasks_catalog.schema import Fault
from tests.harness.test_gateway import STATE, make_task


def calls_through_gateway(task, body, *, redact: bool = False):
    """Serve ``task``'s gateway (``redact``: as on a private month) and run ``body(client)``; the
    gateway's call records."""
    spec = get_spec(task.server)

    async def go():
        with anyio.fail_after(30):
            async with GatewayHost().running() as host:
                with spec.open(task.initial_state) as tools:
                    gateway = Gateway(task, tools, run_id="run-1", submission_id="sub-1", redact=redact)
                    async with host.serve(gateway) as path:
                        def drive():
                            with MCPHttpClient(f"http://127.0.0.1:{host.port}{path}") as client:
                                body(client)
                        await anyio.to_thread.run_sync(drive)
                    return gateway.calls

    return anyio.run(go)


def _recovery_task(**changes):
    return make_task(category="recovery", faults=[Fault(tool="move_file", on_call=1, times=1, kind="unavailable")],
                     **changes)


def _move_twice_after_a_read(client):
    client.call_tool("read_text_file", {"path": "notes/plan.md"})
    for _ in range(2):
        client.call_tool("move_file", {"source": "notes/old.md", "destination": "archive/old.md"})
    client.call_tool("read_text_file", {"path": "nope.md"})


def test_each_call_keeps_the_text_the_agent_was_answered_and_the_fault_injected_on_it():
    read, faulted, moved, missing = calls_through_gateway(_recovery_task(), _move_twice_after_a_read)
    assert read.result_text == "ship on Friday\n" and read.fault is None
    assert (read.result_truncated, read.result_cap, read.result_bytes) == (False, RESULT_TEXT_KEPT, 15)
    assert faulted.fault == "unavailable" and faulted.error_kind == "injected_fault"
    assert "HTTP 503" in faulted.result_text and faulted.result_text.startswith(faulted.error_message)
    assert moved.fault is None and not moved.is_error and "archive/old.md" in moved.result_text
    assert missing.error_kind == "tool_error" and missing.fault is None and "nope.md" in missing.result_text


def test_a_result_longer_than_the_cap_is_cut_between_characters_and_says_so():
    big = "é" * RESULT_TEXT_KEPT  # two bytes a character: twice the cap
    task = make_task(initial_state={**STATE, "files": {**STATE["files"], "notes/big.md": big}})
    (call,) = calls_through_gateway(task, lambda c: c.call_tool("read_text_file", {"path": "notes/big.md"}))
    assert call.result_truncated is True and call.result_cap == RESULT_TEXT_KEPT
    assert call.result_bytes == 2 * RESULT_TEXT_KEPT
    assert call.result_text == "é" * (RESULT_TEXT_KEPT // 2)


def test_a_private_months_gateway_keeps_no_result_text_and_no_fault():
    calls = calls_through_gateway(_recovery_task(), _move_twice_after_a_read, redact=True)
    assert [c.error_kind for c in calls] == [None, "injected_fault", None, "tool_error"]
    assert all(c.result_text is None and c.result_truncated is None and c.result_cap is None and c.fault is None
               for c in calls)
    assert [c.result_bytes for c in calls][0] == 15  # sizes are counts, kept everywhere
