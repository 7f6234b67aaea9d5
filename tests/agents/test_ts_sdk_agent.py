"""An agent written outside Python: a Node program on the official TypeScript MCP SDK
(tests/clients/ts-sdk/agent.mjs), named by a path relative to the operator's working directory as the
README's examples name agents, run in the local sandbox. It reaches the run's gateway with the SDK's
Streamable HTTP client, discovers the order, is answered a rate limit on its first write (the task's
fault), retries, and passes; the gateway recorded each call as the agent made it."""

from __future__ import annotations

import json

from mcpbench.agents.spec import PROJECT_ROOT, parse_agent
from mcpbench.sandbox.paths import AGENT_DIR_ENV, folder_refusal
from tests.clients import ts_sdk
from tests.harness.conftest import run

TASK = "pg-ship-order-1042"


def test_a_typescript_sdk_agent_named_by_a_relative_path_passes_a_recovery_task_in_the_sandbox(dev_tasks,
                                                                                              monkeypatch):
    ts_sdk.node()
    task = next(t for t in dev_tasks if t.id == TASK)
    monkeypatch.chdir(PROJECT_ROOT)
    if folder_refusal(ts_sdk.AGENT.parent) is not None:
        # a checkout under /tmp or a home: a submitter's program may not live there, the operator declares it
        monkeypatch.setenv(AGENT_DIR_ENV, str(ts_sdk.AGENT.parent))
    relative = str(ts_sdk.AGENT.relative_to(PROJECT_ROOT))
    agent = parse_agent(f"command:node {relative}")
    assert agent.argv == ("node", str(ts_sdk.AGENT))  # the sandbox's working directory is the agent's home
    assert agent.folder == str(ts_sdk.AGENT.parent)  # its own folder (with its node_modules), nothing else
    (result,) = run([task], agent)
    run_record = result.run
    assert run_record.passed, (run_record.end_reason, result.outcome.stderr_tail)
    assert run_record.sandbox == "local" and run_record.frame_held is True
    calls = [(c.tool, c.is_error, c.error_kind) for c in result.calls]
    assert calls == [("query", False, None), ("execute", True, "injected_fault"), ("execute", False, None)]
    assert json.loads(result.calls[1].arguments_json) == json.loads(result.calls[2].arguments_json)
    assert run_record.tool_calls == 3 and run_record.errors_observed == 1 and run_record.faults_injected == 1
    assert "attempt 2: ok" in result.outcome.stderr_tail  # the agent saw the fault as a tool error, not a throw
