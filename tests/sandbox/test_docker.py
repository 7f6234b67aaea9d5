"""The docker backend's container specifications, checked field by field (live runs: test_docker_live.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpbench.sandbox import AgentProcess, ResourceLimits
from mcpbench.sandbox.docker import (
    INSIDE_CLIENT,
    INSIDE_PYTHON,
    PROJECT_ROOT,
    agent_container_spec,
    image_tags,
    in_image,
    relay_container_spec,
)

#: An agent's folder: any folder that exists (the backend refuses to mount one that does not).
AGENT_CODE = str(Path(__file__).resolve().parent)

SPEC = AgentProcess(
    argv=["python", "-m", "my_agent"],
    env={"TASK_BUDGET": "12"},
    gateway_port=8123,
    timeout_s=30,
    limits=ResourceLimits(memory_mb=512, pids=100, cpu_cores=1.5, file_size_mb=10),
    readonly_paths=(AGENT_CODE,),
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
        "UNIX-CONNECT:/run/mcpbench/link/port-8123.sock",
    ]
    assert relay["volumes"] == {"/tmp/link": {"bind": "/run/mcpbench/link", "mode": "ro"}}


def test_a_relay_for_extra_ports_forwards_each_of_them_and_nothing_else():
    relay = relay_container_spec([8123, 9100], socket_dir=Path("/tmp/link"), image="relay", name="relay-1")
    script = relay["command"][-1]
    assert relay["command"][:2] == ["/bin/bash", "-c"]
    for port in (8123, 9100):
        assert f"TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr" in script
        assert f"UNIX-CONNECT:/run/mcpbench/link/port-{port}.sock" in script
    assert script.count("TCP-LISTEN") == 2 and relay["network_mode"] == "none"


def test_the_harness_python_and_project_tree_become_the_images_own():
    spec = AgentProcess(argv=[sys.executable, "-S", "-m", "mcpbench.agents.baselines", "oracle"],
                        env={"PYTHONPATH": str(PROJECT_ROOT)}, readonly_paths=(str(PROJECT_ROOT), "/srv/x"))
    inside = in_image(spec)
    assert inside.argv == [INSIDE_PYTHON, "-S", "-m", "mcpbench.agents.baselines", "oracle"]
    assert inside.env["PYTHONPATH"] == INSIDE_CLIENT and inside.readonly_paths == ("/srv/x",)
    untouched = AgentProcess(argv=["/opt/agent/run"], env={"PYTHONPATH": "/opt/agent"}, readonly_paths=("/opt/agent",))
    assert in_image(untouched) == untouched


def test_image_names_follow_the_content_of_what_they_are_built_from(monkeypatch, tmp_path):
    import mcpbench.sandbox.docker as backend

    base, agent, relay = image_tags()
    assert base.split(":")[1] == relay.split(":")[1] != agent.split(":")[1]
    for name in (*backend.RECIPE_FILES, *backend.AGENT_RECIPE_FILES, *backend.CLIENT_FILES):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((PROJECT_ROOT / name).read_bytes())
    monkeypatch.setattr(backend, "PROJECT_ROOT", tmp_path)
    assert image_tags() == (base, agent, relay)
    (tmp_path / "mcpbench/agents/baselines.py").write_text("# changed\n")
    changed = image_tags()
    assert changed[0] == base and changed[2] == relay and changed[1] != agent


def test_the_agent_container_carries_the_run_limits_and_a_private_home():
    agent = _agent()
    assert agent["mem_limit"] == "512m" and agent["pids_limit"] == 100
    assert agent["nano_cpus"] == 1_500_000_000
    assert {"name": "core", "soft": 0, "hard": 0} in agent["ulimits"]
    assert {"name": "fsize", "soft": 10 << 20, "hard": 10 << 20} in agent["ulimits"]
    assert agent["user"] == "65534:65534"
    assert set(agent["tmpfs"]) == {"/home/agent", "/tmp"} and agent["working_dir"] == "/home/agent"
    sizes = [int(options.split("size=")[1].split("m")[0]) for options in agent["tmpfs"].values()]
    assert sum(sizes) == getattr(SPEC.limits, "disk_mb", 320)  # ResourceLimits.disk_mb where the sandbox has it
    assert agent["volumes"] == {AGENT_CODE: {"bind": AGENT_CODE, "mode": "ro"}}
    assert agent["environment"]["TASK_BUDGET"] == "12" and "HOSTNAME" not in agent["environment"]
    assert agent["command"] == ["python", "-m", "my_agent"]


def test_an_agent_without_a_gateway_gets_no_network_at_all():
    spec = AgentProcess(argv=["agent"], timeout_s=5)
    agent = agent_container_spec(spec, image="img", relay_name=None, name="a")
    assert agent["network_mode"] == "none"
    assert "MCPBENCH_MCP_URL" not in agent["environment"]
