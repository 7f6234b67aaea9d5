"""Replaying calls on a fresh backend of a task's server through a real (in-memory) MCP client: what the
acceptance gate, its probes and the authoring tools run solutions with."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from servers import get_spec
from servers.kit import build_mcp_server
from tasks_catalog.faults import FaultPlan, executes
from tasks_catalog.schema import Fault, Task, ToolCall

#: How many times the oracle (and so the gate) tries a call that meets a transient fault.
ATTEMPTS = 4


@dataclass
class Replay:
    """A call sequence applied to a fresh backend: the final state, the errors, the calls it took."""

    state: Any
    errors: list[str]
    steps: int
    calls: int
    initial: Any = None  # what ``at_start`` made of the state before any call


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def replay(task: Task, calls: Iterable[ToolCall], *, only_available: bool = True, strict: bool = True,
                 faults: bool | Iterable[Fault] = False, at_start: Callable[[Any], Any] | None = None,
                 start: Any = None, after_write: Callable[[int, Any], None] | None = None) -> Replay:
    """Apply ``calls`` to a fresh backend of ``task`` through an in-memory MCP client. With ``faults``
    (True: the task's own; or the faults given), they are injected as the gateway does and met as the
    oracle meets them: a call that fails before commit is retried (up to ``ATTEMPTS`` tries, each a step);
    one that fails after commit is not. ``strict`` stops at the first error. ``at_start`` is called with
    the backend's state before the first call, and what it returns is the replay's ``initial``: the live
    state, to read there and then (a dump, a verdict) instead of copying a whole world to keep.
    ``start``: a state to begin from instead of the task's initial state (a probe starts from the
    reference's final state). ``after_write`` is called with each executed call's index and the live
    state after it, for calls of tools not marked read-only."""
    from mcp import Client

    spec = get_spec(task.server)
    plan = FaultPlan(list(task.faults if faults is True else faults or []))
    writes = {name for name, mark in spec.toolset.tool_marks() if not mark.read_only} if after_write else set()
    errors: list[str] = []
    calls = list(calls)
    steps = 0
    with spec.open(task.initial_state if start is None else start) as tools:
        initial = at_start(tools.snapshot(copy=False)) if at_start is not None else None
        server = build_mcp_server(spec, tools, only=task.available_tools if only_available else None)
        async with Client(server) as client:
            for i, call in enumerate(calls):
                failure = None
                executed = False
                for _ in range(ATTEMPTS):
                    steps += 1
                    fault = plan.next(call.tool)
                    if not executes(fault):
                        failure = f"call {i + 1} ({call.tool}) met fault {fault.kind} {ATTEMPTS} times"
                        continue
                    result = await client.call_tool(call.tool, call.arguments)
                    executed = True
                    failure = f"call {i + 1} ({call.tool}) failed: {_text(result)[:300]}" if result.is_error else None
                    break
                if executed and call.tool in writes:
                    after_write(i, tools.snapshot(copy=False))
                if failure is not None:
                    errors.append(failure)
                    if strict:
                        break
        return Replay(tools.snapshot(copy=False), errors, steps, len(calls), initial)


async def apply_calls(task: Task, calls: Iterable[ToolCall], *, only_available: bool = True, strict: bool = True):
    """``(final state, call errors)`` of ``calls`` on a fresh backend, without faults."""
    done = await replay(task, calls, only_available=only_available, strict=strict)
    return done.state, done.errors


__all__ = ["ATTEMPTS", "Replay", "apply_calls", "replay"]
