"""Fixtures for the sandbox tests: a stand-in gateway, host listeners the agent must not reach, a foreign
network namespace, and a bounded way to run an agent."""

from __future__ import annotations

import asyncio
import http.server
import os
import secrets
import select
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from mcpbench.sandbox import AgentProcess, ProcessOutcome, Sandbox, SandboxUnavailable, get_sandbox

PYTHON = sys.executable
RUN_BOUND_S = 60.0


def run_agent(sandbox: Sandbox, spec: AgentProcess) -> ProcessOutcome:
    """Run one agent to its outcome, failing the test if the sandbox itself hangs past a bound."""

    async def go() -> ProcessOutcome:
        return await asyncio.wait_for(sandbox.run(spec), spec.timeout_s + RUN_BOUND_S)

    return asyncio.run(go())


def python_agent(source: str, *args: str, **fields) -> AgentProcess:
    """An agent that is a Python snippet (run by the harness's own interpreter) with ``args``."""
    return AgentProcess(argv=[PYTHON, "-c", source, *args], **fields)


#: The isolating backends the shared harness tests run under. ``docker`` runs live where an engine and
#: the project's images are present (scripts/setup-docker.sh) and is skipped with the reason otherwise.
ISOLATING_BACKENDS = ["local", "docker"]


def open_backend(name: str) -> Sandbox:
    try:
        return get_sandbox(name)
    except SandboxUnavailable as exc:
        if name == "docker":
            pytest.skip(f"the docker sandbox is unavailable here: {exc}")
        raise


@pytest.fixture(params=ISOLATING_BACKENDS)
def backend(request) -> Sandbox:
    """Each isolating sandbox backend in turn: the tests that take it hold for all of them."""
    return open_backend(request.param)


class _GatewayHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self._reply(b"gateway says hello")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self._reply(body[::-1])  # echo reversed: proves both directions carried every byte

    def _reply(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class _ModelGatewayHandler(_GatewayHandler):
    def do_GET(self) -> None:
        self._reply(b"model gateway here")


class _SizeLimitedHandler(_GatewayHandler):
    """Refuses a body over 4 MiB as the MCP gateway does: 413 and close, the body left unread."""

    def do_POST(self) -> None:
        if int(self.headers["Content-Length"]) > 4 << 20:
            self.close_connection = True
            self.send_response(413)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        super().do_POST()


def _serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def gateway_port() -> Iterator[int]:
    """A tiny HTTP server on a host loopback port, standing in for the MCP gateway."""
    yield from _serve(_GatewayHandler)


@pytest.fixture
def second_endpoint() -> Iterator[int]:
    """Another loopback HTTP server, standing in for the model gateway (an ``extra_ports`` endpoint)."""
    yield from _serve(_ModelGatewayHandler)


@pytest.fixture
def size_limited_gateway() -> Iterator[int]:
    """A stand-in gateway that refuses request bodies over 4 MiB."""
    yield from _serve(_SizeLimitedHandler)


class _Listener:
    """A socket that accepts and greets every connection until closed."""

    def __init__(self, family: int, address) -> None:
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(16)
        self.address = self.sock.getsockname()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.sock], [], [], 0.1)
            if ready:
                conn, _ = self.sock.accept()
                conn.sendall(b"leak")
                conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@dataclass
class ForeignNamespace:
    name: str
    address: str
    port: int


@pytest.fixture
def foreign_namespace() -> Iterator[ForeignNamespace]:
    """A network namespace of our own, joined to the host by a veth pair, with a listener inside it."""
    if shutil.which("ip") is None:
        pytest.skip("iproute2 (`ip`) is not installed")
    tag = secrets.token_hex(3)
    ns, host_end, ns_end = f"mcpbench-test-{tag}", f"mbt{tag}a", f"mbt{tag}b"
    octet = int(tag[:2], 16)
    host_ip, ns_ip = f"10.251.{octet}.1", f"10.251.{octet}.2"
    setup = [
        ["ip", "netns", "add", ns],
        ["ip", "link", "add", host_end, "type", "veth", "peer", "name", ns_end],
        ["ip", "link", "set", ns_end, "netns", ns],
        ["ip", "addr", "add", f"{host_ip}/30", "dev", host_end],
        ["ip", "link", "set", host_end, "up"],
        ["ip", "netns", "exec", ns, "ip", "addr", "add", f"{ns_ip}/30", "dev", ns_end],
        ["ip", "netns", "exec", ns, "ip", "link", "set", ns_end, "up"],
        ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"],
    ]
    listener = None
    try:
        for command in setup:
            done = subprocess.run(command, capture_output=True, text=True, timeout=10)
            if done.returncode != 0:
                pytest.fail(f"{' '.join(command)} failed: {done.stderr.strip()}")
        serve = (
            "import socket,sys\n"
            "s=socket.socket(); s.bind((sys.argv[1],0)); s.listen(8)\n"
            "print(s.getsockname()[1], flush=True)\n"
            "while True:\n c,_=s.accept(); c.sendall(b'leak'); c.close()\n"
        )
        listener = subprocess.Popen(
            ["ip", "netns", "exec", ns, PYTHON, "-c", serve, ns_ip], stdout=subprocess.PIPE, text=True
        )
        ready, _, _ = select.select([listener.stdout], [], [], 10)
        assert ready, "the listener in the foreign namespace did not start within 10 s"
        port = int(listener.stdout.readline())
        yield ForeignNamespace(ns, ns_ip, port)
    finally:
        if listener is not None:
            listener.kill()
            listener.wait(timeout=10)
            listener.stdout.close()
        subprocess.run(["ip", "link", "del", host_end], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


@pytest.fixture
def host_listeners() -> Iterator[dict[str, tuple]]:
    """Listeners on the host the sandboxed agent must not reach: TCP v4 and v6 loopback, abstract Unix."""
    abstract = b"\0mcpbench-test-" + secrets.token_hex(4).encode()
    listeners = {
        "tcp4": _Listener(socket.AF_INET, ("127.0.0.1", 0)),
        "tcp6": _Listener(socket.AF_INET6, ("::1", 0)),
        "abstract": _Listener(socket.AF_UNIX, abstract),
    }
    yield {name: listener.address for name, listener in listeners.items()}
    for listener in listeners.values():
        listener.close()


def processes_with_marker(marker: str) -> list[int]:
    """Pids of live processes whose command line mentions ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found
