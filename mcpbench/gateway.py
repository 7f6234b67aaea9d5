"""The gateway: the MCP server an agent sees during one run, and the harness's own record of it.

It sits in front of a fresh backend built from the task's initial state and:
- lists only the task's ``available_tools``;
- records every ``tools/call`` (order, time, tool, arguments, listed or not, error kind, latency,
  result size) as a ``CallRecord`` — the trace every metric is computed from;
- answers a call to an unlisted tool with a tool error, without executing it (a hallucination);
- injects the task's faults (tasks_catalog/faults.py): the call is answered with the fault's error
  and not executed, or, for a partial failure (``timeout_after_commit``), executed and still answered
  with an error, so a blind retry makes the change twice;
- past ``max_steps`` answers every call with an error and marks the run over budget.

Every run's gateway is served by one shared ``GatewayHost``: a single loopback HTTP server on which
each run has its own unguessable path ``/r/<token>/mcp`` (streamable HTTP), so a run costs no new
server, socket or process.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
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

from runstore.records import REDACTED, CallRecord, ErrorKind
from servers.kit import bind_toolset, shared_mcp_server, unbind_toolset
from tasks_catalog.faults import FAULT_MESSAGES, FaultPlan, executes
from tasks_catalog.schema import Task

if TYPE_CHECKING:
    import uvicorn

#: Arguments kept in a call record, in characters (the size is always recorded in full).
ARGUMENTS_KEPT = 4096
#: The largest HTTP request body the gateway reads; larger requests are refused by the transport.
MAX_REQUEST_BYTES = 4 * 1024 * 1024



def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


class Gateway:
    """One run's gateway over ``tools`` (a live backend of ``task.server``)."""

    def __init__(self, task: Task, tools: Any, *, run_id: str, submission_id: str, redact: bool = False) -> None:
        from servers import get_spec

        #: private tasks: keep no argument or error text (they carry the month's sampled values)
        self.redact = redact
        self.task = task
        self.run_id = run_id
        self.submission_id = submission_id
        self.tools = tools
        self.backend = shared_mcp_server(get_spec(task.server))
        self.listed = set(task.available_tools)
        self.calls: list[CallRecord] = []
        self.over_budget = False
        self.faults_injected = 0
        self._faults = FaultPlan(task.faults)
        self._tool_list: list[types.Tool] | None = None
        self.server = Server(f"mcpbench-gateway-{task.server}", on_list_tools=self._list_tools,
                             on_call_tool=self._call_tool)

    # -- protocol handlers -------------------------------------------------------------------
    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        if self._tool_list is None:
            self._tool_list = [t for t in await self.backend.list_tools() if t.name in self.listed]
            self._tool_list.sort(key=lambda t: t.name)
        return types.ListToolsResult(tools=self._tool_list)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await self.call(params.name, params.arguments or {})

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Decide, execute (or not) and record one call."""
        started = time.perf_counter()
        arrived = datetime.now(UTC)
        seq = len(self.calls) + 1
        listed = name in self.listed
        kind: ErrorKind | None = None
        if seq > self.task.max_steps:
            self.over_budget = True
            kind, result = "over_budget", _error(
                f"step budget exhausted: this task allows {self.task.max_steps} tool calls")
        elif not listed:
            kind, result = "unlisted_tool", _error(
                f"unknown tool {name!r}: it is not one of this server's tools ({', '.join(sorted(self.listed))})")
        else:
            fault = self._faults.next(name)
            if fault is not None and not executes(fault):
                self.faults_injected += 1
                kind, result = "injected_fault", _error(FAULT_MESSAGES[fault.kind])
            else:
                token = bind_toolset(self.tools)
                try:
                    result = await self.backend.call_tool(name, arguments)
                except ToolError as exc:
                    result = _error(str(exc))
                finally:
                    unbind_toolset(token)
                if result.is_error:
                    kind = "tool_error"
                elif fault is not None:  # committed, but the answer is lost: the agent sees an error
                    self.faults_injected += 1
                    kind, result = "injected_fault", _error(FAULT_MESSAGES[fault.kind])
        self._record(seq, arrived, name, arguments, listed, kind, result, started)
        return result

    def _record(self, seq: int, arrived: datetime, name: str, arguments: dict[str, Any], listed: bool,
                kind: ErrorKind | None, result: types.CallToolResult, started: float) -> None:
        args_json = json.dumps(arguments, ensure_ascii=False, default=str)
        text = "".join(getattr(c, "text", "") for c in result.content)
        error_message = text[:500] if result.is_error else None
        if self.redact:
            args_kept = REDACTED
            error_message = kind if result.is_error else None
            name = name if listed else "[unlisted]"
        else:
            args_kept = args_json[:ARGUMENTS_KEPT]
        # Built without re-validation: every field is ours and typed, and this is on each call's path.
        self.calls.append(CallRecord.model_construct(
            run_id=self.run_id, submission_id=self.submission_id, task_id=self.task.id,
            server=self.task.server, seq=seq, ts=arrived, tool=name[:200],
            arguments_json=args_kept, arguments_bytes=len(args_json.encode()),
            truncated=len(args_json) > ARGUMENTS_KEPT, listed=listed, is_error=bool(result.is_error),
            error_kind=kind, error_message=error_message,
            latency_ms=(time.perf_counter() - started) * 1000, result_bytes=len(text.encode()),
        ))

    @property
    def counted_calls(self) -> int:
        """Calls counted against ``max_steps`` (calls past the budget are refused, not counted)."""
        return min(len(self.calls), self.task.max_steps)


class GatewayHost:
    """One loopback HTTP server carrying every live gateway at ``/r/<token>/mcp``."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.port: int | None = None
        self._routes: dict[str, StreamableHTTPSessionManager] = {}
        self._server: uvicorn.Server | None = None
        self._security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
        )

    async def _app(self, scope: dict, receive: Any, send: Any) -> None:
        parts = scope.get("path", "").split("/")
        manager = self._routes.get(parts[2]) if len(parts) == 4 and parts[1] == "r" and parts[3] == "mcp" else None
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
                                timeout_graceful_shutdown=1)
        self._server = server = uvicorn.Server(config)
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            with anyio.fail_after(10):
                while not server.started:
                    await anyio.sleep(0.001)
            try:
                yield self
            finally:
                server.should_exit = True
        sock.close()

    @contextlib.asynccontextmanager
    async def serve(self, gateway: Gateway) -> AsyncIterator[str]:
        """Mount ``gateway`` for the block; yields the path ``/r/<token>/mcp``."""
        if self.port is None:
            raise RuntimeError("GatewayHost is not running")
        token = secrets.token_urlsafe(18)
        manager = StreamableHTTPSessionManager(app=gateway.server, json_response=True, stateless=False,
                                               security_settings=self._security,
                                               max_request_body_size=MAX_REQUEST_BYTES)
        async with manager.run():
            self._routes[token] = manager
            try:
                yield f"/r/{token}/mcp"
            finally:
                del self._routes[token]


__all__ = ["FAULT_MESSAGES", "Gateway", "GatewayHost"]
