"""The built-in ``openai`` agent: a chat-completions tool-calling loop through the run's model gateway.

It sends the goal and the task's tools (``tool_choice: "auto"``, a per-turn ``max_tokens``), streams
each answer, executes every tool call over MCP and feeds the results back, and stops when the model
answers without a tool call or the step budget is spent. Every way it can end is classified:

- finished (exit 0): a final answer, or the step budget spent;
- stopped by the run's model budget (exit 0, "stopped: …" on stderr): the model gateway refused the
  next request (HTTP 403 ``budget_exceeded``); the gateway's meter makes the run ``over_budget``, so
  it ends for that reason, not as the agent's failure (``runner.end_reason`` puts ``agent_exit`` first);
- the agent's failure (exit 1, the reason on stderr, which the run record keeps): the endpoint
  answered an error, an answer that is not a chat completion, an answer cut off by ``max_tokens``
  (``finish_reason: length``) with no tool call, a model that never stops calling tools (``max_turns``);
- model unavailable: the model gateway gave up on the upstream; the runner, which reads the gateway's
  own meter rather than this loop's word, records ``infra:model_unavailable``;
- timed out at the run's deadline: the stream is dropped, so the gateway cancels the upstream request.

A malformed tool call (arguments not a JSON object) is fed back to the model as an error and not
executed; the model gateway has already recorded it in the trace. An answer cut off by ``max_tokens``
while it was calling tools (whose last call may be incomplete) goes on, and is noted on stderr, which
the run record keeps (``stderr_tail``) whatever the run's end. Nothing escapes as a traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx

from mcpbench.agents.spec import AgentJob, OpenAIAgent
from mcpbench.model_gateway.completion import Completion, EventStream
from mcpbench.sandbox._supervise import in_own_time
from mcpbench.sandbox.interface import ProcessOutcome
from mcpbench.tls import shared_context

SYSTEM_PROMPT = (
    "You are an agent operating a service through the tools you are given. Complete the user's "
    "request exactly, using the tools. When you are done, answer with a short summary and no tool call."
)


class AgentFailure(Exception):
    """The agent (this loop and its model) failed; the message says why."""


class ModelUnavailable(Exception):
    """The model gateway answered that the upstream model stayed unavailable."""


class BudgetSpent(Exception):
    """The model gateway refused the request: the run's model request or token budget is spent."""


def outcome(started: datetime, t0: float, *, exit_code: int | None, timed_out: bool = False,
            reason: str | None = None, stdout: str = "", stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(
        sandbox="host", exit_code=exit_code, timed_out=timed_out, killed_reason=reason,
        stdout_tail=stdout[-4096:], stderr_tail=stderr[-4096:], stdout_bytes=len(stdout.encode()),
        stderr_bytes=len(stderr.encode()), started_at=started, ended_at=datetime.now(UTC),
        wall_s=time.perf_counter() - t0, startup_ms=0.0,
    )


def mcp_tool_to_function(tool: Any) -> dict[str, Any]:
    """An MCP tool as an OpenAI function tool."""
    schema = dict(tool.input_schema or {"type": "object", "properties": {}})
    schema.pop("title", None)
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description or "", "parameters": schema}}


async def run_openai(agent: OpenAIAgent, job: AgentJob, waited: Callable[[], float] | None = None) -> ProcessOutcome:
    """Run the loop for ``job`` within ``timeout_s`` of its own time (what ``waited()`` says it waited on
    the harness is not charged); never raises for anything the model or the endpoint does."""
    started, t0 = datetime.now(UTC), time.perf_counter()
    log: list[str] = []  # stdout: what the loop did
    notes: list[str] = []  # stderr (kept by the run record): what went wrong without ending the run
    if not job.model_url:
        return outcome(started, t0, exit_code=1, stderr="openai agent: the run has no model gateway")
    try:
        final = await in_own_time(lambda: _loop(agent, job, log, notes),
                                  max(0.001, job.deadline - time.time()), waited)
    except TimeoutError:
        return outcome(started, t0, exit_code=None, timed_out=True, reason="timeout", stdout="\n".join(log),
                       stderr="\n".join(notes))
    except Exception as exc:  # noqa: BLE001 - classified below, including ExceptionGroups from the MCP client
        spent = next((leaf for leaf in _leaves(exc) if isinstance(leaf, BudgetSpent)), None)
        if spent is None:
            return outcome(started, t0, exit_code=1, stdout="\n".join(log), stderr="\n".join([*notes, _reason(exc)]))
        final = f"openai agent stopped: {spent}"
        notes.append(final)
    log.append(final)
    return outcome(started, t0, exit_code=0, stdout="\n".join(log), stderr="\n".join(notes))


def _reason(exc: BaseException) -> str:
    """One line saying why the loop failed, from the innermost exception that explains it."""
    leaves = _leaves(exc)
    for kind, label in ((ModelUnavailable, "model unavailable"), (AgentFailure, "openai agent failed")):
        for leaf in leaves:
            if isinstance(leaf, kind):
                return f"{label}: {leaf}"
    leaf = leaves[0]
    if isinstance(leaf, httpx.HTTPError):
        return f"openai agent failed: the model gateway could not be reached ({type(leaf).__name__}: {leaf})"
    return f"openai agent failed: {type(leaf).__name__}: {leaf}"[:2000]


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


async def _loop(agent: OpenAIAgent, job: AgentJob, log: list[str], notes: list[str]) -> str:
    assert job.model_url  # run_openai answers a run without one before the loop
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    budget = job.task.max_steps
    steps = 0
    # No read timeout of their own: the run's deadline (``in_own_time``) bounds every wait, and moves later
    # by what the agent waited on the harness, which a fixed read timeout would not.
    timeout = httpx.Timeout(connect=10.0, read=None, write=30.0, pool=30.0)
    # The client the MCP SDK would make (its httpx), with the process's TLS context (see mcpbench/tls.py); the
    # run's deadline bounds every wait anyway.
    mcp_http = httpx2.AsyncClient(timeout=httpx2.Timeout(10.0, read=None), verify=shared_context())
    async with (mcp_http, Client(streamable_http_client(job.mcp_url, http_client=mcp_http)) as mcp,
                httpx.AsyncClient(base_url=job.model_url, timeout=timeout, verify=shared_context()) as http):
        tools = [mcp_tool_to_function(t) for t in (await mcp.list_tools()).tools]
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                          {"role": "user", "content": job.task.goal}]
        for turn in range(agent.max_turns):
            if steps >= budget:
                return f"stopped: the step budget of {budget} tool calls is spent"
            done = await _chat(http, {"model": agent.model, "messages": messages, "tools": tools,
                                      "tool_choice": "auto", "max_tokens": agent.max_tokens,
                                      "stream": agent.stream})
            for i, call in enumerate(done.calls):
                call.id = call.id or f"call_{turn}_{i}"
            messages.append(done.message())
            if not done.calls:
                if done.finish_reason == "length":
                    raise AgentFailure(f"the model's answer was cut off at max_tokens={agent.max_tokens} "
                                       "(finish_reason length) before it called a tool or finished")
                return done.content
            if done.finish_reason == "length":
                # Its calls are executed or fed back as malformed, as usual; the cut is said on stderr.
                notes.append(f"openai agent: turn {turn + 1}: the model's answer was cut off by max_tokens "
                             f"(finish_reason length) after {len(done.calls)} tool call(s); the last may be "
                             "incomplete")
            for call in done.calls:
                if steps >= budget:
                    content = "error: not executed: the step budget is spent"
                else:
                    steps += 1
                    content = await _execute(mcp, call)
                log.append(f"{call.name} -> {content[:200]}")
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        raise AgentFailure(f"gave up after {agent.max_turns} model turns without a final answer")


async def _execute(mcp: Any, call: Any) -> str:
    arguments, why = call.parsed_arguments()
    if arguments is None:
        return f"error: malformed tool call, not executed: {why}"
    result = await mcp.call_tool(call.name, arguments)
    text = "".join(getattr(c, "text", "") for c in result.content)
    return f"error: {text}" if result.is_error else text


async def _chat(http: httpx.AsyncClient, request: dict[str, Any]) -> Completion:
    """One streamed model turn, read whole."""
    async with http.stream("POST", "/chat/completions", json=request) as response:
        if response.status_code != 200:
            body = (await response.aread()).decode(errors="replace")
            if response.status_code == 503 and "model_unavailable" in body:
                raise ModelUnavailable(_message(body))
            if response.status_code == 403 and "budget_exceeded" in body:
                raise BudgetSpent(_message(body))
            raise AgentFailure(f"chat endpoint answered HTTP {response.status_code}: {_message(body)[:500]}")
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            done = Completion.from_body(await response.aread())
        else:
            done, events = Completion(), EventStream()
            async for chunk in response.aiter_bytes():
                for event in events.feed(chunk):
                    done.feed_event(event)
            for event in events.close():
                done.feed_event(event)
            done.finish_stream()
    if done.malformed:
        raise AgentFailure(f"malformed answer: {done.malformed}")
    return done


def _message(body: str) -> str:
    import json

    try:
        return str(json.loads(body)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return body


__all__ = ["AgentFailure", "BudgetSpent", "ModelUnavailable", "SYSTEM_PROMPT", "mcp_tool_to_function", "run_openai"]
