"""`mcpbench serve --host` on anything but a loopback address reaches other machines: it warns, refuses
to start without a bearer token, and with one answers every request that does not carry it with 401,
while a real MCP client sending the header works as on loopback."""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcpbench.commands._serve_http import is_loopback

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "k3H9w-test-token-0123456789abcdef"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "probe", "version": "1"}}}


def _serve(*args: str, token: str | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "MCPBENCH_SERVE_TOKEN"}
    if token is not None:
        env["MCPBENCH_SERVE_TOKEN"] = token
    return subprocess.Popen([sys.executable, "-m", "mcpbench", "serve", "slack", "--transport", "http", *args],
                            env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _announced_port(proc: subprocess.Popen, timeout: float = 60) -> tuple[int, str]:
    """The port in the line `serve` prints once it listens, and everything it printed before."""
    seen = ""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stderr, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
                break
            line = proc.stderr.readline()
            assert line, f"serve exited ({proc.poll()}) before it listened:\n{seen}"
            seen += line
            found = re.search(r"serving slack at http://\S+:(\d+)/mcp", line)
            if found:
                return int(found.group(1)), seen
    raise AssertionError(f"serve did not listen within {timeout} s:\n{seen}")


@pytest.fixture
def guarded():
    """`serve` bound to every address (0.0.0.0) with a token; yields its port and what it printed."""
    proc = _serve("--host", "0.0.0.0", "--port", "0", token=TOKEN)
    try:
        yield _announced_port(proc)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


def test_a_non_loopback_host_without_a_token_warns_and_refuses_to_start():
    proc = _serve("--host", "0.0.0.0", "--port", "0")
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"serve started on 0.0.0.0 without a token:\n{err}") from None
    assert proc.returncode == 1, err
    assert "warning: --host 0.0.0.0 is not a loopback address" in err
    assert "refusing to serve slack on 0.0.0.0: no bearer token was given (set MCPBENCH_SERVE_TOKEN" in err
    assert "serving slack" not in err


def test_a_guessable_token_is_refused_too():
    proc = _serve("--host", "0.0.0.0", "--port", "0", token="secret")
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("serve started with a six-character token") from None
    assert proc.returncode == 1 and "the bearer token must be at least 16 characters" in err


def test_the_mcp_sdk_client_sending_the_token_is_served_and_one_without_it_gets_401(guarded):
    port, printed = guarded
    assert "warning: --host 0.0.0.0 is not a loopback address" in printed and "(bearer token required)" in printed
    url = f"http://127.0.0.1:{port}/mcp"

    async def go():
        with anyio.fail_after(60):
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http, \
                    Client(streamable_http_client(url, http_client=http)) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                assert "post_message" in tools
            statuses = []

            async def record(response) -> None:
                statuses.append(response.status_code)

            async with httpx2.AsyncClient(event_hooks={"response": [record]}) as http:
                with pytest.raises(Exception):  # noqa: B017 - the SDK client fails to connect (its own error type)
                    async with Client(streamable_http_client(url, http_client=http)) as client:
                        await client.list_tools()
            assert statuses and set(statuses) == {401}, statuses

    anyio.run(go)


@pytest.mark.parametrize("authorization", [None, f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer", f"Bearer {TOKEN[:-1]}"])
def test_every_request_without_the_exact_token_is_answered_401_before_the_server(guarded, authorization):
    port, _ = guarded
    headers = {"Accept": "application/json, text/event-stream"}
    if authorization is not None:
        headers["Authorization"] = authorization
    for method, path in (("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp"), ("GET", "/anything")):
        reply = httpx2.request(method, f"http://127.0.0.1:{port}{path}", headers=headers,
                               json=INITIALIZE if method == "POST" else None, timeout=30)
        assert reply.status_code == 401, (method, path, reply.status_code, reply.text)
        assert reply.headers["www-authenticate"].startswith("Bearer")
    ok = httpx2.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, timeout=30,
                     headers={**headers, "Authorization": f"bearer {TOKEN}"})  # the scheme is case-insensitive
    assert ok.status_code == 200, ok.text


def test_loopback_needs_no_token_and_honours_one_if_given():
    assert all(map(is_loopback, ["127.0.0.1", "127.3.2.1", "localhost", "::1", "[::1]"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "myhost.example"]))
    proc = _serve("--port", "0", token=TOKEN)
    try:
        port, printed = _announced_port(proc)
        assert "warning" not in printed and "(bearer token required)" in printed
        reply = httpx2.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, timeout=30,
                            headers={"Accept": "application/json, text/event-stream"})
        assert reply.status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()
