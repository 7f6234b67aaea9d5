"""The gateway: the MCP server an agent sees during one run, and the harness's own record of it.

It sits in front of a fresh backend built from the task's initial state (a cross-server task: one
backend per server, all behind this one gateway) and:
- lists only the task's ``available_tools``;
- records every ``tools/call`` (order, time, tool, arguments, listed or not, error kind, latency,
  result size, the result's text capped at ``RESULT_TEXT_KEPT`` bytes, the fault injected on it) as a
  ``CallRecord`` — the trace every metric is computed from, and from which a transcript is rebuilt (on a
  private month no argument, result, error text or fault is kept);
- answers a call to an unlisted tool with a tool error, without executing it (a hallucination);
- injects the task's faults (tasks_catalog/faults.py): the call is answered with the fault's error
  and not executed, or, for a partial failure (``timeout_after_commit``), executed and still answered
  with an error, so a blind retry makes the change twice;
- past ``max_steps`` answers every call with an error and marks the run over budget.

Every run's gateway is served by one shared ``GatewayHost``: a single loopback HTTP server on which
each run has its own unguessable path ``/r/<token>/mcp`` (streamable HTTP), so a run costs no new
server, socket or process.

A cross-server task's gateway answers at two kinds of address, as multi-server MCP clients see servers:
``/r/<token>/mcp`` lists every available tool of every server, named ``<server>__<tool>``, and
``/r/<token>/<server>/mcp`` lists that server's available tools under their own names. Both kinds are
one gateway: one step budget, one fault plan (counted by the task's ``<server>__<tool>`` names) and one
trace, in which each ``CallRecord`` carries the server the call went to and the tool's own name (an
unlisted name keeps what the agent sent). A single-server task has the one address and its tools'
own names, as ever.

The host's event loop carries every run at once, so nothing of one run's may hold it: a call's work
runs in a worker thread (``servers.kit.calls``), within the call time limit. A run's calls are decided,
executed and recorded one at a time, in the order they arrive, so the same calls give the same state
and trace at any concurrency. The time the agent spends waiting on the harness (``HarnessWait``: its
calls in the gateway, and any stall of the host's event loop) is measured, and not charged to its
deadline (``mcpbench.sandbox.interface.AgentProcess.waited``): a run slowed by the harness does not
run out of time for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from mcpbench.sandbox._gateway_link import contain_loop_errors
from runstore.records import REDACTED, RESULT_TEXT_KEPT, CallRecord, ErrorKind, keep_text
from servers.kit import CALL_WALL_LIMIT_S, CallTimeout, Toolset, bind_toolset, shared_mcp_server, unbind_toolset
from tasks_catalog.faults import FAULT_MESSAGES, FaultPlan, executes
from tasks_catalog.schema import Task

if TYPE_CHECKING:
    import uvicorn

if TYPE_CHECKING:
    pass

#: Arguments kept in a call record, in characters (the size is always recorded in full).
ARGUMENTS_KEPT = 4096
#: The largest HTTP request body the gateway reads; larger requests are refused by the transport.
MAX_REQUEST_BYTES = 4 * 1024 * 1024
#: How long an idle keep-alive connection stays open. uvicorn's default (5 s) turned any stall of the
#: event loop longer than that into lost calls: when the loop resumed, the idle timer closed the
#: connection on which the agent's next request was already waiting, and the agent failed.
KEEP_ALIVE_S = 120.0
#: How often the host looks at its event loop, and how late a wake-up must be to count as a stall.
LOOP_TICK_S = 0.1
LOOP_LATE_S = 0.05


class LoopWatch:
    """How long the gateway host's event loop has been stalled, in all: the host's watch wakes every
    ``LOOP_TICK_S`` (``beat()``), and a wake-up more than ``LOOP_LATE_S`` late ends a stall. Readable
    from any thread, during a stall too (the docker backend keeps its deadline in a thread of its own),
    and only ever growing: a stall going on counts as far as it has gone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = time.perf_counter()  # the last beat
        self._stalled = 0.0  # the stalls that ended

    def _going_on(self, now: float) -> float:
        late = now - self._last - LOOP_TICK_S
        return late if late > LOOP_LATE_S else 0.0

    def beat(self) -> None:
        """The watch woke: a stall before it, if any, has ended."""
        with self._lock:
            now = time.perf_counter()
            self._stalled += self._going_on(now)
            self._last = now

    def stalled(self) -> float:
        """Seconds the loop has been stalled so far, the stall going on included."""
        with self._lock:
            return self._stalled + self._going_on(time.perf_counter())


class HarnessWait:
    """How long, so far, one run's agent has waited on the harness: the time in which at least one of
    its calls within its step budget was in the gateway (queued, executing, being recorded), plus the stalls of the host's
    event loop while the gateway was mounted (during a stall the agent's requests, its link and its
    model traffic wait on the loop; a stall during a call counts twice, in the agent's favour). Safe to
    read from any thread, and only ever growing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._since = 0.0  # when the calls in flight began to be
        self._calls = 0.0  # seconds with a call in flight, of the calls that ended
        self._loop: LoopWatch | None = None  # the host's, while the gateway is mounted
        self._stalls = 0.0  # the loop's stalls: the total when mounted, then what they came to by unmounting

    def mounted(self, loop: LoopWatch | None) -> None:
        """Count ``loop``'s stalls from now on; ``None``: stop counting (the gateway was unmounted)."""
        with self._lock:
            if loop is not None:
                self._loop, self._stalls = loop, loop.stalled()
            elif self._loop is not None:
                watched = self._loop
                self._loop, self._stalls = None, watched.stalled() - self._stalls

    def begin(self) -> None:
        with self._lock:
            if self._in_flight == 0:
                self._since = time.perf_counter()
            self._in_flight += 1

    def end(self) -> None:
        with self._lock:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._calls += time.perf_counter() - self._since

    @property
    def in_flight(self) -> int:
        """The run's calls in the gateway now (queued or executing)."""
        return self._in_flight

    def seconds(self) -> float:
        with self._lock:
            calls = self._calls + (time.perf_counter() - self._since if self._in_flight else 0.0)
            stalls = self._loop.stalled() - self._stalls if self._loop is not None else self._stalls
            return calls + stalls


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def result_text(result: types.CallToolResult) -> str:
    """What the agent was answered, as text: every text block, in order, and ``[<type> content]`` for a
    block that is not text (an image, an embedded resource)."""
    return "".join(c.text if isinstance(c, types.TextContent) else f"[{getattr(c, 'type', 'unknown')} content]"
                   for c in result.content)


class Gateway:
    """One run's gateway over ``tools``: a live backend of ``task.server``, or for a cross-server task the
    live backends of its servers, keyed by server."""

    def __init__(self, task: Task, tools: Toolset | dict[str, Toolset], *, run_id: str, submission_id: str,
                 redact: bool = False) -> None:
        from servers import get_spec

        #: private tasks: keep no argument or error text (they carry the month's sampled values)
        self.redact = redact
        self.task = task
        self.run_id = run_id
        self.submission_id = submission_id
        #: the live backend of each server, keyed by server (one for a single-server task)
        self.backends: dict[str, Toolset] = dict(tools) if isinstance(tools, dict) else {task.server_names[0]: tools}
        if set(self.backends) != set(task.server_names):
            raise ValueError(f"task {task.id} runs on {', '.join(task.server_names)}; backends were given for "
                             f"{', '.join(self.backends)}")
        self._servers = {s: shared_mcp_server(get_spec(s)) for s in task.server_names}
        self.listed = set(task.available_tools)
        self.calls: list[CallRecord] = []
        self.over_budget = False
        self.faults_injected = 0
        self._faults = FaultPlan(task.faults)
        self._tool_lists: dict[str | None, list[types.Tool]] = {}
        self._order: asyncio.Lock | None = None  # the run's calls, one at a time, in arrival order (FIFO)
        self._arrivals = 0
        #: what the agent waited on the harness (not charged to its deadline)
        self.waits = HarnessWait()
        #: the MCP server at the run's address: every available tool (``<server>__<tool>`` across servers)
        self.server = self._endpoint(None)
        #: a cross-server task's MCP server per server, each listing that server's tools by their own names
        self.endpoints: dict[str, Server] = {s: self._endpoint(s) for s in task.server_names} if task.cross_server else {}

    @property
    def tools(self) -> Toolset:
        """A single-server task's live backend (``backends`` holds a cross-server task's)."""
        if self.task.cross_server:
            raise AttributeError("a cross-server task's gateway has one backend per server: use backends")
        return self.backends[self.task.server_names[0]]

    def _endpoint(self, via: str | None) -> Server:
        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=await self._tools_at(via))

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if via is None:  # the run's address: a call as a single-server task's gateway always took it
                return await self.call(params.name, params.arguments or {})
            return await self.call(params.name, params.arguments or {}, via=via)

        name = via or ("+".join(self.task.server_names) if self.task.cross_server else self.task.server_names[0])
        return Server(f"mcpbench-gateway-{name}", on_list_tools=list_tools, on_call_tool=call_tool)

    # -- protocol handlers -------------------------------------------------------------------
    async def _tools_at(self, via: str | None) -> list[types.Tool]:
        """The tools listed at the run's address (``via`` None) or at one server's own (``via``), sorted."""
        listed = self._tool_lists.get(via)
        if listed is None:
            listed = []
            for server in (via,) if via is not None else self.task.server_names:
                for tool in await self._servers[server].list_tools():
                    name = self.task.tool_name(server, tool.name)
                    if name in self.listed:
                        listed.append(tool if via is not None or name == tool.name
                                      else tool.model_copy(update={"name": name}))
            listed.sort(key=lambda t: t.name)
            self._tool_lists[via] = listed
        return listed

    async def call(self, name: str, arguments: dict[str, Any], via: str | None = None) -> types.CallToolResult:
        """Decide, execute (or not) and record one call, after every call of the run that came before it.
        ``via``: the server at whose own address the call came (its tools by their own names), or None
        for the run's address."""
        started = time.perf_counter()
        arrived = datetime.now(UTC)
        self._arrivals += 1
        # Calls are decided in arrival order, so this one is counted against the budget exactly when it
        # arrives within it: only such calls' time is the harness's (past the budget, a flood of refused
        # calls is the agent's own time, or it could make its run last as long as it liked).
        counted = self._arrivals <= self.task.max_steps
        if counted:
            self.waits.begin()
        try:
            if self._order is None:
                self._order = asyncio.Lock()
            async with self._order:
                return await self._decide(name, arguments, via, arrived, started)
        finally:
            if counted:
                self.waits.end()

    def where(self, name: str, via: str | None = None) -> tuple[str, str, bool]:
        """``(server, tool, listed)`` of a call of ``name`` at the run's address (``via`` None) or at server
        ``via``'s own: the server it goes to and the tool's own name when it is listed; else the server
        its name or address points at (the task's ``server_label`` when none) and the name as sent."""
        qualified = name if via is None else self.task.tool_name(via, name)
        route = self.task.route(qualified)
        if qualified in self.listed and route is not None:
            return route[0], route[1], True
        server = via or (route[0] if route is not None else self.task.server_label)
        return server, name, False

    async def _decide(self, name: str, arguments: dict[str, Any], via: str | None, arrived: datetime,
                      started: float) -> types.CallToolResult:
        seq = len(self.calls) + 1
        server, tool, listed = self.where(name, via)
        kind: ErrorKind | None = None
        fault = None
        if seq > self.task.max_steps:
            self.over_budget = True
            kind, result = "over_budget", _error(
                f"step budget exhausted: this task allows {self.task.max_steps} tool calls")
        elif not listed:
            here = ", ".join(t.name for t in await self._tools_at(via))
            kind, result = "unlisted_tool", _error(
                f"unknown tool {name!r}: it is not one of this server's tools ({here})")
        else:
            fault = self._faults.next(self.task.tool_name(server, tool))
            if fault is not None and not executes(fault):
                self.faults_injected += 1
                kind, result = "injected_fault", _error(FAULT_MESSAGES[fault.kind])
            else:
                token = bind_toolset(self.backends[server])
                timed_out = False
                try:
                    result = await self._servers[server].call_tool(tool, arguments)
                except ToolError as exc:
                    result, timed_out = _error(str(exc)), isinstance(exc.__cause__, CallTimeout)
                finally:
                    unbind_toolset(token)
                if result.is_error:
                    kind = "call_timeout" if timed_out else "tool_error"
                elif fault is not None:  # committed, but the answer is lost: the agent sees an error
                    self.faults_injected += 1
                    kind, result = "injected_fault", _error(FAULT_MESSAGES[fault.kind])
        # the fault is the call's only when it was injected (a call after commit whose tool failed anyway
        # answered with the tool's own error)
        self._record(seq, arrived, server, tool, arguments, listed, kind, result, started,
                     fault.kind if fault is not None and kind == "injected_fault" else None)
        return result

    def _record(self, seq: int, arrived: datetime, server: str, name: str, arguments: dict[str, Any], listed: bool,  # noqa: PLR0913 - one call's every recorded field
                kind: ErrorKind | None, result: types.CallToolResult, started: float, fault: str | None) -> None:
        args_json = json.dumps(arguments, ensure_ascii=False, default=str)
        text = "".join(getattr(c, "text", "") for c in result.content)
        error_message = text[:500] if result.is_error else None
        kept: str | None
        truncated: bool | None
        cap: int | None
        if self.redact:
            args_kept = REDACTED
            error_message = kind if result.is_error else None
            name = name if listed else "[unlisted]"
            kept = truncated = cap = fault = None
        else:
            args_kept = args_json[:ARGUMENTS_KEPT]
            (kept, truncated), cap = keep_text(result_text(result), RESULT_TEXT_KEPT), RESULT_TEXT_KEPT
        # Built without re-validation: every field is ours and typed, and this is on each call's path.
        self.calls.append(CallRecord.model_construct(
            run_id=self.run_id, submission_id=self.submission_id, task_id=self.task.id,
            server=server, seq=seq, ts=arrived, tool=name[:200],
            arguments_json=args_kept, arguments_bytes=len(args_json.encode()),
            truncated=len(args_json) > ARGUMENTS_KEPT, listed=listed, is_error=bool(result.is_error),
            error_kind=kind, error_message=error_message,
            latency_ms=(time.perf_counter() - started) * 1000, result_bytes=len(text.encode()),
            result_text=kept, result_truncated=truncated, result_cap=cap, fault=fault,
        ))

    async def settled(self, timeout_s: float = CALL_WALL_LIMIT_S) -> bool:
        """Wait, at most ``timeout_s``, until no call of the run is still executing on any backend (one
        answered at its time limit may run on); whether none is. The final state is read only then."""
        return not await self.unsettled(timeout_s)

    async def unsettled(self, timeout_s: float = CALL_WALL_LIMIT_S) -> list[str]:
        """The servers on whose backend a call still runs after waiting at most ``timeout_s`` in all."""
        deadline = time.perf_counter() + timeout_s
        return [server for server, tools in self.backends.items()
                if not await tools.calls.settled(max(0.0, deadline - time.perf_counter()))]

    @property
    def counted_calls(self) -> int:
        """Calls counted against ``max_steps`` (calls past the budget are refused, not counted)."""
        return min(len(self.calls), self.task.max_steps)


def server_path(path: str, server: str) -> str:
    """A cross-server gateway's address of ``server`` (``/r/<token>/<server>/mcp``), given the run's
    address ``path`` (``/r/<token>/mcp``, what ``GatewayHost.serve`` yields)."""
    head, sep, tail = path.rpartition("/mcp")
    if not sep or tail:
        raise ValueError(f"not a gateway path: {path!r}")
    return f"{head}/{server}/mcp"


class GatewayHost:
    """One loopback HTTP server carrying every live gateway at ``/r/<token>/mcp`` (and a cross-server
    gateway's per-server addresses at ``/r/<token>/<server>/mcp``)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.port: int | None = None
        self._routes: dict[str, StreamableHTTPSessionManager] = {}
        self.loop = LoopWatch()
        self._server: uvicorn.Server | None = None
        self._security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
        )

    async def _app(self, scope: dict, receive: Any, send: Any) -> None:
        parts = scope.get("path", "").split("/")
        manager = None
        if 4 <= len(parts) <= 5 and parts[1] == "r" and parts[-1] == "mcp":
            manager = self._routes.get("/".join(parts[2:-1]))  # "<token>", or "<token>/<server>"
        if scope["type"] != "http" or manager is None:
            body = b"no such gateway"
            await send({"type": "http.response.start", "status": 404,
                        "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[GatewayHost]:
        """Serve until the block exits."""
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit this: without it, small responses written in two parts wait
        # for the client's delayed ACK (about 40 ms per call on Linux loopback).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((self.host, 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self._app, interface="asgi3", log_level="warning", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=1, timeout_keep_alive=int(KEEP_ALIVE_S))
        self._server = server = uvicorn.Server(config)
        contain_loop_errors(asyncio.get_running_loop())
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            with anyio.fail_after(10):
                while not server.started:
                    await anyio.sleep(0.001)
            self.loop = LoopWatch()
            tg.start_soon(self._watch_loop)
            try:
                yield self
            finally:
                server.should_exit = True
        sock.close()

    async def _watch_loop(self) -> None:
        """Beat the loop watch every ``LOOP_TICK_S`` until the host ends."""
        assert self._server is not None
        while not self._server.should_exit:
            await anyio.sleep(LOOP_TICK_S)
            self.loop.beat()

    @contextlib.asynccontextmanager
    async def serve(self, gateway: Gateway) -> AsyncIterator[str]:
        """Mount ``gateway`` for the block; yields the path ``/r/<token>/mcp`` (a cross-server gateway's
        per-server addresses are ``server_path`` of it)."""
        if self.port is None:
            raise RuntimeError("GatewayHost is not running")
        token = secrets.token_urlsafe(18)
        apps = {token: gateway.server} | {f"{token}/{server}": app for server, app in gateway.endpoints.items()}
        async with contextlib.AsyncExitStack() as stack:
            managers = {}
            for route, app in apps.items():
                managers[route] = StreamableHTTPSessionManager(app=app, json_response=True, stateless=False,
                                                               security_settings=self._security,
                                                               max_request_body_size=MAX_REQUEST_BYTES)
                await stack.enter_async_context(managers[route].run())
            self._routes.update(managers)
            gateway.waits.mounted(self.loop)
            try:
                yield f"/r/{token}/mcp"
            finally:
                for route in managers:
                    del self._routes[route]
                gateway.waits.mounted(None)


__all__ = ["FAULT_MESSAGES", "Gateway", "GatewayHost", "HarnessWait", "LoopWatch", "result_text", "server_path"]
