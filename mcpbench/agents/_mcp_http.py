"""A minimal MCP client over streamable HTTP, standard library only.

The built-in baseline agents run inside the sandbox as separate processes; importing the full mcp
SDK would cost them about 1.2 s before their first call. This client speaks just what they need —
``initialize``, ``notifications/initialized``, ``tools/list`` and ``tools/call`` — over one
keep-alive connection, and accepts both JSON and server-sent-event responses. It speaks HTTP/1.1 on a
socket itself: ``http.client`` (with the ``email`` and ``ssl`` it imports) took 37 of the 60 ms that
importing this client cost, once in every sandboxed run.
"""

from __future__ import annotations

import json
import socket
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
#: The longest status or header line accepted from the server.
_MAX_LINE = 65536


class MCPProtocolError(RuntimeError):
    pass


def _split_url(url: str) -> tuple[str, int, str]:
    """``(host, port, path)`` of an ``http://host[:port][/path]`` URL (a ``ValueError`` otherwise)."""
    scheme, sep, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    if netloc.startswith("["):  # an IPv6 literal
        host, _, port = netloc[1:].partition("]")
        port = port[1:] if port.startswith(":") else ("" if not port else "x")
    else:
        host, _, port = netloc.partition(":")
    if scheme.lower() != "http" or not sep or not host or not (port == "" or port.isdigit()):
        raise ValueError(f"not an http URL: {url!r}")
    return host, int(port or 80), slash + path or "/"


class _Connection:
    """One keep-alive HTTP/1.1 connection: a request, and the response's status line, headers and body
    (sized by Content-Length, sent chunked, or ended by the server closing)."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._file = self._sock.makefile("rb")
        self._host = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.open = True

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """``(status, headers with lower-case names, body)`` of one POST."""
        head = [f"POST {path} HTTP/1.1", f"Host: {self._host}", f"Content-Length: {len(body)}"]
        for name, value in headers.items():
            if "\r" in value or "\n" in value:
                raise ValueError(f"header {name} holds a line break")
            head.append(f"{name}: {value}")
        self._sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        status, got = self._head()
        while 100 <= status < 200:  # an interim answer: the real one follows
            status, got = self._head()
        if status in (204, 304):
            data = b""
        elif "chunked" in got.get("transfer-encoding", "").lower():
            data = self._chunked()
        elif "content-length" in got:
            try:
                size = int(got["content-length"])
            except ValueError:
                raise MCPProtocolError(f"bad Content-Length {got['content-length']!r}") from None
            data = self._exactly(size)
        else:  # the body ends where the server closes
            data, self.open = self._file.read(), False
        if got.get("connection", "").lower() == "close":
            self.open = False
        return status, got, data

    def _line(self) -> bytes:
        line = self._file.readline(_MAX_LINE + 1)
        if not line:
            raise ConnectionError("the server closed the connection")
        if len(line) > _MAX_LINE:
            raise MCPProtocolError("the server sent a line longer than 64 KiB")
        return line

    def _head(self) -> tuple[int, dict[str, str]]:
        status_line = self._line().decode("latin-1")
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise MCPProtocolError(f"not an HTTP response: {status_line.strip()[:100]!r}")
        headers: dict[str, str] = {}
        while (line := self._line()) not in (b"\r\n", b"\n"):
            name, sep, value = line.decode("latin-1").partition(":")
            if not sep:
                raise MCPProtocolError(f"not an HTTP header: {line.strip()[:100]!r}")
            key, value = name.strip().lower(), value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        return int(parts[1]), headers

    def _exactly(self, size: int) -> bytes:
        data = self._file.read(size)
        if len(data) < size:
            raise ConnectionError("the server closed the connection mid-answer")
        return data

    def _chunked(self) -> bytes:
        chunks = []
        while True:
            size_text = self._line().split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise MCPProtocolError(f"bad chunk size {size_text[:20]!r}") from None
            if size == 0:
                break
            chunks.append(self._exactly(size))
            self._line()  # the line break after the chunk
        while self._line() not in (b"\r\n", b"\n"):  # trailers
            pass
        return b"".join(chunks)

    def close(self) -> None:
        self.open = False
        self._file.close()
        self._sock.close()


class MCPHttpClient:
    def __init__(self, url: str, timeout: float = 60.0) -> None:
        self.host, self.port, self.path = _split_url(url)
        self.timeout = timeout
        self.session_id: str | None = None
        self._next_id = 0
        self._conn: _Connection | None = None

    # -- transport ---------------------------------------------------------------------------
    def _connection(self) -> _Connection:
        if self._conn is None:
            self._conn = _Connection(self.host, self.port, self.timeout)
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
            status, got, data = conn.post(self.path, body, headers)
        except (OSError, MCPProtocolError):
            self.close()
            raise
        if not conn.open:
            self.close()
        if got.get("mcp-session-id"):
            self.session_id = got["mcp-session-id"]
        if status == 202 or not data:
            return None
        if status >= 400:
            raise MCPProtocolError(f"HTTP {status}: {data[:300].decode(errors='replace')}")
        if got.get("content-type", "").startswith("text/event-stream"):
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
