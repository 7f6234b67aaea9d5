"""The local sandbox's network: the gateway through the forwarder, and nothing else."""

from __future__ import annotations

import json

import pytest

from mcpbench.sandbox import get_sandbox
from mcpbench.sandbox._forwarder_build import compiled_forwarder

from .conftest import python_agent, run_agent

FETCH_GATEWAY = """
import os, urllib.request
url = os.environ["MCPBENCH_MCP_URL"]
print(url)
print(urllib.request.urlopen(url, timeout=5).read().decode())
payload = os.urandom(1 << 20)
reply = urllib.request.urlopen(urllib.request.Request(url, data=payload, method="POST"), timeout=10).read()
print("echo intact" if reply == payload[::-1] else "echo corrupted")
"""

PROBE = """
import json, socket, sys
targets = json.loads(sys.argv[1])
seen = {}
for name, (family, address) in targets.items():
    s = socket.socket(getattr(socket, family), socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(tuple(address) if family != "AF_UNIX" else address.encode("latin-1"))
        seen[name] = "reached: " + s.recv(16).decode()
    except OSError as exc:
        seen[name] = "blocked: " + type(exc).__name__
    finally:
        s.close()
print(json.dumps(seen))
"""


@pytest.mark.parametrize("forwarder", ["compiled", "python"])
def test_an_agent_reaches_the_gateway_through_the_forwarder(gateway_port, forwarder, monkeypatch):
    # Both forwarders carry a 1 MiB request and its 1 MiB reply intact; the compiled one is the
    # default wherever a C compiler exists, the Python one the fallback.
    if forwarder == "python":
        monkeypatch.setenv("MCPBENCH_FORWARDER", "python")
    elif compiled_forwarder() is None:
        pytest.skip("no C compiler on this machine, so the compiled forwarder cannot be built")
    outcome = run_agent(get_sandbox("local"), python_agent(FETCH_GATEWAY, gateway_port=gateway_port, timeout_s=20))
    assert outcome.exit_code == 0, outcome.stderr_tail
    lines = outcome.stdout_tail.splitlines()
    assert lines == [f"http://127.0.0.1:{gateway_port}/mcp", "gateway says hello", "echo intact"]


def test_an_agent_without_a_gateway_port_has_no_endpoint_at_all(gateway_port, backend):
    source = f"import socket; socket.create_connection(('127.0.0.1', {gateway_port}), timeout=2)"
    outcome = run_agent(backend, python_agent(source, timeout_s=20))
    assert outcome.exit_code != 0
    assert "ConnectionRefusedError" in outcome.stderr_tail


def _egress_targets(host_listeners, foreign_namespace) -> dict:
    return {
        "host tcp 127.0.0.1": ["AF_INET", list(host_listeners["tcp4"][:2])],
        "host tcp [::1]": ["AF_INET6", list(host_listeners["tcp6"][:2])],
        "host abstract unix socket": ["AF_UNIX", host_listeners["abstract"].decode("latin-1")],
        "foreign namespace": ["AF_INET", [foreign_namespace.address, foreign_namespace.port]],
    }


def test_nothing_but_the_gateway_is_reachable_from_the_sandbox(gateway_port, host_listeners, foreign_namespace,
                                                               backend):
    targets = json.dumps(_egress_targets(host_listeners, foreign_namespace))
    spec = python_agent(PROBE, targets, gateway_port=gateway_port, timeout_s=30)
    outcome = run_agent(backend, spec)
    assert outcome.exit_code == 0, outcome.stderr_tail
    seen = json.loads(outcome.stdout_tail)
    assert len(seen) == 4
    leaks = {name: result for name, result in seen.items() if not result.startswith("blocked")}
    assert leaks == {}


def test_the_same_probe_without_a_sandbox_does_reach_every_target(host_listeners, foreign_namespace):
    """The control run: proves the probe and the listeners work, so the sandboxed run's silence is real."""
    targets = json.dumps(_egress_targets(host_listeners, foreign_namespace))
    spec = python_agent(PROBE, targets, timeout_s=30)
    outcome = run_agent(get_sandbox("none", allow_unisolated=True), spec)
    assert outcome.exit_code == 0, outcome.stderr_tail
    seen = json.loads(outcome.stdout_tail)
    assert seen == dict.fromkeys(seen, "reached: leak") and len(seen) == 4
