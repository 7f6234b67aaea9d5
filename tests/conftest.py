"""Shared fixtures: call a server's tools through a real in-memory MCP client."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from servers import get_spec
from servers.kit import build_mcp_server


class LiveServer:
    """A server backend plus a synchronous way to call its tools over real MCP (in memory)."""

    def __init__(self, name: str, state: dict[str, Any] | None = None) -> None:
        self.spec = get_spec(name)
        self.tools = self.spec.open(self.spec.state_model.load(state or {}))
        self.server = build_mcp_server(self.spec, self.tools)

    def call(self, tool: str, **arguments: Any):
        """The ``CallToolResult`` of one call."""
        from mcp import Client

        async def go():
            with anyio.fail_after(10):
                async with Client(self.server) as client:
                    return await client.call_tool(tool, arguments)

        return anyio.run(go)

    def listed_tools(self) -> dict[str, Any]:
        """The server's tools as an MCP client lists them, by name."""
        from mcp import Client

        async def go():
            with anyio.fail_after(10):
                async with Client(self.server) as client:
                    return (await client.list_tools()).tools

        return {t.name: t for t in anyio.run(go)}

    def ok(self, tool: str, **arguments: Any) -> str:
        """The text of a successful call (fails the test on a tool error)."""
        result = self.call(tool, **arguments)
        text = "".join(getattr(c, "text", "") for c in result.content)
        assert not result.is_error, f"{tool} failed: {text}"
        return text

    def ok_json(self, tool: str, **arguments: Any) -> Any:
        return json.loads(self.ok(tool, **arguments))

    def error(self, tool: str, **arguments: Any) -> str:
        """The message of a failed call (fails the test if the call succeeded)."""
        result = self.call(tool, **arguments)
        text = "".join(getattr(c, "text", "") for c in result.content)
        assert result.is_error, f"{tool} unexpectedly succeeded: {text}"
        return text

    def state(self):
        return self.tools.snapshot()

    def close(self) -> None:
        self.tools.close()


@pytest.fixture
def live():
    """``live(name, state)`` opens a server; all are closed after the test."""
    opened: list[LiveServer] = []

    def open_(name: str, state: dict[str, Any] | None = None) -> LiveServer:
        s = LiveServer(name, state)
        opened.append(s)
        return s

    yield open_
    for s in opened:
        s.close()
