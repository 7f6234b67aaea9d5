"""The baseline agents' HTTP/1.1 client (``mcpbench.agents._mcp_http``) against a server on a raw socket,
for the answers the real gateway does not give in the other tests: chunked bodies with extensions and
trailers, interim answers, bodies ended by the close, repeated headers, and answers that are broken."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mcpbench.agents._mcp_http import MCPHttpClient, MCPProtocolError, _split_url

REPO = Path(__file__).resolve().parents[2]


class RawServer:
    """Answers each request read on its connections with the next of ``answers`` (raw bytes), and keeps
    what it read. An answer of None closes the connection without a word."""

    def __init__(self, answers: list[bytes | None]) -> None:
        self.answers, self.requests = list(answers), []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/mcp/run-1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.answers:
            conn, _ = self.sock.accept()
            with conn, conn.makefile("rb") as reader:
                while self.answers:
                    head = b""
                    while not head.endswith(b"\r\n\r\n"):
                        line = reader.readline()
                        if not line:
                            break
                        head += line
                    if not head:
                        break
                    size = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                                if line.lower().startswith(b"content-length:"))
                    self.requests.append((head.decode("latin-1"), json.loads(reader.read(size))))
                    answer = self.answers.pop(0)
                    if answer is None:
                        break
                    conn.sendall(answer)
                    if b"connection: close" in answer.lower():
                        break

    def close(self) -> None:
        self.sock.close()


def _json(status: str, body: dict, *extra: str) -> bytes:
    data = json.dumps(body).encode()
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", f"Content-Length: {len(data)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


def _chunked(status: str, body: bytes, content_type: str, *extra: str) -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Type: {content_type}", "Transfer-Encoding: chunked", *extra]
    chunks = b"".join(f"{len(part):x};ext=1\r\n".encode() + part + b"\r\n" for part in (body[:7], body[7:]) if part)
    return ("\r\n".join(head) + "\r\n\r\n").encode() + chunks + b"0\r\nX-Trailer: yes\r\n\r\n"


INIT = _json("200 OK", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}},
             "Mcp-Session-Id: session-7")
ACCEPTED = b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"


def _client(answers: list[bytes | None]):
    server = RawServer([INIT, ACCEPTED, *answers])
    client = MCPHttpClient(server.url, timeout=10)
    client.initialize()
    return server, client


def test_chunked_event_stream_answers_with_trailers_and_an_interim_answer_are_read():
    event = b'event: message\ndata: {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}]}}\n\n'
    result = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "done"}]}}
    server, client = _client([
        _chunked("200 OK", event, "text/event-stream"),
        b"HTTP/1.1 100 Continue\r\n\r\n" + _chunked("200 OK", json.dumps(result).encode(), "application/json"),
    ])
    try:
        assert client.list_tools() == [{"name": "a"}]
        assert client.call_tool("a", {"x": 1}) == (False, "done")
        heads = [head for head, _ in server.requests]
        assert len(heads) == 4 and all(h.startswith("POST /mcp/run-1 HTTP/1.1\r\n") for h in heads)
        assert all("Mcp-Session-Id: session-7" in h for h in heads[1:])  # one connection, the session kept
        assert [body.get("method") for _, body in server.requests] == \
            ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    finally:
        client.close()
        server.close()


def test_an_answer_ended_by_the_close_is_read_and_the_next_call_opens_a_new_connection():
    result = {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "one"}]}}
    again = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "two"}], "isError": True}}
    server, client = _client([
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" + json.dumps(result).encode(),
        _json("200 OK", again, "Vary: a", "Vary: b"),
    ])
    try:
        assert client.call_tool("a", {}) == (False, "one")
        assert client.call_tool("a", {}) == (True, "two")
    finally:
        client.close()
        server.close()


@pytest.mark.parametrize("answer, error, match", [
    (b"SSH-2.0-OpenSSH_9.2\r\n\r\n", MCPProtocolError, "not an HTTP response: 'SSH-2.0-OpenSSH_9.2'"),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", MCPProtocolError, "not an HTTP header"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: twelve\r\n\r\n", MCPProtocolError, "bad Content-Length 'twelve'"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", MCPProtocolError, "bad chunk size"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", ConnectionError, "mid-answer"),
    (None, ConnectionError, "closed the connection"),
    (_json("500 Internal Server Error", {"error": "boom"}), MCPProtocolError, "HTTP 500"),
])
def test_a_broken_answer_is_an_error_that_says_what_was_wrong(answer, error, match):
    server, client = _client([answer])
    try:
        with pytest.raises(error, match=match):
            client.call_tool("a", {})
        assert client._conn is None or error is MCPProtocolError  # a connection left mid-answer is dropped
    finally:
        client.close()
        server.close()


def test_urls_are_split_as_the_gateway_gives_them_and_others_are_refused():
    assert _split_url("http://127.0.0.1:8123/mcp/run-1") == ("127.0.0.1", 8123, "/mcp/run-1")
    assert _split_url("HTTP://gateway/") == ("gateway", 80, "/")
    assert _split_url("http://[::1]:9000/mcp") == ("::1", 9000, "/mcp")
    assert _split_url("http://host") == ("host", 80, "/")
    for bad in ("https://host/mcp", "host:80/mcp", "http://:80/mcp", "http://host:80x/mcp", "http://[::1]x/mcp"):
        with pytest.raises(ValueError, match="not an http URL"):
            _split_url(bad)


def test_the_baseline_agent_imports_neither_http_client_nor_email_nor_ssl():
    """What the client is for: every sandboxed baseline run imports it before its first call."""
    code = ("import sys, mcpbench.agents.baselines; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('http', 'email', 'ssl', 'urllib')))")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert out.stdout.strip() == "[]"
