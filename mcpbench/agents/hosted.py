"""Agents that run beside the harness rather than in the sandbox: hosted HTTP endpoints and the
built-in OpenAI-compatible tool-calling loop (``openai_loop``). Their MCP traffic still goes through
the gateway, so the trace is the harness's own observation either way."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import httpx

from mcpbench.agents.openai_loop import mcp_tool_to_function, run_openai
from mcpbench.agents.openai_loop import outcome as _outcome
from mcpbench.agents.spec import AgentJob, HostedAgent
from mcpbench.sandbox._supervise import in_own_time
from mcpbench.sandbox.interface import ProcessOutcome
from mcpbench.tls import shared_context


async def run_hosted(agent: HostedAgent, job: AgentJob,
                     waited: Callable[[], float] | None = None) -> ProcessOutcome:
    """POST the job to the hosted agent and wait (at most ``timeout_s`` of the agent's own time: what
    ``waited()`` says it waited on the harness is not charged) for its answer."""
    started, t0 = datetime.now(UTC), time.perf_counter()
    body = {"run_id": job.run_id, "goal": job.task.goal, "mcp_url": job.mcp_url,
            "max_steps": job.task.max_steps, "timeout_s": job.task.timeout_s, "deadline": job.deadline}
    if job.mcp_urls:
        body["mcp_urls"] = job.mcp_urls  # a cross-server task: the gateway at one address per server

    async def post() -> httpx.Response:
        async with httpx.AsyncClient(timeout=None, verify=shared_context()) as client:
            return await client.post(agent.url, json=body)

    try:
        resp = await in_own_time(post, job.task.timeout_s, waited)
    except TimeoutError:
        return _outcome(started, t0, exit_code=None, timed_out=True, reason="timeout")
    except httpx.HTTPError as exc:
        return _outcome(started, t0, exit_code=1, stderr=f"hosted agent unreachable: {exc}")
    text = resp.text[-4096:]
    if 200 <= resp.status_code < 300:
        return _outcome(started, t0, exit_code=0, stdout=text)
    return _outcome(started, t0, exit_code=1, stderr=f"hosted agent answered HTTP {resp.status_code}: {text}")


__all__ = ["mcp_tool_to_function", "run_hosted", "run_openai"]
