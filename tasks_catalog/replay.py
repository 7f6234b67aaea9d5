"""Replaying calls on fresh backends of a task's servers through a real (in-memory) MCP client: what the
acceptance gate, its probes and the authoring tools run solutions with."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from servers import get_spec
from servers.kit import build_mcp_server
from servers.kit.recent import Recent
from servers.kit.tools import Toolset
from servers.kit.world import is_world_reference, load_world
from tasks_catalog.faults import FaultPlan, executes
from tasks_catalog.frames import ExactSame, share_unchanged
from tasks_catalog.schema import Fault, Task, ToolCall

#: How many times the oracle (and so the gate) tries a call that meets a transient fault.
ATTEMPTS = 4


#: The shared world states (``load_world(copy=False)``'s instances) that a backend which keeps its given
#: state but checks more than the state model (``Toolset.keeps_given_state``: a database loads it) has
#: opened without error, by ``id``; each entry holds its state, so that id is not reused while it is kept.
_OPENED: Recent[Any] = Recent(32)


@dataclass
class Replay:
    """A call sequence applied to a fresh backend: the final state, the errors, the calls it took. The
    states are the task's ``scoped`` ones: a cross-server task's are keyed by server."""

    state: Any
    errors: list[str]
    steps: int
    calls: int
    initial: Any = None  # what ``at_start`` made of the state before any call
    #: the servers no call went to whose state is the task's world, shared as it was loaded (``replay``)
    untouched: frozenset[str] = frozenset()

    def dump_sharing(self, start: dict[str, Any], same: ExactSame) -> dict[str, Any]:
        """``dumped(self.state)``, sharing with ``start`` (a dump of the task's initial state, scoped alike)
        every part that is the same JSON (``frames.share_unchanged``; ``same`` keeps ``start``'s forms for
        the task's other final states): the dump of a server no call went to (``untouched``: its state is
        the task's world as loaded) is that server's part of ``start`` itself."""
        if not isinstance(self.state, dict):  # a single-server task's one server
            return start if self.untouched else share_unchanged(start, self.state.dump(), same)
        return {server: start[server] if server in self.untouched else share_unchanged(start[server], state.dump(), same)
                for server, state in self.state.items()}


def dumped(state: Any) -> dict[str, Any]:
    """A task's scoped state as JSON data: the server's dump, or a cross-server task's dumps keyed by server."""
    return {server: s.dump() for server, s in state.items()} if isinstance(state, dict) else state.dump()


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def replay(task: Task, calls: Iterable[ToolCall], *, only_available: bool = True, strict: bool = True,
                 faults: bool | Iterable[Fault] = False, at_start: Callable[[Any], Any] | None = None,
                 start: Any = None, after_write: Callable[[int, Any], None] | None = None) -> Replay:
    """Apply ``calls`` to a fresh backend of ``task`` (of each of its servers) through an in-memory MCP
    client of each server, every call to the server its name names. With ``faults`` (True: the task's
    own; or the faults given), they are injected as the gateway does and met as the oracle meets them: a
    call that fails before commit is retried (up to ``ATTEMPTS`` tries, each a step); one that fails
    after commit is not. ``strict`` stops at the first error. ``at_start`` is called with the backends'
    state (``Task.scoped``) before the first call, and what it returns is the replay's ``initial``: the
    live state, to read there and then (a dump, a verdict) instead of copying a whole world to keep.
    ``start``: a scoped state to begin from instead of the task's initial state (a probe starts from the
    reference's final state). ``after_write`` is called with each executed call's index and the live
    scoped state after it, for calls of tools not marked read-only.

    A server that no call goes to and that starts from a world (a reference and patch) is not opened: its
    state stays the validated world shared in this process (``load_world(copy=False)``), which nothing
    writes to, instead of a copy made for a backend that is never called (a hard cross-server task's
    wrong solutions leave a third of their servers alone, and a world's copy is tens of milliseconds).
    Those servers are the replay's ``untouched``; its ``state`` holds them as shared, read-only instances.
    A server whose backend keeps the state it is given but loads it into a resource that may refuse it (a
    database: ``Toolset.keeps_given_state``) is left so once a backend has opened that shared state without
    error (``_OPENED``; a database's load is tens of milliseconds); one that reads its state back from a
    resource (files) is always opened."""
    from mcp import Client

    plan = FaultPlan(list(task.faults if faults is True else faults or []))
    starts = task.initial_states() if start is None else (start if task.cross_server else {task.server_names[0]: start})
    errors: list[str] = []
    calls = list(calls)
    called = {(task.route(call.tool) or (task.server_names[0],))[0] for call in calls}
    steps = 0
    async with contextlib.AsyncExitStack() as stack:
        backends: dict[str, Any] = {}
        clients: dict[str, Any] = {}
        shared: dict[str, Any] = {}  # server -> its world, not opened (no call goes to it)
        writes: set[tuple[str, str]] = set()
        for server, state in starts.items():
            spec = get_spec(server)
            plain = spec.toolset.__init__ is Toolset.__init__ and spec.toolset.snapshot is Toolset.snapshot
            keeps = spec.toolset.keeps_given_state and spec.toolset.snapshot is Toolset.snapshot
            world = None
            if is_world_reference(state) and (keeps or (plain and server not in called)):
                world = load_world(spec.state_model, state, copy=False)
                if server not in called and (plain or _OPENED.get(id(world)) is world):
                    shared[server] = world
                    continue
            backends[server] = stack.enter_context(spec.open(state if world is None else world))
            if keeps and world is not None:
                _OPENED.put(id(world), world)
            if after_write is not None:
                writes |= {(server, name) for name, mark in spec.toolset.tool_marks() if not mark.read_only}

        def scoped_state() -> Any:
            live = {server: tools.snapshot(copy=False) for server, tools in backends.items()}
            return task.scoped({server: shared[server] if server in shared else live[server] for server in starts})

        initial = at_start(scoped_state()) if at_start is not None else None
        for server, tools in backends.items():
            only = [route[1] for route in map(task.route, task.available_tools)
                    if route is not None and route[0] == server] if only_available else None
            clients[server] = await stack.enter_async_context(Client(build_mcp_server(get_spec(server), tools, only=only)))
        for i, call in enumerate(calls):
            failure = None
            executed = False
            server, tool = task.route(call.tool) or (task.server_names[0], call.tool)
            for _ in range(ATTEMPTS):
                steps += 1
                fault = plan.next(call.tool)
                if fault is not None and not executes(fault):
                    failure = f"call {i + 1} ({call.tool}) met fault {fault.kind} {ATTEMPTS} times"
                    continue
                result = await clients[server].call_tool(tool, call.arguments)
                executed = True
                failure = f"call {i + 1} ({call.tool}) failed: {_text(result)[:300]}" if result.is_error else None
                break
            if after_write is not None and executed and (server, tool) in writes:
                after_write(i, scoped_state())
            if failure is not None:
                errors.append(failure)
                if strict:
                    break
        return Replay(scoped_state(), errors, steps, len(calls), initial, frozenset(shared))


async def apply_calls(task: Task, calls: Iterable[ToolCall], *, only_available: bool = True, strict: bool = True):
    """``(final state, call errors)`` of ``calls`` on a fresh backend, without faults."""
    done = await replay(task, calls, only_available=only_available, strict=strict)
    return done.state, done.errors


__all__ = ["ATTEMPTS", "Replay", "apply_calls", "dumped", "replay"]
