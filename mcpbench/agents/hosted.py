"""Agents that run beside the harness rather than in the sandbox: hosted HTTP endpoints and the
built-in OpenAI-compatible tool-calling loop. Their MCP traffic still goes through the gateway,
so the trace is the harness's own observation either way."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import anyio
import httpx

from mcpbench.agents.spec import AgentJob, HostedAgent, OpenAIAgent
from mcpbench.sandbox.interface import ProcessOutcome

SYSTEM_PROMPT = (
    "You are an agent operating a service through the tools you are given. Complete the user's "
    "request exactly, using the tools. When you are done, answer with a short summary and no tool call."
)


def _outcome(started: datetime, t0: float, *, exit_code: int | None, timed_out: bool = False,
             reason: str | None = None, stdout: str = "", stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(
        sandbox="host", exit_code=exit_code, timed_out=timed_out, killed_reason=reason,
        stdout_tail=stdout[-4096:], stderr_tail=stderr[-4096:], stdout_bytes=len(stdout.encode()),
        stderr_bytes=len(stderr.encode()), started_at=started, ended_at=datetime.now(UTC),
        wall_s=time.perf_counter() - t0, startup_ms=0.0,
    )


async def run_hosted(agent: HostedAgent, job: AgentJob) -> ProcessOutcome:
    """POST the job to the hosted agent and wait (at most ``timeout_s``) for its answer."""
    started, t0 = datetime.now(UTC), time.perf_counter()
    body = {"run_id": job.run_id, "goal": job.task.goal, "mcp_url": job.mcp_url,
            "max_steps": job.task.max_steps, "timeout_s": job.task.timeout_s, "deadline": job.deadline}
    try:
        with anyio.fail_after(job.task.timeout_s):
            async with httpx.AsyncClient(timeout=job.task.timeout_s) as client:
                resp = await client.post(agent.url, json=body)
    except TimeoutError:
        return _outcome(started, t0, exit_code=None, timed_out=True, reason="timeout")
    except httpx.HTTPError as exc:
        return _outcome(started, t0, exit_code=1, stderr=f"hosted agent unreachable: {exc}")
    text = resp.text[-4096:]
    if 200 <= resp.status_code < 300:
        return _outcome(started, t0, exit_code=0, stdout=text)
    return _outcome(started, t0, exit_code=1, stderr=f"hosted agent answered HTTP {resp.status_code}: {text}")


def mcp_tool_to_function(tool: Any) -> dict[str, Any]:
    """An MCP tool as an OpenAI function tool."""
    schema = dict(tool.input_schema or {"type": "object", "properties": {}})
    schema.pop("title", None)
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description or "", "parameters": schema}}


async def run_openai(agent: OpenAIAgent, job: AgentJob, max_turns: int = 50) -> ProcessOutcome:
    """The chat-completions loop: send the goal and the tools, execute every tool call over MCP,
    feed results back, stop when the model answers without a tool call."""
    from mcp import Client

    started, t0 = datetime.now(UTC), time.perf_counter()
    log: list[str] = []
    headers = {"Authorization": f"Bearer {agent.api_key}"} if agent.api_key else {}
    try:
        with anyio.fail_after(job.task.timeout_s):
            async with Client(job.mcp_url) as mcp_client, httpx.AsyncClient(
                base_url=agent.base_url, headers=headers, timeout=job.task.timeout_s
            ) as http:
                tools = [mcp_tool_to_function(t) for t in (await mcp_client.list_tools()).tools]
                messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                                  {"role": "user", "content": job.task.goal}]
                for _ in range(max_turns):
                    resp = await http.post("/chat/completions", json={"model": agent.model, "messages": messages,
                                                                      "tools": tools})
                    if resp.status_code != 200:
                        return _outcome(started, t0, exit_code=1, stdout="\n".join(log),
                                        stderr=f"chat endpoint answered HTTP {resp.status_code}: {resp.text[:500]}")
                    message = _first_message(resp.json())
                    messages.append(message)
                    calls = message.get("tool_calls") or []
                    if not calls:
                        log.append(str(message.get("content") or ""))
                        return _outcome(started, t0, exit_code=0, stdout="\n".join(log))
                    for call in calls:
                        fn = call.get("function", {})
                        try:
                            args = json.loads(fn.get("arguments") or "{}")
                        except json.JSONDecodeError:
                            args = {}
                            content = "error: the arguments were not valid JSON"
                        else:
                            result = await mcp_client.call_tool(fn.get("name", ""), args)
                            content = "".join(getattr(c, "text", "") for c in result.content)
                            if result.is_error:
                                content = f"error: {content}"
                        log.append(f"{fn.get('name')} -> {content[:200]}")
                        messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})
                return _outcome(started, t0, exit_code=1, stdout="\n".join(log),
                                stderr=f"gave up after {max_turns} model turns")
    except TimeoutError:
        return _outcome(started, t0, exit_code=None, timed_out=True, reason="timeout", stdout="\n".join(log))
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        return _outcome(started, t0, exit_code=1, stdout="\n".join(log), stderr=f"openai agent failed: {exc}")


def _first_message(body: dict[str, Any]) -> dict[str, Any]:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"not a chat-completions response: {str(body)[:300]}") from None
    return {k: v for k, v in message.items() if k in ("role", "content", "tool_calls")} | {"role": "assistant"}
