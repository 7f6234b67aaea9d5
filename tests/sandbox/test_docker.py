"""The docker backend's container specifications (checked field by field), and a live run where an engine exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.sandbox import AgentProcess, ResourceLimits, SandboxUnavailable, get_sandbox
from mcpbench.sandbox.docker import agent_container_spec, relay_container_spec

from .conftest import run_agent

SPEC = AgentProcess(
    argv=["python", "-m", "my_agent"],
    env={"TASK_BUDGET": "12"},
    gateway_port=8123,
    timeout_s=30,
    limits=ResourceLimits(memory_mb=512, pids=100, cpu_cores=1.5, file_size_mb=10),
    readonly_paths=("/srv/agent-code",),
)


def _agent() -> dict:
    return agent_container_spec(SPEC, image="python:3.11-slim", relay_name="relay-1", name="agent-1")


def _relay() -> dict:
    return relay_container_spec(8123, socket_dir=Path("/tmp/link"), image="alpine/socat", name="relay-1")


@pytest.mark.parametrize("build", [_agent, _relay], ids=["agent", "relay"])
def test_both_containers_are_locked_down(build):
    kwargs = build()
    assert kwargs["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in kwargs["security_opt"]
    assert kwargs["read_only"] is True
    assert kwargs["privileged"] is False
    assert kwargs["mem_limit"] == kwargs["memswap_limit"]  # no escape into swap
    assert "cap_add" not in kwargs and "devices" not in kwargs and "pid_mode" not in kwargs


def test_the_agent_shares_only_the_relays_loopback_network():
    assert _agent()["network_mode"] == "container:relay-1"
    assert _relay()["network_mode"] == "none"
    assert "ports" not in _agent() and "ports" not in _relay()
    assert _agent()["environment"]["MCPBENCH_MCP_URL"] == "http://127.0.0.1:8123/mcp"


def test_the_relay_leads_only_to_the_gateway_socket():
    relay = _relay()
    assert relay["command"][-2:] == [
        "TCP-LISTEN:8123,bind=127.0.0.1,fork,reuseaddr",
        "UNIX-CONNECT:/run/mcpbench/link/gateway.sock",
    ]
    assert relay["volumes"] == {"/tmp/link": {"bind": "/run/mcpbench/link", "mode": "ro"}}


def test_the_agent_container_carries_the_run_limits_and_a_private_home():
    agent = _agent()
    assert agent["mem_limit"] == "512m" and agent["pids_limit"] == 100
    assert agent["nano_cpus"] == 1_500_000_000
    assert {"name": "core", "soft": 0, "hard": 0} in agent["ulimits"]
    assert {"name": "fsize", "soft": 10 << 20, "hard": 10 << 20} in agent["ulimits"]
    assert agent["user"] == "65534:65534"
    assert set(agent["tmpfs"]) == {"/home/agent", "/tmp"} and agent["working_dir"] == "/home/agent"
    assert agent["volumes"] == {"/srv/agent-code": {"bind": "/srv/agent-code", "mode": "ro"}}
    assert agent["environment"]["TASK_BUDGET"] == "12" and "HOSTNAME" not in agent["environment"]
    assert agent["command"] == ["python", "-m", "my_agent"]


def test_an_agent_without_a_gateway_gets_no_network_at_all():
    spec = AgentProcess(argv=["agent"], timeout_s=5)
    agent = agent_container_spec(spec, image="img", relay_name=None, name="a")
    assert agent["network_mode"] == "none"
    assert "MCPBENCH_MCP_URL" not in agent["environment"]


def _docker_sandbox_or_skip():
    try:
        return get_sandbox("docker")
    except SandboxUnavailable as exc:
        pytest.skip(f"no Docker engine on this machine ({exc})")


def test_a_docker_run_reaches_the_gateway_and_nothing_else(gateway_port):
    sandbox = _docker_sandbox_or_skip()
    source = (
        "import os, socket, urllib.request\n"
        "print(urllib.request.urlopen(os.environ['MCPBENCH_MCP_URL'], timeout=5).read().decode())\n"
        "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=2); print('leak')\n"
        "except OSError:\n    print('blocked')\n"
    )
    spec = AgentProcess(argv=["python", "-c", source], gateway_port=gateway_port, timeout_s=60)
    outcome = run_agent(sandbox, spec)
    assert outcome.exit_code == 0, outcome.stderr_tail
    assert outcome.stdout_tail.splitlines() == ["gateway says hello", "blocked"]
