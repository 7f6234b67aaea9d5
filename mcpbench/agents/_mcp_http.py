"""A minimal MCP client over streamable HTTP, standard library only.

The built-in baseline agents run inside the sandbox as separate processes; importing the full mcp
SDK would cost them about 1.2 s before their first call. This client speaks just what they need —
``initialize``, ``notifications/initialized``, ``tools/list`` and ``tools/call`` — over one
keep-alive connection, and accepts both JSON and server-sent-event responses.
"""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any
from urllib.parse import urlsplit

PROTOCOL_VERSION = "2025-06-18"


class MCPProtocolError(RuntimeError):
    pass


class MCPHttpClient:
    def __init__(self, url: str, timeout: float = 60.0) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"not an http URL: {url!r}")
        self.host, self.port, self.path = parts.hostname, parts.port or 80, parts.path or "/"
        self.timeout = timeout
        self.session_id: str | None = None
        self._next_id = 0
        self._conn: http.client.HTTPConnection | None = None

    # -- transport ---------------------------------------------------------------------------
    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._conn.connect()
            self._conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._conn

    def _post(self, message: dict[str, Any]) -> dict[str, Any] | None:
        body = json.dumps(message).encode()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
        }
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        conn = self._connection()
        try:
            conn.request("POST", self.path, body=body, headers=headers)
            resp = conn.getresponse()
        except (ConnectionError, http.client.HTTPException):
            self.close()
            raise
        data = resp.read()
        if resp.getheader("Mcp-Session-Id"):
            self.session_id = resp.getheader("Mcp-Session-Id")
        if resp.status == 202 or not data:
            return None
        if resp.status >= 400:
            raise MCPProtocolError(f"HTTP {resp.status}: {data[:300].decode(errors='replace')}")
        if (resp.getheader("Content-Type") or "").startswith("text/event-stream"):
            return _last_event(data, message.get("id"))
        return json.loads(data)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- protocol ----------------------------------------------------------------------------
    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            msg["params"] = params
        reply = self._post(msg)
        if reply is None:
            raise MCPProtocolError(f"no response to {method}")
        if "error" in reply:
            raise MCPProtocolError(f"{method}: {reply['error'].get('message')}")
        return reply["result"]

    def initialize(self, client_name: str = "mcpbench-baseline") -> dict[str, Any]:
        result = self.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": client_name, "version": "1"},
        })
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def list_tools(self) -> list[dict[str, Any]]:
        return self.request("tools/list", {})["tools"]

    def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """``(is_error, text)`` of one call."""
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))
        return bool(result.get("isError")), text

    def __enter__(self) -> MCPHttpClient:
        self.initialize()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _last_event(data: bytes, want_id: Any) -> dict[str, Any] | None:
    found = None
    for block in data.decode().split("\n\n"):
        payload = "\n".join(line[5:].lstrip() for line in block.splitlines() if line.startswith("data:"))
        if payload:
            msg = json.loads(payload)
            if msg.get("id") == want_id:
                found = msg
    return found
